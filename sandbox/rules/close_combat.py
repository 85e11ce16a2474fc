"""Close Combat for Creations: Parry, Shove, Grab and the Creation limits (BrikWars 8.2).

8.2 leans on the minifig Close Combat of 5.2, which is not in the chapters shipped with the
project. What the code already plays for minifigs is kept: a Close Combat attack with a Melee
Weapon is an Action Roll against the weapon's Use (``Melee Weapon`` Use = Weapon Size + 1,
Damage = Weapon Size × the wielder's Action die; a ``Melee Shield`` Use = 2 × Weapon Size, it
only Parries or Shoves), at base contact (:data:`CLOSE_COMBAT_REACH_IN`). Readings chosen here,
each from the chapter's words:

- **Parry** is a Counter (8.2 "Mindless ... lacks the reflexes to Counter or Counterattack"):
  the defender, not the attacker, decides it, so at the table it is a standing order the
  defender's player gives on his own turn (which held weapon to Parry with) and it is rolled
  when an enemy's Close Combat attack, Shove or Grab lands. "Parrying a Close Combat attack acts
  as an attack against the incoming weapon": an Action Roll of the defender's Action die against
  the *parrying* weapon's Use, with the Target Size bonus of the *parried* weapon: +1 for every
  2" of its Weapon Size (5.1). A Shove or Grab made without a weapon has no Weapon Size to add.
- A successful Parry with a **Melee Weapon** stops the blow. A successful Parry with a **Melee
  Shield** "adds layers of Deflection equal to the Shield's Weapon Size" to the blow, each
  cancelling one Damage die, highest first (:func:`~sandbox.rules.damage.damage_after_deflection`);
  a Shove or Grab Parried by either is stopped.
- A **Critical Failure** on the Parry roll knocks the parrying weapon "out of the defender's
  hands and directly away from the attacker for a number of inches equal to the attacker's
  Action Roll" (the attack's total; a Shove or Grab that rolled none rolls the attacker's Action
  die for it, :func:`knock_away_inches`). The blow then lands as if not Parried.
- **Shove** and **Grab** are Automatic Hits ("their Shoves and Grabs aren't Automatic Hits" is
  said of Too Large Creations only). A Shove does no Damage and pushes the target straight away:
  :data:`SHOVE_KNOCKBACK_IN` (1") bare-handed, the Melee Shield's 2" KnockBack with a Shield,
  plus 8.1's Size KnockBack (1" per whole inch the shovers' Size exceeds the target's). A Grab
  holds the target: it cannot move until the grabber's side's next turn begins, or the grabber
  moves away, is Disrupted or destroyed.
- **Mindless**: a Creation controlled by an operator cannot Counter (no Parry) unless it is a
  Vehicle controlled by a trained Pilot (9.4); Creatures and minifigs are independent.
- **Too Large**: a Creation cannot Parry attacks from opponents smaller than half its Size; its
  Shoves and Grabs against such small targets are not Automatic Hits but an Action Roll against
  a Use equal to its Size (rounded up to a whole number). "Small target" is read with the same
  threshold, smaller than half its Size.
- **Too Small**: a Creation can only Shove targets its own Size or smaller; a Combined Attack
  adds the Sizes of every unit shoving together (the limit holds whenever a Creation is among
  the shovers; minifig Shoves keep 5.2's rules, not shipped). A Shove from a Creation larger
  than the defender is Parried at -2 Action per inch of Size difference (whole inches, any
  part counting).
- **Unmoving**: a Creation without an obvious leaping ability cannot use an Angry Inch. The Angry
  Inch (5.2, not shipped) is read as a 1" move beyond the unit's Move straight at a Close Combat
  target, only to reach base contact, as part of the attack it makes this turn.

Sizes and distances are inches.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Sequence

from ..core.dice import DiceStream, ExpressionRoll
from ..core.errors import RulesError
from .attacks import ActionRoll, Modifier, action_roll
from .damage import damage_after_deflection, size_knockback_in
from .weapons import WeaponProfile, WeaponType

#: Base contact for Close Combat, inches (bodies closer than this edge to edge touch).
CLOSE_COMBAT_REACH_IN: float = 0.5
#: The Angry Inch: the extra move a Close Combat attacker may make to reach its target (5.2).
ANGRY_INCH_IN: float = 1.0
#: KnockBack of a bare-handed Shove, inches (reading: a Shove moves its target at least 1").
SHOVE_KNOCKBACK_IN: float = 1.0

#: How a body is controlled (8.2 Mindless): ``independent`` (minifigs, Creatures), ``operator``
#: (a Creation run by an operator: Mindless) or ``pilot`` (a Vehicle with a trained Pilot, 9.4).
Control = Literal["independent", "operator", "pilot"]


@dataclass(frozen=True)
class Combatant:
    """One side of a Close Combat exchange.

    Attributes
    ----------
    name : str
    size_in : float
        Size, inches.
    creation : bool
        A Creation (8.2's limits apply), not a minifig or Creature.
    control : {"independent", "operator", "pilot"}
    action_die : int
    leaping : bool
        Has an obvious leaping ability (may use an Angry Inch).
    """

    name: str
    size_in: float = 1.0
    creation: bool = False
    control: Control = "independent"
    action_die: int = 6
    leaping: bool = False

    @property
    def mindless(self) -> bool:
        """A Creation controlled by an operator, not a Vehicle with a trained Pilot (8.2)."""
        return self.creation and self.control == "operator"


def too_large_against(big: Combatant, small: Combatant) -> bool:
    """``big`` is a Creation and ``small`` is smaller than half its Size (8.2 Too Large).

    >>> too_large_against(Combatant("walker", 4, True), Combatant("trooper", 1))
    True
    >>> too_large_against(Combatant("walker", 4, True), Combatant("tractor", 2, True))
    False
    """
    return big.creation and small.size_in < big.size_in / 2.0 - 1e-9


def counter_refusal(c: Combatant) -> str:
    """Why ``c`` cannot Counter (Parry) at all ("" when it can): 8.2 Mindless."""
    if c.mindless:
        return (f"{c.name} is Mindless (8.2): a Creation controlled by an operator lacks the "
                "reflexes to Counter or Counterattack, unless it is a Vehicle controlled by a "
                "trained Pilot (9.4)")
    return ""


def parrying_weapon_refusal(w: WeaponProfile) -> str:
    """Why ``w`` cannot Parry ("" when it can): only Close Combat weapons Parry (8.2)."""
    if w.weapon_type not in (WeaponType.MELEE_WEAPON, WeaponType.MELEE_SHIELD):
        return f"{w.name} is not a Close Combat weapon: only Melee Weapons and Shields Parry (8.2)"
    return ""


def parry_refusal(defender: Combatant, attacker: Combatant, weapon: WeaponProfile) -> str:
    """Why ``defender`` cannot Parry ``attacker`` with ``weapon`` now ("" when it can).

    Mindless Creations never Parry; Too Large Creations cannot Parry opponents smaller than
    half their Size (8.2).
    """
    reason = counter_refusal(defender) or parrying_weapon_refusal(weapon)
    if reason:
        return reason
    if too_large_against(defender, attacker):
        return (f'{defender.name} is Too Large (8.2): a Size {defender.size_in:g}" Creation '
                f'cannot Parry Close Combat attacks from the Size {attacker.size_in:g}" '
                f"{attacker.name}, smaller than half its Size")
    return ""


def size_difference_in(larger_in: float, smaller_in: float) -> int:
    """Whole inches of Size difference, any part of an inch counting (>= 0)."""
    return max(0, math.ceil(larger_in - smaller_in - 1e-9))


def parry_modifiers(defender: Combatant, attacker: Combatant,
                    parried: WeaponProfile | None, *, shove: bool = False,
                    attacker_size_in: float | None = None) -> list[Modifier]:
    """The modifiers of a Parry (8.2 Parrying, Too Small).

    Parameters
    ----------
    parried : WeaponProfile or None
        The incoming weapon: +1 per full 2" of its Weapon Size. None for a bare Shove or Grab.
    shove : bool
        Parrying a Shove: a Creation larger than the defender imposes -2 per inch of Size
        difference.
    attacker_size_in : float, optional
        The Shove's Size (a Combined Attack's total); defaults to the attacker's Size.

    Examples
    --------
    >>> from sandbox.rules.weapons import weapon_profile
    >>> [m.action for m in parry_modifiers(Combatant("a"), Combatant("b"),
    ...                                   weapon_profile("Melee Weapon", 4))]
    [2]
    >>> [m.action for m in parry_modifiers(Combatant("car", 2, True), Combatant("walker", 4, True),
    ...                                   None, shove=True)]
    [-4]
    """
    mods: list[Modifier] = []
    if parried is not None:
        bonus = int(math.floor(float(parried.size) / 2.0 + 1e-9))
        if bonus:
            mods.append(Modifier(f'Parried weapon Size {float(parried.size):g}" (+1 per 2")',
                                 bonus))
    size = attacker.size_in if attacker_size_in is None else attacker_size_in
    if shove and attacker.creation and size > defender.size_in + 1e-9:
        diff = size_difference_in(size, defender.size_in)
        mods.append(Modifier(f'Shove from a larger Creation ({diff}" bigger, -2 per inch)',
                             -2 * diff))
    return mods


@dataclass(frozen=True)
class ParryResult:
    """One Parry roll (8.2).

    Attributes
    ----------
    roll : ActionRoll
    weapon : WeaponProfile
        The parrying weapon.
    success : bool
    deflection_layers : int
        Layers a successful Shield Parry adds (0 otherwise).
    blocks : bool
        The blow (or Shove, Grab) is stopped outright.
    knocked_away : bool
        Critical Failure: the parrying weapon is knocked out of the defender's hands.
    """

    roll: ActionRoll
    weapon: WeaponProfile
    success: bool
    deflection_layers: int
    blocks: bool
    knocked_away: bool


def resolve_parry(stream: DiceStream, weapon: WeaponProfile, action_die: int,
                  modifiers: Sequence[Modifier] = (), *, against: str = "attack",
                  reason: str = "Parry") -> ParryResult:
    """Roll a Parry with ``weapon`` against its own Use (8.2 Parrying).

    Parameters
    ----------
    against : {"attack", "shove", "grab"}
        What is Parried: a Shield's success adds Deflection to an attack, and stops a Shove or
        Grab; a Melee Weapon's success stops all three.

    Raises
    ------
    RulesError
        For a weapon that cannot Parry.
    """
    why = parrying_weapon_refusal(weapon)
    if why:
        raise RulesError(why)
    act = action_roll(stream, action_die, int(weapon.use), modifiers, reason)
    shield = weapon.weapon_type is WeaponType.MELEE_SHIELD
    layers = int(weapon.deflection_on_parry) if act.hit and shield and against == "attack" else 0
    blocks = act.hit and not (shield and against == "attack")
    return ParryResult(act, weapon, act.hit, layers, blocks, act.critical_failure)


def parried_damage(roll: ExpressionRoll, parry: ParryResult | None, own_layers: int = 0) -> int:
    """Damage of a blow after a Parry: 0 when stopped; else the defender's own Deflection plus
    a Shield Parry's layers cancel the highest dice (8.2, 3.3)."""
    if parry is not None and parry.blocks:
        return 0
    layers = int(own_layers) + (parry.deflection_layers if parry is not None else 0)
    if layers <= 0:
        return roll.total
    return damage_after_deflection(roll, layers)


