"""Scene entries → physics boxes and render arrays, through the LDraw reader.

A :class:`BodyAsset` is what the game needs to put one body on the table: its collision boxes
(one per part, world frame, with the part's mass) and its triangle soup with LDraw colours.
Once the physics world has created the body, :meth:`BodyAsset.attach` expresses the mesh in
the body's frame (centre of mass, principal axes) so a renderer can draw it at any pose.

Inline ``parts`` of a scene and single-part payloads are written as a small LDraw document
and loaded by the same reader as any model, so they behave exactly like parts of a file.
"""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import numpy as np

from ..bricks.connectivity import StudGraph, stud_graph
from ..bricks.ldraw import unsafe_reference
from ..bricks.library import library_dir
from ..bricks.mesh import LineArrays, model_lines, model_mesh, model_vertices, placement_boxes
from ..bricks.model import Model, load_model
from ..core.errors import SceneError
from ..core.units import LDRAW_TO_WORLD_ROT, world_points_to_ldraw
from ..physics.world import BoxShape


def rotation_xyz_deg(angles) -> np.ndarray:
    """Rotation matrix (3, 3) for angles in degrees about X, then Y, then Z (world axes)."""
    ax, ay, az = (math.radians(float(a)) for a in angles)
    cx, sx, cy, sy, cz, sz = (math.cos(ax), math.sin(ax), math.cos(ay), math.sin(ay),
                              math.cos(az), math.sin(az))
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return rz @ ry @ rx


def rigid_matrix(rotation, translation) -> np.ndarray:
    """(4, 4) homogeneous transform ``x → R x + t`` (R (3, 3), t (3,) inches)."""
    m = np.eye(4)
    m[:3, :3] = np.asarray(rotation, dtype=float)
    m[:3, 3] = np.asarray(translation, dtype=float)
    return m


