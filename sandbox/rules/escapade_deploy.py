"""Escapade deployment order: Tactical Advantage and the Deployment Rush (BrikWars 13.2).

Readings chosen where the text is unclear (13.2 Tactical Advantage / Deployment Rush):

- A force's "top Command Specialist" is its deployed Commander with the largest Action die
  (first listed on a tie). The +1 applies when the force deploys (not merely reserves) a Scout.
- A force with no Command Specialist does not roll; for the deployment order it counts as
  having rolled 0 (it deploys first) and it suffers the swap.
- Ties in the deployment order keep the order the forces were listed in.
- "Highest-rolling enemy": the enemy force with the highest total among those that rolled,
  first listed on a tie; None when no enemy rolled (then nobody may swap).
- An ambush needs a roll that is not a Critical Failure and at least twice the highest enemy
  roll; enemies without a Command Specialist have no roll to double, so a force whose enemies
  all lack one gets the swaps and the last placement but no ambush.
- Ambushing forces set up after everybody else, in increasing roll order among themselves.
- Sizes are "similar" for the Critical Failure swap when they differ by at most 1/2".
- Sprint placement bonus inches are an input (the Sprint rule lives in the movement chapter).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from sandbox.core.dice import DiceStream, Roll
from sandbox.core.errors import RulesError

from .escapade_forces import ForceSpec, ForceUnit, Role, alliance_key

__all__ = [
    "TacticalRoll",
    "TacticalAdvantage",
    "SIMILAR_SIZE_TOLERANCE_INCHES",
    "top_command_specialist",
    "tactical_advantage",
    "can_swap",
    "can_rush",
    "rush_turn",
]

#: Two units are of "similar Size" for the Critical Failure swap within this many inches.
SIMILAR_SIZE_TOLERANCE_INCHES: float = 0.5


@dataclass(frozen=True)
class TacticalRoll:
    """One force's Tactical Advantage roll.

    Attributes
    ----------
    force : str
    specialist : str or None
        The rolling Command Specialist; None when the force has none.
    roll : Roll or None
        The Action Roll record.
    scout_bonus : int
        1 when the force fields a Scout, else 0.
    total : int
        Die result plus scout bonus; 0 when the force has no specialist.
    critical_failure : bool
        A natural 1.
    """

    force: str
    specialist: str | None
    roll: Roll | None
    scout_bonus: int
    total: int
    critical_failure: bool


@dataclass(frozen=True)
class TacticalAdvantage:
    """Outcome of Tactical Advantage (13.2).

    Attributes
    ----------
    rolls : tuple of TacticalRoll
        In the order the forces were given.
    deploy_order : tuple of str
        Forces in the order they set up (lowest first, ambushers last).
    swaps : dict of str to (str or None)
        For each force that critically failed or had no Command Specialist, the enemy force
        that may swap two of its similar deployed units (None when no enemy rolled).
    ambushers : frozenset of str
        Forces that may set up anywhere outside enemy formations and Strongholds.
    """

    rolls: tuple[TacticalRoll, ...]
    deploy_order: tuple[str, ...]
    swaps: dict[str, str | None]
    ambushers: frozenset[str]

    def to_dict(self) -> dict:
        """Plain-dict summary for a log."""
        return {
            "rolls": [
                {
                    "force": r.force,
                    "specialist": r.specialist,
                    "die": None if r.roll is None else r.roll.result,
                    "scout_bonus": r.scout_bonus,
                    "total": r.total,
                    "critical_failure": r.critical_failure,
                }
                for r in self.rolls
            ],
            "deploy_order": list(self.deploy_order),
            "swaps": dict(self.swaps),
            "ambushers": sorted(self.ambushers),
        }


def top_command_specialist(force: ForceSpec) -> ForceUnit | None:
    """The force's deployed Commander with the largest Action die, or None (13.2)."""
    best: ForceUnit | None = None
    for u in force.units:
        if u.is_commander and not u.in_reserve and (best is None or u.action_die > best.action_die):
            best = u
    return best


