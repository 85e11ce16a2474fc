"""``sandbox odds``: many seeds of one scene on the one engine, local processes or Ray.

The dice-only scene: a supply crate dropped 5" (1 Strategy brick) onto a one-brick unit of
Armor 4. The crate lands flat on it once, one 1d6 Collision Damage roll: the unit is destroyed
on a 5 or 6, exactly 1/3 of the seeds.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import REPO

from sandbox.app import odds, odds_stats
from sandbox.core.errors import SceneError

DICE_SCENE = """
name = "crate on a one-brick unit"
seed = 1
[battlefield]
width = 12.0
depth = 12.0
[[players]]
name = "Red"
[[players]]
name = "Blue"
strategy_bricks = 1
[[units]]
id = "trooper"
owner = "Red"
parts = [{ part = "3001", colour = 4 }]
stats = { size = 1.0, armor = 4 }
[[drop_zones]]
id = "pad"
centre = [0.0, 0.0]
size = 2.0
[expect]
destroyed = ["trooper"]
"""
# The Big Drop (a Strategic Bombardment onto the drop zone, 13.2): called on Blue's turn 1, it
# falls 5" at the beginning of Blue's turn 2.
DROP = """
[[actions]]
type = "bombard"
id = "crate"
player = "Blue"
target = [0.0, 0.0]
drop_zone = "pad"
big_drop = true
supplies = [{ part = "3001", colour = 14, size = 1.0, armor = 99 }]
"""
# On turn 3 Red walks the trooper: refused ("is destroyed") in the seeds where the crate won.
WALK = """
[[actions]]
type = "move"
unit = "trooper"
player = "Red"
turn = 3
to = [3.0, 0.0]
"""
SEEDS = range(1, 61)


@pytest.fixture(scope="module")
def dice_scene(tmp_path_factory):
    d = tmp_path_factory.mktemp("odds_scene")
    (d / "drop.toml").write_text(DICE_SCENE + DROP)
    (d / "walk.toml").write_text(DICE_SCENE + DROP + WALK)
    (d / "bare.toml").write_text(DICE_SCENE)
    return d


@pytest.fixture(scope="module")
def one_worker(dice_scene, tmp_path_factory):
    """60 seeds in this process (the reference every other backend must match)."""
    out = tmp_path_factory.mktemp("odds_w1")
    return odds.run_odds(dice_scene / "drop.toml", SEEDS, out, workers=1, png=True)


def test_dice_only_rate_agrees_with_one_third(one_worker):
    r = one_worker
    assert (r.new_runs, r.reused, r.interrupted) == (60, 0, False)
    assert all(row["status"] == "ok" for row in r.rows)
    assert all(row["collision_rolls"] == 1 for row in r.rows)  # one die a run: dice only
    d = r.odds["bodies"]["trooper"]["destroyed"]
    assert d["n"] == 60 and d["low"] <= 1 / 3 <= d["high"]
    assert (d["low"], d["high"]) == pytest.approx(odds_stats.wilson(d["k"], 60))
    # destroyed exactly when the one 1d6 beat Armor 4
    assert all(row["trooper.destroyed"] == int(row["trooper.damage"] > 4) for row in r.rows)
    assert r.odds["expect"]["destroyed:trooper"]["k"] == d["k"]
    dmg = r.odds["bodies"]["trooper"]["damage"]
    assert set(dmg["counts"]) <= {"1", "2", "3", "4", "5", "6"}
    assert 2.5 < dmg["mean"] < 4.5  # 3.5 for 1d6
    doc = json.loads((r.out_dir / "odds.json").read_text())
    assert doc["complete"] and doc["odds"]["bodies"]["trooper"]["destroyed"]["k"] == d["k"]
    assert (r.out_dir / "odds.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_wilson_interval_known_values():
    # by hand: (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), p = 1/3, n = 60, z = 1.96
    lo, hi = odds_stats.wilson(20, 60)
    assert lo == pytest.approx(0.22729, abs=1e-4) and hi == pytest.approx(0.45944, abs=1e-4)
    assert odds_stats.wilson(0, 10)[0] == 0.0 and odds_stats.wilson(10, 10)[1] == 1.0
    assert odds_stats.wilson(0, 0) == (0.0, 1.0)


def test_two_workers_write_the_same_runs_csv(one_worker, dice_scene, tmp_path):
    seeds = range(1, 25)
    r = odds.run_odds(dice_scene / "drop.toml", seeds, tmp_path, workers=2, png=False)
    assert r.new_runs == 24
    want = odds.rows_csv([row for row in one_worker.rows if row["seed"] in seeds])
    assert (tmp_path / "runs.csv").read_text() == want


@pytest.mark.slow  # a local Ray takes ~15 s to start
def test_ray_writes_the_same_runs_csv(one_worker, dice_scene, tmp_path):
    pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]')")
    seeds = range(1, 9)
    r = odds.run_odds(dice_scene / "drop.toml", seeds, tmp_path, ray=True, png=False)
    assert r.new_runs == 8 and not r.interrupted
    want = odds.rows_csv([row for row in one_worker.rows if row["seed"] in seeds])
    assert (tmp_path / "runs.csv").read_text() == want


def test_a_refused_action_fails_its_seeds_only(one_worker, dice_scene, tmp_path):
    seeds = range(1, 13)
    r = odds.run_odds(dice_scene / "walk.toml", seeds, tmp_path, workers=1, png=True)
    destroyed = {row["seed"] for row in one_worker.rows
                 if row["seed"] in seeds and row["trooper.destroyed"]}
    failed = {row["seed"] for row in r.rows if row["status"] == "error"}
    assert destroyed and failed == destroyed  # the walk is refused exactly where it died
    assert r.odds["ok"] == 12 - len(destroyed) and r.odds["failed"] == len(destroyed)
    (err,) = r.odds["errors"]
    assert "actions[1]" in err["error"] and "destroyed" in err["error"]
    assert sorted(err["seeds"]) == sorted(destroyed)
    back = odds.read_rows(tmp_path / "runs.csv")
    assert [row["seed"] for row in back] == list(seeds)
    assert {row["seed"] for row in back if row["status"] == "error"} == destroyed


def test_interrupt_keeps_finished_runs_and_resume_finishes(one_worker, dice_scene, tmp_path):
    seeds = range(1, 11)
    calls = []

    def ctrl_c_after_four(done, total):
        calls.append(done)
        if done == 4:
            raise KeyboardInterrupt

    r = odds.run_odds(dice_scene / "drop.toml", seeds, tmp_path, workers=1,
                      progress=ctrl_c_after_four, png=False)
    assert r.interrupted and r.new_runs == 4
    assert len((tmp_path / "runs.csv").read_text().splitlines()) == 1 + 4
    assert not json.loads((tmp_path / "odds.json").read_text())["complete"]
    again = odds.run_odds(dice_scene / "drop.toml", seeds, tmp_path, workers=2, png=False)
    assert (again.reused, again.new_runs, again.interrupted) == (4, 6, False)
    want = odds.rows_csv([row for row in one_worker.rows if row["seed"] in seeds])
    assert (tmp_path / "runs.csv").read_text() == want
    # a run whose process died is done again; the others are not
    text = (tmp_path / "runs.csv").read_text().splitlines()
    text[3] = "3,crashed,the worker process running it died"
    (tmp_path / "runs.csv").write_text("\n".join(text) + "\n")
    third = odds.run_odds(dice_scene / "drop.toml", seeds, tmp_path, workers=1, png=False)
    assert (third.reused, third.new_runs) == (9, 1)
    assert (tmp_path / "runs.csv").read_text() == want
    # another scene's runs are never mixed in
    with pytest.raises(SceneError, match="another scene"):
        odds.run_odds(dice_scene / "walk.toml", seeds, tmp_path, workers=1)


def crash_on_seed_3(job):
    """A run whose worker process dies (as a segfault in a native library would)."""
    import os

    if job.seed == 3:
        os._exit(3)
    return odds.run_one(job)


def test_a_worker_that_dies_loses_only_its_run(one_worker, dice_scene):
    rows = []
    jobs = [odds.OddsJob(str(dice_scene / "drop.toml"), s) for s in range(1, 7)]
    odds._local(jobs, 2, rows.append, fn=crash_on_seed_3)
    rows.sort(key=lambda r: r["seed"])
    assert [(r["seed"], r["status"]) for r in rows] == [
        (1, "ok"), (2, "ok"), (3, "crashed"), (4, "ok"), (5, "ok"), (6, "ok")]
    assert "died" in rows[2]["error"]
    want = [{k: v for k, v in r.items() if k != "fingerprint"}  # run_odds stamps it
            for r in one_worker.rows if r["seed"] in (1, 2, 4, 5, 6)]
    assert odds.rows_csv([r for r in rows if r["status"] == "ok"]) == odds.rows_csv(want)


def test_actions_file_through_apply_matches_the_script(one_worker, dice_scene, tmp_path):
    import tomllib

    actions = tomllib.loads(DROP)["actions"]
    (tmp_path / "drop.json").write_text(json.dumps(actions))
    seeds = range(1, 7)
    r = odds.run_odds(dice_scene / "bare.toml", seeds, tmp_path / "out", workers=1,
                      actions_file=tmp_path / "drop.json", png=False)
    want = [row for row in one_worker.rows if row["seed"] in seeds]

    def played(rows):  # the same outcomes; the fingerprints differ (another scene, actions)
        return odds.rows_csv([{k: v for k, v in row.items() if k != "fingerprint"}
                              for row in rows])

    assert played(r.rows) == played(want)
    assert {row["fingerprint"] for row in r.rows}.isdisjoint(row["fingerprint"] for row in want)
    (tmp_path / "bad.json").write_text('[{"type": "big_drop"}]')
    with pytest.raises(SceneError, match="bad.json"):
        odds.load_actions(tmp_path / "bad.json")


def test_bad_seed_ranges_are_one_clear_line():
    assert list(odds.parse_seeds("3..5")) == [3, 4, 5]
    for bad, words in (("5..3", "comes before"), ("1-10", "A..B"), ("a..b", "A..B")):
        with pytest.raises(SceneError, match=words):
            odds.parse_seeds(bad)


def test_ray_address_argv():
    from sandbox.cli import ray_argv

    assert ray_argv(["odds", "s.toml", "--ray"]) == ["odds", "s.toml", "--ray"]
    assert ray_argv(["odds", "s.toml", "--ray", "10.0.0.2:6379", "--runs", "5"]) == [
        "odds", "s.toml", "--ray", "--ray-address", "10.0.0.2:6379", "--runs", "5"]
    assert ray_argv(["odds", "--ray", "s.toml"]) == ["odds", "--ray", "s.toml"]
    assert ray_argv(["odds", "s.toml", "--ray=auto"]) == [
        "odds", "s.toml", "--ray", "--ray-address", "auto"]
    assert ray_argv(["run", "--ray", "x:1"]) == ["run", "--ray", "x:1"]


def test_cli_odds_table_files_replay_and_bad_range(dice_scene, tmp_path):
    from typer.testing import CliRunner

    from sandbox.cli import app

    out = tmp_path / "o"
    args = ["odds", str(dice_scene / "drop.toml"), "--seeds", "1..4", "--workers", "1",
            "--out", str(out), "--replay", "dramatic"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "trooper" in r.output and "destroyed" in r.output and "4/4" in r.output
    rows = odds.read_rows(out / "runs.csv")
    best = max(rows, key=lambda row: (odds.drama(row), -row["seed"]))["seed"]
    assert (out / f"seed{best}.replay").is_file() and (out / "odds.png").is_file()
    before = (out / "runs.csv").read_text()
    bad = CliRunner().invoke(app, args[:2] + ["--seeds", "9..2", "--out", str(out)])
    assert bad.exit_code == 2 and "comes before" in bad.output
    assert bad.exception is None or isinstance(bad.exception, SystemExit)
    assert (out / "runs.csv").read_text() == before


def test_replay_of_one_seed_verifies(dice_scene, tmp_path):
    from sandbox.app.headless import verify_replay
    from sandbox.engine.replay import load_replay

    path = odds.write_replay(dice_scene / "drop.toml", 7, tmp_path / "seed7.replay")
    rp = load_replay(path)
    assert rp.seed == 7 and verify_replay(rp)["ok"]


def test_ctrl_c_on_two_workers_keeps_finished_runs(dice_scene, tmp_path):
    import signal
    import time

    out = tmp_path / "o"
    proc = subprocess.Popen([sys.executable, "-m", "sandbox.cli", "odds",
                             str(dice_scene / "drop.toml"), "--seeds", "1..400", "--workers",
                             "2", "--out", str(out), "--no-png"], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (out / "runs.csv").exists() and time.monotonic() < deadline:
            time.sleep(0.2)  # the first checkpoint: some runs have finished
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    rows = odds.read_rows(out / "runs.csv")
    assert 0 < len(rows) < 400 and all(row["status"] == "ok" for row in rows)
    assert [row["seed"] for row in rows] == sorted(row["seed"] for row in rows)


def test_action_odds_of_a_drop_played_now(one_worker, dice_scene):
    """The window's O: the game so far (Red ended turn 1) plus the previewed Big Drop."""
    import tomllib

    from sandbox.engine.game import open_game

    with open_game(dice_scene / "bare.toml", seed=99) as game:
        game.end_turn()
        drop = tomllib.loads(DROP)["actions"][0]
        o = odds.action_odds(game, drop, seeds=range(1, 7), workers=1)
        assert [type(a).__name__ for a in game.actions] == ["EndTurnAction"]  # unchanged
    k = sum(r["trooper.destroyed"] for r in one_worker.rows if r["seed"] <= 6)
    assert o["ok"] == 6 and o["bodies"]["trooper"]["destroyed"]["k"] == k
    lines = odds_stats.odds_lines(o, names={"trooper": "Private Brick"})
    assert lines[0] == "Odds over 6 seeds:"
    assert any(line.startswith("  Private Brick destroyed") for line in lines) == (k > 0)


def test_ray_address_with_nothing_there_is_one_clear_line(dice_scene, tmp_path):
    pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]')")
    from sandbox.core.errors import SandboxError

    with pytest.raises(SandboxError, match="no Ray there"):
        odds.run_odds(dice_scene / "drop.toml", range(1, 3), tmp_path, ray=True,
                      ray_address="127.0.0.1:1")
    with pytest.raises(SandboxError, match="host:port"):
        odds.run_odds(dice_scene / "drop.toml", range(1, 3), tmp_path, ray=True,
                      ray_address="nowhere")
