"""Benchmark (not a test): frames per second of the tabletop window with the King's Castle on
the table at 1280x720, the GL renderer, and draw calls (Geoms) against the parts drawn.

    LDRAWDIR=../shared/ldraw .venv/bin/python tools/bench_tabletop.py [--frames 120]

Starts its own Xvfb when no DISPLAY is set (software GL: llvmpipe).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _model_scene(model: Path) -> str:
    """A scene file (in a temporary folder) with ``model`` as its one creation."""
    import json
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="bench-tabletop-"))
    scene = folder / "model.toml"
    scene.write_text(f"""name = "bench 1 x {model.stem}"
seed = 1
format = 1

[battlefield]
width = 44.0
depth = 34.0

[[players]]
name = "Defenders"

[[creations]]
id = "c0"
model = {json.dumps(str(model))}
owner = "Defenders"
position = [0.0, 0.0, 0.0]
stats = {{ size = 6.0, armor = "3d10", weight_class = 4, move = 0.0 }}
""")
    return str(scene)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--scene", default=str(REPO / "scenes" / "big_drop_kings_castle.toml"))
    ap.add_argument("--model", default=None,
                    help="instead of --scene: one creation of this LDraw model at the centre of "
                    "a 44 x 34 inch table (e.g. LDRAWDIR's 'models/6080 - Kings Castle.mpd', the "
                    "whole castle of issue 26's window goal)")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--no-shadows", action="store_true", help="the window without shadows")
    ap.add_argument("--shadows", action="store_true",
                    help="the window with shadows (default: the window's own choice, off on "
                    "software GL)")
    ap.add_argument("--detail", choices=("low", "culled", "full"), default=None,
                    help="SANDBOX_DETAIL: hidden studs culled and low-resolution studs (low, "
                    "the default), culled only, or everything (full)")
    ap.add_argument("--msaa", type=int, default=None,
                    help="SANDBOX_MSAA: multisamples (default: 4 with a GPU, 0 on software GL)")
    ap.add_argument("--no-edges", action="store_true", help="the edge lines off (F4)")
    ap.add_argument("--hide-bodies", action="store_true",
                    help="draw the window without the bodies (the table, grid and HUD alone: "
                    "the frame's cost that is not the bricks')")
    ap.add_argument("--far", choices=("on", "off"), default=None,
                    help="SANDBOX_FAR: bodies far from the camera at their far level of detail "
                    "(default: the window's own choice, on with software GL)")
    ap.add_argument("--distance", type=float, default=None,
                    help="the camera this far from its target, inches (default: the table's "
                    "framing)")
    ap.add_argument("--screenshot", default=None,
                    help="write the last frame to this PNG (to look at what was timed)")
    args = ap.parse_args()
    if args.model:
        args.scene = _model_scene(Path(args.model).resolve())
    if args.detail:
        os.environ["SANDBOX_DETAIL"] = args.detail
    if args.far:
        os.environ["SANDBOX_FAR"] = args.far
    if args.msaa is not None:
        os.environ["SANDBOX_MSAA"] = str(args.msaa)
    xvfb = None
    if not os.environ.get("DISPLAY"):
        sys.path.insert(0, str(REPO / "tests"))
        from xvfb import start_xvfb  # -displayfd, checked to be ours

        try:
            xvfb, os.environ["DISPLAY"] = start_xvfb("1920x1080x24")
        except FileNotFoundError:
            sys.stderr.write("no DISPLAY and no Xvfb\n")
            return 2
    try:
        from sandbox.app.table.app import TabletopApp
        from sandbox.engine.game import open_game

        w, h = (int(v) for v in args.size.split("x"))
        t0 = time.perf_counter()
        session = open_game(args.scene, ldrawdir=os.environ.get("LDRAWDIR"))
        t1 = time.perf_counter()
        shadows = False if args.no_shadows else True if args.shadows else None
        app = TabletopApp(session, w, h, shadows=shadows)
        if args.no_edges:
            app.toggle_edges()
        if args.hide_bodies:
            app.bodies_np.hide()
        if args.distance is not None:
            app.rig.distance = args.distance
        app.step(1)
        t_first = time.perf_counter()  # the first picture is drawn
        app.step(4)
        t2 = time.perf_counter()
        n = args.frames
        start = time.perf_counter()
        cpu0 = time.process_time()  # every thread of the process: llvmpipe's rasterizers too
        app.step(n)
        fps = n / (time.perf_counter() - start)
        cpu_ms = (time.process_time() - cpu0) / n * 1000
        if args.screenshot:
            from panda3d.core import Filename

            app.base.win.save_screenshot(Filename.from_os_specific(args.screenshot))
        parts = sum(a.part_count for a in session.assets.values())
        body_geoms = sum(np_.node().get_num_geoms()
                         for np_ in app.bodies_np.find_all_matches("**/+GeomNode"))
        all_geoms = sum(np_.node().get_num_geoms()
                        for np_ in app.root.find_all_matches("**/+GeomNode"))
        print(f"scene            {session.spec.name}")
        print(f"renderer         {app.gl_renderer}")
        from panda3d.core import GeomNode, LODNode, LPoint3

        def faces(np_) -> int:
            n = 0
            for g in [np_, *np_.find_all_matches("**/+GeomNode")]:
                if not isinstance(g.node(), GeomNode):
                    continue
                for i in range(g.node().get_num_geoms()):
                    geom = g.node().get_geom(i)
                    if geom.get_primitive_type() == geom.PT_polygons:
                        n += geom.get_primitive(0).get_num_faces()
            return n

        tris = near_tris = 0
        levels = {"near": 0, "far": 0, "one level": 0}
        for np_ in app._nodes.values():
            lod = np_.node()
            if not isinstance(lod, LODNode):
                levels["one level"] += 1
                tris += faces(np_)
                near_tris += faces(np_)
                continue
            eye = np_.get_relative_point(app.base.cam, LPoint3(0, 0, 0))
            far = (eye - lod.get_center()).length() >= lod.get_in(0)
            levels["far" if far else "near"] += 1
            tris += faces(np_.get_child(1 if far else 0))
            near_tris += faces(np_.get_child(0))
        from sandbox.render.from_game import default_detail

        print(f"window           {w}x{h}, shadows {'on' if app.shadows else 'off'}, "
              f"MSAA {app.base.win.get_fb_properties().get_multisamples()}x, edge lines "
              f"{'on' if app.show_edges else 'off'}, detail {default_detail()}")
        print(f"triangles drawn  {tris} (near levels alone: {near_tris}; bodies drawn near "
              f"{levels['near']}, far {levels['far']}, without a far level "
              f"{levels['one level']}; far level "
              f"{'off' if app.far_switch is None else f'beyond {app.far_switch:.1f} in'})")
        print(f"bodies / parts   {len(session.assets)} / {parts}")
        print(f"body Geoms       {body_geoms} (a mesh, its edge Geoms, a far mesh per body)")
        print(f"all draw calls   {all_geoms} (table, grid, overlays included)")
        print(f"load game        {t1 - t0:.2f} s, open window {t2 - t1:.2f} s")
        print(f"first picture    {t_first - t0:.2f} s after the start of loading")
        print(f"frames/second    {fps:.1f} over {n} frames")
        print(f"CPU per frame    {cpu_ms:.0f} ms (all threads; {os.cpu_count()} CPUs, load "
              f"{os.getloadavg()[0]:.1f})")
        app.destroy()
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
