"""A replay as an animated glTF binary (``.glb``) for Blender, three.js and the battle report.

``sandbox export REPLAY --gltf out.glb --animate [--turn N | --moment N]``

Every body of the replay is one node whose ``translation`` and ``rotation`` are animated from
the recorded poses (:class:`~sandbox.engine.replay.BodyTrack`), linearly between keyframes;
bodies that are not on the table for the whole stretch (a creation broken by an explosion,
BrikWars 8.4, its pieces and the parts it threw off, a payload dropped mid-game, an exploded
bomb) also get a ``scale`` channel with ``STEP`` interpolation: 0 while they are off the table,
1 while on it, so broken pieces appear exactly at their break.

Keyframes: a body's pose is stored only on frames where it moved (bodies at rest cost
nothing), so each stored pose after a rest is preceded by a key holding the resting pose
(linear interpolation would otherwise start the move at the end of the previous one). Frames
recorded at the same simulated time (one is taken when an action starts) are kept a tenth of
a millisecond apart, so the input times strictly increase as glTF requires.

Layout: a root node ``table`` turns the world (inches, Z up) into glTF's metres, Y up (the
same as :data:`sandbox.app.table_export.TABLE_TO_GLTF`); under it the battlefield (a box whose
top is z = 0) and one node per body (its name the body's name, ``extras.key`` the engine's
key), each with one mesh whose primitives are the body's colours (indexed triangles, with
normals unless left out; colours converted from sRGB to glTF's linear ``baseColorFactor``).
Animation time 0 is the first frame of the stretch; ``scene.extras.start_s`` gives its
simulated second.

Written with pygltflib, atomically (a failed export leaves any older file in place).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..bricks.colours import srgb_to_linear
from ..core.errors import OutputError, ReplayError
from ..engine.replay import Replay, atomic_write_bytes
from ..engine.replay_index import ReplayIndex
from .table_export import GROUND_RGBA, GROUND_THICKNESS_IN, TABLE_TO_GLTF

#: Two keyframes recorded at the same simulated time are put this far apart, seconds.
TIE_GAP_S: float = 1e-4
#: Material roughness of bricks (ABS plastic, fairly glossy).
ROUGHNESS: float = 0.45

_FLOAT = 5126
_U16 = 5123
_U32 = 5125
_ARRAY_BUFFER = 34962
_ELEMENT_ARRAY_BUFFER = 34963


@dataclass(frozen=True)
class AnimatedGltf:
    """An animated glTF made from a replay.

    Attributes
    ----------
    data : bytes
        The ``.glb`` file.
    bodies : int
        Body nodes.
    keyframes : int
        Keys over all channels.
    duration_s : float
        Length of the animation, seconds (simulated time).
    start_s : float
        Simulated second of animation time 0.
    first_frame, last_frame : int
        The replay frames animated (inclusive).
    triangles : int
        Triangles of all meshes.
    """

    data: bytes
    bodies: int
    keyframes: int
    duration_s: float
    start_s: float
    first_frame: int
    last_frame: int
    triangles: int


class _Builder:
    """Accumulates a glTF document and its binary buffer (pygltflib objects)."""

    def __init__(self):
        import pygltflib as g

        self.g = g
        self.doc = g.GLTF2(asset=g.Asset(generator="brikwars-sandbox gltf_anim", version="2.0"))
        self.blob = bytearray()
        self.materials: dict[tuple, int] = {}
        self.triangles = 0

    def _view(self, data: bytes, target: int | None) -> int:
        while len(self.blob) % 4:
            self.blob.append(0)
        view = self.g.BufferView(buffer=0, byteOffset=len(self.blob), byteLength=len(data))
        if target is not None:
            view.target = target
        self.blob += data
        self.doc.bufferViews.append(view)
        return len(self.doc.bufferViews) - 1

    def accessor(self, array: np.ndarray, kind: str, target: int | None = None,
                 minmax: bool = False) -> int:
        """Add ``array`` (float32, uint16 or uint32) as an accessor of type ``kind``."""
        a = np.ascontiguousarray(array)
        ctype = {np.dtype(np.float32): _FLOAT, np.dtype(np.uint16): _U16,
                 np.dtype(np.uint32): _U32}[a.dtype]
        acc = self.g.Accessor(bufferView=self._view(a.tobytes(), target), componentType=ctype,
                              count=int(a.shape[0]), type=kind)
        if minmax:
            flat = a.reshape(a.shape[0], -1)
            acc.min = [float(v) if ctype == _FLOAT else int(v) for v in flat.min(axis=0)]
            acc.max = [float(v) if ctype == _FLOAT else int(v) for v in flat.max(axis=0)]
        self.doc.accessors.append(acc)
        return len(self.doc.accessors) - 1

    def material(self, rgba_key: tuple[int, int, int, int]) -> int:
        """A material for an 8-bit sRGB(A) colour (made once per colour)."""
        if rgba_key not in self.materials:
            srgb = np.asarray(rgba_key, dtype=np.float64) / 255.0
            factor = [*(float(v) for v in srgb_to_linear(srgb[:3])), float(srgb[3])]
            name = "rgb_" + "".join(f"{v:02X}" for v in rgba_key[:3])
            mat = self.g.Material(
                name=name, alphaMode="BLEND" if rgba_key[3] < 255 else "OPAQUE",
                pbrMetallicRoughness=self.g.PbrMetallicRoughness(
                    baseColorFactor=factor, metallicFactor=0.0, roughnessFactor=ROUGHNESS))
            self.doc.materials.append(mat)
            self.materials[rgba_key] = len(self.doc.materials) - 1
        return self.materials[rgba_key]

    def mesh(self, name: str, vertices, normals, colours, with_normals: bool = True
             ) -> int | None:
        """A mesh from a triangle soup ((3t, 3) inches, normals, (3t, 4) RGBA 0..1 colours):
        one indexed primitive per colour (without ``NORMAL`` unless ``with_normals``: viewers
        then shade each triangle flat); None when there is no triangle."""
        v = np.asarray(vertices, dtype=np.float32).reshape(-1, 3)
        if len(v) < 3:
            return None
        n = np.asarray(normals, dtype=np.float32).reshape(-1, 3)
        lengths = np.linalg.norm(n, axis=1, keepdims=True)
        n = np.where(lengths > 1e-6, n / np.maximum(lengths, 1e-12), [0.0, 0.0, 1.0])
        n = n.astype(np.float32)
        keys = np.rint(np.asarray(colours, dtype=np.float64)[::3] * 255).astype(np.int64)
        uniq, inv = np.unique(keys, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        prims = []
        for i, key in enumerate(uniq):
            tri = np.flatnonzero(inv == i)
            rows = (tri[:, None] * 3 + np.arange(3)).reshape(-1)
            pn = np.concatenate([v[rows], n[rows]], axis=1) if with_normals else v[rows]
            table, index = np.unique(pn, axis=0, return_inverse=True)
            index = index.reshape(-1)
            itype = np.uint16 if len(table) < 65535 else np.uint32
            attrs = self.g.Attributes(
                POSITION=self.accessor(np.ascontiguousarray(table[:, :3]), "VEC3",
                                       _ARRAY_BUFFER, minmax=True))
            if with_normals:
                attrs.NORMAL = self.accessor(np.ascontiguousarray(table[:, 3:]), "VEC3",
                                             _ARRAY_BUFFER)
            prims.append(self.g.Primitive(
                attributes=attrs, indices=self.accessor(index.astype(itype), "SCALAR",
                                                        _ELEMENT_ARRAY_BUFFER),
                material=self.material(tuple(int(c) for c in np.clip(key, 0, 255)))))
            self.triangles += len(tri)
        self.doc.meshes.append(self.g.Mesh(name=name, primitives=prims))
        return len(self.doc.meshes) - 1

    def node(self, **kw) -> int:
        self.doc.nodes.append(self.g.Node(**kw))
        return len(self.doc.nodes) - 1

    def glb(self) -> bytes:
        self.doc.buffers = [self.g.Buffer(byteLength=len(self.blob))]
        self.doc.set_binary_blob(bytes(self.blob))
        out = self.doc.save_to_bytes()
        return b"".join(out) if isinstance(out, (list, tuple)) else bytes(out)


def _battlefield_soup(width: float, depth: float):
    import trimesh

    box = trimesh.creation.box(extents=(width, depth, GROUND_THICKNESS_IN))
    box.apply_translation((0.0, 0.0, -GROUND_THICKNESS_IN / 2))
    verts = box.vertices[box.faces].reshape(-1, 3)
    normals = np.repeat(box.face_normals, 3, axis=0)
    colours = np.tile(np.asarray(GROUND_RGBA, dtype=np.float64), (len(verts), 1))
    return verts, normals, colours


def strictly_increasing(times) -> np.ndarray:
    """Key times (non-decreasing, seconds) made strictly increasing: of a run of equal times
    the last keeps its time and each earlier one is put :data:`TIE_GAP_S` before the next."""
    t = np.asarray(times, dtype=np.float64).copy()
    for i in range(len(t) - 2, -1, -1):
        if t[i] >= t[i + 1]:
            t[i] = t[i + 1] - TIE_GAP_S
    return t


def _keep_increasing(times: np.ndarray, *values: np.ndarray) -> tuple[np.ndarray, ...]:
    """Drop keys whose float32 time does not exceed the previous key's (a tie left after
    rounding to float32 or pushed before the stretch), keeping the later key."""
    t32 = times.astype(np.float32)
    keep = np.zeros(len(t32), dtype=bool)
    later = np.float32(np.inf)
    for i in range(len(t32) - 1, -1, -1):
        if 0 <= t32[i] < later:
            keep[i] = True
            later = t32[i]
    if not keep.any():
        keep[-1] = True
    return (t32[keep], *(v[keep] for v in values))


def _pose_keys(track, lo: int, hi: int, times: np.ndarray):
    """Key frames of one body within ``[lo, hi]``: its pose at ``lo``, every stored pose, and
    before each stored pose that follows a rest, the resting pose again."""
    fr = np.asarray(track.frames, dtype=np.int64)
    stored = fr[(fr > lo) & (fr <= hi)]
    keys = {lo}
    for f in stored.tolist():
        keys.add(f)
        if f - 1 > lo:
            keys.add(f - 1)
    frames = sorted(keys)
    t = strictly_increasing(times[frames] - times[lo])
    pos = np.empty((len(frames), 3), dtype=np.float64)
    quat = np.empty((len(frames), 4), dtype=np.float64)
    for i, f in enumerate(frames):
        p, q = track.pose_at(f)
        pos[i] = p
        quat[i] = q
    quat /= np.maximum(np.linalg.norm(quat, axis=1, keepdims=True), 1e-12)
    for i in range(1, len(quat)):  # keep the sign continuous (no long way round)
        if np.dot(quat[i], quat[i - 1]) < 0:
            quat[i] = -quat[i]
    return t, pos, quat


def _presence_keys(track, lo: int, hi: int, times: np.ndarray):
    """``(times, scales)`` of a body's scale channel within ``[lo, hi]`` (1 on the table, 0
    off it), or None when it is on the table for the whole stretch."""
    bounds = {lo}
    for a, b in track.spans:
        for f in (a, b):
            if f is not None and lo < f <= hi:
                bounds.add(int(f))
    frames = sorted(bounds)
    on = np.array([track.exists_at(f) for f in frames])
    if on.all():
        return None
    t = strictly_increasing(times[frames] - times[lo])
    return t, np.repeat(on.astype(np.float64)[:, None], 3, axis=1)


def _unique_names(pairs: list[tuple[str, str]]) -> dict[str, str]:
    counts: dict[str, int] = {}
    for _, n in pairs:
        counts[n] = counts.get(n, 0) + 1
    return {k: (n if counts[n] == 1 else f"{n} [{k}]") for k, n in pairs}


def animated_gltf(replay: Replay, assets: dict, *, turn: int | None = None,
                  first: int | None = None, last: int | None = None,
                  index: ReplayIndex | None = None, normals: bool = True) -> AnimatedGltf:
    """Build the animated glTF of a replay, or of one turn or a frame range of it.

    Parameters
    ----------
    replay : Replay
    assets : dict of str to BodyAsset
        Body meshes (:func:`~sandbox.engine.playback.replay_assets`); bodies without one (the
        ground, a projectile) are left out.
    turn : int, optional
        Only this turn (its frames).
    first, last : int, optional
        Only these frames (inclusive); not with ``turn``.
    index : ReplayIndex, optional
        The replay's index when already built.
    normals : bool
        Store the meshes' vertex normals (smooth studs); without them the file is about a
        third of the size and viewers shade every triangle flat (the battle report's page).

    Raises
    ------
    ReplayError
        An unknown turn, frames outside the replay, or no body with a mesh.
    """
    index = index or ReplayIndex(replay)
    if turn is not None:
        if first is not None or last is not None:
            raise ReplayError("--turn picks its own frames: leave out the frame range")
        lo, hi = index.turn_range(int(turn))
    else:
        lo = 0 if first is None else int(first)
        hi = replay.frames - 1 if last is None else int(last)
        if not 0 <= lo <= hi < replay.frames:
            raise ReplayError(f"frames {lo}..{hi} are outside the replay "
                              f"(0..{replay.frames - 1})")
    times = replay.times()
    keys = [k for k, tr in replay.tracks.items()
            if k in assets and tr.frames and assets[k].local_vertices is not None
            and len(assets[k].local_vertices) >= 3
            and any(tr.exists_at(f) for f in _span_probe(tr, lo, hi))]
    if not keys:
        raise ReplayError(f"the replay of {replay.scene.get('name')!r} has no body with a mesh "
                          f"in frames {lo}..{hi}")
    b = _Builder()
    g = b.g
    bf = replay.scene.get("battlefield") or {}
    width, depth = float(bf.get("width", 48.0)), float(bf.get("depth", 48.0))
    ground = b.mesh("battlefield", *_battlefield_soup(width, depth), normals)
    children = [b.node(name="battlefield", mesh=ground)]
    names = _unique_names([(k, index.body_name(k)) for k in keys])
    animation = g.Animation(name=f"turn {turn}" if turn is not None else "replay")
    n_keys = 0
    duration = float(times[hi] - times[lo])
    for key in keys:
        tr, a = replay.tracks[key], assets[key]
        mesh = b.mesh(names[key], a.local_vertices, a.local_normals, a.local_colours,
                      normals)
        t, pos, quat = _pose_keys(tr, lo, hi, times)
        t32, pos, quat = _keep_increasing(t, pos, quat)
        presence = _presence_keys(tr, lo, hi, times)
        scale0 = None if presence is None else [float(presence[1][0, 0])] * 3
        node = b.node(name=names[key], mesh=mesh, translation=[float(v) for v in pos[0]],
                      rotation=[float(v) for v in quat[0]], scale=scale0, extras={"key": key})
        children.append(node)
        channels = [("translation", pos, "VEC3", "LINEAR", t32),
                    ("rotation", quat, "VEC4", "LINEAR", t32)]
        if presence is not None:
            ts32, sc = _keep_increasing(*presence)
            channels.append(("scale", sc, "VEC3", "STEP", ts32))
        inputs: dict[int, int] = {}
        for path, values, kind, interp, tk in channels:
            if len(tk) < 2 and path != "scale":
                continue  # one key: the node's own pose says it
            if id(tk) not in inputs:
                inputs[id(tk)] = b.accessor(tk.astype(np.float32), "SCALAR", minmax=True)
            sampler = g.AnimationSampler(input=inputs[id(tk)], interpolation=interp,
                                         output=b.accessor(values.astype(np.float32), kind))
            animation.samplers.append(sampler)
            animation.channels.append(g.AnimationChannel(
                sampler=len(animation.samplers) - 1,
                target=g.AnimationChannelTarget(node=node, path=path)))
            n_keys += len(tk)
    root = b.node(name="table", children=children,
                  matrix=[float(v) for v in np.asarray(TABLE_TO_GLTF).T.reshape(-1)])
    b.doc.scenes = [g.Scene(name=str(replay.scene.get("name", "replay")), nodes=[root],
                            extras={"start_s": float(times[lo]), "duration_s": duration,
                                    "first_frame": lo, "last_frame": hi,
                                    "units": "table node: inches, Z up (glTF: metres, Y up)"})]
    b.doc.scene = 0
    if animation.channels:
        b.doc.animations = [animation]
    return AnimatedGltf(b.glb(), len(keys), n_keys, duration, float(times[lo]), lo, hi,
                        b.triangles)


def _span_probe(track, lo: int, hi: int) -> list[int]:
    """Frames at which to ask whether a body is on the table some time in ``[lo, hi]``."""
    out = [lo]
    for a, b in track.spans:
        for f in (a, b):
            if f is not None and lo <= f <= hi:
                out.append(int(f))
    return out


def write_animated_gltf(replay: Replay, path: str | Path, assets: dict | None = None, *,
                        turn: int | None = None, moment: int | None = None, base_dir=None,
                        ldrawdir=None) -> tuple[Path, AnimatedGltf]:
    """Write the animated glTF of a replay (or of ``turn``, or of the clip of the
    ``moment``-th biggest dramatic moment) to ``path`` atomically; the meshes are rebuilt by
    :func:`~sandbox.engine.playback.replay_assets` unless ``assets`` is given.

    Raises
    ------
    ReplayError
        See :func:`animated_gltf`; an unknown moment, or one with ``turn``; the scene cannot
        be rebuilt.
    OutputError
        The file cannot be written.
    """
    first = last = None
    if moment is not None:
        if turn is not None:
            raise ReplayError("--moment picks its own stretch: leave out --turn")
        m = ReplayIndex(replay).moment(int(moment))
        first, last = m.start_frame, m.end_frame
    if assets is None:
        from ..engine.playback import replay_assets

        assets = replay_assets(replay, base_dir=base_dir, ldrawdir=ldrawdir)
    made = animated_gltf(replay, assets, turn=turn, first=first, last=last)
    try:
        return atomic_write_bytes(path, made.data), made
    except OSError as exc:
        raise OutputError(f"{str(path)!r}: cannot write the glTF file "
                          f"({exc.strerror or exc})") from None


__all__ = ["AnimatedGltf", "animated_gltf", "write_animated_gltf", "strictly_increasing"]
