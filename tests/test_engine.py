"""The one engine: every way of playing a scene (``sandbox run``, the public API one action at
a time, a save loaded in the middle) gives the same event log and the same state hash; and the
regressions of the two engines it replaced, at the API level."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import sandbox
from sandbox.core.errors import RulesError, SceneError
from sandbox.engine.actions import REGISTRY, action_dict
from sandbox.engine.events import EVENT_TYPES
from sandbox.engine.game import open_game

REPO = Path(__file__).resolve().parents[1]
SCENES = sorted((REPO / "scenes").glob("*.toml"))


def _log(game) -> str:
    return json.dumps(game.events, sort_keys=True)


def _up_to(game, action) -> None:
    """End turns until the action's turn and player come up (as a table would)."""
    while (game.turn, game.players.index(game.current_player)) < (
            action.turn, game.players.index(action.player)):
        game.end_turn()


@pytest.mark.parametrize("scene", SCENES, ids=[p.stem for p in SCENES])
def test_every_path_gives_the_same_log_and_state_hash(scene, tmp_path, ldrawdir):
    with open_game(scene, ldrawdir=ldrawdir) as ref:  # what `sandbox run` plays
        ref.play_script()
        want_log, want_hash = _log(ref), ref.state_hash()
    game = sandbox.open_game(scene, ldrawdir=ldrawdir)
    try:
        script = game.script()
        for i, action in enumerate(script):
            if i == len(script) // 2:  # save in the middle and carry on from the file
                mid = game.state_hash()
                path = game.save(tmp_path / "mid.save.json")
                game.close()
                game = sandbox.open_game(path, ldrawdir=ldrawdir)
                assert game.state_hash() == mid
            _up_to(game, action)
            # the dict form a scene file holds, issued as the script is: by the referee
            game.apply(action_dict(action), by="referee")
        game.play_on()
        game.finish()
        assert game.state_hash() == want_hash
        assert _log(game) == want_log
    finally:
        game.close()


def test_public_api_names(tmp_path):
    with sandbox.open_game(REPO / "scenes" / "skirmish.toml", seed=5) as game:
        assert game.turn == 1 and game.current_player == "Lion Knights"
        h = game.state_hash()
        assert len(h) == 64 and int(h, 16) >= 0
        game.end_turn()
        assert game.current_player == "Black Falcons" and game.events[-1]["type"] == "turn"
        with pytest.raises(RulesError, match="it is Black Falcons' turn, not Lion Knights'"):
            game.apply({"type": "end_turn", "player": "Lion Knights"})
        with pytest.raises(SceneError, match="unknown action type .teleport."):
            game.apply({"type": "teleport", "player": "Black Falcons"})
        path = game.save(tmp_path / "g.save.json")
        hash_now = game.state_hash()
    with sandbox.open_game(path) as again:
        assert again.state_hash() == hash_now and again.current_player == "Black Falcons"


def test_a_refused_action_changes_nothing_and_is_not_logged():
    with sandbox.open_game(REPO / "scenes" / "skirmish.toml") as game:
        before, n = game.state_hash(), len(game.events)
        c = game.footprint_centre("knight1")
        with pytest.raises(RulesError, match="may move"):
            game.apply({"type": "move", "player": "Lion Knights", "unit": "knight1",
                        "to": [c[0] + 9.0, c[1]]})
        assert game.state_hash() == before and len(game.events) == n and not game.actions


# ------------------------------------------------------------------ the old engines' bugs
def test_fire_burns_between_turns_however_the_turn_was_ended():
    """Cottage Fire: the Burning Rolls of turns 2 and 3 come whether a script or a player at
    the table ended the turns (F.1: a Fire rolls at the start of each turn)."""
    scene = REPO / "scenes" / "cottage_fire.toml"
    with open_game(scene) as scripted:
        scripted.play_turns(1, 3)
        want = [e["turn"] for e in scripted.events if e["type"] == "burning"]
    with open_game(scene) as table:
        for action in table.script():
            _up_to(table, action)
            table.apply(action, by="referee")  # the scene's script is the referee's
        while table.turn <= 3:
            table.end_turn()  # the window's End turn key
        got = [e["turn"] for e in table.events if e["type"] == "burning"]
    assert got == want and {2, 3} <= set(got)


def test_smoke_blocks_line_of_sight_at_the_table_and_in_scripts():
    scene = REPO / "scenes" / "smoke_los.toml"
    with open_game(scene) as game:
        sight = game.line_of_sight("red1", "blue1")
        assert not sight.clear and sight.blocked_by == "smoke"
        assert game.line_of_sight("red2", "blue2").clear
        game.apply({"type": "sight", "player": "Red", "viewer": "red1", "target": "blue1",
                    "id": "s"})
        assert game.hazards.sight["s"] is False


