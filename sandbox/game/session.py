"""A hotseat game session: players in turn order, Move / Attack / Big Drop / End turn, undo,
save and load. The tabletop window drives one of these; so do the tests, with no window.

A game is its scene, its seed and its action log (DESIGN.md, Determinism). Undo replays every
action but the last on a freshly built :class:`~sandbox.game.runner.Game`; loading a save file
replays its log and checks the state checksum stored with it, physics included.

Rules read here (core rules not in the chapters shipped with the project are marked so):

- Move (core rules): a unit moves up to its Move in inches per turn, in as many steps as it
  likes; the distance is how far its base travels (for a translation every point of the base,
  edge or centre, travels the same distance). A move that would exceed what is left is
  refused with the numbers. The body is lifted a hair, set down at the destination and physics
  lets it settle (a unit walked off a wall falls, and the fall is Collision Damage).
- Sprint (core rules reading): instead of its Action, a unit rolls its Action die once (stream
  ``sprint``) and may move that many extra inches this turn; it cannot attack afterwards.
- One Action per unit per turn (an attack is an Action). Disrupted units neither move nor act;
  they recover at the end of their owner's turn (core rules reading).
- Attack (BrikWars 8.5, 5.1): Range from the attacker's base edge to the target's (a stand-in
  for the end of the barrel, 8.2); Out of Range and Target Size modifiers from
  :mod:`sandbox.rules.attacks`; Arc weapons fire a one-target Firing Arc (8.3); a hit's Damage
  is compared with the target's Armor (Cumulative for creations); KnockBack pushes the target
  with physics; Explosive Damage (Rockets) bursts in 2" rings at the target (8.4).
- Line of sight: blocked by any body between the two (a physics ray) or by Smoke
  (BrikWars F: "blocks vision completely for anyone looking into, out of, or through its Field").
  Smoke Fields come from log events of type ``hazard`` with ``hazard = "smoke"``, a ``centre``
  and a ``radius`` (written by the Field Hazards layer).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Callable, Literal, Sequence, Union

import numpy as np
from pydantic import Field, TypeAdapter, ValidationError

from ..core.errors import ReplayError, RulesError, SandboxError, SceneError
from ..physics.rays import RayHit, overlapping_bodies, ray_first_hit
from ..rules.attacks import (
    ArcTarget,
    Modifier,
    arc_modifiers,
    out_of_range_modifier,
    resolve_arc_fire,
    resolve_attack,
    target_modifier,
)
from ..rules.damage import explosion_at, explosion_rings
from ..rules.weapons import WeaponProfile, WeaponType, bastard_gun, weapon_profile
from .measure import SmokeField, edge_point, footprint_gap, segment_in_smoke
from .replay import atomic_write_bytes
from .runner import MAX_ACTION_SECONDS, Game
from .scene import BigDrop, SceneSpec, WeaponSpec, _Strict, scene_from_dict, scene_to_dict
from .scene_flight import LaunchAction, ReloadAction, ThrowAction

#: Save file format name and version.
SAVE_FORMAT = "brikwars-sandbox-save"
SAVE_VERSION = 1
#: A moved unit is set down this far (inches) above where it stood, then physics settles it.
MOVE_LIFT_IN: float = 0.02
#: Checksums round positions to this many decimals of an inch (and quaternions alike).
CHECKSUM_DECIMALS: int = 3
#: Eye height of a unit as a fraction of its height, for line of sight.
EYE_FRACTION: float = 0.8
#: Neutral player's name when a scene has no players.
NEUTRAL_PLAYER = "Player"


# ------------------------------------------------------------------------------ actions
class MoveAction(_Strict):
    """Move a unit so that its footprint centre ends at ``to`` (x, y inches)."""

    type: Literal["move"]
    player: str
    unit: str
    to: tuple[float, float]
    sprint: bool = False


class AttackAction(_Strict):
    """Attack ``target`` with the unit's weapon number ``weapon`` (0-based, as in the scene)."""

    type: Literal["attack"]
    player: str
    unit: str
    weapon: int = Field(0, ge=0)
    target: str


class EndTurnAction(_Strict):
    """End the current player's turn."""

    type: Literal["end_turn"]
    player: str


#: Payload actions (8.4) are the scene's own records, applied by :mod:`sandbox.game.projectiles`.
FLIGHT_ACTIONS = (LaunchAction, ReloadAction, ThrowAction)
PlayAction = Annotated[Union[MoveAction, AttackAction, EndTurnAction, BigDrop, LaunchAction,
                             ReloadAction, ThrowAction],
                       Field(discriminator="type")]
_ACTION_ADAPTER = TypeAdapter(PlayAction)


def parse_action(data: dict, where: str = "action") -> MoveAction | AttackAction | EndTurnAction | BigDrop:
    """Validate one action dict (from a save file or a script).

    Raises
    ------
    SceneError
        Naming the offending field.
    """
    try:
        return _ACTION_ADAPTER.validate_python(data)
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise SceneError(f"{where}: invalid action {data!r}: {loc}: {first['msg']}") from None


