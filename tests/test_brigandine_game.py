"""Brigandine on the engine: the shipped scenes play to their [brigandine.expect]; saves, undo
and replays keep the state; orders are binding, hidden and checked; artillery on the table."""

from __future__ import annotations

from pathlib import Path

import pytest

import sandbox
from sandbox.app.headless import verify_replay
from sandbox.core.errors import RulesError, SceneError
from sandbox.engine.game import Game
from sandbox.engine.scene import scene_from_dict

REPO = Path(__file__).resolve().parents[1]
SKIRMISH = REPO / "scenes" / "brigandine_skirmish.toml"
JOUST = REPO / "scenes" / "brigandine_joust.toml"


def test_skirmish_scene_plays_to_its_decided_outcome_and_replays(ldrawdir):
    with sandbox.open_game(SKIRMISH, ldrawdir=ldrawdir) as game:
        game.play_script()
        assert game.check() == []
        ev = game.events
        phases = [(e.round, e.phase) for e in ev if e.type == "brig_phase"]
        assert phases[:8] == [(1, p) for p in range(1, 9)]
        struck = [e.struck for e in ev if e.type == "brig_charge" and e.struck]
        assert struck[:2] == ["spear1", "spear2"]  # the winning charger rode on to the next
        assert any(e.type == "brig_morale" for e in ev)
        volleys = [e for e in ev if e.type == "brig_missile"]
        assert [v.phase for v in volleys] == [4, 8] and all(v.firing == 5 for v in volleys)
        assert all(game.bodies[v.arrow].kind == "payload" for v in volleys)  # drawn as it flies
        assert any(e.type == "brig_blow" and e.shattered for e in ev)
        report = verify_replay(game.replay(), base_dir=SKIRMISH.parent, ldrawdir=ldrawdir)
        assert report["ok"], report


def test_joust_save_load_mid_game_keeps_the_hash(tmp_path, ldrawdir):
    with sandbox.open_game(JOUST, ldrawdir=ldrawdir) as ref:
        ref.play_script()
        assert ref.check() == []
        want = ref.state_hash()
        broke = [e for e in ref.events if e.type == "brig_joust" and e.pieces]
        assert len(broke) == 1 and all(ref.bodies[k].kind == "payload" for k in broke[0].pieces)
    game = sandbox.open_game(JOUST, ldrawdir=ldrawdir)
    try:
        game.play_turns(1, 6)
        mid = game.state_hash()
        path = game.save(tmp_path / "joust.save.json")
        game.close()
        game = sandbox.open_game(path, ldrawdir=ldrawdir)
        assert game.state_hash() == mid
        game.play_turns(7)
        game.finish()
        assert game.state_hash() == want and game.check() == []
    finally:
        game.close()


def test_orders_are_binding_hidden_and_undone(ldrawdir):
    with sandbox.open_game(SKIRMISH, ldrawdir=ldrawdir) as game:
        with pytest.raises(RulesError, match="not played in this game"):  # BrikWars' Move
            game.apply({"type": "move", "player": "Lions", "unit": "archer1", "to": [-7, -4.5]})
        with pytest.raises(RulesError, match="declared in phase 2"):
            game.apply({"type": "brig_declare", "player": "Lions", "unit": "archer1",
                        "does": ["shoot"]})
        game.end_turn(), game.end_turn()   # phase 1 over: now phase 2
        assert game.system("brigandine").banner(game.turn, game.current_player) == (
            "Round 1, phase 2. declare actions: Lions' orders (hidden: pass the screen)")
        before = game.state_hash()
        game.apply({"type": "brig_declare", "player": "Lions", "unit": "archer1",
                    "does": ["shoot"]})
        assert "shoot" not in game.events[-1].text  # hidden until phase 2 ends
        game.undo()
        assert game.state_hash() == before
        game.apply({"type": "brig_declare", "player": "Lions", "unit": "archer1",
                    "does": ["shoot"]})
        game.apply({"type": "brig_declare", "player": "Lions", "unit": "knight",
                    "does": ["move", "melee"]})
        with pytest.raises(RulesError, match="binding"):
            game.apply({"type": "brig_declare", "player": "Lions", "unit": "archer1",
                        "does": ["move"]})
        with pytest.raises(RulesError, match="Captain Ulf belongs to Wolves: a unit acts for"):
            game.apply({"type": "brig_declare", "player": "Lions", "unit": "captain",
                        "does": ["move"]})
        game.end_turn(), game.end_turn()   # phase 2 over: revealed
        reveal = [e for e in game.events if e.type == "brig_reveal"][-1]
        assert reveal.declared["archer1"]["does"] == ["shoot"]
        with pytest.raises(RulesError, match="binding"):
            game.apply({"type": "brig_move", "player": "Lions", "unit": "archer1",
                        "to": [-6.5, -4.5]})
        with pytest.raises(RulesError, match="half movement"):
            game.apply({"type": "brig_move", "player": "Lions", "unit": "knight",
                        "to": [0.0, 6.0]})
        with pytest.raises(RulesError, match="binding"):
            game.apply({"type": "brig_charge", "player": "Lions", "unit": "knight",
                        "toward": [9.0, 6.0]})
        for _ in range(4):                  # through phases 3 and 4 to the melee phase
            game.end_turn()
        # Lions rolled 5, Wolves 1: the higher-initiative side may not take Defensive Action
        with pytest.raises(RulesError, match="Defensive Action is refused"):
            game.apply({"type": "brig_defend", "player": "Lions", "unit": "knight"})
        with pytest.raises(SceneError):
            game.apply({"type": "brig_melee", "player": "Lions", "unit": "knight"})