def test_a_pressure_plate_springs_for_a_table_move_as_for_a_scripted_cross():
    scene = REPO / "scenes" / "trap_corridor.toml"
    sprung = {}
    for kind in ("cross", "move"):
        with open_game(scene) as game:
            game.apply({"type": kind, "player": "Raiders", "unit": "intruder", "to": [1.0, 0.0]})
            sprung[kind] = [e["trap"] for e in game.events if e["type"] == "trap_sprung"]
    assert sprung["move"] == sprung["cross"] == ["plate"]


def test_the_stat_card_shows_a_unit_on_fire():
    with open_game(REPO / "scenes" / "cottage_fire.toml") as game:
        # the dragon's FlameThrower (the script's, the referee's) sets the cottage alight
        game.apply(game.script()[0], by="referee")
        assert game.hazards.fire.burning("cottage")
        assert "on Fire" in game.skirmish.stat_card("cottage")[-1]


def test_every_scene_action_type_is_played_at_the_table(ldrawdir):
    """Every action a shipped scene holds is applied through the same ``apply`` the window
    uses (none is unknown there), and the registry names each type once."""
    seen = set()
    for scene in SCENES:
        with open_game(scene, ldrawdir=ldrawdir) as game:
            for action in game.script():
                _up_to(game, action)
                game.apply(action_dict(action), by="referee")  # as the script issues it
                seen.add(action.type)
    assert seen <= set(REGISTRY)
    assert {"move", "attack", "end_turn", "launch", "throw", "rocket", "bombard",
            "ignite", "interact", "walk", "relay"} <= set(REGISTRY)


def test_events_are_typed():
    with open_game(REPO / "scenes" / "big_drop_guard_tower.toml") as game:
        game.play_script()
        assert all(e["type"] in EVENT_TYPES for e in game.events)
        assert game.events[0].type == "setup"  # attribute access on the typed record
        got = []
        game.subscribe("end_turn", got.append)
        with pytest.raises(ValueError, match="no event type"):
            game.subscribe("hazard", got.append)


def test_a_finished_or_closed_game_takes_no_action_and_no_undo(tmp_path):
    game = sandbox.open_game(REPO / "scenes" / "skirmish.toml")
    game.end_turn()
    game.finish()
    with pytest.raises(RulesError, match="over"):
        game.undo()
    with pytest.raises(RulesError, match="over"):
        game.end_turn()
    game.close()
    with pytest.raises(RulesError, match="closed"):
        game.apply({"type": "end_turn", "player": game.current_player})


def test_bad_arguments_are_clear_errors(tmp_path):
    from sandbox.core.errors import OutputError

    with pytest.raises(SceneError, match="seed must be a whole number"):
        sandbox.open_game(REPO / "scenes" / "skirmish.toml", seed="abc")
    with sandbox.open_game(REPO / "scenes" / "skirmish.toml") as game:
        with pytest.raises(RulesError, match="a point must be"):
            game.measure("knight1", [1, "a"])
        with pytest.raises(RulesError, match="it is turn 1, not turn 5"):
            game.apply({"type": "end_turn", "player": "Lion Knights", "turn": 5})
        with pytest.raises(OutputError, match="is a folder"):
            game.save(tmp_path)  # a folder


def test_an_unknown_game_is_named(tmp_path):
    text = (REPO / "scenes" / "skirmish.toml").read_text()
    p = tmp_path / "chess.toml"
    p.write_text('game = "chess"\n' + text)
    with pytest.raises(SceneError, match=r"game: 'chess' is not a game this sandbox plays"):
        sandbox.open_game(p)


def _skirmish_with_rocket(tmp_path, **knight_at):
    import tomllib

    data = tomllib.loads((REPO / "scenes" / "skirmish.toml").read_text())
    u = next(u for u in data["units"] if u["id"] == "knight1")
    u["stats"]["weapons"] = [{"type": "Rocket", "size": 1}]
    if knight_at:
        u["position"] = knight_at["position"]
    data["forced_dice"] = {"projectile": [5]}  # the Rocket's Action Roll: 5 against Use 2
    from sandbox.engine.game import Game
    from sandbox.engine.scene import scene_from_dict

    return Game(scene_from_dict(data), REPO / "scenes")


