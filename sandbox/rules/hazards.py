"""Field Hazards, Traps and the Scout (BrikWars F.1 Hazard Dice, F.2 Traps, F.3 The Scout).

Pure rules: a :class:`Field` is the immutable spec of a Field Hazard (its Size in inches and
its Hazard dice); the functions take the facts the game layer measured (inches travelled
through the Field, the exposed part's Size, the Action die) and a dice stream, and return
what happened. Where on the table a Field lies, who stands in it and what blocks a sight line
are physical questions answered in :mod:`sandbox.games.brikwars.hazards`.

Readings of the rules chosen here (the text is silent, or its die symbols were lost):

- Hazard dice are written as dice expressions: ``"2d6"`` Damage, ``"1d4 Fire"``, ``"2d10 Exp"``;
  Difficult Terrain and Concealed Move dice are rolled for inches (``"1d6"`` Move).
- "Never more Hazard dice than inches of Size, and normally at most three": more than three
  needs ``exceptional=True`` (F.1).
- Exposure Damage adds the exposed part's Target Size modifier to the total (F.1, as in Arc
  attacks 5.1), floored at 0; Size 0 objects take exactly 1 point per die, rolled or not.
- A Concealed Hazard crossing rolls the Action die (a Scout his Specialty die, an object
  without an Action die an Incompetent d4) with the *reverse* Target Size modifier, as an
  Action Roll against the whole inches to travel, so a natural maximum adds Over the Top dice
  as in any Action Roll; a natural 1 triggers the Hazard before the unit moves at all. The
  unit travels ``max(0, total)`` inches before it sets the Hazard off.
- Energy Shield dice block incoming Damage dice of the same die type, highest first; an
  Action-die Damage die (melee) is blocked by d6 shields (F.1).
- A Trap's weapon attacks with an inanimate object's default Action die, read as the
  Incompetent d4 (F.2); a smart weapon trap uses the Action die it is given.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Sequence

from ..core.dice import DiceExpression, DiceStream, DiceSum, ExpressionRoll, parse_dice
from ..core.errors import RulesError
from .attacks import ActionRoll, Modifier, action_roll, target_size_modifier

#: Smoke Fields are effective up to this height by default, inches (F.1 Smoke).
SMOKE_HEIGHT_IN: float = 5.0
#: Hazard dice a Field should normally carry at most (F.1).
NORMAL_MAX_HAZARD_DICE: int = 3
#: The Action die of things with none of their own, and of simple Weapon Traps (F.1, F.2).
INCOMPETENT_DIE: int = 4
#: A minifig's Action die: melee (Action-die) Damage is blocked by shields of this die (F.1).
ACTION_DIE_SHIELD: int = 6
#: A Scout Marks targets within this distance, inches (F.3).
MARK_RANGE_IN: float = 8.0
#: Bonus to allies' Ranged attacks on a Marked target (F.3).
MARK_BONUS: int = 1


class HazardKind(enum.Enum):
    """The basic categories of Hazard dice (F.1 table)."""

    SMOKE = "smoke"
    EXPOSURE = "exposure"
    DIFFICULT = "difficult"
    CONCEALED = "concealed"
    SHIELD = "shield"


class TerrainKind(enum.Enum):
    """Kinds of Difficult Terrain (F.1)."""

    SLOW = "slow"
    THRUST = "thrust"
    SLIPPERY = "slippery"
    SPIKED = "spiked"


@dataclass(frozen=True)
class Field:
    """A Field Hazard's spec (BrikWars F.1).

    Attributes
    ----------
    name : str
    kind : HazardKind
    size_in : float
        Field Size, inches (> 0).
    dice : DiceExpression or None
        The Hazard dice (None for Smoke). ``count`` is the number of Hazard dice.
    terrain : TerrainKind or None
        For Difficult Terrain (and Concealed Hazards that act on Move).
    powered : bool
        Activated and powered by a creation: its dice activate once per turn, an inch of
        Power each (see :class:`PoweredField`); otherwise passive, rolled for every victim.
    height_in : float
        How high the Field reaches, inches (Smoke: 5" by default).
    exceptional : bool
        Allows more than three Hazard dice.

    Raises
    ------
    RulesError
        Smoke with dice; another kind without dice; more dice than inches of Size; more than
        three dice when not exceptional; a Terrain kind on a Field that is not Difficult
        Terrain or Concealed.
    """

    name: str
    kind: HazardKind
    size_in: float
    dice: DiceExpression | DiceSum | None = None
    terrain: TerrainKind | None = None
    powered: bool = False
    height_in: float = SMOKE_HEIGHT_IN
    exceptional: bool = False

    def __post_init__(self) -> None:
        kind = HazardKind(self.kind)
        object.__setattr__(self, "kind", kind)
        if isinstance(self.dice, str):
            object.__setattr__(self, "dice", parse_dice(self.dice))
        if self.terrain is not None:
            object.__setattr__(self, "terrain", TerrainKind(self.terrain))
        if not (self.size_in > 0 and math.isfinite(self.size_in)):
            raise RulesError(f"Field {self.name!r}: Size must be > 0 inches, got {self.size_in!r}")
        if not (self.height_in > 0 and math.isfinite(self.height_in)):
            raise RulesError(f"Field {self.name!r}: height must be > 0 inches, got "
                             f"{self.height_in!r}")
        if kind is HazardKind.SMOKE:
            if self.dice is not None:
                raise RulesError(f"Smoke Field {self.name!r} has no Hazard dice, got {self.dice}")
            return
        if isinstance(self.dice, DiceSum) and kind is not HazardKind.CONCEALED:
            raise RulesError(f"Field {self.name!r} ({kind.value}): mixed dice ({self.dice}) are "
                             "an Explosive's, for a Concealed Hazard (a minefield, 8.4)")
        if self.dice is None or self.dice.count < 1 or getattr(self.dice, "sides", 0) is None:
            raise RulesError(f"Field {self.name!r} ({kind.value}) needs Hazard dice, got "
                             f"{self.dice}")
        n = self.dice.count
        if n > math.floor(self.size_in + 1e-9):
            raise RulesError(f"Field {self.name!r}: {n} Hazard dice exceed its "
                             f"{self.size_in:g}\" of Size (F.1)")
        if n > NORMAL_MAX_HAZARD_DICE and not self.exceptional:
            raise RulesError(f"Field {self.name!r}: {n} Hazard dice; more than "
                             f"{NORMAL_MAX_HAZARD_DICE} needs exceptional = true (F.1)")
        if kind is HazardKind.DIFFICULT and self.terrain is None:
            raise RulesError(f"Difficult Terrain {self.name!r} needs a terrain kind")
        if self.terrain is not None and kind not in (HazardKind.DIFFICULT, HazardKind.CONCEALED):
            raise RulesError(f"Field {self.name!r}: terrain {self.terrain.value!r} only applies "
                             "to Difficult Terrain or Concealed Hazards")

    @property
    def hazard_dice(self) -> int:
        return 0 if self.dice is None else self.dice.count

    def resized(self, size_in: float) -> "Field | None":
        """The Field with a new Size; Hazard dice beyond the new Size are removed (F.1: a
        Field has at most one Hazard die per inch of Size).

        Returns None when the last die is gone (a Field with Hazard dice shrunk below 1"):
        nothing of it is left to roll, and the caller takes it off the table.

        Raises
        ------
        RulesError
            For a Size <= 0 (a Field of no Size is gone: drop it instead).

        Examples
        --------
        >>> f = Field("house fire", HazardKind.EXPOSURE, 3, DiceExpression.parse("3d4 Fire"))
        >>> f.resized(2).hazard_dice, f.resized(0.5)
        (2, None)
        """
        dice = self.dice
        if dice is not None and dice.count > math.floor(size_in + 1e-9):
            left = int(math.floor(size_in + 1e-9))
            if left < 1:
                if not (size_in > 0 and math.isfinite(size_in)):
                    raise RulesError(f"Field {self.name!r}: Size must be > 0 inches, got "
                                     f"{size_in!r}")
                return None
            if isinstance(dice, DiceSum):  # the last-written dice go first
                terms, n = [], left
                for t in dice.terms:
                    if n > 0:
                        terms.append(DiceExpression(min(n, t.count), t.sides, t.modifier, t.kind))
                        n -= min(n, t.count)
                dice = terms[0] if len(terms) == 1 else DiceSum(tuple(terms))
            else:
                dice = DiceExpression(left, dice.sides, dice.modifier, dice.kind)
        return Field(self.name, self.kind, size_in, dice, self.terrain, self.powered,
                     self.height_in, self.exceptional)


@dataclass
class PoweredField:
    """Turn bookkeeping of a powered Field: its dice activate once per turn (F.1).

    Attributes
    ----------
    field : Field
    last_turn : int or None
        Turn of the last activation.
    power_spent_in : float
        Inches of Power spent on it this turn.
    """

    field: Field
    last_turn: int | None = None
    power_spent_in: float = 0.0

    def activate(self, turn: int, power_left_in: float) -> float:
        """Activate the Field's dice this turn; returns the Power it costs (an inch a die).

        Raises
        ------
        RulesError
            If the Field is passive, already activated this turn, or the creation lacks Power.
        """
        if not self.field.powered:
            raise RulesError(f"Field {self.field.name!r} is passive: it needs no activation")
        if self.last_turn == turn:
            raise RulesError(f"Field {self.field.name!r} already activated on turn {turn} (F.1)")
        cost = float(self.field.hazard_dice)
        if cost > power_left_in + 1e-9:
            raise RulesError(f"Field {self.field.name!r} needs {cost:g}\" of Power, only "
                             f"{power_left_in:g}\" left")
        self.last_turn = turn
        self.power_spent_in = cost
        return cost


# --------------------------------------------------------------------------------------------
# Exposure Damage
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExposureResult:
    """Exposure Damage dealt to one victim (F.1 Exposure Damage).

    Attributes
    ----------
    roll : ExpressionRoll or None
        The Hazard dice (None for Size 0 victims, who take a point per die).
    size_modifier : int
        Target Size modifier of the exposed part, added to the Damage.
    damage : int
    overload_in : float
        Inches of Power the victim loses this turn (one per Exposure die).
    fire_values : tuple of int
        The Fire dice, for Catching Fire (empty for other Damage kinds).
    """

    roll: ExpressionRoll | None
    size_modifier: int
    damage: int
    overload_in: float
    fire_values: tuple[int, ...] = ()


def exposure_damage(stream: DiceStream, hazard: Field, *, exposed_size_in: float,
                    victim: str = "victim") -> ExposureResult:
    """Roll a Field's Exposure Damage on one victim (BrikWars F.1 Exposure Damage).

    Parameters
    ----------
    hazard : Field
        An Exposure Damage Field, a Spiked Obstacle (for units not moving carefully), or a
        Concealed Hazard's Damage dice when it goes off.
    exposed_size_in : float
        Size of the part of the victim inside the Field, inches (0: a Size 0 object).

    Raises
    ------
    RulesError
        For a Field without dice or a negative Size.

    Examples
    --------
    >>> from sandbox.core.dice import DiceStream
    >>> f = Field("acid pool", HazardKind.EXPOSURE, 2, DiceExpression.parse("2d6"))
    >>> exposure_damage(DiceStream("h", 0, forced=[3, 4]), f, exposed_size_in=4).damage
    9
    """
    if hazard.dice is None:
        raise RulesError(f"Field {hazard.name!r} has no Hazard dice to expose anyone to")
    if exposed_size_in < 0:
        raise RulesError(f"exposed Size must be >= 0 inches, got {exposed_size_in}")
    n = hazard.dice.count
    if exposed_size_in == 0:
        return ExposureResult(None, 0, n, 0.0)
    roll = hazard.dice.roll(stream, f"Exposure Damage of {hazard.name} on {victim}")
    mod = target_size_modifier(exposed_size_in)
    damage = max(0, roll.total + mod)
    fire = roll.values if roll.expression.kind in ("Fire", "Acid", "Poison") else ()
    return ExposureResult(roll, mod, damage, float(n), tuple(fire))


# --------------------------------------------------------------------------------------------
# Difficult Terrain
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TerrainResult:
    """What Difficult Terrain did to one unit's movement this turn (F.1).

    Attributes
    ----------
    terrain : TerrainKind
    roll : ExpressionRoll or None
        The Hazard inches rolled (None when no roll was needed).
    hazard_in : float
        The Hazard inches.
    move_lost_in : float
        Inches subtracted from the unit's Move (Slow; careful Spiked; Slippery's forced slide).
    thrust_in : float
        Inches of Thrust applied at the start of movement (Thrust).
    forced_slide_in : float
        Inches the unit must keep sliding the way it was going (Slippery).
    damage : ExposureResult or None
        Damage taken instead of losing Move (Spiked, not careful).
    """

    terrain: TerrainKind
    roll: ExpressionRoll | None
    hazard_in: float
    move_lost_in: float = 0.0
    thrust_in: float = 0.0
    forced_slide_in: float = 0.0
    damage: ExposureResult | None = None


def difficult_terrain(stream: DiceStream, hazard: Field, *, victim: str = "unit",
                      moving: bool = True, careful: bool = True, exposed_size_in: float = 1.0,
                      move_left_in: float | None = None) -> TerrainResult:
    """Apply a Difficult Terrain Field to a unit moving in it (BrikWars F.1 Difficult Terrain).

    - Slow: the Hazard inches are subtracted from the unit's Move this turn.
    - Thrust: the Hazard inches push the unit at the start of its movement (the game applies
      the push); the unit then uses its full Move.
    - Slippery: the unit keeps going the way it was moving, spending Move inches equal to the
      Hazard inches (stuck in place if it was not moving).
    - Spiked: careful units (who spend an Action to focus) lose Move like Slow; others take the
      Hazard dice as Exposure Damage.

    Parameters
    ----------
    moving : bool
        Whether the unit was already moving (Slippery).
    careful : bool
        Spent an Action to move carefully (Spiked).
    exposed_size_in : float
        For Spiked Damage.
    move_left_in : float, optional
        Caps the Move lost (a unit cannot lose more Move than it has).

    Raises
    ------
    RulesError
        If ``hazard`` is not Difficult Terrain.
    """
    if hazard.kind is not HazardKind.DIFFICULT or hazard.terrain is None:
        raise RulesError(f"Field {hazard.name!r} is not Difficult Terrain")
    t = hazard.terrain
    if t is TerrainKind.SPIKED and not careful:
        dmg = exposure_damage(stream, hazard, exposed_size_in=exposed_size_in, victim=victim)
        return TerrainResult(t, dmg.roll, 0.0, damage=dmg)
    # Hazard inches of Move are a distance, not Damage: no Over the Top dice.
    roll = hazard.dice.roll(stream, f"{hazard.name} ({t.value}) on {victim}", over_the_top=False)
    inches = float(roll.total)
    cap = inches if move_left_in is None else min(inches, max(0.0, move_left_in))
    if t is TerrainKind.THRUST:
        return TerrainResult(t, roll, inches, thrust_in=inches)
    if t is TerrainKind.SLIPPERY:
        if not moving:  # stuck in place, spending the Hazard inches of its Move (F.1)
            return TerrainResult(t, roll, inches, move_lost_in=cap)
        return TerrainResult(t, roll, inches, move_lost_in=cap, forced_slide_in=cap)
    return TerrainResult(t, roll, inches, move_lost_in=cap)


def slippery_fall(action: ActionRoll, on_foot: bool = True) -> bool:
    """A unit on foot in a Slippery Field falls and is Disrupted on a Critical Failure (F.1)."""
    return bool(on_foot and action.critical_failure)


# --------------------------------------------------------------------------------------------
# Concealed Hazards
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConcealedResult:
    """A unit's passage into or through a Concealed Hazard (BrikWars F.1, F.3).

    Attributes
    ----------
    action : ActionRoll or None
        The Action (or Specialty) Roll; None for Size 0 objects, which are immune.
    distance_in : float
        Inches the unit meant to travel through the Field (or fell/leapt while airborne).
    safe_in : float
        Inches travelled safely before the Hazard (the whole distance when safe).
    triggered : bool
        The Hazard goes off at ``safe_in`` along the path (at the point of impact when airborne).
    stopped : bool
        A Scout stopped safely at ``safe_in`` instead of setting it off (F.3 Pathfinding).
    immune : bool
        Size 0 objects never set Concealed Hazards off.
    """

    action: ActionRoll | None
    distance_in: float
    safe_in: float
    triggered: bool
    stopped: bool = False
    immune: bool = False

    @property
    def critical_failure(self) -> bool:
        return self.action is not None and self.action.critical_failure


def concealed_size_modifier(size_in: float) -> Modifier | None:
    """The reverse of the Target Size modifier, for Concealed Hazard rolls (F.1).

    Examples
    --------
    >>> concealed_size_modifier(8).action      # the Size 8" Cow: +4 to be hit, -4 here
    -4
    """
    m = -target_size_modifier(size_in)
    return Modifier(f"reverse Target Size {m:+d}", m) if m else None


def cross_concealed(stream: DiceStream, hazard: Field | None, *, distance_in: float,
                    size_in: float, action_die: int | None = 6, scout: bool = False,
                    specialty_die: int | None = None, airborne: bool = False,
                    careful_placement: bool = False, victim: str = "unit",
                    modifiers: Sequence[Modifier] = ()) -> ConcealedResult:
    """Roll a unit's passage through a Concealed Hazard (BrikWars F.1; F.3 Pathfinding).

    The unit declares its path and rolls its Action die (a Scout his Specialty die) with the
    reverse Target Size modifier; it travels safely as many inches as the total. On a
    Critical Failure the Hazard goes off before it moves at all. A Scout stops safely short of
    the Hazard instead. Objects that leap, fall or are thrown roll against the inches
    airborne; an object carefully set on the Field only sets it off on a Critical Failure.

    Parameters
    ----------
    hazard : Field or None
        The Concealed Hazard (for its name in the log).
    distance_in : float
        Inches to travel inside the Field (or airborne inches), >= 0.
    size_in : float
        The traveller's Size, inches (0: immune).
    action_die : int or None
        The traveller's Action die; None for objects without one (an Incompetent d4).
    scout : bool
        The traveller is a Scout with his optical Tool: rolls ``specialty_die``, stops safely.
    modifiers : sequence of Modifier
        Other Action modifiers (on Fire, a Slippery Field...).

    Raises
    ------
    RulesError
        For a negative distance or Size, or a Scout without a Specialty die.

    Examples
    --------
    >>> from sandbox.core.dice import DiceStream
    >>> r = cross_concealed(DiceStream("h", 0, forced=[5]), None, distance_in=6, size_in=8)
    >>> r.safe_in, r.triggered       # the Cow: 5 - 4 = 1 inch, then the mine goes off
    (1.0, True)
    """
    if distance_in < 0 or not math.isfinite(distance_in):
        raise RulesError(f"distance through the Field must be >= 0 inches, got {distance_in!r}")
    if size_in < 0:
        raise RulesError(f"Size must be >= 0 inches, got {size_in}")
    if size_in == 0:
        return ConcealedResult(None, distance_in, distance_in, False, immune=True)
    if scout:
        if specialty_die is None:
            raise RulesError(f"{victim}: a Scout needs a Specialty die for Pathfinding")
        die = int(specialty_die)
    else:
        die = INCOMPETENT_DIE if action_die is None else int(action_die)
    name = hazard.name if hazard is not None else "Concealed Hazard"
    mods = [m for m in list(modifiers) + [concealed_size_modifier(size_in)] if m is not None]
    what = "Pathfinding" if scout else ("careful placement" if careful_placement else
                                        ("airborne" if airborne else "crossing"))
    use = 0 if careful_placement else int(math.ceil(distance_in - 1e-9))
    act = action_roll(stream, die, use, mods, f"{victim} {what}: {name}")
    if act.critical_failure:
        return ConcealedResult(act, distance_in, 0.0, not scout, stopped=scout)
    if careful_placement:
        return ConcealedResult(act, distance_in, distance_in, False)
    safe = float(max(0, act.total))
    if safe >= distance_in - 1e-9:
        return ConcealedResult(act, distance_in, distance_in, False)
    if scout:
        return ConcealedResult(act, distance_in, safe, False, stopped=True)
    return ConcealedResult(act, distance_in, 0.0 if airborne else safe, True)


def follow_scout(scout_result: ConcealedResult, followers: Sequence[str]) -> dict[str, float]:
    """Units following a Scout in single file go safely as far as he goes (F.3 Pathfinding).

    Returns the safe inches for each follower (the Scout's ``safe_in``).
    """
    return {f: scout_result.safe_in for f in followers}


# --------------------------------------------------------------------------------------------
# Energy Shields
# --------------------------------------------------------------------------------------------


@dataclass
class EnergyShield:
    """A creation's Energy Shield dice and their use this turn (BrikWars F.1 Energy Shields).

    Attributes
    ----------
    name : str
    dice : list of int
        Die type of each Energy Shield die (``[6, 6, 10]``).
    size_in : float
        The shield's Field Size (dice may not exceed it).
    used : list of bool
        Which dice have been spent this turn.
    turn : int or None
    """

    name: str
    dice: list[int]
    size_in: float
    used: list[bool] = field(default_factory=list)
    turn: int | None = None

    def __post_init__(self) -> None:
        if len(self.dice) > math.floor(self.size_in + 1e-9):
            raise RulesError(f"Energy Shield {self.name!r}: {len(self.dice)} dice exceed its "
                             f"{self.size_in:g}\" of Size (F.1)")
        for d in self.dice:
            if d not in (4, 6, 8, 10, 12, 20):
                raise RulesError(f"Energy Shield {self.name!r}: no such die d{d}")
        self.used = [False] * len(self.dice)

    def new_turn(self, turn: int) -> None:
        self.turn = turn
        self.used = [False] * len(self.dice)


@dataclass(frozen=True)
class ShieldResult:
    """Damage after an Energy Shield (F.1).

    Attributes
    ----------
    blocked : tuple of int
        Values of the incoming dice the shield cancelled.
    damage : int
        Damage left.
    power_in : float
        Inches of Power the shield used (one per die spent).
    """

    blocked: tuple[int, ...]
    damage: int
    power_in: float


def shield_damage(shield: EnergyShield, roll: ExpressionRoll, *, turn: int,
                  power_left_in: float = math.inf, action_die_damage: bool = False
                  ) -> ShieldResult:
    """Cancel incoming Damage dice with matching Energy Shield dice (BrikWars F.1).

    Each unused shield die of the incoming die's type (d6 for Action-die Damage such as a
    sword) cancels one incoming die, highest first, once per turn and at an inch of Power.

    Raises
    ------
    RulesError
        Never for valid input; Power running out simply stops the shield.
    """
    if shield.turn != turn:
        shield.new_turn(turn)
    sides = ACTION_DIE_SHIELD if action_die_damage else roll.expression.sides
    values = sorted(roll.values, reverse=True)
    blocked: list[int] = []
    power = 0.0
    keep: list[int] = []
    for v in values:
        idx = next((i for i, d in enumerate(shield.dice) if d == sides and not shield.used[i]),
                   None)
        if idx is not None and power + 1.0 <= power_left_in + 1e-9:
            shield.used[idx] = True
            blocked.append(v)
            power += 1.0
        else:
            keep.append(v)
    dmg = max(0, sum(keep) + roll.expression.modifier + roll.flat_modifier)
    return ShieldResult(tuple(blocked), dmg, power)


def shield_block(shield: EnergyShield, dice: Sequence[tuple[int, int]], damage: int, *,
                 turn: int, power_left_in: float = math.inf) -> ShieldResult:
    """Deflect incoming Damage dice given as ``(sides, value)`` pairs (BrikWars F.1).

    The game layer's one entry point for Energy Shields: every source of Damage (weapons,
    Collision Damage, Explosion rings, Fire) hands over the dice that made up ``damage``. Each
    unused shield die of an incoming die's type cancels that die, highest incoming die first,
    once per turn and at an inch of Power; Action-die Damage is passed with sides 6 (F.1).

    Parameters
    ----------
    dice : sequence of (int, int)
        Die type and value of each incoming Damage die (after per-die modifiers).
    damage : int
        The Damage those dice amount to (with flat modifiers), points.
    power_left_in : float
        Inches of Power the creation has left this turn.

    Examples
    --------
    >>> s = EnergyShield("projector", [6, 6], 2)
    >>> r = shield_block(s, [(6, 5), (6, 2), (10, 7)], 14, turn=1)
    >>> r.blocked, r.damage, r.power_in
    ((5, 2), 7, 2.0)
    >>> shield_block(s, [(6, 6)], 6, turn=1).damage      # both dice spent this turn
    6
    """
    if shield.turn != turn:
        shield.new_turn(turn)
    blocked: list[int] = []
    power = 0.0
    for sides, v in sorted(dice, key=lambda d: -d[1]):
        idx = next((i for i, d in enumerate(shield.dice) if d == sides and not shield.used[i]),
                   None)
        if idx is None or power + 1.0 > power_left_in + 1e-9:
            continue
        shield.used[idx] = True
        blocked.append(int(v))
        power += 1.0
    return ShieldResult(tuple(blocked), max(0, int(damage) - sum(blocked)), power)


# --------------------------------------------------------------------------------------------
# Traps (F.2)
# --------------------------------------------------------------------------------------------


class TriggerMode(enum.Enum):
    """How a Trap's trigger is set off (F.2 Triggers)."""

    ANY = "any"  #: any interaction or contact at all
    INTERACTION = "interaction"  #: one specific interaction (a code, a key, a tune)