@dataclass
class BodyAsset:
    """Geometry of one body, first in the world frame, then (after :meth:`attach`) its own.

    Attributes
    ----------
    name : str
    boxes : list of BoxShape
        Collision boxes in the world frame (inches), masses in grams.
    vertices, normals : (n, 3) float32
        World-frame triangle soup, inches.
    colours : (n, 4) float32
        RGBA 0..1.
    part_count : int
    warnings : list of str
        Reader warnings ("file:line: message").
    local_vertices, local_normals, local_colours :
        The mesh in the body frame, set by :meth:`attach`.
    """

    name: str
    boxes: list[BoxShape]
    vertices: np.ndarray
    normals: np.ndarray
    colours: np.ndarray
    part_count: int
    warnings: list[str] = field(default_factory=list)
    local_vertices: np.ndarray | None = None
    local_normals: np.ndarray | None = None
    local_colours: np.ndarray | None = None
    local_edges: np.ndarray | None = None
    #: (n // 3,) int: part (box tag) of each triangle; the model and the placements the tags
    #: index, for stud connectivity (set for bodies built from a model).
    placement_index: np.ndarray | None = None
    model: Model | None = None
    placements: tuple = ()
    #: (4, 4) rigid transform from the model's frame (where ``PartPlacement.world_matrix``
    #: places parts: inches, Z up) to the frame of ``vertices`` (world) and, after
    #: :meth:`attach`, of ``local_vertices`` (the body frame); None when not known.
    model_frame: np.ndarray | None = None
    #: :meth:`edge_lines`, computed on first use (cleared when the frame changes).
    _lines: LineArrays | None = field(default=None, repr=False, compare=False)
    #: The parts' stud connection graph (:func:`~sandbox.bricks.connectivity.connection_graph`,
    #: node = placement index = box tag), made at load for a creation (issue 26: never at its
    #: first blast) and shared by every creation of the same model, submodel and colour; it
    #: does not change under a rigid motion. None: not made (a unit, a piece).
    stud_graph: StudGraph | None = field(default=None, repr=False, compare=False)

    @property
    def tags(self) -> list[int]:
        """Indices into :attr:`placements` of the parts this body holds (its boxes' tags)."""
        return [int(b.tag) for b in self.boxes]

    def replaced(self, **changes) -> BodyAsset:
        """A copy of this asset with some fields changed (field name → new value), for every
        kind of asset: ``dataclasses.replace`` calls the class's constructor with the fields,
        which a :class:`PieceAsset` (built from its parent's mesh) does not take.

        Returns a plain :class:`BodyAsset` holding this one's field values (its mesh arrays
        as they read now: a piece's are made if they were not yet; arrays and lists not
        changed are shared, as ``dataclasses.replace`` shares them), its edge lines made
        again on first use (they follow ``placement_index``). Raises TypeError naming a
        field that :class:`BodyAsset` does not have.
        """
        names = [f.name for f in fields(BodyAsset) if f.init and f.name != "_lines"]
        unknown = sorted(set(changes) - set(names))
        if unknown:
            raise TypeError(f"{self.name}: an asset has no field {', '.join(unknown)}")
        return BodyAsset(**{n: changes[n] if n in changes else getattr(self, n)
                            for n in names})

    def bounds(self) -> np.ndarray:
        """(2, 3) world bounds of the mesh, inches (float32, as the world-frame vertices')."""
        d = self.__dict__
        got = d.get("_bounds")
        if got is None:
            v = _world_arrays(self, keep=False)[0] if "_v" in d else self.vertices
            got = d["_bounds"] = np.stack([v.min(axis=0), v.max(axis=0)])
        return got.copy()

    def transform(self, rotation: np.ndarray, translation) -> None:
        """Apply ``x → R x + t`` to the world-frame geometry (before :meth:`attach`).

        Issue 26: the vertices are not touched here. The move is noted and applied when the
        world-frame arrays are first read (a renderer; most never are: collision boxes,
        bounds and the physics need none), with the same arithmetic as moving them now, so
        every array is the same bit for bit; identical creations keep sharing one mesh. The
        bounds of an unturned move follow from the old bounds exactly (rounding to float32
        keeps order: min(f32(v + t)) = f32(min(v) + t)).
        """
        r = np.asarray(rotation, dtype=float)
        t = np.asarray(translation, dtype=float)
        d = self.__dict__
        if np.array_equal(r, np.eye(3)):
            # no turn (issue 21: most entries are placed unrotated): x @ I is x, so only the
            # shift is done, the same numbers up to the sign of a zero; the normals stay
            if t.any():
                d["_ops"] = d.get("_ops", ()) + ((None, t),)
                b = d.get("_bounds")
                d["_bounds"] = None if b is None else (b + t).astype(np.float32)
            # the boxes' centres in one sum (I @ c + t is c + t, zeros' signs included)
            centres = np.array([b.centre for b in self.boxes], dtype=float).reshape(-1, 3) + t
            # an unturned box keeps its axes: the same tuple when it is one already
            self.boxes = [BoxShape(tuple(c), b.half_extents,
                                   b.rotation if type(b.rotation) is tuple
                                   else tuple(map(tuple, np.asarray(b.rotation, dtype=float))),
                                   b.mass, b.tag) for c, b in zip(centres, self.boxes,
                                                                  strict=True)]
        else:
            d["_ops"] = d.get("_ops", ()) + ((r, t),)
            d["_bounds"] = None
            self.boxes = [
                BoxShape(tuple(r @ np.asarray(b.centre) + t), b.half_extents,
                         tuple(map(tuple, r @ np.asarray(b.rotation))), b.mass, b.tag)
                for b in self.boxes
            ]
        if self.model_frame is not None:
            self.model_frame = rigid_matrix(r, t) @ self.model_frame
        self._lines = None

    def move_to_drop(self, xy, height: float) -> None:
        """Place the footprint centre over ``xy`` (inches) with the lowest point at ``height``."""
        lo, hi = self.bounds()
        centre = (lo + hi) / 2
        self.transform(np.eye(3), [xy[0] - centre[0], xy[1] - centre[1], height - lo[2]])

    def attach(self, origin, rotation) -> None:
        """Express the mesh in the body frame (origin (3,), rotation (3, 3) in the world).

        The body-frame arrays are made when first read (a renderer, Fire, a break's pieces;
        issue 26), from the world-frame ones as they are now, with the same arithmetic."""
        r = np.asarray(rotation, dtype=float)
        o = np.asarray(origin, dtype=float)
        d = self.__dict__
        d["_local"] = None
        d["_attach"] = (o, r, d.get("_ops", ()), d["_v"], d["_n"], d["_c"])
        if self.model_frame is not None:
            self.model_frame = np.linalg.inv(rigid_matrix(r, o)) @ self.model_frame
        self._lines = None

    def has_body_mesh(self) -> bool:
        """True when the body-frame mesh exists or can be made (after :meth:`attach`),
        without making it."""
        d = self.__dict__
        if "_source" in d or d.get("_attach") is not None or d.get("_local"):
            return True
        return self.local_vertices is not None

    def edge_lines(self) -> LineArrays | None:
        """The LDraw edge lines (types 2 and 5) of the parts this body holds, in the frame of
        ``local_vertices`` after :meth:`attach` (of ``vertices`` before), inches.

        Made once from the model (:func:`~sandbox.bricks.mesh.model_lines`) on first use:
        rendering asks, the physics never does. ``edge_index``/``optional_index`` are the
        lines' placement indices (tags). None for a body without a model or a known model
        frame.
        """
        if (self.model is None or self.model_frame is None or self.placement_index is None
                or not self.placements):
            return None
        if self._lines is None:
            tags = np.unique(np.asarray(self.placement_index))
            lines = model_lines(self.model, [self.placements[int(t)] for t in tags])
            r, t = self.model_frame[:3, :3], self.model_frame[:3, 3]
            self._lines = LineArrays(
                (lines.edges @ r.T + t).astype(np.float32), lines.edge_colours,
                tags[lines.edge_index].astype(np.int32),
                (lines.optional @ r.T + t).astype(np.float32), lines.optional_colours,
                tags[lines.optional_index].astype(np.int32))
        return self._lines

    def visible_geometry(self, *, cull: bool = True, low_res: bool = True,
                         far: bool = False) -> tuple | None:
        """What a renderer draws of this body (issue 26): the triangles and edge lines of the
        parts it holds, without the studs and tubes its own parts hide (``cull``; a piece of
        a broken body computes them from its own parts, so a break shows the studs it
        uncovers) and with low-resolution stud primitives (``low_res``); see
        :mod:`sandbox.bricks.visible`. With ``far``, the far level of detail instead
        (:mod:`sandbox.bricks.lod`: no studs, tubes or lines, detailed parts decimated).

        Returns
        -------
        (vertices, normals, colours, LineArrays) or None
            In the frame of ``local_vertices`` after :meth:`attach` (of ``vertices``
            before): (n, 3), (n, 3), (n, 4) float32, inches. None for a body without a model
            or a known model frame (draw its ``local_*`` arrays). Made on first use, the
            model-frame geometry shared by identical creations.
        """
        if (self.model is None or self.model_frame is None or self.placement_index is None
                or not self.placements):
            return None
        from ..bricks.visible import creation_geometry

        frame = np.asarray(self.model_frame, dtype=float)
        key = (bool(cull), bool(low_res), bool(far), frame.tobytes())
        store = self.__dict__.setdefault("_visible", {})
        got = store.get(key)
        if got is None:
            tags = np.unique(np.asarray(self.placement_index))
            mesh, lines = creation_geometry(self.model, self.placements, tags, cull=cull,
                                            low_res=low_res, far=far)
            r, t = frame[:3, :3], frame[:3, 3]
            got = ((mesh.vertices @ r.T + t).astype(np.float32),
                   (mesh.normals @ r.T).astype(np.float32), mesh.colours,
                   LineArrays((lines.edges @ r.T + t).astype(np.float32), lines.edge_colours,
                              lines.edge_index, (lines.optional @ r.T + t).astype(np.float32),
                              lines.optional_colours, lines.optional_index))
            for old in [k for k in store if k[3] != key[3]]:
                del store[old]  # another frame (the body was rebuilt): drop what was made
            store[key] = got
        return got


