"""The table as files other tools open: glTF binary (Blender, three.js) and LDraw MPD (LeoCAD,
Stud.io).

A :class:`TableSnapshot` is the battlefield and every body on it at one moment: a scene after
set-up, a saved game after replaying its log, or a replay at frame N (default: the last). Each
body carries its :class:`~sandbox.engine.assets.BodyAsset` (mesh in the body frame, the LDraw
placements of its parts, ``model_frame``) and its pose (inches, world frame, Z up).

- :func:`write_gltf`: one node per body, named after the body, placed at its pose; under it
  one mesh node per LDraw colour, whose material is named after the LDraw colour
  (``"Light_Bluish_Grey"``); the battlefield as a box; a root node ``"table"`` turns the
  world (inches, Z up) into glTF's metres, Y up. Written by trimesh.
- :func:`write_ldraw`: an MPD whose main model places one submodel per creation (and per
  unit, payload, ...); a creation broken by an explosion (BrikWars 8.4) is a submodel holding
  its pieces as submodels, each at its pose, and its destroyed parts as loose parts.

Both are written atomically (a failed export leaves any older file in place).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..bricks.colours import EDGE_COLOUR, MAIN_COLOUR, is_direct_colour
from ..core.errors import OutputError, ReplayError, SceneError
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
def _colour_names(asset: BodyAsset, tags) -> dict[tuple, tuple[str, int | None]]:
    """``{rounded rgba: (LDraw colour name, code)}`` for the colours the body's parts use."""
    model = asset.model
    out: dict[tuple, tuple[str, int | None]] = {}
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
            out.setdefault(_rgba_key(rgba), (name, code))
    return out


def _rgba_key(rgba) -> tuple:
    return tuple(int(round(float(v) * 255)) for v in rgba)


def _code_text(code: int) -> str:
    return f"0x{code:07X}" if is_direct_colour(code) else str(int(code))


# ====================================================================== glTF
def _material(name: str, rgba):
    from trimesh.visual.material import PBRMaterial

    c = [int(round(float(v) * 255)) for v in rgba]
    return PBRMaterial(name=name, baseColorFactor=c, metallicFactor=0.0, roughnessFactor=0.6,
                       alphaMode="BLEND" if c[3] < 255 else "OPAQUE", doubleSided=False)


