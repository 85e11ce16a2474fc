"""Panda3D rendering of a game state, on screen or offscreen (reads state; never changes it).

``sandbox.render.view`` holds the plain input records (no Panda3D import);
``sandbox.render.offscreen`` draws them. The renderer names are loaded lazily so that building
a :class:`SceneView` does not load Panda3D.
"""

from __future__ import annotations

from sandbox.render.view import (
    Camera,
    Marker,
    MarkerKind,
    RenderBody,
    RenderError,
    RenderMesh,
    SceneView,
)

__all__ = [
    "Camera",
    "Marker",
    "MarkerKind",
    "RenderBody",
    "RenderError",
    "RenderMesh",
    "SceneView",
    "OffscreenRenderer",
    "RenderStats",
    "render_array",
    "render_png",
]

_LAZY = {"OffscreenRenderer", "RenderStats", "render_array", "render_png"}


def __getattr__(name: str):
    if name in _LAZY:  # loaded on first use, so this package never imports Panda3D itself
        import importlib

        return getattr(importlib.import_module("sandbox.render.offscreen"), name)
    raise AttributeError(f"module 'sandbox.render' has no attribute {name!r}")