@dataclass
class Trap:
    """A Trap wired to a trigger object (BrikWars F.2).

    Attributes
    ----------
    name : str
    trigger : str
        Key of the object that triggers it.
    mode : TriggerMode
    interaction : str or None
        The specific interaction required (``mode`` INTERACTION).
    single_use : bool
        Weapon Traps fire once until a minifig resets them.
    action_die : int
        Die the Trap attacks with: an inanimate object's d4, or a smart weapon's larger die.
    armed : bool
    """

    name: str
    trigger: str
    mode: TriggerMode = TriggerMode.ANY
    interaction: str | None = None
    single_use: bool = True
    action_die: int = INCOMPETENT_DIE
    armed: bool = True

    def __post_init__(self) -> None:
        self.mode = TriggerMode(self.mode)
        if self.mode is TriggerMode.INTERACTION and not self.interaction:
            raise RulesError(f"Trap {self.name!r}: a specific trigger needs its interaction")

    def triggered_by(self, obj: str, interaction: str | None = None) -> bool:
        """Whether touching ``obj`` (in the way ``interaction``) sets the Trap off now."""
        if not self.armed or obj != self.trigger:
            return False
        if self.mode is TriggerMode.ANY:
            return True
        return interaction is not None and interaction.strip().lower() == \
            str(self.interaction).strip().lower()

    def spring(self) -> None:
        """The Trap goes off; a single-use Trap is disarmed until reset."""
        if self.single_use:
            self.armed = False

    def reset(self) -> None:
        """A minifig technician re-arms the Trap."""
        self.armed = True


