"""Headless runs: a scene file in, an event log, a replay and a picture out.

This is the main job of ``sandbox run``; it also re-simulates replays for ``--verify``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from ..core.brikpack import is_pack, open_pack, resolve_scene_dir
from ..core.errors import ReplayError
from ..engine.game import Game
from ..engine.replay import Replay, _angle_between, atomic_write_bytes, replay_bytes
from ..engine.replay_index import is_wreck_impact, wreck_of
from ..engine.scene import load_scene, naming_the_file, scene_from_dict
from .outputs import check_output_dir, write_output_set


@dataclass
class RunResult:
    """What a headless run wrote and found."""

    game: Game
    out_dir: Path
    events_path: Path
    replay_path: Path
    png_path: Path | None
    expectation_failures: list[str] = field(default_factory=list)


class DebrisSummary:
    """Passes a run's events on, holding back impacts between the pieces of one wreck
    (rubble settling: two bodies broken from one creation, or a body and its own pieces) and
    pieces landing on the ground; in their place it passes one summary event per wreck,
    ``"N impacts between pieces of blast wall"`` (type ``impact``, ``summary: true``, the
    time of the last one held), before the next event shown that is later than them, when the
    turn changes, at the end and on :meth:`flush`.

    Parameters
    ----------
    on_event : callable
        Receives every event passed on.
    names : dict of str to str
        Scene ids to names (``wall`` → ``blast wall``), for the summary's text.
    """

    def __init__(self, on_event: Callable[[dict], None], names: dict[str, str]):
        self.on_event = on_event
        self.names = names
        #: wreck id → [impacts between its pieces, its pieces' impacts on the ground]
        self.held: dict[str, list[int]] = {}
        self.last: dict | None = None

    @staticmethod
    def debris_of(ev: dict) -> str | None:
        """The wreck an impact is debris of, or None when it is a hit worth showing."""
        if ev.get("type") != "impact":
            return None
        if is_wreck_impact(ev):
            return wreck_of(ev["body_a"])
        a, b = str(ev.get("body_a", "")), str(ev.get("body_b", ""))
        for piece, other in ((a, b), (b, a)):
            if other == "ground" and wreck_of(piece) != piece:
                return wreck_of(piece)
        return None

    def __call__(self, ev: dict) -> None:
        wreck = self.debris_of(ev)
        if self.held and self.last is not None and (
                ev.get("turn") != self.last.get("turn") or ev.get("type") in ("turn", "end")
                or (wreck is None and ev.get("time", 0.0) > self.last.get("time", 0.0))):
            self.flush()  # the log stays in time order
        if wreck is None:
            self.on_event(ev)
            return
        counts = self.held.setdefault(wreck, [0, 0])
        counts[0 if is_wreck_impact(ev) else 1] += 1
        self.last = ev

    def flush(self) -> None:
        """Pass on the summaries of what is held."""
        last, held = self.last, self.held
        self.held, self.last = {}, None
        for wreck, (between, ground) in held.items():
            name = self.names.get(wreck, wreck)
            parts = []
            if between:
                parts.append(f"{between} impact{'s' if between != 1 else ''} between pieces "
                             f"of {name}")
            if ground:
                parts.append(f"{ground} of its pieces on the ground" if between else
                             f"{ground} impact{'s' if ground != 1 else ''} of pieces of "
                             f"{name} on the ground")
            self.on_event({"type": "impact", "time": last["time"], "turn": last.get("turn"),
                           "text": ", ".join(parts),
                           "summary": True, "body": wreck, "impacts": between + ground})


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "scene"


def expectation_results(game: Game) -> list[tuple[str, list[str]]]:
    """Each expectation of a finished game, by name, with its failures in words (empty: met).

    Names: ``min_impacts``, ``collision_rolls_min``, ``destroyed:<id>``, ``standing:<id>``,
    ``landed[<i>]`` for the scene's ``[expect]`` table, and each system's name for the
    expectations a system checks itself (``[expect.hazards]``, ``[escapade.expect]``).
    """
    out: list[tuple[str, list[str]]] = []
    for s in game.systems:  # every system's own expectations
        fails = s.check()
        if fails or s.name in _system_expects(game):
            out.append((s.name, list(fails)))
    exp = game.spec.expect
    if exp is None:
        return out
    if exp.min_impacts:
        impacts = [e for e in game.events if e["type"] == "impact"]
        out.append(("min_impacts", [] if len(impacts) >= exp.min_impacts else
                    [f"expected at least {exp.min_impacts} impacts, saw {len(impacts)}"]))
    if exp.collision_rolls_min:
        coll = [e for e in game.events if e["type"] == "roll" and e["stream"] == "collision"]
        out.append(("collision_rolls_min", [] if len(coll) >= exp.collision_rolls_min else
                    [f"expected at least {exp.collision_rolls_min} Collision Damage rolls, "
                     f"saw {len(coll)}"]))
    for key in exp.destroyed:
        st = game.bodies.get(key)
        out.append((f"destroyed:{key}", [f"expected {key!r} destroyed"]
                    if st is None or not st.damage.destroyed else []))
    for key in exp.standing:
        st = game.bodies.get(key)
        out.append((f"standing:{key}", [f"expected {key!r} still standing"]
                    if st is None or st.damage.destroyed else []))
    if exp.landed:
        from ..games.brikwars.scene_flight import check_landed

        poses = {k: list(p) for k, (p, _) in game.final_poses().items()}
        for i, entry in enumerate(exp.landed):
            out.append((f"landed[{i}]", list(check_landed([entry], game.events, poses))))
    return out


def _system_expects(game: Game) -> set[str]:
    """Systems whose expectations the scene sets (they are reported even when met)."""
    names = set()
    if game.spec.expect is not None and game.spec.expect.hazards is not None:
        names.add("hazards")
    # a game's own section with an ``expect`` table (the Escapade, Brigandine, Micro Brick War):
    # reported under the name of the system that checks it
    for section, system in (("escapade", "escapade"), ("brigandine", None),
                            ("micro_brick_war", None)):
        sec = getattr(game.spec, section, None)
        if sec is not None and getattr(sec, "expect", None) is not None:
            names.add(system or next((s.name for s in game.game_systems), section))
    return names


def check_expectations(game: Game) -> list[str]:
    """Compare a finished game with the scene's ``[expect]`` table; return failures in words."""
    return [f for _, fails in expectation_results(game) for f in fails]


