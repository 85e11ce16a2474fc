"""What are the odds: one scene's turn played for many seeds, with the physics in the loop.

Each run is a whole headless game on the one engine: ``open_game(scene, seed=s)`` and the
scene's script (:meth:`~sandbox.engine.game.Game.play_script`), or an actions file applied
through :meth:`~sandbox.engine.game.Game.apply`. A finished game becomes one row of outcome
fields (:func:`outcome_row`); the rows of many seeds become rates with 95% Wilson intervals,
Damage and KnockBack distributions and Escapade victories (:func:`aggregate`).

Runs go to local processes (``concurrent.futures.ProcessPoolExecutor``, forkserver context)
or to a Ray cluster; each run is deterministic from its seed, and rows are kept sorted by
seed, so ``runs.csv`` is the same whatever the backend and the number of workers.

Outputs in ``--out`` (each written atomically): ``runs.csv`` (one row per seed), ``odds.json``
(the aggregate and the scene's fingerprint), ``odds.png`` (outcome bars with intervals, Damage
and KnockBack histograms). A folder that already holds rows of the same scene and actions is
resumed: the seeds there are not run again. Every row carries the ``fingerprint`` of its scene
and actions, so a folder holding another scene's rows is refused (whether or not ``odds.json``
is there), and a half-written row is run again, never kept as a finished run. One odds run
writes to a folder at a time (a lock file, ``.odds.lock``); it removes the temporary files a
killed write left there.

Workers never outlive the odds run: each watches its parent process (and on Linux asks the
kernel for a signal when its parent dies), and a SIGTERM to the main process ends the runs
in flight at once, keeps the finished ones and writes them, as a second Ctrl-C does.
"""

from __future__ import annotations

import csv
import errno
import hashlib
import io
import json
import math
import os
import signal
import threading
import time
import traceback
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from ..core.errors import OutputError, SandboxError, SceneError
from ..engine.replay import atomic_write_bytes
from .odds_stats import (  # the statistics of the rows (and what scripts import from here)
    BODY_FLAGS,
    BODY_NUMBERS,
    LEAD_COLUMNS,
    aggregate,
    columns,
    plot_odds,
)

#: The lock file of an output folder an odds run writes to.
LOCK_NAME = ".odds.lock"
#: Seconds between checkpoints of runs.csv and odds.json while runs go on.
CHECKPOINT_SECONDS = 2.0
#: Largest number of seeds one odds run takes.
MAX_RUNS = 1_000_000


# ============================================================================ one run
@dataclass(frozen=True)
class OddsJob:
    """One run: a scene file, a seed and optionally an action log (dicts) to apply."""

    scene: str
    seed: int
    actions: tuple | None = None
    ldrawdir: str | None = None
    #: A scene as JSON text (a game in the window) instead of the file ``scene``, and the
    #: folder its model paths are relative to.
    scene_doc: str | None = None
    base_dir: str | None = None
    #: Use the scene's forced dice (a scripted run) or not (a live game's, issue 18).
    forced_dice: bool = True


def _root(key: str) -> str:
    """The scene id a piece (``wall#3``) or a destroyed part (``wall~12``) came from."""
    for sep in ("#", "~"):
        key = key.split(sep, 1)[0]
    return key


def tracked_bodies(game) -> list[str]:
    """Scene ids whose outcomes are counted: creations, units, reserves, in scene order."""
    spec = game.spec
    return [e.id for e in list(spec.creations) + list(spec.units) + list(spec.reserves)]


