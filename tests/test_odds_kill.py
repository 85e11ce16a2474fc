"""``sandbox odds`` killed or sent SIGTERM leaves no worker behind; a resume refuses another
scene's rows and runs a half-written row again; killed writes leave no temporary file
(issue 28)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO
from test_odds import DICE_SCENE, DROP

from sandbox.app import odds
from sandbox.core.errors import OutputError, SceneError


@pytest.fixture(scope="module")
def scenes(tmp_path_factory):
    d = tmp_path_factory.mktemp("odds_kill")
    (d / "drop.toml").write_text(DICE_SCENE + DROP)
    (d / "bare.toml").write_text(DICE_SCENE)
    return d


def _children() -> dict[int, list[int]]:
    """Live (not zombie) processes by parent pid, from /proc."""
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            kids.setdefault(int(fields[1]), []).append(int(entry))
    return kids


def _descendants(pid: int) -> set[int]:
    kids, out, todo = _children(), set(), [pid]
    while todo:
        for k in kids.get(todo.pop(), []):
            if k not in out:
                out.add(k)
                todo.append(k)
    return out


def _alive(pids: set[int]) -> set[int]:
    live = set()
    for p in pids:
        try:
            state = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            live.add(p)
    return live


def _start(scene: Path, out: Path) -> tuple[subprocess.Popen, set[int]]:
    """An odds run on 2 workers, once both workers are running seeds."""
    proc = subprocess.Popen([sys.executable, "-m", "sandbox.cli", "odds", str(scene),
                             "--runs", "5000", "--workers", "2", "--out", str(out),
                             "--no-png"], cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        # the first checkpoint: the workers (the fork server's children) have run seeds
        if (out / "runs.csv").exists() and len(_descendants(proc.pid)) >= 3:
            return proc, _descendants(proc.pid)
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    proc.kill()
    raise AssertionError(f"the odds run did not start its workers: {proc.stderr.read()}")


def _all_gone(pids: set[int], seconds: float = 60.0) -> set[int]:
    deadline = time.monotonic() + seconds
    while _alive(pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    return _alive(pids)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigkill_of_the_odds_run_leaves_no_worker(scenes, tmp_path):
    proc, workers = _start(scenes / "bare.toml", tmp_path / "o")
    try:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(60)
        left = _all_gone(workers)
    finally:
        for p in _alive(workers):
            os.kill(p, signal.SIGKILL)
    assert not left, f"workers still alive after the odds run was killed: {left}"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigterm_stops_at_once_keeps_finished_runs_and_leaves_no_worker(scenes, tmp_path):
    out = tmp_path / "o"
    proc, workers = _start(scenes / "bare.toml", out)
    try:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        left = _all_gone(workers)
    finally:
        for p in _alive(workers):
            os.kill(p, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
    assert not left, f"workers still alive after SIGTERM: {left}"
    assert proc.returncode != 0 and "Traceback" not in err, err
    rows = odds.read_rows(out / "runs.csv")
    assert 0 < len(rows) < 5000 and all(r["status"] == "ok" for r in rows)
    assert not list(out.glob(".*.tmp"))


def test_resume_refuses_another_scenes_rows_without_odds_json(scenes, tmp_path):
    odds.run_odds(scenes / "bare.toml", range(1, 4), tmp_path, workers=1, png=False)
    (tmp_path / "odds.json").unlink()  # the file that used to say whose runs these are
    before = (tmp_path / "runs.csv").read_text()
    with pytest.raises(SceneError, match="runs of another scene"):
        odds.run_odds(scenes / "drop.toml", range(1, 6), tmp_path, workers=1, png=False)
    assert (tmp_path / "runs.csv").read_text() == before
    # a runs table without fingerprints (or with a forged one) is refused the same way
    lines = before.splitlines()
    forged = [lines[0]] + [ln.replace(ln.split(",")[3], "0" * 16) for ln in lines[1:]]
    (tmp_path / "runs.csv").write_text("\n".join(forged) + "\n")
    with pytest.raises(SceneError, match="runs of another scene"):
        odds.run_odds(scenes / "bare.toml", range(1, 6), tmp_path, workers=1, png=False)


def test_a_half_written_row_is_run_again_not_kept(scenes, tmp_path):
    first = odds.run_odds(scenes / "drop.toml", range(1, 7), tmp_path, workers=1, png=False)
    full = (tmp_path / "runs.csv").read_text()
    lines = full.splitlines(keepends=True)
    # the last row cut in the middle (a copy or a write killed half way), no line end
    (tmp_path / "runs.csv").write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    half: list[int] = []
    assert [r["seed"] for r in odds.read_rows(tmp_path / "runs.csv", half)] == [1, 2, 3, 4, 5]
    assert half == [7]
    again = odds.run_odds(scenes / "drop.toml", range(1, 7), tmp_path, workers=1, png=False)
    assert (again.new_runs, again.reused) == (1, 5)
    assert (tmp_path / "runs.csv").read_text() == full
    # a row with a cell missing in the middle of the file
    cut = lines[:3] + [",".join(lines[3].split(",")[:2]) + "\n"] + lines[4:]
    (tmp_path / "runs.csv").write_text("".join(cut))
    again = odds.run_odds(scenes / "drop.toml", range(1, 7), tmp_path, workers=1, png=False)
    assert (again.new_runs, again.reused) == (1, 5) and again.rows == first.rows


def test_temp_files_of_killed_writes_are_removed_and_one_run_writes_at_a_time(scenes, tmp_path):
    for name in (".runs.csv.abc123.tmp", ".odds.json.x9.tmp", ".odds.png.q.tmp"):
        (tmp_path / name).write_bytes(b"half")
    odds.run_odds(scenes / "bare.toml", range(1, 3), tmp_path, workers=1, png=False)
    assert not list(tmp_path.glob(".*.tmp"))
    lock = odds._lock_out(tmp_path)  # another odds run writing there now
    try:
        with pytest.raises(OutputError, match="another odds run is writing there"):
            odds.run_odds(scenes / "bare.toml", range(1, 3), tmp_path, workers=1, png=False)
    finally:
        lock.close()


def test_seeds_out_of_range_are_refused():
    with pytest.raises(SceneError, match="out of range"):
        odds.parse_seeds(f"1..{2**63}")
    assert odds.parse_seeds(f"{2**63 - 2}..{2**63 - 1}") == range(2**63 - 2, 2**63)
