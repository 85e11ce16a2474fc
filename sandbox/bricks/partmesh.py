"""Part geometry: a part's LDraw file expanded through its subfiles into one cached mesh.

A :class:`PartMesh` is in LDU in the part's own LDraw frame (-Y up). Triangles of BFC-certified
files are wound counter-clockwise seen from outside (front side); the winding is flipped for a
reference with ``0 BFC INVERTNEXT`` and for a reference whose matrix has a negative
determinant (a mirror), as the BFC extension specifies. A triangle is "certified" only when
its own file and every file above it inside the part are certified; the others' winding is
unknown (draw them two-sided).

Studs are found from references to stud primitives (``stud.dat``, ``stud2.dat``, ``studa.dat``,
``stud6.dat``, ``stud10.dat``, ``stud15.dat``, ``hipstud.dat``, ...): the origin of each such
reference is a stud position (its base centre) and its -Y axis the direction the stud points.
Underside tubes (``stud3.dat``, ``stud4*.dat``, ``stud12.dat``, ``stud16.dat``, ``stud18a.dat``,
``stud2s*.dat``) are *not* studs; their origins are kept apart as :attr:`PartMesh.tubes`.

Nominal mass: ``mass_g = ABS_DENSITY_G_PER_CM3 * bounding volume * FILL_FACTOR``, where the
fill factor (0.382) makes a 2x4 brick's bounding box (80 x 28 x 40 LDU with studs) weigh its
real 2.3 g. Hollow bricks, plates and tiles all come out within ~30 % of their real mass;
odd shapes (thin, long, round) less well. Each bounding-box side is taken as at least 4 LDU.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

import sandbox.bricks.partcache as partcache
from sandbox.bricks.colours import EDGE_COLOUR, MAIN_COLOUR, ColourTable
from sandbox.bricks.ldraw import (
    LDrawFile,
    LoadWarning,
    normalise_name,
    parse_ldraw,
    read_text,
    unsafe_reference,
)
from sandbox.bricks.library import LDrawLibrary, _child_ci
from sandbox.core.limits import limit
from sandbox.core.units import MM_PER_LDU

#: Density of ABS plastic, g/cm³.
ABS_DENSITY_G_PER_CM3: float = 1.05
#: Fraction of a part's bounding box that is plastic (calibrated on 3001, 2.3 g).
FILL_FACTOR: float = 0.382
_MIN_SIDE_LDU = 4.0

_TUBE_RE = re.compile(r"^(\d+-\d+)?(stud3|stud4|stud12|stud16|stud18|stud2s)[a-z0-9-]*\.dat$")
_STUD_RE = re.compile(r"^(hip)?stud[a-z0-9-]*\.dat$")


def stud_kind(key: str) -> str | None:
    """``"stud"`` or ``"tube"`` for a stud primitive's normalised name, else None.

    >>> [stud_kind(k) for k in ("stud.dat", "stud4.dat", "48/stud2.dat", "3001.dat")]
    ['stud', 'tube', 'stud', None]
    """
    base = key.rsplit("/", 1)[-1]
    if _TUBE_RE.match(base):
        return "tube"
    if _STUD_RE.match(base):
        return "stud"
    return None


def nominal_mass_g(bounds: np.ndarray) -> float:
    """Nominal mass of a part from its bounds (see the module docstring).

    Parameters
    ----------
    bounds : (2, 3) float
        Min and max corner, LDU.

    Returns
    -------
    float
        Grams.

    >>> round(nominal_mass_g(np.array([[-40, -4, -20], [40, 24, 20]])), 2)
    2.3
    """
    b = np.asarray(bounds, dtype=float)
    sides = np.maximum(b[1] - b[0], _MIN_SIDE_LDU) * MM_PER_LDU / 10.0  # cm
    return float(np.prod(sides) * ABS_DENSITY_G_PER_CM3 * FILL_FACTOR)



#: The built-in catalogue's look-ups (``has_part``, ``catalogue_part``), registered by
#: :mod:`sandbox.bricks.catalogue` when it is imported (the package imports it first), so that
#: this module, which the catalogue builds on, needs no import of it.
_BUILTIN: dict = {"has_part": lambda key: False, "catalogue_part": None}


def register_catalogue(has_part, catalogue_part) -> None:
    """Make the built-in catalogue the resolver's fallback after the LDraw library."""
    _BUILTIN["has_part"] = has_part
    _BUILTIN["catalogue_part"] = catalogue_part