def outcome_row(game) -> dict[str, Any]:
    """The outcome fields of a finished game as one flat row (ints for flags, 0/1).

    Per tracked body ``B`` (:func:`tracked_bodies`): ``B.destroyed``, ``B.disrupted``,
    ``B.knocked_back``, ``B.on_fire``, ``B.off_table`` (0/1), ``B.damage`` (points, summed),
    ``B.knockback_in`` (inches, the farthest), ``B.parts_destroyed``, ``B.pieces``; events of
    pieces and destroyed parts count for the scene id they came from. For an Escapade,
    ``victory.F`` (0/1)
    per force and ``victory.outcome``; for a scene with expectations, ``expect.all`` and
    ``expect.NAME`` (1: met) per condition of :func:`~sandbox.app.headless.expectation_results`.
    Always ``winner`` (the game's :attr:`~sandbox.engine.game.Game.outcome`: the winning player
    or side, ``"draw"``, or ``""`` with no winner), ``impacts``, ``collision_rolls``, ``turns``
    and ``sim_seconds``.
    """
    from .headless import expectation_results

    bodies = tracked_bodies(game)
    acc = {b: {**{k: 0 for k in BODY_FLAGS}, **{k: 0 for k in BODY_NUMBERS}} for b in bodies}
    impacts = rolls = 0
    for ev in game.events:
        t = ev["type"]
        if t == "impact":
            impacts += 1
            continue
        if t == "roll":
            rolls += ev.get("stream") == "collision"
            continue
        key = ev.get("body")
        if not isinstance(key, str):
            continue
        a = acc.get(_root(key))
        if a is None:
            continue
        if t == "damage":
            a["damage"] += int(ev.get("damage") or 0)
        elif t == "destroyed":
            a["destroyed"] = 1
        elif t == "disrupted":
            a["disrupted"] = 1
        elif t == "off_table":
            a["off_table"] = 1
        elif t == "knockback" and ev.get("inches") is not None:
            a["knocked_back"] = 1
            a["knockback_in"] = max(a["knockback_in"], float(ev["inches"]))
        elif t == "break":
            a["parts_destroyed"] += len(ev.get("debris") or ())
        elif t == "piece":
            a["pieces"] += 1
    for b in bodies:
        for k in [k for k in game.bodies if _root(k) == b]:
            if game.hazards is not None and game.hazards.fire.burning(k):
                acc[b]["on_fire"] = 1
        st = game.bodies.get(b)
        if st is not None and st.damage.destroyed:
            acc[b]["destroyed"] = 1
    oc = game.outcome
    row: dict[str, Any] = {"winner": oc.winner or ("draw" if oc.draw else "")}
    for b in bodies:
        for k, v in acc[b].items():
            row[f"{b}.{k}"] = round(v, 4) if isinstance(v, float) else v
    if game.escapade is not None:
        summ = game.escapade.ledger.summary()
        victors = set(summ["victory"]["victors"])
        row["victory.outcome"] = summ["victory"]["outcome"]
        for force in summ["forces"]:
            row[f"victory.{force}"] = int(force in victors)
    results = expectation_results(game)
    if results:
        row["expect.all"] = int(all(not f for _, f in results))
        for name, fails in results:
            row[f"expect.{name}"] = int(not fails)
    row["impacts"] = impacts
    row["collision_rolls"] = rolls
    row["turns"] = game.turn
    row["sim_seconds"] = round(float(game.world.time), 4)
    return row


def _apply_actions(game, actions: Sequence[dict]) -> None:
    """Apply an action log through ``game.apply``. As in a scene's script, each action comes
    on its ``turn`` (default 1) in its ``player``'s part of it: turns are ended until then
    (``end_turn`` entries of a saved log keep it in step already). Then play on while
    Payloads fly, and finish."""
    from ..core.errors import RulesError
    from ..engine.actions import EndTurnAction, parse_action

    for i, raw in enumerate(actions):
        try:
            a = parse_action(raw, f"actions[{i}]")
            if not isinstance(a, EndTurnAction):
                game.advance_to(a.turn, a.player)
            game.apply(a)
        except RulesError as exc:
            raise RulesError(f"actions[{i}]: {exc}") from None
    game.play_on()
    game.finish()


