"""Read-only distance and region queries for Fire and Field Hazards (BrikWars F.1).

"Flammable objects within 1 inch" are found with pybullet's closest-point query between
collision shapes (so distances run surface to surface, not centre to centre); "Fire cannot
pass through an obstacle without burning it first" is a ray test between the two closest
points (:func:`sandbox.physics.rays.ray_first_hit`). Field regions are vertical cylinders
standing on the table. Nothing here moves or creates bodies.

Units: inches, Z up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from ..core.units import Vec
from .rays import ray_first_hit
from .world import PhysicsWorld


@dataclass(frozen=True)
class Nearby:
    """Another body near a given one.

    Attributes
    ----------
    key : str
    distance : float
        Surface-to-surface distance, inches (0 when touching or overlapping).
    point_from : (3,) float
        Closest point on the first body, world inches.
    point_to : (3,) float
        Closest point on ``key``, world inches.
    blocked_by : str or None
        A third body on the straight line between the two points (an obstacle), or None.
    """

    key: str
    distance: float
    point_from: tuple[float, float, float]
    point_to: tuple[float, float, float]
    blocked_by: str | None = None


def closest_points(world: PhysicsWorld, key_a: str, key_b: str, max_distance: float
                   ) -> tuple[float, np.ndarray, np.ndarray] | None:
    """Closest points between two bodies' collision shapes within ``max_distance`` inches.

    Returns
    -------
    (distance, point_on_a (3,), point_on_b (3,)) or None
        Distance in inches (negative penetration is reported as 0).

    Raises
    ------
    KeyError
        For an unknown key.
    """
    for k in (key_a, key_b):
        if k not in world.bodies:
            raise KeyError(f"no body {k!r} in the world")
    pts = world.client.getClosestPoints(world.bodies[key_a].uid, world.bodies[key_b].uid,
                                        float(max_distance))
    if not pts:
        return None
    best = min(pts, key=lambda p: p[8])
    return max(0.0, float(best[8])), np.array(best[5], float), np.array(best[6], float)


def bodies_near(world: PhysicsWorld, key: str, max_distance: float,
                candidates: Iterable[str] | None = None, check_obstacles: bool = True
                ) -> list[Nearby]:
    """Bodies whose surfaces come within ``max_distance`` inches of body ``key``, nearest first.

    Parameters
    ----------
    candidates : iterable of str, optional
        Keys to consider (default: every body but ``key`` and the ground).
    check_obstacles : bool
        Ray-test the line between the closest points, ignoring the two bodies and the ground:
        a third body on it is reported in ``blocked_by`` (BrikWars F.1: Fire "can't spread
        through physical obstacles without burning around them or destroying them first").

    Raises
    ------
    KeyError
        For an unknown key.
    """
    if key not in world.bodies:
        raise KeyError(f"no body {key!r} in the world")
    keys = [k for k in (world.bodies if candidates is None else candidates)
            if k not in (key, "ground") and k in world.bodies]
    out: list[Nearby] = []
    for other in keys:
        cp = closest_points(world, key, other, max_distance)
        if cp is None:
            continue
        d, pa, pb = cp
        blocked = None
        if check_obstacles and d > 1e-3:
            hit = ray_first_hit(world, pa, pb, ignore=(key, other, "ground"))
            blocked = hit.key if hit is not None else None
        out.append(Nearby(other, d, tuple(float(v) for v in pa), tuple(float(v) for v in pb),
                          blocked))
    out.sort(key=lambda n: (n.distance, n.key))
    return out


@dataclass(frozen=True)
class Region:
    """A Field's place on the table: a vertical cylinder from ``z = 0`` to ``height``.

    Attributes
    ----------
    centre : (2,) float
        Inches.
    radius, height : float
        Inches (> 0).

    Raises
    ------
    ValueError
        For a radius or height that is not a positive number.
    """

    centre: tuple[float, float]
    radius: float
    height: float = 5.0

    def __post_init__(self) -> None:
        if not (self.radius > 0 and math.isfinite(self.radius)):
            raise ValueError(f"a region needs a radius > 0 inches, got {self.radius!r}")
        if not (self.height > 0 and math.isfinite(self.height)):
            raise ValueError(f"a region needs a height > 0 inches, got {self.height!r}")

    def contains(self, point: Sequence[float]) -> bool:
        """Whether a world point (inches) lies inside."""
        p = np.asarray(point, float)
        return (math.hypot(p[0] - self.centre[0], p[1] - self.centre[1]) <= self.radius + 1e-9
                and -1e-9 <= p[2] <= self.height + 1e-9)

    def chord(self, a: Vec, b: Vec) -> tuple[float, float] | None:
        """Where the table-level path ``a`` → ``b`` runs inside the region.

        Returns
        -------
        (t0, t1) or None
            Fractions of the path (0..1) where it enters and leaves, by the XY footprint.

        Examples
        --------
        >>> Region((5.0, 0.0), 2.0).chord((0, 0, 0), (10, 0, 0))
        (0.3, 0.7)
        """
        p = np.asarray(a, float)[:2]
        d = np.asarray(b, float)[:2] - p
        f = p - np.asarray(self.centre, float)
        aa, bb, cc = float(d @ d), 2.0 * float(f @ d), float(f @ f) - self.radius ** 2
        if aa < 1e-12:
            return (0.0, 1.0) if cc <= 0 else None
        disc = bb * bb - 4 * aa * cc
        if disc < 0:
            return None
        r = math.sqrt(disc)
        t0, t1 = max(0.0, (-bb - r) / (2 * aa)), min(1.0, (-bb + r) / (2 * aa))
        if t0 > t1:
            return None
        return round(t0, 12), round(t1, 12)


def bodies_in_region(world: PhysicsWorld, region: Region, keys: Iterable[str] | None = None
                     ) -> list[tuple[str, float]]:
    """Bodies whose bounds overlap the region, with the fraction of their height inside it.

    Returns
    -------
    list of (key, fraction)
        ``fraction`` in (0, 1]: 1 when the body lies wholly below the region's top (fully
        submerged, for water). The ground is never listed.
    """
    out = []
    for k in (world.bodies if keys is None else keys):
        if k == "ground" or k not in world.bodies:
            continue
        lo, hi = world.aabb(k)
        cx = min(max(region.centre[0], lo[0]), hi[0])
        cy = min(max(region.centre[1], lo[1]), hi[1])
        if math.hypot(cx - region.centre[0], cy - region.centre[1]) > region.radius:
            continue
        if lo[2] > region.height or hi[2] < 0:
            continue
        h = max(hi[2] - lo[2], 1e-9)
        inside = (min(hi[2], region.height) - max(lo[2], 0.0)) / h
        out.append((k, float(min(1.0, max(0.0, inside)))))
    return out


def overlaps(world: PhysicsWorld, keys: Sequence[str], min_depth: float = 0.0
             ) -> list[tuple[str, str, float]]:
    """Pairs of bodies whose collision shapes interpenetrate, deepest first.

    Bounding boxes are compared first, so only pairs that may touch are asked for closest
    points. Pairs of two static bodies are left out (they never move apart).

    Parameters
    ----------
    keys : sequence of str
        The bodies to test against each other.
    min_depth : float
        Inches; report only pairs interpenetrating deeper than this.

    Returns
    -------
    list of (key_a, key_b, depth)
        ``depth`` in inches (> ``min_depth``), ``key_a`` before ``key_b`` in ``keys``.
    """
    c = world.client
    boxes = {}
    for k in keys:
        lo, hi = c.getAABB(world.bodies[k].uid)
        boxes[k] = (np.asarray(lo), np.asarray(hi))
    out = []
    for i, a in enumerate(keys):
        la, ha = boxes[a]
        for b in keys[i + 1:]:
            if world.bodies[a].static and world.bodies[b].static:
                continue
            lb, hb = boxes[b]
            if np.any(la > hb) or np.any(lb > ha):
                continue
            pts = c.getClosestPoints(world.bodies[a].uid, world.bodies[b].uid, 0.0)
            depth = max((-float(p[8]) for p in pts), default=0.0)
            if depth > min_depth:
                out.append((a, b, depth))
    return sorted(out, key=lambda t: -t[2])