def render_game_png(game: Game, path: Path, width: int = 960, height: int = 720, *,
                    edges: bool = False) -> Path:
    """Render the game's current state to a PNG (offscreen Panda3D), written atomically."""
    return atomic_write_bytes(path, render_game_png_bytes(game, width, height, edges=edges))


def _game_view(game: Game, width: int, height: int, edges: bool):
    """The :class:`~sandbox.render.view.SceneView` of the game's current state."""
    from ..render.escapade_markers import escapade_markers
    from ..render.flight_markers import flight_markers
    from ..render.from_game import scene_view
    from ..render.hazard_markers import hazard_markers

    destroyed = [k for k, s in game.bodies.items() if s.damage.destroyed]
    bf = game.spec.battlefield
    return scene_view(game.assets, game.final_poses(), (bf.width, bf.depth), bf.ground_colour,
                      destroyed=destroyed, aspect=width / height, edges=edges,
                      markers=list(hazard_markers(game)) + flight_markers(game)
                      + escapade_markers(game))


def render_game_png_bytes(game: Game, width: int = 960, height: int = 720, *,
                          edges: bool = False) -> bytes:
    """The game's current state as PNG bytes (offscreen Panda3D); ``edges`` draws the LDraw
    edge lines (type 2, and optional type-5 lines on silhouettes) over the bricks."""
    from ..render.offscreen import render_array
    from ..render.png_process import png_bytes

    return png_bytes(render_array(_game_view(game, width, height, edges), width, height))


