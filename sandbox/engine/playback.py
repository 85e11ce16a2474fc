"""Replay playback as pure state: a frame cursor over a replay, with no window.

:class:`ReplayPlayback` is the model the replay viewer (``sandbox.app.replay_viewer``) and the
exporter drive: play, pause, step, scrub, speed, jump to a turn, an event or a dramatic
moment; and the state to show: the poses of the bodies on the table, the events and dice
rolled so far, the current turn, the bodies destroyed. It never changes the replay.

Playing is in simulated time: :meth:`ReplayPlayback.advance` moves a clock by
``wall seconds * speed`` and shows the last recorded frame at or before it.

:func:`replay_assets` rebuilds the bodies' meshes for drawing by re-running the game from the
replay's scene, seed and actions (payloads and other bodies made mid-game only exist after
their action).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..core.errors import ReplayError, SandboxError
from .replay import Replay
from .replay_index import DramaticMoment, ReplayIndex, is_wreck_impact

#: Bookkeeping event types no log shows.
LOG_HIDDEN_EVENTS: frozenset[str] = frozenset({"body", "warning", "setup"})
#: Playback speeds offered by :meth:`ReplayPlayback.faster` / :meth:`ReplayPlayback.slower`.
SPEEDS: tuple[float, ...] = (0.0625, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
#: Event types shown as the story of a replay (dice rolls are listed with them, see
#: :meth:`ReplayPlayback.dice_log`); :meth:`ReplayPlayback.next_event` stops on these.
STORY_EVENTS: frozenset[str] = frozenset({
    "action", "release", "impact", "damage", "destroyed", "explosion", "disrupted", "landed",
    "turn", "end", "fire", "hazard", "breakage", "launch", "hit", "knockback",
    "mark", "bombard",
})


class ReplayPlayback:
    """A cursor over a replay: what frame is shown and how playback moves.

    Parameters
    ----------
    replay : Replay
    index : ReplayIndex, optional
        Built from ``replay`` when not given.

    Attributes
    ----------
    frame : int
        The frame shown, ``0 .. frames - 1``.
    playing : bool
    speed : float
        Simulated seconds per wall second.
    """

    def __init__(self, replay: Replay, index: ReplayIndex | None = None):
        self.replay = replay
        self.index = index if index is not None else ReplayIndex(replay)
        self.frame = 0
        self.clock = self.index.time_of(0)
        self.playing = False
        self.speed = 1.0
        #: (frame, turn) of the last jump to a turn: turns in which nothing moved (a
        #: Bombardment called, then a turn waited) start on the same frame as the next one.
        self._jumped: tuple[int, int] | None = None

    # ------------------------------------------------------------------ state to show
    @property
    def frames(self) -> int:
        return self.replay.frames

    @property
    def time(self) -> float:
        """Simulated seconds of the frame shown."""
        return self.index.time_of(self.frame)

    @property
    def duration(self) -> float:
        """Simulated seconds from the first frame to the last."""
        return self.index.time_of(self.frames - 1) - self.index.time_of(0)

    @property
    def at_end(self) -> bool:
        return self.frame >= self.frames - 1

    @property
    def turn(self) -> int:
        """The turn of the frame shown (0: set-up). Several turns may start on one frame (no
        body moved in between); there it is the turn last jumped to, else the latest."""
        if self._jumped is not None and self._jumped[0] == self.frame:
            return self._jumped[1]
        return self.index.turn_at(self.frame)

    def poses(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """``{key: (position (3,) in, quaternion (x, y, z, w))}`` of the bodies on the table."""
        return self.replay.poses_at(self.frame)

    def events(self) -> list[dict]:
        """Every event logged by the frame shown (dice rolls included), in order."""
        return self.index.events_until(self.frame)

    def story(self) -> list[dict]:
        """The events so far without dice rolls and bookkeeping (see :data:`STORY_EVENTS`)."""
        return [e for e in self.events() if e.get("type") in STORY_EVENTS]

    def log_events(self, wreck_impacts: bool = False) -> list[dict]:
        """The events so far as a log shows them: no bookkeeping (:data:`LOG_HIDDEN_EVENTS`)
        and, unless ``wreck_impacts``, no impacts between two parts of one wreck (see
        :func:`~sandbox.engine.replay_index.is_wreck_impact`)."""
        return [e for e in self.events() if e.get("type") not in LOG_HIDDEN_EVENTS
                and (wreck_impacts or not is_wreck_impact(e))]

    def dice_log(self) -> list[dict]:
        """The dice rolled by the frame shown: ``roll`` events (stream, sides, result, reason)."""
        return [e for e in self.events() if e.get("type") == "roll"]

    def destroyed(self) -> set[str]:
        """Bodies destroyed by the frame shown."""
        return self.index.destroyed_at(self.frame)

    def moving(self, window_s: float = 0.25) -> list[str]:
        """Bodies moving within ``window_s`` seconds of the frame shown (the action)."""
        window = max(0, int(round(window_s / max(self.replay.frame_dt, 1e-9))))
        return self.index.moving_at(self.frame, window)

    def recent_explosions(self, within_s: float = 0.5) -> list[dict]:
        """Explosion events at most ``within_s`` seconds before the frame shown."""
        now = self.time
        return [e for e in self.events() if e.get("type") == "explosion"
                and 0.0 <= now - float(e.get("time", 0.0)) <= within_s]

    # ------------------------------------------------------------------ moving the cursor
    def seek(self, frame: int) -> int:
        """Show ``frame`` (clamped to the replay); returns the frame shown."""
        self.frame = min(max(int(frame), 0), self.frames - 1)
        self.clock = self.index.time_of(self.frame)
        self._jumped = None
        return self.frame

    def seek_fraction(self, fraction: float) -> int:
        """Show the frame at ``fraction`` (0..1, clamped) of the replay's frames (a slider)."""
        f = min(max(float(fraction), 0.0), 1.0)
        return self.seek(int(round(f * (self.frames - 1))))

    def fraction(self) -> float:
        """Position of the frame shown, 0..1 (for a slider)."""
        return self.frame / (self.frames - 1) if self.frames > 1 else 0.0

    def step(self, n: int = 1) -> int:
        """Pause and move ``n`` frames (negative: back)."""
        self.playing = False
        return self.seek(self.frame + int(n))

    def play(self) -> None:
        """Play from the frame shown (from the start when at the end)."""
        if self.at_end:
            self.seek(0)
        self.playing = True

    def pause(self) -> None:
        self.playing = False

    def toggle(self) -> bool:
        """Play or pause; returns whether it now plays."""
        if self.playing:
            self.pause()
        else:
            self.play()
        return self.playing

    def set_speed(self, speed: float) -> float:
        """Set the speed (simulated seconds per wall second).

        Raises
        ------
        ReplayError
            When ``speed`` is outside ``SPEEDS[0] .. SPEEDS[-1]``.
        """
        s = float(speed)
        if not SPEEDS[0] <= s <= SPEEDS[-1]:
            raise ReplayError(f"playback speed {speed!r} is outside {SPEEDS[0]:g}..{SPEEDS[-1]:g}")
        self.speed = s
        return s

    def faster(self) -> float:
        """Next speed up the ladder :data:`SPEEDS`."""
        higher = [s for s in SPEEDS if s > self.speed + 1e-12]
        return self.set_speed(higher[0] if higher else SPEEDS[-1])

    def slower(self) -> float:
        """Next speed down the ladder :data:`SPEEDS`."""
        lower = [s for s in SPEEDS if s < self.speed - 1e-12]
        return self.set_speed(lower[-1] if lower else SPEEDS[0])

    def advance(self, wall_seconds: float) -> int:
        """While playing, move the clock ``wall_seconds * speed``; pause at the end.

        Returns
        -------
        int
            The frame shown.
        """
        if not self.playing or wall_seconds <= 0:
            return self.frame
        self.clock += float(wall_seconds) * self.speed
        end = self.index.time_of(self.frames - 1)
        if self.clock >= end:
            self.frame = self.frames - 1
            self.clock = end
            self.playing = False
            return self.frame
        self.frame = self.index.frame_playing_at(self.clock)
        return self.frame

    # ------------------------------------------------------------------ jumps
    def jump_to_turn(self, turn: int) -> int:
        """Show the first frame of ``turn``.

        Raises
        ------
        ReplayError
            When the replay has no such turn.
        """
        frame = self.seek(self.index.turn_range(int(turn))[0])
        self._jumped = (frame, int(turn))
        return frame

    def jump_to_event(self, number: int) -> int:
        """Show the frame of event ``number`` (0-based index into the log).

        Raises
        ------
        ReplayError
            When there is no such event.
        """
        n = int(number)
        if not 0 <= n < len(self.replay.events):
            raise ReplayError(f"event {number!r} is not in the replay (it has "
                              f"{len(self.replay.events)} events)")
        return self.seek(int(self.index.event_frames[n]))

    def next_event(self, types: frozenset[str] | set[str] = STORY_EVENTS,
                   wreck_impacts: bool = True) -> int:
        """Show the next frame after this one where an event of ``types`` happens (stay if
        there is none); not an impact within one wreck unless ``wreck_impacts``."""
        for e, f in zip(self.replay.events, self.index.event_frames, strict=True):
            if f > self.frame and e.get("type") in types and (
                    wreck_impacts or not is_wreck_impact(e)):
                return self.seek(int(f))
        return self.frame

    def previous_event(self, types: frozenset[str] | set[str] = STORY_EVENTS,
                       wreck_impacts: bool = True) -> int:
        """Show the last frame before this one where an event of ``types`` happens (not an
        impact within one wreck unless ``wreck_impacts``)."""
        best = None
        for e, f in zip(self.replay.events, self.index.event_frames, strict=True):
            if f < self.frame and e.get("type") in types and (
                    wreck_impacts or not is_wreck_impact(e)):
                best = int(f)
        return self.frame if best is None else self.seek(best)

    def jump_to_moment(self, number: int) -> DramaticMoment:
        """Show the ``number``-th biggest dramatic moment (1-based); returns it.

        Raises
        ------
        ReplayError
            When there is no such moment.
        """
        m = self.index.moment(number)
        self.seek(m.frame)
        return m

    def next_moment(self) -> DramaticMoment | None:
        """Show the next dramatic moment after the frame shown (by time), or the first one
        again after the last; None when the replay has none."""
        moments = self.index.moments
        if not moments:
            return None
        later = [m for m in moments if m.frame > self.frame]
        m = later[0] if later else moments[0]
        self.seek(m.frame)
        return m


