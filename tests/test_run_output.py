"""What ``sandbox run`` prints: --quiet, the default (impacts between debris summarised),
--verbose (every event), --json (events as JSON lines on stdout); warnings and errors on
stderr."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import REPO

from sandbox.app.headless import DebrisSummary


def sandbox(*args, env_extra=None, timeout=600):
    import os

    env = {k: v for k, v in os.environ.items() if k != "LDRAWDIR"}
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "sandbox", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=REPO, env=env)


@pytest.fixture(scope="module")
def demolition(tmp_path_factory):
    """The wall demolition run at each level (the blast throws 32 parts: rubble settles);
    with the LDraw library where there is one (its 3001 is 4x cheaper to simulate than the
    catalogue's), else without."""
    from conftest import shared_ldraw

    lib = shared_ldraw()
    out = {}
    for level in ("--verbose", "--json", None):
        d = tmp_path_factory.mktemp("o")
        args = ["run", "scenes/wall_demolition.toml", "--no-png", "--out", str(d)]
        r = sandbox(*args, *([level] if level else []),
                    env_extra={"LDRAWDIR": str(lib)} if lib else None)
        assert r.returncode == 0, r.stderr
        out[level] = (r, d)
    return out


@pytest.mark.slow
def test_json_prints_every_event_as_a_json_line_then_the_outputs(demolition):
    r, d = demolition["--json"]
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    logged = [json.loads(line) for line in (d / "events.jsonl").read_text().splitlines()]
    assert lines[:-1] == logged  # stdout is the event log, nothing else
    outcome = [e for e in logged if e["type"] == "outcome"][-1]  # the game's Outcome event
    assert lines[-1] == {"type": "outputs", "events": str(d / "events.jsonl"),
                         "replay": str(d / "wall_demolition.replay"), "picture": None,
                         "outcome": {k: outcome[k] for k in lines[-1]["outcome"]},
                         "expectation_failures": []}
    assert set(lines[-1]["outcome"]) >= {"terminated", "truncated", "winner", "draw", "reason"}


@pytest.mark.slow
def test_default_summarises_debris_and_verbose_shows_every_impact(demolition):
    verbose, d = demolition["--verbose"]
    normal, _ = demolition[None]
    events = [json.loads(line) for line in (d / "events.jsonl").read_text().splitlines()]
    debris = [e for e in events if DebrisSummary.debris_of(e)]
    assert len(debris) > 100  # rubble: the case the summary is for
    shown = [ln for ln in verbose.stdout.splitlines() if " impact " in ln]
    assert len(shown) == sum(e["type"] == "impact" for e in events)
    # "150 impacts between pieces of blast wall, 17 of its pieces on the ground", "1 impact
    # between pieces of ...", "3 impacts of pieces of blast wall on the ground"
    summaries = [ln for ln in normal.stdout.splitlines() if "pieces of blast wall" in ln]
    assert any("impacts between pieces of blast wall" in ln for ln in summaries)
    counted = 0
    for ln in summaries:
        text = ln.split(" impact ", 1)[1].strip()
        counted += int(text.split()[0])
        if ", " in text:
            counted += int(text.split(", ")[1].split()[0])
    assert counted == len(debris)
    hits = [e for e in events if e["type"] == "impact" and not DebrisSummary.debris_of(e)]
    assert sum(" impact " in ln for ln in normal.stdout.splitlines()) \
        == len(hits) + len(summaries)  # a hit on Private Reale is still shown one by one
    assert len(normal.stdout.splitlines()) < len(verbose.stdout.splitlines()) / 2


def test_quiet_prints_only_the_outcome_on_success(tmp_path):
    r = sandbox("run", "smoke_los", "--quiet", "--no-png", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Outcome: ") and r.stdout.count("\n") == 1
    assert r.stderr == "" and (tmp_path / "events.jsonl").is_file()


def test_warnings_go_to_stderr_even_when_quiet(tmp_path):
    scene = tmp_path / "s.toml"
    scene.write_text('name = "t"\n[[players]]\nname = "A"\n[[units]]\nid = "u"\nowner = "A"\n'
                     'parts = [{ part = "no_such_part_xyz" }]\n')
    r = sandbox("run", str(scene), "-q", "--no-png", "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Outcome: ") and "warning" not in r.stdout
    assert "warning:" in r.stderr and "no_such_part_xyz" in r.stderr
    j = sandbox("run", str(scene), "--json", "--no-png", "--out", str(tmp_path / "o"))
    events = [json.loads(line) for line in j.stdout.splitlines()]  # stdout stays JSON
    assert any(e["type"] == "warning" and "no_such_part_xyz" in e["text"] for e in events)
    assert "warning:" in j.stderr


def test_errors_go_to_stderr_and_levels_exclude_each_other(tmp_path):
    r = sandbox("run", "no_such_scene", "--json")
    assert r.returncode == 2 and r.stdout == "" and "no_such_scene" in r.stderr
    r = sandbox("run", "skirmish", "--json", "--quiet")
    assert r.returncode == 2 and "choose one of" in r.stderr


def test_summary_keeps_the_log_in_time_order_and_names_the_wreck():
    shown: list[dict] = []
    s = DebrisSummary(shown.append, {"wall": "blast wall"})

    def impact(t, a, b):
        return {"type": "impact", "time": t, "turn": 1, "body_a": a, "body_b": b, "text": ""}

    s(impact(0.1, "wall~4", "wall#1"))
    s(impact(0.1, "wall~5", "ground"))
    s(impact(0.2, "reale", "wall#1"))  # a hit on a unit: shown, after the summary
    s(impact(0.3, "wall#1", "wall#2"))
    s({"type": "end", "time": 0.9, "turn": 1, "text": "end"})
    texts = [e["text"] for e in shown]
    assert texts == ["1 impact between pieces of blast wall, 1 of its pieces on the ground", "",
                     "1 impact between pieces of blast wall", "end"]
    assert [e["time"] for e in shown] == [0.1, 0.2, 0.3, 0.9]
    assert shown[0]["summary"] is True and shown[0]["impacts"] == 2


def test_a_bad_picture_setting_or_a_folder_in_an_outputs_place_stops_the_run_before_it_plays(
        tmp_path, monkeypatch):
    """``SANDBOX_DETAIL=x`` and a folder named like the PNG are refused in one line before the
    game is built (they were reported after the whole game had played, and no output was
    written); with ``--no-png`` neither concerns the run."""
    import sandbox.app.headless as headless
    from sandbox.app.headless import run_scene
    from sandbox.app.outputs import OutputError
    from sandbox.render.view import RenderError

    def no_game(*a, **k):
        raise AssertionError("the game was built")

    monkeypatch.setattr(headless, "Game", no_game)
    scene = REPO / "scenes" / "big_drop_guard_tower.toml"
    monkeypatch.setenv("SANDBOX_DETAIL", "x")
    with pytest.raises(RenderError, match="SANDBOX_DETAIL='x' is not a detail level"):
        run_scene(scene, tmp_path / "a")
    monkeypatch.delenv("SANDBOX_DETAIL")
    (tmp_path / "b" / "big_drop_guard_tower.png").mkdir(parents=True)
    with pytest.raises(OutputError, match="'big_drop_guard_tower.png' there is a folder"):
        run_scene(scene, tmp_path / "b")
    monkeypatch.setenv("SANDBOX_DETAIL", "x")
    with pytest.raises(AssertionError, match="the game was built"):  # nothing refused
        run_scene(scene, tmp_path / "b", png=False)
    r = sandbox("run", str(scene), "--out", str(tmp_path / "c"), "--quiet",
                env_extra={"SANDBOX_DETAIL": "x"})
    assert r.returncode != 0 and r.stderr.strip().splitlines()[-1].startswith("error: ")
    assert "Traceback" not in r.stderr and not (tmp_path / "c" / "events.jsonl").exists()
