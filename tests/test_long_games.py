"""Long games and careless callers (issue 28): turn 150 and Brigandine round 20 save and load,
the turn limit stops play with one line, concurrent apply is refused, a closed game says so."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from test_net import DUEL

from sandbox import open_game
from sandbox.core.errors import RulesError, SandboxError, SceneError
from sandbox.engine.actions import MAX_TURN, parse_action
from sandbox.engine.game import Game
from sandbox.games.brigandine.scene import round_phase

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def duel(tmp_path) -> Path:
    p = tmp_path / "duel.toml"
    p.write_text(DUEL)
    return p


def test_a_brikwars_game_played_to_turn_150_saves_and_loads(duel, tmp_path):
    with open_game(duel) as g:
        g.apply({"type": "move", "player": "Red", "unit": "red1", "to": [-2.0, 1.0]})
        while g.turn < 150:
            g.end_turn()
        g.apply({"type": "move", "player": "Red", "unit": "red1", "to": [-1.0, 2.0],
                 "turn": 150})
        assert g.actions[-1].turn == 150
        g.save(tmp_path / "long.save.json")
        want = g.state_hash()
    with Game.load(tmp_path / "long.save.json") as h:
        assert h.turn == 150 and h.state_hash() == want
        h.end_turn()


def test_brigandine_round_20_saves_and_loads(ldrawdir, tmp_path):
    scene = REPO / "scenes" / "brigandine_skirmish.toml"
    with open_game(scene, ldrawdir=ldrawdir) as g:
        while round_phase(g.turn)[0] < 20:
            g.end_turn()
        while round_phase(g.turn) != (20, 8):
            g.end_turn()
        assert g.turn == 160
        g.save(tmp_path / "brig.save.json")
        want = g.state_hash()
    with Game.load(tmp_path / "brig.save.json", ldrawdir=ldrawdir) as h:
        assert h.turn == 160 and h.state_hash() == want


def test_the_turn_limit_stops_play_with_one_line(duel, tmp_path):
    with open_game(duel) as g:
        g.undo_snapshots = 0
        while g.turn <= MAX_TURN:
            g.end_turn()
        assert g.turn == MAX_TURN + 1
        types = [e["type"] for e in g.events[-3:]]
        assert types == ["turn_limit", "outcome", "end"]  # the game ends, truncated
        assert g.over and g.outcome.truncated and g.outcome.winner is None
        for act in (lambda: g.end_turn(),
                    lambda: g.apply({"type": "move", "player": "Red", "unit": "red1",
                                     "to": [-2.0, 1.0]})):
            with pytest.raises(RulesError) as err:
                act()
            msg = str(err.value)
            assert f"turn {MAX_TURN} was the last" in msg and "\n" not in msg
        g.save(tmp_path / "limit.save.json")
    with Game.load(tmp_path / "limit.save.json") as h:  # the save of a game at its limit loads
        assert h.turn == MAX_TURN + 1 and len(h.actions) == 2 * MAX_TURN
    with pytest.raises(SceneError, match=f"less than or equal to {MAX_TURN}"):
        parse_action({"type": "end_turn", "player": "Red", "turn": MAX_TURN + 1})


def test_a_second_thread_applying_at_once_is_refused(duel, tmp_path):
    with open_game(duel) as g:
        inside, release = threading.Event(), threading.Event()
        errors: list[BaseException] = []

        def hold(_event):
            if not inside.is_set():
                inside.set()
                release.wait(60)

        def first():
            try:
                g.end_turn()
            except BaseException as exc:  # noqa: BLE001 - reported to the test below
                errors.append(exc)

        g.bus.subscribe(None, hold)
        t = threading.Thread(target=first)
        t.start()
        assert inside.wait(60)
        with pytest.raises(RulesError, match="not thread-safe"):
            g.apply({"type": "end_turn", "player": "Blue"})
        release.set()
        t.join(60)
        assert not errors and len(g.actions) == 1 and g.current_player == "Blue"
        g.end_turn()  # the lock is free again
        g.save(tmp_path / "threads.save.json")
    with Game.load(tmp_path / "threads.save.json") as h:
        assert len(h.actions) == 2


def test_state_hash_of_a_closed_game_is_a_sandbox_error(duel):
    g = open_game(duel)
    g.close()
    with pytest.raises(SandboxError, match="the game is closed"):
        g.state_hash()


def test_every_action_type_takes_turns_up_to_the_limit():
    """No action type keeps a cap of its own on ``turn`` (15 of them still said 100): the one
    limit is MAX_TURN, the base Action's field."""
    from sandbox.engine import actions, kinds
    from sandbox.engine.scene import scene_model

    kinds.all_kinds()
    scene_model()
    capped = {name: [m.le for m in cls.model_fields["turn"].metadata if hasattr(m, "le")]
              for name, cls in actions.REGISTRY.items()}
    assert {n: le for n, le in capped.items() if le != [MAX_TURN]} == {}