def tactical_advantage(forces: Sequence[ForceSpec], stream: DiceStream) -> TacticalAdvantage:
    """Roll Tactical Advantage for every deployed force (13.2, S.7 Command Units).

    Each force's top Command Specialist makes an Action Roll on its Action die, +1 if the force
    fields a Scout. Forces deploy in increasing order of their rolls; a Critical Failure, or
    having no Command Specialist, lets the highest-rolling enemy swap two of the force's similar
    units; a roll at least twice the highest enemy roll sets up an ambush after everybody else.
    A Garrison and a Host Hero roll separately (they are separate forces).

    Parameters
    ----------
    forces : sequence of ForceSpec
        The forces, in the order ties are broken.
    stream : DiceStream
        Where the Action Rolls come from (rolled in the order of ``forces``).

    Returns
    -------
    TacticalAdvantage
    """
    names = [f.name for f in forces]
    if len(set(names)) != len(names):
        raise RulesError(f"duplicate force names in {names!r}")
    rolls: list[TacticalRoll] = []
    for f in forces:
        spec = top_command_specialist(f)
        scout = 1 if any(u.is_scout and not u.in_reserve for u in f.units) else 0
        if spec is None:
            rolls.append(TacticalRoll(f.name, None, None, scout, 0, False))
            continue
        r = stream.roll(spec.action_die, f"Tactical Advantage: {spec.name} for {f.name}")
        rolls.append(
            TacticalRoll(f.name, spec.name, r, scout, r.result + scout, r.critical_failure)
        )
    keys = {f.name: alliance_key(f.name, f.role) for f in forces}

    def best_enemy(name: str) -> TacticalRoll | None:
        best: TacticalRoll | None = None
        for r in rolls:
            if keys[r.force] != keys[name] and r.roll is not None:
                if best is None or r.total > best.total:
                    best = r
        return best

    swaps: dict[str, str | None] = {}
    ambush: list[TacticalRoll] = []
    for r in rolls:
        enemy = best_enemy(r.force)
        if r.roll is None or r.critical_failure:
            swaps[r.force] = None if enemy is None else enemy.force
        elif enemy is not None and r.total >= 2 * enemy.total:
            ambush.append(r)
    ambushers = frozenset(r.force for r in ambush)
    ordered = sorted(rolls, key=lambda r: r.total)  # stable: ties keep the listed order
    order = [r.force for r in ordered if r.force not in ambushers]
    order += [r.force for r in ordered if r.force in ambushers]
    return TacticalAdvantage(tuple(rolls), tuple(order), swaps, ambushers)


def can_swap(a: ForceUnit, b: ForceUnit) -> bool:
    """Whether an enemy may swap the places of units ``a`` and ``b`` (13.2 Critical Failure).

    Both must be deployed (not in reserve), distinct, of the same Propulsion type, and of similar
    Size (within :data:`SIMILAR_SIZE_TOLERANCE_INCHES`).
    """
    return (
        a.name != b.name
        and not a.in_reserve
        and not b.in_reserve
        and a.propulsion == b.propulsion
        and abs(a.size_inches - b.size_inches) <= SIMILAR_SIZE_TOLERANCE_INCHES
    )


def can_rush(force: ForceSpec) -> bool:
    """Whether a Hero may make a Deployment Rush (13.2).

    The largest unit he deploys (reserves excluded) must be smaller in Size inches than his
    Irresponsibility level. Garrisons never rush.
    """
    if force.role is Role.GARRISON or force.irresponsibility is None:
        return False
    deployed = [u.size_inches for u in force.units if not u.in_reserve]
    if not deployed:
        return False
    return max(deployed) < force.irresponsibility


def rush_turn(
    turn_order: Sequence[str], forces: Sequence[ForceSpec], declined: Iterable[str] = ()
) -> list[str]:
    """Forces taking the extra rush turn, in regular turn order (13.2 Deployment Rush).

    Parameters
    ----------
    turn_order : sequence of str
        The battle's turn order (underdogs first).
    forces : sequence of ForceSpec
    declined : iterable of str
        Heroes who could rush but choose not to.

    Returns
    -------
    list of str
        Empty when nobody rushes (then there is no rush turn).

    Raises
    ------
    RulesError
        If a force in ``turn_order`` is unknown.
    """
    by_name = {f.name: f for f in forces}
    unknown = [n for n in turn_order if n not in by_name]
    if unknown:
        raise RulesError(f"unknown forces in the turn order: {unknown!r}")
    skip = set(declined)
    return [n for n in turn_order if n not in skip and can_rush(by_name[n])]
