"""Benchmark (not a test): every headless figure of issue 21 ("cost follows what moves").

One command, no arguments needed::

    LDRAWDIR=../shared/ldraw .venv/bin/python tools/bench.py            # full: 10,000 bricks
    LDRAWDIR=../shared/ldraw .venv/bin/python tools/bench.py --quick    # about a minute

Each figure runs in its own child process (so peak memory is that figure's alone) and prints one
JSON line ``{"figure", "value", "unit", "raw", "ratio", "goal", "met", ...}``: ``raw`` is the
raw pybullet baseline measured in the same child on the same bodies where the issue names one.
A rich table follows. ``--quick`` scales the 10,000-brick figures down to ~1,000 bricks (21 /
3 creations become 8 / 1) and steps fewer steps; its figures are labelled with the brick count.
The window figures (frames per second, first picture) need a display: they run
tools/bench_tabletop.py under Xvfb in the full run only (``--window`` forces them).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LDRAW = Path(os.environ.get("LDRAWDIR", str(REPO.parent / "shared" / "ldraw")))
TOWER = REPO / "models" / "guard_tower.mpd"
CASTLE = LDRAW / "models" / "6080 - Kings Castle.mpd"
PY = sys.executable


def rss_mb() -> float:
    """Resident memory now, MB (Linux /proc)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def army_scene(model: Path, count: int, spacing: tuple[float, float], path: Path,
               submodel: str | None = None) -> Path:
    """A scene TOML of ``count`` copies of a model as separate creations on a grid."""
    import math

    cols = max(1, math.ceil(math.sqrt(count * spacing[1] / spacing[0])))
    rows = math.ceil(count / cols)
    width, depth = cols * spacing[0] + 4, rows * spacing[1] + 4
    lines = [f'name = "bench {count} x {model.stem}"', "seed = 1", "format = 1", "",
             "[battlefield]", f"width = {width:.1f}", f"depth = {depth:.1f}", "",
             "[[players]]", 'name = "Defenders"', ""]
    for i in range(count):
        r, c = divmod(i, cols)
        x = -width / 2 + 2 + (c + 0.5) * spacing[0]
        y = -depth / 2 + 2 + (r + 0.5) * spacing[1]
        lines += ["[[creations]]", f'id = "c{i}"', f"model = {json.dumps(str(model))}"]
        if submodel:
            lines.append(f'submodel = "{submodel}"')
        lines += ['owner = "Defenders"', f"position = [{x:.3f}, {y:.3f}, 0.0]",
                  'stats = { size = 6.0, armor = "3d10", weight_class = 4, move = 0.0 }', ""]
    path.write_text("\n".join(lines))
    return path


# ---------------------------------------------------------------------------- child figures
def _time_settle():
    """Patch PhysicsWorld.step_until_rest to record when the first settle starts and ends."""
    from sandbox.physics.world import PhysicsWorld

    marks: dict[str, float] = {}
    orig = PhysicsWorld.step_until_rest

    def timed(self, *a, **kw):
        marks.setdefault("settle_start", time.perf_counter())
        try:
            return orig(self, *a, **kw)
        finally:
            marks.setdefault("settle_end", time.perf_counter())
    PhysicsWorld.step_until_rest = timed
    return marks


def raw_world_like(game, sleeping: bool | None = None):
    """A bare pybullet world (through PhysicsWorld's body creation) of the game's bodies."""
    from sandbox.physics.world import PhysicsWorld

    on = getattr(game.world, "sleeping", False) if sleeping is None else sleeping
    try:
        w = PhysicsWorld(sleeping=on)
    except TypeError:  # the code before issue 21 (run against an older checkout)
        w = PhysicsWorld()
    w.add_ground(game.spec.battlefield.width, game.spec.battlefield.depth)
    for key, body in game.world.bodies.items():
        if key == "ground":
            continue
        w.add_compound(key, game.assets[key].boxes, static=body.static)
        w.set_pose(key, *game.world.pose(key))
    return w


