"""Move and Attack at the table and in scripts: the skirmish system of the engine.

Rules read here (core rules not in the chapters shipped with the project are marked so):

- Move (core rules): a unit moves up to its Move in inches per turn, in as many steps as it
  likes; the distance is how far its base travels (for a translation every point of the base,
  edge or centre, travels the same distance). A move that would exceed what is left is
  refused with the numbers. The move itself is the engine's one move
  (:meth:`sandbox.game.engine.Game.move_unit`): Field Hazards, Traps and edges see it.
- Sprint (core rules reading): instead of its Action, a unit rolls its Action die once (stream
  ``sprint``) and may move that many extra inches this turn; it cannot attack afterwards.
- One Action per unit per turn (an attack is an Action). Disrupted units neither move nor act;
  they recover at the end of their owner's turn (core rules reading).
- Attack (BrikWars 8.5, 5.1): Range from the attacker's base edge to the target's (a stand-in
  for the end of the barrel, 8.2); Out of Range and Target Size modifiers from
  :mod:`sandbox.rules.attacks`; Arc weapons fire a one-target Firing Arc (8.3); a hit's Damage
  is compared with the target's Armor (Cumulative for creations); KnockBack pushes the target
  with physics; Explosive Damage (Rockets) is the engine's one explosion at the target (8.4).
- Line of sight is the engine's (bodies by a physics ray, Smoke Fields, eye height).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import RulesError
from ..rules.attacks import (
    ArcTarget,
    Modifier,
    arc_modifiers,
    out_of_range_modifier,
    resolve_arc_fire,
    resolve_attack,
    target_modifier,
)
from ..rules.weapons import WeaponProfile, WeaponType, bastard_gun, weapon_profile
from .actions import AttackAction, EndTurnAction, MoveAction
from .table import System

if TYPE_CHECKING:  # pragma: no cover
    from .scene import WeaponSpec
    from .table import BodyState, TableAPI


# ------------------------------------------------------------------------------ read-outs
@dataclass(frozen=True)
class Measurement:
    """A ruler between two things on the table.

    Attributes
    ----------
    start, end : (3,) float
        Where the ruler is drawn: base-edge points of bodies, or the points given. Inches.
    inches : float
        Horizontal edge-to-edge distance (0 when touching), inches.
    """

    start: tuple[float, float, float]
    end: tuple[float, float, float]
    inches: float


@dataclass(frozen=True)
class SightLine:
    """Line of sight from one body (or point) to another.

    Attributes
    ----------
    start, end : (3,) float
        Eye point and aimed point, inches.
    clear : bool
    blocked_by : str or None
        Key of the body in the way, or ``"smoke"``.
    hit_point : (3,) float or None
        Where the sight line is stopped.
    """

    start: tuple[float, float, float]
    end: tuple[float, float, float]
    clear: bool
    blocked_by: str | None = None
    hit_point: tuple[float, float, float] | None = None


@dataclass(frozen=True)
class AttackPreview:
    """Everything a player sees before an attack is rolled (BrikWars 8.5, 5.1).

    Attributes
    ----------
    weapon : WeaponProfile
    distance_in : float
        Base edge to base edge, inches.
    range_in : float or None
    use : int or None
    modifiers : tuple of Modifier
        Out of Range, Target Size (and Auto Penalty / distance for Arc weapons).
    arc_points : int
        Points of Firing Arc used (0 for single shots).
    sight : SightLine
    allowed : bool
    reason : str
        Why not, in words ("" when allowed).
    explosive : bool
        Damage is an Explosion (2" rings at the target).
    """

    weapon: WeaponProfile
    distance_in: float
    range_in: float | None
    use: int | None
    modifiers: tuple[Modifier, ...]
    arc_points: int
    sight: SightLine
    allowed: bool
    reason: str
    explosive: bool

    def lines(self) -> list[str]:
        """The preview in words, one line each."""
        rng = "CC" if self.range_in == 0 else (f'{self.range_in:g}"' if self.range_in is not None else "-")
        out = [f"{self.weapon.name}: Use {self.use}, Range {rng}, Damage {self.weapon.damage}",
               f'Distance {self.distance_in:.2f}" (base edge to base edge)']
        if self.arc_points:
            out.append(f"Firing Arc {self.arc_points}")
        for m in self.modifiers:
            parts = []
            if m.action:
                parts.append(f"Action {m.action:+d}")
            if m.damage:
                parts.append(f"Damage {m.damage:+d}" + (" per die" if m.damage_per_die else ""))
            out.append(f"  {m.source}: {', '.join(parts)}")
        if not self.modifiers:
            out.append("  no modifiers")
        out.append("Line of sight: clear" if self.sight.clear
                   else f"Line of sight: blocked by {self.sight.blocked_by}")
        if not self.allowed:
            out.append(f"Cannot attack: {self.reason}")
        return out


@dataclass
class TurnState:
    """Per-turn bookkeeping of the current player (reset when the player's turn ends)."""

    moved_in: dict[str, float] = field(default_factory=dict)
    sprint_in: dict[str, float] = field(default_factory=dict)
    acted: set[str] = field(default_factory=set)

    def to_dict(self) -> dict:
        return {"moved_in": {k: round(v, 4) for k, v in sorted(self.moved_in.items())},
                "sprint_in": dict(sorted(self.sprint_in.items())), "acted": sorted(self.acted)}


class SprintShort(RulesError):
    """A Sprint was rolled but fell short: the die stays spent and the action stays logged."""


def weapon_of(spec: "WeaponSpec") -> WeaponProfile:
    """The rules profile of a scene weapon entry (BrikWars 8.1)."""
    prof = bastard_gun(spec.bastard) if spec.bastard is not None else weapon_profile(spec.type, spec.size)
    return replace(prof, name=spec.name) if spec.name else prof


def possessive(name: str) -> str:
    """``"Lion Knights"`` → ``"Lion Knights'"``, ``"Red"`` → ``"Red's"``.

    >>> possessive("Lion Knights"), possessive("Player")
    ("Lion Knights'", "Player's")
    """
    return f"{name}'" if name.endswith(("s", "S")) else f"{name}'s"


def describe_action(a, names: dict[str, str] | None = None) -> str:
    """An action in words; ``names`` maps body keys to the names players see."""
    def n(k):
        return (names or {}).get(k, k)

    t = getattr(a, "type", None)
    if t == "move":
        return f"{a.player} moves {n(a.unit)} to ({a.to[0]:.2f}, {a.to[1]:.2f})" + (" sprinting" if a.sprint else "")
    if t == "attack":
        return f"{a.player}: {n(a.unit)} attacks {n(a.target)} with weapon {a.weapon + 1}"
    if t == "end_turn":
        return f"{a.player} ends the turn"
    if t == "launch":
        return (f"{a.player} fires {a.weapon} ({', '.join(n(k) for k in a.payload)}) at "
                f"({a.target[0]:.2f}, {a.target[1]:.2f})")
    if t == "throw":
        return f"{a.player}: {', '.join(n(k) for k in a.throwers)} throw {n(a.payload)}"
    if t == "reload":
        return f"{a.player} Reloads {a.weapon} with {n(a.ammo)}"
    if t == "big_drop":
        return (f"{a.player} calls in The Big Drop at ({a.target[0]:.2f}, {a.target[1]:.2f}), "
                f"{a.strategy_bricks} Strategy brick{'' if a.strategy_bricks == 1 else 's'}")
    if t is not None:
        return f"{a.player}: {t.replace('_', ' ')}"
    return repr(a)


# ------------------------------------------------------------------------------ the system
class Skirmish(System):
    """Move, Sprint and Attack (see the module notes); the per-turn Move and Action record."""

    name = "skirmish"
    actions = (MoveAction, AttackAction, EndTurnAction)

    def __init__(self, game: "TableAPI"):
        super().__init__(game)
        self.turn_state = TurnState()

    # ------------------------------------------------------------------ hooks
    def end_of_player_turn(self, turn: int, player: str) -> None:
        """Disrupted units of the player recover (core rules reading); Move and Actions reset."""
        g = self.game
        for key, st in g.bodies.items():
            if st.owner == player and st.damage.disrupted and not st.damage.destroyed:
                st.damage.disrupted = False
                g.log("recovered", f"{st.name} recovers from Disruption", body=key)
        self.turn_state = TurnState()

    def state(self) -> dict:
        return self.turn_state.to_dict()

    # ------------------------------------------------------------------ read-outs
    def weapons(self, key: str) -> list[WeaponProfile]:
        """Weapons a body carries, in scene order."""
        return [weapon_of(w) for w in self.game.body(key).stats.weapons]

    def move_allowance(self, key: str) -> float:
        """Inches the unit may still move this turn (Move + Sprint bonus - moved), >= 0."""
        st = self.game.body(key)
        ts = self.turn_state
        return max(0.0, st.stats.move + ts.sprint_in.get(key, 0.0) - ts.moved_in.get(key, 0.0))

    def move_refusal(self, key: str, player: str | None = None) -> str:
        """Why ``player`` (default: the current one) may not move or act with ``key`` now
        ("" when they may)."""
        g = self.game
        player = g.current_player if player is None else player
        st = g.body(key)
        if st.damage.destroyed or key not in g.world.bodies:
            return f"{st.name} is destroyed"
        if g.world.bodies[key].static:
            return f"{st.name} is fixed to the table"
        if st.owner != player:
            return (f"{st.name} belongs to {st.owner or 'nobody'}; it is "
                    f"{possessive(player)} turn")
        if st.damage.disrupted:
            return f"{st.name} is Disrupted and cannot move or act this turn"
        return ""

    def own_unit(self, key: str, player: str | None = None) -> "BodyState":
        """The body of one of the player's units that may act now.

        Raises
        ------
        RulesError
            With :meth:`move_refusal`'s reason.
        """
        reason = self.move_refusal(key, player)
        if reason:
            raise RulesError(reason)
        return self.game.body(key)

    def stat_card(self, key: str) -> list[str]:
        """The stat card of a body, line by line (BrikWars stats, weapons, status)."""
        g = self.game
        st = g.body(key)
        s = st.stats
        lines = [f"{st.name}  ({st.kind}, {st.owner or 'no owner'})",
                 f'Size {s.size:g}"   Move {s.move:g}"   Armor {s.armor}',
                 f"Weight class {s.weight_class}   Action d{s.action_die}"]
        if st.kind == "unit" and st.owner == g.current_player:
            lines.append(f'Move left this turn {self.move_allowance(key):.2f}"'
                         + ("   (acted)" if key in self.turn_state.acted else ""))
        for i, w in enumerate(self.weapons(key)):
            rng = "CC" if w.range_in == 0 else (f'{w.range_in:g}"' if w.range_in is not None else "-")
            lines.append(f"[{i + 1}] {w.name}: Use {w.use}, Range {rng}, Damage {w.damage}")
        if not s.weapons:
            lines.append("no weapons")
        lines.append("Status: " + ", ".join(g.status_words(key)))
        return lines

    def attack_preview(self, unit: str, weapon: int, target: str) -> AttackPreview:
        """Range, Use, modifiers and line of sight of an attack, before any die is rolled.

        Raises
        ------
        RulesError
            For an unknown unit, weapon number or target.
        """
        g = self.game
        st = g.body(unit)
        tgt = g.body(target)
        ws = self.weapons(unit)
        if not 0 <= weapon < len(ws):
            raise RulesError(f"{st.name} has no weapon {weapon} (weapons are numbered from 0; "
                             f"it has {len(ws)})")
        w = ws[weapon]
        if unit == target:
            sight = SightLine((0, 0, 0), (0, 0, 0), False, unit)
            return AttackPreview(w, 0.0, w.range_in, w.use, (), 0, sight, False,
                                 "a unit cannot attack itself", False)
        dist = g.measure(unit, target).inches
        sight = g.line_of_sight(unit, target)
        arc = 0
        mods: list[Modifier] = []
        if w.weapon_type.is_arc_weapon:
            arc = w.firing_arc_fixed or max(1, w.firing_arc_min)
            mods = arc_modifiers(w, arc, ArcTarget(tgt.name, tgt.stats.size, dist))
        else:
            if not w.close_combat and w.range_in is not None:
                mods.append(out_of_range_modifier(dist, w.range_in))
            mods.append(target_modifier(tgt.stats.size))
            if not w.close_combat:  # a Scout's Mark: +1 to allies' Ranged attacks (F.3)
                mods.append(g.hazards.mark_bonus(unit, target))
            mods = [m for m in mods if m is not None]
        reason = self._attack_refusal(unit, w, target, dist, sight)
        return AttackPreview(w, dist, w.range_in, w.use, tuple(mods), arc, sight, not reason,
                             reason, w.weapon_type is WeaponType.ROCKET)

    def _attack_refusal(self, unit, w: WeaponProfile, target, dist, sight) -> str:
        g = self.game
        st = g.body(unit)
        tgt = g.body(target)
        if st.owner != g.current_player:
            return f"{st.name} belongs to {st.owner}; it is {possessive(g.current_player)} turn"
        if st.damage.destroyed:
            return f"{st.name} is destroyed"
        if st.damage.disrupted:
            return f"{st.name} is Disrupted this turn"
        if unit in self.turn_state.acted:
            return f"{st.name} has already used its Action this turn"
        if tgt.damage.destroyed or target not in g.world.bodies:
            return f"{tgt.name} is already destroyed"
        if w.use is None or (w.damage is None and w.weapon_type is not WeaponType.ROCKET):
            return (f"{w.name} fires Ammo or a Payload ({w.weapon_type.value}); "
                    "use The Big Drop, or L for a scene Launcher")
        if w.weapon_type is WeaponType.MELEE_SHIELD:
            return f"{w.name} only Parries or Shoves"
        if w.close_combat and dist > 0.5:
            return f'{w.name} is a Close Combat weapon and {tgt.name} is {dist:.2f}" away (touch it first)'
        if not sight.clear:
            return f"no line of sight: blocked by {sight.blocked_by}"
        return ""

    # ------------------------------------------------------------------ actions
    def refusal(self, action) -> str:
        g = self.game
        if isinstance(action, MoveAction):
            if action.unit not in g.bodies:
                return f"no body called {action.unit!r} on the table"
            reason = self.move_refusal(action.unit, action.player)
            if reason:
                return reason
            if action.sprint and action.unit not in self.turn_state.sprint_in \
                    and action.unit in self.turn_state.acted:
                return f"{g.bodies[action.unit].name} has already used its Action: no Sprint this turn"
            w, d = g.spec.battlefield.width, g.spec.battlefield.depth
            to = action.to
            if abs(to[0]) > w / 2 or abs(to[1]) > d / 2:
                return f"({to[0]:.2f}, {to[1]:.2f}) is off the {w:g}\" x {d:g}\" battlefield"
            dist = float(np.linalg.norm(np.asarray(to, float) - g.footprint_centre(action.unit)))
            left = self.move_allowance(action.unit)
            st = g.bodies[action.unit]
            if action.sprint and action.unit not in self.turn_state.sprint_in:
                if dist <= left + 1e-9:
                    return f'{st.name} can move {dist:.2f}" without Sprinting ({left:.2f}" left)'
                return ""
            if dist > left + 1e-9:
                return (f'{st.name} may move {left:.2f}" more this turn (Move '
                        f'{st.stats.move:g}"), not {dist:.2f}"')
            return ""
        if isinstance(action, AttackAction):
            for k in (action.unit, action.target):
                if k not in g.bodies:
                    return f"no body called {k!r} on the table"
            reason = self.move_refusal(action.unit, action.player)
            if reason:
                return reason
            try:
                pv = self.attack_preview(action.unit, action.weapon, action.target)
            except RulesError as exc:
                return str(exc)
            return pv.reason
        return ""

    def apply(self, action, index: int) -> None:
        if isinstance(action, MoveAction):
            self._move(action)
        elif isinstance(action, AttackAction):
            self.attack(action)

    def _move(self, a: MoveAction) -> None:
        g = self.game
        st = self.own_unit(a.unit, a.player)
        frm = g.footprint_centre(a.unit)
        dist = float(np.linalg.norm(np.asarray(a.to, float) - frm))
        sprint_roll = None
        if a.sprint and a.unit not in self.turn_state.sprint_in:
            sprint_roll = g.dice.stream("sprint").roll(st.stats.action_die, f"Sprint of {st.name}")
            self.turn_state.sprint_in[a.unit] = float(sprint_roll.result)
            self.turn_state.acted.add(a.unit)
        left = self.move_allowance(a.unit)
        if dist > left + 1e-9:
            # the Sprint die is spent either way: log it, keep the Action spent
            g.log("sprint", f"{st.name} Sprints: +{sprint_roll.result}\", still short of "
                  f'{dist:.2f}" ({left:.2f}" in all)', body=a.unit, bonus=sprint_roll.result)
            raise SprintShort(f'{st.name} Sprinted (+{sprint_roll.result}") but {dist:.2f}" '
                              f'is more than the {left:.2f}" it may move')
        if sprint_roll is not None:
            g.log("sprint", f"{st.name} Sprints: +{sprint_roll.result}\" of Move this turn",
                  body=a.unit, bonus=sprint_roll.result)
        self.turn_state.moved_in[a.unit] = self.turn_state.moved_in.get(a.unit, 0.0) + dist
        try:
            g.move_unit(a.unit, a.to, player=a.player,
                        note=f'; {self.move_allowance(a.unit):.2f}" left this turn')
        except RulesError:
            self.turn_state.moved_in[a.unit] -= dist
            raise

    def attack(self, a: AttackAction) -> None:
        """Resolve one attack (see the module notes), then let physics settle."""
        g = self.game
        st = self.own_unit(a.unit, a.player)
        pv = self.attack_preview(a.unit, a.weapon, a.target)
        if not pv.allowed:
            raise RulesError(pv.reason)
        tgt = g.body(a.target)
        w = pv.weapon
        self.turn_state.acted.add(a.unit)
        g.log("attack", f"{st.name} attacks {tgt.name} with {w.name}: Use {w.use}, "
              f'{pv.distance_in:.2f}" away' + "".join(f"; {m.source}" for m in pv.modifiers),
              body=a.unit, target=a.target, weapon=w.name, use=w.use,
              distance=round(pv.distance_in, 4), player=a.player,
              modifiers=[{"source": m.source, "action": m.action, "damage": m.damage}
                         for m in pv.modifiers])
        if pv.explosive:  # a Rocket is a Payload in flight (8.4): rolled on arrival
            g.system("flight").fire_rocket_weapon(a.unit, w, a.target, a.player,
                                                  st.stats.action_die)
            return
        stream = g.dice.stream("attack")
        on_fire = [m for m in [g.defences.action_modifier(a.unit)] if m is not None]  # F.1
        marked = g.hazards.mark_bonus(a.unit, a.target) if not w.close_combat else None
        if marked is not None and not pv.arc_points:
            on_fire.append(marked)  # the Scout's Mark (F.3), shown in the preview too
        if pv.arc_points:
            fire = resolve_arc_fire(stream, w, pv.arc_points,
                                    [ArcTarget(tgt.name, tgt.stats.size, pv.distance_in)],
                                    action_die=st.stats.action_die, modifiers=on_fire,
                                    reason=f"{st.name}'s {w.name}")
            shots = list(fire.shots)
            if fire.inoperative:
                g.log("jammed", f"{w.name} jams and must be Reloaded", body=a.unit)
        else:
            shots = [resolve_attack(stream, w, action_die=st.stats.action_die,
                                    distance_in=pv.distance_in, target=tgt.name,
                                    target_size_in=tgt.stats.size, modifiers=on_fire,
                                    reason=f"{st.name}'s {w.name}")]
        for shot in shots:
            act = shot.action
            g.log("action_roll", f"Action Roll {list(r.result for r in act.rolls)} "
                  f"{'+' if sum(m.action for m in act.modifiers) >= 0 else ''}"
                  f"{sum(m.action for m in act.modifiers)} = {act.total} vs Use {act.use}: "
                  + ("Critical Failure" if act.critical_failure else ("hit" if act.hit else "miss")),
                  body=a.unit, target=a.target, total=act.total, use=act.use, hit=act.hit)
            if not shot.hit or shot.damage is None:
                continue
            g.defences.strike(a.unit, tgt, shot.damage, f"Damage from {st.name}'s {w.name} "
                              f"({shot.damage})", melee=w.weapon_type is WeaponType.MELEE_WEAPON)
            if shot.knockback is not None and shot.knockback.inches > 0 and not tgt.damage.destroyed:
                self._knockback(a.unit, a.target, shot.knockback.inches)
        g.record_frame(force=True)
        g.settle(log_rest=True)

    def _knockback(self, source: str, target: str, inches: float) -> None:
        """Push ``target`` away from ``source`` so that it flies about ``inches`` (8.1)."""
        g = self.game
        if target not in g.world.bodies or g.world.bodies[target].static:
            return
        d = g.footprint_centre(target) - g.footprint_centre(source)
        n = float(np.linalg.norm(d))
        d = d / n if n > 1e-9 else np.array([1.0, 0.0])
        speed = math.sqrt(inches * g.world.gravity)  # 45 degree hop of range v^2/g
        v = speed / math.sqrt(2.0)
        g.world.set_velocity(target, (d[0] * v, d[1] * v, v))
        g.log("knockback", f'{g.bodies[target].name} is knocked back {inches:g}"',
              body=target, inches=inches)
