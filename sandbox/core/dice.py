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
import re
from collections import deque
from dataclasses import asdict, dataclass
from typing import Iterable, Mapping

from .errors import DiceError

#: Die sizes BrikWars uses.
STANDARD_DICE: tuple[int, ...] = (4, 6, 8, 10, 12, 20)

#: The largest seed a game takes, either sign: a signed 64-bit number without its one extra
#: negative value, the same for ``--seed``, ``--seeds``, scenes, saves, replays and the network
#: (a JSON reader elsewhere may hold no more).
MAX_SEED: int = 2**63 - 1

#: Most dice one expression (or a dice sum, all terms together) rolls, and the most sides a
#: die has: far beyond any rule (an XSize 40 Explosive rolls 40d10), and small enough that a
#: hostile ``"99999999d4"`` in a file is refused when read rather than rolled for minutes.
MAX_DICE: int = 1000
MAX_SIDES: int = 1000
#: Longest dice text parsed (``"1d12 Phased + 1d10 Exp"`` is 22 characters).
MAX_DICE_TEXT: int = 200


def _check_dice_text(text: object) -> str:
    if not isinstance(text, str):
        raise DiceError(f"a dice expression must be text, got {text!r}")
    if len(text) > MAX_DICE_TEXT:
        raise DiceError(f"a dice expression of {len(text)} characters is too long (at most "
                        f"{MAX_DICE_TEXT})")
    return text


