"""Game kinds: the games the engine plays, each a package of ``sandbox/games/`` plugged in by
name.

A scene names its game (``game = "brikwars"``, the default). A :class:`GameKind` lists the
game's :class:`~sandbox.engine.table.System` classes in hook order (their actions, turn
structure, victory checks and how physics harms bodies are theirs) and the record each body
keeps. The engine, saves, undo, replays, the window and the Python API are shared; the engine
itself names no game.

To add a game: write its pure rules (in ``rules/`` or beside the game), its systems and actions
in a package ``sandbox/games/<name>/``, and a module ``sandbox/games/<name>/kind.py`` that calls
:func:`register_game` when imported. :func:`game_kind` imports it by the scene's ``game`` name;
:func:`all_kinds` imports every game package (the scene schema and the conformance check
:func:`check_game_kind` see every kind's actions and sections).
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

from ..core.errors import SceneError
from .table import Condition

if TYPE_CHECKING:  # pragma: no cover
    from .table import System

#: The package whose sub-packages are the games (each with a ``kind`` module).
GAMES_PACKAGE = "sandbox.games"


@dataclass(frozen=True)
class GameKind:
    """One game the engine can play.

    Attributes
    ----------
    name : str
        What a scene writes as ``game``.
    systems : tuple of System classes
        The game's systems in the order their hooks run (this order is part of the rules'
        sequencing). Each is built with the game when its :meth:`System.wanted` says so for the
        scene. The engine adds its own (the players' hands, :class:`TableTools`) after them.
    body_condition : callable() -> record
        A fresh per-body record (:attr:`BodyState.damage`): it must have ``destroyed`` and
        ``to_dict()``; the engine's :class:`~sandbox.engine.table.Condition` by default.
    description : str
    window : str
        The dotted path of the module holding the game's window modes
        (``"sandbox.games.brikwars.window"``), imported by the window only (:meth:`window_module`),
        so importing a kind imports no window. The module has ``MODES``, a tuple of
        :class:`sandbox.app.table.mode.Mode` classes (the one named ``select`` is the game's home
        mode: its clicks, keys, stat card and the markers it draws in every mode; the others are
        entered by name), and may have ``KEYS``, the game's rows of the window's key map
        (:func:`sandbox.app.table.keymap.key_map`: the keys that enter its modes), and
        ``tags(session) -> frozenset[str]``, key map tags it adds to the game's name (a BrikWars
        Escapade's ``escapade``). "" (default): the window's common modes and keys only.
    """

    name: str
    systems: tuple[type["System"], ...] = ()
    body_condition: Callable[[], Any] = field(default=Condition)
    description: str = ""
    window: str = ""

    def build(self, game: Any) -> list["System"]:
        """The systems a game of ``game.spec`` has, built in hook order."""
        return [cls(game) for cls in self.systems if cls.wanted(game.spec)]

    def window_module(self) -> ModuleType | None:
        """The module named by :attr:`window`, imported now (None: the game has no window
        modes of its own). Only the window (and the conformance check) calls this.

        Raises
        ------
        ImportError
            :attr:`window` names no importable module.
        """
        return importlib.import_module(self.window) if self.window else None


GAMES: dict[str, GameKind] = {}


def register_game(kind: GameKind) -> None:
    """Make ``kind`` playable by its name (called by the game's ``kind`` module)."""
    GAMES[kind.name] = kind


def _import_kind(name: str) -> None:
    try:
        module = importlib.import_module(f"{GAMES_PACKAGE}.{name}.kind")
    except ModuleNotFoundError as exc:
        if exc.name not in (f"{GAMES_PACKAGE}.{name}", f"{GAMES_PACKAGE}.{name}.kind"):
            raise
        return
    kind = getattr(module, "KIND", None)
    if name not in GAMES and isinstance(kind, GameKind):
        register_game(kind)  # imported before, its registration since taken back


def game_names() -> list[str]:
    """Names of the game packages under :data:`GAMES_PACKAGE` and of registered kinds."""
    pkg = importlib.import_module(GAMES_PACKAGE)
    found = {m.name for m in pkgutil.iter_modules(pkg.__path__) if m.ispkg}
    return sorted(found | set(GAMES))


_DISCOVERED: list[str] = []  # the game packages found (once: a folder scan)


def all_kinds() -> list[GameKind]:
    """Every game kind, each game package imported (so all their actions are registered)."""
    if not _DISCOVERED:
        _DISCOVERED.extend(game_names())
    for name in _DISCOVERED:
        if name not in GAMES:
            _import_kind(name)
    return [GAMES[n] for n in sorted(GAMES)]


def system_names() -> set[str]:
    """Names of the systems any game kind has (``game.escapade`` is None in a game without
    one, rather than an error)."""
    return {cls.name for kind in all_kinds() for cls in kind.systems}


def game_kind(name: str) -> GameKind:
    """The registered game called ``name``, importing its package's ``kind`` on first use.

    Raises
    ------
    SceneError
        No such game (naming the scene field ``game`` and the games known).
    """
    if name not in GAMES and name.isidentifier():
        _import_kind(name)
    if name not in GAMES:
        raise SceneError(f"game: {name!r} is not a game this sandbox plays (have "
                         f"{game_names()})")
    return GAMES[name]
