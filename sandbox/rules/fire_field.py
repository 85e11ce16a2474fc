"""Fires on objects larger than a minifig, as Field Hazards (BrikWars F.1 Fire; 8.3).

Minifigs follow the simpler rules of :mod:`sandbox.rules.fire` (8.3 Catching On Fire); when
:func:`sandbox.rules.fire.fire_outcome` answers ``HAZARD_CHECK`` the rules here take over.

Everything here is pure: the game layer passes in the dice stream, the object's Weight class
and Size, and (for spreading) whether a flammable neighbour lies within 1"; it gets back what
happened. Fire Sizes are whole inches; an object's Size is in inches.

Readings of the rules chosen here (the text is silent or its die symbols were lost):

- "1 Fire Damage", "1 Fire" and "+1 Fire Damage" name one Fire die, a d4 (8.3: "Damage
  Ratings in d4s"): a burning object's Fire Hazard is a Wild Fire of 1d4 Fire (F.1 table),
  and a burning object adds one d4 of Fire Damage to whatever it strikes.
- Catching Fire counts each Fire die *after* its per-die modifiers (Out of Range, 8.3:
  "Out of Range penalties affect a Fire Damage weapon's ability to set targets on fire"); a
  die must roll strictly higher than the Weight class. Growth stops at the object's Size.
- A Burning Roll's dice are applied together: the dice that die down come off first, then the
  dice that spread add inches while there is room, and only the inches that find no room
  start 1" Fires on nearby flammable objects (one new Fire per such die). This gives the Von
  Bragstein example's sizes turn by turn (1" → 2" → 2" → 4").
- The oldest inch of a Fire burns out first ("letting the ruined boiler go out").
- Grinding Damage (7.2) is one point per spreading die, also when the Fire has no room and no
  neighbour to spread to (the Fire still "spreads" over the object).
- Acid "can only die down, never growing": its high dice deal Grinding Damage only. Ion never
  grows and does no permanent damage: its high dice do nothing but keep it alive. Poison
  grows inside its victim but never starts Fires on neighbours (it spreads only through
  attacks that break the skin).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Sequence

from ..core.dice import DiceExpression, DiceStream, ExpressionRoll, Roll
from ..core.errors import RulesError
from .attacks import Modifier
from .fire import FIRE_DIE

#: Burning objects are Wild Fire Hazards of one Fire die (F.1 Wild Fire Hazards table).
WILD_FIRE_DICE: int = 1
#: A new Fire starts with this many inches (F.1 Catching Fire).
NEW_FIRE_SIZE_IN: int = 1
#: Fire spreads to flammable objects within this distance, inches (F.1 Burning).
SPREAD_DISTANCE_IN: float = 1.0
#: Penalty to Action and Armor Rolls while on Fire (F.1 Catching Fire).
ON_FIRE_PENALTY: int = -1


class FireType(enum.Enum):
    """Fire and its corrosive variants (F.1 Alternate Fire Types)."""

    FIRE = "Fire"
    ACID = "Acid"
    ION = "Ion"
    POISON = "Poison"

    @property
    def grows(self) -> bool:
        """Whether spreading dice add inches to the Fire (Acid and Ion never grow)."""
        return self in (FireType.FIRE, FireType.POISON)

    @property
    def grinds(self) -> bool:
        """Whether spreading dice deal Grinding Damage (Ion does no permanent damage)."""
        return self is not FireType.ION

    @property
    def spreads_to_neighbours(self) -> bool:
        """Whether a Fire with no room left starts Fires on nearby objects (only Fire)."""
        return self is FireType.FIRE


class PermanentFire(enum.Enum):
    """Permanent Fire Hazards and their Fire Hazard dice (F.1 table)."""

    REGULAR = 1  #: campfires, signal pyres
    FUEL = 2  #: furnaces, napalm, burning oil
    MOLTEN = 3  #: lava, smelters, molten metal
    ATOMIC = 4  #: nuclear plasma, Nega-matter reactors

    @property
    def dice(self) -> DiceExpression:
        """The Hazard's Exposure Damage: ``N d4 Fire``.

        Examples
        --------
        >>> str(PermanentFire.MOLTEN.dice)
        '3d4 Fire'
        """
        return DiceExpression(self.value, FIRE_DIE, 0, "Fire")


def max_fire_size_in(object_size_in: float) -> int:
    """Largest Fire an object can carry: its Size in whole inches, at least 1 (F.1).

    Raises
    ------
    RulesError
        For a negative Size.

    Examples
    --------
    >>> max_fire_size_in(4), max_fire_size_in(2.5), max_fire_size_in(0.5)
    (4, 2, 1)
    """
    if object_size_in < 0 or not math.isfinite(object_size_in):
        raise RulesError(f"an object's Size must be >= 0 inches, got {object_size_in!r}")
    return max(1, int(math.floor(object_size_in + 1e-9)))


def catching_dice(values: Sequence[int], weight_class: int) -> int:
    """How many Fire dice set the object (more) on Fire: those rolling above its Weight class.

    Parameters
    ----------
    values : sequence of int
        Each Fire die after its per-die modifiers (Out of Range), floored at 0.
    weight_class : int
        The object's Weight class (>= 0).

    Raises
    ------
    RulesError
        For a negative Weight class.

    Examples
    --------
    >>> catching_dice([3], 2), catching_dice([2, 0, 1, 1], 1)   # boiler-mech; peasant 3
    (1, 1)
    """
    if weight_class < 0:
        raise RulesError(f"Weight class must be >= 0, got {weight_class}")
    return sum(1 for v in values if v > weight_class)


@dataclass
class ObjectFire:
    """The Fire Field Hazard burning on one object (mutable; F.1 Catching Fire, Burning).

    Attributes
    ----------
    target : str
        The burning object's name.
    object_size_in : float
        The object's Size, inches; the Fire grows up to it.
    weight_class : int
        The object's Weight class: Burning dice above it spread, the rest die down.
    size_in : int
        Inches of Fire (>= 0; 0 means extinguished).
    fire_type : FireType
    controller : str or None
        Player who makes the Burning Roll: the owner, or whoever set an unaligned object
        alight.
    grinding_damage : int
        Points of Grinding Damage this Fire has dealt so far.
    history : list of int
        Fire Size after each change, for the log.
    """

    target: str
    object_size_in: float
    weight_class: int
    size_in: int = NEW_FIRE_SIZE_IN
    fire_type: FireType = FireType.FIRE
    controller: str | None = None
    grinding_damage: int = 0
    history: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.fire_type = FireType(self.fire_type)
        if self.weight_class < 0:
            raise RulesError(f"{self.target}: Weight class must be >= 0, got {self.weight_class}")
        if int(self.size_in) != self.size_in or self.size_in < 0:
            raise RulesError(f"{self.target}: Fire Size must be whole inches >= 0, got "
                             f"{self.size_in}")
        if self.size_in > self.max_size_in:
            raise RulesError(f"{self.target}: a {self.size_in}\" Fire does not fit an object of "
                             f"Size {self.object_size_in}\"")
        if not self.history:
            self.history.append(int(self.size_in))

    @property
    def max_size_in(self) -> int:
        """The object's Size in whole inches (the Fire cannot grow beyond it)."""
        return max_fire_size_in(self.object_size_in)

    @property
    def burning(self) -> bool:
        return self.size_in > 0

    @property
    def engulfed(self) -> bool:
        """The Fire covers the whole object (the Von Bragstein mech on turn four)."""
        return self.size_in >= self.max_size_in

    @property
    def hazard_dice(self) -> DiceExpression:
        """The Fire's Exposure Damage on what it engulfs: a Wild Fire, ``1d4`` of its type."""
        kind = "Fire" if self.fire_type is FireType.FIRE else self.fire_type.value
        kind = kind if kind != "Ion" else ""
        return DiceExpression(min(WILD_FIRE_DICE, self.size_in), FIRE_DIE, 0, kind)

    def power_limit_in(self, power_limit_in: float) -> float:
        """Power limit while burning: reduced by an inch per inch of Fire, never below 0 (F.1).

        Examples
        --------
        >>> ObjectFire("golem", 4, 1, size_in=3).power_limit_in(8)   # the wooden golem
        5.0
        """
        return float(max(0.0, power_limit_in - self.size_in))

    def _set(self, size: int) -> None:
        self.size_in = int(size)
        self.history.append(self.size_in)

    def put_out(self) -> None:
        """The Fire is gone with its object (destroyed, off the table): size 0, recorded."""
        self.size_in = 0
        self.history.append(0)


