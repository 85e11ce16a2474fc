"""Projectiles in flight: the ballistic launch solver and the pybullet side of flying Payloads.

Units and frames: inches, seconds, radians, Z up; gravity ``g`` = 386.09 in/s² straight down.
A trajectory is ``p(t) = p0 + v0 t - ½ g t² ẑ`` (no air drag: the world switches damping off).

Tunnelling (measured, see ``tests/test_projectiles_physics.py``)
----------------------------------------------------------------
pybullet applies continuous collision detection (``changeDynamics(ccdSweptSphereRadius=...)``)
only to maximal-coordinate rigid bodies (``btRigidBody`` in ``integrateTransforms``). Every body
of :class:`~sandbox.physics.world.PhysicsWorld` is a ``btMultiBody`` (``createMultiBody`` without
``useMaximalCoordinates``), and on those the CCD setting has no effect: a 0.4" block at
150 in/s passes through a 1/8" wall at the 1/480 s step with or without it. So flying Payloads
use a *swept ray guard* instead (:func:`guard_step`): before each step, 27 rays from a 3 x 3 x 3
grid over the body's bounds (corners, edge and face centres, centre; just inside the body) are
cast along this step's displacement; when one meets
another body, the Payload is moved forward to just short of that surface. Bullet detects
contacts at the start of a step (before it integrates positions), so the contact is in the
solver and the Payload stops at the wall instead of stepping through it. The guard is a
teleport along the Payload's own path, never sideways, so it changes no trajectory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from ..core.errors import RulesError
from ..core.units import GRAVITY_IN_S2, Vec
from .world import GUARD_GAP_IN, PhysicsWorld, pybullet  # noqa: F401 (GUARD_GAP_IN re-exported)

#: Highest launch speed the game uses (in/s); the no-tunnelling test flies at this speed.
MAX_LAUNCH_SPEED_IN_S: float = 1200.0


@dataclass(frozen=True)
class Launch:
    """One solution of the launch problem.

    Attributes
    ----------
    velocity : (3,) float
        Muzzle velocity, in/s, world frame.
    speed : float
        in/s.
    elevation : float
        Radians above the horizontal.
    flight_time : float
        Seconds from the muzzle to the aim point.
    arc : str
        ``"low"``, ``"high"`` or ``"minimum"`` (the least-speed shot).
    """

    velocity: tuple[float, float, float]
    speed: float
    elevation: float
    flight_time: float
    arc: str

    def to_dict(self) -> dict:
        return {"velocity": [round(v, 6) for v in self.velocity], "speed": round(self.speed, 6),
                "elevation_deg": round(math.degrees(self.elevation), 4),
                "flight_time": round(self.flight_time, 6), "arc": self.arc}


def _split(origin: Sequence[float], target: Sequence[float]) -> tuple[np.ndarray, float, float]:
    o = np.asarray(origin, dtype=float).reshape(3)
    t = np.asarray(target, dtype=float).reshape(3)
    if not (np.all(np.isfinite(o)) and np.all(np.isfinite(t))):
        raise RulesError(f"launch points must be finite inches, got {o.tolist()} -> {t.tolist()}")
    d = t - o
    horiz = float(math.hypot(d[0], d[1]))
    if horiz < 1e-9:
        raise RulesError(f"aim point {t.tolist()} is straight above or below the muzzle "
                         f"{o.tolist()}: no arc to solve")
    return d[:2] / horiz, horiz, float(d[2])


def _make(direction: np.ndarray, speed: float, elevation: float, horiz: float, arc: str) -> Launch:
    c, s = math.cos(elevation), math.sin(elevation)
    v = (float(direction[0] * speed * c), float(direction[1] * speed * c), float(speed * s))
    return Launch(v, float(speed), float(elevation), horiz / (speed * c), arc)


def flat_range(speed: float, elevation: float, g: float = GRAVITY_IN_S2) -> float:
    """Range on level ground (inches) of a shot at ``speed`` in/s and ``elevation`` radians.

    The closed form ``R = v² sin(2θ) / g``.

    Examples
    --------
    >>> round(flat_range(100.0, math.radians(45)), 3)
    25.9
    """
    return float(speed) ** 2 * math.sin(2.0 * float(elevation)) / float(g)


def solve_launch(origin: Vec, target: Vec, speed: float,
                 g: float = GRAVITY_IN_S2) -> list[Launch]:
    """Launches at a fixed muzzle speed that pass through ``target``: low arc first, then high.

    ``tan θ = (v² ∓ sqrt(v⁴ - g (g d² + 2 h v²))) / (g d)`` with ``d`` the horizontal distance
    and ``h`` the height of the target above the muzzle (BrikWars 8.4 Trajectories: Launchers
    and Cannons fire in parabolic arcs).

    Parameters
    ----------
    origin, target : (3,) float
        Muzzle and aim point, inches.
    speed : float
        Muzzle speed, in/s (> 0).

    Returns
    -------
    list of Launch
        Two solutions (low, high), one when they coincide, none when out of reach.

    Raises
    ------
    RulesError
        For a non-positive speed or an aim point straight above or below the muzzle.
    """
    if not (speed > 0 and math.isfinite(speed)):
        raise RulesError(f"muzzle speed must be > 0 in/s, got {speed!r}")
    direction, d, h = _split(origin, target)
    v2 = float(speed) ** 2
    disc = v2 * v2 - g * (g * d * d + 2.0 * h * v2)
    if disc < 0:
        return []
    root = math.sqrt(disc)
    low = math.atan2(v2 - root, g * d)
    high = math.atan2(v2 + root, g * d)
    if root < 1e-9:
        return [_make(direction, speed, low, d, "minimum")]
    return [_make(direction, speed, low, d, "low"), _make(direction, speed, high, d, "high")]


def launch_at_elevation(origin: Sequence[float], target: Sequence[float], elevation: float,
                        g: float = GRAVITY_IN_S2) -> Launch:
    """The launch at a fixed elevation (radians) that passes through ``target``.

    ``v² = g d² / (2 cos²θ (d tanθ - h))``.

    Raises
    ------
    RulesError
        When that elevation cannot reach the target (it would have to rise along a line
        steeper than the barrel).
    """
    direction, d, h = _split(origin, target)
    c = math.cos(elevation)
    denom = 2.0 * c * c * (d * math.tan(elevation) - h)
    if not (-math.pi / 2 < elevation < math.pi / 2) or denom <= 0:
        raise RulesError(f"an elevation of {math.degrees(elevation):.1f} deg cannot reach a "
                         f"target {d:.2f}\" away and {h:+.2f}\" up")
    speed = math.sqrt(g * d * d / denom)
    return _make(direction, speed, elevation, d, "high" if elevation > math.pi / 4 else "low")


def minimum_speed_launch(origin: Vec, target: Vec,
                         g: float = GRAVITY_IN_S2) -> Launch:
    """The least-speed launch through ``target``: ``v² = g (h + sqrt(h² + d²))``."""
    direction, d, h = _split(origin, target)
    v2 = g * (h + math.hypot(h, d))
    speed = math.sqrt(v2)
    elevation = math.atan2(v2, g * d)
    return _make(direction, speed, elevation, d, "minimum")


def position_at(origin: Sequence[float], velocity: Sequence[float], t: float | np.ndarray,
                g: float = GRAVITY_IN_S2) -> np.ndarray:
    """Position(s) on the free-flight parabola at time(s) ``t`` (seconds): (3,) or (n, 3)."""
    o = np.asarray(origin, dtype=float)
    v = np.asarray(velocity, dtype=float)
    tt = np.asarray(t, dtype=float)[..., None]
    p = o + v * tt
    p[..., 2] -= 0.5 * g * tt[..., 0] ** 2
    return p


def sample_path(origin: Vec, velocity: Vec, t_end: float, n: int = 32,
                g: float = GRAVITY_IN_S2) -> np.ndarray:
    """(n, 3) points of the parabola from ``t = 0`` to ``t_end`` (for a trajectory marker)."""
    return position_at(origin, velocity,
                       np.linspace(0.0, max(float(t_end), 0.0), max(int(n), 2)), g)


def time_to_horizontal(velocity: Sequence[float], inches: float) -> float:
    """Seconds a free flight needs to cover ``inches`` of horizontal distance."""
    vh = math.hypot(float(velocity[0]), float(velocity[1]))
    if vh < 1e-9:
        raise RulesError("a Payload with no horizontal speed never covers horizontal distance")
    return float(inches) / vh


# --------------------------------------------------------------------------------------------
# pybullet side: the guard, holding a Payload still between turns, thrust, collision filters
# --------------------------------------------------------------------------------------------


def guard_step(world: PhysicsWorld, key: str, ignore: Iterable[str] = ()) -> str | None:
    """Move a fast body up to the first surface its next step would cross.

    Call right before :meth:`PhysicsWorld.step`; see :meth:`PhysicsWorld.guard_step` (which
    the world also applies by itself to every fast body without an ``ignore`` list).

    Returns
    -------
    str or None
        Key of the body it was moved up to, else None (nothing in the way this step).
    """
    return world.guard_step(key, ignore)


def hold(world: PhysicsWorld, key: str) -> int:
    """Hold a body still where it is (a Payload between turns): a fixed constraint to the world.

    Returns the constraint id for :func:`release`. The body stays in the world, so it can be
    shot at, blown up or run into while it waits (BrikWars 8.4: armed missiles in flight can be
    Detonated Prematurely).
    """
    body = world.bodies[key]
    pos, orn = world.pose(key)
    world.set_velocity(key, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    cid = world.client.createConstraint(body.uid, -1, -1, -1, pybullet.JOINT_FIXED, [0, 0, 0],
                                        [0, 0, 0], pos.tolist(), [0, 0, 0, 1], orn.tolist())
    world.client.changeConstraint(cid, maxForce=1e12)
    return int(cid)


def release(world: PhysicsWorld, key: str, constraint: int, position: Vec,
            orientation: Vec, linear: Vec,
            angular: Vec = (0.0, 0.0, 0.0)) -> None:
    """Undo :func:`hold`: restore the saved pose exactly and give the body its velocity back."""
    try:
        world.client.removeConstraint(int(constraint))
    except pybullet.error:
        pass
    world.set_pose(key, position, orientation)
    world.set_velocity(key, linear, angular)


def hover_force(world: PhysicsWorld, key: str) -> None:
    """Apply, for the next step only, the force that cancels gravity on a body (a Rocket's thrust
    holding its line; g·in/s² = grams × in/s²)."""
    body = world.bodies[key]
    pos, _ = world.pose(key)
    world.wake(key)
    world.client.applyExternalForce(body.uid, -1, [0.0, 0.0, body.mass * world.gravity],
                                    pos.tolist(), pybullet.WORLD_FRAME)


def set_collides(world: PhysicsWorld, a: str, b: str, enabled: bool) -> None:
    """Switch contacts between two bodies on or off (a Payload and its own Launcher)."""
    world.wake(a)
    world.wake(b)
    world.set_collides(a, b, enabled)


def surface_below(world: PhysicsWorld, xy: Vec, from_z: float = 200.0,
                  ignore: Iterable[str] = ()) -> tuple[float, str | None]:
    """Height (inches) of the first surface straight below ``(x, y)`` and the body it belongs to.

    Returns ``(0.0, None)`` when nothing is below (off the battlefield).
    """
    skip = {world.bodies[k].uid for k in ignore if k in world.bodies}
    by_uid = {b.uid: k for k, b in world.bodies.items()}
    start = [float(xy[0]), float(xy[1]), float(from_z)]
    end = [float(xy[0]), float(xy[1]), -1.0]
    for _ in range(16):
        hit = world.client.rayTest(start, end)[0]
        if hit[0] < 0:
            return 0.0, None
        if hit[0] in skip:
            start = [start[0], start[1], float(hit[3][2]) - 1e-4]
            continue
        return float(hit[3][2]), by_uid.get(hit[0])
    return 0.0, None


def contacts_of(world: PhysicsWorld, key: str) -> list[str]:
    """Keys of the bodies touching ``key`` now (its Launcher's basket, its stand, a hand)."""
    uid = world.bodies[key].uid
    by_uid = {b.uid: k for k, b in world.bodies.items()}
    out = []
    for cp in world.client.getContactPoints(bodyA=uid):
        other = by_uid.get(cp[2])
        if other is not None and other not in out and other != key:
            out.append(other)
    return out
