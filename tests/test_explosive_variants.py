"""BrikWars 8.4 Explosive Variants combine: mixed dice (sums of different die sizes) from the
rules through the one explosion path, at the table, in scene scripts and in the window's
missile command. Dice are forced.

The chapter's Variant table is garbled where its die symbols were images: the "Die
Replacement" column reads "Fire", "Piercing", " Knockback", "Exp" and " Phased (cost: 2 dice)".
The reading used (and stated in each test that depends on it) takes the die sizes from the
bullet list under the table, which survived: Fire d4s, Armor Piercing d6es, Concussion d6es of
Knockback, Explosive d10s, Phased d12s for two d10s each.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from sandbox.core.dice import Dice, DiceExpression, DiceSum, parse_dice, roll_expression
from sandbox.core.errors import DiceError, RulesError, SceneError
from sandbox.engine.actions import parse_action
from sandbox.engine.game import Game
from sandbox.engine.scene import scene_from_dict
from sandbox.games.brikwars.scene_flight import ExplosiveBody
from sandbox.games.brikwars.trap_scene import TrapEntry
from sandbox.rules.damage import damage_after_deflection
from sandbox.rules.explosives import explosive_dice, ring_damage, variant_rings

REPO = Path(__file__).resolve().parents[1]
LK = "Lion Knights"


def stream(*values, name="x"):
    return Dice(0, forced={name: list(values)}).stream(name)


# ------------------------------------------------------------------ dice expressions
def test_a_dice_sum_parses_prints_and_rolls_each_die_by_its_size_and_kind():
    """Mixed dice: '1d12 Phased + 1d10 Exp' rolls a d12 then a d10; each keeps its kind; a
    plain '1d8+1' is still one expression (the '+1' is a modifier, not a term)."""
    e = parse_dice("1d12 Phased + 1d10 Exp")
    assert isinstance(e, DiceSum) and str(e) == "1d12 Phased + 1d10 Exp"
    assert (e.count, e.minimum, e.maximum, e.kinds) == (2, 2, 22, ("Phased", "Exp"))
    r = e.roll(stream(9, 4), "test")
    assert [x.sides for x in r.rolls] == [12, 10] and r.total == 13
    assert r.group_kinds == ("Phased", "Exp")
    assert isinstance(parse_dice("1d8+1"), DiceExpression)
    assert roll_expression(stream(2, 3), "1d6 Piercing + 1d4 Fire").total == 5
    with pytest.raises(DiceError):
        DiceSum.parse("1d6")  # one term is not a sum
    with pytest.raises(DiceError):
        parse_dice("1d12 Phased + 1d10 Nuclear")


def test_over_the_top_dice_of_a_sum_are_of_their_own_die():
    """8.4 / 5.x Over the Top: a die showing its highest face earns a bonus die of the same
    type (a d12's 12 earns a d12); Action Roll bonus dice are of the first-written die
    (reading: the book gives no rule for which die of a mixed roll the bonus is)."""
    # the stream gives the d12 (12), its Over the Top d12 (5), the Action Roll's bonus d12 (3),
    # then the d10 (7); the record lists the Explosive's own dice first, bonus dice last
    r = parse_dice("1d12 Phased + 1d10 Exp").roll(stream(12, 5, 3, 7), bonus_dice=1)
    assert [(x.sides, x.result) for x in r.rolls] == [(12, 12), (12, 5), (10, 7), (12, 3)]
    assert r.group_kinds == ("Phased", "Exp", "Phased") and r.n_base == 2


# ------------------------------------------------------------------ 8.4 rules
def test_xsize_3_phased_keeps_its_odd_d10():
    """8.4: "Phased weapons replace two d10s with a single d12"; an XSize 3 Explosive has one
    d10 the d12 does not buy: it stays an Explosive d10 (issue 13: 1d12 + 1d10), not dropped."""
    assert str(explosive_dice(3, "phased")) == "1d12 Phased + 1d10 Exp"
    assert str(explosive_dice(5, "phased")) == "2d12 Phased + 1d10 Exp"
    assert str(explosive_dice(4, "phased")) == "2d12 Phased"
    with pytest.raises(RulesError, match="XSize >= 2"):
        explosive_dice(1, "phased")


def test_variants_combine_in_any_mix_and_the_unswapped_d10s_stay():
    """8.4: "swapping out the d10s for any combination of Alternate Damage Dice ... The
    Explosive's XSize and other stats remain the same": one die per listed variant (Phased
    costs 2 d10s), the rest Explosive d10s; a mix costing more than the XSize is refused."""
    e = explosive_dice(4, variants=["armor_piercing", "phased"])
    assert str(e) == "1d6 Piercing + 1d12 Phased + 1d10 Exp"
    assert str(explosive_dice(3, variants=["incendiary", "incendiary", "concussion"])) == \
        "2d4 Fire + 1d6 KnockBack"
    with pytest.raises(RulesError, match="swap 4 d10s, more than the Explosive's XSize 3"):
        explosive_dice(3, variants=["phased", "phased"])
    with pytest.raises(RulesError, match="not both"):
        explosive_dice(3, "phased", variants=["incendiary"])


def test_mixed_rings_remove_the_highest_die_whatever_its_size():
    """8.4: "They remove the highest rolling dice as the Explosion radius increases, along with
    their associated Bonus Dice and secondary effects." XSize 3 Phased rolls d12 9 and d10 4:
    13 Damage within 2" (1" KnockBack from the one Explosive d10), then the 9 goes: 4 Damage
    and 1" within 4"."""
    rings = variant_rings(explosive_dice(3, "phased").roll(stream(9, 4)))
    assert [(r.damage, r.knockback_in, r.outer_in) for r in rings] == [(13, 1.0, 2.0),
                                                                        (4, 1.0, 4.0)]
    assert rings[0].kinds == ("Phased", "Exp") and rings[0].sides == (12, 10)


def test_a_tie_between_die_types_removes_the_leftover_d10_first():
    """8.4: "In the case of a tie between different die types, the attacking player chooses
    which to remove first." Reading: the attacker keeps the variant dice he paid for, so the
    kind written last (the leftover Explosive d10s) goes first: 7 and 7 leave the Phased 7."""
    rings = variant_rings(explosive_dice(3, "phased").roll(stream(7, 7)))
    assert rings[1].kinds == ("Phased",) and rings[1].damage == 7
    assert rings[1].knockback_in == 0.0  # a Phased die knocks nothing back


def test_each_die_meets_deflection_by_its_kind():
    """8.4: each Armor Piercing d6 ignores one layer of Deflection; Phased d12s "are not
    affected by a target's Deflection, no matter how many layers"; each remaining layer cancels
    the highest other die (3.3 as 8.2 words it: "negating multiple dice of Damage")."""
    phased = variant_rings(explosive_dice(3, "phased").roll(stream(9, 4)))[0]
    assert ring_damage(phased, None, deflection_layers=3) == 9   # the d10 cancelled, d12 kept
    mix = variant_rings(explosive_dice(4, variants=["armor_piercing", "phased"])
                        .roll(stream(5, 8, 6)))[0]  # d6 5, d12 8, d10 6
    assert ring_damage(mix, None, deflection_layers=0) == 19
    assert ring_damage(mix, None, deflection_layers=1) == 19     # the d6 pierced the layer
    assert ring_damage(mix, None, deflection_layers=2) == 13     # 1 layer left: the 6 goes
    assert ring_damage(mix, None, deflection_layers=9) == 8      # only the Phased 8 is left
    roll = explosive_dice(3, "phased").roll(stream(9, 4))
    assert damage_after_deflection(roll, 3) == 9


def test_concussion_and_explosive_dice_in_one_blast_knock_back_separately():
    """8.4: Concussion d6es "do no Damage of their own, but cause 1d6\\" of Knockback ...
    targets resist the KnockBack with their own Physical Opposition"; each Explosive d10
    "causes 1\\" of Knockback ... This KnockBack is not resisted"."""
    ring = variant_rings(explosive_dice(2, variants=["concussion"]).roll(stream(4, 6)))[0]
    assert ring.damage == 6 and ring.knockback_in == 5.0 and ring.resisted_in == 4.0