def weapon_of(spec: WeaponSpec) -> WeaponProfile:
    """The rules profile of a scene weapon entry (BrikWars 8.1)."""
    if spec.bastard is not None:
        prof = bastard_gun(spec.bastard)
    else:
        prof = weapon_profile(spec.type, spec.size)
    if spec.name:
        from dataclasses import replace

        prof = replace(prof, name=spec.name)
    return prof


# ------------------------------------------------------------------------------ query results
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
    """Per-turn bookkeeping of the current player (reset at End turn)."""

    moved_in: dict[str, float] = field(default_factory=dict)
    sprint_in: dict[str, float] = field(default_factory=dict)
    acted: set[str] = field(default_factory=set)

    def to_dict(self) -> dict:
        return {"moved_in": {k: round(v, 4) for k, v in sorted(self.moved_in.items())},
                "sprint_in": dict(sorted(self.sprint_in.items())), "acted": sorted(self.acted)}


@dataclass(frozen=True)
class LaunchPreview:
    """A Launcher shot before it is fired (BrikWars 8.4): the arc to draw and the numbers.

    Attributes
    ----------
    weapon, name : str
        The ``[[launchers]]`` id and the rules name.
    muzzle, target : (3,) float
        Inches.
    payload : tuple of str
        Bodies in the loading area (fired together).
    distance_in : float
        Horizontal muzzle-to-target distance.
    path : (n, 3) ndarray
        Sampled arc (:func:`sandbox.physics.projectiles.sample_path`).
    beyond_turn : bool
        Farther than one turn's 12": a red-brick X marks the target, the roll waits.
    """

    weapon: str
    name: str
    muzzle: tuple[float, float, float]
    target: tuple[float, float, float]
    payload: tuple[str, ...]
    distance_in: float
    range_in: float | None
    use: int | None
    path: np.ndarray
    beyond_turn: bool
    allowed: bool
    reason: str
    target_body: str | None = None

    def lines(self) -> list[str]:
        """The preview in words."""
        out = [f"{self.name} {self.weapon!r}: Use {self.use}, Range {self.range_in:g}\"",
               f'Distance {self.distance_in:.2f}" (muzzle to target)',
               "Payload: " + (", ".join(self.payload) or "none")]
        if self.beyond_turn:
            out.append('More than 12": it flies 12" a turn; the Action Roll waits for arrival')
        if not self.allowed:
            out.append(f"Cannot fire: {self.reason}")
        return out


