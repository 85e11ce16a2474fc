"""The desktop virtual tabletop: a Panda3D window on a hotseat :class:`~sandbox.engine.game.Game`.

Structure (``sandbox/app/table/``)
----------------------------------
- :class:`~sandbox.engine.game.Game` holds the game: turns, actions, undo, saves. The window
  never changes game state except by handing it an action.
- :class:`TabletopApp` (this module) owns the window: the scene graph of the bodies, the
  action runner, the frame loop, saves and loads; its HUD (:mod:`.hud`) and overlays
  (:mod:`.overlays`) are mixins.
- :class:`~sandbox.app.table.input.InputLayer` is the one entry point for input; keys go
  through the key map (:mod:`.keymap`), the pointer through the current input mode
  (:mod:`.mode`, :mod:`.modes_common`, and each game's own modes, which its kind names:
  ``GameKind.window``, e.g. ``sandbox/games/brikwars/window.py``).
- the camera (``self.rig``) is :class:`sandbox.render.orbit_camera.OrbitCamera`.
- :mod:`.launch` opens the window first (:mod:`.window`'s loading view) and builds the game
  behind it.

Physics is never stepped in the draw: an action runs on a worker thread (pybullet in DIRECT
mode at its fixed time step), recording poses at 60 frames per simulated second; the draw task
plays the recorded frames back against the wall clock (an accumulator over real elapsed
time), showing the newest frame physics has reached, so a frame never waits on physics. Log
lines appear when playback reaches their simulated time: physics plays out, then the rules.

Units: inches, Z up. Screen coordinates handed to the input layer are Panda3D's mouse
coordinates: x and y in [-1, 1], +y up.
"""

from __future__ import annotations

import dataclasses
import math
import re
import threading
import time
from pathlib import Path
from typing import Callable

import numpy as np
from panda3d.core import (
    AntialiasAttrib,
    DirectionalLight,
    GeomNode,
    LColor,
    LPoint3,
    LQuaternion,
    LVector3,
    LVector4,
    NodePath,
    OrthographicLens,
    Point2,
    Point3,
    Shader,
    TextNode,
    TransparencyAttrib,
)

from ...core.errors import SandboxError
from ...engine.game import Game as GameSession
from ...render import geometry, shaders
from ...render import offscreen as _offscreen  # the shared scene-building helpers
from ...render.from_game import far_mesh_of, render_mesh_of
from ...render.orbit_camera import OrbitCamera
from ..table_hands import SlotDialog, TextEntry
from .files import FilesMixin
from .hud import COLUMN_COLOUR, LOG_COLUMN, PLAYBACK_FPS, HudMixin, shown_path
from .input import InputLayer
from .keymap import bound_keys
from .overlays import OverlaysMixin
from .window import LoadingView, open_window, write_ready

#: Seconds between two frames of the loading view while the table's models are built.
LOADING_EVERY_S: float = 0.25
_HIGHLIGHT_SCALE = _offscreen._HIGHLIGHT_SCALE
#: The 3D view's vertical field of view, degrees.
VIEW_V_FOV_DEG = 40.0
_SHADOW_MASK = _offscreen._SHADOW_MASK
_VIEW_MASK = _offscreen._VIEW_MASK


#: How far around a unit's bounds (inches) a click on the table still picks the unit.
FOOTPRINT_MARGIN_IN: float = 0.15


# ------------------------------------------------------------------------------ runner

class ActionRunner:
    """Runs one game-changing call at a time on a worker thread.

    The draw task polls :meth:`poll`; the window shows recorded frames meanwhile.
    """

    def __init__(self):
        self._thread: threading.Thread | None = None
        self.result = None
        self.error: BaseException | None = None
        self.done = True

    @property
    def busy(self) -> bool:
        return not self.done

    def start(self, fn: Callable[[], object]) -> None:
        if self.busy:
            raise RuntimeError("an action is already running")
        self.done = False
        self.result, self.error = None, None

        def work():
            try:
                self.result = fn()
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread
                self.error = exc
            finally:
                self.done = True

        self._thread = threading.Thread(target=work, name="sandbox-action", daemon=True)
        self._thread.start()

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()


