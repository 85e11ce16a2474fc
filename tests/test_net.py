"""Online play on the loopback interface: a real websockets server and headless clients, each
with its own physics world, in lockstep on ``state_hash()`` (sandbox/net)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from sandbox import open_game
from sandbox.core.errors import NetError
from sandbox.engine.actions import REGISTRY, action_dict
from sandbox.net import GameServer, HeadlessClient, Limits
from sandbox.net.protocol import PROTOCOL_VERSION, first_difference, state_digest

REPO = Path(__file__).resolve().parents[1]

DUEL = """
name = "Net duel"
seed = 3
format = 1
[battlefield]
width = 12.0
depth = 12.0
[[players]]
name = "Red"
colour = 4
[[players]]
name = "Blue"
colour = 1
[[units]]
id = "red1"
name = "Red brick"
owner = "Red"
position = [-3.0, 0.0, 0.0]
stats = { size = 1.0, armor = 4, action_die = 6, move = 5.0 }
parts = [{ part = "3003", colour = 4, position = [0.0, 0.0, 0.0] }]
[[units]]
id = "blue1"
name = "Blue brick"
owner = "Blue"
position = [2.0, 0.0, 0.0]
stats = { size = 1.0, armor = 4, action_die = 6, move = 5.0 }
parts = [{ part = "3003", colour = 1, position = [0.0, 0.0, 0.0] }]
"""


def _run(coro, timeout: float = 240.0):
    return asyncio.run(asyncio.wait_for(coro, timeout))


@pytest.fixture
def duel(tmp_path) -> Path:
    p = tmp_path / "duel.toml"
    p.write_text(DUEL)
    return p


async def _table(scene, groups=(), limits=None, ldrawdir=None, spectator=True, **kw):
    """A server on a free loopback port and a connected client per seat (+ a spectator)."""
    game = open_game(scene, ldrawdir=ldrawdir)
    lines: list[str] = []
    srv = GameServer(game, groups, port=0, limits=limits, on_log=lines.append, **kw)
    await srv.start()
    clients = []
    for s in srv.seats:
        if s.spectator and not spectator:
            continue
        c = HeadlessClient(srv.url, s.token, ldrawdir=ldrawdir, scene_dir=scene.parent,
                           name=s.name)
        clients.append(await c.connect())
    return srv, clients, lines


async def _teardown(srv, clients):
    for c in clients:
        await c.close()
        c.shutdown()
    await srv.close()
    srv.game.close()


async def _all_agree(srv, clients, seq):
    """Every client confirmed ``seq``: each holds the server's hash for it."""
    for c in clients:
        await c.wait_confirmed(seq, timeout=60)
    want = srv.hashes[seq]
    got = {c.name: c.hashes.get(seq) for c in clients}
    assert set(got.values()) == {want}, f"after action {seq}: {got} != server {want[:12]}"
    return want


# ---------------------------------------------------------------------------- the whole game
def test_escapade_raid_played_online_stays_in_lockstep_and_equals_sandbox_run(ldrawdir):
    scene = REPO / "scenes" / "escapade_raid.toml"
    with open_game(scene, ldrawdir=ldrawdir) as ref:  # what `sandbox run` plays
        ref.play_script()
        want_final = ref.state_hash()

    async def main():
        # Two seats (the Baron's raiders and Mad Mags share one), the referee (the script's
        # free missile is a referee's tool: only the referee's token issues it) and a spectator.
        srv, clients, lines = await _table(scene, [["Baron Blud", "Mad Mags"]],
                                           ldrawdir=ldrawdir, referee=True)
        seat_a, seat_b, ref, spec = clients
        assert ref.welcome["seat"] == "referee"
        by_player = {p: c for c in (seat_a, seat_b) for p in c.welcome["players"]}
        assert spec.welcome["spectator"] and set(by_player) == set(srv.game.players)
        try:
            async def act(action: dict) -> None:
                seat = ref if REGISTRY[action["type"]].actor == "referee" else \
                    by_player[action["player"]]
                entry = await seat.act(action)
                await _all_agree(srv, clients, entry["seq"])

            async def where():
                return await seat_a.call(lambda g: (g.turn, g.players.index(g.current_player),
                                                    g.current_player, g.pending()))

            for action in srv.game.script():  # the turn machine's order, as `sandbox run`
                while True:
                    turn, place, player, _ = await where()
                    if (turn, place) >= (action.turn, srv.game.players.index(action.player)):
                        break
                    await act({"type": "end_turn", "player": player})
                await act(action_dict(action))
            # play on while Payloads fly or until the scene's last turn (Game.play_on)
            last = max([a.turn for a in srv.game.spec.actions] + [srv.game.spec.turns or 1])
            while True:
                turn, _, player, pending = await where()
                if not (turn < last or pending):
                    break
                await act({"type": "end_turn", "player": player})
            # the end, by agreement: one seat proposes, the other confirms
            await seat_b.propose("finish")
            await seat_a.wait_for(lambda: seat_a.proposals)
            await seat_a.vote(seat_a.proposals[-1]["id"], True)
            await ref.wait_for(lambda: ref.proposals)  # the referee's seat agrees too
            await ref.vote(ref.proposals[-1]["id"], True)
            await seat_a.wait_for(lambda: seat_a.results)
            assert seat_a.results[-1]["accepted"]
            final = await _all_agree(srv, clients, srv.seq)
            assert srv.entries[-1]["kind"] == "finish" and srv.game.over
            # the Outcome is broadcast with the entry, and every client's game says it
            assert srv.entries[-1]["outcome"]["winner"] == "Blud's Raiders"
            assert await spec.call(lambda g: g.outcome.winner) == "Blud's Raiders"
            assert final == want_final, "the online game ended elsewhere than `sandbox run`"
            assert not srv.desyncs and not any(c.mismatches for c in clients)
            with pytest.raises(NetError, match="the game is over"):
                await seat_a.act({"type": "end_turn", "player": "Baron Blud"})
            assert srv.seq >= 20 and any("joined as a spectator" in ln for ln in lines)
        finally:
            await _teardown(srv, clients)

    _run(main())