class PngPainter:
    """The PNG's offscreen renderer, made ready in a process of its own while the game plays
    (issue 26: ``sandbox run``'s main job; :mod:`sandbox.render.png_process`). The process
    imports Panda3D, opens the offscreen buffer and draws a small stand-in scene into a corner
    of a few pixels (which compiles the shaders and makes the shadow buffer:
    :meth:`OffscreenRenderer.prime`), then waits for the final view, draws it and encodes the
    PNG. A thread would do the same work but hold the interpreter's lock for most of it,
    which the game's build then waits for. The picture is the one
    :func:`render_game_png_bytes` draws, byte for byte.

    Use it as a context manager: leaving it without :meth:`png` ends the process.

    Parameters
    ----------
    width, height : int
        Picture size in pixels.
    edges : bool
        Draw the LDraw edge lines.
    """

    def __init__(self, width: int = 960, height: int = 720, *, edges: bool = False):
        from ..render.png_process import InProcessPainter, Painter

        self.width, self.height, self.edges = int(width), int(height), bool(edges)
        try:
            self._painter: Painter | InProcessPainter = Painter(self.width, self.height,
                                                                self.edges)
        except (OSError, ValueError):  # no child process here: the same picture, drawn here
            self._painter = InProcessPainter(self.width, self.height, self.edges)

    def draw(self, game: Game) -> None:
        """Hand the game's current state to the process, which draws it while the caller
        goes on (the view is made here, from the game: the process gets only the view)."""
        self._painter.draw(_game_view(game, self.width, self.height, self.edges))

    def png(self) -> bytes:
        """The picture of the state handed to :meth:`draw`, as PNG bytes (waits for it).

        Raises
        ------
        RenderError
            As :func:`render_game_png_bytes` (no GL pipe, no buffer, a failed draw), or the
            process ended without a picture.
        """
        return self._painter.png()

    def close(self) -> None:
        """End the process without a picture (after a failed run). Safe to call twice."""
        self._painter.close()

    def __enter__(self) -> PngPainter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def run_scene(scene: str | Path, out_dir: str | Path | None = None, seed: int | None = None,
              ldrawdir: str | Path | None = None, png: bool = True,
              on_event: Callable[[dict], None] | None = None, edges: bool = False,
              summarise_debris: bool = False) -> RunResult:
    """Run a scene file headless and write ``events.jsonl``, a replay and a PNG.

    Parameters
    ----------
    scene : path
        TOML scene file, or a scene pack (``.brikpack``, :mod:`sandbox.core.brikpack`).
    out_dir : path, optional
        Output folder (default ``out/<scene name>`` under the current folder).
    seed : int, optional
        Overrides the scene's seed.
    edges : bool
        Draw the LDraw edge lines in the PNG.
    summarise_debris : bool
        Pass ``on_event`` impacts between debris as one summary per wreck
        (:class:`DebrisSummary`); ``events.jsonl`` always holds every event.

    Raises
    ------
    SceneError, LDrawError, RulesError
        With a message naming the file, field or line.
    """
    pack = Path(scene).resolve() if is_pack(scene) else None
    scene_file = open_pack(scene) if pack is not None else Path(scene)
    spec, base = load_scene(scene_file)
    slug = _slug(Path(scene).name.removesuffix(".brikpack").removesuffix(".toml")
                 if pack is not None else Path(scene).stem)
    out = Path(out_dir) if out_dir is not None else Path("out") / slug
    # before the run: a bad folder, a folder where an output goes and a bad picture setting
    # are reported at once, not after the game has played
    check_output_dir(out, names=("events.jsonl", f"{slug}.replay")
                     + ((f"{slug}.png",) if png else ()))
    if png:
        from ..render.from_game import default_detail

        default_detail()  # $SANDBOX_DETAIL: RenderError naming it
    painter = PngPainter(edges=edges) if png else None  # gets ready while the game plays
    try:
        return _run_scene(scene, pack, spec, base, slug, out, seed, ldrawdir, painter,
                          on_event, summarise_debris)
    finally:
        if painter is not None:
            painter.close()


