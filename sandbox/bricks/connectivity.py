"""Stud connectivity: which parts of a creation hold together (BrikWars 8.4, "nailed down").

Two parts are connected where a stud of one sits in the other: the stud's base centre is on
the first part's top face, and a point :data:`STUD_PROBE_LDU` along the stud's axis (inside
the stud, which is 4 LDU tall) lies inside the second part's body box by at least
:data:`INSET_LDU` on every side. Stud positions and axes come from the stud primitives of
the LDraw files (``stud.dat``, ``stud2.dat``, ...; :attr:`PartMesh.studs`), or from the
built-in catalogue, which generates them.

Reading chosen where the geometry says nothing: a part that no stud joins to anything (a
tile-topped part with no studs resting on nothing, a hinge, a flag, a part the library
lacks) is connected to every part whose box it touches or overlaps, so decorations and
unknown parts do not fall off a creation at the first blast. Parts with a stud joint are
never joined by mere contact.

Everything here works in the model's LDraw frame converted to inches (world axes, Z up);
connectivity does not change under a rigid motion, so the graph of a model holds for the
creation wherever the scene puts it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sandbox.bricks.mesh import placement_boxes
from sandbox.bricks.model import Model, PartPlacement
from sandbox.core.lazy import lazy_import
from sandbox.core.units import INCH_PER_LDU, ldraw_directions_to_world, ldraw_points_to_world

nx = lazy_import("networkx")  # imported when a creation's stud graph is first built

#: How far along a stud's axis the probe point lies, LDU (a stud is 4 LDU tall).
STUD_PROBE_LDU: float = 2.0
#: How deep inside the receiving part's box the probe must be, LDU, on every side.
INSET_LDU: float = 1.0
#: Boxes closer than this count as touching for the contact fallback, inches (1 LDU).
TOUCH_TOL_IN: float = INCH_PER_LDU
#: Studs tested per vectorised chunk (memory: chunk x parts x 3 floats).
_CHUNK = 2048


def placement_studs(model: Model, placements: Sequence[PartPlacement]
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every stud of the placed parts, in inches in the world axes (Z up).

    Parameters
    ----------
    model : Model
    placements : sequence of PartPlacement

    Returns
    -------
    positions : (s, 3) float
        Stud base centres, inches.
    axes : (s, 3) float
        Unit vectors out of each stud (``(0, 0, 1)`` for an upright brick).
    owner : (s,) int
        Index into ``placements`` of each stud's part.
    """
    pos, axes, owner = [], [], []
    for i, p in enumerate(placements):
        pm = model.parts[p.part]
        if not len(pm.studs):
            continue
        a, t = p.matrix[:3, :3], p.matrix[:3, 3]
        pos.append(pm.studs @ a.T + t)
        ax = pm.stud_axes @ a.T
        ax /= np.maximum(np.linalg.norm(ax, axis=1, keepdims=True), 1e-12)
        axes.append(ax)
        owner.append(np.full(len(pm.studs), i, dtype=np.int64))
    if not pos:
        return np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0, dtype=np.int64)
    return (ldraw_points_to_world(np.concatenate(pos)),
            ldraw_directions_to_world(np.concatenate(axes)),
            np.concatenate(owner))


