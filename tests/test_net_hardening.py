"""The online server against a careless host and a hostile client (issue 28): long games,
autosaves, the rate limit with a fast honest client, forged text, desync floods, seeds.

Every server listens on 127.0.0.1 (port 0); every loop is bounded.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_net import DUEL, _run, _table, _teardown
from websockets.asyncio.client import connect

from sandbox import open_game
from sandbox.core.dice import MAX_SEED
from sandbox.core.errors import NetError, SceneError
from sandbox.engine.game import Game
from sandbox.net import GameServer, HeadlessClient, Limits
from sandbox.net.protocol import PROTOCOL_VERSION, first_difference, printable, state_digest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def duel(tmp_path) -> Path:
    p = tmp_path / "duel.toml"
    p.write_text(DUEL)
    return p


def _control_free(line: str) -> bool:
    return not any(ord(c) < 32 or 0x7f <= ord(c) < 0xa0 for c in line)


# ---------------------------------------------------------------------------- long, fast games
def test_a_fast_bot_plays_400_end_turns_past_turn_150_never_cut_off_and_autosaved(duel, tmp_path):
    save = tmp_path / "served.save.json"

    async def main():
        # the default limits (50 messages a second) and the default autosave (every change)
        srv, clients, lines = await _table(duel, save_path=save, spectator=False)
        red, blue = clients
        try:
            assert save.is_file(), "the save is written at start"
            by = {"Red": red, "Blue": blue}
            for _ in range(400):  # as fast as the server answers: no pause between actions
                player = srv.game.current_player
                await by[player].act({"type": "end_turn", "player": player})
            assert srv.seq == 400 and srv.game.turn == 201
            for c in clients:
                await c.wait_confirmed(400, timeout=120)
                assert c.ws is not None and c.close_code is None, c.close_reason
            assert not any("rate limit" in ln for ln in lines)
            assert not srv.desyncs and not any(c.mismatches for c in clients)
            want = srv.hashes[400]
            # the autosave after the last change: what a kill -9 now would leave
            for _ in range(600):
                doc = json.loads(save.read_text())
                if len(doc["actions"]) == 400:
                    break
                await asyncio.sleep(0.05)
            assert len(doc["actions"]) == 400 and doc["actions"][-1]["turn"] == 200
        finally:
            await _teardown(srv, clients)
        return want

    want = _run(main())
    with Game.load(save) as g:  # the server's own save loads: turn 201, the same state
        assert g.turn == 201 and g.state_hash() == want


def test_a_flood_of_refused_actions_is_still_cut_off(duel):
    limits = Limits(rate_per_s=50)

    async def main():
        srv, clients, lines = await _table(duel, limits=limits, spectator=False)
        try:
            async with connect(srv.url) as ws:
                await ws.send(json.dumps({"type": "hello", "token": srv.token("Blue"),
                                          "version": PROTOCOL_VERSION}))
                flood = json.dumps({"type": "action", "action": {"type": "end_turn",
                                                                  "player": "Blue"}})
                for _ in range(200):  # Blue's end turn on Red's turn: refused, every one
                    await ws.send(flood)
                closed = None
                for _ in range(1000):
                    try:
                        await asyncio.wait_for(ws.recv(), 10)
                    except Exception as exc:  # noqa: BLE001 - the close is what we wait for
                        closed = exc
                        break
                rc = closed.rcvd
                assert rc.code == 1008 and "rate limit" in rc.reason
            assert srv.seq == 0
        finally:
            await _teardown(srv, clients)

    _run(main())


def test_an_unwritable_save_path_stops_the_server_at_start(duel, tmp_path):
    in_the_way = tmp_path / "a_file"
    in_the_way.write_text("x")

    async def main():
        game = open_game(duel)
        srv = GameServer(game, save_path=in_the_way / "game.save.json")
        try:
            with pytest.raises(NetError, match="cannot save the game"):
                await srv.start()
        finally:
            game.close()

    _run(main())
    out = subprocess.run([sys.executable, "-m", "sandbox.cli", "serve", str(duel), "--port", "0",
                          "--save", str(in_the_way / "game.save.json")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    err = out.stderr.strip()
    assert "cannot save the game" in err and len(err.splitlines()) == 1, err
    # the scene itself as the save: refused before it is written over
    before = duel.read_bytes()
    out = subprocess.run([sys.executable, "-m", "sandbox.cli", "serve", str(duel), "--port", "0",
                          "--save", str(duel)], capture_output=True, text=True, timeout=120)
    err = " ".join(out.stderr.split())
    assert out.returncode != 0 and "is the scene file" in err and duel.read_bytes() == before


# ---------------------------------------------------------------------------- forged text
def test_printable_escapes_control_characters_and_newlines():
    assert printable("hi\n#7 Red: fake") == "hi\\n#7 Red: fake"
    assert printable("\x1b[2J\x1b]8;;http://x\x07link") == "\\x1b[2J\\x1b]8;;http://x\\x07link"
    assert printable(printable("a\nb\x1b")) == printable("a\nb\x1b")  # once is enough
    assert printable("\u202eevil\u2028x\x85é 中") == "\\u202eevil\\u2028x\\x85é 中"
    assert printable("x" * 50, limit=10) == "x" * 10 + "…"


def test_chat_and_close_reasons_reach_the_console_one_line_without_escapes(duel):
    async def main():
        srv, clients, lines = await _table(duel)
        red, blue, spec = clients
        try:
            evil = "gg\x1b[2J\x1b]8;;http://evil\x07click\x1b]8;;\x07\n#7 Red: Red resigns\r\x00"
            await blue.send_chat(evil)
            await red.wait_for(lambda: red.chat)
            got = red.chat[-1]["text"]
            assert _control_free(got) and "\\n#7 Red" in got and "\\x1b[2J" in got
            # a spectator leaves with a forged close reason
            async with connect(srv.url) as ws:
                await ws.send(json.dumps({"type": "hello", "token": srv.token("spectator"),
                                          "version": PROTOCOL_VERSION}))
                await ws.recv()
                await ws.close(1000, "bye\n#8 Blue: Blue resigns\x1b[31m")
            for _ in range(400):
                if any("Blue resigns" in ln for ln in lines):
                    break
                await asyncio.sleep(0.05)
            for ln in lines:
                assert _control_free(ln), repr(ln)
            assert any("chat Blue: gg\\x1b[2J" in ln for ln in lines)
            assert not any(ln.startswith("#7 Red") or ln.startswith("#8") for ln in lines)
            assert any("bye\\n#8 Blue: Blue resigns\\x1b[31m" in ln for ln in lines)
            assert all(_control_free(e["text"]) for e in srv.shared_log)
        finally:
            await _teardown(srv, clients)

    _run(main())


def test_first_difference_never_names_what_only_the_client_has():
    ours = {"turn": 1, "player": "Red", "over": False, "rolls": 0, "systems": {},
            "bodies": {"a": {"k": 1}}, "poses": {"a": [[0, 0, 0], [0, 0, 0, 1]]}}
    theirs = state_digest(ours)
    theirs["body:\x1b[2J PWNED"] = "0" * 16
    d = first_difference(ours, theirs)
    assert "PWNED" not in json.dumps(d) and d["body"] is None
    assert "1 body(ies) the server has not" in d["text"]
    theirs = state_digest(ours)
    theirs["system:\nfake"] = "1"
    d = first_difference(ours, theirs)
    assert "fake" not in json.dumps(d) and "1 part(s)" in d["text"]


def test_a_spectator_flooding_desyncs_gets_few_notices_no_voice_and_paced_saves(duel):
    limits = Limits(rate_per_s=1000, desync_notice_interval_s=30.0, sync_interval_s=0.5)

    async def main():
        srv, clients, lines = await _table(duel, limits=limits)
        red, blue, spec = clients
        try:
            e = await red.act({"type": "move", "player": "Red", "unit": "red1",
                               "to": [-2.0, 1.0]})
            for c in clients:
                await c.wait_confirmed(e["seq"], timeout=60)
            seq, good = srv.seq, srv.hashes[srv.seq]
            bad = "f" * 64
            async with connect(srv.url, max_size=None) as ws:
                await ws.send(json.dumps({"type": "hello", "token": srv.token("spectator"),
                                          "version": PROTOCOL_VERSION}))
                digest = {"body:\x1b[2J\nDESYNC Red cheats": "0" * 16}
                sync_times = []
                for _ in range(6):  # good hash, bad hash, the asked-for state: a sync each
                    await ws.send(json.dumps({"type": "hash", "seq": seq, "hash": good}))
                    await ws.send(json.dumps({"type": "hash", "seq": seq, "hash": bad}))
                    await ws.send(json.dumps({"type": "state", "seq": seq, "digest": digest}))
                while len(sync_times) < 7:  # the welcome's and one per round
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if msg["type"] == "sync":
                        sync_times.append(time.monotonic())
            gaps = [b - a for a, b in zip(sync_times, sync_times[1:], strict=False)]
            assert all(g >= 0.45 for g in gaps[1:]), gaps  # paced (the welcome's is free)
            await red.wait_for(lambda: red.desyncs)
            e = await red.act({"type": "end_turn", "player": "Red"})
            await red.wait_seq(e["seq"])
            assert len(red.desyncs) == 1 and len(blue.desyncs) == 1  # one notice, not six
            assert len(srv.desyncs) == 6
            notes = [n for n in srv.shared_log if n["kind"] == "desync"]
            assert len(notes) == 1
            for text in [json.dumps(red.desyncs), json.dumps(notes)] + lines:
                assert "cheats" not in text and _control_free(text)
        finally:
            await _teardown(srv, clients)

    _run(main())


# ---------------------------------------------------------------------------- seeds
def test_the_largest_seed_serves_syncs_saves_and_replays(duel, tmp_path):
    with pytest.raises(SceneError, match="out of range"):
        open_game(duel, seed=2**63)
    with pytest.raises(SceneError, match="out of range"):
        open_game(duel, seed=-(2**63))
    with pytest.raises(SceneError, match="4301-bit|out of range"):
        open_game(duel, seed=2**4300)

    async def main():
        game = open_game(duel, seed=MAX_SEED)
        srv = GameServer(game, port=0, save_path=tmp_path / "big.save.json")
        await srv.start()
        red = await HeadlessClient(srv.url, srv.token("Red"), scene_dir=duel.parent,
                                   name="Red").connect()
        try:
            e = await red.act({"type": "end_turn", "player": "Red"})
            await red.wait_confirmed(e["seq"], timeout=60)
            assert red.game.seed == MAX_SEED and not red.mismatches
        finally:
            await _teardown(srv, [red])

    _run(main())
    with Game.load(tmp_path / "big.save.json") as g:
        assert g.seed == MAX_SEED and len(g.actions) == 1
    for bad in (str(2**63), str(-(2**63))):
        out = subprocess.run([sys.executable, "-m", "sandbox.cli", "serve", str(duel),
                              "--port", "0", "--seed", bad],
                             capture_output=True, text=True, timeout=120)
        err = out.stderr.strip()
        assert out.returncode != 0 and "out of range" in err and len(err.splitlines()) == 1


def test_spectators_reconnecting_again_and_again_get_paced_saves(duel):
    from sandbox.net.server import SPECTATOR_SYNCS_PER_INTERVAL

    limits = Limits(sync_interval_s=1.0, max_clients=40)

    async def main():
        srv, clients, lines = await _table(duel, limits=limits, spectator=False)
        try:
            times = []
            for _ in range(9):  # join, take the save, leave, join again ...
                async with connect(srv.url, max_size=None) as ws:
                    await ws.send(json.dumps({"type": "hello", "token": srv.token("spectator"),
                                              "version": PROTOCOL_VERSION}))
                    while json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] != "sync":
                        pass
                    times.append(time.monotonic())
            least = 1.0 / SPECTATOR_SYNCS_PER_INTERVAL
            gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
            assert all(g >= least * 0.9 for g in gaps), gaps
        finally:
            await _teardown(srv, clients)

    _run(main())