def play(job: OddsJob, on_event: Callable[[dict], None] | None = None):
    """Build and play one run's game; return the finished (open) :class:`Game`.

    Raises
    ------
    SandboxError
        The scene cannot be read, or an action is refused for this seed.
    """
    from ..engine.game import Game, open_game

    if job.scene_doc is not None:
        from ..engine.scene import scene_from_dict

        spec = scene_from_dict(json.loads(job.scene_doc), "<the game's scene>")
        game = Game(spec, job.base_dir or ".", job.ldrawdir, seed=job.seed, on_event=on_event,
                    forced_dice=job.forced_dice)
    else:
        game = open_game(job.scene, seed=job.seed, ldrawdir=job.ldrawdir, on_event=on_event)
    game.undo_snapshots = 0  # a sampled game is never undone
    try:
        if job.actions is None:
            game.play_script()
        else:
            _apply_actions(game, job.actions)
    except BaseException:
        game.close()
        raise
    return game


def run_one(job: OddsJob) -> dict[str, Any]:
    """One seed: a row with ``seed``, ``status`` ("ok" or "error"; the backends add "crashed"
    for a run whose process died, which a resumed run does again), ``error`` (one line) and,
    when ok, the outcome fields (:func:`outcome_row`). Never raises for a failed game: the
    failure is the row (so the other runs go on)."""
    try:
        game = play(job)
    except SandboxError as exc:
        return {"seed": job.seed, "status": "error", "error": _one_line(str(exc))}
    except Exception as exc:  # a bug in a run must not lose the other runs
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" at {Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else ""
        return {"seed": job.seed, "status": "error",
                "error": _one_line(f"{type(exc).__name__}: {exc}{where}")}
    try:
        return {"seed": job.seed, "status": "ok", "error": "", **outcome_row(game)}
    finally:
        game.close()


def _one_line(text: str) -> str:
    return " ".join(text.split())[:500]


def _worker_init() -> None:
    """Local workers leave Ctrl-C to the parent, which stops handing out runs; and they end
    when the odds run's process is gone (killed, crashed): a thread waits on its sentinel,
    and on Linux the kernel sends SIGKILL when the worker's parent (the fork server) dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()


def _die_with_parent() -> None:
    import multiprocessing as mp
    import sys

    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    parent = mp.parent_process()
    if parent is None or getattr(parent, "sentinel", None) is None:
        return

    def watch() -> None:
        from multiprocessing.connection import wait as wait_for

        wait_for([parent.sentinel])  # ready when the odds run's process is gone
        os._exit(1)

    threading.Thread(target=watch, name="odds-parent-watch", daemon=True).start()


class Terminated(KeyboardInterrupt):
    """SIGTERM reached the odds run: stop now (runs in flight are dropped), keep the rest."""


def _stop_now(ex: ProcessPoolExecutor) -> None:
    """End a pool's workers at once (SIGTERM to the odds run: no run in flight is awaited)."""
    procs = list((getattr(ex, "_processes", None) or {}).values())
    ex.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        try:
            p.kill()
        except (OSError, ValueError):
            pass
    for p in procs:
        try:
            p.join(10)
        except (OSError, ValueError, AssertionError):
            pass


# ============================================================================ files
def rows_csv(rows: Sequence[dict]) -> str:
    """Rows (sorted by seed) as CSV text."""
    rows = sorted(rows, key=lambda r: int(r["seed"]))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns(rows), lineterminator="\n", restval="")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    return buf.getvalue()


def _cell(text: str) -> Any:
    if text == "":
        return ""
    try:
        return int(text)
    except ValueError:
        pass
    if any(c in text for c in ".eEn"):
        try:
            v = float(text)
            if math.isfinite(v):
                return v
        except ValueError:
            pass
    return text


