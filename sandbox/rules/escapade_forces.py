"""Escapade forces: Unit Inches, deployment limits, underdogs and turn order.

BrikWars chapter 13.1 "Attackers, Defenders, and Meddlers" and the unit-Size limits of 13.2.
Pure data and arithmetic: no physics, no drawing. Lengths and values are in inches
(a Unit Inch, "Ü", is one inch of unit Size).

Readings chosen where the text is unclear (13.1 / 13.2):

- A force's Unit Inch value counts its units on the field **and** the units it holds in
  reserve, but reserve units only while the force still has a Commander in the field
  (13.2 Reinforcements, last paragraph). "Deployed force" in 13.1 therefore means the force
  brought to the battle, reserves included.
- Size Damage lowers a unit's Value by one Unit Inch per inch, never below 1Ü; a unit that is
  smaller than 1" to begin with keeps its own Size as its floor (13.1 Effective Size).
- "Their own forces, not including allies" for the Host means the Host's Garrison plus the
  Host's supporting Hero (both are the Hosting faction's).
- Each meddler is its own alliance; a meddler that allies with the attackers is modelled as an
  allied attacker (:attr:`Role.ALLIED_ATTACKER`).
- With equal side totals nobody is the underdog and no Bennies are handed out.
- Underdog Bennies are whole: a fractional difference rounds down. In a Last Stand (13.4) the
  Hero is the Host, so underdog attackers have no Escapading Hero to receive Bennies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable, Sequence

from sandbox.core.errors import RulesError

__all__ = [
    "Side",
    "Role",
    "EscapadeKind",
    "ForceUnit",
    "ForceSpec",
    "LimitViolation",
    "UnderdogResult",
    "unit_inches",
    "force_unit_inches",
    "reference_inches",
    "limit_violations",
    "validate_forces",
    "side_totals",
    "underdogs",
    "turn_order",
    "alliance_key",
]


class Side(Enum):
    """Which side of an Escapade a force fights for (13.1)."""

    ATTACKERS = "attackers"
    DEFENDERS = "defenders"
    MEDDLER = "meddler"


class Role(Enum):
    """A force's role in an Escapade (13.1)."""

    ESCAPADING_HERO = "escapading_hero"
    ALLIED_ATTACKER = "allied_attacker"
    HOST_HERO = "host_hero"
    GARRISON = "garrison"
    ALLIED_DEFENDER = "allied_defender"
    MEDDLER = "meddler"

    @property
    def side(self) -> Side:
        """The side this role fights for."""
        if self in (Role.ESCAPADING_HERO, Role.ALLIED_ATTACKER):
            return Side.ATTACKERS
        if self in (Role.HOST_HERO, Role.GARRISON, Role.ALLIED_DEFENDER):
            return Side.DEFENDERS
        return Side.MEDDLER

    @property
    def is_host(self) -> bool:
        """True for the Hosting faction's own forces (Garrison and supporting Hero)."""
        return self in (Role.HOST_HERO, Role.GARRISON)


class EscapadeKind(Enum):
    """Ordinary Escapade, Final Battle, or a Hero's Last Stand (13.4)."""

    STANDARD = "standard"
    FINAL_BATTLE = "final_battle"
    LAST_STAND = "last_stand"

    @property
    def is_final(self) -> bool:
        """Final Battles and Last Stands share the Final Battle rules (13.4)."""
        return self is not EscapadeKind.STANDARD


