"""Damage against Armor and Deflection, cumulative damage, Size Damage, Explosions, KnockBack.

BrikWars 8.1 (KnockBack), 8.4 (Heavy Explosions, Premature Detonation), 7.2 as the chapter's
examples apply it. Distances and KnockBack are inches.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

from ..core.dice import DiceExpression, DiceStream, ExpressionRoll
from ..core.errors import RulesError
from .weapons import WeaponProfile, WeaponType

#: Radius of each ring of an Explosion, inches (8.4: "within a two-inch radius").
EXPLOSION_RING_IN: float = 2.0


class ArmorOutcome(enum.Enum):
    """Damage compared with Armor (8.4 Wall Demolition)."""

    HELD = "held"  # Damage below Armor: no effect
    MATCHED = "matched"  # Damage equal to Armor: survives (players may describe a wound)
    DESTROYED = "destroyed"  # Damage above Armor


def compare_damage_to_armor(damage: int, armor: int) -> ArmorOutcome:
    """Compare a Damage total with an Armor value or Armor roll (BrikWars 8.4 example).

    Damage must *exceed* Armor: the wall's Armor roll of 15 falls to 16 but holds against 9,
    and 4 Collision Damage "precisely matches Private Reale's Armor of 4" without killing him.

    Raises
    ------
    RulesError
        For negative values.

    Examples
    --------
    >>> compare_damage_to_armor(16, 15).value, compare_damage_to_armor(4, 4).value
    ('destroyed', 'matched')
    """
    if damage < 0 or armor < 0:
        raise RulesError(f"Damage ({damage}) and Armor ({armor}) must be >= 0")
    if damage > armor:
        return ArmorOutcome.DESTROYED
    if damage == armor:
        return ArmorOutcome.MATCHED
    return ArmorOutcome.HELD


def roll_armor(stream: DiceStream, armor: DiceExpression, reason: str = "Armor") -> ExpressionRoll:
    """Roll a creation's Armor (e.g. a wall's ``3d10``); constant Armor rolls no dice."""
    return armor.roll(stream, reason, over_the_top=False)


def damage_after_deflection(roll: ExpressionRoll, layers: int, *, piercing_dice: int = 0) -> int:
    """Damage left after Deflection (BrikWars 3.3 as 8.2 and 8.4 use it).

    Each layer of Deflection cancels one Damage die, the highest first ("negating multiple dice
    of Damage all at once", 8.2 Parrying). Each Armor Piercing die cancels one layer (8.4);
    Phased d12s are not affected by Deflection at all.

    Parameters
    ----------
    roll : ExpressionRoll
    layers : int
        Layers of Deflection (>= 0).
    piercing_dice : int
        Armor Piercing dice that reached the target.

    Returns
    -------
    int
        Damage total after removing the cancelled dice (never below 0).
    """
    if layers < 0 or piercing_dice < 0:
        raise RulesError(f"Deflection layers ({layers}) and piercing dice must be >= 0")
    if roll.kinds:  # mixed dice (8.4): each die by its kind
        per = roll.per_die_modifier
        vals = [(max(0, r.result + per), k) for g, k in zip(roll.groups, roll.kinds, strict=True)
                for r in g if k != "KnockBack"]
        piercing = piercing_dice + sum(k == "Piercing" for _, k in vals)
        effective = max(0, layers - piercing)
        kept = [v for v, k in vals if k == "Phased"]
        kept += sorted((v for v, k in vals if k != "Phased"), reverse=True)[effective:]
        return max(0, sum(kept) + roll.expression.modifier + roll.flat_modifier)
    if roll.expression.kind == "Phased":
        return roll.total
    effective = max(0, layers - piercing_dice)
    values = sorted(roll.values, reverse=True)[effective:]
    return max(0, sum(values) + roll.expression.modifier + roll.flat_modifier)


@dataclass
class CumulativeDamage:
    """Damage a creation (or a component) has taken against one Armor roll (mutable).

    A creation rolls its Armor once; later Damage in the same turn adds up against that roll
    ("even counting it as Cumulative Damage with the 9 Explosion Damage taken earlier", 8.4).
    Reading: the roll and the tally last until :meth:`new_turn`.
    """

    armor: DiceExpression
    armor_roll: int | None = None
    damage_taken: int = 0
    destroyed: bool = False
    history: list[int] = field(default_factory=list)

    def take(self, damage: int, stream: DiceStream | None = None) -> ArmorOutcome:
        """Add ``damage`` and compare the total with the Armor roll (rolled on first need).

        Raises
        ------
        RulesError
            For negative Damage, or when the Armor must be rolled and no stream is given.
        """
        if damage < 0:
            raise RulesError(f"Damage must be >= 0, got {damage}")
        if self.armor_roll is None:
            if self.armor.count and stream is None:
                raise RulesError(f"Armor {self.armor} must be rolled: pass a dice stream")
            if self.armor.count:
                self.armor_roll = roll_armor(stream, self.armor).total
            else:
                self.armor_roll = self.armor.modifier
        self.damage_taken += int(damage)
        self.history.append(int(damage))
        outcome = compare_damage_to_armor(self.damage_taken, self.armor_roll)
        if outcome is ArmorOutcome.DESTROYED:
            self.destroyed = True
        return outcome

    def new_turn(self) -> None:
        """Forget the Armor roll and the tally (a destroyed component stays destroyed)."""
        self.armor_roll = None
        self.damage_taken = 0
        self.history.clear()


def size_damage_in(damage: int, armor: int) -> float:
    """Inches of Size Damage a Creature or Creation takes from one hit (reading of 7.2).

    Chapter 7 is not part of this text; the reading used here is one inch of Size Damage for
    each hit whose Damage exceeds the Armor (Scorpiosaurus Rex "takes an inch of Size Damage").
    """
    return 1.0 if compare_damage_to_armor(damage, armor) is ArmorOutcome.DESTROYED else 0.0


# --------------------------------------------------------------------------------------------
# KnockBack (8.1, 8.3, 8.4)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KnockBack:
    """A KnockBack to apply (the physical push is done by physics).

    Attributes
    ----------
    inches : float
    may_disrupt : bool
        False for ShotGun/BlastGun KnockBack ("no Disruption").
    resisted : bool
        True when the target may oppose it (Concussion, Collision); Explosion KnockBack is not.
    source : str
    """

    inches: float
    may_disrupt: bool = True
    resisted: bool = False
    source: str = ""


def explosion_knockback_in(dice_count: int) -> float:
    """KnockBack from an Explosion: 1" per die of Explosion Damage received (8.1, 8.4)."""
    if dice_count < 0:
        raise RulesError(f"dice count must be >= 0, got {dice_count}")
    return float(dice_count)


def size_knockback_in(weapon_size_in: float, target_effective_size_in: float) -> float:
    """Non-Explosive KnockBack: 1" per whole inch the Weapon Size exceeds the target (8.1).

    Returns 0 when the target is not smaller than the weapon.
    """
    if weapon_size_in < 0 or target_effective_size_in < 0:
        raise RulesError(
            f"sizes must be >= 0, got {weapon_size_in} and {target_effective_size_in}"
        )
    return float(max(0, math.floor(weapon_size_in - target_effective_size_in + 1e-9)))


def attack_knockback(
    weapon: WeaponProfile, target_effective_size_in: float, damage: int
) -> KnockBack | None:
    """KnockBack from one hit of a non-Explosive weapon (BrikWars 8.1, 8.3).

    A BlastGun (ShotGun) knocks minifig-size or smaller targets that take any Damage back 1"
    without Disruption; any non-Explosive weapon knocks back smaller targets 1" per inch of
    Size difference (with the usual chance of Disruption). The larger applies.

    Returns
    -------
    KnockBack or None
    """
    if weapon.explosive:
        raise RulesError(f"{weapon.name}: Explosion KnockBack comes from explosion_rings()")
    size_kb = size_knockback_in(weapon.size, target_effective_size_in)
    blast_kb = (
        weapon.minifig_knockback_in
        if weapon.minifig_knockback_in and damage > 0 and target_effective_size_in <= 1.0
        else 0.0
    )
    if size_kb <= 0 and blast_kb <= 0:
        return None
    if size_kb >= blast_kb:
        return KnockBack(size_kb, True, False, f"{weapon.name} Size difference")
    return KnockBack(blast_kb, False, False, f"{weapon.name} blast (no Disruption)")


# --------------------------------------------------------------------------------------------
# Heavy Explosions (8.4)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExplosionRing:
    """One two-inch ring of an Explosion.

    Attributes
    ----------
    inner_in, outer_in : float
        The ring covers distances ``inner_in < d <= outer_in`` from the blast (the first ring
        includes 0).
    damage : int
        Damage to every object or Component in the ring.
    knockback_in : float
        KnockBack to loose objects: 1" per die still in the roll (bonus dice included).
    dice : tuple of int
        Values of the dice still counted.
    kinds : tuple of str
        Damage kind of each die in ``dice`` ("Exp", "Phased", "Piercing", "Fire",
        "KnockBack"...); empty when unknown (every die then counts as the caller's variant).
    sides : tuple of int
        Size of each die in ``dice`` (empty when unknown: d10s).
    resisted_in : float
        The part of ``knockback_in`` the target opposes with its Physical Opposition
        (Concussion d6s, 8.4); the rest is not resisted.
    flat : int or None
        The roll's flat modifiers carried by the ring (None: ``damage - sum(dice)``).
    """

    inner_in: float
    outer_in: float
    damage: int
    knockback_in: float
    dice: tuple[int, ...]
    kinds: tuple[str, ...] = ()
    sides: tuple[int, ...] = ()
    resisted_in: float = 0.0
    flat: int | None = None


def explosion_rings(roll: ExpressionRoll) -> tuple[ExplosionRing, ...]:
    """Damage and KnockBack per two-inch ring of an Explosion (BrikWars 8.4 Heavy Explosions).

    The full roll hits everything within 2"; for each further 2" the highest d10 is removed
    (with the Bonus Dice it earned) and the rest counts, until no dice remain. Per-die and flat
    modifiers of the roll apply in every ring.

    Parameters
    ----------
    roll : ExpressionRoll
        The Explosion Damage roll (e.g. ``3d10 Exp``).

    Returns
    -------
    tuple of ExplosionRing
        One ring per die group; empty for a roll with no dice.

    Examples
    --------
    Wall Demolition: a 3d10 Explosion rolls 3, 6 and 7.

    >>> from sandbox.core.dice import Dice, DiceExpression
    >>> s = Dice(0, forced={"x": [3, 6, 7]}).stream("x")
    >>> [r.damage for r in explosion_rings(DiceExpression.parse("3d10 Exp").roll(s))]
    [16, 9, 3]
    """
    per = roll.per_die_modifier
    flat = roll.expression.modifier + roll.flat_modifier
    kinds = roll.group_kinds
    order = {k: i for i, k in enumerate(dict.fromkeys(kinds))}  # kinds in the order written
    groups = [(tuple(max(0, r.result + per) for r in g), kinds[j], g[0].sides, order[kinds[j]])
              for j, g in enumerate(roll.groups)]
    rings = []
    radius = 0.0
    while groups:
        dice = tuple(v for g in groups for v in g[0])
        rings.append(
            ExplosionRing(radius, radius + EXPLOSION_RING_IN, max(0, sum(dice) + flat),
                          explosion_knockback_in(len(dice)), dice,
                          tuple(g[1] for g in groups for _ in g[0]),
                          tuple(g[2] for g in groups for _ in g[0]), 0.0, flat)
        )
        radius += EXPLOSION_RING_IN
        # remove the group whose die is highest; on a tie between die types the attacker
        # chooses (8.4): reading, the kind written last goes first (an Explosive's leftover
        # d10s before the variant dice bought for it); same kind: the first such
        highest = max(range(len(groups)), key=lambda i: (groups[i][0][0], groups[i][3], -i))
        groups.pop(highest)
    return tuple(rings)


def explosion_at(rings: tuple[ExplosionRing, ...], distance_in: float) -> ExplosionRing | None:
    """The ring that reaches ``distance_in`` inches from the blast, or None beyond the last.

    Raises
    ------
    RulesError
        For a negative distance.
    """
    if distance_in < 0:
        raise RulesError(f"distance must be >= 0 inches, got {distance_in}")
    for ring in rings:
        if distance_in <= ring.outer_in + 1e-9:
            return ring
    return None


def stack_explosions(rolls: list[ExpressionRoll], distance_in: float) -> tuple[int, float]:
    """Damage and KnockBack at ``distance_in`` from several Explosions in one spot (8.4).

    Damage and KnockBack stack; the radii do not combine.

    Returns
    -------
    (int, float)
        Total Damage and total KnockBack inches.
    """
    dmg, kb = 0, 0.0
    for r in rolls:
        ring = explosion_at(explosion_rings(r), distance_in)
        if ring is not None:
            dmg += ring.damage
            kb += ring.knockback_in
    return dmg, kb


class Stability(enum.Enum):
    """How readily an Explosive goes off when damaged (8.4 Premature Detonation)."""

    UNSTABLE = "Unstable"
    SEMI_STABLE = "Semi-Stable"


def premature_detonation(stability: Stability, damage: int, xsize: int) -> str | None:
    """Whether Damage to an Explosive sets it off (BrikWars 8.4).

    Returns
    -------
    str or None
        ``"now"`` for an Unstable Explosive taking any damage; ``"end of turn"`` for a
        Semi-Stable one taking more damage than its XSize (then it counts as Unstable);
        None otherwise.
    """
    if damage < 0 or xsize < 0:
        raise RulesError(f"Damage ({damage}) and XSize ({xsize}) must be >= 0")
    if stability is Stability.UNSTABLE:
        return "now" if damage >= 1 else None
    return "end of turn" if damage > xsize else None


def explosive_power_in(weapon: WeaponProfile, *, from_launcher: bool) -> float:
    """Power an Explosive or Rocket needs (8.1): its XSize if fired or dropped directly, 0 when
    a Launcher or Cannon fires it (the Launcher's own Weapon Size counts instead)."""
    if weapon.weapon_type not in (WeaponType.EXPLOSIVE, WeaponType.ROCKET):
        raise RulesError(f"{weapon.name} is not an Explosive or Rocket")
    return 0.0 if from_launcher else float(weapon.size)
