"""Markers of an Escapade's table, read from a game (BrikWars 13.1 Picking Sides, 13.2):
the table edges by holder, each holder's deployment zone, and the Stronghold outline.
Reads state only; builds new :class:`~sandbox.render.view.Marker` records.

Colours: the attackers' edge red, the defenders' blue, uncontrolled edges (the meddlers')
yellow; stretches of edge inside a Stronghold stay undrawn over a grey edge line (they belong to
no one). A deployment zone is the strip one turn's Move deep inside each friendly stretch,
outlined thinly in its holder's colour.
"""

from __future__ import annotations

import numpy as np

from .view import Marker

#: Edge colours by holder, RGBA 0..1.
EDGE_COLOURS = {
    "attackers": (0.95, 0.2, 0.15, 1.0),
    "defenders": (0.2, 0.45, 1.0, 1.0),
    "uncontrolled": (1.0, 0.85, 0.1, 1.0),
}
#: Colour of the bare table edge (and of stretches that belong to no one).
NO_ONE = (0.55, 0.55, 0.55, 1.0)
STRONGHOLD_COLOUR = (0.85, 0.85, 0.9, 1.0)
#: Height of edge lines above the table top, inches.
LINE_Z = 0.06


def escapade_markers(game) -> list[Marker]:
    """Edge, deployment-zone and Stronghold markers of ``game.escapade`` (empty without one).

    Parameters
    ----------
    game : Game
        A game with an ``escapade`` attribute
        (:class:`~sandbox.games.brikwars.escapade.EscapadeDriver`).
    """
    esc = getattr(game, "escapade", None)
    if esc is None:
        return []
    plan = esc.spec.plan
    w, d = plan.table.width / 2, plan.table.depth / 2
    z = LINE_Z
    out = [Marker.path([(-w, -d, z), (w, -d, z), (w, d, z), (-w, d, z), (-w, -d, z)], NO_ONE, 1.5)]
    depths = esc.deployment_depths()
    for holder, stretches in esc.stretches().items():
        colour = EDGE_COLOURS[holder]
        zone = (colour[0], colour[1], colour[2], 0.6)
        depth = depths.get(holder, 0.0)
        for a, b in stretches:
            a3, b3 = np.array([a[0], a[1], z]), np.array([b[0], b[1], z])
            out.append(Marker.line(a3, b3, colour, 5.0))
            if depth <= 0 or np.allclose(a3, b3):
                continue
            mid = (a3 + b3) / 2  # inward normal: towards the table centre
            inward = -np.array([np.sign(mid[0]) if abs(abs(mid[0]) - w) < 1e-6 else 0.0,
                                np.sign(mid[1]) if abs(abs(mid[1]) - d) < 1e-6 else 0.0, 0.0])
            off = inward * depth
            out.append(Marker.path([a3, a3 + off, b3 + off, b3], zone, 1.5))
    for area in plan.strongholds:
        pts = [(x, y, z) for x, y in area.points]
        out.append(Marker.path(pts + [pts[0]], STRONGHOLD_COLOUR, 2.0))
    return out
