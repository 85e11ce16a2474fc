"""BrikWars physics tabletop sandbox.

Layers (imports point downwards only; see docs/ARCHITECTURE.md)::

    cli / app    the command line and the window (net: online play)
    render       Panda3D scene graph from the game state (reads state, never changes it)
    games        the game kinds (brikwars, brigandine, micro_brick_war): systems, actions
    engine       the game-agnostic engine: Game, Table, scenes, turns, actions, the event
                 log, outcomes, saves, replays (imports nothing from games)
    physics      the pybullet world (the only package that imports pybullet)
    rules        BrikWars rules as pure functions and dataclasses
    bricks       LDraw reading, the built-in part catalogue, meshes, studs
    core         units (inches, LDU, frames) and seeded dice streams

World frame: inches, Z up, right-handed; seconds; radians; grams.
"""

from .core.errors import ReplayError, RulesError, SandboxError, SceneError

__version__ = "0.1.0"
__all__ = ["open_game", "RulesError", "SceneError", "ReplayError", "SandboxError"]


def open_game(path, seed=None, ldrawdir=None, on_event=None, referee=False):
    """The game engine for a scene file (.toml) or a saved game (.save.json).

    The scripting entry point: ``game.apply(action_or_dict)``, ``game.end_turn()``,
    ``game.turn``, ``game.current_player``, ``game.events``, ``game.state_hash()``,
    ``game.save(path)``, ``game.close()`` (or ``with``), ``game.outcome``. ``referee``: the
    table has a referee (the referee's tools are accepted). See
    :func:`sandbox.engine.game.open_game`.

    Raises
    ------
    SceneError, ReplayError
        One line naming the file and what is wrong. ``game.apply`` raises ``RulesError``
        (a refused action); all are ``sandbox.SandboxError``, importable from ``sandbox``.
    """
    from .engine.game import open_game as _open

    return _open(path, seed=seed, ldrawdir=ldrawdir, on_event=on_event, referee=referee)
