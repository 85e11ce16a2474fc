"""The tabletop window as an online client (``sandbox play --join ws://HOST:PORT --token T``).

A :class:`NetLink` runs a client on its own thread and asyncio loop. Until a window attaches,
the client builds and updates its game on its own worker (the first sync); afterwards every
change the server sends (another seat's action, an agreed undo, a resync) is handed to the
window's main thread, which runs it on the window's action runner exactly as a local action:
the physics is simulated here from the same action and played back, not interpolated. The
window's own actions go to the server instead of the local game and come back numbered.

The window needs only a few hooks (``app.net``, ``run_remote``, ``adopt``, ``ready_for_remote``
in :mod:`sandbox.app.table`); everything online lives here.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import queue
import threading
from pathlib import Path
from typing import Any

from ..core.errors import NetError
from ..engine.actions import Action, action_dict
from ..engine.game import Game
from .client import HeadlessClient
from .protocol import printable

log = logging.getLogger(__name__)

__all__ = ["NetLink"]


class _WindowClient(HeadlessClient):
    def __init__(self, link: "NetLink", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.link = link

    async def _run(self, fn, *args):
        link = self.link
        async with link.oplock:
            if not link.attached:
                return await super()._run(fn, *args)
            fut: concurrent.futures.Future = concurrent.futures.Future()
            link.inbox.put((fn, args, fut))
            return await asyncio.wrap_future(fut)


class NetLink:
    """The window's connection to a server.

    Parameters
    ----------
    url, token : str
        Server address (``ws://host:port``) and the seat's join token.
    ldrawdir, scene_dir : path, optional
        As for :class:`~sandbox.net.client.HeadlessClient`.
    """

    def __init__(self, url: str, token: str, *, ldrawdir=None, scene_dir: str | Path | None = None):
        self.inbox: queue.Queue = queue.Queue()
        self.notices: queue.Queue = queue.Queue()
        self.attached = False
        self.app: Any = None
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="sandbox-net",
                                       daemon=True)
        self.client = _WindowClient(self, url, token, ldrawdir=ldrawdir, scene_dir=scene_dir,
                                    on_message=self._on_message, name="window")
        self.oplock: asyncio.Lock | None = None
        self._open_proposal: dict | None = None

    # ------------------------------------------------------------------ main thread
    def start(self, timeout: float = 120.0) -> Game:
        """Connect and load the server's game; returns it (the window's session).

        Raises
        ------
        NetError
            Unreachable server, wrong token, or a failed sync.
        """
        self.thread.start()

        async def go():
            self.oplock = asyncio.Lock()
            await self.client.connect(timeout)

        try:
            self._call(go(), timeout + 5)
        except BaseException:
            self.close()
            raise
        return self.client.game

    @property
    def seat(self) -> str:
        w = self.client.welcome or {}
        return w.get("seat", "?")

    @property
    def seat_label(self) -> str:
        """Which seat this window is and whom it plays: ``"seat 2 (Black Falcons)"``."""
        players = ", ".join((self.client.welcome or {}).get("players") or []) or "spectator"
        return f"{self.seat} ({players})"

    def attach(self, app) -> None:
        """From now on the window plays every change (call before its first frame)."""
        async def flip():
            async with self.oplock:
                self.attached = True

        self._call(flip(), 60)
        self.app = app
        app.net = self
        app.base.taskMgr.add(self._task, "sandbox-net")
        players = ", ".join(self.client.welcome.get("players") or []) or "nobody (spectator)"
        app.flash(f"Online at {self.client.url} as {self.seat}: you play {players}", 8.0)

    def send_action(self, action: Action | dict) -> None:
        """A local action: to the server (it comes back numbered, or refused)."""
        body = action_dict(action) if isinstance(action, Action) else action
        asyncio.run_coroutine_threadsafe(self._act(body), self.loop)

    def undo_key(self) -> None:
        """U: agree to another seat's open proposal, else ask the other seats to undo."""
        p = self._open_proposal
        if p is not None and p.get("by") != self.seat:
            asyncio.run_coroutine_threadsafe(self.client.vote(p["id"], True), self.loop)
            self.notices.put(("ok", f"You agree to {p['by']}'s {p['what']}"))
        else:
            asyncio.run_coroutine_threadsafe(self.client.propose("undo"), self.loop)
            self.notices.put(("info", "Asked the other seats to agree to undo"))

    def close(self) -> None:
        """Leave the table and stop the network thread."""
        if self.thread.is_alive():
            try:
                self._call(self.client.close(), 5)
            except Exception:  # noqa: BLE001 - leaving anyway
                pass
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5)
        while not self.inbox.empty():
            _, _, fut = self.inbox.get_nowait()
            fut.cancel()
        self.client.stop_worker()

    def _call(self, coro, timeout: float):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def _task(self, task):
        """Each frame: show what the server said; hand the next change to the window."""
        app = self.app
        while True:
            try:
                kind, text = self.notices.get_nowait()
            except queue.Empty:
                break
            # the server's words (and, through it, a seat's chat): one line, no control codes
            app.flash(printable(text, 300), 6.0, error=kind == "error", ok=kind == "ok")
        if not app.ready_for_remote():
            return task.cont
        game = self.client.game
        if game is not None and game is not app.session:
            app.adopt(game)  # a resync loaded the server's save
        try:
            fn, args, fut = self.inbox.get_nowait()
        except queue.Empty:
            return task.cont
        if not fut.set_running_or_notify_cancel():
            return task.cont

        def work():
            try:
                out = fn(*args)
            except BaseException as exc:
                fut.set_exception(exc)
                raise
            fut.set_result(out)
            return out

        app.run_remote(work)
        return task.cont

    # ------------------------------------------------------------------ network thread
    async def _act(self, body: dict) -> None:
        try:
            await self.client.act(body)
        except NetError as exc:
            self.notices.put(("error", f"Refused: {exc}"))

    def _on_message(self, msg: dict) -> None:
        kind = msg["type"]
        if kind == "desync":
            self.notices.put(("error", f"{msg['seat']} was out of sync after action "
                                       f"{msg['seq']}: {msg['difference']['text']}; "
                                       "resynchronised from the server's save"))
        elif kind == "chat":
            self.notices.put(("info", f"{msg['seat']}: {msg['text']}"))
        elif kind == "proposal":
            self._open_proposal = msg
            if msg["by"] != self.seat:
                self.notices.put(("info", f"{msg['by']} proposes to {msg['what']}: "
                                          "U agrees (the next action drops it)"))
        elif kind == "proposal_result":
            self._open_proposal = None
            self.notices.put(("ok" if msg["accepted"] else "info",
                              f"{msg['what'].capitalize()} "
                              f"{'agreed' if msg['accepted'] else 'dropped'}: {msg['reason']}"))
        elif kind == "error":
            self.notices.put(("error", f"Server: {msg['reason']}"))
