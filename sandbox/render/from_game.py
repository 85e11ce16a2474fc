"""Build a :class:`~sandbox.render.view.SceneView` from game state or a replay frame.

Rendering reads state and never changes it: these functions only read poses, meshes and
statuses, and return new view records.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..core.transforms import quat_to_matrix
from .view import Camera, Marker, RenderBody, RenderMesh, SceneView

#: Tint mixed into a destroyed body's colours (scorched grey), and the mix fraction.
DESTROYED_TINT = np.array([0.18, 0.17, 0.16, 1.0], dtype=np.float32)
DESTROYED_MIX = 0.55


def _scorch(colours: np.ndarray) -> np.ndarray:
    return (colours * (1 - DESTROYED_MIX) + DESTROYED_TINT * DESTROYED_MIX).astype(np.float32)


@dataclass(frozen=True)
class Detail:
    """How much of a body's geometry is drawn (issue 26, "draw what can be seen").

    Attributes
    ----------
    cull : bool
        Leave out the studs and tubes the body's own parts hide (never seen from outside:
        :mod:`sandbox.bricks.visible`).
    low_res_studs : bool
        Stud and tube primitives with 8 segments a circle instead of LDraw's 16
        (:mod:`sandbox.bricks.lowres`); the studs that show look a little faceted close up.
    """

    cull: bool = True
    low_res_studs: bool = True


#: The levels by name: ``low`` (the default: hidden studs culled, low-resolution studs),
#: ``culled`` (hidden studs culled, full studs), ``full`` (every stud and tube, as LDraw
#: draws them).
DETAILS: dict[str, Detail] = {"low": Detail(True, True), "culled": Detail(True, False),
                              "full": Detail(False, False)}
#: Environment variable naming the default level (``low``, ``culled`` or ``full``).
DETAIL_ENV = "SANDBOX_DETAIL"


def default_detail() -> Detail:
    """The level from ``$SANDBOX_DETAIL`` (``low``, ``culled``, ``full``), else ``low``.

    Raises
    ------
    RenderError
        For another value (naming the variable and the choices).
    """
    from .view import RenderError

    name = os.environ.get(DETAIL_ENV, "").strip().lower() or "low"
    if name not in DETAILS:
        raise RenderError(f"{DETAIL_ENV}={name!r} is not a detail level (one of "
                          f"{', '.join(DETAILS)})")
    return DETAILS[name]


def render_mesh_of(asset, destroyed: bool = False, edges: bool = False,
                   detail: Detail | None = None) -> RenderMesh:
    """A RenderMesh of a game asset in its body frame.

    Bodies built from LDraw models are drawn from their parts at ``detail`` (default
    :func:`default_detail`): :meth:`~sandbox.engine.assets.BodyAsset.visible_geometry`
    leaves out the studs and tubes the body's parts hide and takes low-resolution studs.
    Other assets (and ``Detail(False, False)`` for model bodies that have their mesh
    already) are drawn from their ``local_*`` arrays.

    With ``edges`` the mesh carries the asset's LDraw edge lines (type 2, and type-5
    optional lines) when the asset has them (bodies built from LDraw models), in LDConfig's
    edge colours (scorched too when ``destroyed``), the hidden studs' lines left out alike.
    """
    detail = default_detail() if detail is None else detail
    seen = None
    if (detail.cull or detail.low_res_studs) and hasattr(asset, "visible_geometry"):
        seen = asset.visible_geometry(cull=detail.cull, low_res=detail.low_res_studs)
    if seen is not None:
        vertices, normals, colours, lines = seen
        if not edges:
            lines = None
    else:
        vertices, normals, colours = (asset.local_vertices, asset.local_normals,
                                      asset.local_colours)
        lines = asset.edge_lines() if edges and hasattr(asset, "edge_lines") else None
    if destroyed:
        colours = _scorch(colours)
    if lines is None:
        return RenderMesh(vertices, normals, colours,
                          edges=asset.local_edges if edges and seen is None else None,
                          name=asset.name)
    ecol, ocol = lines.edge_colours, lines.optional_colours
    if destroyed:
        ecol, ocol = _scorch(ecol), _scorch(ocol)
    return RenderMesh(vertices, normals, colours,
                      edges=lines.edges, edge_colours=ecol, name=asset.name,
                      optional=lines.optional, optional_colours=ocol)


def far_mesh_of(asset, destroyed: bool = False) -> RenderMesh | None:
    """The far level of detail of a game asset in its body frame, or None when it has none.

    A body built from an LDraw model is drawn from afar without studs, tubes and edge lines,
    its detailed parts decimated (:mod:`sandbox.bricks.lod`); the window draws it instead of
    :func:`render_mesh_of` when a stud would be a few pixels (``FAR_STUD_PIXELS`` in
    :mod:`sandbox.render.geometry`). Other assets (boxes, the catalogue's stand-ins without a
    model) have no far level: None.
    """
    if not hasattr(asset, "visible_geometry"):
        return None
    seen = asset.visible_geometry(far=True)
    if seen is None:
        return None
    vertices, normals, colours, _lines = seen
    if destroyed:
        colours = _scorch(colours)
    return RenderMesh(vertices, normals, colours, name=asset.name + " (far)")


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
    detail: Detail | None = None,
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
    detail : Detail, optional
        How much of each body is drawn (default :func:`default_detail`).
    """
    bodies = []
    dead = set(destroyed)
    for key, asset in assets.items():
        if key not in poses:
            continue
        pos, quat = poses[key]
        bodies.append(RenderBody(render_mesh_of(asset, key in dead, edges, detail),
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
