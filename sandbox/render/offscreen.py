"""Offscreen Panda3D rendering of a :class:`~sandbox.render.view.SceneView`.

No ShowBase: an :class:`OffscreenRenderer` owns its own GraphicsEngine and offscreen buffer,
so any number can be made, used and closed in one process (tests, batch picture runs). It
works with software GL (Mesa llvmpipe through EGL, Panda3D's ``p3headlessgl``).

Each render builds the scene under a fresh node, draws it and removes it again, so nothing
leaks from one picture into the next. GPU copies of meshes are cached per
:class:`~sandbox.render.view.RenderMesh` object (weakly), so replaying many frames of the
same creations does not rebuild their geometry.

Lighting: a sky/ground hemisphere ambient, a directional "sun" that casts shadows and a weak
fill light, computed by the small GLSL program in :mod:`sandbox.render.shaders` (Panda3D's
``setShaderAuto`` generates Cg, which fails on llvmpipe). The sun's orthographic shadow lens
is sized to the scene's bounds every picture. Anti-aliasing: 4x multisampling when the GL
driver grants it (llvmpipe does). Lines (edges, grid, overlays) use fixed-function GL.
"""

from __future__ import annotations

import math
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from panda3d.core import (
    AntialiasAttrib,
    BitMask32,
    DirectionalLight,
    FrameBufferProperties,
    GeomNode,
    GraphicsEngine,
    GraphicsOutput,
    GraphicsPipe,
    GraphicsPipeSelection,
    LColor,
    LPoint3,
    LQuaternion,
    LVector3,
    LVector4,
    NodePath,
    OrthographicLens,
    PerspectiveLens,
    Shader,
    Texture,
    TransparencyAttrib,
    WindowProperties,
    loadPrcFileData,
)
from panda3d.core import (
    Camera as PandaCamera,
)

from sandbox.render import geometry, shaders
from sandbox.render.view import RenderBody, RenderError, RenderMesh, SceneView

__all__ = ["OffscreenRenderer", "RenderStats", "render_array", "render_png"]

loadPrcFileData(
    "sandbox.render",
    "\n".join(
        [
            "load-display p3headlessgl",
            "aux-display p3headlessgl",
            "window-type offscreen",
            "audio-library-name null",
            "sync-video false",
            "notify-level-egldisplay error",
            "notify-level-display error",
            "model-cache-dir",
            "textures-power-2 none",
        ]
    ),
)

#: Highlighted bodies: colour scale and outline colour.
_HIGHLIGHT_SCALE = (1.25, 1.2, 0.75, 1.0)
_HIGHLIGHT_EDGE = (1.0, 0.85, 0.1, 1.0)
_TABLE_THICKNESS = 0.75  # inches of table edge under the top
#: Grid lines and rings float this far (inches) above their surface; together with a depth
#: offset this keeps them visible from straight above, where a depth offset alone is not enough.
_OVERLAY_LIFT = geometry.OVERLAY_LIFT
_VIEW_MASK = BitMask32.bit(0)  # the picture's camera
_SHADOW_MASK = geometry.SHADOW_MASK  # the sun's shadow camera


#: Share of the picture's width and height drawn in the first frame of a renderer with
#: shadows (only to make the shadow buffer; see :meth:`OffscreenRenderer.render`).
_PRIMING_REGION: float = 0.002

@dataclass(frozen=True)
class RenderStats:
    """What the last picture cost.

    Attributes
    ----------
    bodies : int
        Bodies drawn.
    body_geoms : int
        Geoms (draw calls) the bodies used: 1 per body plus 1 per body with edges and 1
        per body with optional lines.
    geoms : int
        All Geoms in the scene (bodies, table, grid, markers).
    triangles : int
        Triangles of the bodies.
    seconds : float
        Wall time of :meth:`OffscreenRenderer.render`, building included.
    """

    bodies: int
    body_geoms: int
    geoms: int
    triangles: int
    seconds: float


_PIPE: GraphicsPipe | None = None
#: The headless pipe's GL renderer string, once a buffer has been made on it.
_PIPE_RENDERER: str | None = None