def knock_away_inches(attack: ActionRoll | None, stream: DiceStream | None = None,
                      action_die: int = 6, reason: str = "knock-away distance") -> int:
    """Inches a parrying weapon flies on a Critical Failure: the attacker's Action Roll (8.2).

    ``attack`` is the attacker's roll; when the move made none (an Automatic Hit Shove or Grab)
    the attacker's Action die is rolled from ``stream`` (reading).
    """
    if attack is not None:
        return max(0, int(attack.total))
    if stream is None:
        raise RulesError("no Action Roll to measure the knock-away by: pass a dice stream")
    return stream.roll(action_die, reason).result


# ------------------------------------------------------------------------------ Shove, Grab
def shove_refusal(shovers: Sequence[Combatant], target: Combatant) -> str:
    """Why ``shovers`` (one, or a Combined Attack) cannot Shove ``target`` (8.2 Too Small)."""
    if not shovers:
        raise RulesError("a Shove needs at least one shover")
    total = sum(s.size_in for s in shovers)
    if any(s.creation for s in shovers) and target.size_in > total + 1e-9:
        who = shovers[0].name if len(shovers) == 1 else " + ".join(s.name for s in shovers)
        return (f'Too Small (8.2): {who} (Size {total:g}") can only Shove targets of its own '
                f'Size or smaller, and {target.name} is Size {target.size_in:g}"; team up in a '
                "Combined Attack to add Sizes together")
    return ""


