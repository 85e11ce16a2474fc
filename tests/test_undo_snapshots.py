"""Undo from snapshots (issue 21): the game goes back to the state saved before the action
(pybullet's saveState plus the Systems' state), equal to the same game played without it."""

from __future__ import annotations

from pathlib import Path

import pytest

import sandbox
from sandbox.engine.game import Game

REPO = Path(__file__).resolve().parents[1]


def _fresh(game: Game, n: int) -> Game:
    """The same scene and seed with only the first ``n`` actions of ``game``'s log played."""
    return Game(game.spec, game.base_dir, game.ldrawdir, seed=game.seed,
                actions=list(game.actions[:n]), forced_dice=game.forced_dice)


def test_undo_restores_a_snapshot_and_matches_the_game_without_the_action():
    # trap_corridor: two moves, two interactions and a Big Drop (it adds a Payload body)
    with sandbox.open_game(REPO / "scenes" / "trap_corridor.toml") as game:
        game.play_turns()
        log = list(game.actions)
        final = game.state_hash()
        assert len(log) >= 4
        world = game.world
        added = set(world.bodies)
        for n in range(len(log) - 1, len(log) - 5, -1):
            undone = game.undo()
            assert undone == log[n]
            assert game.world is world  # restored in place: no rebuild
            with _fresh(game, n) as fresh:
                assert game.state_hash() == fresh.state_hash()
                assert game.world.poses() == fresh.world.poses()  # bit for bit
                assert set(game.world.bodies) == set(fresh.world.bodies)
                assert game.events[:-1] == fresh.events  # the log less the action, + "undo"
                assert game.recorder.frame == fresh.recorder.frame
        assert added - set(game.world.bodies), "a body added by an undone action is gone"
        for a in log[len(game.actions):]:  # play the undone actions again: same outcome
            game.apply(a)
        assert game.state_hash() == final


def test_an_action_that_removed_a_body_is_undone_by_rebuilding():
    # wall_demolition: the missile breaks the wall (the wall's body goes, pieces come)
    with sandbox.open_game(REPO / "scenes" / "wall_demolition.toml") as game:
        game.play_turns()
        n = len(game.actions) - 1
        broken = set(game.world.bodies)
        # rubble (destroyed parts on their own, "~") may sleep; pieces ("#") do not
        assert any("~" in k for k in broken) and any("#" in k for k in broken)
        assert all(b.sleeps == ("~" in k) for k, b in game.world.bodies.items())
        world = game.world
        game.undo()
        assert game.world is not world  # the snapshot cannot bring a removed body back
        with _fresh(game, n) as fresh:
            assert game.state_hash() == fresh.state_hash()
            assert set(game.world.bodies) == set(fresh.world.bodies) != broken


def test_undo_without_a_snapshot_rebuilds(monkeypatch):
    monkeypatch.setattr("sandbox.engine.game.UNDO_SNAPSHOTS", 0)
    with sandbox.open_game(REPO / "scenes" / "trap_corridor.toml") as game:
        game.play_turns()
        world = game.world
        game.undo()
        assert game.world is not world
        with _fresh(game, len(game.actions)) as fresh:
            assert game.state_hash() == fresh.state_hash()


@pytest.mark.parametrize("undos", [2])
def test_a_save_after_an_undo_loads_with_the_same_hash(tmp_path, undos):
    with sandbox.open_game(REPO / "scenes" / "trap_corridor.toml") as game:
        game.play_turns()
        for _ in range(undos):
            game.undo()
        path = game.save(tmp_path / "g.save.json")
        with Game.load(path) as loaded:  # re-simulates the log and checks the hash
            assert loaded.state_hash() == game.state_hash()
