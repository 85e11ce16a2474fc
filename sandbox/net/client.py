"""A headless client of the online game: its own :class:`~sandbox.engine.game.Game`, kept in
lockstep with the server (tests, benchmarks, bots; the window drives one too).

The client builds its game from the server's save (scene, seed, action log; JSON), applies
every numbered entry the server broadcasts to it, in order, and answers each with its
``state_hash()``. When the server says ``mismatch``, it sends its per-body digest (so the
server can name the first differing body) and then loads the server's save and re-simulates.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from ..core.errors import NetError, SandboxError
from ..engine.actions import Action, action_dict
from ..engine.game import Game
from ..games.brikwars.skirmish import SprintShort
from .protocol import (
    CLIENT_MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    dumps,
    parse_server_message,
    printable,
    state_digest,
)

log = logging.getLogger(__name__)

#: State dicts a client keeps (to answer a mismatch about a recent action).
STATES_KEPT = 32

__all__ = ["HeadlessClient"]


class HeadlessClient:
    """One seat (or a spectator) of an online game, without a window.

    Parameters
    ----------
    url : str
        ``ws://host:port`` of the server.
    token : str
        The seat's (or the spectators') join token the server printed.
    ldrawdir : path, optional
        LDraw library (else ``LDRAWDIR``).
    scene_dir : path, optional
        Where the scene's model files are when the server's scene folder is not on this
        machine (default: the current folder).
    on_message : callable, optional
        Called with every message from the server after the client handled it.

    Attributes
    ----------
    game : Game or None
        The local game (None until the first sync).
    seq : int
        The last entry applied locally.
    confirmed : int
        The last entry every connected client confirmed with the server's hash.
    desyncs, mismatches, refusals, errors, chat, proposals : lists
        What the server reported.
    """

    def __init__(self, url: str, token: str, *, ldrawdir=None, scene_dir: str | Path | None = None,
                 on_message: Callable[[dict], None] | None = None, name: str = "client"):
        self.url = url
        self.token = token
        self.ldrawdir = ldrawdir
        self.scene_dir = Path(scene_dir) if scene_dir else Path.cwd()
        self.on_message = on_message
        self.name = name
        self.ws: ClientConnection | None = None
        self.game: Game | None = None
        self.seq = -1
        self.confirmed = -1
        self.hashes: dict[int, str] = {}
        self.welcome: dict | None = None
        self.syncs = 0
        self.desyncs: list[dict] = []
        self.mismatches: list[int] = []
        self.refusals: list[dict] = []
        self.errors: list[dict] = []
        self.chat: list[dict] = []
        self.proposals: list[dict] = []
        self.results: list[dict] = []
        self.presence: dict | None = None
        self.close_code: int | None = None
        self.close_reason: str = ""
        self._states: dict[int, dict] = {}
        self._entry_by_ref: dict[tuple, dict] = {}
        self._need_sync = True
        self._refs = itertools.count(1)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"sandbox-{name}")
        self._reader: asyncio.Task | None = None
        self._changed: asyncio.Condition | None = None

    # ------------------------------------------------------------------ connection
    async def connect(self, timeout: float = 60.0) -> "HeadlessClient":
        """Connect, say hello (with the state still held, to catch up from the log), and wait
        until the local game is in step with the server.

        Raises
        ------
        NetError
            The server cannot be reached or refused the token (its close reason).
        """
        self._changed = asyncio.Condition()
        self.close_code, self.close_reason = None, ""
        self.welcome = None
        try:
            self.ws = await connect(self.url, max_size=CLIENT_MAX_MESSAGE_BYTES,
                                    compression=None, open_timeout=timeout, close_timeout=2.0)
        except (OSError, asyncio.TimeoutError, TimeoutError) as exc:
            raise NetError(f"cannot reach {self.url}: {exc}") from None
        hello: dict[str, Any] = {"type": "hello", "token": self.token, "version": PROTOCOL_VERSION}
        if self.game is not None and self.seq >= 0:
            hello.update(seq=self.seq, hash=self.hashes[self.seq])
        await self.ws.send(dumps(hello))
        self._reader = asyncio.create_task(self._read())
        await self._wait(lambda: self.welcome is not None and not self._need_sync
                         and self.seq >= self.welcome["seq"], timeout)
        return self

    async def close(self) -> None:
        """Leave the table (the server keeps the seat for a reconnect with the same token)."""
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)

    def abort(self) -> None:
        """Drop the connection as a crash or a lost network would: no closing handshake."""
        if self.ws is not None:
            self.ws.transport.abort()

    def shutdown(self) -> None:
        """Close the local game and the client's worker thread."""
        if self.game is not None:
            self.game.close()
        self._pool.shutdown(wait=True)

    def stop_worker(self) -> None:
        """Stop the client's worker thread (the game stays open: a window owns it)."""
        self._pool.shutdown(wait=False)

    async def call(self, fn: Callable[[Game], Any]) -> Any:
        """Run ``fn(game)`` on the client's game thread (between entries)."""
        return await self._run(fn, self.game)

    async def _run(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    async def _send(self, msg: dict) -> None:
        if self.ws is None:
            raise NetError("not connected")
        try:
            await self.ws.send(dumps(msg))
        except ConnectionClosed as exc:
            raise NetError(f"the connection closed: {exc.rcvd.reason if exc.rcvd else exc}") \
                from None

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def _wait(self, pred: Callable[[], bool], timeout: float) -> None:
        async def waiting():
            async with self._changed:
                await self._changed.wait_for(lambda: pred() or self.ws is None)
        try:
            await asyncio.wait_for(waiting(), timeout)
        except (asyncio.TimeoutError, TimeoutError):
            raise NetError(f"{self.name}: timed out after {timeout:g} s") from None
        if not pred():
            raise NetError(f"{self.name}: the connection closed: "
                           f"{self.close_reason or self.close_code}")

    # ------------------------------------------------------------------ acting
    async def act(self, action: Action | dict, timeout: float = 120.0) -> dict:
        """Send an action for this seat; return its entry once this client applied it.

        Raises
        ------
        NetError
            The server refused it (the reason), or the connection closed.
        """
        ref = next(self._refs)
        body = action_dict(action) if isinstance(action, Action) else action
        await self._send({"type": "action", "action": body, "ref": ref})
        me = self.welcome["seat"] if self.welcome else None
        found: list[dict] = []

        def done() -> bool:
            for r in self.refusals:
                if r.get("ref") == ref:
                    found.append(r)
                    return True
            e = self._entry_by_ref.get((me, ref))
            if e is not None and self.seq >= e["seq"]:
                found.append(e)
                return True
            return False

        await self._wait(done, timeout)
        if found[0]["type"] == "refused":
            raise NetError(found[0]["reason"])
        return found[0]

    async def send_chat(self, text: str) -> None:
        await self._send({"type": "chat", "text": text})

    async def propose(self, what: str) -> None:
        """Ask the other seats to agree to ``undo`` the last change or ``finish`` the game."""
        await self._send({"type": "propose", "what": what})

    async def vote(self, proposal_id: int, agree: bool = True) -> None:
        await self._send({"type": "vote", "id": proposal_id, "agree": agree})

    async def wait_seq(self, seq: int, timeout: float = 120.0) -> None:
        """Wait until this client applied entry ``seq``."""
        await self._wait(lambda: self.seq >= seq, timeout)

    async def wait_confirmed(self, seq: int, timeout: float = 120.0) -> None:
        """Wait until the server says every client confirmed entry ``seq``'s hash."""
        await self._wait(lambda: self.confirmed >= seq, timeout)

    async def wait_for(self, pred: Callable[[], bool], timeout: float = 60.0) -> None:
        """Wait until ``pred()`` holds (checked after every message)."""
        await self._wait(pred, timeout)

    # ------------------------------------------------------------------ the reader
    async def _read(self) -> None:
        ws = self.ws
        try:
            async for raw in ws:
                try:
                    msg = parse_server_message(raw)
                except NetError as exc:
                    log.warning("%s: %s", self.name, printable(str(exc), 300))
                    continue
                try:
                    await self._handle(msg)
                except SandboxError as exc:
                    log.warning("%s: %s", self.name, printable(str(exc), 300))
                    self.errors.append({"type": "error", "reason": str(exc)})
                if self.on_message is not None:
                    self.on_message(msg)
                await self._notify()
        except ConnectionClosed:
            pass
        except Exception:
            log.exception("%s: the reader failed", self.name)
            raise
        finally:
            self.close_code = ws.close_code
            self.close_reason = ws.close_reason or ""
            self.ws = None
            await self._notify()

    async def _handle(self, msg: dict) -> None:
        kind = msg["type"]
        if kind == "welcome":
            self.welcome = msg
            self._need_sync = msg.get("catch_up") is None
        elif kind == "sync":
            await self._load(msg)
        elif kind == "entry":
            await self._apply(msg)
        elif kind == "confirmed":
            self.confirmed = max(self.confirmed, int(msg["seq"]))
        elif kind == "refused":
            self.refusals.append(msg)
        elif kind == "error":
            self.errors.append(msg)
        elif kind == "mismatch":
            seq = int(msg["seq"])
            self.mismatches.append(seq)
            state = self._states.get(seq)
            if state is None:
                await self._send({"type": "sync_request"})
            else:
                await self._send({"type": "state", "seq": seq, "digest": state_digest(state)})
        elif kind == "desync":
            self.desyncs.append(msg)
        elif kind == "chat":
            self.chat.append(msg)
        elif kind == "proposal":
            self.proposals.append(msg)
        elif kind == "proposal_result":
            self.results.append(msg)
        elif kind == "presence":
            self.presence = msg

    async def _load(self, msg: dict) -> None:
        try:
            doc = json.loads(msg["save"])
            seq = int(msg["seq"])
        except (KeyError, TypeError, ValueError, RecursionError) as exc:
            raise NetError(f"the server sent a malformed sync: {exc}") from None

        def build() -> tuple[Game, dict, str]:
            game = Game.from_save_doc(doc, "the server's save", self.scene_dir, self.ldrawdir)
            state = game.state_dict()
            return game, state, game.state_hash(state)

        game, state, h = await self._run(build)
        old, self.game = self.game, game
        if old is not None:
            await self._run(old.close)
        self.syncs += 1
        self._need_sync = False
        self._record(seq, state, h)
        await self._send({"type": "hash", "seq": seq, "hash": h})

    async def _apply(self, entry: dict) -> None:
        seq = int(entry["seq"])
        if entry.get("ref") is not None:
            self._entry_by_ref[(entry.get("seat"), entry["ref"])] = entry
        if self.game is None or seq <= self.seq:
            return  # before this client's sync: already in the state it loaded
        if seq != self.seq + 1:
            await self._send({"type": "sync_request"})
            return

        def play() -> tuple[dict, str] | str:
            game = self.game
            try:
                if entry["kind"] == "action":
                    try:
                        act = entry["action"]  # as the server issued it (a referee's too)
                        game.apply(act, by=act.get("by") if isinstance(act, dict) else None)
                    except SprintShort:
                        pass
                elif entry["kind"] == "undo":
                    game.undo()
                elif entry["kind"] == "finish":
                    game.finish()
                else:
                    return f"unknown entry kind {entry['kind']!r}"
            except SandboxError as exc:
                return str(exc)
            state = game.state_dict()
            return state, game.state_hash(state)

        out = await self._run(play)
        if isinstance(out, str):  # this game refused what the server's accepted: diverged
            log.warning("%s: entry %d failed here (%s): asking for the server's save",
                        self.name, seq, printable(out, 300))
            self.mismatches.append(seq)
            await self._send({"type": "sync_request"})
            return
        state, h = out
        self._record(seq, state, h)
        await self._send({"type": "hash", "seq": seq, "hash": h})

    def _record(self, seq: int, state: dict, h: str) -> None:
        self.seq = seq
        self.hashes[seq] = h
        self._states[seq] = state
        for old in [k for k in self._states if k <= seq - STATES_KEPT]:
            del self._states[old]
        for old in [k for k in self.hashes if k <= seq - 4 * STATES_KEPT]:
            del self.hashes[old]
