"""Game systems the engine plays: BrikWars, and others that plug in by name.

A scene names its game (``game = "brikwars"``, the default). A game kind brings its extra
:class:`~sandbox.engine.table.System` objects (its actions, turn structure and victory check are
theirs), and says whether physics impacts deal BrikWars Collision Damage. The engine, saves,
undo, replays, the window and the Python API are shared.

To add a game: write its pure rules in ``rules/``, its systems and actions in a module of
``game/`` that calls :func:`register_game` when imported, and add that module to
:data:`GAME_MODULES` so the engine can import it by the scene's ``game`` name.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from ..core.errors import SceneError


@dataclass(frozen=True)
class GameKind:
    """One game the engine can play.

    Attributes
    ----------
    name : str
        What a scene writes as ``game``.
    systems : callable(game) -> list of System
        The game's own systems, created after BrikWars' shared ones, in hook order.
    collision_damage : bool
        Physics impacts roll BrikWars Collision Damage (8.4, The Big Drop). A board game whose
        pieces are knocked about for show sets False: impacts are logged, nothing is harmed.
    brikwars_actions : bool
        BrikWars' own actions (move, attack, bombard ...) are played too. A game with its own
        rules for moving and fighting (Brigandine) sets False: they are refused as "not played
        in this game".
    description : str
    """

    name: str
    systems: Callable[[Any], list] = field(default=lambda game: [])
    collision_damage: bool = True
    brikwars_actions: bool = True
    description: str = ""


GAMES: dict[str, GameKind] = {
    "brikwars": GameKind("brikwars", description="BrikWars (ch. 8 Weaponry, F Field Hazards, "
                                                 "13 Escapades)"),
}

#: Modules that register further games when imported, by game name.
GAME_MODULES: dict[str, str] = {
    "brigandine": "sandbox.games.brigandine.combat",
    "micro_brick_war": "sandbox.games.micro_brick_war.system",
}


def register_game(kind: GameKind, module: str | None = None) -> None:
    """Make ``kind`` playable by its name (called by the game's module when imported)."""
    GAMES[kind.name] = kind
    if module is not None:
        GAME_MODULES.setdefault(kind.name, module)


def game_kind(name: str) -> GameKind:
    """The registered game called ``name``, importing its module on first use.

    Raises
    ------
    SceneError
        No such game (naming the scene field ``game`` and the games known).
    """
    if name not in GAMES and name in GAME_MODULES:
        importlib.import_module(GAME_MODULES[name])
    if name not in GAMES:
        known = sorted(set(GAMES) | set(GAME_MODULES))
        raise SceneError(f"game: {name!r} is not a game this sandbox plays (have {known})")
    return GAMES[name]
