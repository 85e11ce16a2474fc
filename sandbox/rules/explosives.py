"""Explosive variants, Field Hazard blasts, Concussion, Duds and Crash Damage (pure rules).

BrikWars 8.4 (Explosive Variants, Premature Detonation, Critical Failures, Payload Launchers)
and 8.1 (KnockBack). Distances and KnockBack in inches. No physics here: the game layer
measures distances and throws objects; these functions say how much, how far and whether.

Readings chosen where the book is silent (each is used by the game and tested):

- **Component.** A creation's Components are its parts (each LDraw part placement); the
  creation's Armor is rolled once, at its first Damage, and each part counts Cumulative
  Damage against that one roll (Wall Demolition: "all wall components within two inches of
  the blast are destroyed").
- **Physical Opposition** (Concussion, "like a Collision"): the target rolls one d6 per whole
  inch of Size (at least one); the KnockBack is the Concussion inches minus that roll, never
  below zero. Collision rules (9.5) are not part of this text.
- **Which dice knock back.** Explosive d10s knock loose targets back 1" each (bonus dice
  included); Concussion d6s knock back their rolled inches (opposed); Incendiary, Armor
  Piercing and Phased dice do Damage only.
- **Duds.** The defender always takes the Dud option on a Critical Failure of the Damage Roll
  (every die a natural 1) unless the caller says otherwise.
- **Crash speed.** A launched non-explosive Payload crashes when it hits something at the
  relative normal speed of a one-inch fall or more (``COLLISION_MIN_SPEED_IN_S``, 27.8 in/s),
  the same threshold as a fall (see :mod:`sandbox.rules.collision`).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field, replace

from ..core.dice import DiceExpression, DiceStream, DiceSum, ExpressionRoll, Roll
from ..core.errors import RulesError
from .collision import COLLISION_MIN_SPEED_IN_S
from .damage import ExplosionRing, explosion_rings


class Variant(enum.Enum):
    """Alternate Damage Dice of an Explosive (BrikWars 8.4, Explosive Variants)."""

    EXPLOSIVE = "explosive"
    INCENDIARY = "incendiary"
    ARMOR_PIERCING = "armor_piercing"
    CONCUSSION = "concussion"
    PHASED = "phased"

    @classmethod
    def parse(cls, text: "str | Variant") -> "Variant":
        """A variant from its name (``"armor piercing"``, ``"Armor_Piercing"``, ...).

        Raises
        ------
        RulesError
            For an unknown name.
        """
        if isinstance(text, Variant):
            return text
        key = str(text).strip().lower().replace(" ", "_").replace("-", "_")
        for v in cls:
            if v.value == key:
                return v
        raise RulesError(f"unknown Explosive variant {text!r} (known: {[v.value for v in cls]})")


#: Die and damage kind replacing each Explosive d10 (8.4 table).
VARIANT_DICE: dict[Variant, tuple[int, str]] = {
    Variant.EXPLOSIVE: (10, "Exp"),
    Variant.INCENDIARY: (4, "Fire"),
    Variant.ARMOR_PIERCING: (6, "Piercing"),
    Variant.CONCUSSION: (6, "KnockBack"),
    Variant.PHASED: (12, "Phased"),
}

#: d10s given up for one die of the variant (Phased: "replace two d10s with a single d12").
VARIANT_COST: dict[Variant, int] = {v: (2 if v is Variant.PHASED else 1) for v in Variant}


#: Kind of each variant's dice (the :class:`~sandbox.core.dice.DiceExpression` kind).
KIND_OF_VARIANT: dict[Variant, str] = {v: k for v, (_, k) in VARIANT_DICE.items()}
#: Variant of each dice kind; a plain die (kind "") is an Explosive d10.
VARIANT_OF_KIND: dict[str, Variant] = {**{k: v for v, k in KIND_OF_VARIANT.items()},
                                       "": Variant.EXPLOSIVE}


def explosive_dice(xsize: int, variant: Variant | str = Variant.EXPLOSIVE,
                   variants: "tuple | list" = ()) -> DiceExpression | DiceSum:
    """The Damage dice of an Explosive of ``xsize`` elements (BrikWars 8.4).

    A standard Explosive does XSize d10s. "He might mix things up a little bit, swapping out
    the d10s for any combination of Alternate Damage Dice": ``variant`` swaps every d10 it can
    (Phased: two d10s for one d12); ``variants`` lists single dice instead, one die of that
    variant each (repeat a name for more), the d10s not swapped staying Explosive d10s. Either
    way an odd d10 left over is kept, never dropped: XSize 3 Phased is ``1d12 Phased + 1d10 Exp``.

    Returns
    -------
    DiceExpression or DiceSum
        One kind of die: a :class:`~sandbox.core.dice.DiceExpression`; several: a
        :class:`~sandbox.core.dice.DiceSum`, the variant dice first (as listed), the leftover
        d10s last.

    Raises
    ------
    RulesError
        For an XSize below 1, a Phased Explosive of XSize 1 (no d12 to buy), both ``variant``
        and ``variants``, or ``variants`` costing more d10s than the XSize holds.

    Examples
    --------
    >>> [str(explosive_dice(*a)) for a in ((3, "explosive"), (4, "phased"), (2, "incendiary"))]
    ['3d10 Exp', '2d12 Phased', '2d4 Fire']
    >>> str(explosive_dice(3, "phased"))
    '1d12 Phased + 1d10 Exp'
    >>> str(explosive_dice(4, variants=["armor_piercing", "phased"]))
    '1d6 Piercing + 1d12 Phased + 1d10 Exp'

    """
    v = Variant.parse(variant)
    if int(xsize) != xsize or xsize < 1:
        raise RulesError(f"an Explosive needs a whole XSize >= 1, got {xsize!r}")
    xsize = int(xsize)
    counts: dict[Variant, int] = {}
    if variants:
        if v is not Variant.EXPLOSIVE:
            raise RulesError("give one 'variant' for the whole Explosive or a list of "
                             "'variants', not both")
        for name in variants:
            w = Variant.parse(name)
            counts[w] = counts.get(w, 0) + 1
        cost = sum(VARIANT_COST[w] * n for w, n in counts.items() if w is not Variant.EXPLOSIVE)
        if cost > xsize:
            raise RulesError(f"variants {list(variants)} swap {cost} d10s, more than the "
                             f"Explosive's XSize {xsize} (Phased costs 2 d10s a d12)")
        left = xsize - cost
        counts.pop(Variant.EXPLOSIVE, None)
    else:
        count = xsize // VARIANT_COST[v]
        if count < 1:
            raise RulesError(f"a Phased Explosive needs XSize >= 2 (two d10s per d12), got {xsize}")
        if v is not Variant.EXPLOSIVE:
            counts[v] = count
        left = xsize - sum(VARIANT_COST[w] * n for w, n in counts.items())
    terms = [DiceExpression(n, VARIANT_DICE[w][0], 0, VARIANT_DICE[w][1])
             for w, n in counts.items()]
    if left:
        terms.append(DiceExpression(left, 10, 0, "Exp"))
    return terms[0] if len(terms) == 1 else DiceSum(tuple(terms))


def _kinds(ring: ExplosionRing, variant: Variant | str | None) -> tuple[str, ...]:
    """Each die's kind: the caller's variant for every die, else the ring's own kinds."""
    if variant is not None:
        return (KIND_OF_VARIANT[Variant.parse(variant)],) * len(ring.dice)
    if ring.kinds:
        return tuple("Exp" if k == "" else k for k in ring.kinds)
    return ("Exp",) * len(ring.dice)


