"""The LDraw MPD export as LeoCAD and Stud.io read it (issue 29): a body that came whole from a
model is that model's file copied (names, STEPs, comments kept), in its own frame, placed by
the reference's matrix; embedded and unofficial parts travel in the MPD; a placeholder is
written as the box that was simulated, with a comment."""

from __future__ import annotations

import numpy as np
import pytest

from sandbox.app.table_export import (
    ExportBody,
    TableSnapshot,
    load_snapshot,
    world_matrix_to_ldraw,
    write_ldraw,
)
from sandbox.bricks import load_model
from sandbox.engine.assets import build_asset
from sandbox.engine.scene import load_scene

pytestmark = pytest.mark.ldraw

DROID = "8002 - Destroyer Droid.mpd"


def _sections(text: str) -> dict[str, list[str]]:
    """``{name: lines}`` of an MPD's ``0 FILE`` sections (CRLF or LF)."""
    out, cur = {}, None
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.startswith("0 FILE "):
            cur = out.setdefault(line[7:].strip(), [])
        elif line.strip() == "0 NOFILE":
            cur = None
        elif cur is not None:
            cur.append(line)
    return out


def _original_sections(path) -> dict[str, list[str]]:
    return _sections(path.read_text(encoding="utf-8"))


def _same_table(snap, out, ldrawdir):
    """Every part of the snapshot at its place in the exported file, one to one."""
    model = load_model(out, ldrawdir=ldrawdir)
    want = [(p, m) for b in snap.bodies for p, m in b.part_matrices()]
    assert len(model.placements) == len(want)
    groups: dict[tuple, list] = {}
    for p, m in want:
        groups.setdefault((p.part if not p.missing else "placeholder_" + p.part, p.colour),
                          []).append(m)
    for p in model.placements:
        cands = groups.get((p.part, p.colour))
        assert cands, (p.part, p.colour)
        got = p.world_matrix
        d = np.abs(np.array([m[:3, 3] for m in cands]) - got[:3, 3]).max(axis=1)
        best = cands.pop(int(np.argmin(d)))
        assert d.min() < 1e-3
        assert np.abs(best[:3, :3] - got[:3, :3]).max() < 1e-4
    return model


