"""Catching on Fire and burning minifigs (BrikWars 8.3 FlameThrowers, Catching On Fire).

Fire Damage is rolled in d4s. A minifig that takes at least one point of Fire Damage is on Fire;
on larger Creations a Fire may become a Field Hazard (F.1, not handled here).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..core.dice import DiceStream, ExpressionRoll, Roll
from ..core.errors import RulesError
from .attacks import Modifier
from .stats import BattleState, UnitKind

#: The Fire die (8.3: "Damage Ratings in d4s").
FIRE_DIE: int = 4
#: Grinding Damage a burning minifig takes on a failed Burning Roll.
BURNING_GRINDING_DAMAGE: int = 1
#: Fire spreads only to flammable objects of this Weight class or less.
FIRE_SPREAD_MAX_WEIGHT_CLASS: int = 1


class FireOutcome(enum.Enum):
    """What Fire Damage does to its target."""

    NONE = "none"
    ON_FIRE = "on Fire"  # a minifig now burns
    HAZARD_CHECK = "hazard check"  # a larger Creation: F.1 Hazard Dice decide


def fire_outcome(roll: ExpressionRoll, target: BattleState) -> FireOutcome:
    """Whether Fire Damage sets its target on Fire (BrikWars 8.3 Catching On Fire).

    A minifig taking at least one point of Fire Damage is on Fire; a Critical Failure on the
    Fire Damage roll, or Damage reduced to zero by penalties, has no effect. Creatures made of
    Fire are not affected. Other targets that take Fire Damage go to the Field Hazard rules.

    Raises
    ------
    RulesError
        If ``roll`` is not Fire Damage.
    """
    if roll.expression.kind != "Fire":
        raise RulesError(f"{roll.expression} is not Fire Damage")
    if roll.critical_failure or roll.total <= 0 or target.spec.made_of_fire:
        return FireOutcome.NONE
    if target.spec.kind is UnitKind.MINIFIG:
        return FireOutcome.ON_FIRE
    return FireOutcome.HAZARD_CHECK


def apply_fire(roll: ExpressionRoll, target: BattleState) -> FireOutcome:
    """:func:`fire_outcome`, setting ``target.on_fire`` when a minifig catches Fire."""
    out = fire_outcome(roll, target)
    if out is FireOutcome.ON_FIRE:
        target.on_fire = True
    return out


def burning_penalty(stream: DiceStream, target: BattleState, reason: str = "") -> Modifier | None:
    """The -1d4 penalty to Action Rolls and Armor of a burning minifig (8.3), rolled now.

    Returns None when the unit is not burning (or is made of Fire). The returned modifier's
    ``action`` is the penalty; apply the same number to Armor.
    """
    if not target.on_fire or target.spec.made_of_fire:
        return None
    r = stream.roll(FIRE_DIE, reason or f"on Fire penalty ({target.spec.name})")
    return Modifier(f"on Fire -{r.result}", -r.result)


@dataclass(frozen=True)
class BurningRoll:
    """A Burning Roll made at the start of a burning minifig's turn (8.3).

    Attributes
    ----------
    roll : Roll
    extinguished : bool
        A 1: the Fire goes out.
    grinding_damage : int
        1 otherwise: one limb of the player's choice becomes useless.
    may_spread : bool
        The Fire may spread to one flammable object of Weight class 1 or less in contact.
    """

    roll: Roll
    extinguished: bool
    grinding_damage: int
    may_spread: bool


def burning_roll(stream: DiceStream, target: BattleState) -> BurningRoll:
    """Make the 1d4 Burning Roll and apply it to ``target`` (BrikWars 8.3).

    Raises
    ------
    RulesError
        If the unit is not on Fire.
    """
    if not target.on_fire:
        raise RulesError(f"{target.spec.name} is not on Fire")
    r = stream.roll(FIRE_DIE, f"Burning Roll ({target.spec.name})")
    if r.result == 1:
        target.on_fire = False
        return BurningRoll(r, True, 0, False)
    target.useless_limbs += 1
    return BurningRoll(r, False, BURNING_GRINDING_DAMAGE, True)


def can_spread_fire_to(weight_class: int, flammable: bool = True) -> bool:
    """Fire spreads only to flammable objects of Weight class 1 or less (the ground is not)."""
    return flammable and weight_class <= FIRE_SPREAD_MAX_WEIGHT_CLASS


def stop_drop_and_roll(target: BattleState) -> None:
    """Spend an Action to put the Fire out: the minifig is Disrupted (8.3)."""
    target.on_fire = False
    target.disrupted = True


def douse(target: BattleState) -> None:
    """Doused in water: the Fire is out (8.3)."""
    target.on_fire = False


def panic_run_in(target: BattleState) -> float:
    """Inches a minifig still burning at the end of its turn must run, thrashing (8.3).

    Every unused inch of Move; 0 for units not burning or made of Fire.
    """
    if not target.on_fire or target.spec.made_of_fire:
        return 0.0
    return target.move_left_in
