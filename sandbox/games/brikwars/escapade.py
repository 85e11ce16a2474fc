"""An Escapade battle driven by the game (BrikWars ch. 13): the scene's forces, the table's
edges, and the game's events turned into the facts of
:class:`~sandbox.rules.escapade.EscapadeLedger`.

The rules layer does the arithmetic (Unit Inches, underdogs, edges, Strategy bricks, victory);
this module only connects it to a running :class:`~sandbox.engine.game.Game`:

- **Set-up** (13.1, 13.2): builds the :class:`EscapadeSpec` from the ``[escapade]`` table
  (Size, Move and Action die from each unit's stats), rolls Tactical Advantage on the dice
  stream ``tactical``, checks every deployed unit's footprint centre against the deployment
  rules (a unit marked ``deploy_sprint`` that stands beyond one Move rolls its Action die on the
  stream ``sprint`` for the extra inches). Heroes listed in ``[escapade] rush`` make the
  Deployment Rush: turn 1 is the rush turn (players without a rushing force sit it out through
  the engine's ``sits_out`` hook; units of other forces may not move or act), regular turns
  follow. The ``swap`` and ``ambush`` actions play Tactical Advantage at deployment.
- **Kills** (13.2 The Commander): a ``destroyed`` event of a unit of the battle becomes
  :meth:`EscapadeLedger.destroy`. The killer is the unit whose ``attack`` event opened the
  action (kills by Bombardment, missiles or falls have no killer); the witnesses are the
  Commanders and Scouts on the table with a clear line of sight (physics ray from eye height,
  Smoke blocks it) to the victim at that moment.
- **Exits** (13.1 Picking Sides): an ``off_table`` event (a body that fell off the table) of a
  unit of the battle or an item of Loot becomes :meth:`EscapadeLedger.record_exit`. The carrier
  is the unit walking in that ``walk`` action (itself, or the item it carries); anything that
  leaves otherwise (flung by an explosion or a catapult, knocked back) has no carrier and
  belongs to no one.
- **Turns**: at the end of each turn called-in Reinforcements arrive at their scene positions
  and an ``escapade`` event logs :meth:`EscapadeLedger.summary` and the victory status.

Readings chosen here:

- 13.2 "Witness": a clear line of sight at the moment of the kill, at any range (the rules
  give vision no range); the victim's centre is the point seen.
- 13.1 A unit walking off the table may carry one item within 1" (edge to edge) of it; both
  go over the edge together and the item is booked before its carrier leaves.
- 13.1 Underdogs first: within a turn, the scripted Escapade actions must follow the ledger's
  turn order (a scene that breaks it is refused).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...core.errors import RulesError, SceneError
from ...engine.actions import MoveAction
from ...engine.events import possessive
from ...engine.outcome import Outcome
from ...engine.table import System, handles, refuses
from ...rules.escapade import (
    Area,
    Edge,
    EdgePlan,
    EscapadeKind,
    EscapadeLedger,
    EscapadeSpec,
    ForceSpec,
    ForceUnit,
    Role,
    Side,
    Table,
    TacticalAdvantage,
    can_swap,
    formation_area,
    friendly_stretches,
    pick_defenders_edge,
    roll_tactical_advantage,
    rush_turn,
)
from . import effects
from .scene_escapade import (
    ESCAPADE_ACTIONS,
    AmbushAction,
    AttackScript,
    DeclareAction,
    EscapadeSection,
    ReinforceAction,
    RelayAction,
    SwapAction,
    WalkAction,
)

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.table import Table as Game

#: An item a unit carries off the table must lie within this many inches of it, edge to edge.
CARRY_REACH_IN: float = 1.0

__all__ = ["EscapadeDriver", "build_escapade_spec", "CARRY_REACH_IN"]


def _area(entry, i: int) -> Area:
    from ...rules.escapade import rect_area

    if entry.rect is not None:
        x0, y0, x1, y1 = entry.rect
        return rect_area(x0, y0, x1, y1, entry.name)
    return Area(tuple(tuple(p) for p in entry.points), entry.name or f"stronghold {i + 1}")


def build_escapade_spec(spec, section: EscapadeSection) -> EscapadeSpec:
    """The rules' :class:`EscapadeSpec` of a scene's ``[escapade]`` table (13.1).

    Parameters
    ----------
    spec : SceneSpec
        The scene (units, reserves, players, battlefield in inches).
    section : EscapadeSection

    Raises
    ------
    SceneError
        A unit id that is not a scene unit or reserve, a player that is not a scene player, or
        forces the rules refuse (the message names the ``escapade`` field and the value).
    """
    units = {u.id: u for u in spec.units}
    reserves = {r.id: r for r in spec.reserves}
    players = [p.name for p in spec.players]
    forces = []
    try:
        for i, f in enumerate(section.forces):
            where = f"escapade.forces[{i}]"
            if f.player not in players:
                raise SceneError(f"{where}.player {f.player!r} is not one of the players {players}")
            fus = []
            for j, u in enumerate(f.units):
                entry = units.get(u.id) or reserves.get(u.id)
                if entry is None:
                    raise SceneError(f"{where}.units[{j}].id {u.id!r} is not a unit or reserve "
                                     "of the scene")
                if entry.owner is not None and entry.owner != f.player:
                    raise SceneError(f"{where}.units[{j}].id {u.id!r} belongs to {entry.owner!r}, "
                                     f"not to the force's player {f.player!r}")
                in_reserve = u.reserve if u.reserve is not None else u.id in reserves
                if not in_reserve and u.id not in units:
                    raise SceneError(f"{where}.units[{j}].id {u.id!r} is in [[reserves]]: it "
                                     "cannot start deployed (reserve = false)")
                if in_reserve and u.id in units:
                    raise SceneError(f"{where}.units[{j}].id {u.id!r} stands on the table: "
                                     "list a reserve unit in [[reserves]]")
                s = entry.stats
                fus.append(ForceUnit(
                    u.id, s.size, u.size_damage, is_hero=u.hero, is_commander=u.commander,
                    is_scout=s.scout if u.scout is None else u.scout, in_reserve=in_reserve,
                    move_inches=s.move, action_die=s.action_die,
                    propulsion="flight" if s.flight else "legs"))
            for j, uid in enumerate(f.new_units):
                if uid not in reserves:
                    raise SceneError(f"{where}.new_units[{j}] {uid!r} is not a unit in "
                                     "[[reserves]]")
            forces.append(ForceSpec(
                f.name, f.player, Role(f.role), tuple(fus),
                irresponsibility=f.irresponsibility if f.role != "garrison" else None,
                army_available_inches=f.army_available_inches))
        bf = spec.battlefield
        table = Table(bf.width, bf.depth)
        strongholds = tuple(_area(s, i) for i, s in enumerate(section.strongholds))
        att = Edge(section.attackers_edge)
        has_host = any(f.role.is_host for f in forces)
        dfn: Edge | None
        if section.defenders_edge is not None:
            dfn = Edge(section.defenders_edge)
        else:
            dfn = pick_defenders_edge(table, att, strongholds) if has_host else None
        plan = EdgePlan(table, att, dfn, strongholds)
        return EscapadeSpec(tuple(forces), EscapadeKind(section.kind), plan,
                            tuple(section.turn_order), section.garrison_defense_cap,
                            strict=section.strict)
    except RulesError as exc:
        raise SceneError(f"escapade: {exc}") from None


@dataclass
class _Arrival:
    unit: str
    force: str
    position: tuple[float, float]



#: Scripted actions whose place in the turn order is checked (13.1, underdogs first), and the
#: field that names who acts: a unit or Commander (its force is looked up) or the force itself.
_ORDERED_BY: dict[type, str] = {
    WalkAction: "unit", AttackScript: "unit", RelayAction: "commander",
    ReinforceAction: "commander", DeclareAction: "force",
}

class EscapadeDriver(System):
    """The ledger of a game's Escapade and the hooks the game calls (see the module notes).

    Parameters
    ----------
    game : Game
        A game whose scene has an ``[escapade]`` table.

    Attributes
    ----------
    spec : EscapadeSpec
    ledger : EscapadeLedger
    tactical : TacticalAdvantage or None
        Rolled at :meth:`start`.
    """

    name = "escapade"
    actions = ESCAPADE_ACTIONS

    @classmethod
    def wanted(cls, spec) -> bool:
        """Only a scene with an ``[escapade]`` table plays an Escapade."""
        return spec.escapade is not None

    def __init__(self, game: "Game"):
        super().__init__(game)
        self.section: EscapadeSection = game.spec.escapade
        self.spec = build_escapade_spec(game.spec, self.section)
        if self.spec.plan is None:  # build_escapade_spec always gives the table's edges
            raise SceneError("escapade: the table's edges are not set")
        #: The table, its edges and Strongholds (13.1).
        self.plan: EdgePlan = self.spec.plan
        self.ledger = EscapadeLedger(self.spec)
        self.loot = set(self.section.loot)
        self.tactical: TacticalAdvantage | None = None
        #: Forces making the Deployment Rush (13.2), in turn order; turn 1 is theirs alone.
        self.rushers: tuple[str, ...] = ()
        #: Forces whose units an enemy swapped already (13.2 Tactical Advantage).
        self.swapped: set[str] = set()
        self._attacker: str | None = None
        self._walker: str | None = None
        self._carried: str | None = None
        self._arrivals: list[_Arrival] = []
        self._exited: set[str] = set()
        self._n_events = 0
        self._busy = False
        self._entries = {u.id: u for u in list(game.spec.units) + list(game.spec.reserves)}
        # kills and exits become Escapade facts (13.1, 13.2): the ledger follows typed events
        for type_ in ("attack", "rest", "turn", "end_turn", "destroyed", "off_table"):
            game.subscribe(type_, self.on_event)
        self._units_of = {u.name: f.name for f in self.spec.forces for u in f.units}
        for f in self.section.forces:
            for uid in f.new_units:
                self._units_of.setdefault(uid, f.name)
        for i, key in enumerate(self.section.loot):
            if key not in self._entries and key not in {c.id for c in game.spec.creations}:
                raise SceneError(f"escapade.loot[{i}] {key!r} is not a body of the scene")

    # ---------------------------------------------------------------- helpers
    @property
    def skirmish(self):
        """The game's Move and Attack system (per-turn Move and Actions)."""
        return self.game.system("skirmish")

    def player_order(self) -> list[str]:
        """The players in the ledger's turn order (underdogs first, 13.1)."""
        out: list[str] = []
        for force in self.ledger.turn_order:
            p = self._player_of_force(force)
            if p not in out:
                out.append(p)
        return out

    def state(self) -> dict:
        return {"summary": self.ledger.summary(), "exited": sorted(self._exited)}

    def _log(self, text: str, **fields) -> dict:
        self._busy = True
        try:
            return self.game.log("escapade", text, **fields)
        finally:
            self._busy = False

    def _force_entry(self, name: str):
        return next(f for f in self.section.forces if f.name == name)

    def _centre(self, key: str) -> tuple[float, float]:
        lo, hi = self.game.world.aabb(key)
        c = (lo + hi) / 2
        return float(c[0]), float(c[1])

    def _player_of_force(self, force: str) -> str:
        return self._force_entry(force).player

    def _acting_force(self, a) -> str | None:
        """The force a scripted action acts for, when 13.1's turn order applies to it."""
        for cls, field in _ORDERED_BY.items():
            if isinstance(a, cls):
                who = getattr(a, field)
                return who if field == "force" else self._units_of.get(who)
        return None

    # ---------------------------------------------------------------- set-up
    def setup(self) -> None:
        """Log the forces and underdogs, roll Tactical Advantage, check deployment (13.1, 13.2).

        Raises
        ------
        SceneError
            A unit deployed where the rules do not allow it (strict Escapades), an ambush the
            Tactical Advantage roll does not grant, or scripted actions out of turn order.
        """
        g, led = self.game, self.ledger
        u = led.underdog
        bennies = ", ".join(f"{k} {v}" for k, v in u.bennies.items()) or "none"
        self._log(f"Escapade ({self.spec.kind.value}): attackers {u.attackers_inches:g}Ü, "
                  f"defenders {u.defenders_inches:g}Ü; underdog Bennies: {bennies}; turn order "
                  f"{' > '.join(led.turn_order)}", event="start",
                  attackers_inches=u.attackers_inches, defenders_inches=u.defenders_inches,
                  underdog_side=None if u.underdog_side is None else u.underdog_side.value,
                  bennies=dict(u.bennies), turn_order=list(led.turn_order),
                  limit_problems=[p.message for p in self.spec.limit_problems],
                  edges=self.edge_owners())
        tactical = roll_tactical_advantage(self.spec, g.dice.stream("tactical"))
        self.tactical = tactical
        ta = tactical.to_dict()
        self._log("Tactical Advantage: " + ", ".join(
            f"{r['force']} {r['total']}" + (" (Critical Failure)" if r["critical_failure"] else "")
            for r in ta["rolls"]) + f"; deploy order {' > '.join(ta['deploy_order'])}",
            event="tactical_advantage", **ta)
        self._check_deployment(tactical)
        rush = rush_turn(led.turn_order, self.spec.forces)
        for i, name in enumerate(self.section.rush):
            if name not in rush:
                raise SceneError(f"escapade.rush[{i}]: {name} cannot make a Deployment Rush: "
                                 f"{self._no_rush_reason(name)} (13.2)")
        self.rushers = tuple(n for n in led.turn_order if n in self.section.rush)
        if self.rushers:
            self._log(f"Deployment Rush: {', '.join(self.rushers)} rush; turn 1 is the rush "
                      "turn, the regular turns follow", event="deployment_rush",
                      forces=list(self.rushers), played=True)
        elif rush:
            self._log(f"Deployment Rush: {', '.join(rush)} could rush (none declared in "
                      "[escapade] rush: no rush turn)", event="deployment_rush", forces=rush,
                      played=False)
        self._check_script_order()
        self._log_status("set up")

    def _no_rush_reason(self, name: str) -> str:
        f = next(x for x in self.spec.forces if x.name == name)
        if f.role is Role.GARRISON:
            return "a Garrison never rushes"
        if f.irresponsibility is None:
            return "it has no Hero's Irresponsibility"
        sizes = [u.size_inches for u in f.units if not u.in_reserve]
        if not sizes:
            return "it deploys no units"
        return (f"its largest deployed unit ({max(sizes):g}\") is not smaller than its Hero's "
                f"Irresponsibility {f.irresponsibility:g}")

    # ---------------------------------------------------------------- the Deployment Rush
    def rush_turn_now(self) -> bool:
        """True during the Deployment Rush turn (turn 1 of a game with rushing Heroes)."""
        return bool(self.rushers) and self.game.turn == 1

    def sits_out(self, turn: int, player: str) -> str:
        """A player with no rushing force sits the rush turn out (13.2: "Heroes take their
        turns in regular turn order, skipping Garrison forces and Heroes with units too large
        to take advantage of the rush")."""
        if not self.rushers or turn != 1:
            return ""
        if any(self._player_of_force(f) == player for f in self.rushers):
            return ""
        return f"the Deployment Rush turn is {', '.join(self.rushers)}'s alone (13.2)"

    def unit_refusal(self, key: str) -> str:
        """Why a unit of the Escapade may not move or act now ("" when it may): during the rush
        turn only the rushing forces' units do (13.2)."""
        if not self.rush_turn_now():
            return ""
        force = self._units_of.get(key)
        if force is None or force in self.rushers:
            return ""
        return (f"{key} ({force}) waits: only {', '.join(self.rushers)} move and act in the "
                "Deployment Rush turn (13.2)")

    def start_of_turn(self, turn: int) -> None:
        """Announce the rush turn and the regular turns after it (13.2)."""
        if self.rushers and turn in (1, 2):
            text = ("The Deployment Rush turn: " + ", ".join(self.rushers) + " move and act"
                    if turn == 1 else "The battle continues with all forces taking regular turns")
            self._log(text, event="rush_turn" if turn == 1 else "regular_turns",
                      forces=list(self.rushers))

    # ---------------------------------------------------------------- Tactical Advantage
    def _battle_begun(self) -> str:
        if any(not x.deployment for x in self.game.actions):
            return ("the battle has begun: Tactical Advantage swaps and ambushes are made at "
                    "deployment, before the first action (13.2)")
        if self.tactical is None:
            return "Tactical Advantage is rolled when the Escapade is set up, not yet (13.2)"
        return ""

    @refuses(AmbushAction)
    def ambush_refusal(self, a: AmbushAction) -> str:
        """Why the ambush placement ``a`` is not allowed ("" when it is; 13.2): the force must
        have rolled at least twice its highest-rolling enemy, and the spot must lie outside
        every enemy formation (a box around its units, 1" margin) and Stronghold."""
        g = self.game
        why = self._battle_begun()
        if why or self.tactical is None:  # _battle_begun says why when it is None
            return why
        force = self._units_of.get(a.unit)
        if force is None:
            return f"{a.unit} is not a unit of the Escapade"
        if self._player_of_force(force) != a.player:
            return f"{a.unit} fights for {force}, not for {a.player}"
        if force not in self.tactical.ambushers:
            return (f"{force} did not roll at least twice its highest-rolling enemy's Tactical "
                    "Advantage: no ambush (13.2)")
        st = g.bodies.get(a.unit)
        if st is None or st.damage.destroyed or a.unit not in g.world.bodies:
            return f"{a.unit} is not deployed on the table"
        chk = self.ledger.check_deployment(a.unit, a.to, ambush=True,
                                           enemy_formations=self.enemy_formations(force))
        if not chk.legal:
            return f"{a.unit} cannot set up an ambush at ({a.to[0]:g}, {a.to[1]:g}): {chk.reason}"
        return ""

    def enemy_formations(self, force: str) -> list:
        """The formations of ``force``'s enemies on the table now (13.2 ambush): each enemy
        force's deployed units' footprint centres, boxed with a 1" margin."""
        g, out = self.game, []
        for f in self.spec.forces:
            if f.name == force or not self.ledger.are_enemies(f.name, force):
                continue
            pts = [(float(c[0]), float(c[1])) for c in (
                g.footprint_centre(u.name) for u in f.units
                if u.name in g.world.bodies and not g.bodies[u.name].damage.destroyed)]
            if pts:
                out.append(formation_area(pts, name=f.name))
        return out

    def _ambush(self, a: AmbushAction) -> None:
        g = self.game
        lo, _ = g.bounds(a.unit)
        c = g.footprint_centre(a.unit)
        pos, orn = g.world.pose(a.unit)
        g.world.set_pose(a.unit, pos + np.array([a.to[0] - c[0], a.to[1] - c[1], -lo[2]]), orn)
        g.record_frame(force=True)
        g.settle(quiet=True)
        force = self._units_of[a.unit]
        self._log(f"Tactical Advantage: {a.unit} of {force} sets up an ambush at "
                  f"({a.to[0]:g}, {a.to[1]:g}) (13.2)", event="ambush", force=force,
                  unit=a.unit, position=list(a.to))

    @refuses(SwapAction)
    def swap_refusal(self, a: SwapAction) -> str:
        """Why the Tactical Advantage swap ``a`` is not allowed ("" when it is; 13.2)."""
        g = self.game
        why = self._battle_begun()
        if why or self.tactical is None:  # _battle_begun says why when it is None
            return why
        forces = []
        for key in a.units:
            f = self._units_of.get(key)
            if f is None:
                return f"{key} is not a unit of the Escapade"
            forces.append(f)
        if forces[0] != forces[1]:
            return (f"{a.units[0]} fights for {forces[0]} and {a.units[1]} for {forces[1]}: "
                    "both swapped units must be of one force (13.2)")
        victim = forces[0]
        if victim not in self.tactical.swaps:
            return (f"{victim} neither critically failed its Tactical Advantage roll nor lacks "
                    "a Command Specialist: nobody may swap its units (13.2)")
        by = self.tactical.swaps[victim]
        if by is None:
            return f"no enemy of {victim} rolled for Tactical Advantage: nobody may swap (13.2)"
        if self._player_of_force(by) != a.player:
            return (f"only {by} ({self._player_of_force(by)}), {victim}'s highest-rolling "
                    "enemy, may swap its units (13.2)")
        if victim in self.swapped:
            return f"{by} has already swapped two of {victim}'s units (13.2)"
        fu = {u.name: u for u in self._force_spec(victim).units}
        ua, ub = fu[a.units[0]], fu[a.units[1]]
        for u in (ua, ub):
            st = g.bodies.get(u.name)
            if u.in_reserve or st is None or st.damage.destroyed or u.name not in g.world.bodies:
                return f"{u.name} is not deployed on the table"
        if not can_swap(ua, ub):
            if ua.propulsion != ub.propulsion:
                return (f"{ua.name} ({ua.propulsion}) and {ub.name} ({ub.propulsion}) are not "
                        "of the same Propulsion type (13.2)")
            return (f"{ua.name} (Size {ua.size_inches:g}\") and {ub.name} (Size "
                    f"{ub.size_inches:g}\") are not of similar Size (13.2)")
        return ""

    def force_of_unit(self, key: str) -> str | None:
        """The Escapade force ``key`` fights for, or None."""
        return self._units_of.get(key)

    def player_of_force(self, force: str) -> str:
        """The player of a force (the scene's name)."""
        return self._player_of_force(force)

    def swap_player(self, key: str) -> str | None:
        """The player who may swap units of ``key``'s force (its highest-rolling enemy's, when
        the force failed Tactical Advantage and no swap was made yet), else None (13.2)."""
        force = self._units_of.get(key)
        by = None if self.tactical is None or force is None or force in self.swapped else \
            self.tactical.swaps.get(force)
        return None if by is None else self._player_of_force(by)

    def _force_spec(self, name: str) -> ForceSpec:
        return next(f for f in self.spec.forces if f.name == name)

    def _swap(self, a: SwapAction) -> None:
        """Each unit is put where the other stood (its feet on the other's spot, its own
        facing kept), then the table settles."""
        g = self.game
        ka, kb = a.units
        (la, _), (lb, _) = g.bounds(ka), g.bounds(kb)
        ca, cb = g.footprint_centre(ka), g.footprint_centre(kb)
        shift = np.array([cb[0] - ca[0], cb[1] - ca[1], lb[2] - la[2]])
        (pa, oa), (pb, ob) = g.world.pose(ka), g.world.pose(kb)
        g.world.set_pose(ka, pa + shift, oa)
        g.world.set_pose(kb, pb - shift, ob)
        g.record_frame(force=True)
        g.settle(quiet=True)
        victim = self._units_of[ka]
        self.swapped.add(victim)
        self._log(f"Tactical Advantage: {a.player} swaps {ka} and {kb} of {victim} (13.2)",
                  event="swap", force=victim, units=[ka, kb], by=a.player)

    def _check_deployment(self, tactical: TacticalAdvantage) -> None:
        placed: dict[str, list[tuple[float, float]]] = {}
        by_name = {f.name: f for f in self.spec.forces}
        for fname in tactical.deploy_order:
            i = next(k for k, f in enumerate(self.section.forces) if f.name == fname)
            fe = self.section.forces[i]
            ambush = fe.ambush
            if ambush and fname not in tactical.ambushers:
                raise SceneError(f"escapade.forces[{i}].ambush: {fname} did not roll at least "
                                 "twice the highest enemy Tactical Advantage (13.2)")
            enemies = [formation_area(pts, name=n) for n, pts in placed.items() if pts
                       and self.ledger.are_enemies(n, fname)] if ambush else []
            pts = []
            for j, ue in enumerate(fe.units):
                fu = next(u for u in by_name[fname].units if u.name == ue.id)
                if fu.in_reserve:
                    continue
                p = self._centre(ue.id)
                chk = self.ledger.check_deployment(ue.id, p, ambush=ambush,
                                                   enemy_formations=enemies)
                if not chk.legal and ue.deploy_sprint and chk.edge_distance is not None:
                    r = self.game.dice.stream("sprint").roll(
                        fu.action_die, f"Sprint placement of {ue.id} (13.2)")
                    chk = self.ledger.check_deployment(ue.id, p, sprint_inches=float(r.result))
                ok = "legal" if chk.legal else "ILLEGAL"
                self._log(f"Deployment of {ue.id} at ({p[0]:.2f}, {p[1]:.2f}): {ok}, {chk.reason}"
                          + (" (Sprint: no Action before its first turn)"
                             if chk.used_sprint else ""),
                          event="deployment", unit=ue.id, force=fname, position=list(p),
                          legal=chk.legal, reason=chk.reason, used_sprint=chk.used_sprint,
                          edge_distance=chk.edge_distance)
                if not chk.legal and self.spec.strict:
                    raise SceneError(f"escapade.forces[{i}].units[{j}] {ue.id!r} at "
                                     f"({p[0]:.2f}, {p[1]:.2f}): {chk.reason} "
                                     "(13.2 Deploying Forces)")
                # chk.used_sprint: the Sprint is the unit's Action spent before its first turn
                # (no Response Actions until then); its first turn (the rush turn for a
                # rushing force) finds it ready.
                pts.append(p)
            placed[fname] = pts

    def _check_script_order(self) -> None:
        order = self.ledger.turn_order
        last: dict[int, tuple[int, str, int]] = {}
        for i, a in enumerate(self.game.spec.actions):
            force = self._acting_force(a)
            if force is None:
                continue
            if force not in order:
                raise SceneError(f"actions[{i}]: {force!r} is not a force of the Escapade")
            t = getattr(a, "turn", 1)
            k = order.index(force)
            if t in last and k < last[t][0]:
                raise SceneError(f"actions[{i}]: {force} acts after {last[t][1]} (actions"
                                 f"[{last[t][2]}]) on turn {t}, but the turn order is "
                                 f"{order} (underdogs first, 13.1)")
            last[t] = (k, force, i)

    # ---------------------------------------------------------------- events
    def on_event(self, ev: dict) -> None:
        """Follow the game's log: attackers, kills (``destroyed``), exits (``off_table``)."""
        if self._busy:
            return
        t = ev.get("type")
        if t == "attack":
            self._attacker = ev.get("body")
        elif t in ("rest", "turn", "end_turn"):
            self._attacker = None
        elif t == "destroyed":
            self._kill(ev.get("body"))
        elif t == "off_table":
            self._exit(ev.get("body"), ev.get("position"))

    def _kill(self, key: str | None) -> None:
        led = self.ledger
        if key is None or key not in self._units_of or key in self.loot:
            return
        try:
            if led.status(key).value != "deployed":
                return
        except RulesError:
            return
        killer = (self._attacker if self._attacker in self._units_of
                  and self._attacker != key else None)
        if killer is not None and led.status(killer).value != "deployed":
            killer = None
        witnesses = self.witnesses(key)
        earns = led.destroy(key, killer=killer, witnesses=witnesses)
        kf = led.force_of(killer) if killer else None
        self._log(f"{key} is killed" + (f" by {killer}" if killer else "")
                  + (f", seen by {', '.join(witnesses)}" if witnesses else ", unseen")
                  + (f": {kf} may relay it for a Strategy brick" if earns else ""),
                  event="kill", unit=key, killer=killer, witnesses=witnesses, reportable=earns,
                  force=led.force_of(key))

    def witnesses(self, victim: str) -> list[str]:
        """Commanders and Scouts on the table with a clear line of sight to ``victim`` (13.2)."""
        g = self.game
        if victim not in g.world.bodies:
            return []
        out = []
        for f in self.spec.forces:
            for u in f.units:
                if not (u.is_commander or u.is_scout) or u.name == victim:
                    continue
                if self.ledger.status(u.name).value != "deployed" or u.name not in g.world.bodies:
                    continue
                st = g.bodies.get(u.name)
                if st is not None and st.damage.destroyed:
                    continue
                if self.game.line_of_sight(u.name, victim).clear:
                    out.append(u.name)
        return out

    def _exit(self, key: str | None, position) -> None:
        if key is None or key in self._exited or position is None:
            return
        is_unit = key in self._units_of
        if not is_unit and key not in self.loot:
            return
        if is_unit and self.ledger.status(key).value != "deployed":
            return  # a wreck or a unit already gone
        xy = (float(position[0]), float(position[1]))
        table = self.plan.table
        if table.edge_crossed(xy) is None:
            return  # fell through the table: not over an edge
        carrier = None
        if self._walker is not None and key in (self._walker, self._carried):
            carrier = self._walker
            if key == self._walker and self._carried and self._carried not in self._exited:
                c = self._carried
                if c in self.game.world.bodies:  # the item goes over the edge with its carrier
                    p, _ = self.game.world.pose(c)
                    if table.edge_crossed((float(p[0]), float(p[1]))) is not None:
                        self._exit(c, p)
        active = False
        if carrier is not None:
            st = self.game.bodies.get(carrier)
            active = st is not None and not st.damage.destroyed and not st.damage.disrupted
        self._exited.add(key)
        out = self.ledger.record_exit(key, xy, carrier=carrier, carrier_active=active)
        self._log(f"{key} left the table over the {out.edge.value} edge: {out.kind.value}"
                  + (f" by {out.owner}" if out.owner else "") + f" ({out.reason})",
                  event="exit", object=key, kind=out.kind.value, edge=out.edge.value,
                  owner=out.owner, carrier=carrier, reason=out.reason, position=list(xy))

    # ---------------------------------------------------------------- actions
    # Why an Escapade action is refused now ("" when allowed), by its @refuses method: the
    # Tactical Advantage swap's and ambush's conditions (swap_refusal, ambush_refusal) and the
    # rush turn's limits (13.2); the rest is checked in play.
    @refuses(WalkAction)
    def _walk_refusal(self, action: WalkAction) -> str:
        return self.unit_refusal(action.unit)

    @refuses(RelayAction, ReinforceAction)
    def _commander_refusal(self, action: RelayAction | ReinforceAction) -> str:
        return self.unit_refusal(action.commander)

    @refuses(DeclareAction)
    def _declare_refusal(self, action: DeclareAction) -> str:
        if self.rush_turn_now() and action.force not in self.rushers:
            return (f"{action.force} waits: only {', '.join(self.rushers)} act in the "
                    "Deployment Rush turn (13.2)")
        return ""

    # Each scripted Escapade action (see :mod:`.scene_escapade`) is applied by its @handles
    # method (RulesError when not allowed, with the numbers; SceneError for unknown ids).
    @handles(SwapAction)
    def _apply_swap(self, action: SwapAction, index: int) -> None:
        self._swap(action)

    @handles(AmbushAction)
    def _apply_ambush(self, action: AmbushAction, index: int) -> None:
        self._ambush(action)

    @handles(WalkAction)
    def _apply_walk(self, action: WalkAction, index: int) -> None:
        self._walk(action, f"actions[{index}]")

    @handles(RelayAction)
    def _apply_relay(self, action: RelayAction, index: int) -> None:
        self._relay(action, f"actions[{index}]")

    @handles(ReinforceAction)
    def _apply_reinforce(self, action: ReinforceAction, index: int) -> None:
        self._reinforce(action, f"actions[{index}]")

    @handles(DeclareAction)
    def _apply_declare(self, action: DeclareAction, index: int) -> None:
        self._declare(action, f"actions[{index}]")

    def _own_commander(self, player: str, key: str, where: str) -> str:
        force = self._units_of.get(key)
        if force is None:
            raise SceneError(f"{where}.commander {key!r} is not a unit of the Escapade")
        if self._player_of_force(force) != player:
            raise RulesError(f"{where}: {key} fights for {force}, not for {player}")
        return force

    def _walk(self, a: WalkAction, where: str) -> None:
        """A unit walks within its Move (the table's Move); beyond a table edge it walks off,
        carrying one item within 1" (13.1). Both go through the engine's one move."""
        g, sk = self.game, self.skirmish
        table = self.plan.table
        edge = table.edge_crossed(a.to)
        if edge is None and a.carrying is None:
            move = MoveAction(type="move", player=a.player, turn=a.turn, unit=a.unit, to=a.to,
                              sprint=a.sprint)
            reason = sk.refusal(move)
            if reason:
                raise RulesError(f"{where}: {reason}")
            sk.apply(move, 0)
            return
        st = sk.own_unit(a.unit, a.player)
        if a.sprint:
            raise RulesError(f"{where}: Sprint first with a walk on the table, then walk off")
        to = np.asarray(a.to, float)
        dist = float(np.linalg.norm(to - g.footprint_centre(a.unit)))
        left = sk.move_allowance(a.unit)
        if dist > left + 1e-9:
            raise RulesError(f"{where}: {st.name} may move {left:.2f}\" more this turn, not "
                             f"{dist:.2f}\"")
        if a.carrying is not None:
            if a.carrying not in g.world.bodies or a.carrying == a.unit:
                raise SceneError(f"{where}.carrying {a.carrying!r} is not a body on the table")
            reach = g.measure(a.unit, a.carrying).inches
            if reach > CARRY_REACH_IN + 1e-9:
                raise RulesError(f"{where}: {a.carrying} is {reach:.2f}\" from {st.name} (it must "
                                 f"be within {CARRY_REACH_IN:g}\" to be carried)")
        carrying = a.carrying or g.system("tabletop").held(a.unit)  # or what it picked up
        note = ((f", carrying {carrying}" if carrying else "")
                + (f", off the {edge.value} edge of the table" if edge else ""))
        self._walker, self._carried = a.unit, carrying
        try:
            g.move_unit(a.unit, to, player=a.player, carrying=carrying,
                        leave_table=edge is not None, note=note,
                        off_edge=edge.value if edge else None)
        finally:
            self._walker = self._carried = None
        sk.turn_state.moved_in[a.unit] = sk.turn_state.moved_in.get(a.unit, 0.0) + dist

    def _relay(self, a: RelayAction, where: str) -> None:
        force = self._own_commander(a.player, a.commander, where)
        g = self.game
        if effects.has_acted(g, a.commander):
            raise RulesError(f"{where}: {a.commander} has already used his Action this turn")
        before = self.ledger.strategy_bricks(force)
        bricks = self.ledger.relay_report(force, a.commander)
        effects.spend_action(g, a.commander)
        # One Strategy pile per player: what the Commander earns pays for The Big Drop and
        # Strategic Bombardment too (13.2 The Commander).
        piles = self.game.system("bombardment").piles
        piles[a.player] = piles.get(a.player, 0) + (bricks - before)
        self._log(f"{a.commander} relays a witnessed kill: {force} has {bricks} Strategy "
                  f"brick(s)", event="relay", force=force, commander=a.commander, bricks=bricks)

    def _reinforce(self, a: ReinforceAction, where: str) -> None:
        force = self._own_commander(a.player, a.commander, where)
        g = self.game
        if effects.has_acted(g, a.commander):
            raise RulesError(f"{where}: {a.commander} has already used his Action this turn")
        fe = self._force_entry(force)
        reserve, new = [], []
        for j, uid in enumerate(a.units):
            entry = self._entries.get(uid)
            if entry is None:
                raise SceneError(f"{where}.units[{j}] {uid!r} is not a unit of the scene")
            if uid in fe.new_units:
                st = entry.stats
                new.append(ForceUnit(uid, st.size, move_inches=st.move, action_die=st.action_die,
                                     is_scout=st.scout))
            else:
                reserve.append(uid)
        cost = self.ledger.call_reinforcements(force, a.commander, new_units=new,
                                               reserve_units=reserve)
        effects.spend_action(g, a.commander)
        piles = self.game.system("bombardment").piles
        piles[a.player] = max(0, piles.get(a.player, 0) - cost)
        for uid in a.units:
            p = self._entries[uid].position
            chk = self.ledger.check_deployment(uid, (p[0], p[1]))
            if not chk.legal:
                raise RulesError(f"{where}: {uid} cannot arrive at ({p[0]:g}, {p[1]:g}): "
                                 f"{chk.reason} (13.2 Reinforcements)")
            self._arrivals.append(_Arrival(uid, force, (p[0], p[1])))
        self._log(f"{a.commander} calls Reinforcements for {cost} Strategy brick(s): "
                  f"{', '.join(a.units)} arrive at the end of the turn", event="reinforcements",
                  force=force, commander=a.commander, units=list(a.units), cost=cost,
                  bricks=self.ledger.strategy_bricks(force))

    def _declare(self, a: DeclareAction, where: str) -> None:
        led = self.ledger
        try:
            player = self._player_of_force(a.force)
        except StopIteration:
            raise SceneError(f"{where}.force {a.force!r} is not a force of the Escapade") from None
        if player != a.player:
            raise RulesError(f"{where}: {a.force} is {possessive(player)} force, not "
                             f"{possessive(a.player)}")
        if a.what == "losing_battle":
            led.fight_losing_battle(a.force)
            text = f"{a.force} is Fighting a Losing Battle"
        elif a.what == "concede":
            led.concede(a.force)
            text = f"{a.force} concedes"
        else:
            led.betray(a.force, Role(a.role))
            text = f"{a.force} Betrays its alliance and becomes {a.role}"
        self._log(text, event=a.what, force=a.force, role=a.role)

    # ---------------------------------------------------------------- turns
    def end_of_turn(self, turn: int) -> None:
        """Close the ledger's turn: Reinforcements arrive, the standing is logged."""
        g = self.game
        arrived = self.ledger.end_turn()
        for arr in [x for x in self._arrivals if x.unit in arrived]:
            entry = self._entries[arr.unit]
            asset = g.build_asset(entry)
            g.add_body(arr.unit, "unit", entry.name or entry.id, entry.owner, entry.stats, asset)
            self._log(f"{arr.unit} arrives for {arr.force} at ({arr.position[0]:g}, "
                      f"{arr.position[1]:g})", event="arrival", unit=arr.unit, force=arr.force)
        self._arrivals = [x for x in self._arrivals if x.unit not in arrived]
        if arrived:
            g.record_frame(force=True)
        self._log_status(f"end of turn {turn}")

    def _log_status(self, when: str) -> None:
        summ = self.ledger.summary()
        v = summ["victory"]
        self._log(f"Escapade {when}: {v['outcome'].replace('_', ' ')}"
                  + (f" ({', '.join(v['victors'])})" if v["victors"] else "") + f": {v['reason']}",
                  event="status", summary=summ, edges=self.edge_owners())

    # ---------------------------------------------------------------- the outcome
    def outcome(self, final: bool = False) -> Outcome:
        """13.3 Determining Victory: "Victory in an Escapade is determined by which forces
        haven't been defeated yet when players decide the battle is over." While it goes on,
        who would hold the victory is the reason (no winner yet: "the Host retains control of
        the battlefield" only once the battle is over); finished (``final``), or once the
        scene's last turn has ended (``turns``: the length the players agreed on; the engine
        then ends the game after that ``end_turn``), the victors win (several forces: joined
        with "and"), and a battle ended "without a clear victor" is a draw."""
        v = self.ledger.victory_status()
        standing = v.outcome.value.replace("_", " ")
        holders = " and ".join(v.victors)
        turns = self.game.spec.turns
        if not final and turns and self.game.turn > turns:
            final = True  # the players' agreed length (the scene's ``turns``) has run out
        if not final:
            return Outcome(reason=f"if the battle ended now: {standing}"
                           + (f" ({holders})" if holders else "") + f", {v.reason}")
        if not v.victors:
            return Outcome(terminated=True, draw=True,
                           reason=f"13.3: the battle ended without a clear victor ({v.reason})")
        return Outcome(terminated=True, winner=holders,
                       reason=f"13.3 Escapade, {standing}: {v.reason}")

    # ---------------------------------------------------------------- read-outs
    def edge_owners(self) -> dict[str, str]:
        """Each table edge's holder now: "attackers", "defenders" or "uncontrolled" (13.1)."""
        led = self.ledger
        out = {e.value: "uncontrolled" for e in Edge}
        for side in (Side.ATTACKERS, Side.DEFENDERS):
            if led.side_present(side):
                e = (self.plan.attackers_edge if side is Side.ATTACKERS
                     else self.plan.defenders_edge)
                if e is not None:
                    out[e.value] = side.value
        return out

    def stretches(self) -> dict[str, list[tuple[tuple[float, float], tuple[float, float]]]]:
        """Usable stretches of the edges of each holder (inches): keys "attackers",
        "defenders", "uncontrolled"; parts inside a Stronghold are in none (13.1)."""
        led = self.ledger
        pres = dict(attackers_present=led.side_present(Side.ATTACKERS),
                    defenders_present=led.side_present(Side.DEFENDERS))
        plan = self.plan
        return {name: [(st.a, st.b) for st in friendly_stretches(plan, side, **pres)]
                for name, side in (("attackers", Side.ATTACKERS), ("defenders", Side.DEFENDERS),
                                   ("uncontrolled", Side.MEDDLER))}

    def deployment_depths(self) -> dict[str, float]:
        """Deepest one-turn Move of each holder's deployed units (the zone's depth, inches)."""
        out = {"attackers": 0.0, "defenders": 0.0, "uncontrolled": 0.0}
        for f in self.spec.forces:
            key = {Side.ATTACKERS: "attackers", Side.DEFENDERS: "defenders",
                   Side.MEDDLER: "uncontrolled"}[f.role.side]
            if f.role is Role.GARRISON:
                continue  # the Garrison deploys inside the Stronghold
            for u in f.units:
                out[key] = max(out[key], u.move_inches)
        return out

    def panel_lines(self) -> list[str]:
        """The forces table, Strategy piles and victory status, line by line (for a HUD)."""
        led = self.ledger
        summ = led.summary()
        u = led.underdog
        lines = [f"Escapade ({summ['kind'].replace('_', ' ')}), turn {summ['turn']}"]
        for name, f in summ["forces"].items():
            pend = f" (+{f['pending_reports']} to relay)" if f["pending_reports"] else ""
            flags = "".join([", Losing Battle" if f["losing_battle"] else "",
                             ", conceded" if f["conceded"] else ""])
            lines.append(f"{name} ({f['role'].replace('_', ' ')}): {f['unit_inches']:g}/"
                         f"{f['initial_inches']:g}Ü, Bennies {f['bennies']}, Strategy "
                         f"{f['strategy_bricks']}{pend}{flags}")
        side = "none" if u.underdog_side is None else u.underdog_side.value
        lines.append(f"Attackers {u.attackers_inches:g}Ü vs defenders {u.defenders_inches:g}Ü: "
                     f"underdogs {side}")
        lines.append("Turn order: " + " > ".join(led.turn_order))
        if self.rushers:
            lines.append("Deployment Rush (turn 1): " + ", ".join(self.rushers)
                         + (" - now" if self.rush_turn_now() else ""))
        owners = self.edge_owners()
        lines.append("Edges: " + ", ".join(f"{e} {o}" for e, o in owners.items()))
        v = summ["victory"]
        lines.append("Victory: " + v["outcome"].replace("_", " ")
                     + (f" ({', '.join(v['victors'])})" if v["victors"] else ""))
        return lines

    # ---------------------------------------------------------------- expectations
    def check(self) -> list[str]:
        """Failures (in words) of ``[escapade.expect]`` against the ledger and the game log."""
        exp = self.section.expect
        if exp is None:
            return []
        led = self.ledger
        fails = []
        v = led.victory_status()
        if exp.outcome is not None and v.outcome.value != exp.outcome:
            fails.append(f"expected the Escapade outcome {exp.outcome!r}, got {v.outcome.value!r} "
                         f"({v.reason})")
        if exp.victors is not None and sorted(v.victors) != sorted(exp.victors):
            fails.append(f"expected victors {exp.victors}, got {list(v.victors)}")
        for force, n in exp.bennies.items():
            got = led.underdog.bennies.get(force, 0)
            if got != n:
                fails.append(f"expected {force!r} to start with {n} underdog Bennies, got {got}")
        for force, n in exp.strategy_bricks.items():
            got = led.strategy_bricks(force)
            if got != n:
                fails.append(f"expected {force!r} to end with {n} Strategy bricks, got {got}")
        exits = {e["object"]: e for e in self.game.events
                 if e["type"] == "escapade" and e.get("event") == "exit"}
        for x in exp.exits:
            ex = exits.get(x.object)
            if ex is None:
                fails.append(f"expected {x.object!r} to leave the table ({x.kind}), it did not")
            elif ex["kind"] != x.kind or ex["owner"] != x.owner:
                fails.append(f"expected {x.object!r} to leave {x.kind} (owner {x.owner}), got "
                             f"{ex['kind']} (owner {ex['owner']})")
        for key in exp.destroyed:
            if led.status(key).value != "destroyed":
                fails.append(f"expected {key!r} killed in the Escapade, it is "
                             f"{led.status(key).value}")
        return fails
