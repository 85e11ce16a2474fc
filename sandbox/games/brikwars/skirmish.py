"""Move and Attack at the table and in scripts: the skirmish system of the engine.

Rules read here (core rules not in the chapters shipped with the project are marked so):

- Move (core rules): a unit moves up to its Move in inches per turn, in as many steps as it
  likes; the distance is how far its base travels (for a translation every point of the base,
  edge or centre, travels the same distance). A move that would exceed what is left is
  refused with the numbers. The move itself is the engine's one move
  (:meth:`sandbox.engine.game.Game.move_unit`): Field Hazards, Traps and edges see it.
- Sprint (core rules reading): instead of its Action, a unit rolls its Action die once (stream
  ``sprint``) and may move that many extra inches this turn; it cannot attack afterwards.
- One Action per unit per turn (an attack is an Action). Disrupted units neither move nor act;
  they recover at the end of their owner's turn (core rules reading).
- Attack (BrikWars 8.5, 5.1): Range and the Firing Arc's apex from the end of the weapon's
  barrel when the scene gives one (8.2, :meth:`CloseCombat.barrel_end`), else from the
  attacker's base edge to the target's (its stand-in); Out of Range and Target Size modifiers from
  :mod:`sandbox.rules.attacks`; Arc weapons fire a one-target Firing Arc (8.3); a hit's Damage
  is compared with the target's Armor (Cumulative for creations); KnockBack pushes the target
  with physics; Explosive Damage (Rockets) is the engine's one explosion at the target (8.4).
- Close Combat (8.2, :mod:`sandbox.games.brikwars.close_combat`): a Melee blow that hits meets the
  target's Parry (if it has a Parry order and may Parry) before its Damage lands; a weapon
  knocked away by a failed Parry cannot be used; a unit held by a Grab cannot move.
- Line of sight is the engine's (bodies by a physics ray, Smoke Fields, eye height). A target
  Marked by a Scout of the player or an ally (same scene ``side``) is "considered visible to all
  allies" (F.3): Smoke no longer hides it from their Ranged attacks, which take the Mark's +1;
  a body in the way still stops a straight shot (the Mark is about seeing, not passing).
- Power and manned weapons (8.1, 8.5) are the ``manning`` system's
  (:mod:`.manning`): the attack and its preview take its terms (Power, Turrets,
  the Gunner's die, Gunnery Support / Homing In, Interfere, hand-held categories); a mounted
  weapon spends Power, not the body's one Action.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np
from pydantic import Field

from ...core.errors import RulesError, SceneError
from ...core.transforms import quat_mul
from ...engine.actions import (
    Action,
    AttackAction,
    MoveAction,
    ReloadWeaponAction,
)
from ...engine.events import possessive  # noqa: F401 - the window takes it from here
from ...engine.measure import SightLine
from ...engine.table import ActionSpent, System, handles, refuses
from ...rules.attacks import (
    ArcTarget,
    Modifier,
    arc_modifiers,
    auto_penalty,
    out_of_range_modifier,
    resolve_arc_fire,
    resolve_attack,
    resolve_burst_fire,
    target_modifier,
)
from ...rules.explosives import explosive_dice
from ...rules.weapons import WeaponProfile, WeaponType, bastard_gun, weapon_profile
from . import effects
from .arcs import ArcHit, bodies_in_arc, cover_fraction

#: Shortest move, inches: a ``move`` to (about) where the unit stands is refused ("already
#: there"), never logged.
MIN_MOVE: float = 0.01


class FaceAction(Action):
    """``unit`` turns in place by ``degrees`` (counter-clockwise seen from above; negative:
    clockwise) to face a direction; turning costs no Move (BrikWars 4.1), and what a unit
    faces is where its Firing Arcs point (8.3)."""

    type: Literal["face"]
    cost: ClassVar[str] = "free"
    unit: str
    degrees: float = Field(ge=-180.0, le=180.0, description="turn, degrees (+ to the left)")


if TYPE_CHECKING:  # pragma: no cover
    from ...engine.scene import WeaponSpec
    from ...engine.table import BodyState, Table


# ------------------------------------------------------------------------------ read-outs
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
    mode: str = "single"
    shots: int = 1
    arc_hits: tuple[ArcHit, ...] = ()
    #: The defender's Parry in words (Close Combat, 8.2), shown before the roll.
    parry: tuple[str, ...] = ()
    #: What the distance is measured from: "base edge" or "barrel end" (8.2).
    measured_from: str = "base edge"
    notes: tuple[str, ...] = ()
    action_die: int | None = None

    def lines(self) -> list[str]:
        """The preview in words, one line each."""
        rng = "CC" if self.range_in == 0 else (
            f'{self.range_in:g}"' if self.range_in is not None else "-")
        out = [f"{self.weapon.name}: Use {self.use}, Range {rng}, Damage {self.weapon.damage}",
               f'Distance {self.distance_in:.2f}" ({self.measured_from} to base edge)']
        if self.arc_points:
            out.append(f"Firing Arc {self.arc_points}: " + (", ".join(
                f"{h.key} ({1 + h.spanned} attack{'s' if h.spanned else ''})"
                for h in self.arc_hits) or "no target"))
        if self.mode == "burst":
            out.append(f"Burst of {self.shots} shots")
        if self.action_die is not None:
            out.append(f"Action Roll: d{self.action_die}")
        out.extend(self.notes)  # Power, Gunnery, hand-held category, Interfere (8.1, 8.5)
        for m in self.modifiers:
            parts = []
            if m.action:
                parts.append(f"Action {m.action:+d}")
            if m.damage:
                parts.append(f"Damage {m.damage:+d}" + (" per die" if m.damage_per_die else ""))
            out.append(f"  {m.source}: {', '.join(parts)}")
        if not self.modifiers:
            out.append("  no modifiers")
        out.extend(self.parry)
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


class SprintShort(ActionSpent):
    """A Sprint was rolled but fell short: the die stays spent and the action stays logged."""


def weapon_of(spec: "WeaponSpec") -> WeaponProfile:
    """The rules profile of a scene weapon entry (BrikWars 8.1)."""
    if spec.bastard is not None:
        prof = bastard_gun(spec.bastard)
    elif spec.type is not None and spec.size is not None:
        prof = weapon_profile(spec.type, spec.size)
    else:  # WeaponSpec's own check refuses this when the scene is read
        raise SceneError(f"weapon {spec.name!r}: give either 'type' and 'size' or 'bastard'")
    if getattr(spec, "variants", None) or getattr(spec, "variant", "explosive") != "explosive":
        # a Rocket's Explosive Variants swap its d10s (8.4): the preview shows the mixed dice
        prof = replace(prof, damage=explosive_dice(max(1, int(round(prof.size))), spec.variant,
                                                   spec.variants))
    on_hit = getattr(spec, "on_hit", None)
    if on_hit is not None:  # the scene's on-hit effects (weapon data)
        prof = replace(prof, ignites="ignite" in on_hit, knocks_back="knockback" in on_hit,
                       disrupts="disrupt" in on_hit)
    return replace(prof, name=spec.name) if spec.name else prof


# ------------------------------------------------------------------------------ the system
class Skirmish(System):
    """Move, Sprint and Attack (see the module notes); the per-turn Move and Action record."""

    name = "skirmish"
    actions = (MoveAction, AttackAction, ReloadWeaponAction, FaceAction)

    def __init__(self, game: "Table"):
        super().__init__(game)
        self.turn_state = TurnState()
        #: Weapons that jammed (8.3: Inoperative until Reloaded): "unit#weapon".
        self.inoperative: set[str] = set()
        #: The turn each weapon last fired / was Reloaded ("unit#weapon"): a MachineGun is not
        #: Reloaded and fired on the same turn, "even by multiple minifigs" (8.3).
        self.fired_turn: dict[str, int] = {}
        self.reloaded_turn: dict[str, int] = {}

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
        return {**self.turn_state.to_dict(), "inoperative": sorted(self.inoperative),
                "reloaded": dict(sorted(self.reloaded_turn.items()))}

    # ------------------------------------------------------------------ read-outs
    def weapons(self, key: str) -> list[WeaponProfile]:
        """Weapons a body carries, in scene order."""
        return [weapon_of(w) for w in self.game.body(key).stats.weapons]

    def move_allowance(self, key: str) -> float:
        """Inches the unit may still move this turn (Move + Sprint bonus - moved), >= 0; a
        Creation with Armor Plating moves at Half Speed (8.2: "permanently at Half Speed for
        as long as the Armor Plating is attached")."""
        ts = self.turn_state
        return max(0.0, self.move_of(key) + ts.sprint_in.get(key, 0.0)
                   - ts.moved_in.get(key, 0.0))

    def move_of(self, key: str) -> float:
        """A body's Move this turn, inches: its ``move``, halved by Armor Plating (8.2)."""
        st = self.game.body(key)
        half = getattr(st.stats, "plating", None) is not None
        return float(st.stats.move) / (2.0 if half else 1.0)

    def clamped(self, action: MoveAction, left: float | None = None) -> MoveAction:
        """``action`` shortened to the unit's limit along its line when ``action.clamp`` asks
        for it and the move is longer than ``left`` (default: what the unit may still move);
        otherwise ``action`` itself. The shortened ``to`` is rounded to 1e-4", inside the limit.
        """
        if not action.clamp or action.by == "referee" or action.unit not in self.game.bodies:
            return action  # the referee sets a model anywhere
        left = self.move_allowance(action.unit) if left is None else left
        frm = self.game.footprint_centre(action.unit)
        d = np.asarray(action.to, float) - frm
        dist = float(np.linalg.norm(d))
        if dist <= left + 1e-9 or dist == 0.0:
            return action
        end = frm + d * (max(left - 2e-4, 0.0) / dist)
        return action.model_copy(update={"to": (round(float(end[0]), 4),
                                                round(float(end[1]), 4))})

    def may_act(self, key: str, player: str) -> str:
        """The engine's hook: :meth:`move_refusal` for ``player``."""
        return self.move_refusal(key, player)

    def move_refusal(self, key: str, player: str | None = None) -> str:
        """Why ``player`` (default: the current one) may not move or act with ``key`` now
        ("" when they may; an unknown ``key`` is named as such)."""
        g = self.game
        player = g.current_player if player is None else player
        if key not in g.bodies:
            return f"no body called {key!r} on the table"
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
        try:  # an Escapade's Deployment Rush turn leaves other forces waiting (13.2)
            return g.system("escapade").unit_refusal(key)
        except KeyError:
            return ""

    def crewed_refusal(self, key: str) -> str:
        """Why the weapons of ``key`` cannot be fired from its Controls now, whoever owns it
        ("" when they can; 8.5: enemies who commandeer Controls use them at once)."""
        g = self.game
        st = g.body(key)
        if st.damage.destroyed or key not in g.world.bodies:
            return f"{st.name} is destroyed"
        if st.damage.disrupted:
            return f"{st.name} is Disrupted and cannot act this turn"
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
                 f"Weight class {s.weight_class}"
                 + (f"   Action d{s.action_die}" if st.kind == "unit" else "")]  # objects: none
        if st.kind == "unit" and st.owner == g.current_player:
            lines.append(f'Move left this turn {self.move_allowance(key):.2f}"'
                         + ("   (acted)" if key in self.turn_state.acted else ""))
        for i, w in enumerate(self.weapons(key)):
            rng = "CC" if w.range_in == 0 else (
                f'{w.range_in:g}"' if w.range_in is not None else "-")
            lines.append(f"[{i + 1}] {w.name}: Use {w.use}, Range {rng}, Damage {w.damage}")
        if not s.weapons:
            lines.append("no weapons")
        plating = getattr(s, "plating", None)
        if plating or s.deflection:
            lines.append((f"Armor Plating ({plating}): " if plating else "Deflection: ")
                         + f"{s.deflection} layer{'s' if s.deflection != 1 else ''}"
                         + ("; Half Speed, no Sprint (8.2)" if plating else ""))
        if getattr(s, "joints", None):
            lines.append(f"Joints (Armor one d10 lower, 8.1): {', '.join(s.joints)}")
        lines += g.system("manning").card_lines(key)  # Power used and left, Turrets (8.1)
        dice = g.system("blasts").explosive_dice_of(key)
        if dice:  # an Explosive's Damage dice, Variants included (8.4)
            lines.append(f"Explosive: {dice}")
        lines.append("Status: " + ", ".join(g.status_words(key)))
        return lines

    @staticmethod
    def fire_mode(w: WeaponProfile, mode: str | None, shots: int | None,
                  arc: int | None) -> tuple[str, int, int]:
        """``(mode, shots, arc points)`` of an attack (BrikWars 8.3): a MachineGun fires single
        shots unless a Burst or an Arc is chosen; FlameThrowers and BlastGuns fire in an Arc
        (at least 1 point; a BlastGun exactly 1); other weapons single shots.

        Raises
        ------
        RulesError
            A mode the weapon cannot fire.
        """
        t = w.weapon_type
        if mode is None:
            mode = "arc" if t.is_arc_weapon and t is not WeaponType.MACHINEGUN else "single"
        if mode == "burst":
            if t is not WeaponType.MACHINEGUN:
                raise RulesError(f"only MachineGuns fire Bursts, not {w.name} (8.3)")
            return mode, int(shots or 2), 0
        if mode == "arc":
            if not t.is_arc_weapon:
                raise RulesError(f"{w.name} cannot fire in a Firing Arc (8.3)")
            points = w.firing_arc_fixed or int(arc or max(1, w.firing_arc_min))
            if points < w.firing_arc_min:
                raise RulesError(f"{w.name} fires a Firing Arc of at least {w.firing_arc_min}")
            if w.firing_arc_fixed is not None and arc not in (None, w.firing_arc_fixed):
                raise RulesError(f"{w.name} has a fixed Firing Arc of {w.firing_arc_fixed}")
            return mode, 1, points
        if t.is_arc_weapon and t is not WeaponType.MACHINEGUN:
            raise RulesError(f"{w.name} always fires in a Firing Arc (8.3)")
        return "single", 1, 0

    def attack_preview(self, unit: str, weapon: int, target: str, mode: str | None = None,
                       shots: int | None = None, arc: int | None = None,
                       gunner: str | None = None) -> AttackPreview:
        """Range, Use, modifiers, the Arc's targets and line of sight of an attack, before any
        die is rolled (BrikWars 8.3, 8.5, 5.1).

        Raises
        ------
        RulesError
            For an unknown unit, weapon number or target, or a fire mode the weapon lacks.
        """
        g = self.game
        st = g.body(unit)
        tgt = g.body(target)
        ws = self.weapons(unit)
        if not 0 <= weapon < len(ws):
            raise RulesError(f"{st.name} has no weapon {weapon} (weapons are numbered from 0; "
                             f"it has {len(ws)})")
        w = ws[weapon]
        mode, n_shots, points = self.fire_mode(w, mode, shots, arc)
        if unit == target:
            sight = SightLine((0, 0, 0), (0, 0, 0), False, unit)
            return AttackPreview(w, 0.0, w.range_in, w.use, (), 0, sight, False,
                                 "a unit cannot attack itself", False, mode, n_shots)
        cc = g.system("close_combat")
        barrel = None if w.close_combat else cc.barrel_end(unit, weapon)
        dist = g.measure(unit if barrel is None else barrel, target).inches
        sight = g.line_of_sight(unit, target)
        hits: tuple[ArcHit, ...] = ()
        mods: list[Modifier] = []
        parry: tuple[str, ...] = ()
        if w.close_combat and w.weapon_type is WeaponType.MELEE_WEAPON:
            parry = tuple(cc.parry_lines(unit, target, w))
        if mode == "arc":
            hits = tuple(bodies_in_arc(g, unit, target, points, w.range_in,
                                       origin=None if barrel is None else barrel[:2]))
            mine = next((h for h in hits if h.key == target), None)
            size = mine.size_in if mine is not None else tgt.stats.size
            spanned = mine.spanned if mine is not None else 0
            cover = mine.cover if mine is not None else 0.0
            mods = arc_modifiers(w, points, ArcTarget(tgt.name, size, dist, cover_fraction=cover,
                                                      arcs_spanned=spanned))
        else:
            found: list[Modifier | None] = []
            if mode == "burst":
                found.append(Modifier(f"Auto Penalty (Burst {n_shots})",
                                      auto_penalty(w, burst_shots=n_shots)))
            if not w.close_combat and w.range_in is not None:
                found.append(out_of_range_modifier(dist, w.range_in))
            cover = 0.0 if w.close_combat else self.cover(unit, target, sight)
            found.append(target_modifier(tgt.stats.size, min(cover, 0.999)))
            if not w.close_combat:  # a Scout's Mark: +1 to allies' Ranged attacks (F.3)
                found.append(g.system("hazards").mark_bonus(unit, target))
            mods = [m for m in found if m is not None]
        terms = g.system("manning").attack_terms(unit, weapon, w, target, mode, gunner)
        mods += list(terms.modifiers)  # Gunnery Support / Homing In (8.5)
        reason = cc.weapon_refusal(unit, weapon) or self._attack_refusal(
            unit, w, target, dist, sight, mounted=terms.mounted, crewed=gunner is not None)
        if not reason and f"{unit}#{weapon}" in self.inoperative:
            reason = f"{w.name} is Inoperative: Reload it first (8.3)"
        if not reason and self.reloaded_turn.get(f"{unit}#{weapon}") == g.turn:
            reason = (f"{w.name} was Reloaded this turn: it fires again on the following turn "
                      "(8.3)")
        reason = reason or terms.refusal
        return AttackPreview(w, dist, w.range_in, w.use, tuple(mods), points, sight, not reason,
                             reason, w.weapon_type is WeaponType.ROCKET, mode, n_shots, hits,
                             parry, "base edge" if barrel is None else "barrel end",
                             terms.notes, terms.action_die)

    def _attack_refusal(self, unit, w: WeaponProfile, target, dist, sight,
                        mounted: bool = False, crewed: bool = False) -> str:
        g = self.game
        st = g.body(unit)
        tgt = g.body(target)
        if st.owner != g.current_player and not crewed:
            return f"{st.name} belongs to {st.owner}; it is {possessive(g.current_player)} turn"
        if st.damage.destroyed:
            return f"{st.name} is destroyed"
        if st.damage.disrupted:
            return f"{st.name} is Disrupted this turn"
        if unit in self.turn_state.acted and not mounted:  # mounted: Power limits (8.1)
            return f"{st.name} has already used its Action this turn"
        if tgt.damage.destroyed or target not in g.world.bodies:
            return f"{tgt.name} is already destroyed"
        if w.weapon_type is WeaponType.MELEE_SHIELD:
            return f"{w.name} only Parries or Shoves (8.2)"
        if w.use is None or (w.damage is None and w.weapon_type is not WeaponType.ROCKET):
            return (f"{w.name} fires Ammo or a Payload ({w.weapon_type.value}); "
                    "use a Bombardment (A, or B for The Big Drop), or L for a scene Launcher")
        if (w.hands or 1) >= 2 and g.system("hazards").fire.burning(unit) \
                and g.system("hazards").fire.is_minifig(unit) \
                and not getattr(st.stats, "on_fire_ok", False):
            return (f"{st.name} is on Fire and can use only one Hand (8.3): the {w.name} "
                    "needs two")
        if w.close_combat and dist > 0.5:
            return (f'{w.name} is a Close Combat weapon and {tgt.name} is {dist:.2f}" away '
                    "(touch it first)")
        if not sight.clear and sight.blocked_by != "smoke" and not w.close_combat \
                and self.cover(unit, target, sight) < 1.0:
            return ""  # its centre is hidden but part of it shows: a shot at that part (5.1)
        if not sight.clear:
            # F.3: "the Marked target is considered visible to all allies": a Mark lifts what
            # only hides the target (Smoke); a body in the way still stops a straight shot
            if (sight.blocked_by == "smoke" and not w.close_combat
                    and g.system("hazards").marked_by(g.current_player, target) is not None):
                return ""
            return f"no line of sight: blocked by {sight.blocked_by}"
        return ""

    # ------------------------------------------------------------------ actions
    @refuses(FaceAction)
    def face_refused(self, action: "FaceAction") -> str:
        return self.move_refusal(action.unit, action.player)

    @refuses(MoveAction)
    def move_refused(self, action: MoveAction) -> str:
        g = self.game
        if not (action.sprint and action.unit not in self.turn_state.sprint_in):
            action = self.clamped(action)  # a new Sprint's limit is known after its roll
        reason = self.move_refusal(action.unit, action.player) \
            or g.system("close_combat").held_refusal(action.unit)
        if reason:
            return reason
        if action.sprint and getattr(g.bodies[action.unit].stats, "plating", None):
            return (f"{g.bodies[action.unit].name} wears Armor Plating: no alternate forms "
                    "of Movement (8.2), so no Sprint")
        if action.sprint and action.unit not in self.turn_state.sprint_in \
                and action.unit in self.turn_state.acted:
            return (f"{g.bodies[action.unit].name} has already used its Action: "
                    "no Sprint this turn")
        bf, to = g.spec.battlefield, action.to
        if bf.off(to):
            return (f"({to[0]:.2f}, {to[1]:.2f}) is off the {bf.width:g}\" x {bf.depth:g}\" "
                    "battlefield")
        dist = float(np.linalg.norm(np.asarray(to, float) - g.footprint_centre(action.unit)))
        left = self.move_allowance(action.unit)
        st = g.bodies[action.unit]
        if dist < MIN_MOVE:  # nothing to move: refused, not logged (a log of 0" moves
            # is a save that takes minutes to load, and online a free action without end)
            if action.clamp and left < MIN_MOVE:
                return f'{st.name} may move {left:.2f}" more this turn (Move {st.stats.move:g}")'
            return (f"{st.name} is already at ({to[0]:.2f}, {to[1]:.2f}): a move of "
                    f'{dist:.3f}" changes nothing (a move is at least {MIN_MOVE:g}")')
        if action.sprint and action.unit not in self.turn_state.sprint_in:
            if dist <= left + 1e-9:
                return f'{st.name} can move {dist:.2f}" without Sprinting ({left:.2f}" left)'
            return ""
        if dist > left + 1e-9 and action.by != "referee":  # the Move binds players only
            half = (", Half Speed under Armor Plating, 8.2"
                    if getattr(st.stats, "plating", None) else "")
            return (f'{st.name} may move {left:.2f}" more this turn (Move '
                    f'{st.stats.move:g}"{half}), not {dist:.2f}"')
        return g.system("manning").move_refusal(action.unit)  # Diverting, Compensating

    @refuses(AttackAction)
    def attack_refused(self, action: AttackAction) -> str:
        g = self.game
        for k in (action.unit, action.target):
            if k not in g.bodies:
                return f"no body called {k!r} on the table"
        # a crewed weapon: whoever mans its Controls fires it (8.5: commandeered Controls)
        reason = self.crewed_refusal(action.unit) if action.gunner is not None \
            else self.move_refusal(action.unit, action.player)
        if reason:
            return reason
        try:
            pv = self.attack_preview(action.unit, action.weapon, action.target,
                                     action.mode, action.shots, action.arc, action.gunner)
        except RulesError as exc:
            return str(exc)
        return pv.reason or self.part_refusal(action.target, action.part)

    @refuses(ReloadWeaponAction)
    def reload_refused(self, action: ReloadWeaponAction) -> str:
        g = self.game
        reason = self.move_refusal(action.unit, action.player)
        if reason:
            return reason
        st = g.bodies[action.unit]
        ws = self.weapons(action.unit)
        if not 0 <= action.weapon < len(ws):
            return f"{st.name} has no weapon {action.weapon} (it has {len(ws)})"
        if f"{action.unit}#{action.weapon}" not in self.inoperative:
            return f"{ws[action.weapon].name} is not Inoperative: nothing to Reload"
        if self.fired_turn.get(f"{action.unit}#{action.weapon}") == g.turn:
            return (f"{ws[action.weapon].name} fired this turn: a MachineGun can't be "
                    "Reloaded and fired on the same turn, even by several minifigs (8.3)")
        return self._reloader_refusal(action)

    # the engine asked refusal() just before each of these (so did the Escapade's walk)
    @handles(ReloadWeaponAction)
    def _reload(self, action: ReloadWeaponAction, index: int) -> None:
        g = self.game
        self.inoperative.discard(f"{action.unit}#{action.weapon}")
        self.reloaded_turn[f"{action.unit}#{action.weapon}"] = g.turn
        effects.spend_action(g, action.gunner or action.unit)
        w = self.weapons(action.unit)[action.weapon]
        name = g.bodies[action.unit].name
        text = (f"{g.bodies[action.gunner].name} Reloads the {w.name} of {name}"
                if action.gunner else f"{name} Reloads the {w.name}")
        g.log("reload", text, body=action.unit, weapon=w.name, player=action.player,
              gunner=action.gunner)

    def cover(self, unit: str, target: str, sight: SightLine | None = None) -> float:
        """Fraction of ``target`` behind other bodies as ``unit`` sees it, in thirds (5.1;
        :func:`.arcs.cover_fraction`): 1 when none of it shows."""
        g = self.game
        if sight is not None and not sight.clear and sight.blocked_by == "smoke":
            return 1.0
        c = cover_fraction(g, unit, target)
        if c == 0.0 and sight is not None and not sight.clear:
            return 1.0  # no ray meets it and its centre is hidden
        return c

    def part_refusal(self, target: str, part: str | None) -> str:
        """Why ``part`` of ``target`` cannot be aimed at ("" when it can; 8.2 Armor Plating:
        "Attackers firing at an Armor Plated Creation should specify which part of the
        Creation they're attacking"): an un-Armored section needs Plating over only part of
        the body; a joint needs one in the body's ``joints`` and d10 Armor (8.1)."""
        if part is None:
            return ""
        st = self.game.body(target)
        if part == "unarmored" and getattr(st.stats, "plating", None) == "whole":
            return (f"{st.name}'s Armor Plating covers all of it: there is no un-Armored "
                    "section to aim at (8.2)")
        if part == "joint":
            if not getattr(st.stats, "joints", None):
                return f"{st.name} has no hinge or joint to aim at (its stats list no joints)"
            if not (isinstance(st.stats.armor, str) and st.stats.armor.lower().endswith("d10")):
                return (f"{st.name}'s Armor ({st.stats.armor}) is not in d10s: a joint is "
                        "'Armored at one d10 lower' only on a d10-Armored Creation (8.1)")
        return ""

    def _reloader_refusal(self, action: ReloadWeaponAction) -> str:
        """Who spends the Reload's Action: the unit, or the minifig at a Turret or mounted
        weapon (``gunner``, within reach of it or its Controls; 8.1, 8.3)."""
        g = self.game
        st = g.bodies[action.unit]
        man = g.system("manning")
        if action.gunner is None:
            if action.unit in man.turrets:
                return f"a minifig at {st.name} Reloads its weapon: give the gunner (8.1 Turrets)"
            if action.unit in self.turn_state.acted:
                return f"{st.name} has already used its Action this turn"
            return ""
        reason = man.crew_refusal(action.gunner, action.player, "Reloads")
        if reason:
            return reason
        if man.station(action.gunner, action.unit, action.weapon) is None:
            return (f"{g.bodies[action.gunner].name} cannot reach {st.name} or its Controls "
                    f"to Reload it")
        return ""

    @handles(FaceAction)
    def _face(self, a: "FaceAction", index: int = 0) -> None:
        """Turn a unit in place about its footprint centre (free: turning is not Move, 4.1;
        facing sets where a Firing Arc can point, 8.3)."""
        g = self.game
        st = self.own_unit(a.unit, a.player)
        c = g.footprint_centre(a.unit)
        pos, quat = g.world.pose(a.unit)
        half = math.radians(a.degrees) / 2
        rz = np.array([0.0, 0.0, math.sin(half), math.cos(half)])  # x, y, z, w
        q = quat_mul(rz, np.asarray(quat, float))
        ang = math.radians(a.degrees)
        dx, dy = pos[0] - c[0], pos[1] - c[1]
        new = np.array([c[0] + dx * math.cos(ang) - dy * math.sin(ang),
                        c[1] + dx * math.sin(ang) + dy * math.cos(ang), pos[2] + 0.02])
        g.world.set_pose(a.unit, new, q)
        g.world.set_velocity(a.unit, (0, 0, 0))
        g.log("face", f"{st.name} turns {abs(a.degrees):g}° "
              f"{'left' if a.degrees > 0 else 'right'}", body=a.unit, degrees=a.degrees,
              player=a.player)
        g.record_frame(force=True)
        g.settle()

    @handles(MoveAction)
    def _move(self, a: MoveAction, index: int = 0) -> None:
        g = self.game
        st = self.own_unit(a.unit, a.player)
        frm = g.footprint_centre(a.unit)
        dist = float(np.linalg.norm(np.asarray(a.to, float) - frm))
        sprint_roll = None
        if a.sprint and a.unit not in self.turn_state.sprint_in:
            sprint_roll = g.dice.stream("sprint").roll(st.stats.action_die, f"Sprint of {st.name}")
            self.turn_state.sprint_in[a.unit] = float(sprint_roll.result)
            effects.spend_action(g, a.unit)
        left = self.move_allowance(a.unit)
        a = self.clamped(a, left)
        dist = float(np.linalg.norm(np.asarray(a.to, float) - frm))
        if dist > left + 1e-9 and sprint_roll is None and a.by != "referee":
            raise RulesError(f'{st.name} may move {left:.2f}" more this turn, not {dist:.2f}"')
        if dist > left + 1e-9 and sprint_roll is not None:
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

    @handles(AttackAction)
    def attack(self, a: AttackAction, index: int = 0) -> None:
        """Resolve one attack (see the module notes), then let physics settle."""
        g = self.game
        st = self.own_unit(a.unit, a.player) if a.gunner is None else g.body(a.unit)
        pv = self.attack_preview(a.unit, a.weapon, a.target, a.mode, a.shots, a.arc, a.gunner)
        if not pv.allowed:
            raise RulesError(pv.reason)
        tgt = g.body(a.target)
        w = pv.weapon
        man = g.system("manning")
        terms = man.attack_terms(a.unit, a.weapon, w, a.target, pv.mode, a.gunner)
        die = terms.action_die  # a Gunner's Specialty die on a mounted weapon (8.5)
        if not terms.mounted:  # mounted weapons spend Power, not the body's Action (8.1)
            effects.spend_action(g, a.unit)
        how = {"arc": f"; Firing Arc {pv.arc_points}", "burst": f"; Burst of {pv.shots}"}
        g.log("attack", f"{st.name} attacks {tgt.name} with {w.name}: Use {w.use}, "
              f'{pv.distance_in:.2f}" away' + how.get(pv.mode, "")
              + (f"; {g.bodies[a.gunner].name} at the Controls (d{die})" if a.gunner else "")
              + "".join(f"; {m.source}" for m in pv.modifiers),
              body=a.unit, target=a.target, weapon=w.name, use=w.use,
              distance=round(pv.distance_in, 4), player=a.player, mode=pv.mode,
              gunner=a.gunner, action_die=die,
              modifiers=[{"source": m.source, "action": m.action, "damage": m.damage}
                         for m in pv.modifiers])
        extra = man.begin_attack(a.unit, a.weapon, w, a.target, terms)  # Homing In, Interfere
        if pv.explosive:  # a Rocket is a Payload in flight (8.4): rolled on arrival
            spec = st.stats.weapons[a.weapon]
            g.system("flight").fire_rocket_weapon(a.unit, w, a.target, a.player, die,
                                                  variant=spec.variant,
                                                  variants=tuple(spec.variants))
            man.after_attack(a.unit, a.weapon, w, a.target, pv.mode, terms, [])
            return
        stream = g.dice.stream("attack")
        extra += [m for m in [g.system("defences").action_modifier(a.unit)] if m is not None]  # F.1
        marked = g.system("hazards").mark_bonus(a.unit, a.target) if not w.close_combat else None
        if marked is not None and pv.mode != "arc":
            extra.append(marked)  # the Scout's Mark (F.3), shown in the preview too
        reason = f"{st.name}'s {w.name}"
        cover = 0.0 if w.close_combat or pv.mode == "arc" else \
            min(self.cover(a.unit, a.target, pv.sight), 0.999)  # 5.1 cover (Target Size)
        if pv.mode == "arc":
            targets = [ArcTarget(g.bodies[h.key].name, h.size_in, h.distance_in,
                                 cover_fraction=h.cover, arcs_spanned=h.spanned)
                       for h in pv.arc_hits]
            keys = [h.key for h in pv.arc_hits]
            fire = resolve_arc_fire(stream, w, pv.arc_points, targets,
                                    action_die=die, modifiers=extra,
                                    reason=reason)
        elif pv.mode == "burst":
            fire = resolve_burst_fire(stream, w, pv.shots,
                                      ArcTarget(tgt.name, tgt.stats.size, pv.distance_in,
                                                cover_fraction=cover),
                                      action_die=die, modifiers=extra,
                                      reason=reason)
            keys = [a.target]
        else:
            fire = None
            keys = [a.target]
            shots = [resolve_attack(stream, w, action_die=die,
                                    distance_in=pv.distance_in, target=tgt.name,
                                    target_size_in=tgt.stats.size, cover_fraction=cover,
                                    modifiers=extra, reason=reason)]
        if fire is not None:
            shots = list(fire.shots)
            if fire.inoperative:
                self.inoperative.add(f"{a.unit}#{a.weapon}")
                g.log("jammed", f"{w.name} fires its last round and is Inoperative until "
                      "Reloaded (8.3)", body=a.unit, weapon=w.name)
        man.after_attack(a.unit, a.weapon, w, a.target, pv.mode, terms,
                         [shot.action for shot in shots])
        self.fired_turn[f"{a.unit}#{a.weapon}"] = g.turn
        if any(shot.action.critical_failure for shot in shots):
            g.system("hazards").on_action_roll(a.unit, next(
                shot.action for shot in shots if shot.action.critical_failure))  # F.1 Slippery
        by_name = {g.bodies[k].name: k for k in keys}
        for shot in shots:
            key = by_name.get(shot.target, a.target)
            victim = g.bodies[key]
            act = shot.action
            g.log("action_roll", f"Action Roll {list(r.result for r in act.rolls)} "
                  f"{'+' if sum(m.action for m in act.modifiers) >= 0 else ''}"
                  f"{sum(m.action for m in act.modifiers)} = {act.total} vs Use {act.use}: "
                  + ("Critical Failure" if act.critical_failure else ("hit" if act.hit else "miss"))
                  + f" ({victim.name})",
                  body=a.unit, target=key, total=act.total, use=act.use, hit=act.hit)
            if not shot.hit or shot.damage is None or victim.damage.destroyed:
                continue
            blow = shot.damage
            if w.close_combat and pv.mode == "single":  # the target's Parry (8.2)
                parry = g.system("close_combat").parry(a.unit, key, w, shot.action)
                blow = g.system("close_combat").blow_roll(shot.damage, parry, key)
                if blow is None:
                    continue
            # the one strike: Armor (on Fire: F.1), the weapon's on-hit effects, KnockBack
            effects.strike(g, victim, blow, f"Damage from {st.name}'s {w.name} ({blow})",
                           weapon=w, attacker=a.unit,
                           melee=w.weapon_type is WeaponType.MELEE_WEAPON,
                           knock=shot.knockback, part=a.part if key == a.target else None)
        g.record_frame(force=True)
        g.settle(log_rest=True)

    def knockback(self, source: str, target: str, inches: float) -> None:
        """Push ``target`` away from ``source`` so that it flies about ``inches`` (8.1): the
        table's one KnockBack push without an explosion (attacks, Shoves 8.2)."""
        g = self.game
        if target not in g.world.bodies or g.world.bodies[target].static:
            return
        at = g.footprint_centre(source)
        effects.knockback(g, target, inches, (float(at[0]), float(at[1])))
