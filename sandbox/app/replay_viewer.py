"""The replay window: a Panda3D ShowBase that plays a recorded game back.

``sandbox replay FILE`` opens it. Everything it shows comes from a
:class:`~sandbox.engine.playback.ReplayPlayback` (the pure playback model: frame, poses, events,
turn, jumps); the window only moves that cursor and reads state. It never changes the replay.

Controls
--------
============================  =========================================================
space                         play / pause
right / left (hold: repeat)   step one frame forward / back (pauses)
up / down                     faster / slower (1/16x .. 8x)
home / end                    first / last frame
n / p                         next / previous event (impacts, damage, explosions...; not
                              impacts within one wreck while the log hides them)
t                             jump to the next turn (after the last: back to turn 0, said
                              in the status line)
l                             hide / show the event log and dramatic moments panels
i                             show / hide impacts between two parts of one wreck in the log
                              (hidden at first; also the log's header button)
m, or 1..9, or a click        next dramatic moment, or the n-th biggest one, or the one
                              clicked in the list: it is shown at its own frame (paused),
                              its line highlighted and its bodies ringed
f                             camera: free orbit / follow the action
mouse left drag, a / d, w / s orbit (turn around, up and down)
mouse right drag              pan (free camera)
wheel, + / -, page up/down    zoom in / out
escape                        let go of the chosen moment (never closes)
q                             close (as at the tabletop)
============================  =========================================================

The bottom bar has the same buttons and a slider to scrub (the frame follows the thumb while
it is dragged); the panel on the right is the event log with every die rolled, in sync with
the frame shown; the panel on the left lists the dramatic moments.

Units: inches, Z up; the camera orbits a target point at a distance (inches), azimuth and
elevation (degrees).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
from panda3d.core import (
    AntialiasAttrib,
    DirectionalLight,
    GeomNode,
    GraphicsPipeSelection,
    LColor,
    LPoint3,
    LQuaternion,
    LVector3,
    LVector4,
    NodePath,
    Shader,
    TextNode,
    TransparencyAttrib,
    loadPrcFileData,
    unloadPrcFile,
)

from ..core.errors import ReplayError
from ..engine.playback import ReplayPlayback
from ..engine.replay import Replay
from ..engine.replay_index import DramaticMoment, bodies_present
from ..render import geometry, shaders
from ..render.from_game import far_mesh_of
from ..render.orbit_camera import OrbitCamera
from ..render.replay_view import EXPLOSION_SHOW_S, ReplayDrawing
from ..render.view import Marker
from .log_groups import group_events

#: Lines of the event log panel.
LOG_LINES = 18
#: Width of the event log panel (aspect-2d units; the window is 2 high) and the characters
#: of a line that fit in it.
LOG_WIDTH = 0.78
LOG_CHARS = 60
#: Dramatic moments longer than this (in font heights) wrap onto another line.
MOMENT_WRAP = 30.0
#: Vertical field of view of the window, degrees (as Camera.framing assumes).
FOV_DEG = 40.0
#: Colour of the rings around a chosen dramatic moment's bodies, and of its line's backing.
MOMENT_MARK = (1.0, 0.2, 0.9, 1.0)
MOMENT_LINE = (0.85, 0.45, 0.05, 0.8)
#: Follow camera: fraction of the way to its goal covered per second (exponential).
FOLLOW_RATE = 4.0
#: Colours of the event log by event type.
LOG_COLOURS = {
    "roll": (0.55, 0.9, 1.0, 1), "impact": (1.0, 0.9, 0.4, 1), "damage": (1.0, 0.55, 1.0, 1),
    "destroyed": (1.0, 0.35, 0.3, 1), "explosion": (1.0, 0.45, 0.2, 1),
    "action": (0.5, 1.0, 0.5, 1), "turn": (1, 1, 1, 1),
}


class ReplayViewer:
    """A window playing ``replay`` back.

    Parameters
    ----------
    replay : Replay
    assets : dict of str to BodyAsset
        Body meshes (:func:`~sandbox.engine.playback.replay_assets`).
    width, height : int
        Window size, pixels.
    shadows : bool or None
        Sun shadows (a depth pass per frame). None: on with a GPU, off on software GL
        (``$SANDBOX_SHADOWS`` decides when set).
    title : str, optional

    Raises
    ------
    ReplayError
        When no window can be opened (no display).
    """

    def __init__(self, replay: Replay, assets: dict, *, width: int = 1280, height: int = 720,
                 shadows: bool | None = None, title: str | None = None):
        from ..render.view import display_refusal

        if display_refusal("the replay window"):  # never a silent ":0"
            raise ReplayError(display_refusal("the replay window") + "; or use --export or "
                              "--info")
        self.replay = replay
        self.playback = ReplayPlayback(replay)
        self.drawing = ReplayDrawing.for_replay(replay, assets, edges=True)
        name = title or f"BrikWars replay: {replay.scene.get('name', '')}"
        loadPrcFileData("sandbox.replay_viewer", "\n".join([
            "load-display pandagl", "window-type onscreen", f"win-size {int(width)} {int(height)}",
            f"window-title {name}", "audio-library-name null", "sync-video false",
            "framebuffer-multisample 1", "multisamples 4", "notify-level-display error",
        ]))
        from direct.showbase.ShowBase import ShowBase

        # The windowed GL pipe by name: the offscreen renderer may have loaded the headless
        # one into this process first, and ShowBase would otherwise pick that.
        # Panda3D reads the process's environment once; name the display the caller set now
        # (for this window only: the page is unloaded again on close).
        self._display_page = loadPrcFileData("sandbox.replay_viewer.display",
                                             f"display {os.environ.get('DISPLAY', '')}") \
            if os.environ.get("DISPLAY") else None
        pipe = GraphicsPipeSelection.get_global_ptr().make_module_pipe("pandagl")
        if pipe is None or not pipe.is_valid():
            raise ReplayError("cannot open the replay window: no OpenGL display (is DISPLAY "
                              "set?). Use --export or --info without one")
        self.base = ShowBase(windowType="none")
        self.base.pipe = pipe
        if not self.base.openDefaultWindow(type="onscreen") or self.base.win is None:
            self.base.destroy()
            raise ReplayError("cannot open the replay window: no display (is DISPLAY set?). "
                              "Use --export or --info without one")
        self.base.disableMouse()
        from .table.window import software_gl_settings

        software_gl_settings(self.base)  # no multisampling on software GL (issue 26)
        # the vertical field of view Camera.framing assumes (Panda3D's default keeps 40
        # degrees across, which crops a wide window's framing top and bottom)
        self.base.camLens.set_min_fov(FOV_DEG)
        #: A one-off note shown in the status line until the next action (a wrapped turn).
        self.notice = ""
        self.base.setBackgroundColor(0.70, 0.80, 0.90, 1)
        self.follow = False
        #: Whether the log lists impacts between two parts of one wreck (``i``).
        self.show_wreck_impacts = False
        #: The dramatic moment chosen (index into :attr:`moments`), None when none is.
        self.chosen_moment: int | None = None
        self._updating_slider = False
        self._thumb_grab: float | None = None
        self._drag: tuple[str, float, float] | None = None
        if shadows is None:
            from ..render.shaders import default_shadows

            shadows = default_shadows(self.base.win.get_gsg().get_driver_renderer())
        self._build_scene(shadows)
        self._build_gui()
        self._bind_keys()
        self.camera = self._initial_camera()
        self.base.taskMgr.add(self._update_task, "replay-update")
        self.refresh()

    # ------------------------------------------------------------------ scene
    def _build_scene(self, shadows: bool) -> None:
        root = self.root = self.base.render.attach_new_node("replay")
        root.set_shader(Shader.make(Shader.SL_GLSL, *shaders.programs(shadows)))
        root.set_shader_input("u_sky", LVector4(0.46, 0.48, 0.52, 1))
        root.set_shader_input("u_ground", LVector4(0.24, 0.24, 0.22, 1))
        root.set_shader_input("u_shadow_texel", 1.0 / 2048)
        root.set_antialias(AntialiasAttrib.M_multisample)
        w, d = self.drawing.battlefield
        radius = math.hypot(w, d) / 2 + 10.0
        sun_node = DirectionalLight("sun")
        sun_node.set_color(LColor(0.78, 0.75, 0.68, 1))
        if shadows:
            sun_node.set_shadow_caster(True, 2048, 2048)
            sun_node.get_lens().set_film_size(2 * radius, 2 * radius)
            sun_node.get_lens().set_near_far(1.0, 2 * radius + 60.0)
        root.set_shader_input("u_shadow_offset", 3.0 * radius / 2048)
        sun = root.attach_new_node(sun_node)
        sdir = np.array([0.45, 0.75, -1.0]) / np.linalg.norm([0.45, 0.75, -1.0])
        sun.set_pos(LPoint3(*(-sdir * (radius + 20.0))))
        sun.look_at(LPoint3(0, 0, 0), LVector3(0, 0, 1))
        fill_node = DirectionalLight("fill")
        fill_node.set_color(LColor(0.16, 0.18, 0.22, 1))
        fill = root.attach_new_node(fill_node)
        fill.set_pos(LPoint3(*(np.array([sdir[0], sdir[1], -sdir[2] * 0.6]) * 10)))
        fill.look_at(LPoint3(0, 0, 0), LVector3(0, 0, 1))
        for light in (sun, fill):
            root.set_light(light)
        self._sun_node = sun_node
        self._table(root)
        self.body_nodes: dict[str, tuple[NodePath, NodePath, NodePath]] = {}
        # bodies draw their far level of detail where a stud pitch is a few pixels (the
        # minimum field of view spans the window's smaller side)
        far_switch = geometry.far_switch_distance(
            min(self.base.win.get_x_size(), self.base.win.get_y_size()), FOV_DEG) \
            if shaders.default_far_level(self.base.win.get_gsg().get_driver_renderer()) else None
        bodies = root.attach_new_node("bodies")
        for key in self.drawing.assets:
            holder = bodies.attach_new_node(key)
            parts = []
            for destroyed in (False, True):
                mesh = self.drawing.mesh(key, destroyed)
                far = None if far_switch is None else far_mesh_of(self.drawing.assets[key],
                                                                  destroyed)
                np_mesh = geometry.body_node(f"{key}:{'scorched' if destroyed else 'whole'}",
                                             mesh, far, far_switch)
                np_mesh.reparent_to(holder)
                parts.append(np_mesh)
            parts[1].hide()
            holder.hide()
            self.body_nodes[key] = (holder, parts[0], parts[1])
        #: Rings around the chosen dramatic moment's bodies (made as needed, reused).
        self.mark_nodes: list[NodePath] = []
        self.ring_nodes: list[tuple[dict, NodePath]] = []
        for e in self.replay.events:
            if e.get("type") == "explosion" and float(e.get("radius", 0) or 0) > 0 and "point" in e:
                node = geometry.attach_marker(root, Marker.ring(e["point"], e["radius"]))
                node.set_transparency(TransparencyAttrib.M_alpha)
                node.hide()
                self.ring_nodes.append((e, node))

    def _table(self, root: NodePath) -> None:
        w, d = self.drawing.battlefield
        v, n = geometry.box_triangles(np.array([-w / 2, -d / 2, -0.75]),
                                      np.array([w / 2, d / 2, 0]))
        top = np.asarray(self.drawing.ground_colour, np.float32)
        side = top * np.array([0.55, 0.5, 0.45, 1.0], np.float32)
        cols = np.where(n[:, 2:3] > 0.5, top, side).astype(np.float32)
        node = GeomNode("table")
        node.add_geom(geometry.triangles_geom("table", v, n, cols))
        root.attach_new_node(node)
        segs, colours = [], []
        for x in np.arange(math.ceil(-w / 2), math.floor(w / 2) + 1):
            segs.append([[x, -d / 2, 0.01], [x, d / 2, 0.01]])
            colours.append(0.45 if x % 6 == 0 else 0.18)
        for y in np.arange(math.ceil(-d / 2), math.floor(d / 2) + 1):
            segs.append([[-w / 2, y, 0.01], [w / 2, y, 0.01]])
            colours.append(0.45 if y % 6 == 0 else 0.18)
        dark = top[:3] * 0.45
        cols = np.array([(*dark, a) for a in colours], np.float32)
        gnode = GeomNode("grid")
        gnode.add_geom(geometry.lines_geom("grid", np.asarray(segs, np.float32), cols))
        grid = root.attach_new_node(gnode)
        grid.set_light_off(1)
        grid.set_shader_off(1)
        grid.set_depth_offset(1)
        grid.set_transparency(TransparencyAttrib.M_alpha)
        grid.set_depth_write(False)

    def _initial_camera(self) -> OrbitCamera:
        poses = self.replay.poses_at(0)
        bounds = self.drawing.action_bounds(poses) if poses else None
        if bounds is None:
            w, d = self.drawing.battlefield
            bounds = np.array([[-w / 2, -d / 2, 0], [w / 2, d / 2, 4]])
        cam = self.drawing.camera_for_bounds(bounds, self._aspect(), azimuth_deg=30.0,
                                             elevation_deg=35.0)
        off = cam.eye - cam.target
        dist = float(np.linalg.norm(off))
        el = math.degrees(math.asin(off[2] / dist))
        az = math.degrees(math.atan2(off[0], -off[1]))
        return OrbitCamera(np.asarray(cam.target, float), dist, az, el, min_elevation=3.0,
                           max_elevation=89.0, max_distance=2000.0)

    def _aspect(self) -> float:
        win = self.base.win
        return win.get_x_size() / max(win.get_y_size(), 1)

    # ------------------------------------------------------------------ GUI
    def _build_gui(self) -> None:
        from direct.gui import DirectGuiGlobals as DGG
        from direct.gui.DirectGui import DirectButton, DirectFrame, DirectSlider
        from direct.gui.OnscreenText import OnscreenText

        a2d = self.base.a2dBottomCenter
        self.bar = DirectFrame(parent=a2d, frameColor=(0, 0, 0, 0.55),
                               frameSize=(-2.0, 2.0, 0.0, 0.22), pos=(0, 0, 0))
        buttons = [("|<", lambda: self.playback.seek(0)), ("<<", self._previous_event),
                   ("<", lambda: self.playback.step(-1)), ("Play", self.playback.toggle),
                   (">", lambda: self.playback.step(1)), (">>", self._next_event),
                   (">|", lambda: self.playback.seek(self.playback.frames - 1)),
                   ("-", self.playback.slower), ("+", self.playback.faster),
                   ("Turn", self._next_turn), ("Moment", self._next_moment),
                   ("Free cam", self._toggle_follow)]
        self.buttons: dict[str, object] = {}
        x = -1.22
        for label, action in buttons:
            width = 0.08 + 0.035 * len(label)
            b = DirectButton(parent=self.bar, text=label, scale=0.045,
                             pos=(x + width / 2, 0, 0.035),
                             command=self._do, extraArgs=[action], frameColor=(0.85, 0.85, 0.85, 1),
                             pad=(0.3, 0.2))
            self.buttons[label] = b
            x += width + 0.015
        self.slider = DirectSlider(parent=self.bar, range=(0, max(self.playback.frames - 1, 1)),
                                   value=0, pageSize=1, pos=(0, 0, 0.165), scale=(1.2, 1, 0.5),
                                   command=self._on_slider)
        # a click on the track jumps there (DirectSlider alone pages by pageSize)
        self.slider.bind(DGG.B1PRESS, self._on_track_click)
        self.status = OnscreenText(parent=self.bar, text="", pos=(-1.22, 0.105), scale=0.042,
                                   align=TextNode.A_left, fg=(1, 1, 1, 1), mayChange=True)
        # the event log: a narrow see-through column on the right (L hides both panels); its
        # header button (or i) shows or hides impacts between two parts of one wreck
        self.log_frame = DirectFrame(parent=self.base.a2dTopRight, frameColor=(0, 0, 0, 0.3),
                                     frameSize=(-LOG_WIDTH, -0.01, -0.08 - 0.04 * LOG_LINES,
                                                -0.01))
        self.wreck_button = DirectButton(
            parent=self.log_frame, text=_wreck_label(False), scale=0.026,
            text_align=TextNode.A_left,
            pos=(-LOG_WIDTH + 0.02, 0, -0.05), frameColor=(0.85, 0.85, 0.85, 0.9),
            pad=(0.3, 0.2), command=self._do, extraArgs=[self._toggle_wreck_impacts])
        self.log_texts = [OnscreenText(parent=self.log_frame, text="", align=TextNode.A_left,
                                       pos=(-LOG_WIDTH + 0.02, -0.09 - 0.04 * i), scale=0.028,
                                       fg=(1, 1, 1, 1), mayChange=True, wordwrap=None)
                          for i in range(LOG_LINES)]
        #: The moments listed (the nine biggest), numbered 1..9 as the keys.
        self.moments: list[DramaticMoment] = self.playback.index.ranked()[:9]
        moments = self.moments
        self.moment_frame = DirectFrame(parent=self.base.a2dTopLeft, frameColor=(0, 0, 0, 0.3),
                                        frameSize=(0.01, 0.5, -0.07 - 0.04 * len(moments), -0.01))
        title = OnscreenText(parent=self.moment_frame,
                             text="Dramatic moments (click, 1-9, m; L hides)",
                             pos=(0.03, -0.05), scale=0.03, align=TextNode.A_left,
                             fg=(1, 0.85, 0.3, 1))
        self.moment_texts = [title]
        #: One clickable line per moment (its backing lights up when it is chosen).
        self.moment_lines: list[DirectFrame] = []
        y = -0.09
        for i, m in enumerate(moments):  # long lines wrap (indented), none is cut off
            line = DirectFrame(parent=self.moment_frame, frameColor=(0, 0, 0, 0),
                               state=DGG.NORMAL, pos=(0, 0, y))
            t = OnscreenText(parent=line, scale=0.027, align=TextNode.A_left,
                             pos=(0.03, 0), fg=(1, 1, 1, 1), wordwrap=MOMENT_WRAP,
                             text=f"{i + 1}  {m.time:5.2f}s  {m.kind}: {m.text}")
            line.bind(DGG.B1PRESS, lambda _param, n=i + 1: self._do(
                lambda: self._choose_moment(n)))
            self.moment_texts.append(t)
            self.moment_lines.append(line)
            rows = max(t.textNode.get_num_rows(), 1)
            step = 0.04 + 0.027 * t.textNode.get_line_height() * (rows - 1)
            line.setPythonTag("rows_height", step)
            y -= step
        widest = max(t.textNode.get_width() * 0.027 for t in self.moment_texts[1:]) \
            if moments else 0.0
        widest = max(widest, title.textNode.get_width() * 0.03)
        for line in self.moment_lines:
            line["frameSize"] = (0.015, 0.045 + widest,
                                 0.03 - line.getPythonTag("rows_height"), 0.03)
        self.moment_frame["frameSize"] = (0.01, 0.05 + widest, y + 0.02, -0.01)

    def _do(self, action) -> None:
        self.notice = ""
        action()
        self.refresh()

    def _next_event(self) -> int:
        """The next event's frame (n), skipping impacts within a wreck while they are hidden."""
        return self.playback.next_event(wreck_impacts=self.show_wreck_impacts)

    def _previous_event(self) -> int:
        """The previous event's frame (p), as :meth:`_next_event`."""
        return self.playback.previous_event(wreck_impacts=self.show_wreck_impacts)

    def _toggle_wreck_impacts(self) -> None:
        """Show or hide impacts between two parts of one wreck in the log (i)."""
        self.show_wreck_impacts = not self.show_wreck_impacts

    def _slider_dragged(self) -> bool:
        """Whether the slider's thumb is held down (being dragged)."""
        return bool(self.slider.thumb.guiItem.is_button_down())

    def _on_slider(self) -> None:
        # DirectSlider reports every change, ours from refresh() too (later, as an event):
        # only a value away from the frame shown is the user scrubbing.
        frame = int(round(self.slider["value"]))
        if self._updating_slider or frame == self.playback.frame:
            return
        self.playback.pause()
        self.playback.seek(frame)

    def _on_track_click(self, param) -> None:
        """A click on the slider's track: jump to the frame under the mouse."""
        if param is None or not hasattr(param, "get_mouse"):
            return
        m = param.get_mouse()
        x = self.slider.get_relative_point(self.base.render2d, LPoint3(m[0], 0, m[1]))[0]
        self.playback.pause()
        self.playback.seek_fraction(self._track_fraction(x))
        self.refresh()

    def _track_fraction(self, x: float) -> float:
        """Where the thumb's centre at slider x ``x`` lies along its travel, 0..1 (unclamped)."""
        frame = self.slider.guiItem.get_frame()
        thumb = self.slider.thumb.guiItem.get_frame()
        half_thumb = (thumb[1] - thumb[0]) / 2  # the thumb's centre travels inside the frame
        lo, hi = frame[0] + half_thumb, frame[1] - half_thumb
        return (x - lo) / (hi - lo) if hi > lo else 0.0

    def _follow_thumb(self) -> None:
        """While the thumb is held, put it (and the frame shown) under the pointer now.

        Panda3D's slider moves its thumb from the pointer of the previous motion event, a
        step behind a moving mouse; the thumb is placed here from the pointer of this frame,
        keeping the offset at which it was grabbed."""
        m = self._mouse()
        if not self._slider_dragged() or m is None:
            self._thumb_grab = None
            return
        x = self.slider.get_relative_point(self.base.render2d, LPoint3(m[0], 0, m[1]))[0]
        if self._thumb_grab is None:  # just grabbed: keep the pointer where it took the thumb
            self._thumb_grab = self.slider.thumb.get_x(self.slider) - x
        frac = min(max(self._track_fraction(x + self._thumb_grab), 0.0), 1.0)
        lo, hi = self.slider["range"]
        self.slider.guiItem.set_value(lo + frac * (hi - lo))
        frame = int(round(frac * (self.playback.frames - 1)))
        if frame != self.playback.frame:
            self.playback.pause()
            self.playback.seek(frame)

    def _next_turn(self) -> None:
        turns = self.playback.index.turns()
        later = [t for t in turns if t > self.playback.turn]
        if later:
            self.playback.jump_to_turn(later[0])
        else:
            self.playback.jump_to_turn(turns[0])
            self.notice = f"turn {turns[-1]} was the last: back to turn {turns[0]}"

    def _toggle_panels(self) -> None:
        """Show or hide the event log and the dramatic moments (L)."""
        for panel in (self.log_frame, self.moment_frame):
            panel.hide() if not panel.is_hidden() else panel.show()

    def _toggle_follow(self) -> None:
        self.follow = not self.follow
        self.buttons["Free cam"]["text"] = "Follow cam" if self.follow else "Free cam"

    def _choose_moment(self, number: int) -> DramaticMoment | None:
        """Show the ``number``-th listed moment (1-based) at its own frame, paused, its line
        highlighted and its bodies ringed; None when the list is shorter."""
        if not 1 <= number <= len(self.moments):
            return None
        m = self.playback.jump_to_moment(number)
        self.playback.pause()
        self.chosen_moment = number - 1
        return m

    def _next_moment(self) -> DramaticMoment | None:
        """The listed moment after the chosen one in time (several may share a frame), or the
        first after the frame shown; back to the first after the last."""
        if not self.moments:
            return None
        order = sorted(range(len(self.moments)), key=lambda i: (self.moments[i].frame, i))
        if self.chosen_moment is not None:
            at = order.index(self.chosen_moment)
            nxt = order[(at + 1) % len(order)]
        else:
            later = [i for i in order if self.moments[i].frame > self.playback.frame]
            nxt = later[0] if later else order[0]
        return self._choose_moment(nxt + 1)

    def moment_bodies(self) -> list[str]:
        """Keys of the chosen moment's bodies on the table now: the bodies themselves, or,
        for a creation that has broken up, its pieces (``key#n``)."""
        if self.chosen_moment is None:
            return []
        return bodies_present(self.moments[self.chosen_moment].bodies, self.playback.poses())

    # ------------------------------------------------------------------ input
    def _bind_keys(self) -> None:
        pb = self.playback
        binds = {
            "space": pb.toggle, "arrow_right": lambda: pb.step(1),
            "arrow_right-repeat": lambda: pb.step(1), "arrow_left": lambda: pb.step(-1),
            "arrow_left-repeat": lambda: pb.step(-1), "arrow_up": pb.faster,
            "arrow_down": pb.slower, "home": lambda: pb.seek(0),
            "end": lambda: pb.seek(pb.frames - 1), "n": self._next_event,
            "p": self._previous_event,
            "t": self._next_turn, "m": self._next_moment, "f": self._toggle_follow,
            "l": self._toggle_panels, "i": self._toggle_wreck_impacts,
            "a": lambda: self.camera.orbit(-10, 0), "d": lambda: self.camera.orbit(10, 0),
            "w": lambda: self.camera.orbit(0, 5), "s": lambda: self.camera.orbit(0, -5),
            # as at the tabletop: + and - zoom, Q closes, Esc only cancels
            "+": lambda: self.camera.zoom(0.85), "=": lambda: self.camera.zoom(0.85),
            "-": lambda: self.camera.zoom(1 / 0.85),
            "page_up": lambda: self.camera.zoom(0.85),
            "page_down": lambda: self.camera.zoom(1 / 0.85),
            "escape": self._escape,
            "wheel_up": lambda: self.camera.zoom(0.9),
            "wheel_down": lambda: self.camera.zoom(1 / 0.9),
        }
        for i in range(1, 10):
            binds[str(i)] = (lambda n=i: self._choose_moment(n))
        for key, fn in binds.items():
            self.base.accept(key, self._do, [fn])
        for button, mode in (("mouse1", "orbit"), ("mouse3", "pan")):
            self.base.accept(button, self._start_drag, [mode])
            self.base.accept(button + "-up", self._end_drag)
        self.base.accept("q", self.base.taskMgr.stop)

    def _escape(self) -> None:
        """Esc, as at the tabletop: lets go of the chosen moment; never closes (Q does)."""
        if self.chosen_moment is not None:
            self.chosen_moment = None
            self.notice = "moment let go"
        else:
            self.notice = "nothing to cancel (Q closes)"

    def _mouse(self) -> tuple[float, float] | None:
        mw = self.base.mouseWatcherNode
        if mw is None or not mw.has_mouse():
            return None
        return mw.get_mouse_x(), mw.get_mouse_y()

    def _start_drag(self, mode: str) -> None:
        m = self._mouse()
        if m is not None and m[1] > -0.55:  # not on the control bar
            self._drag = (mode, *m)

    def _end_drag(self) -> None:
        self._drag = None

    # ------------------------------------------------------------------ per frame
    def _update_task(self, task):
        dt = min(self.base.clock.get_dt(), 0.1)
        if self._drag is not None:
            m = self._mouse()
            if m is not None:
                mode, x0, y0 = self._drag
                dx, dy = m[0] - x0, m[1] - y0
                if mode == "orbit":
                    self.camera.orbit(-dx * 120, -dy * 60)
                else:
                    self.camera.pan_view(-dx * 0.5, -dy * 0.5)
                self._drag = (mode, *m)
        self._follow_thumb()
        if self.playback.playing:
            self.playback.advance(dt)
        self._follow(dt)
        self.refresh()
        return task.cont

    def _follow(self, dt: float) -> None:
        if not self.follow:
            return
        poses = self.playback.poses()
        keys = self.playback.moving(0.3)
        bounds = self.drawing.action_bounds(poses, keys) if keys else None
        if bounds is None:
            return
        goal = self.drawing.camera_for_bounds(bounds, self._aspect(), self.camera.azimuth,
                                              self.camera.elevation)
        k = 1.0 - math.exp(-FOLLOW_RATE * dt) if dt > 0 else 1.0
        goal_dist = float(np.linalg.norm(goal.eye - goal.target))
        self.camera.target = self.camera.target + k * (np.asarray(goal.target) - self.camera.target)
        self.camera.distance += k * (goal_dist - self.camera.distance)

    def refresh(self) -> None:
        """Show the playback's frame: poses, scorching, rings, camera, log, controls."""
        pb = self.playback
        poses = pb.poses()
        dead = pb.destroyed()
        for key, (holder, whole, scorched) in self.body_nodes.items():
            if key not in poses:
                holder.hide()
                continue
            holder.show()
            pos, q = poses[key]
            holder.set_pos_quat(LPoint3(*pos), LQuaternion(q[3], q[0], q[1], q[2]))
            if key in dead:
                whole.hide()
                scorched.show()
            else:
                whole.show()
                scorched.hide()
        now = pb.time
        for e, node in self.ring_nodes:
            shown = 0.0 <= now - float(e["time"]) <= EXPLOSION_SHOW_S and pb.frame >= \
                pb.index.frame_at(float(e["time"]))
            node.show() if shown else node.hide()
        cam = self.base.camera
        cam.set_pos(LPoint3(*self.camera.eye()))
        cam.look_at(LPoint3(*self.camera.target), LVector3(0, 0, 1))
        if int(round(self.slider["value"])) != pb.frame and not self._slider_dragged():
            self._updating_slider = True
            try:
                self.slider["value"] = pb.frame
            finally:
                self._updating_slider = False
        self.buttons["Play"]["text"] = "Pause" if pb.playing else "Play"
        self.status.setText(
            f"{pb.time:6.3f} s   frame {pb.frame + 1}/{pb.frames}   turn {pb.turn}   "
            f"speed {pb.speed:g}x   {'playing' if pb.playing else 'paused'}   "
            f"camera {'follow' if self.follow else 'free'}"
            + (f"   -- {self.notice}" if self.notice else ""))
        label = _wreck_label(self.show_wreck_impacts)
        if self.wreck_button["text"] != label:
            self.wreck_button["text"] = label
            self.wreck_button.resetFrameSize()
        self._show_moment()
        lines = pb.log_events(wreck_impacts=self.show_wreck_impacts)
        if not self.show_wreck_impacts:  # one line per broken body (i: every part's line)
            lines = group_events(lines)
        lines = lines[-LOG_LINES:]
        for i, t in enumerate(self.log_texts):
            if i < len(lines):
                e = lines[i]
                t.setText(_shorten(f"{float(e.get('time', 0)):6.3f}  {e.get('text', '')}",
                                   LOG_CHARS))
                t.setFg(LOG_COLOURS.get(e.get("type"), (0.9, 0.9, 0.9, 1)))
            else:
                t.setText("")

    def _show_moment(self) -> None:
        """Highlight the chosen moment's line and ring its bodies; a moment is let go once
        the frame shown leaves its clip."""
        i = self.chosen_moment
        if i is not None:
            m = self.moments[i]
            if not m.start_frame <= self.playback.frame <= m.end_frame:
                i = self.chosen_moment = None
        for n, line in enumerate(self.moment_lines):
            line["frameColor"] = MOMENT_LINE if n == i else (0, 0, 0, 0)
        keys = self.moment_bodies()
        while len(self.mark_nodes) < len(keys):
            node = geometry.attach_marker(self.root, Marker.ring((0, 0, 0), 1.0, MOMENT_MARK,
                                                                 width=0.1))
            node.set_bin("fixed", 10)
            node.set_depth_test(False)
            node.set_depth_write(False)
            self.mark_nodes.append(node)
        poses = self.playback.poses()
        for n, node in enumerate(self.mark_nodes):
            if n >= len(keys):
                node.hide()
                continue
            pos, _ = poses[keys[n]]
            r = max(self.drawing.radius.get(keys[n], 1.0), 1.0) * 1.15
            node.set_pos(LPoint3(float(pos[0]), float(pos[1]), float(pos[2])))
            node.set_scale(r)
            node.show()

    # ------------------------------------------------------------------ outside use
    def step(self, frames: int = 1) -> None:
        """Run ``frames`` turns of Panda3D's task loop (draws and handles events)."""
        for _ in range(int(frames)):
            self.base.taskMgr.step()

    def screenshot(self) -> np.ndarray:
        """The window's picture now, (height, width, 4) uint8 RGBA, row 0 at the top."""
        self.base.graphicsEngine.render_frame()
        self.base.graphicsEngine.render_frame()
        tex = self.base.win.get_screenshot()
        if tex is None or not tex.has_ram_image():
            raise ReplayError("the replay window gave no picture")
        data = np.frombuffer(bytes(tex.get_ram_image_as("RGBA")), np.uint8)
        return np.ascontiguousarray(data.reshape(tex.get_y_size(), tex.get_x_size(), 4)[::-1])

    def run(self) -> None:
        """Hand over to Panda3D's main loop until escape (or the window is closed)."""
        try:
            self.base.run()
        finally:
            self.close()

    def close(self) -> None:
        """Close the window and free Panda3D's ShowBase (another viewer may open later)."""
        if getattr(self, "base", None) is None:
            return
        self._sun_node.set_shadow_caster(False)
        base, self.base = self.base, None
        # Panda3D's task manager and messenger outlive a ShowBase: take our task, key
        # bindings and widgets away before it goes.
        base.taskMgr.remove("replay-update")
        base.ignoreAll()
        for widget in (self.bar, self.log_frame, self.moment_frame):
            widget.destroy()
        self.root.remove_node()
        base.destroy()
        if self._display_page is not None:
            unloadPrcFile(self._display_page)
            self._display_page = None


def _wreck_label(shown: bool) -> str:
    """The log header button's text."""
    return "wreck impacts shown (i hides)" if shown else "wreck impacts hidden (i shows)"


def _shorten(text: str, n: int) -> str:
    """``text`` cut to ``n`` characters, with an ellipsis when cut."""
    return text if len(text) <= n else text[: n - 3].rstrip() + "..."


def open_viewer(path: str | Path, ldrawdir: str | Path | None = None, **kwargs) -> ReplayViewer:
    """Load a replay file, rebuild its bodies and open the window on it.

    Raises
    ------
    ReplayError
        A missing or corrupted file, a scene that cannot be rebuilt, or no display.
    """
    from ..engine.playback import replay_assets
    from ..engine.replay import load_replay

    replay = load_replay(path)
    assets = replay_assets(replay, base_dir=Path(path).resolve().parent, ldrawdir=ldrawdir)
    return ReplayViewer(replay, assets, **kwargs)
