"""BrikWars 13.2 Tactical Advantage swaps and the Deployment Rush turn, PLAYED by the engine's
turn machine (not only logged), from the API, from scene scripts and from the window's command.

The scene is the shipped escapade_raid with its script removed; its seed rolls Tactical
Advantage Blud's Raiders 8 (d8 7 + 1 for the Scout), Sir Hector 4; the Keep Garrison and Mad
Mags have no Command Specialist, so their highest-rolling enemy, Blud's Raiders, may swap two of
their units. Other cases force the ``tactical`` dice.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from sandbox.core.errors import RulesError, SceneError
from sandbox.engine.game import Game
from sandbox.engine.scene import scene_from_dict

REPO = Path(__file__).resolve().parents[1]
BLUD, HECTOR, MAGS = "Baron Blud", "Lord Hector", "Mad Mags"


def _raid(actions=(), rush=None, forced=None) -> Game:
    data = tomllib.loads((REPO / "scenes" / "escapade_raid.toml").read_text())
    data["actions"] = list(actions)
    data["escapade"].pop("expect")
    if rush is not None:
        data["escapade"]["rush"] = rush
    if forced:
        data["forced_dice"] = forced
    return Game(scene_from_dict(data), REPO / "scenes")


def _swap(player, a, b):
    return {"type": "swap", "player": player, "units": [a, b]}


def test_the_highest_rolling_enemy_swaps_two_units_of_a_force_without_a_specialist():
    """13.2: "if a deployed force doesn't have a Command Specialist, then ... their
    highest-rolling enemy may swap the locations of any two of their deployed units of similar
    Size and Propulsion type." Blud's Raiders (8) swap the Garrison's guard1 and guard3, before
    the first action and out of turn order; the guards stand where the other stood. Refused:
    Lord Hector swapping (not the highest-rolling enemy), units of two forces, a second swap,
    and any swap once the battle has begun."""
    with _raid() as g:
        assert g.escapade.tactical.swaps["Keep Garrison"] == "Blud's Raiders"
        a0, b0 = g.footprint_centre("guard1"), g.footprint_centre("guard3")
        with pytest.raises(RulesError, match="only Blud's Raiders"):
            g.apply(_swap(HECTOR, "guard1", "guard3"))
        with pytest.raises(RulesError, match="of one force"):
            g.apply(_swap(BLUD, "guard1", "hector"))
        with pytest.raises(RulesError, match="nobody may swap"):
            g.apply(_swap(HECTOR, "pim", "gunner"))  # the Raiders rolled 8: no swap of theirs
        evs = g.apply(_swap(BLUD, "guard1", "guard3"))
        assert np.allclose(g.footprint_centre("guard1"), b0, atol=0.15)
        assert np.allclose(g.footprint_centre("guard3"), a0, atol=0.15)
        swap = next(e for e in evs if e["type"] == "escapade" and e.get("event") == "swap")
        assert swap["units"] == ["guard1", "guard3"] and swap["force"] == "Keep Garrison"
        with pytest.raises(RulesError, match="already swapped"):
            g.apply(_swap(BLUD, "guard1", "guard2"))
        g.end_turn()
        with pytest.raises(RulesError, match="battle has begun"):
            g.apply(_swap(BLUD, "guard2", "guard3"))


def test_a_critical_failure_lets_the_enemy_swap_and_size_and_propulsion_must_match():
    """13.2: "If a Command Specialist critically fails this roll ... their highest-rolling
    enemy may swap". Forced: Baron Blud's d8 rolls 1 (Critical Failure), Sir Hector's d6 5:
    Lord Hector may swap two of the Raiders, the reserve trooper (not deployed) excepted."""
    with _raid(forced={"tactical": [1, 5]}) as g:
        assert g.escapade.tactical.swaps["Blud's Raiders"] == "Sir Hector"
        with pytest.raises(RulesError, match="not deployed"):
            g.apply(_swap(HECTOR, "pim", "trooper"))
        g.apply(_swap(HECTOR, "pim", "gunner"))
        assert g.escapade.swapped == {"Blud's Raiders"}


def test_a_script_plays_the_swap_first_and_a_window_command_builds_it():
    """A scene script's ``swap`` is a deployment action: played before the turn's other
    actions whatever its place in the file; the window's command builds the same action for
    the player the rule names (whose turn it is does not matter)."""
    from sandbox.games.brikwars.commands import BrikWarsCommands

    walk = {"type": "walk", "turn": 1, "player": BLUD, "unit": "pim", "to": [10.0, -4.0]}
    with _raid([walk, _swap(BLUD, "guard1", "guard3")]) as g:
        g.play_turns(1, 1)
        kinds = [e.get("event") or e["type"] for e in g.events
                 if e["type"] in ("escapade", "move")]
        assert kinds.index("swap") < kinds.index("move")
    with _raid() as g:
        cmd = BrikWarsCommands(SimpleNamespace(session=g, selected="guard1"))
        a = cmd.swap("guard2")
        assert (a.type, a.player, a.units) == ("swap", BLUD, ["guard1", "guard2"])
        g.apply(a)


def test_the_deployment_rush_turn_is_played_by_the_rushing_heroes_alone(tmp_path):
    """13.2: "When one or more Heroes makes a rush, an extra rush turn takes place at the
    beginning of the battle. Heroes take their turns in regular turn order, skipping Garrison
    forces and Heroes with units too large ... After the rush turn, the battle continues with
    all forces taking regular turns." Blud's Raiders and Sir Hector rush: turn 1 is the rush
    turn; Mad Mags sits it out; Lord Hector plays it with Sir Hector's units only (his
    Garrison waits); on turn 2 everybody plays."""
    with _raid(rush=["Sir Hector", "Blud's Raiders"]) as g:
        assert g.escapade.rushers == ("Blud's Raiders", "Sir Hector")
        assert "Deployment Rush (turn 1): Blud's Raiders, Sir Hector - now" in \
            g.escapade.panel_lines()
        assert g.current_player == BLUD
        g.apply({"type": "walk", "player": BLUD, "unit": "pim", "to": [10.0, -4.0]})
        g.end_turn()
        assert g.current_player == HECTOR
        with pytest.raises(RulesError, match="waits: only Blud's Raiders, Sir Hector"):
            g.apply({"type": "move", "player": HECTOR, "unit": "guard1", "to": [8.0, 4.0]})
        g.apply({"type": "walk", "player": HECTOR, "unit": "squire", "to": [-2.0, 7.0]})
        g.end_turn()
        assert (g.turn, g.current_player) == (2, BLUD)  # Mad Mags sat the rush turn out
        sat = [e for e in g.events if e["type"] == "turn" and e.get("sits_out")]
        assert [e["player"] for e in sat] == [MAGS]
        g.save(tmp_path / "rush.save.json")  # a save replays the rush turn the same way
        with Game.load(tmp_path / "rush.save.json") as again:
            assert again.state_hash() == g.state_hash()
            assert (again.turn, again.current_player) == (2, BLUD)
        g.end_turn()
        g.apply({"type": "move", "player": HECTOR, "unit": "guard1", "to": [8.0, 3.5]})
        g.end_turn()
        assert g.current_player == MAGS


def test_a_scripted_rush_and_what_cannot_rush():
    """A script's turn-1 action by a player with no rushing force is refused with the reason
    (he sits the rush turn out); a Hero whose largest unit is not smaller than his
    Irresponsibility cannot rush (Mad Mags: Size 1" against Irresponsibility 1) - refused when
    the scene loads, in one line naming the field."""
    declare = {"type": "declare", "turn": 1, "player": HECTOR, "force": "Keep Garrison",
               "what": "losing_battle"}
    with _raid([declare], rush=["Blud's Raiders"]) as g:
        with pytest.raises(RulesError, match="Lord Hector sits out turn 1"):
            g.play_turns(1, 1)
    with pytest.raises(SceneError, match=r"escapade.rush\[0\]: Mad Mags cannot make a "
                                         r"Deployment Rush: its largest deployed unit"):
        _raid(rush=["Mad Mags"])


def test_an_ambushing_force_sets_up_anywhere_but_in_enemy_formations_and_strongholds():
    """13.2: "If a Command Specialist's roll is at least twice as high as his highest-rolling
    enemy ... the ambushing force can place its units anywhere on the battlefield except for
    inside an enemy formation or Stronghold." Blud's Raiders rolled 8 against Sir Hector's 4:
    Pim sets up in mid-field (the window's F7 builds the same action); refused: inside the keep,
    inside Sir Hector's formation (a box around his units, 1" margin), Sir Hector (4 is not
    twice 8), and once the battle has begun."""
    from sandbox.games.brikwars.commands import BrikWarsCommands

    with _raid() as g:
        assert "Blud's Raiders" in g.escapade.tactical.ambushers
        amb = {"type": "ambush", "player": BLUD, "unit": "pim"}
        with pytest.raises(RulesError, match="Stronghold"):
            g.apply(amb | {"to": [12.0, 6.0]})
        with pytest.raises(RulesError, match="formation"):
            g.apply(amb | {"to": [-4.0, 8.5]})
        with pytest.raises(RulesError, match="no ambush"):
            g.apply({"type": "ambush", "player": HECTOR, "unit": "squire", "to": [0.0, 0.0]})
        cmd = BrikWarsCommands(SimpleNamespace(session=g, selected="pim"))
        a = cmd.ambush((-10.0, 0.0, 0.0))
        assert (a.player, a.unit, a.to) == (BLUD, "pim", (-10.0, 0.0))
        g.apply(a)
        assert np.allclose(g.footprint_centre("pim"), [-10.0, 0.0], atol=0.15)
        g.end_turn()
        with pytest.raises(RulesError, match="battle has begun"):
            g.apply(amb | {"to": [-10.0, 2.0]})
