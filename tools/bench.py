"""Benchmark (not a test): every headless figure of issue 26 ("cost follows what moves").

One command, no arguments needed::

    LDRAWDIR=../shared/ldraw .venv/bin/python tools/bench.py            # full: 83 towers
    LDRAWDIR=../shared/ldraw .venv/bin/python tools/bench.py --quick    # 8 towers, 2 rounds

Each figure runs in its own child process and prints one JSON line ``{"figure", "value",
"unit", "raw", "ratio", "goal", "met", ...}``. The raw pybullet baselines are separate
processes (tools/bench_raw.py: pybullet, json and the standard library only) that build the
same compounds from a dump of the sandbox's boxes (mass, frame, inertia and boxes exactly as the
sandbox hands them to pybullet) and step the same settle; whole processes are timed from
outside (wall time; CPU and peak memory of that child alone from ``os.wait4``), sandbox and
raw alternating in rounds so a busy machine slows both alike. The idle figures measure after
4 s of settling. The explosion includes the stud graph when it is built at the blast; undo
includes the next action (what it costs beyond the same action's first play). A rich table
follows. Timed children run as a user's process does: with Python's bytecode cached
(``PYTHONDONTWRITEBYTECODE`` is removed from their environment) and, after one warm-up run that
is not counted (reported as ``first_run_wall_s``), with the part cache filled (the bench's own
folder, ``SANDBOX_PART_CACHE``). The window figures need a display: tools/bench_tabletop.py
under Xvfb (full run or ``--window``).
"""

from __future__ import annotations

import argparse
import json
import os
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


