"""Brigandine on the table: the eight-phase round on the engine's turn machine (003, Combat).

A scene with ``game = "brigandine"`` and a ``[brigandine]`` table plays this game. Engine turn
``t`` is phase ``(t - 1) % 8 + 1`` of round ``(t - 1) // 8 + 1``
(:func:`~sandbox.games.brigandine.scene.round_phase`); within a phase each player, in the scene's
order (hotseat: the screen passes with ``end_turn``), gives the phase's orders as ``brig_*``
actions. Orders are checked at once (a refused order changes nothing) but stay hidden; when the
last player ends the phase the System reveals and resolves them in initiative order, players of
equal initiative together (their casualties count after all of them struck), and the next phase
begins. Declarations (phase 2) and joust choices are revealed together at the end of phase 2 and
bind the rest of the round.

The bodies are the scene's minifigs; a charge runs a physics sweep (rays along the charge line,
:func:`sandbox.physics.rays.ray_first_hit` on the engine's world) and stops at the first body
struck; a defeated, fleeing or unhorsed figure is knocked over by a push (a velocity impulse).
Collision Damage is off: the rules, not the impacts, decide who falls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ...core.errors import RulesError, SceneError
from ...engine.actions import action_dict
from ...engine.assets import build_part_asset
from ...engine.events import possessive
from ...engine.measure import footprint_gap
from ...engine.outcome import Outcome
from ...engine.table import System, handles, refuses
from ...physics.rays import ray_first_hit
from ...rules import brigandine as R
from ...rules.brigandine_tables import load_tables
from .scene import (
    BRIG_ACTIONS,
    BrigCharge,
    BrigDeclare,
    BrigDefend,
    BrigDelay,
    BrigDraw,
    BrigJoust,
    BrigMelee,
    BrigMove,
    BrigReload,
    BrigShoot,
    round_phase,
)

#: An order given by one unit (its ``unit``).
UnitOrder = (BrigDeclare | BrigJoust | BrigMove | BrigCharge | BrigDraw | BrigReload | BrigMelee
             | BrigDefend)
#: An order held hidden until its phase resolves.
PhaseOrder = BrigMove | BrigCharge | BrigDraw | BrigReload | BrigShoot | BrigMelee | BrigDefend

#: Two figures are in contact (may melee) when their footprints are this close, inches.
CONTACT_IN: float = 1.0
#: A charger stops this far short of the body its sweep struck, inches.
CHARGE_GAP_IN: float = 0.1
#: A charge blocked at its end point stops this much shorter each try, inches.
CHARGE_BACKOFF_IN: float = 0.25
#: Slack on movement limits, inches.
MOVE_SLACK_IN: float = 1e-6
#: The LDraw part launched as an artillery shot (a 1x1 round brick) and its colour.
SHOT_PART, SHOT_COLOUR = "3062b", 0
#: The part drawn as a volley's arrow (an antenna, 4 plates high) and its colour.
ARROW_PART, ARROW_COLOUR = "3957a", 6
#: Colour of a broken lance's halves (LDraw brown).
LANCE_COLOUR: int = 6
#: An arrow comes down this far short of its target's footprint, inches.
ARROW_SHORT_IN: float = 1.0
#: Speed (in/s) of the push that knocks a defeated or unhorsed figure over.
FALL_PUSH_IN_S: float = 6.0


@dataclass
class BrigUnit:
    """One figure's Brigandine state on the table."""

    key: str
    name: str
    owner: str | None
    stats: R.UnitStats
    def_left: int
    launcher: R.Launcher | None = None
    artillery: str | None = None
    side_arm: R.Weapon | None = None
    monster: R.MonsterMorale | None = None
    #: The round an FC-only monster began to flee (0: it is not leaving; see
    #: :meth:`BrigandineCombat._monster_flees`).
    leaving_round: int = 0
    weary: bool = False
    defeated: bool = False
    fled: bool = False
    unhorsed: bool = False
    joust_points: int = 0
    # this round
    does: list[str] = field(default_factory=list)
    target: str | None = None
    moved: bool = False
    charged: bool = False
    in_melee: bool = False

    @property
    def standing(self) -> bool:
        return not (self.defeated or self.fled or self.unhorsed)

    def state(self) -> dict:
        weapon = self.stats.weapon.name if self.stats.weapon else None
        st: dict[str, Any] = {"weapon": weapon,
                              "side_arm": self.side_arm.name if self.side_arm else None}
        st |= {k: getattr(self, k) for k in ("def_left", "weary", "defeated", "fled", "unhorsed",
                                             "joust_points", "does", "target", "moved",
                                             "charged", "in_melee")}
        if self.launcher is not None:
            lau = self.launcher
            st["launcher"] = [lau.loaded, lau.shots_this_round, list(lau.shot_phases),
                              lau.declared, lau.lost]
        if self.monster is not None:
            st["monster"] = [self.monster.hits, self.monster.fleeing, self.monster.to_the_death]
            if self.leaving_round:
                st["leaving_round"] = self.leaving_round
        return st


def _order(a) -> dict:
    """An order as the state hash covers it: what was ordered, not who issued it."""
    d = action_dict(a)
    d.pop("by", None)
    return d


