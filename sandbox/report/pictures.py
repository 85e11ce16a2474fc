"""A battle report's pictures: each dramatic moment rendered offscreen, and a map per turn.

Moment pictures are drawn by :class:`~sandbox.render.offscreen.OffscreenRenderer` from a camera
framing the moment (:func:`moment_camera`: an explosion's clip of moving bodies, through the
export's :func:`~sandbox.app.export.action_camera`; a flight's path; a damaged or destroyed
body), at the frame that shows it best: an explosion a
little after the blast (the debris in the air, the Damage rings on the table), a flight half
way, a destroyed body half a second later (fallen, thrown or broken), anything else at its own
frame.

Turn maps are top-down matplotlib plots of the battlefield at the end of the turn: each body
as the outline of its mesh seen from above (its own colours), the paths bodies moved along
during the turn, the turn's explosions as their Damage rings, destroyed bodies crossed out and
the scene's units and creations named. Reads the replay only.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np

from ..core.transforms import quat_to_matrix
from ..engine.replay import Replay
from ..engine.replay_index import DramaticMoment, ReplayIndex

#: Moment picture size, pixels.
PICTURE_SIZE: tuple[int, int] = (800, 450)
#: An explosion's picture is taken this long after the blast, seconds.
EXPLOSION_AFTER_S: float = 0.12
#: A destroyed body's picture is taken this long after, seconds.
DESTROYED_AFTER_S: float = 0.5
#: A damaged or destroyed body is framed in a box at least this big, inches.
BODY_FRAME_IN: float = 5.0
#: Points of a body's mesh plotted on a map (a deterministic subsample).
MAP_POINTS_PER_BODY: int = 600
#: Map size, inches of paper (at :data:`MAP_DPI`).
MAP_INCHES: float = 6.0
MAP_DPI: int = 100
#: Paths shorter than this (inches) are not drawn on a map.
MIN_PATH_IN: float = 0.5


@dataclass(frozen=True)
class Picture:
    """A PNG made for the report."""

    name: str
    data: bytes
    frame: int
    caption: str


def flight_frames(replay: Replay, m: DramaticMoment) -> list[int]:
    """The frames of a flight moment: its body's run of consecutive moving frames."""
    tr = replay.tracks.get(m.bodies[0]) if m.bodies else None
    if tr is None or m.frame not in tr.frames:
        return [m.frame]
    i = tr.frames.index(m.frame)
    j = i
    while j + 1 < len(tr.frames) and tr.frames[j + 1] == tr.frames[j] + 1:
        j += 1
    return tr.frames[i:j + 1]


