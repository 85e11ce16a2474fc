"""Power and manned weapons at the table: the ``manning`` system of the engine (BrikWars 8.1
Power Limits, Gathering Power, Turrets, Hand-Held Weapons, Compensating; 8.5 Firing Weapons,
Controls, Gunnery, Gunnery Support, Homing In).

The Skirmish system's ``attack`` asks :meth:`Manning.attack_terms` before any die (the preview
shows the same terms) and reports the rolls back (:meth:`Manning.after_attack`); the rules
themselves are the pure functions of :mod:`sandbox.rules.power` and
:mod:`sandbox.rules.gunnery`.

Readings (the chapters leave these open):

- A weapon is *mounted* (Power, Gunnery) or *hand-held* (8.1 Hand-Held categories): the scene's
  ``mount``, by default hand-held on units and mounted on creations. Minifig Bastard Guns and
  thrown Explosives keep their own rules (the 8.1 table's Hands; 8.4 Thrown Weapons).
- Rockets (8.1 Explosive Size, 8.4): "When an Explosive or Rocket is dropped, thrown, or fired
  directly by a Creation, the XSize is also the amount of Power it takes": a mounted Rocket
  adds its XSize to the Creation's Power this turn, and so does one a Creation holds in its
  hands. Held in hands (a minifig's or a Creation's) a Rocket is a Ranged hand-held weapon
  whose Weapon Size is its XSize (8.1: XSize counts "as if they were inches of Weapon Size"):
  a minifig (Size 1") fires an XSize 1 Rocket by hand as a Short weapon; XSize 2 would be Long,
  which Ranged weapons are not allowed (a Heavy Compensating holds it as Bastard). Explosives
  thrown by hand are the Thrown Weapons of 8.4 (the arm is a ½" Launcher, Teamwork adds
  strength), not hand-held weapons, and a minifig has no Power limit (8.1 limits Creations).
- Power (8.1): a body firing mounted weapons has ``2 × Size`` inches a turn (``1 ×`` while a
  Flying body is off the ground by more than :data:`AIRBORNE_IN`), or its scene ``power``
  (then shared with Energy Shields and Fields, F.1), less the Size of a Fire on it (F.1). Each
  mounted weapon it fires this turn adds its Power; the sum may not pass the limit. Firing a
  mounted weapon does not spend the body's one Action: a Creation fires any number of weapons
  a turn (each once, 8.5 Controls), all at the turn's first target with its attack type (8.5
  Firing Weapons: "a single target ... of a single attack type").
- Divert All Power (8.1): the turn's whole Action; the saved Power (added up over consecutive
  diverting turns) may help the next turn's one activation, which is then the only one; the
  reserve is gone at the end of that turn, used or not (``check_power``'s reading).
- Turrets (8.1): a minifig within :data:`ACCESS_IN` spends his Action to Set Up; the Turret
  fires from the next turn. Moved more than :data:`TURRET_MOVED_IN` or tilted more than
  :data:`TURRET_TILT_RAD` from its Set Up pose (read from the physics body), it must be Set Up
  again; a knocked-over Turret is stood up by the Set Up. Its weapon is fired by a minifig
  at it (``gunner``) and, manually operated, needs no Power (8.1's Small Turret caption).
- Gunnery (8.5): a Gunner at the Controls rolls his Specialty die (scene ``specialty_die``);
  Gunnery Support is a Gunner's Action within :data:`ACCESS_IN` of a set of Controls, +1 each,
  the firing team at most the Weapon Size in inches; the bonus stays (Homing In) while the
  weapon aims at the same target and neither moves more than :data:`AIM_TOLERANCE_IN`; any
  Critical Failure cancels it.
- Controls (8.5): the weapon's body holds a set; the scene's ``controls`` list more. Interfere
  is an Action at one set; the next attack from another set, by another player, before the
  interferer's next turn, takes the interferer's Action roll as a penalty (stream
  ``interfere``). Allies are players with the same scene ``side``: a weapon one of them fired
  on his last turn is not theirs to fire until he has had a turn without it.
- Compensating (8.1): a Heavy who has not moved this turn holds weapons as 1" larger limits
  (``hand_held_category(..., compensating=True)``); having used it he cannot move on that turn.

Units: inches, radians.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...core.errors import RulesError, SceneError
from ...core.transforms import quat_to_matrix
from ...engine.events import possessive
from ...engine.table import System, handles, refuses
from ...rules.attacks import ActionRoll, Modifier
from ...rules.damage import explosive_power_in
from ...rules.gunnery import ControlsLedger, HomingIn, gunnery_support, interfere
from ...rules.power import PowerReserve, TurretSize, TurretState, check_power, power_limit
from ...rules.weapons import (
    HAND_HELD_USE,
    HandCategory,
    WeaponProfile,
    WeaponType,
    hand_held_category,
)
from . import effects
from .scene_manning import (
    DivertPowerAction,
    GunnerySupportAction,
    InterfereAction,
    SetUpTurretAction,
)

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.table import Table

#: A minifig this close (edge to edge) reaches a weapon, a Turret or a set of Controls, inches.
ACCESS_IN: float = 1.0
#: A Turret moved this far from where it was Set Up must be Set Up again, inches.
TURRET_MOVED_IN: float = 0.25
#: A Turret tilted this far from its Set Up pose is knocked over, radians.
TURRET_TILT_RAD: float = math.radians(30.0)
#: Homing In holds while weapon and target each stay within this of where they were, inches.
AIM_TOLERANCE_IN: float = 0.1
#: A Flying body this high off the table flies (Power = its Size, 8.1), inches.
AIRBORNE_IN: float = 0.5


def tilt_between(q0, q1) -> float:
    """How far a body has tipped going from orientation ``q0`` to ``q1``: the angle between
    the world's up and the direction the body's up of ``q0`` points in ``q1``, radians. A turn
    about the vertical (a Turret swivelling) is no tilt."""
    up = np.array([0.0, 0.0, 1.0])
    now = quat_to_matrix(q1) @ (quat_to_matrix(q0).T @ up)
    return math.acos(max(-1.0, min(1.0, float(now[2] / np.linalg.norm(now)))))


@dataclass(eq=False, frozen=True)
class Aim:
    """Where a weapon aims: the target and where it and the weapon stand (Homing In, 8.5);
    two aims are the same while nothing moved more than :data:`AIM_TOLERANCE_IN`."""

    target: str
    target_xy: tuple[float, float]
    mount_xy: tuple[float, float]

    def __eq__(self, other) -> bool:
        if not isinstance(other, Aim) or other.target != self.target:
            return False
        return (math.dist(self.target_xy, other.target_xy) <= AIM_TOLERANCE_IN
                and math.dist(self.mount_xy, other.mount_xy) <= AIM_TOLERANCE_IN)

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class AttackTerms:
    """What Power and Manning add to one attack, known before any die.

    Attributes
    ----------
    refusal : str
        Why the rules forbid it ("" when they allow it).
    modifiers : tuple of Modifier
        Gunnery Support / Homing In.
    action_die : int
        The die of the Action Roll (a Gunner's Specialty die on a mounted weapon).
    notes : tuple of str
        Lines for the preview (die, Power, hand-held category, Interfere to come).
    mounted : bool
        A mounted weapon: Power and once a turn, not the body's one Action.
    operator : str
        Whose Action the attack spends (the body, or the gunner at the Controls).
    power_in : float
        Power this activation needs, inches (0: none, e.g. a manual Turret weapon).
    compensating : bool
        A Heavy uses Compensating for it (he may not move afterwards this turn).
    """

    refusal: str
    modifiers: tuple[Modifier, ...] = ()
    action_die: int = 6
    notes: tuple[str, ...] = ()
    mounted: bool = False
    operator: str = ""
    power_in: float = 0.0
    compensating: bool = False


@dataclass
class TurnRecord:
    """What one player's bodies did with weapons this turn (reset when it ends)."""

    fired: dict[str, list[int]] = field(default_factory=dict)
    power: dict[str, list[float]] = field(default_factory=dict)
    first: dict[str, tuple[str, str]] = field(default_factory=dict)
    support: dict[str, list[str]] = field(default_factory=dict)
    diverting: set[str] = field(default_factory=set)
    compensated: set[str] = field(default_factory=set)

    def to_dict(self) -> dict:
        return {"fired": {k: v for k, v in sorted(self.fired.items())},
                "power": {k: v for k, v in sorted(self.power.items())},
                "first": {k: list(v) for k, v in sorted(self.first.items())},
                "support": {k: v for k, v in sorted(self.support.items())},
                "diverting": sorted(self.diverting), "compensated": sorted(self.compensated)}


def attack_kind(w: WeaponProfile, mode: str) -> str:
    """The attack type of 8.5 Firing Weapons: Ranged, Arc Fire or Close Combat."""
    if w.close_combat:
        return "Close Combat"
    return "Arc Fire" if mode == "arc" else "Ranged"


class Manning(System):
    """Power, Divert All Power, Turrets, Gunnery, Homing In, Controls and hand-held limits
    (see the module notes)."""

    name = "manning"
    actions = (DivertPowerAction, SetUpTurretAction, GunnerySupportAction, InterfereAction)

    def __init__(self, game: "Table"):
        super().__init__(game)
        self.now = TurnRecord()
        self.reserves: dict[str, PowerReserve] = {}
        self.turrets: dict[str, TurretState] = {}
        self.turret_pose: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.upright: dict[str, np.ndarray] = {}
        self.homing: dict[str, HomingIn] = {}
        self.best_homing: dict[str, int] = {}
        self.interference: dict[str, tuple[str, str, str]] = {}
        self.ledger = ControlsLedger()

    # ------------------------------------------------------------------ hooks
    def setup(self) -> None:
        """Portable Turrets of the scene (8.1): each checks the Weapon Size it mounts."""
        g = self.game
        for key, st in g.bodies.items():
            size = getattr(st.stats, "turret", None)
            if size is None:
                continue
            biggest = max([w.size for w in self._weapons(key)] or [1.0])
            try:
                self.turrets[key] = TurretState(TurretSize(size), float(biggest))
            except RulesError as exc:
                raise SceneError(f"{key}.stats.turret: {exc}") from None
            self.upright[key] = np.asarray(g.world.pose(key)[1], float)

    def start_of_player_turn(self, turn: int, player: str) -> None:
        """The player's forces may use again what they used last turn (8.5 Controls); their
        Interfering ends; Turrets moved or knocked over since they were Set Up lose it."""
        self.ledger.begin_turn(player)
        for k in [k for k, v in self.interference.items() if v[1] == player]:
            del self.interference[k]
        for key, t in self.turrets.items():
            why = self.turret_displaced(key)
            if t.set_up_turn is not None and why:
                t.moved()
                self.game.log("turret", f"{self.game.bodies[key].name} was {why}: it must be "
                              "Set Up again (8.1 Turrets)", body=key, set_up=False)

    def end_of_player_turn(self, turn: int, player: str) -> None:
        """Saved Power lasts one turn after the Diverting (8.1); the turn's record resets."""
        g = self.game
        for key, res in self.reserves.items():
            st = g.bodies.get(key)
            if st is None or st.owner != player or key in self.now.diverting or not res.saved_in:
                continue
            lost = res.release()
            g.log("power", f"{st.name}'s saved Power ({lost:g}\") is spent or gone: back to its "
                  "regular Power limit (8.1)", body=key, inches=0.0, saved=0.0)
        self.now = TurnRecord()

    def state(self) -> dict:
        return {**self.now.to_dict(),
                "reserves": {k: r.saved_in for k, r in sorted(self.reserves.items())
                             if r.saved_in},
                "turrets": {k: t.set_up_turn for k, t in sorted(self.turrets.items())},
                "homing": {k: h.bonus for k, h in sorted(self.homing.items()) if h.bonus},
                "interference": {k: list(v) for k, v in sorted(self.interference.items())}}

    def check(self) -> list[str]:
        """``[expect.manning]`` against the game; failures in words."""
        g = self.game
        exp = getattr(g.spec.expect, "manning", None) if g.spec.expect is not None else None
        if exp is None:
            return []
        fails = []
        counts: dict[str, int] = {}
        for e in g.events:
            counts[e["type"]] = counts.get(e["type"], 0) + 1
        for t, n in exp.min_events.items():
            if counts.get(t, 0) < n:
                fails.append(f"expected at least {n} {t!r} events, saw {counts.get(t, 0)}")
        jammed = g.system("skirmish").inoperative
        for k in exp.inoperative:
            if k not in jammed:
                fails.append(f"expected weapon {k!r} Inoperative")
        for k in exp.operative:
            if k in jammed:
                fails.append(f"expected weapon {k!r} working, it is Inoperative")
        for k in exp.set_up:
            t = self.turrets.get(k)
            if t is None or t.set_up_turn is None:
                fails.append(f"expected Turret {k!r} Set Up")
        for k, n in exp.min_homing_in.items():
            if self.best_homing.get(k, 0) < n:
                fails.append(f"expected Homing In of at least +{n} on {k!r}, saw "
                             f"+{self.best_homing.get(k, 0)}")
        return fails

    # ------------------------------------------------------------------ read-outs
    def _weapons(self, key: str) -> list[WeaponProfile]:
        return self.game.system("skirmish").weapons(key)

    def is_mounted(self, key: str, weapon: int) -> bool:
        """Whether weapon number ``weapon`` of body ``key`` is mounted (not hand-held)."""
        st = self.game.body(key)
        spec = st.stats.weapons[weapon]
        mount = getattr(spec, "mount", None)
        if mount is None:
            return st.kind == "creation"
        return mount == "mounted"

    def flying(self, key: str) -> bool:
        """A Flying body off the ground (Power limited to its Size, 8.1)."""
        st = self.game.body(key)
        if not st.stats.flight or key not in self.game.world.bodies:
            return False
        return float(self.game.world.aabb(key)[0][2]) > AIRBORNE_IN

    def power_limit_in(self, key: str) -> float:
        """Inches of weapons ``key`` may activate this turn (8.1; see the module notes)."""
        g = self.game
        st = g.body(key)
        if st.stats.power is not None:
            left = g.system("defences").power_left(key)
            return left + sum(self.now.power.get(key, []))
        limit = power_limit(st.stats.size, flying=self.flying(key))
        fire = g.system("hazards").fire
        if fire.burning(key):
            limit -= float(fire.fire_size(key))  # F.1: a Fire cuts the Power limit
        return max(0.0, limit)

    def power_used_in(self, key: str) -> float:
        """Inches of weapon Power ``key`` used this turn."""
        return float(sum(self.now.power.get(key, [])))

    def saved_in(self, key: str) -> float:
        """Power saved by Diverting, usable this turn (0 while still Diverting)."""
        res = self.reserves.get(key)
        if res is None or key in self.now.diverting:
            return 0.0
        return res.saved_in

    def card_lines(self, key: str) -> list[str]:
        """Stat card lines: Power used and left, saved Power, a Turret's state."""
        g = self.game
        st = g.body(key)
        out = []
        mounted = [i for i in range(len(st.stats.weapons)) if self.is_mounted(key, i)]
        if mounted and key not in self.turrets:
            limit, used = self.power_limit_in(key), self.power_used_in(key)
            line = f'Power {limit:g}" a turn: used {used:g}", left {max(0.0, limit - used):g}"'
            if self.saved_in(key):
                line += f' (+{self.saved_in(key):g}" saved for one weapon)'
            if key in self.now.diverting:
                line += "   Diverting All Power"
            out.append(line)
        if key in self.turrets:
            t = self.turrets[key]
            why = self.turret_status(key)
            out.append(f"{t.size.name.title()} Turret: " + (why or "Set Up, ready to fire")
                       + "   (weapons fired by hand: no Power)")
        for i in mounted:
            wkey = f"{key}#{i}"
            sup = self.now.support.get(wkey, [])
            hi = self.homing.get(wkey)
            if sup or (hi is not None and hi.bonus):
                out.append(f"[{i + 1}] Gunnery Support: {len(sup)} this turn, Homing In "
                           f"+{hi.bonus if hi else 0}")
        return out

    def move_refusal(self, key: str) -> str:
        """Why ``key`` may not move now because of Power or Compensating ("" if it may)."""
        name = self.game.body(key).name
        if key in self.now.diverting:
            return (f"{name} is Diverting All Power this turn (8.1): no move, no weapon, no "
                    "other Action")
        if key in self.now.compensated:
            return (f"{name} fired Compensating this turn: a Heavy needs both feet planted "
                    "(8.1), so no Movement after it")
        return ""

    # ------------------------------------------------------------------ Controls and access
    def allies(self, player: str) -> list[str]:
        """The other players on ``player``'s scene ``side`` (none without one)."""
        players = self.game.spec.players
        side = next((getattr(p, "side", None) for p in players if p.name == player), None)
        if side is None:
            return []
        return [p.name for p in players if p.name != player and getattr(p, "side", None) == side]

    def controls_of(self, mount: str, weapon: int) -> list[str]:
        """Bodies holding a set of Controls of the weapon: its own body, then the scene's."""
        spec = self.game.body(mount).stats.weapons[weapon]
        return [mount] + [k for k in getattr(spec, "controls", []) or []
                          if k in self.game.bodies]

    def station(self, unit: str, mount: str, weapon: int) -> str | None:
        """The set of Controls ``unit`` reaches (within :data:`ACCESS_IN`), or None."""
        g = self.game
        best = None
        for c in self.controls_of(mount, weapon):
            if c == unit:
                return c
            if c not in g.world.bodies:
                continue
            d = g.measure(unit, c).inches
            if d <= ACCESS_IN + 1e-9 and (best is None or d < best[0]):
                best = (d, c)
        return best[1] if best else None

    def crew_refusal(self, unit: str, player: str, what: str) -> str:
        g = self.game
        reason = g.system("skirmish").move_refusal(unit, player)  # names an unknown unit too
        if reason:
            return reason
        st = g.bodies[unit]
        if st.kind != "unit":
            return f"{st.name} is not a minifig: only a minifig {what}"
        if effects.has_acted(g, unit):
            return f"{st.name} has already used its Action this turn"
        return ""

    def _weapon_ref(self, mount: str, weapon: int) -> str:
        g = self.game
        if mount not in g.bodies:
            return f"no body called {mount!r} on the table"
        n = len(g.bodies[mount].stats.weapons)
        if not 0 <= weapon < n:
            return f"{g.bodies[mount].name} has no weapon {weapon} (it has {n})"
        if not self.is_mounted(mount, weapon):
            return f"{self._weapons(mount)[weapon].name} of {g.bodies[mount].name} is hand-held"
        return ""

    # ------------------------------------------------------------------ Turrets
    def turret_displaced(self, key: str) -> str:
        """"moved" or "knocked over" since the Turret was Set Up (read from its physics body;
        "" when it stands where it was Set Up, or was never Set Up)."""
        g = self.game
        if key not in self.turret_pose:
            return ""
        if key not in g.world.bodies or g.body(key).damage.destroyed:
            return "destroyed"
        pos, quat = g.world.pose(key)
        p0, q0 = self.turret_pose[key]
        if tilt_between(q0, quat) > TURRET_TILT_RAD:
            return "knocked over"
        if math.dist(np.asarray(pos, float)[:2], p0[:2]) > TURRET_MOVED_IN:
            return "moved"
        return ""

    def turret_status(self, key: str) -> str:
        """Why the Turret ``key`` cannot fire now ("" when it can; 8.1 Turrets)."""
        t = self.turrets[key]
        name = self.game.body(key).name
        if t.set_up_turn is None:
            return f"{name} is not Set Up: a minifig must spend an Action to Set It Up (8.1)"
        why = self.turret_displaced(key)
        if why:
            return f"{name} was {why} since it was Set Up: Set It Up again (8.1 Turrets)"
        if not t.can_fire(self.game.turn):
            return f"{name} was Set Up this turn: it fires from the following turn (8.1)"
        return ""

    # ------------------------------------------------------------------ attacks
    def aim(self, mount: str, target: str) -> Aim:
        g = self.game
        t = g.footprint_centre(target)
        m = g.footprint_centre(mount)
        return Aim(target, (float(t[0]), float(t[1])), (float(m[0]), float(m[1])))

    def _hand_terms(self, unit: str, weapon: int, w: WeaponProfile) -> AttackTerms:
        g = self.game
        st = g.body(unit)
        spec = st.stats.weapons[weapon]
        die = int(st.stats.action_die)
        if spec.bastard is not None or w.weapon_type is WeaponType.EXPLOSIVE:
            return AttackTerms("", action_die=die, operator=unit)
        rocket = w.weapon_type is WeaponType.ROCKET  # XSize as inches of Weapon Size (8.1)
        heavy = "Heavy" in (getattr(st.stats, "specialties", None) or [])
        moved = g.system("skirmish").turn_state.moved_in.get(unit, 0.0) > 0
        ranged = not w.close_combat
        cat = hand_held_category(w.size, st.stats.size, ranged=ranged)
        comp = False
        if cat is HandCategory.NOT_ALLOWED and heavy and not moved:
            cat = hand_held_category(w.size, st.stats.size, ranged=ranged, compensating=True)
            comp = cat is not HandCategory.NOT_ALLOWED
        use = HAND_HELD_USE[cat][1 if ranged else 0]
        if cat is HandCategory.NOT_ALLOWED:
            size = f"XSize {w.size:g}, as {w.size:g}\" of Weapon Size" if rocket \
                else f"Size {w.size:g}\""
            why = (f"the {w.name} ({size}) is too big for {st.name} (Size "
                   f"{st.stats.size:g}\") to hold: Not Allowed (8.1 Hand-Held Weapons"
                   + (", Explosive Size" if rocket else "") + ")")
            if heavy and moved:
                why += "; a Heavy Compensates only on a turn he has not moved (8.1)"
            return AttackTerms(why, action_die=die, operator=unit)
        hands = 2 if (cat is HandCategory.LONG or (ranged and cat is HandCategory.BASTARD)) else 1
        fire = g.system("hazards").fire
        if hands == 2 and fire.burning(unit) and fire.is_minifig(unit) \
                and not getattr(st.stats, "on_fire_ok", False):
            return AttackTerms(f"{st.name} is on Fire and can use only one Hand (8.3): the "
                               f"{w.name}, held as a {use}, needs two", action_die=die,
                               operator=unit)
        note = f"Held as a {use}" + (" (Compensating: a Heavy standing still, 8.1)"
                                     if comp else "")
        if rocket and st.kind == "creation":  # "fired directly by a Creation" (8.4): Power too
            refusal, power, pnote = self._power_terms(unit, w, explosive_power_in(
                w, from_launcher=False))
            return AttackTerms(refusal, action_die=die, notes=(note, pnote), operator=unit,
                               power_in=power, compensating=comp)
        return AttackTerms("", action_die=die, notes=(note,), operator=unit, compensating=comp)

    def _power_terms(self, unit: str, w: WeaponProfile, power: float) -> tuple[str, float, str]:
        """(refusal, Power needed, preview line) of one activation of ``w`` by ``unit`` against
        this turn's Power (8.1 Power Limits, Divert All Power's saved Power)."""
        st = self.game.body(unit)
        limit, used = self.power_limit_in(unit), self.now.power.get(unit, [])
        saved = self.saved_in(unit)
        chk = check_power(list(used) + [power], 0.0, saved_in=saved, bonus_in=limit)
        refusal = ""
        if not chk.allowed:
            refusal = (f"{st.name} has {limit:g}\" of Power this turn (8.1 Power Limits: "
                       f"twice its Effective Size) and used {sum(used):g}\": the {w.name} "
                       f"needs {power:g}\" more")
            if w.explosive:
                refusal += (" (8.4: an Explosive or Rocket fired directly by a Creation takes its "
                            "XSize in Power)")
            if power in chk.too_big:
                refusal += (" - Too Big: Divert All Power first, or use Teamwork (8.1 "
                            "Gathering Power)")
        note = (f"Power: {power:g}\" of {limit:g}\" ({sum(used):g}\" used this turn"
                + (f", +{chk.diverted_in:g}\" saved by Diverting" if chk.diverted_in else "")
                + ")")
        return refusal, power, note

    def attack_terms(self, unit: str, weapon: int, w: WeaponProfile, target: str,
                     mode: str, gunner: str | None = None) -> AttackTerms:
        """Power, Controls, Turret, Gunnery, Homing In and hand-held terms of an attack, before
        any die (read-only: nothing changes)."""
        g = self.game
        st = g.body(unit)
        player = g.current_player
        if not self.is_mounted(unit, weapon):
            if gunner is not None:
                return AttackTerms(f"the {w.name} is hand-held: it has no Controls for a "
                                   "gunner (8.5)", action_die=int(st.stats.action_die),
                                   operator=unit)
            return self._hand_terms(unit, weapon, w)
        wkey = f"{unit}#{weapon}"
        notes: list[str] = []
        mods: list[Modifier] = []
        die, operator, refusal = int(st.stats.action_die), unit, ""
        station: str | None = unit
        if unit in self.now.diverting:
            refusal = self.move_refusal(unit)
        if gunner is not None and not refusal:
            refusal = self.crew_refusal(gunner, player, "mans a weapon")
            if not refusal:
                station = self.station(gunner, unit, weapon)
                gs = g.body(gunner)
                if station is None:
                    refusal = (f"{gs.name} is more than {ACCESS_IN:g}\" from {st.name} and its "
                               f"Controls: he cannot reach the {w.name} (8.5)")
                else:
                    operator = gunner
                    if "Gunner" in (gs.stats.specialties or []):
                        die = int(gs.stats.specialty_die)
                        notes.append(f"Gunnery: {gs.name} rolls his Specialty d{die} (8.5)")
                    else:
                        die = int(gs.stats.action_die)
                        notes.append(f"{gs.name} at the Controls rolls his Action d{die}")
        elif unit in self.turrets:
            refusal = (f"the {w.name} on {st.name} is fired by a minifig at the Turret: choose "
                       "a gunner (8.1 Turrets)")
        if not refusal and unit in self.turrets:
            refusal = self.turret_status(unit)
        if not refusal and (weapon in self.now.fired.get(unit, [])
                            or not self.ledger.can_operate(wkey, player)):
            refusal = (f"{possessive(player)} forces fire the {w.name} only once a turn "
                       "(8.5 Controls)")
        ally = next((a for a in self.allies(player)
                     if wkey in self.ledger.used.get(a, set())), None)
        if not refusal and ally is not None:
            refusal = (f"{possessive(player)} ally {ally} used the {w.name} on their previous "
                       "turn: allies cannot each operate it on their own turns (8.5 Controls)")
        kind = attack_kind(w, mode)
        first = self.now.first.get(unit)
        if not refusal and first is not None and first != (target, kind):
            refusal = (f"{st.name} already fired at {g.body(first[0]).name} ({first[1]}) this "
                       f"turn: all its weapons go at a single target with one attack type (8.5)")
        power = 0.0
        if unit in self.turrets:
            notes.append(f"{st.name}: a Turret weapon operated by hand needs no Power (8.1)")
        else:
            # 8.4: "When an Explosive or Rocket is dropped, thrown, or fired directly by a
            # Creation, the XSize is also the amount of Power it takes"
            power = (explosive_power_in(w, from_launcher=False) if w.explosive
                     else float(w.power_in))
            why, power, pnote = self._power_terms(unit, w, power)
            refusal = refusal or why
            notes.append(pnote)
        hi = copy.deepcopy(self.homing.get(wkey) or HomingIn(float(w.size)))
        sup = self.now.support.get(wkey, [])
        try:
            m = hi.modifier(len(sup), self.aim(unit, target))
        except RulesError as exc:
            m, refusal = None, refusal or str(exc)
        if m is not None:
            mods.append(m)
        intf = self.interference.get(wkey)
        if intf is not None and intf[1] != player and intf[2] != station:
            who = g.body(intf[0])
            notes.append(f"Interfered by {who.name} at {g.body(intf[2]).name}: -1d"
                         f"{who.stats.action_die} Action, rolled with the attack (8.5)")
        return AttackTerms(refusal, tuple(mods), die, tuple(notes), True, operator, power)

    def interference_modifier(self, unit: str, weapon: int, terms: AttackTerms) -> Modifier | None:
        """Roll a pending Interfere against this attack (stream ``interfere``) and clear it."""
        g = self.game
        wkey = f"{unit}#{weapon}"
        intf = self.interference.get(wkey)
        station = self.station(terms.operator, unit, weapon) if terms.operator != unit else unit
        if intf is None or intf[1] == g.current_player or intf[2] == station:
            return None
        del self.interference[wkey]
        who = g.body(intf[0])
        m = interfere(g.dice.stream("interfere"), int(who.stats.action_die), who.name)
        g.log("interfere", f"{who.name} Interferes from {g.body(intf[2]).name}: {m.action:+d} "
              "Action (8.5 Controls)", body=intf[0], mount=unit, weapon=weapon,
              penalty=m.action)
        return m

    def begin_attack(self, unit: str, weapon: int, w: WeaponProfile, target: str,
                     terms: AttackTerms) -> list[Modifier]:
        """The modifiers the attack really takes (Homing In kept, Interfere rolled)."""
        if not terms.mounted:
            return []
        wkey = f"{unit}#{weapon}"
        hi = self.homing.setdefault(wkey, HomingIn(float(w.size)))
        sup = self.now.support.pop(wkey, [])
        out = [m for m in [hi.modifier(len(sup), self.aim(unit, target))] if m is not None]
        self.best_homing[wkey] = max(self.best_homing.get(wkey, 0), hi.bonus)
        intf = self.interference_modifier(unit, weapon, terms)
        return out + ([intf] if intf is not None else [])

    def after_attack(self, unit: str, weapon: int, w: WeaponProfile, target: str, mode: str,
                     terms: AttackTerms, rolls: list[ActionRoll]) -> None:
        """Record the activation: Power spent, the weapon fired, the operator's Action, Homing
        In cancelled by a Critical Failure, Compensating used."""
        g = self.game
        st = g.body(unit)
        if terms.compensating:
            self.now.compensated.add(unit)
        if terms.power_in:
            limit = self.power_limit_in(unit)
            used = self.now.power.setdefault(unit, [])
            used.append(terms.power_in)
            saved = ""
            if sum(used) > limit + 1e-9:
                saved = f", {self.reserves[unit].release():g}\" of it saved by Diverting"
            if st.stats.power is not None:
                g.system("defences").spend_power(unit, terms.power_in, f"the {w.name}")
            g.log("power", f"{st.name} activates the {w.name}: {terms.power_in:g}\" of Power"
                  f"{saved}; {max(0.0, limit - sum(used)):g}\" left this turn (8.1)",
                  body=unit, inches=terms.power_in, left=max(0.0, limit - sum(used)))
        if not terms.mounted:
            return
        wkey = f"{unit}#{weapon}"
        player = g.current_player
        if terms.operator != unit:
            effects.spend_action(g, terms.operator)
        self.now.fired.setdefault(unit, []).append(weapon)
        self.ledger.operate(wkey, player, self.allies(player))
        self.now.first.setdefault(unit, (target, attack_kind(w, mode)))
        hi = self.homing.get(wkey)
        if hi is not None and hi.bonus and any(r.critical_failure for r in rolls):
            hi.after_attack(next(r for r in rolls if r.critical_failure))
            g.log("homing_in", f"A Critical Failure: the {w.name}'s Gunners lose their Homing "
                  "In bonus and start over (8.5)", body=unit, weapon=weapon, bonus=0)

    # ------------------------------------------------------------------ actions
    @refuses(DivertPowerAction)
    def divert_refused(self, action: DivertPowerAction) -> str:
        g = self.game
        sk = g.system("skirmish")
        reason = sk.move_refusal(action.unit, action.player)
        if reason:
            return reason
        st = g.bodies[action.unit]
        if not any(self.is_mounted(action.unit, i) for i in range(len(st.stats.weapons))):
            return f"{st.name} has no mounted weapon or device to Divert All Power to (8.1)"
        if (effects.has_acted(g, action.unit) or sk.turn_state.moved_in.get(action.unit)
                or self.now.fired.get(action.unit)):
            return (f"{st.name} has already moved or acted this turn: Diverting All Power "
                    "is a Full Round Action (8.1)")
        return ""

    @refuses(SetUpTurretAction)
    def set_up_refused(self, action: SetUpTurretAction) -> str:
        g = self.game
        reason = self.crew_refusal(action.unit, action.player, "Sets Up a Turret")
        if reason:
            return reason
        if action.turret not in self.turrets:
            return f"{action.turret!r} is not a portable Turret (8.1)"
        t = g.bodies[action.turret]
        if t.damage.destroyed or action.turret not in g.world.bodies:
            return f"{t.name} is destroyed"
        d = g.measure(action.unit, action.turret).inches
        if d > ACCESS_IN + 1e-9:
            return (f"{g.bodies[action.unit].name} is {d:.2f}\" from {t.name}: he must be "
                    f"within {ACCESS_IN:g}\" to Set It Up")
        return ""

    def _at_controls_refusal(self, action: GunnerySupportAction | InterfereAction,
                             what: str) -> str:
        """Why ``action.unit`` cannot reach the weapon's Controls to ``what`` ("" when he
        can)."""
        g = self.game
        reason = self.crew_refusal(action.unit, action.player, what) \
            or self._weapon_ref(action.mount, action.weapon)
        if reason:
            return reason
        if self.station(action.unit, action.mount, action.weapon) is None:
            w = self._weapons(action.mount)[action.weapon]
            return (f"{g.bodies[action.unit].name} cannot reach the {w.name} of "
                    f"{g.bodies[action.mount].name} or a set of its Controls "
                    f"(within {ACCESS_IN:g}\", 8.5)")
        return ""

    @refuses(GunnerySupportAction)
    def support_refused(self, action: GunnerySupportAction) -> str:
        reason = self._at_controls_refusal(action, "gives Gunnery Support")
        if reason:
            return reason
        st = self.game.bodies[action.unit]
        if "Gunner" not in (st.stats.specialties or []):
            return f"{st.name} is not a Gunner: only Gunners give Gunnery Support (8.5)"
        w = self._weapons(action.mount)[action.weapon]
        sup = self.now.support.get(f"{action.mount}#{action.weapon}", [])
        try:
            gunnery_support(len(sup) + 1, float(w.size))
        except RulesError as exc:
            return f"{exc} (8.5 Gunnery Support: firer and Supporting Gunners)"
        return ""

    @refuses(InterfereAction)
    def interfere_refused(self, action: InterfereAction) -> str:
        return self._at_controls_refusal(action, "Interferes")

    @handles(DivertPowerAction)
    def _divert(self, action: DivertPowerAction, index: int) -> None:
        g = self.game
        st = g.bodies[action.unit]
        res = self.reserves.setdefault(action.unit, PowerReserve())
        if st.stats.power is not None:
            res.saved_in += float(st.stats.power)
            res.turns_diverted += 1
        else:
            res.divert(st.stats.size, flying=self.flying(action.unit))
        self.now.diverting.add(action.unit)
        effects.spend_action(g, action.unit)
        g.log("divert_power", f"{st.name} Diverts All Power: {res.saved_in:g}\" saved for "
              "one weapon next turn (8.1)", body=action.unit, saved=res.saved_in,
              player=action.player)

    @handles(GunnerySupportAction)
    def _support(self, action: GunnerySupportAction, index: int) -> None:
        g = self.game
        wkey = f"{action.mount}#{action.weapon}"
        self.now.support.setdefault(wkey, []).append(action.unit)
        effects.spend_action(g, action.unit)
        w = self._weapons(action.mount)[action.weapon]
        g.log("gunnery_support", f"{g.bodies[action.unit].name} gives Gunnery Support to "
              f"the {w.name} of {g.bodies[action.mount].name}: +1 Action (8.5)",
              body=action.unit, mount=action.mount, weapon=action.weapon,
              supporters=len(self.now.support[wkey]), player=action.player)

    @handles(InterfereAction)
    def _interfere(self, action: InterfereAction, index: int) -> None:
        g = self.game
        wkey = f"{action.mount}#{action.weapon}"
        station = self.station(action.unit, action.mount, action.weapon)
        if station is None:  # refused before apply (interfere_refused)
            raise RulesError(self.interfere_refused(action))
        self.interference[wkey] = (action.unit, action.player, station)
        effects.spend_action(g, action.unit)
        g.log("interfere", f"{g.bodies[action.unit].name} takes the Controls at "
              f"{g.bodies[station].name} to Interfere with the "
              f"{self._weapons(action.mount)[action.weapon].name} (8.5)",
              body=action.unit, mount=action.mount, weapon=action.weapon, penalty=0,
              player=action.player)

    @handles(SetUpTurretAction)
    def _set_up(self, a: SetUpTurretAction, index: int = 0) -> None:
        g = self.game
        t = self.turrets[a.turret]
        pos, quat = g.world.pose(a.turret)
        if tilt_between(self.upright[a.turret], quat) > TURRET_TILT_RAD:
            lo, hi = g.world.aabb(a.turret)  # knocked over: stand it up where it lies
            up = np.asarray(pos, float) + np.array([0.0, 0.0, max(0.0, -float(lo[2])) + 0.3])
            g.world.set_pose(a.turret, up, self.upright[a.turret])
            g.world.set_velocity(a.turret, (0, 0, 0), (0, 0, 0))
            g.record_frame(force=True)
            g.settle(max_seconds=1.0, quiet=True)
            pos, quat = g.world.pose(a.turret)
        t.set_up(g.turn)
        self.turret_pose[a.turret] = (np.asarray(pos, float), np.asarray(quat, float))
        effects.spend_action(g, a.unit)
        g.log("turret", f"{g.bodies[a.unit].name} Sets Up {g.bodies[a.turret].name}: it fires "
              f"from turn {g.turn + 1} (8.1 Turrets)", body=a.turret, unit=a.unit, set_up=True,
              player=a.player)