def _world_arrays(asset: BodyAsset, keep: bool = True) -> tuple:
    """The world-frame (vertices, normals) of an asset, its noted moves applied now (with the
    arithmetic :meth:`BodyAsset.transform` always used); ``keep``: store them (else the moves
    stay noted and the arrays are only returned, e.g. for bounds)."""
    d = asset.__dict__
    v, n = d["_v"], d["_n"]
    ops = d.get("_ops", ())
    for r, t in ops:
        if r is None:
            v = (v + t).astype(np.float32)
        else:
            v = (v @ r.T + t).astype(np.float32)
            n = (n @ r.T).astype(np.float32)
    if keep and ops:
        d["_v"], d["_n"], d["_ops"] = v, n, ()
    return v, n


def _mesh_property(name: str) -> property:
    """A mesh array of a :class:`BodyAsset`: world-frame ones with their noted moves applied on
    first read; body-frame ones made on first read after :meth:`BodyAsset.attach`."""

    def get(self):
        d = self.__dict__
        if name == "colours":
            return d["_c"]
        if name in ("vertices", "normals"):
            v, n = _world_arrays(self)
            return v if name == "vertices" else n
        if d.get("_local") is None:
            att = d.get("_attach")
            if att is None:
                return d.get("_given_" + name)
            o, r, ops, v0, n0, c0 = att
            tmp = BodyAsset.__new__(BodyAsset)
            tmp.__dict__.update(_v=v0, _n=n0, _ops=ops)
            v, n = _world_arrays(tmp, keep=False)
            d["_local"] = {"local_vertices": ((v - o) @ r).astype(np.float32),
                           "local_normals": (n @ r).astype(np.float32),
                           "local_colours": c0.astype(np.float32)}
        return d["_local"][name]

    def put(self, value):
        d = self.__dict__
        if name in ("vertices", "normals", "colours"):
            d["_" + name[0]] = value
            if name == "vertices":
                d["_ops"], d["_bounds"] = (), None
                d.pop("_attach", None)
                d["_local"] = None
            return
        if value is None and d.get("_attach") is not None:
            return
        if d.get("_local") is None:
            d["_local"] = None
            d["_given_" + name] = value
            if value is not None and all(d.get("_given_" + k) is not None for k in
                                         ("local_vertices", "local_normals", "local_colours")):
                d["_local"] = {k: d.pop("_given_" + k) for k in
                               ("local_vertices", "local_normals", "local_colours")}
                d.pop("_attach", None)
        else:
            d["_local"][name] = value

    return property(get, put, doc=f"``{name}`` (made on first read; issue 26).")


