"""Brigandine as a game kind (shared/rules/003 Combat): one system, the eight-phase round.

Its bodies keep the same record as BrikWars' (the ``end`` event and saves show it), but no
BrikWars system is built: impacts harm nothing (its pieces are knocked about for show) and
BrikWars' actions are "not played in this game".
"""

from __future__ import annotations

from ...engine.kinds import GameKind, register_game
from ...engine.scene import SceneSection, register_scene_section
from ...rules.collision import DamageState
from .combat import BrigandineCombat
from .scene import BrigandineSection


def _check(spec) -> None:
    """A ``[brigandine]`` table needs ``game = 'brigandine'`` and names scene units."""
    if spec.brigandine is None:
        return
    if spec.game != "brigandine":
        raise ValueError(f"a [brigandine] table needs game = 'brigandine', not {spec.game!r}")
    unit_ids = {u.id for u in spec.units}
    for i, b in enumerate(spec.brigandine.units):
        if b.id not in unit_ids:
            raise ValueError(f"brigandine.units[{i}].id {b.id!r} is not the id of a scene unit")


KIND = GameKind("brigandine", systems=(BrigandineCombat,), body_condition=DamageState,
                description="Brigandine (003 Combat): eight-phase rounds; Skirmish, "
                            "Man-to-Man, Fantasy Combat, Jousting",
                window="sandbox.games.brigandine.window")
register_game(KIND)
register_scene_section(SceneSection(
    "brigandine", BrigandineSection | None, None,
    "a Brigandine battle (game = 'brigandine'; rules/003 Combat)", check=_check,
    sets_table=True))
