"""BrikWars 8.2 Close Combat for Creations: the rules (pure, forced dice) and the table (the
engine's ``parry``, ``shove``, ``grab``, ``angry_inch`` and Melee ``attack``), on the scene
``scenes/creation_close_combat.toml`` (an operated AT-TE walker, a piloted tractor, two
knights); and Ranged Range measured from the end of the barrel (8.2)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

from sandbox.core.dice import Dice, DiceExpression
from sandbox.core.errors import RulesError
from sandbox.engine.game import Game
from sandbox.engine.scene import scene_from_dict
from sandbox.rules.close_combat import (
    Combatant,
    angry_inch_refusal,
    grab_use,
    knock_away_inches,
    parried_damage,
    parry_modifiers,
    parry_refusal,
    resolve_parry,
    resolve_shove_or_grab,
    shove_knockback_in,
    shove_refusal,
)
from sandbox.rules.weapons import weapon_profile

REPO = Path(__file__).resolve().parents[1]
REP, FARM = "Republic", "Farmers"
WALKER = Combatant("AT-TE walker", 4.0, True, "operator")
TRACTOR = Combatant("tractor", 2.0, True, "pilot")
KNIGHT = Combatant("knight", 1.0)


def _stream(*values):
    return Dice(0, forced={"s": list(values)}).stream("s")


# ------------------------------------------------------------------------------ pure rules
def test_melee_weapon_and_shield_scale_with_weapon_size():
    """BrikWars 8.2 Close Combat Weapons: Melee Weapon Use +1 (per inch of Weapon Size),
    Damage × Action die; Melee Shield Use ×2, × Deflection on Parry, 2" KnockBack on Shove."""
    sword = weapon_profile("Melee Weapon", 3)
    assert (sword.use, str(sword.damage.with_action_die(8))) == (4, "3d8")
    shield = weapon_profile("Melee Shield", 3)
    assert (shield.use, shield.deflection_on_parry, shield.shove_knockback_in) == (6, 3, 2.0)


def test_a_parry_acts_as_an_attack_on_the_incoming_weapon_with_its_target_size_bonus():
    """BrikWars 8.2 Parrying: "+1 to the Action Roll for every 2" in the Weapon Size of the
    weapon being Parried"; a Melee Weapon's successful Parry stops the blow."""
    assert parry_modifiers(KNIGHT, KNIGHT, weapon_profile("Melee Weapon", 1)) == []
    assert [m.action for m in parry_modifiers(KNIGHT, KNIGHT,
                                              weapon_profile("Melee Weapon", 3))] == [1]
    sword = weapon_profile("Melee Weapon", 1)  # Use 2
    mods = parry_modifiers(KNIGHT, WALKER, weapon_profile("Melee Weapon", 4))  # +2
    ok = resolve_parry(_stream(2), sword, 6, mods)  # a natural 2, +2: 4 reaches Use 2
    assert ok.success and ok.blocks and not ok.knocked_away
    roll = DiceExpression(4, 6).roll(_stream(6, 5, 4, 3, 2), "blow", over_the_top=False)
    assert parried_damage(roll, ok) == 0


def test_a_shield_parry_adds_layers_of_deflection_equal_to_its_weapon_size():
    """BrikWars 8.2: "A successful Parry with a Melee Shield adds layers of Deflection equal to
    the Shield's Weapon Size, potentially negating multiple dice of Damage all at once"."""
    shield = weapon_profile("Melee Shield", 2)  # Use 4
    res = resolve_parry(_stream(4), shield, 6)
    assert res.success and not res.blocks and res.deflection_layers == 2
    roll = DiceExpression(3, 6).roll(_stream(5, 2, 4), "blow", over_the_top=False)
    assert parried_damage(roll, res) == 2  # the 5 and the 4 are cancelled
    miss = resolve_parry(_stream(3), shield, 6)
    assert not miss.success and parried_damage(roll, miss) == 11


def test_a_critically_failed_parry_knocks_the_weapon_away_by_the_attackers_action_roll():
    """BrikWars 8.2: "A critical failure when Parrying results in the Parrying weapon ...
    being knocked out of the defender's hands and directly away from the attacker for a number
    of inches equal to the attacker's Action Roll"."""
    res = resolve_parry(_stream(1), weapon_profile("Melee Weapon", 1), 6,
                        parry_modifiers(KNIGHT, KNIGHT, weapon_profile("Melee Weapon", 4)))
    assert res.knocked_away and not res.success
    from sandbox.rules.attacks import action_roll
    attack = action_roll(_stream(5), 6, 5)
    assert knock_away_inches(attack) == 5
    assert knock_away_inches(None, _stream(3)) == 3  # a Shove rolled none: the Action die


