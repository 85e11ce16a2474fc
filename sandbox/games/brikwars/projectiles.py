"""Payloads in flight across turns: Launchers, Cannons, Rockets and thrown objects (BrikWars 8.4).

A fired Payload is a real body of the physics world. The game keeps one :class:`Flight` per
Payload: plain data (JSON-ready, :meth:`Flight.to_dict`) that a save and the replay's event log
carry. Units: inches, seconds, in/s, Z up.

Readings of 8.4 chosen here
---------------------------
- **12" per turn.** A Payload covers at most :data:`TURN_FLIGHT_IN` of *horizontal* distance
  (table distance, as Range is measured) per turn; height gained and lost on the arc is free
  (8.4: "downward inches of Movement or Range are always free"). A shot at a target more than
  12" away marks the target with the red-brick X, flies 12" now, is held in the air, and flies
  12" more at the start of each of the attacker's turns (the start of each turn here: turns are
  rounds). The Action Roll is made at the start of the turn on which the rest of the path is
  12" or less; shots at 12" or less roll at once.
- **Over obstacles.** A shot may aim at any point above the target. On a hit, the Payload flies
  the arc to that point and then travels straight down (its speed turned downward).
- **Missed Shots with Explosives** (and every physical Payload here) must land: the defender
  picks a spot within the *miss distance* of the aim point, read as the number of points by
  which the Action Roll fell short of the Use rating (at least 1"). The choice is a callable
  (:attr:`FlightControl.miss_chooser`), so a tabletop can ask a player; a scene may also pin it
  (``miss_spot``). Headless default (:func:`default_miss_spot`): the full miss distance straight
  on past the aim point along the line of fire, an overshoot.
- **Duds.** On a Critical Failure of the Action Roll of an Explosive the defender may declare it a
  Dud (:attr:`FlightControl.dud_chooser`, or the action's ``dud``). Headless default: he does
  (an unexploded, Unstable shell beats a blast in his lines). A Dud does not explode on impact;
  once at rest it is Unstable: the next impact or Damage sets it off.
- **Armed in flight.** A Payload held between turns stays in the world, so it can be struck;
  an Explosive in flight is armed (Semi-Stable ones count as Unstable): any impact detonates it.
- **Impact.** Explosives explode through ``Game._explode`` (the explosion mechanics); other
  Payloads do Crash Damage to the first body they strike: a d6 for each d10 of their Armor
  (a fixed Armor counts as one d10).
- **Melee Weapons** (a body listed in ``[[melee_payloads]]`` with its Weapon Size), launched or
  thrown, do Close Combat Damage instead: Size × the firer's Action die, with the Action
  Roll's Over the Top dice and -1 a die per inch Out of Range, on stream ``damage``.
- **Rockets point along their flight**: at launch and after each turn's re-aim their nose (the
  longest side as they stood, kept in :attr:`Flight.nose`) is turned onto the velocity.
- **Tracking Rockets** fly straight at :attr:`RocketAction.speed` with thrust cancelling
  gravity; at the start of each turn one that is tracking turns at most 45° toward where its
  target body now is.
- **Thrown objects**: a Size ½" Launcher per thrower (Teamwork adds strength, not Range: 3");
  the Action Roll uses the smallest Action die of the throwers, and the object's Use is that of
  a Melee Weapon of its Size (Size + 1; an Explosive's Size is its XSize).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from ...core.dice import DiceExpression
from ...core.errors import RulesError, SceneError
from ...core.transforms import matrix_to_quat, quat_to_matrix
from ...engine.assets import build_part_asset
from ...engine.events import possessive
from ...engine.scene import Stats, parse_armor
from ...engine.table import System, handles, refuses
from ...physics import projectiles as pj
from ...rules.attacks import (
    UNSEEN_TARGET,
    action_roll,
    out_of_range_modifier,
    roll_damage,
    target_modifier,
)
from ...rules.gunnery import WeaponState
from ...rules.weapons import (
    WeaponProfile,
    WeaponType,
    check_payload,
    throwing_arm,
    weapon_profile,
)
from . import effects
from .scene_flight import ExplosiveBody, LaunchAction, ReloadAction, RocketAction, ThrowAction

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.table import Table as Game

#: Most horizontal inches a physical projectile flies per turn (BrikWars 8.4).
TURN_FLIGHT_IN: float = 12.0
#: Largest turn a Tracking Rocket makes per turn, radians (BrikWars 8.4).
ROCKET_TURN_RAD: float = math.radians(45.0)
#: Longest a single leg of flight may take, simulated seconds.
FLIGHT_MAX_SECONDS: float = 6.0
#: Longest the aftermath of a landing may take to come to rest, seconds.
LANDING_MAX_SECONDS: float = 6.0
#: A Payload's contacts with what held it at launch come back on this far from the muzzle.
CLEAR_OF_LAUNCHER_IN: float = 2.0
#: A body that falls this far below the table has left the battlefield.
LOST_BELOW_Z_IN: float = -20.0
#: Height above a thrower's head where a throw starts, inches.
THROW_RELEASE_ABOVE_IN: float = 0.3


@dataclass
class Flight:
    """One Payload in flight: plain data that round-trips through JSON (a save, the replay).

    Positions are inches, velocities in/s, quaternions (x, y, z, w).
    """

    id: str
    body: str
    player: str
    kind: str  # "launcher", "cannon", "rocket", "throw"
    weapon: str
    use: int
    range_in: float | None
    action_die: int
    origin: list[float]
    aim: list[float]
    marker: list[float]
    distance_in: float
    remaining_in: float
    launched_turn: int
    target_body: str | None = None
    target_seen: list[float] | None = None
    target_size_in: float = 1.0
    unseen: bool = False
    arc: str = "high"
    speed: float = 0.0
    straight: bool = False
    tracking: bool = False
    explosive_dice: int = 0
    stability: str = ""
    armed: bool = False
    dud: bool = False
    crash_dice: int = 0
    melee_size: int = 0
    bonus_dice: int = 0
    per_die_modifier: int = 0
    nose: list[float] | None = None
    rolled: bool = False
    hit: bool | None = None
    descending: bool = False
    miss_spot: list[float] | None = None
    dud_choice: bool | None = None
    ignore: list[str] = field(default_factory=list)
    spawned: dict | None = None
    position: list[float] | None = None
    orientation: list[float] | None = None
    velocity: list[float] | None = None
    angular: list[float] | None = None
    status: str = "flying"  # flying, held, landed, exploded, lost
    turns_flown: int = 0
    path: list[list[float]] = field(default_factory=list)

    def to_dict(self) -> dict:
        """A JSON/TOML-ready dict (``from_dict`` reads it back)."""
        return asdict(self)

    def held_state(self) -> tuple[list[float], list[float], list[float], list[float]]:
        """Where a held Payload hangs: position, orientation, velocity and angular velocity.

        Raises
        ------
        SceneError
            Naming the flight and the field, when one is missing (a saved flight's).
        """
        pos, orn, vel, ang = self.position, self.orientation, self.velocity, self.angular
        if pos is None or orn is None or vel is None or ang is None:
            missing = [n for n in ("position", "orientation", "velocity", "angular")
                       if getattr(self, n) is None]
            raise SceneError(f"held flight {self.id!r}: no {', '.join(missing)}")
        return pos, orn, vel, ang

    @classmethod
    def from_dict(cls, data: dict) -> "Flight":
        """Rebuild a flight from :meth:`to_dict`.

        Raises
        ------
        SceneError
            On unknown or missing fields.
        """
        names = {f.name for f in fields(cls)}
        extra = sorted(set(data) - names)
        if extra:
            raise SceneError(f"saved flight has unknown fields {extra}")
        try:
            return cls(**data)
        except TypeError as exc:
            raise SceneError(f"saved flight is incomplete: {exc}") from None


@dataclass(frozen=True)
class MissContext:
    """What the defender knows when placing a Missed Shot.

    Attributes
    ----------
    flight : Flight or None
        None for a Strategic Bombardment (no flight of its own).
    aim : (3,) float
        The intended impact point, inches.
    miss_distance_in : float
        The spot may be at most this far (horizontally) from ``aim``.
    direction : (2,) float
        Unit horizontal line of fire.
    """

    flight: Flight | None
    aim: np.ndarray
    miss_distance_in: float
    direction: np.ndarray


def default_miss_spot(ctx: MissContext) -> tuple[float, float]:
    """Headless default for the defender's choice: the full miss distance past the aim point,
    straight on along the line of fire (an overshoot)."""
    p = ctx.aim[:2] + ctx.direction * ctx.miss_distance_in
    return float(p[0]), float(p[1])


def miss_distance(use: int, total: int) -> float:
    """Inches a missed shot may land from its aim: the points it missed by, at least 1".

    Examples
    --------
    >>> miss_distance(8, 3), miss_distance(6, 6)
    (5.0, 1.0)
    """
    return float(max(1, int(use) - int(total)))


def crash_dice(armor) -> int:
    """d6 of Crash Damage of a launched object: one per d10 of its Armor (8.4); a fixed Armor
    counts as one."""
    fixed, dice = parse_armor(armor)
    return int(dice[0]) if dice is not None else 1


def _stat(prof: WeaponProfile, value: float | None, what: str) -> float:
    """A stat that the weapon's row must give here (a Launcher's Range, a throwing arm's Payload
    Size): ``value``, or a RulesError naming the weapon and the stat when the row has none."""
    if value is None:
        raise RulesError(f"{prof.name} has no {what}")
    return value


def _round(v) -> list[float]:
    return [round(float(x), 5) for x in v]


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


class FlightControl(System):
    """The game's Payloads in flight and its Launchers' and Cannons' states.

    Parameters
    ----------
    game : Game
        The running game (its world, dice, log and bodies).

    Attributes
    ----------
    miss_chooser : callable(MissContext) -> (x, y)
        The defender's choice of where a Missed Shot lands (default :func:`default_miss_spot`).
    dud_chooser : callable(Flight) -> bool
        The defender's choice to declare a Dud on a Critical Failure (default: yes).
    """

    MAX_EXTRA_TURNS = 20
    name = "flight"
    actions = (LaunchAction, ReloadAction, RocketAction, ThrowAction)

    def __init__(self, game: "Game"):
        super().__init__(game)
        self.flights: dict[str, Flight] = {}
        self.weapons: dict[str, WeaponState] = {}
        self.ammo_xsize: dict[str, int] = {}
        #: Rockets fired by units' Rocket weapons at the table (body key -> its Explosive).
        self.spawned_explosives: dict[str, ExplosiveBody] = {}
        self.miss_chooser: Callable[[MissContext], tuple[float, float]] = default_miss_spot
        self.dud_chooser: Callable[[Flight], bool] = lambda flight: True
        self._holds: dict[str, int] = {}

    # ------------------------------------------------------------------ queries
    def state(self) -> dict:
        return self.to_dict()

    # ------------------------------------------------------------------ at the table
    def launchers(self, player: str | None = None) -> list:
        """The scene's ``[[launchers]]`` a player may fire (default: the current player's): those
        built into one of the player's creations, or into nothing."""
        g = self.game
        p = g.current_player if player is None else player
        out = []
        for m in g.spec.launchers:
            st = g.bodies.get(m.creation) if m.creation else None
            if m.creation and (st is None or st.damage.destroyed):
                continue
            if st is None or st.owner in (None, p):
                out.append(m)
        return out

    def launch_payload(self, weapon: str) -> list[str]:
        """Bodies lying in a Launcher's loading area now (what it would fire), nearest first.

        Raises
        ------
        RulesError
            No such Launcher.
        """
        g = self.game
        m = next((m for m in g.spec.launchers if m.id == weapon), None)
        if m is None:
            raise RulesError(f"no Launcher called {weapon!r} (have "
                             f"{[m.id for m in g.spec.launchers]})")
        near = []
        for key, st in g.bodies.items():
            if key == m.creation or key not in g.world.bodies or st.damage.destroyed:
                continue
            if g.world.bodies[key].static or st.kind == "unit":
                continue
            d = float(np.linalg.norm(g.world.pose(key)[0] - np.asarray(m.loading_area)))
            if d <= m.loading_radius + 1e-9:
                near.append((d, key))
        return [k for _, k in sorted(near)]

    def launch_preview(self, weapon: str, target, arc: str = "high",
                       target_body: str | None = None) -> "LaunchPreview":
        """Where a Launcher shot would go, before anything is rolled: the sampled arc from the
        muzzle to ``target`` (x, y, z inches), the distance, and whether it flies beyond one
        turn's 12" (then a red-brick X marks the target and the roll waits, 8.4)."""
        g = self.game
        m = next((m for m in g.spec.launchers if m.id == weapon), None)
        if m is None:
            raise RulesError(f"no Launcher called {weapon!r}")
        prof = weapon_profile(m.type, m.size)
        payload = self.launch_payload(weapon)
        tgt = np.asarray(target, float).reshape(-1)
        if tgt.shape[0] == 2:
            tgt = np.array([tgt[0], tgt[1], 0.0])
        muzzle = np.asarray(m.muzzle, float)
        grav = g.world.gravity
        speed = math.sqrt(grav * _stat(prof, prof.range_in, "Range"))
        sols = pj.solve_launch(muzzle, tgt, speed, grav)
        sol = next((x for x in sols if x.arc == arc), sols[0]) if sols else \
            pj.minimum_speed_launch(muzzle, tgt, grav)
        path = pj.sample_path(muzzle, sol.velocity, sol.flight_time, 32, grav)
        dist = float(math.hypot(*(tgt[:2] - muzzle[:2])))
        player = g.current_player
        reason = self._launch_refusal(m.id, player) or (
            "" if payload else f"nothing lies in the loading area of {m.id}")
        return LaunchPreview(m.id, prof.name,
                             (float(muzzle[0]), float(muzzle[1]), float(muzzle[2])),
                             (float(tgt[0]), float(tgt[1]), float(tgt[2])), tuple(payload),
                             dist, prof.range_in,
                             prof.use, path, dist > TURN_FLIGHT_IN + 1e-9, not reason, reason,
                             target_body)

    def _launch_refusal(self, weapon: str, player: str, firing: bool = True) -> str:
        m = next((m for m in self.game.spec.launchers if m.id == weapon), None)
        if m is None:
            return f"no Launcher called {weapon!r}"
        if m not in self.launchers(player):
            owner = self.game.bodies[m.creation].owner if m.creation in self.game.bodies else None
            return (f"{m.id} is not {possessive(player)} to fire"
                    + (f" (it is {possessive(owner)})" if owner else ""))
        state = self.weapons.get(m.id)
        if firing and state is not None and state.fired_turn == self.game.turn:
            return f"{m.id} has already fired this turn"
        return ""

    @refuses(LaunchAction)
    def launch_refused(self, action: LaunchAction) -> str:
        return self._launch_refusal(action.weapon, action.player, firing=True)

    @refuses(ReloadAction)
    def reload_refused(self, action: ReloadAction) -> str:
        return self._launch_refusal(action.weapon, action.player, firing=False)

    @refuses(ThrowAction)
    def throw_refused(self, action: ThrowAction) -> str:
        sk = self.game.system("skirmish")
        for t in action.throwers:
            if t not in self.game.bodies:
                return f"no body called {t!r} on the table"
            reason = sk.move_refusal(t, action.player)
            if reason:
                return reason
            if effects.has_acted(self.game, t):
                return f"{self.game.bodies[t].name} has already used its Action this turn"
        return ""

    def pending(self) -> bool:
        """True while any Payload is held in the air between turns."""
        return any(f.status == "held" for f in self.flights.values())

    def marker_data(self) -> list[dict]:
        """Overlays for a renderer: red-brick X at each held flight's target, flown paths."""
        out = []
        for f in self.flights.values():
            if f.status == "held":
                out.append({"kind": "target", "point": list(f.marker)})
            if len(f.path) >= 2:
                out.append({"kind": "path", "points": [list(p) for p in f.path]})
        return out

    def to_dict(self) -> dict:
        """Plain data of every flight and weapon state (for a save)."""
        return {
            "flights": [f.to_dict() for f in self.flights.values()],
            "weapons": {k: {"loaded": w.loaded, "inoperative": w.inoperative,
                            "reloaded_turn": w.reloaded_turn, "fired_turn": w.fired_turn}
                        for k, w in self.weapons.items()},
            "ammo_xsize": dict(self.ammo_xsize),
        }

    def restore(self, data: dict) -> None:
        """Put saved flights back into a freshly set-up game (held ones are hung in the air).

        Raises
        ------
        SceneError
            When a saved Payload's body is missing from the game, or a held one's pose.
        """
        g = self.game
        for k, w in data.get("weapons", {}).items():
            state = self._weapon_state(k)
            state.loaded, state.inoperative = bool(w["loaded"]), bool(w["inoperative"])
            state.reloaded_turn, state.fired_turn = w["reloaded_turn"], w["fired_turn"]
        self.ammo_xsize.update({k: int(v) for k, v in data.get("ammo_xsize", {}).items()})
        for d in data.get("flights", []):
            f = Flight.from_dict(d)
            self.flights[f.id] = f
            if f.status != "held":
                continue
            pos, orn, _, _ = f.held_state()
            if f.body not in g.world.bodies:
                if not f.spawned:
                    raise SceneError(f"saved flight {f.id!r}: no body {f.body!r} in the game")
                self._spawn(f.body, f.spawned, np.array(pos))
            g.world.set_pose(f.body, pos, orn)
            g.bodies[f.body].explosive_dice = 0 if f.dud else f.explosive_dice
            if f.armed:
                g.bodies[f.body].kind = "payload"
            self._holds[f.id] = pj.hold(g.world, f.body)

    # ------------------------------------------------------------------ actions
    @handles(ThrowAction)
    def _throw_action(self, action: ThrowAction, index: int) -> None:
        self._throw(action, index)
        for t in action.throwers:
            effects.spend_action(self.game, t)

    def _body(self, key: str, where: str):
        st = self.game.bodies.get(key)
        if st is None or key not in self.game.world.bodies:
            raise SceneError(f"{where}: no body {key!r} on the table")
        if st.damage.destroyed:
            raise RulesError(f"{where}: {st.name} is destroyed")
        return st

    def _explosive(self, key: str):
        if key in self.spawned_explosives:
            return self.spawned_explosives[key]
        return next((e for e in self.game.spec.explosives if e.body == key), None)

    def fire_rocket_weapon(self, unit: str, prof, target: str, player: str,
                           action_die: int, variant: str = "explosive",
                           variants: tuple[str, ...] = ()) -> str:
        """A unit's hand-held Rocket weapon fires at ``target`` (BrikWars 8.4 Rockets): an XSize
        ``prof.size`` Rocket (a 1x4 brick) leaves from in front of the firer's eyes and flies
        straight at the target's centre at 240 in/s, 12" a turn (a red-brick X marks a target
        farther away); the Action Roll against Use is made on arrival, a Missed Shot comes down
        where the defender chooses, and the Explosion is the engine's one explosion. Returns
        the flight id. ``variant``/``variants``: the Rocket's Explosive Variants (8.4).

        Raises
        ------
        RulesError
            The Rocket cannot be placed in front of the firer.
        """
        g = self.game
        n = sum(1 for k in self.spawned_explosives) + 1
        key = f"{unit}-rocket{n}"
        while key in g.bodies:
            n += 1
            key = f"{unit}-rocket{n}"
        eye = g.eye(unit)
        lo, hi = g.bounds(target)
        aim = (lo + hi) / 2
        d = aim - eye
        d = d / max(float(np.linalg.norm(d)), 1e-9)
        lo_u, hi_u = g.bounds(unit)
        reach = float(np.linalg.norm((hi_u - lo_u)[:2])) / 2 + 1.0
        muzzle = eye + d * reach
        xsize = max(1, int(round(prof.size)))  # a Rocket weapon's Size is its XSize (8.4)
        self.spawned_explosives[key] = ExplosiveBody(body=key, xsize=xsize, stability="unstable",
                                                     variant=variant, variants=list(variants))
        self._spawn(key, {"part": "3010", "colour": 4,
                          "name": f"{prof.name} of {g.bodies[unit].name}"}, muzzle)
        g.bodies[key].owner = player
        a = RocketAction(type="rocket", player=player, turn=g.turn, rocket=key,
                         target=tuple(float(v) for v in aim), target_body=target,
                         action_die=action_die, id=key)
        self._rocket(a, 0, ignore=[unit])
        return key

    def _mount(self, wid: str, where: str):
        m = next((m for m in self.game.spec.launchers if m.id == wid), None)
        if m is None:
            raise SceneError(f"{where}.weapon {wid!r} is not one of the [[launchers]]")
        return m

    def _weapon_state(self, wid: str) -> WeaponState:
        if wid not in self.weapons:
            m = self._mount(wid, "weapon")
            self.weapons[wid] = WeaponState(weapon_profile(m.type, m.size), loaded=m.loaded)
        return self.weapons[wid]

    def _in_loading_area(self, mount, key: str, where: str) -> None:
        pos = self.game.world.pose(key)[0]
        d = float(np.linalg.norm(pos - np.asarray(mount.loading_area)))
        if d > mount.loading_radius + 1e-9:
            raise RulesError(f"{where}: {key!r} is {d:.2f}\" from the loading area of "
                             f"{mount.id!r} (at most {mount.loading_radius:g}\")")

    @handles(ReloadAction)
    def _reload(self, a: ReloadAction, index: int) -> None:
        g = self.game
        where = f"actions[{index}]"
        mount = self._mount(a.weapon, where)
        self._body(a.ammo, where)
        ex = self._explosive(a.ammo)
        if ex is None:
            raise RulesError(f"{where}: {a.ammo!r} is not an Explosive (list it in [[explosives]])")
        self._in_loading_area(mount, a.ammo, where)
        state = self._weapon_state(a.weapon)
        state.reload(g.turn, ammo_xsize=ex.xsize)
        self.ammo_xsize[a.weapon] = ex.xsize
        g.log("reload", f"{a.player} Reloads {state.weapon.name} {a.weapon!r} with XSize "
              f"{ex.xsize} Ammo ({a.ammo}); it fires again next turn", action="reload",
              weapon=a.weapon, ammo=a.ammo, xsize=ex.xsize)

    # ------------------------------------------------------------------ launching
    @handles(LaunchAction)
    def _launch(self, a: LaunchAction, index: int) -> None:
        g = self.game
        where = f"actions[{index}]"
        mount = self._mount(a.weapon, where)
        state = self._weapon_state(a.weapon)
        prof = state.weapon
        for key in a.payload:
            self._body(key, where)
            self._in_loading_area(mount, key, where)
        exps = [self._explosive(k) for k in a.payload]
        if prof.weapon_type is WeaponType.CANNON:
            if not state.loaded:
                raise RulesError(f"{where}: Cannon {a.weapon!r} is not loaded: Reload it first")
            if len(a.payload) != 1 or exps[0] is None:
                raise RulesError(f"{where}: a Cannon fires one round of Explosive Ammo lying in "
                                 f"its breech, got {a.payload}")
            check_payload(prof, explosive_xsizes=[exps[0].xsize])
        else:
            if any(e is not None for e in exps) and any(e is None for e in exps):
                raise RulesError(f"{where}: a load is either Explosives or objects, not both")
            if exps[0] is not None:
                check_payload(prof, explosive_xsizes=[e.xsize for e in exps])
            else:
                check_payload(prof, object_sizes_in=[g.bodies[k].stats.size for k in a.payload])
            state.loaded = True  # the Payload is in the loading area: the Launcher is loaded
        state.fire(g.turn)
        speed = a.speed or math.sqrt(g.world.gravity * _stat(prof, prof.range_in, "Range"))
        g.log("fire", f"{a.player} fires {prof.name} {a.weapon!r} at "
              f"{np.round(a.target, 2).tolist()} ({len(a.payload)} Action Roll(s))",
              action="launch", weapon=a.weapon, payload=list(a.payload), target=list(a.target))
        for n, key in enumerate(a.payload):
            ex = exps[n]
            body, spawned = key, None
            if prof.weapon_type is WeaponType.CANNON:
                # The Ammo is never used up (8.4 Ammunition): the round fired is a new shell.
                body = f"{a.id or a.weapon}_shell_t{g.turn}"
                spawned = {"part": "3005", "colour": 0, "name": f"XSize {ex.xsize} shell"}
                self._spawn(body, spawned, np.asarray(mount.muzzle))
            fid = a.id if (a.id and len(a.payload) == 1) else f"{a.id or a.weapon}-{g.turn}-{n + 1}"
            f = self._new_flight(
                fid, body, a, kind="cannon" if spawned else "launcher", weapon=prof.name,
                use=prof.use, range_in=prof.range_in, action_die=a.action_die,
                muzzle=np.asarray(mount.muzzle), speed=speed, arc=a.arc, explosive=ex,
                ignore=[mount.creation] if mount.creation else [])
            f.spawned = spawned
            self._start(f)

    @handles(RocketAction)
    def _rocket(self, a: RocketAction, index: int, ignore: Sequence[str] = ()) -> None:
        g = self.game
        where = f"actions[{index}]"
        st = self._body(a.rocket, where)
        ex = self._explosive(a.rocket)
        if ex is None:
            raise RulesError(f"{where}: Rocket {a.rocket!r} must be listed in [[explosives]]")
        prof = weapon_profile("Rocket", ex.xsize)
        lo, hi = g.world.aabb(a.rocket)
        muzzle = (lo + hi) / 2
        g.log("fire", f"{a.player} fires {prof.name} {st.name} at "
              f"{np.round(a.target, 2).tolist()}" + (" (tracking)" if a.tracking else ""),
              action="rocket", body=a.rocket, target=list(a.target), tracking=a.tracking)
        f = self._new_flight(a.id or a.rocket, a.rocket, a, kind="rocket", weapon=prof.name,
                             use=prof.use, range_in=prof.range_in, action_die=a.action_die,
                             muzzle=muzzle, speed=a.speed, arc="straight", explosive=ex,
                             ignore=pj.contacts_of(g.world, a.rocket) + list(ignore))
        f.straight, f.tracking = True, bool(a.tracking)
        self._start(f)

    def _throw(self, a: ThrowAction, index: int) -> None:
        g = self.game
        where = f"actions[{index}]"
        throwers = [self._body(t, where) for t in a.throwers]
        st = self._body(a.payload, where)
        prof = throwing_arm([t.stats.size for t in throwers])
        ex = self._explosive(a.payload)
        size = float(ex.xsize) if ex is not None else float(st.stats.size)
        if ex is not None:
            # Explosives up to the arms' XSize; a Size 0" body of XSize 1 is a hand grenade,
            # which one minifig's ½" arm throws (8.4 Thrown Minifig Weapons).
            if ex.xsize > prof.max_payload_xsize and not (ex.xsize == 1 and st.stats.size < 1.0):
                raise RulesError(f"{where}: {st.name} (XSize {ex.xsize}, Size "
                                 f"{st.stats.size:g}\") is too big for {prof.name} (max "
                                 f"Explosive Payload XSize {prof.max_payload_xsize}; a grenade "
                                 "is XSize 1 under Size 1\")")
        elif math.floor(size + 1e-9) > _stat(prof, prof.max_payload_size_in, "Payload Size") + 1e-9:
            raise RulesError(f"{where}: {st.name} (Size {size:g}) is too big for "
                             f"{prof.name} (max Payload Size {prof.max_payload_size_in:g}\")")
        lo, hi = g.world.aabb(a.throwers[0])
        muzzle = np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2,
                           hi[2] + THROW_RELEASE_ABOVE_IN])
        die = min(t.stats.action_die for t in throwers)
        use = int(math.floor(size)) + 1
        g.log("fire", f"{', '.join(t.name for t in throwers)} throw {st.name} at "
              f"{np.round(a.target, 2).tolist()} ({prof.name}, Range 3\")", action="throw",
              throwers=list(a.throwers), body=a.payload, target=list(a.target))
        speed = math.sqrt(g.world.gravity * max(_stat(prof, prof.range_in, "Range"), 1e-3))
        f = self._new_flight(a.id or f"throw-{a.payload}", a.payload, a, kind="throw",
                             weapon=prof.name, use=use, range_in=prof.range_in, action_die=die,
                             muzzle=muzzle, speed=speed, arc=a.arc, explosive=ex,
                             ignore=list(a.throwers))
        self._start(f)

    def _spawn(self, key: str, spec: dict, centre: np.ndarray) -> None:
        g = self.game
        if key in g.bodies:
            raise SceneError(f"a body called {key!r} already exists")
        asset = build_part_asset(spec["part"], spec["colour"], g.ldrawdir)
        lo, hi = asset.bounds()
        asset.transform(np.eye(3), np.asarray(centre, float) - (lo + hi) / 2)
        g.add_body(key, "payload", spec["name"], None, Stats(size=0.5, armor=0), asset)

    def _new_flight(self, fid, body, a, *, kind, weapon, use, range_in, action_die, muzzle, speed,
                    arc, explosive, ignore) -> Flight:
        g = self.game
        if fid in self.flights:
            raise SceneError(f"a flight called {fid!r} already exists (give the action an 'id')")
        target = np.asarray(a.target, float)
        d = float(math.hypot(*(target[:2] - muzzle[:2])))
        tsize = 1.0
        if a.target_body is not None:
            tsize = self._body(a.target_body, "target_body").stats.size
        st = g.bodies[body]
        ground_z, _ = pj.surface_below(g.world, target[:2], target[2] + 0.01, ignore=[body])
        f = Flight(
            id=fid, body=body, player=a.player, kind=kind, weapon=weapon, use=int(use),
            range_in=range_in, action_die=int(action_die), origin=_round(muzzle),
            aim=_round(target), marker=_round([target[0], target[1], min(ground_z, target[2])]),
            distance_in=round(d, 5), remaining_in=round(d, 5), launched_turn=g.turn,
            target_body=a.target_body, target_size_in=float(tsize), unseen=bool(a.unseen),
            arc=arc, speed=float(speed),
            explosive_dice=explosive.xsize if explosive is not None else 0,
            stability=explosive.stability if explosive is not None else "",
            crash_dice=0 if explosive is not None else crash_dice(st.stats.armor),
            miss_spot=list(a.miss_spot) if a.miss_spot is not None else None,
            dud_choice=a.dud, ignore=[k for k in ignore if k and k != body],
            melee_size=next((m.size for m in getattr(g.spec, "melee_payloads", [])
                             if m.body == body and explosive is None), 0))
        if a.target_body is not None:
            lo, hi = g.world.aabb(a.target_body)
            f.target_seen = _round((lo + hi) / 2)
        return f

    def _start(self, f: Flight) -> None:
        """Put the Payload at the muzzle, mark the target, aim, fly the first leg."""
        g = self.game
        self.flights[f.id] = f
        _, orn = g.world.pose(f.body)
        g.world.set_pose(f.body, f.origin, orn)
        for other in f.ignore:
            if other in g.world.bodies:
                pj.set_collides(g.world, f.body, other, False)
        f.armed = f.explosive_dice > 0
        g.bodies[f.body].explosive_dice = f.explosive_dice
        if f.armed:
            # A fired Explosive is a Payload: the game's impact handling sets it off on its
            # first impact, in flight or when struck while held (armed: Unstable, 8.4).
            g.bodies[f.body].kind = "payload"
        g.record_frame(force=True)
        if f.distance_in > TURN_FLIGHT_IN + 1e-9:
            g.log("marker", f"{f.weapon}: target {f.distance_in:.1f}\" away, more than "
                  f"{TURN_FLIGHT_IN:g}\": a red-brick X marks {np.round(f.marker, 2).tolist()}; "
                  "the Action Roll waits for arrival", flight=f.id, marker=f.marker,
                  distance=f.distance_in)
            velocity = self._aim(f, np.array(f.origin), np.array(f.aim), None)
        else:
            velocity = self._roll_and_aim(f, np.array(f.origin), None)
        g.world.set_velocity(f.body, velocity)
        if f.straight:
            self._point_along(f, velocity)
        g.log("launch", f"{g.bodies[f.body].name} leaves at {np.linalg.norm(velocity):.1f} in/s",
              flight=f.id, body=f.body, velocity=_round(velocity), state=f.to_dict())
        self._fly(f)

    # ------------------------------------------------------------------ aiming and rolling
    def _aim(self, f: Flight, pos: np.ndarray, aim: np.ndarray, current: np.ndarray | None):
        """Velocity (3,) in/s from ``pos`` to ``aim``: a straight line for Rockets, else the arc
        named by ``f.arc`` at ``f.speed`` (the least-speed arc when that speed cannot reach)."""
        if f.straight:
            d = aim - pos
            return d / max(float(np.linalg.norm(d)), 1e-9) * f.speed
        speed = f.speed if current is None else float(np.linalg.norm(current))
        sols = pj.solve_launch(pos, aim, speed, self.game.world.gravity)
        if not sols:
            return np.array(pj.minimum_speed_launch(pos, aim, self.game.world.gravity).velocity)
        if current is not None:
            elev = math.atan2(current[2], math.hypot(current[0], current[1]))
            best = min(sols, key=lambda s: abs(s.elevation - elev))
        else:
            best = next((s for s in sols if s.arc == f.arc), sols[0])
        return np.array(best.velocity)

    def _roll_and_aim(self, f: Flight, pos: np.ndarray, current: np.ndarray | None) -> np.ndarray:
        """Make the Action Roll; re-aim at the aim point or at the defender's miss spot."""
        g = self.game
        mods = []
        if f.range_in is not None:
            mods.append(out_of_range_modifier(f.distance_in, f.range_in))
        if f.target_body is not None:
            mods.append(target_modifier(f.target_size_in))
        if f.unseen:
            # F.3: "the Marked target is considered visible to all allies" (8.4: the -5 "can be
            # circumvented by using a Scout's Tracking ability")
            target = f.target_body
            scout = (g.system("hazards").marked_by(f.player, target)
                     if target is not None else None)
            if scout is None or target is None:
                mods.append(UNSEEN_TARGET)
            else:
                g.log("mark_sight", f"{g.bodies[target].name} is Marked by "
                      f"{g.bodies[scout].name}: visible to all his allies, no -5 for an unseen "
                      "target (F.3)", flight=f.id, body=target, scout=scout)
        roll = action_roll(g.dice.stream("projectile"), f.action_die, f.use,
                           [m for m in mods if m is not None],
                           f"{f.weapon} ({g.bodies[f.body].name}): Action Roll")
        f.rolled, f.hit = True, roll.hit
        # the shot's Out of Range penalty lands on each Damage die, its Over the Top dice add
        # to the Damage (Crash, Explosion), as for every other attack (8.4, 5.1)
        f.per_die_modifier = sum(m.damage for m in mods if m is not None and m.damage_per_die)
        if f.explosive_dice:
            charge = g.system("blasts").charge_of(f.body)
            if charge is not None:
                charge.per_die_modifier = f.per_die_modifier
                charge.bonus_dice = int(roll.over_the_top_dice) if roll.hit else 0
        aim = np.array(f.aim, float)
        if roll.hit:
            f.bonus_dice = int(roll.over_the_top_dice)
            g.log("attack", f"{f.weapon} hits: {roll.total} against Use {f.use}", flight=f.id,
                  hit=True, total=roll.total, use=f.use)
        else:
            dist = miss_distance(f.use, roll.total)
            line = aim[:2] - np.asarray(f.origin[:2])
            line = line / max(float(np.linalg.norm(line)), 1e-9)
            if f.miss_spot is not None:
                spot = np.array(f.miss_spot, float)
                source = "the scene's"
            else:
                spot = np.array(self.miss_chooser(MissContext(f, aim, dist, line)), float)
                source = "the defender's"
            off = float(np.linalg.norm(spot - aim[:2]))
            if off > dist + 1e-6:
                raise RulesError(f"flight {f.id!r}: miss spot {spot.tolist()} is {off:.2f}\" from "
                                 f"the aim point, more than the miss distance {dist:g}\"")
            ground_z, _ = pj.surface_below(g.world, spot, 200.0, ignore=[f.body])
            aim = np.array([spot[0], spot[1], 0.0])
            f.aim = _round(aim)
            if f.explosive_dice and roll.critical_failure:
                f.dud = bool(f.dud_choice if f.dud_choice is not None else self.dud_chooser(f))
            g.log("attack", f"{f.weapon} misses: {roll.total} against Use {f.use}; "
                  f"{source} choice lands it {off:.2f}\" away at {np.round(spot, 2).tolist()} "
                  f"(within {dist:g}\")" + (" — declared a Dud" if f.dud else ""),
                  flight=f.id, hit=False, total=roll.total, use=f.use, miss_distance=dist,
                  spot=_round(spot), critical_failure=roll.critical_failure, dud=f.dud)
            if f.dud:
                g.bodies[f.body].explosive_dice = 0
        f.remaining_in = round(float(math.hypot(*(aim[:2] - pos[:2]))), 5)
        return self._aim(f, pos, aim, current)

    # ------------------------------------------------------------------ turns
    def start_of_turn(self, turn: int) -> None:
        """Move every held Payload on by up to 12", making the Action Roll for those arriving."""
        g = self.game
        for f in list(self.flights.values()):
            if f.status != "held" or f.launched_turn >= turn:
                continue
            if f.body not in g.world.bodies or g.bodies[f.body].damage.destroyed:
                f.status = "exploded"
                continue
            position, orientation, velocity, angular = f.held_state()
            pj.release(g.world, f.body, self._holds.pop(f.id, -1), position, orientation,
                       velocity, angular)
            pos = np.array(position, float)
            vel = np.array(velocity, float)
            if f.tracking and f.target_body in g.world.bodies:
                vel = self._track(f, pos, vel)
            if f.remaining_in <= TURN_FLIGHT_IN + 1e-9:
                vel = self._roll_and_aim(f, pos, vel)
            g.world.set_velocity(f.body, vel, angular)
            if f.straight:
                self._point_along(f, vel)
            f.status = "flying"
            g.log("flight", f"{g.bodies[f.body].name} flies on ({f.remaining_in:.2f}\" to go)",
                  flight=f.id, body=f.body, state=f.to_dict())
            self._fly(f)

    def _track(self, f: Flight, pos: np.ndarray, vel: np.ndarray) -> np.ndarray:
        """Tracking Rocket: turn at most 45° toward where the target now is (8.4)."""
        g = self.game
        if f.target_body is None:  # tracks nothing: flies on as it was
            return vel
        lo, hi = g.world.aabb(f.target_body)
        now = (lo + hi) / 2
        if f.target_seen is not None and np.linalg.norm(now - np.array(f.target_seen)) < 0.05:
            return vel
        f.target_seen = _round(now)
        want = now - pos
        heading = vel / max(float(np.linalg.norm(vel)), 1e-9)
        want_dir = want / max(float(np.linalg.norm(want)), 1e-9)
        angle = float(np.arccos(np.clip(np.dot(heading, want_dir), -1.0, 1.0)))
        if angle <= ROCKET_TURN_RAD + 1e-9:
            new_dir, turned = want_dir, angle
        else:
            axis = np.cross(heading, want_dir)
            axis /= max(float(np.linalg.norm(axis)), 1e-12)
            t = ROCKET_TURN_RAD
            new_dir = (heading * math.cos(t) + np.cross(axis, heading) * math.sin(t)
                       + axis * np.dot(axis, heading) * (1 - math.cos(t)))
            turned = t
        aim = pos + new_dir * float(np.linalg.norm(want))
        f.aim = _round(aim)
        ground_z, _ = pj.surface_below(g.world, aim[:2], aim[2] + 0.01, ignore=[f.body])
        f.marker = _round([aim[0], aim[1], min(ground_z, aim[2])])
        f.remaining_in = round(float(math.hypot(*(aim[:2] - pos[:2]))), 5)
        g.log("tracking", f"{g.bodies[f.body].name} turns {math.degrees(turned):.1f}° toward "
              f"{f.target_body} (at most 45° a turn)", flight=f.id,
              turned_deg=round(math.degrees(turned), 4),
              aim=f.aim)
        return new_dir * f.speed

    # ------------------------------------------------------------------ flying
    def _fly(self, f: Flight) -> None:
        """Step the world while the Payload flies: until it strikes something, arrives, or has
        used this turn's 12" (then it is held where it is)."""
        g = self.game
        w = g.world
        key = f.body
        budget = TURN_FLIGHT_IN if not f.rolled else float("inf")
        flown = 0.0
        prev = w.pose(key)[0]
        origin = np.array(f.origin, float)
        ignoring = list(f.ignore)
        f.path.append(_round(prev))
        struck = False
        max_steps = int(FLIGHT_MAX_SECONDS / w.time_step)
        for n in range(max_steps):
            if f.straight and not f.descending:
                pj.hover_force(w, key)
            pj.guard_step(w, key, ignoring)
            events = w.step()
            mine = [e for e in events if key in (e.body_a, e.body_b)]
            rest = [e for e in events if e not in mine]
            if mine:
                struck = True
                self._strike(f, mine[0])
                rest = mine[1:] + rest
            g.handle_steps(w, rest)
            if key not in w.bodies:
                f.status = "exploded"
                break
            pos = w.pose(key)[0]
            step_h = float(math.hypot(pos[0] - prev[0], pos[1] - prev[1]))
            flown += step_h
            f.remaining_in = round(max(0.0, f.remaining_in - step_h), 5)
            prev = pos
            if n % 8 == 0:
                f.path.append(_round(pos))
            if ignoring and math.hypot(*(pos[:2] - origin[:2])) > CLEAR_OF_LAUNCHER_IN:
                for other in ignoring:
                    if other in w.bodies:
                        pj.set_collides(w, key, other, True)
                ignoring = []
            if struck:
                break
            if pos[2] < LOST_BELOW_Z_IN:
                f.status = "lost"
                g.log("lost", f"{g.bodies[key].name} flies off the battlefield", flight=f.id)
                w.remove(key)
                break
            if f.rolled and f.hit and not f.descending and f.remaining_in <= 1e-6:
                # 8.4: on a hit the Payload reaches the spot above the target, then goes
                # straight down.
                f.descending = True
                v, _ = w.velocity(key)
                w.set_velocity(key, (0.0, 0.0, -max(float(np.linalg.norm(v)), 1.0)))
            if flown >= budget - 1e-9:
                self._hold(f)
                return
        f.path.append(_round(prev))
        for other in ignoring:
            if other in w.bodies and key in w.bodies:  # an exploded Payload is gone
                pj.set_collides(w, key, other, True)
        if f.status == "flying":
            f.status = "landed"
        g.settle(max_seconds=LANDING_MAX_SECONDS)
        if key in w.bodies:
            pos = w.pose(key)[0]
            f.position = _round(pos)
            off = float(math.hypot(pos[0] - f.aim[0], pos[1] - f.aim[1]))
            if f.dud and key in g.bodies:
                # A Dud stays armed and Unstable: the next impact or Damage sets it off.
                g.bodies[key].explosive_dice = f.explosive_dice
            g.log("landed", f"{g.bodies[key].name} comes to rest {off:.2f}\" from its aim point",
                  flight=f.id, body=key, position=f.position, off_aim=round(off, 4),
                  state=f.to_dict())
        else:
            g.log("landed", f"{f.body} is gone ({f.status})", flight=f.id, body=key,
                  position=f.position, state=f.to_dict())
        g.log("rest", f"Everything is at rest at {w.time:.2f} s")

    def _hold(self, f: Flight) -> None:
        g = self.game
        pos, orn = g.world.pose(f.body)
        lin, ang = g.world.velocity(f.body)
        f.position, f.orientation = _round(pos), [round(float(v), 7) for v in orn]
        f.velocity, f.angular = _round(lin), _round(ang)
        f.status = "held"
        f.turns_flown += 1
        f.path.append(_round(pos))
        self._holds[f.id] = pj.hold(g.world, f.body)
        g.record_frame(force=True)
        g.log("held", f"{g.bodies[f.body].name} has flown its 12\" this turn and hangs at "
              f"{np.round(pos, 2).tolist()}, {f.remaining_in:.2f}\" short of the target",
              flight=f.id, body=f.body, state=f.to_dict())

    def _strike(self, f: Flight, ev) -> None:
        """First impact of a flying Payload: Explosives explode (the game's impact handling),
        other Payloads do Crash Damage to what they struck (8.4 Payload Launchers)."""
        g = self.game
        other = ev.body_b if ev.body_a == f.body else ev.body_a
        f.position = _round(ev.position)
        if g.bodies[f.body].explosive_dice or other == "ground" or other not in g.bodies:
            g.impact(ev)
            return
        victim = g.bodies[other]
        g.log("impact", f"{g.bodies[f.body].name} strikes {victim.name} at "
              f"{ev.normal_speed:.1f} in/s", **ev.to_dict())
        if victim.damage.destroyed:
            return
        if f.melee_size:
            self._close_combat_damage(f, victim)
            return
        # 8.4: a d6 per d10 of the Payload's Armor, with the Action Roll's Over the Top dice
        # and its Out of Range penalty on each die, like every other attack
        crash = DiceExpression(f.crash_dice, 6) if f.crash_dice else None
        if crash is None:
            return
        roll = crash.roll(g.dice.stream("collision"),
                          f"Crash Damage of {g.bodies[f.body].name} to {victim.name}",
                          per_die_modifier=f.per_die_modifier, bonus_dice=f.bonus_dice)
        effects.strike(g, victim, roll, "Crash Damage", attacker=f.body,
                       dice=[(r.sides, r.result) for r in roll.rolls])

    def _close_combat_damage(self, f: Flight, victim) -> None:
        """A launched or thrown Melee Weapon strikes: Close Combat Damage (BrikWars 8.4).

        "Launched Melee Weapons do Damage as if they had hit the target in a Close Combat
        attack": a Size N" Melee Weapon does N Action dice (the firer's Action die,
        :attr:`Flight.action_die`), plus the Action Roll's Over the Top dice, less 1 a die for
        each inch Out of Range (5.1), on stream ``damage``; the total goes against the target's
        Armor. No Crash Damage is rolled for the weapon itself.
        """
        g = self.game
        prof = weapon_profile(WeaponType.MELEE_WEAPON, f.melee_size)
        mods = []
        if f.range_in is not None:
            mods.append(out_of_range_modifier(f.distance_in, f.range_in))
        if not isinstance(prof.damage, DiceExpression):  # a Melee Weapon's: N Action dice
            raise RulesError(f"{prof.name} has no Damage dice")
        roll = roll_damage(g.dice.stream("damage"), prof.damage,
                           [m for m in mods if m is not None], bonus_dice=f.bonus_dice,
                           action_die=f.action_die,
                           reason=f"{prof.name} ({g.bodies[f.body].name}) Close Combat Damage "
                                  f"to {victim.name}")
        g.log("melee_impact", f"{g.bodies[f.body].name} strikes {victim.name} as a "
              f"{prof.name}: {roll.total} Close Combat Damage ({prof.damage} of d{f.action_die}"
              + (f", +{f.bonus_dice} Over the Top" if f.bonus_dice else "") + ")",
              flight=f.id, body=f.body, victim=victim.key, damage=int(roll.total),
              weapon_size=f.melee_size)
        effects.strike(g, victim, roll, f"Close Combat Damage ({prof.name})", weapon=prof,
                       attacker=f.body, melee=True)

    def _point_along(self, f: Flight, velocity) -> None:
        """Turn a Rocket so its nose points along ``velocity`` (in/s), about its centre of mass.

        The nose is the Rocket's longest side as it stands on its launcher (the world axis of
        its largest bounds, signed toward the first flight direction), kept in the body frame
        in :attr:`Flight.nose`. Its spin is stopped: a Rocket flies straight (8.4).
        """
        g = self.game
        v = np.asarray(velocity, float)
        speed = float(np.linalg.norm(v))
        if speed < 1e-9:
            return
        want = v / speed
        pos, orn = g.world.pose(f.body)
        rot = quat_to_matrix(orn)
        if f.nose is None:
            lo, hi = g.world.aabb(f.body)
            axis = np.zeros(3)
            k = int(np.argmax(hi - lo))
            axis[k] = 1.0 if want[k] >= 0 else -1.0
            f.nose = _round(rot.T @ axis)
        nose = rot @ np.asarray(f.nose, float)
        nose /= max(float(np.linalg.norm(nose)), 1e-12)
        turn = _rotation_between(nose, want)
        quat = matrix_to_quat(turn @ rot)
        g.world.set_pose(f.body, pos, quat)
        g.world.set_velocity(f.body, v, (0.0, 0.0, 0.0))
        f.orientation = [round(float(q), 7) for q in quat]
        f.velocity = _round(v)


def _rotation_between(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The smallest rotation (3, 3) taking unit vector ``a`` onto unit vector ``b`` (Rodrigues).

    Examples
    --------
    >>> r = _rotation_between(np.array([1.0, 0, 0]), np.array([0, 1.0, 0]))
    >>> np.round(r @ [1, 0, 0], 9).tolist()
    [0.0, 1.0, 0.0]
    """
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    axis = np.cross(a, b)
    s = float(np.linalg.norm(axis))
    c = float(np.clip(np.dot(a, b), -1.0, 1.0))
    if s < 1e-12:
        if c > 0:
            return np.eye(3)
        # half a turn about any axis perpendicular to a
        perp = np.cross(a, [1.0, 0.0, 0.0])
        if np.linalg.norm(perp) < 1e-6:
            perp = np.cross(a, [0.0, 1.0, 0.0])
        perp /= np.linalg.norm(perp)
        return 2.0 * np.outer(perp, perp) - np.eye(3)
    k = axis / s
    kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + s * kx + (1.0 - c) * (kx @ kx)