def test_a_rocket_fired_at_the_table_flies_and_explodes_through_the_one_explosion(tmp_path):
    """BrikWars 8.4 Rockets: a unit's Rocket is a Payload in flight; its Explosion has
    KnockBack (the one explosion path), not only ring Damage (was: an internal RulesError)."""
    with _skirmish_with_rocket(tmp_path) as game:
        evs = game.apply({"type": "attack", "player": "Lion Knights", "unit": "knight1",
                          "weapon": 0, "target": "falcon1"})
        kinds = [e["type"] for e in evs]
        assert "launch" in kinds and "explosion" in kinds and "knockback" in kinds
        assert "knight1" in game.skirmish.turn_state.acted
        h = game.state_hash()
        path = game.save(tmp_path / "rocket.save.json")
    with sandbox.open_game(path) as again:
        assert again.state_hash() == h


def test_a_rocket_beyond_12_inches_is_held_and_rolls_on_arrival(tmp_path):
    with _skirmish_with_rocket(tmp_path, position=[-11.0, -3.0, 0.0]) as game:
        evs = game.apply({"type": "attack", "player": "Lion Knights", "unit": "knight1",
                          "weapon": 0, "target": "falcon1"})
        kinds = [e["type"] for e in evs]
        assert "marker" in kinds and "held" in kinds and "explosion" not in kinds
        assert game.flight.pending()
        game.end_turn()
        game.end_turn()  # turn 2 begins: the Rocket flies on and arrives
        assert any(e["type"] == "explosion" and e["turn"] == 2 for e in game.events)


@pytest.mark.parametrize("spotter, error", [
    ({"position": [-6.0, -6.0, 0.0], "scout": False}, "is not a Scout"),
    ({"position": [-9.5, -9.5, 0.0], "scout": True}, "beyond the 8\" a Scout Marks"),
    ({"position": [-6.0, -6.0, 0.0], "scout": True}, None),
], ids=["not-a-scout", "too-far", "marked"])
def test_a_bombardment_is_marked_only_by_an_allied_scout_in_range_and_sight(spotter, error):
    """BrikWars 13.2 Strategic Bombardment: the target must be Marked by an allied Scout;
    F.3: a Scout Marks what he sees within 8"."""
    import tomllib

    from sandbox.engine.game import Game
    from sandbox.engine.scene import scene_from_dict

    data = tomllib.loads((REPO / "scenes" / "bombardment_big_drop.toml").read_text())
    data.pop("expect")
    data["units"].append({
        "id": "spotter", "name": "Falcon spotter", "model": "../models/guard_tower.mpd",
        "submodel": "guard.ldr", "keep_model_placement": False, "owner": "Black Falcons",
        "position": spotter["position"],
        "stats": {"size": 1.0, "armor": 4, "move": 5.0, "scout": spotter["scout"]}})
    act = dict(data.pop("actions")[0])
    act.pop("drop_zone")
    act["marked_by"] = "spotter"
    data.pop("drop_zones")
    with Game(scene_from_dict(data), REPO / "scenes") as game:
        game.end_turn()  # the Black Falcons play second
        before = game.state_hash()
        if error is None:
            game.apply(act)
            assert game.bombardment.orders[-1].status == "incoming"
        else:
            with pytest.raises(RulesError, match=error):
                game.apply(act)
            assert game.state_hash() == before


def test_a_scouts_mark_gives_allies_plus_one_until_his_next_turn():
    """F.3 Marking: "allies get +1 to Ranged attacks on it until his next turn"."""
    import tomllib

    from sandbox.engine.game import Game
    from sandbox.engine.scene import scene_from_dict

    data = tomllib.loads((REPO / "scenes" / "skirmish.toml").read_text())
    scout = next(u for u in data["units"] if u["id"] == "knight2")
    scout["stats"]["scout"] = True
    scout["position"] = [2.0, -6.0, 0.0]
    with Game(scene_from_dict(data), REPO / "scenes") as game:
        before = game.skirmish.attack_preview("knight1", 0, "falcon1").modifiers
        game.apply({"type": "mark", "player": "Lion Knights", "scout": "knight2",
                    "target": "falcon1"})
        after = game.skirmish.attack_preview("knight1", 0, "falcon1").modifiers
        assert not any(m.source.startswith("Marked by") for m in before)
        assert [m.action for m in after if m.source.startswith("Marked by")] == [1]
        game.end_turn()
        game.end_turn()  # turn 2: the Lion Knights' (the Scout's) turn begins: the Mark ends
        assert not any(m.source.startswith("Marked by")
                       for m in game.skirmish.attack_preview("knight1", 0, "falcon1").modifiers)


