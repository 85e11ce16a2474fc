"""Fault test (issue 20): ``sandbox run`` killed with SIGKILL at ten moments across a run, over
a folder holding a previous run, leaves exactly the old set of outputs or exactly the new one,
each complete and loadable (events, replay and picture)."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sandbox.engine.replay import load_replay

REPO = Path(__file__).resolve().parents[1]
SCENE = """name = "fault"
seed = 1
[battlefield]
width = 12.0
depth = 12.0
[[players]]
name = "Red"
[[units]]
id = "a"
owner = "Red"
parts = [{part = "3001"}]
position = [0.0, 0.0, 0.5]
[[creations]]
id = "b"
parts = [{part = "3003"}]
position = [3.0, 0.0, 0.0]
"""
NAMES = ("events.jsonl", "fault.replay", "fault.png")


def command(scene: Path, out: Path, seed: int) -> list[str]:
    return [sys.executable, "-c", "from sandbox.cli import main; main()", "run", str(scene),
            "--out", str(out), "--seed", str(seed), "-q"]


def env(ldrawdir: Path) -> dict:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(REPO) + os.pathsep + e.get("PYTHONPATH", "")
    e["LDRAWDIR"] = str(ldrawdir)
    return e


def read_set(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def loadable(folder: Path) -> None:
    from PIL import Image

    for line in (folder / "events.jsonl").read_text().splitlines():
        json.loads(line)
    load_replay(folder / "fault.replay")
    Image.open(io.BytesIO((folder / "fault.png").read_bytes())).load()


@pytest.mark.slow
def test_sigkill_at_ten_moments_leaves_old_or_new_set(tmp_path, ldrawdir):
    scene = tmp_path / "fault.toml"
    scene.write_text(SCENE)
    e = env(ldrawdir)
    old_dir, new_dir, out = tmp_path / "old", tmp_path / "new", tmp_path / "out"
    from sandbox.app.headless import run_scene

    run_scene(scene, out_dir=old_dir, seed=1, ldrawdir=ldrawdir)  # the previous run's set
    t0 = time.monotonic()
    subprocess.run(command(scene, new_dir, 2), env=e, check=True, capture_output=True)
    span = time.monotonic() - t0  # a whole run, process start included
    old, new = read_set(old_dir), read_set(new_dir)
    assert set(old) == set(new) == set(NAMES) and old != new
    outcomes = []
    for i in range(10):
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(old_dir, out)
        proc = subprocess.Popen(command(scene, out, 2), env=e, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            proc.wait(timeout=span * (i + 1) / 10.5)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        now = read_set(out)
        assert now in (old, new), f"kill {i}: a mixed or damaged set {sorted(now)}"
        loadable(out)
        outcomes.append("new" if now == new else "old")
    assert "old" in outcomes  # the early kills, at least, hit the run before it wrote


def test_a_run_without_a_picture_takes_the_old_picture_away(tmp_path):
    """`sandbox run` into a folder, then again with --no-png: the folder holds the second
    run's set, not the first run's picture beside the second run's log (one set)."""
    from sandbox.app.outputs import write_output_set

    out = tmp_path / "out"
    (out / "notes.txt").parent.mkdir()
    (out / "notes.txt").write_text("mine")  # a file of the user's stays
    write_output_set(out, {"events.jsonl": b"1", "s.replay": b"1", "s.png": b"png1"})
    write_output_set(out, {"events.jsonl": b"2", "s.replay": b"2"}, drop={"s.png"})
    assert sorted(p.name for p in out.iterdir()) == ["events.jsonl", "notes.txt", "s.replay"]
    assert (out / "events.jsonl").read_bytes() == b"2"
