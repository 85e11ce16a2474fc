"""The conformance check of a game kind: what the engine cannot see until a game is played,
checked from the kind's classes alone (``tests/test_game_kinds.py`` runs it on every kind).

- every hook-like method of a system is a hook the engine calls (a misspelt ``start_of_turm``
  would never run);
- every action class a system lists is applied by it (a ``@handles`` method, or its own
  ``apply``), and every action type the game's modules define is played by one of its systems;
- every action type of the kind can be named by a scene file (parsed through the scene
  loader, as ``[[actions]]`` are);
- the kind's systems have unique names (the state's keys, ``table.system(name)``);
- the kind's window modes resolve: its ``window`` module imports, and its ``MODES`` are classes
  with unique, non-empty names (its ``KEYS``, if any, a tuple; its ``tags``, if any,
  callable). The engine checks only this much of them: what a mode is belongs to the window
  (``sandbox.app.table.mode``).
"""

from __future__ import annotations

import difflib

from ..core.errors import SceneError
from .actions import REGISTRY, RETIRED, EndTurnAction, action_names
from .kinds import GameKind
from .scene import scene_from_dict
from .table import System

#: The hooks the engine calls on every system (see :class:`~sandbox.engine.table.System`).
HOOKS: frozenset[str] = frozenset({
    "setup", "on_step", "on_path", "on_damage", "on_impact", "after_step", "after_settle",
    "needs_settle", "status_words", "may_act", "blocks_sight", "sight_blockers", "start_of_turn",
    "end_of_turn", "start_of_player_turn", "end_of_player_turn", "pending", "player_order",
    "sits_out", "check", "state", "outcome", "refusal", "apply", "wanted"})
#: Method names that read as a hook whatever follows (``start_of_…``, ``end_of_…``).
_HOOK_PREFIXES = ("start_of_", "end_of_")
#: The scene a conformance check names actions in.
_SCENE = {"players": [{"name": "A"}], "units": [{"id": "u", "parts": [{"part": "3001"}]}]}


def _package(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:3]) if parts[:2] == ["sandbox", "games"] else module


def check_game_kind(kind: GameKind) -> list[str]:
    """What is wrong with ``kind``, one line a problem (empty: it conforms)."""
    problems: list[str] = []
    names = [cls.name for cls in kind.systems]
    for n in sorted({n for n in names if names.count(n) > 1 or not n}):
        problems.append(f"{kind.name}: system name {n!r} is " +
                        ("empty" if not n else f"used by {names.count(n)} systems"))
    played: dict[type, type] = {}
    for cls in kind.systems:
        if not (isinstance(cls, type) and issubclass(cls, System)):
            problems.append(f"{kind.name}: {cls!r} is not a System class")
            continue
        for klass in cls.__mro__:
            if klass is System or not issubclass(klass, System):
                continue
            for attr, value in vars(klass).items():
                if attr.startswith("_") or not callable(value) or attr in HOOKS:
                    continue
                near = difflib.get_close_matches(attr, HOOKS, n=1, cutoff=0.85)
                if attr.startswith(_HOOK_PREFIXES) or near:
                    hint = f" (did you mean {near[0]!r}?)" if near else ""
                    problems.append(f"{kind.name}: {cls.__name__}.{attr} is no hook the engine "
                                    f"calls{hint}")
        own_apply = cls.apply is not System.apply
        for action in cls.actions:
            played[action] = cls
            if action is EndTurnAction:
                continue
            if not own_apply and not any(k in cls.appliers for k in action.__mro__):
                problems.append(f"{kind.name}: {cls.__name__} lists {action.__name__} but no "
                                f"method of it handles it (@handles)")
    packages = {_package(cls.__module__) for cls in kind.systems}
    for action in dict.fromkeys(REGISTRY.values()):
        if (_package(action.__module__) in packages and action not in played
                and action is not EndTurnAction):
            problems.append(f"{kind.name}: no system plays {action.__name__} "
                            f"({', '.join(map(repr, action_names(action)))})")
    for action, cls in played.items():
        type_names = action_names(action)
        if not type_names:
            problems.append(f"{kind.name}: {cls.__name__} plays {action.__name__}, whose type "
                            "is no Literal: a scene cannot name it")
        for t in type_names:
            if t in RETIRED:
                problems.append(f"{kind.name}: action type {t!r} of {action.__name__} is a "
                                "retired name: a scene cannot name it")
                continue
            if REGISTRY.get(t) is not action:
                problems.append(f"{kind.name}: action type {t!r} of {action.__name__} is not "
                                "registered: a scene cannot name it")
                continue
            try:
                scene_from_dict({**_SCENE, "game": kind.name,
                                 "actions": [{"type": t, "player": "A"}]}, "conformance")
            except SceneError as exc:
                if "does not match any of the expected tags" in str(exc):
                    problems.append(f"{kind.name}: a scene cannot name action type {t!r}: {exc}")
    problems.extend(_window_problems(kind))
    return problems


def _window_problems(kind: GameKind) -> list[str]:
    """What is wrong with the window modes ``kind`` declares (see the module text)."""
    if not kind.window:
        return []
    try:
        module = kind.window_module()
    except ImportError as exc:
        return [f"{kind.name}: window {kind.window!r} cannot be imported: {exc}"]
    modes = getattr(module, "MODES", None)
    if not isinstance(modes, tuple) or not modes:
        return [f"{kind.name}: window {kind.window!r} has no MODES (a tuple of mode classes)"]
    problems = []
    names = [getattr(cls, "name", None) for cls in modes]
    for cls, name in zip(modes, names, strict=True):
        if not isinstance(cls, type) or not isinstance(name, str) or not name:
            problems.append(f"{kind.name}: {kind.window}.MODES: {cls!r} is no mode class with "
                            "a name")
    for n in sorted({n for n in names if isinstance(n, str) and n and names.count(n) > 1}):
        problems.append(f"{kind.name}: {kind.window}.MODES: {names.count(n)} modes are named "
                        f"{n!r}")
    if not isinstance(getattr(module, "KEYS", ()), tuple):
        problems.append(f"{kind.name}: {kind.window}.KEYS is not a tuple of key map rows")
    tags = getattr(module, "tags", None)
    if tags is not None and not callable(tags):
        problems.append(f"{kind.name}: {kind.window}.tags is not callable")
    return problems
