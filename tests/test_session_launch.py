"""Firing a Launcher from the table through the session layer (issue 7): the action is the
scene's own ``launch`` record, applied by :mod:`sandbox.games.brikwars.projectiles`, kept in
the action log so undo, save and load replay it. Scene: scenes/catapult_over_wall.toml."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sandbox.core.errors import RulesError
from sandbox.engine.actions import EndTurnAction, parse_action
from sandbox.engine.game import Game as GameSession
from sandbox.engine.scene import load_scene
from sandbox.games.brikwars.scene_flight import LaunchAction

REPO = Path(__file__).resolve().parents[1]
SCENE = REPO / "scenes" / "catapult_over_wall.toml"
LK, BF = "Lion Knights", "Black Falcons"


@pytest.fixture()
def session():
    spec, base = load_scene(SCENE)
    s = GameSession(spec, base)
    yield s
    s.close()


def lob(s, target, **kw):
    pv = s.flight.launch_preview("trebuchet", target, **kw)
    return pv, LaunchAction(type="launch", player=s.current_player, turn=s.turn,
                            weapon="trebuchet", payload=list(pv.payload), target=pv.target,
                            target_body=pv.target_body)


def test_only_the_owner_fires_and_the_preview_is_the_arc(session):
    s = session
    assert s.flight.launchers() == []  # Lion Knights move first; the catapult is the Falcons'
    pv, act = lob(s, (3.5, 0.0, 4.0), target_body="guard")
    assert not pv.allowed and "not" in pv.reason
    with pytest.raises(RulesError):
        s.apply(act.model_copy(update={"player": LK}))
    assert s.actions == []
    s.apply(EndTurnAction(type="end_turn", player=LK))
    pv, act = lob(s, (3.5, 0.0, 4.0), target_body="guard")
    assert pv.allowed and pv.payload == ("boulder",) and not pv.beyond_turn
    assert np.allclose(pv.path[0], pv.muzzle) and np.allclose(pv.path[-1], pv.target, atol=1e-6)
    assert pv.path[:, 2].max() > 4.0  # a high arc over the wall


def test_fire_undo_save_and_load_replay_the_shot(session, tmp_path):
    s = session
    s.apply(EndTurnAction(type="end_turn", player=LK))
    before = s.state_hash()
    pv, act = lob(s, (3.5, 0.0, 4.0), target_body="guard")
    events = s.apply(act)
    kinds = [e["type"] for e in events]
    assert "launch" in kinds and "landed" in kinds
    assert s.body("guard").damage.destroyed  # the forced roll hits, 2d6 Crash Damage
    assert isinstance(s.actions[-1], LaunchAction)
    after = s.state_hash()
    with pytest.raises(RulesError, match="already fired|loading area"):
        s.apply(act)
    path = s.save(tmp_path / "lob.save.json")
    doc = json.loads(path.read_text())
    assert doc["actions"][-1]["type"] == "launch"
    assert parse_action(doc["actions"][-1]) == act.model_copy(update={"by": "player"})
    loaded = GameSession.load(path)
    try:
        assert loaded.state_hash() == after
    finally:
        loaded.close()
    assert s.undo() == act.model_copy(update={"by": "player"})  # logged with its issuer
    assert s.state_hash() == before and not s.body("guard").damage.destroyed


def test_a_shot_beyond_12_inches_is_held_and_flies_on_next_turn(session, tmp_path):
    s = session
    s.apply(EndTurnAction(type="end_turn", player=LK))
    pv, act = lob(s, (12.0, 3.0, 0.0))
    assert pv.beyond_turn and pv.distance_in > 12
    kinds = [e["type"] for e in s.apply(act)]
    assert "marker" in kinds and "held" in kinds and "attack" not in kinds
    assert s.flight.pending()
    path = s.save(tmp_path / "held.save.json")
    loaded = GameSession.load(path)  # the held flight is rebuilt by replaying the log
    try:
        assert loaded.state_hash() == s.state_hash() and loaded.flight.pending()
    finally:
        loaded.close()
    kinds = [e["type"] for e in s.apply(EndTurnAction(type="end_turn", player=BF))]
    assert "flight" in kinds and "attack" in kinds  # arrives: the Action Roll is made now
    assert not s.flight.pending()
    s.undo()
    assert s.flight.pending()