def grab_use(grabber: Combatant, target: Combatant) -> int | None:
    """The Use of a Shove or Grab: None for an Automatic Hit; a Too Large Creation against a
    small target rolls against its own Size (8.2).

    >>> grab_use(Combatant("walker", 4, True), Combatant("trooper", 1))
    4
    >>> grab_use(Combatant("trooper"), Combatant("walker", 4, True)) is None
    True
    """
    if too_large_against(grabber, target):
        return int(math.ceil(grabber.size_in - 1e-9))
    return None


def shove_knockback_in(shove_size_in: float, target_size_in: float,
                       shield: WeaponProfile | None = None) -> float:
    """Inches a Shove pushes its target (see the module notes): 1" bare, the Shield's 2" with a
    Melee Shield, plus 1" per whole inch the Shove's Size exceeds the target's (8.1, 8.2).

    >>> from sandbox.rules.weapons import weapon_profile
    >>> shove_knockback_in(4, 2), shove_knockback_in(1, 1)
    (3.0, 1.0)
    >>> shove_knockback_in(1, 1, weapon_profile("Melee Shield", 1))
    2.0
    """
    base = SHOVE_KNOCKBACK_IN
    if shield is not None:
        if shield.weapon_type is not WeaponType.MELEE_SHIELD:
            raise RulesError(f"{shield.name} is not a Melee Shield: it cannot Shove (8.2)")
        base = float(shield.shove_knockback_in)
    return base + size_knockback_in(shove_size_in, target_size_in)


@dataclass(frozen=True)
class HoldResult:
    """A Shove or Grab's own roll, before any Parry.

    Attributes
    ----------
    automatic : bool
        An Automatic Hit (no roll).
    roll : ActionRoll or None
    hit : bool
    """

    automatic: bool
    roll: ActionRoll | None
    hit: bool


def resolve_shove_or_grab(stream: DiceStream, mover: Combatant, target: Combatant,
                          modifiers: Sequence[Modifier] = (), reason: str = "Shove") -> HoldResult:
    """An Automatic Hit, or (Too Large against a small target) an Action Roll against the
    mover's Size (8.2)."""
    use = grab_use(mover, target)
    if use is None:
        return HoldResult(True, None, True)
    act = action_roll(stream, mover.action_die, use, modifiers,
                      f"{reason}: Action Roll vs {target.name} (Too Large, Use {use})")
    return HoldResult(False, act, act.hit)


def angry_inch_refusal(c: Combatant) -> str:
    """Why ``c`` cannot use an Angry Inch ("" when it can): 8.2 Unmoving."""
    if c.creation and not c.leaping:
        return (f"{c.name} is Unmoving (8.2): a Creation without an obvious leaping ability "
                "cannot use an Angry Inch")
    return ""