class _KeptAssets(dict):
    """A game's ``assets`` dict that remembers bodies taken out of it.

    A creation broken by an explosion (BrikWars 8.4) leaves the game's assets when its
    pieces replace it, yet the replay draws it whole until that frame.
    """

    def __init__(self):
        super().__init__()
        self.gone: dict = {}

    def __delitem__(self, key):
        self.gone[key] = self[key]
        super().__delitem__(key)

    def pop(self, key, *default):
        if key in self:
            self.gone[key] = self[key]
        return super().pop(key, *default)

    def every(self) -> dict:
        """Every asset the game ever had (the latest one per key)."""
        return {**self.gone, **self}


def replay_assets(replay: Replay, base_dir: str | Path | None = None,
                  ldrawdir: str | Path | None = None) -> dict:
    """The meshes of every body of a replay, in their body frames, ready to draw.

    The replay's scene is loaded again (its models from ``meta.scene_dir``, else
    ``base_dir``) and the game is re-run from its seed and actions, because payloads and
    other bodies made mid-game only exist after their action. Costs one re-simulation.

    Returns
    -------
    dict of str to BodyAsset
        Keyed like the replay's tracks, bodies removed mid-game (a creation broken into
        pieces) included; each with ``local_vertices (n, 3)`` inches etc.

    Raises
    ------
    ReplayError
        When the scene cannot be rebuilt or its actions replayed: naming the replay's file
        (:attr:`Replay.source`) and the folder models were looked up in.
    """
    from ..core.brikpack import resolve_scene_dir
    from .game import Game
    from .scene import scene_from_dict

    # the scene's folder, or the .brikpack it was run from (unpacked again)
    base, _pack = resolve_scene_dir(replay.meta.get("scene_dir"), base_dir or ".")
    try:
        spec = scene_from_dict(replay.scene, "<replay scene>")
        game = Game(spec, base, ldrawdir=ldrawdir, seed=replay.seed,
                    forced_dice=replay.meta.get("forced_dice", True) is not False)
        kept = _KeptAssets()
        kept.update(game.assets)
        game.assets = kept
        try:
            game.rerun(replay.actions, replay.meta.get("finished"))
            return kept.every()
        finally:
            game.close()
    except SandboxError as exc:
        src = replay.source
        if isinstance(exc, ReplayError) and (src is None or src in str(exc)):
            raise
        if src is None:  # a replay made in memory (a game's): the scene's folder
            raise ReplayError(f"cannot rebuild the bodies of the replay of "
                              f"{replay.scene.get('name')!r} from {base}: {exc}") from exc
        raise ReplayError(f"{src}: cannot rebuild the bodies of the replay of "
                          f"{replay.scene.get('name')!r} (models from {base}): {exc}") from exc
