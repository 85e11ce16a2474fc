"""The table as files other tools open: glTF binary (Blender, three.js) and LDraw MPD (LeoCAD,
Stud.io).

A :class:`TableSnapshot` is the battlefield and every body on it at one moment: a scene after
set-up, a saved game after replaying its log, or a replay at frame N (default: the last). Each
body carries its :class:`~sandbox.engine.assets.BodyAsset` (mesh in the body frame, the LDraw
placements of its parts, ``model_frame``) and its pose (inches, world frame, Z up).

- :func:`write_gltf`: one node per body, named after the body, placed at its pose; under it
  one mesh node per LDraw colour, whose material is named after the LDraw colour
  (``"Light_Bluish_Grey"``); the battlefield as a box; a root node ``"table"`` turns the
  world (inches, Z up) into glTF's metres, Y up. Written by trimesh: ``.glb`` (binary) or
  ``.gltf`` (JSON beside a ``.bin`` buffer), indexed triangles (a vertex shared by triangles
  of one colour with the same normal is stored once); ``baseColorFactor`` is linear light
  (the LDraw colour's sRGB value through :func:`~sandbox.bricks.colours.srgb_to_linear`),
  transparent colours are ``alphaMode: BLEND`` with LDConfig's alpha, and chrome, metallic,
  pearl and rubber finishes set ``metallicFactor``/``roughnessFactor``
  (:data:`FINISH_PBR`).
- :func:`write_ldraw`: an MPD whose main model places one submodel per creation (and per
  unit, payload, ...): a body that came whole from a model is that model's file copied as
  written, in its own frame, placed by the reference's matrix; a creation broken by an
  explosion (BrikWars 8.4) is a submodel holding its pieces as submodels, each at its pose,
  and its destroyed parts as loose parts; the files an LDraw program may lack (the model's
  own, unofficial parts, placeholders) are copied in.

Both are written atomically (a failed export leaves any older file in place).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..bricks.colours import EDGE_COLOUR, MAIN_COLOUR, is_direct_colour, srgb_to_linear
from ..core.errors import LDrawError, OutputError, ReplayError, SceneError
from ..core.transforms import quat_to_matrix
from ..core.units import LDRAW_TO_WORLD_ROT, LDU_PER_INCH
from ..engine.assets import BodyAsset
from ..engine.replay import atomic_write_bytes

#: Metres per inch (glTF's unit is the metre).
METRE_PER_INCH: float = 0.0254
#: Battlefield colour (the renderer's ground) and thickness below z = 0, inches.
GROUND_RGBA: tuple[float, float, float, float] = (0.36, 0.50, 0.33, 1.0)
GROUND_THICKNESS_IN: float = 1.0
#: The ``table`` node's matrix: world inches, Z up → glTF metres, Y up.
TABLE_TO_GLTF: np.ndarray = np.eye(4)
TABLE_TO_GLTF[:3, :3] = np.array([[1, 0, 0], [0, 0, 1], [0, -1, 0]], float) * METRE_PER_INCH
TABLE_TO_GLTF.setflags(write=False)
#: glTF ``(metallicFactor, roughnessFactor)`` of each LDraw finish (LDConfig keyword; ``""``:
#: plain ABS plastic; ``"MATERIAL"``: glitter or speckle, drawn as its base colour).
#: Transparent colours use the plain or finish value with the roughness of
#: :data:`TRANSPARENT_ROUGHNESS`.
FINISH_PBR: dict[str, tuple[float, float]] = {
    "": (0.0, 0.35),
    "MATERIAL": (0.0, 0.35),
    "RUBBER": (0.0, 0.85),
    "PEARLESCENT": (0.55, 0.3),
    "MATTE_METALLIC": (0.8, 0.55),
    "METAL": (1.0, 0.35),
    "CHROME": (1.0, 0.08),
}
TRANSPARENT_ROUGHNESS: float = 0.1
#: File name endings :func:`write_gltf` writes.
GLTF_SUFFIXES: tuple[str, ...] = (".glb", ".gltf")


@dataclass(frozen=True)
class ExportBody:
    """One body on the table.

    Attributes
    ----------
    key : str
        The engine's key (``"wall"``, ``"wall#2"`` for a piece, ``"wall~7"`` for a part
        destroyed by a blast).
    name : str
        Display name, unique in the snapshot.
    asset : BodyAsset
        After ``attach``: mesh in the body frame, placements, ``model_frame``.
    pose : (4, 4) float
        Body frame → world, inches.
    group : str
        Key of the creation it came from (itself unless it is a piece of a broken one).
    debris : bool
        A part a blast destroyed and threw off its creation (a ``break`` event's debris).
    """

    key: str
    name: str
    asset: BodyAsset
    pose: np.ndarray
    group: str
    debris: bool = False

    @property
    def tags(self) -> list[int]:
        """Indices into ``asset.placements`` of the parts of this body."""
        return self.asset.tags

    def part_matrices(self) -> list[tuple[object, np.ndarray]]:
        """``[(PartPlacement, (4, 4) world placement in inches)]`` of this body's parts now.

        The world placement maps the part's world-axes local points (as
        ``PartPlacement.world_matrix`` does) to the world.

        Raises
        ------
        OutputError
            When the body was not built from LDraw placements.
        """
        a = self.asset
        if a.model_frame is None or not a.placements:
            raise OutputError(f"{self.key}: the body has no LDraw placements to export")
        frame = self.pose @ a.model_frame
        return [(a.placements[t], frame @ a.placements[t].world_matrix) for t in self.tags]


@dataclass(frozen=True)
class TableSnapshot:
    """The battlefield and its bodies at one moment.

    Attributes
    ----------
    title : str
        The scene's name.
    width, depth : float
        Battlefield size, inches (centred on the origin, top face z = 0).
    bodies : tuple of ExportBody
        In the engine's order.
    """

    title: str
    width: float
    depth: float
    bodies: tuple[ExportBody, ...]

    def part_count(self) -> int:
        """Parts on the table (every body's)."""
        return sum(len(b.tags) for b in self.bodies)


# ====================================================================== snapshots
def _pose_matrix(position, quaternion) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = quat_to_matrix(quaternion)
    m[:3, 3] = np.asarray(position, dtype=float)
    return m


def _groups(events) -> tuple[dict[str, str], set[str]]:
    """``{piece key: creation key}`` from the ``break`` events (pieces of pieces followed),
    and the keys of the destroyed parts (debris)."""
    parent: dict[str, str] = {}
    debris: set[str] = set()
    for e in events:
        if e.get("type") == "break":
            debris.update(str(k) for k in e.get("debris") or ())
            for k in list(e.get("pieces") or ()) + list(e.get("debris") or ()):
                parent[str(k)] = str(e.get("body"))
    out = {}
    for k in parent:
        root, seen = k, set()
        while root in parent and root not in seen:
            seen.add(root)
            root = parent[root]
        out[k] = root
    return out, debris


def _unique_names(keys_names: list[tuple[str, str]]) -> dict[str, str]:
    counts: dict[str, int] = {}
    for _, n in keys_names:
        counts[n] = counts.get(n, 0) + 1
    return {k: (n if counts[n] == 1 else f"{n} [{k}]") for k, n in keys_names}


def _snapshot(title, battlefield, assets: dict, poses: dict, events) -> TableSnapshot:
    groups, debris = _groups(events)
    keys = [k for k in poses if k in assets]
    missing = [k for k in poses if k not in assets and k != "ground"]
    if missing:
        raise ReplayError(f"no mesh for bodies {missing[:5]} on the table")
    names = _unique_names([(k, assets[k].name) for k in keys])
    bodies = tuple(ExportBody(k, names[k], assets[k], _pose_matrix(*poses[k]),
                              groups.get(k, k), k in debris) for k in keys)
    return TableSnapshot(str(title), float(battlefield["width"]), float(battlefield["depth"]),
                         bodies)


def snapshot_of_game(game) -> TableSnapshot:
    """The table of a running :class:`~sandbox.engine.game.Game` now."""
    bf = game.spec.battlefield
    poses = {k: p for k, p in game.world.poses().items() if k in game.assets}
    return _snapshot(game.spec.name, {"width": bf.width, "depth": bf.depth}, game.assets,
                     poses, game.events)


def snapshot_of_replay(replay, frame: int | None = None, base_dir=None,
                       ldrawdir=None, assets: dict | None = None) -> TableSnapshot:
    """The table of a replay at ``frame`` (default: the last), meshes rebuilt by
    :func:`sandbox.engine.playback.replay_assets` (one re-simulation) unless ``assets`` (its
    result, for several frames) is given.

    Raises
    ------
    ReplayError
        ``frame`` outside the replay, or the scene cannot be rebuilt.
    """
    from ..engine.playback import replay_assets

    f = replay.frames - 1 if frame is None else int(frame)
    if not 0 <= f < max(replay.frames, 1):
        raise ReplayError(f"--frame {frame}: the replay has frames 0..{replay.frames - 1}")
    poses = replay.poses_at(f)
    if assets is None:
        assets = replay_assets(replay, base_dir=base_dir, ldrawdir=ldrawdir)
    frame_time = float(replay.times()[f])
    events = [e for e in replay.events if float(e.get("time", 0.0)) <= float(frame_time) + 1e-9]
    bf = replay.scene.get("battlefield") or {}
    return _snapshot(replay.scene.get("name", "replay"),
                     {"width": bf.get("width", 48.0), "depth": bf.get("depth", 48.0)},
                     assets, poses, events)


def load_snapshot(path: str | Path, frame: int | None = None, ldrawdir=None) -> TableSnapshot:
    """A snapshot of a scene (.toml, after set-up), a saved game (after its log) or a replay
    (frame ``frame``, default the last).

    Raises
    ------
    SceneError, ReplayError
        One line naming the file and the problem (``frame`` given for a scene or a save).
    """
    p = Path(path)
    if p.suffix.lower() == ".replay":
        from ..engine.replay import load_replay

        rp = load_replay(p)
        return snapshot_of_replay(rp, frame, base_dir=p.resolve().parent, ldrawdir=ldrawdir)
    if frame is not None:
        raise SceneError(f"{p}: --frame is for replays; a scene or a save is exported as it "
                         "stands")
    from ..engine.game import open_game

    with open_game(p, ldrawdir=ldrawdir) as game:
        return snapshot_of_game(game)


# ====================================================================== colours
def _colour_names(asset: BodyAsset, tags) -> dict[tuple, tuple[str, int | None, object]]:
    """``{rounded rgba: (LDraw colour name, code, Colour or None)}`` for the colours the
    body's parts use."""
    model = asset.model
    out: dict[tuple, tuple[str, int | None, object]] = {}
    if model is None:
        return out
    table = model.colours
    seen: set[tuple[str, int]] = set()
    for t in tags:
        p = asset.placements[t]
        for c in np.unique(model.parts[p.part].colours) if p.part in model.parts else ():
            if (p.part, p.colour, int(c)) in seen:
                continue
            seen.add((p.part, p.colour, int(c)))
            c = int(c)
            if c == EDGE_COLOUR:
                code = table.edge_code(p.colour)
                rgba = table.edge_rgba(p.colour)
            else:
                code = p.colour if c == MAIN_COLOUR else c
                rgba = table.rgba(code)
            col = table.get(code)
            name = col.name if col is not None else _code_text(code)
            out.setdefault(_rgba_key(rgba), (name, code, col))
    return out


def _rgba_key(rgba) -> tuple:
    return tuple(int(round(float(v) * 255)) for v in rgba)


def _code_text(code: int) -> str:
    return f"0x{code:07X}" if is_direct_colour(code) else str(int(code))


# ====================================================================== glTF
def material_properties(name: str, rgba, finish: str = "") -> dict:
    """The glTF 2.0 material of an LDraw colour.

    Parameters
    ----------
    name : str
        The material's name (the LDraw colour's name).
    rgba : 4 floats
        sRGB colour and alpha, 0..1, as LDConfig gives them.
    finish : str
        LDConfig finish keyword (:data:`FINISH_PBR`; unknown ones count as plain).

    Returns
    -------
    dict
        ``{"name", "pbrMetallicRoughness": {"baseColorFactor": linear RGBA,
        "metallicFactor", "roughnessFactor"}, "alphaMode", "doubleSided"}``.

    >>> m = material_properties("Red", (0xB4 / 255, 0, 0, 1))
    >>> [round(v, 3) for v in m["pbrMetallicRoughness"]["baseColorFactor"]], m["alphaMode"]
    ([0.456, 0.0, 0.0, 1.0], 'OPAQUE')
    """
    r, g, b, a = (float(v) for v in rgba)
    metallic, rough = FINISH_PBR.get(finish, FINISH_PBR[""])
    blend = a < 1.0 - 1e-6
    if blend:
        rough = min(rough, TRANSPARENT_ROUGHNESS)
    lin = [float(v) for v in srgb_to_linear(np.array([r, g, b]))]
    return {"name": name,
            "pbrMetallicRoughness": {"baseColorFactor": [*lin, a], "metallicFactor": metallic,
                                     "roughnessFactor": rough},
            "alphaMode": "BLEND" if blend else "OPAQUE", "doubleSided": False}


def _material(name: str, rgba):
    """A trimesh material carrying the name; its factors are replaced by
    :func:`material_properties` when written (trimesh keeps 8-bit colours)."""
    from trimesh.visual.material import PBRMaterial

    c = [int(round(float(v) * 255)) for v in rgba]
    return PBRMaterial(name=name, baseColorFactor=c, metallicFactor=0.0, roughnessFactor=0.35,
                       alphaMode="BLEND" if c[3] < 255 else "OPAQUE", doubleSided=False)


def indexed_triangles(vertices) -> tuple[np.ndarray, np.ndarray]:
    """A triangle soup as indexed triangles: each distinct corner position stored once.

    The table's meshes are flat-shaded (each triangle's own normal), so the glTF carries no
    normals: glTF 2.0 (3.7.2.1) has readers compute flat normals where a mesh gives none,
    and corners at one place are then one vertex.

    Parameters
    ----------
    vertices : (3k, 3) float
        Corner positions, three per triangle (counter-clockwise seen from outside).

    Returns
    -------
    (v, faces) : (m, 3) float64, (k, 3) int64
        ``v[faces]`` is the soup's triangles, corner for corner (float32 values); the
        vertices in the order they first appear.
    """
    v = np.ascontiguousarray(np.asarray(vertices, dtype=np.float32).reshape(-1, 3))
    _, first, inv = np.unique(v.view(np.dtype((np.void, v.dtype.itemsize * 3))),
                              return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    faces = rank[inv.reshape(-1)].reshape(-1, 3).astype(np.int64)
    return v[first[order]].astype(np.float64), faces


def _mesh(vertices, rgba, name: str):
    import trimesh

    v, faces = indexed_triangles(vertices)
    m = trimesh.Trimesh(vertices=v, faces=faces, process=False)
    m.visual = trimesh.visual.TextureVisuals(material=_material(name, rgba))
    return m


def _ground_mesh(width: float, depth: float):
    import trimesh

    box = trimesh.creation.box(extents=(width, depth, GROUND_THICKNESS_IN))
    box.apply_translation((0.0, 0.0, -GROUND_THICKNESS_IN / 2))
    box.visual = trimesh.visual.TextureVisuals(material=_material("battlefield", GROUND_RGBA))
    return box


def _node_name(text: str) -> str:
    return re.sub(r"[\x00-\x1f/]", "_", text)


def table_scene(snapshot: TableSnapshot):
    """The snapshot as a ``trimesh.Scene`` (what :func:`write_gltf` writes).

    Nodes: ``table`` (inches Z up → metres Y up) → ``battlefield`` and one node per body
    (named :attr:`ExportBody.name`, its pose as the node's matrix) → one node per colour
    (``"<body>/<colour name>"``), whose mesh (indexed, :func:`indexed_triangles`) has a
    material named after the LDraw colour. ``scene.metadata["materials"]`` holds
    :func:`material_properties` of every material by name (what the written file carries).
    """
    import trimesh

    scene = trimesh.Scene()
    scene.graph.update(frame_from=scene.graph.base_frame, frame_to="table",
                       matrix=TABLE_TO_GLTF)
    scene.add_geometry(_ground_mesh(snapshot.width, snapshot.depth), node_name="battlefield",
                       geom_name="battlefield", parent_node_name="table")
    materials = {"battlefield": material_properties("battlefield", GROUND_RGBA)}
    bodies = {}
    for b in snapshot.bodies:
        a = b.asset
        if a.local_vertices is None or len(a.local_vertices) == 0:
            continue
        node = _node_name(b.name)
        scene.graph.update(frame_from="table", frame_to=node, matrix=b.pose)
        names = _colour_names(a, b.tags)
        keys = np.array([_rgba_key(c) for c in a.local_colours[::3]], dtype=np.int64)
        uniq, inv = np.unique(keys, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        colours = []
        for i, k in enumerate(uniq):
            key = tuple(int(v) for v in k)
            cname, code, col = names.get(key, (_rgb_name(k), None, None))
            rgba = col.rgba if col is not None else np.asarray(k) / 255.0
            if cname not in materials:
                materials[cname] = material_properties(cname, rgba,
                                                       col.finish if col is not None else "")
            tri = np.flatnonzero(inv == i)
            rows = (tri[:, None] * 3 + np.arange(3)).reshape(-1)
            mesh = _mesh(a.local_vertices[rows], np.asarray(k) / 255.0, cname)
            child = f"{node}/{cname}"
            scene.add_geometry(mesh, node_name=child, geom_name=child, parent_node_name=node)
            colours.append(cname)
        bodies[node] = {"key": b.key, "group": b.group, "parts": len(b.tags),
                        "colours": colours}
    scene.metadata["bodies"] = bodies
    scene.metadata["title"] = snapshot.title
    scene.metadata["units"] = "table node: inches, Z up (glTF: metres, Y up)"
    scene.metadata["materials"] = materials
    return scene


def _rgb_name(key) -> str:
    return "rgba_" + "".join(f"{int(v):02X}" for v in key)


def _view_targets(tree: dict) -> None:
    """Give each buffer view its ``target`` (glTF 2.0 3.6.2.3: 34963 for indices, 34962 for
    vertex attributes), where the view serves one kind only."""
    kinds: dict[int, set[int]] = {}
    accessors = tree.get("accessors", [])
    for mesh in tree.get("meshes", ()):
        for prim in mesh.get("primitives", ()):
            uses = [(prim.get("indices"), 34963)]
            uses += [(a, 34962) for a in prim.get("attributes", {}).values()]
            for acc, target in uses:
                if acc is not None and "bufferView" in accessors[acc]:
                    kinds.setdefault(accessors[acc]["bufferView"], set()).add(target)
    views = tree.get("bufferViews", [])
    for view, targets in kinds.items():
        if len(targets) == 1 and view < len(views):
            views[view]["target"] = targets.pop()


def _exact_materials(materials: dict):
    """A trimesh ``tree_postprocessor``: each material's factors as
    :func:`material_properties` gives them (floats, linear), found by name; buffer views'
    targets."""

    def post(tree: dict) -> None:
        for m in tree.get("materials", ()):
            want = materials.get(m.get("name"))
            if want is not None:
                m.update({k: v for k, v in want.items() if k != "name"})
        tree.setdefault("asset", {})["generator"] = "sandbox table export (trimesh)"
        _view_targets(tree)

    return post


def gltf_bytes(snapshot: TableSnapshot, kind: str = "glb",
               buffer_name: str = "table.bin") -> dict[str, bytes]:
    """The snapshot's glTF files: ``{"": bytes}`` for ``kind="glb"``; for ``"gltf"``
    ``{"": JSON bytes, name: binary buffer}``, the JSON's buffer ``uri`` being ``name``:
    ``buffer_name`` with characters other than letters, digits, ``.``, ``_`` and ``-`` made
    ``_`` (a URI that needs no escaping, which every reader follows)."""
    import json

    from trimesh.exchange.gltf import export_glb, export_gltf

    scene = table_scene(snapshot)
    post = _exact_materials(scene.metadata["materials"])
    if kind == "glb":
        return {"": export_glb(scene, include_normals=False, tree_postprocessor=post)}
    files = export_gltf(scene, include_normals=False, merge_buffers=True,
                        tree_postprocessor=post)
    tree = json.loads(files.pop("model.gltf"))
    data = b"".join(files.values())
    name = re.sub(r"[^A-Za-z0-9._-]", "_", buffer_name)
    for buf in tree.get("buffers", ()):
        buf["uri"] = name
    _view_targets(tree)  # the views are made after trimesh's post-processing here
    return {"": json.dumps(tree, separators=(",", ":")).encode("utf-8"), name: data}


def write_gltf(snapshot: TableSnapshot, path: str | Path) -> Path:
    """Write the snapshot as glTF 2.0, atomically: ``.glb`` (binary, one file) or ``.gltf``
    (JSON, with its buffer beside it as ``<stem>.bin``, any character of the stem other than
    letters, digits, ``.``, ``_``, ``-`` made ``_``).

    Raises
    ------
    OutputError
        Another file name ending (one line naming the endings), or the file cannot be written.
    """
    p = Path(path)
    kind = p.suffix.lower()
    if kind not in GLTF_SUFFIXES:
        raise OutputError(f"{str(path)!r}: a glTF file is written as .glb (binary) or .gltf "
                          f"(JSON + .bin buffer), not {kind or 'a name without an ending'!r}")
    files = gltf_bytes(snapshot, kind[1:], p.stem + ".bin")
    try:
        for name, data in files.items():  # the buffer first, then the file that names it
            if name:
                atomic_write_bytes(p.with_name(name), data)
        return atomic_write_bytes(p, files[""])
    except OSError as exc:
        raise OutputError(f"{str(path)!r}: cannot write the glTF file "
                          f"({exc.strerror or exc})") from None


# ====================================================================== LDraw
def world_matrix_to_ldraw(matrix: np.ndarray) -> np.ndarray:
    """Inverse of :func:`sandbox.core.units.ldraw_transform_to_world`: a world placement
    (inches, Z up) as an LDraw one (LDU, -Y up)."""
    m = np.asarray(matrix, dtype=float)
    r = LDRAW_TO_WORLD_ROT
    out = np.eye(4)
    out[:3, :3] = r.T @ m[:3, :3] @ r
    out[:3, 3] = (r.T @ m[:3, 3]) * LDU_PER_INCH
    return out


class _Source:
    """The files of one model as an export reads them: its MPD sections, the files beside it
    and its library (the reader's own :class:`~sandbox.bricks.partmesh.Resolver` order)."""

    def __init__(self, model):
        from ..bricks.ldraw import parse_ldraw, read_text
        from ..bricks.partmesh import Resolver

        self.model = model
        self.library = model.library if model is not None else None
        self.path = Path(model.path) if model is not None else None
        self.on_disk = self.path is not None and self.path.is_file()
        embedded = {}
        if self.on_disk:
            try:
                files = parse_ldraw(read_text(self.path), self.path, strict=False, warnings=[])
            except (LDrawError, OSError):  # gone or changed since it was loaded: parts only
                files, self.on_disk = [], False
            for f in files:
                embedded.setdefault(f.key, f)
        self.main = next(iter(embedded.values()), None)
        self.resolver = Resolver(self.library, embedded,
                                 self.path.parent if self.on_disk else None, strict=False)

    def locate(self, key: str):
        """``(kind, LDrawFile or None)``: ``"copy"`` (a model's own file, or an unofficial
        library file: written into the MPD), ``"library"`` (an official library file),
        ``"catalogue"`` or ``"missing"``."""
        kind, f = self.resolver.locate(key)
        if kind in ("embedded", "folder"):
            return "copy", f
        if kind == "library":
            found = self.library.find(key) if self.library is not None else None
            root = found[0] if found else "parts"
            return ("copy" if root.startswith("unofficial") or root == "models" else "library"), f
        return kind, None

    def section(self, key: str):
        kind, f = self.locate(key)
        return f if kind in ("copy", "library") else None


def _section_lines(f) -> list[str]:
    """The text lines of one file or MPD section as written on disk, without its
    ``0 FILE`` line (up to the next ``0 FILE``, ``0 NOFILE`` or ``0 !DATA``)."""
    from ..bricks.ldraw import read_text

    lines = read_text(f.path).splitlines()
    out = []
    for i, raw in enumerate(lines[max(f.first_line - 1, 0):]):
        word = raw.strip().upper().split()[:2]
        if word[:1] == ["0"] and len(word) > 1 and word[1] in ("FILE", "NOFILE", "!DATA"):
            if i == 0 and word[1] == "FILE":
                continue
            break
        out.append(raw.rstrip())
    while out and not out[-1].strip():
        out.pop()
    return out


class _MpdWriter:
    """Collects the MPD's sections: the bodies' submodels and every file they need that an
    LDraw program may lack (a model's own files, unofficial parts, placeholders)."""

    def __init__(self, main_name: str):
        self.used = {main_name.lower()}
        self.sections: list[str] = []
        self.names: dict[tuple, str] = {}  # (source id, key) -> name written
        self.sources: dict[object, _Source] = {}

    def source(self, model) -> _Source:
        k = id(model)
        if k not in self.sources:
            self.sources[k] = _Source(model)
        return self.sources[k]

    def unique(self, name: str) -> str:
        base, dot, ext = name.rpartition(".")
        if not dot:
            base, ext = name, "ldr"
        out, i = f"{base}.{ext}", 1
        while out.lower() in self.used:
            i += 1
            out = f"{base}_{i}.{ext}"
        self.used.add(out.lower())
        return out

    def add(self, name: str, title: str, lines: list[str], head: list[str] | None = None):
        self.sections += [f"0 FILE {name}", *(head if head is not None else [
            f"0 {title}", f"0 Name: {name}", "0 Author: sandbox export", "0 BFC CERTIFY CCW"]),
            *lines, "0 NOFILE", ""]

    # -- references ---------------------------------------------------------------------
    def ref(self, src: _Source, key: str, missing: bool | None = None) -> tuple[str | None, str]:
        """The name to write for a reference to ``key`` of ``src`` (None: as it stands) and a
        comment to put before the line (``""``: none). Copies what the MPD must hold."""
        from ..bricks.ldraw import normalise_name

        written, key = key.strip(), normalise_name(key)
        kind, f = ("missing", None) if missing else src.locate(key)
        ident = (id(src) if kind == "copy" and f is not None and not _is_library(src, f)
                 else "shared", key if kind != "missing" else "missing:" + key)
        if ident in self.names:
            return self.names[ident], _placeholder_note(key) if kind == "missing" else ""
        if kind == "missing":
            name = self.unique(f"placeholder_{Path(key).stem}.dat")
            self.names[ident] = name
            self._placeholder(name, key)
            return name, _placeholder_note(key)
        if kind != "copy" or f is None:
            return None, ""
        # a model's own file under its 0 FILE name; a library file as the line names it
        name = self.unique(written if ident[0] == "shared" else f.name)
        self.names[ident] = name
        self._copy(src, f, name)
        return name, ""

    def _copy(self, src: _Source, f, name: str) -> None:
        """Write file ``f`` of ``src`` as section ``name``: its lines as they are, with its
        references renamed where the MPD holds them under another name."""
        lines = self.rewrite(src, _section_lines(f), name)
        self.add(name, f.title, lines, head=[])

    def rewrite(self, src: _Source, lines: list[str], name: str) -> list[str]:
        from ..bricks.ldraw import unsafe_reference

        out = []
        for raw in lines:
            toks = raw.split(None, 14)
            if toks[:1] == ["0"] and len(toks) > 1 and toks[1].lower() == "name:":
                out.append(f"0 Name: {name}")
                continue
            if toks[:1] != ["1"] or len(toks) < 15:
                out.append(raw)
                continue
            ref = toks[14].strip()
            if unsafe_reference(ref):
                out.append(f"0 // refused reference outside the library: {ref[:80]}")
                continue
            new, note = self.ref(src, ref)
            if note:
                out.append(note)
            out.append(raw if new is None else " ".join(toks[:14] + [new]))
        return out

    def _placeholder(self, name: str, key: str) -> None:
        from ..bricks.partmesh import placeholder_part

        pm = placeholder_part(key)
        lines = [f"0 // the sandbox simulated {key} as this box: the part was not found "
                 "(not in the model, the LDraw library or the built-in catalogue)",
                 "0 BFC CERTIFY CCW"]
        for t in np.asarray(pm.triangles).reshape(-1, 3, 3):
            lines.append("3 16 " + " ".join(_num(v) for v in t.reshape(-1)))
        for e in np.asarray(pm.edges).reshape(-1, 2, 3):
            lines.append("2 24 " + " ".join(_num(v) for v in e.reshape(-1)))
        self.add(name, f"Placeholder for {key}", lines, head=[
            f"0 Placeholder for {key}", f"0 Name: {name}", "0 Author: sandbox export",
            "0 !LDRAW_ORG Unofficial_Part"])

    # -- bodies -------------------------------------------------------------------------
    def part_lines(self, src: _Source, parts) -> list[str]:
        """Type-1 lines of ``[(PartPlacement, (4, 4) LDraw matrix)]``, a comment and a
        ``STEP`` where the parts' submodel in the source model changes."""
        out, last = [], None
        for p, m in parts:
            chain = tuple(getattr(p, "chain", ())[1:])
            if chain != last and chain:
                if last is not None:
                    out.append("0 STEP")
                out.append(f"0 // from {' > '.join(chain)}")
            last = chain
            new, note = self.ref(src, p.part, missing=bool(p.missing))
            if note:
                out.append(note)
            if p.inverted:
                out.append("0 BFC INVERTNEXT")
            out.append(_type1(p.colour, m, new or p.part))
        return out

    def body(self, b: ExportBody) -> tuple[str, np.ndarray, int | str]:
        """Write body ``b``'s submodel; ``(name, LDraw placement matrix, colour)`` of the
        line that places it in the table's frame."""
        a = b.asset
        b.part_matrices()  # raises for a body without placements
        src = self.source(a.model)
        frame = world_matrix_to_ldraw(b.pose @ a.model_frame)
        whole = _whole_instance(src, a, b)
        if whole is not None:
            root, m_root, colour = whole
            name, _ = self.ref(src, root)
            if name is not None:
                return name, frame @ m_root, colour
        name = self.unique(_file_stem(b.key) + ".ldr")
        parts = [(a.placements[t], np.asarray(a.placements[t].matrix, float)) for t in b.tags]
        self.add(name, b.name, self.part_lines(src, parts))
        return name, frame, MAIN_COLOUR


def _is_library(src: _Source, f) -> bool:
    return src.library is not None and Path(f.path).resolve().is_relative_to(src.library.root)


def _placeholder_note(key: str) -> str:
    return (f"0 // placeholder: {key} was not found when simulated; exported as the box the "
            "sandbox simulated")


def _whole_instance(src: _Source, a, b: ExportBody):
    """When body ``b`` holds every part of one instance of a file of its model (the whole
    model or the scene's submodel, none broken off), ``(file key, (4, 4) LDU placement of
    that instance in the model, colour of the placing line)``; else None."""
    model = a.model
    if (model is None or not src.on_disk or src.main is None or b.debris or b.key != b.group
            or sorted(b.tags) != list(range(len(a.placements))) or not a.placements):
        return None
    by_line = {(p.source, p.line, tuple(p.chain_lines)): p for p in model.placements}
    colour = None
    for p in a.placements:
        q = by_line.get((p.source, p.line, tuple(p.chain_lines)))
        if q is None:
            return None
        if q.colour != p.colour:  # the entry's colour stands in for 16
            if q.colour != MAIN_COLOUR or colour not in (None, p.colour):
                return None
            colour = p.colour
    chains = [tuple(p.chain) for p in a.placements]
    lines = [tuple(p.chain_lines) for p in a.placements]
    depth = 0
    while all(len(c) > depth + 1 for c in chains) and len({c[:depth + 2] for c in chains}) == 1 \
            and len({ln[:depth + 1] for ln in lines}) == 1:
        depth += 1
    for d in range(depth + 1):  # the shallowest file whose instance holds exactly these parts
        want = (chains[0][:d + 1], lines[0][:d])
        inst = [p for p in model.placements
                if (tuple(p.chain[:d + 1]), tuple(p.chain_lines[:d])) == want]
        if len(inst) == len(a.placements):
            break
    else:
        return None
    m = np.eye(4)
    for i in range(d):
        f = src.section(chains[0][i])
        ref = next((r for r in (f.refs if f is not None else ())
                    if r.line == lines[0][i]), None)
        if ref is None:
            return None
        m = m @ ref.matrix
    return chains[0][d], m, MAIN_COLOUR if colour is None else colour


def _type1(colour: int | str, m: np.ndarray, name: str) -> str:
    nums = [*m[:3, 3], *m[:3, :3].reshape(-1)]
    text = " ".join(_num(v) for v in nums)
    col = colour if isinstance(colour, str) else _code_text(colour)
    return f"1 {col} {text} {name}"


def _num(v: float) -> str:
    s = f"{float(v):.6f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _file_stem(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", key).strip("_") or "body"


def ldraw_text(snapshot: TableSnapshot, file_name: str = "table.mpd") -> str:
    """The snapshot as LDraw MPD text (see :func:`write_ldraw`)."""
    w = _MpdWriter(file_name)
    groups: dict[str, list[ExportBody]] = {}
    for b in snapshot.bodies:
        groups.setdefault(b.group, []).append(b)
    main = [f"0 // battlefield {snapshot.width:g}\" x {snapshot.depth:g}\", top face at "
            "LDraw y = 0"]
    for group, members in groups.items():
        if len(members) == 1 and members[0].key == group:
            b = members[0]
            name, m, colour = w.body(b)
            main += [f"0 // {b.name} ({b.key})", _type1(colour, m, name), "0 STEP"]
            continue
        # a broken creation: its pieces as submodels at their poses, destroyed parts loose
        gname = w.unique(_file_stem(group) + ".ldr")
        glines = []
        for b in members:
            if b.debris:  # a part destroyed by the blast: a loose part
                glines.append(f"0 // destroyed part {b.key}")
                src = w.source(b.asset.model)
                glines += w.part_lines(src, [(p, world_matrix_to_ldraw(m))
                                              for p, m in b.part_matrices()])
                continue
            name, m, colour = w.body(b)
            glines += [f"0 // {b.name} ({b.key})", _type1(colour, m, name)]
        title = f"{group} (broken into {len(members)} pieces and parts)"
        w.add(gname, title, glines)
        main += [f"0 // {group}: broken", _type1(MAIN_COLOUR, np.eye(4), gname), "0 STEP"]
    head = [f"0 FILE {file_name}", f"0 {snapshot.title}", f"0 Name: {file_name}",
            "0 Author: sandbox export", "0 BFC CERTIFY CCW", *main, "0 NOFILE", ""]
    return "\n".join(head + w.sections)


def write_ldraw(snapshot: TableSnapshot, path: str | Path) -> Path:
    """Write the snapshot as an LDraw multi-part file (``.mpd``) atomically.

    The main model places one submodel per creation or unit (LeoCAD and Stud.io show each as
    a model of its own): a body that came whole from a model is that model's file (or the
    scene's submodel) copied as it stands, its submodel names, ``STEP`` lines and comments
    kept, in its own frame, placed by the reference's matrix (the body's pose); a creation
    broken by an explosion is a submodel holding its pieces (each a submodel of its parts in
    the model's frame, at its pose) and its destroyed parts. Every file an LDraw program may
    lack is copied in: the model's own submodels and embedded parts, parts from the
    library's ``unofficial/`` folders. A part simulated as a placeholder (not found) is
    written as that box (an embedded ``placeholder_<part>.dat``) after a comment saying so.
    Part lines keep the parts' LDraw colours; the battlefield top is LDraw ``y = 0``.

    Raises
    ------
    OutputError
        The file cannot be written, or a body has no LDraw placements.
    """
    p = Path(path)
    text = ldraw_text(snapshot, p.name if p.suffix.lower() in (".mpd", ".ldr") else "table.mpd")
    try:
        return atomic_write_bytes(p, text.replace("\n", "\r\n").encode("utf-8"))
    except OSError as exc:
        raise OutputError(f"{str(path)!r}: cannot write the LDraw file "
                          f"({exc.strerror or exc})") from None


__all__ = ["ExportBody", "TableSnapshot", "snapshot_of_game", "snapshot_of_replay",
           "load_snapshot", "table_scene", "write_gltf", "ldraw_text", "write_ldraw",
           "world_matrix_to_ldraw"]
