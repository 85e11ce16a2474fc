"""The desktop virtual tabletop: a Panda3D window on a hotseat :class:`~sandbox.engine.game.Game`.

Structure
---------
- :class:`~sandbox.engine.game.Game` (``sandbox.engine.game``) holds the game: turns, actions,
  undo, saves.
  The window never changes game state except by handing it an action.
- :class:`InputLayer` is the one entry point for input: the mouse and keyboard handlers call
  it, and so do tests (``pointer_down/move/up``, ``key``, ``wheel``), so what a test does is
  what a player does.
- the camera (``self.rig``) is :class:`sandbox.render.orbit_camera.OrbitCamera`: orbit, pan,
  zoom about a target point; top-down view; focus.
- :class:`TabletopApp` (a ShowBase) draws bodies from poses, overlays (rulers, sight lines,
  Firing Arc fans, explosion rings, target X, drop trajectory) as render Markers, and a HUD:
  turn banner, stat card, attack preview, log panel, help line.

Physics is never stepped in the draw: an action runs on a worker thread (pybullet in DIRECT
mode at its fixed time step), recording poses at 60 frames per simulated second; the draw task
plays the recorded frames back against the wall clock (an accumulator over real elapsed
time), showing the newest frame physics has reached, so a frame never waits on physics. Log
lines appear when playback reaches their simulated time: physics plays out, then the rules.

Units: inches, Z up. Screen coordinates handed to the input layer are Panda3D's mouse
coordinates: x and y in [-1, 1], +y up.
"""

from __future__ import annotations

import math
import re
import threading
import time
from pathlib import Path
from typing import Callable

import numpy as np
from panda3d.core import (  # noqa: E402  (after offscreen's prc page, which we override)
    AntialiasAttrib,
    ClockObject,
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
    loadPrcFileData,
)

from ..core.errors import SandboxError
from ..engine.actions import EndTurnAction, MoveAction, action_dict
from ..engine.game import Game as GameSession
from ..games.brikwars.scene_flight import LaunchAction
from ..games.brikwars.skirmish import possessive
from ..render import geometry, shaders
from ..render import offscreen as _offscreen  # the shared scene-building helpers
from ..render.escapade_markers import escapade_markers
from ..render.from_game import render_mesh_of
from ..render.hazard_markers import hazard_markers
from ..render.orbit_camera import OrbitCamera
from ..render.view import Marker
from ..rules.collision import COLLISION_MIN_SPEED_IN_S
from .brigandine_input import BrigandineOrders
from .commands import (
    CLOSE_COMBAT_MOVES,
    COMMAND_HELP,
    INTERACTIONS,
    MISSILE_VARIANTS,
    CommandRefused,
    TableCommands,
)
from .mbw_input import MbwInput
from .table_hands import SlotDialog, TextEntry, slot_name, tools_markers

#: Points of Firing Arc are the spaces between outstretched fingers (BrikWars 8.3); one space
#: is read as 15 degrees.
ARC_POINT_DEG: float = 15.0
#: Recorded frames per simulated second (runner: 480 Hz physics, a frame every 8 steps).
PLAYBACK_FPS: float = 60.0
#: Pointer travel (mouse units) before a press becomes a drag.
DRAG_THRESHOLD: float = 0.01
#: How many log events the panel shows at most (fewer when long lines wrap).
LOG_LINES: int = 14
#: Screen height (y in [-1, 1]) above which a label on the table would cover the turn banner.
LABEL_TOP_Y: float = 0.62
#: Seconds between two frames of the loading screen while the table's models are built.
LOADING_EVERY_S: float = 0.25
#: Share of the window's width the log column takes, beside (not over) the table.
LOG_COLUMN: float = 0.32
#: Colour of the log column.
COLUMN_COLOUR = (0.10, 0.12, 0.17, 1.0)
#: Event types the log panel leaves out (bookkeeping and filler rather than play).
_QUIET_EVENTS = {"body", "setup", "warning", "rest"}
#: The log panel's filters (F2 cycles): every line, dice and Damage, physics impacts.
LOG_FILTERS = ("all", "dice & Damage", "impacts")
_DICE_EVENTS = {"roll", "action_roll", "damage", "destroyed", "armor", "attack", "explosion",
                "knockback", "fire"}
#: Message colours: refusals and errors red, things done green, hints white.
FLASH_COLOURS = {"error": (1.0, 0.45, 0.4, 1.0), "ok": (0.55, 1.0, 0.55, 1.0),
                 "info": (1.0, 1.0, 1.0, 1.0)}

_HIGHLIGHT_SCALE = _offscreen._HIGHLIGHT_SCALE
_HIGHLIGHT_EDGE = _offscreen._HIGHLIGHT_EDGE
#: Seeds the window's ``O`` runs for the odds of a previewed action.
ODDS_SEEDS = 50
_SHADOW_MASK = _offscreen._SHADOW_MASK
_VIEW_MASK = _offscreen._VIEW_MASK


def _window_prc(width: int, height: int, title: str, offscreen: bool):
    """Settings for a real window; loaded after (and so over) the offscreen renderer's page.
    Returns the page (unloaded again by :meth:`TabletopApp.destroy`)."""
    return loadPrcFileData("sandbox.tabletop", "\n".join([
        "load-display pandagl",
        "aux-display p3headlessgl",
        f"window-type {'offscreen' if offscreen else 'onscreen'}",
        f"win-size {int(width)} {int(height)}",
        f"window-title {title}",
        "audio-library-name null",
        "sync-video false",
        "framebuffer-multisample true",
        "multisamples 4",
        "notify-level-device fatal",
        "notify-level-display error",
        "model-cache-dir",
        "textures-power-2 none",
    ]))


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