@dataclass(frozen=True, eq=False)
class Geometry:
    """Expanded geometry of one LDraw file in its own frame (LDU).

    Attributes
    ----------
    triangles : (n, 3, 3) float
    colours : (n,) int
        Colour codes; 16 and 24 are still relative to the file's user.
    certified : (n,) bool
    edges : (m, 2, 3) float
    edge_colours : (m,) int
    studs : (k, 3) float
        Stud base centres.
    stud_axes : (k, 3) float
        Unit vectors out of each stud.
    tubes : (j, 3) float
        Underside-tube primitive origins.
    warnings : tuple of LoadWarning
    optional : (k, 4, 3) float
        Type-5 optional lines: end points, then control points.
    optional_colours : (k,) int
    features : tuple of three int arrays, or None
        What stud primitive each triangle, edge and optional line belongs to (see
        :func:`feature_arrays`); None: none is known (all part body).
    """

    triangles: np.ndarray
    colours: np.ndarray
    certified: np.ndarray
    edges: np.ndarray
    edge_colours: np.ndarray
    studs: np.ndarray
    stud_axes: np.ndarray
    tubes: np.ndarray
    warnings: tuple[LoadWarning, ...] = ()
    optional: np.ndarray = field(default_factory=lambda: np.zeros((0, 4, 3)))
    optional_colours: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    features: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


def _empty3(n: int = 0) -> np.ndarray:
    return np.zeros((n, 3))


#: Feature code of geometry that belongs to no stud primitive (the part's body).
BODY_FEATURE: int = -1


