"""Read-only queries on a :class:`~sandbox.physics.world.PhysicsWorld`: rays and overlaps.

Used by the tabletop for picking with the mouse, line of sight and placing a moved unit.
Nothing here changes the world (no bodies are created or moved), so a query between two
actions never changes what the next action simulates (DESIGN.md, Determinism).

Units: inches, Z up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from ..core.units import Vec
from .world import PhysicsWorld

#: How far past an ignored hit the next ray starts, inches.
_SKIP_IN = 1e-4
#: Most bodies one ray may pass through (ignored ones) before giving up.
_MAX_SKIPS = 64


@dataclass(frozen=True)
class RayHit:
    """The first body a ray meets.

    Attributes
    ----------
    key : str
        The body's key (``"ground"`` for the battlefield).
    point : (3,) float
        Hit point, inches, world frame.
    normal : (3,) float
        Surface normal at the hit, world frame.
    distance : float
        From the ray's start to the hit, inches.
    """

    key: str
    point: tuple[float, float, float]
    normal: tuple[float, float, float]
    distance: float


def ray_first_hit(world: PhysicsWorld, start: Vec, end: Vec,
                  ignore: Iterable[str] = ()) -> RayHit | None:
    """The first body on the segment ``start`` → ``end``, skipping the ``ignore`` keys.

    Parameters
    ----------
    world : PhysicsWorld
    start, end : (3,) float
        Segment end points, inches.
    ignore : iterable of str
        Body keys the ray passes through (the shooter and its target, a dragged unit).

    Returns
    -------
    RayHit or None
        None when the segment reaches ``end`` unobstructed.

    Raises
    ------
    ValueError
        For non-finite points.
    """
    a = np.asarray(start, dtype=float).reshape(3)
    b = np.asarray(end, dtype=float).reshape(3)
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError(f"ray end points must be finite inches, got {a.tolist()} and {b.tolist()}")
    length = float(np.linalg.norm(b - a))
    if length < 1e-9:
        return None
    direction = (b - a) / length
    skip = set(ignore)
    by_uid = {body.uid: body for body in world.bodies.values()}
    travelled = 0.0
    cur = a
    for _ in range(_MAX_SKIPS):
        uid, _link, frac, pos, normal = world.client.rayTest(cur.tolist(), b.tolist())[0]
        if uid < 0:
            return None
        body = by_uid.get(uid)
        seg = float(np.linalg.norm(b - cur))
        hit_d = travelled + frac * seg
        if body is None or body.key in skip:
            travelled = hit_d + _SKIP_IN
            if travelled >= length:
                return None
            cur = a + direction * travelled
            continue
        return RayHit(body.key, tuple(float(v) for v in pos), tuple(float(v) for v in normal),
                      hit_d)
    return None


def overlapping_bodies(world: PhysicsWorld, key: str, margin: float = 0.0) -> list[str]:
    """Keys of bodies whose collision shapes come within ``margin`` inches of body ``key``.

    Parameters
    ----------
    key : str
        A body in the world.
    margin : float
        Inches; 0 reports touching or interpenetrating bodies. The ground is not reported.

    Raises
    ------
    KeyError
        For an unknown key.
    """
    if key not in world.bodies:
        raise KeyError(f"no body {key!r} in the world")
    uid = world.bodies[key].uid
    out = []
    for other, body in world.bodies.items():
        if other in (key, "ground"):
            continue
        if world.client.getClosestPoints(uid, body.uid, float(margin)):
            out.append(other)
    return out