def _default_multisamples() -> int:
    """``$SANDBOX_MSAA``, else 4 with a GPU and 0 on software GL (issue 26: every sample is
    CPU time there). The renderer is read from a 16 x 16 buffer the first time."""
    import os

    want = os.environ.get("SANDBOX_MSAA", "").strip()
    if want:
        try:
            return max(int(want), 0)
        except ValueError:
            raise RenderError(f"SANDBOX_MSAA={want!r} is not a number of samples "
                              "(0, 2, 4, 8)") from None
    global _PIPE_RENDERER
    if _PIPE_RENDERER is None:
        probe = OffscreenRenderer(16, 16, shadows=False, multisamples=0)
        probe.close()
    return 0 if shaders.is_software_gl(_PIPE_RENDERER or "") else 4


#: Pipes of threads other than the one that made :data:`_PIPE`, with their thread (a pipe
#: made in one thread and used in another gives that thread's buffers a GL context without
#: GLSL). Never dropped: a pipe that goes terminates the EGL display every other pipe of the
#: process uses, and one destroyed as its thread ended raced the interpreter's exit. One
#: thread draws ``sandbox run``'s pictures for the whole process, so this stays short.
_THREAD_PIPES: list[tuple[threading.Thread, GraphicsPipe]] = []
_PIPE_THREAD: int | None = None


def _pipe() -> GraphicsPipe:
    """The thread's headless GL pipe (made once a thread: a pipe is a driver handle, not a
    scene). The main thread's is :data:`_PIPE`; another thread that renders (a program's
    own: ``sandbox run`` draws its PNG in a process, :mod:`sandbox.render.png_process`)
    gets one of its own."""
    global _PIPE, _PIPE_THREAD
    me = threading.get_ident()
    if _PIPE is not None and _PIPE_THREAD == me:
        return _PIPE
    thread = threading.current_thread()
    for who, own in _THREAD_PIPES:
        if who is thread:
            return own
    pipe = GraphicsPipeSelection.get_global_ptr().make_module_pipe("p3headlessgl")
    if pipe is None or not pipe.is_valid():
        raise RenderError("no headless GL pipe (p3headlessgl): is EGL/Mesa installed?")
    if _PIPE is None and thread is threading.main_thread():
        _PIPE, _PIPE_THREAD = pipe, me
    else:
        _THREAD_PIPES.append((thread, pipe))
    return pipe