def on_fire_modifiers(designed_to_burn: bool = False) -> tuple[Modifier, Modifier] | None:
    """The -1 Action and -1 Armor penalties of an object or unit on Fire (F.1 Catching Fire).

    Returns ``(action, armor)`` modifiers (the Armor one carries its -1 in ``action`` too, to
    be added to the Armor Roll), or None for things designed to be used while burning (a torch,
    a flaming sword). Minifigs use :func:`sandbox.rules.fire.burning_penalty` instead (-1d4).
    """
    if designed_to_burn:
        return None
    return (Modifier("on Fire", ON_FIRE_PENALTY), Modifier("on Fire (Armor)", ON_FIRE_PENALTY))


def burning_strike_bonus() -> DiceExpression:
    """Extra Damage a burning object or unit deals to what it strikes: ``1d4 Fire`` (F.1).

    Reading: "+1 Fire Damage" is one extra Fire die (see the module notes); it can set the
    struck target on Fire like any Fire Damage.
    """
    return DiceExpression(1, FIRE_DIE, 0, "Fire")


@dataclass(frozen=True)
class CatchResult:
    """What one roll of Fire Damage did to an object's Fire (F.1 Catching Fire).

    Attributes
    ----------
    values : tuple of int
        The Fire dice after per-die modifiers.
    catching : int
        Dice that rolled above the Weight class.
    started : bool
        A new 1" Fire was created.
    grown_in : int
        Inches the Fire grew (an existing Fire, or a new one by its later dice).
    size_before, size_after : int
        Fire Size, inches (0: not burning).
    """

    values: tuple[int, ...]
    catching: int
    started: bool
    grown_in: int
    size_before: int
    size_after: int


