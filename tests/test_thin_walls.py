"""A thin wall turned on the table stops fast shots (issue 28, item 9): the anti-tunnelling
guard's rays start on the shot's own boxes, and the impact step is sub-stepped so a shot that
meets the wall with a corner and spins does not carry its other corners through."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sandbox.physics.world import BoxShape, PhysicsWorld

WALL_HALF = (0.063, 3.0, 2.0)  # a 0.126" wall, 6" long, 4" high
SHOT_HALF = (0.16, 0.16, 0.19)  # a 1x1 brick
YAWS = (0, 10, 33, 45, 60, 90)
SPEEDS = (60, 200, 600, 1200)


def _rot(deg: float) -> np.ndarray:
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _shot(wall_yaw: float, speed: float, flight_yaw: float, shot_yaw: float) -> tuple:
    """A shot fired from 3" in front of the wall; returns (how far past the wall's middle
    plane its centre ended, inches, and the impacts with the wall)."""
    w = PhysicsWorld(gravity=0.0)
    try:
        wall = _rot(wall_yaw)
        centre = np.array([0.0, 0.0, 2.0])
        w.add_compound("wall", [BoxShape(tuple(centre), WALL_HALF, tuple(map(tuple, wall)),
                                         100.0)], static=True)
        normal = wall @ np.array([1.0, 0.0, 0.0])
        d = _rot(flight_yaw) @ np.array([1.0, 0.0, 0.0])
        start = centre - 3.0 * d / float(d @ normal)  # 3" before the wall along the normal
        w.add_compound("shot", [BoxShape(tuple(start), SHOT_HALF,
                                         tuple(map(tuple, _rot(shot_yaw))), 2.0)])
        w.set_velocity("shot", d * speed)
        impacts = []
        for _ in range(int(8.0 / speed / w.time_step) + 60):
            impacts += [e for e in w.step() if {e.body_a, e.body_b} == {"shot", "wall"}]
        pos, _ = w.pose("shot")
        return float((pos - centre) @ normal), impacts
    finally:
        w.close()


@pytest.mark.parametrize("wall_yaw", YAWS)
def test_a_thin_wall_at_any_yaw_stops_shots_from_60_to_1200_in_s(wall_yaw):
    passed = []
    for speed in SPEEDS:
        # fired square at the wall (the shot turned with it), at the wall turned under a shot
        # flying along x (corner first), and a shot turned askew to both
        for flight, shot in ((wall_yaw, wall_yaw), (0, 0), (wall_yaw, wall_yaw + 17)):
            if abs(math.cos(math.radians(flight - wall_yaw))) < 0.2:
                continue  # flying along the wall: it never meets it
            past, impacts = _shot(wall_yaw, speed, flight, shot)
            if past > 0 or not impacts:
                passed.append((speed, flight, shot, round(past, 2), len(impacts)))
    assert not passed, f"wall yawed {wall_yaw}: shots through it or without impact: {passed}"
