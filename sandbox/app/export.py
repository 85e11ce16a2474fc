"""Headless export of a replay to an MP4 video or an animated GIF.

``sandbox replay FILE --export out.mp4|out.gif [--turn N] [--from T --to T] [--moment N]
[--camera fixed|follow|orbit] [--no-captions] [--size 1280x720]``

The chosen stretch of the replay (a turn, a time range, a dramatic moment, or all of it) is
sampled at ``fps`` pictures per simulated second (real speed; ``speed`` slows it down), each
drawn by the offscreen renderer, 1280x720 unless told otherwise. The camera (``camera``):

- ``fixed`` frames the box swept by every body that moves in the stretch (or all bodies when
  nothing moves), the same for the whole clip so the picture does not jitter;
- ``follow`` frames, picture by picture, the bodies of the dramatic moment exported (their
  pieces once broken) or else the bodies moving then, gliding towards each new framing;
- ``orbit`` circles the fixed camera's target at its distance and height,
  :data:`ORBIT_DEG_PER_S` degrees per second of video.

The turn's dice and events are burnt into the pictures as captions
(:class:`~sandbox.render.captions.CaptionPainter`) unless ``captions`` is off. Videos are
written by imageio: MP4 (H.264) through imageio-ffmpeg, whose wheel brings its own ffmpeg; GIF
through Pillow. The file is written to a temporary name beside the target, flushed to disk and
renamed only when complete, so a failed export never replaces a good one.

Identical consecutive GIF pictures become one longer frame (bodies at rest), so a GIF may hold
fewer frames than pictures rendered (the export reports the frames in the file). GIF delays
are whole centiseconds: they alternate (30 and 40 ms at 30 fps) so the total duration is the
clip's.
"""

from __future__ import annotations

import math
import os
import tempfile
import time as _time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..core.errors import ReplayError
from ..engine.playback import ReplayPlayback
from ..engine.replay import Replay, new_file_mode
from ..engine.replay_index import ReplayIndex, bodies_present
from ..render.orbit_camera import OrbitCamera
from ..render.view import Camera

