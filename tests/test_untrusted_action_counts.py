"""Bounded work from a count of actions (found by trying the sandbox as a hostile user): a
scene's script, a save's and a replay's log and a game's log hold at most the ``actions``
limit (each action is replayed through physics when the file is loaded); a move of 0" is
refused, not logged; online, accepted actions count toward the rate limit (paced, never cut
off), so a seat cannot log free actions without end.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from test_net import DUEL, _run, _table, _teardown
from websockets.asyncio.client import connect

from sandbox import open_game
from sandbox.core.errors import ReplayError, RulesError, SceneError
from sandbox.core.limits import LIMITS, limit
from sandbox.engine.game import Game
from sandbox.engine.replay import load_replay, save_replay
from sandbox.engine.scene import load_scene
from sandbox.net import Limits
from sandbox.net.protocol import PROTOCOL_VERSION

END = '[[actions]]\ntype = "end_turn"\nplayer = "{p}"\n'


@pytest.fixture
def duel(tmp_path) -> Path:
    p = tmp_path / "duel.toml"
    p.write_text(DUEL)
    return p


def _scripted(tmp_path: Path, n: int) -> Path:
    p = tmp_path / "script.toml"
    p.write_text(DUEL + "".join(END.format(p="Red" if i % 2 == 0 else "Blue") for i in range(n)))
    return p


def test_the_actions_limit_has_a_default_a_variable_and_an_option(monkeypatch):
    assert LIMITS["actions"] == ("SANDBOX_MAX_ACTIONS", 5000, "--max-actions")
    monkeypatch.setenv("SANDBOX_MAX_ACTIONS", "7")
    assert limit("actions") == 7


def test_a_scene_with_more_actions_than_the_limit_is_one_line_naming_the_file(tmp_path,
                                                                             monkeypatch):
    monkeypatch.setenv("SANDBOX_MAX_ACTIONS", "4")
    assert len(load_scene(_scripted(tmp_path, 4))[0].actions) == 4  # at the limit: read
    with pytest.raises(SceneError) as err:
        load_scene(_scripted(tmp_path, 5))
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"{tmp_path / 'script.toml'}: actions: 5 actions")
    assert "over the limit of 4" in msg and "--max-actions" in msg


def test_a_game_log_stops_at_the_limit_and_a_longer_save_or_replay_is_refused(duel, tmp_path,
                                                                              monkeypatch):
    save, rep = tmp_path / "long.save.json", tmp_path / "long.replay"
    with open_game(duel) as g:
        for _ in range(6):
            g.end_turn()
        g.save(save)
        save_replay(g.replay(), rep)
        monkeypatch.setenv("SANDBOX_MAX_ACTIONS", "6")
        with pytest.raises(RulesError, match="the game's log holds 6 actions, the most a game "
                                             "keeps .*SANDBOX_MAX_ACTIONS"):
            g.end_turn()
        assert len(g.actions) == 6
    with Game.load(save) as h:  # at the limit: loads
        assert len(h.actions) == 6
    assert len(load_replay(rep).actions) == 6
    monkeypatch.setenv("SANDBOX_MAX_ACTIONS", "5")
    with pytest.raises(ReplayError) as err:
        Game.load(save)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"{save}: actions: 6 actions, over the limit of 5")
    with pytest.raises(ReplayError) as err:
        load_replay(rep)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"{rep}: ") and "6 actions, over the limit of 5" \
        in msg


def test_a_move_of_about_0_inches_is_refused_and_not_logged(duel):
    with open_game(duel) as g:
        x, y = (float(v) for v in g.footprint_centre("red1"))
        for to in ((x, y), (x + 0.004, y - 0.003)):
            with pytest.raises(RulesError) as err:
                g.apply({"type": "move", "player": "Red", "unit": "red1", "to": [to[0], to[1]]})
            msg = str(err.value)
            assert "Red brick is already at" in msg and "changes nothing" in msg, msg
        with pytest.raises(RulesError, match="already at"):  # the referee's too: pointless
            g.apply({"type": "move", "player": "Red", "unit": "red1", "to": [x, y]}, by="referee")
        assert g.actions == []
        g.apply({"type": "move", "player": "Red", "unit": "red1", "to": [x + 0.5, y]})
        assert len(g.actions) == 1
        # a clamped move with nothing left says so, rather than "already there"
        g.apply({"type": "move", "player": "Red", "unit": "red1", "to": [x + 0.5, y + 5.0],
                 "clamp": True})
        with pytest.raises(RulesError, match='may move 0.00" more this turn'):
            g.apply({"type": "move", "player": "Red", "unit": "red1", "to": [x + 0.5, y],
                     "clamp": True})


def test_accepted_actions_count_toward_the_rate_limit_paced_never_cut_off(duel):
    limits = Limits(rate_per_s=1)

    async def main():
        srv, clients, lines = await _table(duel, limits=limits, spectator=False)
        try:
            async with connect(srv.url) as ws:
                await ws.send(json.dumps({"type": "hello", "token": srv.token("Red"),
                                          "version": PROTOCOL_VERSION}))
                face = json.dumps({"type": "action", "action": {
                    "type": "face", "player": "Red", "unit": "red1", "degrees": 10.0}})
                for _ in range(5):  # free, accepted, sent at once: more than 1 a second
                    await ws.send(face)
                for _ in range(600):
                    if srv.seq >= 5:
                        break
                    await asyncio.sleep(0.05)
                assert srv.seq == 5 and srv.paced >= 1
                assert not any("rate limit" in ln for ln in lines)
                await ws.send(json.dumps({"type": "chat", "text": "still here"}))
                for _ in range(600):
                    if any("still here" in ln for ln in lines):
                        break
                    await asyncio.sleep(0.05)
                assert any("still here" in ln for ln in lines)  # not cut off
        finally:
            await _teardown(srv, clients)

    _run(main())
