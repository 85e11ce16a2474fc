"""Firing Arcs on the table (BrikWars 8.3): which bodies an Arc Fire attack sweeps, in order.

Reading of "Firing Arcs" (8.3: angles are measured with a hand laid flat, fingers spread, a
point of Arc being the gap between two fingers): one point of Firing Arc is
:data:`ARC_POINT_RAD` (22.5°: a spread hand's four gaps cover a right angle). The Arc is a
wedge of ``points`` × that angle from the attacker's footprint centre, centred on the aimed
target's footprint centre. A body is in the Arc when part of its footprint (its box on the
table) lies inside the wedge, within :data:`ARC_REACH_FACTOR` times the weapon's Range (edge
to edge; beyond Range the usual Out of Range penalty applies) and in the attacker's line of
sight. The part inside the Arc counts for Target Size ("only consider the portion of the target
within the Firing Arc"): a body wholly inside counts its Size; one cut by the Arc's edge counts
the chord of the Arc across it, at most its Size. A body spanning whole points of Arc receives
one more attack for each. Targets are taken from one end of the Arc to the other (by bearing,
counter-clockwise).

Units: inches, radians.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.table import TableAPI

#: One point of Firing Arc, radians (see the module notes).
ARC_POINT_RAD: float = math.radians(22.5)
#: Arc Fire reaches targets up to this many times the weapon's Range.
ARC_REACH_FACTOR: float = 2.0


@dataclass(frozen=True)
class ArcHit:
    """A body inside a Firing Arc.

    Attributes
    ----------
    key : str
    bearing_rad : float
        Bearing of the part inside the Arc from the Arc's centre line (counter-clockwise +).
    size_in : float
        Size of the part inside the Arc, inches.
    spanned : int
        Whole points of Firing Arc it spans.
    distance_in : float
        Edge to edge from the attacker, inches.
    """

    key: str
    bearing_rad: float
    size_in: float
    spanned: int
    distance_in: float


def bodies_in_arc(game: "TableAPI", attacker: str, aimed: str, points: int,
                  range_in: float | None, origin=None) -> list[ArcHit]:
    """Bodies an Arc of ``points`` from ``attacker`` centred on ``aimed`` sweeps, in order.

    The aimed body is always included when it is in sight (it sits on the centre line).
    ``origin`` (x, y inches) is the Arc's apex: the end of the weapon's barrel where the scene
    gives one (8.2: "the firing angle ... measured from the end of the weapon barrel"); default
    the attacker's footprint centre.
    """
    ruler_from = attacker if origin is None else (float(origin[0]), float(origin[1]))
    origin = np.asarray(game.footprint_centre(attacker) if origin is None else origin[:2],
                        float)
    axis = np.asarray(game.footprint_centre(aimed), float) - origin
    if float(np.linalg.norm(axis)) < 1e-9:
        axis = np.array([1.0, 0.0])
    base = math.atan2(axis[1], axis[0])
    half = points * ARC_POINT_RAD / 2.0
    reach = None if range_in is None else ARC_REACH_FACTOR * float(range_in)
    out = []
    for key, st in game.bodies.items():
        if key == attacker or key not in game.world.bodies or st.damage.destroyed:
            continue
        lo, hi = game.world.aabb(key)
        corners = np.array([[lo[0], lo[1]], [lo[0], hi[1]], [hi[0], lo[1]], [hi[0], hi[1]]])
        rel = corners - origin
        if np.all(rel @ axis <= 0):
            continue  # wholly behind the attacker
        ang = np.array([(math.atan2(r[1], r[0]) - base + math.pi) % (2 * math.pi) - math.pi
                        for r in rel])
        a0, a1 = float(ang.min()), float(ang.max())
        if a1 - a0 > math.pi:  # straddles the line behind: not a sensible Arc target
            continue
        c0, c1 = max(a0, -half), min(a1, half)
        if c1 <= c0 and key != aimed:
            continue
        dist = game.measure(ruler_from, key).inches
        if reach is not None and dist > reach + 1e-9 and key != aimed:
            continue
        if not game.line_of_sight(attacker, key).clear:
            continue
        size = float(st.stats.size)
        if a0 < -half or a1 > half:  # cut by the Arc's edge: the chord across it
            centre = float(np.linalg.norm((lo[:2] + hi[:2]) / 2 - origin))
            size = min(size, max(0.0, centre * (c1 - c0)))
        spanned = int(math.floor(max(0.0, c1 - c0) / ARC_POINT_RAD + 1e-9))
        out.append(ArcHit(key, (c0 + c1) / 2.0, round(size, 4), spanned, dist))
    return sorted(out, key=lambda h: (h.bearing_rad, h.key))
