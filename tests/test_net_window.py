"""``sandbox play --join``: the tabletop window as one seat of a served game (issue 16). Runs
tests/net_window_check.py in its own process under Xvfb (one ShowBase per process)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_net import DUEL

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.window
def test_the_window_plays_one_seat_online(tmp_path):
    xvfb_run = shutil.which("xvfb-run")
    if xvfb_run is None:
        pytest.skip("xvfb-run is not installed (tools/setup.sh installs Xvfb)")
    scene = tmp_path / "duel.toml"
    scene.write_text(DUEL)
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([xvfb_run, "-a", sys.executable, str(REPO / "tests" /
                          "net_window_check.py"), str(scene), str(tmp_path)],
                         capture_output=True, text=True, timeout=300, env=env)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("REPORT ")]
    assert out.returncode == 0 and lines, out.stdout[-2000:] + out.stderr[-4000:]
    report = json.loads(lines[-1][len("REPORT "):])
    assert report["remote_move"] and report["blue_at"] == [1.0, -2.0]
    assert report["refusal"].startswith("Refused: it is Blue's turn")
    assert report["desync_body"] == "red1" and report["resynced"]
    assert (tmp_path / "online.png").stat().st_size > 1000
