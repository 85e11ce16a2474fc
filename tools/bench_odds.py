"""Benchmark (not a test): ``sandbox odds`` runs per second with 1, 2 and all local workers.

Prints, for one scene and the same seeds each time (a fresh output folder, so nothing is
resumed): wall seconds, runs per second, the speed-up over 1 worker, and the peak resident
memory and the CPU seconds per run of the worker processes (read from ``/proc`` while the
runs go on; with 1 worker the runs are in this process, whose figures are shown). Also the
load average: other work on the machine takes cores away from the workers, which shows as a
low speed-up with unchanged CPU seconds per run.

Usage::

    LDRAWDIR=../shared/ldraw .venv/bin/python tools/bench_odds.py [SCENE] [--runs 8]
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import threading
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from sandbox.app.odds import run_odds

REPO = Path(__file__).resolve().parents[1]


def _descendants(root: int) -> list[int]:
    """Process ids below ``root`` (Linux /proc)."""
    parent: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        parent[int(d)] = int(stat.rsplit(")", 1)[1].split()[1])
    out, frontier = [], [root]
    while frontier:
        p = frontier.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out += kids
        frontier += kids
    return out


def _peak_rss_mib(pid: int) -> float | None:
    """VmHWM (peak resident set) of a process in MiB."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process so far."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class WorkerMemory:
    """Samples the peak RSS and the CPU time of this process's descendants (the workers)
    every 0.2 s."""

    def __init__(self) -> None:
        self.peaks: dict[int, float] = {}
        self.cpu: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            for pid in _descendants(os.getpid()):
                rss = _peak_rss_mib(pid)
                if rss is not None:
                    self.peaks[pid] = max(self.peaks.get(pid, 0.0), rss)
                cpu = _cpu_seconds(pid)
                if cpu is not None:
                    self.cpu[pid] = max(self.cpu.get(pid, 0.0), cpu)

    def __enter__(self) -> "WorkerMemory":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scene", nargs="?", default=str(REPO / "scenes" / "big_drop_guard_tower.toml"))
    ap.add_argument("--runs", type=int, default=8, help="seeds per configuration")
    args = ap.parse_args()
    con = Console()
    cpus = os.cpu_count() or 1
    configs = sorted({1, 2, cpus})
    seeds = range(1, args.runs + 1)
    t = Table(title=f"sandbox odds {Path(args.scene).name}, {args.runs} runs, {cpus} CPUs")
    for h in ("workers", "wall s", "runs/s", "speed-up", "CPU s per run", "peak MiB per worker",
              "load avg"):
        t.add_column(h, justify="right")
    base = None
    for w in configs:
        cpu0 = time.process_time()
        with tempfile.TemporaryDirectory() as out, WorkerMemory() as mem:
            r = run_odds(args.scene, seeds, out, workers=w, png=False)
        cpu = time.process_time() - cpu0 if w == 1 else sum(mem.cpu.values())
        assert r.odds["ok"] == args.runs, r.odds["errors"]
        if w == 1:
            peaks = [resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024]
        else:  # the workers: the largest processes below us (the fork server is small)
            peaks = sorted(mem.peaks.values(), reverse=True)[:w]
        base = base or r.runs_per_second
        t.add_row(str(w), f"{r.seconds:.1f}", f"{r.runs_per_second:.2f}",
                  f"{r.runs_per_second / base:.2f}x", f"{cpu / args.runs:.2f}",
                  ", ".join(f"{p:.0f}" for p in peaks),
                  " ".join(f"{v:.1f}" for v in os.getloadavg()))
    con.print(t)


if __name__ == "__main__":
    main()