def test_mindless_creations_cannot_parry_unless_a_piloted_vehicle():
    """BrikWars 8.2 Mindless: "a Creation being controlled by an operator lacks the reflexes to
    Counter or Counterattack, unless it's a Vehicle controlled by a trained Pilot"."""
    sword = weapon_profile("Melee Weapon", 2)
    assert "Mindless" in parry_refusal(WALKER, Combatant("big", 4, True), sword)
    assert parry_refusal(TRACTOR, KNIGHT, sword) == ""
    assert parry_refusal(KNIGHT, WALKER, sword) == ""  # a minifig is independent


def test_too_large_creations_cannot_parry_small_opponents_and_roll_their_size_to_grab():
    """BrikWars 8.2 Too Large: "Creations can't Parry Close Combat attacks from opponents
    smaller than half their own Size, and their Shoves and Grabs aren't Automatic Hits ...
    a Use rating equal to the size of the Creation"."""
    piloted = Combatant("piloted walker", 4.0, True, "pilot")
    sword = weapon_profile("Melee Weapon", 2)
    assert "Too Large" in parry_refusal(piloted, KNIGHT, sword)
    assert parry_refusal(piloted, TRACTOR, sword) == ""  # 2" is not below half of 4"
    assert grab_use(WALKER, KNIGHT) == 4 and grab_use(WALKER, TRACTOR) is None
    miss = resolve_shove_or_grab(_stream(3), WALKER, KNIGHT)
    hit = resolve_shove_or_grab(_stream(4), WALKER, KNIGHT)
    assert (miss.automatic, miss.hit, hit.hit) == (False, False, True)
    auto = resolve_shove_or_grab(_stream(), KNIGHT, WALKER)
    assert auto.automatic and auto.hit


def test_too_small_creations_shove_their_size_or_team_up_and_big_shoves_are_hard_to_parry():
    """BrikWars 8.2 Too Small: "Creations can only Shove targets their own Size or smaller ...
    adding their Sizes together in a Combined Attack. Shoves from larger Creations are Parried
    with a -2 Action penalty for every inch of Size difference"."""
    assert "Too Small" in shove_refusal([TRACTOR], WALKER)
    assert shove_refusal([TRACTOR, Combatant("tractor 2", 2.0, True, "pilot")], WALKER) == ""
    assert shove_refusal([WALKER], TRACTOR) == ""
    mods = parry_modifiers(TRACTOR, WALKER, None, shove=True)
    assert [m.action for m in mods] == [-4]
    assert [m.action for m in parry_modifiers(TRACTOR, Combatant("3.5", 3.5, True), None,
                                              shove=True)] == [-4]  # any part of an inch
    assert shove_knockback_in(4, 2) == 3.0  # 1" + 2" Size KnockBack (8.1)
    assert shove_knockback_in(1, 1, weapon_profile("Melee Shield", 1)) == 2.0
    with pytest.raises(RulesError):
        shove_knockback_in(1, 1, weapon_profile("Melee Weapon", 1))


def test_unmoving_creations_have_no_angry_inch():
    """BrikWars 8.2 Unmoving: "Creations without some kind of obvious leaping ability cannot
    use an Angry Inch when making attacks"."""
    assert "Unmoving" in angry_inch_refusal(WALKER)
    assert angry_inch_refusal(Combatant("frog mech", 3, True, leaping=True)) == ""
    assert angry_inch_refusal(KNIGHT) == ""


# ------------------------------------------------------------------------------ at the table
def _game(ldrawdir, forced=None, edit=None) -> Game:
    data = tomllib.loads((REPO / "scenes" / "creation_close_combat.toml").read_text())
    data["actions"], data["forced_dice"] = [], forced or {}
    data.pop("expect", None)
    if edit is not None:
        edit(data)
    return Game(scene_from_dict(data), REPO / "scenes", ldrawdir=ldrawdir)


def _types(g, n0):
    return [e["type"] for e in g.events[n0:]]


def _end(g, times=1):
    for _ in range(times):
        g.end_turn()


