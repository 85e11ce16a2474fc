"""Action Rolls and attacks: Range, Target Size, cover, Arc Fire, Burst Fire (BrikWars 5.1,
5.3 as Chapter 8 applies them; 8.3 Automatic Weapons; 8.5 Firing Weapons).

Distances and sizes are inches, measured from the end of the weapon barrel (8.2).

Readings of the rules used here (the chapter's text only implies them):

- An Action Roll hits when the natural roll plus modifiers *reaches* the Use rating
  (Burnination: 5 - 1 = 4 hits Use 4, 4 - 1 = 3 misses).
- A natural 1 is a Critical Failure and misses whatever the bonuses (Burnination, cottage).
- Over the Top: a natural maximum on the Action die earns a bonus die. If the attack already
  hits, it becomes an extra Damage die of the weapon's type (Burnination: a 6 earns "the extra
  Over the Top d4"); if it does not yet reach the Use rating, the bonus Action die is rolled and
  added (chaining on further maximums), which is how Use ratings above 6 can be met.
- Out of Range: -1 Action and -1 Damage per inch beyond Range, any part of an inch counting as
  a whole inch; the Damage penalty is applied to each die, floored at 0 (Burnination).
- Target Size: +1 per full 2" of target Size (Your Mama 4": +2); 0 for minifig Size (1" up to
  2"); -1 below 1" (a baby, "small Target Size"); -2 below ½" ("only tiny portions showing").
  Cover is read through the exposed Size: a target behind cover counts with the Size of the
  part that shows (Size × (1 - covered fraction)). This reproduces every number of the ShotGun
  Wedding: 1/3 cover on a minifig gives -1; an almost hidden minifig or baby gives -2.
  For large targets only the part inside the Firing Arc counts (8.3), so pass that part.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from ..core.dice import DiceExpression, DiceStream, ExpressionRoll, Roll
from ..core.errors import RulesError
from .damage import KnockBack, attack_knockback
from .weapons import WeaponProfile, WeaponType


@dataclass(frozen=True)
class Modifier:
    """One named bonus or penalty.

    Attributes
    ----------
    source : str
        Where it comes from, for the log ("Out of Range 1\\"", "Auto Penalty").
    action : int
        Added to the Action Roll.
    damage : int
        Added to the Damage.
    damage_per_die : bool
        When True the Damage modifier is applied to each die, floored at 0 (Out of Range).
    """

    source: str
    action: int = 0
    damage: int = 0
    damage_per_die: bool = False


# --------------------------------------------------------------------------------------------
# Range, Target Size, cover
# --------------------------------------------------------------------------------------------


def out_of_range_inches(distance_in: float, range_in: float) -> int:
    """Whole inches beyond Range, any part of an inch counting (BrikWars 5.1).

    Raises
    ------
    RulesError
        For negative values.

    Examples
    --------
    >>> out_of_range_inches(9, 8), out_of_range_inches(8, 8), out_of_range_inches(8.2, 8)
    (1, 0, 1)
    """
    if distance_in < 0 or range_in < 0:
        raise RulesError(f"distance ({distance_in}) and Range ({range_in}) must be >= 0 inches")
    return max(0, math.ceil(distance_in - range_in - 1e-9))


def out_of_range_modifier(distance_in: float, range_in: float) -> Modifier | None:
    """-1 Action and -1 Damage per die for every inch beyond Range (BrikWars 5.1, 8.4)."""
    n = out_of_range_inches(distance_in, range_in)
    if n == 0:
        return None
    return Modifier(f'Out of Range {n}"', -n, -n, damage_per_die=True)


def target_size_modifier(size_in: float) -> int:
    """Target Size modifier for a target (or the exposed part of it) of ``size_in`` inches.

    Returns
    -------
    int
        ``floor(size / 2)`` from 2" up; 0 from 1" to under 2"; -1 from ½" to under 1"; -2
        below ½" (see the module notes for the reading).

    Examples
    --------
    >>> [target_size_modifier(s) for s in (6, 4, 1, 0.5, 0.2)]
    [3, 2, 0, -1, -2]
    """
    if size_in < 0:
        raise RulesError(f"Target Size must be >= 0 inches, got {size_in}")
    if size_in >= 2.0:
        return int(math.floor(size_in / 2.0 + 1e-9))
    if size_in >= 1.0 - 1e-9:
        return 0
    if size_in >= 0.5 - 1e-9:
        return -1
    return -2


def exposed_size_in(size_in: float, cover_fraction: float = 0.0) -> float:
    """Size of the part of a target not behind cover, inches.

    Raises
    ------
    RulesError
        If ``cover_fraction`` is outside [0, 1), i.e. full cover leaves no line of fire.
    """
    if size_in < 0:
        raise RulesError(f"Target Size must be >= 0 inches, got {size_in}")
    if not 0.0 <= cover_fraction < 1.0:
        raise RulesError(
            f"cover fraction must be in [0, 1) (1 = fully hidden, no line of fire), "
            f"got {cover_fraction}"
        )
    return size_in * (1.0 - cover_fraction)


#: A measured cover fraction under this is no cover (a stray arm or a weapon's tip).
COVER_NOISE: float = 1.0 / 6.0
#: A measured fraction from this up is "almost completely shielded": taken as measured.
COVER_ALMOST_ALL: float = 5.0 / 6.0


def cover_in_thirds(measured: float) -> float:
    """The cover fraction a measured one counts as, read in thirds as the ShotGun Wedding reads
    cover (8.3: "Virginia has 1/3 cover from babies"; Purity "almost completely shielded ...
    With only tiny portions showing"): under 1/6 is no cover, then the nearest third, and from
    5/6 up (only tiny portions showing) the fraction itself. Full cover (1) stays 1: no line of
    fire.

    Raises
    ------
    RulesError
        Outside [0, 1].

    Examples
    --------
    >>> [round(cover_in_thirds(f), 3) for f in (0.1, 0.3, 0.45, 0.6, 0.9, 1.0)]
    [0.0, 0.333, 0.333, 0.667, 0.9, 1.0]
    """
    if not 0.0 <= measured <= 1.0:
        raise RulesError(f"a cover fraction is in [0, 1], got {measured}")
    if measured < COVER_NOISE:
        return 0.0
    if measured >= COVER_ALMOST_ALL:
        return float(measured)
    return round(measured * 3.0) / 3.0


def target_modifier(
    size_in: float, cover_fraction: float = 0.0, *, affects_damage: bool = False
) -> Modifier | None:
    """The Target Size and cover modifier, on the Action Roll and, for area attacks, Damage."""
    m = target_size_modifier(exposed_size_in(size_in, cover_fraction))
    if m == 0:
        return None
    label = "Target Size" if cover_fraction == 0 else "Target Size and cover"
    return Modifier(f"{label} {m:+d}", m, m if affects_damage else 0)


def auto_penalty(weapon: WeaponProfile, *, arc_points: int = 0, burst_shots: int = 0) -> int:
    """Auto Penalty: -1 per point of Firing Arc or per intended shot of a Burst (8.3).

    BlastGuns take none; weapons without automatic fire take none.
    """
    if arc_points < 0 or burst_shots < 0:
        raise RulesError(f"Arc ({arc_points}) and Burst ({burst_shots}) must be >= 0")
    if not weapon.auto_penalty:
        return 0
    return -(int(arc_points) + int(burst_shots))


# --------------------------------------------------------------------------------------------
# Action Roll and Damage Roll
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActionRoll:
    """The record of one Action Roll against a Use rating.

    Attributes
    ----------
    rolls : tuple of Roll
        The Action die and any bonus Action dice added Over the Top.
    use : int
    modifiers : tuple of Modifier
    total : int
        Natural dice plus Action modifiers.
    hit : bool
    critical_failure : bool
        Natural 1 on the first die.
    over_the_top_dice : int
        Bonus Damage dice earned (1 when a natural maximum was not needed to hit).
    """

    rolls: tuple[Roll, ...]
    use: int
    modifiers: tuple[Modifier, ...]
    total: int
    hit: bool
    critical_failure: bool
    over_the_top_dice: int

    @property
    def natural(self) -> int:
        """The first die as rolled, before bonuses or penalties."""
        return self.rolls[0].result


def action_roll(
    stream: DiceStream,
    action_die: int,
    use: int,
    modifiers: Sequence[Modifier] = (),
    reason: str = "Action Roll",
) -> ActionRoll:
    """Roll an Action Roll against ``use`` (BrikWars 5.1, 8.5 "compares the result to the Use").

    Parameters
    ----------
    stream : DiceStream
    action_die : int
        Sides of the rolling unit's Action (or Specialty) die.
    use : int
        The Use rating to reach.
    modifiers : sequence of Modifier
        Their ``action`` parts are added.
    reason : str

    Returns
    -------
    ActionRoll

    Raises
    ------
    RulesError
        For a Use rating below 0.
    """
    if use is None or use < 0:
        raise RulesError(f"a Use rating must be >= 0, got {use!r}")
    mods = tuple(m for m in modifiers if m is not None)
    bonus = sum(m.action for m in mods)
    first = stream.roll(action_die, reason)
    rolls = [first]
    total = first.result + bonus
    ott = 0
    if first.critical_failure:
        return ActionRoll(tuple(rolls), use, mods, total, False, True, 0)
    if first.maximum:
        if total >= use:
            ott = 1
        else:
            last = first
            while last.maximum and total < use:
                last = stream.roll(action_die, f"{reason} (Over the Top)")
                rolls.append(last)
                total += last.result
    return ActionRoll(tuple(rolls), use, mods, total, total >= use, False, ott)


def roll_damage(
    stream: DiceStream,
    damage: DiceExpression,
    modifiers: Sequence[Modifier] = (),
    *,
    bonus_dice: int = 0,
    action_die: int = 6,
    reason: str = "Damage",
) -> ExpressionRoll:
    """Roll Damage with modifiers: per-die ones on each die (floored at 0), the rest on the total.

    Parameters
    ----------
    damage : DiceExpression
        ``N Action dice`` expressions use ``action_die``.
    bonus_dice : int
        Over the Top dice earned by the Action Roll.
    """
    mods = [m for m in modifiers if m is not None]
    per = sum(m.damage for m in mods if m.damage_per_die)
    flat = sum(m.damage for m in mods if not m.damage_per_die)
    return damage.with_action_die(action_die).roll(
        stream, reason, per_die_modifier=per, flat_modifier=flat, bonus_dice=bonus_dice
    )


@dataclass(frozen=True)
class AttackResult:
    """One attack (one shot) at one target.

    Attributes
    ----------
    target : str
    action : ActionRoll
    damage : ExpressionRoll or None
        None on a miss (or for weapons whose Damage comes from their Payload).
    knockback : KnockBack or None
    jammed : bool
        A MachineGun fired this round and became Inoperative (8.3).
    """

    target: str
    action: ActionRoll
    damage: ExpressionRoll | None
    knockback: KnockBack | None = None
    jammed: bool = False

    @property
    def hit(self) -> bool:
        return self.action.hit

    @property
    def damage_total(self) -> int:
        return 0 if self.damage is None else self.damage.total


def _attack(
    stream: DiceStream,
    weapon: WeaponProfile,
    target: str,
    mods: list[Modifier],
    action_die: int,
    target_effective_size_in: float,
    reason: str,
    jam_threshold: int = 0,
) -> AttackResult:
    act = action_roll(stream, action_die, weapon.use, mods, f"{reason}: Action Roll vs {target}")
    jammed = weapon.may_jam and act.natural < jam_threshold
    if not act.hit or weapon.damage is None:
        return AttackResult(target, act, None, None, jammed)
    dmg = roll_damage(
        stream, weapon.damage, mods, bonus_dice=act.over_the_top_dice, action_die=action_die,
        reason=f"{reason}: Damage to {target}",
    )
    kb = attack_knockback(weapon, target_effective_size_in, dmg.total)
    return AttackResult(target, act, dmg, kb, jammed)


def _check_usable(weapon: WeaponProfile) -> None:
    if weapon.use is None:
        raise RulesError(f"{weapon.name} has no Use rating of its own (set by its Launcher)")


def resolve_attack(
    stream: DiceStream,
    weapon: WeaponProfile,
    *,
    action_die: int,
    distance_in: float = 0.0,
    target: str = "target",
    target_size_in: float = 1.0,
    cover_fraction: float = 0.0,
    target_effective_size_in: float | None = None,
    modifiers: Sequence[Modifier] = (),
    reason: str = "Attack",
) -> AttackResult:
    """One attack with one weapon at one target (BrikWars 8.5 Firing Weapons, 5.1).

    Range is checked from the barrel; Out of Range, Target Size and cover modifiers are added
    to ``modifiers``. A single shot's Target Size modifier affects only the Action Roll; use
    :func:`resolve_arc_fire` for BlastGuns and FlameThrowers (always Arc Fire).

    Parameters
    ----------
    distance_in : float
        Inches from the end of the barrel to the target (ignored for Close Combat).
    target_size_in : float
        Target Size, inches (the part that counts).
    target_effective_size_in : float, optional
        For KnockBack; defaults to ``target_size_in``.

    Raises
    ------
    RulesError
        For weapons that cannot attack this way.
    """
    _check_usable(weapon)
    if weapon.weapon_type in (WeaponType.BLASTGUN, WeaponType.FLAMETHROWER):
        raise RulesError(f"{weapon.name} always fires in a Firing Arc: use resolve_arc_fire()")
    mods = list(modifiers)
    if not weapon.close_combat and weapon.range_in is not None:
        mods.append(out_of_range_modifier(distance_in, weapon.range_in))
    mods.append(target_modifier(target_size_in, cover_fraction))
    mods = [m for m in mods if m is not None]
    es = target_size_in if target_effective_size_in is None else target_effective_size_in
    return _attack(stream, weapon, target, mods, action_die, es, reason)


# --------------------------------------------------------------------------------------------
# Arc Fire and Burst Fire (8.3)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ArcTarget:
    """A target inside a Firing Arc.

    Attributes
    ----------
    name : str
    size_in : float
        Size of the part of the target inside the Firing Arc, inches.
    distance_in : float
        From the end of the barrel, inches.
    cover_fraction : float
        Fraction of that part hidden by cover, [0, 1).
    arcs_spanned : int
        Full points of Firing Arc the target spans (one extra attack each).
    effective_size_in : float or None
        Whole target's Effective Size for KnockBack (defaults to ``size_in``).
    """

    name: str
    size_in: float = 1.0
    distance_in: float = 0.0
    cover_fraction: float = 0.0
    arcs_spanned: int = 0
    effective_size_in: float | None = None

    @property
    def attacks(self) -> int:
        """Attacks it receives: one for being in the Arc plus one per full point spanned."""
        return arc_attack_count(self.arcs_spanned)


def arc_attack_count(arcs_spanned: int) -> int:
    """Attacks on one target in Arc Fire: 1 + full points of Arc it spans (8.3).

    Examples
    --------
    >>> arc_attack_count(2)    # Your Mama
    3
    """
    if arcs_spanned < 0 or int(arcs_spanned) != arcs_spanned:
        raise RulesError(f"points of Arc spanned must be a whole number >= 0, got {arcs_spanned}")
    return 1 + int(arcs_spanned)


def arc_modifiers(weapon: WeaponProfile, arc_points: int, tgt: ArcTarget) -> list[Modifier]:
    """Modifiers of one Arc Fire shot: Auto Penalty, Range, Target Size/cover (also Damage),
    and BlastGun distance (Damage -1 per full inch from the barrel)."""
    mods: list[Modifier] = []
    pen = auto_penalty(weapon, arc_points=arc_points)
    if pen:
        mods.append(Modifier(f"Auto Penalty (Arc {arc_points})", pen))
    if weapon.range_in is not None:
        mods.append(out_of_range_modifier(tgt.distance_in, weapon.range_in))
    mods.append(target_modifier(tgt.size_in, tgt.cover_fraction, affects_damage=True))
    if weapon.distance_penalty:
        d = int(math.floor(tgt.distance_in + 1e-9))
        if d:
            mods.append(Modifier(f'BlastGun distance {d}"', 0, -d))
    return [m for m in mods if m is not None]


def _check_arc(weapon: WeaponProfile, arc_points: int) -> None:
    _check_usable(weapon)
    if not weapon.weapon_type.is_arc_weapon:
        raise RulesError(f"{weapon.name} cannot fire in a Firing Arc")
    if int(arc_points) != arc_points or arc_points < weapon.firing_arc_min:
        raise RulesError(
            f"{weapon.name} needs a whole Firing Arc of at least {weapon.firing_arc_min}, "
            f"got {arc_points}"
        )
    if weapon.firing_arc_fixed is not None and arc_points != weapon.firing_arc_fixed:
        raise RulesError(
            f"{weapon.name} has a fixed Firing Arc of {weapon.firing_arc_fixed}, got {arc_points}"
        )


@dataclass(frozen=True)
class FireResult:
    """All shots of one Arc Fire or Burst Fire attack, in order.

    Attributes
    ----------
    shots : tuple of AttackResult
    auto_penalty : int
    inoperative : bool
        The MachineGun jammed and must be Reloaded (8.3).
    """

    shots: tuple[AttackResult, ...]
    auto_penalty: int
    inoperative: bool = False

    def for_target(self, name: str) -> tuple[AttackResult, ...]:
        return tuple(s for s in self.shots if s.target == name)


def resolve_arc_fire(
    stream: DiceStream,
    weapon: WeaponProfile,
    arc_points: int,
    targets: Sequence[ArcTarget],
    *,
    action_die: int,
    modifiers: Sequence[Modifier] = (),
    reason: str = "Arc Fire",
) -> FireResult:
    """Arc Fire: every target in the Arc receives its attacks, in order (BrikWars 8.3).

    Each target gets one attack plus one per full point of Arc it spans; a cumulative -1 Auto
    Penalty per point of Arc applies to every Action Roll (none for BlastGuns); Target Size and
    cover modify Damage too; missed shots are ignored. A MachineGun whose natural roll is below
    the Auto Penalty fires that round and becomes Inoperative: the remaining shots are lost.

    Parameters
    ----------
    arc_points : int
        Points of Firing Arc (FlameThrower at least 1; BlastGun exactly 1).
    targets : sequence of ArcTarget
        Taken in order from one end of the Arc to the other.

    Raises
    ------
    RulesError
        For a weapon that cannot Arc Fire or a wrong Arc.
    """
    _check_arc(weapon, arc_points)
    pen = auto_penalty(weapon, arc_points=arc_points)
    shots: list[AttackResult] = []
    for tgt in targets:
        mods = list(modifiers) + arc_modifiers(weapon, arc_points, tgt)
        es = tgt.size_in if tgt.effective_size_in is None else tgt.effective_size_in
        for _ in range(tgt.attacks):
            shot = _attack(stream, weapon, tgt.name, mods, action_die, es, reason, -pen)
            shots.append(shot)
            if shot.jammed:
                return FireResult(tuple(shots), pen, True)
    return FireResult(tuple(shots), pen, False)


def resolve_burst_fire(
    stream: DiceStream,
    weapon: WeaponProfile,
    shots: int,
    target: ArcTarget,
    *,
    action_die: int,
    modifiers: Sequence[Modifier] = (),
    reason: str = "Burst Fire",
) -> FireResult:
    """Burst Fire: ``shots`` shots at one target with a -1 Auto Penalty per intended shot (8.3).

    Only MachineGuns fire Bursts. Target Size modifies the Action Roll only (a Burst is not an
    area attack). Jamming works as in Arc Fire.

    Raises
    ------
    RulesError
        For a weapon other than a MachineGun or fewer than 2 shots (one shot is a normal
        Ranged attack, :func:`resolve_attack`).
    """
    _check_usable(weapon)
    if weapon.weapon_type is not WeaponType.MACHINEGUN:
        raise RulesError(f"only MachineGuns fire Bursts, not {weapon.name}")
    if int(shots) != shots or shots < 2:
        raise RulesError(f"a Burst has at least 2 shots, got {shots}")
    pen = auto_penalty(weapon, burst_shots=shots)
    mods = list(modifiers) + [Modifier(f"Auto Penalty (Burst {shots})", pen)]
    mods.append(out_of_range_modifier(target.distance_in, weapon.range_in))
    mods.append(target_modifier(target.size_in, target.cover_fraction))
    mods = [m for m in mods if m is not None]
    es = target.size_in if target.effective_size_in is None else target.effective_size_in
    out: list[AttackResult] = []
    for _ in range(int(shots)):
        shot = _attack(stream, weapon, target.name, mods, action_die, es, reason, -pen)
        out.append(shot)
        if shot.jammed:
            return FireResult(tuple(out), pen, True)
    return FireResult(tuple(out), pen, False)


def arc_damage_expression(weapon: WeaponProfile, arc_points: int, tgt: ArcTarget,
                          action_die: int = 6) -> DiceExpression:
    """The Damage a target stands to take from Arc Fire, as an expression (8.3 ShotGun Wedding).

    Includes every flat Damage modifier (Target Size and cover, BlastGun distance); an Out of
    Range penalty, which applies per die, is folded in as ``-n`` per die.

    Examples
    --------
    >>> from sandbox.rules.weapons import bastard_gun
    >>> str(arc_damage_expression(bastard_gun("ShotGun"), 1, ArcTarget("parson", 1, 4.0)))
    '1d8-3'
    """
    _check_arc(weapon, arc_points)
    if weapon.damage is None:
        raise RulesError(f"{weapon.name}: Damage is determined by its Payload")
    expr = weapon.damage.with_action_die(action_die)
    delta = 0
    for m in arc_modifiers(weapon, arc_points, tgt):
        delta += m.damage * (expr.count if m.damage_per_die else 1)
    return expr.with_modifier(delta)


#: Firing at a target the attacker cannot see (over an obstacle): -5 Action (5.1, 8.4).
UNSEEN_TARGET = Modifier("target not visible", -5)
