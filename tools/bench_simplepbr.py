"""panda3d-simplepbr against the project's own GLSL shader: same scenes, pictures and frame rate.

Issue 19 asks whether simplepbr (PBR lighting, shadows, filmic tone mapping) should replace
the small GLSL program of :mod:`sandbox.render.shaders`. This script renders the same views
through :class:`~sandbox.render.offscreen.OffscreenRenderer` twice: as it is, and with the
renderer's own shader swapped for a ``simplepbr.Pipeline`` on the same scene graph, buffer,
camera and lights (an ambient light stands in for the own shader's sky/ground hemisphere;
vertex colours, sRGB in LDraw, are turned linear for simplepbr's linear lighting). It writes
one PNG per scene and shader and prints frames per second over an orbit of the camera.

Usage::

    PYTHONPATH=. LDRAWDIR=../shared/ldraw python tools/bench_simplepbr.py --out /tmp/pbr

Needs the ``pbr`` extra (``pip install -e .[pbr]``). The renderer's internals are reached
from here on purpose: simplepbr is not wired into the default path (see docs/RENDERING.md).
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path

import numpy as np
from PIL import Image

from sandbox.engine.assets import build_part_asset
from sandbox.engine.game import open_game
from sandbox.render.from_game import scene_view
from sandbox.render.offscreen import OffscreenRenderer
from sandbox.render.view import Camera, RenderBody, RenderMesh, SceneView

REPO = Path(__file__).resolve().parents[1]
PARTS = (("brick", "3001", 4, -1.3), ("round", "3062b", 14, 0.2), ("cone", "4589", 1, 1.2),
         ("slope", "3040b", 0, 2.3))


def parts_view(ldrawdir, edges: bool = True) -> SceneView:
    """Four real parts close up (box, cylinder, cone, slope), edge lines on."""
    assets, poses = {}, {}
    for key, part, colour, x in PARTS:
        a = build_part_asset(part, colour, ldrawdir)
        a.move_to_drop((x, 0.0), 0.0)
        a.attach(np.array([x, 0.0, 0.0]), np.eye(3))
        assets[key], poses[key] = a, ((x, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0))
    return scene_view(assets, poses, (8.0, 6.0), edges=edges,
                      camera=Camera((2.6, -4.4, 2.8), (0.5, 0.0, 0.3), 34.0))


def scene_file_view(scene: Path, ldrawdir, edges: bool = True) -> SceneView:
    """A shipped scene's table before play, edge lines on."""
    game = open_game(scene, ldrawdir=ldrawdir)
    try:
        bf = game.spec.battlefield
        return scene_view(game.assets, game.final_poses(), (bf.width, bf.depth),
                          bf.ground_colour, edges=edges)
    finally:
        game.close()


def _srgb_to_linear(c: np.ndarray) -> np.ndarray:
    c = np.asarray(c, np.float32)
    rgb = c[:, :3]
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return np.concatenate([lin, c[:, 3:]], axis=1).astype(np.float32)


def linear_view(view: SceneView) -> SceneView:
    """The same view with linear vertex colours (simplepbr lights in linear space)."""
    bodies = []
    for b in view.bodies:
        m = b.mesh
        lin = (lambda c: None if c is None else _srgb_to_linear(c))  # noqa: E731
        mesh = RenderMesh(m.vertices, m.normals, _srgb_to_linear(m.colours), edges=m.edges,
                          edge_colours=lin(m.edge_colours), name=m.name, optional=m.optional,
                          optional_colours=lin(m.optional_colours))
        bodies.append(RenderBody(mesh, b.position, b.orientation, key=b.key))
    g = np.asarray(view.ground_colour, np.float32)[None]
    return SceneView(bodies=bodies, markers=view.markers, battlefield=view.battlefield,
                     ground_colour=tuple(_srgb_to_linear(g)[0]), grid=view.grid,
                     camera=view.camera, background=view.background,
                     sun_direction=view.sun_direction, edges=view.edges)


