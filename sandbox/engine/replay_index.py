"""The index of a replay: which frame each event, turn and dramatic moment belongs to.

A replay stores events with their simulated time and poses per recorded frame; frames are
taken every few physics steps plus one when an action starts, so they are not evenly spaced.
:class:`ReplayIndex` ties the two together (pure numpy, no physics, no window) for the replay
viewer and the exporter:

- the frame of every event (the first frame at or after it; of several frames at the same
  time, the last, which already shows what the action put on the table);
- the first frame of every turn;
- the **dramatic moments**: the biggest explosions, the most Damage, units destroyed and the
  longest flights, ranked so a player can jump to them or export just them.

Units: seconds, inches, frames (indices into the replay's recorded frames).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.errors import ReplayError
from .replay import Replay

#: Moment kinds, most dramatic first (the ranking order across kinds).
MOMENT_KINDS: tuple[str, ...] = ("explosion", "destroyed", "damage", "flight")
#: A clip of a moment starts this long before it and ends this long after, seconds.
MOMENT_LEAD_S: float = 0.4
MOMENT_TAIL_S: float = 1.0
#: A run of motion counts as a flight only from this distance on, inches.
MIN_FLIGHT_IN: float = 1.0
#: Moments kept per kind (the biggest ones).
MOMENTS_PER_KIND: int = 5
#: A body counts as moving when it travels this far within the window, inches.
MOVING_MIN_IN: float = 0.01
#: Event times are logged rounded to microseconds; frames are at least a physics step apart.
_EPS = 2e-6


@dataclass(frozen=True)
class DramaticMoment:
    """One highlight of a replay.

    Attributes
    ----------
    kind : str
        One of :data:`MOMENT_KINDS`.
    frame : int
        The frame to jump to.
    start_frame, end_frame : int
        The clip to export, ``[start_frame, end_frame]`` inclusive.
    time : float
        Seconds of ``frame``.
    turn : int
    score : float
        Size within its kind: Damage points (explosion: the sum of its rings; damage: the
        Damage dealt; destroyed: the Damage that did it), or inches flown (flight).
    text : str
        What happened, in words.
    bodies : tuple of str
        Keys of the bodies involved.
    event : int or None
        Index of the event in the replay's log (None for flights, which come from poses).
    """

    kind: str
    frame: int
    start_frame: int
    end_frame: int
    time: float
    turn: int
    score: float
    text: str
    bodies: tuple[str, ...] = ()
    event: int | None = None

    def to_dict(self) -> dict:
        """Plain dict (for JSON and the CLI)."""
        return {"kind": self.kind, "frame": self.frame, "start_frame": self.start_frame,
                "end_frame": self.end_frame, "time": self.time, "turn": self.turn,
                "score": self.score, "text": self.text, "bodies": list(self.bodies),
                "event": self.event}


class ReplayIndex:
    """Frames of events, turns and dramatic moments of one replay (read only).

    Parameters
    ----------
    replay : Replay
        A loaded or freshly recorded replay.
    per_kind : int
        Dramatic moments kept per kind.

    Raises
    ------
    ReplayError
        When the replay has no frames.
    """

    def __init__(self, replay: Replay, per_kind: int = MOMENTS_PER_KIND):
        if replay.frames <= 0:
            raise ReplayError(f"replay of {replay.scene.get('name')!r} has no frames")
        self.replay = replay
        #: Seconds of every frame, (frames,).
        self.times = replay.times()
        #: Frame of every event, (events,) int.
        self.event_frames = np.array([self.frame_at(float(e.get("time", 0.0)))
                                      for e in replay.events], dtype=np.int64)
        self.turn_frames: dict[int, int] = {}
        for i, e in enumerate(replay.events):
            t = int(e.get("turn", 0))
            if t not in self.turn_frames:
                self.turn_frames[t] = int(self.event_frames[i])
        #: Names of the bodies by key (see :meth:`body_name`).
        self.names: dict[str, str] = _body_names(replay)
        self.moments: list[DramaticMoment] = self._moments(int(per_kind))

    def body_name(self, key: str) -> str:
        """What to call a body in text: its scene or log name; a piece of a broken creation
        as ``"blast wall (piece 2)"``, a destroyed part thrown off it as ``"blast wall (part
        89)"`` (keys ``wall#2``, ``wall~89``, BrikWars 8.4); the key itself when unknown."""
        if key in self.names:
            return self.names[key]
        for mark, what in (("#", "piece"), ("~", "part")):
            root, sep, number = key.rpartition(mark)
            if sep and root and number.isdigit():
                return f"{self.body_name(root)} ({what} {number})"
        return key

    # ------------------------------------------------------------------ frames and times
    @property
    def frames(self) -> int:
        return self.replay.frames

    def frame_at(self, time: float) -> int:
        """The frame that shows simulated second ``time``: the first frame at or after it (of
        several frames at that same time, the last); the last frame for later times."""
        times = self.times
        i = int(np.searchsorted(times, time - _EPS, side="left"))
        if i >= len(times):
            return len(times) - 1
        while i + 1 < len(times) and times[i + 1] <= times[i] + _EPS:
            i += 1
        return i

    def frame_playing_at(self, time: float) -> int:
        """The frame on screen at ``time`` while playing: the last frame at or before it."""
        i = int(np.searchsorted(self.times, time + _EPS, side="right")) - 1
        return min(max(i, 0), self.frames - 1)

    def time_of(self, frame: int) -> float:
        """Seconds of ``frame`` (clamped to the replay)."""
        return float(self.times[min(max(int(frame), 0), self.frames - 1)])

    def turns(self) -> list[int]:
        """Turn numbers in the log, in order (0 is the set-up)."""
        return sorted(self.turn_frames)

    def turn_range(self, turn: int) -> tuple[int, int]:
        """``[first, last]`` frames of a turn.

        Raises
        ------
        ReplayError
            When the log has no such turn (naming the turns it has).
        """
        if turn not in self.turn_frames:
            raise ReplayError(f"turn {turn!r} is not in the replay (it has turns "
                              f"{', '.join(map(str, self.turns()))})")
        later = [f for t, f in self.turn_frames.items() if t > turn]
        end = min(later) if later else self.frames - 1
        return self.turn_frames[turn], max(self.turn_frames[turn], end)

    def time_range(self, start: float | None, end: float | None) -> tuple[int, int]:
        """``[first, last]`` frames between two simulated times (None: the replay's ends).

        Raises
        ------
        ReplayError
            When ``start`` is after ``end`` or either is not a finite number.
        """
        for name, v in (("from", start), ("to", end)):
            if v is not None and not math.isfinite(v):
                raise ReplayError(f"--{name} {v!r} is not a time in seconds")
        if start is not None and end is not None and start > end:
            raise ReplayError(f"--from {start:g} s is after --to {end:g} s")
        lo = 0 if start is None else self.frame_at(start)
        hi = self.frames - 1 if end is None else self.frame_playing_at(end)
        return lo, max(lo, hi)

    def events_until(self, frame: int) -> list[dict]:
        """Events that have happened by ``frame`` (in log order)."""
        n = int(np.searchsorted(self.event_frames, frame, side="right")) \
            if _sorted(self.event_frames) else None
        if n is not None:
            return self.replay.events[:n]
        return [e for e, f in zip(self.replay.events, self.event_frames, strict=True) if f <= frame]

    def turn_at(self, frame: int) -> int:
        """The turn being played at ``frame`` (0 before the first turn)."""
        turn = 0
        for t, f in self.turn_frames.items():
            if f <= frame:
                turn = max(turn, t)
        return turn

    def destroyed_at(self, frame: int) -> set[str]:
        """Keys of bodies destroyed by ``frame``."""
        return {e["body"] for e in self.events_until(frame)
                if e.get("type") in ("destroyed", "explosion") and "body" in e}

    def moving_at(self, frame: int, window: int = 0) -> list[str]:
        """Bodies on the table at ``frame`` that travel at least :data:`MOVING_MIN_IN` inches
        between ``frame - window - 1`` and ``frame + window`` (frames)."""
        out = []
        for key, tr in self.replay.tracks.items():
            if not tr.frames or not tr.exists_at(frame):
                continue
            fr = np.asarray(tr.frames)
            lo = int(np.searchsorted(fr, frame - window - 1, side="right")) - 1
            hi = int(np.searchsorted(fr, frame + window, side="right"))
            pos = np.asarray(tr.positions[max(lo, 0):hi], dtype=float)
            if len(pos) > 1 and np.linalg.norm(np.diff(pos, axis=0), axis=1).sum() >= MOVING_MIN_IN:
                out.append(key)
        return out

    # ------------------------------------------------------------------ moments
    def moment(self, number: int) -> DramaticMoment:
        """The ``number``-th biggest moment (1-based, as listed by :meth:`ranked`).

        Raises
        ------
        ReplayError
            When there is no such moment.
        """
        ranked = self.ranked()
        if not 1 <= int(number) <= len(ranked):
            raise ReplayError(f"moment {number!r} is not in the replay (it has "
                              f"{len(ranked)} dramatic moment(s))")
        return ranked[int(number) - 1]

    def ranked(self) -> list[DramaticMoment]:
        """Moments, biggest first: by kind (:data:`MOMENT_KINDS` order), then by score."""
        return sorted(self.moments, key=lambda m: (MOMENT_KINDS.index(m.kind), -m.score, m.frame))

    def _clip(self, first: int, last: int) -> tuple[int, int]:
        """A moment's clip: a little before (not before its turn began) to a while after."""
        lo = max(self.frame_at(self.time_of(first) - MOMENT_LEAD_S),
                 self.turn_frames.get(self.turn_at(first), 0))
        hi = self.frame_playing_at(self.time_of(last) + MOMENT_TAIL_S)
        return lo, max(hi, last)

    def _moments(self, per_kind: int) -> list[DramaticMoment]:
        events = self.replay.events
        found: dict[str, list[DramaticMoment]] = {k: [] for k in MOMENT_KINDS}
        last_damage: dict[str, int] = {}
        for i, e in enumerate(events):
            kind = e.get("type")
            f = int(self.event_frames[i])
            lo, hi = self._clip(f, f)
            at, turn, text = self.time_of(f), int(e.get("turn", 0)), str(e.get("text", kind))
            body = e.get("body", "")
            if kind == "explosion":
                score = float(sum(e.get("rings", []) or [0]))
            elif kind == "damage":
                score = float(e.get("damage", 0))
                last_damage[body] = int(score)
            elif kind == "destroyed":
                score = float(last_damage.get(body, 0))
            else:
                continue
            found[kind].append(DramaticMoment(
                kind, frame=f, start_frame=lo, end_frame=hi, time=at, turn=turn, score=score,
                text=text, bodies=(body,), event=i))
        found["flight"] = self._flights()
        out = []
        for kind in MOMENT_KINDS:
            out += sorted(found[kind], key=lambda m: (-m.score, m.frame))[:per_kind]
        return sorted(out, key=lambda m: (m.frame, MOMENT_KINDS.index(m.kind)))

    def _flights(self) -> list[DramaticMoment]:
        """Runs of consecutive moving frames of a body, longer than :data:`MIN_FLIGHT_IN`."""
        out = []
        for key, tr in self.replay.tracks.items():
            if len(tr.frames) < 2:
                continue
            fr = np.asarray(tr.frames)
            pos = np.asarray(tr.positions, dtype=float)
            breaks = np.nonzero(np.diff(fr) > 1)[0]
            starts = np.concatenate([[0], breaks + 1])
            ends = np.concatenate([breaks, [len(fr) - 1]])
            for a, b in zip(starts, ends, strict=True):
                # the run starts from the last pose before it (the body's resting place)
                a0 = a - 1 if a > 0 else a
                if b <= a0:
                    continue
                path = float(np.linalg.norm(np.diff(pos[a0:b + 1], axis=0), axis=1).sum())
                if path < MIN_FLIGHT_IN:
                    continue
                first, last = int(fr[a]), int(fr[b])
                lo, hi = self._clip(first, last)
                drop = float(pos[a0, 2] - pos[a0:b + 1, 2].min())
                out.append(DramaticMoment(
                    "flight", frame=first, start_frame=lo, end_frame=hi,
                    time=self.time_of(first), turn=self.turn_at(first), score=round(path, 4),
                    text=f"{self.body_name(key)} flies {path:.1f}\" in "
                         f"{self.time_of(last) - self.time_of(first):.2f} s"
                         f" (drops {drop:.1f}\")", bodies=(key,)))
        return out


