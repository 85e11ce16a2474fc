"""Collision Damage, falls, crashes and The Big Drop (pure rules: no physics imports).

Sources
-------
- BrikWars 8.4, Heavy Explosions, "Explosion Example: Wall Demolition": a tower that falls
  back after being thrown about two inches up takes **1d6 Collision Damage** from the ground,
  and so does the minifig riding it. The roll is compared with Armor: a result that *equals*
  the minifig's Armor of 4 does not kill him, so Damage must **exceed** Armor to destroy.
  A creation's Armor Roll (3d10 for the wall, rolling 15) is made once and later Damage is
  counted as Cumulative Damage against it (9 Explosion + 4 Collision = 13 < 15: unharmed).
- BrikWars 13.2, Strategic Bombardment and The Big Drop: "hold the payload 5" off the ground
  for every Strategy brick spent"; "Unit and supply Payloads without Flight ability or
  parachutes take Collision Damage on impact and are Disrupted"; Use = 4 x bricks spent.

Reading chosen where the book is silent
---------------------------------------
The book gives no speed for "a fall". We count an impact as a fall or a hard strike when the
relative normal speed reaches what a drop of one inch (a minifig's Size, BrikWars' smallest
unit of consequence) produces: ``sqrt(2 g · 1 in)`` ≈ 27.8 in/s. Slower contacts (sliding,
settling, a brick set down) roll nothing. One impact rolls one d6, as in the book's example;
a body that bounces rolls again only for a new impact above the threshold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core.dice import DiceStream, Roll
from ..core.errors import RulesError
from ..core.units import GRAVITY_IN_S2

#: Inches of drop height per Strategy brick (BrikWars 13.2, The Big Drop).
BIG_DROP_INCHES_PER_BRICK: float = 5.0
#: Use per Strategy brick of a Strategic Bombardment (BrikWars 13.2).
BOMBARDMENT_USE_PER_BRICK: int = 4
#: Minimum drop height that counts as a fall, inches (see module docstring).
FALL_MIN_HEIGHT_IN: float = 1.0
#: Relative normal speed (in/s) from which an impact rolls Collision Damage.
COLLISION_MIN_SPEED_IN_S: float = math.sqrt(2.0 * GRAVITY_IN_S2 * FALL_MIN_HEIGHT_IN)
#: Dice of Collision Damage per qualifying impact (a d6 each; Wall Demolition example).
COLLISION_DICE: int = 1
COLLISION_DIE: int = 6


def big_drop_height(strategy_bricks: int) -> float:
    """Height (inches) above the ground at which a Big Drop Payload is released.

    BrikWars 13.2, The Big Drop: 5" for every Strategy brick spent.

    Raises
    ------
    RulesError
        If ``strategy_bricks`` is not a positive whole number.

    Examples
    --------
    >>> big_drop_height(3)
    15.0
    """
    if int(strategy_bricks) != strategy_bricks or strategy_bricks < 1:
        raise RulesError(f"a Big Drop needs at least 1 Strategy brick, got {strategy_bricks!r}")
    return BIG_DROP_INCHES_PER_BRICK * int(strategy_bricks)


def bombardment_use(strategy_bricks: int) -> int:
    """Use rating of a Strategic Bombardment: 4 x Strategy bricks spent (BrikWars 13.2)."""
    if int(strategy_bricks) != strategy_bricks or strategy_bricks < 1:
        raise RulesError(f"a Bombardment needs at least 1 Strategy brick, got {strategy_bricks!r}")
    return BOMBARDMENT_USE_PER_BRICK * int(strategy_bricks)


def equivalent_fall_height(normal_speed: float) -> float:
    """Drop height (inches) that gives this impact speed (in/s): ``v² / 2g``."""
    return float(normal_speed) ** 2 / (2.0 * GRAVITY_IN_S2)


def collision_dice(normal_speed: float) -> int:
    """Number of d6 of Collision Damage for an impact at ``normal_speed`` (in/s).

    0 below :data:`COLLISION_MIN_SPEED_IN_S` (a fall of less than 1"), else
    :data:`COLLISION_DICE` (BrikWars 8.4, Wall Demolition: 1d6).

    Raises
    ------
    RulesError
        If the speed is negative or not finite.
    """
    if not math.isfinite(normal_speed) or normal_speed < 0:
        raise RulesError(f"impact speed must be a finite non-negative in/s, got {normal_speed!r}")
    return COLLISION_DICE if normal_speed >= COLLISION_MIN_SPEED_IN_S else 0


def roll_collision_damage(stream: DiceStream, normal_speed: float, victim: str) -> list[Roll]:
    """Roll Collision Damage for one impact; an empty list when it is too gentle to count."""
    n = collision_dice(normal_speed)
    return stream.roll_many(n, COLLISION_DIE, f"Collision Damage to {victim}")


@dataclass
class DamageState:
    """Mutable damage bookkeeping of one unit or creation component.

    Attributes
    ----------
    armor_roll : int or None
        The Armor value Damage is compared with. Fixed Armor (a minifig's 4) is known from
        the start; dice Armor (a wall's 3d10) is rolled at the first Damage and kept
        (BrikWars 8.4, Wall Demolition: the wall's "earlier Armor Roll of 15").
    cumulative_damage : int
        Damage taken so far by a creation (Cumulative Damage). Units with fixed Armor compare
        each attack on its own.
    destroyed, disrupted : bool
        Status flags.
    """

    armor_roll: int | None = None
    cumulative_damage: int = 0
    destroyed: bool = False
    disrupted: bool = False

    def to_dict(self) -> dict:
        return {
            "armor_roll": self.armor_roll,
            "cumulative_damage": self.cumulative_damage,
            "destroyed": self.destroyed,
            "disrupted": self.disrupted,
        }


@dataclass(frozen=True)
class DamageOutcome:
    """Result of applying Damage to one target.

    Attributes
    ----------
    damage : int
        This attack's Damage.
    compared_with : int
        The Armor (or Armor Roll) it was compared with.
    total : int
        Damage counted against Armor: this attack alone, or Cumulative Damage for creations.
    destroyed : bool
        True when ``total`` exceeds the Armor.
    armor_rolls : tuple of Roll
        Dice rolled for the Armor Roll now (empty when the Armor was already known).
    """

    damage: int
    compared_with: int
    total: int
    destroyed: bool
    armor_rolls: tuple[Roll, ...] = ()


def apply_damage(
    state: DamageState,
    damage: int,
    armor_fixed: int | None,
    armor_dice: tuple[int, int] | None,
    cumulative: bool,
    stream: DiceStream,
    victim: str,
) -> DamageOutcome:
    """Apply Damage to a target and update its :class:`DamageState`.

    Parameters
    ----------
    state : DamageState
        Changed in place.
    damage : int
        Points of Damage (>= 0).
    armor_fixed : int or None
        Fixed Armor (a minifig's 4).
    armor_dice : (count, sides) or None
        Armor in dice (3d10 -> ``(3, 10)``), rolled once at the first Damage.
    cumulative : bool
        Creations count Cumulative Damage; units compare each hit alone.
    stream : DiceStream
        Where the Armor Roll comes from.
    victim : str
        Name for the log.

    Returns
    -------
    DamageOutcome

    Raises
    ------
    RulesError
        If Damage is negative or the Armor is given both or neither way.
    """
    if damage < 0:
        raise RulesError(f"Damage cannot be negative, got {damage}")
    if (armor_fixed is None) == (armor_dice is None):
        raise RulesError(f"{victim}: give Armor either as a number or as dice, not "
                         f"{armor_fixed!r}/{armor_dice!r}")
    rolls: tuple[Roll, ...] = ()
    if state.armor_roll is None:
        if armor_fixed is not None:
            state.armor_roll = int(armor_fixed)
        else:
            count, sides = armor_dice  # type: ignore[misc]
            rolls = tuple(stream.roll_many(count, sides, f"Armor Roll of {victim}"))
            state.armor_roll = sum(r.result for r in rolls)
    if cumulative:
        state.cumulative_damage += int(damage)
        total = state.cumulative_damage
    else:
        total = int(damage)
    destroyed = total > state.armor_roll
    if destroyed:
        state.destroyed = True
    return DamageOutcome(int(damage), int(state.armor_roll), total, destroyed, rolls)