def fig_load(kind: str, count: int, tmp: Path) -> dict:
    """N creations: load -> physics ready (bodies in the world), then the settle, memory."""
    from sandbox import open_game

    model, spacing = (TOWER, (13.0, 4.0)) if kind == "towers" else (CASTLE, (27.0, 14.5))
    scene = army_scene(model, count, spacing, tmp / f"{kind}.toml",
                       submodel="wall_and_tower.ldr" if kind == "towers" else None)
    marks = _time_settle()
    rss0 = rss_mb()
    t0 = time.perf_counter()
    game = open_game(scene, ldrawdir=LDRAW)
    t_end = time.perf_counter()
    parts = sum(a.part_count for a in game.assets.values())
    load_s = marks.get("settle_start", t_end) - t0
    settle_s = marks.get("settle_end", t_end) - marks.get("settle_start", t_end)
    rss_game = rss_mb() - rss0
    # raw pybullet: the same compounds (boxes already computed), bodies only
    rss1 = rss_mb()
    t1 = time.perf_counter()
    raw = raw_world_like(game)
    raw_s = time.perf_counter() - t1
    raw_mb = rss_mb() - rss1
    raw.close()
    return {"figure": f"load_{kind}", "label": f"{parts:,} bricks ({count} {kind}) load -> "
            "physics ready", "value": round(load_s, 3), "unit": "s", "raw": round(raw_s, 3),
            "ratio": round(load_s / raw_s, 1) if raw_s else None, "goal": "< 1.5 s",
            "met": load_s < 1.5, "settle_s": round(settle_s, 3), "memory_mb": round(rss_game),
            "raw_memory_mb": round(raw_mb), "peak_mb": round(peak_mb()), "bricks": parts,
            "sim_settle_s": round(game.world.time, 3)}


def fig_rest(count: int, seconds: float, tmp: Path, sleeping: bool) -> dict:
    """N bricks at rest: simulated seconds per wall second, the sandbox's loop against raw."""
    from sandbox import open_game
    from sandbox.physics import world as physics_world

    physics_world.SLEEPING = sleeping

    scene = army_scene(TOWER, count, (13.0, 4.0), tmp / "rest.toml", submodel="wall_and_tower.ldr")
    game = open_game(scene, ldrawdir=LDRAW)
    parts = sum(a.part_count for a in game.assets.values())
    w = game.world
    n = max(1, int(seconds / w.time_step))
    # the table idles first: Bullet puts a body to sleep after 2 s below its threshold
    for _ in range(int(2.2 / w.time_step)):
        game.step()
    t = time.perf_counter()
    for _ in range(n):
        game.step()
        w.is_at_rest()
    sandbox = n * w.time_step / (time.perf_counter() - t)
    t = time.perf_counter()
    for _ in range(n):
        w.client.stepSimulation()
    raw = n * w.time_step / (time.perf_counter() - t)
    # raw pybullet as the sandbox used it before (no sleeping), same bodies and poses
    plain = raw_world_like(game, sleeping=False)
    t = time.perf_counter()
    for _ in range(n):
        plain.client.stepSimulation()
    raw_plain = n * w.time_step / (time.perf_counter() - t)
    plain.close()
    return {"figure": "rest_speed" + ("_sleeping" if sleeping else ""),
            "label": f"{parts:,} bricks at rest: simulated s per wall s"
            + (" (sleeping on)" if sleeping else ""),
            "value": round(sandbox, 2), "unit": "x real time", "raw": round(raw, 2),
            "ratio": round(sandbox / raw, 2), "goal": ">= 100x", "met": sandbox >= 100,
            "bricks": parts, "steps": n, "raw_no_sleeping": round(raw_plain, 2),
            "sleeping": getattr(w, "sleeping", False)}


def castle_game(ldraw: Path = LDRAW):
    from sandbox.engine.game import Game
    from sandbox.engine.scene import scene_from_dict

    spec = scene_from_dict({
        "name": "bench explosion", "seed": 1, "battlefield": {"width": 60, "depth": 60},
        "players": [{"name": "Crusaders"}],
        "creations": [{"id": "castle", "model": str(CASTLE), "owner": "Crusaders",
                       "stats": {"size": 12, "armor": "3d10", "weight_class": 4, "move": 0}}],
        "forced_dice": {"explosion": [3, 6, 7], "armor": [5, 5, 5]},
    })
    return Game(spec, REPO, ldrawdir=ldraw)


