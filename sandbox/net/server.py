"""The authoritative game server: one :class:`~sandbox.engine.game.Game`, seats with join
tokens, a sequenced log of accepted changes, lockstep hash checks (asyncio + ``websockets``).

Lockstep: the server applies an accepted action to its own game, gives it the next sequence
number and broadcasts it; every client applies the same action to its own game (physics runs
on every machine from the same action) and answers with its ``state_hash()``. A hash that is
not the server's is reported at once (``mismatch``, with the action number), the client's
per-body digest names the first differing body (``desync``, to everyone) and the client is
sent the server's save to load and re-simulate: no peer drifts silently.

The server's game runs on one worker thread (physics can take a second); the event loop keeps
reading, pinging and refusing meanwhile. Every change to the game goes through one lock, so
entries are numbered and broadcast in the order they were applied.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from ..core.errors import NetError, SandboxError
from ..engine.actions import action_dict, parse_action
from ..engine.game import Game
from ..engine.outcome import Outcome
from ..games.brikwars.skirmish import SprintShort
from .protocol import (
    CLOSE_GOING_AWAY,
    CLOSE_POLICY,
    PROTOCOL_VERSION,
    SHARED_LOG_LINES,
    ActionMsg,
    ChatMsg,
    HashMsg,
    Hello,
    Limits,
    ProposeMsg,
    StateMsg,
    SyncRequest,
    VoteMsg,
    dumps,
    first_difference,
    parse_client_message,
    printable,
)

log = logging.getLogger(__name__)

#: State dicts the server keeps (the last this many actions) to name a first differing body.
STATES_KEPT = 128
SPECTATOR = "spectator"
#: Saves sent to joining spectators per ``sync_interval_s``, all spectators together (a
#: spectator reconnecting again and again would otherwise pull a save each time).
SPECTATOR_SYNCS_PER_INTERVAL = 4
REFEREE = "referee"

__all__ = ["Seat", "GameServer", "make_seats"]


@dataclass
class Seat:
    """A seat at the table: the players it plays (in the scene's names) and its join token."""

    name: str
    players: tuple[str, ...]
    token: str
    spectator: bool = False
    #: The referee's seat: it issues the referee's tools, on any player's turn.
    referee: bool = False


def make_seats(players: Sequence[str], groups: Sequence[Sequence[str]] = (),
               referee: bool = False) -> list[Seat]:
    """One seat per player, except players ``groups`` puts together at one seat; then the
    referee's seat (``referee``); then the spectators' seat. Tokens are random
    (:func:`secrets.token_urlsafe`, 128 bits).

    Raises
    ------
    NetError
        A group names a player who does not play, or a player twice.
    """
    seats: list[Seat] = []
    placed: set[str] = set()
    for g in groups:
        names = tuple(n.strip() for n in g if n.strip())
        for n in names:
            if n not in players:
                raise NetError(f"--seat: {n!r} is not one of the players {list(players)}")
            if n in placed:
                raise NetError(f"--seat: {n!r} is in two seats")
            placed.add(n)
        if names:
            seats.append(Seat(" + ".join(names), names, secrets.token_urlsafe(16)))
    for p in players:
        if p not in placed:
            seats.append(Seat(p, (p,), secrets.token_urlsafe(16)))
    order = {p: i for i, p in enumerate(players)}
    seats.sort(key=lambda s: min(order[p] for p in s.players))
    if referee:
        seats.append(Seat(REFEREE, (), secrets.token_urlsafe(16), referee=True))
    seats.append(Seat(SPECTATOR, (), secrets.token_urlsafe(16), spectator=True))
    return seats


@dataclass(eq=False)
class Connection:
    """One live client connection (the server's side)."""

    ws: ServerConnection
    seat: Seat
    peer: str
    queue: asyncio.Queue
    writer: asyncio.Task | None = None
    confirmed: int = -1        # last sequence number whose hash matched the server's
    synced_at: int | None = None  # the seq of the last sync sent (its hash is awaited)
    resyncing: bool = False    # a mismatch was found: resynchronising until a hash matches
    awaiting_state: bool = False  # the mismatch's digest is awaited
    told: int = -1             # the last "confirmed" sequence number sent to it
    last_sync: float = -1e9    # time.monotonic() of the last sync sent
    window_start: float = 0.0
    window_count: int = 0
    acts_start: float = 0.0    # the same for accepted actions, paced rather than cut off
    acts_count: int = 0
    bad: int = 0
    closing: bool = False
    hashed: int = -1           # the last entry this connection sent a hash for
    last_desync: float = -1e9  # time.monotonic() of its last desync notice to everyone
    desyncs_quiet: int = 0     # its desyncs since then that only the server's log counted


@dataclass
class _Proposal:
    id: int
    what: str
    by: Seat
    votes: dict[str, bool] = field(default_factory=dict)


class GameServer:
    """An authoritative server for one game.

    Parameters
    ----------
    game : Game
        The game (a scene just opened, or a loaded save); the server owns it from now on.
    seat_groups : sequence of sequences of player names, optional
        Players sharing one seat (one token); every other player has a seat of their own.
    host, port : str, int
        Where to listen (127.0.0.1 unless told otherwise; port 0: any free port).
    save_path : path, optional
        Where the game is saved: at :meth:`start` (so an unwritable path is found at once),
        after every ``save_every`` changes (default 1: every accepted action, undo or finish;
        0: only when the server stops), and when the server stops. Atomic: a crash or a kill
        leaves the previous save. Each save writes the whole game, so saving every change
        costs a game of n changes O(n^2) bytes: bounded, as accepted actions are paced to the
        rate limit and a game's log holds at most the ``actions`` limit; changes that come
        while a save waits are written by that one save.
    limits : Limits
        Message size, rate, time-outs (see :mod:`sandbox.net.protocol`).
    on_log : callable, optional
        Called with each line of the server's log (connections, actions, desyncs, chat);
        text a client wrote is in it through :func:`~sandbox.net.protocol.printable` (one line,
        no control characters).
    referee : bool
        Add a referee's seat (:data:`REFEREE`): its token, and only it, issues the referee's
        tools (free strikes, setting alight, moving any body), on whoever's turn it is; the
        game then has a referee (:attr:`Game.referee`).
    """

    def __init__(self, game: Game, seat_groups: Sequence[Sequence[str]] = (), *,
                 host: str = "127.0.0.1", port: int = 0, save_path: str | Path | None = None,
                 save_every: int = 1, limits: Limits | None = None,
                 on_log: Callable[[str], None] | None = None, referee: bool = False):
        self.game = game
        if referee:
            game.referee = True
        self.host = host
        self.port = port
        self.limits = limits or Limits()
        self.save_path = Path(save_path) if save_path else None
        self.save_every = max(0, int(save_every))
        self.on_log = on_log or (lambda line: log.info(line))
        self.seats = make_seats(game.players, seat_groups, referee=game.referee)
        self.conns: list[Connection] = []
        self.entries: list[dict] = []       # entry i has seq i + 1
        self.hashes: dict[int, str] = {}
        self.states: dict[int, dict] = {}
        self.shared_log: list[dict] = []
        self.all_confirmed = 0
        self.desyncs: list[dict] = []
        self.proposal: _Proposal | None = None
        self._next_proposal = 1
        self._lock = asyncio.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sandbox-game")
        self._server = None
        self._save_queued = False
        self.paced = 0  # times an accepted action waited for the rate (:meth:`_pace`)
        self._next_spectator_sync = 0.0
        self._record_state(0)

    # ------------------------------------------------------------------ lifecycle
    @property
    def seq(self) -> int:
        """The sequence number of the last accepted change (0: none since the server began)."""
        return len(self.entries)

    @property
    def url(self) -> str:
        """``ws://host:port`` clients join."""
        return f"ws://{self.host}:{self.port}"

    def token(self, seat_name: str) -> str:
        """The join token of a seat (``"spectator"`` for spectators)."""
        for s in self.seats:
            if s.name == seat_name:
                return s.token
        raise KeyError(seat_name)

    async def start(self) -> None:
        """Listen; print the seats' tokens through ``on_log``.

        Raises
        ------
        NetError
            The save path cannot be written (checked by saving there first), or the address
            cannot be bound.
        """
        lim = self.limits
        if self.save_path is not None:
            try:
                await self._call(self.game.save, self.save_path)
            except SandboxError as exc:
                raise NetError(f"cannot save the game: {exc}") from None
        try:
            self._server = await serve(
                self._handler, self.host, self.port, max_size=lim.max_message_bytes,
                open_timeout=lim.open_timeout_s, ping_interval=lim.ping_interval_s,
                ping_timeout=lim.ping_timeout_s, close_timeout=2.0, compression=None,
                max_queue=16)
        except OSError as exc:
            raise NetError(f"cannot listen on {self.host}:{self.port}: "
                           f"{exc.strerror or exc}") from None
        self.port = self._server.sockets[0].getsockname()[1]
        self._say(f"serving {self.game.spec.name!r} at {self.url} "
                  f"(turn {self.game.turn}, {self.game.current_player} to play)")
        for s in self.seats:
            who = "spectators" if s.spectator else f"seat {s.name!r}"
            self._say(f"  {who:<28} token {s.token}")

    async def close(self) -> None:
        """Disconnect everyone, save (when a save path is set) and stop listening."""
        for c in list(self.conns):
            await self._close(c, CLOSE_GOING_AWAY, "the server is shutting down")
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        if self.save_path is not None:
            async with self._lock:
                path = await self._call(self.game.save, self.save_path)
            self._say(f"saved the game to {path}")
        self._pool.shutdown(wait=True)

    async def serve_forever(self) -> None:
        """:meth:`start`, then serve until cancelled or sent SIGTERM (a service manager's stop,
        ``kill``); :meth:`close` (which saves) on the way out either way."""
        import signal

        await self.start()
        stop = asyncio.get_running_loop().create_future()
        try:
            asyncio.get_running_loop().add_signal_handler(
                signal.SIGTERM, lambda: stop.done() or stop.set_result(None))
        except (NotImplementedError, RuntimeError, ValueError):
            pass  # not the main thread, or no signals here: Ctrl-C still stops and saves
        try:
            await stop
        finally:
            await self.close()

    async def call(self, fn: Callable[[Game], Any]) -> Any:
        """Run ``fn(game)`` on the game's thread, between changes (tests, tools)."""
        async with self._lock:
            return await self._call(fn, self.game)

    async def _call(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    def _say(self, line: str) -> None:
        self.on_log(printable(line))

    # ------------------------------------------------------------------ connections
    def _seat_for(self, token: str) -> Seat | None:
        found = None
        for s in self.seats:  # compare with every token, in constant time each
            if secrets.compare_digest(s.token.encode(), token.encode()):
                found = s
        return found

    async def _handler(self, ws: ServerConnection) -> None:
        peer = "%s:%s" % tuple(ws.remote_address[:2]) if ws.remote_address else "?"
        lim = self.limits
        try:
            raw = await asyncio.wait_for(ws.recv(), lim.hello_timeout_s)
        except (TimeoutError, asyncio.TimeoutError):
            self._say(f"{peer}: no hello within {lim.hello_timeout_s:g} s: disconnected")
            await ws.close(CLOSE_POLICY, f"no hello within {lim.hello_timeout_s:g} s")
            return
        except ConnectionClosed:
            return
        try:
            hello = parse_client_message(raw)
            if not isinstance(hello, Hello):
                raise NetError("the first message must be a hello with a join token")
            if hello.version != PROTOCOL_VERSION:
                raise NetError(f"protocol version {hello.version} is not the server's "
                               f"{PROTOCOL_VERSION}")
            seat = self._seat_for(hello.token)
            if seat is None:
                raise NetError("wrong token: no seat has this token")
            if seat.spectator and len(self.conns) >= lim.max_clients:
                raise NetError(f"the table is full ({lim.max_clients} connections)")
        except NetError as exc:
            self._say(f"{peer}: refused: {exc}")
            await ws.close(CLOSE_POLICY, _reason(str(exc)))
            return
        conn = Connection(ws, seat, peer, asyncio.Queue(maxsize=lim.send_queue))
        if not seat.spectator:
            for old in [c for c in self.conns if c.seat is seat]:
                await self._close(old, CLOSE_POLICY, "replaced by a new connection with this "
                                  "seat's token")
        self.conns.append(conn)
        conn.writer = asyncio.create_task(self._writer(conn))
        self._say(f"{peer}: joined as {'a spectator' if seat.spectator else repr(seat.name)}")
        try:
            await self._welcome(conn, hello)
            self._broadcast_presence()
            async for raw in ws:
                if conn.closing:
                    break
                if await self._on_message(conn, raw) and not self._count(conn):
                    await self._close(conn, CLOSE_POLICY, "rate limit: more than "
                                      f"{lim.rate_per_s} messages in one second")
                    break
        except ConnectionClosed:
            pass
        except Exception:  # a bug must not take the server down: drop this client only
            log.exception("connection %s failed", peer)
            await self._close(conn, 1011, "internal server error")
        finally:
            await self._drop(conn)

    def _count(self, conn: Connection) -> bool:
        now = time.monotonic()
        if now - conn.window_start >= 1.0:
            conn.window_start, conn.window_count = now, 0
        conn.window_count += 1
        return conn.window_count <= self.limits.rate_per_s

    async def _pace(self, conn: Connection) -> None:
        """Count an accepted action toward the connection's rate (``rate_per_s`` accepted
        actions a second, counted apart from its other messages): over it, wait for the
        second to end before reading the connection's next message. Playing is
        never cut off, but a seat sending free actions without end is slowed to the rate (its
        log is bounded by the ``actions`` limit, :mod:`sandbox.core.limits`)."""
        now = time.monotonic()
        if now - conn.acts_start >= 1.0:
            conn.acts_start, conn.acts_count = now, 0
        conn.acts_count += 1
        if conn.acts_count <= self.limits.rate_per_s:
            return
        self.paced += 1
        wait = conn.acts_start + 1.0 - now
        if wait > 0:
            await asyncio.sleep(wait)
        conn.acts_start, conn.acts_count = time.monotonic(), 0

    async def _drop(self, conn: Connection) -> None:
        if conn in self.conns:
            self.conns.remove(conn)
            why = conn.ws.close_reason or ""
            self._say(f"{conn.peer}: {conn.seat.name} left" + (f" ({why})" if why else ""))
            self._broadcast_presence()
            self._update_confirmed()
        if conn.writer is not None:
            conn.writer.cancel()

    async def _close(self, conn: Connection, code: int, reason: str) -> None:
        if conn.closing:
            return
        conn.closing = True
        self._say(f"{conn.peer}: {conn.seat.name} disconnected: {reason}")
        try:
            await asyncio.wait_for(conn.ws.close(code, _reason(reason)), 3.0)
        except (TimeoutError, asyncio.TimeoutError, ConnectionClosed):
            pass

    async def _writer(self, conn: Connection) -> None:
        try:
            while True:
                text = await conn.queue.get()
                await conn.ws.send(text)
        except (ConnectionClosed, asyncio.CancelledError):
            return

    def _send(self, conn: Connection, msg: dict) -> None:
        if conn.closing:
            return
        try:
            conn.queue.put_nowait(dumps(msg))
        except asyncio.QueueFull:
            asyncio.get_running_loop().create_task(self._close(
                conn, CLOSE_POLICY, f"too slow: {self.limits.send_queue} messages not read"))

    def _broadcast(self, msg: dict) -> None:
        for c in list(self.conns):
            self._send(c, msg)

    def _broadcast_presence(self) -> None:
        here = {c.seat.name for c in self.conns}
        self._broadcast({"type": "presence",
                         "seats": {s.name: s.name in here for s in self.seats if not s.spectator},
                         "spectators": sum(c.seat.spectator for c in self.conns)})

    def _note(self, kind: str, text: str, **fields) -> dict:
        line = {"kind": kind, "text": text, "seq": self.seq, **fields}
        self.shared_log.append(line)
        del self.shared_log[:-SHARED_LOG_LINES]
        return line

    # ------------------------------------------------------------------ welcome, sync
    async def _welcome(self, conn: Connection, hello: Hello) -> None:
        seat = conn.seat
        if seat.spectator:  # joining spectators share a pace of saves (see the constant)
            now = time.monotonic()
            slot = max(now, self._next_spectator_sync)
            self._next_spectator_sync = slot + (self.limits.sync_interval_s
                                                / SPECTATOR_SYNCS_PER_INTERVAL)
            if slot > now:  # waiting: a connection that closes meanwhile leaves at once
                closed = asyncio.ensure_future(conn.ws.wait_closed())
                try:
                    await asyncio.wait([closed], timeout=slot - now)
                finally:
                    closed.cancel()
                if conn.ws.close_code is not None:
                    return
        async with self._lock:
            base = {"type": "welcome", "protocol": PROTOCOL_VERSION, "seat": seat.name,
                    "players": list(seat.players), "spectator": seat.spectator,
                    "order": list(self.game.players),
                    "seats": [s.name for s in self.seats if not s.spectator],
                    "seq": self.seq, "log": self.shared_log[-SHARED_LOG_LINES:],
                    "proposal": self._proposal_msg() if self.proposal else None}
            if (hello.seq is not None and hello.hash is not None and hello.seq <= self.seq
                    and self.hashes.get(hello.seq) == hello.hash):
                # A client that still holds the game at hello.seq: catch up from the log.
                self._send(conn, {**base, "catch_up": hello.seq})
                for e in self.entries[hello.seq:]:
                    self._send(conn, e)
                conn.synced_at = hello.seq
                conn.confirmed = hello.seq
                self._say(f"{conn.peer}: {seat.name} catches up from action {hello.seq} "
                          f"({self.seq - hello.seq} to play)")
                return
            self._send(conn, {**base, "catch_up": None})
            await self._sync(conn)

    async def _sync(self, conn: Connection) -> None:
        """Send the server's save (call with the lock held)."""
        doc = await self._call(Game.save_doc, self.game)
        conn.synced_at = self.seq
        conn.last_sync = time.monotonic()
        self._send(conn, {"type": "sync", "seq": self.seq, "save": dumps(doc)})

    # ------------------------------------------------------------------ messages
    async def _on_message(self, conn: Connection, raw) -> bool:
        """Handle one message; True when it counts against the rate limit, to cut the
        connection off (everything but a hash reply to a new entry and an accepted action: an
        accepted action counts too, but over the rate it is paced, :meth:`_pace`)."""
        try:
            msg = parse_client_message(raw)
        except NetError as exc:
            await self._bad(conn, str(exc))
            return True
        if isinstance(msg, ActionMsg):
            if await self._on_action(conn, msg):
                await self._pace(conn)  # counted: paced over the rate, never cut off
                return False
            return True
        if isinstance(msg, HashMsg):
            reply = conn.hashed < msg.seq <= self.seq
            if reply:
                conn.hashed = msg.seq
            await self._on_hash(conn, msg)
            return not reply
        if isinstance(msg, StateMsg):
            await self._on_state(conn, msg)
        elif isinstance(msg, ChatMsg):
            who = conn.seat.name
            text = printable(msg.text)  # one line, no terminal escapes, for every reader
            self._note("chat", f"{who}: {text}", seat=who)
            self._say(f"chat {who}: {text}")
            self._broadcast({"type": "chat", "seat": who, "text": text, "seq": self.seq})
        elif isinstance(msg, ProposeMsg):
            await self._on_propose(conn, msg)
        elif isinstance(msg, VoteMsg):
            await self._on_vote(conn, msg)
        elif isinstance(msg, SyncRequest):
            conn.resyncing = True
            await self._sync_paced(conn)
        else:  # a second hello
            await self._bad(conn, "already joined: hello is only the first message")
        return True

    async def _sync_paced(self, conn: Connection) -> None:
        """Send the server's save, at most once per ``sync_interval_s`` per connection (asked
        for, or after a mismatch): a sooner one waits (reading from it waits meanwhile)."""
        wait = conn.last_sync + self.limits.sync_interval_s - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        async with self._lock:
            await self._sync(conn)

    async def _bad(self, conn: Connection, reason: str, ref: int | None = None,
                   kind: str = "error") -> None:
        self._send(conn, {"type": kind, "reason": reason, "ref": ref})
        if kind == "refused":
            return  # a well-formed request the rules or the seat refuse: the rate limit's
        conn.bad += 1
        if conn.bad > self.limits.max_bad_messages:
            await self._close(conn, CLOSE_POLICY, f"more than {self.limits.max_bad_messages} "
                              "malformed messages")

    async def _on_action(self, conn: Connection, msg: ActionMsg) -> bool:
        """True when the action was accepted (an entry was broadcast)."""
        seat = conn.seat
        if seat.spectator:
            await self._bad(conn, "spectators act on nothing", msg.ref, "refused")
            return False
        try:
            action = parse_action(msg.action, "action")
        except SandboxError as exc:
            await self._bad(conn, str(exc), msg.ref, "refused")
            return False
        if action.player not in seat.players and not seat.referee:
            await self._bad(conn, f"forged seat: seat {seat.name!r} plays "
                            f"{', '.join(seat.players)}, not {action.player!r}", msg.ref,
                            "refused")
            return False
        by = "referee" if seat.referee else "player"
        if action.by == "referee" and not seat.referee:
            await self._bad(conn, f"{action.type!r}: only the referee's token issues the "
                            f"referee's actions, not seat {seat.name!r}", msg.ref, "refused")
            return False
        async with self._lock:
            reason, entry = await self._call(self._apply, action, by)
            if reason:
                await self._bad(conn, reason, msg.ref, "refused")
                return False
            self._accept(entry, seat, msg.ref)
            return True

    def _apply(self, action, by: str = "player") -> tuple[str, dict | None]:
        """On the game thread: apply as issued ``by`` the seat ("player" or "referee");
        returns (refusal reason, entry body)."""
        game = self.game
        try:
            reason = game.refusal(game.issue(action, by))
        except SandboxError as exc:
            return str(exc), None
        if reason:
            return reason, None
        before = len(game.actions)
        try:
            game.apply(action, by=by)
        except SprintShort:
            pass  # the Sprint die was spent: the action stays logged, like at the table
        except SandboxError as exc:
            return str(exc), None
        except Exception as exc:  # an engine bug: refuse, keep serving
            log.exception("applying %r failed", action)
            return f"internal error: {exc}", None
        if len(game.actions) == before:
            return "the engine did not log the action", None
        done = game.actions[-1]
        return "", {"kind": "action", "action": action_dict(done), "text": game.describe(done),
                    **self._snapshot()}

    def _snapshot(self) -> dict:
        """On the game thread: the state after a change (hash and state dict)."""
        state = self.game.state_dict()
        g = self.game
        return {"_state": state, "_hash": g.state_hash(state), "turn": g.turn,
                "player": g.current_player, "over": g.over,
                "outcome": g.outcome.to_dict() if g.over else None}  # how it ended, for all

    def _record_state(self, seq: int, state: dict | None = None, h: str | None = None) -> None:
        if state is None:
            state = self.game.state_dict()
            h = self.game.state_hash(state)
        self.hashes[seq] = h
        self.states[seq] = state
        for old in [k for k in self.states if k <= seq - STATES_KEPT]:
            del self.states[old]

    def _accept(self, body: dict, seat: Seat | None, ref: int | None) -> dict:
        """Number a change, record the server's state after it, broadcast it (lock held)."""
        seq = self.seq + 1
        state, h = body.pop("_state"), body.pop("_hash")
        entry = {"type": "entry", "seq": seq, **body, "seat": seat.name if seat else None,
                 "ref": ref}
        self.entries.append(entry)
        self._record_state(seq, state, h)
        self._note(body["kind"], body.get("text", body["kind"]))
        self._say(f"#{seq} {body.get('text', body['kind'])}")
        if body.get("outcome"):
            self._say(f"Outcome: {Outcome.from_dict(body['outcome']).text}")
        self._broadcast(entry)
        if self.proposal is not None and body["kind"] == "action":
            self._end_proposal(False, "the game moved on")
        if (self.save_every and self.save_path and seq % self.save_every == 0
                and not self._save_queued):  # one save waits at a time: it saves the latest
            self._save_queued = True
            asyncio.get_running_loop().create_task(self._autosave())
        return entry

    async def _autosave(self) -> None:
        async with self._lock:
            self._save_queued = False
            try:
                await self._call(self.game.save, self.save_path)
            except SandboxError as exc:
                self._say(f"save failed: {exc}")

    async def _on_hash(self, conn: Connection, msg: HashMsg) -> None:
        want = self.hashes.get(msg.seq)
        if want is None or msg.seq > self.seq:
            await self._bad(conn, f"no action {msg.seq} to compare (the last is {self.seq})")
            return
        if conn.synced_at is not None and msg.seq < conn.synced_at:
            return  # a hash of a state the client replaced by a sync since
        if msg.hash == want:
            conn.confirmed = max(conn.confirmed, msg.seq)
            conn.resyncing = False
            self._update_confirmed()
            return
        if conn.resyncing:
            return  # already being resynchronised
        conn.resyncing = conn.awaiting_state = True
        self._say(f"MISMATCH: {conn.seat.name} ({conn.peer}) disagrees after action {msg.seq}: "
                  f"hash {msg.hash[:12]} != {want[:12]}")
        self._send(conn, {"type": "mismatch", "seq": msg.seq, "hash": want})

    async def _on_state(self, conn: Connection, msg: StateMsg) -> None:
        if not conn.awaiting_state:
            await self._bad(conn, "no mismatch to explain: state is the answer to a mismatch")
            return
        conn.awaiting_state = False
        ours = self.states.get(msg.seq)
        if ours is None:
            diff = {"body": None, "part": None, "server": None,
                    "text": f"action {msg.seq} is too old to compare body by body"}
        else:
            diff = first_difference(ours, msg.digest)
        report = {"type": "desync", "seq": msg.seq, "seat": conn.seat.name,
                  "difference": diff}
        self.desyncs.append(report)
        del self.desyncs[:-STATES_KEPT]
        now = time.monotonic()
        if now - conn.last_desync >= self.limits.desync_notice_interval_s:
            # to everyone: at most one notice per connection per interval, server text only
            quiet = (f" ({conn.desyncs_quiet} more since the last notice)"
                     if conn.desyncs_quiet else "")
            conn.last_desync, conn.desyncs_quiet = now, 0
            self._note("desync", f"{conn.seat.name} was out of sync after action {msg.seq}: "
                       f"{diff['text']}; resynchronised{quiet}")
            self._say(f"DESYNC {conn.seat.name} ({conn.peer}) after action {msg.seq}: "
                      f"{diff['text']}{quiet}")
            self._broadcast(report)
        else:
            conn.desyncs_quiet += 1
        await self._sync_paced(conn)

    def _update_confirmed(self) -> None:
        """Tell each client the last entry every connected client has confirmed."""
        live = [c for c in self.conns if not c.closing]
        if not live:
            return
        m = min(c.confirmed for c in live)
        if m < 0:
            return  # a client that just joined has not confirmed its sync yet
        self.all_confirmed = max(self.all_confirmed, m)
        for c in live:
            if c.told < m:
                c.told = m
                self._send(c, {"type": "confirmed", "seq": m, "hash": self.hashes.get(m)})

    # ------------------------------------------------------------------ agreement
    def _proposal_msg(self) -> dict:
        p = self.proposal
        return {"type": "proposal", "id": p.id, "what": p.what, "by": p.by.name,
                "votes": dict(p.votes), "waiting": self._waiting_for(p)}

    def _waiting_for(self, p: _Proposal) -> list[str]:
        return [s.name for s in self.seats
                if not s.spectator and s is not p.by and s.name not in p.votes]

    async def _on_propose(self, conn: Connection, msg: ProposeMsg) -> None:
        if conn.seat.spectator:
            await self._bad(conn, "spectators act on nothing", kind="refused")
            return
        if self.proposal is not None:
            await self._bad(conn, f"proposal {self.proposal.id} ({self.proposal.what}) is still "
                            "open", kind="refused")
            return
        if self.game.over:
            await self._bad(conn, "the game is over", kind="refused")
            return
        if msg.what == "undo" and not self.game.actions:
            await self._bad(conn, "nothing to undo", kind="refused")
            return
        self.proposal = _Proposal(self._next_proposal, msg.what, conn.seat)
        self._next_proposal += 1
        self._say(f"{conn.seat.name} proposes to {msg.what}")
        self._broadcast(self._proposal_msg())
        await self._decide()

    async def _on_vote(self, conn: Connection, msg: VoteMsg) -> None:
        p = self.proposal
        if p is None or p.id != msg.id:
            await self._bad(conn, f"no open proposal {msg.id}", kind="refused")
            return
        if conn.seat.spectator or conn.seat is p.by:
            await self._bad(conn, "only the other seats vote on a proposal", kind="refused")
            return
        p.votes[conn.seat.name] = msg.agree
        if not msg.agree:
            self._end_proposal(False, f"{conn.seat.name} disagrees")
            return
        self._broadcast(self._proposal_msg())
        await self._decide()

    async def _decide(self) -> None:
        p = self.proposal
        if p is None or self._waiting_for(p):
            return
        async with self._lock:
            if self.proposal is not p:
                return
            body = await self._call(self._agreed, p.what)
            if isinstance(body, str):
                self._end_proposal(False, body)
                return
            self.proposal = None
            self._broadcast({"type": "proposal_result", "id": p.id, "what": p.what,
                             "accepted": True, "reason": "every seat agrees"})
            self._accept(body, p.by, None)

    def _agreed(self, what: str) -> dict | str:
        game = self.game
        try:
            if what == "undo":
                undone = game.undo()
                text = f"undone by agreement: {game.describe(undone)}"
            else:
                game.finish()
                text = "the game ends by agreement"
        except SandboxError as exc:
            return str(exc)
        return {"kind": what, "text": text, **self._snapshot()}

    def _end_proposal(self, accepted: bool, reason: str) -> None:
        p = self.proposal
        if p is None:
            return
        self.proposal = None
        self._say(f"proposal {p.id} ({p.what}) {'accepted' if accepted else 'dropped'}: {reason}")
        self._broadcast({"type": "proposal_result", "id": p.id, "what": p.what,
                         "accepted": accepted, "reason": reason})


def _reason(text: str) -> str:
    """A close reason fits in 123 bytes of UTF-8."""
    data = text.encode("utf-8")
    if len(data) <= 123:
        return text
    return data[:120].decode("utf-8", "ignore") + "..."