# ------------------------------------------------------------------ scene files
@pytest.mark.parametrize("bad, field", [
    ({"xsize": 3, "variants": ["phased", "phased"]}, "variants"),
    ({"xsize": 1, "variant": "phased"}, "variant"),
    ({"xsize": 3, "variants": ["nuclear"]}, "variants"),
])
def test_scene_variants_are_validated_with_one_line_naming_the_field(bad, field):
    """A scene's missile with a variant mix the XSize cannot pay for is refused in one line
    that names the field."""
    with pytest.raises(SceneError) as exc:
        parse_action({"type": "missile", "player": LK, "point": [0, 0, 0], **bad})
    msg = str(exc.value)
    assert "\n" not in msg and field in msg


def test_explosives_table_takes_variants_too():
    """``[[explosives]]`` bodies (bombs, Rockets, Ammo) carry Variants like a missile."""
    assert ExplosiveBody(body="b", xsize=3, variant="phased").variant == "phased"
    with pytest.raises(ValueError, match="variants"):
        ExplosiveBody(body="b", xsize=1, variants=["phased"])


def test_a_variant_bomb_goes_off_by_its_dice_and_its_stat_card_shows_them():
    """An ``[[explosives]]`` body with Variants: its stat card shows the dice before anything
    happens (reading it arms nothing), and when it is damaged (Unstable, 8.4 Premature
    Detonation) the one explosion rolls those mixed dice: XSize 3 Phased, forced 9 and 4."""
    data = tomllib.loads((REPO / "scenes" / "skirmish.toml").read_text())
    data["explosives"] = [{"body": "falcon2", "xsize": 3, "stability": "unstable",
                           "variant": "phased"}]
    data["forced_dice"] = {"explosion": [9, 4]}
    with Game(scene_from_dict(data), REPO / "scenes") as g:
        h = g.state_hash()
        assert "Explosive: 1d12 Phased + 1d10 Exp" in g.skirmish.stat_card("falcon2")
        assert g.state_hash() == h
        charge = g.blasts.charge_of("falcon2")
        assert str(charge.expression) == "1d12 Phased + 1d10 Exp"
        g.blasts.explode_body("falcon2", g.world.pose("falcon2")[0], drain=True)
        blast = next(e for e in g.events if e["type"] == "explosion")
        assert blast["rings"] == [13, 4] and blast["variant"] == "mixed"