def _run_scene(scene, pack, spec, base, slug, out, seed, ldrawdir, painter, on_event,
               summarise_debris) -> RunResult:
    summary = None
    if on_event is not None and summarise_debris:
        names = {e.id: e.name or e.id for e in list(spec.creations) + list(spec.units)
                 + list(spec.reserves)}
        on_event = summary = DebrisSummary(on_event, names)
    with naming_the_file(scene):
        game = Game(spec, base, ldrawdir=ldrawdir, seed=seed, on_event=on_event)
    game.undo_snapshots = 0  # a scripted run is never undone
    game.scene_origin = pack
    try:
        with naming_the_file(scene):
            game.run()
        if summary is not None:
            summary.flush()
        if painter is not None:
            painter.draw(game)  # drawn in its thread while the log and the replay are made
        text = "".join(json.dumps(ev, sort_keys=True, allow_nan=False) + "\n"
                       for ev in game.events)
        rp = game.replay()
        rp.meta["scene_dir"] = str(pack or base)  # the pack is unpacked again to re-simulate
        files = {"events.jsonl": text.encode("utf-8"), f"{slug}.replay": replay_bytes(rp)}
        fails = check_expectations(game)
        if painter is not None:
            files[f"{slug}.png"] = painter.png()
    finally:
        game.close()
    # one set: a failed or killed run leaves the old one; a run without a picture takes an
    # old picture away with the old set
    paths = write_output_set(out, files, drop={f"{slug}.png"} - set(files))
    return RunResult(game, out, paths["events.jsonl"], paths[f"{slug}.replay"],
                     paths.get(f"{slug}.png"), fails)


def verify_replay(replay: Replay, base_dir: str | Path | None = None,
                  ldrawdir: str | Path | None = None) -> dict:
    """Re-simulate a replay from its scene, seed and actions and compare with the recording.

    Returns
    -------
    dict
        ``max_position_diff_in`` (inches), ``max_angle_diff_rad``, ``events_identical``,
        ``timeline_identical`` (the same frames at the same times, bodies appearing and
        vanishing on the same frames), ``compared_poses`` and ``ok`` (identical events and
        timeline, poses within the quantum).
    """
    spec = scene_from_dict(replay.scene, "<replay scene>")
    base, _pack = resolve_scene_dir(replay.meta.get("scene_dir"), base_dir or ".")
    game = Game(spec, base, ldrawdir=ldrawdir, seed=replay.seed,
                    forced_dice=replay.meta.get("forced_dice", True) is not False)
    try:
        game.rerun(replay.actions, replay.meta.get("finished"))
        again = game.replay()
    finally:
        game.close()
    max_pos = max_ang = 0.0
    compared = 0
    for key, track in replay.tracks.items():
        other = again.tracks.get(key)
        if other is None:
            raise ReplayError(f"re-simulation has no body {key!r}")
        for frame, pos, quat in zip(track.frames, track.positions, track.quats, strict=True):
            p2, q2 = other.pose_at(frame)
            max_pos = max(max_pos, float(np.linalg.norm(np.subtract(pos, p2))))
            max_ang = max(max_ang, _angle_between(np.asarray(quat), q2))
            compared += 1
    strip = lambda evs: [{k: v for k, v in e.items()} for e in evs]  # noqa: E731
    same_events = strip(replay.events) == json.loads(json.dumps(strip(again.events)))
    closed = lambda tr, n: [[a, n if b is None else b] for a, b in tr.spans]  # noqa: E731
    same_timeline = (replay.frames == again.frames
                     and np.array_equal(replay.times(), again.times())
                     and set(replay.tracks) == set(again.tracks)
                     and all(closed(t, replay.frames) == closed(again.tracks[k], again.frames)
                             for k, t in replay.tracks.items()))
    return {"max_position_diff_in": max_pos, "max_angle_diff_rad": max_ang,
            "events_identical": same_events, "timeline_identical": same_timeline,
            "compared_poses": compared,
            "ok": same_events and same_timeline and max_pos < 1e-6 and max_ang < 1e-6}
