"""Field Hazards, Traps and the Scout (BrikWars F.1, F.2, F.3) as pure rules."""


import pytest

from sandbox.core.dice import DiceExpression, DiceStream
from sandbox.core.errors import RulesError
from sandbox.rules.attacks import action_roll
from sandbox.rules.hazards import (
    EnergyShield,
    Field,
    HazardKind,
    PoweredField,
    TerrainKind,
    Trap,
    TriggerMode,
    concealed_size_modifier,
    cross_concealed,
    difficult_terrain,
    exposure_damage,
    follow_scout,
    mark_target,
    pathfinding_die,
    shield_damage,
    slippery_fall,
    tracking_reveals,
)

MINES = Field("minefield", HazardKind.CONCEALED, 6, DiceExpression.parse("2d10 Exp"))


def test_field_dice_limits():
    with pytest.raises(RulesError, match="exceed"):
        Field("puddle", HazardKind.EXPOSURE, 1, DiceExpression.parse("2d6"))
    with pytest.raises(RulesError, match="exceptional"):
        Field("hell", HazardKind.EXPOSURE, 8, DiceExpression.parse("4d4 Fire"))
    assert Field("hell", HazardKind.EXPOSURE, 8, "4d4 Fire", exceptional=True).hazard_dice == 4
    with pytest.raises(RulesError, match="no Hazard dice"):
        Field("smoke", HazardKind.SMOKE, 4, "1d6")
    with pytest.raises(RulesError, match="needs Hazard dice"):
        Field("acid", HazardKind.EXPOSURE, 4)
    assert Field("smoke", HazardKind.SMOKE, 4).height_in == 5.0
    # heroic firefighters shrink a 3" three-die house fire to 1": one die left
    house = Field("house fire", HazardKind.EXPOSURE, 3, "3d4 Fire")
    assert house.resized(1).hazard_dice == 1
    assert house.resized(0.5) is None  # the last die is gone with the last inch (F.1)


def test_powered_field_once_per_turn_and_power():
    pf = PoweredField(Field("zapper", HazardKind.EXPOSURE, 2, "2d6", powered=True))
    assert pf.activate(1, power_left_in=4) == 2.0
    with pytest.raises(RulesError, match="already activated"):
        pf.activate(1, power_left_in=4)
    with pytest.raises(RulesError, match="Power"):
        pf.activate(2, power_left_in=1)
    with pytest.raises(RulesError, match="passive"):
        PoweredField(MINES).activate(1, 10)


def test_exposure_damage_size_modifier_size_zero_and_overload():
    f = Field("radiation", HazardKind.EXPOSURE, 2, "2d6")
    r = exposure_damage(DiceStream("h", 0, forced=[2, 3]), f, exposed_size_in=4)
    assert (r.size_modifier, r.damage, r.overload_in) == (2, 7, 2.0)
    r = exposure_damage(DiceStream("h", 0, forced=[1, 1]), f, exposed_size_in=0.3)
    assert r.damage == 0   # -2 for a tiny part, floored at 0
    r = exposure_damage(DiceStream("h", 0), f, exposed_size_in=0)
    assert r.roll is None and r.damage == 2 and r.overload_in == 0
    fire = Field("bonfire", HazardKind.EXPOSURE, 1, "1d4 Fire")
    assert exposure_damage(DiceStream("h", 0, forced=[3]), fire,
                           exposed_size_in=1).fire_values == (3,)


def test_difficult_terrain_kinds():
    s = DiceStream("h", 0, forced=[4, 3, 2, 5, 5])
    mud = Field("mud", HazardKind.DIFFICULT, 2, "1d6", terrain="slow")
    assert difficult_terrain(s, mud).move_lost_in == 4
    river = Field("river", HazardKind.DIFFICULT, 2, "1d6", terrain=TerrainKind.THRUST)
    r = difficult_terrain(s, river)
    assert r.thrust_in == 3 and r.move_lost_in == 0
    ice = Field("ice", HazardKind.DIFFICULT, 2, "1d6", terrain="slippery")
    r = difficult_terrain(s, ice, moving=True, move_left_in=5)
    assert r.forced_slide_in == 2 and r.move_lost_in == 2
    wire = Field("barbed wire", HazardKind.DIFFICULT, 3, "1d6", terrain="spiked")
    assert difficult_terrain(s, wire, careful=True, move_left_in=3).move_lost_in == 3
    r = difficult_terrain(s, wire, careful=False, exposed_size_in=1)
    assert r.damage.damage == 5 and r.move_lost_in == 0
    assert slippery_fall(action_roll(DiceStream("a", 0, forced=[1]), 6, 0))
    assert not slippery_fall(action_roll(DiceStream("a", 0, forced=[2]), 6, 0))
    with pytest.raises(RulesError):
        difficult_terrain(s, MINES)


