"""``sandbox play --join``: the tabletop window as one seat of a served game (issue 16). Runs
tests/net_window_check.py in its own process under Xvfb (one ShowBase per process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_net import DUEL

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.window
def test_the_window_plays_one_seat_online(tmp_path):
    from xvfb import start_xvfb  # -displayfd: its own display, never a fixed number

    try:
        xs, display = start_xvfb("1280x1024x24")
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    scene = tmp_path / "duel.toml"
    scene.write_text(DUEL)
    env = dict(os.environ, DISPLAY=display,
               PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        out = subprocess.run([sys.executable, str(REPO / "tests" / "net_window_check.py"),
                              str(scene), str(tmp_path)],
                             capture_output=True, text=True, timeout=300, env=env)
    finally:
        xs.terminate()
        xs.wait(timeout=10)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("REPORT ")]
    assert out.returncode == 0 and lines, out.stdout[-2000:] + out.stderr[-4000:]
    report = json.loads(lines[-1][len("REPORT "):])
    assert report["status"].startswith("you: Red (Red)"), report["status"]
    assert report["remote_move"] and report["blue_at"] == [1.0, -2.0]
    assert report["refusal"].startswith("Refused: it is Blue's turn")
    assert report["desync_body"] == "red1" and report["resynced"]
    assert (tmp_path / "online.png").stat().st_size > 1000
