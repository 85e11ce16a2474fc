"""Headless export of a replay to an MP4 video or an animated GIF.

``sandbox replay FILE --export out.mp4|out.gif [--turn N] [--from T --to T] [--moment N]``

The chosen stretch of the replay (a turn, a time range, a dramatic moment, or all of it) is
sampled at ``fps`` pictures per simulated second (real speed; ``speed`` slows it down), each
drawn by the offscreen renderer with a camera that frames the action: the box swept by every
body that moves in the stretch (or all bodies when nothing moves), fixed for the whole clip so
the picture does not jitter. Videos are written by imageio: MP4 (H.264) through imageio-ffmpeg,
whose wheel brings its own ffmpeg; GIF through Pillow. The file is written to a temporary name
beside the target and renamed only when complete, so a failed export never replaces a good one.

Pillow merges identical consecutive GIF frames into one longer frame (bodies at rest), so a
GIF read back may hold fewer frames than were written; its total duration is the same.
"""

from __future__ import annotations

import math
import os
import tempfile
import time as _time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from ..core.errors import ReplayError
from ..game.playback import ReplayPlayback
from ..game.replay import Replay
from ..game.replay_index import ReplayIndex

#: File kinds an export can write, by suffix.
FORMATS: tuple[str, ...] = (".mp4", ".gif")


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote.

    Attributes
    ----------
    path : Path
    frames : int
        Pictures written.
    width, height : int
        Pixels.
    fps : float
        Pictures per second of video.
    first_frame, last_frame : int
        The replay frames of the stretch exported (inclusive).
    seconds : float
        Wall time of the whole export (rendering and encoding), seconds.
    """

    path: Path
    frames: int
    width: int
    height: int
    fps: float
    first_frame: int
    last_frame: int
    seconds: float

    @property
    def frames_per_second(self) -> float:
        """Export speed: pictures made per wall second."""
        return self.frames / self.seconds if self.seconds > 0 else float("inf")


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


def _writer(path: Path, fps: float, width: int, height: int):
    """An imageio writer for ``path``'s suffix: ``(write(frame (h, w, 3) uint8), close())``."""
    suffix = path.suffix.lower()
    if suffix == ".mp4":
        import imageio.v2 as iio2

        w = iio2.get_writer(path, format="FFMPEG", fps=fps, codec="libx264", quality=7,
                            pixelformat="yuv420p", macro_block_size=1,
                            ffmpeg_log_level="error")
        return w.append_data, w.close
    import imageio.v3 as iio3

    f = iio3.imopen(path, "w", plugin="pillow", extension=".gif")
    duration = max(20, int(round(1000.0 / fps / 10.0)) * 10)  # GIF delays are centiseconds
    return (lambda img: f.write(img, duration=duration, loop=0)), f.close


def plan_export(replay: Replay, out: str | Path, *, width: int = 640, height: int = 480,
                fps: float = 30.0, speed: float = 1.0, turn: int | None = None,
                start: float | None = None, end: float | None = None,
                moment: int | None = None) -> tuple[ReplayPlayback, int, int, list[int]]:
    """Check an export's options and choose its frames, before any costly work.

    Returns
    -------
    (playback, first, last, frames)
        A playback cursor, the stretch ``[first, last]`` and the replay frame of every
        picture.

    Raises
    ------
    ReplayError
        Unknown suffix, bad size/fps/speed (an MP4 needs even sizes), or a stretch
        :func:`select_frames` rejects.
    """
    out = Path(out)
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


def export_replay(replay: Replay, out: str | Path, assets: dict, *, width: int = 640,
                  height: int = 480, fps: float = 30.0, speed: float = 1.0,
                  turn: int | None = None, start: float | None = None,
                  end: float | None = None, moment: int | None = None, shadows: bool = True,
                  progress: Callable[[int, int], None] | None = None) -> ExportResult:
    """Render a stretch of a replay to ``out`` (``.mp4`` or ``.gif``).

    Parameters
    ----------
    replay : Replay
    out : path
        Target file; its suffix picks the format.
    assets : dict of str to BodyAsset
        Body meshes (:func:`~sandbox.game.playback.replay_assets`).
    width, height : int
        Pixels (even for MP4).
    fps : float
        Pictures per second of video (GIFs round delays to 10 ms).
    speed : float
        Simulated seconds per video second (0.25: four times slower than real).
    turn, start, end, moment :
        The stretch, see :func:`select_frames`.
    shadows : bool
        Sun shadows (slower on software GL).
    progress : callable, optional
        Called as ``progress(done, total)`` after every picture.

    Raises
    ------
    ReplayError
        Unknown suffix, bad size/fps/speed, or a stretch :func:`select_frames` rejects.
    """
    from ..render.offscreen import OffscreenRenderer
    from ..render.replay_view import ReplayDrawing

    t_start = _time.perf_counter()
    out = Path(out)
    playback, first, last, frames = plan_export(replay, out, width=width, height=height,
                                                fps=fps, speed=speed, turn=turn, start=start,
                                                end=end, moment=moment)
    drawing = ReplayDrawing.for_replay(replay, assets)
    aspect = width / height
    camera = action_camera(drawing, playback, frames, aspect)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{out.stem}.", suffix=out.suffix.lower(),
                                    dir=out.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write, close = _writer(tmp, fps, int(width), int(height))
        try:
            with OffscreenRenderer(int(width), int(height), shadows=shadows) as renderer:
                for i, f in enumerate(frames):
                    playback.seek(f)
                    image = renderer.render(drawing.view_of(playback, camera, aspect))
                    write(np.ascontiguousarray(image[..., :3]))
                    if progress is not None:
                        progress(i + 1, len(frames))
        finally:
            close()
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return ExportResult(out, len(frames), int(width), int(height), float(fps), first, last,
                        _time.perf_counter() - t_start)
