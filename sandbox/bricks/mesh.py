"""World-frame meshes and collision boxes of a loaded model (inches, Z up).

Everything here converts through :mod:`sandbox.core.units` (LDU → inches, LDraw -Y up →
world Z up); nothing else does.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from sandbox.bricks.colours import EDGE_COLOUR, MAIN_COLOUR
from sandbox.bricks.model import Model, PartPlacement
from sandbox.core.units import ldraw_directions_to_world, ldraw_points_to_world


@dataclass(frozen=True, eq=False)
class MeshArrays:
    """A triangle soup in world inches (Z up).

    Attributes
    ----------
    vertices : (n, 3) float32
        Inches, world frame; every 3 rows are one triangle, CCW seen from its front.
    normals : (n, 3) float32
        Unit face normal of each vertex's triangle (flat shading).
    colours : (n, 4) float32
        RGBA 0..1 per vertex (16/24 resolved through the model's colour table).
    placement_index : (n // 3,) int32
        Index into the placements given to :func:`model_mesh` of each triangle.
    """

    vertices: np.ndarray
    normals: np.ndarray
    colours: np.ndarray
    placement_index: np.ndarray

    @property
    def n_triangles(self) -> int:
        """Number of triangles (``len(vertices) // 3``)."""
        return len(self.vertices) // 3


@dataclass(frozen=True)
class PartBox:
    """A placement's part-frame bounding box, placed in the world (a physics box shape).

    Attributes
    ----------
    centre : (3,) float
        Box centre, inches, world frame.
    half_extents : (3,) float
        Half sizes along the box's own axes, inches.
    rotation : (3, 3) float
        Proper rotation (det +1) whose columns are the box axes in the world frame.
    """

    centre: np.ndarray
    half_extents: np.ndarray
    rotation: np.ndarray


def _resolve_codes(codes: np.ndarray, colour: int, model: Model) -> np.ndarray:
    """Per-triangle RGBA for part colour codes placed with ``colour``."""
    table = model.colours
    uniq, inv = np.unique(codes, return_inverse=True)
    lut = np.empty((len(uniq), 4), dtype=np.float32)
    for i, c in enumerate(uniq):
        c = int(c)
        if c == MAIN_COLOUR:
            lut[i] = table.rgba(colour)
        elif c == EDGE_COLOUR:
            lut[i] = table.edge_rgba(colour)
        else:
            lut[i] = table.rgba(c)
    return lut[inv.reshape(-1)]


#: Bytes one placed triangle costs in a model's mesh (vertices, normals, colours, index,
#: float32, both windings of uncertified ones counted once) and its working copies.
MESH_BYTES_PER_TRIANGLE: int = 3 * (12 + 12 + 16) + 8 + 72


def check_mesh_memory(model: Model, placements: list) -> int:
    """Estimate the memory a mesh of ``placements`` needs and refuse it above the limit.

    Returns
    -------
    int
        The estimate, bytes.

    Raises
    ------
    LDrawError
        When the estimate is over ``SANDBOX_MAX_MESH_MB`` (:mod:`sandbox.core.limits`).
    """
    from sandbox.core.errors import LDrawError
    from sandbox.core.limits import how_to_raise, limit

    counts: dict[str, int] = {}
    for p in placements:
        counts[p.part] = counts.get(p.part, 0) + 1
    tris = sum(len(model.parts[name].triangles) * 2 * n for name, n in counts.items()
               if name in model.parts)
    need = tris * MESH_BYTES_PER_TRIANGLE
    cap = limit("mesh_mb")
    if need > cap * 1048576:
        raise LDrawError(f"the mesh of {len(placements)} parts ({tris} triangles) would need "
                         f"about {need / 1048576:.0f} MiB, over the {cap} MiB limit "
                         f"({how_to_raise('mesh_mb')})", model.path)
    return need


def _placed_triangles(model: Model, pls: list[PartPlacement], double_sided_uncertified: bool):
    """Each placement's triangles where the model puts them, grouped by part: yields
    (placement index, its part's mesh, the placement, triangles (t, 3, 3) LDU with the winding
    made counter-clockwise, ``back``: the mask of the part's uncertified triangles whose
    reversed copies follow the triangles, or None when none were added)."""
    by_part: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(pls):
        by_part[p.part].append(i)
    for name, members in by_part.items():
        pm = model.parts[name]
        tris = pm.triangles
        if len(tris) == 0:
            continue
        cert = pm.certified
        back = ~cert if double_sided_uncertified and not cert.all() else None
        for i in members:
            p = pls[i]
            a, t = p.matrix[:3, :3], p.matrix[:3, 3]
            placed = tris @ a.T + t
            if (np.linalg.det(a) < 0) != p.inverted:
                placed = placed[:, [0, 2, 1]]
            if back is not None:
                placed = np.concatenate([placed, placed[back][:, [0, 2, 1]]])
            yield i, pm, p, placed, back


def model_mesh(model: Model, placements: Iterable[PartPlacement] | None = None, *,
               double_sided_uncertified: bool = True) -> MeshArrays:
    """Concatenate the placed part meshes into one world-frame triangle soup.

    Parameters
    ----------
    model : Model
    placements : iterable of PartPlacement, optional
        A subset of ``model.placements`` (default: all).
    double_sided_uncertified : bool
        Emit triangles of non-BFC-certified parts twice (both windings), so a renderer may
        cull back faces everywhere.

    Returns
    -------
    MeshArrays
        Vertices in inches, world frame (Z up); ``n`` is a multiple of 3.
    """
    pls = list(model.placements if placements is None else placements)
    check_mesh_memory(model, pls)
    verts, cols, idx = [], [], []
    for i, pm, p, placed, back in _placed_triangles(model, pls, double_sided_uncertified):
        rgba = _resolve_codes(pm.colours, p.colour, model)
        if back is not None:
            rgba = np.concatenate([rgba, rgba[back]])
        verts.append(placed)
        cols.append(rgba)
        idx.append(np.full(len(placed), i, dtype=np.int32))
    if not verts:
        z = np.zeros((0, 3), dtype=np.float32)
        return MeshArrays(z, z.copy(), np.zeros((0, 4), np.float32), np.zeros(0, np.int32))
    tri_ldu = np.concatenate(verts)
    world = ldraw_points_to_world(tri_ldu).astype(np.float32)  # (t, 3, 3) inches, Z up
    nrm = np.cross(world[:, 1] - world[:, 0], world[:, 2] - world[:, 0])
    length = np.linalg.norm(nrm, axis=1, keepdims=True)
    nrm = np.where(length > 0, nrm / np.maximum(length, 1e-30), 0.0).astype(np.float32)
    rgba = np.concatenate(cols)
    return MeshArrays(
        vertices=world.reshape(-1, 3),
        normals=np.repeat(nrm, 3, axis=0),
        colours=np.repeat(rgba, 3, axis=0).astype(np.float32),
        placement_index=np.concatenate(idx),
    )



def model_vertices(model: Model, placements: Iterable[PartPlacement] | None = None, *,
                   double_sided_uncertified: bool = True) -> np.ndarray:
    """The vertices (n, 3) float32 of :func:`model_mesh`, bit for bit and in the same order,
    without its normals, colours and placement index (issue 26: a submodel kept where its
    model puts it is set down by the whole model's bounds, which need only these)."""
    pls = list(model.placements if placements is None else placements)
    check_mesh_memory(model, pls)
    verts = [placed for _, _, _, placed, _ in
             _placed_triangles(model, pls, double_sided_uncertified)]
    if not verts:
        return np.zeros((0, 3), dtype=np.float32)
    return ldraw_points_to_world(np.concatenate(verts)).astype(np.float32).reshape(-1, 3)


@dataclass(frozen=True, eq=False)
class LineArrays:
    """The LDraw edge lines of placed parts, in world inches (Z up).

    Attributes
    ----------
    edges : (m, 2, 3) float32
        Type-2 lines: always drawn.
    edge_colours : (m, 4) float32
        RGBA 0..1 (24 resolved to the LDConfig edge colour of the placement's colour).
    edge_index : (m,) int32
        Index into the placements of each line.
    optional : (k, 4, 3) float32
        Type-5 optional lines: the two end points, then the two control points.
    optional_colours : (k, 4) float32
    optional_index : (k,) int32
    """

    edges: np.ndarray
    edge_colours: np.ndarray
    edge_index: np.ndarray
    optional: np.ndarray
    optional_colours: np.ndarray
    optional_index: np.ndarray


def model_lines(model: Model, placements: Iterable[PartPlacement] | None = None) -> LineArrays:
    """Concatenate the placed parts' edge lines (LDraw types 2 and 5) in world inches.

    The lines a viewer like LDView or LeoCAD draws over the faces: type 2 always, type 5
    only where its control points lie on one side of it on screen (the renderer decides).
    Colour 24 becomes the edge colour of the placement's colour from the model's colour
    table (LDConfig.ldr when the library has one; see :meth:`ColourTable.edge_rgba`).

    Parameters
    ----------
    model : Model
    placements : iterable of PartPlacement, optional
        A subset of ``model.placements`` (default: all).

    Returns
    -------
    LineArrays
        In the frame :func:`model_mesh` uses (inches, Z up).
    """
    pls = list(model.placements if placements is None else placements)
    out: dict[str, list] = {k: [] for k in ("e", "ec", "ei", "o", "oc", "oi")}
    by_part: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(pls):
        by_part[p.part].append(i)
    for name, members in by_part.items():
        pm = model.parts[name]
        edges, optional = pm.edges, pm.optional
        if not len(edges) and not len(optional):
            continue
        for i in members:
            p = pls[i]
            a, t = p.matrix[:3, :3], p.matrix[:3, 3]
            if len(edges):
                out["e"].append(edges @ a.T + t)
                out["ec"].append(_resolve_codes(pm.edge_colours, p.colour, model))
                out["ei"].append(np.full(len(edges), i, dtype=np.int32))
            if len(optional):
                out["o"].append(optional @ a.T + t)
                out["oc"].append(_resolve_codes(pm.optional_colours, p.colour, model))
                out["oi"].append(np.full(len(optional), i, dtype=np.int32))

    return line_arrays_of(out)


def line_arrays_of(parts: dict[str, list]) -> LineArrays:
    """:class:`LineArrays` from placed pieces in the LDraw frame (LDU): ``parts["e"]`` edge
    segments (k, 2, 3), ``"ec"`` their RGBA, ``"ei"`` their placement indices, and ``"o"``,
    ``"oc"``, ``"oi"`` the same for optional lines (k, 4, 3); empty lists give empty arrays."""
    def cat(key: str, shape: tuple, dtype) -> np.ndarray:
        return np.concatenate(parts[key]).astype(dtype) if parts[key] else np.zeros(shape, dtype)

    return LineArrays(
        edges=ldraw_points_to_world(cat("e", (0, 2, 3), np.float64)).astype(np.float32),
        edge_colours=cat("ec", (0, 4), np.float32),
        edge_index=cat("ei", (0,), np.int32),
        optional=ldraw_points_to_world(cat("o", (0, 4, 3), np.float64)).astype(np.float32),
        optional_colours=cat("oc", (0, 4), np.float32),
        optional_index=cat("oi", (0,), np.int32),
    )


def _body_bounds(model: Model, p: PartPlacement, studs: bool) -> np.ndarray:
    pm = model.parts[p.part]
    b = np.array(pm.bounds, dtype=float)
    if not studs and len(pm.studs):
        # drop the studs sticking out of the top: when all studs point up (-Y) and only they
        # rise above their bases, the body starts at the stud bases
        up = np.allclose(pm.stud_axes, [0.0, -1.0, 0.0], atol=1e-6)
        top = pm.studs[:, 1].min()
        if up and b[0, 1] < top and top - b[0, 1] <= 4.5 and np.allclose(pm.studs[:, 1], top):
            b[0, 1] = top
    return b


def placement_box(model: Model, placement: PartPlacement, *, studs: bool = False) -> PartBox:
    """The world-frame box of one placement (part-frame axis-aligned bounds, placed).

    Parameters
    ----------
    model : Model
    placement : PartPlacement
    studs : bool
        Include the studs on top (default False: the body only, so stacked boxes touch).

    Returns
    -------
    PartBox
        Inches, world frame, Z up. A scale in the placement matrix goes into the half extents;
        a mirror flips one box axis (a box is symmetric).
    """
    b = _body_bounds(model, placement, studs)
    m = placement.matrix
    centre_ldu = m[:3, :3] @ ((b[0] + b[1]) / 2.0) + m[:3, 3]
    half_local = np.abs(ldraw_points_to_world((b[1] - b[0]) / 2.0))  # inches, part world axes
    # world = R (A x) for a part-local LDraw x; part-local world axes u = R x, so x = R^T u:
    # columns of  R A R^T  are the box axes (scaled by any scale in A)
    a_ldu = m[:3, :3]
    basis = ldraw_directions_to_world(ldraw_directions_to_world(a_ldu).T).T  # R A R^T
    scale = np.linalg.norm(basis, axis=0)
    rot = basis / np.where(scale > 1e-12, scale, 1.0)
    if np.linalg.det(rot) < 0:
        rot[:, 0] = -rot[:, 0]
    return PartBox(ldraw_points_to_world(centre_ldu), half_local * scale, rot)


def placement_boxes(model: Model, placements: Iterable[PartPlacement] | None = None, *,
                    studs: bool = False) -> list[PartBox]:
    """:func:`placement_box` for each placement (default: all of the model's)."""
    pls = model.placements if placements is None else placements
    return [placement_box(model, p, studs=studs) for p in pls]


def model_bounds_in(model: Model, placements: Iterable[PartPlacement] | None = None) -> np.ndarray:
    """Axis-aligned bounds of the placed geometry in inches, world frame (Z up).

    Returns
    -------
    (2, 3) float
        ``[[xmin, ymin, zmin], [xmax, ymax, zmax]]``; zeros when there is nothing.
    """
    pls = list(model.placements if placements is None else placements)
    if not pls:
        return np.zeros((2, 3))
    by_part: dict[str, list[np.ndarray]] = defaultdict(list)
    for p in pls:
        by_part[p.part].append(p.matrix)
    lo = np.full(3, np.inf)
    hi = np.full(3, -np.inf)
    for name, mats in by_part.items():
        pts = model.parts[name].points  # (q, 3) LDU
        ms = np.asarray(mats)  # (k, 4, 4)
        placed = np.einsum("kij,qj->kqi", ms[:, :3, :3], pts) + ms[:, None, :3, 3]
        lo = np.minimum(lo, placed.reshape(-1, 3).min(axis=0))
        hi = np.maximum(hi, placed.reshape(-1, 3).max(axis=0))
    corners = ldraw_points_to_world(np.array([[x, y, z] for x in (lo[0], hi[0])
                                              for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]))
    return np.stack([corners.min(axis=0), corners.max(axis=0)])


def model_info(model: Model) -> dict:
    """A summary of a loaded model.

    Returns
    -------
    dict
        ``parts`` (int, part placements after expanding submodels), ``distinct_parts`` (int),
        ``submodels`` (int, see :attr:`Model.submodels`), ``missing_parts`` (int),
        ``bbox_in`` (``[[xmin, ymin, zmin], [xmax, ymax, zmax]]`` in inches, world frame, Z up;
        all zeros for an empty model), ``mass_g`` (float, nominal), ``warnings``
        (list of ``"file:line: message"``).
    """
    return {
        "name": model.name,
        "parts": len(model.placements),
        "distinct_parts": len(model.parts),
        "submodels": len(model.submodels),
        "missing_parts": sum(p.missing for p in model.placements),
        "bbox_in": model_bounds_in(model).tolist(),
        "mass_g": float(sum(model.parts[p.part].mass_g for p in model.placements)),
        "warnings": [str(w) for w in model.warnings],
    }
