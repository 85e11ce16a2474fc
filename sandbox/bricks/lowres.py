"""Low-resolution studs: a part's mesh with the circles inside its stud primitives drawn with
fewer segments (issue 26, "draw what can be seen").

LDraw draws a circle with 16 segments (``4-4cyli.dat``, ``4-4disc.dat``, ``4-4edge.dat``, ...;
``p/48/`` holds 48-segment versions, ``p/8/`` 8-segment ones). A 2 x 4 brick's eight studs
and three tubes are 672 of its 700 triangles, so on software GL the studs are most of the
picture's cost. Viewers substitute them: LDView's "low quality studs" takes the ``p/8/``
primitives, and its primitive substitution generates circles in code at the chosen curve
quality. This module does both, for the geometry *inside stud and tube primitives only*
(``stud.dat``, ``stud4.dat``, ...; :func:`~sandbox.bricks.partmesh.stud_kind`), so curved
bodies (round bricks, arches, cones) keep their full shape:

- a circle primitive ``n-d`` + ``cyli``/``disc``/``edge``/``ndis``/``ringN`` referenced
  inside a stud primitive is taken from the library's ``p/8/`` when it has it,
- else generated here with :data:`LOW_RES_SEGMENTS` segments for a whole circle, laid out as
  the LDraw primitive is (same radius 1, height 1 for cylinders, colours 16 and 24, same
  winding: ``tests/test_render_cull.py`` checks the generator at 16 segments against the
  library's own files),
- a fraction that does not fall on whole segments (``3-16``) keeps the library's file.

The shared library at ``../shared/ldraw`` has no ``p/8/4-4*.dat`` (its ``p/8/`` holds 15
quarter and half circles), so studs come from the generator there. The low-resolution part
has the same studs and tubes, in the same order, as the full one (the substitution changes
no reference to a stud primitive), so the culling of :mod:`sandbox.bricks.visible` applies to
both alike.
"""

from __future__ import annotations

import math
import re
import threading
from pathlib import Path

import sandbox.bricks.partcache as partcache
from sandbox.bricks.ldraw import parse_ldraw
from sandbox.bricks.library import LDrawLibrary
from sandbox.bricks.partmesh import (
    Geometry,
    PartMesh,
    Resolver,
    library_deps,
    library_digest,
    library_entry,
    library_resolver,
    stud_kind,
)

#: Segments of a whole circle in a low-resolution stud (LDraw's own: 16; ``p/8/``: 8).
LOW_RES_SEGMENTS: int = 8

_CIRCLE_RE = re.compile(r"^(\d+)-(\d+)(cyli|disc|edge|ndis|ring(\d+))\.dat$")
_LOCK = threading.Lock()


def _fmt(v: float) -> str:
    r = round(v, 4)
    return "0" if r == 0 else f"{r:g}"


def circle_primitive_text(name: str, segments: int) -> str | None:
    """LDraw text of the circle primitive ``name`` with ``segments`` segments a whole circle.

    Parameters
    ----------
    name : str
        A normalised primitive name: ``"4-4cyli.dat"``, ``"1-4disc.dat"``, ``"4-4edge.dat"``,
        ``"3-4ndis.dat"``, ``"4-4ring3.dat"``.
    segments : int
        Segments of a whole circle (LDraw's standard primitives: 16).

    Returns
    -------
    str or None
        The file's text (``0 BFC CERTIFY CCW``; faces colour 16, lines 24), or None when
        ``name`` is no such primitive or its fraction is not a whole number of segments.

    >>> print(circle_primitive_text("1-4edge.dat", 8))  # doctest: +NORMALIZE_WHITESPACE
    0 edge 0.25 (2 segments)
    0 BFC CERTIFY CCW
    2 24 1 0 0 0.7071 0 0.7071
    2 24 0.7071 0 0.7071 0 0 1
    """
    m = _CIRCLE_RE.match(name)
    if m is None:
        return None
    num, den, kind = int(m.group(1)), int(m.group(2)), m.group(3)
    if den <= 0 or num <= 0 or num > den or (num * segments) % den:
        return None
    count = num * segments // den
    pts = [(math.cos(2 * math.pi * k / segments), math.sin(2 * math.pi * k / segments))
           for k in range(count + 2)]
    pts.insert(0, (math.cos(-2 * math.pi / segments), math.sin(-2 * math.pi / segments)))
    # pts[k + 1] is the point at angle k; pts[0] the one before the start

    def p(k: int, y: float = 0.0, r: float = 1.0) -> str:
        x, z = pts[k + 1]
        return f"{_fmt(r * x)} {_fmt(y)} {_fmt(r * z)}"

    lines = [f"0 {kind} {num / den:g} ({count} segments)", "0 BFC CERTIFY CCW"]
    for k in range(count):
        if kind == "cyli":
            lines.append(f"4 16 {p(k, 1)} {p(k + 1, 1)} {p(k + 1)} {p(k)}")
        elif kind == "disc":
            lines.append(f"3 16 0 0 0 {p(k)} {p(k + 1)}")
        elif kind == "edge":
            lines.append(f"2 24 {p(k)} {p(k + 1)}")
        elif kind == "ndis":
            mid = 2 * math.pi * (k + 0.5) / segments
            corner = f"{_fmt(math.copysign(1, math.cos(mid)))} 0 " \
                     f"{_fmt(math.copysign(1, math.sin(mid)))}"
            lines.append(f"3 16 {p(k + 1)} {p(k)} {corner}")
        else:  # ringN: from radius N to N + 1
            r = float(m.group(4))
            lines.append(f"4 16 {p(k + 1, 0, r + 1)} {p(k + 1, 0, r)} {p(k, 0, r)} "
                         f"{p(k, 0, r + 1)}")
    if kind == "cyli":  # the optional lines on the seams (a whole circle: one per seam)
        for k in range(count if count == segments else count + 1):
            lines.append(f"5 24 {p(k)} {p(k, 1)} {p(k + 1)} {p(k - 1)}")
    return "\n".join(lines)


