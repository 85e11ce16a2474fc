"""Build a :class:`~sandbox.render.view.SceneView` from game state or a replay frame.

Rendering reads state and never changes it: these functions only read poses, meshes and
statuses, and return new view records.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from ..core.transforms import quat_to_matrix
from .view import Camera, Marker, RenderBody, RenderMesh, SceneView

#: Tint mixed into a destroyed body's colours (scorched grey), and the mix fraction.
DESTROYED_TINT = np.array([0.18, 0.17, 0.16, 1.0], dtype=np.float32)
DESTROYED_MIX = 0.55


def _scorch(colours: np.ndarray) -> np.ndarray:
    return (colours * (1 - DESTROYED_MIX) + DESTROYED_TINT * DESTROYED_MIX).astype(np.float32)


def render_mesh_of(asset, destroyed: bool = False, edges: bool = False) -> RenderMesh:
    """A RenderMesh from a game asset's body-frame arrays (vertices, normals, colours).

    With ``edges`` the mesh carries the asset's LDraw edge lines (type 2, and type-5
    optional lines) from ``asset.edge_lines()`` when the asset has them (bodies built from
    LDraw models), in LDConfig's edge colours (scorched too when ``destroyed``).
    """
    colours = asset.local_colours
    if destroyed:
        colours = _scorch(colours)
    lines = asset.edge_lines() if edges and hasattr(asset, "edge_lines") else None
    if lines is None:
        return RenderMesh(asset.local_vertices, asset.local_normals, colours,
                          edges=asset.local_edges if edges else None, name=asset.name)
    ecol, ocol = lines.edge_colours, lines.optional_colours
    if destroyed:
        ecol, ocol = _scorch(ecol), _scorch(ocol)
    return RenderMesh(asset.local_vertices, asset.local_normals, colours,
                      edges=lines.edges, edge_colours=ecol, name=asset.name,
                      optional=lines.optional, optional_colours=ocol)


def _world_bounds(body: RenderBody) -> np.ndarray:
    """Exact (2, 3) world bounds of a posed body's vertices (tighter than a rotated box)."""
    v = body.mesh.vertices
    if not len(v):
        return np.zeros((2, 3))
    w = v @ quat_to_matrix(body.orientation).T + body.position
    return np.stack([w.min(axis=0), w.max(axis=0)])


def scene_view(
    assets: Mapping[str, object],
    poses: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    battlefield: tuple[float, float],
    ground_colour: Sequence[float] = (0.36, 0.5, 0.3),
    destroyed: Sequence[str] = (),
    markers: Sequence[Marker] = (),
    camera: Camera | None = None,
    frame_keys: Sequence[str] | None = None,
    aspect: float = 4 / 3,
    edges: bool = False,
) -> SceneView:
    """A view of bodies at given poses.

    Parameters
    ----------
    assets : mapping of key to asset
        Objects with ``local_vertices (n, 3)``, ``local_normals``, ``local_colours (n, 4)``,
        ``local_edges (m, 2, 3) or None`` and ``name`` (body frame, inches).
    poses : mapping of key to (position (3,), quaternion (x, y, z, w))
        World poses; bodies without a pose are not drawn (exploded, removed).
    battlefield : (width, depth)
        Inches.
    destroyed : sequence of str
        Keys drawn scorched.
    camera : Camera, optional
        Default: a 3/4 view framing the bodies listed in ``frame_keys`` (all when None).
    edges : bool
        Draw the LDraw edge lines (type 2 and optional type 5) over the faces.
    """
    bodies = []
    dead = set(destroyed)
    for key, asset in assets.items():
        if key not in poses:
            continue
        pos, quat = poses[key]
        bodies.append(RenderBody(render_mesh_of(asset, key in dead, edges),
                                 np.asarray(pos, float),
                                 np.asarray(quat, float), key=key))
    if camera is None and bodies:
        chosen = [b for b in bodies if frame_keys is None or b.key in frame_keys] or bodies
        exact = [_world_bounds(b) for b in chosen]
        lo = np.min([e[0] for e in exact], axis=0)
        hi = np.max([e[1] for e in exact], axis=0)
        lo[2] = min(lo[2], 0.0)
        camera = Camera.framing(lo, hi, aspect=aspect)
    rgba = tuple(ground_colour) + ((1.0,) if len(ground_colour) == 3 else ())
    return SceneView(bodies=bodies, markers=markers, battlefield=tuple(battlefield),
                     ground_colour=rgba, camera=camera, edges=edges)