for _name in ("vertices", "normals", "colours", "local_vertices", "local_normals",
              "local_colours"):
    setattr(BodyAsset, _name, _mesh_property(_name))


def _lazy_mesh_array(name: str) -> property:
    """A mesh array of a :class:`PieceAsset`, made on first use."""

    def get(self):
        d = self.__dict__
        if name not in d:
            self.make_mesh()
        return d[name]

    def put(self, value):
        if value is None and self.__dict__.get("_source") is not None:
            return  # the dataclass's __init__: the array comes from the source on first use
        self.__dict__[name] = value

    return property(get, put, doc=f"``{name}``, made from the parent's mesh on first use.")


class PieceAsset(BodyAsset):
    """The asset of a piece of a broken body (issue 21): its mesh is the triangles ``tri`` of
    the parent's body-frame mesh, moved by the parent's pose then into the piece's own frame.

    The arrays (world and body frame, normals, colours) are made on first use, by a renderer
    or by Fire's samples, not when the body breaks: a break of the King's Castle into 46
    pieces would otherwise move 1.4 million vertices twice before physics goes on. They are
    the same numbers, bit for bit, as moving the whole parent mesh to the world and then each
    piece into its frame (the transform of a row does not depend on the other rows).

    Parameters
    ----------
    name, boxes, part_count :
        As :class:`BodyAsset`.
    parent : BodyAsset
        The body that broke (attached: its ``local_*`` arrays are its body-frame mesh).
    tri : (k,) int, or a function of no arguments that returns them
        The piece's triangles in the parent's mesh, ascending. A function is called on first
        need (the mesh or ``placement_index`` read; issue 26: a break does not sort the
        parent's triangles by piece unless something reads a piece's mesh).
    parent_rotation, parent_position : (3, 3), (3,)
        The parent's pose when it broke (world frame, inches).
    origin, rotation : (3,), (3, 3)
        The piece's body frame (its centre of mass and principal axes, world frame).
    **fields :
        The other :class:`BodyAsset` fields (``placement_index`` …).
    """

    vertices = _lazy_mesh_array("vertices")
    normals = _lazy_mesh_array("normals")
    colours = _lazy_mesh_array("colours")
    local_vertices = _lazy_mesh_array("local_vertices")
    local_normals = _lazy_mesh_array("local_normals")
    local_colours = _lazy_mesh_array("local_colours")

    def __init__(self, name: str, boxes: list[BoxShape], part_count: int, *, parent: BodyAsset,
                 tri, parent_rotation, parent_position, origin, rotation, **fields):
        d = self.__dict__
        d["_tri"] = tri if callable(tri) else np.asarray(tri)
        d["_source"] = (parent, np.asarray(parent_rotation, float),
                        np.asarray(parent_position, float),
                        np.asarray(origin, float), np.asarray(rotation, float))
        if "placement_index" not in fields and parent.placement_index is not None:
            d["_parent_index"] = parent.placement_index  # this piece's: made on first read
        # the lazy properties above take None as "made on first use"; mypy reads the
        # dataclass fields' ndarray types instead of their setters
        super().__init__(name, boxes, None, None, None,  # type: ignore[arg-type]
                         part_count, **fields)

    def triangles(self) -> np.ndarray:
        """(k,) int: the piece's triangles in the parent's mesh, ascending."""
        tri = self.__dict__["_tri"]
        if callable(tri):
            tri = self.__dict__["_tri"] = np.asarray(tri())
        return tri

    @property
    def placement_index(self):
        """(k,) int: part (box tag) of each triangle: the parent's, for the piece's
        triangles (made on first read)."""
        d = self.__dict__
        if "_parent_index" in d:
            d["placement_index"] = np.asarray(d.pop("_parent_index"))[self.triangles()]
        return d.get("placement_index")

    @placement_index.setter
    def placement_index(self, value) -> None:
        d = self.__dict__
        if value is None and "_parent_index" in d:
            return  # the dataclass's __init__: the parent's, on first read
        d.pop("_parent_index", None)
        d["placement_index"] = value

    def make_mesh(self) -> None:
        """Make the mesh arrays now (what the first read of one of them does)."""
        src = self.__dict__.pop("_source", None)
        if src is None:
            return
        parent, r_old, pos, o, r = src
        tri = self.triangles()
        lv, ln, lc = parent.local_vertices, parent.local_normals, parent.local_colours
        vsel = (tri[:, None] * 3 + np.arange(3)).reshape(-1)
        world_v = (lv[vsel].astype(float) @ r_old.T + pos).astype(np.float32)
        world_n = (ln[vsel].astype(float) @ r_old.T).astype(np.float32)
        d = self.__dict__
        d["vertices"], d["normals"], d["colours"] = world_v, world_n, lc[vsel]
        d["local_vertices"] = ((world_v - o) @ r).astype(np.float32)
        d["local_normals"] = (world_n @ r).astype(np.float32)
        d["local_colours"] = d["colours"].astype(np.float32)


