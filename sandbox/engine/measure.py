"""Tabletop geometry without physics: footprints, edge-to-edge distances, Smoke on a sight line.

BrikWars measures in inches from a model's edge, not its centre: a ruler between two units
runs from the nearest point of one base to the nearest point of the other. A footprint here is
the axis-aligned rectangle of a body's bounds seen from above.

Units: inches, Z up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..core.errors import RulesError

#: Smoke Fields are effective up to this height by default, inches (BrikWars F, Smoke).
SMOKE_HEIGHT_IN: float = 5.0


def footprint_gap(a_lo: Sequence[float], a_hi: Sequence[float], b_lo: Sequence[float],
                  b_hi: Sequence[float]) -> float:
    """Horizontal distance between two footprints (rectangles), edge to edge, inches.

    Parameters
    ----------
    a_lo, a_hi, b_lo, b_hi : (2,) or (3,) float
        Opposite corners of the two bounds; only x and y are used.

    Returns
    -------
    float
        0 when the footprints touch or overlap.

    Examples
    --------
    >>> footprint_gap((0, 0), (1, 1), (4, 0), (5, 1))
    3.0
    >>> round(footprint_gap((0, 0), (1, 1), (4, 5), (5, 6)), 3)   # 3-4-5 corner to corner
    5.0
    """
    dx = max(0.0, float(b_lo[0]) - float(a_hi[0]), float(a_lo[0]) - float(b_hi[0]))
    dy = max(0.0, float(b_lo[1]) - float(a_hi[1]), float(a_lo[1]) - float(b_hi[1]))
    return math.hypot(dx, dy)


def point_gap(lo: Sequence[float], hi: Sequence[float], point: Sequence[float]) -> float:
    """Horizontal distance from a point to a footprint's edge (0 inside), inches."""
    return footprint_gap(lo, hi, point, point)


def edge_point(lo: Sequence[float], hi: Sequence[float], towards: Sequence[float]) -> np.ndarray:
    """Where the line from a footprint's centre towards ``towards`` leaves the footprint.

    The base-edge point a ruler starts from. Returns (3,) inches at the bounds' lowest z.

    Examples
    --------
    >>> edge_point((0, 0, 0), (2, 2, 1), (10, 1, 0)).tolist()
    [2.0, 1.0, 0.0]
    """
    c = np.array([(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0])
    d = np.asarray(towards[:2], float) - c
    half = np.array([(hi[0] - lo[0]) / 2.0, (hi[1] - lo[1]) / 2.0])
    if np.linalg.norm(d) < 1e-12:
        return np.array([c[0], c[1], float(lo[2]) if len(lo) > 2 else 0.0])
    with np.errstate(divide="ignore"):
        t = np.min(np.where(np.abs(d) > 1e-12, half / np.abs(d), np.inf))
    p = c + d * min(float(t), 1.0)
    return np.array([p[0], p[1], float(lo[2]) if len(lo) > 2 else 0.0])


@dataclass(frozen=True)
class SmokeField:
    """A Smoke Field: a vertical cylinder that blocks sight into, out of and through it.

    Attributes
    ----------
    centre : (2,) float
        Inches on the table.
    radius : float
        Inches (the Field Size).
    height : float
        Inches above the table it reaches (5" by default, BrikWars F).
    """

    centre: tuple[float, float]
    radius: float
    height: float = SMOKE_HEIGHT_IN

    def __post_init__(self) -> None:
        if not (self.radius > 0 and math.isfinite(self.radius)):
            raise RulesError(f"a Smoke Field needs a radius > 0 inches, got {self.radius!r}")
        if not (self.height > 0 and math.isfinite(self.height)):
            raise RulesError(f"a Smoke Field needs a height > 0 inches, got {self.height!r}")


def segment_in_smoke(a: Sequence[float], b: Sequence[float], smoke: SmokeField) -> bool:
    """Does the segment ``a`` → ``b`` (inches) pass into, out of or through the Smoke Field?

    BrikWars F, Smoke: "blocks vision completely for anyone looking into, out of, or through
    its Field". The Field is a cylinder from the table up to ``smoke.height``.

    Examples
    --------
    >>> s = SmokeField((5.0, 0.0), 1.0)
    >>> segment_in_smoke((0, 0, 1), (10, 0, 1), s), segment_in_smoke((0, 3, 1), (10, 3, 1), s)
    (True, False)
    >>> segment_in_smoke((0, 0, 7), (10, 0, 7), s)      # over the top of the smoke
    False
    """
    p = np.asarray(a, float)
    q = np.asarray(b, float)
    d = q - p
    c = np.array([smoke.centre[0], smoke.centre[1]])
    # parameter interval where the segment is inside the infinite cylinder
    f = p[:2] - c
    aa = float(d[:2] @ d[:2])
    bb = 2.0 * float(f @ d[:2])
    cc = float(f @ f) - smoke.radius ** 2
    if aa < 1e-12:
        if cc > 0:
            return False
        t0, t1 = 0.0, 1.0
    else:
        disc = bb * bb - 4 * aa * cc
        if disc < 0:
            return False
        r = math.sqrt(disc)
        t0, t1 = (-bb - r) / (2 * aa), (-bb + r) / (2 * aa)
    t0, t1 = max(t0, 0.0), min(t1, 1.0)
    if t0 > t1:
        return False
    # and between the table and the smoke's top over that interval
    z0, z1 = p[2] + d[2] * t0, p[2] + d[2] * t1
    return bool(min(z0, z1) <= smoke.height and max(z0, z1) >= 0.0)