def feature_arrays(g) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The stud-primitive tags of a :class:`Geometry` or :class:`PartMesh` (issue 26).

    Returns
    -------
    (tri, edge, optional) : tuple of int32 arrays, shapes (n,), (m,), (k,)
        For each triangle, type-2 line and type-5 line: ``s >= 0`` when it is drawn by the
        stud primitive of stud ``s`` (an index into ``studs``), ``-2 - j`` when by the
        underside-tube primitive ``j`` (an index into ``tubes``), :data:`BODY_FEATURE` (-1)
        for the rest. All -1 when the geometry carries no tags (generated parts).
    """
    if g.features is not None:
        return g.features
    return (np.full(len(g.triangles), BODY_FEATURE, np.int32),
            np.full(len(g.edges), BODY_FEATURE, np.int32),
            np.full(len(g.optional), BODY_FEATURE, np.int32))


def _shift_features(f: np.ndarray, studs: int, tubes: int) -> np.ndarray:
    """Feature codes of a child placed after ``studs`` studs and ``tubes`` tubes."""
    return np.where(f >= 0, f + studs, np.where(f <= -2, f - tubes, f)).astype(np.int32)


def _geometry_from_file(f: LDrawFile, warnings: tuple[LoadWarning, ...]) -> Geometry:
    return Geometry(f.triangles, f.tri_colours, f.tri_certified, f.edges, f.edge_colours,
                    _empty3(), _empty3(), _empty3(), warnings, f.optional, f.optional_colours)


@dataclass(frozen=True, eq=False)
class PartMesh:
    """A part's geometry, in LDU in the part's LDraw frame (-Y up), ready to place.

    Attributes
    ----------
    name : str
        Normalised part name, e.g. ``"3001.dat"``.
    title : str
        LDraw description, e.g. ``"Brick  2 x  4"``.
    triangles : (n, 3, 3) float
        LDU; CCW seen from the front where :attr:`certified`.
    colours : (n,) int
        Colour code per triangle; 16 = the placement's colour, 24 = its edge colour.
    certified : (n,) bool
        Winding known (BFC certified all the way down).
    edges : (m, 2, 3) float
        Type-2 edge lines, LDU.
    edge_colours : (m,) int
    studs : (k, 3) float
        Stud positions (base centre of each stud), LDU.
    stud_axes : (k, 3) float
        Unit direction each stud points (``(0, -1, 0)`` for an upright brick).
    tubes : (j, 3) float
        Origins of underside-tube primitives, LDU (not studs; informative).
    bounds : (2, 3) float
        Min and max corner of all geometry, LDU.
    mass_g : float
        Nominal mass in grams (see :func:`nominal_mass_g`).
    source : str
        ``"library"``, ``"embedded"`` (an MPD's own part), ``"folder"`` (next to the model),
        ``"catalogue"`` (generated) or ``"missing"`` (placeholder box).
    warnings : tuple of LoadWarning
        Problems met while expanding the part's files.
    optional : (k, 4, 3) float
        Type-5 optional lines (end points, then control points), LDU.
    optional_colours : (k,) int
    features : tuple of three int arrays, or None
        Which stud or tube primitive draws each triangle, edge and optional line
        (:func:`feature_arrays`); None for a part without tags (generated parts).
    """

    name: str
    title: str
    triangles: np.ndarray
    colours: np.ndarray
    certified: np.ndarray
    edges: np.ndarray
    edge_colours: np.ndarray
    studs: np.ndarray
    stud_axes: np.ndarray
    tubes: np.ndarray
    bounds: np.ndarray
    mass_g: float
    source: str
    warnings: tuple[LoadWarning, ...] = ()
    optional: np.ndarray = field(default_factory=lambda: np.zeros((0, 4, 3)))
    optional_colours: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    features: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def missing(self) -> bool:
        """True for the placeholder box of a part that could not be found."""
        return self.source == "missing"

    @cached_property
    def points(self) -> np.ndarray:
        """(p, 3) float: the distinct vertices of triangles and edges, LDU."""
        pts = np.concatenate([self.triangles.reshape(-1, 3), self.edges.reshape(-1, 3)])
        if len(pts) == 0:
            return self.bounds.copy()
        return np.unique(pts, axis=0)

    def geometry(self) -> Geometry:
        """This part as a :class:`Geometry` (to be referenced from another file)."""
        return Geometry(self.triangles, self.colours, self.certified, self.edges,
                        self.edge_colours, self.studs, self.stud_axes, self.tubes, self.warnings,
                        self.optional, self.optional_colours, self.features)

    @classmethod
    def from_geometry(cls, name: str, title: str, g: Geometry, source: str) -> PartMesh:
        """Wrap expanded geometry, computing bounds and mass; arrays become read-only."""
        pts = np.concatenate([g.triangles.reshape(-1, 3), g.edges.reshape(-1, 3)])
        if len(pts):
            bounds = np.stack([pts.min(axis=0), pts.max(axis=0)])
        else:
            bounds = np.zeros((2, 3))
        arrays = [g.triangles, g.colours, g.certified, g.edges, g.edge_colours, g.studs,
                  g.stud_axes, g.tubes, bounds, g.optional, g.optional_colours,
                  *(g.features or ())]
        for a in arrays:
            a.setflags(write=False)
        return cls(name, title, g.triangles, g.colours, g.certified, g.edges, g.edge_colours,
                   g.studs, g.stud_axes, g.tubes, bounds, nominal_mass_g(bounds), source,
                   g.warnings, g.optional, g.optional_colours, g.features)


def placeholder_part(name: str, message: str = "") -> PartMesh:
    """The visible stand-in for a missing part: a 20 x 24 x 20 LDU box (a 1x1 brick body).

    Its top face is at y = 0 like a brick's, its colour 16 (the placement's colour).
    """
    lo, hi = np.array([-10.0, 0.0, -10.0]), np.array([10.0, 24.0, 10.0])
    tris, edges = box_triangles(lo, hi)
    g = Geometry(tris, np.full(len(tris), MAIN_COLOUR, dtype=np.int64),
                 np.ones(len(tris), dtype=bool), edges,
                 np.full(len(edges), EDGE_COLOUR, dtype=np.int64), _empty3(), _empty3(),
                 _empty3())
    return PartMesh.from_geometry(name, message or f"missing part {name}", g, "missing")


def box_triangles(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An axis-aligned box as 12 outward CCW triangles and its 12 edges.

    Parameters
    ----------
    lo, hi : (3,) float
        Min and max corner.

    Returns
    -------
    triangles : (12, 3, 3) float
    edges : (12, 2, 3) float
    """
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    c = np.array([[(hi if (i >> k) & 1 else lo)[k] for k in range(3)] for i in range(8)])
    # corner index bits: x=1, y=2, z=4; quads listed CCW seen from outside (right-handed)
    quads = [(0, 4, 6, 2), (1, 3, 7, 5), (0, 1, 5, 4), (2, 6, 7, 3), (0, 2, 3, 1), (4, 5, 7, 6)]
    tris = []
    for a, b, cc, d in quads:
        tris += [(a, b, cc), (a, cc, d)]
    edge_idx = [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5),
                (2, 6), (3, 7)]
    return c[np.array(tris)], c[np.array(edge_idx)]


