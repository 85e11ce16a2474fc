"""Seeded, named dice streams; every roll is a logged record.

Determinism (DESIGN.md): dice never come from the global ``random``. A :class:`Dice` holds one
seed and hands out named :class:`DiceStream` objects ("attack", "collision", "drop"...); each
stream is a ``random.Random`` seeded from ``"<seed>:<name>"`` (string seeding is stable across
processes and Python builds), so adding a new stream never shifts the rolls of another.

Forcing dice: tests and re-enactments of the rule book's worked examples queue the values to
come next with :meth:`DiceStream.force` (or ``Dice(seed, forced={"name": [..]})``). A forced
value is still recorded, with ``forced=True``.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import asdict, dataclass
from typing import Iterable

from .errors import DiceError

#: Die sizes BrikWars uses.
STANDARD_DICE: tuple[int, ...] = (4, 6, 8, 10, 12, 20)


@dataclass(frozen=True)
class Roll:
    """One die rolled.

    Attributes
    ----------
    stream : str
        Name of the stream it came from.
    sides : int
        The die (6 for a d6).
    result : int
        The natural result, 1..sides.
    reason : str
        Why it was rolled, in words a player reads ("Collision Damage to tower").
    forced : bool
        True when the value was queued by :meth:`DiceStream.force`.
    index : int
        Position of this roll in its stream (0-based).
    """

    stream: str
    sides: int
    result: int
    reason: str = ""
    forced: bool = False
    index: int = 0

    @property
    def critical_failure(self) -> bool:
        """A natural 1 (BrikWars: Critical Failure)."""
        return self.result == 1

    @property
    def maximum(self) -> bool:
        """The die's highest face (BrikWars: earns an Over the Top bonus die)."""
        return self.result == self.sides

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        tag = " (forced)" if self.forced else ""
        return f"d{self.sides}={self.result}{tag}"


class DiceStream:
    """A named, seeded source of die rolls with a record of every roll.

    Parameters
    ----------
    name : str
        Stream name, shown in every record.
    seed : int
        Game seed; the stream is seeded with ``f"{seed}:{name}"``.
    forced : iterable of int, optional
        Values to hand out before any random ones.
    """

    def __init__(self, name: str, seed: int, forced: Iterable[int] | None = None):
        self.name = name
        self.seed = int(seed)
        self._rng = random.Random(f"{self.seed}:{name}")
        self._forced: deque[int] = deque(int(v) for v in (forced or ()))
        self.records: list[Roll] = []

    def force(self, *values: int) -> None:
        """Queue values that the next rolls return, in order (for tests and worked examples)."""
        self._forced.extend(int(v) for v in values)

    @property
    def pending_forced(self) -> tuple[int, ...]:
        """Forced values not used yet."""
        return tuple(self._forced)

    def roll(self, sides: int, reason: str = "") -> Roll:
        """Roll one die.

        Parameters
        ----------
        sides : int
            Number of faces, at least 2.
        reason : str
            Why, for the log.

        Raises
        ------
        DiceError
            If ``sides`` < 2, or a forced value does not fit the die.
        """
        if int(sides) != sides or sides < 2:
            raise DiceError(f"a die needs at least 2 sides, got {sides!r}")
        sides = int(sides)
        if self._forced:
            value = self._forced.popleft()
            if not 1 <= value <= sides:
                raise DiceError(
                    f"forced value {value} does not fit a d{sides} in stream {self.name!r}"
                )
            forced = True
        else:
            value = self._rng.randint(1, sides)
            forced = False
        rec = Roll(self.name, sides, value, reason, forced, len(self.records))
        self.records.append(rec)
        return rec

    def roll_many(self, count: int, sides: int, reason: str = "") -> list[Roll]:
        """Roll ``count`` dice of ``sides`` faces (``count`` >= 0)."""
        if count < 0:
            raise DiceError(f"cannot roll a negative number of dice ({count})")
        return [self.roll(sides, reason) for _ in range(int(count))]

    def __repr__(self) -> str:
        return f"DiceStream({self.name!r}, seed={self.seed}, rolled={len(self.records)})"


class Dice:
    """All the dice of one game: a seed and its named streams.

    Parameters
    ----------
    seed : int
        The game's seed (from the scene file or the command line).
    forced : mapping of str to iterable of int, optional
        Values to force per stream name.

    Examples
    --------
    >>> d = Dice(7, forced={"collision": [4]})
    >>> d.stream("collision").roll(6, "Collision Damage").result
    4
    """

    def __init__(self, seed: int, forced: dict[str, Iterable[int]] | None = None):
        self.seed = int(seed)
        self._streams: dict[str, DiceStream] = {}
        for name, values in (forced or {}).items():
            self.stream(name).force(*values)

    def stream(self, name: str) -> DiceStream:
        """The stream called ``name``, created on first use."""
        s = self._streams.get(name)
        if s is None:
            s = self._streams[name] = DiceStream(name, self.seed)
        return s

    def records(self) -> list[Roll]:
        """Every roll of every stream, grouped by stream name in creation order."""
        return [r for s in self._streams.values() for r in s.records]

    def __repr__(self) -> str:
        return f"Dice(seed={self.seed}, streams={list(self._streams)})"