# ---------------------------------------------------------------------------- reconnects
def test_a_killed_client_rejoins_with_its_token_and_catches_up(duel):
    async def main():
        srv, clients, _ = await _table(duel)
        red, blue, spec = clients
        try:
            e = await red.act({"type": "move", "player": "Red", "unit": "red1", "to": [-1.5, 1.0]})
            await _all_agree(srv, clients, e["seq"])
            await red.act({"type": "end_turn", "player": "Red"})
            # Blue's connection dies without a goodbye (a crash, a pulled cable) ...
            blue.abort()
            await blue.wait_for(lambda: blue.ws is None)
            await spec.wait_for(lambda: spec.presence and not spec.presence["seats"]["Blue"])
            # ... the game goes on without it (Blue's own turn is skipped by nobody: Blue is
            # back before it acts; the spectator and Red keep playing meanwhile)
            held = blue.seq
            await blue.connect()  # same object, same token: catch up from the log
            assert blue.welcome["catch_up"] == held and blue.syncs == 1
            e = await blue.act({"type": "move", "player": "Blue", "unit": "blue1",
                                "to": [1.0, -2.0]})
            await _all_agree(srv, clients, e["seq"])
            await blue.act({"type": "end_turn", "player": "Blue"})
            # killed for good: a fresh process with nothing but the token
            blue.abort()
            blue.shutdown()
            e = await red.act({"type": "move", "player": "Red", "unit": "red1", "to": [0.0, 3.0]})
            fresh = HeadlessClient(srv.url, srv.token("Blue"), scene_dir=duel.parent, name="Blue2")
            await fresh.connect()
            clients[1] = fresh
            assert fresh.welcome["catch_up"] is None and fresh.syncs == 1
            assert fresh.seq == srv.seq
            await _all_agree(srv, clients, e["seq"])
            assert await fresh.call(lambda g: g.state_hash()) == srv.hashes[srv.seq]
            e = await red.act({"type": "end_turn", "player": "Red"})
            await _all_agree(srv, clients, e["seq"])
            assert not srv.desyncs
        finally:
            await _teardown(srv, clients)

    _run(main())


def test_a_corrupted_client_is_detected_named_and_resynchronised(duel):
    async def main():
        srv, clients, lines = await _table(duel)
        red, blue, spec = clients
        try:
            e = await red.act({"type": "move", "player": "Red", "unit": "red1", "to": [-1.5, 1.0]})
            await _all_agree(srv, clients, e["seq"])

            def nudge(game):  # a desync: the spectator's copy of Blue's brick slides 2"
                pos, quat = game.world.pose("blue1")
                game.world.set_pose("blue1", pos + [0.0, 2.0, 0.0], quat)

            await spec.call(nudge)
            e = await red.act({"type": "end_turn", "player": "Red"})
            await spec.wait_for(lambda: spec.desyncs)
            report = spec.desyncs[0]
            assert report["seq"] == e["seq"] and report["seat"] == "spectator"
            assert report["difference"]["body"] == "blue1"
            assert report["difference"]["part"] == "pose"
            await spec.wait_for(lambda: spec.syncs == 2)  # it loaded the server's save
            assert spec.mismatches == [e["seq"]]
            assert any("MISMATCH" in ln and f"action {e['seq']}" in ln for ln in lines)
            assert red.desyncs and red.desyncs[0]["difference"]["body"] == "blue1"  # everyone
            await _all_agree(srv, clients, e["seq"])
            pose = await spec.call(lambda g: g.state_dict()["poses"]["blue1"])
            assert pose == srv.states[e["seq"]]["poses"]["blue1"]
            e = await blue.act({"type": "move", "player": "Blue", "unit": "blue1",
                                "to": [1.0, -2.0]})
            await _all_agree(srv, clients, e["seq"])
            assert len(srv.desyncs) == 1
        finally:
            await _teardown(srv, clients)

    _run(main())