def _scene(tmp, body: str) -> str:
    path = tmp / "scene.toml"
    path.write_text(f'name = "export check"\nseed = 1\nformat = 1\n[battlefield]\nwidth = 24.0\n'
                    f'depth = 24.0\n{body}', encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def droid(ldrawdir, tmp_path_factory):
    """The droid as the scene places it (turned 30 degrees), without the physics' set-up
    (3864 parts: seconds, not a minute, on a busy machine)."""
    tmp = tmp_path_factory.mktemp("droid")
    scene = _scene(tmp, f'[[creations]]\nid = "droid"\nname = "Destroyer Droid"\n'
                        f'model = "{DROID}"\nrotation = [0.0, 0.0, 30.0]\n')
    spec, base = load_scene(scene)
    asset = build_asset(spec.creations[0], base, ldrawdir)
    snap = TableSnapshot("droid", 24.0, 24.0,
                         (ExportBody("droid", "Destroyer Droid", asset, np.eye(4), "droid"),))
    return snap, write_ldraw(snap, tmp / "droid.mpd")


def test_droid_model_is_found_in_library_models_and_exported_whole(droid, ldrawdir):
    snap, out = droid
    model = _same_table(snap, out, ldrawdir)
    assert not model.warnings and not any(p.missing for p in model.placements)
    original = _original_sections(ldrawdir / "models" / DROID)
    got = _sections(out.read_text(encoding="utf-8"))
    # every file of the model travels, under its own name: submodels and embedded parts
    assert set(original) <= set(got)
    assert {"8002 - 33299a.dat", "s\\8002 - 6642s01.dat", "8002 - body.ldr"} <= set(got)
    # each copied as written (names, STEPs, comments)
    for name, lines in original.items():
        assert [ln for ln in got[name] if ln.strip()] == [ln.rstrip() for ln in lines
                                                          if ln.strip()], name
    assert sum(ln.strip() == "0 STEP" for ln in got["8002 - body.ldr"]) == sum(
        ln.strip() == "0 STEP" for ln in original["8002 - body.ldr"]) == 23


def test_droid_is_placed_by_the_references_matrix(droid):
    """The model's main file keeps its own frame; the line placing it holds the turn of the
    scene entry (30 degrees about the table's vertical, LDraw's -Y) and the body's pose."""
    snap, out = droid
    main = _sections(out.read_text(encoding="utf-8"))[out.name]
    refs = [ln.split(None, 14) for ln in main if ln.startswith("1 ")]
    assert [r[14] for r in refs] == ["8002 - main.ldr"]
    m = np.array([float(v) for v in refs[0][2:14]])
    rot = m[3:].reshape(3, 3)
    b = snap.bodies[0]
    want = world_matrix_to_ldraw(b.pose @ b.asset.model_frame)
    np.testing.assert_allclose(rot, want[:3, :3], atol=1e-5)
    np.testing.assert_allclose(m[:3], want[:3, 3], atol=1e-5)
    # a turn about the vertical only: the model stands upright (not lying on its back)
    assert abs(rot[1, 1] - 1.0) < 1e-3
    assert np.degrees(np.arctan2(abs(rot[0, 2]), rot[0, 0])) == pytest.approx(30.0, abs=0.5)


def test_scene_submodels_and_colours_share_the_models_files(ldrawdir, tmp_path):
    """Two troopers of one .ldr in two colours: one section, two lines in the entries'
    colours; the guard tower's submodels under their own names."""
    from conftest import REPO

    models = REPO / "models"
    body = ""
    for i, (colour, x) in enumerate(((1, -4.0), (0, 4.0))):
        body += (f'[[units]]\nid = "t{i}"\nmodel = "{models / "trooper.ldr"}"\ncolour = {colour}\n'
                 f'position = [{x}, 0.0, 0.0]\nstats = {{ size = 1.0, armor = 4, '
                 'action_die = 6, move = 5.0 }\n')
    body += (f'[[creations]]\nid = "guard"\nmodel = "{models / "guard_tower.mpd"}"\n'
             'submodel = "guard.ldr"\nposition = [0.0, 6.0, 0.0]\n')
    snap = load_snapshot(_scene(tmp_path, body), ldrawdir=ldrawdir)
    out = write_ldraw(snap, tmp_path / "squad.mpd")
    _same_table(snap, out, ldrawdir)
    got = _sections(out.read_text(encoding="utf-8"))
    assert set(got) == {"squad.mpd", "trooper.ldr", "guard.ldr"}
    lines = [ln.split(None, 14) for ln in got["squad.mpd"] if ln.startswith("1 ")]
    assert sorted((r[1], r[14]) for r in lines) == [("0", "trooper.ldr"), ("1", "trooper.ldr"),
                                                    ("16", "guard.ldr")]
    guard = _original_sections(models / "guard_tower.mpd")["guard.ldr"]
    assert [ln for ln in got["guard.ldr"] if ln.strip()] == [ln for ln in guard if ln.strip()]


def test_a_placeholder_is_exported_as_the_box_that_was_simulated(tmp_path, monkeypatch):
    monkeypatch.delenv("LDRAWDIR", raising=False)
    body = ('[[creations]]\nid = "odd"\nfixed = true\nparts = [\n'
            '  { part = "3001", colour = 4, position = [0.0, 0.0, 0.0] },\n'
            '  { part = "99999", colour = 14, position = [2.0, 0.0, 0.0] },\n]\n')
    snap = load_snapshot(_scene(tmp_path, body))
    assert [p.missing for b in snap.bodies for p, _ in b.part_matrices()] == [False, True]
    out = write_ldraw(snap, tmp_path / "odd.mpd")
    text = out.read_text(encoding="utf-8")
    got = _sections(text)
    assert "placeholder_99999.dat" in got
    odd = got["odd.ldr"]
    i = next(i for i, ln in enumerate(odd) if ln.endswith(" placeholder_99999.dat"))
    assert odd[i - 1].startswith("0 // placeholder: 99999.dat was not found")
    assert odd[i].split()[1] == "14"
    model = _same_table(snap, out, None)
    box = model.parts["placeholder_99999.dat"]
    assert box.source == "embedded"
    np.testing.assert_allclose(box.bounds, [[-10, 0, -10], [10, 24, 10]])


def test_a_reference_out_of_the_models_folder_is_not_copied(tmp_path, monkeypatch):
    """The untrusted-path rule holds in the export too: a model's line naming a file outside
    the library and the model's folder is refused when read and not written as a line."""
    monkeypatch.delenv("LDRAWDIR", raising=False)
    (tmp_path / "outside.dat").write_text("0 outside\n0 !LDRAW_ORG Part\n", encoding="utf-8")
    models = tmp_path / "models"
    models.mkdir()
    (models / "m.ldr").write_text(
        "0 M\n0 Name: m.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n0 STEP\n"
        "1 4 0 -24 0 1 0 0 0 1 0 0 0 1 ../outside.dat\n", encoding="utf-8")
    body = '[[creations]]\nid = "m"\nfixed = true\nmodel = "models/m.ldr"\n'
    snap = load_snapshot(_scene(tmp_path, body))
    out = write_ldraw(snap, tmp_path / "m.mpd")
    got = _sections(out.read_text(encoding="utf-8"))
    assert set(got) == {"m.mpd", "m.ldr"}
    assert "0 // refused reference outside the library: ../outside.dat" in got["m.ldr"]
    assert not [ln for ln in got["m.ldr"] if ln.startswith("1 ") and "outside" in ln]
    assert "0 STEP" in got["m.ldr"]
    _same_table(snap, out, None)


def test_unofficial_library_parts_travel_in_the_mpd(tmp_path, monkeypatch):
    """A part from the library's unofficial/ folders (and its subpart and primitive) is
    copied into the MPD under the names the lines use: the file opens without the library."""
    monkeypatch.delenv("LDRAWDIR", raising=False)
    lib = tmp_path / "ldraw"
    files = {
        "unofficial/parts/9001.dat": ("Unofficial_Part", "1 16 0 0 0 1 0 0 0 1 0 0 0 1 "
                                      "s\\9001s01.dat\n1 16 0 -4 0 1 0 0 0 1 0 0 0 1 xprim.dat"),
        "unofficial/parts/s/9001s01.dat": ("Unofficial_Subpart",
                                           "4 16 -10 0 -10 10 0 -10 10 0 10 -10 0 10"),
        "unofficial/p/xprim.dat": ("Unofficial_Primitive", "3 16 0 0 0 1 0 0 0 0 1"),
    }
    for rel, (org, geometry) in files.items():
        path = lib / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"0 {rel}\n0 Name: {path.name}\n0 !LDRAW_ORG {org}\n"
                        f"0 BFC CERTIFY CCW\n{geometry}\n", encoding="utf-8")
    (lib / "parts").mkdir()
    body = ('[[creations]]\nid = "u"\nfixed = true\nparts = [\n'
            '  { part = "3001", colour = 4, position = [0.0, 0.0, 0.0] },\n'
            '  { part = "9001", colour = 1, position = [2.0, 0.0, 0.0] },\n]\n')
    snap = load_snapshot(_scene(tmp_path, body), ldrawdir=lib)
    out = write_ldraw(snap, tmp_path / "u.mpd")
    got = _sections(out.read_text(encoding="utf-8"))
    assert {"9001.dat", "s\\9001s01.dat", "xprim.dat"} <= set(got)
    assert "3001.dat" not in got  # a part every library has is referenced, not copied
    model = _same_table(snap, out, None)  # without the library: the MPD holds them
    assert model.parts["9001.dat"].source == "embedded" and not model.warnings
    assert len(model.parts["9001.dat"].triangles) == 3