def _asset_from_model(model: Model, name: str, placements=None,
                      default_colour: int | None = None) -> BodyAsset:
    pls = list(model.placements if placements is None else placements)
    if not pls:
        raise SceneError(f"{name}: the model has no parts to put on the table")
    mesh = model_mesh(model, pls)
    boxes = []
    for i, (p, box) in enumerate(zip(pls, placement_boxes(model, pls), strict=True)):
        mass = float(model.parts[p.part].mass_g)
        c, h = box.centre, box.half_extents
        boxes.append(BoxShape((float(c[0]), float(c[1]), float(c[2])),
                              (float(h[0]), float(h[1]), float(h[2])),
                              tuple(map(tuple, np.asarray(box.rotation, dtype=float))),
                              max(mass, 0.05), i))
    warnings = [str(w) for w in model.warnings]
    return BodyAsset(name, boxes, np.asarray(mesh.vertices, np.float32),
                     np.asarray(mesh.normals, np.float32), np.asarray(mesh.colours, np.float32),
                     len(pls), warnings, placement_index=np.asarray(mesh.placement_index),
                     model=model, placements=tuple(pls), model_frame=np.eye(4))


def _select_submodel(model: Model, submodel: str, where: str, instance: int | None = None):
    """The placements of one submodel (and, when it is placed several times, one instance)."""
    want = submodel.lower()
    if want not in {s.lower() for s in model.submodels}:
        raise SceneError(f"{where}.submodel {submodel!r} is not a submodel of {model.path.name} "
                         f"(it has {len(model.submodels)}: {', '.join(model.submodels[:8])}...)")
    instances: dict[tuple, list] = {}
    for p in model.placements:
        chain = [c.lower() for c in getattr(p, "chain", ())]
        if want in chain:
            depth = chain.index(want)
            instances.setdefault(tuple(p.chain_lines[:depth]), []).append(p)
    if not instances:
        raise SceneError(f"{where}.submodel {submodel!r} holds no parts")
    groups = list(instances.values())
    if instance is None:
        if len(groups) > 1:
            raise SceneError(f"{where}.submodel {submodel!r} is placed {len(groups)} times in "
                             f"{model.path.name}: add instance = 1..{len(groups)}")
        return groups[0]
    if not 1 <= instance <= len(groups):
        raise SceneError(f"{where}.instance {instance} is out of range: {submodel!r} is placed "
                         f"{len(groups)} time(s)")
    return groups[instance - 1]