def read_rows(path: Path, half_written: list[int] | None = None) -> list[dict]:
    """Rows of a ``runs.csv`` written before (numbers as int/float).

    A half-written row (fewer or more cells than the header, or a last line without its line
    end) is left out; its line number goes to ``half_written`` when given.

    Raises
    ------
    OutputError
        The file is not a runs table (no ``seed``/``status`` columns, a bad seed).
    """
    from ..core.limits import FileRefused, read_input_bytes

    try:
        text = read_input_bytes(path, "runs table").decode("utf-8")
    except (OSError, FileRefused, UnicodeDecodeError) as exc:
        raise OutputError(f"{path}: cannot read the runs table ({exc})") from None
    lines = text.splitlines(keepends=True)
    cut = bool(lines) and not lines[-1].endswith(("\n", "\r"))
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or not {"seed", "status"} <= set(reader.fieldnames):
        raise OutputError(f"{path}: not a runs table (no 'seed' and 'status' columns)")
    rows = []
    last = len(lines)
    for raw in reader:
        i = reader.line_num
        if None in raw or None in raw.values() or (cut and i == last):
            if half_written is not None:
                half_written.append(i)
            continue
        row = {k: _cell(v or "") for k, v in raw.items() if k is not None}
        if not isinstance(row.get("seed"), int):
            raise OutputError(f"{path}: line {i}: seed {raw.get('seed')!r} is not a whole number")
        rows.append({k: v for k, v in row.items() if v != "" or k in LEAD_COLUMNS})
    return rows


def parse_seeds(text: str) -> range:
    """``A..B`` (inclusive) as a range.

    Raises
    ------
    SceneError
        Not two whole numbers, a seed out of range
        (:func:`~sandbox.core.dice.seed_refusal`), B before A, or more than :data:`MAX_RUNS`
        seeds.
    """
    parts = text.split("..")
    try:
        if len(parts) != 2:
            raise ValueError
        a, b = int(parts[0]), int(parts[1])
    except ValueError:
        raise SceneError(f"--seeds {text!r}: expected A..B, two whole numbers "
                         "(e.g. 1..100)") from None
    from ..core.dice import seed_refusal

    for v in (a, b):
        if seed_refusal(v):
            raise SceneError(f"--seeds {text[:60]!r}: {seed_refusal(v)}")
    if b < a:
        raise SceneError(f"--seeds {text!r}: the last seed {b} comes before the first {a}")
    if b - a + 1 > MAX_RUNS:
        raise SceneError(f"--seeds {text!r}: {b - a + 1} runs, more than {MAX_RUNS}")
    return range(a, b + 1)


def load_actions(path: str | Path) -> list[dict]:
    """An actions file: JSON, a list of action dicts or a saved game's ``actions`` log
    (``{"actions": [...]}``), or TOML with ``[[actions]]`` tables.

    Raises
    ------
    SceneError
        Unreadable, or not a list of tables.
    """
    from ..core.limits import FileRefused, read_input_bytes

    p = Path(path)
    try:
        raw = read_input_bytes(p, "actions file")  # devices, FIFOs, folders refused unread
    except FileRefused as exc:
        raise SceneError(f"--actions {str(p)!r}: {exc}") from None
    except OSError as exc:
        raise SceneError(f"--actions {str(p)!r}: cannot read ({exc.strerror or exc})") from None
    try:
        if p.suffix.lower() == ".toml":
            import tomllib

            doc = tomllib.loads(raw.decode("utf-8"))
        else:
            doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise SceneError(f"--actions {str(p)!r}: not readable JSON/TOML: {exc}") from None
    if isinstance(doc, dict):
        doc = doc.get("actions")
    if not isinstance(doc, list) or not all(isinstance(a, dict) for a in doc):
        raise SceneError(f"--actions {str(p)!r}: expected a list of actions (or 'actions' "
                         "holding one)")
    from ..engine.actions import parse_action

    for i, a in enumerate(doc):  # malformed actions: one clear line before any run
        parse_action(a, f"{p}:actions[{i}]")
    return doc