def test_a_trap_may_hold_mixed_explosive_dice():
    """F.2 Concealed Hazards with Explosive dice explode (8.4); mixed variant dice too, but a
    mix with plain dice is not an Explosive's."""
    t = TrapEntry(id="mine", trigger="region", centre=(0, 0), effect="hazard",
                  dice="1d12 Phased + 1d10 Exp")
    assert t.dice == "1d12 Phased + 1d10 Exp"
    with pytest.raises(ValueError, match="Explosive Variant dice"):
        TrapEntry(id="mine", trigger="region", centre=(0, 0), effect="hazard",
                  dice="1d12 Phased + 1d6")


# ------------------------------------------------------------------ at the table
def _skirmish(forced: dict, **stats) -> Game:
    data = tomllib.loads((REPO / "scenes" / "skirmish.toml").read_text())
    u = next(u for u in data["units"] if u["id"] == "falcon1")
    u["stats"].update(stats)
    data["forced_dice"] = forced
    return Game(scene_from_dict(data), REPO / "scenes", referee=True)  # missiles: the referee's


def _strike(g, **kw):
    lo, hi = g.bounds("falcon1")
    return g.apply({"type": "missile", "player": LK, "point": [float(hi[0]) + 0.2,
                    float((lo[1] + hi[1]) / 2), 0.5], **kw})


