"""Micro Brick War on the one engine: the scripted scene to its decided winner, save / load /
undo mid-game, replay verification, refusals, the Catapult's stone, the computer opponent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import sandbox
from sandbox.app.headless import verify_replay
from sandbox.core.errors import RulesError, SceneError
from sandbox.engine.actions import parse_action
from sandbox.engine.game import Game
from sandbox.engine.scene import scene_from_dict
from sandbox.games.micro_brick_war.system import ai_action, ai_play_turn

REPO = Path(__file__).resolve().parents[1]
SCENE = REPO / "scenes" / "micro_brick_war.toml"


def small(**section) -> dict:
    sec = {"width": 5, "height": 5, "goblet": "a5", **section}
    return {"name": "mbw test", "game": "micro_brick_war", "seed": 3,
            "battlefield": {"width": 10, "depth": 10},
            "players": [{"name": "Red", "colour": 4}, {"name": "Blue", "colour": 1}],
            "micro_brick_war": sec,
            "actions": [{"type": "mbw_farm", "player": "Red", "turn": 1, "city": "b2",
                         "square": "a1"}]}


def make(data: dict, ldrawdir) -> Game:
    return Game(scene_from_dict(data, "<test>"), REPO, ldrawdir=ldrawdir)


@pytest.fixture(scope="module")
def scripted(ldrawdir):
    g = sandbox.open_game(SCENE, ldrawdir=ldrawdir)
    g.play_script()
    yield g
    g.close()


def test_scripted_game_reaches_a_decided_winner(scripted):
    assert scripted.check() == []
    rules = scripted.system("micro_brick_war").rules
    assert rules.over and rules.winner == "Red" and rules.eliminated == ["Blue"]
    wins = [e for e in scripted.events if e["type"] == "mbw_victory"]
    assert len(wins) == 1 and wins[0]["winner"] == "Red" and wins[0]["by"] == "conquest"
    fights = [e for e in scripted.events if e["type"] == "mbw_fight"]
    assert [(f["attack_total"], f["defend_total"], f["city_bonus"]) for f in fights] == [
        (8, 4, 0), (8, 8, 3)]
    # beaten units are knocked off: their bodies leave the table
    for uid in ("Blue-infantry-1", "Blue-infantry-2"):
        assert scripted.bodies[f"mbw-{uid}"].off_table
        assert f"mbw-{uid}" not in scripted.world.bodies
    assert scripted.over


def test_scripted_game_replay_verifies(scripted, ldrawdir):
    res = verify_replay(scripted.replay(), REPO, ldrawdir)
    assert res["ok"], res


def test_save_load_undo_mid_game(tmp_path, ldrawdir):
    g = sandbox.open_game(SCENE, ldrawdir=ldrawdir)
    g.play_turns(1, 4)
    g.apply({"type": "mbw_build", "player": "Red", "city": "b2", "kind": "cavalry"})
    before = g.state_hash()
    g.apply({"type": "mbw_move", "player": "Red", "unit": "Red-cavalry-1", "to": "d4"})
    moved = g.state_hash()
    path = g.save(tmp_path / "mid.save.json")
    loaded = Game.load(path, ldrawdir=ldrawdir)
    assert loaded.state_hash() == moved
    assert loaded.system("micro_brick_war").rules.units["Red-cavalry-1"].square == (3, 3)
    loaded.close()
    g.undo()
    assert g.state_hash() == before
    # a refused action changes nothing and names the rule
    with pytest.raises(RulesError, match="d2 is a Block"):
        g.apply({"type": "mbw_move", "player": "Red", "unit": "Red-cavalry-1", "to": "d2"})
    with pytest.raises(RulesError, match="out of Red-cavalry-1's reach"):
        g.apply({"type": "mbw_move", "player": "Red", "unit": "Red-cavalry-1", "to": "e5"})
    with pytest.raises(RulesError, match="Red's turn"):
        g.apply({"type": "mbw_farm", "player": "Blue", "city": "g7", "square": "h8"})
    assert g.state_hash() == before
    g.close()


def test_catapult_stone_flies_and_the_d6_decides(ldrawdir):
    data = small(units=[{"player": "Red", "kind": "catapult", "square": "c1"},
                        {"player": "Blue", "kind": "infantry", "square": "c3"}])
    data["forced_dice"] = {"mbw": [1, 6]}  # 1 + 8 = 9 vs 6 + 2 + 1 (around Blue's d4) = 9
    data["actions"] = [{"type": "mbw_attack", "player": "Red", "turn": 1, "unit": "Red-catapult-1",
                        "target": "c3"}]
    g = make(data, ldrawdir)
    g.play_script()
    launches = [e for e in g.events if e["type"] == "launch"]
    assert len(launches) == 1 and launches[0]["arc"] == "low"
    fight = [e for e in g.events if e["type"] == "mbw_fight"][0]
    assert (fight["attack_total"], fight["defend_total"], fight["attacker_won"]) == (9, 9, True)
    rules = g.system("micro_brick_war").rules
    assert "Blue-infantry-1" not in rules.units
    assert rules.units["Red-catapult-1"].square == (2, 0)  # stays put
    assert not [k for k in g.world.bodies if k.startswith("mbw-stone")]  # taken off after
    # no Collision Damage in this game: impacts are only logged
    assert not [e for e in g.events if e["type"] == "damage"]
    g.close()


def test_ai_plays_a_seat_through_the_engine(ldrawdir):
    g = make(small(), ldrawdir)
    n = ai_play_turn(g, iterations=8)
    assert n >= 1 and g.current_player == "Blue"
    assert [a.type for a in g.actions][-1] == "end_turn"
    d = ai_action(g, iterations=8)
    assert d is None or g.refusal(parse_action(d)) == ""
    g.close()


@pytest.mark.parametrize("section, words", [
    ({"capitals": [{"player": "Red", "square": "b2"}]}, "every player"),
    ({"blocks": ["z9"]}, "z9"),
    ({"ai": ["Green"]}, "Green"),
    ({"goblet": "a2"}, "same"),
    ({"square_studs": 5}, "must be one of [4, 6, 8]"),  # odd: 2-stud plates cannot fill it
    ({"square_studs": 7}, "got 7"),
])
def test_bad_sections_name_the_field(section, words, ldrawdir):
    with pytest.raises(SceneError, match="micro_brick_war") as exc:
        make(small(**section), ldrawdir)
    assert words in str(exc.value)


@pytest.mark.parametrize("studs", [4, 6, 8])
def test_the_board_is_squares_of_its_studs_whole(studs, ldrawdir):
    from sandbox.games.micro_brick_war.system import STUD_IN

    g = make(small(square_studs=studs), ldrawdir)
    try:
        lo, hi = g.bounds("mbw-board")
        size = hi[:2] - lo[:2]
        assert size == pytest.approx([5 * studs * STUD_IN] * 2, abs=0.02)  # 5 x 5 squares
        assert not [w for w in g.warnings if "missing" in w]
    finally:
        g.close()


def test_dropped_goblet_falls_and_lies_on_its_square(ldrawdir):
    data = small(goblet="c3", units=[{"player": "Red", "kind": "infantry", "square": "c2"}])
    data["actions"] = [
        {"type": "mbw_move", "player": "Red", "turn": 1, "unit": "Red-infantry-1", "to": "c3"},
        {"type": "mbw_drop_goblet", "player": "Red", "turn": 1, "unit": "Red-infantry-1"}]
    g = make(data, ldrawdir)
    g.play_turns(1, None)
    sysm = g.system("micro_brick_war")
    assert sysm.rules.goblet == (2, 2) and sysm.rules.goblet_holder is None
    lo, hi = g.bounds("mbw-goblet")
    assert np.all(np.abs((lo[:2] + hi[:2]) / 2 - sysm.centre((2, 2))) < sysm.square_in / 2)
    assert hi[2] - lo[2] > 0.4  # standing upright again, set back by the rules' tidy
    g.close()


def test_a_micro_brick_war_table_needs_its_game():
    data = small()
    data["game"] = "brikwars"
    with pytest.raises(SceneError, match="needs game"):
        scene_from_dict(data, "<test>")