def transform_geometry(g: Geometry, matrix: np.ndarray, colour: int, invert: bool,
                       certified: bool, colours: ColourTable) -> Geometry:
    """Place geometry by a reference: transform, fix winding, resolve inherited colours.

    Parameters
    ----------
    g : Geometry
        The subfile's geometry in its own frame.
    matrix : (4, 4) float
        The reference's placement, LDU.
    colour : int
        The reference's colour (children's 16 becomes it, 24 its edge colour).
    invert : bool
        ``0 BFC INVERTNEXT`` on the reference.
    certified : bool
        The referencing file is certified at the reference.
    colours : ColourTable
        For the edge colour of ``colour``.

    Returns
    -------
    Geometry
        In the referencing file's frame.
    """
    a = matrix[:3, :3]
    t = matrix[:3, 3]
    tris = g.triangles @ a.T + t
    if (np.linalg.det(a) < 0) != invert:
        tris = tris[:, [0, 2, 1]]
    cols = g.colours
    ecols = g.edge_colours
    ocols = g.optional_colours
    if colour != MAIN_COLOUR:
        edge = colours.edge_code(colour)
        cols = np.where(cols == MAIN_COLOUR, colour, np.where(cols == EDGE_COLOUR, edge, cols))
        ecols = np.where(ecols == MAIN_COLOUR, colour,
                         np.where(ecols == EDGE_COLOUR, edge, ecols))
        ocols = np.where(ocols == MAIN_COLOUR, colour,
                         np.where(ocols == EDGE_COLOUR, edge, ocols))
    cert = g.certified if certified else np.zeros_like(g.certified)
    axes = g.stud_axes @ a.T
    if len(axes):
        axes = axes / np.maximum(np.linalg.norm(axes, axis=1, keepdims=True), 1e-12)
    return Geometry(tris, cols, cert, g.edges @ a.T + t, ecols, g.studs @ a.T + t, axes,
                    g.tubes @ a.T + t, g.warnings, g.optional @ a.T + t, ocols, g.features)


def merge_geometry(parts: list[Geometry]) -> Geometry:
    """Concatenate geometries (warnings deduplicated, order kept)."""
    warns: dict[LoadWarning, None] = {}
    for p in parts:
        for w in p.warnings:
            warns[w] = None
    features = None
    if any(p.features is not None for p in parts):
        tri, edge, opt = [], [], []
        ns = nt = 0
        for p in parts:
            f = feature_arrays(p)
            tri.append(_shift_features(f[0], ns, nt))
            edge.append(_shift_features(f[1], ns, nt))
            opt.append(_shift_features(f[2], ns, nt))
            ns, nt = ns + len(p.studs), nt + len(p.tubes)
        features = (np.concatenate(tri).astype(np.int32), np.concatenate(edge).astype(np.int32),
                    np.concatenate(opt).astype(np.int32))
    return Geometry(
        np.concatenate([p.triangles for p in parts]).reshape(-1, 3, 3),
        np.concatenate([p.colours for p in parts]).astype(np.int64),
        np.concatenate([p.certified for p in parts]).astype(bool),
        np.concatenate([p.edges for p in parts]).reshape(-1, 2, 3),
        np.concatenate([p.edge_colours for p in parts]).astype(np.int64),
        np.concatenate([p.studs for p in parts]).reshape(-1, 3),
        np.concatenate([p.stud_axes for p in parts]).reshape(-1, 3),
        np.concatenate([p.tubes for p in parts]).reshape(-1, 3),
        tuple(warns),
        np.concatenate([p.optional for p in parts]).reshape(-1, 4, 3),
        np.concatenate([p.optional_colours for p in parts]).astype(np.int64),
        features,
    )