def user_env(tmp: Path | None = None) -> dict[str, str]:
    """The environment of a timed child, as a user's: Python writes and reads its bytecode
    (``PYTHONDONTWRITEBYTECODE`` removed: an installed package has its ``.pyc``; an editable
    checkout writes them on its first run) and the part cache (issue 26) is the bench's own
    folder (``tmp/parts``), filled by a warm-up run as a user's is by their first run."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(REPO), LDRAWDIR=str(LDRAW))
    if tmp is not None:
        env["SANDBOX_PART_CACHE"] = str(tmp / "parts")
    return env


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


def write_dump(scene: Path, path: Path) -> dict:
    """Open a scene (load + settle) and write what the sandbox handed to pybullet for every
    body (tools/bench_raw.py builds the same compounds from it in its own process)."""
    from sandbox import open_game
    from sandbox.physics.world import (
        _boxes_in_frame,
        _principal_frame,
        compound_mass_properties,
        matrix_to_quat,
    )

    game = open_game(scene, ldrawdir=LDRAW)
    w = game.world
    bodies = []
    for key, body in w.bodies.items():
        if key == "ground":
            continue
        boxes = game.assets[key].boxes
        mass, com, inertia = compound_mass_properties(boxes)
        rot, diag = _principal_frame(inertia)
        halfs, centres, quats = _boxes_in_frame(boxes, com, rot)
        bodies.append({"key": key, "static": body.static, "mass": mass, "com": com.tolist(),
                       "orn": list(matrix_to_quat(rot)), "diag": diag.tolist(),
                       "half": halfs.tolist(), "centres": centres.tolist(),
                       "quats": quats.tolist()})
    bf = game.spec.battlefield
    dump = {"battlefield": [bf.width, bf.depth], "time_step": w.time_step,
            "gravity": w.gravity, "settle_steps": w.steps, "bodies": bodies,
            "bricks": sum(a.part_count for a in game.assets.values())}
    game.close()
    path.write_text(json.dumps(dump))
    return dump


def timed_process(cmd: list[str], cwd: Path) -> dict:
    """A whole child process measured on its own: run through a small wrapper that reaps it
    with ``os.wait4`` and prints its own rusage (peak memory of that child only). The child
    runs as a user's would (:func:`user_env`: bytecode cached, the bench's part cache)."""
    wrapper = ("import json,os,subprocess,sys,time;t=time.perf_counter();"
               "p=subprocess.Popen(sys.argv[1:],stdout=subprocess.PIPE,"
               "stderr=subprocess.STDOUT);o=p.stdout.read();"
               "_,st,ru=os.wait4(p.pid,0);w=time.perf_counter()-t;"
               "print(json.dumps({'wall_s':w,'cpu_s':ru.ru_utime+ru.ru_stime,"
               "'peak_mb':ru.ru_maxrss/1024.0,'rc':os.waitstatus_to_exitcode(st),"
               "'stdout':o.decode(errors='replace')[-4000:]}))")
    p = subprocess.run([PY, "-c", wrapper, *cmd], cwd=cwd, capture_output=True, text=True,
                       env=user_env(cwd))
    try:
        return json.loads(p.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"wall_s": None, "cpu_s": None, "peak_mb": None, "rc": p.returncode,
                "stdout": "", "error": (p.stderr.strip().splitlines() or ["?"])[-1]}


def last_json(text: str) -> dict | None:
    """The last JSON object a child printed (pybullet's C code may print on the same line)."""
    for line in reversed(text.splitlines()):
        a, b = line.find("{"), line.rfind("}")
        if a >= 0 and b > a:
            try:
                return json.loads(line[a:b + 1])
            except json.JSONDecodeError:
                continue
    return None


def fig_towers_process(count: int, rounds: int, tmp: Path) -> list[dict]:
    """N guard towers: the whole ``sandbox run --no-png`` process against a raw pybullet process
    building the same compounds from a dump of the sandbox's boxes and stepping the same settle,
    in interleaved rounds (sandbox, raw, sandbox, raw, ...): wall time and peak memory."""
    scene = army_scene(TOWER, count, (13.0, 4.0), tmp / "run_towers.toml",
                       submodel="wall_and_tower.ldr")
    dump = write_dump(scene, tmp / "towers_dump.json")
    sand, raw = [], []
    run = [PY, "-c", "from sandbox.cli import main; main()", "run", str(scene), "--no-png",
           "--out", str(tmp / "out")]
    raw_run = [PY, str(REPO / "tools" / "bench_raw.py"), str(tmp / "towers_dump.json")]
    # warm-up (not counted): bytecode written, the part cache filled, as by a user's first run
    cold = timed_process(run, tmp)
    timed_process(raw_run, tmp)
    for _ in range(rounds):
        sand.append(timed_process(run, tmp))
        raw.append(timed_process(raw_run, tmp))
    ok = all(r["rc"] == 0 and r["wall_s"] is not None for r in sand + raw)
    if not ok:
        bad = next(r for r in sand + raw if r["rc"] != 0 or r["wall_s"] is None)
        return [{"figure": "towers_process", "label": f"{count} towers whole process",
                 "value": None, "unit": "s", "raw": None, "ratio": None, "goal": "<= 1.5x raw",
                 "met": False, "error": bad.get("error") or bad.get("stdout", "")[-300:]}]
    sw = min(r["wall_s"] for r in sand)
    rw = min(r["wall_s"] for r in raw)
    sm = max(r["peak_mb"] for r in sand)
    rm = max(r["peak_mb"] for r in raw)
    label = f"{dump['bricks']:,} bricks ({count} towers) `sandbox run --no-png`, whole process"
    return [
        {"figure": "towers_process", "label": label, "value": round(sw, 2), "unit": "s wall",
         "raw": round(rw, 2), "ratio": round(sw / rw, 2), "goal": "<= 1.5x raw",
         "met": sw / rw <= 1.5, "rounds": rounds,
         "walls": [round(r["wall_s"], 2) for r in sand],
         "raw_walls": [round(r["wall_s"], 2) for r in raw],
         "cpu_s": round(min(r["cpu_s"] for r in sand), 2),
         "raw_cpu_s": round(min(r["cpu_s"] for r in raw), 2),
         "cpu_ratio": round(min(r["cpu_s"] for r in sand) / min(r["cpu_s"] for r in raw), 2),
         "first_run_wall_s": None if cold["wall_s"] is None else round(cold["wall_s"], 2),
         "caches": "bytecode and part cache warm (one warm-up run first)",
         "settle_steps": dump["settle_steps"], "bodies": len(dump["bodies"])},
        {"figure": "towers_memory", "label": label + ", peak memory", "value": round(sm),
         "unit": "MB", "raw": round(rm), "ratio": round(sm / rm, 2), "goal": "<= 2.5x raw",
         "met": sm / rm <= 2.5, "kib_per_brick": round(sm * 1000 / 1.024 / dump["bricks"], 1),
         "raw_kib_per_brick": round(rm * 1000 / 1.024 / dump["bricks"], 1)},
    ]


def idle_sandbox(scene: Path, steps: int) -> dict:
    """In its own process: open the scene, 4 s of the game's own steps, then time ``steps``
    steps of the loop (``Game.step`` with every rules hook, then the rest check)."""
    from sandbox import open_game

    g = open_game(scene, ldrawdir=LDRAW)
    w = g.world
    for _ in range(int(round(4.0 / w.time_step))):
        g.step()
    t = time.perf_counter()
    for _ in range(steps):
        g.step()
        w.is_at_rest()
    d = time.perf_counter() - t
    return {"idle_x_real_time": steps * w.time_step / d,
            "asleep": bool(getattr(w, "dormant", False))}


def fig_idle(count: int, steps: int, rounds: int, tmp: Path) -> dict:
    """N towers at rest after 4 s of settling: simulated s per wall s of the sandbox's loop
    (``Game.step`` with every rules hook, then the rest check) against a raw pybullet process
    (Bullet's sleeping on) built from a dump of the same boxes and idled the same 4 s;
    processes alternate in rounds."""
    scene = army_scene(TOWER, count, (13.0, 4.0), tmp / "idle.toml", submodel="wall_and_tower.ldr")
    dump = write_dump(scene, tmp / "idle_dump.json")
    sand, raw = [], []
    err = None
    for _ in range(rounds):
        r = timed_process([PY, __file__, "--idle-sandbox", str(scene), str(steps)], tmp)
        sand.append(last_json(r["stdout"]) if r["rc"] == 0 else None)
        err = err or (None if r["rc"] == 0 else r["stdout"][-300:])
        r = timed_process([PY, str(REPO / "tools" / "bench_raw.py"), str(tmp / "idle_dump.json"),
                           "--idle", "4", "--steps", str(steps), "--sleeping"], tmp)
        raw.append(last_json(r["stdout"]) if r["rc"] == 0 else None)
        err = err or (None if r["rc"] == 0 else r["stdout"][-300:])
    if None in sand or None in raw:
        return {"figure": f"idle_{count}", "label": f"{count} towers idle", "value": None,
                "unit": "x real time", "raw": None, "ratio": None, "goal": "", "met": False,
                "error": err}
    s = max(x["idle_x_real_time"] for x in sand)
    r = max(x["idle_x_real_time"] for x in raw)
    goal = ">= 100x real time" if count <= 8 else ">= 0.8x raw"
    met = s >= 100 if count <= 8 else s / r >= 0.8
    return {"figure": f"idle_{count}", "label": f"{dump['bricks']:,} bricks ({count} towers) "
            "at rest after 4 s: simulated s per wall s", "value": round(s, 2),
            "unit": "x real time", "raw": round(r, 2), "ratio": round(s / r, 2), "goal": goal,
            "met": met, "steps": steps, "rounds": rounds,
            "sandbox_asleep": all(x["asleep"] for x in sand)}


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


def fig_explosion(max_seconds: float = 10.0) -> list[dict]:
    """One 3d10 Explosion against the front of the King's Castle: damage + break-up, then the
    physics until everything rests (as tools/bench_explosion.py)."""
    import numpy as np

    from sandbox.core.dice import DiceExpression
    from sandbox.physics.breakage import boxes_now
    from sandbox.rules.explosives import Variant

    g = castle_game()
    lo, hi = g.world.aabb("castle")
    now = boxes_now(g.world, "castle", g.assets["castle"].boxes)
    aim = np.array([(lo[0] + hi[0]) / 2, lo[1], 2.0])
    nearest = min(now, key=lambda b: float(np.linalg.norm(np.asarray(b.centre) - aim)))
    point = np.asarray(nearest.centre) - np.array([0.0, 0.3, 0.0])
    blasts = g.blasts
    # the stud graph counts: built at load (then it is in the load, not here) or at this blast
    graph_at_load = getattr(g.assets["castle"], "stud_graph", None) is not None
    roll = DiceExpression.parse("3d10 Exp").roll(g.dice.stream("explosion"), "bench")
    from sandbox.physics.world import PhysicsWorld

    orig = PhysicsWorld.step_until_rest
    PhysicsWorld.step_until_rest = lambda self, *a, **k: []  # time the rules part alone
    t, cpu = time.perf_counter(), time.process_time()
    blasts.blast(point, roll, Variant.EXPLOSIVE, "bench")
    t_break, cpu_break = time.perf_counter() - t, time.process_time() - cpu
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
         "goal": "< 50 ms", "met": t_break < 0.05, "ratio_to_goal": round(t_break / 0.05, 2),
         "cpu_ms": round(cpu_break * 1000, 1),
         "stud_graph": "built at load" if graph_at_load else "built in this blast (included)"},
        {"figure": "explosion_physics", "label": f"same explosion: physics until rest "
         f"({sim:.2f} s simulated)", "value": round(sim / t_phys, 2), "unit": "x real time",
         "raw": round(sim / raw_phys, 2), "ratio": round(raw_phys / t_phys, 3),
         "goal": ">= 4x real time", "met": sim / t_phys >= 4, "wall_s": round(t_phys, 2)},
    ]