def test_table_shield_parry_deflects_a_sword_and_the_preview_shows_it(ldrawdir):
    """BrikWars 8.2 at the table: a Parry order, then an enemy's Melee attack: the preview
    lists the Parry (Use, Deflection) before the roll; the Shield's layer cancels the die."""
    with _game(ldrawdir, {"attack": [5, 5], "parry": [4]}) as g:
        g.apply({"type": "parry", "player": REP, "unit": "rknight", "weapon": 1})
        _end(g)
        lines = g.skirmish.attack_preview("fknight", 0, "rknight").lines()
        assert any("Sir Rex will Parry with shield: Use 2" in x and "+1 Deflection" in x
                   for x in lines)
        n = len(g.events)
        g.apply({"type": "attack", "player": FARM, "unit": "fknight", "weapon": 0,
                 "target": "rknight"})
        parry = next(e for e in g.events[n:] if e["type"] == "parry")
        assert parry["success"] and parry["deflection"] == 1
        dmg = next(e for e in g.events[n:] if e["type"] == "damage")
        assert dmg["damage"] == 0 and not g.bodies["rknight"].damage.destroyed


def test_table_mindless_walker_refused_a_parry_order_and_piloted_tractor_allowed(ldrawdir):
    """BrikWars 8.2 Mindless at the table: the operated walker's Parry order is refused with
    the rule's reason; the piloted tractor's is accepted."""
    with _game(ldrawdir) as g:
        with pytest.raises(RulesError, match="Mindless"):
            g.apply({"type": "parry", "player": REP, "unit": "walker", "weapon": 0})
        with pytest.raises(RulesError, match="has no weapon 5"):
            g.apply({"type": "parry", "player": REP, "unit": "rknight", "weapon": 5})
        _end(g)
        g.apply({"type": "parry", "player": FARM, "unit": "tractor", "weapon": 0})
        assert g.close_combat.parry_orders == {"tractor": 0}
        lines = g.skirmish.attack_preview("fknight", 0, "walker").lines()
        assert any("AT-TE walker cannot Parry" in x and "Mindless" in x for x in lines)


def test_table_shove_pushes_for_real_and_a_critical_parry_throws_the_blade(ldrawdir):
    """BrikWars 8.2 Shove at the table: an Automatic Hit; the tractor's Parry at -4 (2" of
    Size difference) fails critically: its blade (LDraw part 3001) is thrown the walker's
    Action die, 4", directly away from the walker, and is gone; the Shove's KnockBack
    (1" + 2" Size difference) pushes the tractor away through physics."""
    with _game(ldrawdir, {"parry": [1, 4]}) as g:
        _end(g)
        g.apply({"type": "parry", "player": FARM, "unit": "tractor", "weapon": 0})
        _end(g)
        before = g.footprint_centre("tractor").copy()
        walker = g.footprint_centre("walker").copy()
        preview = g.close_combat.preview(g.close_combat.actions[1](
            type="shove", player=REP, unit="walker", target="tractor"))
        assert any("-2 per inch" in x and "-4" in x for x in preview)
        assert any('KnockBack 3"' in x for x in preview)
        n = len(g.events)
        g.apply({"type": "shove", "player": REP, "unit": "walker", "target": "tractor"})
        parry = next(e for e in g.events[n:] if e["type"] == "parry")
        assert parry["critical_failure"] and parry["total"] == 1 - 4
        away = next(e for e in g.events[n:] if e["type"] == "knocked_away")
        assert away["inches"] == 4 and away["thrown"] in g.bodies
        blade = g.footprint_centre(away["thrown"])
        out = (blade - before) @ ((before - walker) / np.linalg.norm(before - walker))
        assert out > 1.0  # thrown away from the walker
        moved = g.footprint_centre("tractor") - before
        assert np.linalg.norm(moved) > 1.5 and moved @ (before - walker) > 0
        assert "tractor#0" in g.close_combat.knocked_away
        _end(g)
        with pytest.raises(RulesError, match="knocked out of its hands"):
            g.apply({"type": "parry", "player": FARM, "unit": "tractor", "weapon": 0})