# ------------------------------------------------------------------------------ input layer
class InputLayer:
    """The single place input goes through (mouse, keyboard, tests).

    Modes: ``select`` (click to select, drag your own unit to move it), ``measure`` (click
    two things: ruler and line of sight), ``attack`` (after choosing a weapon with 1-9: point
    at a target to preview, click it to fire), ``drop`` (The Big Drop, a Strategic Bombardment
    Marked by the player's Scout: click a point, Enter; it falls at the player's next turn).
    """

    HELP = ("click: select   drag your unit: move (S: Sprint)   1-9: weapon, click: aim, "
            "again: fire\n"
            "M: measure & line of sight   B: Big Drop   L: Launcher   Enter: confirm   "
            "Esc: cancel   E: end turn\n"
            "O: odds of the previewed action   U: undo   F5: save   F9: load   P: screenshot   "
            "G: grid\n"
            "log: wheel over it scrolls, F2 filter (all / dice & Damage / impacts)   "
            "/ search   F3: name plates   F4: edge lines\n"
            "T: top view   F: focus   "
            "right-drag/arrows: orbit   shift+right-drag: pan   wheel: zoom   H: hide help\n"
            + COMMAND_HELP + "\n"
            "Q: quit")

    def __init__(self, app: "TabletopApp"):
        self.app = app
        self.mode = "select"
        self.weapon: int | None = None
        self.sprint = False
        self.press: tuple[int, float, float] | None = None
        self.dragging = False
        self.drag_unit: str | None = None
        self.drag_to: np.ndarray | None = None
        self.measure_from = None
        self.measure_to = None
        #: Where the pointer is while the second point of a measure is chosen (live ruler).
        self.measure_hover: np.ndarray | None = None
        self.hover_target: str | None = None
        #: The target the first click aimed at (the second click on it fires).
        self.aimed: str | None = None
        self.drop_point: np.ndarray | None = None
        self.drop_bricks = 1
        self.launcher: str | None = None
        self.launch_aim: np.ndarray | None = None
        self.launch_body: str | None = None
        self.last_pointer = (0.0, 0.0)
        self.shift = False
        self._brig: BrigandineOrders | None = None
        #: A move waiting for Enter because it would fall more than 1".
        self.pending_move = None
        #: Builds the command keys' engine actions (relay, declare, bombard, throw, ...).
        self.cmd = TableCommands(app)
        #: Radius (inches) of the template shift-T lays ([ and ] change it).
        self.template_radius = 2.0
        #: The first point of a ruler being laid (shift-M), then the pointer's point.
        self.ruler_from: np.ndarray | None = None
        self.template_hover: np.ndarray | None = None
        #: ``pick`` mode: what a click on a body builds (a prompt and a function of the hit).
        self.pick_prompt = ""
        self.pick_fn: Callable | None = None
        #: ``strike`` mode (A: Strategic Bombardment, V: missile strike): kind, point, dice.
        self.strike_kind = "bombard"
        self.strike_point: np.ndarray | None = None
        self.strike_dice = 1
        #: The missile's Explosive Variant (Tab in ``strike`` mode, 8.4): its d10s swapped.
        self.strike_variant = "explosive"
        #: The chosen fire mode of the weapon in ``attack`` mode (Tab; None: its default).
        self.fire_mode: str | None = None
        #: The verb of K (interact): touch, push, pull, ...
        self.interaction = "touch"
        #: The Close Combat move of ; (8.2) and the target its preview is showing.
        self.cc_move = CLOSE_COMBAT_MOVES[0]
        self.cc_target: str | None = None

    @property
    def brig(self) -> BrigandineOrders | None:
        """The Brigandine gestures of this session (None: a BrikWars game)."""
        session = self.app.session
        if not BrigandineOrders.plays(session):
            return None
        if self._brig is None or self._brig.game is not session:
            self._brig = BrigandineOrders(session)
        return self._brig

    # ---------------------------------------------------------------- pointer
    def pointer_down(self, button: int, x: float, y: float, shift: bool = False) -> None:
        """A mouse button went down at (x, y) in [-1, 1]. Button 1 left, 2 middle, 3 right."""
        self.press = (button, float(x), float(y))
        self.last_pointer = (float(x), float(y))
        self.shift = shift
        self.dragging = False

    def pointer_move(self, x: float, y: float) -> None:
        """The pointer moved to (x, y); drags move units, orbit or pan the camera."""
        app = self.app
        px, py = self.last_pointer
        self.last_pointer = (float(x), float(y))
        if self.press is None:
            if self.mode == "select" and not app.busy and not app.in_log_column(x):
                hit = app.pick(x, y)
                app.set_tooltip(hit.key if hit is not None and hit.key != "ground" else None, x, y)
            if self.mode == "measure" and self.measure_from is not None \
                    and self.measure_to is None and not app.busy:
                # the live ruler follows the pointer until the second click
                p = app.ground_point(x, y) if not app.in_log_column(x) else None
                if p is not None:
                    self.measure_hover = p
                    app.overlays_dirty = True
                return
            if self.mode == "pick" and not app.busy and (
                    self.ruler_from is not None or self.pick_prompt.startswith("Template")):
                # the ruler or template being laid follows the pointer
                p = app.ground_point(x, y) if not app.in_log_column(x) else None
                if p is not None:
                    self.template_hover = p
                    app.overlays_dirty = True
                return
            if self.mode == "attack" and not app.busy and self.aimed is None:
                hit = app.pick(x, y)
                tgt = hit.key if hit is not None and hit.key != "ground" else None
                if tgt != self.hover_target:
                    self.hover_target = tgt
                    app.overlays_dirty = True
            return
        button, sx, sy = self.press
        if not self.dragging and math.hypot(x - sx, y - sy) > DRAG_THRESHOLD:
            self.dragging = True
            if button == 1 and self.mode == "select" and not app.busy:
                hit = app.pick(sx, sy)
                key = hit.key if hit is not None else None
                if key is not None and key != "ground":
                    sk = app.session.skirmish  # None: a game without BrikWars' Move
                    reason = ("" if key not in app.session.bodies or self.brig is not None else
                              sk.move_refusal(key) if sk is not None else
                              "units are not moved by hand in this game")
                    if not reason:
                        self.drag_unit = key
                        app.select(key)
                    else:
                        app.flash(reason, error=True)
        if not self.dragging:
            return
        if button == 1 and self.drag_unit is not None:
            p = app.ground_point(x, y)
            if p is not None:
                self.drag_to = p
                app.overlays_dirty = True
        elif button == 3 or button == 2:
            if self.shift or button == 2:
                app.rig.pan(-(x - px), -(y - py))
            else:
                app.rig.orbit(-(x - px) * 180.0, -(y - py) * 90.0)

    def pointer_up(self, button: int, x: float, y: float) -> None:
        """A mouse button came up at (x, y): a click or the end of a drag."""
        app = self.app
        self.pointer_move(x, y)
        press, self.press = self.press, None
        if press is None or press[0] != button:
            return
        if self.dragging:
            self.dragging = False
            if button == 1 and self.drag_unit is not None and self.drag_to is not None:
                unit, to = self.drag_unit, self.drag_to
                self.drag_unit, self.drag_to = None, None
                if app.busy:  # something else started meanwhile: never read physics under it
                    app.flash("Wait: physics is still playing out")
                    return
                c = app.session.footprint_centre(unit)
                lo, hi = app.session.bounds(unit)
                # the body follows the pointer by its footprint centre, grabbed where clicked
                grab = app.ground_point(press[1], press[2])
                offset = (c - grab[:2]) if grab is not None else np.zeros(2)
                dest = to[:2] + offset
                if self.brig is not None:  # Brigandine: a half move, or shift-drag a charge
                    app.submit(self.brig.drag(unit, (dest[0], dest[1]), self.shift))
                    return
                esc = getattr(app.session, "escapade", None)
                if esc is not None and self.cmd.off_table(dest):
                    # the Escapade's walk off a friendly edge (withdraw), with what the unit
                    # picked up (C) if anything (13.1 Loot)
                    app.submit(self.cmd.walk(unit, dest, self.sprint))
                    self.sprint = False
                    return
                move = MoveAction(type="move", player=app.session.current_player, unit=unit,
                                  to=(round(float(dest[0]), 4), round(float(dest[1]), 4)),
                                  sprint=self.sprint)
                self.sprint = False
                fall = self.fall_at(unit, dest)
                if fall > 1.0:  # ask first: a fall of more than 1" can hurt (Falling, 5.4)
                    self.pending_move = move
                    app.flash(f'This move falls {fall:.1f}" off its footing: Enter to move '
                              "anyway, Esc to cancel", 10.0, error=True)
                    return
                app.submit(move)
            app.overlays_dirty = True
            return
        if button == 1:
            self.click(x, y)

    def fall_at(self, unit: str, dest) -> float:
        """How far (inches) ``unit`` would drop if set down at ``dest`` (x, y): from the
        height of its feet now to what is under ``dest`` (0 when it stays on its level)."""
        s = self.app.session
        lo, hi = s.bounds(unit)
        if lo[2] < 0.25:
            return 0.0
        a = np.array([dest[0], dest[1], lo[2] + 0.3])
        b = np.array([dest[0], dest[1], -1.0])
        hit = s.pick(a, b)
        if hit is None or hit.key == unit:
            return 0.0
        return max(0.0, float(lo[2] - max(float(hit.point[2]), 0.0)))

    def wheel(self, steps: int) -> None:
        """Zoom: positive steps towards the target; over the log column, scroll the log
        (positive: back to older lines)."""
        if self.app.in_log_column(self.last_pointer[0]):
            self.app.scroll_log(3 * steps)
            return
        self.app.rig.zoom(0.88 ** steps)

    def click(self, x: float, y: float) -> None:
        app = self.app
        if app.busy:
            app.flash("Wait: physics is still playing out")
            return
        hit = app.pick(x, y)
        if app.mbw is not None and self.mode == "select" and app.mbw.click(hit):
            return  # Micro Brick War: squares, not inches
        if self.mode == "measure":
            thing = hit.key if hit is not None and hit.key != "ground" else (
                np.asarray(hit.point) if hit is not None else None)
            if thing is None:
                return
            if self.measure_from is None or self.measure_to is not None:
                self.measure_from, self.measure_to = thing, None
                self.measure_hover = None
            else:
                self.measure_to = thing
            app.overlays_dirty = True
            return
        if self.mode == "drop":
            if hit is not None:
                self.drop_point = np.asarray(hit.point)
                app.overlays_dirty = True
            return
        if self.mode == "strike":
            if hit is not None:
                p = np.asarray(hit.point, float)
                if self.strike_point is not None and np.allclose(p, self.strike_point, atol=0.25):
                    self.strike()
                else:
                    self.strike_point = p
                    app.overlays_dirty = True
            return
        if self.mode == "pick":
            if hit is not None and self.pick_fn is not None:
                fn = self.pick_fn
                try:
                    action = fn(hit)
                except CommandRefused as exc:
                    app.flash(str(exc), error=True)
                    return
                if action is not None:
                    self.set_mode("select")
                    app.submit(action)
            return
        if self.mode == "launch":
            if hit is not None:
                aim, body = self._launch_aim(hit)
                if self.launch_aim is not None and np.allclose(aim, self.launch_aim, atol=0.25):
                    self.fire_launcher()
                else:
                    self.launch_aim, self.launch_body = aim, body
                    app.overlays_dirty = True
            return
        if self.mode == "attack":
            if hit is not None and hit.key != "ground" and app.selected is not None:
                # one click aims (the preview stays on the target), one more fires
                if self.aimed == hit.key:
                    self.fire(hit.key)
                else:
                    self.aimed = self.hover_target = hit.key
                    app.flash(f"Aimed at {app._name(hit.key)}: click it again or Enter to fire, "
                              "Esc to cancel")
                    app.overlays_dirty = True
            return
        key = hit.key if hit is not None and hit.key != "ground" else None
        if (self.brig is not None and key is not None and app.selected is not None
                and self.brig.is_enemy(key)):
            order = self.brig.click(app.selected, key)
            if order is not None:
                app.submit(order)
                return
            if self.brig.phase == 2 and key != app.selected:
                app.flash(f"Artillery target: {app.session.body(key).name}")
                return
        app.select(key)

    def fire(self, target: str) -> None:
        app = self.app
        if app.selected is None or self.weapon is None:
            return
        app.submit(self.cmd.attack(app.selected, self.weapon, target, self.fire_mode))
        self.set_mode("select")

    # ---------------------------------------------------------------- the players' own hands
    def entry_key(self, n: str) -> None:
        """A key while a typed box is open: Enter, Esc and Backspace edit it; the characters
        come from the window's keystroke events (:meth:`TabletopApp.keystroke`)."""
        app = self.app
        entry = app.entry
        if n == "enter":
            app.entry = None
            entry.on_enter(entry.text)
        elif n == "escape":
            app.entry = None
            if entry.on_escape is not None:
                entry.on_escape()
        elif n == "backspace":
            entry.backspace()

    def hands_key(self, n: str) -> bool:
        """The players' own hands (:mod:`sandbox.engine.table_tools`): the log search, the dice
        tray, done marks, rulers and templates, saved-game slots. True when ``n`` was one."""
        app = self.app
        if n in ("/", "control-f"):
            before = app.log_search
            app.open_entry(TextEntry("search", "Search the log: ", lambda t: None,
                                     on_change=app.set_log_search,
                                     on_escape=lambda: app.set_log_search(""), text=before))
        elif n == "shift-r":
            app.open_entry(TextEntry("dice", "Dice tray (e.g. 2d6, 1d10+1d4): ",
                                     lambda t: self.command(lambda: self.cmd.roll_dice(t))))
        elif n == "f6":
            app.open_entry(TextEntry("slot", "Save as (slot name): ", app.save_slot,
                                     text=app.session.spec.name[:30]))
        elif n == "f7":
            app.open_slots()
        elif n == "shift-e":
            self.command(self.cmd.mark_done)
        elif n == "shift-m":
            def second(hit):
                return self.cmd.ruler(self.ruler_from, hit.point)

            def first(hit):
                self.begin_pick("Ruler: click the second point (it stays on the table)", second)
                self.ruler_from = np.asarray(hit.point, float)
                return None

            self.begin_pick("Ruler: click the first point", first)
        elif n == "shift-c":
            self.begin_pick("Template: click its centre ([ ] radius)",
                            lambda h: self.cmd.template(h.point, self.template_radius))
            self.template_hover = None
        elif n == "delete":
            self.begin_pick("Remove: click one of your rulers or templates",
                            lambda h: self.cmd.remove_marker_near(h.point))
        else:
            return False
        return True

    def command(self, build: Callable[[], object]) -> None:
        """Build a command key's action and hand it to the session (or say why not)."""
        try:
            action = build()
        except CommandRefused as exc:
            self.app.flash(str(exc), error=True)
            return
        self.app.submit(action)

    def begin_pick(self, prompt: str, fn: Callable) -> None:
        """``pick`` mode: the next click on a body builds an action with ``fn(hit)``."""
        self.set_mode("pick")
        self.pick_prompt, self.pick_fn = prompt, fn
        self.app.flash(prompt)

    def _body_hit(self, hit, what: str) -> str:
        if hit is None or hit.key == "ground" or hit.key not in self.app.session.bodies:
            raise CommandRefused(f"{what}: click a model on the table")
        return hit.key

    def strike(self) -> None:
        """Call the Strategic Bombardment (A) or the missile strike (V) at the strike point."""
        if self.strike_point is None:
            self.app.flash("Click the target point first", error=True)
            return
        p = self.strike_point
        self.set_mode("select")
        self.command(lambda: self.cmd.bombard(p, self.strike_dice)
                     if self.strike_kind == "bombard"
                     else self.cmd.missile(p, self.strike_dice, self.strike_variant))

    def _close_combat(self, move: str, hit):
        """First click on a target: the preview of the move, every modifier (8.2); a second
        click on the same target: the action."""
        target = self._body_hit(hit, "Close Combat")
        if target != self.cc_target:
            self.cc_target = target
            lines = self.cmd.close_combat_preview(move, target, self.weapon)
            self.app.flash("\n".join(lines), seconds=12.0)
            return None
        return self.cmd.close_combat(move, target, self.weapon)

    def _throw_payload(self, hit):
        payload = self._body_hit(hit, "Throw")
        self.begin_pick(f"Throw {self.app._name(payload)}: click where it should land",
                        lambda h: self._throw_at(payload, h))
        return None

    def _throw_at(self, payload: str, hit):
        aim, body = self._launch_aim(hit)
        return self.cmd.throw(payload, aim, body)

    def _launch_aim(self, hit) -> tuple[np.ndarray, str | None]:
        """Aim point of a Launcher at what was clicked: a body's top centre (plus 1", over
        cover), or the point on the ground."""
        if hit.key != "ground" and hit.key in self.app.session.bodies:
            lo, hi = self.app.session.bounds(hit.key)
            return np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, hi[2] + 1.0]), hit.key
        p = np.asarray(hit.point, float)
        return np.array([p[0], p[1], max(p[2], 0.0)]), None

    def previewed_action(self):
        """The action the current preview would play (an attack on the hovered target, a
        Launcher shot at the aim point, a Big Drop at the drop point), or None."""
        app = self.app
        if self.mode == "attack" and self.hover_target is not None and app.selected is not None \
                and self.weapon is not None:
            return self.cmd.attack(app.selected, self.weapon, self.hover_target, self.fire_mode)
        if self.mode == "launch" and self.launcher is not None and self.launch_aim is not None:
            return self._launch_action()[0]
        if self.mode == "drop" and self.drop_point is not None:
            try:
                return self._big_drop()
            except CommandRefused:
                return None
        if self.mode == "strike" and self.strike_kind == "bombard" \
                and self.strike_point is not None:
            try:
                return self.cmd.bombard(self.strike_point, self.strike_dice)
            except CommandRefused:
                return None
        return None

    def _big_drop(self):
        """B: The Big Drop of ``drop_bricks`` d10 Explosive at the drop point, a Strategic
        Bombardment (13.2) Marked by the player's Scout (the selected one, else one who can)."""
        return self.cmd.bombard(self.drop_point, self.drop_bricks, big_drop=True)

    def fire_launcher(self) -> None:
        """Fire the chosen Launcher at the aim point through the session (8.4)."""
        app = self.app
        if self.launcher is None or self.launch_aim is None:
            return
        action, reason = self._launch_action()
        if action is None:
            app.flash(reason, error=True)
            return
        app.submit(action)
        self.set_mode("select")

    def _launch_action(self) -> tuple[LaunchAction | None, str]:
        """The Launcher shot at the aim point (8.4), or None and the preview's reason."""
        s = self.app.session
        pv = s.flight.launch_preview(self.launcher, self.launch_aim, target_body=self.launch_body)
        if not pv.allowed:
            return None, pv.reason
        return LaunchAction(type="launch", player=s.current_player, turn=s.turn,
                            weapon=self.launcher, payload=list(pv.payload),
                            target=tuple(round(float(v), 4) for v in pv.target),
                            target_body=self.launch_body), ""

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        if mode != "launch":
            self.launcher = None
            self.launch_aim = self.launch_body = None
        self.aimed = None
        if mode != "select" and hasattr(self.app, "tooltip"):
            self.app.tooltip.setText("")
        if mode != "attack":
            self.weapon = None
            self.hover_target = None
        if mode != "measure":
            self.measure_from = self.measure_to = None
            self.measure_hover = None
        if mode != "drop":
            self.drop_point = None
        if mode != "strike":
            self.strike_point = None
        if mode != "pick":
            self.pick_prompt, self.pick_fn = "", None
            self.ruler_from = self.template_hover = None
        if mode != "attack":
            self.fire_mode = None
        self.app.overlays_dirty = True

    # ---------------------------------------------------------------- keys
    def key(self, name: str) -> None:
        """A key press, by Panda3D's key name ('e', 'enter', 'escape', 'f5', '1', ...)."""
        app = self.app
        n = name.lower()
        if app.entry is not None:  # a typed box is open: keys edit it
            self.entry_key(n)
            return
        if app.slot_dialog is not None:
            if n in ("escape", "f7"):
                app.slot_dialog.close()
            return
        if self.hands_key(n):
            return
        brig = self.brig
        if brig is not None and (n in ("i", "d", "r", "w", "enter") or n.isdigit()):
            order = brig.key(n, app.selected)
            if order is not None:
                app.submit(order)
            elif n.isdigit() and brig.phase == 2 and app.selected is not None:
                app.flash("Declares: "
                          f"{', '.join(brig.declaring.get(app.selected, [])) or 'nothing'}"
                          " (Enter: declare, hidden)")
            elif n.isdigit() and brig.phase == 5:
                app.flash(f"Melee by {brig.system.replace('_', '-')}: click an enemy")
            return
        if app.mbw is not None and app.mbw.key(n):
            return
        if n == "enter" and self.pending_move is not None:
            move, self.pending_move = self.pending_move, None
            app.submit(move)
            return
        if n == "escape" and self.pending_move is not None:
            self.pending_move = None
            app.flash("Move cancelled")
            return
        if n == "escape":
            if self.drag_unit is not None or self.press is not None:
                moving = self.drag_unit is not None
                self.press, self.dragging = None, False
                self.drag_unit, self.drag_to = None, None
                app.overlays_dirty = True
                if moving:
                    app.flash("Move cancelled")
            elif self.mode != "select" or self.sprint:
                self.sprint = False
                self.set_mode("select")
            elif app.log_search:
                app.set_log_search("")
                app.flash("Log search cleared")
            elif app.selected is not None:
                app.select(None)
            else:  # nothing left to cancel: Esc never quits (a second Esc too many would)
                app.flash("Nothing to cancel (Q quits)")
        elif n == "q":
            app.quit()
        elif n in ("arrow_left", "arrow_right"):
            app.rig.orbit(-10 if n == "arrow_left" else 10, 0) if not self.shift else \
                app.rig.pan(-0.1 if n == "arrow_left" else 0.1, 0)
        elif n in ("arrow_up", "arrow_down"):
            app.rig.orbit(0, 5 if n == "arrow_up" else -5) if not self.shift else \
                app.rig.pan(0, 0.1 if n == "arrow_up" else -0.1)
        elif n in ("page_up", "+", "="):
            self.wheel(1)
        elif n in ("page_down", "-"):
            self.wheel(-1)
        elif n == "t":
            bf = app.session.spec.battlefield
            top = app.rig.toggle_top(bf.width, bf.depth, app.view_aspect)
            app.overlays_dirty = True
            app.flash("Top view (T: back to 3D)" if top else "3D view")
        elif n == "f":
            if app.selected is not None and not app.busy:
                lo, hi = app.session.bounds(app.selected)
                app.rig.focus((lo + hi) / 2)
        elif n == "g":
            app.toggle_grid()
        elif n == "h":
            app.show_help = not app.show_help
        elif n == "p" or n == "f12":
            app.flash(f"Screenshot saved to {shown_path(app.screenshot())}", ok=True)
        elif n == "m":
            self.set_mode("select" if self.mode == "measure" else "measure")
        elif n == "s":
            self.sprint = not self.sprint
            app.flash("Sprint on: the next move rolls the Action die for extra inches"
                      if self.sprint else "Sprint off")
            app.overlays_dirty = True
        elif n == "b":
            self.set_mode("select" if self.mode == "drop" else "drop")
            if self.mode == "drop":
                app.flash("The Big Drop: select your Scout, click the point, [ ] bricks, Enter")
        elif n == "l":
            if self.mode == "launch":
                self.set_mode("select")
                return
            ms = app.session.flight.launchers()
            if not ms:
                app.flash(f"{app.session.current_player} has no Launcher on the table "
                          "(A: Strategic "
                          "Bombardment, V: missile strike, B: The Big Drop)", error=True)
                return
            self.set_mode("launch")
            self.launcher = ms[0].id
            app.flash(f"{ms[0].id}: click a target (an X beyond 12\"), click again or Enter "
                      "to fire")
        elif n in ("[", "]") and self.mode == "drop":
            self.drop_bricks = int(np.clip(self.drop_bricks + (1 if n == "]" else -1), 1, 6))
            app.overlays_dirty = True
        elif n in ("[", "]") and self.mode == "pick" and self.pick_prompt.startswith("Template"):
            self.template_radius = float(np.clip(self.template_radius + (1 if n == "]" else -1),
                                                 1, 12))
            app.overlays_dirty = True
        elif n in ("[", "]") and self.mode == "strike":
            self.strike_dice = int(np.clip(self.strike_dice + (1 if n == "]" else -1), 1, 40))
            app.overlays_dirty = True
        elif n in ("a", "v"):
            kind = "bombard" if n == "a" else "missile"
            if self.mode == "strike" and self.strike_kind == kind:
                self.set_mode("select")
                return
            self.set_mode("strike")
            self.strike_kind = kind
            app.flash(("Strategic Bombardment" if kind == "bombard" else "Missile strike")
                      + ": click the target point, [ ] dice, click again or Enter")
        elif n == "f10":
            if app.selected is None:
                app.flash("Swap: select one of the two units first (13.2 Tactical Advantage)",
                          error=True)
                return
            self.begin_pick("Swap: click the other unit (13.2 Tactical Advantage)",
                            lambda h: self.cmd.swap(self._body_hit(h, "Swap")))
        elif n == "f11":
            if app.selected is None:
                app.flash("Ambush: select the unit first (13.2 Tactical Advantage)", error=True)
                return

            def ambush(hit):
                if hit is None:
                    raise CommandRefused("Ambush: click a point on the table")
                return self.cmd.ambush(hit.point)

            self.begin_pick("Ambush: click where the unit sets up (13.2)", ambush)
        elif n == "r":
            self.command(self.cmd.relay)
        elif n == "n":
            self.command(self.cmd.reinforce)
        elif n == "x":
            self.command(lambda: self.cmd.declare("losing_battle"))
        elif n == "z":
            self.command(lambda: self.cmd.declare("concede"))
        elif n == "c":
            if app.selected is None:
                app.flash("Pick up: select one of your units first", error=True)
                return
            if self.mode == "pick" and self.pick_prompt.startswith("Put down"):
                self.set_mode("select")  # C twice: put it down where it is
                self.command(self.cmd.put_down)
                return
            held = app.session.tools.held(app.selected)
            if held is not None:  # C again: put it down where the next click says
                self.begin_pick(f"Put down {app._name(held)}: click a point within 1\" "
                                "(C again: where it is)", lambda h: self.cmd.put_down(h.point))
                return
            self.begin_pick("Pick up: click the loose object (within 1\"; it then travels "
                            "with every move)",
                            lambda h: self.cmd.pick_up(self._body_hit(h, "Pick up")))
        elif n == "j":
            if app.selected is None:
                app.flash("Throw: select one of your units first", error=True)
                return
            self.begin_pick("Throw: click the object to throw", self._throw_payload)
        elif n == "i":
            self.begin_pick("Ignite: click what to set on fire (1d4 Fire)",
                            lambda h: self.cmd.ignite(self._body_hit(h, "Ignite")))
        elif n == "k":
            if app.selected is None:
                app.flash("Interact: select one of your units first", error=True)
                return
            # K again changes the verb (a Trap answers only its own interaction, F.2)
            if self.mode == "pick" and self.pick_prompt.startswith("Interact"):
                i = INTERACTIONS.index(self.interaction) if self.interaction in INTERACTIONS else -1
                self.interaction = INTERACTIONS[(i + 1) % len(INTERACTIONS)]
            else:
                self.interaction = INTERACTIONS[0]
            verb = self.interaction
            self.begin_pick(f"Interact ({verb}; K: another verb): click the lever, door or object",
                            lambda h: self.cmd.interact(self._body_hit(h, "Interact"), verb))
        elif n == "y":
            if app.selected is None:
                app.flash("Mark: select your Scout first", error=True)
                return
            self.begin_pick("Mark: click the target to Mark",
                            lambda h: self.cmd.mark(self._body_hit(h, "Mark")))
        elif n in (",", "."):
            self.command(lambda: self.cmd.face(45.0 if n == "," else -45.0))
        elif n == ";":
            if app.selected is None:
                app.flash("Close Combat: select one of your units first", error=True)
                return
            # ; again changes the move (8.2): Shove, Grab, Angry Inch
            if self.mode == "pick" and self.pick_prompt.startswith("Close Combat"):
                i = CLOSE_COMBAT_MOVES.index(self.cc_move)
                self.cc_move = CLOSE_COMBAT_MOVES[(i + 1) % len(CLOSE_COMBAT_MOVES)]
            else:
                self.cc_move = CLOSE_COMBAT_MOVES[0]
            self.cc_target = None
            move = self.cc_move
            self.begin_pick(f"Close Combat ({move.replace('_', ' ')}; ; another move): click "
                            "the target to preview, again to do it",
                            lambda h: self._close_combat(move, h))
        elif n == "'":
            self.command(lambda: self.cmd.parry(self.weapon))
        elif n == "d":
            self.command(self.cmd.stop_drop_roll)
        elif n == "shift-d":
            self.command(self.cmd.divert_power)
        elif n in ("shift-t", "shift-g", "shift-i"):
            if app.selected is None:
                app.flash("Select one of your minifigs first", error=True)
                return
            what = {"shift-t": "Set Up: click the Turret",
                    "shift-g": "Gunnery Support: click the weapon's Creation or Turret",
                    "shift-i": "Interfere: click the weapon's Creation or Turret"}[n]
            build = {"shift-t": lambda k: self.cmd.set_up_turret(k),
                     "shift-g": lambda k: self.cmd.gunnery_support(k, self.weapon),
                     "shift-i": lambda k: self.cmd.interfere(k, self.weapon)}[n]
            self.begin_pick(what, lambda h: build(self._body_hit(h, what.split(":")[0])))
        elif n == "w":
            self.command(lambda: self.cmd.reload(self.weapon))
        elif n == "tab" and self.mode == "strike" and self.strike_kind == "missile":
            i = MISSILE_VARIANTS.index(self.strike_variant)
            self.strike_variant = MISSILE_VARIANTS[(i + 1) % len(MISSILE_VARIANTS)]
            app.flash(f"Missile: {self.cmd.missile_dice(self.strike_dice, self.strike_variant)}")
            app.overlays_dirty = True
        elif n == "tab" and self.mode == "attack" and app.selected is not None:
            modes = self.cmd.fire_modes(app.selected, self.weapon)
            i = modes.index(self.fire_mode) if self.fire_mode in modes else 0
            self.fire_mode = modes[(i + 1) % len(modes)]
            app.flash(f"Fire mode: {self.fire_mode or 'the weapon default'}")
            app.overlays_dirty = True
        elif n.isdigit() and n != "0":
            if app.selected is None:
                app.flash("Select one of your units first")
                return
            ws = app.session.skirmish.weapons(app.selected)
            i = int(n) - 1
            if i >= len(ws):
                app.flash(f"{app.session.body(app.selected).name} has {len(ws)} weapon(s)")
                return
            self.set_mode("attack")
            self.weapon = i
            app.flash(f"{ws[i].name}: click a target to aim, click it again (or Enter) to fire")
        elif n == "enter":
            if self.mode == "attack" and self.hover_target is not None:
                self.fire(self.hover_target)
            elif self.mode == "launch" and self.launch_aim is not None:
                self.fire_launcher()
            elif self.mode == "drop" and self.drop_point is not None:
                self.command(self._big_drop)
                self.set_mode("select")
            elif self.mode == "strike":
                self.strike()
        elif n == "f3":
            app.toggle_plates()
        elif n == "f4":
            app.toggle_edges()
        elif n == "f2":
            app.log_filter = LOG_FILTERS[(LOG_FILTERS.index(app.log_filter) + 1) % len(LOG_FILTERS)]
            app.log_scroll = 0
            app.flash(f"Log: {app.log_filter}")
        elif n == "o":
            action = self.previewed_action()
            if action is None:
                app.flash("O: aim an attack, a Launcher shot or a Big Drop first, then O for "
                          "its odds", error=True)
                return
            app.start_odds(action)
        elif n == "e":
            app.submit(EndTurnAction(type="end_turn", player=app.session.current_player))
        elif n == "u":
            app.undo()
        elif n == "f5":
            app.save()
        elif n == "f9":
            app.load()


