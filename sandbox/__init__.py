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