def _artillery_scene() -> dict:
    def fig(id_, owner, x, y):
        return {"id": id_, "model": "../models/trooper.ldr", "owner": owner,
                "position": [x, y, 0.0]}
    return {
        "name": "artillery", "game": "brigandine", "seed": 2,
        "battlefield": {"width": 20.0, "depth": 12.0},
        "players": [{"name": "A"}, {"name": "B"}],
        "units": [fig("gun1", "A", -4, -3), fig("gun2", "A", -4, 3), fig("bowman", "B", 4, -3),
                  fig("brute", "B", -3.0, 3), fig("mark", "B", 5, 0)],
        "brigandine": {"units": [
            {"id": "gun1", "missile": "arquebus"}, {"id": "gun2", "missile": "arquebus"},
            {"id": "bowman", "missile": "bow", "strength": "attk 1LF, def 1LF"},
            {"id": "brute", "strength": "attk 1HF, def 3HF", "weapon": "spear",
             "side_arm": "dagger"},
            {"id": "mark", "strength": "attk 1LF, def 9LF"}]},
        "actions": [
            {"type": "brig_declare", "player": "A", "turn": 2, "unit": "gun1",
             "does": ["artillery"], "target": "mark"},
            {"type": "brig_declare", "player": "A", "turn": 2, "unit": "gun2",
             "does": ["artillery"], "target": "mark"},
            {"type": "brig_declare", "player": "B", "turn": 2, "unit": "bowman", "does": ["shoot"]},
            {"type": "brig_declare", "player": "B", "turn": 2, "unit": "brute", "does": ["melee"]},
            {"type": "brig_draw", "player": "B", "turn": 3, "unit": "brute"},
            {"type": "brig_shoot", "player": "B", "turn": 4, "units": ["bowman"], "target": "gun1"},
            {"type": "brig_melee", "player": "B", "turn": 5, "unit": "brute", "target": "gun2"},
        ],
        "turns": 6,
    }


def test_artillery_lost_when_meleed_kept_when_shot_at(ldrawdir):
    spec = scene_from_dict(_artillery_scene())
    with Game(spec, REPO / "scenes", ldrawdir=ldrawdir) as game:
        game.play_turns(1, 4)
        brute = game.system("brigandine").units["brute"]
        assert brute.stats.weapon.name == "dagger" and brute.side_arm is None  # drawn in phase 3
        with pytest.raises(RulesError, match="first movement phase"):
            game.apply({"type": "brig_draw", "player": "A", "unit": "gun1"})
        game.play_turns(5)
        game.finish()
        art = {e.unit: e for e in game.events if e.type == "brig_artillery"}
        assert art["gun2"].lost and "meleed" in art["gun2"].text
        assert not art["gun1"].lost and art["gun1"].target == "mark"
        assert game.system("brigandine").units["gun1"].launcher.loaded is False
        shot = art["gun1"].shot                   # a real body, launched at the mark
        assert game.bodies[shot].kind == "payload"
        if shot in game.world.bodies:  # it flew from x = -4 toward x = 5 ...
            assert game.world.pose(shot)[0][0] > 0.0
        else:  # ... or on past the mark and off the table's east edge (x = 10)
            gone = [e for e in game.events if e.type == "off_table" and e.body == shot]
            assert gone and gone[0].position[0] > 5.0