def _tag_direct(g: Geometry, pieces: list[Geometry],
                direct: list[tuple[int, int, bool]]) -> tuple[np.ndarray, ...]:
    """The feature arrays of a merged file whose pieces ``direct`` are its own references to
    stud (tube) primitives: each such piece's triangles and lines get the index its stud
    (tube) will have in the file's stud (tube) list, after the studs of its other pieces."""
    tri, edge, opt = (a.copy() for a in feature_arrays(g))
    child_studs = sum(len(p.studs) for p in pieces)
    child_tubes = sum(len(p.tubes) for p in pieces)
    ends = [np.cumsum([0] + [len(getattr(p, name)) for p in pieces])
            for name in ("triangles", "edges", "optional")]
    for piece, index, is_stud in direct:
        code = child_studs + index if is_stud else -2 - (child_tubes + index)
        for arr, cut in zip((tri, edge, opt), ends, strict=True):
            arr[cut[piece]:cut[piece + 1]] = code
    return tri, edge, opt


class Resolver:
    """Finds referenced files and expands part geometry, with caches.

    Lookup order: the model's embedded MPD files, the model's own folder, the library, then the
    built-in catalogue. Geometry of library files is cached on the library (shared by every
    model); geometry of a model's own files is cached on the resolver.

    Parameters
    ----------
    library : LDrawLibrary or None
    embedded : dict of str to LDrawFile, optional
        A model's MPD files by normalised name.
    folder : Path, optional
        The model's own folder.
    strict : bool
        Parse files found in ``folder`` strictly (they belong to the model being loaded).
    """

    def __init__(self, library: LDrawLibrary | None, embedded: dict[str, LDrawFile] | None = None,
                 folder: Path | None = None, strict: bool = True):
        self.library = library
        self.embedded = embedded or {}
        self.folder = folder
        self.strict = strict
        self.colours = library.colours if library is not None else ColourTable.builtin()
        self._folder_index: dict[str, Path] | None = None
        self._folder_files: dict[str, LDrawFile | None] = {}
        self.folder_warnings: list[LoadWarning] = []
        self._geom: dict[str, Geometry | None] = {}
        self._parts: dict[str, PartMesh] = {}
        self._lib_resolver: Resolver | None = None
        if library is not None and (embedded or folder is not None):
            self._lib_resolver = library_resolver(library)

    # -- files ---------------------------------------------------------------------------
    def folder_file(self, key: str) -> LDrawFile | None:
        """A file next to the model (case-insensitive), parsed; None if absent."""
        if self.folder is None:
            return None
        if self._folder_index is None:
            idx: dict[str, Path] = {}
            try:
                for p in self.folder.iterdir():
                    if p.is_file():
                        idx.setdefault(p.name.lower(), p)
            except OSError:
                pass
            self._folder_index = idx
        if key in self._folder_files:
            return self._folder_files[key]
        path = self._folder_index.get(key) if "/" not in key else None
        if path is None and "/" in key and not unsafe_reference(key):
            cand = self.folder / key
            try:  # only inside the model's folder tree (a link may not lead out of it)
                inside = cand.resolve().is_relative_to(self.folder.resolve())
            except (OSError, RuntimeError):
                inside = False
            try:
                path = cand if inside and cand.is_file() else None
            except OSError:  # a name over the file system's limit: not there
                path = None
        f = None
        if path is not None and path.suffix.lower() in (".dat", ".ldr", ".mpd"):
            f = parse_ldraw(read_text(path), path, strict=self.strict,
                            warnings=self.folder_warnings, default_name=key)[0]
        self._folder_files[key] = f
        return f

    def locate(self, key: str) -> tuple[str, LDrawFile | None]:
        """Where ``key`` comes from and its parsed file.

        Returns
        -------
        (str, LDrawFile or None)
            ``"embedded"``, ``"folder"``, ``"library"``, ``"catalogue"`` or ``"missing"``.
        """
        f = self.embedded.get(key)
        if f is not None:
            return "embedded", f
        f = self.folder_file(key)
        if f is not None:
            return "folder", f
        if self.library is not None:
            f = self.library.read(key)
            if f is not None:
                return "library", f
        if _BUILTIN["has_part"](key):
            return "catalogue", None
        return "missing", None

    # -- geometry ------------------------------------------------------------------------
    def geometry(self, key: str, stack: tuple[str, ...] = ()) -> Geometry | None:
        """Expanded geometry of file ``key`` in its own frame, or None when it is missing."""
        kind, f = self.locate(key)
        if kind == "library" and self._lib_resolver is not None:
            return self._lib_resolver.geometry(key, stack)
        cache = self._geom
        if kind == "library" and self.library is not None:
            cache = self.library.geometry_cache
        if key in cache:
            return cache[key]
        if kind == "catalogue":
            g = _BUILTIN["catalogue_part"](key).geometry()
        elif kind == "missing" or f is None:
            return None
        else:
            g = self._expand(key, f, stack + (key,))
        cache[key] = g
        return g

    def _expand(self, key: str, f: LDrawFile, stack: tuple[str, ...]) -> Geometry:
        warns = list(self.library.file_warnings(key)) if (
            self.library is not None and key not in self.embedded) else []
        pieces = [_geometry_from_file(f, ())]
        studs, tubes = [], []
        direct: list[tuple[int, int, bool]] = []  # (piece, stud or tube index, is a stud)
        deep = len(stack) > limit("nesting")
        for ref in f.refs:
            if unsafe_reference(ref.key):
                warns.append(LoadWarning(f.path, ref.line,
                                         f"{f.name}: reference '{ref.name[:80]}' points outside "
                                         "the LDraw library and the model's folder; refused"))
                continue
            if deep:
                warns.append(LoadWarning(f.path, ref.line,
                                         f"{f.name}: subfiles nested more than "
                                         f"{limit('nesting')} deep; '{ref.name[:80]}' skipped"))
                continue
            if ref.key in stack:
                warns.append(LoadWarning(f.path, ref.line,
                                         f"{f.name}: '{ref.name}' references itself "
                                         f"({' -> '.join(stack + (ref.key,))}); skipped"))
                continue
            child = self.geometry(ref.key, stack)
            if child is None:
                warns.append(LoadWarning(f.path, ref.line,
                                         f"{f.name}: missing subfile '{ref.name}'; skipped"))
                continue
            placed = transform_geometry(child, ref.matrix, ref.colour, ref.invert,
                                        ref.certified, self.colours)
            pieces.append(placed)
            kind = stud_kind(ref.key)
            if kind == "stud":
                studs.append(ref.matrix)
                direct.append((len(pieces) - 1, len(studs) - 1, True))
            elif kind == "tube":
                tubes.append(ref.matrix)
                direct.append((len(pieces) - 1, len(tubes) - 1, False))
        g = merge_geometry(pieces)
        features = g.features
        if stud_kind(key) is not None:
            # a stud primitive is one stud (its user records it), whatever it contains
            s_arr, a_arr, t_arr = _empty3(), _empty3(), _empty3()
            features = None
        else:
            if direct:
                features = _tag_direct(g, pieces, direct)
            s_arr, a_arr, t_arr = g.studs, g.stud_axes, g.tubes
            if studs:
                pos = np.array([m[:3, 3] for m in studs])
                ax = np.array([-m[:3, 1] for m in studs])
                ax /= np.maximum(np.linalg.norm(ax, axis=1, keepdims=True), 1e-12)
                s_arr, a_arr = np.concatenate([s_arr, pos]), np.concatenate([a_arr, ax])
            if tubes:
                t_arr = np.concatenate([t_arr, np.array([m[:3, 3] for m in tubes])])
        ws = dict.fromkeys(list(g.warnings) + warns)
        return Geometry(g.triangles, g.colours, g.certified, g.edges, g.edge_colours,
                        s_arr, a_arr, t_arr, tuple(ws), g.optional, g.optional_colours, features)

    def part_mesh(self, key: str) -> PartMesh:
        """The :class:`PartMesh` for part ``key`` (library, embedded, catalogue or placeholder)."""
        key = normalise_name(key)
        # the library's own resolver: its process cache, then the disk cache (issue 26)
        own = self.library if not self.embedded and self.folder is None else None
        if own is not None:
            hit = own.part_cache.get(key)
            if hit is None:
                hit = _cached_library_part(own, key)
            if hit is not None:
                own.part_cache[key] = hit
                return hit
        kind, f = self.locate(key)
        if kind == "library" and self._lib_resolver is not None:
            return self._lib_resolver.part_mesh(key)
        cache = self.library.part_cache if (kind == "library" and self.library) else self._parts
        hit = cache.get(key)
        if hit is not None:
            return hit
        if kind == "catalogue":
            pm = _BUILTIN["catalogue_part"](key)
        elif kind == "missing" or f is None:
            pm = placeholder_part(key)
        else:
            g = self.geometry(key)
            pm = (PartMesh.from_geometry(key, f.title, g, kind) if g is not None
                  else placeholder_part(key))
            if own is not None and kind == "library" and g is not None:
                _store_library_part(own, key, pm)
        cache[key] = pm
        return pm


