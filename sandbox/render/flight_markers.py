"""Overlays for Payloads in flight (BrikWars 8.4) and incoming Bombardments (13.2).

Reads the plain data the game keeps (:meth:`FlightControl.marker_data`,
:meth:`Bombardment.marker_data`) and returns :class:`~sandbox.render.view.Marker` records: the
traditional red-brick X at each target a Payload is still flying to, and the path each Payload
has flown (white polyline). Reads state only.
"""

from __future__ import annotations

from .view import Marker

#: Size of the red-brick X across, inches.
TARGET_X_IN: float = 1.2
#: Colour of a flown path (RGBA).
PATH_COLOUR = (1.0, 1.0, 1.0, 0.9)


def flight_markers(game) -> list[Marker]:
    """Markers for a game's flights and Bombardments (empty when it has neither)."""
    data = []
    for part in (getattr(game, "flight", None), getattr(game, "bombardment", None)):
        if part is not None:
            data += part.marker_data()
    out: list[Marker] = []
    for d in data:
        if d["kind"] == "target":
            out.append(Marker.target(d["point"], TARGET_X_IN))
        elif d["kind"] == "path" and len(d["points"]) >= 2:
            out.append(Marker.path(d["points"], PATH_COLOUR))
    return out