@pytest.mark.parametrize("layers, expected", [(0, 13), (3, 9)])
def test_xsize_3_phased_missile_at_the_table(layers, expected):
    """8.4 through the one explosion path: an XSize 3 Phased missile rolls 1d12 + 1d10 (forced
    9 and 4) 0.2" from a unit: 13 Damage, and against 3 layers of Deflection the d12's 9 still
    lands; the one Explosive d10 knocks the unit back 1"."""
    with _skirmish({"explosion": [9, 4]}, deflection=layers, armor=30) as g:
        evs = _strike(g, xsize=3, variant="phased")
        dmg = [e["damage"] for e in evs if e["type"] == "damage" and e["body"] == "falcon1"]
        assert dmg[:1] == [expected]
        rolls = [(e["sides"], e["result"]) for e in evs
                 if e["type"] == "roll" and e["stream"] == "explosion"]
        assert rolls == [(12, 9), (10, 4)]
        kb = [e["inches"] for e in evs if e["type"] == "knockback" and e["body"] == "falcon1"]
        assert kb == [1.0]
        blast = next(e for e in evs if e["type"] == "explosion")
        assert blast["variant"] == "mixed" and blast["rings"] == [13, 4]


def test_combined_variants_from_a_scene_script_at_the_table():
    """A scripted missile with ``variants = ["armor_piercing", "concussion"]`` on XSize 3:
    1d6 Piercing + 1d6 KnockBack + 1d10 Exp (forced 5, 4, 3). The Piercing d6 ignores the one
    layer of Deflection: 5 + 3 = 8 Damage; KnockBack 1" (d10, unresisted) + 4" Concussion less
    the Size 1" minifig's Physical Opposition d6 (forced 1): 4"."""
    with _skirmish({"explosion": [5, 4, 3], "opposition": [1]}, deflection=1, armor=30) as g:
        evs = _strike(g, xsize=3, variants=["armor_piercing", "concussion"])
        dmg = [e["damage"] for e in evs if e["type"] == "damage" and e["body"] == "falcon1"]
        assert dmg[:1] == [8]
        kb = [e["inches"] for e in evs if e["type"] == "knockback" and e["body"] == "falcon1"]
        assert kb == [4.0]


def test_the_window_missile_command_builds_the_variant_and_refuses_what_cannot_be():
    """The window's V strike (Tab cycles the variant) builds the same ``missile`` action: its
    preview label shows the mixed dice; a Phased XSize 1 is refused with the rule's reason."""
    from sandbox.app.commands import CommandRefused
    from sandbox.games.brikwars.commands import BrikWarsCommands

    with _skirmish({"explosion": [9, 4]}, armor=30) as g:
        cmd = BrikWarsCommands(SimpleNamespace(session=g, selected=None))
        assert cmd.missile_dice(3, "phased") == "1d12 Phased + 1d10 Exp"
        assert cmd.missile_dice_count(3, "phased") == 2
        a = cmd.missile((0.0, 0.0, 0.5), 3, "phased")
        assert (a.xsize, a.variant) == (3, "phased")
        with pytest.raises(CommandRefused, match="XSize >= 2"):
            cmd.missile((0.0, 0.0, 0.5), 1, "phased")