def variant_rings(roll: ExpressionRoll,
                  variant: Variant | str | None = None) -> tuple[ExplosionRing, ...]:
    """Two-inch rings of a variant Explosion: Damage and KnockBack per ring (BrikWars 8.4).

    The rings are those of :func:`~sandbox.rules.damage.explosion_rings` (highest die and its
    bonus dice removed every 2"). Each die acts by its kind (``variant`` None: the roll's own
    kinds, mixed dice included; a ``variant``: every die read as that variant): Explosive d10s
    knock back 1" per die and are not resisted; Concussion d6s do no Damage and knock back
    their rolled inches, opposed by Physical Opposition (``resisted_in``); the other variants
    knock nothing back. A ring's ``damage`` is its Damage dice (not Concussion) plus the flat
    modifiers, 0 when only Concussion dice are left.

    Examples
    --------
    >>> from sandbox.core.dice import Dice
    >>> s = Dice(0, forced={"c": [2, 5]}).stream("c")
    >>> rings = variant_rings(explosive_dice(2, "concussion").roll(s), "concussion")
    >>> [(r.damage, r.knockback_in) for r in rings]
    [(0, 7.0), (0, 2.0)]
    """
    out = []
    for r in explosion_rings(roll):
        kinds = _kinds(r, variant)
        flat = r.flat if r.flat is not None else r.damage - sum(r.dice)
        hurt = [d for d, k in zip(r.dice, kinds, strict=True) if k != "KnockBack"]
        push = float(sum(d for d, k in zip(r.dice, kinds, strict=True) if k == "KnockBack"))
        exp = float(sum(k == "Exp" for k in kinds))
        out.append(replace(r, damage=max(0, sum(hurt) + flat) if hurt else 0,
                           knockback_in=exp + push, resisted_in=push, kinds=kinds, flat=flat))
    return tuple(out)