def test_first_difference_names_the_body():
    ours = {"turn": 1, "player": "Red", "over": False, "rolls": 0, "systems": {},
            "bodies": {"a": {"k": 1}, "b": {"k": 2}},
            "poses": {"a": [[0, 0, 0], [0, 0, 0, 1]], "b": [[1, 0, 0], [0, 0, 0, 1]]}}
    theirs = json.loads(json.dumps(ours))
    theirs["bodies"]["b"] = {"k": 3}
    d = first_difference(ours, state_digest(theirs))
    assert d["body"] == "b" and d["part"] == "body"
    theirs = json.loads(json.dumps(ours))
    theirs["rolls"] = 4
    assert first_difference(ours, state_digest(theirs))["part"] == "rolls"


# ---------------------------------------------------------------------------- agreement, chat
def test_undo_only_when_every_other_seat_agrees_and_chat_is_shared(duel):
    async def main():
        srv, clients, _ = await _table(duel)
        red, blue, spec = clients
        try:
            before = srv.hashes[srv.seq]
            e = await red.act({"type": "move", "player": "Red", "unit": "red1", "to": [-1.5, 1.0]})
            await _all_agree(srv, clients, e["seq"])
            await spec.propose("undo")  # a spectator has no say
            await spec.wait_for(lambda: spec.refusals)
            assert "spectators" in spec.refusals[-1]["reason"]
            await red.propose("undo")
            await blue.wait_for(lambda: blue.proposals)
            await red.vote(blue.proposals[-1]["id"], True)  # not the proposer's vote to cast
            await red.wait_for(lambda: red.refusals)
            await blue.vote(blue.proposals[-1]["id"], False)
            await red.wait_for(lambda: red.results)
            assert not red.results[-1]["accepted"] and srv.seq == e["seq"]
            await red.propose("undo")
            await blue.wait_for(lambda: len(blue.proposals) >= 2)
            await blue.vote(blue.proposals[-1]["id"], True)
            await red.wait_for(lambda: len(red.results) >= 2)
            assert red.results[-1]["accepted"]
            assert srv.entries[-1]["kind"] == "undo"
            assert await _all_agree(srv, clients, srv.seq) == before
            await blue.send_chat("well played")
            await spec.wait_for(lambda: spec.chat)
            assert spec.chat[-1] == {"type": "chat", "seat": "Blue", "text": "well played",
                                     "seq": srv.seq}
            late = HeadlessClient(srv.url, srv.token("spectator"), scene_dir=duel.parent)
            clients.append(await late.connect())
            log = [ln["text"] for ln in late.welcome["log"]]
            assert "Blue: well played" in log and any("undone by agreement" in t for t in log)
        finally:
            await _teardown(srv, clients)

    _run(main())