def test_a_minefield_of_mixed_variant_dice_explodes_through_the_one_explosion(tmp_path):
    """F.1 Concealed Hazard with Explosive dice (a minefield) goes off through the one explosion
    path (8.4) with its mixed Variant dice: ``1d12 Phased + 1d10 Exp``, forced 9 and 4; the
    crossing minifig rolls 2 on his d6 (stream ``hazard``): 2" in, he steps on a mine. A Field
    of another kind refuses mixed dice, naming the field."""
    scene = tmp_path / "mines.toml"
    scene.write_text(f'''
name = "mixed minefield"
seed = 3
[battlefield]
width = 24.0
depth = 16.0
[[players]]
name = "Rangers"
[[fields]]
id = "mines"
hazard = "concealed"
size = 3.0
dice = "1d12 Phased + 1d10 Exp"
centre = [0.0, 0.0]
radius = 3.0
[[units]]
id = "private"
model = "{REPO / 'models' / 'guard_tower.mpd'}"
submodel = "guard.ldr"
keep_model_placement = false
owner = "Rangers"
position = [-5.0, 0.0, 0.0]
stats = {{ size = 1.0, armor = 40, move = 5.0 }}
[[actions]]
type = "cross"
player = "Rangers"
unit = "private"
to = [0.0, 0.0]
[forced_dice]
hazard = [2]
explosion = [9, 4]
''')
    from sandbox.engine.scene import load_scene

    spec, base = load_scene(scene)
    with Game(spec, base) as g:
        g.run()
        blast = next(e for e in g.events if e["type"] == "explosion")
        assert blast["rings"] == [13, 4] and blast["variant"] == "mixed"
    bad = scene.read_text().replace('hazard = "concealed"', 'hazard = "exposure"')
    scene.write_text(bad)
    with pytest.raises(SceneError, match=r"fields.*mixed dice"):
        spec, base = load_scene(scene)
        Game(spec, base).close()


def test_a_units_rocket_weapon_with_variants_previews_and_explodes_with_its_dice():
    """8.4 at the table: a unit's XSize 2 Rocket with ``variants = ["armor_piercing"]`` shows
    ``1d6 Piercing + 1d10 Exp`` in the attack preview and the stat card before the roll; fired
    (Action Roll forced 5 against Use 4), it flies as a Payload and its explosion rolls those
    dice (forced 4 and 3): 7 Damage within 2", then the d10's 3."""
    data = tomllib.loads((REPO / "scenes" / "skirmish.toml").read_text())
    u = next(u for u in data["units"] if u["id"] == "knight1")
    u["stats"]["weapons"] = [{"type": "Rocket", "size": 2, "variants": ["armor_piercing"]}]
    # an XSize 2 Rocket by hand is Long for a Size 1" minifig, which no Ranged weapon may be;
    # a Heavy standing still Compensates and holds it as Bastard (8.1 Hand-Held, Compensating)
    u["stats"]["specialties"] = ["Heavy"]
    data["forced_dice"] = {"projectile": [5], "explosion": [4, 3]}
    with Game(scene_from_dict(data), REPO / "scenes") as g:
        pv = g.skirmish.attack_preview("knight1", 0, "falcon1")
        assert pv.allowed and "Damage 1d6 Piercing + 1d10 Exp" in pv.lines()[0]
        assert any("Damage 1d6 Piercing + 1d10 Exp" in x for x in g.skirmish.stat_card("knight1"))
        evs = g.apply({"type": "attack", "player": LK, "unit": "knight1", "weapon": 0,
                       "target": "falcon1"})
        blast = next(e for e in evs if e["type"] == "explosion")
        assert blast["rings"] == [7, 3] and blast["variant"] == "mixed"
    u["stats"]["weapons"] = [{"type": "Gun", "size": 1, "variant": "phased"}]
    with pytest.raises(SceneError, match="only Rockets and Explosives have Explosive Variants"):
        scene_from_dict(data)


def test_a_shrinking_mixed_minefield_loses_its_last_written_dice_first():
    """F.1: a Field holds at most one Hazard die per inch of Size; a mixed minefield resized
    below its dice drops the dice written last (the same reading as the rings' ties)."""
    from sandbox.rules.hazards import Field, HazardKind

    f = Field("mines", HazardKind.CONCEALED, 3, "1d12 Phased + 1d10 Exp + 1d6 Piercing")
    assert str(f.resized(2).dice) == "1d12 Phased + 1d10 Exp"
    assert str(f.resized(1).dice) == "1d12 Phased" and f.resized(0.5) is None
