"""``sandbox export`` never writes over its inputs (issue 28): the scene, the save, the replay,
a model the scene uses, by name or through a link; file names of the wrong kind are refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sandbox import open_game
from sandbox.cli import app
from sandbox.engine.replay import save_replay

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.ldraw

SCENE = """
name = "Export overwrite"
seed = 1
format = 1
[battlefield]
width = 12.0
depth = 12.0
[[players]]
name = "Red"
colour = 4
[[units]]
id = "scout"
name = "Scout"
model = "scout.ldr"
keep_model_placement = false
position = [0.0, 0.0, 0.0]
owner = "Red"
stats = { size = 1.0, armor = 4, action_die = 6, move = 5.0 }
"""


@pytest.fixture
def table(tmp_path, ldrawdir):
    (tmp_path / "scout.ldr").write_bytes((ROOT / "models" / "falcon_scout.ldr").read_bytes())
    scene = tmp_path / "scene.toml"
    scene.write_text(SCENE)
    with open_game(scene, ldrawdir=ldrawdir) as g:
        g.save(tmp_path / "game.save.json")
        g.finish()
        rp = g.replay()
        rp.meta["scene_dir"] = str(tmp_path)
        save_replay(rp, tmp_path / "game.replay")
    return tmp_path


def _export(ldrawdir, *args):
    return CliRunner().invoke(app, ["export", *map(str, args), "--ldrawdir", str(ldrawdir)])


def _refused(res, *words):
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    for w in words:
        assert w in text, (w, res.output)


def test_export_refuses_to_write_over_any_of_its_inputs(table, ldrawdir):
    inputs = {p: p.read_bytes() for p in (table / "scene.toml", table / "scout.ldr",
                                         table / "game.save.json", table / "game.replay")}
    # the model the scene uses, by its name
    _refused(_export(ldrawdir, table / "scene.toml", "--ldraw", table / "scout.ldr"),
             "is one of the export's inputs")
    # the same model by a path with '..' in it, and through a symbolic link and a hard link
    (table / "sub").mkdir()
    _refused(_export(ldrawdir, table / "scene.toml", "--ldraw", table / "sub" / ".." /
                     "scout.ldr"), "inputs")
    os.symlink(table / "scout.ldr", table / "link.mpd")
    _refused(_export(ldrawdir, table / "scene.toml", "--ldraw", table / "link.mpd"), "inputs")
    os.link(table / "scout.ldr", table / "hard.ldr")
    _refused(_export(ldrawdir, table / "scene.toml", "--ldraw", table / "hard.ldr"), "inputs")
    # the scene, the save and the replay themselves, through links named as outputs
    for src, name in (("scene.toml", "s.glb"), ("game.save.json", "g.gltf"),
                      ("game.replay", "r.mpd")):
        os.symlink(table / src, table / name)
        opt = "--ldraw" if name.endswith(".mpd") else "--gltf"
        _refused(_export(ldrawdir, table / src, opt, table / name), "inputs")
    # a replay's model, exported from the replay
    _refused(_export(ldrawdir, table / "game.replay", "--ldraw", table / "scout.ldr"), "inputs")
    # the part files of the LDraw library it read
    part = Path(ldrawdir) / "parts" / "3001.dat"
    if part.is_file():
        os.symlink(part, table / "part.ldr")
        scene = table / "bricks.toml"
        scene.write_text(SCENE.replace('model = "scout.ldr"', 'parts = [{ part = "3001" }]'))
        # refused as an input (the MPD export reads the parts it copies) or, when an earlier
        # export in this process had read it already, as the library's
        res = _export(ldrawdir, scene, "--ldraw", table / "part.ldr")
        _refused(res, "inputs" if "inputs" in res.output else "LDraw library")
        assert os.path.islink(table / "part.ldr")
        _refused(_export(ldrawdir, scene, "--ldraw", Path(ldrawdir) / "models" / "new.mpd"),
                 "LDraw library")
    for p, data in inputs.items():
        assert p.read_bytes() == data, f"{p} was written over"
    ok = _export(ldrawdir, table / "scene.toml", "--gltf", table / "out.glb", "--ldraw",
                 table / "out.mpd")
    assert ok.exit_code == 0, ok.output
    assert (table / "out.glb").stat().st_size > 0 and (table / "out.mpd").stat().st_size > 0


def test_export_file_names_must_be_of_their_kind(table, ldrawdir):
    for opt, name in (("--gltf", "out.png"), ("--gltf", "out"), ("--gltf", "out.mpd"),
                      ("--ldraw", "out.glb"), ("--ldraw", "out.txt")):
        _refused(_export(ldrawdir, table / "scene.toml", opt, table / name), opt,
                 "must end in")
        assert not (table / name).exists()
    _refused(_export(ldrawdir, table / "scene.toml", "--gltf", table / "same.gltf", "--ldraw",
                     table / "same.gltf"), "must end in")
    res = _export(ldrawdir, table / "scene.toml", "--gltf", table / "out.gltf")
    assert res.exit_code == 0, res.output
