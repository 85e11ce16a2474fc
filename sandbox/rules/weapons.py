"""Weapon stats as functions of Weapon Size (BrikWars 8.1 Weapon Size, 8.2 Basic Weapons).

Every statistic scales with the weapon's Size in inches (WSize), or for an Explosive or Rocket
with its Explosive Size (XSize, counted in construction bricks).

Reconstruction of the Weapons and Devices table
-----------------------------------------------
The chapter text lost the die symbols of the Damage column ("× ", "(× ) - (distance)"). They
are rebuilt from the worked examples and the minifig tables of the same chapter:

- FlameThrower ``WSize d4 Fire``: Burnination, "a Size 3" FlameThrower (Use:4 Range:8"
  Damage:3d4(Fire))".
- BlastGun ``WSize d8 - distance``: ShotGun Wedding, the Bastard (1½") BlastGun does "a full
  1d8+1 Damage" in its first inch.
- Gun and MachineGun ``WSize d6``: a Size 1" Gun is the minifig Short-Ranged Weapon (1d6); the
  Bastard Gun and AutoGun are "+1" on it (1d6+1).
- Melee Weapon ``WSize × Action die``: Ripper Blade, "4 Action dice of Damage".
- Explosive and Rocket ``XSize d10 Exp``: 8.4, "Explosion Damage is based around the d10".
- Cannon max Ammo XSize = WSize (8.4 Ammunition); Launcher max Explosive Payload XSize = WSize,
  max object Payload ½ WSize rounded down (8.4 Payload Launchers).

Costs are not in this chapter's table. Melee Weapon ``WSize × 2`` CP is the Ripper Blade's
("It costs 8CP (Weapon Size ×2)"); the others follow the BrikWars 2010 table (Melee Shield ×1,
Gun ×3, BlastGun ×3, MachineGun ×4, FlameThrower ×3, Launcher ×3, Explosive 1 CP per XSize).
Rocket, Cannon and Armor Plating have no cost in either text: ``cost_cp`` is None.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from ..core.dice import DiceExpression, DiceSum
from ..core.errors import RulesError


class WeaponType(enum.Enum):
    """Rows of the Weapons and Devices table (8.1)."""

    MELEE_WEAPON = "Melee Weapon"
    MELEE_SHIELD = "Melee Shield"
    GUN = "Gun"
    BLASTGUN = "BlastGun"
    MACHINEGUN = "MachineGun"
    FLAMETHROWER = "FlameThrower"
    EXPLOSIVE = "Explosive"
    ROCKET = "Rocket"
    CANNON = "Cannon"
    LAUNCHER = "Launcher"
    ARMOR_PLATING = "Armor Plating"

    @property
    def sized_by_xsize(self) -> bool:
        """Explosives and Rockets are measured in bricks of Explosive Size (8.1)."""
        return self in (WeaponType.EXPLOSIVE, WeaponType.ROCKET)

    @property
    def is_arc_weapon(self) -> bool:
        """Weapons that fire in a Firing Arc (8.3 Arc Fire)."""
        return self in (WeaponType.BLASTGUN, WeaponType.MACHINEGUN, WeaponType.FLAMETHROWER)

    @property
    def is_ranged(self) -> bool:
        return self not in (
            WeaponType.MELEE_WEAPON,
            WeaponType.MELEE_SHIELD,
            WeaponType.ARMOR_PLATING,
            WeaponType.EXPLOSIVE,
        )


@dataclass(frozen=True)
class WeaponProfile:
    """The stats of one weapon (immutable).

    Attributes
    ----------
    name : str
    weapon_type : WeaponType
    size : float
        Weapon Size in inches, or XSize in bricks for Explosives and Rockets.
    cost_cp : float or None
        Cost in CP; None where the rule text gives none.
    use : int or None
        Use rating: the Action Roll must reach it. None: set by the Launcher or Cannon (an
        Explosive) or by the thrown object.
    range_in : float or None
        Range in inches; 0 for Close Combat (CC); None when set by the Launcher/Cannon.
    damage : DiceExpression or None
        Damage rating; None when "determined by Ammo/Payload" (Cannon, Launcher).
    power_in : float
        Inches of Power needed to activate it (8.1 Power Limits); Armor Plating needs none.
    firing_arc_min : int
        Minimum Firing Arc in points (FlameThrower 1).
    firing_arc_fixed : int or None
        A fixed Firing Arc (BlastGun 1).
    auto_penalty : bool
        Takes an Auto Penalty of -1 per point of Arc / shot of Burst (8.3).
    distance_penalty : bool
        Damage -1 per full inch from the barrel (BlastGun).
    target_size_affects_damage : bool
        Area weapons: Target Size and cover modify Damage too (8.3).
    may_jam : bool
        MachineGun: may become Inoperative and require Reload.
    reload_each_shot : bool
        Cannon: each shot requires Reload.
    max_ammo_xsize : int or None
        Cannon: largest Ammo XSize.
    max_payload_size_in : float or None
        Launcher: largest group of regular objects, inches.
    max_payload_xsize : int or None
        Launcher: largest combined XSize of Explosives.
    deflection_on_parry : int
        Melee Shield: layers of Deflection on a successful Parry.
    shove_knockback_in : float
        Melee Shield: KnockBack on a Shove (2").
    minifig_knockback_in : float
        BlastGun/ShotGun: KnockBack to minifig-size targets that take Damage (no Disruption).
    half_speed : bool
        Armor Plating: the Creation moves at Half Speed.
    no_alternate_movement : bool
        Armor Plating.
    hands : int or None
        Hands needed for a minifig Bastard weapon.
    notes : tuple of str
        The table's notes in words.
    ignites : bool
        On hit: its Damage sets what it hits alight (8.3 "Fire Damage", F.1 Catching Fire).
        Given None, it is True when the Damage dice are Fire, Acid or Poison dice.
    knocks_back : bool
        On hit: KnockBack by Size difference (8.1) pushes the target.
    disrupts : bool
        On hit: the target is Disrupted (a stunning weapon; none of the 8.1 table's rows).

    The on-hit effects are applied by the table's one strike
    (:func:`sandbox.games.brikwars.effects.strike`), whoever fires: a unit, a Weapon Trap, a
    Payload in flight.
    """

    name: str
    weapon_type: WeaponType
    size: float
    cost_cp: float | None
    use: int | None
    range_in: float | None
    damage: DiceExpression | DiceSum | None
    power_in: float
    firing_arc_min: int = 0
    firing_arc_fixed: int | None = None
    auto_penalty: bool = False
    distance_penalty: bool = False
    target_size_affects_damage: bool = False
    may_jam: bool = False
    reload_each_shot: bool = False
    max_ammo_xsize: int | None = None
    max_payload_size_in: float | None = None
    max_payload_xsize: int | None = None
    deflection_on_parry: int = 0
    shove_knockback_in: float = 0.0
    minifig_knockback_in: float = 0.0
    half_speed: bool = False
    no_alternate_movement: bool = False
    hands: int | None = None
    notes: tuple[str, ...] = ()
    ignites: bool | None = None
    knocks_back: bool = True
    disrupts: bool = False

    def __post_init__(self) -> None:
        if self.ignites is None:
            kind = getattr(self.damage, "kind", None)
            object.__setattr__(self, "ignites", kind in ("Fire", "Acid", "Poison"))

    @property
    def close_combat(self) -> bool:
        """Range CC."""
        return self.range_in == 0

    @property
    def explosive(self) -> bool:
        return self.weapon_type.sized_by_xsize


def _whole_size(size: float, what: str) -> int:
    if isinstance(size, bool) or not isinstance(size, (int, float)) or math.isnan(size):
        raise RulesError(f"{what} must be a number, got {size!r}")
    if size <= 0 or size != int(size):
        raise RulesError(
            f"{what} must be a whole number of inches > 0, got {size!r} "
            "(use bastard_gun() for 1½\" minifig weapons, throwing_arm() for ½\" arms)"
        )
    return int(size)


def weapon_profile(weapon_type: WeaponType | str, size: float, name: str = "") -> WeaponProfile:
    """Stats of a weapon of Weapon Size (or XSize) ``size`` (BrikWars 8.1 table, 8.2-8.4).

    Parameters
    ----------
    weapon_type : WeaponType or str
        Row of the table (``"Gun"``, ``WeaponType.FLAMETHROWER``...).
    size : int
        Weapon Size in whole inches, or XSize in bricks for Explosives and Rockets.
    name : str, optional
        Defaults to ``"Size N\\" <type>"``.

    Returns
    -------
    WeaponProfile

    Raises
    ------
    RulesError
        If the size is not a whole number above 0, or the type is unknown.

    Examples
    --------
    >>> p = weapon_profile("Melee Weapon", 4)     # the Ripper Blade
    >>> p.cost_cp, p.use, str(p.damage)
    (8, 5, '4 Action dice')
    >>> p = weapon_profile("FlameThrower", 3)     # Burnination
    >>> p.use, p.range_in, str(p.damage)
    (4, 8, '3d4 Fire')
    """
    try:
        wt = weapon_type if isinstance(weapon_type, WeaponType) else WeaponType(weapon_type)
    except ValueError:
        raise RulesError(f"unknown weapon type {weapon_type!r}") from None
    w = _whole_size(size, "XSize" if wt.sized_by_xsize else "Weapon Size")
    unit = "XSize " if wt.sized_by_xsize else "Size "
    label = name or f"{unit}{w}{'' if wt.sized_by_xsize else chr(34)} {wt.value}"
    common = dict(name=label, weapon_type=wt, size=w, power_in=float(w))

    if wt is WeaponType.MELEE_WEAPON:
        return WeaponProfile(**common, cost_cp=2 * w, use=w + 1, range_in=0,
                             damage=DiceExpression(w, None))
    if wt is WeaponType.MELEE_SHIELD:
        return WeaponProfile(**common, cost_cp=w, use=2 * w, range_in=0, damage=None,
                             deflection_on_parry=w, shove_knockback_in=2.0,
                             notes=("Parry or Shove only", "can provide cover"))
    if wt is WeaponType.GUN:
        return WeaponProfile(**common, cost_cp=3 * w, use=w + 2, range_in=4 * w + 2,
                             damage=DiceExpression(w, 6))
    if wt is WeaponType.BLASTGUN:
        return WeaponProfile(**common, cost_cp=3 * w, use=w + 1, range_in=2 * w + 2,
                             damage=DiceExpression(w, 8), firing_arc_min=1, firing_arc_fixed=1,
                             distance_penalty=True, target_size_affects_damage=True,
                             minifig_knockback_in=1.0,
                             notes=("1 Firing Arc", "No Auto Penalty",
                                    "1\" KnockBack to minifigs (no Disruption)"))
    if wt is WeaponType.MACHINEGUN:
        return WeaponProfile(**common, cost_cp=4 * w, use=w + 2, range_in=3 * w + 2,
                             damage=DiceExpression(w, 6), auto_penalty=True,
                             target_size_affects_damage=True, may_jam=True,
                             notes=("may require Reload",))
    if wt is WeaponType.FLAMETHROWER:
        return WeaponProfile(**common, cost_cp=3 * w, use=w + 1, range_in=2 * w + 2,
                             damage=DiceExpression(w, 4, kind="Fire"), firing_arc_min=1,
                             auto_penalty=True, target_size_affects_damage=True,
                             notes=("min. 1 Firing Arc",))
    if wt is WeaponType.EXPLOSIVE:
        return WeaponProfile(**common, cost_cp=w, use=None, range_in=None,
                             damage=DiceExpression(w, 10, kind="Exp"),
                             notes=("ranged stats determined by Launcher or Cannon, if any",))
    if wt is WeaponType.ROCKET:
        return WeaponProfile(**common, cost_cp=None, use=2 * w, range_in=6 * w,
                             damage=DiceExpression(w, 10, kind="Exp"))
    if wt is WeaponType.CANNON:
        return WeaponProfile(**common, cost_cp=None, use=w + 3, range_in=4 * w, damage=None,
                             reload_each_shot=True, max_ammo_xsize=w,
                             notes=("each shot requires Reload", f"max Ammo XSize of {w}"))
    if wt is WeaponType.LAUNCHER:
        return WeaponProfile(**common, cost_cp=3 * w, use=2 * w, range_in=6 * w, damage=None,
                             max_payload_size_in=float(w // 2), max_payload_xsize=w,
                             notes=(f"max Payload Size of {w // 2}\"",
                                    f"max Payload XSize of {w}"))
    # Armor Plating
    return WeaponProfile(**{**common, "power_in": 0.0}, cost_cp=None, use=None, range_in=None,
                         damage=None, half_speed=True, no_alternate_movement=True,
                         notes=("Deflection over covered area", "Half Speed",
                                "No alternate Movement", "doesn't use Power"))


#: Weapon Size of a minifig Bastard (M) weapon, inches (8.1: between S 1" and L 2").
BASTARD_SIZE_IN: float = 1.5


def _bastard(name, wt, use, rng, dmg, **kw) -> WeaponProfile:
    return WeaponProfile(name=name, weapon_type=wt, size=BASTARD_SIZE_IN, cost_cp=None, use=use,
                         range_in=rng, damage=DiceExpression.parse(dmg) if dmg else None,
                         power_in=BASTARD_SIZE_IN, hands=2, **kw)


#: Minifig Bastard Guns (8.1 table). The Hands column lost its symbols; they are read as
#: Two-Handed like the core Long-Ranged Weapon. Costs are not given in this chapter.
BASTARD_GUNS: dict[str, WeaponProfile] = {
    "Bastard Gun": _bastard("Bastard Gun", WeaponType.GUN, 3, 10, "1d6+1",
                            notes=("Long-Ranged Weapon (M)",)),
    "ShotGun": _bastard("ShotGun", WeaponType.BLASTGUN, 3, 6, "1d8+1", firing_arc_min=1,
                        firing_arc_fixed=1, distance_penalty=True,
                        target_size_affects_damage=True, minifig_knockback_in=1.0,
                        notes=("1 Firing Arc, no Auto Penalty",
                               "1\" KnockBack to minifigs or smaller (no Disruption)")),
    "AutoGun": _bastard("AutoGun", WeaponType.MACHINEGUN, 3, 8, "1d6+1", auto_penalty=True,
                        target_size_affects_damage=True, may_jam=True,
                        notes=("may require Reload",)),
    "FlameGun": _bastard("FlameGun", WeaponType.FLAMETHROWER, 2, 5, "1d4+1 Fire",
                         firing_arc_min=1, auto_penalty=True, target_size_affects_damage=True),
    "Bazooka": _bastard("Bazooka", WeaponType.CANNON, 4, 6, None, reload_each_shot=True,
                        max_ammo_xsize=1,
                        notes=("max Ammo XSize of 1", "each shot requires Reload")),
    "RailGun": _bastard("RailGun", WeaponType.LAUNCHER, 4, 8, None, max_payload_size_in=1.0,
                        max_payload_xsize=2,
                        notes=("Max Payload Size of 1\"", "max Payload XSize of 2")),
}


def bastard_gun(name: str) -> WeaponProfile:
    """A minifig Bastard Gun by name ("ShotGun", "AutoGun", "FlameGun", "Bazooka", ...).

    Raises
    ------
    RulesError
        For an unknown name.
    """
    for key, prof in BASTARD_GUNS.items():
        if key.lower() == str(name).lower():
            return prof
    raise RulesError(f"no Bastard Gun called {name!r} (known: {sorted(BASTARD_GUNS)})")


# --------------------------------------------------------------------------------------------
# Hand-held categories (8.1 Hand-Held Weapons, Compensating)
# --------------------------------------------------------------------------------------------


class HandCategory(enum.Enum):
    """Short, Bastard and Long hand-held weapons, or too big to hold."""

    SHORT = "S"
    BASTARD = "M"
    LONG = "L"
    NOT_ALLOWED = "-"


#: Use of a hand-held weapon by category: (close combat, ranged) (8.1 table).
HAND_HELD_USE: dict[HandCategory, tuple[str, str]] = {
    HandCategory.SHORT: ("Hand Weapon", "Short-Ranged Weapon"),
    HandCategory.BASTARD: ("Heavy Weapon (may be paired with Melee Shield)",
                           "Long-Ranged Weapon"),
    HandCategory.LONG: ("Two-Handed Weapon (cannot throw weapon)", "Not Allowed"),
    HandCategory.NOT_ALLOWED: ("Not Allowed", "Not Allowed"),
}


def hand_held_category(
    weapon_size_in: float,
    holder_size_in: float,
    *,
    ranged: bool = False,
    compensating: bool = False,
) -> HandCategory:
    """Category of a weapon held in a Creation's (or minifig's) hands (BrikWars 8.1).

    Parameters
    ----------
    weapon_size_in : float
        Weapon Size, inches.
    holder_size_in : float
        Effective Size of the holder, inches (a minifig is 1").
    ranged : bool
        Ranged weapons cannot be held as Long weapons ("Not Allowed").
    compensating : bool
        The holder is Compensating (a Heavy standing still): Heavy Weapons count as Hand
        Weapons, Two-Handed as Heavy, and Size 3"-4" as Two-Handed, i.e. the limits become
        1½×, 2× and 4× the holder's Size.

    Returns
    -------
    HandCategory
        Up to 1× the holder's Size is Short, up to 1½× Bastard, up to 2× Long.

    Raises
    ------
    RulesError
        If a size is negative or the holder has Size 0.
    """
    if weapon_size_in < 0 or holder_size_in <= 0:
        raise RulesError(
            f"need Weapon Size >= 0 and holder Size > 0, got {weapon_size_in}, {holder_size_in}"
        )
    limits = (1.5, 2.0, 4.0) if compensating else (1.0, 1.5, 2.0)
    ratio = weapon_size_in / holder_size_in
    if ratio <= limits[0] + 1e-9:
        cat = HandCategory.SHORT
    elif ratio <= limits[1] + 1e-9:
        cat = HandCategory.BASTARD
    elif ratio <= limits[2] + 1e-9:
        cat = HandCategory.LONG
    else:
        cat = HandCategory.NOT_ALLOWED
    if ranged and cat is HandCategory.LONG:
        return HandCategory.NOT_ALLOWED
    return cat


# --------------------------------------------------------------------------------------------
# Thrown weapons and Payloads (8.4)
# --------------------------------------------------------------------------------------------

#: A minifig arm is a free Size ½" Launcher with a Range of 3" (8.4 Thrown Minifig Weapons).
THROWING_RANGE_IN: float = 3.0
ARM_SIZE_PER_MINIFIG_IN: float = 0.5


def throwing_arm(thrower_sizes_in: tuple[float, ...] | list[float] = (1.0,)) -> WeaponProfile:
    """The Launcher formed by throwing arms, alone or with Teamwork (BrikWars 8.4).

    Each thrower adds half its Effective Size in inches of Launcher strength (a minifig ½");
    the Range stays 3" however many help. Use and Damage are the thrown object's.

    Parameters
    ----------
    thrower_sizes_in : sequence of float
        Effective Size of each thrower, inches.

    Returns
    -------
    WeaponProfile
        A Launcher with ``size`` = sum of half-Sizes, ``range_in`` 3, ``use`` None; its
        ``max_payload_size_in`` is half its Size rounded down, ``max_payload_xsize`` its Size
        rounded down (four minifigs: a Size 2" Launcher).

    Raises
    ------
    RulesError
        With no throwers or a negative Size.
    """
    sizes = list(thrower_sizes_in)
    if not sizes or any(s < 0 for s in sizes):
        raise RulesError(f"need at least one thrower with Size >= 0, got {sizes!r}")
    w = ARM_SIZE_PER_MINIFIG_IN * float(sum(sizes))
    return WeaponProfile(
        name=f"Throwing Arm x{len(sizes)}", weapon_type=WeaponType.LAUNCHER, size=w,
        cost_cp=0, use=None, range_in=THROWING_RANGE_IN, damage=None, power_in=w,
        max_payload_size_in=float(math.floor(w / 2)), max_payload_xsize=int(math.floor(w)),
        notes=("object's Use and Damage", "Teamwork adds strength but not Range"),
    )


def check_payload(
    launcher: WeaponProfile,
    *,
    explosive_xsizes: tuple[int, ...] | list[int] = (),
    object_sizes_in: tuple[float, ...] | list[float] = (),
) -> int:
    """Check a Launcher or Cannon load; return the number of separate Action Rolls (8.4).

    A Launcher fires a group of Explosives with combined XSize up to its Weapon Size, or a
    group of regular objects up to half its Weapon Size rounded down; a Cannon holds one round
    of Ammo with XSize up to its Weapon Size. Each launched object gets its own Action Roll.

    Raises
    ------
    RulesError
        Mixed groups, an empty load, or a load over the limit (values in the message).

    Examples
    --------
    >>> check_payload(weapon_profile("Launcher", 3), explosive_xsizes=[1, 1, 1])  # Missile Racks
    3
    """
    ex, ob = list(explosive_xsizes), list(object_sizes_in)
    if not ex and not ob:
        raise RulesError(f"{launcher.name}: nothing loaded")
    if ex and ob:
        raise RulesError(f"{launcher.name}: a load is either Explosives or objects, not both")
    if launcher.weapon_type is WeaponType.CANNON:
        if ob or len(ex) != 1:
            raise RulesError(f"{launcher.name}: a Cannon fires one round of Explosive Ammo, "
                             f"got {ex or ob}")
        if ex[0] > (launcher.max_ammo_xsize or 0):
            raise RulesError(
                f"{launcher.name}: Ammo XSize {ex[0]} over max {launcher.max_ammo_xsize}"
            )
        return 1
    if launcher.weapon_type is not WeaponType.LAUNCHER:
        raise RulesError(f"{launcher.name} is not a Launcher or Cannon")
    if ex and sum(ex) > (launcher.max_payload_xsize or 0):
        raise RulesError(f"{launcher.name}: combined XSize {sum(ex)} over max "
                         f"{launcher.max_payload_xsize}")
    if ob and sum(ob) > (launcher.max_payload_size_in or 0) + 1e-9:
        raise RulesError(f"{launcher.name}: Payload Size {sum(ob)}\" over max "
                         f"{launcher.max_payload_size_in}\"")
    return len(ex) + len(ob)