def fig_loop(steps: int) -> dict:
    """The sandbox action loop (world step + rules hooks + rest check) against raw pybullet,
    side by side on the same bodies (the King's Castle fresh on the table, then settled)."""
    g = castle_game()
    w = g.world
    # the castle after its settle; the three loops interleaved in rounds, so a busy machine
    # slows each alike and Bullet's state (warm manifolds) is the same for each
    t_loop = t_step = t_raw = 0.0
    rounds = 10
    chunk = max(1, steps // rounds)
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(chunk):
            ev = w.step()
            g._on_step(w, ev)
            w.is_at_rest()
        t_loop += time.perf_counter() - t
        t = time.perf_counter()
        for _ in range(chunk):
            w.step()
        t_step += time.perf_counter() - t
        t = time.perf_counter()
        for _ in range(chunk):
            w.client.stepSimulation()
        t_raw += time.perf_counter() - t
    n = chunk * rounds
    loop, step_only, raw = n / t_loop, n / t_step, n / t_raw
    g.close()
    return {"figure": "action_loop", "label": "sandbox action loop vs raw pybullet (castle)",
            "value": round(loop / raw, 3), "unit": "x raw", "raw": round(raw), "ratio":
            round(loop / raw, 3), "goal": ">= 0.90x", "met": loop / raw >= 0.9,
            "loop_steps_s": round(loop), "step_only_ratio": round(step_only / raw, 3),
            "steps": steps}


def fig_explosion(max_seconds: float = 10.0, sleeping: bool = False) -> list[dict]:
    """One 3d10 Explosion against the front of the King's Castle: damage + break-up, then the
    physics until everything rests (as tools/bench_explosion.py)."""
    import numpy as np

    from sandbox.core.dice import DiceExpression
    from sandbox.physics import world as physics_world
    from sandbox.physics.breakage import boxes_now
    from sandbox.rules.explosives import Variant

    physics_world.SLEEPING = sleeping
    g = castle_game()
    lo, hi = g.world.aabb("castle")
    now = boxes_now(g.world, "castle", g.assets["castle"].boxes)
    aim = np.array([(lo[0] + hi[0]) / 2, lo[1], 2.0])
    nearest = min(now, key=lambda b: float(np.linalg.norm(np.asarray(b.centre) - aim)))
    point = np.asarray(nearest.centre) - np.array([0.0, 0.3, 0.0])
    blasts = g.blasts
    blasts._structure("castle")  # the stud graph: built once per creation (load time)
    roll = DiceExpression.parse("3d10 Exp").roll(g.dice.stream("explosion"), "bench")
    from sandbox.physics.world import PhysicsWorld

    orig = PhysicsWorld.step_until_rest
    PhysicsWorld.step_until_rest = lambda self, *a, **k: []  # time the rules part alone
    t = time.perf_counter()
    blasts.blast(point, roll, Variant.EXPLOSIVE, "bench")
    t_break = time.perf_counter() - t
    PhysicsWorld.step_until_rest = orig
    bodies = len(g.world.bodies) - 1
    sim0 = g.world.time
    t = time.perf_counter()
    g.world.step_until_rest(max_seconds=max_seconds, min_seconds=0.05, on_step=g._on_step)
    t_phys = time.perf_counter() - t
    sim = g.world.time - sim0
    # raw pybullet for the same simulated time on the same broken bodies
    raw = raw_world_like(g)
    n = int(round(sim / raw.time_step))
    t = time.perf_counter()
    for _ in range(n):
        raw.client.stepSimulation()
    raw_phys = time.perf_counter() - t
    raw.close()
    g.close()
    return [
        {"figure": "explosion_break", "label": f"castle explosion: damage + break into {bodies} "
         "bodies", "value": round(t_break * 1000, 1), "unit": "ms", "raw": None, "ratio": None,
         "goal": "< 50 ms", "met": t_break < 0.05},
        {"figure": "explosion_physics", "label": f"same explosion: physics until rest "
         f"({sim:.2f} s simulated)", "value": round(sim / t_phys, 2), "unit": "x real time",
         "raw": round(sim / raw_phys, 2), "ratio": round(raw_phys / t_phys, 3),
         "goal": ">= 4x real time", "met": sim / t_phys >= 4, "wall_s": round(t_phys, 2)},
    ]


def fig_undo() -> list[dict]:
    """Undo of the scripted action on the King's Castle scene (big_drop_kings_castle.toml)."""
    from sandbox import open_game

    game = open_game(REPO / "scenes" / "big_drop_kings_castle.toml", ldrawdir=LDRAW)
    action = game.spec.actions[0]
    for _ in range(len(game.players) + 1):
        if game.current_player == getattr(action, "player", game.current_player):
            break
        game.end_turn()
    game.apply(action)
    t = time.perf_counter()
    game.undo()
    undo_s = time.perf_counter() - t
    game.close()
    # an action that broke a creation (wall_demolition's missile: the wall's body goes, pieces
    # come): the snapshot cannot bring a removed body back, so this undo rebuilds from the log
    game = open_game(REPO / "scenes" / "wall_demolition.toml", ldrawdir=LDRAW)
    game.play_turns()
    broke = any("#" in k for k in game.bodies)
    t = time.perf_counter()
    game.undo()
    undo_break_s = time.perf_counter() - t
    game.close()
    return [{"figure": "undo_castle",
             "label": "undo of the Big Drop on the castle gatehouse (snapshot)",
             "value": round(undo_s, 3), "unit": "s", "raw": None, "ratio": None,
             "goal": "< 0.2 s", "met": undo_s < 0.2},
            {"figure": "undo_break", "label": "undo of the missile that broke the wall (rebuild)",
             "value": round(undo_break_s, 3), "unit": "s", "raw": None, "ratio": None,
             "goal": "< 0.2 s", "met": undo_break_s < 0.2, "wall_broke": broke}]


def fig_export(size: str, seconds: float, tmp: Path) -> dict:
    """Video export frames per second of the default scene's replay (GIF, no shadows)."""
    from sandbox.app.export import export_replay
    from sandbox.app.headless import run_scene
    from sandbox.engine.playback import replay_assets
    from sandbox.engine.replay import load_replay

    res = run_scene(REPO / "scenes" / "big_drop_guard_tower.toml", out_dir=tmp, png=False)
    replay = load_replay(res.replay_path)
    w, h = (int(v) for v in size.split("x"))
    kw = {}
    import inspect

    if "end" in inspect.signature(export_replay).parameters:
        kw["end"] = seconds
    ex = export_replay(replay, tmp / "x.mp4", replay_assets(replay), width=w, height=h, fps=30,
                       **kw)
    return {"figure": "export", "label": f"video export {size} (MP4)", "value":
            round(ex.frames_per_second, 1), "unit": "frames/s", "raw": None, "ratio": None,
            "goal": ">= 15 frames/s at 1280x720", "met": ex.frames_per_second >= 15 and w >= 1280,
            "frames": ex.frames}


def run_cli(args: list[str], cwd: Path) -> tuple[float, float, float, int]:
    """Wall s, CPU s and peak MB of a whole `sandbox` process (children's rusage)."""
    code = "from sandbox.cli import main; main()"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run([PY, "-c", code, *args], cwd=cwd, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(REPO), "LDRAWDIR": str(LDRAW)})
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024.0, p.returncode