class BrigandineCombat(System):
    """Brigandine's round: phases, initiative, declarations, orders and their resolution."""

    name = "brigandine"
    actions = BRIG_ACTIONS

    def __init__(self, game):
        super().__init__(game)
        sec = game.spec.brigandine
        if sec is None:
            raise SceneError("game 'brigandine' needs a [brigandine] table with its units")
        self.section = sec
        folder = (Path(game.base_dir) / sec.tables) if sec.tables else None
        self.tables = load_tables(folder)
        self.units: dict[str, BrigUnit] = {}
        self.initiative: dict[str, int] = {}
        self.delayed: set[str] = set()
        self.orders: list[PhaseOrder] = []  # this phase's orders, hidden until it resolves
        self.declared: dict[str, BrigDeclare] = {}
        self.jousts: dict[str, BrigJoust] = {}
        self.pair_rounds: dict[str, int] = {}
        self.stream = game.dice.stream("brigandine")
        owners = {u.id: u.owner for u in game.spec.units}
        for e in sec.units:
            if e.id not in owners:
                raise SceneError(f"brigandine.units: {e.id!r} is not the id of a scene unit")
            weapon = R.weapon_from_table(self.tables, e.weapon) if e.weapon else None
            stats = R.UnitStats(e.id, e.atk, e.aim, e.iq, e.def_die, e.morale, e.move,
                                R.parse_strength(e.strength), weapon, e.missile, e.firing,
                                e.armor, e.fc_class, e.legendary, e.magic_weapon)
            if e.artillery and e.artillery not in self.tables.artillery.weapons:
                raise SceneError(f"brigandine.units[{e.id}].artillery {e.artillery!r} is not one "
                                 f"of {sorted(self.tables.artillery.weapons)}")
            if stats.armor is not None and stats.armor not in self.tables.man_to_man.armor_classes:
                raise SceneError(f"brigandine.units[{e.id}].armor {stats.armor!r} is not one of "
                                 f"{self.tables.man_to_man.armor_classes}")
            artillery = e.artillery or ("arquebus" if e.missile == "arquebus" else None)
            kind = artillery or e.missile
            self.units[e.id] = BrigUnit(
                e.id, e.id, owners[e.id], stats, stats.def_n,
                launcher=R.Launcher(kind) if kind else None, artillery=artillery,
                side_arm=R.weapon_from_table(self.tables, e.side_arm) if e.side_arm else None,
                monster=R.MonsterMorale(stats.attk_n) if stats.fc_only else None)

        self.side: dict[str, str] = {k: (u.owner or "") for k, u in self.units.items()}

    def _initiative_sides(self) -> dict[str, str]:
        """Each unit's initiative side: its owner, unless the referee combined players
        (``initiative_groups``: one side named "A+B") or split a player's units
        (``initiative_split``: sides named "Player (u1, u2)"). "Each player rolls, not each
        soldier. The referee may split up or combine enemy initiative in a way that makes
        sense" (003, Combat Phases). Reading: a side rolls the best IQ die among its standing
        units, delaying applies to every side of the delaying player, and units left out of a
        split keep the player's own side.

        Raises
        ------
        SceneError
            An unknown player or unit, or one named in two groups.
        """
        sec = self.section
        players = list(self.game.players)
        side = {k: (u.owner or "") for k, u in self.units.items()}
        seen: set[str] = set()
        for i, group in enumerate(sec.initiative_groups):
            for p in group:
                if p not in players or p in seen:
                    raise SceneError(f"brigandine.initiative_groups[{i}]: {p!r} is not a player "
                                     f"or is in two groups (players {players})")
                seen.add(p)
            for k, u in self.units.items():
                if u.owner in group:
                    side[k] = "+".join(group)
        for p, groups in sec.initiative_split.items():
            if p not in players:
                raise SceneError(f"brigandine.initiative_split: {p!r} is not a player")
            named: set[str] = set()
            for i, keys in enumerate(groups):
                for k in keys:
                    if k not in self.units or self.units[k].owner != p or k in named:
                        raise SceneError(f"brigandine.initiative_split.{p}[{i}]: {k!r} is not a "
                                         f"unit of {p}'s or is named twice")
                    named.add(k)
                    side[k] = f"{p} ({', '.join(keys)})"
        for p in sec.surprise:
            if p not in players:
                raise SceneError(f"brigandine.surprise: {p!r} is not a player ({players})")
        return side

    def sides(self) -> list[str]:
        """The initiative sides in the players' order (see :meth:`_initiative_sides`)."""
        order: dict[str | None, int] = {p: i for i, p in enumerate(self.game.players)}
        out = dict.fromkeys(self.side[k] for k in sorted(
            self.units, key=lambda k: (order.get(self.units[k].owner, 99), k)))
        return list(out)

    def surprised(self, player: str | None) -> bool:
        """True while ``player`` is surprised: round 1, phases 1-5, of a scene whose
        ``surprise`` names other players ("In a surprise round, only the surprising party may
        act until the end of the melee phase", 003 Surprise)."""
        rnd, phase = self.round_phase
        return bool(self.section.surprise) and rnd == 1 and phase <= 5 \
            and player not in self.section.surprise

    def sits_out(self, turn: int, player: str) -> str:
        rnd, phase = round_phase(max(1, turn))
        if self.section.surprise and rnd == 1 and phase <= 5 and player not in \
                self.section.surprise:
            return "surprised: only the surprising party acts until the end of the melee phase"
        return ""

    # ------------------------------------------------------------------ helpers
    @property
    def round_phase(self) -> tuple[int, int]:
        return round_phase(max(1, self.game.turn))

    def unit(self, key: str) -> BrigUnit:
        if key not in self.units:
            raise SceneError(f"{key!r} is not a Brigandine unit of this scene "
                             f"(have {sorted(self.units)})")
        return self.units[key]

    def _name(self, key: str) -> str:
        st = self.game.bodies.get(key)
        return st.name if st is not None else key

    def _centre(self, key: str) -> np.ndarray:
        return self.game.footprint_centre(key)

    def _gap(self, a: str, b: str) -> float:
        return footprint_gap(*self.game.bounds(a), *self.game.bounds(b))

    def _init(self, unit: str | None) -> int:
        """The initiative of ``unit``'s side."""
        return self.initiative.get(self.side.get(unit or "", ""), 0)

    def groups(self) -> list[list[str]]:
        """Initiative sides by initiative, highest first; ties in one group."""
        init = {p: self.initiative.get(p, 0) for p in self.sides()}
        return R.initiative_groups(init)

    def _order_side(self, o: PhaseOrder) -> str:
        """The initiative side of the (first) unit giving order ``o``."""
        keys = o.acting_units()
        return self.side.get(keys[0] if keys else "", o.player)

    def _own(self, action, key: str) -> tuple[BrigUnit | None, str]:
        u = self.units.get(key)
        if u is None:
            return None, f"{key!r} is not a Brigandine unit (have {sorted(self.units)})"
        if u.owner != action.player:
            return None, f"{self._name(key)} is not {possessive(action.player)}"
        if not u.standing:
            return None, f"{self._name(key)} is out of the fight"
        return u, ""

    def _enemy(self, action, key: str) -> tuple[BrigUnit | None, str]:
        t = self.units.get(key or "")
        if t is None:
            return None, f"{key!r} is not a Brigandine unit"
        if t.owner == action.player:
            return None, f"{self._name(key)} is {possessive(action.player)} own"
        if not t.standing:
            return None, f"{self._name(key)} is out of the fight"
        return t, ""

    def _declared(self, u: BrigUnit, what: str) -> str:
        if what not in u.does:
            return (f"{self._name(u.key)} declared {u.does or 'nothing'} in phase 2, not "
                    f"{what!r}: declarations are binding")
        return ""

    def _ordered(self, key: str, types: tuple[type, ...]) -> bool:
        for o in self.orders:
            if key in o.acting_units() and isinstance(o, types):
                return True
        return False

    def banner(self, turn: int, player: str) -> str:
        """The window's turn banner: round, phase and whose orders (hotseat: the others look
        away while a player gives hidden orders)."""
        rnd, phase = round_phase(max(1, turn))
        hidden = " (hidden: pass the screen)" if phase in (2, 3, 4, 5, 7, 8) else ""
        return f"Round {rnd}, phase {R.phase_name(phase)}: {possessive(player)} orders{hidden}"

    # ------------------------------------------------------------------ hooks
    def setup(self) -> None:
        self.side = self._initiative_sides()
        for key in self.units:
            if key not in self.game.bodies:
                raise SceneError(f"brigandine.units: {key!r} is not on the table")
            self.units[key].name = self._name(key)

    def start_of_turn(self, turn: int) -> None:
        rnd, phase = round_phase(turn)
        if phase == 1:
            self._new_round(rnd)
        self.game.log("brig_phase", f"Round {rnd}, phase {R.phase_name(phase)}", round=rnd,
                      phase=phase, phase_name=R.PHASES[phase - 1])

    def end_of_turn(self, turn: int) -> None:
        rnd, phase = round_phase(turn)
        orders, self.orders = self.orders, []
        getattr(self, f"_phase{phase}")(orders)

    def outcome(self, final: bool = False) -> Outcome:
        """The decided field (003, Combat Phases: "These phases repeat over the next round,
        until combat is finished").

        Combat is finished when one side (a player) has no combatant able to fight: each of
        its figures is defeated ("If the defender is reduced to 0 def, then the defender has
        been defeated"), has fled (a failed morale check: the soldiers "will refuse to engage
        in combat, will flee, will surrender, or otherwise fail in battle"; a fleeing
        monster) or is unhorsed (knocked over, as :attr:`BrigUnit.standing` reads). The other
        side wins; when no side has one left it is a draw. Until then the game goes on
        (``final``: stopped with both sides still fighting, truncated, no winner).
        """
        sides: dict[str, int] = {}
        for u in self.units.values():
            if u.owner is None:
                continue
            able = u.standing and not (u.monster is not None and u.monster.fleeing)
            sides[u.owner] = sides.get(u.owner, 0) + int(able)
        left = [p for p, n in sides.items() if n]
        r, ph = round_phase(self.game.turn)
        if len(sides) >= 2 and len(left) <= 1:
            beaten = ", ".join(p for p in sides if p not in left)
            if left:
                return Outcome(terminated=True, winner=left[0],
                               reason=f"round {r}: no combatant of {beaten} is able to fight "
                                      "(defeated, fled or unhorsed)")
            return Outcome(terminated=True, draw=True,
                           reason=f"round {r}: no combatant of either side is able to fight")
        counts = ", ".join(f"{p} {n}" for p, n in sides.items())
        return Outcome(truncated=final, reason=f"combat is not finished after round {r}, "
                       f"phase {ph}: combatants able to fight: {counts}")

    def state(self) -> dict:
        return {"units": {k: u.state() for k, u in sorted(self.units.items())},
                "initiative": dict(sorted(self.initiative.items())),
                "delayed": sorted(self.delayed),
                "orders": [_order(o) for o in self.orders],
                "declared": {k: _order(v) for k, v in sorted(self.declared.items())},
                "jousts": {k: _order(v) for k, v in sorted(self.jousts.items())},
                "pair_rounds": dict(sorted(self.pair_rounds.items()))}

    def check(self) -> list[str]:
        exp = self.section.expect
        if exp is None:
            return []
        fails = []
        for key in exp.defeated:
            if not self.unit(key).defeated:
                fails.append(f"brigandine.expect.defeated: {key} is not defeated")
        for key in exp.standing:
            if not self.unit(key).standing:
                fails.append(f"brigandine.expect.standing: {key} is not standing")
        for key in exp.fled:
            if not self.unit(key).fled:
                fails.append(f"brigandine.expect.fled: {key} did not flee")
        for key in exp.unhorsed:
            if not self.unit(key).unhorsed:
                fails.append(f"brigandine.expect.unhorsed: {key} is not unhorsed")
        for key, pts in exp.joust_points.items():
            if self.unit(key).joust_points != pts:
                fails.append(f"brigandine.expect.joust_points: {key} has "
                              f"{self.unit(key).joust_points}, expected {pts}")
        return fails

    # ------------------------------------------------------------------ phase 1
    def _new_round(self, rnd: int) -> None:
        for u in self.units.values():
            if (u.monster is not None and u.monster.fleeing and u.standing
                    and u.leaving_round < rnd - 1):
                self._out(u, None, "fled")  # not attacked while it left: it is gone
            rested = not (u.moved or u.charged or u.in_melee)
            u.weary = u.charged or (u.weary and not rested)
            u.does, u.target = [], None
            u.moved = u.charged = u.in_melee = False
            if u.launcher is not None:
                u.launcher.new_round()
        self.declared.clear()
        self.jousts.clear()
        self.delayed.clear()
        if self.initiative and self.section.keep_initiative:
            return
        iq = {}
        for p in self.sides():
            dice = [u.stats.iq for k, u in self.units.items() if self.side[k] == p and u.standing]
            if dice:
                iq[p] = max(dice)
        self.initiative = R.roll_initiative(self.stream, iq)
        self.game.log("brig_initiative", "Initiative (IQ): " + ", ".join(
            f"{p} {v}" for p, v in self.initiative.items()), initiative=dict(self.initiative),
            round=rnd)

    def _phase1(self, orders) -> None:
        delayed_sides = {self.side[k] for k, u in self.units.items() if u.owner in self.delayed}
        for p in sorted(delayed_sides):
            if p in self.initiative:
                self.initiative[p] = R.DELAY_INITIATIVE
        order = " > ".join(" = ".join(g) for g in self.groups())
        self.game.log("brig_initiative", f"Initiative order: {order}",
                      initiative=dict(self.initiative), delayed=sorted(self.delayed))

    # ------------------------------------------------------------------ orders
    # Each order type is checked by its @refuses method ("" when allowed; a refused order
    # changes nothing) and, once given, held hidden by its @handles method until its phase
    # resolves (Delay, Declare and Joust are kept apart: they act at once or at phase 2's end).
    @refuses(BrigDelay)
    def _delay_refusal(self, a: BrigDelay) -> str:
        _, phase = self.round_phase
        if phase != 1:
            return "initiative is delayed in phase 1 (reactions)"
        return f"{a.player} has already delayed" if a.player in self.delayed else ""

    def _orderer(self, a: UnitOrder, declaring: bool = False) -> tuple[BrigUnit | None, str]:
        """The unit giving order ``a``: ``a.player``'s own, standing (:meth:`_own`) and free to
        act (:meth:`_acted_refusal`; ``declaring``: a phase-2 declaration or joust choice).
        Returns it and "", or None and why not."""
        u, why = self._own(a, a.unit)
        if u is None:
            return None, why
        why = self._acted_refusal(u, declaring)
        return (None, why) if why else (u, "")

    @refuses(BrigDeclare)
    def _declare_refusal(self, a: BrigDeclare) -> str:
        u, why = self._orderer(a, declaring=True)
        if u is None:
            return why
        _, phase = self.round_phase
        if phase != 2:
            return "actions are declared in phase 2"
        if a.unit in self.declared:
            return f"{u.name} has declared already (declarations are binding)"
        lau = u.launcher
        if "shoot" in a.does and (lau is None or lau.artillery):
            return f"{u.name} has no missile weapon to shoot (artillery is declared as 'artillery')"
        if "reload" in a.does and (lau is None or (lau.kind != "crossbow" and not lau.artillery)):
            return f"{u.name} has nothing to reload"
        if "charge" in a.does and u.weary:
            return f"{u.name} is weary and may not charge"
        if "charge" in a.does and "move" in a.does:
            return "a charge is the unit's whole movement: declare 'charge' or 'move'"
        after = [d for d in a.does if d in ("shoot", "melee", "artillery", "reload")]
        if "charge" in a.does and after:
            return (f"the charging unit may not act further this round (003, Charges): "
                    f"declare 'charge' without {after}")
        if "artillery" in a.does:
            # a launcher that is artillery always names its weapon (BrigUnit.artillery)
            if lau is None or not lau.artillery or u.artillery is None:
                return f"{u.name} crews no artillery"
            why = lau.declare_refusal()
            if why:
                return why
            t, why = self._enemy(a, a.target or "")
            if t is None:
                return f"artillery needs a target: {why}"
            rng = self.tables.artillery.weapons[u.artillery].range_in
            dist = float(np.linalg.norm(self._centre(a.unit) - self._centre(t.key)))
            if dist > rng:
                return f"{self._name(t.key)} is {dist:.1f}\" away, beyond {rng:g}\""
        return ""

    @refuses(BrigJoust)
    def _joust_refusal(self, a: BrigJoust) -> str:
        u, why = self._orderer(a, declaring=True)
        if u is None:
            return why
        _, phase = self.round_phase
        if phase != 2:
            return "joust choices are made in secret in phase 2"
        if a.unit in self.jousts:
            return f"{u.name} has chosen already"
        _, why = self._enemy(a, a.opponent)
        return why or R.joust_refusal(self.tables, R.JoustChoice(a.aim, a.stance))

    @refuses(BrigMove)
    def _move_refusal(self, a: BrigMove) -> str:
        u, why = self._orderer(a)
        if u is None:
            return why
        _, phase = self.round_phase
        if phase not in (3, 7):
            return "units move in phases 3 and 7"
        why = self._declared(u, "move")
        if why:
            return why
        if phase == 7 and (u.in_melee or u.charged):
            return f"{u.name} was in melee this round and may not move again"
        if phase == 7 and u.launcher is not None and u.launcher.kind == "crossbow":
            return "crossbowmen move only in the first movement phase"
        if self._ordered(a.unit, (BrigMove, BrigCharge, BrigReload)):
            return f"{u.name} already has an order this phase"
        dist = float(np.linalg.norm(np.asarray(a.to) - self._centre(a.unit)))
        half = u.stats.move / 2
        if dist > half + MOVE_SLACK_IN:
            return f"{u.name} moves at most half movement ({half:g}\") a phase, not {dist:.2f}\""
        return ""

    @refuses(BrigCharge)
    def _charge_refusal(self, a: BrigCharge) -> str:
        u, why = self._orderer(a)
        if u is None:
            return why
        _, phase = self.round_phase
        if phase != 3:
            return "charges are made in the first movement phase (3)"
        why = self._declared(u, "charge")
        if why:
            return why
        if u.weary:
            return f"{u.name} is weary after charging and may not charge until rested"
        if self._ordered(a.unit, (BrigCharge, BrigMove)):
            return f"{u.name} already has a movement order this phase"
        dist = float(np.linalg.norm(np.asarray(a.toward) - self._centre(a.unit)))
        if dist < 0.1:
            return "a charge needs a direction: 'toward' is where the unit stands"
        return self._charge_line_refusal(u, np.asarray(a.toward, float))

    @refuses(BrigDraw)
    def _draw_refusal(self, a: BrigDraw) -> str:
        u, why = self._orderer(a)
        if u is None:
            return why
        _, phase = self.round_phase
        if phase != 3:
            return "side arms are drawn in the first movement phase (3), not during melee"
        if u.side_arm is None:
            return f"{u.name} carries no side arm (or has drawn it)"
        return f"{u.name} draws already" if self._ordered(a.unit, (BrigDraw,)) else ""

    @refuses(BrigReload)
    def _reload_refusal(self, a: BrigReload) -> str:
        u, why = self._orderer(a)
        if u is None:
            return why
        _, phase = self.round_phase
        if u.launcher is None:
            return f"{u.name} has nothing to reload"
        return (self._declared(u, "reload") or u.launcher.reload_refusal(phase)
                or (f"{u.name} is reloading already" if self._ordered(a.unit, (BrigReload,))
                    else ""))

    def _fight_refusal(self, a: BrigMelee | BrigDefend) -> tuple[BrigUnit | None, str]:
        """What a melee order and a Defensive Action both need: phase 5, a declared melee, no
        charge this round, no second melee order (:meth:`_melee_order_refusal`). Returns the
        unit and "", or None and why not."""
        u, why = self._orderer(a)
        if u is None:
            return None, why
        _, phase = self.round_phase
        if phase != 5:
            return None, "melee is resolved in phase 5"
        why = self._declared(u, "melee")
        if why:
            return None, why
        if u.charged:
            return None, f"{u.name} charged this round and may not act further"
        why = self._melee_order_refusal(a, u)
        return (None, why) if why else (u, "")

    @refuses(BrigDefend)
    def _defend_refusal(self, a: BrigDefend) -> str:
        u, why = self._fight_refusal(a)
        if u is None:
            return why
        mine = self._init(a.unit)
        own = self.side.get(a.unit)
        if not any(v > mine for p, v in self.initiative.items() if p != own):
            return (f"Defensive Action is refused: {possessive(a.player)} initiative {mine} is not "
                    f"lower than an attacker's")
        return ""

    @refuses(BrigMelee)
    def _melee_refusal(self, a: BrigMelee) -> str:
        u, why = self._fight_refusal(a)
        if u is None:
            return why
        t, why = self._enemy(a, a.target)
        if t is None:
            return why
        gap = self._gap(a.unit, a.target)
        if gap > CONTACT_IN:
            return f"{t.name} is {gap:.2f}\" away: melee needs contact ({CONTACT_IN}\")"
        fc = u.stats.fc_only or t.stats.fc_only
        if fc and a.system != "fantasy":
            return "an FC-only creature is fought only in Fantasy Combat"
        if a.system == "fantasy" and not (fc or u.stats.fc_capable or t.stats.fc_capable):
            return "neither side fights in Fantasy Combat"
        return ""

    def _acted_refusal(self, u: BrigUnit, declaring: bool = False) -> str:
        """Why ``u`` may give no more orders this round: it charged ("The charging unit may not
        act further this round", 003 Charges) or fought ("Any combatant engaging in melee (even
        if only defending) may not take any further actions this round", 003 Clarifications on
        combat order). Declarations and joust choices (phase 2, ``declaring``) come before
        either."""
        if u.monster is not None and u.monster.fleeing:
            return f"{u.name} is leaving the fight (it flees; 003, Fantasy Combat)"
        if declaring:
            return ""
        if u.charged:
            return f"{u.name} charged this round and may not act further (003, Charges)"
        if u.in_melee:
            return (f"{u.name} engaged in melee this round and may not take any further actions "
                    "(003, Clarifications on combat order)")
        return ""

    def _melee_order_refusal(self, a: BrigMelee | BrigDefend, u: BrigUnit) -> str:
        """One melee order a unit, except Man-to-Man against several foes: "Each combatant has
        attacks equal to his #attk, which he decides how to split this amongst the enemy
        combatants" (003, Man-to-Man), so a unit may give one ``man_to_man`` order a foe, each
        naming its ``attacks``, together at most its #attk."""
        mine = [o for o in self.orders if isinstance(o, (BrigMelee, BrigDefend))
                and o.unit == a.unit]
        if not mine:
            return ""
        split = [o for o in mine if isinstance(o, BrigMelee) and o.system == "man_to_man"]
        if not (isinstance(a, BrigMelee) and a.system == "man_to_man"
                and len(split) == len(mine)):
            return f"{u.name} already has a melee order"
        if any(o.target == a.target for o in split):
            return f"{u.name} already fights {self._name(a.target)}"
        counts = [o.attacks for o in split if o.attacks is not None]
        if a.attacks is None or len(counts) < len(split):
            return (f"{u.name} fights several foes: name how many of its #attk "
                    f"{u.stats.attk_n} attacks go to each ('attacks')")
        used = sum(counts)
        if used + a.attacks > u.stats.attk_n:
            return (f"{u.name} has #attk {u.stats.attk_n}: {used} already go to other foes, "
                    f"{a.attacks} more is too many")
        return ""

    def _sweep(self, u: BrigUnit, d: np.ndarray, reach: float, ignore: set[str]):
        """The first body on ``u``'s charge line: rays along ``d`` ((2,) unit vector), ``reach``
        inches beyond its front, across its width (5 lines) at a quarter and at 60% of its
        height (legs and torso: a ray between a figure's legs must not miss it). Returns the
        nearest :class:`~sandbox.physics.rays.RayHit` or None."""
        lo, hi = self.game.bounds(u.key)
        pos = self._centre(u.key)
        perp = np.array([-d[1], d[0]])
        half = 0.5 * float(abs(d[0]) * (hi[0] - lo[0]) + abs(d[1]) * (hi[1] - lo[1]))
        width = 0.4 * float(abs(perp[0]) * (hi[0] - lo[0]) + abs(perp[1]) * (hi[1] - lo[1]))
        best = None
        for frac in (0.25, 0.6):
            z = float(lo[2] + frac * (hi[2] - lo[2]))
            for off in (-width, -0.5 * width, 0.0, 0.5 * width, width):
                a = pos + perp * off
                b = a + d * (reach + half)
                hit = ray_first_hit(self.game.world, [a[0], a[1], z], [b[0], b[1], z],
                                    ignore=ignore | {"ground"})
                if hit is not None and (best is None or hit.distance < best.distance):
                    best = hit
        return best

    def _charge_line_refusal(self, u: BrigUnit, toward: np.ndarray) -> str:
        """A charge "must come into contact with enemy forces" (003, Charges): the first body
        on the straight line toward ``toward`` within the unit's full movement must be a
        standing enemy (read now, when the order is given; by the time it resolves others may
        have moved, and a charge that then meets no one rides its full movement for nothing)."""
        d = toward - self._centre(u.key)
        d = d / float(np.linalg.norm(d))
        ignore = {u.key} | {k for k, v in self.units.items() if not v.standing}
        hit = self._sweep(u, d, u.stats.move, ignore)
        if hit is None:
            return (f"a charge must come into contact with enemy forces (003, Charges): nothing "
                    f"stands within {u.stats.move:g}\" on that line")
        t = self.units.get(hit.key)
        if t is None or t.owner == u.owner:
            return (f"a charge must come into contact with enemy forces (003, Charges): "
                    f"{self._name(hit.key)} stands first on that line")
        return ""

    @refuses(BrigShoot)
    def _shoot_refusal(self, a: BrigShoot) -> str:
        _, phase = self.round_phase
        if phase not in (4, 8):
            return "missiles fly in phases 4 and 8"
        if len(set(a.units)) != len(a.units):
            return "an archer is named twice"
        t, why = self._enemy(a, a.target)
        if t is None:
            return why
        if t.stats.fc_only:
            return f"{t.name} can be fought only in Fantasy Combat"
        for key in a.units:
            u, why = self._own(a, key)
            if u is None:
                return why
            why = self._acted_refusal(u) or self._declared(u, "shoot")
            if why:
                return why
            if u.launcher is None or u.launcher.artillery:
                return f"{u.name} has no missile weapon"
            did_other = u.moved or u.in_melee or u.charged
            why = u.launcher.fire_refusal(phase, did_other)
            if why:
                return f"{u.name}: {why}"
            if self._ordered(key, (BrigShoot,)):
                return f"{u.name} already shoots this phase"
            sight = self.game.line_of_sight(key, a.target, ignore=[
                k for k in self.units if k not in (key, a.target)])
            if not sight.clear:
                return f"{u.name} cannot see {t.name} (blocked by {sight.blocked_by})"
        return ""

    @handles(BrigDelay)
    def _apply_delay(self, a: BrigDelay, index: int) -> None:
        self.delayed.add(a.player)
        self.game.log("brig_order", f"{a.player} delays initiative (counts as 1)",
                      player=a.player, order="delay")

    @handles(BrigDeclare)
    def _apply_declare(self, a: BrigDeclare, index: int) -> None:
        self.declared[a.unit] = a
        self.game.log("brig_order", f"{a.player} declares for {self._name(a.unit)} "
                      "(hidden until phase 2 ends)", player=a.player, order="declare")

    @handles(BrigJoust)
    def _apply_joust(self, a: BrigJoust, index: int) -> None:
        self.jousts[a.unit] = a
        self.game.log("brig_order", f"{a.player} chooses aim and stance for "
                      f"{self._name(a.unit)} in secret", player=a.player, order="joust")

    @handles(BrigMove, BrigCharge, BrigDraw, BrigReload, BrigShoot, BrigMelee, BrigDefend)
    def _apply_order(self, a: PhaseOrder, index: int) -> None:
        """Hold a phase's order hidden until the phase resolves (``end_of_turn``)."""
        _, phase = self.round_phase
        self.orders.append(a)
        self.game.log("brig_order", f"{a.player} gives an order for phase {phase} (hidden until "
                      "the phase resolves)", player=a.player, order=a.type)

    def _by_initiative(self, orders) -> list[list]:
        """Orders grouped by their player's initiative (highest first; ties one group)."""
        return [[o for o in orders if self._order_side(o) in group] for group in self.groups()]

    # ------------------------------------------------------------------ phase 2
    def _phase2(self, orders) -> None:
        for key, d in sorted(self.declared.items()):
            u = self.units[key]
            u.does, u.target = list(d.does), d.target
            if "artillery" in d.does and u.launcher is not None:
                u.launcher.declare()
        text = "; ".join(f"{self._name(k)}: {'+'.join(d.does)}"
                         + (f" at {self._name(d.target)}" if d.target else "")
                         for k, d in sorted(self.declared.items())) or "nothing declared"
        jousts = {k: [j.opponent, j.aim, j.stance] for k, j in sorted(self.jousts.items())}
        if jousts:
            text += "; jousts: " + "; ".join(f"{self._name(k)} aims {a} in {s}"
                                             for k, (_, a, s) in jousts.items())
        self.game.log("brig_reveal", f"Declarations revealed: {text}", declared={
            k: {"does": list(d.does), "target": d.target} for k, d in self.declared.items()},
            jousts=jousts)

    # ------------------------------------------------------------------ phases 3 and 7
    def _phase3(self, orders) -> None:
        self._movement(orders, 3)

    def _phase7(self, orders) -> None:
        self._movement(orders, 7)

    def _movement(self, orders, phase: int) -> None:
        self._movement_orders(orders, phase)
        for m in self.units.values():  # a leaving monster runs once the others have moved
            if m.monster is not None and m.monster.fleeing and m.standing:
                self._run_away(m)

    def _movement_orders(self, orders, phase: int) -> None:
        for group in self._by_initiative(orders):
            for o in group:
                u = self.units[o.unit]
                resolve = self._MOVEMENT_ORDERS.get(type(o))
                if u.standing and resolve is not None:
                    resolve(self, u, o, phase)

    def _resolve_draw(self, u: BrigUnit, o: BrigDraw, phase: int) -> None:
        arm = u.side_arm
        if arm is None:  # refused when ordered (_draw_refusal): nothing to draw
            return
        old = u.stats.weapon_or_fist.name
        u.stats, u.side_arm = replace(u.stats, weapon=arm), None
        if u.launcher is not None:
            u.launcher.crew_acted("drawing a side arm")
        self.game.log("brig_draw", f"{u.name} draws the {arm.name} "
                      f"(was: {old})", unit=u.key, weapon=arm.name)

    def _resolve_reload(self, u: BrigUnit, o: BrigReload, phase: int) -> None:
        lau = u.launcher
        if lau is None:  # refused when ordered (_reload_refusal): nothing to reload
            return
        lau.reload(phase)
        self.game.log("brig_reload", f"{u.name} reloads the {lau.kind}",
                      unit=u.key, phase=phase)

    def _resolve_move(self, u: BrigUnit, o: BrigMove, phase: int) -> None:
        self._move(u, o.to, o.player)

    def _resolve_charge(self, u: BrigUnit, o: BrigCharge, phase: int) -> None:
        self._charge(u, np.asarray(o.toward, float), o.player)

    #: How each order of a movement phase (3 and 7) is carried out, by its type.
    _MOVEMENT_ORDERS: ClassVar[dict[type, Callable[[BrigandineCombat, BrigUnit, Any, int],
                                                   None]]] = {
        BrigDraw: _resolve_draw, BrigReload: _resolve_reload, BrigMove: _resolve_move,
        BrigCharge: _resolve_charge}

    def _move(self, u: BrigUnit, to, player: str) -> bool:
        u.moved = True
        if u.launcher is not None:
            u.launcher.crew_acted("moving")
        try:
            self.game.move_unit(u.key, to, player=player)
            return True
        except RulesError as exc:
            self.game.log("brig_blocked", f"{u.name} cannot move there: {exc}", unit=u.key)
            return False

    def _charge(self, u: BrigUnit, toward: np.ndarray, player: str) -> None:
        """Full movement in a straight line (003, Charges): the charger rides toward
        ``toward`` until it comes into contact with the first body on its line; an enemy there
        fights it at once (:meth:`_charge_melee`); "if the charging unit is victorious, the
        unit must continue moving in the same direction for the rest of its full movement",
        meeting the next enemy likewise, "until the charging unit is detained or exhausts its
        full movement". ``toward`` gives the direction only. Contact is reached from the
        bodies' bounds along the line (a figure's arms and shield, not only the legs a ray
        meets), so a facing enemy is reached as surely as one turned away."""
        start = self._centre(u.key)
        d = toward - start
        d = d / np.linalg.norm(d)
        remaining = float(u.stats.move)
        u.charged = u.moved = u.in_melee = True
        if u.launcher is not None:
            u.launcher.crew_acted("charging")
        self.game.log("brig_charge", f"{u.name} charges toward ({toward[0]:.2f}, "
                      f"{toward[1]:.2f}), up to its full movement of {remaining:g}\"",
                      unit=u.key, toward=[round(float(v), 4) for v in toward],
                      inches=round(remaining, 4))
        ignore = {u.key} | {k for k, v in self.units.items() if not v.standing}
        met = False
        for _ in range(16):
            if remaining <= 0.05:
                break
            best = self._sweep(u, d, remaining, ignore)
            pos = self._centre(u.key)
            if best is None:
                self._move_to(u, pos, d, remaining, player)
                break
            travel = min(remaining, self._contact_travel(u.key, best.key, d))
            moved = self._move_to(u, pos, d, travel, player) if travel > 0.01 else 0.0
            remaining -= moved
            t = self.units.get(best.key)
            if t is None or t.owner == u.owner or not t.standing:
                self.game.log("brig_charge", f"{u.name}'s charge is stopped by "
                              f"{self._name(best.key)}", unit=u.key, struck=best.key)
                return
            gap = self._gap(u.key, t.key)
            if gap > CONTACT_IN:
                self.game.log("brig_charge", f"{u.name}'s charge ends {gap:.2f}\" short of "
                              f"{t.name}", unit=u.key, struck=t.key)
                return
            met = True
            self.game.log("brig_charge", f"{u.name}'s charge strikes {t.name}", unit=u.key,
                          struck=t.key, at=[round(float(v), 4) for v in best.point])
            if not self._charge_melee(u, t, d):
                self.game.log("brig_charge", f"{u.name} is detained by {t.name}", unit=u.key)
                return
            ignore.add(t.key)
        if not met:
            self.game.log("brig_charge", f"{u.name}'s charge meets no enemy", unit=u.key)

    def _contact_travel(self, key: str, other: str, d: np.ndarray) -> float:
        """Inches ``key`` must go along ``d`` for its bounds to come :data:`CHARGE_GAP_IN`
        short of ``other``'s bounds (projected on the line; 0 when already that close)."""
        lo, hi = self.game.bounds(key)
        olo, ohi = self.game.bounds(other)
        c, oc = (lo[:2] + hi[:2]) / 2, (olo[:2] + ohi[:2]) / 2
        half = 0.5 * float(abs(d[0]) * (hi[0] - lo[0]) + abs(d[1]) * (hi[1] - lo[1]))
        ohalf = 0.5 * float(abs(d[0]) * (ohi[0] - olo[0]) + abs(d[1]) * (ohi[1] - olo[1]))
        return max(0.0, float(np.dot(oc - c, d)) - half - ohalf - CHARGE_GAP_IN)

    def _move_to(self, u: BrigUnit, pos: np.ndarray, d: np.ndarray, travel: float,
                 player: str) -> float:
        """Charge ``travel`` inches from ``pos`` along ``d``; where something lies in the way
        (a fallen figure), stop short of it in steps of :data:`CHARGE_BACKOFF_IN`. Returns the
        inches travelled."""
        reason = ""
        while travel > 0.01:
            try:
                self.game.move_unit(u.key, pos + d * travel, player=player, note=" (charging)")
                if reason:
                    self.game.log("brig_blocked", f"{u.name}'s charge ends short: {reason}",
                                  unit=u.key)
                return travel
            except RulesError as exc:
                reason = reason or str(exc)
                travel -= CHARGE_BACKOFF_IN
        self.game.log("brig_blocked", f"{u.name} cannot charge on: {reason}", unit=u.key)
        return 0.0

    def _charge_melee(self, u: BrigUnit, t: BrigUnit, d: np.ndarray | None = None) -> bool:
        """The melee a charge makes at once; True when the charger wins and goes on. A figure
        ridden down falls aside of the charge line ``d`` (the charger rides on past it)."""
        aside = None
        if d is not None:
            perp = np.array([-d[1], d[0]])
            side = float(np.dot(self._centre(t.key) - self._centre(u.key), perp))
            aside = perp * (1.0 if side >= 0 else -1.0) + 0.3 * d
        t.in_melee = True
        if t.launcher is not None:
            t.launcher.meleed()
        if R.must_check_morale_against_charge(t.stats, u.stats):
            m = R.morale_check(self.stream, t.stats.morale, f"{t.name} stands against cavalry")
            self.game.log("brig_morale", f"{t.name} checks morale against {u.name}'s cavalry "
                          f"charge: {m.dice[0]}+{m.dice[1]}={m.total} vs {m.morale}: "
                          + ("stands" if m.passed else "flees"), unit=t.key, dice=list(m.dice),
                          morale=m.morale, passed=m.passed)
            if not m.passed:
                self._out(t, u, "fled", away=aside)
                return True
        if u.stats.fc_only or t.stats.fc_only:
            self._fantasy(u, t, cornered=False)
        else:
            r = R.skirmish_attack(self.stream, self.tables, u.stats, t.stats, t.def_left)
            self._skirmish_log(r, "charge")
            self._hits(t, r.hits, u, away=aside)
            if t.standing and not self.surprised(t.owner):
                back = R.skirmish_attack(self.stream, self.tables, t.stats, u.stats, u.def_left)
                self._skirmish_log(back, "stands and strikes back")
                self._hits(u, back.hits, t)
        return u.standing and not t.standing

    # ------------------------------------------------------------------ casualties
    def _hits(self, t: BrigUnit, hits: int, by: BrigUnit | None, what: str = "",
              away: np.ndarray | None = None) -> None:
        if hits <= 0 or not t.standing:
            return
        t.def_left = max(0, t.def_left - hits)
        self.game.log("brig_hits", f"{t.name} takes {hits} hit(s){what}: #def {t.def_left} left",
                      unit=t.key, hits=hits, def_left=t.def_left, by=by.key if by else None)
        if t.def_left == 0:
            self._out(t, by, "defeated", away=away)

    def _out(self, t: BrigUnit, by: BrigUnit | None, how: str,
             away: np.ndarray | None = None) -> None:
        setattr(t, how, True)
        body = self.game.bodies.get(t.key)
        if how in ("defeated",) and body is not None:
            body.damage.destroyed = True
        self.game.log("brig_" + how, f"{t.name} is {how}", unit=t.key, by=by.key if by else None)
        if t.key in self.game.world.bodies:
            if away is None:
                away = self._centre(t.key) - (self._centre(by.key) if by is not None and
                                              by.key in self.game.world.bodies else 0.0)
            n = float(np.linalg.norm(away))
            away = away / n if n > 1e-9 else np.array([1.0, 0.0])
            if how == "fled":  # it runs half its movement away; where it cannot, it falls
                try:
                    self.game.move_unit(t.key, self._centre(t.key) + away * t.stats.move / 2,
                                        note=" (fleeing)")
                    return
                except RulesError:
                    pass
            v = FALL_PUSH_IN_S * away
            self.game.world.set_velocity(t.key, [v[0], v[1], 0.5 * FALL_PUSH_IN_S],
                                         [-8.0 * away[1], 8.0 * away[0], 0.0])
            self.game.settle()

    def _skirmish_log(self, r: R.SkirmishResult, what: str) -> None:
        self.game.log("brig_skirmish", f"{self._name(r.attacker)} ({what}) attacks "
                      f"{self._name(r.defender)}: {r.dice} ATK dice {list(r.atk)} need "
                      f"{r.number}: {r.successes} success(es)"
                      + (f", DEF {list(r.defence)} negate {r.negated}" if r.defence else "")
                      + f" -> {r.hits} hit(s)", attacker=r.attacker, defender=r.defender,
                      atk=list(r.atk), number=r.number, defence=list(r.defence),
                      negated=r.negated, hits=r.hits)

    # ------------------------------------------------------------------ phases 4 and 8
    def _phase4(self, orders) -> None:
        self._missiles(orders, 4)

    def _phase8(self, orders) -> None:
        self._missiles(orders, 8)

    def _missiles(self, orders, phase: int) -> None:
        for group in self._by_initiative(orders):
            pending = []
            for o in group:
                t = self.units[o.target]
                archers = [self.units[k] for k in o.units if self.units[k].standing]
                if not t.standing or not archers:
                    continue
                for unit_keys in R.form_missile_units([a.key for a in archers],
                                                       self.tables.missile.max_unit_size):
                    members = [self.units[k] for k in unit_keys]
                    for m in members:
                        if m.launcher is not None:  # every archer has one (_shoot_refusal)
                            m.launcher.fire(phase, m.moved or m.in_melee or m.charged)
                    r = R.resolve_missile_unit(self.stream, self.tables,
                                               [m.stats for m in members], t.stats)
                    if t.launcher is not None:
                        t.launcher.shot_at()
                    arrow = self._launch_arrow(members[0], t, phase)
                    self.game.log("brig_missile", f"{', '.join(m.name for m in members)} "
                                  f"(#firing {r.firing}) shoot at {t.name}: AIM {r.aim.total} vs "
                                  f"{r.number} -> {r.hits} hit(s)", units=unit_keys,
                                  target=t.key, firing=r.firing, roll=r.aim.total,
                                  number=r.number, hits=r.hits, phase=phase, arrow=arrow)
                    pending.append((t, r.hits, members[0]))
            if pending:
                self.game.settle()
            for t, hits, by in pending:  # equal initiative: casualties after all have shot
                self._hits(t, hits, by, " from missiles")

    # ------------------------------------------------------------------ phase 5
    def _phase5(self, orders) -> None:
        defending = {o.unit for o in orders if isinstance(o, BrigDefend)}
        done_pairs: set[str] = set()
        # Man-to-Man attacks left this round: a unit's #attk split among its foes (003)
        m2m_left = {k: u.stats.attk_n for k, u in self.units.items()}
        m2m_orders = {k for k in self.units if any(
            isinstance(o, BrigMelee) and o.system == "man_to_man" and o.unit == k
            for o in orders)}
        for group in self._by_initiative(orders):
            pending = []
            for o in group:
                if not isinstance(o, BrigMelee):
                    continue
                a, t = self.units[o.unit], self.units[o.target]
                if not (a.standing and t.standing):
                    continue
                for x in (a, t):
                    x.in_melee = True
                    if x.launcher is not None:
                        x.launcher.meleed()
                if o.system == "skirmish":
                    da = t.key in defending and not t.charged
                    if da:
                        why = R.defensive_action_refusal(self._init(a.key), self._init(t.key))
                        if why:
                            self.game.log("brig_skirmish", f"{t.name}: {why}", unit=t.key)
                            da = False
                    r = R.skirmish_attack(self.stream, self.tables, a.stats, t.stats, t.def_left,
                                          defensive_action=da,
                                          attacker_initiative=self._init(a.key),
                                          defender_initiative=self._init(t.key))
                    self._skirmish_log(r, "skirmish")
                    pending.append((t, r.hits, a))
                elif o.system == "man_to_man":
                    pair = "|".join(sorted((a.key, t.key)))
                    if pair in done_pairs:
                        continue
                    done_pairs.add(pair)
                    self.pair_rounds[pair] = self.pair_rounds.get(pair, 0) + 1
                    back = next((x for x in orders if isinstance(x, BrigMelee) and
                                 x.unit == t.key and x.target == a.key), None)
                    a_att = min(m2m_left[a.key], o.attacks or m2m_left[a.key])
                    if back is not None:
                        t_att = min(m2m_left[t.key], back.attacks or m2m_left[t.key])
                    else:  # no order of its own against a: strikes back with what is left,
                        # unless its attacks all go to the foes it named
                        t_att = 0 if t.key in m2m_orders else m2m_left[t.key]
                    if self.surprised(t.owner):
                        t_att = 0  # a surprised defender does not act (003, Surprise)
                    m2m_left[a.key] -= a_att
                    m2m_left[t.key] -= t_att
                    fa = R.Fighter(a.stats, a.def_left, o.parry, attacks=a_att)
                    ft = R.Fighter(t.stats, t.def_left, back.parry if back else True,
                                   can_defend=not t.charged, strikes=not t.charged,
                                   attacks=t_att)
                    res = R.man_to_man_round(self.stream, self.tables, fa, ft,
                                             self.pair_rounds[pair], self._init(a.key),
                                             self._init(t.key))
                    for b in res.blows:
                        self.game.log("brig_blow", f"{self._name(b.attacker)} strikes at "
                                      f"{self._name(b.defender)}: d6 {b.d6} + ATK {b.atk}"
                                      + (f" - DEF {b.def_roll}" if b.parried else "")
                                      + f" vs {b.number}: " + ("hit" if b.hit else "miss")
                                      + (" (riposte)" if b.riposte else "")
                                      + (" (weapon shattered)" if b.shattered else ""),
                                      attacker=b.attacker, defender=b.defender, hit=b.hit,
                                      hits=b.hits, parried=b.parried, shattered=b.shattered)
                    for side, x in ((0, a), (1, t)):
                        if res.shattered[side]:
                            x.stats = replace(x.stats, weapon=None)
                    pending.append((t, t.def_left - res.def_left[1], a))
                    pending.append((a, a.def_left - res.def_left[0], t))
                else:
                    self._fantasy(a, t, o.cornered, pending)
            for t, hits, by in pending:
                self._hits(t, hits, by)
        self._jousts()

    def _fantasy(self, a: BrigUnit, t: BrigUnit, cornered: bool,
                 pending: list[tuple[BrigUnit, int, BrigUnit]] | None = None) -> None:
        r = R.fantasy_exchange(self.stream, self.tables, a.stats, t.stats)
        self.game.log("brig_fantasy", f"Fantasy Combat {a.name} {r.rolls[0]} (needs "
                      f"{r.numbers[0]}) vs {t.name} {r.rolls[1]} (needs {r.numbers[1]})",
                      units=[a.key, t.key], rolls=list(r.rolls), struck=list(r.struck))
        out: list[tuple[BrigUnit, int, BrigUnit, bool]] = []  # victim, hits, by, flees
        for struck, slays, victim, by in ((r.struck[0], r.slays[0], t, a),
                                          (r.struck[1], r.slays[1], a, t)):
            if not struck:
                continue
            if slays:
                out.append((victim, 1, by, False))
            elif victim.monster is not None:
                what = victim.monster.struck(cornered=cornered)
                self.game.log("brig_fantasy", f"{victim.name} is struck and {what}",
                              unit=victim.key, monster=what, hits=victim.monster.hits)
                if what == "flees":
                    out.append((victim, 0, by, True))
        for victim, hits, by, flees in out:
            if flees:
                self._monster_flees(victim, by)
            elif pending is not None:
                pending.append((victim, hits, by))
            else:
                self._hits(victim, hits, by)

    def _monster_flees(self, m: BrigUnit, by: BrigUnit | None) -> None:
        """An FC-only monster struck as often as its #attk turns to leave (003, Fantasy Combat:
        "it will attempt to flee. If it is further attacked while leaving, or cornered, the
        monster will fight to the death"). Reading: it stays on the table while it leaves,
        running half its movement away from the nearest enemy at once and at the end of each
        movement phase (after the others' moves: a charge can still catch it), and gives no
        orders; attacked in that time it fights to the death
        (:class:`~sandbox.rules.brigandine.MonsterMorale`); where it cannot run it is
        cornered and fights to the death; not attacked through the round after it turned, it
        has left the fight (fled) when the next round begins."""
        rnd, _ = self.round_phase
        m.leaving_round = m.leaving_round or rnd
        self.game.log("brig_fantasy", f"{m.name} turns to flee: it leaves the fight unless "
                      "attacked again or cornered", unit=m.key, monster="leaving")
        self._run_away(m, by)

    def _run_away(self, m: BrigUnit, by: BrigUnit | None = None) -> None:
        """A leaving monster runs half its movement from ``by`` (else the nearest enemy)."""
        if m.key not in self.game.world.bodies:
            return
        foes = [u for u in self.units.values() if u.owner != m.owner and u.standing
                and u.key in self.game.world.bodies]
        if by is None and foes:
            by = min(foes, key=lambda u: float(np.linalg.norm(self._centre(u.key)
                                                              - self._centre(m.key))))
        away = self._centre(m.key) - (self._centre(by.key) if by is not None else 0.0)
        n = float(np.linalg.norm(away))
        away = away / n if n > 1e-9 else np.array([1.0, 0.0])
        try:
            self.game.move_unit(m.key, self._centre(m.key) + away * m.stats.move / 2,
                                note=" (fleeing)")
        except RulesError as exc:
            if m.monster is not None:  # only a monster runs away (_movement, _monster_flees)
                m.monster.fleeing, m.monster.to_the_death = False, True
            self.game.log("brig_fantasy", f"{m.name} is cornered ({exc}): it fights to the "
                          "death", unit=m.key, monster="fights to the death")

    def _jousts(self) -> None:
        seen = set()
        for key, j in sorted(self.jousts.items()):
            if key in seen:
                continue
            other = self.jousts.get(j.opponent)
            a, b = self.units[key], self.units[j.opponent]
            if other is None or other.opponent != key:
                self.game.log("brig_joust", f"{a.name} rides at {b.name}, who made no choice",
                              units=[key, j.opponent])
                continue
            seen |= {key, j.opponent}
            if not (a.standing and b.standing):
                continue
            res = R.resolve_joust(self.tables, R.JoustChoice(j.aim, j.stance),
                                  R.JoustChoice(other.aim, other.stance))
            a.joust_points += res.points[0]
            b.joust_points += res.points[1]
            a.in_melee = b.in_melee = True
            self.game.log("brig_joust", f"Joust: {a.name} ({j.aim}, {j.stance}) -> "
                          f"{res.outcomes[0]}"
                          f"; {b.name} ({other.aim}, {other.stance}) -> {res.outcomes[1]}",
                          units=[key, j.opponent], outcomes=list(res.outcomes),
                          points=[a.joust_points, b.joust_points])
            for outcome, victim, by in ((res.outcomes[0], b, a), (res.outcomes[1], a, b)):
                if outcome == "lance_broken":
                    self._break_lance(by, victim)
                if outcome == "unhorsed":
                    self._out(victim, by, "unhorsed")
                elif outcome == "slain":
                    self._out(victim, by, "defeated")

    def _break_lance(self, rider: BrigUnit, struck: BrigUnit) -> None:
        """A lance broken on ``struck``: its two halves (4-high bars) fly apart from the point
        of impact, between the riders at lance height."""
        g = self.game
        if rider.key not in g.world.bodies or struck.key not in g.world.bodies:
            return
        rnd, _ = self.round_phase
        a, b = self._centre(rider.key), self._centre(struck.key)
        lo, hi = g.bounds(rider.key)
        d = b - a
        n = float(np.linalg.norm(d))
        d = d / n if n > 1e-9 else np.array([1.0, 0.0])
        side = np.array([-d[1], d[0]])
        mid = a + d * 0.5 * n
        z = float(lo[2] + 0.7 * (hi[2] - lo[2]))
        keys = []
        for i, sign in enumerate((1.0, -1.0)):
            key = f"lance_r{rnd}_{rider.key}_{'ab'[i]}"
            asset = build_part_asset(ARROW_PART, LANCE_COLOUR, g.ldrawdir, name="lance half")
            s3, d3 = np.array([side[0], side[1], 0.0]), np.array([d[0], d[1], 0.0])
            rot = np.column_stack([np.cross(s3, d3), s3, d3])  # its long axis along the lance
            asset.transform(rot, np.zeros(3))
            blo, bhi = asset.bounds()
            at = np.array([mid[0], mid[1], z]) + np.array([*(side * sign * 0.6), 0.0])
            asset.transform(np.eye(3), at - (blo + bhi) / 2)
            g.add_body(key, "payload", f"{rider.name}'s broken lance", rider.owner,
                       g.bodies[rider.key].stats, asset)
            g.world.set_velocity(key, [side[0] * sign * 30.0, side[1] * sign * 30.0, 40.0],
                                 [d[0] * 15.0 * sign, d[1] * 15.0 * sign, 5.0])
            keys.append(key)
        g.log("brig_joust", f"{rider.name}'s lance breaks on {struck.name}", unit=rider.key,
              pieces=keys)
        g.settle()

    # ------------------------------------------------------------------ phase 6
    def _phase6(self, orders) -> None:
        for group in self.groups():
            pending = []
            for u in [u for k, u in self.units.items() if self.side[k] in group]:
                lau = u.launcher
                if lau is None or not lau.artillery or not lau.declared or not u.standing:
                    continue
                weapon, target = u.artillery, u.target
                if weapon is None or target is None:  # a declared crew names both (phase 2)
                    continue
                why = lau.fire_refusal(6)
                if why:
                    self.game.log("brig_artillery", f"{u.name}'s {lau.kind}: {why}", unit=u.key,
                                  lost=True)
                    continue
                lau.fire(6)
                t = self.units[target]
                if not t.standing:
                    self.game.log("brig_artillery", f"{u.name} fires the {lau.kind}; "
                                  f"{t.name} is already out of the fight", unit=u.key)
                    continue
                r = R.resolve_artillery(self.stream, self.tables, weapon, u.stats, t.stats)
                shot = self._launch_shot(u, t, weapon)
                self.game.log("brig_artillery", f"{u.name} fires the {r.weapon} at {t.name}: "
                              f"AIM {r.aim.total} vs {r.number} -> {r.hits} hit(s)", unit=u.key,
                              target=t.key, roll=r.aim.total, number=r.number, hits=r.hits,
                              shot=shot, lost=False)
                pending.append((t, r.hits, u))
            if pending:
                self.game.settle()
            for t, hits, by in pending:
                self._hits(t, hits, by, " from artillery")


    def _launch_shot(self, u: BrigUnit, t: BrigUnit, weapon: str) -> str:
        """The artillery shot as a real body: a round brick launched from the crew on a
        ballistic line at the speed of ``weapon`` (an artillery table weapon; the dice decided
        the hits, the shot flies, strikes and rolls for the table to see). Returns its body
        key."""
        rnd, _ = self.round_phase
        speed = self.tables.artillery.weapons[weapon].speed_in_s
        return self._launch(f"shot_r{rnd}_{u.key}", f"{weapon} shot", SHOT_PART,
                            SHOT_COLOUR, u, t, speed, align=False)

    def _launch_arrow(self, u: BrigUnit, t: BrigUnit, phase: int) -> str:
        """A missile unit's volley drawn as one arrow (a 4-high antenna, point first) flying
        from its first archer on a 45-degree arc to the ground just short of the target (the
        dice decided the hits: the arrow is for the table to see, and must not bowl the
        target over)."""
        rnd, _ = self.round_phase
        return self._launch(f"arrow_r{rnd}p{phase}_{u.key}", "arrow", ARROW_PART, ARROW_COLOUR,
                            u, t, None, align=True, short=ARROW_SHORT_IN)

    def _launch(self, key: str, name: str, part: str, colour: int, u: BrigUnit, t: BrigUnit,
                speed: float | None, align: bool, short: float = 0.0) -> str:
        """Put ``part`` just beyond ``u`` toward ``t`` and launch it: at ``speed`` (in/s) on the
        ballistic line through ``t``'s centre, or (``speed`` None) at 45 degrees to land on the
        table ``short`` inches before ``t``'s footprint."""
        g = self.game
        lo, hi = g.bounds(u.key)
        tlo, thi = g.bounds(t.key)
        aim = (tlo + thi) / 2
        start = np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, lo[2] + 0.6 * (hi[2] - lo[2])])
        flat = aim[:2] - start[:2]
        dist = float(np.linalg.norm(flat))
        d = flat / dist if dist > 1e-9 else np.array([1.0, 0.0])
        asset = build_part_asset(part, colour, g.ldrawdir, name=name)
        rot = np.eye(3)
        if align:  # the part's long axis (world Z as built, top up) along the line of flight
            rot = np.column_stack([[-d[1], d[0], 0.0], [0.0, 0.0, 1.0], [d[0], d[1], 0.0]])
        asset.transform(rot, np.zeros(3))
        blo, bhi = asset.bounds()
        reach = 0.5 * float(np.max(hi[:2] - lo[:2])) + 0.5 * float(np.max(bhi[:2] - blo[:2])) + 0.1
        start[:2] += d * reach
        asset.transform(np.eye(3), start - (blo + bhi) / 2)
        g.add_body(key, "payload", name, u.owner, g.bodies[u.key].stats, asset)
        grav = float(g.world.gravity)
        if speed is None:  # 45 degrees to the ground `short` of the target's footprint
            half_t = 0.5 * float(abs(d[0]) * (thi[0] - tlo[0]) + abs(d[1]) * (thi[1] - tlo[1]))
            rng = max(dist - reach - half_t - short, 0.5)
            h = float(start[2] - tlo[2])
            v = rng * float(np.sqrt(grav / max(h + rng, 1e-3)))
            g.world.set_velocity(key, [d[0] * v / np.sqrt(2), d[1] * v / np.sqrt(2),
                                       v / np.sqrt(2)])
            return key
        flight = max(dist - reach, 1e-3) / speed
        vz = (aim[2] - start[2]) / flight + 0.5 * grav * flight
        g.world.set_velocity(key, [d[0] * speed, d[1] * speed, vz])
        return key