def seed_refusal(seed: object) -> str:
    """Why ``seed`` is not a game seed ("" when it is): a whole number (not a bool) with
    ``-MAX_SEED <= seed <= MAX_SEED``; the reason shows at most 40 characters of it."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        return f"the seed must be a whole number, got {repr(seed)[:40]}"
    if abs(seed) > MAX_SEED:
        shown = str(seed) if seed.bit_length() <= 128 else f"a {seed.bit_length()}-bit number"
        return (f"the seed {shown} is out of range: seeds run from -{MAX_SEED} to {MAX_SEED} "
                "(2**63 - 1)")
    return ""


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
                    f"forced value {value} does not fit a d{sides} in stream {self.name!r} "
                    f"(forced_dice.{self.name} in the scene file)"
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

    def __init__(self, seed: int, forced: Mapping[str, Iterable[int]] | None = None):
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

    def streams(self) -> list[DiceStream]:
        """The streams made so far, in creation order."""
        return list(self._streams.values())

    def __repr__(self) -> str:
        return f"Dice(seed={self.seed}, streams={list(self._streams)})"


# --------------------------------------------------------------------------------------------
# Dice expressions: "3d10", "1d8+1", "2d4 Fire", "4 Action dice"
# --------------------------------------------------------------------------------------------

#: Damage kinds the rule book writes after a dice expression, keyed by lower-case spelling.
DAMAGE_KINDS: dict[str, str] = {
    "": "",
    "fire": "Fire",
    "exp": "Exp",
    "explosion": "Exp",
    "explosive": "Exp",
    "piercing": "Piercing",
    "armor piercing": "Piercing",
    "knockback": "KnockBack",
    "phased": "Phased",
    "acid": "Acid",
    "poison": "Poison",
}

_EXPR_RE = re.compile(
    r"""^\s*
    (?P<count>\d*)\s*d\s*(?P<sides>\d+)          # 3d10, d6
    \s*(?P<mod>[+-]\s*\d+)?                       # +1, - 4
    \s*(?:\(\s*(?P<kind1>[A-Za-z][A-Za-z ]*?)\s*\)|(?P<kind2>[A-Za-z][A-Za-z ]*?))?  # Fire, (Fire)
    \s*$""",
    re.VERBOSE,
)
_ACTION_RE = re.compile(
    r"^\s*(?P<count>\d+)\s*(?:action|skill)\s+di(?:c)?e\s*(?P<mod>[+-]\s*\d+)?\s*$", re.IGNORECASE
)
_CONST_RE = re.compile(r"^\s*(?P<mod>[+-]?\s*\d+)\s*$")


def _kind(text: str | None) -> str:
    key = (text or "").strip().lower()
    if key not in DAMAGE_KINDS:
        known = sorted(set(DAMAGE_KINDS.values()))
        raise DiceError(f"unknown damage kind {text!r} (known: {known})")
    return DAMAGE_KINDS[key]


@dataclass(frozen=True)
class DiceExpression:
    """A dice expression such as ``3d10``, ``1d8+1``, ``2d4 Fire`` or ``4 Action dice``.

    Attributes
    ----------
    count : int
        Number of dice (0 for a constant such as ``"2"``).
    sides : int or None
        Faces of each die; ``None`` means "the rolling unit's Action die" (BrikWars 8.1: a Melee
        Weapon does Weapon Size × Action dice of Damage), filled in by :meth:`with_action_die`.
    modifier : int
        Flat modifier added to the total.
    kind : str
        Damage kind: ``""`` (plain Damage), ``"Fire"`` (d4s, 8.3), ``"Exp"`` (d10s, 8.4), ...

    Examples
    --------
    >>> str(DiceExpression.parse("3d4(Fire)"))
    '3d4 Fire'
    >>> DiceExpression.parse("1d8+1").with_modifier(-5)
    DiceExpression(count=1, sides=8, modifier=-4, kind='')
    """

    count: int
    sides: int | None
    modifier: int = 0
    kind: str = ""

    def __post_init__(self) -> None:
        if int(self.count) != self.count or self.count < 0:
            raise DiceError(f"a dice expression needs a whole count >= 0, got {self.count!r}")
        if self.sides is not None and (int(self.sides) != self.sides or self.sides < 2):
            raise DiceError(f"a die needs at least 2 sides, got {self.sides!r}")
        if self.count > MAX_DICE or (self.sides or 0) > MAX_SIDES:
            raise DiceError(f"{self.count}d{self.sides} is too many dice (at most {MAX_DICE} "
                            f"dice of at most {MAX_SIDES} sides)")
        object.__setattr__(self, "kind", _kind(self.kind))

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> "DiceExpression":
        """Parse ``"NdS[+M][ Kind]"``, ``"N Action dice[+M]"`` or a constant ``"M"``.

        Raises
        ------
        DiceError
            If ``text`` is not a dice expression, or is beyond :data:`MAX_DICE` dice,
            :data:`MAX_SIDES` sides or :data:`MAX_DICE_TEXT` characters.
        """
        text = _check_dice_text(text)
        m = _EXPR_RE.match(text)
        if m:
            count = int(m["count"]) if m["count"] else 1
            mod = int(m["mod"].replace(" ", "")) if m["mod"] else 0
            return cls(count, int(m["sides"]), mod, _kind(m["kind1"] or m["kind2"]))
        m = _ACTION_RE.match(text)
        if m:
            mod = int(m["mod"].replace(" ", "")) if m["mod"] else 0
            return cls(int(m["count"]), None, mod)
        m = _CONST_RE.match(text)
        if m:
            return cls(0, None, int(m["mod"].replace(" ", "")))
        raise DiceError(f"not a dice expression: {text!r}")

    def with_modifier(self, delta: int) -> "DiceExpression":
        """The same dice with ``delta`` added to the flat modifier."""
        return DiceExpression(self.count, self.sides, self.modifier + int(delta), self.kind)

    def with_action_die(self, action_die: int) -> "DiceExpression":
        """Fill in ``sides`` for an Action-dice expression (no change when already set)."""
        if self.sides is not None or self.count == 0:
            return self
        return DiceExpression(self.count, int(action_die), self.modifier, self.kind)

    # -- facts -------------------------------------------------------------------------------
    @property
    def minimum(self) -> int:
        """Lowest total without bonus dice (never below 0: Damage is not negative)."""
        return max(0, self.count + self.modifier)

    @property
    def maximum(self) -> int:
        """Highest total without Over the Top bonus dice."""
        if self.count and self.sides is None:
            raise DiceError(f"{self} needs an Action die before it has a maximum")
        return max(0, self.count * (self.sides or 0) + self.modifier)

    def __str__(self) -> str:
        if self.count == 0:
            return str(self.modifier)
        die = "Action dice" if self.sides is None else f"d{self.sides}"
        core = f"{self.count} {die}" if self.sides is None else f"{self.count}{die}"
        if self.modifier:
            core += f"{self.modifier:+d}"
        return f"{core} {self.kind}" if self.kind else core

    # -- rolling -----------------------------------------------------------------------------
    def roll(
        self,
        stream: DiceStream,
        reason: str = "",
        *,
        per_die_modifier: int = 0,
        flat_modifier: int = 0,
        bonus_dice: int = 0,
        over_the_top: bool = True,
    ) -> "ExpressionRoll":
        """Roll the expression on ``stream``.

        Parameters
        ----------
        stream : DiceStream
            Where the dice come from (and are recorded).
        reason : str
            Why, for the log.
        per_die_modifier : int
            Added to every die, each die floored at 0 (BrikWars 5.1 Out of Range: "reduced to
            2, 0, 1, and 1 by the -1 Out of Range Penalty on each die", 8.3 Burnination).
        flat_modifier : int
            Added to the total after the dice (Target Size and cover in Arc Fire, BlastGun
            distance).
        bonus_dice : int
            Extra "Over the Top" dice earned elsewhere (a natural maximum on the Action Roll);
            each is its own group and takes ``per_die_modifier`` like the others.
        over_the_top : bool
            When True, a die showing its highest face earns a bonus die of the same type,
            chained (8.4: "the highest d10 in the roll (including any Bonus Dice it may have
            earned)").

        Raises
        ------
        DiceError
            If the expression still needs an Action die.
        """
        if self.count and self.sides is None:
            raise DiceError(f"{self} needs an Action die: call with_action_die() first")
        if bonus_dice < 0:
            raise DiceError(f"bonus_dice must be >= 0, got {bonus_dice}")
        groups: list[tuple[Roll, ...]] = []
        n_base = self.count
        for i in range(self.count + int(bonus_dice)):
            why = reason if i < n_base else f"{reason} (Over the Top bonus die)".strip()
            first = stream.roll(self.sides, why)
            group = [first]
            while over_the_top and group[-1].maximum:
                group.append(stream.roll(self.sides, f"{reason} (Over the Top bonus die)".strip()))
            groups.append(tuple(group))
        return ExpressionRoll(
            self, tuple(groups), n_base, int(per_die_modifier), int(flat_modifier)
        )


@dataclass(frozen=True)
class ExpressionRoll:
    """The record of one rolled :class:`DiceExpression`.

    Attributes
    ----------
    expression : DiceExpression
    groups : tuple of tuple of Roll
        One group per die: the die and the Over the Top bonus dice it earned, in order. The
        first ``n_base`` groups are the expression's own dice; the rest are bonus dice earned
        by the Action Roll.
    n_base : int
    per_die_modifier : int
    flat_modifier : int
    """

    expression: "DiceExpression | DiceSum"
    groups: tuple[tuple[Roll, ...], ...]
    n_base: int
    per_die_modifier: int = 0
    flat_modifier: int = 0
    #: Damage kind of each group (one per group) for a :class:`DiceSum`; empty: every group is
    #: of the expression's kind.
    kinds: tuple[str, ...] = ()

    @property
    def group_kinds(self) -> tuple[str, ...]:
        """The damage kind of each group ("Exp", "Phased", ...), one per group."""
        return self.kinds or (self.expression.kind,) * len(self.groups)

    @property
    def rolls(self) -> tuple[Roll, ...]:
        """Every die rolled, in order."""
        return tuple(r for g in self.groups for r in g)

    @property
    def naturals(self) -> tuple[int, ...]:
        return tuple(r.result for r in self.rolls)

    @property
    def values(self) -> tuple[int, ...]:
        """Each die after the per-die modifier, floored at 0."""
        return tuple(max(0, r.result + self.per_die_modifier) for r in self.rolls)

    @property
    def total(self) -> int:
        """Dice after per-die modifiers, plus flat modifiers; never below 0."""
        return max(0, sum(self.values) + self.expression.modifier + self.flat_modifier)

    @property
    def dice_count(self) -> int:
        """Number of dice in the roll, bonus dice included (8.4 KnockBack counts them)."""
        return len(self.rolls)

    @property
    def critical_failure(self) -> bool:
        """Every one of the expression's own dice shows a natural 1.

        BrikWars reading: a Damage Roll is a Critical Failure when all its dice come up 1
        (for a single die, a natural 1). A constant expression never fails.
        """
        base = [g[0] for g in self.groups[: self.n_base]]
        return bool(base) and all(r.result == 1 for r in base)

    def __str__(self) -> str:
        return f"{self.expression}: {list(self.naturals)} -> {self.total}"


def roll_expression(
    stream: DiceStream, expression: "DiceExpression | DiceSum | str", reason: str = "", **kwargs
) -> ExpressionRoll:
    """Parse (when given text) and roll a dice expression; see :meth:`DiceExpression.roll`.
    Text may be a mixed sum ("1d12 Phased + 1d10 Exp", :func:`parse_dice`)."""
    expr = (
        expression
        if isinstance(expression, (DiceExpression, DiceSum))
        else parse_dice(expression)
    )
    return expr.roll(stream, reason, **kwargs)


# --------------------------------------------------------------------------------------------
# Mixed dice: "1d12 Phased + 1d10 Exp" (BrikWars 8.4 Explosive Variants combine)
# --------------------------------------------------------------------------------------------

#: A "+" that starts another dice term ("+ 1d10", "+d6"), not a flat modifier ("+1").
_TERM_SPLIT = re.compile(r"\s*\+\s*(?=\d*\s*d\s*\d)")


@dataclass(frozen=True)
class DiceSum:
    """A sum of dice of different sizes or kinds, e.g. ``1d12 Phased + 1d10 Exp``.

    BrikWars 8.4: an Explosive swaps its d10s "for any combination of Alternate Damage Dice",
    so one Damage roll may hold d12s, d10s, d6s and d4s together, each die keeping its kind.

    Attributes
    ----------
    terms : tuple of DiceExpression
        At least two terms, each with its own die size (never Action dice) and kind, in the
        order written (the roll keeps that order; :func:`sandbox.rules.damage.explosion_rings`
        uses it to break ties).

    Examples
    --------
    >>> e = DiceSum.parse("1d12 Phased + 1d10 Exp")
    >>> str(e), e.count, e.kinds, e.maximum
    ('1d12 Phased + 1d10 Exp', 2, ('Phased', 'Exp'), 22)
    >>> r = e.roll(Dice(0, forced={"x": [7, 3]}).stream("x"))
    >>> r.total, r.group_kinds
    (10, ('Phased', 'Exp'))
    """

    terms: tuple[DiceExpression, ...]

    def __post_init__(self) -> None:
        terms = tuple(self.terms)
        if len(terms) < 2:
            raise DiceError(f"a dice sum needs at least two terms, got {len(terms)}")
        for t in terms:
            if not isinstance(t, DiceExpression) or t.count < 1 or t.sides is None:
                raise DiceError(f"each term of a dice sum must be dice such as '1d10', got {t!r}")
        if sum(t.count for t in terms) > MAX_DICE:
            raise DiceError(f"a dice sum of {sum(t.count for t in terms)} dice is too many (at "
                            f"most {MAX_DICE})")
        object.__setattr__(self, "terms", terms)

    @classmethod
    def parse(cls, text: str) -> "DiceSum":
        """Parse ``"NdS[ Kind] + NdS[ Kind] ..."`` (two terms or more).

        Raises
        ------
        DiceError
            If ``text`` is not a sum of at least two dice terms, or is beyond
            :data:`MAX_DICE` dice in all or :data:`MAX_DICE_TEXT` characters.
        """
        parts = _TERM_SPLIT.split(_check_dice_text(text).strip())
        return cls(tuple(DiceExpression.parse(p) for p in parts))

    @property
    def count(self) -> int:
        """Number of dice, all terms together."""
        return sum(t.count for t in self.terms)

    @property
    def modifier(self) -> int:
        """Flat modifiers of all terms together."""
        return sum(t.modifier for t in self.terms)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kind of each term, in order."""
        return tuple(t.kind for t in self.terms)

    @property
    def kind(self) -> str:
        """The common kind when every term has the same one, else ``""``."""
        return self.terms[0].kind if len(set(self.kinds)) == 1 else ""

    @property
    def minimum(self) -> int:
        return max(0, self.count + self.modifier)

    @property
    def maximum(self) -> int:
        return max(0, sum(t.count * t.sides for t in self.terms) + self.modifier)

    def __str__(self) -> str:
        return " + ".join(str(t) for t in self.terms)

    def roll(self, stream: DiceStream, reason: str = "", *, per_die_modifier: int = 0,
             flat_modifier: int = 0, bonus_dice: int = 0,
             over_the_top: bool = True) -> ExpressionRoll:
        """Roll every term on ``stream`` in order (see :meth:`DiceExpression.roll`).

        Over the Top dice a die earns are of its own size. ``bonus_dice`` earned by the Action
        Roll are of the first term's die and kind (reading: the Explosive's first-written die).
        The record's ``kinds`` give each group's kind.
        """
        if bonus_dice < 0:
            raise DiceError(f"bonus_dice must be >= 0, got {bonus_dice}")
        groups: list[tuple[Roll, ...]] = []
        kinds: list[str] = []
        bonus: list[tuple[Roll, ...]] = []
        for i, t in enumerate(self.terms):
            r = t.with_modifier(-t.modifier).roll(
                stream, reason, bonus_dice=int(bonus_dice) if i == 0 else 0,
                over_the_top=over_the_top)
            base, extra = r.groups[: t.count], r.groups[t.count:]
            groups.extend(base)
            kinds.extend([t.kind] * len(base))
            bonus.extend(extra)
        n_base = len(groups)
        groups.extend(bonus)
        kinds.extend([self.terms[0].kind] * len(bonus))
        return ExpressionRoll(self, tuple(groups), n_base, int(per_die_modifier),
                              int(flat_modifier), tuple(kinds))


def parse_dice(text: str) -> "DiceExpression | DiceSum":
    """A dice expression, or a :class:`DiceSum` when the text adds dice terms together.

    Raises
    ------
    DiceError
        If ``text`` is neither.

    Examples
    --------
    >>> str(parse_dice("3d10 Exp")), str(parse_dice("1d12 Phased + 1d10 Exp"))
    ('3d10 Exp', '1d12 Phased + 1d10 Exp')
    >>> parse_dice("1d8+1")
    DiceExpression(count=1, sides=8, modifier=1, kind='')
    """
    if not isinstance(text, str):
        raise DiceError(f"a dice expression must be text, got {text!r}")
    parts = _TERM_SPLIT.split(text.strip())
    if len(parts) == 1:
        return DiceExpression.parse(text)
    return DiceSum(tuple(DiceExpression.parse(p) for p in parts))