def ring_damage(ring: ExplosionRing, variant: Variant | str | None = None,
                deflection_layers: int = 0, flat_modifier: int = 0) -> int:
    """Damage one ring does to a target with Deflection (BrikWars 8.4 with 3.3 Deflection).

    Each layer of Deflection cancels the highest remaining die; each Armor Piercing d6 that
    reaches the target cancels one layer; Phased d12s ignore Deflection; Concussion does none.
    ``variant`` None: each die by the ring's own kinds (mixed dice); a ``variant``: every die
    read as that variant.

    Raises
    ------
    RulesError
        For negative layers.

    Examples
    --------
    >>> r = ExplosionRing(0.0, 2.0, 13, 0.0, (6, 4, 3))
    >>> (ring_damage(r, "explosive", 1), ring_damage(r, "armor_piercing", 2),
    ...  ring_damage(r, "phased", 5))
    (7, 13, 13)
    >>> mixed = ExplosionRing(0.0, 2.0, 17, 0.0, (9, 8), ("Phased", "Exp"))
    >>> ring_damage(mixed, None, 1)
    9
    """
    if deflection_layers < 0:
        raise RulesError(f"Deflection layers must be >= 0, got {deflection_layers}")
    kinds = _kinds(ring, variant)
    hurt = [(d, k) for d, k in zip(ring.dice, kinds, strict=True) if k != "KnockBack"]
    if not hurt:
        return 0
    flat = ring.flat if ring.flat is not None else ring.damage - sum(ring.dice)
    layers = max(0, deflection_layers - sum(k == "Piercing" for _, k in hurt))
    kept = [d for d, k in hurt if k == "Phased"]
    kept += sorted((d for d, k in hurt if k != "Phased"), reverse=True)[layers:]
    return max(0, sum(kept) + flat + int(flat_modifier))


# --------------------------------------------------------------------------------------------
# Field Hazard Explosives
# --------------------------------------------------------------------------------------------

#: Field Size per replaced die, inches (8.4: Smoke 4", Exposure Damage 2", other Hazards 3").
#: Inches of Field per replaced die (8.4): Smoke 4", an Exposure Damage die 2" (Fire, Acid and
#: Poison are Exposure Damage dice, F.1), anything else 3".
FIELD_INCHES_PER_DIE: dict[str, float] = {"smoke": 4.0, "exposure": 2.0, "fire": 2.0,
                                          "acid": 2.0, "poison": 2.0}
FIELD_INCHES_OTHER: float = 3.0


def field_size_in(hazard: str, dice: int) -> float:
    """Field Size of a Field Hazard Explosion (BrikWars 8.4).

    Raises
    ------
    RulesError
        For fewer than one die or an empty hazard name.

    Examples
    --------
    >>> field_size_in("Smoke", 2), field_size_in("exposure", 3), field_size_in("Fire", 1)
    (8.0, 6.0, 2.0)
    """
    if int(dice) != dice or dice < 1:
        raise RulesError(f"a Field Hazard needs at least one replaced die, got {dice!r}")
    key = str(hazard).strip().lower()
    if not key:
        raise RulesError("a Field Hazard needs a hazard name (Smoke, Exposure, Fire, ...)")
    return FIELD_INCHES_PER_DIE.get(key, FIELD_INCHES_OTHER) * int(dice)


