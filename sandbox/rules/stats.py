"""Unit and creation statistics: immutable specs, mutable battle state (BrikWars 8.1, 7.2).

Lengths are inches (the world unit, see :mod:`sandbox.core.units`). A minifig is Size 1".
A spec (:class:`UnitSpec`) is what the scene file says a unit *is*; a :class:`BattleState` is
what has happened to it in this battle (Size Damage, Fire, Disruption, movement this turn).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ..core.dice import STANDARD_DICE, DiceExpression
from ..core.errors import RulesError

#: A minifig's Size in inches (BrikWars 8.1: "Weapon Size 1" is treated as a Short weapon").
MINIFIG_SIZE_IN: float = 1.0
#: A minifig's Action die.
MINIFIG_ACTION_DIE: int = 6
#: Default Specialty die (a Specialist rolls it instead of the Action d6 for its Specialty).
#: Reconstructed: the 8.5 Gunnery line lost its die symbol; BrikWars Specialists roll a d8.
DEFAULT_SPECIALTY_DIE: int = 8


class UnitKind(enum.Enum):
    """What kind of thing a unit is."""

    MINIFIG = "minifig"
    CREATURE = "creature"
    VEHICLE = "vehicle"
    STRUCTURE = "structure"
    OBJECT = "object"


class Specialty(enum.Enum):
    """Minifig Specialties this engine knows about (BrikWars 8.1, 8.5, F.3)."""

    HEAVY = "Heavy"  # Compensating (8.1)
    GUNNER = "Gunner"  # Gunnery (8.5)
    SCOUT = "Scout"  # Tracking (F.3)
    COMMANDER = "Commander"
    MECHANIK = "Mechanik"  # jury-rigs Controls (8.5)

    @property
    def ability(self) -> str:
        """The ability the Specialty grants, in the book's words."""
        return {
            Specialty.HEAVY: "Compensating",
            Specialty.GUNNER: "Gunnery",
            Specialty.SCOUT: "Tracking",
            Specialty.COMMANDER: "Command",
            Specialty.MECHANIK: "Field Construction",
        }[self]


def _check_die(sides: int, what: str) -> int:
    if sides not in STANDARD_DICE:
        raise RulesError(f"{what} must be one of {STANDARD_DICE}, got d{sides!r}")
    return int(sides)


@dataclass(frozen=True)
class UnitSpec:
    """What a unit (minifig, creature or creation) is, fixed for the battle.

    Attributes
    ----------
    name : str
    kind : UnitKind
    size_in : float
        Size in inches (minifig 1", a Size 3" Creature...). 0 is allowed (Vermin, Size 0
        objects): Size zero Creations have zero Power (8.1).
    action_die : int
        Sides of the Action die (d6 for a minifig).
    move_in : float
        Move in inches per turn.
    armor : DiceExpression
        Armor: a constant for minifigs (``4``), a roll for creations (``3d10``, 8.4 example).
    weight_class : int
        Weight class (Fire spreads only to Weight class 1 or less, 8.3).
    deflection : int
        Layers of Deflection (Armor Plating, Heavy Armor); each cancels one Damage die.
    specialties : frozenset of Specialty
    specialty_die : int
        Die rolled for a Specialty (Gunnery: instead of the Action die, 8.5).
    unit_inches : float or None
        Unit Inch value (the unit's worth to its army); None means "its Size".
    made_of_fire : bool
        Djinnis and lava monsters do not suffer from being on Fire (8.3).
    """

    name: str
    kind: UnitKind = UnitKind.MINIFIG
    size_in: float = MINIFIG_SIZE_IN
    action_die: int = MINIFIG_ACTION_DIE
    move_in: float = 5.0
    armor: DiceExpression = field(default_factory=lambda: DiceExpression(0, None, 4))
    weight_class: int = 1
    deflection: int = 0
    specialties: frozenset = frozenset()
    specialty_die: int = DEFAULT_SPECIALTY_DIE
    unit_inches: float | None = None
    made_of_fire: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.kind, UnitKind):
            raise RulesError(f"{self.name}: kind must be a UnitKind, got {self.kind!r}")
        if self.size_in < 0:
            raise RulesError(f"{self.name}: Size must be >= 0 inches, got {self.size_in}")
        if self.move_in < 0:
            raise RulesError(f"{self.name}: Move must be >= 0 inches, got {self.move_in}")
        if self.deflection < 0:
            raise RulesError(f"{self.name}: Deflection layers must be >= 0, got {self.deflection}")
        _check_die(self.action_die, f"{self.name}: Action die")
        _check_die(self.specialty_die, f"{self.name}: Specialty die")
        if isinstance(self.armor, (int, str)):
            armor = (
                DiceExpression(0, None, int(self.armor))
                if isinstance(self.armor, int)
                else DiceExpression.parse(self.armor)
            )
            object.__setattr__(self, "armor", armor)
        specs = frozenset(Specialty(s) if not isinstance(s, Specialty) else s
                          for s in self.specialties)
        object.__setattr__(self, "specialties", specs)

    def has(self, specialty: Specialty) -> bool:
        """True when the unit has ``specialty``."""
        return specialty in self.specialties

    @property
    def value_unit_inches(self) -> float:
        """Unit Inch value: the given value, or the unit's Size in inches."""
        return float(self.size_in if self.unit_inches is None else self.unit_inches)

    @property
    def is_minifig_sized(self) -> bool:
        """Size 1" or smaller (ShotGun KnockBack applies to "minifigs or smaller", 8.3)."""
        return self.size_in <= MINIFIG_SIZE_IN