def test_a_bad_brigandine_section_is_named():
    data = _artillery_scene()
    data["brigandine"]["units"][0]["strength"] = "attk 2XX, def 1LC"
    with pytest.raises(SceneError, match="strength"):
        scene_from_dict(data)
    data = _artillery_scene()
    data["brigandine"]["units"][0]["id"] = "nobody"
    with pytest.raises(SceneError, match=r"brigandine.units\[0\].id 'nobody'"):
        scene_from_dict(data)
    data = _artillery_scene()
    data["game"] = "brikwars"
    with pytest.raises(SceneError, match="needs game = 'brigandine'"):
        scene_from_dict(data)
    data = _artillery_scene()
    data["brigandine"]["tables"] = "no_such_folder"
    with pytest.raises(SceneError, match="must be a folder"):
        Game(scene_from_dict(data), REPO / "scenes")


def test_fantasy_combat_drives_off_an_fc_only_monster(ldrawdir):
    """Two soldiers who cannot slay a troll (def type FC) strike it twice in Fantasy Combat:
    with its #attk 2 standing in for #def, it flees (003, Fantasy Combat)."""
    data = _artillery_scene()
    data["units"] = [
        {"id": "s1", "model": "../models/trooper.ldr", "owner": "A", "position": [-1.0, 0, 0]},
        {"id": "s2", "model": "../models/trooper.ldr", "owner": "A", "position": [0.0, -1.0, 0]},
        {"id": "troll", "model": "../models/trooper.ldr", "owner": "B", "position": [0.0, 0, 0]}]
    data["brigandine"] = {"units": [
        {"id": "s1"}, {"id": "s2"},
        {"id": "troll", "strength": "attk 2HF, def 2FC", "fc_class": "lesser", "move": 8.0}]}
    # initiative A 5, B 2; s1 rolls 5 (>= lesser 5), troll 1; s2 rolls 5, troll 1
    data["forced_dice"] = {"brigandine": [5, 2, 5, 1, 5, 1]}
    data["actions"] = [
        {"type": "brig_declare", "player": "A", "turn": 2, "unit": u, "does": ["melee"]}
        for u in ("s1", "s2")] + [
        {"type": "brig_melee", "player": "A", "turn": 5, "unit": u, "target": "troll",
         "system": "fantasy"} for u in ("s1", "s2")]
    data["turns"] = 5
    spec = scene_from_dict(data)
    with Game(spec, REPO / "scenes", ldrawdir=ldrawdir) as game:
        game.play_turns(1, 4)
        with pytest.raises(RulesError, match="only in Fantasy Combat"):
            game.apply({"type": "brig_melee", "player": "A", "unit": "s1", "target": "troll"})
        game.play_turns(5)
        game.finish()                       # the melee phase resolves when it ends
        troll = game.system("brigandine").units["troll"]
        # it turns to flee and leaves (issue 27: still on the table while leaving, so that it
        # can be "further attacked while leaving"; tests/test_brigandine_third_pass.py)
        assert troll.monster.fleeing and troll.standing and not troll.fled
        assert troll.def_left == 2 and troll.monster.hits == 2 and troll.leaving_round == 1
        said = [e.monster for e in game.events if e.type == "brig_fantasy" and e.monster]
        assert said == ["fights", "flees", "leaving"]


def test_window_gestures_become_brigandine_orders(ldrawdir):
    """What ``sandbox play`` submits for the window's keys, clicks and drags in each phase."""
    from sandbox.games.brigandine.orders import BrigandineOrders

    with sandbox.open_game(SKIRMISH, ldrawdir=ldrawdir) as game:
        orders = BrigandineOrders(game)
        assert BrigandineOrders.plays(game) and "delay" in orders.prompt()
        assert orders.key("i", None).type == "brig_delay"
        game.end_turn(), game.end_turn()                          # phase 2
        assert orders.key("3", "archer1") is None                 # toggles 'shoot'
        declare = orders.key("enter", "archer1")
        assert declare.does == ["shoot"] and game.refusal(declare) == ""
        game.apply(declare)
        for n in ("1", "4"):                                      # move + melee
            orders.key(n, "knight")
        assert orders.click("knight", "archer2") is None          # a click only aims in phase 2
        assert not orders.is_enemy("archer2") and orders.is_enemy("captain")
        game.apply(orders.key("enter", "knight"))
        game.end_turn(), game.end_turn()                          # phase 3
        move = orders.drag("knight", (-7.5, 6.0))
        assert move.type == "brig_move" and game.refusal(move) == ""
        assert orders.drag("knight", (0.0, 6.0), shift=True).type == "brig_charge"
        game.apply(move)
        game.end_turn(), game.end_turn()                          # phase 4
        shoot = orders.click("archer1", "captain")
        assert shoot.type == "brig_shoot" and game.refusal(shoot) == ""
        game.end_turn(), game.end_turn()                          # phase 5
        orders.key("2", "knight")
        melee = orders.click("knight", "spear1")
        assert melee.system == "man_to_man" and "away" in game.refusal(melee)
        assert orders.key("d", "knight").type == "brig_defend"