def picture_frame(replay: Replay, index: ReplayIndex, m: DramaticMoment) -> int:
    """The frame that shows a moment best (see the module docstring)."""
    if m.kind == "explosion":
        return min(index.frame_playing_at(m.time + EXPLOSION_AFTER_S), m.end_frame)
    if m.kind == "flight":
        run = flight_frames(replay, m)
        return run[len(run) // 2]
    if m.kind == "destroyed":  # what it came to: the body fallen, thrown or broken
        return min(index.frame_playing_at(m.time + DESTROYED_AFTER_S), m.end_frame)
    return m.frame


def moment_camera(drawing, playback, m: DramaticMoment, frame: int, aspect: float):
    """A camera framing a moment: an explosion's whole clip of moving bodies; a flight's body
    along its path; a damaged or destroyed body (or its pieces) at the moment."""
    from ..app.export import action_camera
    from ..engine.replay_index import bodies_present

    replay = playback.replay
    if m.kind == "flight" and m.bodies:
        run = flight_frames(replay, m)
        seq = []
        for f in run[::max(1, len(run) // 12)] + [run[-1]]:
            poses = replay.poses_at(f)
            seq.append({k: poses[k] for k in bodies_present(m.bodies, poses)})
        bounds = drawing.swept_bounds(seq)
        if bounds is not None:
            return drawing.camera_for_bounds(bounds, aspect)
    if m.kind in ("damage", "destroyed") and m.bodies:
        poses = replay.poses_at(frame)
        bounds = drawing.action_bounds(poses, bodies_present(m.bodies, poses), BODY_FRAME_IN)
        if bounds is not None:
            return drawing.camera_for_bounds(bounds, aspect)
    return action_camera(drawing, playback, list(range(m.start_frame, m.end_frame + 1)), aspect)


def _png(image: np.ndarray) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(image)).save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def moment_pictures(replay: Replay, index: ReplayIndex, assets: dict,
                    moments: list[DramaticMoment], size: tuple[int, int] = PICTURE_SIZE,
                    shadows: bool = True) -> list[Picture]:
    """One picture per moment (``moment-<n>.png``, ``n`` its rank, 1-based), framed on it;
    moments seen in the same view (one frame, one camera) share the first one's picture.

    Raises
    ------
    RenderError
        No offscreen GL (Mesa EGL) on this machine.
    """
    from ..engine.playback import ReplayPlayback
    from ..render.offscreen import OffscreenRenderer
    from ..render.replay_view import ReplayDrawing

    if not moments:
        return []
    drawing = ReplayDrawing.for_replay(replay, assets)
    playback = ReplayPlayback(replay, index)
    w, h = size
    aspect = w / h
    out: list[Picture] = []
    made: dict[tuple, Picture] = {}
    with OffscreenRenderer(w, h, shadows=shadows) as renderer:
        for n, m in enumerate(moments, start=1):
            frame = picture_frame(replay, index, m)
            camera = moment_camera(drawing, playback, m, frame, aspect)
            same = (frame, None if camera is None else
                    (tuple(np.round(camera.eye, 4)), tuple(np.round(camera.target, 4))))
            if same in made:  # the same view as an earlier moment: the same picture
                out.append(made[same])
                continue
            playback.seek(frame)
            image = renderer.render(drawing.view_of(playback, camera, aspect))[..., :3]
            made[same] = Picture(f"moment-{n}.png", _png(image), frame, m.text)
            out.append(made[same])
    return out


def _world_points(asset, pos, quat, count: int) -> np.ndarray:
    v = asset.local_vertices
    if v is None or len(v) == 0:
        return np.zeros((0, 3))
    step = max(1, len(v) // count)
    pts = np.asarray(v[::step], dtype=np.float64)
    return pts @ quat_to_matrix(quat).T + np.asarray(pos, dtype=np.float64)


def _colours(asset, count: int) -> np.ndarray:
    c = asset.local_colours
    step = max(1, len(c) // count)
    return np.clip(np.asarray(c[::step], dtype=np.float64), 0.0, 1.0)


def turn_map(replay: Replay, index: ReplayIndex, assets: dict, turn: int,
             title: str, events: list[dict] | None = None) -> Picture:
    """The top-down map of ``turn`` at its last frame (``map-turn-<n>.png``); ``events``: the
    replay's events as :func:`sandbox.report.story.sanitize` leaves them (default: so)."""
    if events is None:
        from .story import sanitize

        events = sanitize(replay.events)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, Rectangle

    lo, hi = index.turn_range(turn)
    bf = replay.scene.get("battlefield") or {}
    width, depth = float(bf.get("width", 48.0)), float(bf.get("depth", 48.0))
    ground = tuple(bf.get("ground_colour", (0.36, 0.5, 0.3)))[:3]
    aspect = depth / width
    fig = Figure(figsize=(MAP_INCHES, max(2.5, MAP_INCHES * aspect) + 0.4), dpi=MAP_DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.06, 0.08, 0.9, 0.84))
    ax.add_patch(Rectangle((-width / 2, -depth / 2), width, depth, facecolor=ground,
                           edgecolor="#333333", linewidth=1.0, zorder=0))
    poses = replay.poses_at(hi)
    # destroyed by the end of this turn (the next turn may start on this same frame)
    destroyed = {str(e["body"]) for e in events
                 if e.get("type") in ("destroyed", "explosion") and "body" in e
                 and int(e.get("turn", 0)) <= turn}
    for key, (pos, quat) in poses.items():
        a = assets.get(key)
        if a is None:
            continue
        pts = _world_points(a, pos, quat, MAP_POINTS_PER_BODY)
        if len(pts):
            ax.scatter(pts[:, 0], pts[:, 1], s=3, c=_colours(a, MAP_POINTS_PER_BODY)[:len(pts)],
                       linewidths=0, zorder=2 + float(np.mean(pts[:, 2])) / 100.0)
    for key in index.moving_at(hi, hi - lo + 1):
        tr = replay.tracks[key]
        fr = np.asarray(tr.frames)
        sel = (fr >= lo) & (fr <= hi)
        if sel.sum() < 2:
            continue
        p = np.asarray(tr.positions, dtype=float)[sel]
        if np.linalg.norm(np.diff(p[:, :2], axis=0), axis=1).sum() < MIN_PATH_IN:
            continue
        ax.plot(p[:, 0], p[:, 1], color="white", linewidth=0.8, alpha=0.8, zorder=3)
        ax.plot(p[-1:, 0], p[-1:, 1], marker="o", markersize=2.5, color="white", zorder=3)
    for e in events:
        if e.get("type") != "explosion" or int(e.get("turn", 0)) != turn or "point" not in e:
            continue
        x, y = float(e["point"][0]), float(e["point"][1])
        rings = list(e.get("rings") or [])
        radius = float(e.get("radius") or 0.0)
        for r in range(1, len(rings) + 1):
            rr = radius * r / max(len(rings), 1)
            ax.add_patch(Circle((x, y), rr, fill=False, edgecolor="#ff8c1a", linewidth=1.2,
                                linestyle="-" if r == 1 else "--", zorder=4))
        ax.plot([x], [y], marker="*", markersize=12, color="#ff5a00", zorder=5)
    named = _named(replay)
    for key, (pos, _q) in poses.items():
        if key in named:
            dead = key in destroyed
            east = float(pos[0]) > width / 2 - width / 4  # label to the left near the edge
            ax.annotate(named[key], (float(pos[0]), float(pos[1])),
                        xytext=(-4, 4) if east else (4, 4), ha="right" if east else "left",
                        textcoords="offset points", fontsize=7,
                        color="#ffdddd" if dead else "white", zorder=6,
                        bbox=dict(boxstyle="round,pad=0.15", fc="#000000", alpha=0.45, lw=0))
            if dead:
                ax.plot([float(pos[0])], [float(pos[1])], marker="x", markersize=9,
                        markeredgewidth=2, color="#e02020", zorder=6)
    ax.set_xlim(-width / 2 - 0.5, width / 2 + 0.5)
    ax.set_ylim(-depth / 2 - 0.5, depth / 2 + 0.5)
    ax.set_aspect("equal")
    ax.tick_params(labelsize=7)
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("inches", fontsize=7)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=MAP_DPI)
    return Picture(f"map-turn-{turn}.png", buf.getvalue(), hi, title)


def _named(replay: Replay) -> dict[str, str]:
    """``{key: name}`` of the scene's units and creations (what a map labels)."""
    out = {}
    for group in ("units", "creations", "reserves"):
        for entry in replay.scene.get(group, []) or []:
            if isinstance(entry, dict) and entry.get("id"):
                out[str(entry["id"])] = str(entry.get("name") or entry["id"])
    return out