@dataclass(frozen=True)
class ForceUnit:
    """One unit brought to an Escapade.

    Attributes
    ----------
    name : str
        Unique name of the unit within the battle.
    size_inches : float
        The unit's Size in inches (a minifig is 1"), > 0.
    size_damage : float
        Unrepaired Size Damage in inches, >= 0 (13.1 Effective Size and Accounting).
    is_hero : bool
        The unit is a Hero.
    is_commander : bool
        The unit is a Commander (a Command Specialist, 13.2 The Commander).
    is_scout : bool
        The unit is a Scout.
    in_reserve : bool
        Held back in reserve at the start of the battle instead of deployed (13.2).
    move_inches : float
        One turn's Move in inches (a minifig's is 5"), used for deployment distances.
    action_die : int
        Sides of the unit's Action die (6 for a minifig), used for Tactical Advantage.
    propulsion : str
        Propulsion type ("legs", "wheels", "flight"...), used for the Critical Failure swap.
    """

    name: str
    size_inches: float
    size_damage: float = 0.0
    is_hero: bool = False
    is_commander: bool = False
    is_scout: bool = False
    in_reserve: bool = False
    move_inches: float = 5.0
    action_die: int = 6
    propulsion: str = "legs"

    def __post_init__(self) -> None:
        if not self.name:
            raise RulesError(f"a unit needs a name, got {self.name!r}")
        if not (self.size_inches > 0 and math.isfinite(self.size_inches)):
            raise RulesError(
                f"unit {self.name!r}: Size must be > 0 inches, got {self.size_inches!r}"
            )
        if not (self.size_damage >= 0 and math.isfinite(self.size_damage)):
            raise RulesError(
                f"unit {self.name!r}: Size Damage must be >= 0 inches, got {self.size_damage!r}"
            )
        if not (self.move_inches >= 0 and math.isfinite(self.move_inches)):
            raise RulesError(
                f"unit {self.name!r}: Move must be >= 0 inches, got {self.move_inches!r}"
            )
        if int(self.action_die) != self.action_die or self.action_die < 2:
            raise RulesError(
                f"unit {self.name!r}: Action die must have >= 2 sides, got {self.action_die!r}"
            )

    @property
    def unit_inches(self) -> float:
        """The unit's Value in Unit Inches after Size Damage (see :func:`unit_inches`)."""
        return unit_inches(self.size_inches, self.size_damage)


@dataclass(frozen=True)
class ForceSpec:
    """One force in an Escapade, as selected before deployment.

    Attributes
    ----------
    name : str
        Unique force name ("Baron Blud's raiders").
    player : str
        The player controlling it.
    role : Role
        Its role at the start of the battle.
    units : tuple of ForceUnit
        Every unit brought, deployed or in reserve.
    irresponsibility : int or None
        The leading Hero's Irresponsibility level; None for a Garrison (it has no Hero).
    army_available_inches : float or None
        Unit Inches of Army units the Escapading Hero *could* have deployed (Sizes within his
        Irresponsibility). None means "assume he was able" (13.1: he must deploy at least his
        Irresponsibility "if he's able").
    """

    name: str
    player: str
    role: Role
    units: tuple[ForceUnit, ...] = ()
    irresponsibility: int | None = None
    army_available_inches: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "units", tuple(self.units))
        if not self.name:
            raise RulesError(f"a force needs a name, got {self.name!r}")
        if not isinstance(self.role, Role):
            raise RulesError(f"force {self.name!r}: role must be a Role, got {self.role!r}")
        if self.role is Role.GARRISON:
            if self.irresponsibility is not None:
                raise RulesError(
                    f"force {self.name!r}: a Garrison has no Hero and no Irresponsibility, "
                    f"got {self.irresponsibility!r}"
                )
        elif (
            self.irresponsibility is None
            or int(self.irresponsibility) != self.irresponsibility
            or self.irresponsibility < 0
        ):
            raise RulesError(
                f"force {self.name!r}: a Hero's Irresponsibility must be an integer >= 0, "
                f"got {self.irresponsibility!r}"
            )
        names = [u.name for u in self.units]
        if len(set(names)) != len(names):
            raise RulesError(f"force {self.name!r}: duplicate unit names in {names!r}")

    @property
    def has_commander(self) -> bool:
        """True when any unit brought is a Commander."""
        return any(u.is_commander for u in self.units)

    @property
    def largest_size_inches(self) -> float:
        """Size of the largest unit brought, in inches (0 for an empty force)."""
        return max((u.size_inches for u in self.units), default=0.0)

    @property
    def unit_inches(self) -> float:
        """Unit Inch value of the whole force as brought (see :func:`force_unit_inches`)."""
        return force_unit_inches(self.units)


@dataclass(frozen=True)
class LimitViolation:
    """A deployment limit broken by one force (13.1, 13.2).

    Attributes
    ----------
    force : str
        The offending force.
    rule : str
        Short rule tag ("13.2 unit Size", "13.1 ally cap"...).
    value : float
        The offending value (inches or Unit Inches).
    limit : float
        The limit it broke.
    message : str
        A sentence a player reads.
    """

    force: str
    rule: str
    value: float
    limit: float
    message: str


@dataclass(frozen=True)
class UnderdogResult:
    """Side totals and underdog Bennies at the start of an Escapade (13.1 Underdogs).

    Attributes
    ----------
    attackers_inches, defenders_inches : float
        Deployed Unit Inches of each side (Escapading Hero plus allies; Host's Hero, Garrison
        and allied defenders).
    underdog_side : Side or None
        The side with fewer Unit Inches; None on a tie or when there is no Host.
    bennies : dict of str to int
        Underdog Bennies per force name (only forces that receive some).
    underdog_forces : frozenset of str
        Forces whose Heroes go first in the turn order.
    """

    attackers_inches: float
    defenders_inches: float
    underdog_side: Side | None
    bennies: dict[str, int] = field(default_factory=dict)
    underdog_forces: frozenset[str] = frozenset()


