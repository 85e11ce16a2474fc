"""What of a creation can be seen: its render geometry without the studs and tubes that the
parts around them hide (issue 26, "draw what can be seen").

A stud sitting in another part of the same creation, and the underside tubes of a part that
stands on others, are inside closed plastic: drawing them costs a software renderer most of
its time (a 2 x 4 brick's eight studs and three tubes are 672 of its 700 triangles) and
changes no pixel. The rules, all from the stud connectivity of
:mod:`sandbox.bricks.connectivity` and the parts' own geometry:

- **The underside of a part P is closed** when P is opaque and every 20 x 20 LDU cell of its
  bottom face holds the stud of another opaque part of the creation (the stud joint test of
  :func:`~sandbox.bricks.connectivity.stud_receivers`: its probe inside P's body box), that
  stud points into P (along P's -Y), and that part's body box covers the whole cell. Parts
  whose footprint is not whole cells (round, odd shapes) are never closed.
- **A stud is hidden** when the part it sits in is closed underneath and is opaque, and rays
  from the stud's inside (five along its axis, one at its centre and four 5 LDU out, and eight
  across it) all meet that part's own faces (its stud and tube primitives not counted): a
  grille, a hollow stud open through the part, a window or an arch above it lets a ray out,
  and the stud stays.
- **The tubes of a part are hidden** when its underside is closed and a ray up the tube's
  axis meets the part's own faces (a round brick's hollow stud leaves its tube drawn).

A translucent part hides nothing and is never closed. Everything is computed from the parts
given: the pieces of a broken creation pass their own parts, so the studs that a break
uncovers are drawn again. Triangles, edge lines and optional lines of hidden studs and tubes
are dropped alike (:func:`visible_mesh`), from the shared part meshes
(:attr:`~sandbox.bricks.partmesh.PartMesh.features` says which primitive drew what), in full or
low resolution (:func:`~sandbox.bricks.lowres.low_res_part`).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sandbox.bricks.connectivity import placement_studs, placement_studs_ldu, stud_receivers
from sandbox.bricks.mesh import (
    LineArrays,
    MeshArrays,
    _body_bounds,
    _resolve_codes,
    check_mesh_memory,
    line_arrays_of,
    placement_boxes,
)
from sandbox.bricks.model import Model, PartPlacement
from sandbox.bricks.partmesh import BODY_FEATURE, PartMesh, feature_arrays
from sandbox.core.units import ldraw_points_to_world

#: Side of a stud cell, LDU.
CELL_LDU: float = 20.0
#: Radius out from a stud's axis of the four rays along it, LDU (a stud's radius is 6).
RAY_OFFSET_LDU: float = 5.0
#: Most cells a part's underside may have for the closed test (a 16 x 16 baseplate: 256).
MAX_CELLS: int = 1024

_RAYS_LOCK = threading.Lock()
#: Per part mesh: its body triangles and the answers of the ray test by local stud pose.
_RAYS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Hidden:
    """Which studs and tubes of placed parts are hidden (see the module docstring).

    Attributes
    ----------
    studs : tuple of (k_i,) bool arrays
        Per placement, per stud of its part (``PartMesh.studs`` order): hidden.
    tubes : tuple of (j_i,) bool arrays
        Per placement, per underside tube (``PartMesh.tubes`` order): hidden.
    closed : (n,) bool
        Per placement: its underside is closed.
    """

    studs: tuple[np.ndarray, ...]
    tubes: tuple[np.ndarray, ...]
    closed: np.ndarray

    @property
    def hidden_studs(self) -> int:
        """How many studs are hidden."""
        return int(sum(int(m.sum()) for m in self.studs))

    @property
    def hidden_tubes(self) -> int:
        """How many tubes are hidden."""
        return int(sum(int(m.sum()) for m in self.tubes))


def _opaque(model: Model, p: PartPlacement) -> bool:
    return float(model.colours.rgba(int(p.colour))[3]) >= 0.999


def _studs_ldu(model: Model, pls: Sequence[PartPlacement]) -> tuple[np.ndarray, np.ndarray]:
    """Stud base centres and unit axes in the model's LDraw frame (LDU), in the order of
    :func:`~sandbox.bricks.connectivity.placement_studs`."""
    pos, axes, _owner = placement_studs_ldu(model, pls)
    return pos, axes


def _cells(model: Model, p: PartPlacement) -> tuple[np.ndarray, float] | None:
    """Centres (c, 3) of the part's underside cells in its own frame (LDU) and the bottom's
    y; None when the footprint is not whole cells."""
    b = _body_bounds(model, p, studs=False)
    ext = b[1] - b[0]
    nx, nz = int(round(ext[0] / CELL_LDU)), int(round(ext[2] / CELL_LDU))
    if (nx < 1 or nz < 1 or nx * nz > MAX_CELLS or abs(ext[0] - nx * CELL_LDU) > 0.5
            or abs(ext[2] - nz * CELL_LDU) > 0.5):
        return None
    xs = b[0, 0] + CELL_LDU * (np.arange(nx) + 0.5)
    zs = b[0, 2] + CELL_LDU * (np.arange(nz) + 0.5)
    gx, gz = np.meshgrid(xs, zs, indexing="ij")
    bottom = float(b[1, 1])
    return np.stack([gx.ravel(), np.full(gx.size, bottom), gz.ravel()], axis=1), bottom


def _inside_box(points_in: np.ndarray, box, tol: float = 1e-6) -> np.ndarray:
    c = np.asarray(box.centre, float)
    h = np.asarray(box.half_extents, float)
    r = np.asarray(box.rotation, float)
    local = (points_in - c) @ r
    return np.all(np.abs(local) <= h + tol, axis=1)


def _body_triangles(pm: PartMesh) -> dict:
    with _RAYS_LOCK:
        entry = _RAYS.get(pm)
        if entry is None:
            tri = pm.triangles[feature_arrays(pm)[0] == BODY_FEATURE].astype(float)
            entry = {"v0": tri[:, 0], "e1": tri[:, 1] - tri[:, 0], "e2": tri[:, 2] - tri[:, 0],
                     "answers": {}}
            _RAYS[pm] = entry
    return entry


def _rays_blocked(entry: dict, origins: np.ndarray, dirs: np.ndarray) -> bool:
    """True when every ray (origin (r, 3), direction (r, 3), LDU) meets a triangle ahead."""
    v0, e1, e2 = entry["v0"], entry["e1"], entry["e2"]
    if not len(v0):
        return False
    p = np.cross(dirs[:, None, :], e2[None, :, :])  # (r, t, 3)
    det = np.einsum("tk,rtk->rt", e1, p)
    ok = np.abs(det) > 1e-12
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    s = origins[:, None, :] - v0[None, :, :]
    u = np.einsum("rtk,rtk->rt", s, p) * inv
    q = np.cross(s, e1[None, :, :])
    v = np.einsum("rk,rtk->rt", dirs, q) * inv
    t = np.einsum("tk,rtk->rt", e2, q) * inv
    hit = ok & (u >= -1e-9) & (v >= -1e-9) & (u + v <= 1 + 1e-9) & (t > 1e-3)
    return bool(np.all(np.any(hit, axis=1)))


def _perpendiculars(axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    helper = np.array([1.0, 0.0, 0.0]) if abs(axis[0]) < 0.9 else np.array([0.0, 0.0, 1.0])
    u = np.cross(axis, helper)
    u /= np.linalg.norm(u)
    return u, np.cross(axis, u)


def stud_enclosed(pm: PartMesh, probe: np.ndarray, axis: np.ndarray) -> bool:
    """The ray test of a stud inside part ``pm`` (see the module docstring).

    Parameters
    ----------
    pm : PartMesh
        The part the stud sits in.
    probe : (3,) float
        A point inside the stud (2 LDU up its axis from its base), in ``pm``'s frame, LDU.
    axis : (3,) float
        The stud's unit axis in ``pm``'s frame.
    """
    entry = _body_triangles(pm)
    key = (tuple(np.round(probe, 2)), tuple(np.round(axis, 3)))
    got = entry["answers"].get(key)
    if got is None:
        u, w = _perpendiculars(axis)
        r = RAY_OFFSET_LDU
        along = np.array([probe, probe + r * u, probe - r * u, probe + r * w, probe - r * w])
        angles = np.arange(8) * (np.pi / 4)
        across = np.cos(angles)[:, None] * u + np.sin(angles)[:, None] * w
        origins = np.concatenate([along, np.repeat(probe[None], 8, axis=0)])
        dirs = np.concatenate([np.repeat(axis[None], 5, axis=0), across])
        got = _rays_blocked(entry, origins, dirs)
        entry["answers"][key] = got
    return got


def _tube_covered(pm: PartMesh, origin: np.ndarray) -> bool:
    """A ray up from 2 LDU below a tube's origin (part frame, -Y up) meets the part's faces."""
    entry = _body_triangles(pm)
    key = ("tube", tuple(np.round(origin, 2)))
    got = entry["answers"].get(key)
    if got is None:
        start = origin + np.array([0.0, 2.0, 0.0])
        got = _rays_blocked(entry, start[None], np.array([[0.0, -1.0, 0.0]]))
        entry["answers"][key] = got
    return got


def hidden_features(model: Model, placements: Sequence[PartPlacement] | None = None,
                    boxes=None) -> Hidden:
    """Which studs and tubes of the placed parts are hidden by the others.

    Parameters
    ----------
    model : Model
    placements : sequence of PartPlacement, optional
        The creation's (or piece's) parts; default all of the model's.
    boxes : sequence of PartBox, optional
        Their body boxes in the model's frame (default :func:`placement_boxes`).

    Returns
    -------
    Hidden
    """
    pls = list(model.placements if placements is None else placements)
    n = len(pls)
    studs = [np.zeros(len(model.parts[p.part].studs), bool) for p in pls]
    tubes = [np.zeros(len(model.parts[p.part].tubes), bool) for p in pls]
    closed = np.zeros(n, bool)
    if n < 2:
        return Hidden(tuple(studs), tuple(tubes), closed)
    bxs = list(placement_boxes(model, pls) if boxes is None else boxes)
    pos_in, axes_in, owner = placement_studs(model, pls)
    if not len(pos_in):
        return Hidden(tuple(studs), tuple(tubes), closed)
    recv = stud_receivers(pos_in, axes_in, owner, bxs)
    pos, axes = _studs_ldu(model, pls)
    first = np.concatenate([[0], np.cumsum([len(m) for m in studs])])
    opaque = np.array([_opaque(model, p) for p in pls])
    held = np.nonzero(recv >= 0)[0]
    held = held[opaque[owner[held]] & opaque[recv[held]]]
    for b in np.unique(recv[held]).tolist():
        cells = _cells(model, pls[b])
        if cells is None:
            continue
        centres, bottom = cells
        sel = held[recv[held] == b]
        m = pls[b].matrix
        inv = np.linalg.inv(m[:3, :3])
        local = (pos[sel] - m[:3, 3]) @ inv.T
        lax = axes[sel] @ inv.T
        lax /= np.maximum(np.linalg.norm(lax, axis=1, keepdims=True), 1e-12)
        into = (lax[:, 1] < -0.99) & (np.abs(local[:, 1] - bottom) < 1.0)
        covered = True
        for c in centres:
            near = into & (np.abs(local[:, 0] - c[0]) < 2.0) & (np.abs(local[:, 2] - c[2]) < 2.0)
            ok = False
            for k in np.nonzero(near)[0].tolist():
                h = CELL_LDU / 2 - 1.0
                corners = c + np.array([[h, 1.0, h], [h, 1.0, -h], [-h, 1.0, h], [-h, 1.0, -h]])
                world = ldraw_points_to_world(corners @ m[:3, :3].T + m[:3, 3])
                if _inside_box(world, bxs[int(owner[sel[k]])]).all():
                    ok = True
                    break
            if not ok:
                covered = False
                break
        closed[b] = covered
    for s in held.tolist():
        b = int(recv[s])
        if not closed[b]:
            continue
        m = pls[b].matrix
        inv = np.linalg.inv(m[:3, :3])
        ax = inv @ axes[s]
        ax /= max(float(np.linalg.norm(ax)), 1e-12)
        probe = inv @ (pos[s] + 2.0 * axes[s] - m[:3, 3])
        if stud_enclosed(model.parts[pls[b].part], probe, ax):
            i = int(owner[s])
            studs[i][s - first[i]] = True
    for b in np.nonzero(closed)[0].tolist():
        pm = model.parts[pls[b].part]
        for j, origin in enumerate(pm.tubes):
            tubes[b][j] = _tube_covered(pm, np.asarray(origin, float))
    return Hidden(tuple(studs), tuple(tubes), closed)


def cached_hidden_features(model: Model,
                           placements: Sequence[PartPlacement] | None = None) -> Hidden:
    """:func:`hidden_features`, the same arrays bit for bit, read from the disk cache when a
    run before computed them (:mod:`sandbox.bricks.hiddencache`)."""
    from sandbox.bricks import hiddencache

    pls = list(model.placements if placements is None else placements)

    def compute() -> tuple:
        h = hidden_features(model, pls)
        return h.studs, h.tubes, h.closed

    return Hidden(*hiddencache.cached(model, pls, [_opaque(model, p) for p in pls], compute))


def _keep(features: np.ndarray, studs: np.ndarray, tubes: np.ndarray) -> np.ndarray | None:
    """Mask of the rows to draw, or None for all."""
    if not studs.any() and not tubes.any():
        return None
    drop = np.zeros(len(features), bool)
    st = features >= 0
    if studs.any():
        drop[st] = studs[np.minimum(features[st], len(studs) - 1)] & (features[st] < len(studs))
    tb = features <= -2
    if tubes.any():
        j = -2 - features[tb]
        drop[tb] = tubes[np.minimum(j, len(tubes) - 1)] & (j < len(tubes))
    return ~drop


def visible_mesh(model: Model, placements: Sequence[PartPlacement] | None = None, *,
                 hidden: Hidden | None = None, low_res: bool = False,
                 double_sided_uncertified: bool = True,
                 far: bool = False) -> tuple[MeshArrays, LineArrays]:
    """The placed parts' triangles and edge lines without hidden studs and tubes.

    As :func:`~sandbox.bricks.mesh.model_mesh` and :func:`~sandbox.bricks.mesh.model_lines`
    (inches, the model's frame, Z up; ``placement_index`` into ``placements``), with the
    triangles, type-2 lines and type-5 lines of the studs and tubes ``hidden`` names dropped,
    and each part's low-resolution mesh when ``low_res``.

    Parameters
    ----------
    model : Model
    placements : sequence of PartPlacement, optional
        Default: all of the model's.
    hidden : Hidden, optional
        Default: nothing hidden (pass :func:`hidden_features` of the same placements).
    low_res : bool
        Low-resolution stud primitives (:func:`~sandbox.bricks.lowres.low_res_part`).
    far : bool
        Each part's far mesh instead (:func:`~sandbox.bricks.lod.far_part`: 4-segment studs
        and tubes, no lines, detailed parts decimated); ``low_res`` is then unused.
    """
    from sandbox.bricks.lod import far_part
    from sandbox.bricks.lowres import low_res_part

    pls = list(model.placements if placements is None else placements)
    check_mesh_memory(model, pls)
    verts, cols, idx = [], [], []
    lines: dict[str, list] = {k: [] for k in ("e", "ec", "ei", "o", "oc", "oi")}
    for i, p in enumerate(pls):
        if far:
            pm = far_part(model, p.part)
        else:
            pm = low_res_part(model, p.part) if low_res else model.parts[p.part]
        ft, fe, fo = feature_arrays(pm)
        hs = hidden.studs[i] if hidden is not None else np.zeros(0, bool)
        ht = hidden.tubes[i] if hidden is not None else np.zeros(0, bool)
        a, t = p.matrix[:3, :3], p.matrix[:3, 3]
        tris, codes, cert = pm.triangles, pm.colours, pm.certified
        keep = _keep(ft, hs, ht)
        if keep is not None:
            tris, codes, cert = tris[keep], codes[keep], cert[keep]
        if len(tris):
            placed = tris @ a.T + t
            if (np.linalg.det(a) < 0) != p.inverted:
                placed = placed[:, [0, 2, 1]]
            rgba = _resolve_codes(codes, p.colour, model)
            if double_sided_uncertified and not cert.all():
                placed = np.concatenate([placed, placed[~cert][:, [0, 2, 1]]])
                rgba = np.concatenate([rgba, rgba[~cert]])
            verts.append(placed)
            cols.append(rgba)
            idx.append(np.full(len(placed), i, dtype=np.int32))
        for arr, codes_l, feat, k in ((pm.edges, pm.edge_colours, fe, "e"),
                                      (pm.optional, pm.optional_colours, fo, "o")):
            if not len(arr):
                continue
            keep = _keep(feat, hs, ht)
            if keep is not None:
                arr, codes_l = arr[keep], codes_l[keep]
            if len(arr):
                lines[k].append(arr @ a.T + t)
                lines[k + "c"].append(_resolve_codes(codes_l, p.colour, model))
                lines[k + "i"].append(np.full(len(arr), i, dtype=np.int32))

    line_arrays = line_arrays_of(lines)
    if not verts:
        z = np.zeros((0, 3), dtype=np.float32)
        return (MeshArrays(z, z.copy(), np.zeros((0, 4), np.float32), np.zeros(0, np.int32)),
                line_arrays)
    world = ldraw_points_to_world(np.concatenate(verts)).astype(np.float32)
    nrm = np.cross(world[:, 1] - world[:, 0], world[:, 2] - world[:, 0])
    length = np.linalg.norm(nrm, axis=1, keepdims=True)
    nrm = np.where(length > 0, nrm / np.maximum(length, 1e-30), 0.0).astype(np.float32)
    rgba = np.concatenate(cols)
    mesh = MeshArrays(vertices=world.reshape(-1, 3), normals=np.repeat(nrm, 3, axis=0),
                      colours=np.repeat(rgba, 3, axis=0).astype(np.float32),
                      placement_index=np.concatenate(idx))
    return mesh, line_arrays





_GEOMETRY_LOCK = threading.Lock()
#: Per model: the render geometry of part subsets, by (placements, parts, options).
_GEOMETRY: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: Subsets kept per model (a castle broken into 46 pieces: 47).
GEOMETRY_CACHE_SIZE: int = 128


def _hidden_of(model: Model, placements: Sequence[PartPlacement], tags: np.ndarray,
               subset: list[PartPlacement]) -> Hidden:
    """:func:`hidden_features` of ``subset`` (the parts ``tags`` of ``placements``), made once
    for the near and the far geometry alike."""
    key = ("hidden", id(placements), tags.tobytes())
    with _GEOMETRY_LOCK:
        hit = _GEOMETRY.setdefault(model, {}).get(key)
        if hit is not None and hit[0] is placements:
            return hit[1]
    hidden = cached_hidden_features(model, subset)  # from disk after a first run
    with _GEOMETRY_LOCK:
        per_model = _GEOMETRY.setdefault(model, {})
        while len(per_model) >= GEOMETRY_CACHE_SIZE:
            per_model.pop(next(iter(per_model)))
        per_model[key] = (placements, hidden)
    return hidden


def creation_geometry(model: Model, placements: Sequence[PartPlacement], tags: np.ndarray, *,
                      cull: bool = True, low_res: bool = True, far: bool = False
                      ) -> tuple[MeshArrays, LineArrays]:
    """The render geometry of the parts ``tags`` of ``placements``, made once and shared.

    Parameters
    ----------
    model : Model
    placements : sequence of PartPlacement
        A creation's placements (the tuple its asset holds: identical creations share it,
        and with it this geometry).
    tags : (k,) int
        Indices into ``placements`` of the parts drawn (a piece of a broken creation: its
        own; its hidden studs are computed from these parts alone).
    cull : bool
        Drop the studs and tubes the parts hide (:func:`hidden_features`).
    low_res : bool
        Low-resolution stud primitives.
    far : bool
        The far level of detail instead (:mod:`sandbox.bricks.lod`: 4-segment studs and
        tubes, no lines, detailed parts decimated; ``low_res`` unused).

    Returns
    -------
    (MeshArrays, LineArrays)
        In the model's frame (inches, Z up); ``placement_index``, ``edge_index`` and
        ``optional_index`` are indices into ``placements`` (tags). Shared: read only.
    """
    tags = np.asarray(tags, dtype=np.int64)
    far = bool(far)
    key = (id(placements), tags.tobytes(), bool(cull), bool(low_res) and not far, far)
    with _GEOMETRY_LOCK:
        per_model = _GEOMETRY.setdefault(model, {})
        hit = per_model.get(key)
        if hit is not None and hit[0] is placements:
            return hit[1], hit[2]
    subset = [placements[int(t)] for t in tags]
    hidden = _hidden_of(model, placements, tags, subset) if cull else None
    mesh, lines = visible_mesh(model, subset, hidden=hidden, low_res=low_res, far=far)
    mesh = MeshArrays(mesh.vertices, mesh.normals, mesh.colours,
                      tags[mesh.placement_index].astype(np.int32))
    lines = LineArrays(lines.edges, lines.edge_colours, tags[lines.edge_index].astype(np.int32),
                       lines.optional, lines.optional_colours,
                       tags[lines.optional_index].astype(np.int32))
    for a in (*vars(mesh).values(), *vars(lines).values()):
        a.setflags(write=False)
    with _GEOMETRY_LOCK:
        per_model = _GEOMETRY.setdefault(model, {})
        while len(per_model) >= GEOMETRY_CACHE_SIZE:
            per_model.pop(next(iter(per_model)))
        per_model[key] = (placements, mesh, lines)
    return mesh, lines


__all__ = ["CELL_LDU", "Hidden", "cached_hidden_features", "creation_geometry",
           "hidden_features", "stud_enclosed", "visible_mesh"]
