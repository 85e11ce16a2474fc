"""The built-in catalogue of basic parts, the simplified minifig and the shipped default model."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

from sandbox.bricks import (
    catalogue_part,
    get_part_mesh,
    has_part,
    load_model,
    model_info,
    model_mesh,
    part_names,
    placement_boxes,
)
from sandbox.bricks.catalogue import BRICKS, SIZES
from sandbox.bricks.partmesh import nominal_mass_g
from sandbox.core.units import INCH_PER_LDU

REPO = Path(__file__).parents[1]
GUARD_TOWER = REPO / "models" / "guard_tower.mpd"


def _shared_ldraw() -> Path:
    env = os.environ.get("LDRAWDIR")
    return Path(env) if env else REPO.parent / "shared" / "ldraw"


@pytest.fixture
def ldraw_dir() -> Path:
    path = _shared_ldraw()
    if not (path / "parts").is_dir():
        pytest.skip(f"LDraw library not found at {path} (set LDRAWDIR)")
    return path


def signed_volume(t: np.ndarray) -> float:
    return float(np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])).sum() / 6.0)


# (name, studs x, studs z, body height LDU, has studs)
RECTS = [
    ("3001", 4, 2, 24, True), ("3002", 3, 2, 24, True), ("3003", 2, 2, 24, True),
    ("3004", 2, 1, 24, True), ("3005", 1, 1, 24, True), ("3008", 8, 1, 24, True),
    ("3009", 6, 1, 24, True), ("3010", 4, 1, 24, True), ("3020", 4, 2, 8, True),
    ("3021", 3, 2, 8, True), ("3022", 2, 2, 8, True), ("3023", 2, 1, 8, True),
    ("3024", 1, 1, 8, True), ("3710", 4, 1, 8, True), ("3666", 6, 1, 8, True),
    ("3034", 8, 2, 8, True), ("3068b", 2, 2, 8, False), ("3069b", 2, 1, 8, False),
    ("3070b", 1, 1, 8, False), ("3811", 32, 32, 4, True),
]


@pytest.mark.parametrize("name, nx, nz, h, studs", RECTS)
def test_rectangular_parts(name, nx, nz, h, studs):
    pm = catalogue_part(name)
    assert pm.name == f"{name}.dat" and pm.source == "catalogue" and has_part(name.upper())
    top = -4.0 if studs else 0.0
    np.testing.assert_allclose(pm.bounds, [[-10 * nx, top, -10 * nz], [10 * nx, h, 10 * nz]])
    assert len(pm.studs) == (nx * nz if studs else 0)
    if studs:
        assert np.all(pm.studs[:, 1] == 0.0)
        np.testing.assert_allclose((pm.studs[:, [0, 2]] + [10 * nx, 10 * nz]) % 20, 10.0)
        np.testing.assert_allclose(pm.stud_axes, np.tile([0, -1.0, 0], (len(pm.studs), 1)))
    assert pm.certified.all() and np.all(pm.colours == 16)
    # closed, outward CCW: the signed volume is the body plus studs
    stud_vol = np.pi * 36 * 4 * len(pm.studs)
    assert signed_volume(pm.triangles) == pytest.approx(400 * nx * nz * h + stud_vol, rel=0.03)


def test_brick_2x4_real_size_and_mass():
    pm = catalogue_part("3001.dat")
    size_in = (pm.bounds[1] - pm.bounds[0]) * INCH_PER_LDU
    np.testing.assert_allclose(sorted(size_in), sorted([1.26, 0.4409, 0.63]), atol=0.005)
    assert pm.mass_g == pytest.approx(2.3, abs=0.01)
    assert catalogue_part("3020").mass_g < pm.mass_g
    assert nominal_mass_g(np.array([[0, 0, 0], [0, 0, 0]])) > 0


@pytest.mark.parametrize("name", [n for n in part_names() if n != "3811.dat"])
def test_catalogue_matches_library_part(ldraw_dir, name):
    lib = get_part_mesh(name, ldraw_dir)
    cat = catalogue_part(name)
    if lib.source != "library":
        pytest.skip(f"{name} not in the library subset")
    assert signed_volume(cat.triangles) > 0
    tol = 0.5 if name in {"3626b.dat", "3626c.dat", "973.dat", "3815.dat", "3816.dat",
                          "3817.dat", "3818.dat", "3819.dat", "3820.dat"} else 1e-6
    # minifig shapes: real dimensions within a few LDU; bricks exactly
    atol = 12.0 if tol == 0.5 else 1e-6
    np.testing.assert_allclose(cat.bounds, lib.bounds, atol=atol)
    if tol != 0.5:
        np.testing.assert_allclose(sorted(map(tuple, cat.studs)), sorted(map(tuple, lib.studs)))


@pytest.mark.parametrize("name", sorted(BRICKS))
def test_generated_sizes_are_the_library_parts_sizes(ldraw_dir, name):
    """Each generated part's LDraw number is the part of that size: the library's header
    title (after a ``~Moved to``) names the same kind and size, and the shapes agree."""
    path = ldraw_dir / "parts" / name
    if not path.is_file():
        pytest.skip(f"{name} not in the library subset")
    title = path.read_text(encoding="utf-8", errors="replace").splitlines()[0][2:].strip()
    moved = re.match(r"~Moved to (\S+)", title, re.IGNORECASE)
    if moved:
        target = ldraw_dir / "parts" / (moved.group(1) + ".dat")
        title = target.read_text(encoding="utf-8").splitlines()[0][2:].strip()
    cat = catalogue_part(name)
    assert title.startswith(cat.title), (name, title, cat.title)
    lib = get_part_mesh(name, ldraw_dir)
    np.testing.assert_allclose(cat.bounds, lib.bounds, atol=1e-6)
    assert cat.mass_g == pytest.approx(lib.mass_g)


def test_catalogue_covers_basic_bricks_plates_and_tiles():
    sizes = {(k, a, b) for (k, a, b) in SIZES}
    assert {("brick", 1, n) for n in (1, 2, 3, 4, 6, 8, 10, 12, 16)} <= sizes
    assert {("brick", 2, n) for n in (2, 3, 4, 6, 8, 10)} <= sizes
    assert {("plate", 1, n) for n in (1, 2, 3, 4, 6, 8, 10, 12)} <= sizes
    assert {("plate", 2, n) for n in (2, 3, 4, 6, 8, 10, 12, 14, 16)} <= sizes
    assert {("plate", a, b) for a, b in ((4, 4), (4, 6), (4, 8), (6, 6), (6, 8), (8, 8))} <= sizes
    assert {("tile", 1, n) for n in (1, 2, 3, 4, 6, 8)} | {("tile", 2, 2)} <= sizes
    assert has_part("2456") and catalogue_part("2456").title == "Brick  2 x  6"
    assert len(catalogue_part("2456").studs) == 12 and len(catalogue_part("3070b").studs) == 0


def test_library_wins_and_catalogue_fills_in(ldraw_dir, tmp_path):
    assert get_part_mesh("3001.dat", ldraw_dir).source == "library"
    assert get_part_mesh("3626b.dat", ldraw_dir).source == "catalogue"  # not in the subset
    empty = tmp_path / "emptylib"
    (empty / "parts").mkdir(parents=True)
    assert get_part_mesh("3001.dat", empty).source == "catalogue"
    assert get_part_mesh("99999.dat", empty).missing


def test_guard_tower_without_library(monkeypatch):
    monkeypatch.delenv("LDRAWDIR", raising=False)
    m = load_model(GUARD_TOWER)
    _check_guard_tower(m)
    assert {pm.source for pm in m.parts.values()} == {"catalogue"}


def test_guard_tower_with_library(ldraw_dir):
    m = load_model(GUARD_TOWER, ldraw_dir)
    _check_guard_tower(m)
    assert m.parts["3001.dat"].source == "library"


def _check_guard_tower(m):
    info = model_info(m)
    assert info["warnings"] == [] and info["missing_parts"] == 0
    assert all(has_part(p) for p in m.distinct_parts)
    (lo, hi) = np.array(info["bbox_in"])
    assert 10.0 < hi[0] - lo[0] < 14.0  # ~12" of wall
    assert lo[2] == pytest.approx(0.0, abs=1e-9)  # stands on the ground
    assert 4.0 < hi[2] < 7.0  # tower + minifig
    # the minifig is on top: its head is the highest part
    head = [p for p in m.placements if p.part == "3626b.dat"]
    assert len(head) == 1 and head[0].world_matrix[2, 3] == max(
        p.world_matrix[2, 3] for p in m.placements)
    torso = [p for p in m.placements if p.part == "973.dat"]
    assert torso[0].colour == 4  # red
    assert {p.colour for p in m.placements if p.part == "3001.dat"} == {71}
    mesh = model_mesh(m)
    assert mesh.n_triangles > 1000 and len(mesh.vertices) % 3 == 0
    boxes = placement_boxes(m)
    assert len(boxes) == len(m.placements)