def unit_inches(size_inches: float, size_damage: float = 0.0) -> float:
    """Value of one unit in Unit Inches (BrikWars 13.1, Effective Size and Accounting).

    Each inch of Size Damage reduces the Value by one Unit Inch, to a minimum of 1Ü. A unit
    smaller than 1" keeps its own Size as the floor (damage never *raises* a Value).

    Parameters
    ----------
    size_inches : float
        Undamaged Size in inches, > 0.
    size_damage : float
        Unrepaired Size Damage in inches, >= 0.

    Returns
    -------
    float
        Value in Unit Inches.

    Raises
    ------
    RulesError
        If the Size is not positive or the damage is negative.

    Examples
    --------
    >>> unit_inches(4, 2)
    2.0
    >>> unit_inches(3, 5)
    1.0
    """
    if not size_inches > 0:
        raise RulesError(f"Size must be > 0 inches, got {size_inches!r}")
    if not size_damage >= 0:
        raise RulesError(f"Size Damage must be >= 0 inches, got {size_damage!r}")
    if size_damage == 0:
        return float(size_inches)
    return float(max(size_inches - size_damage, min(1, size_inches)))


def force_unit_inches(units: Iterable[ForceUnit], *, count_reserve: bool | None = None) -> float:
    """Unit Inch value of a group of units (13.1, 13.2 Reinforcements).

    Parameters
    ----------
    units : iterable of ForceUnit
        The force's units (their ``in_reserve`` flag says which are held back).
    count_reserve : bool, optional
        Whether reserve units count. Default: only when one of the units is a Commander who is
        not himself in reserve (reserves count "unless their faction no longer has a surviving
        Commander in the field").

    Returns
    -------
    float
        Sum of the units' Values in Unit Inches.
    """
    units = list(units)
    if count_reserve is None:
        count_reserve = any(u.is_commander and not u.in_reserve for u in units)
    return float(sum(u.unit_inches for u in units if count_reserve or not u.in_reserve))


def _escapading_force(forces: Sequence[ForceSpec], kind: EscapadeKind) -> ForceSpec:
    """The force whose size sets the scale of the battle (the Host Hero in a Last Stand)."""
    wanted = Role.HOST_HERO if kind is EscapadeKind.LAST_STAND else Role.ESCAPADING_HERO
    found = [f for f in forces if f.role is wanted]
    if len(found) != 1:
        raise RulesError(
            f"a {kind.value} Escapade needs exactly one {wanted.value} force, "
            f"got {[f.name for f in found]!r}"
        )
    return found[0]


def reference_inches(
    forces: Sequence[ForceSpec], kind: EscapadeKind = EscapadeKind.STANDARD
) -> float:
    """The Escapading Hero's deployed Unit Inches as the other forces' caps use it (13.1).

    If the Escapading Hero brought less than his Irresponsibility level, the other forces
    "deploy as if he had successfully brought a properly Irresponsible amount", so the
    reference is the larger of his force's value and his Irresponsibility. In a Last Stand the
    Hero is his own Escapading Hero and Host (13.4).

    Returns
    -------
    float
        Unit Inches.
    """
    hero = _escapading_force(forces, kind)
    return max(hero.unit_inches, float(hero.irresponsibility or 0))


