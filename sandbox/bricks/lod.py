"""The far level of detail of a part: what a window draws of a creation seen from afar
(issue 26, "castle window >= 30 fps on llvmpipe").

At the table's own framing the whole King's Castle (6080) is about 200 pixels across at
1280 x 720 and a stud about 3 pixels: its 314,508 low-detail triangles (a horse alone 9,833)
cost llvmpipe about 35 ms a frame, almost all of it per triangle (the same castle at 320 x 180
draws as slowly), for detail no pixel shows. Games and map viewers answer this with levels of
detail; LDraw viewers reduce the same geometry (LDView's low-quality studs and curve quality).
A part's far mesh is made from its mesh with stud and tube primitives of
:data:`FAR_SEGMENTS` segments a circle (:func:`~sandbox.bricks.lowres.low_res_part`):

- **Studs and tubes as squares.** Stud and tube primitives keep their place, their tags
  (:attr:`~sandbox.bricks.partmesh.PartMesh.features`: the studs a creation hides are culled
  as near, :mod:`sandbox.bricks.visible`) and their look at 3-6 pixels (a dot that catches
  the light), with 4 segments a circle instead of 8: 12 triangles a stud instead of 24. They
  are not left out: a minifig head's or a flag clip's opening is closed only by its stud.
- **Detailed parts decimated.** When the rest of a part (its body: what no stud or tube
  primitive draws) has more than :data:`FAR_DECIMATE_ABOVE` triangles (horses, chains, bows,
  minifig heads, flags, arches), it is simplified to about :data:`FAR_KEEP` of them by
  quadric edge collapse (``fast-simplification``, the Fast-Quadric-Mesh-Simplification of
  sp4cerat), one colour at a time with the border of each colour kept, so no colour bleeds
  into another and no crack opens where two colours meet. A colour whose surface area the
  collapse changes by more than :data:`FAR_AREA_TOLERANCE` (a thin part folding onto itself)
  and a part whose winding is not BFC certified throughout keep their triangles.
- **No edge lines** (at a few pixels a stud, LDraw's edges are a grey haze).

Triangles: the whole castle 314,508 (low detail) → see docs/PERFORMANCE.md. When a window
draws the far mesh is the renderer's business (:func:`sandbox.render.geometry.body_node`,
``FAR_STUD_PIXELS``). The far mesh is made once a part and kept in the part cache on disk
(:mod:`sandbox.bricks.partcache`, the variant :data:`FAR_VARIANT`) like the low-resolution
one.
"""

from __future__ import annotations

import threading

import numpy as np

import sandbox.bricks.partcache as partcache
from sandbox.bricks.partmesh import (
    BODY_FEATURE,
    Geometry,
    PartMesh,
    feature_arrays,
    library_deps,
    library_digest,
    library_entry,
)

#: Triangles (after studs and tubes are left out) above which a part's far mesh is decimated.
FAR_DECIMATE_ABOVE: int = 200
#: Fraction of a decimated colour's triangles that its far mesh keeps (about).
FAR_KEEP: float = 0.25
#: A colour of a part with fewer triangles than this is kept as it is.
FAR_MIN_COLOUR: int = 24
#: Position grid on which corners are welded before decimation, LDU.
WELD_LDU: float = 1e-3
#: Largest geometric error of a decimation, LDU (about a third of a pixel where the far level
#: starts: a stud pitch of 20 LDU is then 6 pixels).
FAR_ERROR_LDU: float = 1.0
#: fast-simplification's aggressiveness whose last threshold is 1 (see ``_decimate``).
_AGG: float = 9.0 / float(np.log10(102.0))
#: Segments of a whole circle in a far stud or tube primitive.
FAR_SEGMENTS: int = 4
#: Largest relative change of a colour's surface area a decimation may make (else the
#: colour keeps its triangles).
FAR_AREA_TOLERANCE: float = 0.25
#: Cache variant name (the far mesh of a library part on disk).
FAR_VARIANT = "far v2"

_LOCK = threading.Lock()