def _mesh(vertices, normals, rgba, name: str):
    import trimesh

    n = len(vertices)
    faces = np.arange(n, dtype=np.int64).reshape(-1, 3)
    m = trimesh.Trimesh(vertices=np.asarray(vertices, dtype=np.float64), faces=faces,
                        vertex_normals=np.asarray(normals, dtype=np.float64), process=False)
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
    (``"<body>/<colour name>"``), whose mesh's material is named after the LDraw colour.
    """
    import trimesh

    scene = trimesh.Scene()
    scene.graph.update(frame_from=scene.graph.base_frame, frame_to="table",
                       matrix=TABLE_TO_GLTF)
    scene.add_geometry(_ground_mesh(snapshot.width, snapshot.depth), node_name="battlefield",
                       geom_name="battlefield", parent_node_name="table")
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
            cname = names.get(tuple(int(v) for v in k), (_rgb_name(k), None))[0]
            tri = np.flatnonzero(inv == i)
            rows = (tri[:, None] * 3 + np.arange(3)).reshape(-1)
            mesh = _mesh(a.local_vertices[rows], a.local_normals[rows], np.asarray(k) / 255.0,
                         cname)
            child = f"{node}/{cname}"
            scene.add_geometry(mesh, node_name=child, geom_name=child, parent_node_name=node)
            colours.append(cname)
        bodies[node] = {"key": b.key, "group": b.group, "parts": len(b.tags),
                        "colours": colours}
    scene.metadata["bodies"] = bodies
    scene.metadata["title"] = snapshot.title
    scene.metadata["units"] = "table node: inches, Z up (glTF: metres, Y up)"
    return scene


def _rgb_name(key) -> str:
    return "rgba_" + "".join(f"{int(v):02X}" for v in key)


def write_gltf(snapshot: TableSnapshot, path: str | Path) -> Path:
    """Write the snapshot as a binary glTF (``.glb``) atomically.

    Raises
    ------
    OutputError
        The file cannot be written.
    """
    data = table_scene(snapshot).export(file_type="glb")
    try:
        return atomic_write_bytes(path, data)
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


def _part_lines(parts) -> list[str]:
    """Type-1 lines of ``[(PartPlacement, (4, 4) world-axes inches)]``."""
    out = []
    for p, m in parts:
        if p.inverted:
            out.append("0 BFC INVERTNEXT")
        out.append(_type1(p.colour, world_matrix_to_ldraw(m), p.part))
    return out


def _type1(colour: int | str, m: np.ndarray, name: str) -> str:
    nums = [*m[:3, 3], *m[:3, :3].reshape(-1)]
    text = " ".join(_num(v) for v in nums)
    col = colour if isinstance(colour, str) else _code_text(colour)
    return f"1 {col} {text} {name}"


def _num(v: float) -> str:
    s = f"{float(v):.6f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _file_name(key: str, used: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_.-]+", "_", key).strip("_") or "body"
    name, i = f"{base}.ldr", 1
    while name.lower() in used:
        i += 1
        name = f"{base}_{i}.ldr"
    used.add(name.lower())
    return name


def _section(name: str, title: str, lines: list[str]) -> list[str]:
    return [f"0 FILE {name}", f"0 {title}", f"0 Name: {name}", "0 Author: sandbox export",
            "0 BFC CERTIFY CCW", *lines, "0 NOFILE", ""]


def ldraw_text(snapshot: TableSnapshot, file_name: str = "table.mpd") -> str:
    """The snapshot as LDraw MPD text (see :func:`write_ldraw`)."""
    used = {file_name.lower()}
    groups: dict[str, list[ExportBody]] = {}
    for b in snapshot.bodies:
        groups.setdefault(b.group, []).append(b)
    main, sections = [], []
    main.append(f"0 // battlefield {snapshot.width:g}\" x {snapshot.depth:g}\", top face at "
                "LDraw y = 0")
    for group, members in groups.items():
        whole = len(members) == 1 and members[0].key == group
        if whole:
            b = members[0]
            name = _file_name(b.key, used)
            parts = _part_lines(_local_parts(b))
            sections += _section(name, b.name, parts)
            main.append(_type1(MAIN_COLOUR, world_matrix_to_ldraw(b.pose), name))
            continue
        # a broken creation: its pieces as submodels at their poses, destroyed parts loose
        gname = _file_name(group, used)
        glines = []
        for b in members:
            if b.debris:  # a part destroyed by the blast: a loose part
                glines.append(f"0 // destroyed part {b.key}")
                glines += _part_lines(b.part_matrices())
                continue
            name = _file_name(b.key, used)
            parts = _part_lines(_local_parts(b))
            sections += _section(name, b.name, parts)
            glines.append(_type1(MAIN_COLOUR, world_matrix_to_ldraw(b.pose), name))
        title = f"{group} (broken into {len(members)} pieces and parts)"
        sections = _section(gname, title, glines) + sections
        main.append(_type1(MAIN_COLOUR, np.eye(4), gname))
    head = _section(file_name, snapshot.title, main)
    return "\n".join(head + sections)


def _local_parts(b: ExportBody):
    """The body's parts in its own frame: ``[(PartPlacement, (4, 4) inches)]``."""
    b.part_matrices()  # raises for a body without placements
    return [(b.asset.placements[t], b.asset.model_frame @ b.asset.placements[t].world_matrix)
            for t in b.tags]


def write_ldraw(snapshot: TableSnapshot, path: str | Path) -> Path:
    """Write the snapshot as an LDraw multi-part file (``.mpd``) atomically.

    The main model places one submodel per creation or unit at its pose; a creation broken by
    an explosion is a submodel holding its pieces (submodels at their poses) and its destroyed
    parts; part lines keep the parts' LDraw colours. The battlefield top is LDraw ``y = 0``.

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