def limit_violations(
    forces: Sequence[ForceSpec],
    kind: EscapadeKind = EscapadeKind.STANDARD,
    *,
    garrison_defense_cap: float | None = None,
) -> list[LimitViolation]:
    """Every deployment limit the selected forces break (13.1, 13.2, 13.4 Final Deployment).

    Checks, in order: one Escapading Hero (or one Host Hero in a Last Stand), at most one
    Garrison, at most one Host Hero outside Final Battles; every Hero's unit Sizes within his
    Irresponsibility; the Escapading Hero's minimum (his Irresponsibility, if he's able);
    allied attackers and meddlers capped at the Escapading Hero's deployed value; the
    Garrison capped at that value and at ``garrison_defense_cap``; each allied defender capped
    at the Host Hero's plus the Garrison's value. In Final Battles and Last Stands Heroes have no
    Size or Unit Inch limits; the Garrison keeps its limits.

    Parameters
    ----------
    forces : sequence of ForceSpec
    kind : EscapadeKind
    garrison_defense_cap : float, optional
        Unit Inches the Stronghold's defense improvements allow the Garrison (not modelled
        here; pass it when known).

    Returns
    -------
    list of LimitViolation
        Empty when the forces are legal.

    Raises
    ------
    RulesError
        When the roles themselves are impossible (no Escapading Hero, two Garrisons...).
    """
    names = [f.name for f in forces]
    if len(set(names)) != len(names):
        raise RulesError(f"duplicate force names in {names!r}")
    unit_names = [u.name for f in forces for u in f.units]
    if len(set(unit_names)) != len(unit_names):
        raise RulesError(f"unit names must be unique across forces, got {unit_names!r}")
    garrisons = [f.name for f in forces if f.role is Role.GARRISON]
    if len(garrisons) > 1:
        raise RulesError(f"an Escapade has at most one Garrison, got {garrisons!r}")
    host_heroes = [f.name for f in forces if f.role is Role.HOST_HERO]
    if kind is EscapadeKind.STANDARD and len(host_heroes) > 1:
        raise RulesError(f"the Host sends at most one supporting Hero, got {host_heroes!r}")
    if kind is EscapadeKind.LAST_STAND:
        eh = [f.name for f in forces if f.role is Role.ESCAPADING_HERO]
        if eh:
            raise RulesError(
                f"in a Last Stand the Host Hero is his own Escapading Hero; got also {eh!r}"
            )
    if not host_heroes and not garrisons and any(f.role is Role.ALLIED_DEFENDER for f in forces):
        raise RulesError("allied defenders need a Host (a Host Hero or a Garrison)")

    hero = _escapading_force(forces, kind)
    ref = reference_inches(forces, kind)
    out: list[LimitViolation] = []

    if not kind.is_final:
        for f in forces:
            if f.irresponsibility is None:
                continue
            big = f.largest_size_inches
            if big > f.irresponsibility:
                out.append(
                    LimitViolation(
                        f.name,
                        "13.2 unit Size",
                        big,
                        float(f.irresponsibility),
                        f'{f.name}: a Size {big:g}" unit exceeds Irresponsibility '
                        f"{f.irresponsibility}",
                    )
                )
        able = hero.army_available_inches is None or hero.army_available_inches >= (
            hero.irresponsibility or 0
        )
        if able and hero.unit_inches < (hero.irresponsibility or 0):
            out.append(
                LimitViolation(
                    hero.name,
                    "13.1 Irresponsible minimum",
                    hero.unit_inches,
                    float(hero.irresponsibility or 0),
                    f"{hero.name}: deployed {hero.unit_inches:g}Ü, below Irresponsibility "
                    f"{hero.irresponsibility} although he was able to bring it",
                )
            )
        for f in forces:
            if f.role in (Role.ALLIED_ATTACKER, Role.MEDDLER) and f.unit_inches > ref:
                out.append(
                    LimitViolation(
                        f.name,
                        "13.1 attacker/meddler cap",
                        f.unit_inches,
                        ref,
                        f"{f.name}: {f.unit_inches:g}Ü exceeds the Escapading Hero's {ref:g}Ü",
                    )
                )
        host_total = sum(f.unit_inches for f in forces if f.role.is_host)
        for f in forces:
            if f.role is Role.ALLIED_DEFENDER and f.unit_inches > host_total:
                out.append(
                    LimitViolation(
                        f.name,
                        "13.1 allied defender cap",
                        f.unit_inches,
                        host_total,
                        f"{f.name}: {f.unit_inches:g}Ü exceeds the Host Hero plus Garrison "
                        f"{host_total:g}Ü",
                    )
                )
    for f in forces:
        if f.role is not Role.GARRISON:
            continue
        if f.unit_inches > ref:
            out.append(
                LimitViolation(
                    f.name,
                    "13.1 Garrison cap",
                    f.unit_inches,
                    ref,
                    f"{f.name}: Garrison {f.unit_inches:g}Ü exceeds the Escapading Hero's {ref:g}Ü",
                )
            )
        if garrison_defense_cap is not None and f.unit_inches > garrison_defense_cap:
            out.append(
                LimitViolation(
                    f.name,
                    "13.1 Garrison defense level",
                    f.unit_inches,
                    float(garrison_defense_cap),
                    f"{f.name}: Garrison {f.unit_inches:g}Ü exceeds the Stronghold's "
                    f"{garrison_defense_cap:g}Ü",
                )
            )
    return out