def _undo_figure(scene: str, figure: str, label: str) -> dict:
    """Play a scene's turns, then undo its last action that is not an end of turn and play it
    again, timed, 3 rounds (:func:`_undo_rounds`); the reference is the same action played on
    a fresh game of the log before it."""
    from sandbox import open_game
    from sandbox.engine.game import Game

    game = open_game(REPO / "scenes" / scene, ldrawdir=LDRAW)
    game.play_turns()
    log = list(game.actions)
    i = max(k for k, a in enumerate(log) if a.type != "end_turn")
    while len(game.actions) > i + 1:
        game.undo()
    return _undo_rounds(game, log[i], lambda: Game(
        game.spec, game.base_dir, game.ldrawdir, seed=game.seed, actions=log[:i],
        forced_dice=game.forced_dice), figure, label)


def _undo_castle_blast() -> dict:
    """The King's Castle struck by a 3d10 missile at the front (the explosion figure's blast:
    it breaks into 46 bodies), undone and struck again, 3 rounds (:func:`_undo_rounds`)."""
    import numpy as np

    from sandbox.physics.breakage import boxes_now

    game = castle_game()
    lo, hi = game.world.aabb("castle")
    now = boxes_now(game.world, "castle", game.assets["castle"].boxes)
    aim = np.array([(lo[0] + hi[0]) / 2, lo[1], 2.0])
    nearest = min(now, key=lambda b: float(np.linalg.norm(np.asarray(b.centre) - aim)))
    point = np.asarray(nearest.centre) - np.array([0.0, 0.3, 0.0])
    action = {"type": "missile", "player": "Crusaders", "xsize": 3,
              "point": [round(float(v), 4) for v in point]}
    game.apply(action, by="referee")
    action = game.actions[-1]
    return _undo_rounds(game, action, castle_game, "undo_castle_blast",
                        "undo of a 3d10 missile that broke the King's Castle into 46 bodies + "
                        "the next action")


