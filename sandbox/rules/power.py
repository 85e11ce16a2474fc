"""Power limits, Divert All Power, Teamwork, Turrets and Compensating (BrikWars 8.1).

All sizes and Power are inches. A Creation may activate as many inches of weapons and devices
per turn as twice its current Effective Size (Flying: once its Effective Size).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Sequence

from ..core.errors import RulesError
from .stats import BattleState, Specialty

#: Inches of extra weapon a Compensating Heavy may use while standing still (8.1).
COMPENSATING_BONUS_IN: float = 1.0


def power_limit(effective_size_in: float, *, flying: bool = False) -> float:
    """Inches of weapons a Creation may activate in one turn (BrikWars 8.1 Power Limits).

    Parameters
    ----------
    effective_size_in : float
        Effective Size after Size Damage, inches.
    flying : bool
        Flying Creations have Power equal to their Effective Size.

    Returns
    -------
    float
        ``2 × Effective Size`` (``1 ×`` when flying); 0 for a Size 0 Creation.

    Raises
    ------
    RulesError
        For a negative Effective Size.

    Examples
    --------
    >>> power_limit(3)    # Scorpiosaurus Rex
    6.0
    >>> power_limit(2)    # ... after an inch of Size Damage
    4.0
    """
    if effective_size_in < 0:
        raise RulesError(f"Effective Size must be >= 0 inches, got {effective_size_in}")
    return float(effective_size_in) * (1.0 if flying else 2.0)


@dataclass(frozen=True)
class PowerCheck:
    """Whether a set of weapon activations fits this turn's Power.

    Attributes
    ----------
    allowed : bool
    required_in : float
        Sum of the Power the weapons need, inches.
    limit_in : float
        Power available this turn (regular limit plus any bonus), inches.
    diverted_in : float
        Saved Power used for a single activation (0 when none was used).
    too_big : tuple of float
        Weapon sizes that alone exceed the regular limit (need Divert All Power or Teamwork).
    """

    allowed: bool
    required_in: float
    limit_in: float
    diverted_in: float
    too_big: tuple[float, ...]


def check_power(
    weapon_power_in: Sequence[float],
    effective_size_in: float,
    *,
    flying: bool = False,
    saved_in: float = 0.0,
    bonus_in: float = 0.0,
) -> PowerCheck:
    """Check that weapons fit within a Creation's Power this turn (BrikWars 8.1).

    Parameters
    ----------
    weapon_power_in : sequence of float
        Power each weapon or device needs, inches (its Weapon Size; an Explosive dropped or
        fired directly needs its XSize; Armor Plating needs 0).
    effective_size_in : float
        Effective Size, inches (for Teamwork, the sum of the team's Effective Sizes).
    flying : bool
    saved_in : float
        Power saved by Diverting All Power on previous turns. It may be added only "to meet the
        Power requirement of a single weapon or device activation" (read: it is usable only
        when exactly one weapon is activated this turn).
    bonus_in : float
        Extra Power (a Turret's +2"/+4", Compensating's 1").

    Returns
    -------
    PowerCheck

    Raises
    ------
    RulesError
        For negative values.
    """
    reqs = [float(w) for w in weapon_power_in]
    if any(w < 0 for w in reqs) or saved_in < 0 or bonus_in < 0:
        raise RulesError(
            f"Power values must be >= 0, got {reqs}, saved {saved_in}, bonus {bonus_in}"
        )
    regular = power_limit(effective_size_in, flying=flying) + bonus_in
    required = sum(reqs)
    too_big = tuple(w for w in reqs if w > regular + 1e-9)
    if required <= regular + 1e-9:
        return PowerCheck(True, required, regular, 0.0, too_big)
    if len(reqs) == 1 and saved_in > 0 and required <= regular + saved_in + 1e-9:
        return PowerCheck(True, required, regular + saved_in, float(saved_in), too_big)
    return PowerCheck(False, required, regular, 0.0, too_big)


@dataclass
class PowerReserve:
    """Power saved by Diverting All Power (BrikWars 8.1 Gathering Power; mutable).

    On a turn spent Diverting All Power the Creation does nothing else and saves its Power
    limit; on a later turn the saved inches help one activation, then the reserve empties.
    """

    saved_in: float = 0.0
    turns_diverted: int = 0

    def divert(self, effective_size_in: float, *, flying: bool = False) -> float:
        """Spend this turn Diverting All Power; returns the total saved, inches."""
        self.saved_in += power_limit(effective_size_in, flying=flying)
        self.turns_diverted += 1
        return self.saved_in

    def release(self) -> float:
        """Take the saved Power for this turn's single activation and empty the reserve."""
        saved, self.saved_in, self.turns_diverted = self.saved_in, 0.0, 0
        return saved


@dataclass(frozen=True)
class Teamwork:
    """A team operating one weapon together (BrikWars 8.1 Gathering Power, 8.4 throwing).

    Attributes
    ----------
    power_in : float
        Power of the team: twice the sum of Effective Sizes, inches.
    action_die : int
        The smallest Action die of the team makes the roll.
    range_in : float or None
        The lowest Range among the team counts (None when no Range is involved).
    """

    power_in: float
    action_die: int
    range_in: float | None


def teamwork(
    effective_sizes_in: Sequence[float],
    action_dice: Sequence[int],
    ranges_in: Sequence[float] | None = None,
) -> Teamwork:
    """Combine a team for one weapon: Effective Sizes add, smallest Action die, lowest Range.

    Raises
    ------
    RulesError
        If the team is empty or the lists differ in length.

    Examples
    --------
    >>> teamwork([1, 1], [6, 8]).power_in   # two minifigs wind a 4" catapult
    4.0
    """
    sizes, dice = list(effective_sizes_in), list(action_dice)
    if not sizes or len(sizes) != len(dice):
        raise RulesError(f"a team needs one Action die per member, got {sizes!r} and {dice!r}")
    if ranges_in is not None and len(list(ranges_in)) != len(sizes):
        raise RulesError(f"a team needs one Range per member, got {list(ranges_in)!r}")
    return Teamwork(
        power_limit(float(sum(sizes))),
        int(min(dice)),
        None if ranges_in is None else float(min(ranges_in)),
    )


def compensating_bonus_in(state: BattleState) -> float:
    """Compensating: a Heavy uses weapons 1" larger, but only when he has not moved (8.1)."""
    if state.spec.has(Specialty.HEAVY) and not state.moved_this_turn:
        return COMPENSATING_BONUS_IN
    return 0.0


class TurretSize(enum.Enum):
    """Portable Turrets (BrikWars 8.1 Turrets)."""

    SMALL = "S"
    LARGE = "M"

    @property
    def size_in(self) -> float:
        """Size of the Turret itself: 1" or 2"."""
        return 1.0 if self is TurretSize.SMALL else 2.0

    @property
    def power_bonus_in(self) -> float:
        """Power it adds: +2" or +4"."""
        return 2.0 if self is TurretSize.SMALL else 4.0

    @property
    def max_weapon_size_in(self) -> float:
        """Largest Weapon it mounts: 2" or 4"."""
        return 2.0 if self is TurretSize.SMALL else 4.0

    @property
    def carry_note(self) -> str:
        return "No Sprinting if carried" if self is TurretSize.SMALL else "Half Speed if carried"


@dataclass
class TurretState:
    """A portable Turret in the field (mutable).

    A minifig spends an Action to Set Up the Turret; it fires from the following turn. Moving
    or knocking it over means Setting Up again.
    """

    size: TurretSize
    weapon_size_in: float
    set_up_turn: int | None = None

    def __post_init__(self) -> None:
        if not 0 < self.weapon_size_in <= self.size.max_weapon_size_in:
            raise RulesError(
                f"a {self.size.name.title()} Turret mounts weapons up to "
                f"{self.size.max_weapon_size_in}\", got {self.weapon_size_in}\""
            )

    def set_up(self, turn: int) -> None:
        """Spend an Action on ``turn`` to Set Up the Turret."""
        self.set_up_turn = int(turn)

    def moved(self) -> None:
        """The Turret was moved or knocked over: it must be Set Up again."""
        self.set_up_turn = None

    def can_fire(self, turn: int) -> bool:
        """True from the turn after it was Set Up."""
        return self.set_up_turn is not None and turn > self.set_up_turn
