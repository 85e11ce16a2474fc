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
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ...core.units import Vec
from ...rules.damage import damage_after_deflection
from ...rules.weapons import WeaponProfile
from .defences import dice_of

if TYPE_CHECKING:  # pragma: no cover
    from ...core.dice import ExpressionRoll
    from ...engine.table import BodyState, Table
    from ...rules.damage import KnockBack

#: Damage dice kinds that set what they hit alight (8.3, F.1).
IGNITING_KINDS = ("Fire", "Acid", "Poison")


# ------------------------------------------------------------------------------ Action
def spend_action(table: "Table", unit: str) -> None:
    """``unit`` uses its one Action this turn (recorded until its owner's turn ends)."""
    table.system("skirmish").turn_state.acted.add(unit)


def has_acted(table: "Table", unit: str) -> bool:
    """Whether ``unit`` has used its Action this turn."""
    return unit in table.system("skirmish").turn_state.acted


# ------------------------------------------------------------------------------ Disruption
def disrupt(table: "Table", victim: "BodyState", why: str, *, log: bool = True,
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
def knockback(table: "Table", target: str, inches: float, away_from: Sequence[float]) -> None:
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
def strike(table: "Table", target: "BodyState", roll: "ExpressionRoll", what: str, *,
           weapon: WeaponProfile | None = None, attacker: str | None = None,
           igniter: str | None = None, at: Vec | None = None,
           melee: bool = False, knock: "KnockBack | None" = None,
           knock_from: Sequence[float] | None = None, dice: Any = None,
           fire_source: str | None = None, part: str | None = None) -> None:
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
    part : {"unarmored", "joint"}, optional
        The section aimed at (8.2 Armor Plating): past the Plating, or a hinge or joint, whose
        Armor is one d10 lower (8.1, 7.1); None: any section, so the target's ``deflection``
        layers (Armor Plating, Heavy Armor) meet the dice (:func:`deflect`).

    The sequence (8.1, 8.3, F.1): Damage against Armor (less the on-Fire penalty of a burning
    target, rolled on stream ``fire``: F.1 "Units and objects that are on fire ... take a -1
    penalty to their Action and Armor Rolls", read as 8.3's -1d4); then Fire; then the
    burning attacker's Fire; then Disruption; then KnockBack.
    """
    g = table
    defences = g.system("defences")
    roll = deflect(g, target, roll, part)
    joint = weak_point_penalty(g, target) if part == "joint" else 0
    # every hit is logged against the Armor, a 0 too
    defences.damage(target, int(roll.total), what,
                    dice=dice if dice is not None else dice_of(roll, 6 if melee else None),
                    armor_penalty=defences.on_fire_penalty(target.key, "Armor") + joint)
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
        away: Any = knock_from
        if away is None and attacker is not None and attacker in g.world.bodies:
            away = g.footprint_centre(attacker)
        if away is not None:
            knockback(g, target.key, knock.inches, away)


# ------------------------------------------------------------------------------ Armor Plating
def deflect(table: "Table", target: "BodyState", roll: "ExpressionRoll",
            part: str | None = None) -> "ExpressionRoll":
    """The hit's Damage after the target's layers of Deflection (8.2 Armor Plating,
    "Deflection over covered area"; 3.3 Heavy Armor): each layer cancels one Damage die, the
    highest first (Armor Piercing dice cancel layers, Phased dice pass: 8.4,
    :func:`~sandbox.rules.damage.damage_after_deflection`).

    Reading (8.2: "Unless they specifically target an un-Armored section, their attack will
    Koincidentally hit any section of Armor Plating that is visible and within range"): every
    hit meets the layers unless it is aimed (``part``) at an un-Armored section or a joint of a
    body whose Plating covers only ``part`` of it. Returns the roll that lands (the same roll
    when nothing is cancelled); logs a ``deflection`` event."""
    layers = int(getattr(target.stats, "deflection", 0) or 0)
    if layers <= 0 or (part is not None and getattr(target.stats, "plating", None) == "part"):
        return roll
    left = damage_after_deflection(roll, layers)
    if left >= roll.total:
        return roll
    if not roll.kinds and roll.expression.kind != "Phased":
        keep = sorted(range(len(roll.rolls)), key=lambda i: -roll.values[i])[layers:]
        groups = tuple((roll.rolls[i],) for i in sorted(keep))
        out = replace(roll, groups=groups, n_base=min(roll.n_base, len(groups)))
    else:  # mixed dice: the total the rule leaves (the dice stay for an Energy Shield)
        out = replace(roll, flat_modifier=roll.flat_modifier - (roll.total - left))
    what = ("Armor Plating" if getattr(target.stats, "plating", None) else "Deflection")
    table.log("deflection", f"{target.name}'s {what} cancels {layers} Damage "
              f"di{'e' if layers == 1 else 'ce'}: {roll.total} -> {out.total} (8.2 Deflection "
              "over covered area)", body=target.key, layers=layers, before=roll.total,
              after=out.total)
    return out


def weak_point_penalty(table: "Table", target: "BodyState") -> int:
    """A hit on a hinge or joint: "weak points Armored at one d10 lower than the rest of the
    Creation" (8.1 Ranged Weapons, 7.1). Reading: the Creation's Armor less one d10, rolled on
    the ``armor`` stream for this hit; returns that penalty (<= 0)."""
    r = table.dice.stream("armor").roll(10, f"{target.name}'s joint: one d10 less Armor")
    table.log("weak_point", f"The hit strikes {target.name} at a joint: Armor {-r.result:+d} "
              "(one d10 lower, 8.1)", body=target.key, penalty=-r.result)
    return -int(r.result)