def _undo_rounds(game, action, fresh_game, figure: str, label: str) -> dict:
    """``game`` has just played ``action``: undo it and play it again, timed, 3 rounds. The
    reference is ``action`` played on ``fresh_game()`` (the game before it), made in each
    round (interleaved, so a busy machine slows both alike). ``value`` (median of the rounds)
    = the undo + what the next action cost beyond that round's reference (a rebuild deferred
    to it shows there), wall clock; ``cpu_value`` the same in CPU seconds of this process
    (less sensitive to other work on the machine)."""
    undos, nexts, firsts, same, cpus, next_cpus, first_cpus = [], [], [], [], [], [], []
    for _ in range(3):
        with fresh_game() as fresh:
            t, cpu = time.perf_counter(), time.process_time()
            fresh.apply(action, by=action.by)  # as it was issued (a script's: the referee)
            firsts.append(time.perf_counter() - t)
            first_cpus.append(time.process_time() - cpu)
            h_first = fresh.state_hash()
        t, cpu = time.perf_counter(), time.process_time()
        game.undo()
        undos.append(time.perf_counter() - t)
        cpus.append(time.process_time() - cpu)
        t, cpu = time.perf_counter(), time.process_time()
        game.apply(action, by=action.by)
        nexts.append(time.perf_counter() - t)
        next_cpus.append(time.process_time() - cpu)
        same.append(game.state_hash() == h_first)
    bodies = len(game.world.bodies) - 1
    game.close()
    mid = sorted(u + max(0.0, n - f) for u, n, f in zip(undos, nexts, firsts, strict=True))[1]
    mid_cpu = sorted(u + max(0.0, n - f)
                     for u, n, f in zip(cpus, next_cpus, first_cpus, strict=True))[1]
    return {"figure": figure, "label": label, "value": round(mid, 3), "unit": "s", "raw": None,
            "ratio": None, "goal": "< 0.2 s (undo incl. the next action)", "met": mid < 0.2,
            "ratio_to_goal": round(mid / 0.2, 2), "cpu_value": round(mid_cpu, 3),
            "action": action.type, "bodies_after": bodies,
            "undo_s": [round(u, 4) for u in undos], "undo_cpu_s": [round(c, 4) for c in cpus],
            "next_action_s": [round(n, 3) for n in nexts],
            "next_action_cpu_s": [round(n, 3) for n in next_cpus],
            "first_play_s": [round(f, 3) for f in firsts],
            "first_play_cpu_s": [round(f, 3) for f in first_cpus], "replayed_hash_equal": same}