def run_key(fp: dict) -> str:
    """The ``fingerprint`` column of a row: 16 hex digits of the scene's and actions' SHA-256
    (:func:`fingerprint`)."""
    text = f"{fp['scene_sha256']}:{fp['actions_sha256']}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _lock_out(out: Path):
    """Hold ``out``/.odds.lock (an exclusive lock; released when the file closes, or the
    process ends) and remove what killed atomic writes left there (``.NAME.*.tmp``).

    Raises
    ------
    OutputError
        Another odds run holds the lock (it writes to this folder now), or it cannot be made.
    """
    import fcntl

    try:
        fh = open(out / LOCK_NAME, "a")  # noqa: SIM115 - held for the whole odds run
    except OSError as exc:
        raise OutputError(f"--out {str(out)!r}: cannot write there ({exc.strerror or exc})") \
            from None
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        fh.close()
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise OutputError(f"--out {str(out)!r}: another odds run is writing there now; "
                              "wait for it or give another --out") from None
        raise OutputError(f"--out {str(out)!r}: cannot lock it ({exc.strerror or exc})") \
            from None
    for p in out.glob(".*.tmp"):  # ours (mkstemp's ".NAME.XXXX.tmp"); no writer holds them
        if p.is_file() and not p.is_symlink():
            try:
                p.unlink()
            except OSError:
                pass
    return fh


def fingerprint(scene: Path, actions: Sequence[dict] | None) -> dict:
    """What a resumed folder must match: the scene file's and the actions' SHA-256."""
    from ..core.limits import FileRefused, read_input_bytes

    try:
        data = read_input_bytes(scene, "scene file")
    except FileRefused as exc:
        raise SceneError(f"{scene}: {exc}") from None
    except OSError as exc:
        raise SceneError(f"{scene}: cannot read the scene ({exc.strerror or exc})") from None
    act = None if actions is None else hashlib.sha256(
        json.dumps(list(actions), sort_keys=True).encode()).hexdigest()
    return {"scene": str(scene), "scene_sha256": hashlib.sha256(data).hexdigest(),
            "actions_sha256": act}


# ============================================================================ backends
@dataclass
class OddsRun:
    """An odds run's rows and how it ended (see :func:`run_odds`)."""

    rows: list[dict]
    odds: dict
    out_dir: Path
    new_runs: int
    reused: int
    interrupted: bool = False
    seconds: float = 0.0
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def runs_per_second(self) -> float:
        return self.new_runs / self.seconds if self.seconds > 0 else 0.0


def _local(jobs: list[OddsJob], workers: int, done: Callable[[dict], None],
           fn: Callable[[OddsJob], dict] = run_one) -> None:
    """Run jobs on ``workers`` local processes (this process when 1); call ``done(row)`` as
    each finishes. A worker that dies breaks the pool: the unfinished runs go to a new one;
    when that breaks too, each is run alone and the one whose worker dies is an error row."""
    if workers <= 1:
        for j in jobs:
            done(fn(j))
        return
    import multiprocessing as mp

    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        # the fork server imports the engine once; each worker is forked from it
        ctx.set_forkserver_preload(["sandbox.engine.game", "sandbox.app.headless"])
    else:
        ctx = mp.get_context("spawn")
    todo = list(jobs)
    breaks = 0
    while todo:
        if breaks >= 2:  # a run keeps killing its worker: find it by running each alone
            for j in todo:
                with ProcessPoolExecutor(max_workers=1, mp_context=ctx,
                                         initializer=_worker_init) as alone:
                    try:
                        row = alone.submit(fn, j).result()
                    except BrokenProcessPool:
                        row = {"seed": j.seed, "status": "crashed",
                               "error": "the worker process running it died"}
                done(row)
            return
        ex = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init)
        futures = {ex.submit(fn, j): j for j in todo}
        todo = []
        handled: set = set()
        try:
            pending = set(futures)
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    handled.add(f)
                    try:
                        row = f.result()
                    except BrokenProcessPool:
                        todo.append(futures[f])  # the pool broke: again in a new one
                        continue
                    done(row)
        except KeyboardInterrupt as stop:
            # no new runs; the ones running finish and are kept (a second Ctrl-C or SIGTERM:
            # stop now, the runs in flight are dropped)
            try:
                if isinstance(stop, Terminated):
                    _stop_now(ex)
                else:
                    ex.shutdown(wait=True, cancel_futures=True)
            except KeyboardInterrupt:
                _stop_now(ex)
            for f in futures:
                if f not in handled and f.done() and not f.cancelled() \
                        and f.exception() is None:
                    done(f.result())
            raise
        ex.shutdown(wait=True)
        breaks += bool(todo)
        todo.sort(key=lambda j: j.seed)