# ------------------------------------------------------------------------------ the app
class TabletopApp(FilesMixin, HudMixin, OverlaysMixin):
    """The tabletop window.

    Parameters
    ----------
    session : GameSession
    width, height : int
        Window size, pixels.
    save_path : Path, optional
        Where F5 saves and F9 loads (default ``<scene name>.save.json`` in the working folder).
    screenshot_dir : Path, optional
        Where P writes PNGs (default ``screenshots/``).
    shadows : bool or None
        Sun shadows. None (the default): ``$SANDBOX_SHADOWS`` (``on``/``off``) when set, else
        on with a GPU and off on software GL (llvmpipe, softpipe: issue 26, the shadow pass
        and the 18 shadow-map look-ups per pixel more than halve the frame rate there).
    ai_seats : tuple of str
        Seats the computer plays (Micro Brick War).
    referee : bool
        Referee mode: the key map's referee tools are bound and listed.
    window : (ShowBase, prc page), optional
        A window already open (``play`` opens it first, with its loading view).
    loading : LoadingView, optional
        That window's loading view, hidden once the table is built.
    ready : dict, optional
        ``--ready-file``: ``path``, ``t0`` (``time.monotonic()`` at launch) and figures so
        far; written with ``table_s`` once the table's first frame is drawn.

    Raises
    ------
    SandboxError
        No OpenGL display, or the window could not be opened.
    """

    #: What flashed messages and questions expire by (seconds). Window tests freeze it: on a
    #: busy machine a message could expire between an action and the check of its text.
    message_clock = staticmethod(time.monotonic)

    def __init__(self, session: GameSession, width: int = 1280, height: int = 720, *,
                 save_path: str | Path | None = None, screenshot_dir: str | Path | None = None,
                 shadows: bool | None = None, title: str = "BrikWars tabletop", ai_seats=(),
                 referee: bool = False, window=None, loading: LoadingView | None = None,
                 ready: dict | None = None):
        # ``window``: (ShowBase, prc page) already open (``play`` opens it first, showing the
        # loading view while the game is built)
        self.base, self._prc = window if window is not None else open_window(width, height,
                                                                                title)
        self.session = session
        #: Referee mode (``sandbox play --referee``): the key map's referee tools (a free
        #: missile strike, ignite) are bound and shown; a player's window has none.
        self.referee = bool(referee)
        #: Seats the computer plays (Micro Brick War).
        self.ai_seats = tuple(ai_seats)
        #: ``--ready-file``: {"path", "t0" (time.monotonic() at launch), figures so far}; the
        #: file is written once the table's first frame is drawn.
        self._ready = ready
        self._frames = 0
        self.width, self.height = width, height
        slug = "".join(c if c.isalnum() else "_" for c in session.spec.name).strip("_") or "game"
        self.save_path = Path(save_path) if save_path else Path(f"{slug}.save.json")
        self.screenshot_dir = Path(screenshot_dir) if screenshot_dir else Path("screenshots")
        self.gl_renderer = self.base.win.getGsg().getDriverRenderer()
        self.shadows = shaders.default_shadows(self.gl_renderer) if shadows is None \
            else bool(shadows)
        self.rig = OrbitCamera()  # the tabletop's limits are the defaults
        self.runner = ActionRunner()
        self.selected: str | None = None
        self.grid_visible = True
        #: The key help panel unfolded (H); folded it is one line, "H: help".
        self.show_help = False
        self.overlays_dirty = True
        self._flash_text = ""
        self._flash_until = 0.0
        self.flash_kind = "info"
        #: Called by Q; the default ends :meth:`run`.
        self.on_quit: Callable[[], None] = self.base.taskMgr.stop
        self.quit_requested = False
        self._shots = 0
        self._playback: dict | None = None
        self._generation = -1
        self._destroyed: set[str] = set()
        self._live: dict = {}
        self._nodes: dict[str, NodePath] = {}
        #: LDraw edge lines (type 2 and optional type 5) over the bricks; F4 toggles them. At
        #: start: ``$SANDBOX_EDGES``, else on with a GPU, off on software GL (issue 26).
        self.show_edges = shaders.default_edges(self.gl_renderer)
        #: Camera distance (inches) beyond which bodies draw their far level of detail
        #: (None: never; ``$SANDBOX_FAR``, by default on software GL only).
        self.far_switch: float | None = geometry.far_switch_distance(
            self.height, VIEW_V_FOV_DEG) if shaders.default_far_level(self.gl_renderer) else None
        self._after: str | None = None
        #: The online link (sandbox.net.window.NetLink) when joined to a server, else None.
        self.net = None
        #: The window's ``O``: the action whose odds run or ran, and the panel's lines.
        self.odds_action: dict | None = None
        self.odds_lines: list[str] = []
        self._odds_thread: threading.Thread | None = None
        #: The log panel: its filter (F2) and how many lines it is scrolled back (wheel).
        self.log_filter = "all"
        self.log_scroll = 0
        #: The log search (/): only lines containing it (any case) are shown; "" shows all.
        self.log_search = ""
        #: The typed box open now (the search, the dice tray, a slot's name), or None.
        self.entry: TextEntry | None = None
        #: The saved-games dialog (F7) while open, and the folder of named slots (F6).
        self.slot_dialog: SlotDialog | None = None
        self.slots_dir = self.save_path.parent / "saves"
        self._turn_seen: tuple | None = None
        #: What F5 last saved (or what was opened): quitting and F9 ask when play is unsaved.
        self._saved_session = session
        self._saved_actions = list(session.actions)
        self._asked: str | None = None
        self._asked_until = 0.0
        self._setup_scene()
        self.input = InputLayer(self)
        self._setup_hud()
        #: The loading view (the first load's, handed over by ``play``, or a new one).
        self.loading = loading if loading is not None else LoadingView(self.base)
        self.loading_shown = self.loading.shown
        self.loading_text = self.loading.line
        self.loading.set_cover(loading is not None)
        self._bind_events()
        self._sync_from_session()
        self._frame_table()
        self.base.taskMgr.add(self._frame_task, "sandbox-frame")

    # ---------------------------------------------------------------- scene graph
    def _setup_scene(self) -> None:
        b = self.base
        self.root = b.render.attach_new_node("tabletop")
        self.root.set_shader(Shader.make(Shader.SL_GLSL, *shaders.programs(self.shadows)))
        self.root.set_shader_input("u_sky", LVector4(0.46, 0.48, 0.52, 1))
        self.root.set_shader_input("u_ground", LVector4(0.24, 0.24, 0.22, 1))
        self.root.set_shader_input("u_shadow_texel", 1.0 / 2048)
        self.root.set_shader_input("u_shadow_offset", 0.02)
        self.root.set_antialias(AntialiasAttrib.M_multisample)
        # the 3D view takes the window less the log column on the right (the log never covers
        # the table); the window's own clear colour is the column's
        b.setBackgroundColor(*COLUMN_COLOUR)
        self.view_region = next(b.win.get_display_region(i)
                                for i in range(b.win.get_num_display_regions())
                                if b.win.get_display_region(i).get_camera() == b.cam)
        self.view_region.set_dimensions(0, 1 - LOG_COLUMN, 0, 1)
        self.view_region.set_clear_color_active(True)
        self.view_region.set_clear_color(LColor(0.70, 0.80, 0.90, 1))
        self.view_region.set_clear_depth_active(True)
        b.cam.node().set_camera_mask(_VIEW_MASK)
        b.camLens.set_fov(_offscreen._h_fov(VIEW_V_FOV_DEG,
                                            self.width * (1 - LOG_COLUMN) / self.height),
                          VIEW_V_FOV_DEG)
        self._sun_node = DirectionalLight("sun")
        self._sun_node.set_color(LColor(0.78, 0.75, 0.68, 1))
        self._sun = self.root.attach_new_node(self._sun_node)
        if self.shadows:
            self._sun_node.set_shadow_caster(True, 2048, 2048)
            self._sun_node.set_camera_mask(_SHADOW_MASK)
        self._fill_node = DirectionalLight("fill")
        self._fill_node.set_color(LColor(0.16, 0.18, 0.22, 1))
        self._fill = self.root.attach_new_node(self._fill_node)
        self.root.set_light(self._sun)
        self.root.set_light(self._fill)
        self.bodies_np = self.root.attach_new_node("bodies")
        # name plates (F3): billboards drawn over everything, without light or shadow
        self.plates_np = self.base.render.attach_new_node("plates")
        self.plates_np.set_light_off(1)
        self.plates_np.set_shader_off(1)
        self.plates_np.set_depth_test(False)
        self.plates_np.set_depth_write(False)
        self.plates_np.set_bin("fixed", 40)
        self.plates_np.set_transparency(TransparencyAttrib.M_alpha)
        self.plates_np.hide(_SHADOW_MASK)
        self.show_plates = False
        self._plates: dict[str, NodePath] = {}
        self.markers_np = self.root.attach_new_node("markers")
        bf = self.session.spec.battlefield
        w, d = bf.width, bf.depth
        v, n = geometry.box_triangles(np.array([-w / 2, -d / 2, -_offscreen._TABLE_THICKNESS]),
                                      np.array([w / 2, d / 2, 0.0]))
        top = np.array([*bf.ground_colour, 1.0], np.float32)
        side = top * np.array([0.55, 0.5, 0.45, 1.0], np.float32)
        cols = np.where(n[:, 2:3] > 0.5, top, side).astype(np.float32)
        node = GeomNode("table")
        node.add_geom(geometry.triangles_geom("table", v, n, cols))
        self.root.attach_new_node(node).set_bin("background", 0)
        lines, colours = _offscreen._grid_lines(w, d, top)
        gnode = GeomNode("grid")
        gnode.add_geom(geometry.lines_geom("grid", lines, colours))
        self.grid_np = self.root.attach_new_node(gnode)
        self.grid_np.set_light_off(1)
        self.grid_np.set_shader_off(1)
        self.grid_np.hide(_SHADOW_MASK)
        self.grid_np.set_depth_offset(1)
        self.grid_np.set_transparency(TransparencyAttrib.M_alpha)
        self.grid_np.set_bin("background", 1)
        self.grid_np.set_depth_write(False)
        # sun over the whole table
        radius = math.hypot(w, d) / 2 + 4.0
        sun = np.array([0.45, 0.75, -1.0])
        sun /= np.linalg.norm(sun)
        self._sun.set_pos(LPoint3(*(-sun * (radius + 20.0))))
        self._sun.look_at(LPoint3(0, 0, 0), LVector3(0, 0, 1))
        lens = self._sun_node.get_lens()
        if not isinstance(lens, OrthographicLens):  # pragma: no cover
            lens = OrthographicLens()
            self._sun_node.set_lens(lens)
        lens.set_film_size(2 * radius, 2 * radius)
        lens.set_near_far(1.0, 2 * radius + 40.0)
        self.root.set_shader_input("u_shadow_offset", 3.0 * radius / 2048)
        fill = np.array([-sun[0], -sun[1], sun[2] * 0.6])
        self._fill.set_pos(LPoint3(*(-fill * 10)))
        self._fill.look_at(LPoint3(0, 0, 0), LVector3(0, 0, 1))
        self._table_radius = radius

    def _frame_table(self) -> None:
        bf = self.session.spec.battlefield
        self.rig.target = np.zeros(3)
        half_diag = math.hypot(bf.width, bf.depth) / 2
        self.rig.distance = half_diag / math.tan(math.radians(20.0)) * 0.95

    def _rebuild_bodies(self) -> None:
        """(Re)make one Geom node per body from the session's assets."""
        for np_ in self._nodes.values():
            np_.remove_node()
        self._nodes = {}
        g = self.session
        self._destroyed = {k for k, s in g.bodies.items() if s.damage.destroyed}
        items = list(g.assets.items())
        last = time.monotonic()
        for i, (key, asset) in enumerate(items):
            self._add_body_node(key, asset)
            if time.monotonic() - last > LOADING_EVERY_S and i + 1 < len(items):
                last = time.monotonic()
                self._show_loading(f"Loading the table: {i + 1} of {len(items)} models",
                                   0.6 + 0.4 * (i + 1) / len(items))
        self._show_loading("")

    def _show_loading(self, text: str, fraction: float | None = None) -> None:
        """The loading view: a line of progress drawn at once (the frame loop is not running
        while the models are built); "" hides it."""
        loading = getattr(self, "loading", None)
        if loading is None:
            return
        if not text:
            loading.hide()
            return
        loading.show(text, fraction)
        loading.draw()

    def _add_body_node(self, key: str, asset) -> None:
        g = self.session
        destroyed = key in g.bodies and g.bodies[key].damage.destroyed
        mesh = render_mesh_of(asset, destroyed, edges=True)
        far = far_mesh_of(asset, destroyed) if self.far_switch is not None else None
        np_body = geometry.body_node(key, mesh, far, self.far_switch, self.show_edges)
        np_body.reparent_to(self.bodies_np)
        np_body.set_python_tag("body", key)
        self._nodes[key] = np_body

    def _sync_from_session(self) -> None:
        """After an action or rebuild: new bodies, destroyed looks, live poses (main thread)."""
        s = self.session
        if s.generation != self._generation:
            self._generation = s.generation
            self._rebuild_bodies()
            if self.selected is not None and self.selected not in s.bodies:
                self.selected = None
        g = s
        for key, asset in list(g.assets.items()):
            if key not in self._nodes:
                self._add_body_node(key, asset)
        dead = {k for k, st in g.bodies.items() if st.damage.destroyed}
        for key in dead - self._destroyed:
            self._nodes[key].remove_node()
            del self._nodes[key]
            self._add_body_node(key, g.assets[key])
        self._destroyed = dead
        # destroyed units lie where physics left them (the engine topples them)
        self._live = {k: v for k, v in s.world.poses().items() if k != "ground"}
        self._sync_plates()
        self.escapade_panel.setText(self.input.home.panel())  # the game's own side panel
        self.overlays_dirty = True

    # ---------------------------------------------------------------- saves
    def _bind_events(self) -> None:
        b = self.base
        for btn in (1, 2, 3):
            b.accept(f"mouse{btn}", self._on_down, [btn, False])
            b.accept(f"shift-mouse{btn}", self._on_down, [btn, True])
            b.accept(f"mouse{btn}-up", self._on_up, [btn])
        b.accept("wheel_up", self._on_wheel, [1])
        b.accept("wheel_down", self._on_wheel, [-1])
        # one binding per key of the key map (the referee's tools only in referee mode)
        for event, k in bound_keys(self.referee):
            b.accept(event, self.input.key, [k])
        b.accept("shift", self._shift, [True])
        b.accept("shift-up", self._shift, [False])
        b.buttonThrowers[0].node().set_keystroke_event("keystroke")
        b.accept("keystroke", self.keystroke)

    def _on_wheel(self, steps: int) -> None:
        m = self._mouse()
        if m is not None:
            self.input.last_pointer = m
        self.input.wheel(steps)

    def _shift(self, down: bool) -> None:
        self.input.shift = down

    def _mouse(self) -> tuple[float, float] | None:
        mw = self.base.mouseWatcherNode
        if mw is None or not mw.has_mouse():
            return None
        m = mw.get_mouse()
        return float(m.x), float(m.y)

    def _on_down(self, button: int, shift: bool) -> None:
        m = self._mouse()
        if m is not None:
            self.input.pointer_down(button, *m, shift=shift)

    def _on_up(self, button: int) -> None:
        m = self._mouse()
        if m is not None:
            self.input.pointer_up(button, *m)

    # ---------------------------------------------------------------- geometry helpers
    def mouse_ray(self, x: float, y: float) -> tuple[np.ndarray, np.ndarray]:
        """World (near, far) points of the ray through screen point (x, y), inches."""
        near, far = Point3(), Point3()
        self.base.camLens.extrude(Point2(self._view_x(x), y), near, far)
        r = self.base.render
        n = r.get_relative_point(self.base.cam, near)
        f = r.get_relative_point(self.base.cam, far)
        return np.array(n), np.array(f)

    def pick(self, x: float, y: float):
        """The first thing under screen point (x, y): a physics ray test (read only). A ray
        that meets the table or a floor (an upward face: a roof, a deck) inside the footprint of
        a unit standing on it (its base, as a player touches a model;
        :data:`FOOTPRINT_MARGIN_IN` around it) picks that unit."""
        if self.busy or self.in_log_column(x):
            return None
        a, b = self.mouse_ray(x, y)
        hit = self.session.pick(a, b)
        if hit is None:
            return None
        floor = hit.key == "ground" or float(np.asarray(hit.normal)[2]) > 0.7
        if floor and (hit.key == "ground" or self.session.bodies.get(hit.key) is None
                      or self.session.bodies[hit.key].kind != "unit"):
            # the table or a floor (a roof, a deck) under a unit's base: that unit
            foot = self.footprint_at(np.asarray(hit.point, float))
            if foot is not None:
                return dataclasses.replace(hit, key=foot)
        return hit

    def footprint_at(self, point: np.ndarray) -> str | None:
        """The unit whose footprint (bounds in x, y grown by :data:`FOOTPRINT_MARGIN_IN`)
        holds ``point`` (x, y, z inches) with its feet within 0.3" of the point's height
        (standing on that surface); the nearest footprint centre among several; None when no
        unit stands there."""
        s = self.session
        best, best_d = None, math.inf
        m = FOOTPRINT_MARGIN_IN
        for key, st in s.bodies.items():
            if st.kind != "unit" or key not in s.world.bodies or st.off_table:
                continue
            lo, hi = s.bounds(key)
            if not (lo[0] - m <= point[0] <= hi[0] + m and lo[1] - m <= point[1] <= hi[1] + m
                    and abs(point[2] - lo[2]) <= 0.3):
                continue
            d = math.hypot(point[0] - (lo[0] + hi[0]) / 2, point[1] - (lo[1] + hi[1]) / 2)
            if d < best_d:
                best, best_d = key, d
        return best

    def ground_point(self, x: float, y: float) -> np.ndarray | None:
        """Where the ray through (x, y) meets the table plane z = 0, inches."""
        a, b = self.mouse_ray(x, y)
        if abs(b[2] - a[2]) < 1e-9:
            return None
        t = -a[2] / (b[2] - a[2])
        if t < 0:
            return None
        return a + t * (b - a)

    def world_to_screen(self, point) -> tuple[float, float] | None:
        """Screen coordinates (x, y in [-1, 1]) of a world point, or None when behind."""
        p = self.base.cam.get_relative_point(self.base.render, LPoint3(*map(float, point)))
        out = Point2()
        if not self.base.camLens.project(p, out):
            return None
        return (float(out.x) + 1) * (1 - LOG_COLUMN) - 1, float(out.y)

    def can_move(self, key: str) -> bool:
        st = self.session.bodies.get(key)
        return (st is not None and st.owner == self.session.current_player
                and key in self.session.world.bodies and not self.session.world.bodies[key].static)

    def select(self, key: str | None) -> None:
        self.selected = key
        self.overlays_dirty = True

    @property
    def mbw(self):
        """The Micro Brick War layer (squares, highlights, computer seats), None in other
        games: its home mode's (``games/micro_brick_war/window.py``; tests read it)."""
        return getattr(self.input.home, "mbw", None)

    def reset(self) -> None:
        """Back to the state of a window just opened on the game on the table: no selection,
        mode, message, typed box or dialog; the log unfiltered; the help folded; the table
        framed (window tests start from here)."""
        self.runner.join()
        self.wait_idle()
        self.input.reset()
        self.select(None)
        self._flash_text, self._flash_until, self.flash_kind = "", 0.0, "info"
        self._asked = None
        self.entry = None
        if self.slot_dialog is not None:
            self.slot_dialog.close()
        self.log_filter, self.log_scroll = "all", 0
        self.set_log_search("")
        self.show_help = False
        self.odds_action, self.odds_lines = None, []
        self.tooltip.setText("")
        if self.rig.pitch > 89.0:
            bf = self.session.spec.battlefield
            self.rig.toggle_top(bf.width, bf.depth, self.view_aspect)
        self._frame_table()
        self.overlays_dirty = True
        self.step(1)

    def screenshot_key(self) -> None:
        """P: a screenshot in ``screenshot_dir``, and where it went."""
        self.flash(f"Screenshot saved to {shown_path(self.screenshot())}", ok=True)

    def toggle_edges(self) -> None:
        """F4: the LDraw edge lines of every body on the table, or none."""
        self.show_edges = not self.show_edges
        for key, np_body in self._nodes.items():
            near = [np_body, *np_body.get_children()]  # the GeomNode, or an LODNode's near child
            for e in [c for n in near for c in n.get_children() if c.get_name() == key + ":edges"]:
                if self.show_edges:
                    e.show()
                else:
                    e.hide()

    def toggle_plates(self) -> None:
        """F3: name plates over the units on the table, or none."""
        self.show_plates = not self.show_plates
        self._sync_plates()

    def _sync_plates(self) -> None:
        """One billboard name plate per unit standing on the table (none when hidden)."""
        g = self.session
        want = {k for k, st in g.bodies.items() if st.kind == "unit" and not st.damage.destroyed
                and k in g.world.bodies} if self.show_plates else set()
        for k in list(self._plates):
            if k not in want:
                self._plates.pop(k).remove_node()
        for k in sorted(want - set(self._plates)):
            tn = TextNode(f"plate:{k}")
            tn.set_text(g.bodies[k].name)
            tn.set_align(TextNode.ACenter)
            tn.set_text_color(1, 1, 1, 1)
            tn.set_card_color(0, 0, 0, 0.55)
            tn.set_card_as_margin(0.15, 0.15, 0.05, 0.05)
            np_ = self.plates_np.attach_new_node(tn)
            np_.set_billboard_point_eye()
            self._plates[k] = np_

    def _place_plates(self, poses: dict) -> None:
        """Name plates over their units, none over another: nearest the camera's bottom of
        the screen first, a plate that would overlap one already placed is raised (along the
        camera's up) until it clears it. ``plate_rects`` keeps the placed screen boxes
        (centre x, y, half width, half height; tests read them)."""
        scale = max(0.3, self.rig.distance * 0.012)
        cam = self.base.cam
        up = np.asarray(self.base.render.get_relative_vector(cam, LVector3(0, 0, 1)), float)
        right = np.asarray(self.base.render.get_relative_vector(cam, LVector3(1, 0, 0)), float)
        todo = []
        for key, plate in self._plates.items():
            pose = poses.get(key)
            if pose is None:
                plate.hide()
                continue
            plate.show()
            plate.set_scale(scale)
            base = np.asarray(pose[0], float) + [0.0, 0.0, 1.3]
            xy = self.world_to_screen(base)
            todo.append((xy[1] if xy is not None else 9.0, key, plate, base))
        self.plate_rects: list[tuple[float, float, float, float]] = []
        for _, _key, plate, p in sorted(todo, key=lambda t: (t[0], t[1])):
            tn = plate.node()
            half_w = (tn.get_width() / 2 + 0.15) * scale
            line = (tn.get_line_height() + 0.1) * scale
            rect = None
            for _step in range(12):
                c = self.world_to_screen(p)
                r = self.world_to_screen(p + right * half_w)
                t = self.world_to_screen(p + up * line / 2)
                if c is None or r is None or t is None:
                    break
                rect = (c[0], c[1], abs(r[0] - c[0]), abs(t[1] - c[1]))
                if not any(abs(rect[0] - q[0]) < rect[2] + q[2]
                           and abs(rect[1] - q[1]) < rect[3] + q[3] for q in self.plate_rects):
                    break
                p = p + up * line
            if rect is not None:
                self.plate_rects.append(rect)
            plate.set_pos(*map(float, p))

    def toggle_grid(self) -> None:
        self.grid_visible = not self.grid_visible
        if self.grid_visible:
            self.grid_np.show()
        else:
            self.grid_np.hide()

    # ---------------------------------------------------------------- actions
    @property
    def busy(self) -> bool:
        """An action or rebuild is running, or its physics is still being played back."""
        return self.runner.busy or self._playback is not None

    def submit(self, action) -> None:
        """Hand an action to the session on the worker thread; play its physics back."""
        if self.net is not None:  # online: the server numbers it, then every table plays it
            self.net.send_action(action)
            return
        if self.busy:
            self.flash("Wait: physics is still playing out")
            return
        g = self.session
        if self.referee:  # a referee's window is a referee's table: its tools are accepted
            g.referee = True
        self._playback = {"f_start": g.recorder.frame, "cursor": float(g.recorder.frame),
                          "t_start": g.world.time, "n_events": len(g.events),
                          "wall": time.monotonic(), "game": g, "action": action}
        self.runner.start(lambda: g.apply(action))  # victory rules end the game there

    def end_battle(self) -> None:
        """Shift+F8: the players end the battle here (13.3; any game: its Outcome is what its
        victory rules say now). Asks first; a second press ends it."""
        g = self.session
        if g.over:
            self.flash("The game is already over: F8 watches its replay", error=True)
            return
        if self.busy or self.net is not None:
            self.flash("Wait: physics is still playing out" if self.busy else
                       "Online, the server ends the game", error=True)
            return
        if not self._confirm("end_battle", "End the battle here? Shift+F8 again to end it "
                             f"({g.outcome.text})"):
            return
        self._playback = {"f_start": g.recorder.frame, "cursor": float(g.recorder.frame),
                          "t_start": g.world.time, "n_events": len(g.events),
                          "wall": time.monotonic(), "game": g, "action": None}
        self.runner.start(g.finish)

    #: How the replay viewer is started (argv → None); tests replace it.
    launch: Callable[[list[str]], object] = staticmethod(
        lambda argv: __import__("subprocess").Popen(argv))

    def undo(self) -> None:
        if self.net is not None:  # online: only by agreement of the other seats
            self.net.undo_key()
            return
        if self.busy:
            self.flash("Wait: physics is still playing out")
            return
        if not self.session.actions:
            self.flash("Nothing to undo")
            return
        self._after = "undo"
        self.runner.start(self.session.undo)

    def screenshot(self, path: str | Path | None = None) -> Path:
        """Write the current frame as a PNG; returns the path."""
        if path is None:
            self.screenshot_dir.mkdir(parents=True, exist_ok=True)
            self._shots += 1
            stamp = time.strftime('%Y%m%d-%H%M%S')
            path = self.screenshot_dir / f"tabletop-{stamp}-{self._shots}.png"
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.base.graphicsEngine.render_frame()
        tex = self.base.win.get_screenshot()
        if tex is None or not tex.write(str(path)):
            raise SandboxError(f"could not write a screenshot to {path}")
        return path

    def frame_array(self) -> np.ndarray:
        """The last drawn frame as (height, width, 3) uint8 RGB, row 0 at the top."""
        tex = self.base.win.get_screenshot()
        data = np.frombuffer(bytes(tex.get_ram_image_as("RGB")), np.uint8)
        return data.reshape(tex.get_y_size(), tex.get_x_size(), 3)[::-1].copy()

    # ---------------------------------------------------------------- online play (sandbox.net)
    def ready_for_remote(self) -> bool:
        """No action, rebuild or playback running, and the last one's result taken."""
        return not self.busy and self.runner._thread is None

    def run_remote(self, fn: Callable[[], object]) -> None:
        """Run a change that came from the server like a local action: on the worker, its
        physics played back from the recording."""
        g = self.session
        self._playback = {"f_start": g.recorder.frame, "cursor": float(g.recorder.frame),
                          "t_start": g.world.time, "n_events": len(g.events),
                          "wall": time.monotonic(), "game": g, "action": None}
        self.runner.start(fn)

    def adopt(self, game: GameSession) -> None:
        """Show ``game`` instead of the session (a resync loaded the server's save)."""
        self.session = game
        self._generation = -1
        self._mark_saved()
        self._sync_from_session()

    # ---------------------------------------------------------------- per frame
    def _finish_runner(self) -> None:
        r = self.runner
        after = getattr(self, "_after", None)
        self._after = None
        if after == "load" and r.error is None:
            old = self.session
            self.session = r.result
            old.close()
            self.flash(f"Loaded {shown_path(getattr(self, '_loading', self.save_path))}", ok=True)
            self._generation = -1
            self._mark_saved()
        elif after == "undo" and r.error is None:
            self.flash(f"Undid: {self.session.describe(r.result)}", ok=True)
        if r.error is not None:
            if isinstance(r.error, SandboxError):
                # a player's action has no script index: drop the "actions[i]: " of a refusal
                self.flash(re.sub(r"^actions\[\d+\]:\s*", "", str(r.error)), 6.0, error=True)
            else:
                raise r.error
            if self._playback is not None:
                self._playback = None
        self._sync_from_session()

    def _poses_now(self, now: float) -> dict:
        pb = self._playback
        if pb is None:
            return self._live
        g = pb["game"]
        newest = g.recorder.frame - 1
        want = pb["f_start"] + (now - pb["wall"]) * PLAYBACK_FPS
        pb["cursor"] = max(pb["f_start"], min(want, float(newest)))
        frame = int(pb["cursor"])
        poses = dict(self._live)
        for key, tr in list(g.recorder.tracks.items()):
            n = min(len(tr.frames), len(tr.positions), len(tr.quats))
            if n == 0:
                continue
            idx = int(np.searchsorted(np.asarray(tr.frames[:n]), frame, side="right")) - 1
            if idx < 0:
                continue
            poses[key] = (tr.positions[idx], tr.quats[idx])
        if not self.runner.busy and pb["cursor"] >= newest:
            self._playback = None
        return poses

    def _frame_task(self, task):
        now = time.monotonic()
        if not self.runner.busy and self._pending_finish():
            self._finish_runner()
        g = self.session
        for key, asset in list(g.assets.items()):
            if key not in self._nodes:
                self._add_body_node(key, asset)
        poses = self._poses_now(now)
        if self._playback is None and self._was_playing:
            self._sync_from_session()
            poses = self._live
        self._was_playing = self._playback is not None
        if not self.busy:
            self.input.home.tick()  # the game's own step (a computer seat's next action)
        for key, np_ in self._nodes.items():
            pose = poses.get(key)
            if pose is None or (not self.busy and key not in self.session.world.bodies):
                np_.hide()
                continue
            np_.show()
            (x, y, z), (qx, qy, qz, qw) = pose
            np_.set_pos_quat(LPoint3(x, y, z), LQuaternion(qw, qx, qy, qz))
            if key == self.selected:
                np_.set_color_scale(*_HIGHLIGHT_SCALE)
            else:
                np_.clear_color_scale()
        if self._plates:
            self._place_plates(poses)
        if self.overlays_dirty and not self.busy:
            self._draw_overlays()
        elif self.busy and self.markers_np.get_num_children():
            self.markers_np.node().remove_all_children()
            self.ruler_label.node().set_text("")
        cam = self.base.camera
        cam.set_pos(LPoint3(*self.rig.eye()))
        up = LVector3(0, 0, 1)
        if self.rig.pitch > 89.0:
            y = math.radians(self.rig.yaw)
            up = LVector3(-math.sin(y), math.cos(y), 0)
        cam.look_at(LPoint3(*self.rig.target), up)
        dist = self.rig.distance
        self.base.camLens.set_near_far(max(0.1, dist * 0.02), dist * 4 + 200)
        m = self._mouse()
        if m is not None and (self.input.press is not None
                              or self.input.current.tracks_pointer):
            if m != self.input.last_pointer:
                self.input.pointer_move(*m)
        self._layout()
        self._update_hud(now)
        self._frames += 1
        if self._frames == 2 and self._ready is not None:  # the first frame was drawn
            r = self._ready
            write_ready(r["path"], **{k: v for k, v in r.items() if k not in ("path", "t0")},
                        table_s=round(time.monotonic() - r["t0"], 3))
        return task.cont

    def _pending_finish(self) -> bool:
        # the runner finished since the last frame and its result has not been taken yet
        if self.runner._thread is not None and self.runner.done:
            self.runner._thread = None
            return True
        return False

    def name_of(self, key) -> str:
        """The name players see of body ``key`` (the key itself for no body of the game)."""
        st = self.session.bodies.get(key) if isinstance(key, str) else None
        return st.name if st is not None else str(key)

    # ---------------------------------------------------------------- running
    def step(self, frames: int = 1) -> None:
        """Draw ``frames`` frames (tests and benchmarks drive the loop with this)."""
        for _ in range(frames):
            self.base.taskMgr.step()

    def wait_idle(self, timeout: float = 60.0) -> None:
        """Draw frames until no action runs and its playback has ended.

        Raises
        ------
        TimeoutError
        """
        t0 = time.monotonic()
        while True:
            self.step()
            if not self.busy and not self.runner._thread:
                self.step()
                return
            if time.monotonic() - t0 > timeout:
                raise TimeoutError(f"the tabletop was still busy after {timeout} s")

    def run(self) -> None:
        """The interactive main loop (returns when the window closes)."""
        self.base.run()

    def destroy(self) -> None:
        self.runner.join()
        self.base.taskMgr.remove("sandbox-frame")  # the task manager outlives this ShowBase
        self.session.close()
        self.base.destroy()
        from panda3d.core import unloadPrcFile

        unloadPrcFile(self._prc)