class LowResResolver(Resolver):
    """A library resolver that draws the circles inside stud primitives with fewer segments.

    Geometry outside stud primitives is the library resolver's own (shared, not expanded
    again); a file whose expansion holds no stud or tube is the same object as there.
    """

    def __init__(self, library: LDrawLibrary, segments: int = LOW_RES_SEGMENTS):
        super().__init__(library)
        self.segments = int(segments)
        self.base = library_resolver(library)
        self._low: dict[tuple[str, bool], Geometry | None] = {}

    def _substitute(self, key: str):
        """The low-resolution file for circle primitive ``key``: ``p/8/`` when the library
        has it (and 8 segments are asked for), else generated; None to keep the original."""
        if self.segments == 8 and self.library is not None and "/" not in key:
            f = self.library.read("8/" + key)
            if f is not None:
                return f
        text = circle_primitive_text(key, self.segments)
        if text is None:
            return None
        return parse_ldraw(text, Path(f"<{self.segments}-segment {key}>"), strict=False,
                           warnings=[], default_name=key)[0]

    def geometry(self, key: str, stack: tuple[str, ...] = ()) -> Geometry | None:
        """Expanded geometry of ``key``, low resolution inside stud primitives."""
        inside = stud_kind(key) is not None or any(stud_kind(k) is not None for k in stack)
        ck = (key, inside)
        if ck in self._low:
            return self._low[ck]
        f = self._substitute(key) if inside and "/" not in key else None
        if f is None:
            if not inside:
                g0 = self.base.geometry(key, stack)
                if g0 is None or (not len(g0.studs) and not len(g0.tubes)):
                    self._low[ck] = g0
                    return g0
            kind, f = self.locate(key)
            if kind != "library" or f is None:
                g0 = self.base.geometry(key, stack)
                self._low[ck] = g0
                return g0
        g = self._expand(key, f, stack + (key,))
        self._low[ck] = g
        return g


def low_res_part(model, name: str, segments: int = LOW_RES_SEGMENTS) -> PartMesh:
    """The part ``name`` of ``model`` with low-resolution studs (see the module docstring).

    Parts that are not the library's (embedded, a model's folder, the catalogue, missing),
    parts without stud or tube primitives, and parts whose low-resolution expansion would
    not have the same studs and tubes come back unchanged (the model's own mesh). Cached on
    the library, shared by every model.

    Parameters
    ----------
    model : Model
    name : str
        Normalised part name (a key of ``model.parts``).
    segments : int
        Segments of a whole circle.
    """
    pm = model.parts[name]
    lib = model.library
    if lib is None or pm.source != "library" or (not len(pm.studs) and not len(pm.tubes)):
        return pm
    with _LOCK:
        store = lib.__dict__.setdefault("_low_res_parts", {})
        hit = store.get((name, segments))
        if hit is not None:
            return hit
        # made once per machine too (issue 26): the disk cache, keyed as the part's own entry
        # and the segments, its subfiles and their p/8/ versions checked by content
        entry = library_entry(lib, name, f"low-res {segments}")
        cached = None if entry is None else partcache.load(
            entry, name, lambda dep: library_digest(lib, dep), PartMesh)
        if cached is not None:
            store[(name, segments)] = cached
            return cached
        resolvers = lib.__dict__.setdefault("_low_res_resolvers", {})
        r = resolvers.get(segments)
        if r is None:
            r = resolvers[segments] = LowResResolver(lib, segments)
        g = r.geometry(name)
        low = pm
        if g is not None and len(g.studs) == len(pm.studs) and len(g.tubes) == len(pm.tubes):
            low = PartMesh.from_geometry(name, pm.title, g, "library")
            if entry is not None:
                deps = library_deps(lib, name)
                deps += [("8/" + k, library_digest(lib, "8/" + k)) for k, _ in deps
                         if "/" not in k]
                partcache.store(entry, low, sorted(deps))
        store[(name, segments)] = low
        return low


__all__ = ["LOW_RES_SEGMENTS", "LowResResolver", "circle_primitive_text", "low_res_part"]
