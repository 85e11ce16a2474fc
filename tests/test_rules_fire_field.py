"""Fires on objects as Field Hazards (BrikWars F.1 Fire, 8.3): the book's examples first."""

import pytest

from sandbox.core.dice import DiceExpression, DiceStream
from sandbox.core.errors import RulesError
from sandbox.rules.damage import ArmorOutcome, compare_damage_to_armor
from sandbox.rules.fire import FireOutcome, fire_outcome
from sandbox.rules.fire_field import (
    FireType,
    ObjectFire,
    PermanentFire,
    burning_roll,
    catch_fire,
    catch_fire_from_roll,
    catching_dice,
    fight_fire,
    max_fire_size_in,
    on_fire_modifiers,
    submerge,
)
from sandbox.rules.stats import BattleState, UnitKind, UnitSpec


def test_von_bragstein_boiler_mech_turn_by_turn():
    """F.1 Fire Example: Size 4", Weight class 2; 1d10 Exp + 1d4 Fire rolls 5 and 3."""
    s = DiceStream("fire", 0, forced=[5, 3, 3, 1, 3, 3, 4])
    exp = DiceExpression.parse("1d10 Exp").roll(s, "boiler explosion")
    fire_dmg = DiceExpression.parse("1d4 Fire").roll(s, "boiler explosion")
    assert (exp.total, fire_dmg.total) == (5, 3)
    # Turn one: not enough to dent the Armor roll of 12 ...
    assert compare_damage_to_armor(exp.total + fire_dmg.total, 12) is ArmorOutcome.HELD
    # ... but the 3 beats Weight class 2: a 1" Fire on the boiler.
    mech = BattleState(UnitSpec("boiler-mech", UnitKind.VEHICLE, size_in=4, weight_class=2,
                                armor="3d6"))
    assert fire_outcome(fire_dmg, mech) is FireOutcome.HAZARD_CHECK
    fire, caught = catch_fire_from_roll(None, fire_dmg, target="boiler-mech", object_size_in=4,
                                        weight_class=2, controller="von Bragstein")
    assert caught.started and fire.size_in == 1
    # Turn two: a 3 on one die: one Grinding Damage, the Fire spreads onto the cockpit roof.
    r2 = burning_roll(s, fire)
    assert (r2.naturals, r2.grinding_damage, r2.size_after) == ((3,), 1, 2)
    # Turn three: 1 and 3: the boiler goes out, the cannon arm's shoulder catches: still 2".
    r3 = burning_roll(s, fire)
    assert (r3.naturals, r3.died_down, r3.grinding_damage, r3.size_after) == ((1, 3), 1, 1, 2)
    # Turn four: 3 and 4: Grinding Damage totals four, fully engulfed at 4".
    r4 = burning_roll(s, fire)
    assert (r4.naturals, r4.grown_in, r4.size_after) == ((3, 4), 2, 4)
    assert fire.grinding_damage == 4
    assert fire.engulfed and r4.new_fires == 0
    assert fire.history == [1, 2, 2, 4]
    assert [r.reason for r in s.records[2:]] == ["Burning Roll (boiler-mech)"] * 5


def test_catching_fire_counts_dice_above_weight_class_after_out_of_range():
    # Burnination's third peasant: 3, 1, 2 (+2 OTT) at -1 per die -> 2, 0, 1, 1.
    s = DiceStream("f", 0, forced=[3, 1, 2, 2])
    roll = DiceExpression.parse("3d4 Fire").roll(s, "FlameThrower", per_die_modifier=-1,
                                                 bonus_dice=1)
    assert roll.values == (2, 0, 1, 1)
    assert catching_dice(roll.values, 1) == 1
    assert catching_dice([4, 3, 1], 1) == 2
    fire, res = catch_fire(None, roll.values, target="hut", object_size_in=3, weight_class=1)
    assert res.started and res.grown_in == 0 and fire.size_in == 1
    fire, res = catch_fire(fire, [4, 3, 1], target="hut", object_size_in=3, weight_class=1)
    assert not res.started and res.grown_in == 2 and fire.size_in == 3
    # the same dice do nothing to a heavier object
    fire, res = catch_fire(None, roll.values, target="tank", object_size_in=6, weight_class=3)
    assert fire is None and res.catching == 0 and res.size_after == 0


