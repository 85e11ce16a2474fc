"""Issue 21: resting bodies sleep (opt-in) and wake on what touches them; the per-step work
skips nothing that changes results; a model meshed once per game gives identical assets."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sandbox.engine.assets import build_asset
from sandbox.engine.scene import scene_from_dict
from sandbox.physics.world import BoxShape, PhysicsWorld

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