# ------------------------------------------------------------------------------ the app
class TabletopApp:
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
    shadows : bool
    """

    #: What flashed messages and questions expire by (seconds). Window tests freeze it: on a
    #: busy machine a message could expire between an action and the check of its text.
    message_clock = staticmethod(time.monotonic)

    def __init__(self, session: GameSession, width: int = 1280, height: int = 720, *,
                 save_path: str | Path | None = None, screenshot_dir: str | Path | None = None,
                 shadows: bool = True, title: str = "BrikWars tabletop", ai_seats=()):
        from ..render.view import display_refusal

        if display_refusal("the tabletop window"):  # never a silent ":0"
            raise SandboxError(display_refusal("the tabletop window"))
        self._prc = _window_prc(width, height, title, offscreen=False)
        from direct.showbase.ShowBase import ShowBase

        self.session = session
        # The offscreen renderer may have loaded only the headless GL module in this process:
        # ask for the windowed GL pipe by name rather than through load-display.
        from panda3d.core import GraphicsPipeSelection, WindowProperties

        pipe = GraphicsPipeSelection.get_global_ptr().make_module_pipe("pandagl")
        if pipe is None or not pipe.is_valid():
            raise SandboxError("cannot open a window: no OpenGL display (is DISPLAY set, "
                               "or run under Xvfb)")
        self.base = ShowBase(windowType="none")
        self.base.pipe = pipe
        props = WindowProperties.size(int(width), int(height))
        props.set_title(title)
        if not self.base.openDefaultWindow(type="onscreen", props=props) or self.base.win is None:
            raise SandboxError(f"could not open a {width}x{height} window on "
                               f"{pipe.get_interface_name()}")
        self.base.disableMouse()
        self.width, self.height = width, height
        slug = "".join(c if c.isalnum() else "_" for c in session.spec.name).strip("_") or "game"
        self.save_path = Path(save_path) if save_path else Path(f"{slug}.save.json")
        self.screenshot_dir = Path(screenshot_dir) if screenshot_dir else Path("screenshots")
        self.shadows = shadows
        self.gl_renderer = self.base.win.getGsg().getDriverRenderer()
        self.input = InputLayer(self)
        #: The Micro Brick War layer (squares, highlights, computer seats), None in BrikWars.
        self.mbw = MbwInput(self, ai_seats) if _plays_mbw(session) else None
        self.rig = OrbitCamera()  # the tabletop's limits are the defaults
        self.runner = ActionRunner()
        self.selected: str | None = None
        self.grid_visible = True
        self.show_help = True
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
        #: LDraw edge lines (type 2 and optional type 5) over the bricks; F4 turns them off.
        self.show_edges = True
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
        self._setup_hud()
        self._bind_events()
        self._sync_from_session()
        self._frame_table()
        self.base.taskMgr.add(self._frame_task, "sandbox-frame")

    # ---------------------------------------------------------------- scene graph
    def _setup_scene(self) -> None:
        b = self.base
        self.root = b.render.attach_new_node("tabletop")
        self.root.set_shader(Shader.make(Shader.SL_GLSL, shaders.VERTEX, shaders.FRAGMENT))
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
        b.camLens.set_fov(_offscreen._h_fov(40.0, self.width * (1 - LOG_COLUMN) / self.height),
                          40.0)
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
                self._show_loading(f"Loading the table: {i + 1} of {len(items)} models")
        self._show_loading("")

    def _show_loading(self, text: str) -> None:
        """The loading screen: a line of progress drawn at once (the frame loop is not
        running while the models are built); "" hides it."""
        node = getattr(self, "loading_text", None)
        if node is None:
            return
        node.setText(text)
        if text:
            self.loading_shown.append(text)
            for _ in range(2):  # both buffers, so the line shows whatever was drawn before
                self.base.graphicsEngine.render_frame()

    def _add_body_node(self, key: str, asset) -> None:
        g = self.session
        destroyed = key in g.bodies and g.bodies[key].damage.destroyed
        mesh = render_mesh_of(asset, destroyed, edges=True)
        node = GeomNode(key)
        node.add_geom(geometry.mesh_geom(mesh))
        np_body = self.bodies_np.attach_new_node(node)
        np_body.set_python_tag("body", key)
        e = geometry.attach_edges(np_body, key + ":edges", geometry.edge_geom(mesh),
                                  geometry.optional_geom(mesh))
        if e is not None and not self.show_edges:
            e.hide()
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
        esc = getattr(g, "escapade", None)
        self.escapade_panel.setText("\n".join(esc.panel_lines()) if esc is not None else
                                    self.mbw.panel() if self.mbw is not None else "")
        self.overlays_dirty = True

    # ---------------------------------------------------------------- HUD
    def _setup_hud(self) -> None:
        from direct.gui.OnscreenText import OnscreenText

        b = self.base

        def text(pos, scale, align, fg=(1, 1, 1, 1), parent=b.aspect2d, bg=None):
            return OnscreenText(text="", pos=pos, scale=scale, align=align, fg=fg, bg=bg,
                                shadow=(0, 0, 0, 0.9), mayChange=True, parent=parent)

        # Anchored to the window's edges (ShowBase moves the a2d anchors on a resize), so no
        # window shape clips them.
        self.banner = text((0, -0.1), 0.075, TextNode.ACenter, (1, 0.93, 0.6, 1), b.a2dTopCenter)
        self.card = text((0.04, -0.1), 0.045, TextNode.ALeft, parent=b.a2dTopLeft)
        self.card.setWordwrap(24)  # a long name wraps before the turn banner (about 1.1 units)
        self.preview = text((-0.04, -0.1), 0.042, TextNode.ARight, (1, 0.95, 0.8, 1), b.a2dTopRight)
        self.logpanel = text((0.0, 0.0), 0.036, TextNode.ALeft, (0.92, 0.96, 1, 1),
                             b.a2dBottomRight)
        self.status = text((0, 0.2), 0.032, TextNode.ACenter, (0.92, 1, 0.92, 1), b.a2dBottomCenter,
                           bg=(0, 0, 0, 0.6))
        self.pile = text((0, -0.17), 0.042, TextNode.ACenter, (1, 0.93, 0.6, 1), b.a2dTopCenter)
        #: The loading screen's progress line, and every line it showed (tests read them).
        self.loading_text = text((0, 0), 0.07, TextNode.ACenter, (1, 1, 1, 1), b.aspect2d,
                                 bg=(0, 0, 0, 0.7))
        self.loading_shown: list[str] = []
        self.tooltip = text((0, 0), 0.038, TextNode.ALeft, (1, 1, 0.9, 1), b.aspect2d,
                            bg=(0, 0, 0, 0.6))
        self.flashline = text((0, -0.26), 0.05, TextNode.ACenter, FLASH_COLOURS["error"],
                              b.a2dTopCenter)
        # wrapped to the middle of the window (about 1.4 units wide): a long refusal must not
        # run over the stat card on the left or off the window's edges
        self.flashline.setWordwrap(28)
        # Escapade: forces table, underdog Bennies, Strategy piles, victory status (ch. 13)
        self.escapade_panel = text((-0.03, -0.4), 0.034, TextNode.ALeft, (1, 1, 0.85, 1),
                                   b.a2dTopRight)
        #: The typed box's line (log search, dice tray, slot name), over the log column.
        self.entry_text = text((0, 0), 0.04, TextNode.ALeft, (1, 1, 0.7, 1), b.a2dBottomRight,
                               bg=(0, 0, 0, 0.8))
        # labels of the players' rulers and templates ("m1: 6.00\""), billboards like the ruler's
        self.tool_labels_np = self.base.render.attach_new_node("tool-labels")
        self.tool_labels_np.set_light_off(1)
        self.tool_labels_np.set_shader_off(1)
        self.tool_labels_np.set_depth_test(False)
        self.tool_labels_np.set_depth_write(False)
        self.tool_labels_np.set_bin("fixed", 45)
        self.tool_labels_np.hide(_SHADOW_MASK)
        self.ruler_label = NodePath(TextNode("ruler-label"))
        self.ruler_label.reparent_to(self.base.render)
        self.ruler_label.set_billboard_point_eye()
        self.ruler_label.set_scale(0.6)
        self.ruler_label.set_light_off(1)
        self.ruler_label.set_shader_off(1)
        self.ruler_label.set_depth_test(False)
        self.ruler_label.set_depth_write(False)
        self.ruler_label.set_bin("fixed", 50)
        self.ruler_label.hide(_SHADOW_MASK)
        tn = self.ruler_label.node()
        tn.set_align(TextNode.ACenter)
        tn.set_text_color(1, 1, 1, 1)
        tn.set_shadow(0.06, 0.06)
        tn.set_shadow_color(0, 0, 0, 1)

    def flash(self, text: str, seconds: float = 4.0, *, error: bool = False,
              ok: bool = False) -> None:
        """A short message under the banner: red for refusals and errors, green for things
        done (saved, loaded), white for hints."""
        self._flash_text = text
        self._flash_until = self.message_clock() + seconds
        kind = "error" if error else ("ok" if ok else "info")
        self.flash_kind = kind
        self.flashline.setFg(FLASH_COLOURS[kind])

    @property
    def aspect(self) -> float:
        """Width / height of the window now (it may have been resized)."""
        win = getattr(self.base, "win", None)
        if win is not None and win.get_y_size() > 0:
            return win.get_x_size() / win.get_y_size()
        return self.width / self.height

    @property
    def view_aspect(self) -> float:
        """Width / height of the 3D view (the window less the log column)."""
        return self.aspect * (1 - LOG_COLUMN)

    def in_log_column(self, x: float) -> bool:
        """Whether window x (in [-1, 1]) is over the log column."""
        return x > 1 - 2 * LOG_COLUMN

    def _view_x(self, x: float) -> float:
        """Window x in [-1, 1] to the 3D view's film x in [-1, 1]."""
        return (float(x) + 1) / (1 - LOG_COLUMN) - 1

    def scroll_log(self, lines: int) -> None:
        """Scroll the log back (positive) or forward (negative) by ``lines`` events."""
        self.log_scroll = max(0, self.log_scroll + int(lines))

    def log_events(self, events: list[dict]) -> list[dict]:
        """The events the log panel shows under its filter (F2), oldest first."""
        out = [e for e in events if _shown_in_log(e)]
        if self.log_filter == "dice & Damage":
            out = [e for e in out if e["type"] in _DICE_EVENTS or "damage" in e["type"]
                   or e["type"] == "dice_tray"]
        elif self.log_filter == "impacts":
            out = [e for e in out if e["type"] == "impact"]
        if self.log_search:  # the search box (/): lines containing the text, any case
            want = self.log_search.lower()
            out = [e for e in out if want in self.log_text(e).lower()]
        return out

    def set_log_search(self, text: str) -> None:
        """Show only the log lines containing ``text`` ("" shows every line again)."""
        self.log_search = text
        self.log_scroll = 0
        self._log_key = None

    def open_entry(self, entry: TextEntry) -> None:
        """Open a typed box: the keys type into it until Enter or Esc."""
        entry.opened_frame = ClockObject.get_global_clock().get_frame_count()
        self.entry = entry

    def keystroke(self, ch: str) -> None:
        """A typed character (Panda3D's ``keystroke`` event) for the open box, if any."""
        e = self.entry
        if e is None:
            return
        if e.opened_frame == ClockObject.get_global_clock().get_frame_count():
            return  # the key press that opened the box ('/') is not typed into it
        e.type(ch)

    def save_slot(self, name: str) -> Path | None:
        """Save the game as the named slot ``<slots_dir>/<name>.save.json`` (F6)."""
        slot = slot_name(name)
        if not slot:
            self.flash("Save as: type a name for the slot", error=True)
            return None
        try:
            self.slots_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self.flash(f"Save failed: cannot make {self.slots_dir}: {exc}", error=True)
            return None
        return self.save(self.slots_dir / f"{slot}.save.json")

    def open_slots(self) -> None:
        """The saved-games dialog (F7): the named slots, the quick save and the autosave."""
        if self.slot_dialog is not None:
            self.slot_dialog.close()
            return
        self.slot_dialog = SlotDialog(self, self.slots_dir,
                                      extra=[self.save_path, self.autosave_path()])

    def log_text(self, e: dict) -> str:
        """One log line as a player reads it: whole, with names instead of ids."""
        return _log_line(e, self._names())

    def _names(self) -> dict[str, str]:
        g = self.session
        if getattr(self, "_names_gen", None) != (g.generation, len(g.bodies)):
            self._names_gen = (g.generation, len(g.bodies))
            self._names_map = {k: st.name for k, st in g.bodies.items()
                               if st.name and st.name != k and k not in st.name}
        return self._names_map

    @property
    def unsaved(self) -> int:
        """Actions played since the game was opened, saved or loaded (0: nothing to lose)."""
        if self.net is not None:
            return 0  # online, the server holds the game
        now, saved = list(self.session.actions), self._saved_actions
        if self._saved_session is not self.session:
            return len(now)
        if now[:len(saved)] == saved:
            return len(now) - len(saved)
        return max(1, abs(len(now) - len(saved)))  # undone past the save, or replaced

    def _mark_saved(self) -> None:
        self._saved_session = self.session
        self._saved_actions = list(self.session.actions)

    def _confirm(self, what: str, question: str) -> bool:
        """Whether ``what`` (a key) was pressed again right after its question was asked; else
        asks ``question`` and returns False."""
        now = self.message_clock()
        if self._asked == what and now < self._asked_until:
            self._asked = None
            return True
        self._asked, self._asked_until = what, now + 8.0
        self.flash(question, 8.0, error=True)
        return False

    def autosave_path(self) -> Path:
        """Where quitting with unsaved play autosaves: ``<save name>.autosave.json``."""
        name = self.save_path.name
        stem = name[:-len(".save.json")] if name.endswith(".save.json") else self.save_path.stem
        return self.save_path.with_name(stem + ".autosave.json")

    def quit(self) -> None:
        """Q: close the window (the interactive loop ends).
        With unsaved play, the game is autosaved and the first press asks; a second quits."""
        n = self.unsaved
        if n and not self.busy:
            if not self._confirm("quit", ""):
                try:
                    out = self.session.save(self.autosave_path())
                    where = f"autosaved to {shown_path(out)}"
                except SandboxError as exc:
                    where = f"autosave failed: {exc}"
                self.flash(f"{n} unsaved action(s) ({where}): Q again to quit, F5 to save", 8.0,
                           error=True)
                return
        self.quit_requested = True
        self.on_quit()

    def _update_log(self, events: list[dict]) -> None:
        """The log panel: the newest of ``events`` the filter and search keep, wrapped whole."""
        shown = self.log_events(events)
        self.log_scroll = min(self.log_scroll, max(0, len(shown) - 1))
        end = len(shown) - self.log_scroll
        shown = shown[max(0, end - max(LOG_LINES, self._log_rows)):end]  # trimmed to fit below
        head = (f"Log ({self.log_filter}" + (f", {self.log_scroll} back" if self.log_scroll else "")
                + (f', search "{self.log_search}"' if self.log_search else "") + ")")
        lines = [self.log_text(e) for e in shown]
        tn = self.logpanel.textNode
        key = (head, tuple(lines))
        if key != getattr(self, "_log_key", None):
            self._log_key = key
            while True:  # the newest lines that fit the column's height, wrapped whole
                self.logpanel.setText("\n".join([head] + lines))
                if tn.get_num_rows() <= self._log_rows or len(lines) <= 1:
                    break
                lines = lines[1:]

    def _update_hud(self, now: float) -> None:
        s = self.session
        busy = self.busy
        pb = self._playback
        if not self.runner.busy and not busy:
            turn = (s.turn, s.current_player)
            if self._turn_seen is not None and turn != self._turn_seen:
                # a new turn: the last player's refusals expire and the stat card clears
                if self.flash_kind == "error":
                    self._flash_until = 0.0
                self.select(None)
            self._turn_seen = turn
        if not self.runner.busy:  # the worker may be between players: read the turn when idle
            label = f"Turn {s.turn}: {possessive(s.current_player)} turn"
            for system in s.systems:  # a game with its own round (Brigandine's phases) names it
                if hasattr(system, "banner"):
                    label = system.banner(s.turn, s.current_player)
            self._banner_label = label
            if s.bombardment is not None:  # BrikWars' Strategy bricks
                pile = s.bombardment.strategy_pile()
                self.pile.setText(f"Strategy pile: {pile} brick{'' if pile == 1 else 's'}")
        label = getattr(self, "_banner_label", "")
        self.banner.setText(label + ("   (physics...)" if busy or pb else ""))
        if self.selected is not None and not busy and self.selected in s.bodies:
            self.card.setText("\n".join(
                s.skirmish.stat_card(self.selected) if s.skirmish is not None else
                [s.bodies[self.selected].name, "Status: " + ", ".join(
                    s.status_words(self.selected))]))
        elif not busy:
            self.card.setText("Click a unit to see its stat card")
        events = s.events
        limit = len(events)
        if pb is not None:
            t = pb["t_start"] + (pb["cursor"] - pb["f_start"]) / PLAYBACK_FPS
            limit = pb["n_events"]
            while limit < len(events) and events[limit]["time"] <= t + 1e-9:
                limit += 1
        # the log panel is filtered and formatted again only when something it shows changed
        # (not every frame: a long game's log is thousands of events)
        limit = min(limit, len(events))  # a playback's count may run ahead of a rebuilt log
        inputs = (id(events), limit, id(events[limit - 1]) if limit else None, self.log_filter,
                  self.log_search, self.log_scroll, self._log_rows, s.generation, len(s.bodies))
        if inputs != getattr(self, "_log_inputs", None) or getattr(self, "_log_key", None) is None:
            self._log_inputs = inputs
            self._update_log(events[:limit])
        mode = self.input.mode
        extra = ""
        if self.input.sprint:
            extra += "   SPRINT"
        if mode == "drop" and not self.runner.busy:
            extra += (f"   Strategy bricks {self.input.drop_bricks} of "
                      f"{s.bombardment.strategy_pile()} in "
                      f"{possessive(s.current_player)} pile ([ and ] to change)")
        if mode == "strike":
            extra += f"   {self.input.strike_dice} Explosive dice ([ and ] to change)"
            if self.input.strike_kind == "missile":
                extra += f", variant {self.input.strike_variant} (Tab)"
        if self.input.brig is not None:  # Brigandine: what this phase's gestures order
            extra += "   " + self.input.brig.prompt()
        help_text = InputLayer.HELP
        if getattr(self.session, "escapade", None) is None:  # its keys only where it is played
            help_text = "\n".join(line for line in help_text.split("\n")
                                   if not line.startswith("Escapade:"))
        text = ((help_text + "\n" if self.show_help else "H: help   Q: quit\n")
                + f"[{mode}]{extra}")
        self.status.setText(text)
        self.status.setPos(-2 * self.aspect * LOG_COLUMN / 2,
                           0.04 + 0.032 * 1.25 * text.count("\n"))
        shown = self.message_clock() < self._flash_until
        self.flashline.setText(self._flash_text if shown else "")
        self.entry_text.setText(self.entry.shown() if self.entry is not None else "")
        if busy:
            self.tooltip.setText("")

    # ---------------------------------------------------------------- events
    def _bind_events(self) -> None:
        b = self.base
        for btn in (1, 2, 3):
            b.accept(f"mouse{btn}", self._on_down, [btn, False])
            b.accept(f"shift-mouse{btn}", self._on_down, [btn, True])
            b.accept(f"mouse{btn}-up", self._on_up, [btn])
        b.accept("wheel_up", self._on_wheel, [1])
        b.accept("wheel_down", self._on_wheel, [-1])
        keys = ["escape", "q", "enter", "t", "f", "g", "h", "p", "m", "s", "b", "l", "[", "]",
                "e", "u",
                "i", "d", "r", "w",
                "o", "a", "v", "n", "x", "z", "c", "j", "k", "y", "tab", ",", ".", ";", "'",
                "shift-d", "shift-t", "shift-g", "shift-i",
                "f2", "f3", "f4", "f5", "f6", "f7", "f9", "f10", "f11", "f12", "page_up",
                "page_down", "+", "=", "-",
                "/", "shift-r", "shift-e", "shift-m", "shift-c", "delete", "backspace",
                "arrow_left", "arrow_right", "arrow_up", "arrow_down"] + [
                    str(i) for i in range(1, 10)]
        for k in keys:
            b.accept(k, self.input.key, [k])
            if k.startswith(("arrow", "page")):
                b.accept(k + "-repeat", self.input.key, [k])
        b.accept("shift", self._shift, [True])
        b.accept("shift-up", self._shift, [False])
        for k in ("arrow_left", "arrow_right", "arrow_up", "arrow_down"):
            b.accept("shift-" + k, self._shift_key, [k])
        b.accept("control-z", self.input.key, ["u"])
        b.accept("control-s", self.input.key, ["f5"])
        b.accept("control-o", self.input.key, ["f9"])
        b.accept("control-f", self.input.key, ["control-f"])
        b.buttonThrowers[0].node().set_keystroke_event("keystroke")
        b.accept("keystroke", self.keystroke)

    def _on_wheel(self, steps: int) -> None:
        m = self._mouse()
        if m is not None:
            self.input.last_pointer = m
        self.input.wheel(steps)

    def _shift(self, down: bool) -> None:
        self.input.shift = down

    def _shift_key(self, k: str) -> None:
        self.input.shift = True
        self.input.key(k)

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
        """The first thing under screen point (x, y): a physics ray test (read only)."""
        if self.busy or self.in_log_column(x):
            return None
        a, b = self.mouse_ray(x, y)
        return self.session.pick(a, b)

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

    def set_tooltip(self, key: str | None, x: float, y: float) -> None:
        """The hover tooltip: the name, owner and state of the body under the pointer."""
        s = self.session
        if key is None or key not in s.bodies:
            self.tooltip.setText("")
            return
        st = s.bodies[key]
        words = ", ".join(s.status_words(key))
        self.tooltip.setText(f"{st.name} ({st.owner or 'no owner'})"
                             + (f"\n{words}" if words else ""))
        self.tooltip.setPos(float(x) * self.aspect + 0.04, float(y) - 0.07)

    def toggle_edges(self) -> None:
        """F4: the LDraw edge lines of every body on the table, or none."""
        self.show_edges = not self.show_edges
        for key, np_body in self._nodes.items():
            for e in np_body.get_children():
                if e.get_name() != key + ":edges":
                    continue
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
        self._playback = {"f_start": g.recorder.frame, "cursor": float(g.recorder.frame),
                          "t_start": g.world.time, "n_events": len(g.events),
                          "wall": time.monotonic(), "game": g, "action": action}
        self.runner.start(lambda: self.session.apply(action))

    def start_odds(self, action, seeds: int | None = None) -> None:
        """Run ``seeds`` (default :data:`ODDS_SEEDS`) games of ``action`` played now on local
        processes, in the background (:func:`sandbox.app.odds.action_odds`); the odds show
        beside the preview of the same action."""
        from . import odds

        if self._odds_thread is not None and self._odds_thread.is_alive():
            self.flash("The odds of an action are still being run", error=True)
            return
        seeds = seeds or ODDS_SEEDS
        key = action_dict(action)
        self.odds_action = key
        self.odds_lines = [f"Odds: running {seeds} seeds..."]
        self.overlays_dirty = True

        def progress(done: int, total: int) -> None:
            if self.odds_action == key:
                self.odds_lines = [f"Odds: {done}/{total} seeds run..."]
                self.overlays_dirty = True

        def work() -> None:
            try:
                names = {k: st.name for k, st in self.session.bodies.items()}
                lines = odds.odds_lines(odds.action_odds(self.session, action,
                                                         range(1, seeds + 1),
                                                         progress=progress), names=names)
            except Exception as exc:  # noqa: BLE001 - shown in the panel
                lines = [f"Odds failed: {exc}"]
            if self.odds_action == key:
                self.odds_lines = lines
                self.overlays_dirty = True

        self._odds_thread = threading.Thread(target=work, name="sandbox-odds", daemon=True)
        self._odds_thread.start()

    def wait_odds(self, timeout: float = 300.0) -> None:
        """Wait for the background odds run (tests)."""
        if self._odds_thread is not None:
            self._odds_thread.join(timeout)

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

    def save(self, path: str | Path | None = None) -> Path | None:
        """Save the game (F5). Returns the path, or None when busy or on failure."""
        if self.busy:
            self.flash("Wait: physics is still playing out")
            return None
        target = Path(path) if path else self.save_path
        try:
            out = self.session.save(target)
        except OSError as exc:
            self.flash(f"Save failed (previous save kept): {exc}", error=True)
            return None
        self._mark_saved()
        self.flash(f"Saved to {shown_path(out)}", ok=True)
        return out

    def load(self, path: str | Path | None = None) -> None:
        """Load a save (F9): replays its log on the worker, then swaps the session in."""
        if self.busy:
            self.flash("Wait: physics is still playing out")
            return
        if self.net is not None:
            self.flash("Online: the server holds the game (its host restarts it from a save)")
            return
        if path is None and not self.save_path.is_file():
            self.flash(f"No quick save yet ({shown_path(self.save_path)}): F5 saves one, "
                       "F7 lists the saved games", error=True)
            return
        n = self.unsaved
        if n and path is None and not self._confirm(
                "load", f"F9 again to discard {n} unsaved action(s) and load "
                        f"{shown_path(self.save_path)} (F5 saves first)"):
            return
        target = Path(path) if path else self.save_path
        ldraw = self.session.ldrawdir
        self._loading = target
        self._after = "load"
        self.runner.start(lambda: GameSession.load(target, ldraw))

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
        if self.mbw is not None and not self.busy:
            self.mbw.tick()  # a computer seat plays its next action
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
            scale = max(0.3, self.rig.distance * 0.012)
            for key, plate in self._plates.items():
                pose = poses.get(key)
                if pose is None:
                    plate.hide()
                    continue
                plate.show()
                x, y, z = pose[0]
                plate.set_pos(float(x), float(y), float(z) + 1.3)
                plate.set_scale(scale)
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
                              or self.input.mode in ("attack", "measure", "select", "pick")):
            if m != self.input.last_pointer:
                self.input.pointer_move(*m)
        self._layout()
        self._update_hud(now)
        return task.cont

    def _layout(self) -> None:
        """Re-lay the HUD for the window's shape (after a resize): in a narrow window the
        stat card goes below the banner and the message line rather than beside them."""
        narrow = self.aspect < 1.6
        if narrow != getattr(self, "_narrow", None):
            self._narrow = narrow
            self.card.setPos(0.04, -0.36 if narrow else -0.1)
        aspect = self.aspect
        if abs(self.base.camLens.get_aspect_ratio() - self.view_aspect) > 1e-3:
            # ShowBase's own window-event handler sets the lens to the whole window's shape
            # (whenever that event comes): the 3D view is the window less the log column
            self.base.camLens.set_fov(_offscreen._h_fov(40.0, self.view_aspect), 40.0)
        if aspect != getattr(self, "_laid_aspect", None):
            self._laid_aspect = aspect
            self.base.camLens.set_fov(_offscreen._h_fov(40.0, self.view_aspect), 40.0)
            col = 2 * aspect * LOG_COLUMN  # the column's width in aspect2d units
            left = -col + 0.03
            wrap = (col - 0.06)
            self._log_rows = max(4, int(0.95 / (0.036 * 1.2)))
            # the log fills the column's lower half, its first row at the top of that half
            self.logpanel.setPos(left, 0.04 + (self._log_rows - 1) * 0.036 * 1.2)
            self.logpanel.textNode.set_wordwrap(wrap / 0.036)
            self._log_key = None
            self.escapade_panel.setPos(left, -0.42)
            self.entry_text.setPos(left, 0.04 + self._log_rows * 0.036 * 1.2 + 0.03)
            self.entry_text.textNode.set_wordwrap(wrap / 0.04)
            self.escapade_panel.textNode.set_wordwrap(wrap / 0.034)
            self.preview.setPos(-0.03, -0.1)
            self.preview.textNode.set_wordwrap(wrap / 0.042)
            # the banner, the help and the message line centred over the 3D view
            for node, y in ((self.banner, -0.1), (self.pile, -0.17), (self.flashline, -0.26)):
                node.setPos(-col / 2, y)

    _was_playing = False

    def _pending_finish(self) -> bool:
        # the runner finished since the last frame and its result has not been taken yet
        if self.runner._thread is not None and self.runner.done:
            self.runner._thread = None
            return True
        return False

    # ---------------------------------------------------------------- overlays
    def _draw_overlays(self) -> None:
        self.overlays_dirty = False
        self.markers_np.node().remove_all_children()
        label = ""
        label_at = None
        s = self.session
        inp = self.input
        markers: list[Marker] = []
        markers.extend(escapade_markers(s))  # edges, deployment zones, Stronghold (13.1)
        if self.mbw is not None:
            markers.extend(self.mbw.markers())  # legal squares of the selection
        # Field Hazard areas and flames on burning surfaces (F.1); hidden ones only once a
        # Scout revealed them to the player whose turn it is (F.3)
        markers.extend(hazard_markers(s, viewer=s.current_player))
        markers.extend(self._unit_markers())
        own, tool_labels = tools_markers(s, s.current_player)  # rulers, templates, done, carry
        markers.extend(own)
        self.tool_labels_np.node().remove_all_children()
        scale = max(0.35, self.rig.distance * 0.015)
        for text, at in tool_labels:
            tn = TextNode("tool-label")
            tn.set_text(text)
            tn.set_align(TextNode.ACenter)
            tn.set_text_color(1, 1, 1, 1)
            tn.set_shadow(0.06, 0.06)
            tn.set_shadow_color(0, 0, 0, 1)
            node = self.tool_labels_np.attach_new_node(tn)
            node.set_billboard_point_eye()
            node.set_pos(LPoint3(*map(float, at)))
            node.set_scale(scale)
        if inp.mode == "pick" and inp.template_hover is not None:
            h = inp.template_hover
            if inp.ruler_from is not None:  # the ruler being laid, to the pointer
                a = np.array([inp.ruler_from[0], inp.ruler_from[1], 0.06])
                b = np.array([h[0], h[1], 0.06])
                markers.append(Marker.line(a, b, (1.0, 0.95, 0.35, 0.7), 2.0))
                label, label_at = f'{float(np.linalg.norm(b - a)):.2f}"', (a + b) / 2 + [0, 0, 0.8]
            elif inp.pick_prompt.startswith("Template"):
                markers.append(Marker.ring((h[0], h[1], 0.05), inp.template_radius,
                                           colour=(0.35, 0.85, 1.0, 0.6), width=0.1))
                label = f'template {inp.template_radius:g}"  ([ ] radius, click to lay it)'
                label_at = np.array([h[0], h[1], 1.0])
        for smoke in s.smoke_fields():
            markers.append(Marker.ring((smoke.centre[0], smoke.centre[1], 0.02), smoke.radius,
                                       colour=(0.75, 0.75, 0.78, 0.8), width=0.2))
        if inp.drag_unit is not None and inp.drag_to is not None and inp.press is not None:
            unit = inp.drag_unit
            lo, hi = s.bounds(unit)
            c = s.footprint_centre(unit)
            grab = self.ground_point(inp.press[1], inp.press[2])
            offset = (c - grab[:2]) if grab is not None else np.zeros(2)
            dest = inp.drag_to[:2] + offset
            dist = float(np.linalg.norm(dest - c))
            left = s.skirmish.move_allowance(unit)
            ok = dist <= left + 1e-9
            start = _edge(lo, hi, dest)
            end = start + np.array([dest[0] - c[0], dest[1] - c[1], 0.0])
            colour = (0.3, 1.0, 0.4, 1.0) if ok else (
                (1.0, 0.8, 0.2, 1.0) if inp.sprint else (1.0, 0.25, 0.2, 1.0))
            markers.append(Marker.line(start + [0, 0, 0.05], end + [0, 0, 0.05], colour, 3.0))
            markers.append(Marker.ring((c[0], c[1], 0.03), max(left, 0.05) + (hi[0] - lo[0]) / 2,
                                       colour=(0.3, 1.0, 0.4, 0.5), width=0.06))
            half = (hi[:2] - lo[:2]) / 2
            box = [[dest[0] - half[0], dest[1] - half[1], 0.05],
                   [dest[0] + half[0], dest[1] - half[1], 0.05],
                   [dest[0] + half[0], dest[1] + half[1], 0.05],
                   [dest[0] - half[0], dest[1] + half[1], 0.05],
                   [dest[0] - half[0], dest[1] - half[1], 0.05]]
            markers.append(Marker.path(box, colour, 2.0))
            label = f'{dist:.2f}" of {left:.2f}"' + ("" if ok else (
                "  Sprint: roll for more" if inp.sprint else "  too far (S: Sprint)"))
            fall = inp.fall_at(unit, dest)
            if fall > 0.25:  # the path leaves a roof or a wall
                label += f"  falls {fall:.1f}\""
            label_at = (start + end) / 2 + [0, 0, 0.6]
        if inp.mode == "measure" and inp.measure_from is not None:
            a = inp.measure_from
            b = inp.measure_to
            if b is not None:
                meas = s.measure(a, b)
                sight = s.line_of_sight(a, b)
                markers.append(Marker.line(np.array(meas.start) + [0, 0, 0.05],
                                           np.array(meas.end) + [0, 0, 0.05], (1, 1, 1, 1), 3.0))
                sc = (0.3, 1.0, 0.4, 1.0) if sight.clear else (1.0, 0.25, 0.2, 1.0)
                end = sight.hit_point if sight.hit_point is not None else sight.end
                markers.append(Marker.line(sight.start, end, sc, 2.0))
                if sight.hit_point is not None:
                    markers.append(Marker.line(sight.hit_point, sight.end,
                                               (1, 0.25, 0.2, 0.35), 1.0))
                label = f'{meas.inches:.2f}"  ' + ("line of sight clear" if sight.clear
                                                    else "blocked by "
                                                    f"{self._name(sight.blocked_by)}")
                label_at = (np.array(meas.start) + np.array(meas.end)) / 2 + [0, 0, 0.8]
            else:
                p = s.bounds(a)[0] if isinstance(a, str) else a
                markers.append(Marker.target(np.asarray(p, float), 0.6, (1, 1, 1, 1)))
                if inp.measure_hover is not None:  # the live ruler to the pointer
                    meas = s.measure(a, np.asarray(inp.measure_hover, float))
                    markers.append(Marker.line(np.array(meas.start) + [0, 0, 0.05],
                                               np.array(meas.end) + [0, 0, 0.05],
                                               (1, 1, 1, 0.8), 2.0))
                    label = f'{meas.inches:.2f}"  (click the second point)'
                    label_at = (np.array(meas.start) + np.array(meas.end)) / 2 + [0, 0, 0.8]
        preview_lines: list[str] = []
        if inp.mode == "attack" and self.selected is not None and inp.weapon is not None:
            unit = self.selected
            ws = s.skirmish.weapons(unit)
            w = ws[inp.weapon]
            lo, hi = s.bounds(unit)
            c = s.footprint_centre(unit)
            if w.range_in:
                markers.append(Marker.ring((c[0], c[1], 0.03), w.range_in + (hi[0] - lo[0]) / 2,
                                           colour=(1.0, 1.0, 1.0, 0.45), width=0.06))
            pv = None
            if inp.hover_target is not None and inp.hover_target != unit:
                try:
                    pv = s.skirmish.attack_preview(unit, inp.weapon, inp.hover_target,
                                                   mode=inp.fire_mode,
                                                   gunner=inp.cmd.crew_for(unit, inp.weapon))
                except SandboxError as exc:
                    pv = None
                    preview_lines = [str(exc)]
            if inp.hover_target is not None and inp.hover_target != unit and pv is not None:
                tlo, thi = s.bounds(inp.hover_target)
                tc = (tlo + thi) / 2
                preview_lines = pv.lines() + (["Click again or Enter to fire"]
                                              if pv.allowed else [])
                sc = (0.3, 1.0, 0.4, 1.0) if pv.sight.clear else (1.0, 0.25, 0.2, 1.0)
                markers.append(Marker.line(pv.sight.start, pv.sight.hit_point or pv.sight.end,
                                           sc, 2.0))
                if pv.distance_in > (pv.range_in or 0) and not w.close_combat:
                    markers.append(Marker.target((tc[0], tc[1], 0.0), 1.0))  # a long shot
                if pv.arc_points:
                    markers.append(_arc_fan(c, tc, pv.arc_points, (pv.range_in or 4.0)))
                if pv.explosive and w.damage is not None:
                    for k in range(1, w.damage.count + 1):  # 2" per die (8.4)
                        markers.append(Marker.ring((tc[0], tc[1], 0.03), 2.0 * k,
                                                   colour=(1.0, 0.55, 0.1, 0.8), width=0.1))
        if inp.mode == "strike" and inp.strike_point is not None:
            p = inp.strike_point
            markers.append(Marker.target((p[0], p[1], max(p[2], 0.0)), 1.0))
            dice, n_dice = f"{inp.strike_dice}d10 Explosive", inp.strike_dice
            if inp.strike_kind == "missile":  # Variants swap the d10s (8.4; Tab)
                dice = inp.cmd.missile_dice(inp.strike_dice, inp.strike_variant)
                n_dice = inp.cmd.missile_dice_count(inp.strike_dice, inp.strike_variant)
            for k in range(1, n_dice + 1):  # 2" per Explosive die (8.4)
                markers.append(Marker.ring((p[0], p[1], 0.03), 2.0 * k,
                                           colour=(1.0, 0.55, 0.1, 0.8),
                                           width=0.1))
            what = "Strategic Bombardment" if inp.strike_kind == "bombard" else "Missile strike"
            shown = inp.previewed_action() if inp.strike_kind == "bombard" else None
            if shown is not None:
                preview_lines = s.bombardment.preview(shown)
            label = f"{what}: {dice}  (click again or Enter)"
            label_at = np.array([p[0], p[1], max(p[2], 0.0) + 1.5])
        if inp.mode == "launch" and inp.launcher is not None and inp.launch_aim is not None:
            lp = s.flight.launch_preview(inp.launcher, inp.launch_aim, target_body=inp.launch_body)
            colour = (1.0, 0.85, 0.2, 1.0) if lp.allowed else (1.0, 0.25, 0.2, 1.0)
            markers.append(Marker.path(lp.path, colour, 2.0))
            if lp.beyond_turn:  # the red-brick X on the target (8.4)
                markers.append(Marker.target((lp.target[0], lp.target[1], 0.0), 1.0))
            preview_lines = lp.lines() + (["Click again or Enter to fire"] if lp.allowed else [])
        if inp.mode == "drop" and inp.drop_point is not None:
            p = inp.drop_point
            from ..rules.collision import big_drop_height

            h = big_drop_height(inp.drop_bricks)
            markers.append(Marker.target((p[0], p[1], max(p[2], 0.0)), 1.0))
            markers.append(Marker.path([(p[0], p[1], max(p[2], 0.0) + h),
                                        (p[0], p[1], max(p[2], 0.0))],
                                       (1.0, 0.85, 0.2, 1.0), 2.0))
            for k in range(1, inp.drop_bricks + 1):
                markers.append(Marker.ring((p[0], p[1], 0.03), 2.0 * k,
                                           colour=(1.0, 0.55, 0.1, 0.8),
                                           width=0.1))
            label = f'The Big Drop: {inp.drop_bricks}d10 Explosive from {h:g}"'
            shown = inp.previewed_action()
            refused = shown is None
            if shown is not None:
                preview_lines = s.bombardment.preview(shown)
                refused = bool(s.bombardment.call_refusal(shown))
                if shown.marked_by is not None and shown.marked_by in s.world.bodies:
                    ok = not s.bombardment.mark_refusal(shown)
                    markers.append(Marker.line(s.eye(shown.marked_by),  # the Scout's Mark (F.3)
                                               s.bombardment.mark_point(shown.target),
                                               (0.3, 1.0, 0.4, 1.0) if ok
                                               else (1.0, 0.25, 0.2, 1.0), 2.0))
            else:
                try:
                    inp.cmd.marker(p)
                except CommandRefused as exc:
                    preview_lines = [str(exc)]
            # the label invites Enter only when the call would be played (13.2)
            label += "  (refused: see the panel)" if refused else "  (Enter to call)"
            label_at = np.array([p[0], p[1], max(p[2], 0.0) + h + 0.5])
        if self.odds_lines and self.odds_action is not None:
            shown = inp.previewed_action()
            if shown is not None and action_dict(shown) == self.odds_action:
                preview_lines = preview_lines + self.odds_lines
        self.preview.setText("\n".join(preview_lines))
        for marker in markers:
            geometry.attach_marker(self.markers_np, marker)
        self.ruler_label.node().set_text(label)
        if label_at is not None:
            # not over the turn banner and the Strategy pile line: a label that would show in
            # the window's top band comes down towards the table
            for _ in range(8):
                xy = self.world_to_screen(label_at)
                if xy is None or xy[1] < LABEL_TOP_Y or label_at[2] <= 0.3:
                    break
                label_at = np.array([label_at[0], label_at[1], max(0.3, label_at[2] * 0.6)])
            self.ruler_label.set_pos(LPoint3(*map(float, label_at)))
            self.ruler_label.set_scale(max(0.35, self.rig.distance * 0.018))

    def _unit_markers(self) -> list[Marker]:
        """A clear ring under the selected body; in top view a ring round every unit too
        (green: the current player's, red: another's), so units read as shapes from above."""
        s = self.session
        out: list[Marker] = []
        top = self.rig.pitch > 89.0
        for key, st in s.bodies.items():
            if key not in s.world.bodies or (st.damage.destroyed and key != self.selected):
                continue
            if key != self.selected and not (top and st.kind == "unit"):
                continue
            lo, hi = s.bounds(key)
            c = s.footprint_centre(key)
            r = 0.5 * math.hypot(hi[0] - lo[0], hi[1] - lo[1]) + 0.25
            if key == self.selected:
                out.append(Marker.ring((c[0], c[1], max(lo[2], 0.0) + 0.04), r + 0.1,
                                       colour=(1.0, 0.9, 0.2, 1.0), width=0.12))
            else:
                mine = st.owner == s.current_player
                out.append(Marker.ring((c[0], c[1], max(lo[2], 0.0) + 0.04), r,
                                       colour=(0.3, 1.0, 0.4, 0.9) if mine
                                       else (1.0, 0.3, 0.25, 0.9),
                                       width=0.1))
        return out

    def _name(self, key) -> str:
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