def wreck_of(key: str) -> str:
    """The body a key was broken from: ``"wall"`` for ``"wall#2"`` (a piece of a broken
    creation), ``"wall~89"`` (a destroyed part thrown off it) and ``"wall"`` itself; pieces
    of pieces go back to the first body (BrikWars 8.4)."""
    key = str(key)
    while True:
        cut = max(key.rfind("#"), key.rfind("~"))
        if cut <= 0 or not key[cut + 1:].isdigit():
            return key
        key = key[:cut]


def is_wreck_impact(event: dict) -> bool:
    """Whether ``event`` is an ``impact`` between two parts of one wreck: two bodies broken
    from the same creation, or a body and its own pieces (rubble settling, not a hit worth
    reading in a log)."""
    if event.get("type") != "impact":
        return False
    a, b = event.get("body_a"), event.get("body_b")
    if not a or not b:
        return False
    return wreck_of(a) == wreck_of(b)


def bodies_present(keys, poses) -> list[str]:
    """Of ``keys`` (a dramatic moment's bodies), those on the table in ``poses``; a creation
    broken up since stands for its pieces there (``key#n``)."""
    out: list[str] = []
    for key in keys:
        if key in poses:
            found = [key]
        else:
            found = [k for k in poses if "#" in k and wreck_of(k) == key]
        out += [k for k in found if k not in out]
    return out


def _body_names(replay: Replay) -> dict[str, str]:
    """``{key: name}`` from the replay's scene (creations, units, reserves) and its ``body``
    events (bodies added mid-game, such as Big Drop payloads)."""
    names: dict[str, str] = {}
    for e in replay.events:
        key, kind, text = e.get("body"), e.get("kind"), str(e.get("text", ""))
        if e.get("type") == "body" and key and kind and f" ({kind}):" in text:
            names[str(key)] = text.split(f" ({kind}):", 1)[0]
    for group in ("creations", "units", "reserves"):
        for entry in replay.scene.get(group, []) or []:
            if isinstance(entry, dict) and entry.get("id"):
                names[str(entry["id"])] = str(entry.get("name") or entry["id"])
    return names


def _sorted(a: np.ndarray) -> bool:
    return bool(len(a) < 2 or np.all(np.diff(a) >= 0))
