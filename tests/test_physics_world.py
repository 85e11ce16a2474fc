"""The pybullet world in inches: falls, impacts, mass properties, determinism."""

import math

import numpy as np
import pytest

from sandbox.core.units import GRAVITY_IN_S2, INCH_PER_LDU
from sandbox.physics.projectiles import set_collides
from sandbox.physics.world import (
    BoxShape,
    PhysicsWorld,
    compound_mass_properties,
    matrix_to_quat,
    quat_to_matrix,
)

BRICK_HALF = tuple(np.array([40.0, 20.0, 12.0]) * INCH_PER_LDU)  # a 2x4 brick's body, inches
EYE = tuple(map(tuple, np.eye(3)))


def drop_brick(height=10.0, xy=(1.0, 2.0)):
    w = PhysicsWorld()
    w.add_ground(36, 24)
    w.add_compound("brick", [BoxShape((xy[0], xy[1], height + BRICK_HALF[2]), BRICK_HALF, EYE,
                                      2.3)])
    events = w.step_until_rest(max_seconds=5)
    pos, quat = w.pose("brick")
    w.close()
    return events, pos, quat


def test_brick_dropped_from_10_inches_lands_below_and_hits_at_free_fall_speed():
    events, pos, _ = drop_brick(10.0)
    # Lands within 0.5" of the point below its release point, resting on the table.
    assert math.hypot(pos[0] - 1.0, pos[1] - 2.0) < 0.5
    assert pos[2] == pytest.approx(BRICK_HALF[2], abs=0.01)
    first = events[0]
    assert {first.body_a, first.body_b} == {"brick", "ground"}
    expected = math.sqrt(2 * GRAVITY_IN_S2 * 10.0)  # 87.9 in/s
    assert first.normal_speed == pytest.approx(expected, rel=0.02)
    # The impulse stops a 2.3 g brick: at least m*v, at most m*v*(1+restitution)+slack.
    assert 2.3 * expected * 0.95 < first.impulse < 2.3 * expected * 1.3


def test_impacts_scale_with_height():
    low, _, _ = drop_brick(2.0)
    high, _, _ = drop_brick(20.0)
    assert low[0].normal_speed == pytest.approx(math.sqrt(2 * GRAVITY_IN_S2 * 2.0), rel=0.03)
    assert high[0].normal_speed == pytest.approx(math.sqrt(2 * GRAVITY_IN_S2 * 20.0), rel=0.02)


def test_same_world_twice_is_bit_identical():
    a = drop_brick(7.0, (0.3, -0.2))
    b = drop_brick(7.0, (0.3, -0.2))
    assert [e.to_dict() for e in a[0]] == [e.to_dict() for e in b[0]]
    assert a[1].tolist() == b[1].tolist() and a[2].tolist() == b[2].tolist()


def test_compound_mass_properties_of_two_boxes():
    half = (0.5, 0.5, 0.5)
    boxes = [BoxShape((0, 0, 0), half, EYE, 1.0), BoxShape((2, 0, 0), half, EYE, 3.0)]
    m, com, inertia = compound_mass_properties(boxes)
    assert m == 4.0
    np.testing.assert_allclose(com, [1.5, 0, 0])
    # Ixx: two unit cubes, (m/12)(1+1) each; Iyy adds parallel-axis terms 1*1.5^2 + 3*0.5^2.
    assert inertia[0, 0] == pytest.approx(4 / 6)
    assert inertia[1, 1] == pytest.approx(4 / 6 + 1 * 1.5**2 + 3 * 0.5**2)


def test_compound_body_frame_is_centre_of_mass():
    w = PhysicsWorld()
    half = (0.5, 0.5, 0.5)
    body = w.add_compound("pair", [BoxShape((0, 0, 5), half, EYE, 1.0),
                                   BoxShape((2, 0, 5), half, EYE, 3.0)])
    pos, _ = w.pose("pair")
    np.testing.assert_allclose(pos, [1.5, 0, 5], atol=1e-9)
    assert body.mass == 4.0
    w.close()


def test_quaternion_round_trip():
    rng = np.random.default_rng(1)
    for _ in range(20):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        m = quat_to_matrix(q)
        q2 = np.array(matrix_to_quat(m))
        assert min(np.abs(q2 - q).max(), np.abs(q2 + q).max()) < 1e-9


def test_closest_distance_measures_to_surface_not_centre():
    w = PhysicsWorld()
    w.add_compound("wall", [BoxShape((0, 0, 1), (2.0, 0.25, 1.0), EYE, 10.0)], static=True)
    d = w.closest_distance("wall", (0, 3.25, 1), max_distance=10)
    assert d == pytest.approx(3.0, abs=0.05)  # 3.25 to the centre, 3.0 to the face
    assert w.closest_distance("wall", (0, 30, 1), max_distance=5) is None
    w.close()


