"""Benchmark (not a test): one 3d10 Explosion against the King's Castle (BrikWars 8.4).

Prints the time of each part of resolving it: the stud graph (built once per creation, on its
first blast), the radius query (distance from the blast to every part of every body), the
Damage (rings, Armor Roll, Cumulative Damage per part), the re-split of the structure into
pieces and rubble, and the physics until everything rests.

    LDRAWDIR=../shared/ldraw .venv/bin/python tools/bench_explosion.py
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from sandbox.core.dice import DiceExpression
from sandbox.engine.game import Game
from sandbox.engine.scene import scene_from_dict
from sandbox.games.brikwars.explosions import Blasts
from sandbox.physics.breakage import boxes_now, part_distances
from sandbox.rules.explosives import Variant, variant_rings

MODEL = "models/6080 - Kings Castle.mpd"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ldrawdir", default=os.environ.get("LDRAWDIR", "../shared/ldraw"))
    ap.add_argument("--height", type=float, default=2.0, help="blast height above the table, in")
    args = ap.parse_args()
    spec = scene_from_dict({
        "name": "bench explosion", "seed": 1, "battlefield": {"width": 60, "depth": 60},
        "players": [{"name": "Crusaders"}],
        "creations": [{"id": "castle", "model": MODEL, "owner": "Crusaders",
                       "stats": {"size": 12, "armor": "3d10", "weight_class": 4, "move": 0}}],
        "forced_dice": {"explosion": [3, 6, 7], "armor": [5, 5, 5]},
    })
    t = time.perf_counter()
    g = Game(spec, Path(args.ldrawdir), ldrawdir=args.ldrawdir)
    t_setup = time.perf_counter() - t
    blasts: Blasts = g.blasts
    lo, hi = g.world.aabb("castle")
    # the blast: against the front of the castle, at the part nearest the middle of its front
    # at the chosen height (a missile striking the wall)
    now = boxes_now(g.world, "castle", g.assets["castle"].boxes)
    aim = np.array([(lo[0] + hi[0]) / 2, lo[1], args.height])
    nearest = min(now, key=lambda b: float(np.linalg.norm(np.asarray(b.centre) - aim)))
    point = np.asarray(nearest.centre) - np.array([0.0, 0.3, 0.0])
    n_parts = len(g.assets["castle"].boxes)

    t = time.perf_counter()
    blasts._structure("castle")
    t_graph = time.perf_counter() - t

    roll = DiceExpression.parse("3d10 Exp").roll(g.dice.stream("explosion"), "bench")
    rings = variant_rings(roll, Variant.EXPLOSIVE)
    radius = rings[-1].outer_in
    t = time.perf_counter()
    near = {}
    for key in [k for k in g.world.bodies if k != "ground"]:
        d = part_distances(g.world, key, blasts._boxes(key), point)
        near[key] = {k: v for k, v in d.items() if v <= radius}
    t_query = time.perf_counter() - t

    split_time = [0.0]
    orig = Blasts._split

    def timed(self, *a, **kw):
        t0 = time.perf_counter()
        try:
            return orig(self, *a, **kw)
        finally:
            split_time[0] += time.perf_counter() - t0

    Blasts._split = timed
    t = time.perf_counter()
    thrown = blasts._hit_structure("castle", blasts.structures["castle"], near["castle"], rings,
                                   Variant.EXPLOSIVE, point)
    blasts._knock_back(point, thrown)
    t_damage_and_split = time.perf_counter() - t
    Blasts._split = orig
    s = blasts.structures["castle"]

    t = time.perf_counter()
    sim0 = g.world.time
    g.world.step_until_rest(max_seconds=8.0, min_seconds=0.05, on_step=g._on_step)
    t_physics = time.perf_counter() - t

    print(f"King's Castle: {n_parts} parts, {len(s.graph.edges)} stud/contact joints; "
          f"3d10 rolled {list(roll.naturals)} -> rings {[r.damage for r in rings]}")
    print(f"  set-up (load, bodies, settle)       {t_setup * 1000:9.1f} ms")
    print(f"  stud graph (made at load; lookup)   {t_graph * 1000:9.1f} ms")
    print(f"  radius query ({sum(len(v) for v in near.values())} parts within {radius:g}\")"
          f"{'':>6}{t_query * 1000:9.1f} ms")
    print(f"  damage ({len(s.destroyed)} parts destroyed)          "
          f"{(t_damage_and_split - split_time[0]) * 1000:9.1f} ms")
    print(f"  re-split ({len(s.body_tags)} pieces, {len(s.destroyed)} rubble)     "
          f"{split_time[0] * 1000:9.1f} ms")
    print(f"  physics until rest ({g.world.time - sim0:.2f} s simulated, {len(g.world.bodies) - 1} "
          f"bodies)  {t_physics * 1000:9.1f} ms")
    g.close()


if __name__ == "__main__":
    main()
