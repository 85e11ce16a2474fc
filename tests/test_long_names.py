"""Names over the file system's limit (ENAMETOOLONG) give one line naming the path, never an
``OSError`` traceback (issue 28, item 10): scene files, models, their folders, parts an LDraw
file names, the LDraw library folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sandbox import open_game
from sandbox.bricks import load_model
from sandbox.core.errors import LDrawError, SandboxError, SceneError

REPO = Path(__file__).resolve().parents[1]
LONG = "n" * 300  # over the 255 bytes of a name on ext4, xfs, btrfs, tmpfs

SCENE = """
name = "long names"
[battlefield]
width = 12.0
depth = 12.0
[[players]]
name = "Red"
[[units]]
id = "u"
owner = "Red"
model = "MODEL"
stats = { size = 1.0, armor = 4 }
"""


def _one_line(exc: BaseException, *words: str) -> None:
    msg = str(exc)
    assert "\n" not in msg, msg
    for w in words:
        assert w in msg, (w, msg)


@pytest.mark.parametrize("model", [f"{LONG}.ldr", f"{LONG}/scout.ldr", f"sub/{LONG}.mpd"])
def test_a_scene_naming_a_model_too_long_is_one_line(tmp_path, model):
    scene = tmp_path / "s.toml"
    scene.write_text(SCENE.replace("MODEL", model))
    with pytest.raises(SceneError) as err:
        open_game(scene)
    _one_line(err.value, "units[u].model", LONG[:50])


def test_a_scene_file_or_folder_too_long_is_one_line(tmp_path):
    for path in (tmp_path / f"{LONG}.toml", tmp_path / LONG / "s.toml"):
        with pytest.raises(SandboxError) as err:
            open_game(path)
        _one_line(err.value, "File name too long", LONG[:50])


def test_an_ldraw_file_naming_parts_too_long_loads_with_warnings(tmp_path, ldrawdir):
    f = tmp_path / "m.ldr"
    f.write_text(f"1 4 0 0 0 1 0 0 0 1 0 0 0 1 {LONG}.dat\n"
                 f"1 4 0 0 0 1 0 0 0 1 0 0 0 1 {LONG}/x.dat\n"
                 f"1 4 0 0 0 1 0 0 0 1 0 0 0 1 s\\{LONG}.dat\n"
                 "1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    m = load_model(f, ldrawdir=ldrawdir)
    assert len(m.placements) >= 1
    assert sum("missing" in w.message for w in m.warnings) >= 2
    with pytest.raises(LDrawError) as err:
        load_model(tmp_path / f"{LONG}.ldr", ldrawdir=ldrawdir)
    _one_line(err.value, "File name too long")


def test_an_ldraw_library_folder_too_long_is_one_line(tmp_path):
    src = REPO / "models" / "falcon_scout.ldr"
    shutil.copy(src, tmp_path / "scout.ldr")
    with pytest.raises(LDrawError) as err:
        load_model(tmp_path / "scout.ldr", ldrawdir=tmp_path / LONG)
    _one_line(err.value, "cannot be opened", "File name too long")