def _probe_ray_address(address: str | None, timeout: float = 5.0) -> None:
    """A ``host:port`` (or ``ray://host:port``) that nothing answers on: one clear line now
    (Ray itself keeps retrying for minutes).

    Raises
    ------
    SandboxError
        Nothing accepts a connection there within ``timeout`` seconds.
    """
    import socket

    if address is None or address == "auto":
        return
    hostport = address.split("://", 1)[-1]
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise SandboxError(f"--ray {address!r}: expected host:port, ray://host:port or auto")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise SandboxError(f"--ray {address!r}: no Ray there ({exc.strerror or exc})") from None


def _ray(jobs: list[OddsJob], address: str | None, done: Callable[[dict], None]) -> None:
    """Run jobs as Ray tasks: ``address`` None starts a local Ray with 2 CPUs, else joins the
    cluster at ``address`` ("auto" or "ray://host:10001")."""
    try:
        import ray
    except ImportError:
        raise SceneError("--ray needs Ray: pip install 'brikwars-sandbox[ray]' "
                         "(or pip install ray)") from None
    started = not ray.is_initialized()
    if started:
        env = {k: os.environ[k] for k in ("PYTHONPATH", "LDRAWDIR") if k in os.environ}
        kwargs: dict[str, Any] = dict(include_dashboard=False, log_to_driver=False,
                                      configure_logging=False,
                                      runtime_env={"env_vars": env} if env else None)
        _probe_ray_address(address)
        try:
            if address is None:
                ray.init(num_cpus=2, **kwargs)
            else:
                ray.init(address=address, **kwargs)
        except Exception as exc:  # Ray's own errors: no cluster there, a version mismatch
            where = "start a local Ray" if address is None else f"join the Ray at {address!r}"
            raise SandboxError(f"--ray: cannot {where}: {_one_line(str(exc))}") from None
    task = ray.remote(num_cpus=1, max_retries=1)(run_one)
    refs = {task.remote(j): j for j in jobs}
    pending = list(refs)
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=min(len(pending), 8), timeout=0.5)
            for ref in ready:
                try:
                    done(ray.get(ref))
                except Exception as exc:  # a task whose worker died (after its retry)
                    done({"seed": refs[ref].seed, "status": "crashed",
                          "error": _one_line(f"Ray task failed: {type(exc).__name__}: {exc}")})
    except KeyboardInterrupt:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    finally:
        if started:
            ray.shutdown()


# ============================================================================ the odds run
def run_odds(scene: str | Path, seeds: Sequence[int], out_dir: str | Path, *,
             workers: int | None = None, ray: bool = False, ray_address: str | None = None,
             actions_file: str | Path | None = None, ldrawdir: str | Path | None = None,
             progress: Callable[[int, int], None] | None = None, png: bool = True,
             checkpoint_seconds: float = CHECKPOINT_SECONDS) -> OddsRun:
    """Play ``scene`` for every seed in ``seeds`` and write runs.csv, odds.json, odds.png.

    Parameters
    ----------
    workers : int, optional
        Local processes (default: every CPU); 1 runs in this process.
    ray, ray_address
        Run on Ray instead: a local Ray with 2 CPUs, or the cluster at ``ray_address``.
    actions_file : path, optional
        Actions applied instead of the scene's script (:func:`load_actions`).
    progress : callable, optional
        ``progress(done, total)`` after each run (the CLI's progress bar).

    A Ctrl-C (KeyboardInterrupt) stops handing out runs; what finished is written and the
    result comes back with ``interrupted`` set. Seeds already in ``out_dir/runs.csv`` (of
    the same scene and actions) are not run again.

    Raises
    ------
    SceneError
        The scene or the actions file cannot be read; ``out_dir`` holds another scene's runs.
    OutputError
        ``out_dir`` cannot be written.
    """
    scene = Path(scene).resolve()
    if not scene.is_file():
        raise SceneError(f"{scene}: no such scene file")
    if scene.suffix.lower() != ".toml":
        raise SceneError(f"{scene}: odds are run on a scene file (.toml)")
    from ..engine.scene import load_scene

    load_scene(scene)  # a malformed scene: one line now, not one failed row per seed
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"--out {str(out)!r}: cannot create the output folder "
                          f"({exc.strerror or exc})") from None
    actions = load_actions(actions_file) if actions_file is not None else None
    fp = fingerprint(scene, actions)
    key = run_key(fp)
    lock = _lock_out(out)
    try:
        return _run_odds(scene, seeds, out, fp, key, actions, workers, ray, ray_address,
                         ldrawdir, progress, png, checkpoint_seconds)
    finally:
        lock.close()


