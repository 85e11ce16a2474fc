"""Hostile numbers in a scene's script and stats (found by trying the sandbox as a new user):
dice counts, weapon sizes and Firing Arcs are bounded when the file is read, so a typed
``99999999d4`` is one line naming the file and field, not minutes of rolling and gigabytes of
memory; and an action the rules refuse while a scene runs names the scene file too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.app.headless import run_scene
from sandbox.core.dice import MAX_DICE, MAX_SIDES, DiceExpression, DiceSum
from sandbox.core.errors import DiceError, RulesError, SceneError
from sandbox.engine.scene import load_scene

SCENE = """name = "t"
seed = 1
[battlefield]
width = 20.0
depth = 20.0
[[players]]
name = "Red"
[[players]]
name = "Blue"
[[units]]
id = "a"
owner = "Red"
parts = [{part = "3001"}]
position = [-3.0, 0.0, 0.0]
stats = { size = 1.0, armor = 4, move = 5.0, weapons = [WEAPON] }
[[units]]
id = "b"
owner = "Blue"
parts = [{part = "3001"}]
position = [3.0, 0.0, 0.0]
"""
GUN = '{ type = "Gun", size = 1 }'


def scene(tmp_path: Path, actions: str = "", weapon: str = GUN, extra: str = "") -> Path:
    path = tmp_path / "hostile.toml"
    path.write_text(SCENE.replace("WEAPON", weapon) + extra + actions, encoding="utf-8")
    return path


@pytest.mark.parametrize("text", ["99999999d4 Fire", f"{MAX_DICE + 1}d6", f"1d{MAX_SIDES + 1}",
                                  "1" * 5000 + "d6", "1d4 + " * 200 + "1d4"])
def test_a_dice_expression_beyond_the_bounds_is_a_dice_error(text):
    with pytest.raises(DiceError):
        DiceSum.parse(text) if "+" in text else DiceExpression.parse(text)


def test_the_largest_allowed_dice_still_parse():
    assert DiceExpression.parse(f"{MAX_DICE}d{MAX_SIDES}").count == MAX_DICE


@pytest.mark.parametrize("action, field", [
    ('type = "ignite"\nplayer = "Red"\ntarget = "b"\ndice = "99999999d4 Fire"\n', "dice"),
    ('type = "flamethrower"\nplayer = "Red"\nattacker = "a"\ntarget = "b"\nsize = 1e300\n',
     "size"),
    ('type = "flamethrower"\nplayer = "Red"\nattacker = "a"\ntarget = "b"\narc = 100000000\n',
     "arc"),
    ('type = "missile"\nplayer = "Red"\npoint = [0.0, 0.0, 0.0]\nxsize = 2\nsize = 1e300\n',
     "size"),
])
def test_hostile_numbers_in_a_scripted_action_are_refused_naming_file_and_field(
        tmp_path, action, field):
    path = scene(tmp_path, "\n[[actions]]\n" + action)
    with pytest.raises(SceneError) as err:
        load_scene(path)
    text = str(err.value)
    assert "\n" not in text and text.startswith(f"{path}: actions[0]") and field in text


def test_a_hazard_field_with_too_many_dice_is_refused(tmp_path):
    path = scene(tmp_path, extra='[[fields]]\nid = "f"\nhazard = "exposure"\nsize = 2.0\n'
                                 'dice = "99999999d4 Fire"\n')
    with pytest.raises(SceneError, match=r"fields\[0\]\.dice"):
        load_scene(path)


def test_a_weapon_of_absurd_size_is_refused(tmp_path):
    path = scene(tmp_path, weapon='{ type = "Gun", size = 1e300, mount = "mounted" }')
    with pytest.raises(SceneError, match=r"units\[0\]\.stats\.weapons\[0\]\.size"):
        load_scene(path)


def test_a_refused_scripted_action_names_the_scene_file(tmp_path):
    path = scene(tmp_path, '\n[[actions]]\ntype = "move"\nplayer = "Red"\nunit = "ghost"\n'
                           'to = [0.0, 0.0]\n')
    with pytest.raises(RulesError) as err:
        run_scene(path, out_dir=tmp_path / "out", png=False)
    text = str(err.value)
    assert text.startswith(f"{path}: actions[0]: ") and "ghost" in text and "\n" not in text


# ====================================================================== replays
def _replay_with(tmp_path: Path, version: int, frames: int) -> Path:
    """A replay of no bodies whose header claims ``frames`` frames, with a valid checksum
    (anyone can compute one) and, for version 2, no frame times."""
    import json

    import numpy as np

    from sandbox.engine import replay as rp

    header = {"format": "brikwars-replay", "version": version, "scene": {"name": "t"},
              "seed": 1, "actions": [], "events": [], "bodies": [], "frame_dt": 1 / 60,
              "frames": frames, "meta": {}}
    arrays = {"frame_times": np.zeros(0)} if version >= 2 else {}
    header["checksum"] = rp._checksum(dict(header), arrays)
    path = tmp_path / f"v{version}.replay"
    np.savez_compressed(path.with_suffix(".npz"),
                        header_json=np.frombuffer(json.dumps(header).encode(), np.uint8),
                        **arrays)
    path.with_suffix(".npz").rename(path)
    return path


@pytest.mark.parametrize("version", [1, 2])
def test_a_replay_claiming_two_billion_frames_is_refused_when_read(tmp_path, version):
    """A 20 KB replay saying ``frames = 2**31 - 1`` made ``sandbox replay --info`` allocate
    16 GB of frame times (a MemoryError traceback, or the machine's memory)."""
    from sandbox.core.errors import ReplayError
    from sandbox.engine.replay import MAX_FRAMES, load_replay

    path = _replay_with(tmp_path, version, 2**31 - 1)
    with pytest.raises(ReplayError, match=r"v\d\.replay: .*frames"):
        load_replay(path)
    assert MAX_FRAMES >= 1_000_000  # 4.6 hours at 60 frames a second: far beyond a game
    if version == 2:  # frame times must be there for every frame
        with pytest.raises(ReplayError, match="frame times for 1000 frames"):
            load_replay(_replay_with(tmp_path, 2, 1000))


def test_replay_verify_of_a_doctored_replay_names_the_replay_file(tmp_path):
    """A replay whose (checksummed) log holds a move of a body that does not exist: ``sandbox
    replay --verify`` says so in one line that names the replay (it said only
    ``error: action 0 (move): ...``)."""
    import subprocess
    import sys

    from conftest import REPO

    from sandbox.engine.replay import load_replay, save_replay

    path = scene(tmp_path)
    result = run_scene(path, out_dir=tmp_path / "out", png=False)
    rp = load_replay(result.replay_path)
    rp.actions = [{"type": "move", "player": "Red", "turn": 1, "unit": "ghost", "to": [0, 0]}]
    bad = save_replay(rp, tmp_path / "doctored.replay")
    r = subprocess.run([sys.executable, "-m", "sandbox.cli", "replay", str(bad), "--verify"],
                       capture_output=True, text=True, timeout=300, cwd=REPO)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    line = r.stderr.strip()
    assert "\n" not in line and line.startswith(f"error: {bad}: ") and "ghost" in line


def test_report_and_export_of_a_doctored_replay_name_the_replay_file(tmp_path):
    """The same doctored replay: rebuilding its bodies (``sandbox report``, ``sandbox export``)
    named the scene folder ("cannot rebuild the bodies ... from /x/scenes: action 0 ..."), not
    the replay file the user gave."""
    from typer.testing import CliRunner

    from sandbox.cli import app
    from sandbox.core.errors import ReplayError
    from sandbox.engine.playback import replay_assets
    from sandbox.engine.replay import load_replay, save_replay

    result = run_scene(scene(tmp_path), out_dir=tmp_path / "out", png=False)
    rp = load_replay(result.replay_path)
    rp.actions = [{"type": "move", "player": "Red", "turn": 1, "unit": "ghost", "to": [0, 0]}]
    bad = save_replay(rp, tmp_path / "doctored.replay")
    with pytest.raises(ReplayError) as err:
        replay_assets(load_replay(bad))
    assert str(err.value).startswith(f"{bad}: cannot rebuild the bodies") and "ghost" in \
        str(err.value)
    for args in (["report", str(bad), "--out", str(tmp_path / "rep")],
                 ["export", str(bad), "--gltf", str(tmp_path / "x.glb")]):
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 2, r.output
        line = " ".join(r.output.split())  # rich may wrap a long line
        line = line[line.find("error: "):]  # after report's progress lines
        assert line.startswith(f"error: {bad}: ") and "ghost" in line, r.output
        assert "Traceback" not in r.output


def test_odds_with_a_hundred_billion_runs_is_one_line(tmp_path):
    """``--seeds`` was bounded, ``--runs 99999999999`` was a MemoryError traceback."""
    from typer.testing import CliRunner

    from sandbox.cli import app

    r = CliRunner().invoke(app, ["odds", str(scene(tmp_path)), "--runs", "99999999999",
                                 "--workers", "1", "--out", str(tmp_path / "odds")])
    assert r.exit_code == 2
    assert "--runs 99999999999: more than 1000000 runs" in r.output
    assert "Traceback" not in r.output and not (tmp_path / "odds" / "runs.csv").exists()


def test_replay_info_shows_the_outcome_the_replay_keeps(tmp_path):
    """``sandbox replay --info`` printed no Outcome though the replay keeps it (README: saves
    and replays keep it); a doctored one says it is unreadable, no traceback."""
    import io

    from rich.console import Console

    from sandbox.app.replay_cli import print_info
    from sandbox.engine.replay import load_replay

    result = run_scene(scene(tmp_path), out_dir=tmp_path / "out", png=False)
    rp = load_replay(result.replay_path)
    out = io.StringIO()
    print_info(result.replay_path, rp, Console(file=out, width=200))
    assert f"Outcome: {result.game.outcome.text}" in out.getvalue()
    for junk, shown in (({"winner": 5}, "unreadable"), ("x", "unreadable"),
                        (None, "none recorded")):
        rp.meta["outcome"] = junk
        out = io.StringIO()
        print_info(result.replay_path, rp, Console(file=out, width=200))
        assert f"Outcome: {shown}" in out.getvalue()


def test_the_errors_the_readme_names_are_importable_from_sandbox():
    """The README's scripting example says ``game.apply`` raises ``RulesError``; a script
    writes ``except sandbox.RulesError`` (it had to find ``sandbox.core.errors``)."""
    import sandbox
    from sandbox.core import errors

    assert sandbox.RulesError is errors.RulesError and sandbox.SceneError is errors.SceneError
    assert issubclass(sandbox.ReplayError, sandbox.SandboxError)


def test_at_a_referee_table_a_refusal_gives_the_referees_reason():
    """At a Brigandine table opened with the referee option, ``ignite`` (a BrikWars tool) was
    refused as "a referee's tool ... (a table opened with the referee option ... issues
    it)": wrong, the table has a referee; the reason is that this game does not play it."""
    from conftest import REPO

    import sandbox

    with sandbox.open_game(REPO / "scenes" / "brigandine_skirmish.toml", referee=True) as g:
        with pytest.raises(RulesError) as err:
            g.apply({"type": "ignite", "player": g.current_player, "target": "spear1"})
        assert str(err.value) == "'ignite' is not played in this game"
    with sandbox.open_game(REPO / "scenes" / "brigandine_skirmish.toml") as g:
        with pytest.raises(RulesError, match="'ignite' is a referee's tool"):
            g.apply({"type": "ignite", "player": g.current_player, "target": "spear1"})
