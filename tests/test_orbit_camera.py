"""The one orbit camera of the tabletop and the replay viewer (pure state)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sandbox.render.orbit_camera import TOP_ELEVATION, OrbitCamera


def test_eye_is_at_distance_azimuth_and_elevation():
    cam = OrbitCamera(np.array([1.0, 2.0, 0.0]), 10.0, azimuth=0.0, elevation=0.0,
                      min_elevation=0.0)
    assert np.allclose(cam.eye(), [1.0, -8.0, 0.0])  # azimuth 0: from the front (-Y)
    cam.orbit(90.0, 0.0)
    assert np.allclose(cam.eye(), [11.0, 2.0, 0.0])
    cam.elevation = 30.0
    assert np.linalg.norm(cam.eye() - cam.target) == pytest.approx(10.0)
    assert cam.eye()[2] == pytest.approx(10.0 * math.sin(math.radians(30.0)))


def test_limits_differ_per_window():
    table = OrbitCamera()  # the tabletop: 5..89.9 degrees, 2..400 inches
    table.orbit(-370.0, -100.0)
    table.zoom(1e6)
    assert (table.azimuth, table.elevation, table.distance) == (20.0, 5.0, 400.0)
    table.orbit(0.0, 500.0)
    assert table.elevation == TOP_ELEVATION
    replay = OrbitCamera(np.zeros(3), 50.0, min_elevation=3.0, max_elevation=89.0,
                         max_distance=2000.0)
    replay.orbit(0.0, -100.0)
    replay.zoom(1e6)
    assert (replay.elevation, replay.distance) == (3.0, 2000.0)
    replay.zoom(1e-9)
    assert replay.distance == 2.0


def test_pan_along_the_table_and_across_the_view():
    cam = OrbitCamera(np.zeros(3), 20.0, azimuth=0.0, elevation=45.0)
    cam.pan(1.0, 0.0)  # half a distance to the right
    assert np.allclose(cam.target, [10.0, 0.0, 0.0])
    cam.pan(0.0, 1.0)  # and forward, along the table
    assert np.allclose(cam.target, [10.0, 10.0, 0.0])
    cam.pan_view(0.0, 0.5)  # up, in distances (the replay viewer)
    assert np.allclose(cam.target, [10.0, 10.0, 10.0])
    # yaw / pitch are the tabletop's names of the same angles
    cam.yaw, cam.pitch = 90.0, 30.0
    assert (cam.azimuth, cam.elevation) == (90.0, 30.0)
    cam.pan(1.0, 0.0)
    assert np.allclose(cam.target, [10.0, 20.0, 10.0])


def test_top_view_frames_the_table_and_toggles_back():
    cam = OrbitCamera(np.array([3.0, 4.0, 1.0]), 25.0, azimuth=40.0, elevation=30.0)
    assert cam.toggle_top(48.0, 24.0, 16 / 9) and cam.is_top
    assert (cam.azimuth, cam.elevation) == (0.0, TOP_ELEVATION)
    half_v = math.tan(math.radians(20.0))
    assert cam.distance == pytest.approx(max(12.0 / (0.6 * half_v), 24.0 / (0.6 * half_v * 16 / 9)))
    assert not cam.toggle_top(48.0, 24.0, 16 / 9) and not cam.is_top
    assert (cam.azimuth, cam.elevation, cam.distance) == (40.0, 30.0, 25.0)
    assert np.allclose(cam.target, [3.0, 4.0, 1.0])
    cam.focus([1.0, 1.0, 1.0])
    assert cam.distance == 14.0 and np.allclose(cam.target, 1.0)