def fig_undo() -> list[dict]:
    """Undo on the castle (the Big Drop on the gatehouse), of an action that broke a creation
    (wall_demolition's missile) and of a missile that breaks the whole King's Castle, each
    with the next action."""
    return [_undo_figure("big_drop_kings_castle.toml", "undo_castle",
                         "undo of the Big Drop on the castle gatehouse + the next action"),
            _undo_figure("wall_demolition.toml", "undo_break",
                         "undo of the missile that broke the wall (bodies removed) + the next "
                         "action"),
            _undo_castle_blast()]


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
    loop = getattr(ex, "loop_frames_per_second", None)
    return {"figure": "export", "label": f"video export {size} (MP4)", "value":
            round(ex.frames_per_second, 1), "unit": "frames/s", "raw": None, "ratio": None,
            "goal": ">= 15 frames/s at 640x360", "met": ex.frames_per_second >= 15 and w >= 640,
            "frames": ex.frames, "loop_frames_per_second": None if loop is None else
            round(loop, 1), "note": "value: the whole export (meshes built, renderer opened); "
            "loop: the picture loop alone"}


def fig_main_job(tmp: Path) -> dict:
    """The README's main job, ``sandbox run`` of the default scene with its PNG, as a whole
    process (best of 3), and the imports alone."""
    job = [PY, "-c", "from sandbox.cli import main; main()", "run",
           str(REPO / "scenes" / "big_drop_guard_tower.toml"), "--out", str(tmp / "out")]
    cold = timed_process(job, tmp)  # warm-up: bytecode and part cache, as a first run
    runs = [timed_process(job, tmp) for _ in range(3)]
    imports = timed_process([PY, "-c", "import sandbox.cli, sandbox.engine.game"], tmp)
    best = min(runs, key=lambda r: r["wall_s"] or 1e9)
    wall = best["wall_s"]
    return {"figure": "main_job", "label": "headless main job (`sandbox run` default scene, PNG)",
            "value": None if wall is None else round(wall, 2), "unit": "s wall", "raw": None,
            "ratio": None, "goal": "< 1.5 s", "met": wall is not None and wall < 1.5,
            "imports_s": round(imports["wall_s"], 2), "cpu_s": round(best["cpu_s"], 2),
            "peak_mb": round(best["peak_mb"]), "rc": best["rc"],
            "walls": [None if r["wall_s"] is None else round(r["wall_s"], 2) for r in runs],
            "first_run_wall_s": None if cold["wall_s"] is None else round(cold["wall_s"], 2),
            "caches": "bytecode and part cache warm (one warm-up run first)"}


