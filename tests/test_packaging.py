"""The package as a pip user gets it: the shipped scenes and models, ``sandbox scenes``,
``sandbox run NAME``, ``python -m sandbox``, ``--version``, the LICENSE, the extras' hints."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from conftest import REPO
from typer.testing import CliRunner

import sandbox
from sandbox.app.shipped import copy_scenes, resolve_scene_arg, scenes_dir, shipped_scenes
from sandbox.cli import app, missing_extra


def test_python_dash_m_sandbox_prints_the_version():
    r = subprocess.run([sys.executable, "-m", "sandbox", "--version"], capture_output=True,
                       text=True, timeout=300, cwd=REPO.parent)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"brikwars-sandbox {sandbox.__version__}"


def test_version_matches_the_metadata():
    from importlib.metadata import version

    assert version("brikwars-sandbox") == sandbox.__version__
    r = CliRunner().invoke(app, ["--version"])
    assert r.exit_code == 0 and sandbox.__version__ in r.stdout


def test_license_file_is_mit_as_the_metadata_says():
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert meta["license"] == "MIT" and "LICENSE" in meta["license-files"]
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License") and "The brikwars-sandbox contributors" in text


def test_shipped_scenes_are_the_repository_scenes_with_titles():
    found = shipped_scenes()
    repo_scenes = sorted(p.stem for p in (REPO / "scenes").glob("*.toml"))
    assert [s.name for s in found] == repo_scenes
    default = next(s for s in found if s.name == "big_drop_guard_tower")
    assert default.title == "Big Drop on the guard tower"
    assert "supply crate" in default.description
    # the package's copy is the same file as the one the README's command names
    assert (scenes_dir() / "big_drop_guard_tower.toml").read_bytes() \
        == (REPO / "scenes" / "big_drop_guard_tower.toml").read_bytes()


def test_sandbox_scenes_lists_name_and_description():
    r = CliRunner().invoke(app, ["scenes"])
    assert r.exit_code == 0, r.output
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("wall_demolition "))
    assert "Wall" in line or "wall" in line.split(None, 1)[1]
    assert f"{len(shipped_scenes())} scenes" in r.stdout


def test_scene_argument_is_a_path_else_a_shipped_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve_scene_arg("skirmish") == scenes_dir() / "skirmish.toml"
    assert resolve_scene_arg("skirmish.toml") == scenes_dir() / "skirmish.toml"
    (tmp_path / "skirmish.toml").write_text("x")  # a file of that name here wins
    assert resolve_scene_arg("skirmish.toml").resolve() == (tmp_path / "skirmish.toml")
    for odd in ("../scenes/skirmish", "/nonexistent/skirmish", ".skirmish", "nope"):
        assert resolve_scene_arg(odd) == Path(odd)  # left for the reader to report missing


def test_copy_gives_editable_scenes_that_find_their_models(tmp_path):
    copied, kept = copy_scenes(tmp_path)
    assert kept == [] and (tmp_path / "scenes" / "big_drop_guard_tower.toml") in copied
    assert (tmp_path / "models" / "guard_tower.mpd").is_file()
    scene = tmp_path / "scenes" / "wall_demolition.toml"
    edited = scene.read_text() + "\n# my edit\n"
    scene.write_text(edited)
    again, kept = copy_scenes(tmp_path)  # never overwrites an edit
    assert again == [] and scene in kept and scene.read_text() == edited
    from sandbox.engine.game import open_game

    with open_game(scene) as game:  # its ../models/ path resolves in the copy
        assert "wall" in game.bodies


def test_copy_into_a_file_is_one_line_error(tmp_path):
    f = tmp_path / "f"
    f.write_text("")
    r = CliRunner().invoke(app, ["scenes", "--copy", str(f)])
    assert r.exit_code == 2 and "is a file" in r.output and "Traceback" not in r.output


def test_missing_extra_hint_names_the_pip_command(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "imageio_ffmpeg" else real(name, *a))
    assert missing_extra("video") == ("MP4 video export needs the video extra: "
                                      "pip install 'brikwars-sandbox[video]'")
    assert missing_extra("plots") is None  # installed here (the test extra pulls [all])


def test_test_extra_pulls_every_feature_extra():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert "brikwars-sandbox[all]" in extras["test"]
    assert extras["all"] == ["brikwars-sandbox[video,plots,ray]"]
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    assert not any(d.startswith(("imageio-ffmpeg", "matplotlib", "ray")) for d in deps)


@pytest.mark.slow
def test_wheel_holds_scenes_models_and_license(tmp_path):
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", str(REPO), "-w", str(tmp_path),
                        "--no-deps", "-q"], capture_output=True, text=True, timeout=600)
    if r.returncode != 0 and "Could not find a version that satisfies" in r.stderr:
        pytest.skip("no build backend reachable (pip's build isolation is offline)")
    assert r.returncode == 0, r.stderr
    (whl,) = tmp_path.glob("brikwars_sandbox-*.whl")
    names = set(zipfile.ZipFile(whl).namelist())
    for scene in (REPO / "scenes").glob("*.toml"):
        assert f"sandbox/data/scenes/{scene.name}" in names
    for model in (REPO / "models").iterdir():
        assert f"sandbox/data/models/{model.name}" in names
    assert "sandbox/__main__.py" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