def fig_run_towers(count: int, tmp: Path) -> dict:
    scene = army_scene(TOWER, count, (13.0, 4.0), tmp / "run_towers.toml",
                       submodel="wall_and_tower.ldr")
    wall, cpu, peak, rc = run_cli(["run", str(scene), "--no-png", "--out", str(tmp / "out")], tmp)
    return {"figure": "run_towers", "label": f"`sandbox run --no-png`, {count} guard towers "
            "(whole process)", "value": round(wall, 2), "unit": "s wall", "raw": None,
            "ratio": None, "goal": "< 2.5 s, < 500 MB", "met": wall < 2.5 and peak < 500,
            "cpu_s": round(cpu, 2), "peak_mb": round(peak), "rc": rc}


def fig_main_job(tmp: Path) -> dict:
    wall, cpu, peak, rc = run_cli(["run", str(REPO / "scenes" / "big_drop_guard_tower.toml"),
                                   "--out", str(tmp / "out")], tmp)
    t = time.perf_counter()
    subprocess.run([PY, "-c", "import sandbox.cli, sandbox.engine.game"], cwd=tmp,
                   env={**os.environ, "PYTHONPATH": str(REPO)})
    imports = time.perf_counter() - t
    return {"figure": "main_job", "label": "headless main job (`sandbox run` default scene)",
            "value": round(wall, 2), "unit": "s wall", "raw": None, "ratio": None,
            "goal": "< 0.7 s", "met": wall < 0.7, "imports_s": round(imports, 2),
            "cpu_s": round(cpu, 2), "peak_mb": round(peak), "rc": rc}