def validate_forces(
    forces: Sequence[ForceSpec],
    kind: EscapadeKind = EscapadeKind.STANDARD,
    *,
    garrison_defense_cap: float | None = None,
) -> None:
    """Raise :class:`RulesError` naming the first broken limit of :func:`limit_violations`."""
    problems = limit_violations(forces, kind, garrison_defense_cap=garrison_defense_cap)
    if problems:
        p = problems[0]
        raise RulesError(f"{p.rule}: {p.message} (value {p.value:g}, limit {p.limit:g})")


def alliance_key(name: str, role: Role) -> str:
    """The alliance a force belongs to: "attackers", "defenders", or the meddler's own name."""
    side = role.side
    return name if side is Side.MEDDLER else side.value


def side_totals(forces: Sequence[ForceSpec]) -> tuple[float, float]:
    """Deployed Unit Inches of the attacking and the defending sides (13.1 Underdogs).

    Returns
    -------
    (attackers, defenders) : tuple of float
        Unit Inches.
    """
    att = sum(f.unit_inches for f in forces if f.role.side is Side.ATTACKERS)
    dfn = sum(f.unit_inches for f in forces if f.role.side is Side.DEFENDERS)
    return float(att), float(dfn)


def _bennies(diff: float, own: float) -> int:
    """Whole Bennies: the difference rounded down, capped at the force's own Unit Inches."""
    return int(math.floor(min(diff, own) + 1e-9)) if diff > 0 else 0


def underdogs(
    forces: Sequence[ForceSpec], kind: EscapadeKind = EscapadeKind.STANDARD
) -> UnderdogResult:
    """Who is the underdog and how many underdog Bennies each force gets (13.1 Underdogs).

    With a Host: the side with fewer deployed Unit Inches is the underdog. Its leader (the
    Escapading Hero, or the Host, whose Bennies are booked on the Host Hero's force, or on the
    Garrison if the Host sent no Hero) receives Bennies equal to the difference, capped at its
    own Unit Inches (for the Host: Host Hero plus Garrison). Every force on the underdog side
    goes first in the turn order.

    Without a Host: every meddler whose force is worth less than the Escapading Hero's own force
    receives the difference, capped at its own Unit Inches, and goes first.

    Bennies are whole numbers; a fractional difference rounds down.

    Returns
    -------
    UnderdogResult
    """
    att, dfn = side_totals(forces)
    has_host = any(f.role.is_host for f in forces)
    bennies: dict[str, int] = {}
    first: set[str] = set()
    side: Side | None = None
    if has_host:
        if att != dfn:
            side = Side.ATTACKERS if att < dfn else Side.DEFENDERS
            diff = abs(att - dfn)
            first = {f.name for f in forces if f.role.side is side}
            if side is Side.ATTACKERS:
                leader = (
                    _escapading_force(forces, kind) if kind is not EscapadeKind.LAST_STAND else None
                )
                if leader is not None:
                    n = _bennies(diff, leader.unit_inches)
                    if n:
                        bennies[leader.name] = n
            else:
                host_forces = [f for f in forces if f.role.is_host]
                own = sum(f.unit_inches for f in host_forces)
                heroes = [f for f in host_forces if f.role is Role.HOST_HERO]
                leader = heroes[0] if heroes else host_forces[0]
                n = _bennies(diff, own)
                if n:
                    bennies[leader.name] = n
    else:
        hero = _escapading_force(forces, kind)
        for f in forces:
            if f.role is Role.MEDDLER and f.unit_inches < hero.unit_inches:
                first.add(f.name)
                n = _bennies(hero.unit_inches - f.unit_inches, f.unit_inches)
                if n:
                    bennies[f.name] = n
    return UnderdogResult(att, dfn, side, bennies, frozenset(first))


def turn_order(base_order: Sequence[str], underdog_forces: Iterable[str]) -> list[str]:
    """Put underdog forces first, keeping the agreed order within each group (13.1 Underdogs).

    Parameters
    ----------
    base_order : sequence of str
        Force names in the turn order the players agreed.
    underdog_forces : iterable of str
        Forces that go first (``UnderdogResult.underdog_forces``).

    Raises
    ------
    RulesError
        If a force appears twice or an underdog force is not in ``base_order``.
    """
    base = list(base_order)
    if len(set(base)) != len(base):
        raise RulesError(f"turn order lists a force twice: {base!r}")
    under = set(underdog_forces)
    missing = under - set(base)
    if missing:
        raise RulesError(f"underdog forces missing from the turn order: {sorted(missing)!r}")
    return [n for n in base if n in under] + [n for n in base if n not in under]