def test_concealed_minifig_scout_and_cow():
    # A minifig crossing 4" of minefield: a 3 gets him 3" in before a mine goes off.
    r = cross_concealed(DiceStream("h", 0, forced=[3]), MINES, distance_in=4, size_in=1)
    assert r.triggered and r.safe_in == 3.0
    r = cross_concealed(DiceStream("h", 0, forced=[5]), MINES, distance_in=4, size_in=1)
    assert not r.triggered and r.safe_in == 4
    r = cross_concealed(DiceStream("h", 0, forced=[1]), MINES, distance_in=4, size_in=1)
    assert r.triggered and r.safe_in == 0 and r.critical_failure
    # A Scout rolls his d8 Specialty and stops before the mine.
    r = cross_concealed(DiceStream("h", 0, forced=[2]), MINES, distance_in=4, size_in=1,
                        scout=True, specialty_die=8)
    assert r.stopped and not r.triggered and r.safe_in == 2 and r.action.rolls[0].sides == 8
    assert follow_scout(r, ["a", "b"]) == {"a": 2.0, "b": 2.0}
    # The Size 8" Cow takes -4: even a 6 is not enough for 4", and the OTT die chains.
    assert concealed_size_modifier(8).action == -4
    r = cross_concealed(DiceStream("h", 0, forced=[6, 1]), MINES, distance_in=4, size_in=8)
    assert r.triggered and r.safe_in == 3 and len(r.action.rolls) == 2
    # Size 0 never sets it off; airborne objects blow up at the point of impact.
    assert cross_concealed(DiceStream("h", 0), MINES, distance_in=4, size_in=0).immune
    r = cross_concealed(DiceStream("h", 0, forced=[2]), MINES, distance_in=3, size_in=1,
                        action_die=None, airborne=True)
    assert r.triggered and r.safe_in == 0 and r.action.rolls[0].sides == 4
    # carefully set down: only a Critical Failure sets it off
    assert not cross_concealed(DiceStream("h", 0, forced=[2]), MINES, distance_in=0,
                               size_in=1, careful_placement=True).triggered
    assert cross_concealed(DiceStream("h", 0, forced=[1]), MINES, distance_in=0, size_in=1,
                           careful_placement=True).triggered
    with pytest.raises(RulesError):
        cross_concealed(DiceStream("h", 0), MINES, distance_in=-1, size_in=1)


def test_energy_shield_blocks_matching_dice_once_per_turn():
    sh = EnergyShield("deflector", [4, 6], size_in=2)
    s = DiceStream("d", 0, forced=[3, 2, 5, 4])
    fire = DiceExpression.parse("2d4 Fire").roll(s, "flames", over_the_top=False)
    r = shield_damage(sh, fire, turn=1)
    assert r.blocked == (3,) and r.damage == 2 and r.power_in == 1
    sword = DiceExpression(2, 6).roll(s, "sword", over_the_top=False)
    r = shield_damage(sh, sword, turn=1, action_die_damage=True)
    assert r.blocked == (5,) and r.damage == 4
    again = DiceExpression.parse("1d4").roll(DiceStream("d", 0, forced=[4]), "x",
                                             over_the_top=False)
    assert shield_damage(sh, again, turn=1).blocked == ()   # spent this turn
    assert shield_damage(sh, again, turn=2).blocked == (4,)
    with pytest.raises(RulesError):
        EnergyShield("tiny", [6, 6], size_in=1)


def test_traps_and_scout_marking():
    door = Trap("blast door", "lever", TriggerMode.INTERACTION, "pull")
    assert not door.triggered_by("lever", "push") and door.triggered_by("lever", "Pull")
    bow = Trap("hidden crossbow", "rug")
    assert bow.triggered_by("rug") and bow.action_die == 4
    bow.spring()
    assert not bow.triggered_by("rug")
    bow.reset()
    assert bow.triggered_by("rug")
    with pytest.raises(RulesError):
        Trap("vault", "keypad", TriggerMode.INTERACTION)
    m = mark_target("Ranger", "sniper", distance_in=7.5, visible=True, turn=3)
    assert m.ranged_bonus.action == 1 and m.active(3) and m.active(4) and not m.active(4, True)
    with pytest.raises(RulesError, match="beyond"):
        mark_target("Ranger", "sniper", distance_in=8.5, visible=True, turn=3)
    with pytest.raises(RulesError, match="field of view"):
        mark_target("Ranger", "sniper", distance_in=2, visible=False, turn=3)
    assert pathfinding_die(6, 8, True) == 8 and pathfinding_die(6, 8, False) == 6
    assert tracking_reveals(["a", "c"], ["c", "d"]) == ("c",)


def test_a_stationary_unit_on_slippery_ground_loses_the_hazard_inches_not_its_whole_move():
    """F.1 Slippery: units not moving "remain stuck in place ..., spending their own Move inches
    equal to the Hazard inches. They may then use whatever Move inches they have remaining."""
    ice = Field("ice", HazardKind.DIFFICULT, 2, "1d6", terrain="slippery")
    r = difficult_terrain(DiceStream("h", 0, forced=[2]), ice, moving=False, move_left_in=5)
    assert r.move_lost_in == 2 and r.forced_slide_in == 0
    r = difficult_terrain(DiceStream("h", 0, forced=[6]), ice, moving=False, move_left_in=5)
    assert r.move_lost_in == 5  # never more than the Move it has
