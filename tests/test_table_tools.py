"""The players' own hands on the table (issue 18), through the engine's API: the dice tray,
done marks, rulers and templates, picking up and putting down loose objects, destroyed units
falling over, the castle archer's bow. Every one is an engine action: a save and its load give
the same state hash, and undo takes it back."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import REPO

from sandbox.core.errors import RulesError, SceneError
from sandbox.engine.game import Game, open_game
from sandbox.engine.table_tools import parse_tray


def _round_trip(g: Game, tmp_path) -> Game:
    path = g.save(tmp_path / "g.save.json")
    loaded = Game.load(path)
    assert loaded.state_hash() == g.state_hash()
    return loaded


def test_dice_tray_rolls_seeded_logged_dice_and_saves(tmp_path):
    with open_game(REPO / "scenes" / "skirmish.toml", forced_dice=False) as g:
        evs = g.apply({"type": "roll_dice", "player": "Lion Knights", "dice": "2d6+1d4+1",
                       "reason": "morale"})
        rolls = [e for e in evs if e["type"] == "roll"]
        tray = [e for e in evs if e["type"] == "dice_tray"]
        assert [r["sides"] for r in rolls] == [6, 6, 4]
        assert all(r["stream"] == "tray" for r in rolls)
        assert tray[0]["total"] == sum(r["result"] for r in rolls) + 1
        assert "morale" in tray[0]["text"] and "= " in tray[0]["text"]
        # the same seed rolls the same dice (a seeded, named stream)
        with open_game(REPO / "scenes" / "skirmish.toml", forced_dice=False) as again:
            ev2 = again.apply({"type": "roll_dice", "player": "Lion Knights",
                               "dice": "2d6+1d4+1", "reason": "morale"})
            assert [e["result"] for e in ev2 if e["type"] == "roll"] == \
                [r["result"] for r in rolls]
        with _round_trip(g, tmp_path) as loaded:
            assert [e["text"] for e in loaded.events if e["type"] == "dice_tray"] == \
                [tray[0]["text"]]
        for bad in ("", "2d6+", "d1", "41d6", "2d6 + banana", "1d1000"):
            with pytest.raises((RulesError, SceneError)):
                g.apply({"type": "roll_dice", "player": "Lion Knights", "dice": bad})
        g.undo()
        assert not any(e["type"] == "dice_tray" for e in g.events)


def test_parse_tray_terms():
    assert [(s, str(e)) for s, e in parse_tray("1d10+1d4-2")] == [(1, "1d10"), (1, "1d4"),
                                                                  (-1, "2")]
    with pytest.raises(RulesError, match="no die"):
        parse_tray("3+4")


def test_done_marks_clear_at_the_players_next_turn(tmp_path):
    with open_game(REPO / "scenes" / "skirmish.toml") as g:
        g.apply({"type": "mark_done", "player": "Lion Knights", "unit": "knight1"})
        assert g.tools.done == {"knight1"}
        with pytest.raises(RulesError, match="belongs to"):
            g.apply({"type": "mark_done", "player": "Lion Knights", "unit": "falcon1"})
        g.end_turn()  # the Falcons' turn: the Knights' mark stays
        assert g.tools.done == {"knight1"}
        g.apply({"type": "mark_done", "player": "Black Falcons", "unit": "falcon2"})
        with _round_trip(g, tmp_path) as loaded:
            assert loaded.tools.done == {"knight1", "falcon2"}
        g.end_turn()  # the Knights' next turn begins: their marks go
        assert g.tools.done == {"falcon2"}
        g.end_turn()
        assert g.tools.done == set()


def test_rulers_and_templates_stay_until_their_player_removes_them(tmp_path):
    with open_game(REPO / "scenes" / "skirmish.toml") as g:
        ev = g.apply({"type": "place_marker", "player": "Lion Knights", "kind": "ruler",
                      "points": [[-6, -3], [-6, 3]]})
        assert ev[-1]["type"] == "table_marker" and '6.00"' in ev[-1]["text"]
        g.apply({"type": "place_marker", "player": "Lion Knights", "kind": "template",
                 "points": [[2, 0]], "radius": 2.0, "label": "blast"})
        assert sorted(g.tools.markers) == ["m1", "m2"]
        assert g.tools.markers["m2"]["radius"] == 2.0
        with pytest.raises(RulesError, match="two points"):
            g.apply({"type": "place_marker", "player": "Lion Knights", "kind": "ruler",
                     "points": [[0, 0]]})
        with pytest.raises(RulesError, match="off the battlefield"):
            g.apply({"type": "place_marker", "player": "Lion Knights", "kind": "template",
                     "points": [[500, 0]], "radius": 1})
        g.end_turn()
        with pytest.raises(RulesError, match="only they may remove"):
            g.apply({"type": "remove_marker", "player": "Black Falcons", "marker": "m1"})
        g.end_turn()
        assert sorted(g.tools.markers) == ["m1", "m2"]  # still on the table a turn later
        with _round_trip(g, tmp_path) as loaded:
            assert loaded.tools.markers == g.tools.markers
        g.apply({"type": "remove_marker", "player": "Lion Knights", "marker": "m1"})
        assert sorted(g.tools.markers) == ["m2"]
        with pytest.raises(RulesError, match="no marker"):
            g.apply({"type": "remove_marker", "player": "Lion Knights", "marker": "m1"})


def test_pick_up_carry_and_put_down_a_loose_object(tmp_path):
    with open_game(REPO / "scenes" / "escapade_raid.toml") as g:
        p = "Baron Blud"
        with pytest.raises(RulesError, match="within 1"):
            g.apply({"type": "pick_up", "player": p, "unit": "gunner", "item": "chest"})
        with pytest.raises(RulesError, match="is a unit"):
            g.apply({"type": "pick_up", "player": p, "unit": "gunner", "item": "pim"})
        g.apply({"type": "move", "player": p, "unit": "gunner", "to": [3.0, -8.7]})
        g.apply({"type": "pick_up", "player": p, "unit": "gunner", "item": "chest"})
        assert g.tools.held("gunner") == "chest"
        with pytest.raises(RulesError, match="carried by"):
            g.apply({"type": "pick_up", "player": p, "unit": "pim", "item": "chest"})
        before = g.footprint_centre("chest")
        g.apply({"type": "move", "player": p, "unit": "gunner", "to": [1.6, -8.7]})
        moved = g.footprint_centre("chest") - before
        assert np.allclose(moved, [-1.4, 0.0], atol=0.15), moved  # it travelled with him
        with _round_trip(g, tmp_path) as loaded:
            assert loaded.tools.held("gunner") == "chest"
        with pytest.raises(RulesError, match="within 1"):
            g.apply({"type": "put_down", "player": p, "unit": "gunner", "to": [-5.0, -8.7]})
        g.apply({"type": "put_down", "player": p, "unit": "gunner", "to": [1.6, -10.1]})
        assert g.tools.held("gunner") is None
        assert np.linalg.norm(g.footprint_centre("chest") - [1.6, -10.1]) < 0.3
        here = g.footprint_centre("chest")
        g.apply({"type": "move", "player": p, "unit": "gunner", "to": [1.6, -8.45]})
        assert np.allclose(g.footprint_centre("chest"), here, atol=0.05)  # left behind
        with pytest.raises(RulesError, match="carries nothing"):
            g.apply({"type": "put_down", "player": p, "unit": "gunner"})


def test_a_picked_up_item_leaves_with_its_carrier_over_a_friendly_edge():
    """The Escapade's walk off the table carries what the unit picked up (13.1)."""
    with open_game(REPO / "scenes" / "escapade_raid.toml") as g:
        p = "Baron Blud"
        g.apply({"type": "move", "player": p, "unit": "gunner", "to": [3.0, -8.7]})
        g.apply({"type": "pick_up", "player": p, "unit": "gunner", "item": "chest"})
        g.advance_to(2, p)
        g.apply({"type": "walk", "player": p, "unit": "gunner", "to": [3.0, -12.9]})
        assert "gunner" not in g.world.bodies and "chest" not in g.world.bodies
        exits = [e for e in g.events if e.get("event") == "exit" and e.get("object") == "chest"]
        assert exits and exits[0]["carrier"] == "gunner"


