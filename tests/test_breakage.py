"""Stud connectivity, splitting bodies, per-part blast distances and KnockBack calibration."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from sandbox.bricks.connectivity import connection_graph, pieces
from sandbox.bricks.model import load_model
from sandbox.engine.assets import _asset_from_model, _select_submodel, build_part_asset
from sandbox.physics.breakage import (
    PiecePlan,
    boxes_now,
    knockback_velocity,
    part_distances,
    split_body,
)
from sandbox.physics.world import PhysicsWorld

ROOT = Path(__file__).resolve().parents[1]
LDRAW = ROOT.parent / "shared" / "ldraw"


def inline(tmp_path, lines):
    p = tmp_path / "m.ldr"
    p.write_text("0 test\n0 Name: m.ldr\n" + "\n".join(lines) + "\n")
    return load_model(p)


def test_two_stacked_2x4_bricks_share_eight_studs_and_offset_four(tmp_path):
    m = inline(tmp_path, ["1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat",
                          "1 4 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat",
                          "1 4 40 -48 0 1 0 0 0 1 0 0 0 1 3001.dat",
                          "1 4 300 0 0 1 0 0 0 1 0 0 0 1 3001.dat"])
    g = connection_graph(m)
    assert g[0][1]["studs"] == 8 and g[1][2]["studs"] == 4
    assert not g.has_edge(0, 2)
    assert pieces(g) == [[0, 1, 2], [3]]
    assert pieces(g, {1}) == [[0], [2], [3]]


def test_bricks_side_by_side_are_not_connected(tmp_path):
    m = inline(tmp_path, ["1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat",
                          "1 4 80 0 0 1 0 0 0 1 0 0 0 1 3001.dat",
                          "1 4 40 -24 0 1 0 0 0 1 0 0 0 1 3001.dat"])
    g = connection_graph(m)
    assert sorted(g.edges) == [(0, 2), (1, 2)]  # held together only by the brick on top


def test_wall_demolition_tower_hangs_on_one_brick():
    m = load_model(ROOT / "models" / "wall_demolition.mpd")
    pls = _select_submodel(m, "blast_wall.ldr", "test")
    g = connection_graph(m, pls)
    assert pieces(g) == [list(range(len(pls)))]
    # the top-course 2x4 under Reale's tower (LDraw x = -240, y = -192)
    under = [i for i, p in enumerate(pls) if p.part == "3001.dat"
             and np.allclose(p.matrix[:3, 3], [-240, -192, 0])]
    assert len(under) == 1
    split = pieces(g, set(under))
    assert [len(c) for c in split] == [len(pls) - 31, 30]  # the tower: 24 bricks, 2 plates, 4


@pytest.mark.skipif(not LDRAW.is_dir(), reason="needs ../shared/ldraw")
def test_library_studs_connect_the_guard_tower_model():
    m = load_model(ROOT / "models" / "guard_tower.mpd", ldrawdir=LDRAW)
    pls = _select_submodel(m, "wall_and_tower.ldr", "test")
    g = connection_graph(m, pls)
    # two wall sections and the tower standing between them, not interlocked
    assert [len(c) for c in pieces(g)] == [56, 28, 28]


def _stack_world():
    m = load_model(ROOT / "models" / "wall_demolition.mpd")
    asset = _asset_from_model(m, "wall", _select_submodel(m, "blast_wall.ldr", "t"))
    w = PhysicsWorld()
    w.add_ground(40, 40)
    w.add_compound("wall", asset.boxes)
    return w, asset


def test_split_keeps_mass_and_the_velocity_of_the_material():
    w, asset = _stack_world()
    try:
        w.set_velocity("wall", [1.0, 2.0, 30.0], [0.0, 0.0, 2.0])
        com, _ = w.pose("wall")
        total = w.bodies["wall"].mass
        tags = [b.tag for b in asset.boxes]
        left = tuple(t for t in tags if asset.boxes[t].centre[0] < 0)
        right = tuple(t for t in tags if asset.boxes[t].centre[0] >= 0)
        before = {b.tag: np.array(b.centre) for b in boxes_now(w, "wall", asset.boxes)}
        new = split_body(w, "wall", asset.boxes, [PiecePlan("L", left), PiecePlan("R", right)])
        assert "wall" not in w.bodies
        assert math.isclose(new["L"].mass + new["R"].mass, total, rel_tol=1e-9)
        for key in ("L", "R"):
            lin, ang = w.velocity(key)
            expect = np.array([1.0, 2.0, 30.0]) + np.cross([0, 0, 2.0], new[key].frame_origin - com)
            assert np.allclose(lin, expect, atol=1e-6) and np.allclose(ang, [0, 0, 2.0])
        # the pieces start exactly where their parts were
        for b in boxes_now(w, "L", [asset.boxes[t] for t in left]):
            assert np.allclose(b.centre, before[b.tag], atol=1e-9)
        with pytest.raises(ValueError, match="no parts tagged"):
            split_body(w, "L", [asset.boxes[t] for t in left], [PiecePlan("X", (right[0],))])
    finally:
        w.close()


def test_part_distances_are_to_box_surfaces_and_match_the_physics_query():
    w, asset = _stack_world()
    try:
        p = np.array([0.0, -3.0, 1.0])
        d = part_distances(w, "wall", asset.boxes, p)
        assert math.isclose(min(d.values()), 3.0 - 20 * 0.4 / 25.4, abs_tol=1e-6)  # front face
        probe = w.closest_distance("wall", p, 10.0)
        assert abs(probe - min(d.values())) < 0.05  # pybullet adds a collision margin
        inside = part_distances(w, "wall", asset.boxes, [0.0, 0.0, 0.1])
        assert min(inside.values()) == 0.0
    finally:
        w.close()


def test_knockback_velocity_throws_straight_up_to_the_height():
    g = 386.09
    v = knockback_velocity([0, 0, 5], 2.0, g)
    assert np.allclose(v[:2], 0) and math.isclose(v[2] ** 2 / (2 * g), 2.0, rel_tol=1e-9)
    assert np.allclose(knockback_velocity([1, 0, 0], 0.0, g), 0)
    with pytest.raises(ValueError):
        knockback_velocity([0, 0, 0], 1.0, g)


def _thrown_distance(kind, inches, yaw_deg):
    if kind == "brick":
        a = build_part_asset("3001", 4)
    else:
        m = load_model(ROOT / "models" / "wall_demolition.mpd")
        a = _asset_from_model(m, "minifig", _select_submodel(m, "reale.ldr", "t"))
    lo, hi = a.bounds()
    c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    a.transform(np.eye(3), [-(lo[0] + hi[0]) / 2, -(lo[1] + hi[1]) / 2, -lo[2]])
    a.transform(np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]), [0, 0, 0])
    with PhysicsWorld() as w:
        w.add_ground(60, 60)
        w.add_compound("x", a.boxes)
        w.step_until_rest(1.0)
        p0, _ = w.pose("x")
        blast = np.array([-1.0, 0.0, 0.0])  # on the ground, 1" to the side
        w.set_velocity("x", knockback_velocity(p0 - blast, inches, w.gravity))
        w.step_until_rest(5.0, min_seconds=0.05)
        p1, _ = w.pose("x")
    return float(np.hypot(*(p1 - p0)[:2]))


@pytest.mark.parametrize("inches", [1.0, 3.0])
def test_knockback_on_flat_ground_lands_about_that_far(inches):
    """Calibration (BrikWars 8.1): stated tolerances. A 2x4 brick slides to within 15% + 0.1";
    a minifig tumbles: each throw within [0.8 d, d + 1.3"] (falling over adds up to most of its
    1.5" height), the mean of four headings within 30%."""
    brick = _thrown_distance("brick", inches, 0.0)
    assert abs(brick - inches) <= 0.15 * inches + 0.1
    figs = [_thrown_distance("minifig", inches, yaw) for yaw in (0, 30, 60, 90)]
    assert all(0.8 * inches <= d <= inches + 1.3 for d in figs), figs
    assert abs(np.mean(figs) - inches) <= 0.3 * inches + 0.3, figs