# ---------------------------------------------------------------------------- bad input
def test_bad_input_never_changes_the_game_nor_stops_the_server(duel):
    limits = Limits(open_timeout_s=0.5, hello_timeout_s=0.5, rate_per_s=50, max_clients=4)

    async def main():
        srv, clients, lines = await _table(duel, limits=limits)
        red, blue, spec = clients
        url = srv.url
        try:
            e = await red.act({"type": "move", "player": "Red", "unit": "red1", "to": [-2.5, 0.5]})
            await _all_agree(srv, clients, e["seq"])
            seq0, hash0 = srv.seq, srv.hashes[srv.seq]

            async def unchanged(what):
                assert srv.seq == seq0, what
                assert await srv.call(lambda g: g.state_hash()) == hash0, what

            async def refused_at_hello(hello, reason):
                async with connect(url) as ws:
                    await ws.send(hello)
                    with pytest.raises(ConnectionClosed) as err:
                        await ws.recv()
                assert err.value.rcvd.code == 1008 and reason in err.value.rcvd.reason
                await unchanged(reason)

            # wrong tokens: a guess, the seat number, another token's prefix, none at all
            for token in ("0", "1", "Red", srv.token("Red")[:-1], "x" * 128):
                await refused_at_hello(json.dumps({"type": "hello", "token": token,
                                                   "version": PROTOCOL_VERSION}), "wrong token")
            await refused_at_hello(json.dumps({"type": "chat", "text": "hi"}), "first message")
            await refused_at_hello("{not json", "malformed JSON")
            await refused_at_hello(json.dumps({"type": "hello", "token": srv.token("Red"),
                                               "version": 99}), "protocol version")
            wrong = HeadlessClient(url, "nope", scene_dir=duel.parent)
            with pytest.raises(NetError, match="wrong token"):
                await wrong.connect()
            wrong.shutdown()

            # forged seats and invalid actions, each refused with a reason
            bad_actions = [
                ({"type": "end_turn", "player": "Blue"}, red, "forged seat"),
                ({"type": "move", "player": "Red", "unit": "blue1", "to": [0, 0]}, blue,
                 "forged seat"),
                ({"type": "end_turn", "player": "Blue"}, blue, "it is Red's turn"),
                ({"type": "end_turn", "player": "Red"}, spec, "spectators act on nothing"),
                ({"type": "teleport", "player": "Red"}, red, "unknown action type .teleport."),
                ({"type": "move", "player": "Red", "unit": "red1", "to": ["x", 0]}, red,
                 "invalid action"),
                ({"type": "move", "player": "Red", "unit": "red1", "to": [0, 0], "eval": 1},
                 red, "invalid action"),
                ({"type": "move", "player": "Red", "unit": "nobody", "to": [0, 0]}, red, "nobody"),
                ({"type": "move", "player": "Red", "unit": "red1", "to": [1.5, 0.0]}, red,
                 "Blue brick is there"),
                ({"type": "end_turn", "player": "Red", "turn": 7}, red, "not turn 7"),
            ]
            for action, who, reason in bad_actions:
                with pytest.raises(NetError, match=reason):
                    await who.act(action)
                await unchanged(action)

            # malformed messages on a joined connection: a clear error each, nothing changes
            async with connect(url) as ws:
                await ws.send(json.dumps({"type": "hello", "token": srv.token("spectator"),
                                          "version": PROTOCOL_VERSION}))
                for junk in ("[1, 2]", "{oops", json.dumps({"type": "teleport"}),
                             json.dumps({"type": "chat", "text": "x" * 600}),
                             json.dumps({"type": "hash", "seq": 1, "hash": "zz"}),
                             json.dumps({"type": "state", "seq": 1, "digest": {}}),
                             json.dumps({"type": "vote", "id": 5, "agree": True}),
                             b"\x80\x04binary"):
                    await ws.send(junk)
                errors = []
                while len(errors) < 8:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if msg["type"] in ("error", "refused"):
                        errors.append(msg["reason"])
                for want in ("must be a JSON object", "malformed JSON", "unknown message type",
                             "at most 500 characters", "invalid 'hash' message",
                             "no mismatch to explain", "no open proposal", "binary messages"):
                    assert any(want in r for r in errors), (want, errors)
            await unchanged("malformed messages")

            # a 1 MB message: closed with 1009 before anything is parsed
            async with connect(url, max_size=None) as ws:
                await ws.send(json.dumps({"type": "hello", "token": srv.token("spectator"),
                                          "version": PROTOCOL_VERSION}))
                await ws.send(json.dumps({"type": "chat", "text": "x" * (1 << 20)}))
                with pytest.raises(ConnectionClosed) as err:
                    while True:
                        await ws.recv()
                assert err.value.rcvd.code == 1009
            await unchanged("1 MB message")

            # a flood of 1,000 messages: disconnected at the rate limit with a clear reason
            async with connect(url) as ws:
                await ws.send(json.dumps({"type": "hello", "token": srv.token("spectator"),
                                          "version": PROTOCOL_VERSION}))
                flood = json.dumps({"type": "action", "action": {"type": "end_turn",
                                                                  "player": "Red"}})
                with pytest.raises(ConnectionClosed) as err:
                    for _ in range(1000):
                        await ws.send(flood)
                    while True:
                        await ws.recv()
                rc = err.value.rcvd or err.value.sent
                assert rc.code == 1008 and "rate limit" in rc.reason
            await unchanged("flood")

            # half-open: a TCP connection that never handshakes, and one that never says hello
            reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
            assert await asyncio.wait_for(reader.read(1024), 10) == b""  # the server hung up
            writer.close()
            async with connect(url) as ws:
                with pytest.raises(ConnectionClosed) as err:
                    await ws.recv()
                assert err.value.rcvd.code == 1008 and "no hello" in err.value.rcvd.reason
            await unchanged("half-open connections")

            # a full table: a fifth connection is refused (seats always get in)
            hello = json.dumps({"type": "hello", "token": srv.token("spectator"),
                                "version": PROTOCOL_VERSION})
            async with connect(url) as fourth:
                await fourth.send(hello)
                await fourth.recv()  # welcome
                await refused_at_hello(hello, "the table is full")
                # asking for the whole save again and again: one a second at most
                t0 = time.monotonic()
                for _ in range(3):
                    await fourth.send(json.dumps({"type": "sync_request"}))
                syncs = 0
                while syncs < 4:  # the welcome's and three asked for
                    syncs += json.loads(await asyncio.wait_for(fourth.recv(), 10))["type"] == "sync"
                assert time.monotonic() - t0 >= 2.0
            await unchanged("a full table, repeated syncs")

            # still serving: the seats play on, everyone in step
            e = await red.act({"type": "end_turn", "player": "Red"})
            e = await blue.act({"type": "move", "player": "Blue", "unit": "blue1",
                                "to": [1.0, -2.0]})
            await _all_agree(srv, clients, e["seq"])
            assert not srv.desyncs and any("rate limit" in ln for ln in lines)
        finally:
            await _teardown(srv, clients)

    _run(main())