def test_field_hazards_left_by_explosions_are_real_fields():
    """8.4: replaced dice make a Field Hazard at the point of impact (Smoke 4"/die, an
    Exposure Damage die such as Fire 2"/die) that shrinks 1" at the start of each of the
    attacker's turns; Smoke then blocks sight and Fire burns who stands in it (F.1)."""
    with sandbox.open_game(REPO / "scenes" / "skirmish.toml", referee=True) as game:
        assert game.line_of_sight("knight1", "falcon1").clear
        game.apply({"type": "missile", "player": "Lion Knights", "point": [0.0, -3.0, 0.2],
                    "xsize": 1, "hazard": "Smoke", "hazard_dice": 1})
        sight = game.line_of_sight("knight1", "falcon1")
        assert not sight.clear and sight.blocked_by == "smoke"
        fc = game.footprint_centre("falcon1")
        game.apply({"type": "missile", "player": "Lion Knights",
                    "point": [float(fc[0]), float(fc[1]), 0.1], "xsize": 1, "hazard": "Fire",
                    "hazard_dice": 1})
        assert {f.entry.hazard for f in game.hazards.fields.values()} == {"smoke", "exposure"}
        game.end_turn()
        game.end_turn()  # turn 2: the Exposure Field burns Black Hawk; both Fields shrink 1"
        assert any(e["type"] == "exposure" and e.get("body") == "falcon1" for e in game.events)
        sizes = sorted(f.entry.size for f in game.hazards.fields.values())
        assert sizes == [1.0, 3.0]


def test_a_launched_explosive_takes_the_action_rolls_over_the_top_dice():
    """8.4: launched Explosives use the Action Roll's Over the Top dice like every other attack:
    a Rocket's roll of 6 (and 3) adds a bonus die to its 1d10 Explosion (4 + 5 here)."""
    import tomllib

    from sandbox.engine.game import Game
    from sandbox.engine.scene import scene_from_dict

    data = tomllib.loads((REPO / "scenes" / "skirmish.toml").read_text())
    u = next(u for u in data["units"] if u["id"] == "knight1")
    u["stats"]["weapons"] = [{"type": "Rocket", "size": 1}]
    u["position"] = [1.0, -3.0, 0.0]  # within the Rocket's 6": no Out of Range penalty
    data["forced_dice"] = {"projectile": [6, 3], "explosion": [4, 5]}
    with Game(scene_from_dict(data), REPO / "scenes") as game:
        game.apply({"type": "attack", "player": "Lion Knights", "unit": "knight1",
                    "weapon": 0, "target": "falcon1"})
        boom = next(e for e in game.events if e["type"] == "explosion")
        assert boom["rings"][0] == 9
        dice = [e for e in game.events if e["type"] == "roll" and e["stream"] == "explosion"]
        assert [d["result"] for d in dice] == [4, 5]


def test_an_exploding_payload_pushes_only_by_its_knockback():
    """8.4: an Explosive Payload's impact is its Explosion (its Damage and its KnockBack): the
    contact push of a 240 in/s Rocket is taken back, so a struck minifig flies its KnockBack
    inches (1" per Explosive die), not across the table."""
    import tomllib

    from sandbox.engine.game import Game
    from sandbox.engine.scene import scene_from_dict

    data = tomllib.loads((REPO / "scenes" / "skirmish.toml").read_text())
    u = next(u for u in data["units"] if u["id"] == "knight1")
    u["stats"]["weapons"] = [{"type": "Rocket", "size": 1}]
    data["forced_dice"] = {"projectile": [5], "explosion": [7]}
    with Game(scene_from_dict(data), REPO / "scenes") as game:
        before = game.footprint_centre("falcon1")
        game.apply({"type": "attack", "player": "Lion Knights", "unit": "knight1",
                    "weapon": 0, "target": "falcon1"})
        assert "falcon1" in game.world.bodies and not game.bodies["falcon1"].off_table
        moved = float(np.linalg.norm(game.footprint_centre("falcon1") - before))
        assert moved < 4.0  # 1" of KnockBack, then the fall and a tumble


def test_a_shrinking_fire_field_loses_its_dice_beyond_its_size():
    """F.1: a Field has at most one Hazard die an inch of Size; 8.4: an Explosion's Field
    shrinks 1" at each of the attacker's turns. A 2-die Fire Field (4") keeps 2 dice down to
    2", then 1 die at 1", then is gone (it once raised at 1": 2 dice in 1")."""
    with sandbox.open_game(REPO / "scenes" / "skirmish.toml", referee=True) as game:
        game.apply({"type": "missile", "player": "Lion Knights", "point": [0.0, -6.0, 0.1],
                    "xsize": 2, "hazard": "Fire", "hazard_dice": 2})
        seen = []
        for _ in range(8):
            game.end_turn()
            seen += [(f.entry.size, f.entry.dice) for f in game.hazards.fields.values()
                     if f.entry.id == "blast-field1"]
        assert ("1d4 Fire" in {d for s, d in seen if s == 1.0})
        assert not any(f.entry.id == "blast-field1" for f in game.hazards.fields.values())