def library_entry(library: LDrawLibrary, key: str, variant: str = "") -> str | None:
    """The disk cache's entry name for library part ``key`` (its file's content, the colour
    table's, the nesting limit; ``variant``: another mesh of the part, such as low-resolution
    studs), or None when the library has no such file."""
    found = library.find(key)
    if found is None:
        return None
    try:
        own = partcache.file_digest(found[1])
        colours = partcache.file_digest(_child_ci(library.root, "LDConfig.ldr"))
    except OSError:
        return None
    return partcache.entry_key("library", key, own, colours, str(limit("nesting")), variant)


def library_digest(library: LDrawLibrary, key: str) -> str:
    """Content hash of the library file ``key`` resolves to now (``""``: not there)."""
    found = library.find(key)
    return "" if found is None else partcache.file_digest(found[1])


def _cached_library_part(library: LDrawLibrary, key: str) -> PartMesh | None:
    """Library part ``key`` from the disk cache, before its file is parsed (issue 26)."""
    entry = library_entry(library, key)
    if entry is None:
        return None
    return partcache.load(entry, key, lambda dep: library_digest(library, dep), PartMesh)


def library_deps(library: LDrawLibrary, key: str) -> list[tuple[str, str]]:
    """Every file library part ``key`` references, all the way down, with its content hash
    (``""`` for one not found), sorted.

    Raises
    ------
    OSError
        A file cannot be read.
    """
    seen, todo, deps = {key}, [key], []
    while todo:
        f = library.read(todo.pop())
        for ref in f.refs if f is not None else ():
            if ref.key in seen or unsafe_reference(ref.key):
                continue
            seen.add(ref.key)
            todo.append(ref.key)
            deps.append((ref.key, library_digest(library, ref.key)))
    return sorted(deps)


