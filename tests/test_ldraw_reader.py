"""The LDraw reader on small hand-written files: BFC winding, cycles, missing parts, malformed
lines, case-insensitive lookup, ``~Moved to`` redirects, colours 16/24 and direct colours."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sandbox.bricks import ColourTable, get_part_mesh, load_model, model_info, model_mesh
from sandbox.bricks.colours import direct_colour, parse_colour_code
from sandbox.bricks.ldraw import normalise_name, parse_ldraw
from sandbox.core.errors import LDrawError

IDENT = "1 0 0 0 1 0 0 0 1"
# a unit quad in the y=0 plane, CCW seen from above (-Y), i.e. its normal points up (-Y)
QUAD_UP = "4 16 0 0 0 1 0 0 1 0 1 0 0 1"


@pytest.fixture(autouse=True)
def _no_env_library(monkeypatch):
    monkeypatch.delenv("LDRAWDIR", raising=False)


def write(path: Path, *lines: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\r\n".join(lines) + "\r\n")
    return path


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    """A tiny LDraw library: primitives, parts with odd case, a redirect, a subpart."""
    root = tmp_path / "lib"
    write(root / "p" / "quadup.dat", "0 Quad Up", "0 BFC CERTIFY CCW", QUAD_UP)
    write(root / "p" / "quadcw.dat", "0 Quad Up written CW", "0 BFC CERTIFY CW",
          "4 16 0 0 0 0 0 1 1 0 1 1 0 0")
    write(root / "p" / "stud.dat", "0 Stud", "0 BFC CERTIFY CCW", QUAD_UP)
    write(root / "parts" / "plain.dat", "0 Plain", "0 !LDRAW_ORG Part", "0 BFC CERTIFY CCW",
          f"1 16 0 0 0 {IDENT} quadup.dat")
    write(root / "parts" / "inverted.dat", "0 Inverted", "0 !LDRAW_ORG Part",
          "0 BFC CERTIFY CCW", "0 BFC INVERTNEXT", f"1 16 0 0 0 {IDENT} quadup.dat")
    write(root / "parts" / "mirrored.dat", "0 Mirrored", "0 !LDRAW_ORG Part",
          "0 BFC CERTIFY CCW", "1 16 0 0 0 -1 0 0 0 1 0 0 0 1 quadup.dat")
    write(root / "parts" / "mirrinv.dat", "0 Mirrored and inverted", "0 !LDRAW_ORG Part",
          "0 BFC CERTIFY CCW", "0 BFC INVERTNEXT", "1 16 0 0 0 -1 0 0 0 1 0 0 0 1 quadup.dat")
    write(root / "parts" / "cwpart.dat", "0 CW", "0 !LDRAW_ORG Part", "0 BFC CERTIFY CCW",
          f"1 16 0 0 0 {IDENT} quadcw.dat")
    write(root / "parts" / "uncert.dat", "0 Not certified", "0 !LDRAW_ORG Part",
          f"1 16 0 0 0 {IDENT} quadup.dat")
    write(root / "parts" / "MixedCase.DAT", "0 Mixed case", "0 !LDRAW_ORG Part",
          "0 BFC CERTIFY CCW", f"1 16 0 0 0 {IDENT} S\\Sub.Dat")
    write(root / "parts" / "s" / "sub.dat", "0 ~Sub", "0 !LDRAW_ORG Subpart",
          "0 BFC CERTIFY CCW", QUAD_UP, f"1 16 5 0 5 {IDENT} stud.dat")
    write(root / "parts" / "new.dat", "0 New part", "0 !LDRAW_ORG Part", "0 BFC CERTIFY CCW",
          QUAD_UP)
    write(root / "parts" / "old.dat", "0 ~Moved to new", "0 !LDRAW_ORG Part Alias",
          f"1 16 10 0 0 {IDENT} new.dat")
    write(root / "parts" / "colours.dat", "0 Colour test", "0 !LDRAW_ORG Part",
          "0 BFC CERTIFY CCW", "3 16 0 0 0 0 0 1 1 0 0", "3 24 0 0 0 0 0 1 1 0 0",
          "3 4 0 0 0 0 0 1 1 0 0", "3 0x2FF8000 0 0 0 0 0 1 1 0 0",
          "1 2 0 0 0 1 0 0 0 1 0 0 0 1 quadup.dat")
    write(root / "parts" / "badline.dat", "0 Bad line", "0 !LDRAW_ORG Part",
          "3 16 0 0 0 1 1", QUAD_UP)
    write(root / "parts" / "needsmissing.dat", "0 Needs a missing primitive",
          "0 !LDRAW_ORG Part", QUAD_UP, f"1 16 0 0 0 {IDENT} nothere.dat")
    write(root / "LDConfig.ldr", "0 LDraw config",
          "0 !COLOUR Red CODE 4 VALUE #FF0000 EDGE #00FF00",
          "0 !COLOUR Green CODE 2 VALUE #00FF00 EDGE #0000FF")
    return root


def normals(tris: np.ndarray) -> np.ndarray:
    n = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    return n / np.linalg.norm(n, axis=1, keepdims=True)


# -- BFC ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "part, up",
    [("plain.dat", True), ("inverted.dat", False), ("mirrored.dat", True),
     ("mirrinv.dat", False), ("cwpart.dat", True)],
)
def test_bfc_winding(lib, part, up):
    """A mirror image of an up-facing quad still faces up (the negative determinant's flip
    restores it); INVERTNEXT turns it down; a CW file is read as CCW."""
    pm = get_part_mesh(part, lib)
    assert pm.source == "library" and pm.certified.all()
    n = normals(pm.triangles)
    expected = np.array([0.0, -1.0, 0.0]) if up else np.array([0.0, 1.0, 0.0])
    np.testing.assert_allclose(n, np.tile(expected, (len(n), 1)), atol=1e-12)


def test_uncertified_part_is_flagged(lib):
    pm = get_part_mesh("uncert.dat", lib)
    assert not pm.certified.any()


def test_mirrored_placement_keeps_outward_winding(lib, tmp_path):
    """A placement with a negative determinant flips the winding back in model_mesh."""
    model = write(tmp_path / "m.ldr", "0 Mirror", f"1 4 0 0 0 {IDENT} plain.dat",
                  "1 4 0 0 0 -1 0 0 0 1 0 0 0 1 plain.dat")
    m = load_model(model, lib)
    mesh = model_mesh(m)
    # world Z up: LDraw -Y up; both quads must face up
    np.testing.assert_allclose(mesh.normals, np.tile([0, 0, 1.0], (len(mesh.normals), 1)),
                               atol=1e-6)


def test_library_brick_winding_gives_positive_volume(shared_ldraw):
    """Consistent CCW-outward winding through INVERTNEXT: the signed volume is positive."""
    for name in ("3001.dat", "3003.dat", "3020.dat", "3068b.dat"):
        t = get_part_mesh(name, shared_ldraw).triangles
        vol = np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])).sum() / 6.0
        assert vol > 0, name


@pytest.fixture
def shared_ldraw() -> Path:
    import os

    env = os.environ.get("LDRAWDIR")
    path = Path(env) if env else Path(__file__).parents[1].parent / "shared" / "ldraw"
    if not (path / "parts").is_dir():
        pytest.skip(f"LDraw library not found at {path} (set LDRAWDIR)")
    return path


# -- lookup -----------------------------------------------------------------------------------
def test_case_insensitive_lookup_and_backslashes(lib, tmp_path):
    model = write(tmp_path / "m.ldr", "0 Case", f"1 7 0 0 0 {IDENT} MIXEDCASE.dat",
                  f"1 7 0 0 0 {IDENT} mixedcase.DAT")
    m = load_model(model, lib)
    assert [p.part for p in m.placements] == ["mixedcase.dat", "mixedcase.dat"]
    pm = m.parts["mixedcase.dat"]
    assert pm.source == "library" and not pm.missing
    assert len(pm.triangles) == 4  # its subpart s\Sub.Dat (quad) + the stud's quad
    np.testing.assert_allclose(pm.studs, [[5.0, 0.0, 5.0]])
    np.testing.assert_allclose(pm.stud_axes, [[0.0, -1.0, 0.0]])
    assert m.warnings == ()


def test_normalise_name():
    assert normalise_name(" S\\3001S01.DAT") == "s/3001s01.dat"


def test_moved_to_redirect(lib, tmp_path):
    model = write(tmp_path / "m.ldr", "0 Redirect", f"1 4 100 0 0 {IDENT} old.dat")
    m = load_model(model, lib)
    (p,) = m.placements
    assert p.part == "new.dat" and p.colour == 4
    np.testing.assert_allclose(p.matrix[:3, 3], [110.0, 0.0, 0.0])
    assert m.distinct_parts == ("new.dat",)


# -- problems ------------------------------------------------------------------------------
def test_missing_part_gives_placeholder_and_warning(tmp_path):
    model = write(tmp_path / "m.ldr", "0 Missing", f"1 4 0 -24 0 {IDENT} 3001.dat",
                  f"1 4 0 0 0 {IDENT} no_such_part.dat")
    m = load_model(model)
    assert [p.missing for p in m.placements] == [False, True]
    assert m.parts["no_such_part.dat"].missing
    assert len(m.parts["no_such_part.dat"].triangles) == 12
    (w,) = m.warnings
    assert w.line == 3 and w.path == str(model) and "no_such_part.dat" in w.message
    info = model_info(m)
    assert info["missing_parts"] == 1 and info["warnings"] == [f"{model}:3: {w.message}"]
    assert model_mesh(m).n_triangles > 12  # the placeholder is drawn


@pytest.mark.parametrize(
    "bad",
    ["1 4 0 0 0 1 0 0 0 1 0 0 0 3001.dat", "1 4 0 0 zero 1 0 0 0 1 0 0 0 1 3001.dat",
     "3 4 0 0 0 1 1", "7 4 0 0 0", "x garbage", "1 red 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat"],
)
def test_malformed_line_in_model_raises_with_file_and_line(tmp_path, bad):
    model = write(tmp_path / "bad.ldr", "0 Bad", f"1 4 0 0 0 {IDENT} 3001.dat", "", bad)
    with pytest.raises(LDrawError) as info:
        load_model(model)
    assert info.value.line == 4 and info.value.path == str(model)
    assert f"{model}:4:" in str(info.value)


def test_malformed_line_in_embedded_mpd_file_raises(tmp_path):
    model = write(tmp_path / "bad.mpd", "0 FILE main.ldr", f"1 4 0 0 0 {IDENT} sub.ldr",
                  "0 NOFILE", "0 FILE sub.ldr", "2 24 0 0 0 1", "0 NOFILE")
    with pytest.raises(LDrawError) as info:
        load_model(model)
    assert info.value.line == 5


def test_malformed_line_in_library_part_is_a_warning(lib, tmp_path):
    model = write(tmp_path / "m.ldr", "0 M", f"1 4 0 0 0 {IDENT} badline.dat",
                  f"1 4 0 0 0 {IDENT} needsmissing.dat")
    m = load_model(model, lib)
    msgs = [str(w) for w in m.warnings]
    assert any("badline.dat:3:" in s and "malformed" in s for s in msgs), msgs
    assert any("needsmissing.dat:4:" in s and "nothere.dat" in s for s in msgs), msgs
    assert len(m.parts["badline.dat"].triangles) == 2  # the good quad is kept


def test_direct_cycle_is_detected(tmp_path):
    model = write(tmp_path / "cyc.mpd", "0 FILE main.ldr", f"1 4 0 0 0 {IDENT} a.ldr",
                  "0 FILE a.ldr", f"1 4 0 0 0 {IDENT} 3001.dat", f"1 16 0 -24 0 {IDENT} A.LDR")
    with pytest.raises(LDrawError) as info:
        load_model(model)
    assert info.value.line == 5 and "a.ldr -> a.ldr" in str(info.value)


def test_indirect_cycle_is_detected(tmp_path):
    model = write(tmp_path / "cyc.mpd", "0 FILE main.ldr", f"1 4 0 0 0 {IDENT} a.ldr",
                  "0 FILE a.ldr", f"1 4 0 0 0 {IDENT} b.ldr", "0 FILE b.ldr",
                  f"1 4 0 0 0 {IDENT} c.ldr", "0 FILE c.ldr", f"1 4 0 0 0 {IDENT} a.ldr")
    with pytest.raises(LDrawError) as info:
        load_model(model)
    assert info.value.line == 8
    assert "a.ldr -> b.ldr -> c.ldr -> a.ldr" in str(info.value)


def test_model_referencing_itself_by_file_name(tmp_path):
    model = write(tmp_path / "self.ldr", "0 Self", f"1 4 0 0 0 {IDENT} self.ldr")
    with pytest.raises(LDrawError, match="references itself"):
        load_model(model)


def test_cycle_inside_library_part_is_a_warning(tmp_path):
    root = tmp_path / "lib"
    write(root / "parts" / "loop.dat", "0 Loop", "0 !LDRAW_ORG Part", QUAD_UP,
          f"1 16 0 0 0 {IDENT} s\\loop2.dat")
    write(root / "parts" / "s" / "loop2.dat", "0 ~Loop2", "0 !LDRAW_ORG Subpart",
          f"1 16 0 0 0 {IDENT} loop.dat")
    model = write(tmp_path / "m.ldr", "0 M", f"1 4 0 0 0 {IDENT} loop.dat")
    m = load_model(model, root)
    assert len(m.parts["loop.dat"].triangles) == 2
    assert any("references itself" in w.message for w in m.warnings)


def test_explicit_missing_library_dir_raises(tmp_path):
    model = write(tmp_path / "m.ldr", "0 M", f"1 4 0 0 0 {IDENT} 3001.dat")
    with pytest.raises(LDrawError):
        load_model(model, tmp_path / "nowhere")


def test_unreadable_file_raises(tmp_path):
    with pytest.raises(LDrawError):
        load_model(tmp_path / "nope.ldr")


# -- colours ---------------------------------------------------------------------------------
def test_colour_16_24_and_direct_in_part_geometry(lib):
    pm = get_part_mesh("colours.dat", lib)
    # own triangles keep 16/24 (relative to the placement); a child's 16 becomes its ref colour
    assert pm.colours.tolist() == [16, 24, 4, 0x2FF8000, 2, 2]


def test_colours_resolved_in_model_mesh(lib, tmp_path):
    model = write(tmp_path / "m.ldr", "0 M", f"1 4 0 0 0 {IDENT} colours.dat")
    m = load_model(model, lib)
    rgba = model_mesh(m).colours[::3]
    red, green_edge = (1.0, 0.0, 0.0, 1.0), (0.0, 1.0, 0.0, 1.0)
    np.testing.assert_allclose(rgba[0], red)  # 16 -> placement colour 4 (red in LDConfig)
    np.testing.assert_allclose(rgba[1], green_edge)  # 24 -> red's edge colour
    np.testing.assert_allclose(rgba[2], red)  # 4
    np.testing.assert_allclose(rgba[3], (1.0, 128 / 255, 0.0, 1.0))  # 0x2FF8000
    np.testing.assert_allclose(rgba[4], (0.0, 1.0, 0.0, 1.0))  # child placed with 2


def test_colour_inheritance_through_submodels(tmp_path):
    model = write(tmp_path / "m.mpd", "0 FILE main.ldr", f"1 4 0 0 0 {IDENT} sub.ldr",
                  f"1 16 0 0 0 {IDENT} sub.ldr", "0 FILE sub.ldr",
                  f"1 16 0 0 0 {IDENT} 3001.dat", f"1 1 0 0 0 {IDENT} 3001.dat",
                  f"1 24 0 0 0 {IDENT} 3001.dat", f"1 0x2123456 0 0 0 {IDENT} 3001.dat")
    m = load_model(model)
    table = ColourTable.builtin()
    cols = [p.colour for p in m.placements]
    assert cols[:4] == [4, 1, table.edge_code(4), 0x2123456]
    assert cols[4:] == [16, 1, 24, 0x2123456]  # under a top-level 16 nothing resolves yet
    assert m.submodels == ("sub.ldr",) and m.unused_submodels == ()


def test_colour_table(shared_ldraw):
    table = ColourTable.from_ldconfig(shared_ldraw / "LDConfig.ldr")
    assert len(table) > 150
    np.testing.assert_allclose(table.rgba(71), (150 / 255, 150 / 255, 150 / 255, 1.0))
    assert table.get(47).rgba[3] < 1.0  # Trans_Clear
    builtin = ColourTable.builtin()
    for code in (0, 1, 4, 14, 15, 71, 72):
        assert builtin.rgba(code) == table.rgba(code)
    assert parse_colour_code("0x2FF0000") == direct_colour((255, 0, 0))
    np.testing.assert_allclose(builtin.rgba(0x2FF0000), (1.0, 0.0, 0.0, 1.0))


# -- MPD structure ---------------------------------------------------------------------------
def test_mpd_first_file_is_main_and_nofile_ignored(tmp_path):
    model = write(tmp_path / "m.mpd", "0 FILE Main.ldr", "0 Main model",
                  f"1 4 0 0 0 {IDENT} Sub Model.ldr", "0 NOFILE", "1 4 0 0 0 junk outside",
                  "0 FILE sub model.ldr", f"1 16 0 -24 0 {IDENT} 3003.dat", "0 NOFILE",
                  "0 FILE unused.ldr", f"1 1 0 0 0 {IDENT} 3003.dat")
    m = load_model(model)
    assert m.title == "Main model"
    assert [(p.part, p.colour, p.source, p.line) for p in m.placements] == [
        ("3003.dat", 4, "sub model.ldr", 7)]
    assert m.submodels == ("sub model.ldr", "unused.ldr")
    assert m.unused_submodels == ("unused.ldr",)


def test_parse_keeps_file_names_with_spaces():
    (f,) = parse_ldraw(f"1 4 0 0 0 {IDENT} 6080 - Front.ldr\n", "x.ldr", strict=True,
                       warnings=[])
    assert f.refs[0].name == "6080 - Front.ldr"


def test_world_matrix_uses_units(tmp_path):
    from sandbox.core.units import ldraw_transform_to_world

    model = write(tmp_path / "m.ldr", "0 M", "1 4 20 -24 40 0 0 1 0 1 0 -1 0 0 3001.dat")
    (p,) = load_model(model).placements
    np.testing.assert_allclose(p.world_matrix, ldraw_transform_to_world(p.matrix))
    np.testing.assert_allclose(p.world_matrix[:3, 3], np.array([20, 40, 24]) / 63.5)


def test_rotated_box_in_world(tmp_path):
    """A 2x4 brick turned 90 degrees about LDraw Y: its long side runs along world Y."""
    from sandbox.bricks import placement_box

    model = write(tmp_path / "m.ldr", "0 M", "1 4 0 -24 0 0 0 1 0 1 0 -1 0 0 3001.dat")
    m = load_model(model)
    (p,) = m.placements
    box = placement_box(m, p)
    axes_world = box.rotation * (2 * box.half_extents)  # columns: box axes scaled by size
    size_along_world = np.abs(axes_world).sum(axis=1) * 63.5
    np.testing.assert_allclose(size_along_world, [40, 80, 24], atol=1e-9)
    np.testing.assert_allclose(box.centre, [0, 0, 12 / 63.5], atol=1e-12)  # z 0..24 LDU
    with_studs = placement_box(m, p, studs=True)
    assert with_studs.half_extents.max() * 2 * 63.5 == pytest.approx(80)
    assert with_studs.centre[2] > box.centre[2]
