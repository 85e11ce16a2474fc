"""Break-up from the parent's data (issue 21): the same numbers as before, bit for bit."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from sandbox.core.transforms import quat_to_matrix
from sandbox.engine.assets import BodyAsset, PieceAsset, rigid_matrix
from sandbox.physics.breakage import boxes_now
from sandbox.physics.world import BoxShape, PhysicsWorld


def _rotation(rng) -> np.ndarray:
    q = rng.normal(size=4)
    return quat_to_matrix(q / np.linalg.norm(q))


def test_boxes_now_equals_the_box_by_box_formula():
    rng = np.random.default_rng(7)
    boxes = [BoxShape(tuple(rng.uniform(-3, 3, 3)), tuple(rng.uniform(0.1, 0.5, 3)),
                      tuple(map(tuple, _rotation(rng))), float(rng.uniform(0.5, 2)), i)
             for i in range(40)]
    with PhysicsWorld() as world:
        world.add_ground(40, 40)
        world.add_compound("b", boxes)
        for _ in range(3):
            q = rng.normal(size=4)
            world.set_pose("b", rng.uniform(-5, 5, 3), q / np.linalg.norm(q))
            body = world.bodies["b"]
            pos, orn = world.pose("b")
            m = quat_to_matrix(orn) @ body.frame_rotation.T
            want = [BoxShape(tuple(float(v) for v in m @ (np.asarray(b.centre) - body.frame_origin)
                                   + pos), b.half_extents,
                             tuple(map(tuple, m @ np.asarray(b.rotation))), b.mass, b.tag)
                    for b in boxes]
            assert boxes_now(world, "b", boxes) == want


def test_a_piece_mesh_is_the_parents_triangles_moved_bit_for_bit():
    rng = np.random.default_rng(3)
    n_tri = 50
    v = rng.uniform(-2, 2, (n_tri * 3, 3)).astype(np.float32)
    nrm = rng.normal(size=(n_tri * 3, 3)).astype(np.float32)
    col = rng.uniform(0, 1, (n_tri * 3, 4)).astype(np.float32)
    parent = BodyAsset("p", [], v, nrm, col, 5, placement_index=np.arange(n_tri) % 5,
                       model_frame=np.eye(4))
    parent.attach(rng.uniform(-1, 1, 3), _rotation(rng))
    r_old, pos = _rotation(rng), rng.uniform(-4, 4, 3)
    r_new, o_new = _rotation(rng), rng.uniform(-4, 4, 3)
    tri = np.array([1, 4, 5, 9, 30, 49])
    piece = PieceAsset("piece", [], 2, parent=parent, tri=tri, parent_rotation=r_old,
                       parent_position=pos, origin=o_new, rotation=r_new,
                       placement_index=parent.placement_index[tri])
    # the eager way (before issue 21): the whole parent mesh to the world, then the piece
    world_v = parent.local_vertices.astype(float) @ r_old.T + pos
    world_n = parent.local_normals.astype(float) @ r_old.T
    vsel = (tri[:, None] * 3 + np.arange(3)).reshape(-1)
    want = BodyAsset("w", [], world_v[vsel].astype(np.float32),
                     world_n[vsel].astype(np.float32), parent.local_colours[vsel], 2,
                     model_frame=rigid_matrix(r_old, pos))
    want.attach(o_new, r_new)
    assert "local_vertices" not in vars(piece)  # nothing made before it is read
    for name in ("vertices", "normals", "colours", "local_vertices", "local_normals",
                 "local_colours"):
        got, ref = getattr(piece, name), getattr(want, name)
        assert got.dtype == ref.dtype and np.array_equal(got, ref), name
    assert np.array_equal(piece.bounds(), want.bounds())


def test_a_body_asked_to_sleep_sleeps_once_it_rests_and_wakes_when_pushed():
    box = [BoxShape((0.0, 0.0, 0.2), (0.3, 0.3, 0.2), ((1, 0, 0), (0, 1, 0), (0, 0, 1)), 1.0)]
    with PhysicsWorld(sleeping=False) as world:
        world.add_ground(20, 20)
        rubble = world.add_compound("rubble", box, sleeping=True)
        piece = world.add_compound("piece", [replace(box[0], centre=(3.0, 0.0, 0.2))])
        assert rubble.sleeps and not piece.sleeps
        for _ in range(int(2.6 / world.time_step)):  # Bullet sleeps after 2 s at rest
            world.step()
        lin, ang = world.velocity("rubble")
        assert not lin.any() and not ang.any()  # asleep: exactly still
        world.set_velocity("rubble", (5.0, 0.0, 0.0))
        for _ in range(5):
            world.step()
        assert world.velocity("rubble")[0][0] > 1.0  # woken by the push


def test_compound_mass_properties_equal_the_box_by_box_sum():
    from sandbox.physics.world import _inertia_box, compound_mass_properties

    rng = np.random.default_rng(11)
    for n in (1, 2, 17, 120):
        boxes = [BoxShape(tuple(rng.uniform(-4, 4, 3)), tuple(rng.uniform(0.05, 0.6, 3)),
                          tuple(map(tuple, _rotation(rng))), float(rng.uniform(0.1, 3)), i)
                 for i in range(n)]
        mass, com, inertia = compound_mass_properties(boxes)
        want = np.zeros((3, 3))
        for b in boxes:  # the code before issue 21's second pass, box by box
            r = np.asarray(b.rotation, dtype=float)
            d = np.asarray(b.centre, dtype=float) - com
            want += (r @ _inertia_box(b.mass, np.asarray(b.half_extents, dtype=float)) @ r.T
                     + b.mass * (np.dot(d, d) * np.eye(3) - np.outer(d, d)))
        assert np.array_equal(inertia, want)


def test_boxes_in_a_body_frame_equal_the_box_by_box_formula():
    from sandbox.core.transforms import matrices_to_quats, matrix_to_quat
    from sandbox.physics.world import _boxes_in_frame

    rng = np.random.default_rng(5)
    boxes = [BoxShape(tuple(rng.uniform(-4, 4, 3)), tuple(rng.uniform(0.0, 0.6, 3)),
                      tuple(map(tuple, _rotation(rng))), 1.0, i) for i in range(300)]
    # axis-aligned parts as LDraw places them (every branch of the quaternion, exact zeros)
    for i, perm in enumerate([(0, 1, 2), (1, 0, 2), (2, 1, 0), (0, 2, 1), (1, 2, 0)]):
        m = np.zeros((3, 3))
        for r, c in enumerate(perm):
            m[r, c] = 1.0
        if np.linalg.det(m) < 0:
            m[2] = -m[2]
        boxes.append(BoxShape((float(i), 0.5, 0.2), (0.3, 0.2, 0.1), tuple(map(tuple, m)), 1.0))
    for rot in (_rotation(rng), np.eye(3)):
        origin = rng.uniform(-2, 2, 3)
        halfs, centres, quats = _boxes_in_frame(boxes, origin, rot)
        for b, h, c, q in zip(boxes, halfs, centres, quats, strict=True):
            assert h.tolist() == np.maximum(np.asarray(b.half_extents), 1e-3).tolist()
            assert c.tolist() == (rot.T @ (np.asarray(b.centre) - origin)).tolist()
            assert tuple(q.tolist()) == matrix_to_quat(rot.T @ np.asarray(b.rotation))
    ms = np.array([_rotation(rng) for _ in range(500)])
    assert [tuple(q) for q in matrices_to_quats(ms).tolist()] == [matrix_to_quat(m) for m in ms]


def test_pieces_find_their_triangles_on_first_need_and_get_each_part_they_hold():
    """Issue 26: a break does not sort the parent's triangles by piece; the first read of a
    piece's mesh or placement_index does, once for every piece of the break, and each piece
    gets exactly the triangles of its parts, ascending (those of destroyed parts go to their
    rubble)."""
    from pathlib import Path

    import sandbox

    repo = Path(__file__).resolve().parents[1]
    with sandbox.open_game(repo / "scenes" / "wall_demolition.toml") as game:
        parent = game.assets["wall"]
        parent_index = np.asarray(parent.placement_index)
        game.play_turns()
        pieces = {k: a for k, a in game.assets.items() if isinstance(a, PieceAsset)}
        assert len(pieces) > 2
        assert all(callable(vars(a)["_tri"]) for a in pieces.values())  # nothing sorted yet
        seen = []
        for key, asset in pieces.items():
            tags = game.world.bodies[key].child_tags
            want = np.flatnonzero(np.isin(parent_index, tags))
            assert np.array_equal(asset.placement_index, parent_index[want]), key
            assert np.array_equal(asset.triangles(), want), key
            assert len(asset.local_vertices) == 3 * len(want)
            seen.append(want)
        every = np.sort(np.concatenate(seen))
        assert np.array_equal(every, np.arange(len(parent_index)))  # each triangle once


def test_pieces_made_at_once_are_the_bodies_add_compound_makes_one_by_one():
    """PhysicsWorld.add_compounds (issue 26: a break's arithmetic for every piece at once)
    makes each body exactly as add_compound does: mass, body frame, pybullet's shapes and
    dynamics bit for bit, and the same motion afterwards; pieces of one box, of up to 16
    (one compound shape) and of more (the URDF path)."""
    from sandbox.physics.world import box_arrays

    rng = np.random.default_rng(26)
    boxes = [BoxShape(tuple(rng.uniform(-4, 4, 3) + (0, 0, 5)), tuple(rng.uniform(0.05, 0.6, 3)),
                      tuple(map(tuple, _rotation(rng))), float(rng.uniform(0.1, 3)), i)
             for i in range(160)]
    order = rng.permutation(len(boxes))
    groups = [order[a:b] for a, b in ((0, 1), (1, 17), (17, 18), (18, 60), (60, 61),
                                      (61, 70), (70, 160))]
    pieces = [(f"p{i}", [boxes[j] for j in g]) for i, g in enumerate(groups)]

    def state(w, b):
        c = w.client
        return (b.mass, b.frame_rotation.tolist(), b.frame_origin.tolist(), b.child_tags,
                c.getBasePositionAndOrientation(b.uid), c.getDynamicsInfo(b.uid, -1),
                c.getCollisionShapeData(b.uid, -1))

    for static in (False, True):
        with PhysicsWorld() as one, PhysicsWorld() as many:
            for w in (one, many):
                w.add_ground(40, 40)
            made_one = [one.add_compound(k, b, static=static) for k, b in pieces]
            made_many = many.add_compounds(pieces, box_arrays(boxes), groups, static=static)
            assert [state(one, b) for b in made_one] == [state(many, b) for b in made_many]
            for _ in range(60):
                one.step()
                many.step()
            assert one.poses() == many.poses()
    with PhysicsWorld() as w:
        w.add_compound("p0", pieces[0][1])
        try:
            w.add_compounds(pieces[:2], box_arrays(boxes), groups[:2])
        except ValueError as e:
            assert "p0" in str(e)
        else:
            raise AssertionError("an existing key must be refused")
