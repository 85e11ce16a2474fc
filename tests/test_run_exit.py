"""``sandbox run`` ends its process without the interpreter's module teardown (issue 26:
``cli._end_run_process``), yet does what an ordinary exit does that matters: the exit status,
the error line, the output flushed and a scene pack's unpacked folder removed."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import REPO

from sandbox.app.pack import write_pack


def _run(args: list[str], tmp) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "LDRAWDIR"}
    env["TMPDIR"] = str(tmp)  # the pack is unpacked here
    return subprocess.run([sys.executable, "-c", "from sandbox.cli import main; main()",
                           "run", *args], capture_output=True, text=True, timeout=600,
                          cwd=REPO, env=env)


def test_a_pack_run_exits_0_prints_its_outputs_and_leaves_no_unpacked_folder(tmp_path):
    pack = write_pack(REPO / "scenes" / "smoke_los.toml", tmp_path / "smoke.brikpack").path
    unpack = tmp_path / "tmp"
    unpack.mkdir()
    r = _run([str(pack), "--no-png", "--out", str(tmp_path / "o")], unpack)
    assert r.returncode == 0, r.stderr
    assert "replay" in r.stdout and r.stdout.rstrip().endswith("smoke.replay")  # flushed
    assert (tmp_path / "o" / "smoke.replay").is_file()
    assert list(unpack.iterdir()) == []  # the atexit handler ran


def test_a_missing_scene_exits_2_with_its_one_line(tmp_path):
    r = _run(["scenes/no_such_scene.toml", "--out", str(tmp_path / "o")], tmp_path)
    assert r.returncode == 2
    assert "no such scene file" in r.stderr and "Traceback" not in r.stderr
