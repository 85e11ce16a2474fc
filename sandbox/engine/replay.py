"""Replay files: the scene, seed, actions, dice, events and recorded poses of one game.

Format (version 2)
------------------
A zip archive written by :func:`numpy.savez_compressed` (so no pickle: it is read back with
``allow_pickle=False``), holding:

- ``header.json`` (stored as a uint8 array): ``{"format": "brikwars-replay", "version": 1,
  "scene": {...}, "seed": int, "actions": [...], "events": [...], "bodies": [...],
  "frame_dt": seconds, "frames": int, "checksum": sha256 hex}``.
- ``frame_times`` (frames,) float64: simulated seconds of every recorded frame (frames are
  taken every :data:`~sandbox.engine.table.STEPS_PER_FRAME` physics steps, plus one when an
  action starts, so they are not exactly ``frame * frame_dt``).
- per body ``i``: ``b{i}_frames`` (k,) int32 frame numbers, ``b{i}_pos`` (k, 3) int32
  positions in 1/10000 inch, ``b{i}_quat`` (k, 4) int16 quaternions × 32767, ``b{i}_spans``
  (m, 2) int32 ``[first, end)`` frame ranges in which the body is on the table (a payload
  appears when it is dropped; an exploded bomb is gone from the frame it was removed).

Version 1 files (no ``frame_times``, no spans) are still read: their frames are taken as
``frame * frame_dt`` apart and every body as present from its first stored frame to the end.

Bodies at rest cost nothing: a body's pose is stored only on frames where it moved more than
:data:`POSITION_TOLERANCE_IN` or turned more than :data:`ANGLE_TOLERANCE_RAD` since the last
stored pose (and always on its first and last frame). The checksum is the SHA-256 of the
header (without the checksum) and every array's bytes; a truncated or corrupted file raises
:class:`~sandbox.core.errors.ReplayError`. Writes go to a temporary file in the same folder
that replaces the target only once complete, so a failed write never destroys a good replay.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

import numpy as np

from ..core.errors import ReplayError
from ..core.limits import (
    FileRefused,
    check_output_file,
    how_to_raise,
    limit,
    over_limit,
    read_input_bytes,
    reason,
    strict_json_loads,
)
from ..core.npy import NpyError, parse_npy

FORMAT_NAME = "brikwars-replay"
FORMAT_VERSION = 2
#: Versions this build reads.
READABLE_VERSIONS = (1, 2)
#: Most frames a replay may claim (46 hours at 60 frames a second): every reader makes arrays
#: of one entry per frame (frame times, the index), so a header's ``frames`` is bounded before
#: anything is allocated from it.
MAX_FRAMES = 10_000_000
#: Position quantum: 1/10000 inch.
POSITION_SCALE = 10000.0
QUAT_SCALE = 32767.0
#: A body's pose is stored again once it moved this far (inches) ...
POSITION_TOLERANCE_IN = 0.001
#: ... or turned this much (radians).
ANGLE_TOLERANCE_RAD = 0.002


@dataclass
class BodyTrack:
    """Recorded poses of one body: frame numbers (k,), positions (k, 3) in, quats (k, 4).

    ``spans`` lists the ``[first, end)`` frame ranges in which the body exists (``end`` is
    None while a recording is still open); bodies appear (payloads) and vanish (exploded
    bombs) mid-game.
    """

    key: str
    frames: list[int] = field(default_factory=list)
    positions: list[tuple[float, float, float]] = field(default_factory=list)
    quats: list[tuple[float, float, float, float]] = field(default_factory=list)
    spans: list[list] = field(default_factory=list)

    def exists_at(self, frame: int) -> bool:
        """Whether the body is on the table at ``frame`` (a frame index)."""
        if not self.spans:  # no existence record: from the first stored pose on
            return bool(self.frames) and frame >= self.frames[0]
        return any(a <= frame and (b is None or frame < b) for a, b in self.spans)

    def pose_at(self, frame: int) -> tuple[np.ndarray, np.ndarray]:
        """Pose at a frame: the last stored pose at or before it (bodies at rest were skipped)."""
        if not self.frames:
            raise ReplayError(f"body {self.key!r} has no recorded poses")
        idx = int(np.searchsorted(np.asarray(self.frames), frame, side="right")) - 1
        idx = max(idx, 0)
        return np.asarray(self.positions[idx]), np.asarray(self.quats[idx])


def _angle_between(q1, q2) -> float:
    """Rotation angle (radians) between two quaternions, exact for tiny angles.

    Quantised quaternions are not quite unit length, so both are normalised first, and the
    angle is ``4 atan2(|a - b|, |a + b|)`` (no arccos of a number near 1).
    """
    a = np.asarray(q1, dtype=float)
    b = np.asarray(q2, dtype=float)
    a = a / np.linalg.norm(a)
    b = b / np.linalg.norm(b)
    if np.dot(a, b) < 0:
        b = -b
    return 4.0 * float(np.arctan2(np.linalg.norm(a - b), np.linalg.norm(a + b)))


class Recorder:
    """Collects poses per frame, keeping only the frames where a body moved.

    Parameters
    ----------
    frame_dt : float
        Seconds between recorded frames.
    """

    def __init__(self, frame_dt: float):
        self.frame_dt = float(frame_dt)
        self.frame = 0
        self.tracks: dict[str, BodyTrack] = {}
        #: Simulated seconds of every recorded frame, (frames,).
        self.times: list[float] = []

    def record(self, poses: dict[str, tuple], force: bool = False,
               time: float | None = None) -> None:
        """Record one frame, then advance the frame counter.

        Parameters
        ----------
        poses : dict of str to (pos (3,), quat (4,))
            Every body on the table this frame (inches, (x, y, z, w)); a body recorded
            before and missing now is taken as removed from this frame on.
        force : bool
            Store every pose even where the body did not move.
        time : float, optional
            Simulated seconds of this frame (default ``frame * frame_dt``).
        """
        self.times.append(self.frame * self.frame_dt if time is None else float(time))
        for key, track in self.tracks.items():
            if key not in poses and track.spans and track.spans[-1][1] is None:
                track.spans[-1][1] = self.frame
        for key, (pos, quat) in poses.items():
            tr = self.tracks.get(key)
            if tr is None:
                tr = self.tracks[key] = BodyTrack(key)
            if not tr.spans or tr.spans[-1][1] is not None:
                tr.spans.append([self.frame, None])
                force_this = True
            else:
                force_this = force
            pos = tuple(round(float(v) * POSITION_SCALE) / POSITION_SCALE for v in pos)
            quat = tuple(round(float(v) * QUAT_SCALE) / QUAT_SCALE for v in quat)
            if tr.frames and not force_this:
                moved = float(np.linalg.norm(np.subtract(pos, tr.positions[-1])))
                turned = _angle_between(quat, tr.quats[-1])
                if moved < POSITION_TOLERANCE_IN and turned < ANGLE_TOLERANCE_RAD:
                    continue
            tr.frames.append(self.frame)
            tr.positions.append(pos)
            tr.quats.append(quat)
        self.frame += 1

    def still_frame(self, time: float | None = None) -> None:
        """Record a frame in which no body moved and none came or went since the last one
        (what :meth:`record` stores then: the frame's time only; issue 26, a sleeping
        table)."""
        self.times.append(self.frame * self.frame_dt if time is None else float(time))
        self.frame += 1

    def mark(self) -> tuple:
        """Where the recording is now, to :meth:`rewind` to (an undo): the frame count and,
        per body, how many poses and spans it holds (recordings only grow, so lengths and the
        last span's end are enough)."""
        return (self.frame, len(self.times),
                {k: (len(t.frames), [list(sp) for sp in t.spans[-1:]], len(t.spans))
                 for k, t in self.tracks.items()})

    def rewind(self, mark: tuple) -> None:
        """Cut the recording back to a :meth:`mark` (bodies first recorded since are dropped)."""
        frame, n_times, tracks = mark
        self.frame = frame
        del self.times[n_times:]
        self.tracks = {k: t for k, t in self.tracks.items() if k in tracks}
        for k, t in self.tracks.items():
            n, last, n_spans = tracks[k]
            del t.frames[n:], t.positions[n:], t.quats[n:]
            del t.spans[n_spans:]
            if last:
                t.spans[-1] = list(last[0])

    def finish(self, poses: dict[str, tuple]) -> None:
        """Store every body's final pose on the last frame (so a replay ends exactly there)."""
        last = max(self.frame - 1, 0)
        for key, tr in self.tracks.items():  # removed after the last frame: gone on it
            if key not in poses and tr.spans and tr.spans[-1][1] is None:
                tr.spans[-1][1] = last if tr.spans[-1][0] < last else self.frame
        for key, (pos, quat) in poses.items():
            tr = self.tracks.setdefault(key, BodyTrack(key))
            if not tr.spans or tr.spans[-1][1] is not None:
                tr.spans.append([last, None])
            pos = tuple(round(float(v) * POSITION_SCALE) / POSITION_SCALE for v in pos)
            quat = tuple(round(float(v) * QUAT_SCALE) / QUAT_SCALE for v in quat)
            if tr.frames and tr.frames[-1] == last:
                tr.positions[-1], tr.quats[-1] = pos, quat
            elif not tr.frames or tr.positions[-1] != pos or tr.quats[-1] != quat:
                tr.frames.append(last)
                tr.positions.append(pos)
                tr.quats.append(quat)


@dataclass
class Replay:
    """A loaded or freshly recorded replay.

    Attributes
    ----------
    scene : dict
        The scene spec as a plain dict.
    seed : int
    actions : list of dict
    events : list of dict
        The event log (each with a ``type``).
    tracks : dict of str to BodyTrack
    frame_dt : float
        Seconds per recorded frame.
    frames : int
        Number of recorded frames.
    meta : dict
        Where it was recorded (``scene_dir``), for re-simulation.
    frame_times : list of float
        Simulated seconds of every frame, (frames,); empty means ``frame * frame_dt``.
    source : str, optional
        The file it was read from (:func:`load_replay`): errors about it name it.
    """

    scene: dict
    seed: int
    actions: list
    events: list
    tracks: dict[str, BodyTrack]
    frame_dt: float
    frames: int
    meta: dict = field(default_factory=dict)
    frame_times: list[float] = field(default_factory=list)
    source: str | None = field(default=None, compare=False, repr=False)

    def times(self) -> np.ndarray:
        """Simulated seconds of every frame, (frames,) float64, non-decreasing."""
        if len(self.frame_times) == self.frames:
            return np.asarray(self.frame_times, dtype=np.float64)
        return np.arange(self.frames, dtype=np.float64) * self.frame_dt

    def poses_at(self, frame: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Poses ``{key: (position (3,) in, quaternion (x, y, z, w))}`` of the bodies on the
        table at ``frame``; bodies not yet dropped or already removed are left out.

        Raises
        ------
        ReplayError
            When ``frame`` is outside ``0 .. frames - 1``.
        """
        if not 0 <= int(frame) < max(self.frames, 1):
            raise ReplayError(f"frame {frame!r} is outside the replay (0..{self.frames - 1})")
        return {k: t.pose_at(int(frame)) for k, t in self.tracks.items()
                if t.frames and t.exists_at(int(frame))}

    def header(self) -> dict:
        return {
            "meta": self.meta,
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "scene": self.scene,
            "seed": self.seed,
            "actions": self.actions,
            "events": self.events,
            "bodies": list(self.tracks),
            "frame_dt": self.frame_dt,
            "frames": self.frames,
        }

    def stored_poses(self) -> int:
        """Total number of stored (body, frame) poses."""
        return sum(len(t.frames) for t in self.tracks.values())


def _arrays(replay: Replay) -> dict[str, np.ndarray]:
    arrays: dict[str, np.ndarray] = {}
    for i, tr in enumerate(replay.tracks.values()):
        arrays[f"b{i}_frames"] = np.asarray(tr.frames, dtype=np.int32).reshape(-1)
        arrays[f"b{i}_pos"] = np.rint(
            np.asarray(tr.positions, dtype=float).reshape(-1, 3) * POSITION_SCALE
        ).astype(np.int32)
        arrays[f"b{i}_quat"] = np.rint(
            np.asarray(tr.quats, dtype=float).reshape(-1, 4) * QUAT_SCALE
        ).astype(np.int16)
        arrays[f"b{i}_spans"] = np.asarray(
            [[a, replay.frames if b is None else b] for a, b in tr.spans], dtype=np.int32
        ).reshape(-1, 2)
    arrays["frame_times"] = replay.times()
    return arrays


def _checksum(header: dict, arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    h.update(json.dumps(header, sort_keys=True, separators=(",", ":")).encode())
    for name in sorted(arrays):
        h.update(name.encode())
        h.update(np.ascontiguousarray(arrays[name]).tobytes())
    return h.hexdigest()


_FILE_MODE: list[int] = []


def new_file_mode() -> int:
    """The mode ``open()`` gives a new file: 0o666 less the process umask (0o644 usually).
    Read once (reading the umask sets it for a moment, which threads could see)."""
    if not _FILE_MODE:
        mask = os.umask(0o022)
        os.umask(mask)
        _FILE_MODE.append(0o666 & ~mask)
    return _FILE_MODE[0]


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder.

    The target is replaced only after the whole file is written and flushed, so an error
    (a full disk, a crash) leaves any previous file untouched.
    """
    path = check_output_file(path, "file")  # never over a device, FIFO or folder
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, new_file_mode())  # mkstemp makes 0600; a plain file is 0666 less the umask
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def save_replay(replay: Replay, path: str | Path) -> Path:
    """Write a replay file atomically (see module docstring for the format)."""
    return atomic_write_bytes(path, replay_bytes(replay))


def replay_bytes(replay: Replay) -> bytes:
    """The bytes of a replay file (see module docstring for the format)."""
    arrays = _arrays(replay)
    header = replay.header()
    header["checksum"] = _checksum(header, arrays)
    buf = io.BytesIO()
    np.savez_compressed(
        buf,
        header_json=np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8),
        # numpy's stub matches **arrays against allow_pickle; the keys are b<i>_... names
        **arrays,  # type: ignore[arg-type]
    )
    return buf.getvalue()