def test_a_destroyed_unit_falls_over_and_every_path_agrees(tmp_path):
    with open_game(REPO / "scenes" / "escapade_raid.toml") as g:
        lo, hi = g.world.aabb("guard1")
        standing = float(hi[2] - lo[2])
        g.apply({"type": "attack", "player": "Baron Blud", "unit": "gunner",
                 "target": "guard1"})
        assert g.bodies["guard1"].damage.destroyed
        assert any(e["type"] == "topple" and e["body"] == "guard1" for e in g.events)
        lo, hi = g.world.aabb("guard1")
        assert float(hi[2] - lo[2]) < 0.6 * standing  # the body itself lies on the table
        _round_trip(g, tmp_path).close()


def test_the_castle_archer_carries_his_bow():
    with open_game(REPO / "scenes" / "big_drop_kings_castle.toml") as g:
        card = "\n".join(g.skirmish.stat_card("guard"))
        assert "Bow" in card and "no weapons" not in card


def test_a_unit_destroyed_as_a_turn_begins_falls_at_once():
    """A Bombardment lands at the beginning of the caller's turn (BrikWars 13.2): a unit it
    destroys falls over then, before the player acts, not at the end of that turn. The default
    scene's crate with Collision Damage forced to 6 against Private Reale's Armor 4."""
    from sandbox.engine.scene import load_scene

    spec, base = load_scene(REPO / "scenes" / "big_drop_guard_tower.toml")
    spec = spec.model_copy(update={"forced_dice": {"collision": [6] * 40}})
    with Game(spec, base, forced_dice=True) as g:
        lo, hi = g.world.aabb("guard")
        standing = float(hi[2] - lo[2])
        g.advance_to(1, "Black Falcons")
        g.apply(spec.actions[0])
        g.advance_to(2, "Black Falcons")  # the crate falls as the Falcons' turn 2 begins
        assert g.bodies["guard"].damage.destroyed
        assert any(e["type"] == "topple" and e["body"] == "guard" for e in g.events)
        lo, hi = g.world.aabb("guard")
        # it lies (tilted past 45 degrees: on the tower top it may rest across a merlon)
        assert not g.upright("guard") and float(hi[2] - lo[2]) < 0.7 * standing