def catch_fire(
    fire: ObjectFire | None,
    values: Sequence[int],
    *,
    target: str,
    object_size_in: float,
    weight_class: int,
    fire_type: FireType = FireType.FIRE,
    controller: str | None = None,
) -> tuple[ObjectFire | None, CatchResult]:
    """Apply the Fire dice of one Damage roll to an object (BrikWars F.1 Catching Fire).

    Each die above the Weight class either starts a 1" Fire (the first, when the object was
    not burning) or grows the Fire by 1", up to the object's Size.

    Parameters
    ----------
    fire : ObjectFire or None
        The object's current Fire (changed in place), or None.
    values : sequence of int
        Fire dice after per-die modifiers (``ExpressionRoll.values``).
    target, object_size_in, weight_class, fire_type, controller :
        Used when a new Fire starts (see :class:`ObjectFire`).

    Returns
    -------
    fire : ObjectFire or None
        The Fire now burning (a new object when one started), or None.
    result : CatchResult

    Raises
    ------
    RulesError
        For a negative Weight class or Size.

    Examples
    --------
    >>> f, r = catch_fire(None, [3], target="boiler-mech", object_size_in=4, weight_class=2)
    >>> f.size_in, r.started
    (1, True)
    """
    vals = tuple(int(v) for v in values)
    n = catching_dice(vals, weight_class)
    before = fire.size_in if fire is not None and fire.burning else 0
    started = False
    grown = 0
    if n and (fire is None or not fire.burning):
        fire = ObjectFire(target, object_size_in, weight_class, NEW_FIRE_SIZE_IN,
                          FireType(fire_type), controller)
        started = True
        n -= 1
    if fire is not None and n:
        room = fire.max_size_in - fire.size_in
        grown = min(n, max(0, room))
        if grown:
            fire._set(fire.size_in + grown)
    after = fire.size_in if fire is not None else 0
    return fire, CatchResult(vals, catching_dice(vals, weight_class), started, grown, before,
                             after)


def catch_fire_from_roll(fire: ObjectFire | None, roll: ExpressionRoll, **kwargs
                         ) -> tuple[ObjectFire | None, CatchResult]:
    """:func:`catch_fire` with the dice of a rolled Fire (or Acid/Poison) Damage expression.

    Raises
    ------
    RulesError
        If ``roll`` is not Fire-type Damage.
    """
    kind = roll.expression.kind
    if kind not in ("Fire", "Acid", "Poison"):
        raise RulesError(f"{roll.expression} is not Fire Damage (F.1)")
    kwargs.setdefault("fire_type", FireType(kind))
    return catch_fire(fire, roll.values, **kwargs)