def _ldraw_line(part: str, colour: int, position_in, rotation_deg) -> str:
    """A type-1 LDraw line placing ``part`` at a world pose (inches, degrees)."""
    r_world = rotation_xyz_deg(rotation_deg)
    r = LDRAW_TO_WORLD_ROT
    m = r.T @ r_world @ r  # the same turn, in LDraw axes
    t = world_points_to_ldraw(np.asarray(position_in, dtype=float))
    name = part if part.lower().endswith(".dat") else f"{part}.dat"
    nums = [*t, *m.reshape(-1)]
    return f"1 {colour} " + " ".join(f"{v:.6f}" for v in nums) + f" {name}"


def _load_inline(lines: list[str], name: str, ldrawdir) -> Model:
    with tempfile.TemporaryDirectory(prefix="sandbox-inline-") as tmp:
        path = Path(tmp) / f"{name}.ldr"
        path.write_text(f"0 {name}\n0 Name: {name}.ldr\n" + "\n".join(lines) + "\n",
                        encoding="utf-8")
        return load_model(path, ldrawdir=ldrawdir)


def build_part_asset(part: str, colour: int, ldrawdir=None, name: str | None = None) -> BodyAsset:
    """A one-part body (a payload): the part at the origin, upright."""
    model = _load_inline([_ldraw_line(part, colour, (0, 0, 0), (0, 0, 0))], "payload", ldrawdir)
    return _asset_from_model(model, name or f"part {part}")


