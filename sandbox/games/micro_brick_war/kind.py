"""Micro Brick War as a game kind (shared/rules/004): one system, the board game.

Its bodies keep the same record as BrikWars' (the ``end`` event and saves show it), but no
BrikWars system is built: impacts harm nothing (whatever the bodies do, the board decides).
"""

from __future__ import annotations

from ...engine.kinds import GameKind, register_game
from ...engine.scene import SceneSection, register_scene_section
from ...rules.collision import DamageState
from .scene import MicroBrickWarSection
from .system import MicroBrickWar


def _check(spec) -> None:
    """A ``[micro_brick_war]`` table needs ``game = "micro_brick_war"``."""
    if spec.micro_brick_war is not None and spec.game != "micro_brick_war":
        raise ValueError(f"a [micro_brick_war] table needs game = \"micro_brick_war\" "
                         f"(the scene plays {spec.game!r})")


KIND = GameKind("micro_brick_war", systems=(MicroBrickWar,), body_condition=DamageState,
                description="Micro Brick War (a farm-and-conquest board game for 2-4 "
                            "players, shared/rules/004)",
                window="sandbox.games.micro_brick_war.window")
register_game(KIND)
register_scene_section(SceneSection(
    "micro_brick_war", MicroBrickWarSection | None, None,
    "the board of a Micro Brick War game (game = 'micro_brick_war')", check=_check,
    sets_table=True))
