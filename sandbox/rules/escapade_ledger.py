"""The running state of an Escapade: :class:`EscapadeSpec` and :class:`EscapadeLedger`.

BrikWars chapter 13. The spec is the immutable set-up (forces, kind, table plan); the ledger is
the mutable battle a game loop drives turn by turn (kills witnessed, Strategy bricks spent,
units destroyed or gone off an edge, Bennies, Betrayals, victory status), with a log of plain
dicts. Positions are ``(x, y)`` inches reported by the physics layer.

Readings chosen in the ledger (where the text is silent):

- 13.2 A Commander spends his one Action per turn either relaying one kill or calling one
  Reinforcement; the ledger refuses a second Commander Action in the same turn.
- 13.2 Units withdrawn over a friendly edge go to the force's reserve, unless the force is
  Fighting a Losing Battle (then they leave the battle for good, back to the Hero's Army).
- 13.1 A unit carried off an edge friendly to the carrier by a unit of *another* force (a
  captive) is lost to its own force and booked as the carrier's Loot.
- 13.1 Underdog Bennies may be given only to allies (forces of the same alliance).
- 13.1 Betrayal changes an allied Hero's role (allied attacker, allied defender, meddler); the
  Escapading Hero, the Host's Hero and the Garrison cannot change sides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable, Sequence

from sandbox.core.dice import DiceStream
from sandbox.core.errors import RulesError

from .escapade_commander import kill_earns_strategy, reinforcement_cost
from .escapade_deploy import TacticalAdvantage, tactical_advantage
from .escapade_field import (
    Area,
    DeploymentCheck,
    Edge,
    EdgePlan,
    ExitFacts,
    ExitKind,
    ExitOutcome,
    check_deployment,
    resolve_exit,
)
from .escapade_forces import (
    EscapadeKind,
    ForceSpec,
    ForceUnit,
    LimitViolation,
    Role,
    Side,
    UnderdogResult,
    alliance_key,
    limit_violations,
    turn_order,
    underdogs,
    unit_inches,
)
from .escapade_victory import ForceStanding, VictoryStatus, campaign_exits, may_fight_losing_battle
from .escapade_victory import victory_status as _victory_status

__all__ = ["UnitStatus", "EscapadeSpec", "EscapadeLedger", "roll_tactical_advantage"]


class UnitStatus(Enum):
    """Where a unit is during an Escapade."""

    DEPLOYED = "deployed"  # on the table
    RESERVE = "reserve"  # off the table, recallable by a Commander
    INCOMING = "incoming"  # called in; appears at the end of this turn
    DESTROYED = "destroyed"  # killed or destroyed
    WITHDRAWN = "withdrawn"  # left by a friendly edge for good (Fighting a Losing Battle)
    LOST = "lost"  # left the table any other way

    @property
    def surviving(self) -> bool:
        """Counts towards surviving Unit Inches (reserve only with a Commander, see ledger)."""
        return self in (UnitStatus.DEPLOYED, UnitStatus.INCOMING, UnitStatus.RESERVE)


@dataclass(frozen=True)
class EscapadeSpec:
    """A set-up Escapade: the immutable facts the battle starts from.

    Attributes
    ----------
    forces : tuple of ForceSpec
    kind : EscapadeKind
    plan : EdgePlan or None
        Table, edges and Stronghold; None for a battle with no table geometry yet.
    base_turn_order : tuple of str
        Turn order the players agreed, before underdogs move first (default: force order).
    garrison_defense_cap : float or None
        Unit Inches the Stronghold's defense improvements allow the Garrison.
    strict : bool
        Raise on broken deployment limits (else they are only reported).
    """

    forces: tuple[ForceSpec, ...]
    kind: EscapadeKind = EscapadeKind.STANDARD
    plan: EdgePlan | None = None
    base_turn_order: tuple[str, ...] = ()
    garrison_defense_cap: float | None = None
    strict: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "forces", tuple(self.forces))
        object.__setattr__(
            self,
            "base_turn_order",
            tuple(self.base_turn_order) or tuple(f.name for f in self.forces),
        )
        if sorted(self.base_turn_order) != sorted(f.name for f in self.forces):
            raise RulesError(
                f"turn order {list(self.base_turn_order)!r} must list every force once: "
                f"{[f.name for f in self.forces]!r}"
            )
        problems = limit_violations(
            self.forces, self.kind, garrison_defense_cap=self.garrison_defense_cap
        )
        if self.strict and problems:
            p = problems[0]
            raise RulesError(f"{p.rule}: {p.message} (value {p.value:g}, limit {p.limit:g})")
        has_host = any(f.role.is_host for f in self.forces)
        if self.plan is not None and has_host and self.plan.defenders_edge is None:
            if any(f.role in (Role.HOST_HERO, Role.ALLIED_DEFENDER) for f in self.forces):
                raise RulesError("the Host's Hero and allies need a defenders' edge in the plan")

    @property
    def limit_problems(self) -> list[LimitViolation]:
        """Deployment limits the forces break (empty when ``strict``)."""
        return limit_violations(
            self.forces, self.kind, garrison_defense_cap=self.garrison_defense_cap
        )


@dataclass
class _UnitState:
    unit: ForceUnit
    force: str
    status: UnitStatus
    size_damage: float

    @property
    def value(self) -> float:
        return unit_inches(self.unit.size_inches, self.size_damage)


@dataclass
class _ForceState:
    role: Role
    strategy_bricks: int = 0
    pending_reports: int = 0
    bennies: int = 0
    conceded: bool = False
    losing_battle: bool = False
    loot: list[str] = field(default_factory=list)


class EscapadeLedger:
    """The running state of one Escapade, changed only through its methods, with a log.

    Parameters
    ----------
    spec : EscapadeSpec

    Attributes
    ----------
    turn : int
        Current turn, from 1.
    events : list of dict
        Everything that happened, in order (plain dicts for the game log).
    underdog : UnderdogResult
        Side totals and underdog Bennies at the start.
    turn_order : list of str
        Force names, underdogs first.
    """

    def __init__(self, spec: EscapadeSpec):
        self.spec = spec
        self.turn = 1
        self.events: list[dict] = []
        self._units: dict[str, _UnitState] = {}
        self._forces: dict[str, _ForceState] = {}
        self._loot: dict[str, str | None] = {}
        self._commander_actions: set[tuple[int, str]] = set()
        for f in spec.forces:
            self._forces[f.name] = _ForceState(f.role)
            for u in f.units:
                self._units[u.name] = _UnitState(
                    u,
                    f.name,
                    UnitStatus.RESERVE if u.in_reserve else UnitStatus.DEPLOYED,
                    u.size_damage,
                )
        self.underdog: UnderdogResult = underdogs(spec.forces, spec.kind)
        for name, n in self.underdog.bennies.items():
            self._forces[name].bennies = n
        self.turn_order: list[str] = turn_order(spec.base_turn_order, self.underdog.underdog_forces)
        self._initial = {f.name: self.unit_inches(f.name) for f in spec.forces}
        self._heroes = {f.name: any(u.is_hero for u in f.units) for f in spec.forces}
        self._log(
            "start",
            attackers_inches=self.underdog.attackers_inches,
            defenders_inches=self.underdog.defenders_inches,
            bennies=dict(self.underdog.bennies),
            turn_order=list(self.turn_order),
        )

    # ------------------------------------------------------------------ look-ups
    def _log(self, event: str, **data) -> None:
        self.events.append({"turn": self.turn, "event": event, **data})

    def _force(self, name: str) -> _ForceState:
        try:
            return self._forces[name]
        except KeyError:
            raise RulesError(f"unknown force {name!r}; known: {sorted(self._forces)!r}") from None

    def _unit(self, name: str) -> _UnitState:
        try:
            return self._units[name]
        except KeyError:
            raise RulesError(f"unknown unit {name!r}") from None

    def role(self, force: str) -> Role:
        """The force's current role."""
        return self._force(force).role

    def status(self, unit: str) -> UnitStatus:
        """Where the unit is now."""
        return self._unit(unit).status

    def force_of(self, unit: str) -> str:
        """The force a unit belongs to."""
        return self._unit(unit).force

    def are_enemies(self, force_a: str, force_b: str) -> bool:
        """True when the two forces are in different alliances now."""
        return alliance_key(force_a, self.role(force_a)) != alliance_key(
            force_b, self.role(force_b)
        )

    def commander_on_field(self, force: str) -> bool:
        """Some Commander of the force is alive on the table (13.2)."""
        self._force(force)
        return any(
            s.force == force and s.unit.is_commander and s.status is UnitStatus.DEPLOYED
            for s in self._units.values()
        )

    def unit_inches(self, force: str) -> float:
        """Surviving Unit Inches of a force; reserves count only with a Commander on the table."""
        cmd = self.commander_on_field(force)
        return float(
            sum(
                s.value
                for s in self._units.values()
                if s.force == force
                and s.status.surviving
                and (s.status is not UnitStatus.RESERVE or cmd)
            )
        )

    def initial_inches(self, force: str) -> float:
        """Unit Inches the force started with (13.1 Underdogs: "initial totals")."""
        self._force(force)
        return self._initial[force]

    def strategy_bricks(self, force: str) -> int:
        """Bricks in the force's Strategy pile."""
        return self._force(force).strategy_bricks

    def pending_reports(self, force: str) -> int:
        """Witnessed kills not yet relayed by a Commander."""
        return self._force(force).pending_reports

    def bennies(self, force: str) -> int:
        """Underdog Bennies the force holds."""
        return self._force(force).bennies

    def loot_owner(self, item: str) -> str | None:
        """Who claimed an item of Loot that left the table (None: nobody)."""
        if item not in self._loot:
            raise RulesError(f"item {item!r} has not left the table")
        return self._loot[item]

    def side_present(self, side: Side) -> bool:
        """A side still holds its edge (13.1): the attackers' edge while an attacking Hero is on
        the table ("If all of the attacking Heroes are wiped out, exit the battlefield, or
        Betray their alliance, the attackers' edge becomes an uncontrolled edge"); the
        defenders' edge while a defending Hero or a Garrison unit is."""
        for s in self._units.values():
            if s.status is not UnitStatus.DEPLOYED:
                continue
            role = self._forces[s.force].role
            if role.side is not side:
                continue
            if s.unit.is_hero or (side is Side.DEFENDERS and role is Role.GARRISON):
                return True
        return False

    def _presence(self) -> dict:
        return {
            "attackers_present": self.side_present(Side.ATTACKERS),
            "defenders_present": self.side_present(Side.DEFENDERS),
        }

    def friendly_edges(self, force: str) -> tuple[Edge, ...]:
        """Edges friendly to the force now (uncontrolled edges for meddlers)."""
        plan = self._need_plan()
        return plan.owner_edges(self.role(force).side, **self._presence())

    def _need_plan(self) -> EdgePlan:
        if self.spec.plan is None:
            raise RulesError("this Escapade has no table plan (EscapadeSpec.plan is None)")
        return self.spec.plan

    # ------------------------------------------------------------------ units
    def apply_size_damage(self, unit: str, inches: float) -> float:
        """Add Size Damage (inches) to a unit; returns its new Value in Unit Inches."""
        if inches < 0:
            raise RulesError(f"Size Damage must be >= 0 inches, got {inches!r}")
        s = self._unit(unit)
        s.size_damage += inches
        self._log("size_damage", unit=unit, inches=inches, value=s.value)
        return s.value

    def destroy(
        self, unit: str, *, killer: str | None = None, witnesses: Iterable[str] = ()
    ) -> bool:
        """Mark a unit killed or destroyed; record a witnessed kill for a Strategy brick (13.2).

        Parameters
        ----------
        unit : str
            The victim, which must be on the table.
        killer : str, optional
            The unit that killed it.
        witnesses : iterable of str
            Units that saw it (line of sight decided by the game layer).

        Returns
        -------
        bool
            True when the killer's Commander may relay it for a Strategy brick.
        """
        s = self._unit(unit)
        if s.status is not UnitStatus.DEPLOYED:
            raise RulesError(f"unit {unit!r} is {s.status.value}, not on the table")
        s.status = UnitStatus.DESTROYED
        earns = False
        if killer is not None:
            k = self._unit(killer)
            seen = [self._unit(w) for w in witnesses]
            witnessed = any(
                w.force == k.force
                and w.status is UnitStatus.DEPLOYED
                and (w.unit.is_commander or w.unit.is_scout)
                for w in seen
            )
            earns = kill_earns_strategy(
                victim_size_inches=s.unit.size_inches,
                victim_is_enemy=self.are_enemies(k.force, s.force),
                killer_in_commanders_force=True,
                witnessed_by_commander_or_scout=witnessed,
                commander_on_field=self.commander_on_field(k.force),
            )
            if earns:
                self._forces[k.force].pending_reports += 1
        self._log("destroyed", unit=unit, killer=killer, reportable=earns)
        return earns

    def _commander_action(self, force: str, commander: str) -> None:
        c = self._unit(commander)
        if c.force != force or not c.unit.is_commander or c.status is not UnitStatus.DEPLOYED:
            raise RulesError(f"{commander!r} is not a Commander of {force!r} on the table")
        if (self.turn, commander) in self._commander_actions:
            raise RulesError(f"{commander!r} has already spent his Action on turn {self.turn}")
        self._commander_actions.add((self.turn, commander))

    def relay_report(self, force: str, commander: str) -> int:
        """The Commander spends his Action to relay one witnessed kill: +1 Strategy brick.

        Returns
        -------
        int
            The Strategy pile afterwards.
        """
        st = self._force(force)
        if st.pending_reports < 1:
            raise RulesError(f"{force!r} has no witnessed kill to relay")
        self._commander_action(force, commander)
        st.pending_reports -= 1
        st.strategy_bricks += 1
        self._log("relay", force=force, commander=commander, bricks=st.strategy_bricks)
        return st.strategy_bricks

    def call_reinforcements(
        self,
        force: str,
        commander: str,
        *,
        new_units: Sequence[ForceUnit] = (),
        reserve_units: Sequence[str] = (),
    ) -> int:
        """Spend Strategy bricks to call Reinforcements; they arrive at the end of the turn (13.2).

        Fresh units cost one brick per Unit Inch and ignore the Hero's Size limit; reserve units
        are free. Returns the bricks spent.
        """
        st = self._force(force)
        if not new_units and not reserve_units:
            raise RulesError("a Reinforcement call needs units")
        for name in reserve_units:
            s = self._unit(name)
            if s.force != force or s.status is not UnitStatus.RESERVE:
                raise RulesError(f"{name!r} is not in {force!r}'s reserve ({s.status.value})")
        for u in new_units:
            if u.name in self._units:
                raise RulesError(f"unit name {u.name!r} is already in the battle")
        cost = reinforcement_cost(new_units)
        if cost > st.strategy_bricks:
            raise RulesError(f"{force!r} needs {cost} Strategy bricks, has {st.strategy_bricks}")
        self._commander_action(force, commander)
        st.strategy_bricks -= cost
        for name in reserve_units:
            self._units[name].status = UnitStatus.INCOMING
        for u in new_units:
            self._units[u.name] = _UnitState(u, force, UnitStatus.INCOMING, u.size_damage)
        self._log(
            "reinforcements",
            force=force,
            commander=commander,
            cost=cost,
            new=[u.name for u in new_units],
            reserve=list(reserve_units),
        )
        return cost

    def end_turn(self) -> list[str]:
        """Close the turn: called-in Reinforcements appear (to act next turn). Returns them."""
        arrived = [n for n, s in self._units.items() if s.status is UnitStatus.INCOMING]
        for n in arrived:
            self._units[n].status = UnitStatus.DEPLOYED
        self._log("end_turn", arrived=arrived)
        self.turn += 1
        return arrived

    def record_exit(
        self,
        object_name: str,
        position: tuple[float, float],
        *,
        carrier: str | None = None,
        carrier_active: bool = False,
    ) -> ExitOutcome:
        """An object's centre went beyond a table edge: decide and book the result (13.1).

        ``object_name`` is a unit of the battle or any other item (Loot). ``carrier`` is the
        last controlling active unit (the unit itself when it walks off).
        """
        plan = self._need_plan()
        is_unit = object_name in self._units
        if is_unit and self._units[object_name].status is not UnitStatus.DEPLOYED:
            raise RulesError(f"unit {object_name!r} is not on the table")
        c_force = c_side = None
        if carrier is not None:
            c = self._unit(carrier)
            c_force = c.force
            c_side = self._forces[c.force].role.side
            if c.status is not UnitStatus.DEPLOYED and carrier != object_name:
                carrier_active = False
        out = resolve_exit(
            plan,
            ExitFacts(object_name, position, is_unit, carrier, carrier_active, c_force, c_side),
            **self._presence(),
        )
        if is_unit:
            s = self._units[object_name]
            if out.kind is ExitKind.WITHDRAWN and out.owner == s.force:
                losing = self._forces[s.force].losing_battle
                s.status = UnitStatus.WITHDRAWN if losing else UnitStatus.RESERVE
            else:
                s.status = UnitStatus.LOST
                if out.kind is ExitKind.WITHDRAWN and out.owner is not None:
                    # carried off another force's friendly edge: a captive, booked as its Loot
                    self._loot[object_name] = out.owner
                    self._forces[out.owner].loot.append(object_name)
        else:
            self._loot[object_name] = out.owner
            if out.owner is not None:
                self._forces[out.owner].loot.append(object_name)
        self._log(
            "exit",
            object=object_name,
            kind=out.kind.value,
            edge=out.edge.value,
            owner=out.owner,
            reason=out.reason,
        )
        return out

    def check_deployment(
        self,
        unit: str,
        point: tuple[float, float],
        *,
        sprint_inches: float = 0.0,
        ambush: bool = False,
        enemy_formations: Sequence[Area] = (),
    ) -> DeploymentCheck:
        """Whether ``unit`` may be placed at ``point`` (inches) now (13.2)."""
        s = self._unit(unit)
        return check_deployment(
            self._need_plan(),
            point,
            self.role(s.force),
            move_inches=s.unit.move_inches,
            sprint_inches=sprint_inches,
            final_battle=self.spec.kind.is_final,
            ambush=ambush,
            enemy_formations=enemy_formations,
            **self._presence(),
        )

    # ------------------------------------------------------------------ Bennies, sides
    def spend_benny(self, force: str) -> int:
        """Spend one underdog Benny; returns how many are left."""
        st = self._force(force)
        if st.bennies < 1:
            raise RulesError(f"{force!r} has no Bennies left")
        st.bennies -= 1
        self._log("benny_spent", force=force, left=st.bennies)
        return st.bennies

    def share_bennies(self, giver: str, receiver: str, count: int) -> None:
        """Give underdog Bennies to an ally (13.1 Underdogs)."""
        g = self._force(giver)
        self._force(receiver)
        if count < 1 or count > g.bennies:
            raise RulesError(f"{giver!r} cannot give {count} Bennies (holds {g.bennies})")
        if self.are_enemies(giver, receiver):
            raise RulesError(f"{receiver!r} is not an ally of {giver!r}")
        g.bennies -= count
        self._forces[receiver].bennies += count
        self._log("bennies_shared", giver=giver, receiver=receiver, count=count)

    def betray(self, force: str, new_role: Role) -> None:
        """An allied Hero breaks or makes an alliance, changing his friendly edge (13.1)."""
        st = self._force(force)
        movable = (Role.ALLIED_ATTACKER, Role.ALLIED_DEFENDER, Role.MEDDLER)
        if st.role not in movable or new_role not in movable:
            raise RulesError(f"{force!r} ({st.role.value}) cannot become {new_role.value}")
        if new_role is st.role:
            raise RulesError(f"{force!r} is already {new_role.value}")
        self._log("betrayal", force=force, old=st.role.value, new=new_role.value)
        st.role = new_role

    # ------------------------------------------------------------------ defeat, victory
    def standings(self) -> list[ForceStanding]:
        """Each force's facts for the victory rules."""
        out = []
        for name, st in self._forces.items():
            units = [s for s in self._units.values() if s.force == name]
            on = [s for s in units if s.status is UnitStatus.DEPLOYED]
            out.append(
                ForceStanding(
                    name,
                    st.role,
                    self._initial[name],
                    self.unit_inches(name),
                    on_field=bool(on),
                    led_by_heroes=self._heroes[name],
                    heroes_on_field=any(s.unit.is_hero for s in on),
                    conceded=st.conceded,
                    losing_battle=st.losing_battle,
                )
            )
        return out

    def can_fight_losing_battle(self, force: str) -> bool:
        """Whether the force may declare a Losing Battle now (13.3, 13.4)."""
        return may_fight_losing_battle(force, self.standings(), self.spec.kind)

    def fight_losing_battle(self, force: str) -> None:
        """Declare the force Fighting a Losing Battle; raises if it does not qualify."""
        st = self._force(force)
        if not self.can_fight_losing_battle(force):
            raise RulesError(
                f"{force!r} may not Fight a Losing Battle: {self.unit_inches(force):g} of "
                f"{self._initial[force]:g} Unit Inches left and not outnumbered"
            )
        st.losing_battle = True
        self._log("losing_battle", force=force)

    def concede(self, force: str) -> None:
        """The force concedes the battle (13.3 Embracing Defeat)."""
        self._force(force).conceded = True
        self._log("concede", force=force)

    def victory_status(self) -> VictoryStatus:
        """Who would hold the victory if the battle ended now (13.3)."""
        return _victory_status(self.standings(), self.spec.kind)

    def summary(self) -> dict:
        """A plain-dict snapshot for a log."""
        status = self.victory_status()
        return {
            "turn": self.turn,
            "kind": self.spec.kind.value,
            "turn_order": list(self.turn_order),
            "forces": {
                name: {
                    "role": st.role.value,
                    "initial_inches": self._initial[name],
                    "unit_inches": self.unit_inches(name),
                    "strategy_bricks": st.strategy_bricks,
                    "pending_reports": st.pending_reports,
                    "bennies": st.bennies,
                    "conceded": st.conceded,
                    "losing_battle": st.losing_battle,
                    "loot": list(st.loot),
                    "units": {n: s.status.value for n, s in self._units.items() if s.force == name},
                }
                for name, st in self._forces.items()
            },
            "loot": dict(self._loot),
            "victory": status.to_dict(),
            "campaign_exits": list(campaign_exits(self.standings(), self.spec.kind)),
        }


def roll_tactical_advantage(spec: EscapadeSpec, stream: DiceStream) -> TacticalAdvantage:
    """Tactical Advantage for a set-up Escapade (see :func:`tactical_advantage`)."""
    return tactical_advantage(spec.forces, stream)