class OffscreenRenderer:
    """An offscreen buffer and engine that turn :class:`SceneView` records into pictures.

    Parameters
    ----------
    width, height : int
        Picture size in pixels.
    shadows : bool or None
        Let the sun cast shadows (a 2048² depth map; roughly doubles the cost on llvmpipe).
        None: :func:`~sandbox.render.shaders.default_shadows` of the GL renderer (off on
        software GL unless ``$SANDBOX_SHADOWS`` says on).
    multisamples : int or None
        MSAA samples asked for (0 turns anti-aliasing off); the driver may grant fewer.
        None: ``$SANDBOX_MSAA`` when set, else 4 with a GPU and none on software GL.
    shadow_size : int
        Side of the shadow depth map, pixels.

    Examples
    --------
    >>> with OffscreenRenderer(320, 240) as r:          # doctest: +SKIP
    ...     image = r.render(SceneView())                 # (240, 320, 4) uint8
    """

    def __init__(self, width: int = 800, height: int = 600, *, shadows: bool | None = True,
                 multisamples: int | None = 4, shadow_size: int = 2048):
        if not (16 <= int(width) <= 8192 and 16 <= int(height) <= 8192):
            raise RenderError(f"picture size must be 16..8192 pixels, got {width}x{height}")
        self.width, self.height = int(width), int(height)
        if multisamples is None:
            multisamples = _default_multisamples()
        self._mesh_cache: weakref.WeakKeyDictionary[RenderMesh, tuple] = (
            weakref.WeakKeyDictionary()
        )
        self.last_stats: RenderStats | None = None

        pipe = _pipe()
        self._engine = GraphicsEngine(pipe)
        fb = FrameBufferProperties()
        fb.set_rgb_color(True)
        fb.set_rgba_bits(8, 8, 8, 8)
        fb.set_depth_bits(24)
        if multisamples > 0:
            fb.set_multisamples(int(multisamples))
        flags = GraphicsPipe.BF_refuse_window
        buf = self._engine.make_output(pipe, "sandbox-offscreen", 0, fb,
                                       WindowProperties.size(self.width, self.height), flags)
        if buf is None and multisamples > 0:  # the driver refused MSAA: go without
            fb.set_multisamples(0)
            buf = self._engine.make_output(pipe, "sandbox-offscreen", 0, fb,
                                           WindowProperties.size(self.width, self.height), flags)
        if buf is None:
            raise RenderError(f"could not make a {self.width}x{self.height} offscreen buffer")
        self._buffer = buf
        self._engine.open_windows()
        #: MSAA samples the driver granted (0: no anti-aliasing).
        self.multisamples = buf.get_fb_properties().get_multisamples()
        #: GL renderer string, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
        self.gl_renderer = buf.get_gsg().get_driver_renderer()
        global _PIPE_RENDERER
        _PIPE_RENDERER = self.gl_renderer
        self.shadows = (shaders.default_shadows(self.gl_renderer) if shadows is None
                        else bool(shadows))

        self._texture = Texture("sandbox-frame")
        buf.add_render_texture(self._texture, GraphicsOutput.RTM_copy_ram,
                               GraphicsOutput.RTP_color)

        self._root = NodePath("render")
        self._shader = Shader.make(Shader.SL_GLSL, *shaders.programs(self.shadows))
        self._root.set_shader(self._shader)
        self._shadow_size = int(shadow_size)
        self._root.set_shader_input("u_sky", LVector4(0.46, 0.48, 0.52, 1))
        self._root.set_shader_input("u_ground", LVector4(0.24, 0.24, 0.22, 1))
        self._root.set_shader_input("u_shadow_texel", 1.0 / self._shadow_size)
        self._root.set_shader_input("u_shadow_offset", 0.02)
        if self.multisamples > 0:
            self._root.set_antialias(AntialiasAttrib.M_multisample)

        self._lens = PerspectiveLens()
        cam_node = PandaCamera("camera", self._lens)
        self._camera = self._root.attach_new_node(cam_node)
        self._region = buf.make_display_region()
        self._region.set_camera(self._camera)
        cam_node.set_camera_mask(_VIEW_MASK)

        # Lights persist across renders (their shadow buffers are made once, not per picture).
        self._sun_node = DirectionalLight("sun")
        self._sun_node.set_color(LColor(0.78, 0.75, 0.68, 1))
        self._sun = self._root.attach_new_node(self._sun_node)
        if self.shadows:
            self._sun_node.set_shadow_caster(True, self._shadow_size, self._shadow_size)
            self._sun_node.set_camera_mask(_SHADOW_MASK)
        self._fill_node = DirectionalLight("fill")  # soft sky bounce from the opposite side
        self._fill_node.set_color(LColor(0.16, 0.18, 0.22, 1))
        self._fill = self._root.attach_new_node(self._fill_node)
        for light in (self._sun, self._fill):
            self._root.set_light(light)
        self._closed = False
        self._shadow_ready = False

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        """Release the buffer and engine. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self._mesh_cache.clear()
        # the light holds its shadow buffer (and so the GL context) until told otherwise
        self._sun_node.set_shadow_caster(False)
        self._root.remove_node()
        self._engine.remove_all_windows()
        self._buffer = None

    def __enter__(self) -> OffscreenRenderer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort at interpreter exit
        try:
            self.close()
        except Exception:  # noqa: BLE001 - never raise from a finaliser
            pass

    # -- public ----------------------------------------------------------------------------

    @property
    def backend(self) -> str:
        """Short name of the GL implementation for golden-image names: "llvmpipe" or other."""
        name = self.gl_renderer.split("(")[0].strip().lower()
        return "".join(c if c.isalnum() else "_" for c in name).strip("_") or "unknown"

    @property
    def scene_node_count(self) -> int:
        """Nodes in the renderer's scene graph now (constant between renders: no leaks)."""
        return self._root.find_all_matches("**").get_num_paths()

    def render(self, view: SceneView) -> np.ndarray:
        """Draw ``view`` and return the picture.

        Parameters
        ----------
        view : SceneView
            What to draw (read only).

        Returns
        -------
        (height, width, 4) uint8
            RGBA, row 0 at the top.

        Raises
        ------
        RenderError
            When the renderer is closed or the frame could not be read back.
        """
        if self._closed:
            raise RenderError("render() on a closed OffscreenRenderer")
        if not isinstance(view, SceneView):
            raise RenderError(f"render() needs a SceneView, got {type(view).__name__}")
        t0 = time.perf_counter()
        scene = self._root.attach_new_node("scene")
        try:
            stats = self._build(view, scene)
            self._place_camera(view)
            self._place_lights(view)
            self._buffer.set_clear_color(LColor(*view.background))
            # The shadow buffer is made during the first frame that needs it and drawn from
            # the next on, so the renderer's first picture with shadows takes two frames.
            if self.shadows and not self._shadow_ready:
                self._priming_frame()
            self._engine.render_frame()
            self._shadow_ready = self.shadows
            self._engine.sync_frame()
            image = self._read()
        finally:
            scene.remove_node()
        self.last_stats = RenderStats(stats[0], stats[1], stats[2], stats[3],
                                      time.perf_counter() - t0)
        return image

    def prime(self, view: SceneView) -> None:
        """Get ready for the next :meth:`render` without drawing a picture: draw ``view``
        into a corner of a few pixels, which compiles the shader program and the GL driver's
        variants for the states ``view`` uses and, with shadows, makes the shadow buffer
        (so the next picture takes one frame, not two). The pictures drawn after are the
        same as without (issue 26: ``sandbox run`` primes while the game plays).

        Raises
        ------
        RenderError
            When the renderer is closed or ``view`` is not a SceneView.
        """
        if self._closed:
            raise RenderError("prime() on a closed OffscreenRenderer")
        if not isinstance(view, SceneView):
            raise RenderError(f"prime() needs a SceneView, got {type(view).__name__}")
        scene = self._root.attach_new_node("scene")
        try:
            self._build(view, scene)
            self._place_camera(view)
            self._place_lights(view)
            self._priming_frame()
            self._shadow_ready = self.shadows
            self._engine.sync_frame()
        finally:
            scene.remove_node()

    # -- internals -------------------------------------------------------------------------

    def _priming_frame(self) -> None:
        """A frame whose picture is never read, drawn into a corner of a few pixels: it makes
        the shadow buffer and compiles shaders all the same (issue 26: a whole software-GL
        frame less; the picture after it is the same byte for byte)."""
        whole = self._region.get_dimensions()
        self._region.set_dimensions(0, _PRIMING_REGION, 0, _PRIMING_REGION)
        try:
            self._engine.render_frame()
        finally:
            self._region.set_dimensions(whole)

    def _read(self) -> np.ndarray:
        tex = self._texture
        if not tex.has_ram_image():
            raise RenderError("the offscreen frame has no RAM image (did the draw fail?)")
        data = np.frombuffer(bytes(tex.get_ram_image_as("RGBA")), np.uint8)
        h, w = tex.get_y_size(), tex.get_x_size()
        return np.ascontiguousarray(data.reshape(h, w, 4)[::-1])

    def _mesh_nodes(self, mesh: RenderMesh):
        cached = self._mesh_cache.get(mesh)
        if cached is None:
            cached = (geometry.mesh_geom(mesh), geometry.edge_geom(mesh),
                      geometry.optional_geom(mesh))
            self._mesh_cache[mesh] = cached
        return cached

    def _body_node(self, body: RenderBody, parent: NodePath, edge_lines: bool = True) -> None:
        geom, edges, optional = self._mesh_nodes(body.mesh)
        node = GeomNode(body.key)
        node.add_geom(geom)
        np_body = parent.attach_new_node(node)
        x, y, z, w = body.orientation
        np_body.set_pos_quat(LPoint3(*body.position), LQuaternion(w, x, y, z))
        if body.highlight:
            np_body.set_color_scale(*_HIGHLIGHT_SCALE)
        np_edges = (geometry.attach_edges(np_body, body.key + ":edges", edges, optional)
                    if edge_lines else None)
        if np_edges is not None:
            if body.highlight:
                np_edges.set_color_scale_off(1)
                np_edges.set_color(*_HIGHLIGHT_EDGE, 1)
                np_edges.set_render_mode_thickness(2.5)

    def _build(self, view: SceneView, scene: NodePath) -> tuple[int, int, int, int]:
        """Fill ``scene``; returns (bodies, body geoms, all geoms, body triangles)."""
        bodies = scene.attach_new_node("bodies")
        triangles = 0
        for body in view.bodies:
            self._body_node(body, bodies, view.edges)
            triangles += body.mesh.n_triangles
        self._table(view, scene)
        markers = scene.attach_new_node("markers")
        for marker in view.markers:
            geometry.attach_marker(markers, marker)
        return len(view.bodies), _count_geoms(bodies), _count_geoms(scene), triangles

    def _table(self, view: SceneView, scene: NodePath) -> None:
        """The table top (a flat slab, top at z = 0) and the grid."""
        w, d = view.battlefield
        v, n = geometry.box_triangles(np.array([-w / 2, -d / 2, -_TABLE_THICKNESS]),
                                      np.array([w / 2, d / 2, 0.0]))
        top = np.asarray(view.ground_colour, np.float32)
        side = top * np.array([0.55, 0.5, 0.45, 1.0], np.float32)
        cols = np.where(n[:, 2:3] > 0.5, top, side).astype(np.float32)
        node = GeomNode("table")
        node.add_geom(geometry.triangles_geom("table", v, n, cols))
        scene.attach_new_node(node).set_bin("background", 0)  # the table first, then its grid
        if not view.grid:
            return
        lines, colours = _grid_lines(w, d, top)
        gnode = GeomNode("grid")
        gnode.add_geom(geometry.lines_geom("grid", lines, colours))
        grid = scene.attach_new_node(gnode)
        grid.set_light_off(1)
        grid.set_shader_off(1)
        grid.hide(_SHADOW_MASK)
        grid.set_depth_offset(1)
        grid.set_transparency(TransparencyAttrib.M_alpha)
        grid.set_bin("background", 1)
        grid.set_depth_write(False)

    def _place_camera(self, view: SceneView) -> None:
        cam = view.camera_for(self.width / self.height)
        self._lens.set_fov(_h_fov(cam.fov_deg, self.width / self.height), cam.fov_deg)
        lo, hi = view.bounds()
        reach = float(np.linalg.norm(hi - lo)) + float(np.linalg.norm(cam.eye - (lo + hi) / 2))
        # near plane as far out as the scene allows: depth precision for grid and overlays
        gap = float(np.linalg.norm(cam.eye - np.clip(cam.eye, lo, hi)))
        self._lens.set_near_far(max(0.05, 0.5 * gap), reach * 2.0 + 10.0)
        self._camera.set_pos(LPoint3(*cam.eye))
        forward = cam.target - cam.eye
        up = LVector3(0, 0, 1)
        if np.linalg.norm(np.cross(forward, [0, 0, 1])) < 1e-6 * np.linalg.norm(forward):
            up = LVector3(0, 1, 0)  # looking straight down: let +Y be up in the picture
        self._camera.look_at(LPoint3(*cam.target), up)

    def _place_lights(self, view: SceneView) -> None:
        lo, hi = view.bounds()
        centre = (lo + hi) / 2
        radius = float(np.linalg.norm(hi - lo)) / 2 + 1.0
        sun = np.asarray(view.sun_direction, float)
        sun /= np.linalg.norm(sun)
        self._sun.set_pos(LPoint3(*(centre - sun * (radius + 10.0))))
        self._sun.look_at(LPoint3(*centre), LVector3(0, 0, 1))
        lens = self._sun_node.get_lens()
        if not isinstance(lens, OrthographicLens):  # pragma: no cover - Panda default is ortho
            lens = OrthographicLens()
            self._sun_node.set_lens(lens)
        lens.set_film_size(2 * radius, 2 * radius)
        lens.set_near_far(1.0, 2 * radius + 20.0)
        # about 1.5 shadow texels of normal offset keeps flat faces free of acne
        self._root.set_shader_input("u_shadow_offset", 3.0 * radius / self._shadow_size)
        fill = np.array([-sun[0], -sun[1], sun[2] * 0.6])
        self._fill.set_pos(LPoint3(*(centre - fill * 10)))
        self._fill.look_at(LPoint3(*centre), LVector3(0, 0, 1))