#: File name endings of LDraw files a scene may name as a model (LDraw spec: parts and
#: models ``.dat``/``.ldr``, multi-part documents ``.mpd``; LDraw's ``.l3b`` is ``.ldr``).
MODEL_SUFFIXES = (".ldr", ".mpd", ".dat", ".l3b")


def resolve_model_path(model: str, base_dir: Path, ldrawdir, where: str) -> Path:
    """Find a scene's model file: relative to the scene's folder first, then in the LDraw
    library's ``models/`` folder (``LDRAWDIR/models``, where LDraw keeps models by
    convention), then relative to the library itself (``models/6080.mpd``).
    Only LDraw file names (:data:`MODEL_SUFFIXES`) are opened: a scene naming
    ``/etc/passwd`` or a device is refused before anything is read, and a library candidate
    that would leave the library (an absolute path, ``..``, a link out) is not tried.

    Raises
    ------
    SceneError
        Naming the entry and every place looked in.
    """
    if Path(model).suffix.lower() not in MODEL_SUFFIXES:
        raise SceneError(f"{where}.model: {model!r} is not an LDraw file name (one of "
                         f"{', '.join(MODEL_SUFFIXES)}); refused (not opened)")
    tried = [base_dir / model]
    lib = library_dir(ldrawdir)
    if lib is not None and not unsafe_reference(model):
        for cand in (lib / "models" / model, lib / model):
            try:
                inside = cand.resolve().is_relative_to(lib.resolve())
            except (OSError, RuntimeError):
                inside = False
            if inside:
                tried.append(cand)
    for p in tried:
        try:
            if p.is_file():
                return p
        except OSError as exc:  # a name over the file system's limit (ENAMETOOLONG), a loop
            raise SceneError(f"{where}.model: cannot open {str(p)!r}: "
                             f"{exc.strerror or exc}") from None
    for p in tried:
        if p.exists() and not p.is_file():
            raise SceneError(f"{where}.model: {str(p)!r} is "
                             + ("a folder" if p.is_dir() else "not a regular file")
                             + ", not an LDraw file")
    hint = "" if lib is not None else "; set LDRAWDIR to an LDraw library for library models"
    folders = list(dict.fromkeys(str(t.parent) for t in tried))
    raise SceneError(f"{where}.model: no such file {model!r} (looked in "
                     + ", ".join(repr(f) for f in folders) + hint + ")")