def _edge(lo, hi, towards) -> np.ndarray:
    from ..engine.measure import edge_point

    return edge_point(lo, hi, towards)


def _arc_fan(origin, towards, arc_points: int, reach: float) -> Marker:
    """The Firing Arc as a fan polyline from ``origin`` centred on ``towards`` (8.3)."""
    d = np.asarray(towards[:2], float) - np.asarray(origin[:2], float)
    base = math.atan2(d[1], d[0])
    half = math.radians(ARC_POINT_DEG * arc_points) / 2
    z = 0.06
    pts = [(origin[0], origin[1], z)]
    for a in np.linspace(base - half, base + half, 12):
        pts.append((origin[0] + reach * math.cos(a), origin[1] + reach * math.sin(a), z))
    pts.append((origin[0], origin[1], z))
    return Marker.path(pts, (1.0, 0.6, 0.15, 0.9), 2.0)


def shown_path(path: str | Path) -> str:
    """A path as a player wants to read it: relative to the working folder when inside it."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(p)


def _shown_in_log(e: dict) -> bool:
    """Whether the log panel shows an event: not bookkeeping, and impacts only from the
    Collision threshold up (the settling of a moved unit stays in the event log only)."""
    if e["type"] in _QUIET_EVENTS:
        return False
    if e["type"] == "impact" and float(e.get("normal_speed", math.inf)) < COLLISION_MIN_SPEED_IN_S:
        return False
    return True


def _log_line(e: dict, names: dict[str, str] | None = None) -> str:
    """A log event as the panel shows it: the whole line, body ids replaced by names."""
    t = e["type"]
    text = str(e["text"])
    if names:
        text = _NAME_RE_CACHE.sub(names, text)
    if t == "roll":
        return f"  die: {text}"
    return text


class _NameSubstitution:
    """Replaces whole-word body ids by their names (one compiled pattern per names map)."""

    def __init__(self):
        self._key = None
        self._re = None

    def sub(self, names: dict[str, str], text: str) -> str:
        key = id(names), len(names)
        if key != self._key:
            self._key = key
            ids = sorted(names, key=len, reverse=True)
            self._re = re.compile(r"(?<![\w'])(" + "|".join(map(re.escape, ids)) + r")(?![\w])") \
                if ids else None
        if self._re is None:
            return text
        return self._re.sub(lambda m: names[m.group(1)], text)


_NAME_RE_CACHE = _NameSubstitution()


def _plays_mbw(session) -> bool:
    return any(sys_.name == "micro_brick_war" for sys_ in session.systems)


def open_for_play(path: str | Path, seed: int | None = None, ldrawdir=None,
                  referee: bool = False) -> GameSession:
    """The game ``sandbox play`` opens: live play rolls real seeded dice, so a scene's
    ``forced_dice`` (for scripted runs re-enacting the book's examples) are not used; a save
    keeps the choice it was played with. ``referee``: a referee runs the table (``--referee``:
    the referee's tools are accepted).

    Raises
    ------
    SceneError, ReplayError
    """
    from ..engine.game import open_game

    return open_game(path, seed=seed, ldrawdir=ldrawdir, forced_dice=False, referee=referee)


def play(path: str | Path | None, ldrawdir=None, seed: int | None = None, width: int = 1280,
         height: int = 720, save_path: str | Path | None = None, join: str | None = None,
         token: str | None = None, ai=(), referee: bool = False) -> None:
    """Open the tabletop window on a scene (.toml) or a save file and run it (``ai``: seats
    the computer plays, Micro Brick War); with ``join`` (``ws://host:port``) and ``token``,
    play one seat of a server's game instead (``path``, optional then: the scene, whose folder
    holds its models).

    Raises
    ------
    SandboxError
        No display (``DISPLAY`` unset), before anything is loaded; a file or a seat refused.
    """
    from ..render.view import display_refusal

    if display_refusal("the tabletop window"):
        raise SandboxError(display_refusal("the tabletop window"))
    if join is not None:
        return _play_online(path, join, token or "", ldrawdir, width, height, save_path)
    session = open_for_play(path, seed=seed, ldrawdir=ldrawdir, referee=referee)
    p = Path(path)
    if ai and not _plays_mbw(session):
        session.close()
        raise SandboxError("--ai: the computer opponent plays Micro Brick War scenes only")
    for seat in ai:
        if seat not in session.players:
            session.close()
            raise SandboxError(f"--ai: {seat!r} is not one of the players {session.players}")
    app = TabletopApp(session, width, height, ai_seats=ai,
                      save_path=save_path or (p if p.suffix.lower() != ".toml" else None))
    try:
        app.run()
    finally:
        app.runner.join()


def _play_online(path, url: str, token: str, ldrawdir, width: int, height: int,
                 save_path) -> None:
    from ..net.window import NetLink

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