@dataclass
class FieldHazard:
    """A temporary Field Hazard left by an Explosion (mutable state; BrikWars 8.4, ch. F).

    Attributes
    ----------
    hazard : str
        Its kind (Smoke, Exposure, Fire, Acid, ...); the effects are another module's.
    centre : (float, float, float)
        Point of impact, inches.
    size_in : float
        Current Field Size, inches.
    owner : str or None
        The attacking player: the field shrinks at the beginning of each of their turns.
    created_turn : int
    """

    hazard: str
    centre: tuple[float, float, float]
    size_in: float
    owner: str | None = None
    created_turn: int = 0
    history: list[float] = field(default_factory=list)

    @property
    def active(self) -> bool:
        return self.size_in > 0

    def shrink(self) -> float:
        """Shrink by one inch (start of the attacking player's turn); returns the new size."""
        self.history.append(self.size_in)
        self.size_in = max(0.0, self.size_in - 1.0)
        return self.size_in

    def to_dict(self) -> dict:
        return {"hazard": self.hazard, "centre": [round(v, 4) for v in self.centre],
                "size_in": self.size_in, "owner": self.owner, "created_turn": self.created_turn}


# --------------------------------------------------------------------------------------------
# Concussion, Duds, Crashes
# --------------------------------------------------------------------------------------------


def physical_opposition_dice(size_in: float) -> int:
    """d6s a target rolls to oppose a Concussion or Collision KnockBack (reading: per inch).

    Raises
    ------
    RulesError
        For a negative or non-finite Size.
    """
    if not math.isfinite(size_in) or size_in < 0:
        raise RulesError(f"Size must be a finite number of inches >= 0, got {size_in!r}")
    return max(1, int(math.floor(size_in + 1e-9)))


def opposed_knockback(stream: DiceStream, inches: float, size_in: float,
                      victim: str) -> tuple[float, list[Roll]]:
    """Concussion KnockBack after the target's Physical Opposition (BrikWars 8.4, 8.1).

    Returns
    -------
    (float, list of Roll)
        Inches left (never below 0) and the opposition dice rolled.
    """
    if inches < 0:
        raise RulesError(f"KnockBack inches must be >= 0, got {inches}")
    rolls = stream.roll_many(physical_opposition_dice(size_in), 6,
                             f"Physical Opposition of {victim} to Concussion")
    return max(0.0, float(inches) - sum(r.result for r in rolls)), rolls


def is_dud(roll: ExpressionRoll, action_critical_failure: bool = False,
           declare: bool = True) -> bool:
    """Whether an Explosive is a Dud (BrikWars 8.4, Critical Failures).

    A Critical Failure of the Action Roll or the Damage Roll lets the defender declare a Dud;
    ``declare`` is that choice. A Dud does not explode and stays armed and Unstable.
    """
    return bool(declare and (action_critical_failure or roll.critical_failure))


def crash_dice(armor: int | str) -> int:
    """d6s of Crash Damage a launched non-explosive Payload does (BrikWars 8.4 Launchers).

    "A d6 of Damage for each d10 in their Armor rating"; a Payload whose Armor has no d10s
    (a fixed number, or other dice) does one d6, a plain Collision (reading).

    Raises
    ------
    RulesError
        For a malformed Armor.

    Examples
    --------
    >>> crash_dice("3d10"), crash_dice(4), crash_dice("2d6")
    (3, 1, 1)
    """
    if isinstance(armor, bool):
        raise RulesError(f"Armor must be a number or dice, got {armor!r}")
    if isinstance(armor, int):
        if armor < 0:
            raise RulesError(f"Armor cannot be negative, got {armor}")
        return 1
    try:
        expr = DiceExpression.parse(str(armor))
    except Exception as exc:  # DiceError -> RulesError with the value
        raise RulesError(f"Armor must be a number or dice, got {armor!r}") from exc
    return expr.count if expr.sides == 10 and expr.count else 1


def roll_crash_damage(stream: DiceStream, normal_speed: float, armor: int | str,
                      victim: str) -> list[Roll]:
    """Roll Crash Damage of a launched Payload hitting at ``normal_speed`` in/s (none if slow).

    Raises
    ------
    RulesError
        For a negative or non-finite speed.
    """
    if not math.isfinite(normal_speed) or normal_speed < 0:
        raise RulesError(f"impact speed must be a finite non-negative in/s, got {normal_speed!r}")
    if normal_speed < COLLISION_MIN_SPEED_IN_S:
        return []
    return stream.roll_many(crash_dice(armor), 6, f"Crash Damage to {victim}")