def test_table_too_small_shove_refused_and_a_combined_attack_allowed(ldrawdir):
    """BrikWars 8.2 Too Small at the table: the 2" tractor cannot Shove the 4" walker alone
    (refused with the rule's reason, nothing rolled); with a second 2" tractor in a Combined
    Attack the Sizes add up to 4" and the Shove is played."""
    def edit(data):
        t2 = dict(next(c for c in data["creations"] if c["id"] == "tractor"))
        t2.update(id="tractor2", name="second tractor", position=[-3.0, 3.6, 0.0])
        data["creations"].append(t2)

    with _game(ldrawdir, edit=edit) as g:
        _end(g)
        if g.measure("tractor2", "walker").inches > 0.5:
            g.apply({"type": "move", "player": FARM, "unit": "tractor2",
                     "to": [-3.0, 2.45 + 0.85]})
        n = len(g.dice.records())
        with pytest.raises(RulesError, match="Too Small"):
            g.apply({"type": "shove", "player": FARM, "unit": "tractor", "target": "walker"})
        assert len(g.dice.records()) == n
        g.apply({"type": "shove", "player": FARM, "unit": "tractor", "target": "walker",
                 "helpers": ["tractor2"]})
        assert {"tractor", "tractor2"} <= g.skirmish.turn_state.acted
        assert any(e["type"] == "shoved" and e["body"] == "walker" for e in g.events)


def test_table_grab_holds_the_target_and_too_large_grabs_roll_its_size(ldrawdir):
    """BrikWars 8.2 Grab at the table: an Automatic Hit between knights holds the target (its
    moves refused) until the grabber's next turn; the Too Large walker's Grab of a knight rolls
    its Action die against Use 4 (its Size): a 3 misses."""
    def edit(data):
        next(u for u in data["units"] if u["id"] == "fknight")["position"] = [-3.0, -3.3, 0.0]

    with _game(ldrawdir, {"attack": [3]}, edit) as g:
        n = len(g.events)
        g.apply({"type": "grab", "player": REP, "unit": "walker", "target": "fknight"})
        roll = next(e for e in g.events[n:] if e["type"] == "action_roll")
        assert roll["use"] == 4 and not roll["hit"]
        assert "fknight" not in g.close_combat.holds
    with _game(ldrawdir) as g:
        g.apply({"type": "grab", "player": REP, "unit": "rknight", "target": "fknight"})
        assert g.close_combat.holds == {"fknight": "rknight"}
        _end(g)
        with pytest.raises(RulesError, match="held by Sir Rex's Grab"):
            g.apply({"type": "move", "player": FARM, "unit": "fknight", "to": [5.0, 5.0]})
        _end(g)
        assert g.close_combat.holds == {}


def test_table_angry_inch_refused_for_unmoving_walker_and_played_by_a_knight(ldrawdir):
    """BrikWars 8.2 Unmoving at the table: the walker's Angry Inch is refused; a knight 1.3"
    from his foe lunges into base contact beyond his Move (5.2 reading)."""
    def edit(data):
        next(u for u in data["units"] if u["id"] == "fknight")["position"] = [4.5, 4.0, 0.0]

    with _game(ldrawdir, edit=edit) as g:
        with pytest.raises(RulesError, match="Unmoving"):
            g.apply({"type": "angry_inch", "player": REP, "unit": "walker",
                     "target": "tractor"})
        d0 = g.measure("rknight", "fknight").inches
        assert 0.5 < d0 <= 1.5
        g.apply({"type": "angry_inch", "player": REP, "unit": "rknight", "target": "fknight"})
        assert g.measure("rknight", "fknight").inches <= 0.5
        assert g.skirmish.move_allowance("rknight") == 5.0  # beyond its Move


def test_ranged_range_is_measured_from_the_end_of_the_barrel(ldrawdir):
    """BrikWars 8.2 Ranged Weapons: "Both the firing angle and the weapon Range are measured
    from the end of the weapon barrel": the walker's laser cannon names its LDraw part (63965,
    the Bar 6L): the preview measures from that part's far end, not the base edge."""
    with _game(ldrawdir) as g:
        end = g.close_combat.barrel_end("walker", 1)
        assert end is not None
        lo, hi = g.bounds("walker")
        assert lo[1] - 0.05 <= end[1] <= lo[1] + 0.5  # the muzzle at the walker's front
        pv = g.skirmish.attack_preview("walker", 1, "fknight")
        assert pv.measured_from == "barrel end"
        assert pv.distance_in == pytest.approx(g.measure(end, "fknight").inches)
        assert pv.distance_in != pytest.approx(g.measure("walker", "fknight").inches)
        assert any("barrel end" in x for x in pv.lines())
        assert g.close_combat.barrel_end("walker", 0) is None  # no part: the base edge


