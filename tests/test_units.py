"""The one place where LDU and LDraw's -Y-up frame become world inches, Z up."""

import numpy as np
import pytest

from sandbox.core import units


def test_ldu_inch_constants():
    # 1 LDU = 0.4 mm; 25.4 mm per inch.
    assert units.INCH_PER_LDU == pytest.approx(0.4 / 25.4)
    assert units.ldu_to_inch(63.5) == pytest.approx(1.0)
    assert units.inch_to_ldu(1.0) == pytest.approx(63.5)
    # A 2x4 brick is 80 x 40 x 24 LDU = 1.26 x 0.63 x 0.378 inches.
    np.testing.assert_allclose(units.ldu_to_inch(np.array([80, 40, 24])),
                               [1.2598, 0.6299, 0.37795], atol=1e-4)


def test_gravity_in_inches():
    assert units.GRAVITY_IN_S2 == pytest.approx(386.0886, abs=1e-3)


def test_ldraw_up_becomes_world_up():
    # LDraw -Y is up; world +Z is up.
    up = units.ldraw_points_to_world([0.0, -63.5, 0.0])
    np.testing.assert_allclose(up, [0, 0, 1.0], atol=1e-12)
    # LDraw +X stays +X; LDraw +Z becomes world +Y.
    np.testing.assert_allclose(units.ldraw_points_to_world([63.5, 0, 0]), [1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(units.ldraw_points_to_world([0, 0, 63.5]), [0, 1, 0], atol=1e-12)


def test_rotation_is_proper_so_winding_is_kept():
    assert np.linalg.det(units.LDRAW_TO_WORLD_ROT) == pytest.approx(1.0)


def test_round_trip_points():
    rng = np.random.default_rng(3)
    pts = rng.normal(size=(50, 3)) * 100
    np.testing.assert_allclose(units.world_points_to_ldraw(units.ldraw_points_to_world(pts)),
                               pts, atol=1e-9)


def test_transform_conversion_matches_point_conversion():
    # A part placed at (20, -24, 40) LDU, turned 90 degrees about LDraw's Y axis.
    m = np.eye(4)
    m[:3, :3] = [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]
    m[:3, 3] = [20, -24, 40]
    local = np.array([[10.0, -4.0, 3.0], [0, 0, 0], [-7, 2, 5]])
    ldraw_world = local @ m[:3, :3].T + m[:3, 3]
    expected = units.ldraw_points_to_world(ldraw_world)
    w = units.ldraw_transform_to_world(m)
    got = units.ldraw_points_to_world(local) @ w[:3, :3].T + w[:3, 3]
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_transform_shape_checked():
    with pytest.raises(ValueError, match="4, 4"):
        units.ldraw_transform_to_world(np.eye(3))
