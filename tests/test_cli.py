"""The command line as a user runs it: model info, run, replay, and clear errors."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import REPO


def sandbox(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "sandbox.cli", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=REPO)


def test_model_info_json_on_kings_castle(ldrawdir):
    r = sandbox("model", "info", str(ldrawdir / "models" / "6080 - Kings Castle.mpd"), "--json",
                "--ldrawdir", str(ldrawdir))
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert (info["parts"], info["distinct_parts"], info["submodels"]) == (761, 88, 62)
    (lo, hi) = info["bbox_in"]
    assert 20 < hi[0] - lo[0] < 30 and 5 < hi[2] - lo[2] < 12  # inches


def test_model_info_text_on_default_model_without_library():
    r = sandbox("model", "info", "models/guard_tower.mpd")
    assert r.returncode == 0, r.stderr
    assert "parts           121" in r.stdout and "submodels       2" in r.stdout


def test_model_info_malformed_file_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.ldr"
    bad.write_text("0 test\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
                   "1 4 0 zero 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    r = sandbox("model", "info", str(bad))
    assert r.returncode == 2
    assert "bad.ldr:3" in r.stderr and "Traceback" not in r.stderr


def test_run_prints_turn_log_and_writes_outputs(tmp_path):
    r = sandbox("run", "scenes/big_drop_guard_tower.toml", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "The Big Drop" in r.stdout and "Collision Damage" in r.stdout
    assert "pybullet build time" not in r.stdout + r.stderr
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["big_drop_guard_tower.png", "big_drop_guard_tower.replay", "events.jsonl"]
    v = sandbox("replay", str(tmp_path / "big_drop_guard_tower.replay"), "--verify")
    assert v.returncode == 0, v.stderr
    assert "largest position difference 0.000000" in v.stdout


def test_replay_of_a_corrupted_file_is_a_clear_error(tmp_path):
    p = tmp_path / "x.replay"
    p.write_bytes(b"PK\x03\x04 not really a zip")
    r = sandbox("replay", str(p))
    assert r.returncode == 2 and "x.replay" in r.stderr and "Traceback" not in r.stderr


def test_play_opens_the_window_from_the_command_line(tmp_path):
    """`sandbox play SCENE --ready-file F` opens the window (under Xvfb): the loading view's
    first picture is drawn (``window_s``), then the table's (``table_s``), and the program is
    still running, with no traceback on the way in (the path a player takes)."""
    import os
    import time

    import pytest
    from xvfb import start_xvfb

    try:
        xs, display = start_xvfb("800x600x24")
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    ready = tmp_path / "ready.json"
    try:
        env = {**os.environ, "DISPLAY": display}
        env.pop("LDRAWDIR", None)  # relative in CI; the skirmish needs no library
        p = subprocess.Popen([sys.executable, "-c", "from sandbox.cli import main; main()",
                              "play", str(REPO / "scenes" / "skirmish.toml"), "--size",
                              "640x480", "--save", str(tmp_path / "g.save.json"),
                              "--ready-file", str(ready)],
                             cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        try:
            figures: dict = {}
            deadline = time.monotonic() + 600  # a generous bound on a loaded machine
            while "table_s" not in figures:
                if p.poll() is not None:
                    raise AssertionError(f"the window closed by itself (status {p.returncode})"
                                         f": {p.stderr.read()[-800:]}")
                assert time.monotonic() < deadline, "the table was never drawn"
                if ready.is_file():
                    figures = json.loads(ready.read_text())
                time.sleep(0.1)
            assert figures["scene"].endswith("skirmish.toml")
            assert 0 < figures["window_s"] <= figures["table_s"]
            assert p.poll() is None  # the window stays open
        finally:
            p.kill()
            _, err = p.communicate()
        assert "Traceback" not in err, err[-800:]
    finally:
        xs.terminate()
        xs.wait(timeout=10)