def test_bad_inputs_raise():
    w = PhysicsWorld()
    with pytest.raises(ValueError):
        w.add_ground(0, 5)
    with pytest.raises(ValueError):
        w.add_compound("x", [])
    w.add_ground(10, 10)
    with pytest.raises(ValueError, match="already exists"):
        w.add_ground(10, 10)
    w.close()
    with pytest.raises(ValueError):
        PhysicsWorld(time_step=0)


def _bar(n):
    """A 10" x 1" x 1" bar of 100 g as ``n`` boxes side by side along X."""
    w = 10.0 / n
    return [BoxShape((-5 + w * (i + 0.5), 0, 4), (w / 2, 0.5, 0.5), EYE, 100.0 / n)
            for i in range(n)]


def _spin_response(boxes):
    w = PhysicsWorld(gravity=0.0)
    w.add_compound("bar", boxes)
    uid = w.bodies["bar"].uid
    # One step of torque about each axis: the angular velocity gained is torque*dt / I.
    w.client.applyExternalTorque(uid, -1, [0, 500.0, 700.0], w.client.WORLD_FRAME)
    w.step()
    _, ang = w.velocity("bar")
    pos, _ = w.pose("bar")
    w.close()
    return ang, pos


def test_more_than_16_boxes_are_one_rigid_body_with_the_right_inertia():
    # pybullet caps a compound shape at 16 children; 40 boxes go through fixed links.
    one_ang, one_pos = _spin_response(_bar(1))
    many_ang, many_pos = _spin_response(_bar(40))
    np.testing.assert_allclose(many_pos, one_pos, atol=1e-9)
    # I_yy = I_zz = m (a^2 + b^2) / 12 = 100 (100 + 1) / 12 for the whole bar.
    i_yy = 100 * (100 + 1) / 12
    dt = PhysicsWorld().time_step
    assert one_ang[1] == pytest.approx(500 * dt / i_yy, rel=1e-3)
    np.testing.assert_allclose(many_ang, one_ang, rtol=2e-3, atol=1e-9)


def test_many_box_body_falls_and_rests_flat():
    w = PhysicsWorld()
    w.add_ground(30, 30)
    w.add_compound("bar", _bar(40))
    w.step_until_rest(max_seconds=5)
    lo, hi = w.aabb("bar")
    pos, quat = w.pose("bar")
    assert pos[2] == pytest.approx(0.5, abs=0.02)
    assert abs(quat[3]) == pytest.approx(1.0, abs=1e-3)  # still level
    w.close()


def test_big_compounds_of_one_world_keep_their_own_boxes():
    """Bodies of more than 16 boxes go through a URDF file each; pybullet keeps files it read
    by name, so a file name used again (issue 26: one folder per world) must not give a body
    another's boxes."""
    from sandbox.physics.world import MAX_BOXES_PER_SHAPE

    eye = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    n = MAX_BOXES_PER_SHAPE + 4
    with PhysicsWorld() as w:
        for key, y, length in (("a", 0.0, 1.0), ("b", 10.0, 2.0), ("c", 20.0, 3.0)):
            boxes = [BoxShape((i * length, y, 1.0), (length / 2, 0.4, 0.4), eye, 1.0, i)
                     for i in range(n)]
            w.add_compound(key, boxes, static=True)
        for key, length in (("a", 1.0), ("b", 2.0), ("c", 3.0)):
            lo, hi = w.aabb(key)
            assert hi[0] - lo[0] == pytest.approx(n * length, abs=0.1)


def test_a_removed_bodys_switched_off_contacts_do_not_pass_to_the_next_body_with_its_id():
    """pybullet keeps ``setCollisionFilterPair`` settings by body id after the body is removed,
    and hands the freed id to the next body made. A Payload whose contacts with its Launcher
    are off (set_collides) and that then goes off must not pass that on: the blast piece made
    next (with the Payload's id) lands on the Launcher (its top at z = 1"), not through it on
    the table (before the fix: at z = 0.3", its half height)."""
    with PhysicsWorld() as w:
        w.add_ground(40, 40)
        w.add_compound("launcher", [BoxShape((0.0, 0.0, 0.5), (1.0, 1.0, 0.5), EYE, 10.0, 0)])
        w.add_compound("payload", [BoxShape((5.0, 0.0, 0.2), (0.2, 0.2, 0.2), EYE, 1.0, 0)])
        set_collides(w, "payload", "launcher", False)
        assert w.no_collide == {("launcher", "payload")}
        freed = w.bodies["payload"].uid
        w.remove("payload")
        assert w.no_collide == set()  # the world's own record forgets it too
        piece = w.add_compound("piece", [BoxShape((0.0, 0.0, 2.0), (0.3, 0.3, 0.3), EYE, 1.0,
                                                  0)])
        assert piece.uid == freed  # the case: pybullet reuses the id
        for _ in range(240):
            w.step()
        z = float(w.pose("piece")[0][2])
        assert z == pytest.approx(1.3, abs=0.02), f"the piece fell through the launcher: z={z}"