def test_window_commands_build_the_close_combat_actions_with_a_preview(ldrawdir):
    """BrikWars 8.2 from the window's command keys (``;`` and ``'``): the preview of a Shove
    shows the Automatic Hit, the target's Parry and its modifiers before any die is rolled;
    the built actions play through the engine like scripted ones."""
    from types import SimpleNamespace

    from sandbox.app.commands import CommandRefused
    from sandbox.games.brikwars.commands import BrikWarsCommands

    with _game(ldrawdir, {"parry": [6]}) as g:
        app = SimpleNamespace(session=g, selected="rknight")
        cmd = BrikWarsCommands(app)
        g.apply(cmd.parry(1))
        assert g.close_combat.parry_orders == {"rknight": 1}
        _end(g)
        app.selected = "fknight"
        n = len(g.dice.records())
        lines = cmd.close_combat_preview("shove", "rknight", 1)
        assert len(g.dice.records()) == n
        assert lines[0].startswith("Shove: Farmer Giles") and "Automatic Hit" in lines[1]
        assert any("Sir Rex will Parry with shield: Use 2" in x for x in lines)
        assert any('KnockBack 2"' in x for x in lines)  # the Shield's 2" (8.2)
        g.apply(cmd.close_combat("shove", "rknight", 1))
        parry = next(e for e in g.events if e["type"] == "parry")
        assert parry["success"] and parry["blocks"]  # a Parried Shove is stopped
        app.selected = None
        with pytest.raises(CommandRefused):
            cmd.parry(None)


def test_the_rules_docstring_examples_hold():
    """BrikWars 8.2: the examples in :mod:`sandbox.rules.close_combat`'s docstrings."""
    import doctest

    import sandbox.rules.close_combat as cc

    result = doctest.testmod(cc)
    assert result.failed == 0 and result.attempted >= 8


def test_table_too_large_piloted_walker_cannot_parry_a_knight_and_a_partless_weapon_is_logged(
        ldrawdir):
    """BrikWars 8.2 at the table: a piloted (not Mindless) Size 4" walker may take a Parry
    order, but the preview of a knight's sword blow says it cannot Parry him (Too Large: the
    knight is under half its Size); a weapon without an LDraw part knocked away by a critically
    failed Parry is logged, not thrown."""
    def edit(data):
        w = next(c for c in data["creations"] if c["id"] == "walker")
        w["stats"]["control"] = "pilot"
        next(u for u in data["units"] if u["id"] == "fknight")["position"] = [-3.0, -3.3, 0.0]
        t = next(c for c in data["creations"] if c["id"] == "tractor")
        t["stats"]["weapons"] = [{"type": "Melee Shield", "size": 1, "name": "dozer blade"}]

    with _game(ldrawdir, {"parry": [1, 2]}, edit) as g:
        g.apply({"type": "parry", "player": REP, "unit": "walker", "weapon": 0})
        _end(g)
        g.apply({"type": "parry", "player": FARM, "unit": "tractor", "weapon": 0})
        lines = g.skirmish.attack_preview("fknight", 0, "walker").lines()
        assert any("cannot Parry" in x and "Too Large" in x for x in lines), lines
        _end(g)
        n = len(g.events)
        g.apply({"type": "shove", "player": REP, "unit": "walker", "target": "tractor"})
        away = next(e for e in g.events[n:] if e["type"] == "knocked_away")
        assert away["thrown"] is None and away["inches"] == 2 and "logged" in away["text"]


