"""How a game ends (issue 25): :class:`sandbox.engine.outcome.Outcome` from each game kind's
``outcome()`` hook, reached by ``Game.outcome`` after every action; a terminal outcome ends the
game (an ``outcome`` event, ``over``); saves, replays, ``sandbox run`` and odds show it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sandbox import open_game
from sandbox.app.odds import aggregate, outcome_row
from sandbox.cli import app
from sandbox.core.errors import RulesError
from sandbox.engine.game import Game
from sandbox.engine.outcome import Outcome

REPO = Path(__file__).resolve().parents[1]
SCENES = REPO / "scenes"


def _outcome_events(game: Game) -> list[dict]:
    return [e for e in game.events if e["type"] == "outcome"]


@pytest.mark.parametrize("scene, winner", [
    ("escapade_raid", "Blud's Raiders"),       # 13.3: every defending force is defeated
    ("brigandine_skirmish", "Lions"),          # the Wolves' captain flees: combat finished
    ("micro_brick_war", "Red"),                # Red holds every Capital
])
def test_the_decided_scenes_finish_with_an_outcome_naming_the_winner(scene, winner, tmp_path):
    with open_game(SCENES / f"{scene}.toml") as g:
        g.play_script()
        oc = g.outcome
        assert oc.terminated and not oc.truncated and oc.winner == winner and not oc.draw
        assert g.over and g.check() == []
        evs = _outcome_events(g)
        assert len(evs) == 1 and evs[0]["winner"] == winner and evs[0]["terminated"]
        assert evs[0]["text"].startswith(f"Outcome: {winner} win")
        assert g.events[-1]["type"] == "end" and g.events[-2]["type"] == "outcome"
        doc = g.save_doc()
        assert doc["outcome"] == oc.to_dict()
        assert g.replay().meta["outcome"] == oc.to_dict()
        path = g.save(tmp_path / "g.save.json")
        h = g.state_hash()
    with Game.load(path) as again:  # the save replays to the same end
        assert again.over and again.outcome == oc and again.state_hash() == h
        assert json.loads(path.read_text())["outcome"]["winner"] == winner


def test_a_conquest_ends_the_game_by_itself_and_refuses_what_follows():
    """Micro Brick War ends when Red takes the last Capital (004), not when the script ends:
    the engine asks the systems after every action."""
    with open_game(SCENES / "micro_brick_war.toml") as g:
        script = g.script()
        for a in script:
            if g.over:
                break
            if not a.deployment:
                g.advance_to(a.turn, a.player)
            g.apply(a, by="referee")
        assert g.over and g.outcome.winner == "Red" and "conquest" in g.outcome.reason
        ended = next(i for i, e in enumerate(g.events) if e["type"] == "outcome")
        assert [e["type"] for e in g.events[ended:]] == ["outcome", "end"]
        with pytest.raises(RulesError, match="the game is over: Red wins"):
            g.end_turn()


def test_a_brigandine_field_is_decided_when_one_side_cannot_fight():
    with open_game(SCENES / "brigandine_skirmish.toml") as g:
        g.play_turns(1, 18)  # before Sir Hugh's round-3 charge: both sides still fight
        mid = g.outcome
        assert not mid.terminated and mid.winner is None and "Wolves 1" in mid.reason
        g.play_turns(19)  # the charge is ordered; it resolves when the phase ends
        assert not g.over
        ends = 0
        while not g.over and ends < 4:
            g.end_turn()
            ends += 1
        assert g.over and g.outcome.winner == "Lions" and g.outcome.terminated
        assert g.system("brigandine").units["captain"].fled
        assert ends == 2  # it ended itself as the Wolves ended turn 19 (the phase resolved)


def test_a_game_without_victory_rules_is_truncated_with_no_winner():
    with open_game(SCENES / "skirmish.toml") as g:
        assert g.outcome == Outcome(reason="the game goes on")
        g.play_script()
        oc = g.outcome
        assert oc.truncated and not oc.terminated and oc.winner is None and not oc.draw
        assert oc.text.startswith("No winner (finished on turn 1")


def test_an_escapade_says_who_holds_the_victory_while_it_goes_on():
    with open_game(SCENES / "escapade_raid.toml") as g:
        assert "host holds" in g.outcome.reason and not g.outcome.terminated
        assert g.outcome.winner is None and not g.over


def test_outcome_text_and_round_trip():
    assert Outcome(terminated=True, winner="Red", reason="conquest").text == "Red wins (conquest)"
    assert Outcome(terminated=True, winner="Lions").text == "Lions win"
    assert Outcome(terminated=True, draw=True, reason="x").text == "Draw (x)"
    o = Outcome(terminated=True, winner="Red", reason="conquest")
    assert Outcome.from_dict(o.to_dict()) == o
    with pytest.raises(TypeError, match="outcome.draw"):
        Outcome.from_dict({"draw": "yes"})


def test_sandbox_run_prints_the_outcome(tmp_path, ldrawdir):
    res = CliRunner().invoke(app, ["run", str(SCENES / "brigandine_skirmish.toml"), "--out",
                                   str(tmp_path), "--no-png", "-q", "--ldrawdir", str(ldrawdir)])
    assert res.exit_code == 0, res.output
    assert "Outcome: Lions win (round 3: no combatant of Wolves is able to fight" in res.output


def test_odds_count_win_rates_per_side():
    rows = []
    for scene in ("micro_brick_war", "skirmish"):
        with open_game(SCENES / f"{scene}.toml") as g:
            g.play_script()
            rows.append({"seed": 1, "status": "ok", "error": "", **outcome_row(g)})
    assert rows[0]["winner"] == "Red" and rows[1]["winner"] == ""
    won = aggregate(rows)["winners"]
    assert won["Red"]["k"] == 1 and won["Red"]["n"] == 2
    assert won["no winner"]["k"] == 1 and won["draw"]["k"] == 0


def test_a_script_stops_where_the_rules_end_the_game():
    """With other dice a battle may be decided sooner (``sandbox odds``): the rest of the
    script is not played, and nothing is refused for it."""
    import tomllib

    from sandbox.engine.scene import scene_from_dict

    data = tomllib.loads((SCENES / "micro_brick_war.toml").read_text())
    late = {"type": "mbw_farm", "player": "Red", "turn": 30, "city": "a1", "square": "a2"}
    data["actions"] = data["actions"] + [late]
    data.pop("turns", None)
    with Game(scene_from_dict(data), SCENES) as g:
        g.play_script()
        assert g.over and g.outcome.winner == "Red"
        assert g.turn < 30 and not any(a.turn == 30 for a in g.actions)



def test_an_escapade_ends_itself_when_the_agreed_turns_have_run_out():
    """13.3: the battle ends when the players decide; the scene's ``turns`` (3 for the raid)
    is the length they agreed on. The Escapade's own victory rules end the game after the
    last turn's ``end_turn`` (any table: the window, the server, the API), not the window."""
    with open_game(SCENES / "escapade_raid.toml") as g:
        assert g.spec.turns == 3
        while g.turn <= 3:
            assert not g.over
            g.end_turn()
        assert g.over and g.outcome.terminated and g.turn == 4
        # nobody acted: the Host retains control of the battlefield (13.3)
        assert g.outcome.winner == "Keep Garrison and Sir Hector", g.outcome
        assert "host holds" in g.outcome.reason
        with pytest.raises(RulesError, match="over"):
            g.end_turn()