def _decimate(tris: np.ndarray, keep: float) -> np.ndarray:
    """Quadric edge collapse of one colour's triangles (k, 3, 3) LDU, the open border kept,
    down to about ``keep`` of them or as far as an error of :data:`FAR_ERROR_LDU` allows,
    whichever comes first; returns (k', 3, 3) float (the input when it cannot)."""
    import fast_simplification

    pts = tris.reshape(-1, 3)
    grid = np.round(pts / WELD_LDU).astype(np.int64)
    uniq, inverse = np.unique(grid, axis=0, return_inverse=True)
    faces = inverse.reshape(-1, 3)
    ok = (faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 0] != faces[:, 2])
    if ok.sum() < FAR_MIN_COLOUR:
        return tris
    # in units of the error allowed, the collapse's last threshold (1e-9 * 102 ** agg, its
    # 100th pass) is 1: no edge whose quadric error is above about FAR_ERROR_LDU squared goes
    unit = WELD_LDU / FAR_ERROR_LDU
    points, out = fast_simplification.simplify(
        uniq.astype(np.float64) * unit, faces[ok].astype(np.int32),
        target_count=max(1, int(ok.sum() * keep)), agg=_AGG, preserve_border=True)
    if not len(out) or len(out) >= ok.sum():
        return tris
    got = np.asarray(points, dtype=np.float64)[np.asarray(out)] / unit * WELD_LDU
    before, after = _area(tris), _area(got)
    if before <= 0 or abs(after - before) > FAR_AREA_TOLERANCE * before:
        return tris
    return got


def _area(tris: np.ndarray) -> float:
    """Total area of triangles (k, 3, 3)."""
    return float(0.5 * np.linalg.norm(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]),
                                      axis=1).sum())


def make_far(pm: PartMesh, keep: float = FAR_KEEP,
             decimate_above: int = FAR_DECIMATE_ABOVE) -> PartMesh:
    """The far mesh of part mesh ``pm`` (see the module docstring): its stud and tube
    triangles as they are, with their tags; its body triangles decimated per colour when more
    than ``decimate_above`` and all certified; no edge or optional lines.

    Parameters
    ----------
    pm : PartMesh
        LDU, the part's frame; usually with :data:`FAR_SEGMENTS`-segment studs.
    keep : float
        Fraction of a decimated colour's triangles kept, in (0, 1].
    decimate_above : int
        Decimate only a part with more body triangles than this.

    Returns
    -------
    PartMesh
        Same name, title, source, studs and tubes (so the culling of hidden studs applies
        alike); read-only arrays.
    """
    ft, _fe, _fo = feature_arrays(pm)
    body = ft == BODY_FEATURE
    tris, codes, cert = pm.triangles, pm.colours, pm.certified
    if body.sum() > decimate_above and cert[body].all():
        parts = [(tris[~body], codes[~body], cert[~body], ft[~body])]
        for code in np.unique(codes[body]):
            sel = tris[body & (codes == code)]
            out = _decimate(sel, keep) if len(sel) >= FAR_MIN_COLOUR else sel
            parts.append((out, np.full(len(out), code, dtype=codes.dtype),
                          np.ones(len(out), dtype=bool),
                          np.full(len(out), BODY_FEATURE, dtype=ft.dtype)))
        tris, codes, cert, ft = (np.concatenate([p[i] for p in parts]) for i in range(4))
    z2, z4 = np.zeros((0, 2, 3)), np.zeros((0, 4, 3))
    zi = np.zeros(0, dtype=np.int64)
    zf = np.zeros(0, dtype=ft.dtype)
    g = Geometry(np.ascontiguousarray(tris, dtype=np.float64), np.asarray(codes, np.int64),
                 np.asarray(cert, bool), z2, zi, np.asarray(pm.studs), np.asarray(pm.stud_axes),
                 np.asarray(pm.tubes), pm.warnings, z4, zi.copy(),
                 (np.asarray(ft), zf, zf.copy()))
    return PartMesh.from_geometry(pm.name, pm.title, g, pm.source)


def far_part(model, name: str) -> PartMesh:
    """The far mesh of part ``name`` of ``model`` (:func:`make_far` of its mesh with
    :data:`FAR_SEGMENTS`-segment studs), made once: kept on the library for every model,
    and on disk for a library part.

    Parameters
    ----------
    model : Model
    name : str
        Normalised part name (a key of ``model.parts``).
    """
    from sandbox.bricks.lowres import low_res_part

    pm = model.parts[name]
    lib = model.library
    shared = lib is not None and pm.source == "library"
    owner = lib if shared else model
    with _LOCK:
        store = owner.__dict__.setdefault("_far_parts", {})
        hit = store.get(name)
        if hit is not None and (shared or hit[0] is pm):
            return hit[1]
    entry = library_entry(lib, name, FAR_VARIANT) if shared else None
    far = None
    if entry is not None:
        far = partcache.load(entry, name, lambda dep: library_digest(lib, dep), PartMesh)
    if far is None:
        far = make_far(low_res_part(model, name, FAR_SEGMENTS))
        if entry is not None:
            try:
                deps = library_deps(lib, name)
            except OSError:
                deps = None
            if deps is not None:
                partcache.store(entry, far, sorted(deps))
    with _LOCK:
        store[name] = (pm, far)
    return far


__all__ = ["FAR_AREA_TOLERANCE", "FAR_DECIMATE_ABOVE", "FAR_KEEP", "FAR_SEGMENTS",
           "FAR_VARIANT", "far_part", "make_far"]