def fig_window() -> list[dict]:
    p = subprocess.run([PY, str(REPO / "tools" / "bench_tabletop.py"), "--frames", "60"],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    out = {line.split("  ")[0].strip(): line for line in p.stdout.splitlines()}
    fps = load = None
    for line in p.stdout.splitlines():
        if line.startswith("frames/second"):
            fps = float(line.split()[1])
        if line.startswith("load game"):
            parts = line.replace(",", "").split()
            load = float(parts[2]) + float(parts[6])
    del out
    return [
        {"figure": "window_fps", "label": "window, King's Castle, 1280x720, software GL",
         "value": fps, "unit": "frames/s", "raw": None, "ratio": None, "goal": ">= 30 fps",
         "met": fps is not None and fps >= 30, "rc": p.returncode,
         **({"error": (p.stderr.strip().splitlines() or ["?"])[-1]} if p.returncode else {})},
        {"figure": "window_open", "label": "opening the castle in the window (load + window)",
         "value": load, "unit": "s", "raw": None, "ratio": None, "goal": "first picture < 1.5 s",
         "met": load is not None and load < 1.5},
    ]


def child(name: str, quick: bool) -> list[dict]:
    tmp = Path(tempfile.mkdtemp(prefix="bench21-"))
    towers, castles = (8, 1) if quick else (83, 13)
    if name == "action_loop":
        return [fig_loop(300 if quick else 2000)]
    if name == "load_towers":
        return [fig_load("towers", towers, tmp)]
    if name == "load_castles":
        return [fig_load("castles", castles, tmp)]
    if name == "run_towers":
        return [fig_run_towers(towers, tmp)]
    if name == "rest_speed":
        return [fig_rest(towers, 0.25 if quick else 2.0, tmp, sleeping=False)]
    if name == "rest_speed_sleeping":
        return [fig_rest(towers, 0.25 if quick else 2.0, tmp, sleeping=True)]
    if name == "explosion":
        return fig_explosion(1.0 if quick else 10.0)
    if name == "explosion_sleeping":
        recs = fig_explosion(1.0 if quick else 10.0, sleeping=True)[1:]
        for r in recs:
            r["figure"] += "_sleeping"
            r["label"] += " (sleeping on)"
        return recs
    if name == "undo":
        return fig_undo()
    if name == "export":
        return [fig_export("320x240" if quick else "1280x720", 1.0 if quick else 3.0, tmp)]
    if name == "main_job":
        return [fig_main_job(tmp)]
    if name == "window":
        return fig_window()
    raise SystemExit(f"unknown figure {name!r}")


FIGURES = ["action_loop", "load_towers", "load_castles", "run_towers", "rest_speed",
           "rest_speed_sleeping", "explosion", "explosion_sleeping",
           "undo", "export", "main_job", "window"]
QUICK = ["action_loop", "load_towers", "rest_speed", "rest_speed_sleeping", "explosion",
         "undo", "main_job"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="about a minute: fewer bricks and steps")
    ap.add_argument("--only", nargs="*", help=f"figures to run, of {FIGURES}")
    ap.add_argument("--window", action="store_true", help="the window figures in a quick run too")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        for rec in child(args.child, args.quick):
            print("BENCH " + json.dumps(rec), flush=True)
        return 0
    names = args.only or (QUICK + (["window"] if args.window else []) if args.quick else FIGURES)
    with open("/proc/loadavg") as fh:
        load = fh.read().split()[:3]
    print(json.dumps({"figure": "machine", "cpus": os.cpu_count(), "loadavg": load,
                      "quick": args.quick}), flush=True)
    records = []
    for name in names:
        cmd = [PY, __file__, "--child", name] + (["--quick"] if args.quick else [])
        t = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(REPO), "LDRAWDIR": str(LDRAW)})
        got = [json.loads(line[6:]) for line in p.stdout.splitlines() if line.startswith("BENCH ")]
        if p.returncode != 0 or not got:
            got = [{"figure": name, "label": name, "value": None, "unit": "", "raw": None,
                    "ratio": None, "goal": "", "met": False,
                    "error": (p.stderr.strip().splitlines() or ["?"])[-1]}]
        for rec in got:
            rec["child_wall_s"] = round(time.perf_counter() - t, 1)
            print(json.dumps(rec), flush=True)
            records.append(rec)
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"issue 21 figures ({'quick' if args.quick else 'full'}; "
                  f"{os.cpu_count()} CPUs, load {' '.join(load)})")
    for col in ("figure", "now", "raw pybullet", "ratio", "goal", "met", "notes"):
        table.add_column(col, justify="right" if col in ("now", "raw pybullet", "ratio")
                         else "left")
    skip = {"figure", "label", "value", "unit", "raw", "ratio", "goal", "met", "child_wall_s"}
    for r in records:
        notes = ", ".join(f"{k}={v}" for k, v in r.items() if k not in skip)
        table.add_row(r["label"], "-" if r["value"] is None else f"{r['value']} {r['unit']}",
                      "-" if r["raw"] is None else str(r["raw"]),
                      "-" if r["ratio"] is None else str(r["ratio"]), r["goal"],
                      "yes" if r["met"] else "no", notes)
    Console(width=200).print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