def test_growth_stops_at_object_size_and_overflow_spreads():
    fire = ObjectFire("cart", 2, 1, size_in=2)
    fire, res = catch_fire(fire, [4, 4], target="cart", object_size_in=2, weight_class=1)
    assert res.grown_in == 0 and fire.size_in == 2
    s = DiceStream("f", 0, forced=[3, 4])
    r = burning_roll(s, fire)
    assert (r.grinding_damage, r.grown_in, r.new_fires) == (2, 0, 2)
    s.force(3, 4)
    assert burning_roll(s, fire, neighbours=1).new_fires == 1
    assert burning_roll(DiceStream("f", 0, forced=[3, 4]), fire, neighbours=0).new_fires == 0


def test_fire_dies_down_on_ones_and_low_rolls_and_goes_out():
    fire = ObjectFire("wagon", 3, 3, size_in=2)
    r = burning_roll(DiceStream("f", 0, forced=[1, 3]), fire)
    assert r.extinguished and r.died_down == 2 and fire.size_in == 0
    with pytest.raises(RulesError, match="not on Fire"):
        burning_roll(DiceStream("f", 0), fire)


def test_alternate_fire_types():
    acid = ObjectFire("robot", 4, 1, size_in=2, fire_type=FireType.ACID)
    r = burning_roll(DiceStream("f", 0, forced=[4, 4]), acid)
    assert (r.grinding_damage, r.grown_in, r.size_after, r.new_fires) == (2, 0, 2, 0)
    ion = ObjectFire("robot", 4, 1, size_in=2, fire_type="Ion")
    r = burning_roll(DiceStream("f", 0, forced=[4, 1]), ion)
    assert (r.grinding_damage, r.grown_in, r.size_after) == (0, 0, 1)
    poison = ObjectFire("troll", 2, 1, size_in=2, fire_type=FireType.POISON)
    r = burning_roll(DiceStream("f", 0, forced=[4, 4]), poison)
    assert (r.grinding_damage, r.new_fires) == (2, 0)


def test_extinguishing_and_on_fire_effects():
    fire = ObjectFire("house", 5, 1, size_in=5)
    assert fight_fire(fire, 3) == 3 and fire.size_in == 2   # three minifigs with buckets
    assert fight_fire(fire, 5) == 2 and not fire.burning   # a Size 5" Hose
    fire = ObjectFire("boat", 4, 1, size_in=3)
    assert submerge(fire) == 3 and fire.size_in == 0
    with pytest.raises(RulesError):
        fight_fire(fire, -1)
    golem = ObjectFire("wooden golem", 4, 1, size_in=3)
    assert golem.power_limit_in(8) == 5.0
    act, arm = on_fire_modifiers()
    assert act.action == -1 and arm.action == -1
    assert on_fire_modifiers(designed_to_burn=True) is None
    assert str(golem.hazard_dice) == "1d4 Fire"


def test_permanent_fires_and_limits():
    assert [str(p.dice) for p in PermanentFire] == ["1d4 Fire", "2d4 Fire", "3d4 Fire", "4d4 Fire"]
    assert max_fire_size_in(0) == 1
    with pytest.raises(RulesError):
        ObjectFire("brick", 1, 1, size_in=2)
    with pytest.raises(RulesError):
        catching_dice([3], -1)
    with pytest.raises(RulesError, match="not Fire Damage"):
        catch_fire_from_roll(None, DiceExpression.parse("1d6").roll(DiceStream("x", 0)),
                             target="x", object_size_in=1, weight_class=1)