def build_asset(entry, base_dir: Path, ldrawdir=None, placed: bool = True,
                cache: dict | None = None) -> BodyAsset:
    """The asset of a scene creation or unit, placed as the scene says.

    Parameters
    ----------
    entry : Creation or Unit
        The validated scene entry.
    base_dir : Path
        Folder of the scene file (model paths are relative to it).
    ldrawdir : path, optional
        LDraw library.
    placed : bool
        Apply the entry's rotation and position (False for reserves, placed later).
    cache : dict, optional
        Models already loaded in this game, by path (a model used by several entries is
        read once, and its reader warnings are reported once).

    Raises
    ------
    SceneError
        A missing model file or submodel (naming the entry); LDraw errors pass through.
    """
    where = f"{entry.kind}s[{entry.id}]"
    if entry.model is not None:
        path = resolve_model_path(entry.model, base_dir, ldrawdir, where)
        cached = None if cache is None else cache.get(path.resolve())
        first = cached is None
        if cached is None:
            model = load_model(path, ldrawdir=ldrawdir)
            if cache is not None:
                cache[path.resolve()] = model
        else:
            model = cached
        pls = list(model.placements)
        whole = None
        if entry.submodel is not None:
            pls = _select_submodel(model, entry.submodel, where, entry.instance)
            if entry.keep_model_placement:
                whole = _whole_model_vertices(model, path, cache)
    else:
        lines = [_ldraw_line(p.part, p.colour, p.position, p.rotation) for p in entry.parts]
        model = _load_inline(lines, entry.id, ldrawdir)
        pls = list(model.placements)
        whole = None
    # The entry's colour stands in for the main colour (16) wherever the model's top-level
    # lines say 16 (LDraw: 16 is "the colour of the line that placed me"); cached models are
    # never changed, the placements are copied.
    colour = getattr(entry, "colour", 16)
    if colour != 16:
        pls = [replace(p, colour=colour) if p.colour == 16 else p for p in pls]
    asset = _cached_asset(model, entry.name or entry.id, pls, cache,
                          None if entry.model is None else
                          ("asset", path.resolve(), entry.submodel, entry.instance, colour),
                          graph=entry.kind == "creation")
    if entry.model is not None and not first:
        asset.warnings = []
    # Turn first (about the model's own origin), then set the turned model on the table: the
    # footprint centre on the origin, the lowest point on the table top, then moved to
    # ``position``. A submodel kept where its model puts it is set down with the whole model.
    rot = rotation_xyz_deg(entry.rotation) if placed else np.eye(3)
    asset.transform(rot, [0.0, 0.0, 0.0])
    if whole is None:
        lo, hi = asset.bounds()  # the mesh's min and max, kept per shared mesh
    else:
        lo, hi = _turned_bounds(whole, rot, path, cache)
    offset = np.array([-(lo[0] + hi[0]) / 2, -(lo[1] + hi[1]) / 2, -lo[2]])
    if placed:
        offset = offset + np.asarray(entry.position, dtype=float)
    asset.transform(np.eye(3), offset)
    return asset


def _cached_asset(model: Model, name: str, pls, cache: dict | None, key,
                  graph: bool = False) -> BodyAsset:
    """The unplaced asset of a model's placements, meshed once per game (issue 21): a second
    creation of the same model, submodel, instance and colour gets a copy of the first's
    (its arrays are shared: ``transform`` and ``attach`` make new ones, never change them).
    ``graph``: make the stud graph now (a creation), once per cached asset."""
    if cache is None or key is None:
        asset = _asset_from_model(model, name, pls)
        if graph:
            asset.stud_graph = stud_graph(model, asset.placements, boxes=asset.boxes)
        return asset
    if key not in cache:
        cache[key] = _asset_from_model(model, name, pls)
    base = cache[key]
    if graph and base.stud_graph is None:
        base.stud_graph = stud_graph(model, base.placements, boxes=base.boxes)
    asset = replace(base, name=name, boxes=list(base.boxes), warnings=list(base.warnings))
    asset.__dict__["_bounds"] = base.bounds()  # measured once per cached mesh
    return asset


def _turned_bounds(whole: np.ndarray, rot: np.ndarray, path: Path,
                   cache: dict | None) -> tuple[np.ndarray, np.ndarray]:
    """Min and max (3,) of a whole model's vertices turned by ``rot``, once per file and turn
    (issue 26: 83 towers cut from one model measured its 180k vertices 83 times)."""
    key = ("turned bounds", path.resolve(), rot.tobytes())
    if cache is not None and key in cache:
        return cache[key]
    pts = whole @ rot.T
    got = (pts.min(axis=0), pts.max(axis=0))
    if cache is not None:
        cache[key] = got
    return got


def _whole_model_vertices(model: Model, path: Path, cache: dict | None) -> np.ndarray:
    """World-frame vertices (n, 3) of a whole model, cached per file (for placing submodels)."""
    key = ("vertices", path.resolve())
    if cache is not None and key in cache:
        return cache[key]
    verts = np.asarray(model_vertices(model), dtype=float)  # model_mesh's, without the rest
    if cache is not None:
        cache[key] = verts
    return verts
