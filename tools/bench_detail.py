"""Benchmark (not a test): what the renderer draws of a scene at each detail level (issue 26).

    LDRAWDIR=../shared/ldraw .venv/bin/python tools/bench_detail.py [SCENE ...] [--castle]
        [--towers N]

For each scene: the triangles, type-2 edge lines and type-5 optional lines of every body as
the renderer gets them (``render_mesh_of`` with edges) at ``full`` (every stud and tube, as
LDraw draws them), ``culled`` (studs and tubes hidden by connected parts left out) and
``low`` (culled, and low-resolution stud primitives: the default), and the seconds the
first build of that geometry took. ``--castle``: the whole King's Castle (6080, 761 parts)
as one creation; ``--towers N``: N guard towers (tools/bench.py's army).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))


def measure(scene: Path) -> None:
    from sandbox.engine.game import open_game
    from sandbox.render.from_game import DETAILS, render_mesh_of

    t0 = time.perf_counter()
    game = open_game(scene, ldrawdir=os.environ.get("LDRAWDIR"))
    load = time.perf_counter() - t0
    parts = sum(a.part_count for a in game.assets.values())
    print(f"{game.spec.name}: {len(game.assets)} bodies, {parts} parts (loaded in {load:.1f} s)")
    for name in ("full", "culled", "low"):
        t = time.perf_counter()
        meshes = [render_mesh_of(a, edges=True, detail=DETAILS[name])
                  for a in game.assets.values()]
        dt = time.perf_counter() - t
        tris = sum(m.n_triangles for m in meshes)
        edges = sum(m.n_edges for m in meshes)
        opt = sum(m.n_optional for m in meshes)
        print(f"  {name:7s} {tris:9,d} triangles {edges:9,d} edge lines {opt:9,d} optional "
              f"lines  (built in {dt:.2f} s)")
    game.close()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("scenes", nargs="*", type=Path)
    ap.add_argument("--castle", action="store_true", help="the whole King's Castle")
    ap.add_argument("--towers", type=int, default=0, help="N guard towers")
    args = ap.parse_args()
    from bench import CASTLE, TOWER, army_scene

    with tempfile.TemporaryDirectory(prefix="bench-detail-") as tmp:
        scenes = list(args.scenes)
        if args.castle:
            scenes.append(army_scene(CASTLE, 1, (40.0, 30.0), Path(tmp) / "castle.toml"))
        if args.towers:
            scenes.append(army_scene(TOWER, args.towers, (13.0, 4.0),
                                     Path(tmp) / "towers.toml"))
        for s in scenes:
            measure(s)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