def _window_fps(extra: list[str]) -> tuple[float | None, int, str]:
    """frames/s of tools/bench_tabletop.py with ``extra`` arguments, its exit status and last
    error line."""
    p = subprocess.run([PY, str(REPO / "tools" / "bench_tabletop.py"), "--frames", "120", *extra],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    fps = None
    for line in p.stdout.splitlines():
        if line.startswith("frames/second"):
            fps = float(line.split()[1])
    return fps, p.returncode, (p.stderr.strip().splitlines() or ["?"])[-1]


def fig_window() -> list[dict]:
    """The window goals of issue 26 on this display (software GL under Xvfb when no DISPLAY):
    the gatehouse scene and the whole King's Castle at the table's framing, 1280x720, the
    window's own defaults; the first picture of ``sandbox play``."""
    out = []
    castle = Path(os.environ.get("LDRAWDIR", REPO.parent / "shared" / "ldraw")) / "models" / \
        "6080 - Kings Castle.mpd"
    for figure, label, extra in (
            ("window_fps", "window, the King's Castle gatehouse scene, 1280x720", []),
            ("window_castle_fps", "window, the whole King's Castle (6080), table's framing, "
             "1280x720", ["--model", str(castle)])):
        fps, rc, err = _window_fps(extra)
        out.append({"figure": figure, "label": label, "value": fps, "unit": "frames/s",
                    "raw": None, "ratio": None, "goal": ">= 30 fps",
                    "met": fps is not None and fps >= 30, "rc": rc,
                    **({"error": err} if rc else {})})
    p = subprocess.run([PY, str(REPO / "tools" / "bench_window_open.py"),
                        str(REPO / "scenes" / "big_drop_kings_castle.toml")],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    first = table = None
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            got = json.loads(line)
            first, table = got.get("first_picture_s"), got.get("table_s")
    out.append({"figure": "first_picture", "label": "sandbox play of the gatehouse scene: the "
                f"loading view (the table at {table} s)", "value": first, "unit": "s",
                "raw": None, "ratio": None, "goal": "< 2 s",
                "met": first is not None and first < 2.0, "rc": p.returncode})
    return out


def child(name: str, quick: bool, rounds: int | None = None) -> list[dict]:
    tmp = Path(tempfile.mkdtemp(prefix="bench26-"))
    towers = 8 if quick else 83
    rounds = rounds or (2 if quick else 3)
    if name == "action_loop":
        return [fig_loop(300 if quick else 2000)]
    if name == "towers_process":
        return fig_towers_process(towers, rounds, tmp)
    if name == "idle_8":
        return [fig_idle(8, 960, rounds, tmp)]
    if name == "idle_83":
        return [fig_idle(towers, 240, rounds, tmp)]
    if name == "explosion":
        return fig_explosion(1.0 if quick else 10.0)
    if name == "undo":
        return fig_undo()
    if name == "export":
        return [fig_export("640x360", 1.0 if quick else 3.0, tmp)]
    if name == "main_job":
        return [fig_main_job(tmp)]
    if name == "window":
        return fig_window()
    raise SystemExit(f"unknown figure {name!r}")


FIGURES = ["towers_process", "idle_8", "idle_83", "explosion", "undo", "action_loop",
           "export", "main_job", "window"]
QUICK = ["towers_process", "idle_8", "explosion", "undo", "main_job"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="about a minute: fewer bricks and steps")
    ap.add_argument("--only", nargs="*", help=f"figures to run, of {FIGURES}")
    ap.add_argument("--window", action="store_true", help="the window figures in a quick run too")
    ap.add_argument("--rounds", type=int, help="rounds of the alternating figures (2 quick, 3)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--idle-sandbox", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.idle_sandbox:
        print(json.dumps(idle_sandbox(Path(args.idle_sandbox[0]), int(args.idle_sandbox[1]))))
        return 0
    if args.child:
        for rec in child(args.child, args.quick, args.rounds):
            print("BENCH " + json.dumps(rec), flush=True)
        return 0
    names = args.only or (QUICK + (["window"] if args.window else []) if args.quick else FIGURES)
    with open("/proc/loadavg") as fh:
        load = fh.read().split()[:3]
    print(json.dumps({"figure": "machine", "cpus": os.cpu_count(), "loadavg": load,
                      "quick": args.quick}), flush=True)
    records = []
    for name in names:
        cmd = ([PY, __file__, "--child", name] + (["--quick"] if args.quick else [])
               + (["--rounds", str(args.rounds)] if args.rounds else []))
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

    table = Table(title=f"issue 26 figures ({'quick' if args.quick else 'full'}; "
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
