"""``sandbox play``: open the window first, show the loading view, build the game behind it.

The window (Panda3D) opens before the engine is imported; the game (pybullet in DIRECT mode,
the models, the physics bodies) is built on a worker thread while the main thread only draws
the loading view, which never touches the game. When the game is ready, the main thread builds
the table's scene graph (:class:`~sandbox.app.table.app.TabletopApp`) and play begins.
Panda3D and pybullet are never used from two threads at once.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from ...core.errors import SandboxError
from .window import LoadingView, open_window, write_ready

#: Seconds between two frames of the loading view while the game is built.
LOADING_FRAME_S: float = 1 / 30
#: Share of the progress bar the game's build takes (the rest: the table's models).
BUILD_SHARE: float = 0.6


def open_for_play(path: str | Path, seed: int | None = None, ldrawdir=None, on_event=None,
                  referee: bool = False):
    """The game ``sandbox play`` opens: live play rolls real seeded dice, so a scene's
    ``forced_dice`` (for scripted runs re-enacting the book's examples) are not used; a save
    keeps the choice it was played with. ``referee``: a referee runs the table (``--referee``:
    the referee's tools are accepted).

    Raises
    ------
    SceneError, ReplayError
    """
    from ...engine.game import open_game

    return open_game(path, seed=seed, ldrawdir=ldrawdir, forced_dice=False, on_event=on_event,
                     referee=referee)


def plays_computer_seats(session) -> bool:
    """Whether the game's home mode plays seats for the computer (``--ai``): its kind's
    window says so (:attr:`~sandbox.app.table.mode.Mode.computer_seats`)."""
    from .mode import game_modes

    return game_modes(session.kind)["select"].computer_seats


class GameBuild:
    """The game being built on a worker thread, and how far it got (bodies placed of the
    scene's bodies; ``total`` is 0 for a save, whose count is not known before)."""

    def __init__(self, path: Path, seed, ldrawdir, referee: bool = False):
        self.path, self.seed, self.ldrawdir = path, seed, ldrawdir
        self.referee = referee
        self.done = threading.Event()
        self.game = None
        self.error: BaseException | None = None
        self.placed = 0
        self.total = 0
        self.stage = "Reading the scene"
        #: Set once the engine's modules are imported (the window's own then import fast).
        self.engine_ready = threading.Event()
        self._thread = threading.Thread(target=self._work, name="sandbox-load", daemon=True)

    def start(self) -> "GameBuild":
        self._thread.start()
        return self

    def _on_event(self, e) -> None:
        if e["type"] == "body":
            self.placed += 1
            self.stage = "Placing the bodies"

    def _work(self) -> None:
        try:
            self.stage = "Starting the engine"
            from ...engine import game  # noqa: F401  (the import, while the view is drawn)
            from ...engine.scene import load_scene

            self.engine_ready.set()

            if self.path.suffix.lower() == ".toml":
                spec, _ = load_scene(self.path)
                self.total = len(spec.units) + len(spec.creations)
            self.stage = "Building the table (physics)"
            self.game = open_for_play(self.path, self.seed, self.ldrawdir, self._on_event,
                                      referee=self.referee)
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            self.error = exc
        finally:
            self.engine_ready.set()
            self.done.set()

    def progress(self) -> tuple[str, float | None]:
        """(what is being done, the bar's fraction or None when unknown)."""
        if self.total:
            frac = BUILD_SHARE * min(self.placed, self.total) / self.total
            return f"{self.stage}: {min(self.placed, self.total)} of {self.total}", frac
        return self.stage, None


def play(path: str | Path | None, ldrawdir=None, seed: int | None = None, width: int = 1280,
         height: int = 720, save_path: str | Path | None = None, join: str | None = None,
         token: str | None = None, ai=(), referee: bool = False,
         ready_file: str | Path | None = None) -> None:
    """Open the tabletop window on a scene (.toml) or a save file and run it (``ai``: seats
    the computer plays, Micro Brick War; ``referee``: the referee's tools on the keys);
    with ``join`` (``ws://host:port``) and ``token``, play one seat of a server's game instead
    (``path``, optional then: the scene, whose folder holds its models). ``ready_file``: a JSON
    file written when the loading view's first frame is drawn (``window_s``, seconds since
    this call) and again when the table's is (``table_s``).

    Raises
    ------
    SandboxError
        No display (``DISPLAY`` unset), before anything is loaded; a file or a seat refused.
    """
    from ...render.view import display_refusal

    t0 = time.monotonic()
    if display_refusal("the tabletop window"):
        raise SandboxError(display_refusal("the tabletop window"))
    if join is not None:
        return _play_online(path, join, token or "", ldrawdir, width, height, save_path)
    p = Path(path)
    window = open_window(width, height, "BrikWars tabletop")
    base = window[0]
    view = LoadingView(base, f"Loading {p.stem}…")
    view.show("Starting the engine", 0.0)
    view.draw()
    ready = {"path": ready_file, "t0": t0, "scene": str(p),
             "window_s": round(time.monotonic() - t0, 3)}
    write_ready(ready_file, scene=str(p), window_s=ready["window_s"])
    build = GameBuild(p, seed, ldrawdir, referee).start()
    app_class = None
    try:
        while not build.done.wait(LOADING_FRAME_S) or app_class is None:
            if app_class is None and build.engine_ready.is_set():
                # the window's own modules, while the game builds (the engine's are loaded)
                from .app import TabletopApp as app_class
            text, frac = build.progress()
            elapsed = time.monotonic() - t0
            view.show(f"{text}   {elapsed:.1f} s", frac,
                      pulse=None if frac is not None else elapsed)
            base.taskMgr.step()  # draws a frame; window events (closing it ends the program)
        if build.error is not None:
            raise build.error
        session = build.game
        if ai and not plays_computer_seats(session):
            raise SandboxError("--ai: the computer opponent plays Micro Brick War scenes only")
        for seat in ai:
            if seat not in session.players:
                raise SandboxError(f"--ai: {seat!r} is not one of the players "
                                   f"{session.players}")
        view.show(f"Building the models   {time.monotonic() - t0:.1f} s", BUILD_SHARE)
        view.draw()
        app = app_class(session, width, height, ai_seats=ai, referee=referee,
                          save_path=save_path or (p if p.suffix.lower() != ".toml" else None),
                          window=window, loading=view, ready=ready)
    except BaseException:
        if build.game is not None:
            build.game.close()
        base.destroy()
        raise
    try:
        app.run()
    finally:
        app.runner.join()


def _play_online(path, url: str, token: str, ldrawdir, width: int, height: int,
                 save_path) -> None:
    from ...net.window import NetLink
    from .app import TabletopApp

    scene_dir = Path(path).resolve().parent if path else None
    link = NetLink(url, token, ldrawdir=ldrawdir, scene_dir=scene_dir)
    session = link.start()
    try:
        app = TabletopApp(session, width, height, save_path=save_path,
                          title=f"BrikWars tabletop - online: {link.seat}")
        link.attach(app)
        try:
            app.run()
        finally:
            app.runner.join()
    finally:
        link.close()