def _store_library_part(library: LDrawLibrary, key: str, pm: PartMesh) -> None:
    """Keep a just-expanded library part on disk with every subfile it looked up (the files
    found, by content hash; those not found as ``""``)."""
    entry = library_entry(library, key)
    if entry is None or partcache.cache_dir() is None:
        return
    try:
        deps = library_deps(library, key)
    except OSError:
        return
    partcache.store(entry, pm, deps)


def library_resolver(library: LDrawLibrary) -> Resolver:
    """The library's own resolver (library files + catalogue), created once per library."""
    if library.resolver is None:
        library.resolver = Resolver(library)
    return library.resolver


def get_part_mesh(name: str, ldrawdir: str | Path | None = None) -> PartMesh:
    """The :class:`PartMesh` of a part by name, from the library (``ldrawdir`` or ``$LDRAWDIR``)
    when it has it, else the catalogue, else a placeholder.

    Raises
    ------
    LDrawError
        When an explicitly named library folder does not exist.
    """
    from sandbox.bricks.library import get_library

    lib = get_library(ldrawdir)
    r = library_resolver(lib) if lib is not None else Resolver(None)
    return r.part_mesh(name)


__all__ = [
    "ABS_DENSITY_G_PER_CM3",
    "FILL_FACTOR",
    "Geometry",
    "PartMesh",
    "Resolver",
    "box_triangles",
    "get_part_mesh",
    "nominal_mass_g",
    "placeholder_part",
    "stud_kind",
    "transform_geometry",
]
