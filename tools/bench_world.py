"""Benchmark (not a test): King's Castle load → physics-and-render ready, and stepping speed.

Prints
------
- load: LDraw read + expand of the King's Castle (761 parts), meshing, collision boxes;
- physics ready: bodies created in the pybullet world;
- render ready: the first offscreen frame drawn (scene graph built, shader compiled);
- steps per second of the sandbox world (``PhysicsWorld.step``: impact detection included)
  against raw pybullet (``stepSimulation`` alone) on the same bodies, and their ratio.

Usage::

    LDRAWDIR=../shared/ldraw .venv/bin/python tools/bench_world.py [--steps 2000]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from sandbox.engine.game import Game
from sandbox.engine.scene import scene_from_dict

REPO = Path(__file__).resolve().parents[1]


def castle_spec(ldrawdir: Path) -> dict:
    return {
        "name": "bench castle",
        "battlefield": {"width": 48, "depth": 36},
        "creations": [{
            "id": "castle",
            "model": str(ldrawdir / "models" / "6080 - Kings Castle.mpd"),
            "stats": {"size": 12, "armor": "3d10", "weight_class": 4},
        }],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=2000, help="physics steps to time")
    ap.add_argument("--ldrawdir",
                    default=os.environ.get("LDRAWDIR", str(REPO.parent / "shared" / "ldraw")))
    args = ap.parse_args()
    ldrawdir = Path(args.ldrawdir)
    console = Console()

    t0 = time.perf_counter()
    spec = scene_from_dict(castle_spec(ldrawdir))
    game = Game(spec, REPO, ldrawdir=ldrawdir)
    from sandbox.engine.assets import build_asset

    asset = build_asset(spec.creations[0], REPO, ldrawdir)
    t_load = time.perf_counter() - t0
    game.world.add_ground(48, 36)
    body = game.world.add_compound("castle", asset.boxes)
    asset.attach(body.frame_origin, body.frame_rotation)
    game.assets["castle"] = asset
    t_physics = time.perf_counter() - t0

    from sandbox.render.from_game import scene_view
    from sandbox.render.offscreen import OffscreenRenderer

    with OffscreenRenderer(1280, 720) as r:
        r.render(scene_view(game.assets, game.final_poses(), (48, 36), aspect=1280 / 720))
        t_render = time.perf_counter() - t0
        backend = r.backend
        stats = r.last_stats

    world = game.world
    t1 = time.perf_counter()
    for _ in range(args.steps):
        world.step()
    sandbox_sps = args.steps / (time.perf_counter() - t1)
    game.close()

    # Raw pybullet: a fresh world with the same bodies, stepped with stepSimulation only.
    game2 = Game(spec, REPO, ldrawdir=ldrawdir)
    game2.world.add_ground(48, 36)
    game2.world.add_compound("castle", asset.boxes)
    client = game2.world.client
    t2 = time.perf_counter()
    for _ in range(args.steps):
        client.stepSimulation()
    raw_sps = args.steps / (time.perf_counter() - t2)
    game2.close()

    table = Table(title=f"King's Castle ({len(asset.boxes)} parts, "
                        f"{len(body.links)} pybullet links)")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("load + mesh + boxes", f"{t_load:.2f} s")
    table.add_row("physics ready (cumulative)", f"{t_physics:.2f} s")
    table.add_row(f"render ready, first 1280x720 frame on {backend} (cumulative)",
                  f"{t_render:.2f} s")
    table.add_row("triangles drawn", f"{stats.triangles:,}" if stats else "?")
    table.add_row("sandbox world steps/s", f"{sandbox_sps:,.0f}")
    table.add_row("raw pybullet steps/s (same bodies)", f"{raw_sps:,.0f}")
    table.add_row("ratio sandbox / raw", f"{sandbox_sps / raw_sps:.2f}")
    table.add_row("simulated seconds per wall second (sandbox)",
                  f"{sandbox_sps * world.time_step:.1f}")
    console.print(table)


if __name__ == "__main__":
    main()