def _run_odds(scene, seeds, out, fp, key, actions, workers, ray, ray_address, ldrawdir,
              progress, png, checkpoint_seconds) -> OddsRun:
    csv_path, json_path = out / "runs.csv", out / "odds.json"
    rows: dict[int, dict] = {}
    if csv_path.exists():
        if json_path.exists():
            try:
                old = json.loads(json_path.read_text(encoding="utf-8")).get("fingerprint", {})
            except (OSError, ValueError, AttributeError):
                old = {}
            if old and (old.get("scene_sha256"), old.get("actions_sha256")) != (
                    fp["scene_sha256"], fp["actions_sha256"]):
                raise SceneError(f"--out {str(out)!r} holds the runs of another scene or "
                                 f"actions ({old.get('scene')}); give another --out")
        # finished and failed runs stay; runs whose process died ("crashed") and half-written
        # rows are run again; a row of another scene or actions refuses the folder
        old_rows = read_rows(csv_path)
        for r in old_rows:
            if r.get("fingerprint") != key:
                raise SceneError(f"--out {str(out)!r}: runs.csv holds runs of another scene or "
                                 f"actions (seed {r['seed']}: fingerprint "
                                 f"{str(r.get('fingerprint') or 'none')[:16]!r}, this scene's "
                                 f"is {key!r}); give another --out")
        rows = {r["seed"]: r for r in old_rows if r["status"] != "crashed"}
    wanted = list(dict.fromkeys(int(s) for s in seeds))
    reused = sum(1 for s in wanted if s in rows)
    jobs = [OddsJob(str(scene), s, None if actions is None else tuple(actions),
                    None if ldrawdir is None else str(ldrawdir))
            for s in wanted if s not in rows]
    total, finished = len(wanted), reused
    if progress:
        progress(finished, total)
    last_save = time.monotonic()

    def save(final: bool) -> dict[str, Path]:
        chosen = [rows[s] for s in sorted(rows)]
        odds = aggregate([rows[s] for s in wanted if s in rows])
        doc = {"fingerprint": fp, "seeds": [wanted[0], wanted[-1]] if wanted else [],
               "odds": odds, "complete": final and all(s in rows for s in wanted)}
        try:
            atomic_write_bytes(csv_path, rows_csv(chosen).encode("utf-8"))
            atomic_write_bytes(json_path, (json.dumps(doc, indent=1) + "\n").encode("utf-8"))
        except OSError as exc:
            raise OutputError(f"--out {str(out)!r}: cannot write ({exc.strerror or exc})") \
                from None
        files = {"runs.csv": csv_path, "odds.json": json_path}
        if final and png and odds["ok"]:
            files["odds.png"] = plot_odds(odds, out / "odds.png", title=scene.stem)
        return files

    def done(row: dict) -> None:
        nonlocal finished, last_save
        row = {**{k: row.get(k, "") for k in LEAD_COLUMNS}, **row, "fingerprint": key}
        rows[int(row["seed"])] = row
        finished += 1
        if progress:
            progress(finished, total)
        if time.monotonic() - last_save >= checkpoint_seconds:
            save(False)
            last_save = time.monotonic()

    t0 = time.perf_counter()
    interrupted = False
    old_term = None
    if threading.current_thread() is threading.main_thread():
        def on_term(signum, frame):
            raise Terminated()

        old_term = signal.signal(signal.SIGTERM, on_term)
    try:
        if ray:
            _ray(jobs, ray_address, done)
        else:
            _local(jobs, workers or os.cpu_count() or 1, done)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
    seconds = time.perf_counter() - t0
    files = save(True)
    kept = [rows[s] for s in wanted if s in rows]
    return OddsRun(kept, aggregate(kept), out, finished - reused, reused, interrupted,
                   seconds, files)


