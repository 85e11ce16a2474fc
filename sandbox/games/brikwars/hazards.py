"""Field Hazards and Fire in a running game (BrikWars F.1-F.3, 8.3): the scene's
``[[fields]]``, the hazard actions, the start-of-turn Burning Rolls and exposure, and the
``[expect.hazards]`` checks.

Sequencing (DESIGN.md): an action is applied, physics answers the geometric questions (which
Fields a path crosses, who stands in a Field, what lies within 1", what blocks a sight line),
the pure rules of :mod:`sandbox.rules.hazards` and :mod:`sandbox.rules.fire_field` decide,
and every die and outcome is logged in words.

Readings: a unit's ``cross`` moves it in a straight line, at most its Move, teleported along
the table and let settle; Fields along the path act in the order the path enters them. A
Concealed Hazard with Explosive dice goes off as an Explosion at the point reached (8.4
rings); with other Damage dice the victim takes them as Exposure Damage; with Move dice it
stops the unit there. Units standing in an Exposure Field (a bonfire, lava) at the start of a
turn take its dice again (F.1: passive Fields roll for every victim). A body counts as fully
submerged when its whole height lies inside a ``water`` Field. Line of sight runs from just
below the top of the viewer to the centre of the target: Smoke (F.1) or any other body on the
way blocks it.

Difficult Terrain is physical: a Thrust Field the unit stands in when it starts to move pushes
it (its velocity driven step by step, so a wall stops it) by the Hazard inches before its full
Move; a Thrust Field entered on the way pushes once the move is made. A unit whose move ends in
a Slippery Field slides on its way by the inches the ice took from its Move, and a unit on foot
that moved in one makes an Action Roll for its footing (a Scout: his Specialty die, F.3): a
Critical Failure lays it down, Disrupted. A unit that starts its first move of the turn
standing in a Slippery Field "weren't moving": it stays stuck, spending Move inches equal to the
Hazard inches, and walks only what is left (asked for more, it stops short, as on Slow ground).
Powered Concealed and Difficult Fields activate once per turn for an inch of Power a die, like
Exposure Fields (a Concealed one when it would go off). Tracking (F.3): at the start of every
turn, hidden Fields and Traps a Scout has a clear sight ray to are revealed to his side (the
scene's players have no alliances, so his owner).

Units: inches, Z up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...core.dice import DiceExpression, DiceSum, parse_dice
from ...core.errors import RulesError, SceneError
from ...core.transforms import quat_mul
from ...engine.measure import SmokeField, segment_in_smoke
from ...engine.table import System, handles, refuses
from ...physics.queries import Region, bodies_in_region, closest_points
from ...rules import hazards as hz
from ...rules.attacks import ArcTarget, resolve_arc_fire
from ...rules.fire_field import PermanentFire
from ...rules.weapons import weapon_profile
from . import effects
from .arcs import ArcHit, bodies_in_arc
from .defences import Defences, dice_of
from .explosions import Blasts
from .fire import FireController
from .hazard_scene import (
    HAZARD_ACTIONS,
    Cross,
    Extinguish,
    FieldEntry,
    FlameThrowerAttack,
    Ignite,
    MarkTarget,
    Sight,
    StopDropRoll,
)

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.table import Table as Game


@dataclass
class PlacedField:
    """A Field on the table: its scene entry, its rules spec and its region."""

    entry: FieldEntry
    rules: hz.Field | None
    region: Region

    @property
    def name(self) -> str:
        return self.entry.name or self.entry.id

    @property
    def hazard(self) -> hz.Field:
        """The rules of a hazard Field (:attr:`rules`; every kind but water has them).

        Raises
        ------
        RulesError
            For water, which has none.
        """
        if self.rules is None:
            raise RulesError(f"fields[{self.entry.id}]: water has no hazard rules")
        return self.rules


def field_rules(entry: FieldEntry) -> hz.Field | None:
    """The :class:`sandbox.rules.hazards.Field` of a scene entry (None for water).

    Raises
    ------
    SceneError
        Naming the field when the rules reject it (too many dice, missing dice...).
    """
    if entry.hazard == "water":
        return None
    dice = entry.dice
    if entry.permanent_fire is not None:
        dice = str(PermanentFire[entry.permanent_fire.upper()].dice)
    try:
        return hz.Field(entry.name or entry.id, hz.HazardKind(entry.hazard), entry.size,
                        parse_dice(dice) if dice else None,
                        hz.TerrainKind(entry.terrain) if entry.terrain else None,
                        entry.powered, entry.height, entry.exceptional)
    except RulesError as exc:
        raise SceneError(f"fields[{entry.id}]: {exc}") from None


class Hazards(System):
    """Fire and Field Hazards of one :class:`~sandbox.engine.game.Game`."""

    name = "hazards"
    actions = HAZARD_ACTIONS

    def __init__(self, game: "Game"):
        super().__init__(game)
        self.fire = FireController(game)
        self.fields: dict[str, PlacedField] = {}
        self.sight: dict[str, bool] = {}
        self.crossings: dict[str, str] = {}
        self.marks: list[hz.Mark] = []
        #: Marked bodies now: target key -> (Scout key, Mark) (F.3; until his next turn).
        self.marked: dict[str, tuple[str, hz.Mark]] = {}
        self.powered: dict[str, hz.PoweredField] = {}
        self.revealed: dict[str, list[str]] = {}  # hidden Field/Trap id -> players told (F.3)
        self.disrupted: list[str] = []  # units that fell over in a Slippery Field (F.1)
        self._ready = False
        self._thrusted: set[str] = set()
        #: Units that have moved this player turn (F.1 Slippery: "if they weren't moving").
        self.moving: set[str] = set()

    # ------------------------------------------------------------------ setup
    def setup(self) -> None:
        """Place the scene's Fields (once, after the bodies)."""
        if self._ready:
            return
        self._ready = True
        for e in getattr(self.game.spec, "fields", []):
            rules = field_rules(e)
            region = Region(tuple(e.centre), e.radius or e.size / 2.0, e.height)
            if e.powered_by is not None and e.powered_by not in self.game.bodies:
                raise SceneError(f"fields[{e.id}].powered_by: no body {e.powered_by!r}")
            if e.powered_by is not None and not e.powered:
                raise SceneError(f"fields[{e.id}].powered_by = {e.powered_by!r} needs "
                                 "powered = true")
            self.fields[e.id] = PlacedField(e, rules, region)
            dice = f", {rules.dice}" if rules is not None and rules.dice is not None else ""
            self.game.log("field", f"{self.fields[e.id].name}: {e.hazard} Field of Size "
                          f"{e.size:g}\"{dice}, radius {region.radius:g}\" at "
                          f"({e.centre[0]:g}, {e.centre[1]:g})", field=e.id, hazard=e.hazard)

    def add_field(self, entry: FieldEntry, source: str = "") -> PlacedField:
        """Place a Field made during play (a Smoke bomb's cloud, 8.4), or replace the one with
        the same ``id`` (a Field that shrank); ``source`` is said in the log.

        Raises
        ------
        SceneError
            When the rules reject the entry (naming it).
        """
        self.setup()
        rules = field_rules(entry)
        region = Region((entry.centre[0], entry.centre[1]), entry.radius or entry.size / 2.0,
                        entry.height)
        pf = self.fields[entry.id] = PlacedField(entry, rules, region)
        self.game.log("field", f"{pf.name}: {entry.hazard} Field of Size {entry.size:g}\", "
                      f"radius {region.radius:g}\" at ({entry.centre[0]:.2f}, "
                      f"{entry.centre[1]:.2f})" + (f" ({source})" if source else ""),
                      field=entry.id, hazard=entry.hazard, size=entry.size,
                      centre=[round(float(v), 4) for v in entry.centre])
        return pf

    def remove_field(self, field_id: str, why: str = "") -> None:
        """Take a Field off the table (a temporary Field that shrank to nothing, 8.4)."""
        pf = self.fields.pop(field_id, None)
        if pf is not None:
            self.game.log("field_gone", f"{pf.name} is gone" + (f": {why}" if why else ""),
                          field=field_id)

    @refuses(StopDropRoll)
    def stop_drop_roll_refused(self, action: StopDropRoll) -> str:
        g = self.game
        st = g.bodies.get(action.unit)
        if st is None or action.unit not in g.world.bodies:
            return f"no body called {action.unit!r} on the table"
        sk = g.system("skirmish")
        reason = sk.move_refusal(action.unit, action.player)
        if reason:
            return reason
        if not self.fire.burning(action.unit) or not self.fire.is_minifig(action.unit):
            return f"{st.name} is not a burning minifig"
        if effects.has_acted(g, action.unit):
            return f"{st.name} has already used its Action this turn"
        return ""

    @refuses(Cross)
    def cross_refused(self, a: Cross) -> str:
        """A player's ``cross`` moves his own units within the Move they have left this turn
        (it spends it, like a ``move``); a careful move spends the unit's Action too (Spiked,
        F.1). Farther, or another player's unit: the referee's ``cross``."""
        return "" if a.by == "referee" else self._cross_refusal(a)

    def _cross_refusal(self, a: Cross) -> str:
        """A player's ``cross`` moves his own units within the Move they have left this turn
        (it spends it, like a ``move``); a careful move spends the unit's Action too (Spiked,
        F.1). Farther, or another player's unit: the referee's ``cross``."""
        g = self.game
        sk = g.system("skirmish")
        units = [a.unit, *a.followers]
        for k in units:
            reason = sk.move_refusal(k, a.player)
            if reason:
                return reason
        dist = float(np.linalg.norm(np.asarray(a.to, float) - g.footprint_centre(a.unit)))
        for k in units:
            left = sk.move_allowance(k)
            if dist > left + 1e-9:
                st = g.bodies[k]
                return (f'{st.name} may move {left:.2f}" more this turn (Move '
                        f'{st.stats.move:g}"), not {dist:.2f}" (a longer cross is the '
                        "referee's)")
        if a.careful and effects.has_acted(g, a.unit):
            return (f"{g.bodies[a.unit].name} has already used its Action this turn: no "
                    "careful move")
        return ""

    def _stop_drop_roll(self, a: StopDropRoll) -> None:
        """8.3: "spending an Action to stop, drop and roll around on the ground and Disrupt
        himself" puts a minifig's Fire out."""
        g = self.game
        st = g.bodies[a.unit]
        effects.spend_action(g, a.unit)
        self.fire.douse_minifig(a.unit)
        effects.disrupt(g, st, "stops, drops and rolls", log=False)  # logged as the Fire's end
        g.log("extinguish", f"{st.name} stops, drops and rolls: the Fire is out, and he is "
              "Disrupted", body=a.unit, removed=1, size=0)

    def end_of_player_turn(self, turn: int, player: str) -> None:
        """A minifig of the player still burning with Move left must use every inch running
        and thrashing around (8.3): a physical run (walls stop it) in a direction rolled on
        the ``fire`` stream's d8 (the eight compass points)."""
        g = self.game
        sk = g.system("skirmish")
        for key, st in list(g.bodies.items()):
            if (st.owner != player or st.damage.destroyed or key not in g.world.bodies
                    or not self.fire.burning(key) or not self.fire.is_minifig(key)
                    or getattr(st.stats, "on_fire_ok", False)):
                continue
            left = sk.move_allowance(key)
            if left <= 1e-6:
                continue
            r = g.dice.stream("fire").roll(8, f"{st.name} runs on Fire: direction")
            ang = (r.result - 1) * math.pi / 4
            self._push(key, (math.cos(ang), math.sin(ang)), left,
                       "running and thrashing around on Fire (8.3)")

    def start_of_player_turn(self, turn: int, player: str) -> None:
        """A Scout's Marks last until his next turn begins (F.3); nobody is moving yet (F.1)."""
        self.moving.clear()
        for target, (scout, mark) in list(self.marked.items()):
            st = self.game.bodies.get(scout)
            if (st is None or st.owner == player) and mark.turn < turn:
                del self.marked[target]

    def allied(self, a: str | None, b: str | None) -> bool:
        """Whether players ``a`` and ``b`` are allies: the same player, or players with the
        same scene ``side`` (F.3 "all allies")."""
        if a is None or b is None:
            return False
        return a == b or b in self.game.system("manning").allies(a)

    def marked_by(self, player: str | None, target: str) -> str | None:
        """The Scout whose Mark on ``target`` counts for ``player`` (his own or an ally's,
        F.3: "the Marked target is considered visible to all allies"), or None."""
        got = self.marked.get(target)
        if got is None:
            return None
        scout = got[0]
        sst = self.game.bodies.get(scout)
        if sst is None or sst.damage.destroyed or not self.allied(player, sst.owner):
            return None
        return scout

    def mark_bonus(self, attacker: str, target: str):
        """The +1 Action of a Scout's Mark on ``target`` for an ally's Ranged attack (F.3:
        "all allies making Ranged attacks on a Marked target do so with a +1 Action Bonus"),
        or None. Allies: the Scout's own player and the players on his scene ``side``."""
        ast = self.game.bodies.get(attacker)
        if ast is None or self.marked_by(ast.owner, target) is None:
            return None
        return self.marked[target][1].ranged_bonus

    def smoke_fields(self) -> list[SmokeField]:
        """Smoke Fields on the table now (scene Fields and Smoke bombs' clouds, F.1)."""
        self.setup()
        return [SmokeField((pf.region.centre[0], pf.region.centre[1]), pf.region.radius,
                           pf.region.height)
                for pf in self.fields.values()
                if pf.rules is not None and pf.rules.kind is hz.HazardKind.SMOKE]

    def sight_blockers(self) -> list[SmokeField]:
        """The Smoke Fields (:meth:`smoke_fields`), for the window to draw."""
        return self.smoke_fields()

    def blocks_sight(self, start, end) -> str:
        """Smoke "blocks vision completely for anyone looking into, out of, or through its
        Field" (F.1): ``"smoke"`` when the line from ``start`` to ``end`` meets one."""
        for smoke in self.smoke_fields():
            if segment_in_smoke(start, end, smoke):
                return "smoke"
        return ""

    def state(self) -> dict:
        return {"fields": sorted(self.fields), "fires": self.fire.state(),
                "crossings": dict(sorted(self.crossings.items())),
                "revealed": {k: sorted(v) for k, v in sorted(self.revealed.items())}}

    def _body(self, key: str, where: str):
        st = self.game.bodies.get(key)
        if st is None or key not in self.game.world.bodies:
            raise SceneError(f"{where}: no body {key!r} on the table")
        return st

    # ------------------------------------------------------------------ turns
    def start_of_turn(self, turn: int) -> None:
        """Water puts out what it submerges, Exposure Fields burn who stands in them, then
        every Fire makes its Burning Roll (F.1). Scouts first reveal the hidden Fields and Traps
        in their field of view to their side (F.3 Tracking)."""
        self.setup()
        self.track(turn)
        for pf in self.fields.values():
            inside = bodies_in_region(self.game.world, pf.region,
                                      [k for k in self.game.bodies])
            for key, frac in inside:
                st = self.game.bodies[key]
                if st.damage.destroyed:
                    continue
                if pf.entry.hazard == "water" and frac >= 1.0 - 1e-6:
                    self.fire.submerge(key, pf.name)
                elif pf.rules is not None and pf.rules.kind is hz.HazardKind.EXPOSURE:
                    self._expose(pf, key, min(st.stats.size, pf.region.height) * frac)
        self.fire.start_of_turn(turn)
        self.game.system("defences").engulfed_riders()  # the pilot of a burning Boiler-Mech (F.1)

    # ------------------------------------------------------------------ actions
    def apply(self, action, index: int) -> None:
        """Apply one hazard action (see :mod:`sandbox.games.brikwars.hazard_scene`) with its
        ``@handles`` method, the Fields set up first and a replay frame recorded after."""
        self.setup()
        super().apply(action, index)
        self.game.record_frame(force=True)

    @handles(Ignite)
    def _apply_ignite(self, action: Ignite, index: int) -> None:
        self._ignite(action, f"actions[{index}]")

    @handles(FlameThrowerAttack)
    def _apply_flamethrower(self, action: FlameThrowerAttack, index: int) -> None:
        self._flamethrower(action, f"actions[{index}]")

    @handles(Cross)
    def _apply_cross(self, action: Cross, index: int) -> None:
        self._cross(action, f"actions[{index}]")

    @handles(Extinguish)
    def _apply_extinguish(self, action: Extinguish, index: int) -> None:
        self._body(action.target, f"actions[{index}]")
        self.fire.extinguish(action.target, action.apparatus, by=action.player)

    @handles(Sight)
    def _apply_sight(self, action: Sight, index: int) -> None:
        self._sight(action, index, f"actions[{index}]")

    @handles(MarkTarget)
    def _apply_mark(self, action: MarkTarget, index: int) -> None:
        self._mark(action, index, f"actions[{index}]")

    @handles(StopDropRoll)
    def _apply_stop_drop_roll(self, action: StopDropRoll, index: int) -> None:
        self._stop_drop_roll(action)

    def _ignite(self, a: Ignite, where: str) -> None:
        st = self._body(a.target, where)
        lo, hi = self.game.world.aabb(a.target)
        at = np.array(a.point) if a.point is not None else np.array(
            [(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, hi[2]])
        self.game.log("action", f"{a.player} sets {a.dice} on {st.name}", action="ignite",
                      player=a.player, body=a.target)
        roll = DiceExpression.parse(a.dice).roll(self.game.dice.stream("fire"),
                                                 f"{a.dice} on {st.name}",
                                                 per_die_modifier=a.per_die_modifier)
        if a.damage and roll.total:
            self.game.system(Defences).damage(
                st, roll.total, f"{roll.expression.kind or ''} Damage".strip())
        if roll.expression.kind in ("Fire", "Acid", "Poison"):  # only Fire dice set Fires
            self.fire.ignite(a.target, roll, at=at, igniter=a.player,
                             source=str(roll.expression))

    def _flamethrower(self, a: FlameThrowerAttack, where: str) -> None:
        """A scripted FlameThrower: the same Arc sweep as the table's (8.3 Arc Fire, through
        :func:`.arcs.bodies_in_arc`): every body in the Arc gets an attack, the part
        inside it counting for Target Size; what the flames hit takes Fire Damage and catches
        Fire (F.1)."""
        att = self._body(a.attacker, where)
        tgt = self._body(a.target, where)
        weapon = weapon_profile("FlameThrower", a.size)
        cp = closest_points(self.game.world, a.attacker, a.target, 1e6)
        dist = cp[0] if cp is not None else 0.0
        hits = bodies_in_arc(self.game, a.attacker, a.target, a.arc, weapon.range_in)
        if not any(h.key == a.target for h in hits):  # the aimed body is always attacked
            hits.append(ArcHit(a.target, 0.0, float(tgt.stats.size), 0, dist))
        self.game.log("action", f"{att.name} fires a Size {a.size:g}\" FlameThrower at "
                      f"{tgt.name} {dist:.2f}\" away (Arc {a.arc}: "
                      f"{', '.join(self.game.bodies[h.key].name for h in hits)})",
                      action="flamethrower", player=a.player, body=a.target,
                      distance=round(dist, 4), swept=[h.key for h in hits])
        by_name = {self.game.bodies[h.key].name: h.key for h in hits}
        res = resolve_arc_fire(self.game.dice.stream("attack"), weapon, a.arc,
                               [ArcTarget(self.game.bodies[h.key].name, h.size_in,
                                          h.distance_in, arcs_spanned=h.spanned) for h in hits],
                               action_die=att.stats.action_die,
                               reason=f"{att.name}'s FlameThrower")
        for shot in res.shots:
            key = by_name.get(shot.target, a.target)
            victim = self.game.bodies[key]
            if not shot.hit or shot.damage is None:
                self.game.log("miss", f"{att.name}'s flames miss {victim.name} (Action "
                              f"{shot.action.total} vs Use {weapon.use})", body=key)
                continue
            if victim.damage.destroyed or key not in self.game.world.bodies:
                continue
            near = closest_points(self.game.world, a.attacker, key, 1e6)
            at = near[2] if near is not None else self.game.world.pose(key)[0]
            effects.strike(self.game, victim, shot.damage, "Fire Damage (FlameThrower)",
                           weapon=weapon, attacker=a.attacker, igniter=a.player, at=at,
                           fire_source="FlameThrower Fire Damage", knock=shot.knockback)

    def _sight(self, a: Sight, index: int, where: str) -> bool:
        v = self._body(a.viewer, where)
        t = self._body(a.target, where)
        clear, why = self.line_of_sight(a.viewer, a.target)
        key = a.id or f"sight{index + 1}"
        self.sight[key] = clear
        self.game.log("sight", f"{v.name} {'can' if clear else 'cannot'} see {t.name}"
                      + ("" if clear else f": {why}"), sight=key, viewer=a.viewer,
                      target=a.target, clear=clear, blocked_by=None if clear else why)
        return clear

    def line_of_sight(self, viewer: str, target: str) -> tuple[bool, str]:
        """Whether ``viewer`` sees ``target``: not through Smoke, nor through another body.

        Returns
        -------
        (clear, reason)
        """
        tlo, thi = self.game.world.aabb(target)
        return self.sight_to_point(viewer, (tlo + thi) / 2.0, ignore=(viewer, target))

    def sight_to_point(self, viewer: str, aim, ignore=()) -> tuple[bool, str]:
        """Whether ``viewer`` sees the table point ``aim`` (inches): no Smoke, no body (other
        than ``ignore``) on the ray from just below the top of the viewer."""
        sight = self.game.line_of_sight(viewer, np.asarray(aim, dtype=float), ignore=ignore)
        if sight.clear:
            return True, ""
        if sight.blocked_by == "smoke":
            return False, "Smoke"
        k = sight.blocked_by
        return False, f"{self.game.bodies[k].name if k in self.game.bodies else k} is in the way"

    def _mark(self, a: MarkTarget, index: int, where: str) -> None:
        s = self._body(a.scout, where)
        t = self._body(a.target, where)
        cp = closest_points(self.game.world, a.scout, a.target, 1e6)
        clear, _ = self.line_of_sight(a.scout, a.target)
        mark = hz.mark_target(s.name, t.name, distance_in=cp[0] if cp else 0.0, visible=clear,
                              turn=self.game.turn)
        self.marks.append(mark)
        self.marked[a.target] = (a.scout, mark)
        self.game.log("mark", f"{s.name} Marks {t.name}: allies get +1 to Ranged attacks on it "
                      "until his next turn (F.3)", body=a.target, scout=a.scout)

    # ------------------------------------------------------------------ exposure
    def _activate(self, pf: PlacedField, victim: str) -> bool:
        """A powered Field's dice activate once per turn for an inch of Power each (F.1).

        Returns whether they act on ``victim`` now; a passive Field always does.
        """
        if pf.rules is None or not pf.rules.powered:
            return True
        g = self.game
        state = self.powered.setdefault(pf.entry.id, hz.PoweredField(pf.rules))
        who = g.bodies[victim].name
        if state.last_turn == g.turn:
            g.log("powered_field", f"{pf.name} already used its Hazard dice on turn {g.turn}: "
                  f"{who} is spared (F.1)", field=pf.entry.id, body=victim, activated=False)
            return False
        src = pf.entry.powered_by
        left = g.system("defences").power_left(src) if src is not None else math.inf
        try:
            cost = state.activate(g.turn, left)
        except RulesError as exc:
            g.log("powered_field", f"{pf.name} stays off: {exc}", field=pf.entry.id,
                  body=victim, activated=False)
            return False
        if src is not None:
            g.system("defences").spend_power(src, cost, pf.name)
        g.log("powered_field", f"{pf.name} activates on {who}: {pf.rules.hazard_dice} Hazard "
              f"di{'e' if pf.rules.hazard_dice == 1 else 'ce'}, {cost:g}\" of Power (F.1)",
              field=pf.entry.id, body=victim, activated=True, power=cost)
        return True

    def _expose(self, pf: PlacedField, key: str, exposed_size: float,
                activate: bool = True) -> None:
        st = self.game.bodies[key]
        # a powered Field spends no Power on a Size 0 victim, who takes a point a die (F.1)
        if activate and exposed_size > 0 and not self._activate(pf, key):
            return
        res = hz.exposure_damage(self.game.dice.stream("hazard"), pf.hazard,
                                 exposed_size_in=max(0.0, exposed_size), victim=st.name)
        self.game.log("exposure", f"{st.name} is exposed to {pf.name}: {res.damage} Damage"
                      f" (Target Size {res.size_modifier:+d}), Overload {res.overload_in:g}\" of "
                      "Power", body=key, field=pf.entry.id, damage=res.damage)
        if res.damage:
            self.game.system(Defences).damage(st, res.damage, f"Exposure Damage ({pf.name})",
                              dice=dice_of(res.roll) if res.roll is not None else None)
        if res.overload_in and key in self.game.bodies:  # Overload: Power lost (F.1)
            self.game.system("defences").overload(key, res.overload_in, pf.name)
        if res.roll is not None and res.fire_values:
            self.fire.ignite(key, res.roll, igniter=pf.entry.owner, source=pf.name)

    def _go_off(self, pf: PlacedField, key: str, point: np.ndarray) -> None:
        """A Concealed Hazard goes off under ``key`` at ``point`` (F.1)."""
        st = self.game.bodies[key]
        dice = pf.hazard.dice
        self.crossings[key] = "triggered"
        self.game.log("triggered", f"{st.name} sets off {pf.name} at "
                      f"{np.round(point, 2).tolist()}", body=key, field=pf.entry.id,
                      point=[round(float(v), 4) for v in point])
        if dice is None:  # a Concealed Hazard always has its dice (rules.hazards.Field)
            return
        if dice.kind == "Exp" or isinstance(dice, DiceSum):
            # the one explosion (8.4): rings, break-up, KnockBack, chains; mixed Variant dice
            # act die by die
            roll = dice.roll(self.game.dice.stream("explosion"), f"{pf.name} explodes")
            self.game.system(Blasts).explode(point, roll, pf.name)
        elif dice.kind in ("", "Fire", "Acid", "Poison", "Piercing"):
            self._expose(pf, key, st.stats.size, activate=False)  # _cross activated it

    # ------------------------------------------------------------------ moving
    def _cross(self, a: Cross, where: str) -> None:
        """A scripted straight move at most the unit's Move through whatever lies on the way:
        the engine's one move (:meth:`~sandbox.engine.game.Game.move_unit`), whose path hook
        here (:meth:`on_path`) applies the Fields crossed."""
        st = self._body(a.unit, where)
        w = self.game.world
        pos, orn = w.pose(a.unit)
        start = np.array([pos[0], pos[1], 0.0])
        thrusted = self._thrust_at_start(a.unit, start)  # carried first, then its full Move
        if thrusted:
            pos, orn = w.pose(a.unit)
            start = np.array([pos[0], pos[1], 0.0])
        goal = np.array([a.to[0], a.to[1], 0.0])
        length = float(np.linalg.norm(goal - start))
        if length > st.stats.move + 1e-9:
            goal = start + (goal - start) * (st.stats.move / length)
            length = st.stats.move
        self.game.log("action", f"{st.name} moves {length:.2f}\" towards ({a.to[0]:g}, "
                      f"{a.to[1]:g})", action="cross", player=a.player, body=a.unit)
        if a.by == "player":  # the unit's own move spends its Move (the referee's does not)
            moved = self.game.system("skirmish").turn_state.moved_in
            for k in (a.unit, *a.followers):
                moved[k] = moved.get(k, 0.0) + length
            if a.careful:
                effects.spend_action(self.game, a.unit)
        self._thrusted = thrusted
        try:
            end = self.game.move_unit(a.unit, goal[:2], player=a.player, careful=a.careful,
                                      check_overlap=False)
        finally:
            self._thrusted = set()
        direction = (goal - start) / length if length > 1e-9 else np.zeros(3)
        travelled = float(np.dot(end - start, direction)) if length > 1e-9 else 0.0
        for i, f in enumerate(a.followers):
            self._body(f, where)
            back = max(0.0, travelled - 1.0 * (i + 1))
            self._place(f, start + direction * back)
            self.crossings[f] = "safe"
            self.game.log("follow", f"{self.game.bodies[f].name} follows {st.name} in single "
                          f"file, {back:.2f}\" along the path", body=f)

    def on_path(self, key: str, start: np.ndarray, goal: np.ndarray,
                careful: bool = False) -> np.ndarray:
        """Every move crosses the Fields on its way (F.1, F.3), in the order the path enters
        them: Concealed Hazards may stop or go off under the unit, Exposure Fields burn it,
        Difficult Terrain takes Move, Thrust carries it, Slippery ground slides it. Returns
        where the unit ended."""
        self.setup()
        st = self.game.bodies[key]
        thrusted = self._thrusted
        length = float(np.linalg.norm(goal - start))
        direction = (goal - start) / length if length > 1e-9 else np.zeros(3)
        crossings = []
        for pf in self.fields.values():
            ch = pf.region.chord(start, goal)
            if (ch is not None and ch[1] - ch[0] > 1e-9 and pf.rules is not None
                    and pf.entry.id not in thrusted):
                crossings.append((ch[0], ch[1], pf))
        crossings.sort(key=lambda c: (c[0], c[2].entry.id))
        travelled = length
        outcome = "safe"
        # F.1 Slippery: a unit standing on the ice that has not moved yet this turn "weren't
        # moving": it stays stuck, spending Move inches equal to the Hazard inches, and may
        # then use what is left (read: its Move and Sprint of the turn, less the Hazard)
        standing = key not in self.moving
        self.moving.add(key)
        sk = self.game.system("skirmish")
        allowance = sk.move_of(key) + sk.turn_state.sprint_in.get(key, 0.0)
        scout = bool(getattr(st.stats, "scout", False))
        pushes: list[tuple[np.ndarray, float, PlacedField]] = []
        slips: list[tuple[PlacedField, float]] = []
        for t0, t1, pf in crossings:
            k = pf.hazard.kind
            inside = (t1 - t0) * length
            if k is hz.HazardKind.CONCEALED:
                res = hz.cross_concealed(self.game.dice.stream("hazard"), pf.hazard,
                                         distance_in=inside, size_in=st.stats.size,
                                         action_die=st.stats.action_die, scout=scout,
                                         specialty_die=8 if scout else None, victim=st.name)
                if res.immune or res.action is None:  # Size 0: immune, no Action Roll
                    self.game.log("concealed", f"{st.name} is too small to set off {pf.name}",
                                  body=key)
                    continue
                self.game.log("concealed", f"{st.name} rolls {res.action.total} to cross "
                              f"{inside:.2f}\" of {pf.name}: safe for {res.safe_in:.2f}\"",
                              body=key, field=pf.entry.id, safe=res.safe_in,
                              triggered=res.triggered, stopped=res.stopped)
                if res.triggered and not self._activate(pf, key):
                    continue  # a powered Hazard already spent this turn, or out of Power (F.1)
                if res.triggered or res.stopped:
                    travelled = t0 * length + res.safe_in
                    if res.stopped:
                        travelled = max(0.0, travelled - 0.05)
                        outcome = "stopped"
                        self.game.log("stopped", f"{st.name} spots {pf.name} and stops "
                                      f"{res.safe_in:.2f}\" in (F.3 Pathfinding)", body=key)
                    self._place(key, start + direction * travelled)
                    if res.triggered:
                        outcome = "triggered"
                        self._go_off(pf, key, start + direction * travelled)
                    break
            elif k is hz.HazardKind.EXPOSURE:
                self._expose(pf, key, min(st.stats.size, pf.region.height))
            elif k is hz.HazardKind.DIFFICULT:
                if not self._activate(pf, key):
                    continue
                stuck = (standing and t0 * length < 1e-6
                         and pf.hazard.terrain is hz.TerrainKind.SLIPPERY
                         and pf.region.contains([start[0], start[1], 0.01]))
                tr = hz.difficult_terrain(self.game.dice.stream("hazard"), pf.hazard,
                                          victim=st.name, careful=careful, moving=not stuck,
                                          exposed_size_in=st.stats.size,
                                          move_left_in=allowance if stuck else st.stats.move)
                self.game.log("terrain", f"{pf.name} ({tr.terrain.value}): "
                              f"{tr.hazard_in:g}\" of Hazard", body=key, field=pf.entry.id)
                if tr.damage is not None and tr.damage.damage:
                    self.game.system(Defences).damage(st, tr.damage.damage,
                                                      f"Spiked Obstacle ({pf.name})")
                if stuck:
                    travelled = self._stuck(key, pf, tr.move_lost_in, allowance, length)
                elif tr.move_lost_in:  # the Move left after the lost inches, not less than 0
                    travelled = min(travelled, max(t0 * length,
                                                   st.stats.move - tr.move_lost_in))
                if tr.thrust_in:  # entered on the way: carried once the move is made
                    pushes.append((np.array([*pf.entry.thrust_direction, 0.0]), tr.thrust_in, pf))
                if tr.terrain is hz.TerrainKind.SLIPPERY:
                    slips.append((pf, tr.forced_slide_in))
            if self.game.bodies[key].damage.destroyed:
                break
        else:
            if travelled < length - 1e-9:  # Difficult Terrain took some of the Move
                self._place(key, start + direction * travelled)
        end = start + direction * travelled
        for d, inches, pf in pushes:
            if not self.game.bodies[key].damage.destroyed:
                self._push(key, d, inches, f"carried by {pf.name} (Thrust)")
        for pf, inches in slips:
            if self.game.bodies[key].damage.destroyed:
                break
            if inches > 0 and length > 1e-9 and pf.region.contains([end[0], end[1], 0.01]):
                self._push(key, direction, inches, f"slides on in {pf.name} (Slippery)")
        self.crossings.setdefault(key, outcome)
        if outcome == "stopped":
            self.crossings[key] = "stopped"
        return end

    def _stuck(self, key: str, pf: PlacedField, lost_in: float, allowance_in: float,
               length_in: float) -> float:
        """A unit standing still in a Slippery Field stays stuck, spending ``lost_in`` of its
        Move (F.1: "or to remain stuck in place if they weren't moving, spending their own Move
        inches equal to the Hazard inches. They may then use whatever Move inches they have
        remaining."). Returns the inches it may still walk of the ``length_in`` asked; the
        spent inches join the turn's Move record (a move asked beyond what is left ends
        short, as Slow ground does)."""
        g = self.game
        st = g.bodies[key]
        walk = min(length_in, max(0.0, allowance_in - lost_in))
        moved = g.system("skirmish").turn_state.moved_in
        if key in moved:  # the table's Move counted the inches asked: count what was spent
            moved[key] = moved[key] - length_in + walk + lost_in
        g.log("stuck", f"{st.name} stands on {pf.name} and stays stuck in place: {lost_in:g}\" "
              f"of Move spent, {max(0.0, allowance_in - lost_in):g}\" left to walk (F.1 "
              "Slippery)", body=key, field=pf.entry.id, inches=lost_in,
              left=max(0.0, allowance_in - lost_in))
        return walk

    def _thrust_at_start(self, key: str, start: np.ndarray) -> set[str]:
        """Thrust Fields the unit stands in carry it before it moves (F.1): a physical push of
        the rolled Hazard inches along the Field's ``thrust_direction``. Returns their ids."""
        st = self.game.bodies[key]
        done: set[str] = set()
        for pf in list(self.fields.values()):
            r = pf.rules
            if (r is None or r.kind is not hz.HazardKind.DIFFICULT
                    or r.terrain is not hz.TerrainKind.THRUST
                    or not pf.region.contains([start[0], start[1], 0.01])):
                continue
            done.add(pf.entry.id)
            if not self._activate(pf, key):
                continue
            res = hz.difficult_terrain(self.game.dice.stream("hazard"), r, victim=st.name,
                                       exposed_size_in=st.stats.size, move_left_in=st.stats.move)
            self.game.log("terrain", f"{pf.name} ({res.terrain.value}): {res.hazard_in:g}\" of "
                          "Hazard at the start of the move", body=key, field=pf.entry.id)
            self._push(key, np.array([*pf.entry.thrust_direction, 0.0]), res.thrust_in,
                       f"carried by {pf.name} (Thrust)")
        return done

    #: Speed of a Field's push (Thrust, a Slippery slide), inches per second.
    PUSH_SPEED_IN_S: float = 12.0

    def _push(self, key: str, direction, inches: float, why: str) -> float:
        """Push a body ``inches`` along ``direction`` by driving its velocity step by step (a
        wall on the way stops it), then let it settle; logs and returns the distance made."""
        w = self.game.world
        d = np.array([float(direction[0]), float(direction[1]), 0.0])
        n = float(np.linalg.norm(d))
        if n < 1e-9 or inches <= 0:
            return 0.0
        d /= n
        p0 = w.pose(key)[0]
        t, cap = 0.0, inches / self.PUSH_SPEED_IN_S + 0.5
        while t < cap:
            made = float(np.dot(w.pose(key)[0] - p0, d))
            if made >= inches - 1e-3:
                break
            lin, _ = w.velocity(key)
            v = min(self.PUSH_SPEED_IN_S, (inches - made) / w.time_step)
            w.set_velocity(key, (d[0] * v, d[1] * v, float(lin[2])), (0, 0, 0))
            self.game.step(quiet=True)
            t += w.time_step
        w.set_velocity(key, (0, 0, 0), (0, 0, 0))
        self.game.settle(max_seconds=1.0, quiet=True)
        p1 = w.pose(key)[0]
        made = float(np.dot(p1 - p0, d))
        self.game.log("pushed", f"{self.game.bodies[key].name} is {why}: {made:.2f}\" of "
                      f"{inches:g}\"", body=key, inches=round(made, 4), hazard_in=inches,
                      to=[round(float(v), 4) for v in p1])
        self.game.record_frame(force=True)
        return made

    def on_action_roll(self, key: str, roll) -> None:
        """A unit on foot standing in a Slippery Field falls over and is Disrupted on any
        Critical Failure of an Action Roll it makes (F.1); no extra footing roll is made."""
        st = self.game.bodies.get(key)
        if (st is None or st.kind != "unit" or st.stats.flight or st.damage.disrupted
                or key not in self.game.world.bodies):
            return
        lo, hi = self.game.world.aabb(key)
        foot = [(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, max(0.01, float(lo[2]) + 0.01)]
        for pf in self.fields.values():
            r = pf.rules
            if (r is not None and r.kind is hz.HazardKind.DIFFICULT
                    and r.terrain is hz.TerrainKind.SLIPPERY and pf.region.contains(foot)
                    and hz.slippery_fall(roll, on_foot=True)):
                self.game.log("footing", f"{st.name} Critically Fails an Action Roll on "
                              f"{pf.name}", body=key, field=pf.entry.id, fell=True)
                self._fall_over(key, pf, np.zeros(3))
                return

    def _fall_over(self, key: str, pf: PlacedField, direction: np.ndarray) -> None:
        """Lay the unit down along ``direction`` and Disrupt it (a fall on Slippery ground)."""
        st = self.game.bodies[key]
        w = self.game.world
        pos, orn = w.pose(key)
        axis = np.cross([0.0, 0.0, 1.0], direction if np.linalg.norm(direction) > 1e-9
                        else np.array([1.0, 0.0, 0.0]))
        axis /= np.linalg.norm(axis)
        h = math.pi / 4  # a quarter turn: face down along its way
        q = quat_mul(np.array([*(axis * math.sin(h)), math.cos(h)]), orn)
        w.set_pose(key, pos, q)
        lo, _ = w.aabb(key)
        w.set_pose(key, [pos[0], pos[1], pos[2] + max(0.0, 0.02 - float(lo[2]))], q)
        w.set_velocity(key, (0, 0, 0), (0, 0, 0))
        self.game.settle(max_seconds=1.0, quiet=True)
        effects.disrupt(self.game, st, f"slips, falls over and is Disrupted ({pf.name}, F.1)",
                        field=pf.entry.id)
        self.disrupted.append(key)
        self.game.record_frame(force=True)

    # ------------------------------------------------------------------ tracking
    def _hidden(self) -> list[tuple[str, str, np.ndarray, tuple[str, ...]]]:
        """Hidden Fields and Traps: (id, name, point to see, bodies the sight ray ignores)."""
        out: list[tuple[str, str, np.ndarray, tuple[str, ...]]] = []
        for pf in self.fields.values():
            if pf.entry.hidden:
                c = pf.region.centre
                out.append((pf.entry.id, pf.name, np.array([c[0], c[1], 0.25]), ()))
        for pt in self.game.system("traps").traps.values():
            if not getattr(pt.entry, "hidden", False):
                continue
            if pt.entry.object is not None and pt.entry.object in self.game.world.bodies:
                lo, hi = self.game.world.aabb(pt.entry.object)
                out.append((pt.entry.id, pt.name, (lo + hi) / 2.0, (pt.entry.object,)))
            elif pt.entry.centre is not None:
                c = pt.entry.centre
                out.append((pt.entry.id, pt.name, np.array([c[0], c[1], 0.25]), ()))
        return out

    def track(self, turn: int) -> None:
        """F.3 Tracking: hidden Fields and Traps in a Scout's field of view (a clear physics
        sight ray, no Smoke) are revealed to him and his side; each reveal is logged once."""
        g = self.game
        hidden = self._hidden()
        if not hidden:
            return
        for key, st in g.bodies.items():
            if (not getattr(st.stats, "scout", False) or st.damage.destroyed
                    or key not in g.world.bodies):
                continue
            side = st.owner or st.name
            seen = []
            for hid, _name, point, ignore in hidden:
                if side in self.revealed.get(hid, []):
                    continue
                clear, _ = self.sight_to_point(key, point, ignore=(key, *ignore))
                if clear:
                    seen.append(hid)
            for hid in hz.tracking_reveals(seen, [h[0] for h in hidden]):
                self.revealed.setdefault(hid, []).append(side)
                name = next(h[1] for h in hidden if h[0] == hid)
                g.log("revealed", f"{st.name} spots {name}: revealed to {side} (F.3 Tracking)",
                      thing=hid, scout=key, players=[side])

    def _place(self, key: str, xy: np.ndarray) -> None:
        """Move a body (keeping its height and facing) to table point ``xy`` and let it settle."""
        w = self.game.world
        pos, orn = w.pose(key)
        w.set_pose(key, [float(xy[0]), float(xy[1]), float(pos[2])], orn)
        w.set_velocity(key, (0, 0, 0), (0, 0, 0))
        self.game.record_frame(force=True)
        self.game.settle(max_seconds=1.0, quiet=True)

    # ------------------------------------------------------------------ checks
    def check(self) -> list[str]:
        """Compare the game with ``[expect.hazards]``; failures in words."""
        exp = self.game.spec.expect
        h = getattr(exp, "hazards", None) if exp is not None else None
        if h is None:
            return []
        fails = []
        for k in h.burning:
            if not self.fire.burning(k):
                fails.append(f"expected {k!r} burning")
        for k in h.not_burning:
            if self.fire.burning(k):
                fails.append(f"expected {k!r} not burning, Fire Size {self.fire.fire_size(k)}\"")
        for k, n in h.fire_size.items():
            if self.fire.fire_size(k) != n:
                fails.append(f"expected a {n}\" Fire on {k!r}, saw {self.fire.fire_size(k)}\"")
        for k, n in h.min_grinding_damage.items():
            if self.fire.grinding_damage(k) < n:
                fails.append(f"expected at least {n} Grinding Damage on {k!r}, saw "
                             f"{self.fire.grinding_damage(k)}")
        for label, keys in (("triggered", h.triggered), ("safe", h.safe), ("stopped", h.stopped)):
            for k in keys:
                if self.crossings.get(k) != label:
                    fails.append(f"expected {k!r} {label}, saw {self.crossings.get(k)}")
        for k in h.sight_blocked:
            if self.sight.get(k) is not False:
                fails.append(f"expected sight check {k!r} blocked, saw {self.sight.get(k)}")
        for k in h.sight_clear:
            if self.sight.get(k) is not True:
                fails.append(f"expected sight check {k!r} clear, saw {self.sight.get(k)}")
        fails += self.game.system("traps").check_traps(h.sprung, h.armed)
        for k, n in h.min_deflected.items():
            seen = self.game.system("defences").deflected.get(k, 0)
            if seen < n:
                fails.append(f"expected at least {n} Energy Shield dice spent by {k!r}, saw {seen}")
        for k in h.revealed:
            if not self.revealed.get(k):
                fails.append(f"expected {k!r} revealed by a Scout, it was not")
        for k in h.disrupted:
            if k not in self.disrupted:
                fails.append(f"expected {k!r} to fall over in a Slippery Field")
        if self.fire.spread_count < h.min_spread:
            fails.append(f"expected at least {h.min_spread} spreading Fires, saw "
                         f"{self.fire.spread_count}")
        return fails
