"""Breaking bodies apart, per-part blast distances and KnockBack throws (BrikWars 8.1, 8.4).

Units: inches, seconds, radians, grams, Z up. A body's parts are its collision boxes; the
caller keeps the boxes a body was created from (world frame at creation, each with a
``tag``) and this module follows them to where the body is now.

KnockBack calibration (BrikWars 8.1: "Knocked Back one inch for every ..."). A KnockBack of
``d`` inches away from a blast is the slowest throw that carries the object's centre of mass
through the point ``d`` inches from where it is, along the direction away from the blast: the
minimum-speed ballistic launch to a point at elevation angle ``phi`` and distance ``d`` has
speed ``v**2 = g * d * (1 + sin(phi))`` at elevation ``pi/4 + phi/2``. Straight up
(``phi = 90°``) that is ``sqrt(2 g d)``: the object rises ``d`` inches ("the tower is sent
flying straight up", 8.4). Sideways on flat ground (``phi = 0``) it is a 45° throw of range
``d``; a landing brick or minifig then slides or tumbles a little further, so the speed is
scaled by :data:`KNOCKBACK_SPEED_FACTOR`, measured so that a minifig and a 2x4 brick on flat
ground come to rest about ``d`` inches away (tests/test_breakage.py states the tolerance).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..core.units import Vec
from .world import Body, BoxShape, PhysicsWorld, box_arrays, quat_to_matrix

#: Speed scale of sideways KnockBack throws, measured on flat ground (see module docstring).
KNOCKBACK_SPEED_FACTOR: float = 0.84

#: Rubble (a destroyed part broken off on its own, :attr:`PiecePlan.rubble`) may use Bullet's
#: own per-body sleeping once it rests (``sandbox.physics.world.SLEEP_THRESHOLD``). Off since
#: issue 26: Bullet's sleep state cannot be saved, read or set through pybullet (bullet3#3993),
#: so an undo could not restore it exactly; the whole table sleeps instead once everything
#: rests (``sandbox.physics.world.SLEEPING``), with its state in the world's snapshots.
RUBBLE_SLEEPS: bool = False


@dataclass(frozen=True)
class PiecePlan:
    """One piece a body breaks into.

    Attributes
    ----------
    key : str
        Name of the new body.
    tags : tuple of int
        Tags of the boxes (parts) it keeps.
    """

    key: str
    tags: tuple[int, ...]
    #: Rubble (a destroyed part on its own): may sleep once it rests (RUBBLE_SLEEPS).
    rubble: bool = False


def boxes_now(world: PhysicsWorld, key: str, boxes: Sequence[BoxShape]) -> list[BoxShape]:
    """A body's creation-time world boxes moved to where the body is now.

    Parameters
    ----------
    world : PhysicsWorld
    key : str
        The body (created from ``boxes``, or a piece created from a subset of them whose
        creation boxes are passed).
    boxes : sequence of BoxShape
        World-frame boxes at the body's creation, inches.

    Returns
    -------
    list of BoxShape
        Same order, tags and masses; centres and axes in the world now.

    Raises
    ------
    KeyError
        If there is no such body.
    """
    body = world.bodies[key]
    pos, orn = world.pose(key)
    if not boxes:
        return []
    # a blast asks for the same body's boxes several times (the radius query, the split):
    # the last answer is kept for the same world, body, boxes and pose (issue 26)
    memo = (id(world), body.uid, id(boxes), len(boxes), tuple(pos), tuple(orn))
    if (_LAST_BOXES and _LAST_BOXES[0] == memo and _LAST_BOXES[1] is boxes
            and _LAST_BOXES[3] is body):
        return list(_LAST_BOXES[2])
    r_now = quat_to_matrix(orn)
    m = r_now @ body.frame_rotation.T  # creation world -> body frame -> world now
    # every box at once (issue 21), as stacked 3x3 products: the same numbers, bit for bit,
    # as ``m @ (centre - origin) + pos`` and ``m @ rotation`` box by box
    c = np.array([b.centre for b in boxes], float) - body.frame_origin
    centres = ((m @ c[:, :, None])[:, :, 0] + pos).tolist()
    rotations = (m @ np.array([b.rotation for b in boxes], float)).tolist()
    out = [BoxShape(tuple(c), b.half_extents, tuple(map(tuple, r)), b.mass, b.tag)
           for b, c, r in zip(boxes, centres, rotations, strict=True)]
    _LAST_BOXES[:] = [memo, boxes, out, body]
    return list(out)


#: boxes_now's last answer: [key, the boxes it was asked for, the answer, the body] (the
#: boxes and the body are held, so their ids cannot be reused while kept).
_LAST_BOXES: list = []


def point_box_distances(point: Vec, boxes: Sequence[BoxShape]) -> np.ndarray:
    """Distance from a point to the surface of each solid box (0 inside), inches.

    Parameters
    ----------
    point : (3,) float
        Inches, world frame.
    boxes : sequence of BoxShape
        World-frame boxes.

    Returns
    -------
    (n,) float
        Exact Euclidean distances to the boxes (no collision margin).
    """
    if not boxes:
        return np.zeros(0)
    p = np.asarray(point, float)
    c = np.array([b.centre for b in boxes], float)
    h = np.array([b.half_extents for b in boxes], float)
    r = np.array([b.rotation for b in boxes], float)
    local = np.einsum("nkj,nk->nj", r, p - c)  # R^T (p - c)
    outside = np.maximum(np.abs(local) - h, 0.0)
    return np.linalg.norm(outside, axis=1)


def part_distances(world: PhysicsWorld, key: str, boxes: Sequence[BoxShape],
                   point: Vec) -> dict[int, float]:
    """Distance from a blast point to each part of a body as it lies now (BrikWars 8.4).

    Parameters
    ----------
    world : PhysicsWorld
    key : str
    boxes : sequence of BoxShape
        The body's creation-time boxes (see :func:`boxes_now`).
    point : (3,) float
        Blast centre, inches.

    Returns
    -------
    dict of int to float
        Tag -> inches to that part's collision box surface (0 when the point is inside).
    """
    now = boxes_now(world, key, boxes)
    d = point_box_distances(point, now)
    return {b.tag: float(v) for b, v in zip(now, d, strict=True)}


def split_body(world: PhysicsWorld, key: str, boxes: Sequence[BoxShape],
               plans: Sequence[PiecePlan]) -> dict[str, Body]:
    """Replace a body by pieces made of subsets of its boxes, each moving as it moved.

    Each piece gets its own mass, centre of mass and inertia from its boxes
    (:meth:`PhysicsWorld.add_compound`) and the velocity its material had: the body's linear
    velocity plus ``omega x (piece centre of mass - body centre of mass)``, and the body's
    angular velocity. Boxes in no plan are dropped (destroyed parts the caller re-adds).

    Parameters
    ----------
    world : PhysicsWorld
    key : str
        The body to split (removed from the world).
    boxes : sequence of BoxShape
        Its creation-time world boxes.
    plans : sequence of PiecePlan
        Pieces in creation order (the order fixes pybullet ids: keep it deterministic).

    Returns
    -------
    dict of str to Body
        The new bodies by key, in plan order; their ``frame_origin``/``frame_rotation`` are
        the current world frame, so their creation boxes are the boxes *now*.

    Raises
    ------
    KeyError
        For an unknown body.
    ValueError
        For a plan naming a tag the body does not have, an empty plan, or a duplicate key.
    """
    body = world.bodies[key]
    now = {b.tag: b for b in boxes_now(world, key, boxes)}
    lin, ang = world.velocity(key)
    com, _ = world.pose(key)
    static = body.static
    for plan in plans:
        if not plan.tags:
            raise ValueError(f"piece {plan.key!r} of {key!r} has no parts")
        missing = [t for t in plan.tags if t not in now]
        if missing:
            raise ValueError(f"piece {plan.key!r}: {key!r} has no parts tagged {missing[:5]}")
    world.remove(key)
    out = {}
    # the boxes as arrays once, each piece's rows of them, every piece made at once (the same
    # bodies as add_compound one by one, issue 26)
    row = {t: i for i, t in enumerate(now)}
    arrays = box_arrays(list(now.values()))
    made = world.add_compounds(
        [(plan.key, [now[t] for t in plan.tags]) for plan in plans], arrays,
        [np.fromiter((row[t] for t in plan.tags), dtype=np.intp, count=len(plan.tags))
         for plan in plans], static=static,
        sleeping=[True if plan.rubble and RUBBLE_SLEEPS else None for plan in plans])
    for plan, new in zip(plans, made, strict=True):
        if not static:
            v = lin + np.cross(ang, new.frame_origin - com)
            world.set_velocity(plan.key, v, ang)
        out[plan.key] = new
    return out


def knockback_velocity(direction: Vec, inches: float, gravity: float,
                       factor: float = KNOCKBACK_SPEED_FACTOR) -> np.ndarray:
    """Velocity change (in/s) that throws an object ``inches`` away along ``direction``.

    The minimum-speed ballistic throw through the point ``inches`` along ``direction``
    (see the module docstring), with the sideways part of the speed scaled by ``factor``
    (1 straight up, ``factor`` horizontally, blended by ``cos(phi)``).

    Parameters
    ----------
    direction : (3,) float
        Away from the blast (need not be unit length; must not be zero).
    inches : float
        KnockBack distance (>= 0).
    gravity : float
        in/s² (positive).

    Returns
    -------
    (3,) float
        in/s, world frame.

    Raises
    ------
    ValueError
        For a zero direction, negative inches or a non-positive gravity.

    Examples
    --------
    >>> v = knockback_velocity([0, 0, 1], 2.0, 386.09)
    >>> round(float(v[2]), 2), round(math.sqrt(2 * 386.09 * 2.0), 2)
    (39.3, 39.3)
    """
    d = np.asarray(direction, float)
    n = float(np.linalg.norm(d))
    if n < 1e-12:
        raise ValueError(f"KnockBack direction must not be zero, got {d.tolist()}")
    if inches < 0 or gravity <= 0:
        raise ValueError(f"KnockBack needs inches >= 0 and gravity > 0, got {inches}, {gravity}")
    if inches == 0:
        return np.zeros(3)
    d = d / n
    horiz = float(math.hypot(d[0], d[1]))
    phi = math.atan2(d[2], horiz)
    speed = math.sqrt(max(0.0, gravity * inches * (1.0 + math.sin(phi))))
    speed *= 1.0 + (factor - 1.0) * math.cos(phi)
    theta = math.pi / 4 + phi / 2
    if horiz > 1e-9:
        h = np.array([d[0], d[1], 0.0]) / horiz
    else:
        h = np.zeros(3)
    return speed * (math.cos(theta) * h + np.array([0.0, 0.0, math.sin(theta)]))


def touching(world: PhysicsWorld, key_a: str, key_b: str, tol: float = 0.02) -> bool:
    """True when two bodies are in contact or within ``tol`` inches of each other."""
    a, b = world.bodies[key_a], world.bodies[key_b]
    return bool(world.client.getClosestPoints(a.uid, b.uid, tol))
