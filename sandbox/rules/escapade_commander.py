"""The Commander: Strategy bricks, Reinforcements and Strategic Bombardment costs (BrikWars 13.2).

Readings chosen where the text is unclear (13.2 The Commander):

- A kill earns a Strategy brick only when the killer belongs to the Commander's own force (not
  an ally), the victim is an enemy of Size 1" or more (its Size, not its damaged Value), and the
  Commander or one of his Scouts, on the table, witnessed it. The Commander then spends one
  Action per kill to relay it; unrelayed kills stay pending until relayed (the text sets no
  deadline).
- Reinforcements from the Army cost one brick per Unit Inch, rounded up to whole bricks
  (bricks are whole); reserve units cost nothing.
- Strategic Bombardment: one brick per point of Explosive Damage, per Unit Inch of delivered
  units and per inch of supply Payload Size; the attack's Use is four times the bricks spent;
  the Big Drop is held 5" up per brick; a drop zone takes at most its Size in bricks.
"""

from __future__ import annotations

import math
from typing import Iterable

from sandbox.core.errors import RulesError

from .escapade_forces import ForceUnit

__all__ = [
    "MIN_KILL_SIZE_INCHES",
    "BOMBARDMENT_USE_PER_BRICK",
    "BIG_DROP_INCHES_PER_BRICK",
    "kill_earns_strategy",
    "reinforcement_cost",
    "bombardment_cost",
    "bombardment_use",
    "big_drop_height_inches",
    "check_drop_zone",
]

#: A witnessed kill earns a Strategy brick only for victims at least this Size (inches).
MIN_KILL_SIZE_INCHES: float = 1.0
#: Use rating of a Strategic Bombardment per Strategy brick spent.
BOMBARDMENT_USE_PER_BRICK: int = 4
#: Big Drop release height per Strategy brick, inches.
BIG_DROP_INCHES_PER_BRICK: float = 5.0


def kill_earns_strategy(
    *,
    victim_size_inches: float,
    victim_is_enemy: bool,
    killer_in_commanders_force: bool,
    witnessed_by_commander_or_scout: bool,
    commander_on_field: bool,
) -> bool:
    """Whether a kill can be relayed for one Strategy brick (13.2 Strategic Intervention).

    Parameters
    ----------
    victim_size_inches : float
        Size of the killed or destroyed unit, inches.
    victim_is_enemy : bool
    killer_in_commanders_force : bool
        The killer is one of "his forces".
    witnessed_by_commander_or_scout : bool
        The Commander or one of his Scouts saw it (decided by the game layer).
    commander_on_field : bool
        A Commander of that force is alive on the table to relay it.
    """
    if victim_size_inches < 0:
        raise RulesError(f"victim Size must be >= 0 inches, got {victim_size_inches!r}")
    return (
        victim_size_inches >= MIN_KILL_SIZE_INCHES
        and victim_is_enemy
        and killer_in_commanders_force
        and witnessed_by_commander_or_scout
        and commander_on_field
    )


def reinforcement_cost(
    new_units: Iterable[ForceUnit], reserve_units: Iterable[ForceUnit] = ()
) -> int:
    """Strategy bricks to call in Reinforcements (13.2 Reinforcements).

    One brick per Unit Inch of fresh units from the Army, rounded up; reserve units are free.
    Fresh units are not bound by the Hero's Size limit.

    Examples
    --------
    >>> reinforcement_cost([ForceUnit("a", 1), ForceUnit("b", 3)])
    4
    """
    del reserve_units  # free by rule; accepted so callers can pass the whole call
    return int(math.ceil(sum(u.unit_inches for u in new_units) - 1e-9))


def bombardment_cost(
    explosive_damage: int = 0, unit_inches: float = 0.0, supply_inches: float = 0.0
) -> int:
    """Strategy bricks for a Strategic Bombardment Payload (13.2 Strategic Bombardment).

    Parameters
    ----------
    explosive_damage : int
        Explosive Damage delivered (one brick each).
    unit_inches : float
        Unit Inches of Reinforcements delivered, from Army or reserve (one brick each).
    supply_inches : float
        Payload Size in inches of non-unit, non-Explosive supplies (one brick each).

    Raises
    ------
    RulesError
        For negative amounts or an empty Payload.
    """
    parts = (explosive_damage, unit_inches, supply_inches)
    if any(p < 0 for p in parts):
        raise RulesError(f"Bombardment amounts must be >= 0, got {parts!r}")
    cost = int(explosive_damage) + math.ceil(unit_inches - 1e-9) + math.ceil(supply_inches - 1e-9)
    if cost == 0:
        raise RulesError(f"a Bombardment needs a Payload, got {parts!r}")
    return cost


def bombardment_use(bricks: int) -> int:
    """Use rating of a Strategic Bombardment: four times the Strategy bricks spent (13.2)."""
    if bricks < 1:
        raise RulesError(f"a Bombardment spends at least one Strategy brick, got {bricks!r}")
    return BOMBARDMENT_USE_PER_BRICK * int(bricks)


def big_drop_height_inches(bricks: int) -> float:
    """Release height in inches for The Big Drop: 5" per Strategy brick spent (13.2)."""
    if bricks < 1:
        raise RulesError(f"a Bombardment spends at least one Strategy brick, got {bricks!r}")
    return BIG_DROP_INCHES_PER_BRICK * int(bricks)


def check_drop_zone(bricks: int, zone_size_inches: float) -> None:
    """Raise :class:`RulesError` if a drop-zone Bombardment spends more bricks than its Size.

    BrikWars 13.2 Drop Zones; ``zone_size_inches`` is the drop zone's Size in inches.
    """
    if bricks > zone_size_inches:
        raise RulesError(
            f"{bricks} Strategy bricks exceed the drop zone's Size of {zone_size_inches:g}\""
        )
