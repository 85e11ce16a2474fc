"""BrikWars' shared effects on the table: the one place that spends a unit's Action, Disrupts
a body and lands a weapon's hit.

Every system that needs one of them calls these functions with the table (the engine's
interface to systems) instead of writing the effect again:

- :func:`spend_action`: a unit uses its one Action of the turn (core rules: one Action per
  unit per turn; an attack, a Reload, a Sprint, a Shove, a stop-drop-and-roll ...). The
  record is the Skirmish system's turn state, reset when its owner's turn ends.
- :func:`disrupt`: a body is Disrupted (it neither moves nor acts until it recovers at the end
  of its owner's turn): the landing of a Payload without Flight (13.2 The Big Drop), KnockBack
  that leaves a unit lying (8.4), a Slippery fall (F.1), stopping, dropping and rolling (8.3).
- :func:`strike`: weapon Damage lands on a body, whoever fired it (a unit's attack, a Weapon
  Trap, a Payload in flight, a Close Combat blow, a scripted FlameThrower). The target's
  Energy Shield meets the dice, a burning target's Armor counts its on-Fire penalty (F.1), and
  the weapon's on-hit effects (:class:`~sandbox.rules.weapons.WeaponProfile` ``ignites``,
  ``knocks_back``, ``disrupts``) follow; a burning attacker adds its 1d4 Fire (F.1).

Lengths are inches, Z up.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ...rules.weapons import WeaponProfile
from .defences import dice_of

if TYPE_CHECKING:  # pragma: no cover
    from ...core.dice import ExpressionRoll
    from ...engine.table import BodyState, TableAPI
    from ...rules.damage import KnockBack

#: Damage dice kinds that set what they hit alight (8.3, F.1).
IGNITING_KINDS = ("Fire", "Acid", "Poison")


# ------------------------------------------------------------------------------ Action
def spend_action(table: "TableAPI", unit: str) -> None:
    """``unit`` uses its one Action this turn (recorded until its owner's turn ends)."""
    table.system("skirmish").turn_state.acted.add(unit)


def has_acted(table: "TableAPI", unit: str) -> bool:
    """Whether ``unit`` has used its Action this turn."""
    return unit in table.system("skirmish").turn_state.acted


# ------------------------------------------------------------------------------ Disruption
def disrupt(table: "TableAPI", victim: "BodyState", why: str, *, log: bool = True,
            **fields: Any) -> bool:
    """Disrupt ``victim`` (it neither moves nor acts until it recovers at the end of its
    owner's turn). ``why`` ends the logged sentence ("by the landing", "slips ... (F.1)").

    Returns False, changing and logging nothing, when it was already Disrupted or is destroyed;
    ``log`` False: the caller logs the Disruption with its own event.
    """
    if victim.damage.disrupted or victim.damage.destroyed:
        return False
    victim.damage.disrupted = True
    if log:
        table.log("disrupted", f"{victim.name} {why}", body=victim.key, **fields)
    return True


# ------------------------------------------------------------------------------ KnockBack
def knockback(table: "TableAPI", target: str, inches: float, away_from: Sequence[float]) -> None:
    """Push ``target`` away from the table point ``away_from`` ((2,) or (3,) inches) so that it
    flies about ``inches`` (8.1): the table's one KnockBack push without an explosion (attacks,
    Weapon Traps, Shoves 8.2). A 45° hop of range v²/g; fixed bodies do not move."""
    g = table
    if target not in g.world.bodies or g.world.bodies[target].static:
        return
    d = g.footprint_centre(target) - np.asarray(away_from, float)[:2]
    n = float(np.linalg.norm(d))
    d = d / n if n > 1e-9 else np.array([1.0, 0.0])
    speed = math.sqrt(inches * g.world.gravity)
    v = speed / math.sqrt(2.0)
    g.world.set_velocity(target, (d[0] * v, d[1] * v, v))
    g.log("knockback", f'{g.bodies[target].name} is knocked back {inches:g}"',
          body=target, inches=inches)


# ------------------------------------------------------------------------------ the one strike
def strike(table: "TableAPI", target: "BodyState", roll: "ExpressionRoll", what: str, *,
           weapon: WeaponProfile | None = None, attacker: str | None = None,
           igniter: str | None = None, at: Sequence[float] | None = None,
           melee: bool = False, knock: "KnockBack | None" = None,
           knock_from: Sequence[float] | None = None, dice: Any = None,
           fire_source: str | None = None) -> None:
    """Weapon Damage ``roll`` lands on ``target``: every hit of the table comes through here.

    Parameters
    ----------
    target : BodyState
        What is hit.
    roll : ExpressionRoll
        The rolled Damage (its total goes against Armor; its dice meet an Energy Shield).
    what : str
        The Damage in words for the log ("Damage from Bob's Size 2\\" Gun (2d6)").
    weapon : WeaponProfile, optional
        The weapon: its on-hit effects apply (``ignites``, ``knocks_back``, ``disrupts``).
        None: only the Damage dice's kind decides (Fire, Acid, Poison dice set alight).
    attacker : str, optional
        Body key of the firer; a burning attacker adds 1d4 Fire (F.1). None: a Trap, a
        referee's strike.
    igniter : str, optional
        Who controls a Fire it starts (a player; default the attacker's owner).
    at : (3,) float, optional
        Where it lands, inches (where a Fire starts; default the target's top centre).
    melee : bool
        Action-die Damage (Close Combat): an Energy Shield meets it as d6s (F.1).
    knock : KnockBack, optional
        The hit's KnockBack (8.1), applied when the weapon ``knocks_back``.
    knock_from : (2,) or (3,) float, optional
        The point it pushes away from (default the attacker's footprint centre).
    dice : list of (sides, value), optional
        The dice an Energy Shield meets, when not the roll's own (Crash Damage d6s).
    fire_source : str, optional
        What a Fire it starts is logged as coming from (default ``what``).

    The sequence (8.1, 8.3, F.1): Damage against Armor (less the on-Fire penalty of a burning
    target, rolled on stream ``fire``: F.1 "Units and objects that are on fire ... their Armor
    ratings both suffer a -1 penalty"); then Fire; then the burning attacker's Fire; then
    Disruption; then KnockBack.
    """
    g = table
    defences = g.system("defences")
    # every hit is logged against the Armor, a 0 too
    g.damage(target, int(roll.total), what,
             dice=dice if dice is not None else dice_of(roll, 6 if melee else None),
             armor_penalty=defences.on_fire_penalty(target.key, "Armor"))
    ignites = (weapon.ignites if weapon is not None
               else getattr(roll.expression, "kind", None) in IGNITING_KINDS)
    if ignites and target.key in g.world.bodies and not target.damage.destroyed:
        owner = g.bodies[attacker].owner if attacker in g.bodies else None
        g.system("hazards").fire.ignite(target.key, roll, at=at, source=fire_source or what,
                                        igniter=igniter if igniter is not None else owner)
    if attacker is not None:
        defences.burning_strike(attacker, target, what, at=at)
    if weapon is not None and weapon.disrupts:
        disrupt(g, target, f"is Disrupted by the {weapon.name} (on hit)")
    if (weapon is not None and weapon.knocks_back and knock is not None and knock.inches > 0
            and not target.damage.destroyed):
        if knock_from is None:
            knock_from = g.footprint_centre(attacker) if attacker in g.world.bodies else None
        if knock_from is not None:
            knockback(g, target.key, knock.inches, knock_from)