# ============================================================================ the window's O key
def action_odds(game, action, seeds: Sequence[int] = range(1, 51), workers: int | None = None,
                progress: Callable[[int, int], None] | None = None) -> dict:
    """The odds of playing ``action`` now in ``game`` (the window's ``O`` on a preview).

    Each seed rebuilds the game from its scene with that seed, applies the game's action log
    so far and then ``action``, plays on while Payloads fly and finishes. The log is replayed
    with each seed's dice, so dice rolled earlier in the game differ between runs too (on turn
    1 before any other action, only this action's dice and physics vary). Returns
    :func:`aggregate` of the rows; a seed where the log or the action is refused is a failed
    run. Writes no file.

    Raises
    ------
    SceneError
        A malformed action.
    """
    from ..engine.actions import action_dict, parse_action
    from ..engine.scene import scene_to_dict

    a = action if not isinstance(action, dict) else parse_action(action, "the previewed action")
    try:  # as the table would issue it (a player's, or at a referee's table the referee's)
        a = game.issue(a)
    except SandboxError as exc:
        raise SceneError(f"the previewed action: {exc}") from None
    log = tuple(action_dict(x) for x in game.actions) + (action_dict(a),)
    doc = json.dumps(scene_to_dict(game.spec))
    ldraw = None if game.ldrawdir is None else str(game.ldrawdir)
    jobs = [OddsJob("", int(s), log, ldraw, doc, str(Path(game.base_dir).resolve()),
                    bool(getattr(game, "forced_dice", True)))
            for s in seeds]
    rows: list[dict] = []

    def done(row: dict) -> None:
        rows.append(row)
        if progress:
            progress(len(rows), len(jobs))

    _local(jobs, workers or os.cpu_count() or 1, done)
    return aggregate(sorted(rows, key=lambda r: r["seed"]))


def drama(row: dict) -> float:
    """How dramatic a run was: destroyed bodies, parts, Damage, KnockBack, fires."""
    score = 0.0
    for k, v in row.items():
        if not isinstance(v, (int, float)) or "." not in k:
            continue
        what = k.rsplit(".", 1)[1]
        score += {"destroyed": 10, "parts_destroyed": 2, "pieces": 3, "on_fire": 5,
                  "off_table": 5, "disrupted": 2, "damage": 0.5, "knockback_in": 0.5
                  }.get(what, 0) * float(v)
    return score


def write_replay(scene: str | Path, seed: int, path: str | Path,
                 actions_file: str | Path | None = None,
                 ldrawdir: str | Path | None = None) -> Path:
    """Play one seed again and write its replay (as ``sandbox run`` writes it).

    Raises
    ------
    SandboxError
        The run fails for that seed (the reason), or the file cannot be written.
    """
    from ..engine.replay import save_replay

    actions = load_actions(actions_file) if actions_file is not None else None
    job = OddsJob(str(Path(scene).resolve()), int(seed),
                  None if actions is None else tuple(actions),
                  None if ldrawdir is None else str(ldrawdir))
    game = play(job)
    try:
        rp = game.replay()
        rp.meta["scene_dir"] = str(game.base_dir.resolve())
        try:
            return save_replay(rp, path)
        except OSError as exc:
            raise OutputError(f"{path}: cannot write the replay ({exc.strerror or exc})") \
                from None
    finally:
        game.close()