def _count_geoms(root: NodePath) -> int:
    """Geoms (each one draw call) under ``root``, root included."""
    nodes = list(root.find_all_matches("**/+GeomNode"))
    if root.node().is_geom_node():
        nodes.append(root)
    return sum(n.node().get_num_geoms() for n in nodes)


def _h_fov(v_fov_deg: float, aspect: float) -> float:
    return math.degrees(2 * math.atan(math.tan(math.radians(v_fov_deg) / 2) * aspect))


def _grid_lines(width: float, depth: float, ground: np.ndarray):
    """Grid segments on the table top: every inch faint, every 6 inches stronger.

    Returns
    -------
    segments : (m, 2, 3) float32
        Inches, just above z = 0 (depth offset keeps them on top).
    colours : (m, 4) float32
        RGBA: a darker shade of the ground, alpha 0.18 (1") or 0.45 (6").
    """
    xs = np.arange(math.ceil(-width / 2), math.floor(width / 2) + 1, dtype=float)
    ys = np.arange(math.ceil(-depth / 2), math.floor(depth / 2) + 1, dtype=float)
    z = _OVERLAY_LIFT
    segs = [np.array([[[x, -depth / 2, z], [x, depth / 2, z]]]) for x in xs]
    segs += [np.array([[[-width / 2, y, z], [width / 2, y, z]]]) for y in ys]
    major = [x % 6 == 0 for x in xs] + [y % 6 == 0 for y in ys]
    dark = np.concatenate([ground[:3] * 0.45, [1.0]]).astype(np.float32)
    colours = np.array([(*dark[:3], 0.45 if m else 0.18) for m in major], np.float32)
    return np.concatenate(segs).astype(np.float32), colours


def render_array(view: SceneView, width: int = 800, height: int = 600, *,
                 shadows: bool = True) -> np.ndarray:
    """Render ``view`` offscreen once.

    Parameters
    ----------
    view : SceneView
        What to draw.
    width, height : int
        Picture size in pixels.
    shadows : bool
        Sun shadows on or off.

    Returns
    -------
    (height, width, 3) uint8
        RGB, row 0 at the top.
    """
    with OffscreenRenderer(width, height, shadows=shadows) as renderer:
        return renderer.render(view)[:, :, :3].copy()


def render_png(view: SceneView, path: str | Path, width: int = 800, height: int = 600, *,
               shadows: bool = True) -> Path:
    """Render ``view`` offscreen and write it as a PNG at ``path`` (parents are created).

    Returns
    -------
    Path
        The file written.
    """
    import io
    import os
    import tempfile

    from PIL import Image

    from ..core.limits import check_output_file

    out = check_output_file(path, "picture")  # never over a device, FIFO or folder
    out.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    Image.fromarray(render_array(view, width, height, shadows=shadows)).save(buf, format="PNG")
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:  # atomic: a kill or a full disk never leaves a truncated picture in place
        with os.fdopen(fd, "wb") as fh:
            fh.write(buf.getvalue())
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out