@dataclass(frozen=True)
class BurningResult:
    """One Burning Roll of an object's Fire (BrikWars F.1 Burning).

    Attributes
    ----------
    rolls : tuple of Roll
        One d4 per inch of Fire.
    died_down : int
        Dice that rolled a 1 or the Weight class or lower.
    spreading : int
        Dice that rolled above the Weight class.
    grinding_damage : int
        Points of Grinding Damage dealt to the object now (7.2).
    grown_in : int
        Inches added to this Fire.
    new_fires : int
        1" Fires to start on nearby flammable objects (within 1"); the caller finds them.
    size_before, size_after : int
    """

    rolls: tuple[Roll, ...]
    died_down: int
    spreading: int
    grinding_damage: int
    grown_in: int
    new_fires: int
    size_before: int
    size_after: int

    @property
    def extinguished(self) -> bool:
        return self.size_after == 0

    @property
    def naturals(self) -> tuple[int, ...]:
        return tuple(r.result for r in self.rolls)


def burning_roll(stream: DiceStream, fire: ObjectFire, *, neighbours: int | None = None
                 ) -> BurningResult:
    """Make the Burning Roll of an object's Fire and apply it (BrikWars F.1 Burning).

    One d4 per inch of Fire. A 1, or a roll of the Weight class or lower, dies down (-1");
    a higher roll spreads: a point of Grinding Damage and either +1" (up to the object's
    Size) or a new 1" Fire on a nearby flammable object when there is no more room.

    Parameters
    ----------
    stream : DiceStream
        Where the d4s come from (logged with the reason "Burning Roll (<target>)").
    fire : ObjectFire
        Changed in place.
    neighbours : int, optional
        How many flammable objects lie within 1" (from the physics query). When given, no more
        new Fires are asked for than there are neighbours; when None, every spreading die
        without room asks for one.

    Raises
    ------
    RulesError
        If the object is not burning.

    Examples
    --------
    The Von Bragstein Boiler-Mech, turn three (Size 4", Weight class 2, a 2" Fire):

    >>> from sandbox.core.dice import DiceStream
    >>> s = DiceStream("fire", 0, forced=[1, 3])
    >>> mech = ObjectFire("boiler-mech", 4, 2, size_in=2)
    >>> r = burning_roll(s, mech)
    >>> r.died_down, r.grinding_damage, r.size_after
    (1, 1, 2)
    """
    if not fire.burning:
        raise RulesError(f"{fire.target} is not on Fire")
    before = fire.size_in
    rolls = tuple(stream.roll_many(before, FIRE_DIE, f"Burning Roll ({fire.target})"))
    down = sum(1 for r in rolls if r.result == 1 or r.result <= fire.weight_class)
    up = len(rolls) - down
    size = max(0, before - down)
    grinding = up if fire.fire_type.grinds else 0
    grown = 0
    new_fires = 0
    if size > 0 and fire.fire_type.grows:
        grown = min(up, fire.max_size_in - size)
        size += grown
        if fire.fire_type.spreads_to_neighbours:
            new_fires = up - grown
            if neighbours is not None:
                new_fires = min(new_fires, max(0, int(neighbours)))
    fire.grinding_damage += grinding
    fire._set(size)
    return BurningResult(rolls, down, up, grinding, grown, new_fires, before, size)


def fight_fire(fire: ObjectFire, apparatus_in: float) -> int:
    """Firefighting: the Fire shrinks an inch per inch of apparatus used this turn (F.1).

    Three minifigs with buckets reduce a Fire by 3"; a Size 5" Hose by 5".

    Parameters
    ----------
    apparatus_in : float
        Inches of firefighting apparatus (whole inches count).

    Returns
    -------
    int
        Inches removed.

    Raises
    ------
    RulesError
        For negative apparatus.
    """
    if apparatus_in < 0 or not math.isfinite(apparatus_in):
        raise RulesError(f"firefighting apparatus must be >= 0 inches, got {apparatus_in!r}")
    cut = min(fire.size_in, int(math.floor(apparatus_in + 1e-9)))
    if cut:
        fire._set(fire.size_in - cut)
    return cut


def submerge(fire: ObjectFire) -> int:
    """Complete submersion in water or vacuum puts the Fire out instantly (F.1); inches removed."""
    cut = fire.size_in
    if cut:
        fire._set(0)
    return cut
