"""Without ``DISPLAY`` the windows say there is no display (issue 28): Panda3D's X11 window
would otherwise fall back to ``:0`` and open on whatever X server answers there."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import REPO

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 displays")


def _sandbox(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    return subprocess.run([sys.executable, "-m", "sandbox.cli", *args], capture_output=True,
                          text=True, timeout=300, cwd=REPO, env=env)


def test_play_without_display_says_so(tmp_path):
    for args in (["play", "scenes/skirmish.toml"],
                 ["play", "--join", "ws://127.0.0.1:9", "--token", "t"]):
        r = _sandbox(*args)
        err = " ".join(r.stderr.split())
        assert r.returncode == 2 and "there is no display (DISPLAY is not set)" in err, r.stderr
        assert "Traceback" not in r.stderr


def test_replay_window_without_display_says_so(tmp_path):
    r = _sandbox("run", "scenes/skirmish.toml", "--out", str(tmp_path), "--no-png", "--quiet")
    assert r.returncode == 0, r.stderr
    (replay,) = tmp_path.glob("*.replay")
    r = _sandbox("replay", str(replay))
    err = " ".join(r.stderr.split())
    assert r.returncode == 2 and "there is no display" in err, r.stderr


def test_display_refusal_reads_the_environment(monkeypatch):
    from sandbox.render.view import display_refusal

    monkeypatch.delenv("DISPLAY", raising=False)
    assert "no display" in display_refusal("x")
    monkeypatch.setenv("DISPLAY", ":99")
    assert display_refusal("x") == ""