def _box_arrays(boxes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    centres = np.array([np.asarray(b.centre, float) for b in boxes]).reshape(-1, 3)
    halves = np.array([np.asarray(b.half_extents, float) for b in boxes]).reshape(-1, 3)
    rots = np.array([np.asarray(b.rotation, float) for b in boxes]).reshape(-1, 3, 3)
    return centres, halves, rots


def stud_joints(stud_pos: np.ndarray, stud_axes: np.ndarray, stud_owner: np.ndarray,
                boxes) -> list[tuple[int, int]]:
    """Pairs (stud owner, receiving part) for every stud that sits in another part's box.

    Parameters
    ----------
    stud_pos, stud_axes : (s, 3) float
        Stud base centres (inches) and unit axes.
    stud_owner : (s,) int
        Box index of each stud's own part.
    boxes : sequence of objects with ``centre (3,)``, ``half_extents (3,)``, ``rotation (3, 3)``
        Body boxes of the parts (without studs), inches.

    Returns
    -------
    list of (int, int)
        One pair per joined stud (a part sitting on 8 studs gives 8 pairs).
    """
    out: list[tuple[int, int]] = []
    for studs, parts in _stud_hits(stud_pos, stud_axes, stud_owner, boxes):
        out.extend(zip(stud_owner[studs].tolist(), parts.tolist(), strict=True))
    return out


def _stud_hits(stud_pos: np.ndarray, stud_axes: np.ndarray, stud_owner: np.ndarray, boxes):
    """(stud indices, receiving box indices) chunk by chunk, for :func:`stud_joints` and
    :func:`stud_receivers`: the probe of each stud inside another part's box (see there)."""
    centres, halves, rots = _box_arrays(boxes)
    if not len(stud_pos) or not len(centres):
        return
    probe = stud_pos + stud_axes * (STUD_PROBE_LDU * INCH_PER_LDU)
    inset = INSET_LDU * INCH_PER_LDU
    radius = np.linalg.norm(halves, axis=1)
    c2 = np.einsum("pk,pk->p", centres, centres)
    reach = (radius + 1e-6) ** 2
    for s0 in range(0, len(probe), _CHUNK):
        pts = probe[s0:s0 + _CHUNK]
        # a loose prefilter (|x - c|^2 from one product; a probe in a box is well inside its
        # bounding sphere), then the exact test on the candidates only
        near = (np.einsum("ck,ck->c", pts, pts)[:, None] - 2.0 * (pts @ centres.T)
                + c2[None, :]) <= reach[None, :]
        ci, pi = np.nonzero(near)
        if not len(ci):
            continue
        d = pts[ci] - centres[pi]
        local = np.einsum("nkj,nk->nj", rots[pi], d)  # R^T d
        inside = np.all(np.abs(local) <= halves[pi] - inset, axis=1)
        own = stud_owner[s0 + ci]
        keep = inside & (own != pi)
        yield s0 + ci[keep], pi[keep]


def stud_receivers(stud_pos: np.ndarray, stud_axes: np.ndarray, stud_owner: np.ndarray,
                   boxes) -> np.ndarray:
    """The part each stud sits in (the test of :func:`stud_joints`), one per stud.

    Returns
    -------
    (s,) int
        Box index of the receiving part (the lowest when several boxes hold the probe), or
        -1 for a free stud.
    """
    big = np.iinfo(np.int64).max
    out = np.full(len(stud_pos), big, dtype=np.int64)
    for studs, parts in _stud_hits(stud_pos, stud_axes, stud_owner, boxes):
        np.minimum.at(out, studs, parts.astype(np.int64))
    out[out == big] = -1
    return out


def boxes_touch(a, b, tol: float = TOUCH_TOL_IN) -> bool:
    """True when two oriented boxes overlap or lie within ``tol`` inches (separating axes).

    Parameters
    ----------
    a, b : objects with ``centre (3,)``, ``half_extents (3,)``, ``rotation (3, 3)``
        Inches; rotation columns are the box axes.
    tol : float
        Inches of gap still counted as touching.
    """
    ca, ha, ra = (np.asarray(a.centre, float), np.asarray(a.half_extents, float),
                  np.asarray(a.rotation, float))
    cb, hb, rb = (np.asarray(b.centre, float), np.asarray(b.half_extents, float),
                  np.asarray(b.rotation, float))
    t = cb - ca
    axes = [ra[:, i] for i in range(3)] + [rb[:, i] for i in range(3)]
    for i in range(3):
        for j in range(3):
            c = np.cross(ra[:, i], rb[:, j])
            n = np.linalg.norm(c)
            if n > 1e-9:
                axes.append(c / n)
    for ax in axes:
        pa = np.sum(ha * np.abs(ra.T @ ax))
        pb = np.sum(hb * np.abs(rb.T @ ax))
        if abs(np.dot(t, ax)) > pa + pb + tol:
            return False
    return True


def boxes_touch_many(ca: np.ndarray, ha: np.ndarray, ra: np.ndarray, cb: np.ndarray,
                     hb: np.ndarray, rb: np.ndarray, tol: float = TOUCH_TOL_IN) -> np.ndarray:
    """:func:`boxes_touch` for many pairs at once: (n,) bool.

    ``ca, cb`` (n, 3) centres, ``ha, hb`` (n, 3) half sizes, ``ra, rb`` (n, 3, 3) rotations
    (columns are the box axes), inches. The same 15 separating axes (each box's 3 axes and
    their 9 cross products, those of length below 1e-9 skipped) and the same test per axis.
    """
    n = len(ca)
    if not n:
        return np.zeros(0, dtype=bool)
    cross = np.cross(ra[:, :, :, None], rb[:, :, None, :], axisa=1, axisb=1, axisc=3)
    cross = cross.reshape(n, 9, 3)  # axis i of a x axis j of b, i major
    norm = np.linalg.norm(cross, axis=2, keepdims=True)
    ok = norm > 1e-9
    cross = np.where(ok, cross / np.where(ok, norm, 1.0), 0.0)  # a skipped axis separates none
    axes = np.concatenate([np.swapaxes(ra, 1, 2), np.swapaxes(rb, 1, 2), cross], axis=1)
    pa = np.einsum("nk,nak->na", ha, np.abs(np.einsum("nji,naj->nai", ra, axes)))
    pb = np.einsum("nk,nak->na", hb, np.abs(np.einsum("nji,naj->nai", rb, axes)))
    t = np.abs(np.einsum("nk,nak->na", cb - ca, axes))
    return ~np.any(t > pa + pb + tol, axis=1)


def connection_graph(model: Model, placements: Sequence[PartPlacement] | None = None,
                     boxes=None) -> nx.Graph:
    """The connection graph of placed parts (BrikWars 8.4 Components held together by studs).

    Parameters
    ----------
    model : Model
    placements : sequence of PartPlacement, optional
        The creation's parts (default: all of the model's). Node ``i`` is ``placements[i]``,
        the same index the game uses as the part's collision-box tag.
    boxes : sequence of PartBox, optional
        Their body boxes in the model's frame (default: :func:`placement_boxes`).

    Returns
    -------
    networkx.Graph
        Nodes ``0..n-1`` with attribute ``part`` (name); edges with ``studs`` (how many studs
        join the two parts, 0 for a contact-fallback edge) and ``kind`` (``"stud"`` or
        ``"contact"``).
    """
    pls = list(model.placements if placements is None else placements)
    bxs = list(placement_boxes(model, pls) if boxes is None else boxes)
    g = nx.Graph()
    for i, p in enumerate(pls):
        g.add_node(i, part=p.part)
    pos, axes, owner = placement_studs(model, pls)
    for a, b in stud_joints(pos, axes, owner, bxs):
        if g.has_edge(a, b):
            g[a][b]["studs"] += 1
        else:
            g.add_edge(a, b, studs=1, kind="stud")
    lonely = [n for n in g.nodes if g.degree(n) == 0]
    if lonely and len(bxs) > 1:
        # every candidate pair (a lonely part, a part within reach) tested at once, edges
        # added in the order of the part-by-part loop this replaces (issue 26)
        centres, halves, rots = _box_arrays(bxs)
        radius = np.linalg.norm(halves, axis=1)
        li = np.asarray(lonely)
        dist = np.linalg.norm(centres[None, :, :] - centres[li][:, None, :], axis=2)
        ii, jj = np.nonzero(dist <= radius[None, :] + radius[li][:, None] + TOUCH_TOL_IN)
        ii = li[ii]
        keep = ii != jj
        ii, jj = ii[keep], jj[keep]
        touch = boxes_touch_many(centres[ii], halves[ii], rots[ii], centres[jj], halves[jj],
                                 rots[jj])
        for i, j in zip(ii[touch].tolist(), jj[touch].tolist(), strict=True):
            if not g.has_edge(i, j):
                g.add_edge(i, j, studs=0, kind="contact")
    return g


def pieces(graph: nx.Graph, removed: set[int] | frozenset[int] = frozenset()) -> list[list[int]]:
    """Connected pieces left when parts are removed, largest first, ties by lowest index.

    Parameters
    ----------
    graph : networkx.Graph
    removed : set of int
        Nodes (parts) destroyed or taken away.

    Returns
    -------
    list of list of int
        Sorted node lists; deterministic order.
    """
    keep = [n for n in graph.nodes if n not in removed]
    sub = graph.subgraph(keep)
    comps = [sorted(c) for c in nx.connected_components(sub)]
    comps.sort(key=lambda c: (-len(c), c[0]))
    return comps
