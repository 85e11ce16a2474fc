"""Where library files and scene models are looked up (issue 29): ``unofficial/parts`` and
``unofficial/p`` after the official folders (as LDView and LeoCAD do); a scene's model in the
scene's folder, then ``LDRAWDIR/models``; nothing outside the library is opened."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.bricks import load_model
from sandbox.bricks.library import LDrawLibrary
from sandbox.core.errors import SceneError
from sandbox.engine.assets import resolve_model_path

QUAD = "4 16 -10 0 -10 10 0 -10 10 0 10 -10 0 10"


def _part(path: Path, title: str, org: str, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"0 {title}\n0 Name: {path.name}\n0 !LDRAW_ORG {org}\n0 BFC CERTIFY CCW\n"
                    f"{body}\n", encoding="utf-8")


@pytest.fixture
def library(tmp_path) -> Path:
    lib = tmp_path / "ldraw"
    _part(lib / "parts" / "1001.dat", "Official one", "Part", QUAD)
    _part(lib / "Unofficial" / "parts" / "1001.dat", "Unofficial one", "Unofficial_Part", QUAD)
    _part(lib / "unofficial" / "parts" / "9001.dat", "Unofficial part", "Unofficial_Part",
          "1 16 0 0 0 1 0 0 0 1 0 0 0 1 s\\9001s01.dat\n1 16 0 -4 0 1 0 0 0 1 0 0 0 1 xprim.dat")
    _part(lib / "unofficial" / "parts" / "s" / "9001s01.dat", "~Unofficial subpart",
          "Unofficial_Subpart", QUAD)
    _part(lib / "unofficial" / "p" / "xprim.dat", "Unofficial primitive",
          "Unofficial_Primitive", "3 16 0 0 0 1 0 0 0 0 1")
    (lib / "models").mkdir()
    (lib / "models" / "lib_model.ldr").write_text(
        "0 A library model\n0 Name: lib_model.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 9001.dat\n",
        encoding="utf-8")
    return lib


def test_unofficial_folders_are_searched_after_the_official_ones(library):
    lib = LDrawLibrary(library)
    root, path = lib.find("1001.dat")
    assert root == "parts" and lib.read("1001.dat").title == "Official one"
    assert lib.find("9001.dat")[0] == "unofficial/parts"
    assert lib.find("s\\9001S01.DAT")[0] == "unofficial/parts"
    assert lib.find("9001s01.dat")[0] == "unofficial/parts"  # parts/s/ without the folder
    assert lib.find("xprim.dat")[0] == "unofficial/p"
    assert lib.find("lib_model.ldr")[0] == "models"
    assert lib.find("nothing.dat") is None


def test_a_model_using_an_unofficial_part_has_no_placeholder(library, tmp_path):
    model_path = tmp_path / "m.ldr"
    model_path.write_text("0 M\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 9001.dat\n", encoding="utf-8")
    model = load_model(model_path, ldrawdir=library)
    assert [p.part for p in model.placements] == ["9001.dat"]
    assert not model.placements[0].missing and not model.warnings
    pm = model.part_mesh("9001.dat")
    assert pm.source == "library" and len(pm.triangles) == 2 + 1  # subpart quad + primitive


def test_scene_models_are_looked_up_in_the_scene_folder_then_library_models(library, tmp_path):
    scenes = tmp_path / "scenes"
    scenes.mkdir()
    where = "creations[x]"
    got = resolve_model_path("lib_model.ldr", scenes, library, where)
    assert got == library / "models" / "lib_model.ldr"
    own = scenes / "lib_model.ldr"
    own.write_text("0 own\n1 1 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n", encoding="utf-8")
    assert resolve_model_path("lib_model.ldr", scenes, library, where) == own
    # the library's own layout still works: "models/<file>" relative to LDRAWDIR
    assert resolve_model_path("models/lib_model.ldr", tmp_path / "elsewhere", library,
                              where) == library / "models" / "lib_model.ldr"


def test_library_lookups_never_leave_the_library(library, tmp_path):
    secret = tmp_path / "secret.ldr"
    secret.write_text("0 secret\n", encoding="utf-8")
    scenes = tmp_path / "scenes" / "deep"
    scenes.mkdir(parents=True)
    # "../secret.ldr" relative to LDRAWDIR is tmp_path/secret.ldr, which exists: library
    # candidates with ".." are not tried
    with pytest.raises(SceneError, match="no such file") as err:
        resolve_model_path("../secret.ldr", scenes, library, "creations[x]")
    assert str(library) not in str(err.value)
    link = library / "models" / "out.ldr"
    link.symlink_to(secret)
    with pytest.raises(SceneError, match="no such file"):  # a link out of the library
        resolve_model_path("out.ldr", scenes, library, "creations[x]")