def use_simplepbr(r: OffscreenRenderer):
    """Swap the renderer's own shader for a simplepbr pipeline; returns its task manager.

    One light only: simplepbr's shader indexes its array of shadow samplers with the loop
    variable, which GLSL before 4.0 does not allow; with two lights and shadows on, Mesa
    llvmpipe crashes in the first draw (the own shader spells the index out for that
    reason). So the sun stays (its Lambert colour times pi: PBR divides diffuse by pi) and
    the fill light joins the ambient light that stands in for the sky/ground hemisphere.
    """
    import simplepbr
    from direct.task.Task import TaskManager
    from panda3d.core import AmbientLight, LColor

    r._root.clear_shader()
    r._root.clear_light(r._fill)
    r._sun_node.set_color(LColor(0.78 * math.pi, 0.75 * math.pi, 0.68 * math.pi, 1))
    tasks = TaskManager()
    simplepbr.init(render_node=r._root, window=r._buffer, camera_node=r._camera,
                   taskmgr=tasks, msaa_samples=4 if r.multisamples else 0,
                   enable_shadows=r.shadows, use_330=False, max_lights=1)
    amb = AmbientLight("ambient")  # hemisphere (0.24..0.52) and fill (0.16..0.22), linear
    amb.set_color(LColor(0.16, 0.17, 0.19, 1))
    r._root.set_light(r._root.attach_new_node(amb))
    return tasks


def orbit(view: SceneView, k: int, n: int, aspect: float) -> SceneView:
    """The view with its camera turned k/n of a quarter turn about the target."""
    cam = view.camera_for(aspect)
    d = cam.eye - cam.target
    a = math.radians(90.0 * k / max(n, 1))
    rot = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    cam = Camera(cam.target + rot @ d, cam.target, cam.fov_deg)
    return SceneView(bodies=view.bodies, markers=view.markers, battlefield=view.battlefield,
                     ground_colour=view.ground_colour, grid=view.grid, camera=cam,
                     background=view.background, sun_direction=view.sun_direction,
                     edges=view.edges)


def measure(shader: str, views: dict[str, SceneView], out: Path, width: int, height: int,
            frames: int) -> dict[str, float]:
    fps = {}
    with OffscreenRenderer(width, height) as r:
        tasks = use_simplepbr(r) if shader == "simplepbr" else None
        for name, view in views.items():
            if tasks is not None:
                view = linear_view(view)
            for _ in range(2):  # shaders compiled, shadow buffer made, meshes cached
                if tasks is not None:
                    tasks.step()
                image = r.render(view)
            Image.fromarray(image[..., :3]).save(out / f"{name}_{shader}.png")
            t0 = time.perf_counter()
            for k in range(frames):
                if tasks is not None:
                    tasks.step()
                r.render(orbit(view, k, frames, width / height))
            fps[name] = frames / (time.perf_counter() - t0)
        renderer = r.gl_renderer
    print(f"{shader:10s} on {renderer}: " + ", ".join(f"{k} {v:.2f} fps" for k, v in fps.items()))
    return fps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=12, help="frames timed per scene")
    ap.add_argument("--size", default="800x600", help="picture WIDTHxHEIGHT")
    ap.add_argument("--out", type=Path, default=Path("out/simplepbr"))
    ap.add_argument("--edges", action=argparse.BooleanOptionalAction, default=True,
                    help="draw the LDraw edge lines (default on)")
    ap.add_argument("--shaders", default="own,simplepbr", help="which to measure")
    ap.add_argument("--ldrawdir", default=os.environ.get("LDRAWDIR",
                                                         str(REPO.parent / "shared" / "ldraw")))
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    views = {"parts": parts_view(args.ldrawdir, args.edges),
             "guard_tower": scene_file_view(REPO / "scenes" / "big_drop_guard_tower.toml",
                                            args.ldrawdir, args.edges)}
    fps = {s: measure(s, views, args.out, w, h, args.frames) for s in args.shaders.split(",")}
    if len(fps) == 2:
        own, pbr = fps.get("own"), fps.get("simplepbr")
        for name in views:
            print(f"{name:12s} own {own[name]:6.2f} fps   simplepbr {pbr[name]:6.2f} fps   "
                  f"ratio {pbr[name] / own[name]:.2f}")
    print(f"pictures in {args.out}")


if __name__ == "__main__":
    main()