# ------------------------------------------------------------------------------ the session
class GameSession:
    """One hotseat game: a :class:`Game` plus turn order, an action log, undo and saves.

    Parameters
    ----------
    spec : SceneSpec
    base_dir : Path
        Folder the scene's model paths are relative to.
    ldrawdir : str or Path, optional
    seed : int, optional
        Overrides the scene's seed.
    on_event : callable, optional
        Called with each new event dict.
    actions : sequence of actions, optional
        Played at once (a loaded game).

    Notes
    -----
    The scene's scripted ``actions`` are not played: at the table, players act.
    """

    def __init__(self, spec: SceneSpec, base_dir: str | Path, ldrawdir: str | Path | None = None,
                 seed: int | None = None, on_event: Callable[[dict], None] | None = None,
                 actions: Sequence = ()):
        self.spec = spec
        self.base_dir = Path(base_dir)
        self.ldrawdir = ldrawdir
        self.seed = spec.seed if seed is None else int(seed)
        self._on_event = on_event
        self._models: dict = {}
        #: Increases each time the game is rebuilt (undo, load): views must rebuild their nodes.
        self.generation = 0
        self.players = [p.name for p in spec.players] or [NEUTRAL_PLAYER]
        self._touched = False
        self._build()
        self._replay(actions)

    # -------------------------------------------------------------- building
    def _build(self) -> None:
        self.game = Game(self.spec, self.base_dir, self.ldrawdir, seed=self.seed,
                         on_event=self._on_event)
        self.game._models = self._models  # parsed LDraw models are shared between rebuilds
        self.game.setup()
        self.actions: list = []
        self.player_index = 0
        self.turn_state = TurnState()
        self.game.turn = 1
        self.game.log("turn", f"Turn 1: {possessive(self.current_player)} turn", player=self.current_player)
        self.generation += 1

    def close(self) -> None:
        """Free the physics world."""
        self.game.close()

    # -------------------------------------------------------------- state read-outs
    @property
    def current_player(self) -> str:
        return self.players[self.player_index]

    @property
    def turn(self) -> int:
        return self.game.turn

    @property
    def events(self) -> list[dict]:
        return self.game.events

    @property
    def world(self):
        return self.game.world

    def body(self, key: str):
        """The :class:`BodyState` of ``key``.

        Raises
        ------
        RulesError
            For an unknown key.
        """
        st = self.game.bodies.get(key)
        if st is None:
            raise RulesError(f"no body called {key!r} on the table (have {sorted(self.game.bodies)})")
        return st

    def weapons(self, key: str) -> list[WeaponProfile]:
        """Weapons a body carries, in scene order."""
        return [weapon_of(w) for w in self.body(key).stats.weapons]

    def bounds(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """World bounds (min, max) of a body on the table, inches."""
        if key not in self.world.bodies:
            raise RulesError(f"{key!r} is no longer on the table")
        return self.world.aabb(key)

    def footprint_centre(self, key: str) -> np.ndarray:
        """(2,) centre of a body's footprint, inches."""
        lo, hi = self.bounds(key)
        return (lo[:2] + hi[:2]) / 2.0

    def move_allowance(self, key: str) -> float:
        """Inches the unit may still move this turn (Move + Sprint bonus - moved), >= 0."""
        st = self.body(key)
        ts = self.turn_state
        return max(0.0, st.stats.move + ts.sprint_in.get(key, 0.0) - ts.moved_in.get(key, 0.0))

    def smoke_fields(self) -> list[SmokeField]:
        """Smoke Fields now on the table (from ``hazard`` events, latest state per id)."""
        fields: dict[str, SmokeField | None] = {}
        for ev in self.events:
            if ev.get("type") != "hazard" or ev.get("hazard") != "smoke":
                continue
            fid = str(ev.get("id", len(fields)))
            if ev.get("radius", 0) and ev.get("centre") is not None:
                c = ev["centre"]
                fields[fid] = SmokeField((float(c[0]), float(c[1])), float(ev["radius"]),
                                         float(ev.get("height", 5.0)))
            else:
                fields[fid] = None  # dispersed
        return [f for f in fields.values() if f is not None]

    def status_words(self, key: str) -> list[str]:
        """Status of a body in words: Destroyed, Disrupted, on Fire, Damage taken."""
        st = self.body(key)
        d = st.damage
        out = []
        if d.destroyed:
            out.append("Destroyed")
        if d.disrupted:
            out.append("Disrupted")
        if getattr(d, "on_fire", False) or getattr(st, "on_fire", False):
            out.append("on Fire")
        if d.cumulative_damage:
            out.append(f"Cumulative Damage {d.cumulative_damage}")
        if d.armor_roll is not None and st.cumulative:
            out.append(f"Armor rolled {d.armor_roll}")
        return out or ["ready"]

    def stat_card(self, key: str) -> list[str]:
        """The stat card of a body, line by line (BrikWars stats, weapons, status)."""
        st = self.body(key)
        s = st.stats
        lines = [f"{st.name}  ({st.kind}, {st.owner or 'no owner'})",
                 f'Size {s.size:g}"   Move {s.move:g}"   Armor {s.armor}',
                 f"Weight class {s.weight_class}   Action d{s.action_die}"]
        if st.kind == "unit" and st.owner == self.current_player:
            lines.append(f'Move left this turn {self.move_allowance(key):.2f}"'
                         + ("   (acted)" if key in self.turn_state.acted else ""))
        for i, w in enumerate(self.weapons(key)):
            rng = "CC" if w.range_in == 0 else (f'{w.range_in:g}"' if w.range_in is not None else "-")
            lines.append(f"[{i + 1}] {w.name}: Use {w.use}, Range {rng}, Damage {w.damage}")
        if not s.weapons:
            lines.append("no weapons")
        lines.append("Status: " + ", ".join(self.status_words(key)))
        return lines

    # -------------------------------------------------------------- measuring
    def _as_bounds(self, thing) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(thing, str):
            return self.bounds(thing)
        p = np.asarray(thing, float).reshape(-1)
        if p.shape[0] == 2:
            p = np.array([p[0], p[1], 0.0])
        if p.shape != (3,) or not np.all(np.isfinite(p)):
            raise RulesError(f"a point must be (x, y) or (x, y, z) inches, got {thing!r}")
        return p, p

    def measure(self, a, b) -> Measurement:
        """Ruler between two bodies (keys) or points, edge to edge, inches (BrikWars measuring)."""
        alo, ahi = self._as_bounds(a)
        blo, bhi = self._as_bounds(b)
        ca = (alo + ahi) / 2
        cb = (blo + bhi) / 2
        pa = edge_point(alo, ahi, cb) if isinstance(a, str) else alo
        pb = edge_point(blo, bhi, ca) if isinstance(b, str) else blo
        return Measurement(tuple(float(v) for v in pa), tuple(float(v) for v in pb),
                           footprint_gap(alo, ahi, blo, bhi))

    def _eye(self, key: str) -> np.ndarray:
        lo, hi = self.bounds(key)
        c = (lo + hi) / 2
        return np.array([c[0], c[1], lo[2] + EYE_FRACTION * (hi[2] - lo[2])])

    def line_of_sight(self, a, b) -> SightLine:
        """Line of sight between bodies (keys: eye height to centre) or points (inches).

        Blocked by any other body on the straight line (a physics ray) or by Smoke.
        """
        start = self._eye(a) if isinstance(a, str) else self._as_bounds(a)[0]
        if isinstance(b, str):
            lo, hi = self.bounds(b)
            end = (lo + hi) / 2
        else:
            end = self._as_bounds(b)[0]
        ignore = [k for k in (a, b) if isinstance(k, str)]
        hit = ray_first_hit(self.world, start, end, ignore=ignore)
        s, e = tuple(float(v) for v in start), tuple(float(v) for v in end)
        if hit is not None:
            return SightLine(s, e, False, hit.key, hit.point)
        for smoke in self.smoke_fields():
            if segment_in_smoke(start, end, smoke):
                return SightLine(s, e, False, "smoke", None)
        return SightLine(s, e, True)

    def pick(self, start: Sequence[float], end: Sequence[float]) -> RayHit | None:
        """The first thing on a ray (a mouse ray from the camera), ground included."""
        return ray_first_hit(self.world, start, end)

    # -------------------------------------------------------------- attack preview
    def attack_preview(self, unit: str, weapon: int, target: str) -> AttackPreview:
        """Range, Use, modifiers and line of sight of an attack, before any die is rolled.

        Raises
        ------
        RulesError
            For an unknown unit, weapon number or target.
        """
        st = self.body(unit)
        self.body(target)
        ws = self.weapons(unit)
        if not 0 <= weapon < len(ws):
            raise RulesError(f"{st.name} has no weapon number {weapon + 1} (has {len(ws)})")
        w = ws[weapon]
        tgt = self.body(target)
        dist = self.measure(unit, target).inches
        sight = self.line_of_sight(unit, target)
        arc = 0
        mods: list[Modifier] = []
        if w.weapon_type.is_arc_weapon:
            arc = w.firing_arc_fixed or max(1, w.firing_arc_min)
            mods = arc_modifiers(w, arc, ArcTarget(tgt.name, tgt.stats.size, dist))
        else:
            if not w.close_combat and w.range_in is not None:
                mods.append(out_of_range_modifier(dist, w.range_in))
            mods.append(target_modifier(tgt.stats.size))
            mods = [m for m in mods if m is not None]
        reason = self._attack_refusal(unit, w, target, dist, sight)
        return AttackPreview(w, dist, w.range_in, w.use, tuple(mods), arc, sight, not reason,
                             reason, w.weapon_type is WeaponType.ROCKET)

    def _attack_refusal(self, unit, w: WeaponProfile, target, dist, sight) -> str:
        st = self.body(unit)
        tgt = self.body(target)
        if unit == target:
            return "a unit cannot attack itself"
        if st.owner != self.current_player:
            return f"{st.name} belongs to {st.owner}; it is {possessive(self.current_player)} turn"
        if st.damage.destroyed:
            return f"{st.name} is destroyed"
        if st.damage.disrupted:
            return f"{st.name} is Disrupted this turn"
        if unit in self.turn_state.acted:
            return f"{st.name} has already used its Action this turn"
        if tgt.damage.destroyed or target not in self.world.bodies:
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

    # -------------------------------------------------------------- applying actions
    def apply(self, action) -> list[dict]:
        """Validate and apply one action; return the events it logged.

        On a refused action nothing changes (a failure after physics began rebuilds the game
        from the log, so the table is as it was).

        Raises
        ------
        RulesError
            The action is not allowed now, with the numbers.
        SceneError
            A malformed action dict.
        """
        if isinstance(action, dict):
            action = parse_action(action)
        n = len(self.events)
        n_rolls = len(self.game.dice.records())
        self._touched = False
        try:
            self._apply(action, len(self.actions))
        except _SprintShort:
            self.actions.append(action)  # the Sprint die was rolled: it stays in the log
            raise
        except Exception:
            # A refused action is never written to the log. When it got as far as changing
            # anything (a die, an event, a teleported body, pybullet's contact caches), the
            # game is rebuilt from the log so the live state is what a replay of the log makes.
            if (self._touched or len(self.events) != n
                    or len(self.game.dice.records()) != n_rolls):
                self._rebuild(list(self.actions))
            raise
        self.actions.append(action)
        return self.events[n:]

    def _apply(self, action, index: int) -> None:
        if action.player != self.current_player:
            raise RulesError(f"it is {possessive(self.current_player)} turn, not "
                             f"{possessive(action.player)}")
        if isinstance(action, MoveAction):
            self._move(action)
        elif isinstance(action, AttackAction):
            self._attack(action)
        elif isinstance(action, EndTurnAction):
            self._end_turn()
        elif isinstance(action, BigDrop):
            self._big_drop(action, index)
        elif isinstance(action, FLIGHT_ACTIONS):
            self._flight_action(action, index)
        else:
            raise RulesError(f"unknown action {action!r}")

    def move_refusal(self, key: str) -> str:
        """Why the current player may not move or act with ``key`` now ("" when they may)."""
        st = self.body(key)
        if st.damage.destroyed or key not in self.world.bodies:
            return f"{st.name} is destroyed"
        if self.world.bodies[key].static:
            return f"{st.name} is fixed to the table"
        if st.owner != self.current_player:
            return (f"{st.name} belongs to {st.owner or 'nobody'}; it is "
                    f"{possessive(self.current_player)} turn")
        if st.damage.disrupted:
            return f"{st.name} is Disrupted and cannot move or act this turn"
        return ""

    def _own_unit(self, key: str):
        reason = self.move_refusal(key)
        if reason:
            raise RulesError(reason)
        return self.body(key)

    def _move(self, a: MoveAction) -> None:
        g = self.game
        st = self._own_unit(a.unit)
        if a.sprint and a.unit not in self.turn_state.sprint_in:
            if a.unit in self.turn_state.acted:
                raise RulesError(f"{st.name} has already used its Action: no Sprint this turn")
        frm = self.footprint_centre(a.unit)
        to = np.asarray(a.to, float)
        dist = float(np.linalg.norm(to - frm))
        w, d = self.spec.battlefield.width, self.spec.battlefield.depth
        if abs(to[0]) > w / 2 or abs(to[1]) > d / 2:
            raise RulesError(f"({to[0]:.2f}, {to[1]:.2f}) is off the {w:g}\" x {d:g}\" battlefield")
        sprint_roll = None
        if a.sprint and a.unit not in self.turn_state.sprint_in:
            left_without = self.move_allowance(a.unit)
            if dist <= left_without + 1e-9:
                raise RulesError(f'{st.name} can move {dist:.2f}" without Sprinting '
                                 f'({left_without:.2f}" left)')
            sprint_roll = g.dice.stream("sprint").roll(st.stats.action_die, f"Sprint of {st.name}")
            self.turn_state.sprint_in[a.unit] = float(sprint_roll.result)
            self.turn_state.acted.add(a.unit)
        left = self.move_allowance(a.unit)
        if dist > left + 1e-9:
            if sprint_roll is not None:
                # the Sprint die is spent either way: log it, keep the Action spent
                g.log("sprint", f"{st.name} Sprints: +{sprint_roll.result}\", still short of "
                      f'{dist:.2f}" ({left:.2f}" in all)', body=a.unit, bonus=sprint_roll.result)
                raise _SprintShort(f'{st.name} Sprinted (+{sprint_roll.result}") but {dist:.2f}" '
                                   f'is more than the {left:.2f}" it may move')
            raise RulesError(f'{st.name} may move {left:.2f}" more this turn (Move '
                             f'{st.stats.move:g}"), not {dist:.2f}"')
        pos, quat = self.world.pose(a.unit)
        lo, _ = self.bounds(a.unit)
        self._touched = True  # a refusal from here on must rebuild (see apply)
        delta = np.array([to[0] - frm[0], to[1] - frm[1], MOVE_LIFT_IN])
        self.world.set_pose(a.unit, pos + delta, quat)
        self.world.set_velocity(a.unit, (0, 0, 0))
        blocking = overlapping_bodies(self.world, a.unit)
        if blocking:
            self.world.set_pose(a.unit, pos, quat)
            names = ", ".join(self.game.bodies[k].name if k in self.game.bodies else k for k in blocking)
            raise RulesError(f"{st.name} cannot stand at ({to[0]:.2f}, {to[1]:.2f}): {names} is there")
        self.turn_state.moved_in[a.unit] = self.turn_state.moved_in.get(a.unit, 0.0) + dist
        if sprint_roll is not None:
            g.log("sprint", f"{st.name} Sprints: +{sprint_roll.result}\" of Move this turn",
                  body=a.unit, bonus=sprint_roll.result)
        g.log("move", f'{st.name} moves {dist:.2f}" to ({to[0]:.2f}, {to[1]:.2f}); '
              f'{self.move_allowance(a.unit):.2f}" left this turn', body=a.unit,
              inches=round(dist, 4), to=[round(float(v), 4) for v in to], player=a.player)
        g.traps.on_path(a.unit, frm, to)  # tripwires and pressure plates on the way (F.2)
        g._record_frame(force=True)
        self.world.step_until_rest(max_seconds=MAX_ACTION_SECONDS, min_seconds=0.05,
                                   on_step=g._on_step)
        g.log("rest", f"Everything is at rest at {self.world.time:.2f} s")

    def _attack(self, a: AttackAction) -> None:
        g = self.game
        st = self._own_unit(a.unit)
        pv = self.attack_preview(a.unit, a.weapon, a.target)
        if not pv.allowed:
            raise RulesError(pv.reason)
        tgt = self.body(a.target)
        w = pv.weapon
        self.turn_state.acted.add(a.unit)
        g.log("attack", f"{st.name} attacks {tgt.name} with {w.name}: Use {w.use}, "
              f'{pv.distance_in:.2f}" away' + "".join(f"; {m.source}" for m in pv.modifiers),
              body=a.unit, target=a.target, weapon=w.name, use=w.use,
              distance=round(pv.distance_in, 4), player=a.player,
              modifiers=[{"source": m.source, "action": m.action, "damage": m.damage}
                         for m in pv.modifiers])
        stream = g.dice.stream("attack")
        on_fire = [m for m in [g.defences.action_modifier(a.unit)] if m is not None]  # F.1
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
            if pv.explosive:
                self._explosion_at(a.target, shot.damage, f"{w.name}")
                continue
            g.defences.strike(a.unit, tgt, shot.damage, f"Damage from {st.name}'s {w.name} "
                              f"({shot.damage})", melee=w.weapon_type is WeaponType.MELEE_WEAPON)
            if shot.knockback is not None and shot.knockback.inches > 0 and not tgt.damage.destroyed:
                self._knockback(a.unit, a.target, shot.knockback.inches)
        g._record_frame(force=True)
        self.world.step_until_rest(max_seconds=MAX_ACTION_SECONDS, min_seconds=0.05,
                                   on_step=g._on_step)
        g.log("rest", f"Everything is at rest at {self.world.time:.2f} s")

    def _knockback(self, source: str, target: str, inches: float) -> None:
        """Push ``target`` away from ``source`` so that it flies about ``inches`` (8.1)."""
        if target not in self.world.bodies or self.world.bodies[target].static:
            return
        d = self.footprint_centre(target) - self.footprint_centre(source)
        n = float(np.linalg.norm(d))
        d = d / n if n > 1e-9 else np.array([1.0, 0.0])
        speed = math.sqrt(inches * self.world.gravity)  # 45 degree hop of range v^2/g
        v = speed / math.sqrt(2.0)
        self.world.set_velocity(target, (d[0] * v, d[1] * v, v))
        self.game.log("knockback", f'{self.game.bodies[target].name} is knocked back {inches:g}"',
                      body=target, inches=inches)

    def _explosion_at(self, target: str, roll, what: str) -> None:
        """Explosion Damage in 2" rings around the target's centre (BrikWars 8.4)."""
        g = self.game
        lo, hi = self.bounds(target)
        point = (lo + hi) / 2
        rings = explosion_rings(roll)
        radius = rings[-1].outer_in if rings else 0.0
        g.log("explosion", f"{what} explodes at {np.round(point, 2).tolist()}: "
              + ", ".join(f"{r.damage} Damage within {r.outer_in:g}\"" for r in rings),
              point=[round(float(v), 4) for v in point], rings=[r.damage for r in rings],
              radius=radius)
        for key in list(self.world.bodies):
            st = g.bodies.get(key)
            if st is None or st.damage.destroyed:
                continue
            klo, khi = self.world.aabb(key)
            dist = float(np.linalg.norm(np.maximum(0, np.maximum(klo - point, point - khi))))
            ring = explosion_at(rings, dist) if dist <= radius else None
            if ring is not None and ring.damage > 0:
                g._damage(st, ring.damage, f"Explosion Damage ({dist:.2f}\" from the blast)",
                          dice=[(10, v) for v in ring.dice])

    # -------------------------------------------------------------- Launchers (8.4)
    def launchers(self, player: str | None = None) -> list:
        """The scene's ``[[launchers]]`` a player may fire (default: the current player's): those
        built into one of the player's creations, or into nothing."""
        p = self.current_player if player is None else player
        out = []
        for m in self.spec.launchers:
            st = self.game.bodies.get(m.creation) if m.creation else None
            if m.creation and (st is None or st.damage.destroyed):
                continue
            if st is None or st.owner in (None, p):
                out.append(m)
        return out

    def launch_payload(self, weapon: str) -> list[str]:
        """Bodies lying in a Launcher's loading area now (what it would fire), nearest first."""
        m = next((m for m in self.spec.launchers if m.id == weapon), None)
        if m is None:
            raise RulesError(f"no Launcher called {weapon!r} (have "
                             f"{[m.id for m in self.spec.launchers]})")
        near = []
        for key, st in self.game.bodies.items():
            if key == m.creation or key not in self.world.bodies or st.damage.destroyed:
                continue
            if self.world.bodies[key].static or st.kind == "unit":
                continue
            d = float(np.linalg.norm(self.world.pose(key)[0] - np.asarray(m.loading_area)))
            if d <= m.loading_radius + 1e-9:
                near.append((d, key))
        return [k for _, k in sorted(near)]

    def launch_preview(self, weapon: str, target, arc: str = "high",
                       target_body: str | None = None) -> "LaunchPreview":
        """Where a Launcher shot would go, before anything is rolled: the sampled arc from the
        muzzle to ``target`` (x, y, z inches), the distance, and whether it flies beyond one
        turn's 12" (then a red-brick X marks the target and the roll waits, 8.4)."""
        from ..physics import projectiles as pj
        from ..rules.weapons import weapon_profile
        from .projectiles import TURN_FLIGHT_IN

        m = next((m for m in self.spec.launchers if m.id == weapon), None)
        if m is None:
            raise RulesError(f"no Launcher called {weapon!r}")
        prof = weapon_profile(m.type, m.size)
        payload = self.launch_payload(weapon)
        tgt = np.asarray(target, float).reshape(-1)
        if tgt.shape[0] == 2:
            tgt = np.array([tgt[0], tgt[1], 0.0])
        muzzle = np.asarray(m.muzzle, float)
        g = self.world.gravity
        speed = math.sqrt(g * prof.range_in)
        sols = pj.solve_launch(muzzle, tgt, speed, g)
        sol = next((x for x in sols if x.arc == arc), sols[0]) if sols else \
            pj.minimum_speed_launch(muzzle, tgt, g)
        path = pj.sample_path(muzzle, sol.velocity, sol.flight_time, 32, g)
        dist = float(math.hypot(*(tgt[:2] - muzzle[:2])))
        reason = ""
        if m not in self.launchers():
            reason = f"{m.id} is not {possessive(self.current_player)} to fire"
        elif not payload:
            reason = f"nothing lies in the loading area of {m.id}"
        else:
            state = self.game.flight.weapons.get(m.id)
            if state is not None and state.fired_turn == self.turn:
                reason = f"{m.id} has already fired this turn"
        return LaunchPreview(m.id, prof.name, tuple(float(v) for v in muzzle),
                             tuple(float(v) for v in tgt), tuple(payload), dist, prof.range_in,
                             prof.use, path, dist > TURN_FLIGHT_IN + 1e-9, not reason, reason,
                             target_body)

    def _flight_action(self, a, index: int) -> None:
        """Launch, Reload or Throw through the projectile layer (the scene's action code)."""
        if isinstance(a, (LaunchAction, ReloadAction)):
            m = next((m for m in self.spec.launchers if m.id == a.weapon), None)
            if m is None:
                raise RulesError(f"no Launcher called {a.weapon!r}")
            if m not in self.launchers(a.player):
                raise RulesError(f"{m.id} is not {possessive(a.player)} to fire")
            if isinstance(a, LaunchAction):
                state = self.game.flight.weapons.get(m.id)
                if state is not None and state.fired_turn == self.turn:
                    raise RulesError(f"{m.id} has already fired this turn")
        else:
            for t in a.throwers:
                self._own_unit(t)
                if t in self.turn_state.acted:
                    raise RulesError(f"{self.body(t).name} has already used its Action this turn")
        self._touched = True
        self.game.apply(a, index)
        if isinstance(a, ThrowAction):
            self.turn_state.acted.update(a.throwers)

    def strategy_pile(self, player: str | None = None) -> int:
        """Strategy bricks left in a player's pile (default: the current player's; 13.2)."""
        p = self.current_player if player is None else player
        return int(self.game.bombardment.piles.get(p, 0))

    def _big_drop(self, a: BigDrop, index: int) -> None:
        # refused up front, before anything is built (BrikWars 13.2: the bricks come out of
        # the player's Strategy pile), with the same rule as the headless runner
        have = self.strategy_pile(a.player)
        if a.strategy_bricks > have:
            raise RulesError(f"The Big Drop needs {a.strategy_bricks} Strategy brick"
                             f"{'' if a.strategy_bricks == 1 else 's'} and {a.player} has "
                             f"{have} in the Strategy pile")
        self._touched = True
        self.game._big_drop(a, index)

    def _end_turn(self) -> None:
        g = self.game
        ending = self.current_player
        for key, st in g.bodies.items():
            if st.owner == ending and st.damage.disrupted and not st.damage.destroyed:
                st.damage.disrupted = False
                g.log("recovered", f"{st.name} recovers from Disruption", body=key)
        g.log("end_turn", f"{ending} ends the turn", player=ending)
        self.player_index = (self.player_index + 1) % len(self.players)
        if self.player_index == 0:
            if g.escapade is not None:
                g.escapade.end_of_turn(g.turn)  # Reinforcements arrive (13.2)
            g.turn += 1
        self.turn_state = TurnState()
        g.log("turn", f"Turn {g.turn}: {possessive(self.current_player)} turn", player=self.current_player)
        if self.player_index == 0 and g.flight.pending():
            g.flight.start_of_turn(g.turn)  # Payloads held in the air fly on 12" (8.4)

    # -------------------------------------------------------------- undo, checksums, saves
    def _rebuild(self, actions: Sequence) -> None:
        self.game.close()
        self._build()
        self._replay(actions)

    def _replay(self, actions: Sequence) -> None:
        for i, a in enumerate(actions):
            try:
                self._apply(a, i)
            except _SprintShort:
                pass  # logged on purpose: the Sprint die was spent
            self.actions.append(a)

    def undo(self) -> object:
        """Take back the last action: rebuild the game from the scene, seed and the log less
        its last action (physics included). Returns the action taken back.

        Raises
        ------
        RulesError
            When there is nothing to undo.
        """
        if not self.actions:
            raise RulesError("nothing to undo")
        last = self.actions[-1]
        self._rebuild(self.actions[:-1])
        self.game.log("undo", f"Undid: {self.describe(last)}")
        return last

    def describe(self, action) -> str:
        """An action in words, with the names of the bodies rather than their keys."""
        return describe_action(action, {k: st.name for k, st in self.game.bodies.items()})

    def state_dict(self) -> dict:
        """The state that a checksum covers: turn, player, bookkeeping, damage, poses."""
        nd = CHECKSUM_DECIMALS
        poses = {}
        for k, (p, q) in sorted(self.world.poses().items()):
            if k == "ground":
                continue
            q = np.asarray(q, float)
            if q[3] < 0:
                q = -q
            poses[k] = [[round(float(v), nd) + 0.0 for v in p], [round(float(v), nd) + 0.0 for v in q]]
        return {"turn": self.turn, "player": self.current_player,
                "turn_state": self.turn_state.to_dict(),
                "bodies": {k: s.to_dict() for k, s in sorted(self.game.bodies.items())},
                "poses": poses, "rolls": len(self.game.dice.records())}

    def checksum(self) -> str:
        """SHA-256 of :meth:`state_dict` as canonical JSON."""
        text = json.dumps(self.state_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def save(self, path: str | Path) -> Path:
        """Write the game (scene, seed, action log, checksum) as versioned JSON, atomically.

        A failed save leaves any previous file at ``path`` untouched.
        """
        doc = {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSION,
            "scene_dir": str(self.base_dir.resolve()),
            "seed": self.seed,
            "turn": self.turn,
            "player": self.current_player,
            "checksum": self.checksum(),
            "actions": [a.model_dump(mode="json") for a in self.actions],
            "scene": scene_to_dict(self.spec),
        }
        data = (json.dumps(doc, indent=1, sort_keys=False) + "\n").encode("utf-8")
        return atomic_write_bytes(path, data)

    @classmethod
    def load(cls, path: str | Path, ldrawdir: str | Path | None = None,
             on_event: Callable[[dict], None] | None = None, check: bool = True) -> "GameSession":
        """Load a save file: rebuild the scene, replay the log, compare the checksum.

        Raises
        ------
        ReplayError
            Unreadable, wrong format or version, or the replayed state does not match.
        """
        p = Path(path)
        try:
            doc = json.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ReplayError(f"{p}: no such save file") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ReplayError(f"{p}: not a readable save file: {exc}") from None
        if not isinstance(doc, dict) or doc.get("format") != SAVE_FORMAT:
            raise ReplayError(f"{p}: not a {SAVE_FORMAT} file (format {doc.get('format') if isinstance(doc, dict) else None!r})")
        if doc.get("version") != SAVE_VERSION:
            raise ReplayError(f"{p}: save version {doc.get('version')!r} is not {SAVE_VERSION}")
        try:
            spec = scene_from_dict(doc["scene"], f"{p}:scene")
            actions = [parse_action(a, f"{p}:actions[{i}]") for i, a in enumerate(doc["actions"])]
            seed = int(doc["seed"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ReplayError(f"{p}: malformed save file: {exc}") from None
        base = Path(doc.get("scene_dir", p.parent))
        if not base.is_dir():
            base = p.resolve().parent
        sess = cls(spec, base, ldrawdir, seed=seed, on_event=on_event)
        try:
            sess._rebuild(actions)
        except SandboxError as exc:
            sess.close()
            raise ReplayError(f"{p}: replaying the action log failed: {exc}") from None
        if check and sess.checksum() != doc.get("checksum"):
            got = sess.checksum()
            sess.close()
            raise ReplayError(f"{p}: the replayed game does not match the save (checksum "
                              f"{got[:12]} != {str(doc.get('checksum'))[:12]})")
        return sess


class _SprintShort(RulesError):
    """A Sprint was rolled but fell short: the die stays spent and the action stays logged."""


def possessive(name: str) -> str:
    """``"Lion Knights"`` → ``"Lion Knights'"``, ``"Red"`` → ``"Red's"``.

    >>> possessive("Lion Knights"), possessive("Player")
    ("Lion Knights'", "Player's")
    """
    return f"{name}'" if name.endswith(("s", "S")) else f"{name}'s"


def describe_action(a, names: dict[str, str] | None = None) -> str:
    """An action in words; ``names`` maps body keys to the names players see."""
    n = (lambda k: (names or {}).get(k, k))
    if isinstance(a, MoveAction):
        return f"{a.player} moves {n(a.unit)} to ({a.to[0]:.2f}, {a.to[1]:.2f})" + (" sprinting" if a.sprint else "")
    if isinstance(a, AttackAction):
        return f"{a.player}: {n(a.unit)} attacks {n(a.target)} with weapon {a.weapon + 1}"
    if isinstance(a, EndTurnAction):
        return f"{a.player} ends the turn"
    if isinstance(a, LaunchAction):
        return (f"{a.player} fires {a.weapon} ({', '.join(n(k) for k in a.payload)}) at "
                f"({a.target[0]:.2f}, {a.target[1]:.2f})")
    if isinstance(a, ThrowAction):
        return f"{a.player}: {', '.join(n(k) for k in a.throwers)} throw {n(a.payload)}"
    if isinstance(a, ReloadAction):
        return f"{a.player} Reloads {a.weapon} with {n(a.ammo)}"
    if isinstance(a, BigDrop):
        return (f"{a.player} calls in The Big Drop at ({a.target[0]:.2f}, {a.target[1]:.2f}), "
                f"{a.strategy_bricks} Strategy brick{'' if a.strategy_bricks == 1 else 's'}")
    return repr(a)


def open_game(path: str | Path, ldrawdir=None, seed: int | None = None,
              on_event: Callable[[dict], None] | None = None) -> GameSession:
    """A session from a scene file (.toml) or a save file (anything else, JSON)."""
    from .scene import load_scene

    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".toml":
        spec, base = load_scene(p)
        return GameSession(spec, base, ldrawdir, seed=seed, on_event=on_event)
    expected = "expected a scene (.toml) or a saved game (.save.json)"
    if suffix == ".replay":
        raise SceneError(f"{p} is a replay, not a game to play ({expected}): watch it with "
                         f"`sandbox replay {p}`")
    if suffix in (".ldr", ".mpd", ".dat"):
        raise SceneError(f"{p} is an LDraw model, not a game to play ({expected}); put the "
                         "model in a scene's [[units]] or [[creations]] (model = ...)")
    if suffix != ".json" and p.is_file():
        try:
            with p.open("rb") as fh:
                head = fh.read(64).lstrip()
        except OSError:
            head = b"{"
        if not head.startswith(b"{"):
            raise SceneError(f"{p}: not a scene or a saved game ({expected})")
    return GameSession.load(p, ldrawdir, on_event=on_event)