# --------------------------------------------------------------------------------------------
# The Scout (F.3)
# --------------------------------------------------------------------------------------------


def pathfinding_die(action_die: int, specialty_die: int, is_scout: bool) -> int:
    """Die for any Action Roll involving a Field Hazard or Trap: a Scout's Specialty die (F.3)."""
    return int(specialty_die if is_scout else action_die)


@dataclass(frozen=True)
class Mark:
    """A target Marked by a Scout (F.3 Tracking).

    Attributes
    ----------
    scout, target : str
    turn : int
        The Scout's turn when he Marked it; the Mark lasts until his next turn begins.
    """

    scout: str
    target: str
    turn: int

    @property
    def ranged_bonus(self) -> Modifier:
        """+1 Action to allies' Ranged attacks on the Marked target."""
        return Modifier(f"Marked by {self.scout}", MARK_BONUS)

    def active(self, turn: int, scout_turn_started: bool = False) -> bool:
        """True until the beginning of the Scout's next turn."""
        return turn == self.turn or (turn == self.turn + 1 and not scout_turn_started)


def mark_target(scout: str, target: str, *, distance_in: float, visible: bool, turn: int) -> Mark:
    """Spend the Scout's Action to Mark a target he can see within 8" (F.3).

    Raises
    ------
    RulesError
        If the target is not visible to the Scout or is farther than 8".
    """
    if not visible:
        raise RulesError(f"{scout} cannot Mark {target}: not in his field of view")
    if distance_in > MARK_RANGE_IN + 1e-9:
        raise RulesError(f"{scout} cannot Mark {target}: {distance_in:.2f}\" away, beyond "
                         f"{MARK_RANGE_IN:g}\"")
    return Mark(scout, target, turn)


def tracking_reveals(seen_by_scout: Sequence[str], hidden: Sequence[str]) -> tuple[str, ...]:
    """Hidden things a Scout sees are revealed to him and all his allies (F.3 Tracking)."""
    seen = set(seen_by_scout)
    return tuple(h for h in hidden if h in seen)
