"""BrikWars physics tabletop sandbox.

Layers (imports point downwards only; see DESIGN.md)::

    cli / app    the command line and the window
    render       Panda3D scene graph from the game state (reads state, never changes it)
    game         scenes, turns, actions, the event log, replays
    physics      the pybullet world (the only package that imports pybullet)
    rules        BrikWars rules as pure functions and dataclasses
    bricks       LDraw reading, the built-in part catalogue, meshes, studs
    core         units (inches, LDU, frames) and seeded dice streams

World frame: inches, Z up, right-handed; seconds; radians; grams.
"""

__version__ = "0.1.0"


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
        One line naming the file and what is wrong.
    """
    from .engine.game import open_game as _open

    return _open(path, seed=seed, ldrawdir=ldrawdir, on_event=on_event, referee=referee)