def test_table_a_creations_melee_weapon_scales_and_is_parried_with_its_size_bonus(ldrawdir):
    """BrikWars 8.2 at the table: the walker's Size 3" stomping leg (Use 4, 3 × its Action
    die) strikes a knight, whose Shield Parry takes +1 for the parried weapon's 3" (+1 per 2",
    shown in the preview before the roll); his natural 1 is a Critical Failure whatever the
    bonus: the blow lands (6 > Armor 4) and the shield flies the walker's Action Roll, 4"."""
    def edit(data):
        next(u for u in data["units"] if u["id"] == "rknight")["position"] = [-3.0, -3.3, 0.0]
        next(u for u in data["units"] if u["id"] == "rknight")["owner"] = "Farmers"

    with _game(ldrawdir, {"attack": [4, 2, 2, 2], "parry": [1]}, edit) as g:
        _end(g)
        g.apply({"type": "parry", "player": FARM, "unit": "rknight", "weapon": 1})
        _end(g)
        pv = g.skirmish.attack_preview("walker", 0, "rknight")
        assert (pv.use, str(pv.weapon.damage)) == (4, "3 Action dice")
        assert any('Parried weapon Size 3"' in x and "Action +1" in x for x in pv.lines())
        n = len(g.events)
        g.apply({"type": "attack", "player": REP, "unit": "walker", "weapon": 0,
                 "target": "rknight"})
        parry = next(e for e in g.events[n:] if e["type"] == "parry")
        assert parry["critical_failure"] and parry["total"] == 2
        dmg = next(e for e in g.events[n:] if e["type"] == "damage" and e["body"] == "rknight")
        assert dmg["damage"] == 6 and g.bodies["rknight"].damage.destroyed
        away = next(e for e in g.events[n:] if e["type"] == "knocked_away")
        assert away["inches"] == 4  # the walker's Action Roll


def test_a_parry_order_can_be_stopped_and_survives_a_save(ldrawdir, tmp_path):
    """BrikWars 8.2 Parry orders are part of the game's log: a stop order ends Parrying, and a
    save replays both to the same state."""
    with _game(ldrawdir) as g:
        g.apply({"type": "parry", "player": REP, "unit": "rknight", "weapon": 1})
        g.apply({"type": "parry", "player": REP, "unit": "rknight", "stop": True})
        assert g.close_combat.parry_orders == {}
        g.apply({"type": "parry", "player": REP, "unit": "rknight", "weapon": 0})
        path = g.save(tmp_path / "cc.save.json")
        h = g.state_hash()
    with Game.load(path, ldrawdir=ldrawdir) as g2:
        assert g2.close_combat.parry_orders == {"rknight": 0} and g2.state_hash() == h


def test_table_a_piece_of_a_broken_creation_parries_and_its_blade_is_knocked_away(ldrawdir):
    """BrikWars 8.4 then 8.2: a missile breaks the tractor (its rear parts destroyed); the
    piece that keeps the dozer blade (LDraw part 3001) is a Creation with the tractor's
    weapons, takes a Parry order and fails it critically against the walker's Shove: the
    blade flies, and the piece's drawn mesh loses the blade's triangles. The piece's asset is
    a PieceAsset (made from its parent's mesh), which ``dataclasses.replace`` could not copy
    (TypeError: its constructor takes the parent, not arrays)."""
    from sandbox.engine.assets import PieceAsset

    with _game(ldrawdir, {"explosion": [6], "armor": [2], "parry": [1, 4]}) as g:
        g.apply({"type": "missile", "player": REP, "point": [2.3, 0.0, 0.3], "xsize": 1},
                by="referee")
        piece = next(k for k in g.bodies if k.startswith("tractor#") and k in g.world.bodies
                     and g.close_combat.part_points(k, "3001") is not None)
        asset = g.assets[piece]
        assert isinstance(asset, PieceAsset) and g.bodies[piece].kind == "creation"
        blade = next(t for t in asset.tags if asset.placements[t].part == "3001.dat")
        before = np.asarray(asset.placement_index)
        kept_before = asset.local_vertices[np.repeat(before != blade, 3)]
        assert len(kept_before) and (before == blade).sum() > 0
        _end(g)
        g.apply({"type": "parry", "player": FARM, "unit": piece, "weapon": 0})
        _end(g)
        n = len(g.events)
        g.apply({"type": "shove", "player": REP, "unit": "walker", "target": piece})
        parry = next(e for e in g.events[n:] if e["type"] == "parry")
        assert parry["body"] == piece and parry["critical_failure"]
        away = next(e for e in g.events[n:] if e["type"] == "knocked_away")
        assert away["thrown"] in g.world.bodies and away["inches"] == 4
        after = g.assets[piece]
        assert blade not in set(np.asarray(after.placement_index).tolist())
        assert g.close_combat.part_points(piece, "3001") is None
        assert len(after.local_vertices) == len(after.vertices) == 3 * len(before[before != blade])
        assert np.array_equal(after.local_vertices, kept_before)  # the rest as it was drawn
        assert asset.placement_index is not None and len(asset.placement_index) == len(before)
        with pytest.raises(TypeError, match="no field colour_of"):
            after.replaced(colour_of=4)
