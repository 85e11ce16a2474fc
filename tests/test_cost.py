"""Issue 21: resting bodies sleep (opt-in) and wake on what touches them; the per-step work
skips nothing that changes results; a model meshed once per game gives identical assets."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sandbox.engine.assets import build_asset
from sandbox.engine.scene import scene_from_dict
from sandbox.physics.world import REST_HOLD_S, BoxShape, PhysicsWorld

EYE = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
HALF = (0.3125, 0.625, 0.189)
REPO = Path(__file__).resolve().parents[1]


def _world(sleeping: bool) -> PhysicsWorld:
    w = PhysicsWorld(sleeping=sleeping)
    w.add_ground(20, 20)
    w.add_compound("brick", [BoxShape((0.0, 0.0, HALF[2] + 0.05), HALF, EYE, 2.3)])
    return w


def test_a_resting_brick_falls_asleep_only_when_sleeping_is_on():
    with _world(True) as on, _world(False) as off:
        for w in (on, off):
            for _ in range(int(3.0 / w.time_step)):
                w.step()
        lin, ang = on.velocity("brick")
        assert not lin.any() and not ang.any()  # asleep: exactly still
        lin, ang = off.velocity("brick")
        assert lin.any() or ang.any()  # awake: Bullet's last micro-drift
        assert on.is_at_rest() and off.is_at_rest()


def test_a_sleeping_brick_wakes_when_thrown_and_its_landing_is_an_impact():
    with _world(True) as w:
        for _ in range(int(3.0 / w.time_step)):
            w.step()
        assert all(w.step() == [] for _ in range(50))  # asleep: no new contacts
        pos0, _ = w.pose("brick")
        w.set_velocity("brick", (0.0, 0.0, 60.0))
        events = w.step_until_rest(max_seconds=3.0, min_seconds=0.05)
        assert any(e.body_a == "brick" and e.body_b == "ground" and e.normal_speed > 30
                   for e in events)
        pos1, _ = w.pose("brick")
        assert abs(pos1[2] - pos0[2]) < 0.05  # back on the table


def test_a_falling_brick_lands_on_a_sleeping_one_and_both_are_reported():
    with _world(True) as w:
        for _ in range(int(3.0 / w.time_step)):
            w.step()
        w.add_compound("top", [BoxShape((0.0, 0.0, 3.0), HALF, EYE, 2.3)])
        events = w.step_until_rest(max_seconds=3.0, min_seconds=0.05)
        hits = {(e.body_a, e.body_b) for e in events}
        assert ("top", "brick") in hits
        top, _ = w.pose("top")
        assert top[2] > 2 * HALF[2]  # resting on the brick, not through it


def test_the_same_model_twice_is_meshed_once_and_identical():
    spec = scene_from_dict({
        "name": "two towers", "battlefield": {"width": 40, "depth": 20},
        "creations": [
            {"id": f"t{i}", "model": "../models/guard_tower.mpd", "submodel": "guard.ldr",
             "position": [6.0 * i - 3.0, 0.0, 0.0]} for i in range(2)],
    })
    cache: dict = {}
    a, b = (build_asset(e, REPO / "scenes", cache=cache) for e in spec.creations)
    fresh = build_asset(spec.creations[1], REPO / "scenes")
    assert sum(1 for k in cache if isinstance(k, tuple) and k[0] == "asset") == 1
    for field in ("vertices", "normals", "colours", "placement_index"):
        assert np.array_equal(getattr(b, field), getattr(fresh, field)), field
    assert b.boxes == fresh.boxes and b.name == "t1" and a.name == "t0"
    assert not np.array_equal(a.vertices, b.vertices)  # each placed where its entry says


def test_a_resting_table_sleeps_and_its_steps_make_no_bullet_call():
    """Issue 26: once every body has rested 2 s the table sleeps: a step only counts time
    (no stepSimulation, no per-body read) until something touches the world."""
    with _world(True) as w:
        for _ in range(int(2.5 / w.time_step)):
            w.step()
        assert w.dormant
        calls = []
        w._step_simulation = lambda: calls.append("step")
        w._get_velocity = lambda uid: calls.append("velocity") or ((0.0,) * 3, (0.0,) * 3)
        w._get_pose = lambda uid: calls.append("pose") or ((0.0,) * 3, (0.0, 0.0, 0.0, 1.0))
        t0 = w.time
        for _ in range(100):
            assert w.step() == []
        assert w.is_at_rest()
        w.poses(), w.poses()  # read once after the table fell asleep, then kept
        assert calls.count("step") == 0 and calls.count("velocity") == 0
        assert calls.count("pose") <= 2  # ground and brick, once
        assert abs(w.time - t0 - 100 * w.time_step) < 1e-9


def test_a_snapshot_keeps_the_sleep_state_so_a_restore_steps_on_exactly():
    """The world's own sleep state (rest clocks, asleep) is in its snapshots: going back to a
    moment before the table fell asleep and stepping on gives the same poses, bit for bit, as
    a world that never went further."""
    with _world(True) as a, _world(True) as b:
        for w in (a, b):
            for _ in range(int(1.5 / w.time_step)):
                w.step()
        snap = a.snapshot()
        for _ in range(int(1.5 / a.time_step)):
            a.step()
        assert a.dormant and not b.dormant
        assert a.restore(snap)
        a.forget(snap)
        assert not a.dormant
        b.canonicalize()  # as the game does at every action boundary, on every path
        for w in (a, b):
            w.set_velocity("brick", (0.0, 0.0, 40.0))
            for _ in range(int(3.0 / w.time_step)):
                w.step()
        assert a.dormant and b.dormant
        assert a.poses() == b.poses()


def test_placing_creations_moves_no_vertex_and_identical_creations_share_one_mesh():
    """Issue 26: a creation is its parts' shared mesh plus noted moves; the world and body
    frame arrays are made on first read (the same numbers as moving them at once)."""
    spec = scene_from_dict({
        "name": "two towers", "battlefield": {"width": 40, "depth": 20},
        "creations": [
            {"id": f"t{i}", "model": "../models/guard_tower.mpd", "submodel": "guard.ldr",
             "position": [6.0 * i - 3.0, 0.0, 0.0]} for i in range(2)],
    })
    cache: dict = {}
    a, b = (build_asset(e, REPO / "scenes", cache=cache) for e in spec.creations)
    assert a.__dict__["_v"] is b.__dict__["_v"]  # one mesh, not moved yet
    assert a.__dict__["_ops"] and b.__dict__["_ops"]
    lo, hi = b.bounds()  # from the shared mesh's bounds, exactly
    v = b.vertices  # now made, and kept
    assert np.array_equal(lo, v.min(axis=0)) and np.array_equal(hi, v.max(axis=0))
    assert a.__dict__["_v"] is not v and not a.__dict__.get("_local")
    b.attach(np.array([1.0, 2.0, 3.0]), np.eye(3))
    assert b.__dict__["_local"] is None  # the body frame too: made on first read
    assert np.array_equal(b.local_vertices, ((v - np.array([1.0, 2.0, 3.0])) @ np.eye(3))
                          .astype(np.float32))


def test_a_sleeping_table_records_the_same_replay_as_recording_every_pose():
    import sandbox

    games = [sandbox.open_game(REPO / "scenes" / "skirmish.toml") for _ in range(2)]
    a, b = games
    # b records every frame in full (the recorder itself skips bodies that did not move)
    b.record_frame = lambda force=False: b.recorder.record(
        b.world.poses(b._recorded_keys()), force=force, time=b.world.time)
    try:
        for g in games:
            for _ in range(int(3.0 / g.world.time_step)):
                g.step()
        assert a.world.dormant and b.world.dormant
        assert a.recorder.times == b.recorder.times and a.recorder.frame == b.recorder.frame
        for key, tr in a.recorder.tracks.items():
            other = b.recorder.tracks[key]
            assert (tr.frames, tr.positions, tr.quats, tr.spans) == (
                other.frames, other.positions, other.quats, other.spans)
    finally:
        for g in games:
            g.close()


def test_a_settle_reads_each_body_once_a_step_and_ends_as_step_by_step_does():
    """Issue 26: step_until_rest hands its rest check's speeds to the next step (nothing
    runs between them), so a settle reads every movable body's speeds once a step, not
    twice; it ends at the same step with the same poses, bit for bit, as stepping and
    checking the rest one call at a time."""
    def table() -> PhysicsWorld:
        w = PhysicsWorld()
        w.add_ground(20, 20)
        for i in range(4):
            w.add_compound(f"b{i}", [BoxShape((i * 1.5, 0.0, HALF[2] + 0.4 + 0.2 * i), HALF,
                                              EYE, 2.3)])
        w.set_velocity("b1", (3.0, 0.0, 0.0), (0.0, 0.0, 2.0))
        return w

    with table() as a, table() as b:
        reads = []
        real = a._get_velocity
        a._get_velocity = lambda uid: reads.append(uid) or real(uid)
        a.step_until_rest(max_seconds=3.0, impacts=False)
        # the old way: a step, then a rest check reading every body again
        rest = 0
        hold = max(1, int(round(REST_HOLD_S / b.time_step)))
        while b.time < 3.0 - 1e-12:
            b.step(False)
            rest = rest + 1 if b.is_at_rest() else 0
            if rest >= hold:
                break
        b._fetch_pairs()
        assert a.steps == b.steps and a.steps < int(3.0 / a.time_step)  # came to rest
        assert a.poses() == b.poses()
        movable = 4
        assert len(reads) <= (a.steps + 1) * movable  # once a body and step (was twice)


def test_model_vertices_are_the_mesh_vertices_bit_for_bit():
    """Issue 26: a submodel kept where its model puts it is set down by the whole model's
    bounds, now from model_vertices (no normals or colours): the same float32 vertices, in
    the same order, as model_mesh's, for whole models and a subset of their parts."""
    from sandbox.bricks.mesh import model_mesh, model_vertices
    from sandbox.bricks.model import load_model

    for name in ("guard_tower.mpd", "wall_demolition.mpd", "knight.ldr"):
        model = load_model(REPO / "models" / name)
        for pls in (None, list(model.placements)[::3]):
            want = model_mesh(model, pls).vertices
            got = model_vertices(model, pls)
            assert got.dtype == want.dtype and got.shape == want.shape and len(got) > 0
            assert got.tobytes() == want.tobytes(), name