#: File kinds an export can write, by suffix.
FORMATS: tuple[str, ...] = (".mp4", ".gif")
#: Shortest GIF frame delay, ms (browsers show shorter ones as 100 ms).
GIF_MIN_DELAY_MS: int = 20
#: Camera modes of an export.
CAMERAS: tuple[str, ...] = ("fixed", "follow", "orbit")
#: Export size unless told otherwise, pixels.
DEFAULT_SIZE: tuple[int, int] = (1280, 720)
#: Orbit camera: degrees of azimuth per second of video.
ORBIT_DEG_PER_S: float = 30.0
#: Follow camera: fraction of the way to its new framing covered per second of video
#: (exponential), and the window of frames around a picture in which bodies count as moving,
#: simulated seconds.
FOLLOW_RATE: float = 3.0
FOLLOW_WINDOW_S: float = 0.25


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote.

    Attributes
    ----------
    path : Path
    frames : int
        Frames in the file (a GIF merges identical consecutive pictures into one longer
        frame, so it may hold fewer than ``pictures``).
    width, height : int
        Pixels.
    fps : float
        Pictures per second of video.
    first_frame, last_frame : int
        The replay frames of the stretch exported (inclusive).
    seconds : float
        Wall time of the whole export (rendering and encoding), seconds.
    pictures : int
        Pictures rendered (``frames`` when not given).
    loop_seconds : float or None
        Wall time of the picture loop alone (drawing, captions, encoding), without loading
        the meshes and opening the renderer; None when not measured.
    """

    path: Path
    frames: int
    width: int
    height: int
    fps: float
    first_frame: int
    last_frame: int
    seconds: float
    pictures: int | None = None
    loop_seconds: float | None = None

    @property
    def rendered(self) -> int:
        """Pictures rendered."""
        return self.frames if self.pictures is None else self.pictures

    @property
    def frames_per_second(self) -> float:
        """Export speed: pictures made per wall second."""
        return self.rendered / self.seconds if self.seconds > 0 else float("inf")

    @property
    def loop_frames_per_second(self) -> float | None:
        """Pictures per wall second of the picture loop (the rate once the export runs)."""
        if self.loop_seconds is None:
            return None
        return self.rendered / self.loop_seconds if self.loop_seconds > 0 else float("inf")


def select_frames(index: ReplayIndex, turn: int | None = None, start: float | None = None,
                  end: float | None = None, moment: int | None = None) -> tuple[int, int]:
    """``[first, last]`` replay frames to export.

    Parameters
    ----------
    turn : int, optional
        A whole turn.
    start, end : float, optional
        Simulated seconds (within the turn when ``turn`` is given too).
    moment : int, optional
        The clip of the ``moment``-th biggest dramatic moment (1-based); not with the others.

    Raises
    ------
    ReplayError
        An unknown turn or moment, ``start`` after ``end``, a stretch outside the turn, or
        ``moment`` with ``turn``/``start``/``end``.
    """
    if moment is not None:
        if turn is not None or start is not None or end is not None:
            raise ReplayError("--moment picks its own stretch: leave out --turn, --from and --to")
        m = index.moment(moment)
        return m.start_frame, m.end_frame
    lo, hi = 0, index.frames - 1
    if turn is not None:
        lo, hi = index.turn_range(int(turn))
    if start is not None or end is not None:
        a, b = index.time_range(start, end)
        if b < lo or a > hi:
            raise ReplayError(f"--from {start} --to {end} lies outside turn {turn} "
                              f"({index.time_of(lo):.3f}..{index.time_of(hi):.3f} s)")
        lo, hi = max(lo, a), min(hi, b)
    return lo, hi


def sample_frames(index: ReplayIndex, first: int, last: int, fps: float,
                  speed: float = 1.0) -> list[int]:
    """Replay frames to show at ``fps`` pictures per second of video, ``speed`` simulated
    seconds per video second, from ``first`` to ``last`` (both shown)."""
    t0, t1 = index.time_of(first), index.time_of(last)
    n = max(1, int(math.floor((t1 - t0) * fps / speed + 1e-9)) + 1)
    frames = [min(max(index.frame_playing_at(t0 + i * speed / fps), first), last)
              for i in range(n)]
    if frames[-1] != last:
        frames.append(last)
    return frames


def action_camera(drawing, playback: ReplayPlayback, frames: list[int], aspect: float):
    """A fixed camera framing everything that moves over ``frames`` (all bodies if nothing
    does). Reads the replay only."""
    index = playback.index
    lo, hi = min(frames), max(frames)
    mid, half = (lo + hi) // 2, (hi - lo + 1) // 2 + 1
    keys = set(index.moving_at(mid, half))
    seq = []
    for f in sorted(set(frames)):
        poses = playback.replay.poses_at(f)
        seq.append({k: v for k, v in poses.items() if not keys or k in keys})
    bounds = drawing.swept_bounds(seq)
    if bounds is None:
        return None
    return drawing.camera_for_bounds(bounds, aspect)


def clip_cameras(drawing, playback: ReplayPlayback, frames: list[int], aspect: float,
                 mode: str = "fixed", fps: float = 30.0, focus: Sequence[str] = ()) -> list:
    """The camera of every picture of a clip (None: the renderer frames every body).

    Parameters
    ----------
    frames : list of int
        Replay frame of every picture.
    mode : str
        One of :data:`CAMERAS` (see the module docstring).
    fps : float
        Pictures per second of video (the orbit's and the follow camera's pace).
    focus : sequence of str
        Bodies the follow camera frames while they (or their pieces) are on the table: a
        dramatic moment's; otherwise it frames the bodies moving at each picture.

    Raises
    ------
    ReplayError
        An unknown mode.
    """
    if mode not in CAMERAS:
        raise ReplayError(f"--camera {mode!r}: choose one of {', '.join(CAMERAS)}")
    fixed = action_camera(drawing, playback, frames, aspect)
    if mode == "fixed" or fixed is None:
        return [fixed] * len(frames)
    off = fixed.eye - fixed.target
    dist = float(np.linalg.norm(off))
    elevation = math.degrees(math.asin(max(-1.0, min(1.0, off[2] / dist))))
    azimuth = math.degrees(math.atan2(off[0], -off[1]))
    if mode == "orbit":
        out = []
        for i in range(len(frames)):
            eye = OrbitCamera(target=fixed.target, distance=dist, elevation=elevation,
                              azimuth=azimuth + ORBIT_DEG_PER_S * i / fps).eye()
            out.append(Camera(eye, fixed.target, fixed.fov_deg))
        return out
    index = playback.index
    window = max(1, int(round(FOLLOW_WINDOW_S / max(playback.replay.frame_dt, 1e-9))))
    k = 1.0 - math.exp(-FOLLOW_RATE / fps)
    target, distance = None, dist
    out = []
    for f in frames:
        poses = playback.replay.poses_at(f)
        keys = bodies_present(focus, poses) or index.moving_at(f, window)
        bounds = drawing.action_bounds(poses, keys) if keys else None
        if bounds is not None:
            goal = drawing.camera_for_bounds(bounds, aspect, azimuth, elevation)
            goal_dist = float(np.linalg.norm(goal.eye - goal.target))
            if target is None:
                target, distance = np.asarray(goal.target, float), goal_dist
            else:
                target = target + k * (np.asarray(goal.target, float) - target)
                distance += k * (goal_dist - distance)
        if target is None:
            out.append(None)  # nothing to follow yet: filled with the first framing below
            continue
        out.append(Camera(target + distance * off / dist, target, fixed.fov_deg))
    first = next((c for c in out if c is not None), fixed)
    return [first if c is None else c for c in out]


def _writer(path: Path, fps: float, width: int, height: int):
    """A writer for ``path``'s suffix: ``(write(frame (h, w, 3) uint8), close(),
    frames())``, ``frames()`` giving the pictures in the file once closed."""
    suffix = path.suffix.lower()
    if suffix == ".mp4":
        import imageio.v2 as iio2

        w = iio2.get_writer(path, format="FFMPEG", fps=fps, codec="libx264", quality=7,
                            pixelformat="yuv420p", macro_block_size=1,
                            ffmpeg_log_level="error")
        written = [0]

        def append(img: np.ndarray) -> None:
            w.append_data(img)
            written[0] += 1

        return append, w.close, lambda: written[0]
    gif = _GifWriter(path, fps)
    return gif.write, gif.close, lambda: gif.frames


def gif_delays_ms(pictures: int, fps: float) -> list[int]:
    """Delays (ms) of ``pictures`` GIF frames at ``fps``: GIF delays are whole centiseconds,
    so they alternate (30 and 40 ms at 30 fps) and every frame ends within 5 ms of its time.

    >>> gif_delays_ms(6, 30.0)
    [30, 40, 30, 30, 40, 30]
    """
    ends = [int(round(i * 100.0 / fps)) * 10 for i in range(pictures + 1)]
    return [b - a for a, b in zip(ends[:-1], ends[1:], strict=True)]


class _GifWriter:
    """Collects pictures and writes an animated GIF with Pillow on close.

    Identical consecutive pictures become one longer frame, and a delay under
    :data:`GIF_MIN_DELAY_MS` (which viewers stretch to 100 ms) is merged into the next
    picture, so the total duration is the clip's; :attr:`frames` is the count in the file.
    """

    def __init__(self, path: Path, fps: float):
        self.path, self.fps = Path(path), float(fps)
        self.images: list[np.ndarray] = []
        self.delays: list[int] = []
        self._pending: tuple[np.ndarray, int] | None = None
        self._count = 0
        self.frames = 0

    def write(self, img: np.ndarray) -> None:
        self._count += 1
        n = self._count
        delay = (int(round(n * 100.0 / self.fps)) - int(round((n - 1) * 100.0 / self.fps))) * 10
        if self._pending is not None:
            prev, d = self._pending
            if d < GIF_MIN_DELAY_MS:  # too short to show: this picture takes its time
                self._pending = (img, d + delay)
                return
            if np.array_equal(prev, img):
                self._pending = (prev, d + delay)
                return
            self.images.append(prev)
            self.delays.append(d)
        self._pending = (np.array(img, copy=True), delay)

    def close(self) -> None:
        from PIL import Image

        if self._pending is not None:
            img, d = self._pending
            if d < GIF_MIN_DELAY_MS and self.images:
                self.delays[-1] += d
            else:
                self.images.append(img)
                self.delays.append(max(d, GIF_MIN_DELAY_MS))
            self._pending = None
        if not self.images:
            return
        pics = [Image.fromarray(np.ascontiguousarray(i)) for i in self.images]
        pics[0].save(self.path, format="GIF", save_all=True, append_images=pics[1:],
                     duration=self.delays, loop=0, disposal=1)
        with Image.open(self.path) as done:  # Pillow may merge pictures equal once paletted
            self.frames = int(getattr(done, "n_frames", 1))


def plan_export(replay: Replay, out: str | Path, *, width: int = DEFAULT_SIZE[0],
                height: int = DEFAULT_SIZE[1], fps: float = 30.0, speed: float = 1.0,
                turn: int | None = None, start: float | None = None, end: float | None = None,
                moment: int | None = None,
                camera: str = "fixed") -> tuple[ReplayPlayback, int, int, list[int]]:
    """Check an export's options and choose its frames, before any costly work.

    Returns
    -------
    (playback, first, last, frames)
        A playback cursor, the stretch ``[first, last]`` and the replay frame of every
        picture.

    Raises
    ------
    ReplayError
        Unknown suffix, bad size/fps/speed (an MP4 needs even sizes), an unknown camera, or
        a stretch :func:`select_frames` rejects.
    """
    out = Path(out)
    if camera not in CAMERAS:
        raise ReplayError(f"--camera {camera!r}: choose one of {', '.join(CAMERAS)}")
    if out.suffix.lower() not in FORMATS:
        raise ReplayError(f"cannot export to {out.name!r}: use a name ending in "
                          f"{' or '.join(FORMATS)}")
    if not (0 < fps <= 120 and math.isfinite(fps)):
        raise ReplayError(f"fps {fps!r} is outside 0..120")
    if not (0 < speed <= 16 and math.isfinite(speed)):
        raise ReplayError(f"speed {speed!r} is outside 0..16")
    if not (16 <= int(width) <= 4096 and 16 <= int(height) <= 4096):
        raise ReplayError(f"export size {width}x{height} is outside 16..4096 pixels")
    if out.suffix.lower() == ".mp4" and (int(width) % 2 or int(height) % 2):
        raise ReplayError(f"an MP4 needs an even width and height, got {width}x{height}")
    playback = ReplayPlayback(replay)
    first, last = select_frames(playback.index, turn, start, end, moment)
    return playback, first, last, sample_frames(playback.index, first, last, fps, speed)


def export_replay(replay: Replay, out: str | Path, assets: dict, *,
                  width: int = DEFAULT_SIZE[0], height: int = DEFAULT_SIZE[1],
                  fps: float = 30.0, speed: float = 1.0, turn: int | None = None,
                  start: float | None = None, end: float | None = None,
                  moment: int | None = None, shadows: bool | None = None,
                  camera: str = "fixed",
                  captions: bool = True,
                  progress: Callable[[int, int], None] | None = None) -> ExportResult:
    """Render a stretch of a replay to ``out`` (``.mp4`` or ``.gif``).

    Parameters
    ----------
    replay : Replay
    out : path
        Target file; its suffix picks the format.
    assets : dict of str to BodyAsset
        Body meshes (:func:`~sandbox.engine.playback.replay_assets`).
    width, height : int
        Pixels (even for MP4); 1280x720 by default.
    fps : float
        Pictures per second of video (GIFs round delays to 10 ms).
    speed : float
        Simulated seconds per video second (0.25: four times slower than real).
    turn, start, end, moment :
        The stretch, see :func:`select_frames`.
    shadows : bool or None
        Sun shadows. None: on with a GPU, off on software GL (``$SANDBOX_SHADOWS`` decides
        when set); multisampling likewise (``$SANDBOX_MSAA``).
    camera : str
        ``fixed``, ``follow`` or ``orbit`` (see the module docstring).
    captions : bool
        Burn the turn, its dice and its events into the pictures.
    progress : callable, optional
        Called as ``progress(done, total)`` after every picture.

    Raises
    ------
    ReplayError
        Unknown suffix, bad size/fps/speed, an unknown camera, or a stretch
        :func:`select_frames` rejects.
    OutputError
        When the target's folder cannot be written.
    """
    from ..core.limits import check_output_file
    from ..render.captions import CaptionPainter
    from ..render.offscreen import OffscreenRenderer
    from ..render.replay_view import ReplayDrawing

    t_start = _time.perf_counter()
    out = check_output_file(out, "video")  # never over a device, FIFO or folder
    playback, first, last, frames = plan_export(replay, out, width=width, height=height,
                                                fps=fps, speed=speed, turn=turn, start=start,
                                                end=end, moment=moment, camera=camera)
    drawing = ReplayDrawing.for_replay(replay, assets)
    aspect = width / height
    focus = playback.index.moment(moment).bodies if moment is not None else ()
    cameras = clip_cameras(drawing, playback, frames, aspect, camera, fps, focus)
    painter = CaptionPainter(int(width), int(height)) if captions else None
    # the meshes of the bodies on the table at the first picture are made before the picture
    # loop, as the renderer is opened before it: ``loop_seconds`` is the drawing alone (a
    # body made later in the clip, a break's piece, is still made in the loop)
    playback.seek(frames[0])
    dead = set(playback.destroyed())
    for key in playback.poses():
        if key in drawing.assets:
            drawing.mesh(key, key in dead)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{out.stem}.", suffix=out.suffix.lower(),
                                        dir=out.parent)
    except OSError as exc:
        from ..core.errors import OutputError

        raise OutputError(f"--export {str(out)!r}: cannot write there "
                          f"({exc.strerror or type(exc).__name__})") from None
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write, close, in_file = _writer(tmp, fps, int(width), int(height))
        try:
            with OffscreenRenderer(int(width), int(height), shadows=shadows,
                                   multisamples=None) as renderer:
                t_loop = _time.perf_counter()
                for i, (f, cam) in enumerate(zip(frames, cameras, strict=True)):
                    playback.seek(f)
                    image = renderer.render(drawing.view_of(playback, cam, aspect))[..., :3]
                    if painter is not None:
                        image = painter.paint(image, playback.events(), playback.turn)
                    write(np.ascontiguousarray(image))
                    if progress is not None:
                        progress(i + 1, len(frames))
                loop_s = _time.perf_counter() - t_loop
        finally:
            close()
        with open(tmp, "rb") as fh:  # on disk before it takes the target's name
            os.fsync(fh.fileno())
        os.chmod(tmp, new_file_mode())  # mkstemp makes 0600
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return ExportResult(out, in_file(), int(width), int(height), float(fps), first, last,
                        _time.perf_counter() - t_start, pictures=len(frames), loop_seconds=loop_s)