def test_seats_and_tokens():
    from sandbox.net import make_seats

    seats = make_seats(["A", "B", "C"], [["A", "C"]])
    assert [s.name for s in seats] == ["A + C", "B", "spectator"]
    tokens = [s.token for s in seats]
    assert len(set(tokens)) == 3 and all(len(t) >= 20 for t in tokens)
    assert make_seats(["A", "B", "C"])[0].token not in tokens  # random, not from the seat
    with pytest.raises(NetError, match="not one of the players"):
        make_seats(["A"], [["Z"]])
    with pytest.raises(NetError, match="in two seats"):
        make_seats(["A", "B"], [["A"], ["A", "B"]])


# ---------------------------------------------------------------------------- command line
@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_sandbox_serve_prints_tokens_serves_and_saves_on_exit(duel, tmp_path, stop):
    """Ctrl-C and a service manager's stop (SIGTERM, `kill`) both save the game."""
    import re
    import signal
    import subprocess
    import sys

    save = tmp_path / "duel.save.json"
    proc = subprocess.Popen([sys.executable, "-m", "sandbox.cli", "serve", str(duel), "--port",
                             "0", "--save", str(save), "--save-every", "1"], cwd=REPO,
                            stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        head = [proc.stdout.readline() for _ in range(4)]
        url = re.search(r"(ws://127\.0\.0\.1:\d+)", head[0]).group(1)
        tokens = {m.group(1): m.group(2) for ln in head
                  if (m := re.match(r"\s+seat '(\w+)'\s+token (\S+)", ln))}
        assert set(tokens) == {"Red", "Blue"} and "spectators" in head[3]

        async def main():
            red = await HeadlessClient(url, tokens["Red"], scene_dir=duel.parent).connect()
            e = await red.act({"type": "move", "player": "Red", "unit": "red1",
                               "to": [-1.5, 1.0]})
            await red.wait_confirmed(e["seq"])
            h = red.hashes[e["seq"]]
            await red.close()
            red.shutdown()
            return h

        want = _run(main())
        for _ in range(200):  # --save-every 1: saved after the move, while still serving
            if save.exists() and json.loads(save.read_text())["checksum"] == want:
                break
            time.sleep(0.05)
        assert json.loads(save.read_text())["checksum"] == want
        save.unlink()
        proc.send_signal(getattr(signal, stop))
        rest, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "saved the game to" in rest and "Traceback" not in rest, rest
    with open_game(save) as again:  # the server's game survives it: `sandbox serve` the save
        assert again.state_hash() == want


def test_serve_and_join_errors_are_one_clear_line(duel):
    import os
    import subprocess
    import sys

    def sandbox(*args):  # a DISPLAY named (none is opened): the join fails first
        return subprocess.run([sys.executable, "-m", "sandbox.cli", *args], cwd=REPO,
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "DISPLAY": os.environ.get("DISPLAY", ":987")})

    r = sandbox("play", "--join", "ws://127.0.0.1:9", "--token", "x")
    assert r.returncode == 2 and "cannot reach ws://127.0.0.1:9" in r.stderr
    assert "Traceback" not in r.stderr
    r = sandbox("play", "--join", "ws://127.0.0.1:9")
    assert r.returncode == 2 and "--join needs --token" in r.stderr