def minifig(name: str = "minifig", **overrides) -> UnitSpec:
    """A standard minifig: Size 1", Action d6, Move 5", Armor 4 (BrikWars core rules)."""
    return UnitSpec(name=name, **overrides)


def effective_size(size_in: float, size_damage_in: float = 0.0) -> float:
    """Effective Size after Size Damage, in inches (BrikWars 7.2, 8.1).

    Parameters
    ----------
    size_in : float
        Size in inches.
    size_damage_in : float
        Inches of Size Damage taken.

    Returns
    -------
    float
        ``max(0, size_in - size_damage_in)``.

    Raises
    ------
    RulesError
        If either value is negative.

    Examples
    --------
    >>> effective_size(3, 1)   # Scorpiosaurus Rex after an inch of Size Damage
    2.0
    """
    if size_in < 0 or size_damage_in < 0:
        raise RulesError(f"Size ({size_in}) and Size Damage ({size_damage_in}) must be >= 0")
    return float(max(0.0, size_in - size_damage_in))


@dataclass
class BattleState:
    """What has happened to one unit in this battle (mutable; the spec stays frozen).

    Attributes
    ----------
    spec : UnitSpec
    size_damage_in : float
        Inches of Size Damage taken (7.2).
    on_fire : bool
        Burning (8.3 Catching On Fire).
    disrupted : bool
    destroyed : bool
    moved_this_turn : bool
        Any Movement this turn (cancels Compensating, 8.1).
    move_used_in : float
        Inches of Move used this turn (the panic run uses the rest, 8.3).
    useless_limbs : int
        Limbs rendered useless by burning (8.3 Burning Roll).
    """

    spec: UnitSpec
    size_damage_in: float = 0.0
    on_fire: bool = False
    disrupted: bool = False
    destroyed: bool = False
    moved_this_turn: bool = False
    move_used_in: float = 0.0
    useless_limbs: int = 0

    @property
    def effective_size(self) -> float:
        """Effective Size in inches after Size Damage."""
        return effective_size(self.spec.size_in, self.size_damage_in)

    def take_size_damage(self, inches: float) -> float:
        """Record ``inches`` of Size Damage; returns the new Effective Size (inches).

        Raises
        ------
        RulesError
            If ``inches`` is negative.
        """
        if inches < 0:
            raise RulesError(f"Size Damage must be >= 0 inches, got {inches}")
        self.size_damage_in += inches
        if self.effective_size <= 0 and self.spec.kind is not UnitKind.MINIFIG:
            self.destroyed = True
        return self.effective_size

    def start_turn(self) -> None:
        """Reset the per-turn facts."""
        self.moved_this_turn = False
        self.move_used_in = 0.0

    def move(self, inches: float) -> None:
        """Record Movement of ``inches`` (inches >= 0)."""
        if inches < 0:
            raise RulesError(f"cannot move a negative distance ({inches} in)")
        self.move_used_in += inches
        if inches > 0:
            self.moved_this_turn = True

    @property
    def move_left_in(self) -> float:
        """Unused inches of Move this turn."""
        return max(0.0, self.spec.move_in - self.move_used_in)

    @property
    def hands_usable(self) -> int:
        """Hands a minifig may use: one while on Fire (8.3), else two."""
        if self.on_fire and not self.spec.made_of_fire:
            return 1
        return 2