#: dtypes a replay's arrays may have (anything else, objects above all, is refused).
_ARRAY_DTYPES = {"|u1", "<i4", "<i2", "<f8"}
#: Most bytes all arrays of one replay may decompress to, as a multiple of the file limit.
_INFLATE_FACTOR = 16


def _read_npz(raw: bytes, where: str) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` archive, checked before anything is allocated: every member an
    ``.npy`` of an allowed dtype whose declared shape matches the bytes it holds, the sum
    within a bound (no zip bomb, no declared size beyond the file, no pickle)."""
    cap = limit("file_mb") * 1048576 * _INFLATE_FACTOR
    try:
        zf = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError):
        raise ReplayError(f"{where}: not a replay file, or a truncated or corrupted one (not a "
                          "zip archive of arrays)") from None
    out: dict[str, np.ndarray] = {}
    total = 0
    with zf:
        infos = zf.infolist()
        if len(infos) > 100_000:
            raise ReplayError(f"{where}: {len(infos)} arrays in the replay: too many")
        for info in infos:
            name = info.filename
            if not name.endswith(".npy") or "/" in name or len(name) > 80:
                raise ReplayError(f"{where}: unexpected member {name[:80]!r} in the replay")
            total += info.file_size
            if total > cap:
                raise ReplayError(f"{where}: the replay's arrays would decompress to more than "
                                  f"{cap // 1048576} MiB ({how_to_raise('file_mb')})")
            try:
                with zf.open(info) as fh:
                    blob = fh.read(info.file_size + 1)
            except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError,
                    NotImplementedError, RuntimeError) as exc:
                raise ReplayError(f"{where}: truncated or corrupted replay: array "
                                  f"{name[:-4]!r} cannot be read ({type(exc).__name__})") from None
            if len(blob) != info.file_size:
                raise ReplayError(f"{where}: array {name[:-4]!r} is not the size its archive "
                                  "entry declares")
            out[name[:-4]] = _parse_npy(blob, f"{where}: array {name[:-4]!r}")
    return out


def _parse_npy(blob: bytes, where: str) -> np.ndarray:
    try:
        return parse_npy(blob, _ARRAY_DTYPES)
    except NpyError as exc:
        raise ReplayError(f"{where}: {exc}") from None


def _need(cond: bool, where: str, what: str) -> None:
    if not cond:
        _malformed(where, what)


def _malformed(where: str, what: str) -> NoReturn:
    raise ReplayError(f"{where}: malformed replay: {what}")


def load_replay(path: str | Path) -> Replay:
    """Read and check a replay file.

    Nothing is allocated from a size the file declares without a bound: the archive is read
    member by member (:func:`_read_npz`), every header field's JSON type and every array's
    shape checked, and no NaN or infinity accepted.

    Raises
    ------
    ReplayError
        One line naming the file: missing, not a regular file, over the size limit, truncated
        or corrupted (bit flips in the compressed arrays included), unknown format or version,
        header fields of the wrong type, more than :data:`MAX_FRAMES` frames or a frame time
        missing, checksum mismatch.
    """
    path = Path(path)
    try:
        raw = read_input_bytes(path, "replay file")
    except FileRefused as exc:
        raise ReplayError(f"{path}: {exc}") from None
    except OSError as exc:
        raise ReplayError(f"{path}: cannot read replay: {reason(exc)}") from None
    data = _read_npz(raw, str(path))
    if "header_json" not in data:
        raise ReplayError(f"{path}: no header in replay file")
    hj = data.pop("header_json")
    _need(hj.dtype == np.uint8 and hj.ndim == 1, str(path), "the header is not text")
    try:
        header = strict_json_loads(hj.tobytes())
    except ValueError as exc:
        raise ReplayError(f"{path}: corrupted replay header: {exc}") from None
    if not isinstance(header, dict):
        raise ReplayError(f"{path}: corrupted replay header: not a table of fields "
                          f"({type(header).__name__})")
    fmt = header.get("format")
    if fmt != FORMAT_NAME:
        shown = repr(fmt)[:60] if isinstance(fmt, (str, int, type(None))) else type(fmt).__name__
        raise ReplayError(f"{path}: not a BrikWars replay (format {shown})")
    version = header.get("version")
    if isinstance(version, bool) or version not in READABLE_VERSIONS:
        raise ReplayError(
            f"{path}: replay version {repr(version)[:40]} is not supported "
            f"(this build reads versions {', '.join(map(str, READABLE_VERSIONS))})"
        )
    stored = header.pop("checksum", None)
    if stored != _checksum(header, data):
        raise ReplayError(f"{path}: checksum mismatch: the replay file is corrupted")
    where = str(path)
    frames = header.get("frames")
    if not (isinstance(frames, int) and not isinstance(frames, bool) and 0 <= frames):
        _malformed(where, "'frames' is not a whole number of frames")
    if frames > MAX_FRAMES:
        _malformed(where, f"{frames} frames is more than a replay holds (at most {MAX_FRAMES})")
    fdt = header.get("frame_dt")
    if not (isinstance(fdt, (int, float)) and not isinstance(fdt, bool) and 0 < fdt < 3600):
        _malformed(where, "'frame_dt' is not a positive number of seconds")
    seed = header.get("seed")
    if not (isinstance(seed, int) and not isinstance(seed, bool) and abs(seed) < 2**63):
        _malformed(where, "'seed' is not a whole number")
    for key, typ in (("scene", dict), ("actions", list), ("events", list), ("bodies", list)):
        _need(isinstance(header.get(key), typ), where,
              f"'{key}' is not a {'table' if typ is dict else 'list'}")
    meta = header.get("meta", {})
    _need(isinstance(meta, dict), where, "'meta' is not a table")
    sd = meta.get("scene_dir")
    _need(sd is None or isinstance(sd, str) and "\x00" not in sd and len(sd) < 4096, where,
          "'meta.scene_dir' is not a folder name")
    _need(isinstance(meta.get("finished", False), bool), where, "'meta.finished' is not true "
          "or false")
    _need(all(isinstance(e, dict) and isinstance(e.get("type"), str)
              and isinstance(e.get("text", ""), str)
              and isinstance(e.get("time", 0.0), (int, float))
              and not isinstance(e.get("time", 0.0), bool)
              and isinstance(e.get("turn", 0), int)
              for e in header["events"]), where,
          "an event is not a table with a 'type', a 'text', a 'time' and a 'turn'")
    too_many = over_limit("actions", len(header["actions"]), "actions")
    if too_many:
        _malformed(where, too_many)
    _need(all(isinstance(a, dict) for a in header["actions"]), where,
          "an action is not a table")
    bodies = header["bodies"]
    _need(all(isinstance(b, str) for b in bodies) and len(set(bodies)) == len(bodies), where,
          "'bodies' is not a list of distinct names")

    def arr(name: str, ndim: int, width: int | None = None) -> np.ndarray:
        a = data.get(name)
        if a is None:
            _malformed(where, f"array {name!r} is missing")
        if ndim == 2 and width is not None and a.ndim == 1 and a.size == 0:
            a = a.reshape(0, width)
        _need(a.ndim == ndim and (width is None or a.shape[-1] == width), where,
              f"array {name!r} has shape {a.shape}")
        return a

    tracks: dict[str, BodyTrack] = {}
    for i, key in enumerate(bodies):
        fr = arr(f"b{i}_frames", 1)
        pos_a = arr(f"b{i}_pos", 2, 3)
        quat_a = arr(f"b{i}_quat", 2, 4)
        _need(len(fr) == len(pos_a) == len(quat_a), where,
              f"body {key[:40]!r}: {len(fr)} frames, {len(pos_a)} positions, "
              f"{len(quat_a)} rotations")
        frames_l = fr.astype(int).tolist()
        _need(all(0 <= f_ <= max(frames, 1) for f_ in frames_l)
              and frames_l == sorted(frames_l), where,
              f"body {key[:40]!r}: frame numbers outside 0..{frames} or out of order")
        pos = (pos_a.astype(float) / POSITION_SCALE).tolist()
        quat = (quat_a.astype(float) / QUAT_SCALE).tolist()
        if version >= 2:
            spans = arr(f"b{i}_spans", 2, 2).astype(int).tolist()
        else:
            spans = [[frames_l[0], frames]] if frames_l else []
        tracks[key] = BodyTrack(key, frames_l, [tuple(p) for p in pos],
                                [tuple(q) for q in quat], spans)
    times: list[float] = []
    if version >= 2:
        ft = arr("frame_times", 1)
        times = ft.astype(float).tolist()
        _need(bool(np.all(np.isfinite(ft))), where, "a frame time is not a finite number")
        if len(times) != frames:  # a version 2 file has one for every frame
            raise ReplayError(f"{path}: {len(times)} frame times for {frames} frames")
    return Replay(scene=header["scene"], seed=seed, actions=list(header["actions"]),
                  events=list(header["events"]), tracks=tracks, frame_dt=float(fdt),
                  frames=frames, meta=dict(meta), frame_times=times, source=str(path))
