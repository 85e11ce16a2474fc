"""Markers for Fire and Field Hazards, read from a game (BrikWars F.1): flames on every
burning inch, and a ring around each Field (grey for Smoke, blue for water, orange for the
rest). Reads state only; builds new :class:`~sandbox.render.view.Marker` records.
"""

from __future__ import annotations

from .view import Marker

#: Ring colours of Fields by hazard, RGBA 0..1.
FIELD_COLOURS = {
    "smoke": (0.55, 0.55, 0.58, 0.9),
    "water": (0.15, 0.4, 0.9, 0.9),
    "concealed": (0.75, 0.6, 0.2, 0.9),
    "exposure": (1.0, 0.4, 0.1, 0.9),
    "difficult": (0.6, 0.45, 0.3, 0.9),
}

#: Offsets (fractions of the flame height) and relative heights of the tongues of one inch.
FLAME_CLUSTER = (((0.0, 0.0), 1.0), ((0.3, 0.15), 0.7), ((-0.2, -0.3), 0.6))


def hazard_markers(game, viewer: str | None = None) -> list[Marker]:
    """Flame markers on burning surfaces and rings around Fields of ``game.hazards``.

    Parameters
    ----------
    game : Game
        A game with a ``hazards`` attribute
        (:class:`~sandbox.games.brikwars.hazards.Hazards`); a game
        without one gives no markers.
    viewer : str, optional
        The player looking (the tabletop's current player): hidden Fields (Concealed Hazards)
        are drawn only once a Scout revealed them to that player (F.3 Tracking). ``None``
        draws everything (the headless picture is the referee's view).
    """
    hz = getattr(game, "hazards", None)
    if hz is None:
        return []
    out: list[Marker] = []
    for fid, pf in hz.fields.items():
        if (viewer is not None and getattr(pf.entry, "hidden", False)
                and viewer not in hz.revealed.get(fid, [])):
            continue
        r = pf.region
        out.append(Marker.ring((r.centre[0], r.centre[1], 0.0), r.radius,
                               FIELD_COLOURS.get(pf.entry.hazard, (1, 1, 1, 0.9)), 0.15))
    for _key, point, height in hz.fire.flame_sites():
        # one inch of Fire: a tall tongue and two smaller ones beside it
        for (dx, dy), k in FLAME_CLUSTER:
            out.append(Marker.flame((point[0] + dx * height, point[1] + dy * height, point[2]),
                                    height * k))
    return out
