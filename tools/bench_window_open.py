"""Benchmark (not a test): time to the first picture of ``sandbox play``, as a player sees it.

Starts ``sandbox play SCENE --ready-file F`` as a new process under its own Xvfb (``-displayfd``)
and prints one JSON line per scene: seconds from starting the process to the loading view's
first frame (``first_picture_s``, goal 2 s, issue 26) and to the table's (``table_s``), and
the figures the window wrote itself (seconds since ``play`` was called).

    LDRAWDIR=../shared/ldraw .venv/bin/python tools/bench_window_open.py [SCENE ...]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOAL_S = 2.0


def measure(scene: Path, display: str, timeout: float = 600.0) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        ready = Path(tmp) / "ready.json"
        env = {**os.environ, "DISPLAY": display}
        t0 = time.monotonic()
        p = subprocess.Popen([sys.executable, "-m", "sandbox.cli", "play", str(scene),
                              "--size", "1280x720", "--save", str(Path(tmp) / "g.save.json"),
                              "--ready-file", str(ready)], cwd=REPO, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        first = None
        figures: dict = {}
        try:
            while "table_s" not in figures:
                if p.poll() is not None:
                    raise SystemExit(f"{scene.name}: the window closed: {p.stderr.read()[-500:]}")
                if time.monotonic() - t0 > timeout:
                    raise SystemExit(f"{scene.name}: no table after {timeout} s")
                if ready.is_file():
                    figures = json.loads(ready.read_text())
                    if first is None:
                        first = time.monotonic() - t0
                time.sleep(0.02)
            table = time.monotonic() - t0
        finally:
            p.kill()
            p.communicate()
    return {"figure": "first_picture", "scene": scene.name, "first_picture_s": round(first, 2),
            "table_s": round(table, 2), "goal_s": GOAL_S, "in_process": figures}


def main() -> int:
    scenes = [Path(a) for a in sys.argv[1:]] or [REPO / "scenes" / "skirmish.toml",
                                                  REPO / "scenes" / "big_drop_kings_castle.toml"]
    sys.path.insert(0, str(REPO / "tests"))
    from xvfb import start_xvfb  # the tests' Xvfb helper: -displayfd, checked to be ours

    xs, display = start_xvfb()
    try:
        for scene in scenes:
            print(json.dumps(measure(scene.resolve(), display)), flush=True)
    finally:
        xs.terminate()
        xs.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
