"""The one game engine: every way of playing (a scene script, the tabletop window, a loaded
save, a replay check, later the network and batch runs) drives a :class:`Game` with the same
actions through the same turns.

``engine/`` is the only layer that sequences things (DESIGN.md): apply an action, step physics
until everything rests, hand what physics reports to the game's systems, log. It names no game:
the scene's ``game`` picks a :class:`~sandbox.engine.kinds.GameKind` (``sandbox/games/<name>``)
whose systems bring every rule (BrikWars' Collision Damage, Armor, falling over when destroyed,
Smoke blocking sight are hooks of its systems).

- **Actions** (:mod:`.actions`): one registry; :meth:`Game.apply` takes an action or its dict
  form, asks :meth:`Game.refusal` first (a refused action changes nothing and is never logged)
  and hands it to the system that registered its ``type``.
- **Turn machine**: turn ``n`` begins (``start_of_turn`` hooks), then each player in turn
  order has a phase (``start_of_player_turn`` … actions … :meth:`end_turn`,
  ``end_of_player_turn``); after the last player the turn ends (``end_of_turn``) and the next
  begins. The same hooks run whether a script, a window key or a loaded save ended the turn.
- **Systems** (:class:`~sandbox.engine.table.System`): the game kind's, in its hook order, then
  the players' hands (:class:`~sandbox.engine.table_tools.TableTools`); each is called through
  the fixed hook names, reaches the table only through this class's public methods and
  another system through ``table.system(Class)``.
- **Events** (:mod:`.events`): typed records with one ``type`` each, appended to
  :attr:`Game.events` (the JSON-lines log) and handed to subscribers.

A game is its scene, its seed and its action log (DESIGN.md, Determinism): undo and loading a
save rebuild the game from those; :meth:`Game.state_hash` proves two paths agree.
"""

from __future__ import annotations

import copy
import hashlib
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence, TypeVar, overload

import numpy as np

from ..core.brikpack import is_pack, open_pack, resolve_scene_dir, scene_dir_for_save
from ..core.dice import Dice, seed_refusal
from ..core.errors import OutputError, ReplayError, RulesError, SandboxError, SceneError
from ..core.limits import (
    FileRefused,
    how_to_raise,
    limit,
    over_limit,
    read_input_bytes,
    reason,
    strict_json_loads,
)
from ..core.units import Vec
from ..physics.queries import overlaps
from ..physics.rays import RayHit, overlapping_bodies, ray_first_hit
from ..physics.world import ImpactEvent, PhysicsWorld, WorldSnapshot
from .actions import MAX_TURN, Action, EndTurnAction, action_dict, action_names, parse_action
from .assets import BodyAsset, build_asset
from .events import EventBus, make_event, possessive
from .kinds import game_kind, system_names
from .measure import Measurement, SightLine, edge_point, footprint_gap
from .outcome import UNDECIDED, Outcome
from .replay import Recorder, Replay, atomic_write_bytes
from .scene import (
    SceneSpec,
    load_scene,
    naming_the_file,
    scene_from_dict,
    scene_to_dict,
)
from .table import (
    EYE_FRACTION,
    MAX_ACTION_SECONDS,
    MOVE_LIFT_IN,
    NEUTRAL_PLAYER,
    OFF_TABLE_DEPTH_IN,
    SETTLE_SECONDS,
    STEPS_PER_FRAME,
    ActionSpent,
    BodyState,
    System,
)
from .table_tools import TableTools

#: Save file format name and version (version 2: the log holds every action, end of turn too).
SAVE_FORMAT = "brikwars-sandbox-save"
SAVE_VERSION = 2
#: The state hash rounds positions to this many decimals of an inch (and quaternions alike).
CHECKSUM_DECIMALS: int = 3
#: Creations or units interpenetrating deeper than this at set-up are warned about (inches).
OVERLAP_WARN_IN: float = 0.02
#: A body tilted less than 45 degrees from how it was put on the table stands (cosine).
UPRIGHT_COS: float = 0.7071
#: Most turns a script may run past its last action while Payloads are still in flight.
MAX_EXTRA_TURNS: int = 20
#: Undo snapshots kept: the state before each of the last this many actions (older actions are
#: undone by rebuilding from the log).
UNDO_SNAPSHOTS: int = 32
#: The engine's own state an undo snapshot copies (besides every System's and the world's).
_SNAPSHOT_FIELDS = ("dice", "bodies", "warnings", "_rolls_logged", "turn", "player_index",
                    "over", "players", "_outcome")

__all__ = ["Game", "open_game", "BodyState", "STEPS_PER_FRAME", "MAX_ACTION_SECONDS",
           "SAVE_FORMAT", "SAVE_VERSION", "possessive"]

S = TypeVar("S", bound=System)


@dataclass
class _Snapshot:
    """The game just before one action (see :meth:`Game.undo`)."""

    physics: WorldSnapshot
    state: dict  # deep copies of _SNAPSHOT_FIELDS and of every System's attributes
    assets: dict
    n_events: int
    recording: tuple


class Game:
    """One game on the table: bodies, physics, dice, systems, the turn machine, the log.

    Parameters
    ----------
    spec : SceneSpec
        The validated scene.
    base_dir : Path
        Folder that model paths in the scene are relative to.
    ldrawdir : str or Path, optional
        LDraw library (else ``LDRAWDIR``; with none, the built-in catalogue).
    seed : int, optional
        Overrides the scene's seed.
    on_event : callable, optional
        Called with every event as it happens (the CLI prints them).
    actions : sequence of actions or dicts, optional
        An action log played at once (a loaded game).
    forced_dice : bool
        Use the scene's ``forced_dice`` (True: scripted runs, tests, replays re-enacting the
        book's examples); False: live play at the table rolls only seeded dice. Saves and
        replays record it, so a load replays identically.
    referee : bool
        The table has a referee (``sandbox play --referee``; a server with a referee seat):
        actions issued ``by="referee"`` are accepted, and an action the acting player may not
        issue (a referee's tool, another player's unit, more than a unit's Move) is issued by
        the referee when it is applied without ``by`` (see :meth:`issue`). Saves record it.

    The table is built (and settles) in the constructor; the scene's scripted ``actions`` are
    not played until :meth:`play_script` (``sandbox run``): at the table, players act.

    Raises
    ------
    SceneError, LDrawError
        A model cannot be read or placed.
    """

    #: The physics of the table (built by :meth:`_build`, rebuilt by undo and loads).
    world: PhysicsWorld
    #: Where the scene's files came from when that is not ``base_dir``: the ``.brikpack`` it
    #: was unpacked from (saves record it, so they reopen the pack).
    scene_origin: Path | None = None

    def __init__(self, spec: SceneSpec, base_dir: str | Path, ldrawdir: str | Path | None = None,
                 seed: int | None = None, on_event: Callable[[dict], None] | None = None,
                 actions: Sequence = (), forced_dice: bool = True, referee: bool = False):
        self.spec = spec
        self.forced_dice = bool(forced_dice)
        #: The table has a referee (see the class notes).
        self.referee = bool(referee)
        #: > 0 while the engine plays what the referee issued (a scene script, a logged game
        #: replayed): actions ``by="referee"`` are accepted then, whatever :attr:`referee` says.
        self._trusted = 0
        self.base_dir = Path(base_dir)
        self.ldrawdir = ldrawdir
        if seed is not None and seed_refusal(seed):
            raise SceneError(seed_refusal(seed))
        self.seed = spec.seed if seed is None else int(seed)
        self.closed = False
        #: Held while an action is applied: the Game API is not thread-safe, and a second
        #: thread's :meth:`apply` meanwhile is refused (RulesError) rather than interleaved.
        self._apply_lock = threading.RLock()
        self._on_event = on_event
        self._models: dict = {}  # parsed LDraw models, shared between rebuilds
        self._snapshots: dict[int, _Snapshot] = {}  # action index -> the game before it
        #: Kept for callers of the previous undo (a rebuild deferred to the next action): never
        #: set now. A restored snapshot is exact for what follows too, because every action
        #: starts and ends with Bullet's contact caches in one canonical order
        #: (PhysicsWorld.canonicalize) and the world's sleep state is in the snapshot.
        self._resync = False
        #: Undo snapshots this game keeps (:data:`UNDO_SNAPSHOTS`; 0: none, every undo
        #: rebuilds: a scripted run that is never undone sets it to save their cost).
        self.undo_snapshots = UNDO_SNAPSHOTS
        #: Increases each time the game is rebuilt (undo, load): views must rebuild their nodes.
        self.generation = 0
        #: The world's nap (PhysicsWorld.naps) whose poses the recorder already holds.
        self._recorded_nap: int | None = None
        self._build()
        self._replay_log([parse_action(a, f"actions[{i}]") for i, a in enumerate(actions)])

    # ================================================================== building
    def _build(self) -> None:
        """A fresh table: world, dice, systems, bodies; settle; turn 1 begins."""
        old: PhysicsWorld | None = self.__dict__.get("world")  # None before the first build
        if old is not None:
            old.close()
        self._snapshots = {}  # their pybullet states went with the world
        self._resync = False
        self._recorded_nap = None
        spec = self.spec
        self.dice = Dice(self.seed, forced=spec.forced_dice if self.forced_dice else None)
        self.world = PhysicsWorld()
        self.recorder = Recorder(self.world.time_step * STEPS_PER_FRAME)
        self.events: list[dict] = []
        self.bus = EventBus()
        if self._on_event is not None:
            self.bus.subscribe(None, self._on_event)
        self.bodies: dict[str, BodyState] = {}
        self.assets: dict[str, BodyAsset] = {}
        self.warnings: list[str] = []
        self._rolls_logged: dict[str, int] = {}
        #: Each body's "up" in its own frame, as it was put on the table (units stand).
        self._up_in_body: dict[str, np.ndarray] = {}
        self.actions: list[Action] = []
        self.turn = 1
        self.player_index = 0
        self.over = False
        #: How the game ended (None while it goes on; see :attr:`outcome`).
        self._outcome: Outcome | None = None
        self._touched = False
        self.kind = game_kind(spec.game)
        #: The systems the scene's game brings, in the order their hooks run (this order is
        #: part of the rules' sequencing; see the game's ``kind`` module).
        self.game_systems: list[System] = self.kind.build(self)
        #: The players' own hands: dice tray, done marks, rulers and templates, carrying.
        self.tools = TableTools(self)
        self.systems: list[System] = [*self.game_systems, self.tools]
        self._by_class: dict[type, System] = {}
        self._handlers: dict[str, System] = {}
        for s in self.systems:
            for cls in s.actions:
                for name in action_names(cls):
                    self._handlers[name] = s
        self.players = self._turn_order()
        self.turn = 0  # the set-up happens before turn 1
        self._setup()
        self.generation += 1
        self.turn = 1
        self._begin_turn()

    def _turn_order(self) -> list[str]:
        names = [p.name for p in self.spec.players] or [NEUTRAL_PLAYER]
        for s in self.systems:  # a system may order the players (the Escapade: underdogs first)
            order = s.player_order() if hasattr(s, "player_order") else None
            if order:
                return list(order) + [n for n in names if n not in order]
        return names

    def _setup(self) -> None:
        bf = self.spec.battlefield
        self.world.add_ground(bf.width, bf.depth)
        self.log("setup", f"Battlefield {bf.width:g}\" x {bf.depth:g}\", seed {self.seed}",
                 width=bf.width, depth=bf.depth, seed=self.seed)
        total = 0
        for kind, entries in (("creation", self.spec.creations), ("unit", self.spec.units)):
            for entry in entries:
                asset = self.build_asset(entry)
                total += asset.part_count
                if total > limit("parts"):  # before the next body's mesh is built
                    raise SceneError(f"{kind}s[{entry.id}]: the scene's bodies hold more than "
                                     f"{limit('parts')} parts in all ({how_to_raise('parts')})")
                self.add_body(entry.id, kind, entry.name or entry.id, entry.owner, entry.stats,
                              asset, static=entry.fixed)
        for entry in self.spec.reserves:
            # Read reserves' models now, so a bad one is reported before any action plays.
            self.build_asset(entry, placed=False)
        self._check_overlaps()
        self.record_frame(force=True)
        self.world.step_until_rest(max_seconds=SETTLE_SECONDS, on_step=self._on_step_quiet,
                                   impacts=False)  # nobody reads the set-up's impacts
        n = len(self.bodies)
        self.log("ready", f"{n} bod{'y' if n == 1 else 'ies'} on the table, at rest after "
                 f"{self.world.time:.2f} s", bodies=len(self.bodies))
        for s in self.systems:
            s.setup()

    def _check_overlaps(self) -> None:
        """Creations and units placed inside each other (a typo in a position): a warning
        naming both and the depth, for any overlap deeper than :data:`OVERLAP_WARN_IN`. The
        set-up settle that follows is quiet (no rules, no dice), so an overlap never rolls
        damage. (Not refused: scenes and tests put small payloads at one spot on purpose.)"""
        kinds = {e.id: f"{k}s[{e.id}]" for k, es in (("creation", self.spec.creations),
                                                     ("unit", self.spec.units)) for e in es}
        for a, b, depth in overlaps(self.world, list(self.bodies), OVERLAP_WARN_IN):
            where = f"{kinds.get(a, a)} and {kinds.get(b, b)}"
            text = (f"{where} overlap by {depth:.3f}\" at set-up (check their positions); "
                    "they are pushed apart")
            self.warnings.append(text)
            self.log("warning", text, body=a, other=b, depth_in=round(depth, 4))

    def build_asset(self, entry, placed: bool = True) -> BodyAsset:
        """The :class:`BodyAsset` of a scene entry (models parsed once per game)."""
        return build_asset(entry, self.base_dir, self.ldrawdir, placed=placed, cache=self._models)

    # ================================================================== the table interface
    @overload
    def system(self, which: type[S]) -> S: ...

    @overload
    def system(self, which: str) -> Any: ...

    def system(self, which):
        """This game's system of class ``which`` (typed: ``table.system(Skirmish)`` is a
        ``Skirmish``), or called ``which`` (``"hazards"``, ``"traps"`` …: untyped, for
        systems that cannot import each other's module; annotate what it gives).

        Raises
        ------
        KeyError
            No such system in this game.
        """
        if isinstance(which, str):
            for s in self.systems:
                if s.name == which:
                    return s
        else:
            found = self._by_class.get(which)
            if found is not None:
                return found
            for s in self.systems:
                if isinstance(s, which):
                    self._by_class[which] = s
                    return s
        name = which if isinstance(which, str) else which.__name__
        raise KeyError(f"no system {name!r} in this game (have {[s.name for s in self.systems]})")

    if not TYPE_CHECKING:  # drivers only: engine and game code is typed through system()
        def __getattr__(self, name: str) -> Any:
            """A system by its name, for drivers (the window, the network, odds):
            ``game.skirmish``, ``game.hazards``, ``game.escapade`` … ``None`` for a system some
            game kind has but this game does not (``game.escapade`` without an ``[escapade]``
            table, ``game.hazards`` in Brigandine). Engine and game code asks
            ``table.system(Class)`` instead (typed)."""
            if name.startswith("_") or "systems" not in self.__dict__:
                raise AttributeError(name)
            for s in self.__dict__["systems"]:
                if s.name == name:
                    return s
            if name in system_names():
                return None
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def log(self, type_: str, text: str, **fields) -> dict:
        """Publish an event (``{"type", "time", "turn", "text", ...}``): the log, then subscribers.

        Every die rolled since the last event is published first, as a ``roll`` event.
        """
        self._flush_rolls()
        ev = make_event(type_, round(self.world.time, 6), self.turn, text, fields)
        self._publish(ev)
        return ev

    def subscribe(self, type_: str | None, callback: Callable[[dict], None]) -> None:
        """Call ``callback(event)`` for every event of ``type_`` (None: every event)."""
        self.bus.subscribe(type_, callback)

    def _publish(self, ev: dict) -> None:
        self.events.append(ev)
        self.bus.publish(ev)

    def _flush_rolls(self) -> None:
        new = []
        for stream in self.dice.streams():
            done = self._rolls_logged.get(stream.name, 0)
            new.extend(stream.records[done:])
            self._rolls_logged[stream.name] = len(stream.records)
        for r in new:
            self._publish(make_event(
                "roll", round(self.world.time, 6), self.turn,
                f"{r.reason}: d{r.sides} rolled {r.result}" + (" (forced)" if r.forced else ""),
                r.to_dict()))

    def add_body(self, key, kind, name, owner, stats, asset: BodyAsset, static=False) -> None:
        """Put a body on the table (a scene entry, a Payload, a piece of a broken creation)."""
        for w in asset.warnings:
            self.warnings.append(w)
            self.log("warning", f"{key}: {w}", body=key, message=w)
        body = self.world.add_compound(key, asset.boxes, static=static)
        _, q0 = self.world.pose(key)
        self._up_in_body[key] = _rotate(_conjugate(q0), np.array([0.0, 0.0, 1.0]))
        asset.attach(body.frame_origin, body.frame_rotation)
        self.assets[key] = asset
        self.bodies[key] = BodyState(key, kind, name, owner, stats,
                                     damage=self.kind.body_condition())
        lo, hi = asset.bounds()  # the mesh itself: pybullet's AABB is padded and loose
        parts = f"{asset.part_count} part" + ("" if asset.part_count == 1 else "s")
        self.log("body", f"{name} ({kind}): {parts}, {body.mass:.1f} g, "
                 f"bounds {[round(float(v), 2) for v in lo]} to {[round(float(v), 2) for v in hi]}",
                 body=key, kind=kind, parts=asset.part_count, mass_g=round(body.mass, 3))

    # ------------------------------------------------------------------ stepping
    def _recorded_keys(self) -> list[str]:
        """Bodies a replay records: every movable one, and fixed ones of the game (once)."""
        return [k for k, b in self.world.bodies.items() if not b.static or k in self.bodies]

    def record_frame(self, force: bool = False) -> None:
        """Record the poses of the table as one replay frame (``force``: every body)."""
        w = self.world
        if not force and w.dormant and self._recorded_nap == w.naps:
            # the table sleeps and its poses were recorded once asleep: nothing moved since
            self.recorder.still_frame(time=w.time)
            return
        self.recorder.record(w.poses(self._recorded_keys()), force=force, time=w.time)
        self._recorded_nap = w.naps if w.dormant else None

    def _on_step_quiet(self, world: PhysicsWorld, events: list[ImpactEvent]) -> None:
        if world.steps % STEPS_PER_FRAME == 0:
            self.record_frame()

    def _on_step(self, world: PhysicsWorld, events: list[ImpactEvent]) -> None:
        for ev in events:
            self.impact(ev)
        for s in self.systems:
            s.on_step(world, events)
        for s in self.systems:
            s.after_step()
        if world.steps % STEPS_PER_FRAME == 0:
            self._remove_fallen()
            self.record_frame()

    def step(self, quiet: bool = False) -> None:
        """One physics step with the rules' hooks (``quiet``: record frames only)."""
        events = self.world.step()
        (self._on_step_quiet if quiet else self._on_step)(self.world, events)

    def handle_steps(self, world: PhysicsWorld, events: list[ImpactEvent]) -> None:
        """The per-step hook for a caller stepping physics itself (a flight's own loop)."""
        self._on_step(world, events)

    def settle(self, max_seconds: float = MAX_ACTION_SECONDS, min_seconds: float = 0.05,
               quiet: bool = False, log_rest: bool = False) -> None:
        """Step physics until everything rests, with the rules' hooks on every step.

        ``quiet``: no rules (a Field's push, a placement), frames only; ``log_rest``: log a
        ``rest`` event at the end.
        """
        self.world.step_until_rest(max_seconds=max_seconds, min_seconds=min_seconds,
                                   on_step=self._on_step_quiet if quiet else self._on_step)
        for s in self.systems:  # a destroyed unit falls over (BrikWars) ...
            s.after_settle(quiet, max_seconds, min_seconds)
        if log_rest:
            self.log("rest", f"Everything is at rest at {self.world.time:.2f} s")

    def _remove_fallen(self) -> None:
        """Take bodies that fell off the battlefield out of the world (they would fall forever).

        A body whose lowest point is :data:`OFF_TABLE_DEPTH_IN` below the table top has left
        the battle: it is removed, logged as ``off_table`` with where it went over, and belongs
        to no one (BrikWars 13.1: only units' own moves across a friendly edge take things out
        of the battle for a side).
        """
        for key in self.world.dynamic_keys():
            lo, _ = self.world.aabb(key)
            if lo[2] > -OFF_TABLE_DEPTH_IN:
                continue
            pos, _ = self.world.pose(key)
            st = self.bodies.get(key)
            name = st.name if st else key
            self.world.remove(key)
            if st is not None:
                st.off_table = True
            self.log("off_table", f"{name} fell off the table near ({pos[0]:.1f}, {pos[1]:.1f})",
                     body=key, position=[round(float(v), 4) for v in pos])

    def impact(self, ev: ImpactEvent) -> None:
        """Log one physics impact, then hand it to every system's ``on_impact`` (a game whose
        impacts harm listens there; in another, pieces are knocked about for show)."""
        a = self.bodies.get(ev.body_a)
        b = self.bodies.get(ev.body_b)
        names = f"{a.name if a else ev.body_a} hit {b.name if b else ev.body_b}"
        fall = float(ev.normal_speed) ** 2 / (2.0 * self.world.gravity)  # v^2 / 2g
        self.log("impact", f"{names} at {ev.normal_speed:.1f} in/s (a {fall:.1f}\" fall)",
                 **ev.to_dict())
        for s in self.systems:
            s.on_impact(ev)

    def after_damage(self, victim: BodyState, damage: int) -> None:
        """Run every system's ``on_damage`` hook: a game's damage rule calls this once it has
        applied ``damage`` points to ``victim``."""
        for s in self.systems:
            s.on_damage(victim, damage)

    def upright(self, key: str) -> bool:
        """Whether body ``key`` stands as it was placed (tilted less than 45°)."""
        _, quat = self.world.pose(key)
        up = _rotate(np.asarray(quat, float), self._up_in_body.get(key, np.array([0, 0, 1.0])))
        return bool(up[2] >= UPRIGHT_COS)

    # ------------------------------------------------------------------ reading the table
    @property
    def current_player(self) -> str:
        """The name of the player whose turn it is (as the scene writes it)."""
        return self.players[self.player_index]

    def body(self, key: str) -> BodyState:
        """The :class:`BodyState` of ``key``.

        Raises
        ------
        RulesError
            For an unknown key.
        """
        st = self.bodies.get(key)
        if st is None:
            raise RulesError(f"no body called {key!r} on the table (have {sorted(self.bodies)})")
        return st

    def bounds(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """World bounds (min, max) of a body on the table, inches."""
        if key not in self.world.bodies:
            raise RulesError(f"{key!r} is no longer on the table")
        return self.world.aabb(key)

    def footprint_centre(self, key: str) -> np.ndarray:
        """(2,) centre of a body's footprint, inches."""
        lo, hi = self.bounds(key)
        return (lo[:2] + hi[:2]) / 2.0

    def final_poses(self) -> dict[str, tuple[list[float], list[float]]]:
        """Poses of every body now in the world (static ones too)."""
        return {k: v for k, v in self.world.poses().items() if k != "ground"}

    def _as_bounds(self, thing) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(thing, str):
            return self.bounds(thing)
        try:
            p = np.asarray(thing, float).reshape(-1)
        except (TypeError, ValueError):
            raise RulesError(f"a point must be (x, y) or (x, y, z) inches, got {thing!r}") from None
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

    def eye(self, key: str) -> np.ndarray:
        """(3,) eye point of a body: its footprint centre at :data:`EYE_FRACTION` of its height."""
        lo, hi = self.bounds(key)
        c = (lo + hi) / 2
        return np.array([c[0], c[1], lo[2] + EYE_FRACTION * (hi[2] - lo[2])])

    def sight_blockers(self) -> list:
        """What blocks sight that is no body, for the window to draw (BrikWars: its Smoke
        Fields), from every system's ``sight_blockers`` hook."""
        return [b for s in self.systems for b in s.sight_blockers()]

    #: The window's name for :meth:`sight_blockers` (BrikWars' are Smoke Fields).
    smoke_fields = sight_blockers

    def line_of_sight(self, a, b, ignore: Iterable[str] = ()) -> SightLine:
        """The one line of sight: from a body's eye (or a point) to a body's centre (or a point).

        Blocked by any other body on the straight line (a physics ray) or by what a system's
        ``blocks_sight`` hook says (BrikWars F.1: a Smoke Field "blocks vision completely for
        anyone looking into, out of, or through its Field": ``blocked_by`` is ``"smoke"``).
        """
        start = self.eye(a) if isinstance(a, str) else self._as_bounds(a)[0]
        if isinstance(b, str):
            lo, hi = self.bounds(b)
            end = (lo + hi) / 2
        else:
            end = self._as_bounds(b)[0]
        skip = [k for k in (a, b) if isinstance(k, str)] + list(ignore)
        hit = ray_first_hit(self.world, start, end, ignore=skip)
        s, e = tuple(float(v) for v in start), tuple(float(v) for v in end)
        if hit is not None:
            return SightLine(s, e, False, hit.key, hit.point)
        for system in self.systems:
            why = system.blocks_sight(start, end)
            if why:
                return SightLine(s, e, False, why, None)
        return SightLine(s, e, True)

    def pick(self, start: Sequence[float], end: Sequence[float]) -> RayHit | None:
        """The first thing on a ray (a mouse ray from the camera), ground included."""
        return ray_first_hit(self.world, start, end)

    def status_words(self, key: str) -> list[str]:
        """Status of a body in words: Destroyed, then what every system's ``status_words``
        hook says (BrikWars: Disrupted, on Fire, Damage taken); ``["ready"]`` when nothing."""
        st = self.body(key)
        out = ["Destroyed"] if st.damage.destroyed else []
        for s in self.systems:
            out += s.status_words(key)
        return out or ["ready"]

    def act_refusal(self, key: str, player: str) -> str:
        """Why unit ``key`` may not move or act for ``player`` now: the first reason a
        system's ``may_act`` hook gives ("" when none forbids it)."""
        for s in self.systems:
            why = s.may_act(key, player)
            if why:
                return why
        return ""

    # ------------------------------------------------------------------ the one move
    def _carried_shift(self, item: str, frm: np.ndarray, to: np.ndarray) -> np.ndarray:
        """How far (x, y, z inches) a carried ``item`` moves when its carrier's footprint
        centre goes from ``frm`` to ``to``: with the carrier, keeping its place beside him,
        unless that would put any of it past a table edge; then it goes to his other side on
        that axis (the same distance from him), and, still out, is pushed in to the edge. A
        carried item stays carried on the table; only the carrier leaving it by its edge rule
        (``leave_table``) takes it off (BrikWars 13.1).
        """
        w, d = self.spec.battlefield.width / 2, self.spec.battlefield.depth / 2
        lo, hi = self.world.aabb(item)
        half = (np.asarray(hi, float)[:2] - np.asarray(lo, float)[:2]) / 2
        centre = (np.asarray(hi, float)[:2] + np.asarray(lo, float)[:2]) / 2
        offset = centre - frm
        new = to + offset
        room = np.array([w, d]) - half - 0.05  # how far from the middle its centre may go
        for ax in (0, 1):
            if abs(new[ax]) > room[ax]:
                new[ax] = to[ax] - offset[ax]
            new[ax] = float(np.clip(new[ax], -room[ax], room[ax])) if room[ax] > 0 else 0.0
        return np.array([new[0] - centre[0], new[1] - centre[1], MOVE_LIFT_IN])

    def move_unit(self, key: str, to: Vec, *, player: str | None = None,
                  carrying: str | None = None, leave_table: bool = False,
                  careful: bool = False, check_overlap: bool = True, walk: bool = True,
                  note: str = "", **fields) -> np.ndarray:
        """Move a body so that its footprint centre ends at ``to`` (x, y inches); every mover
        (the table's Move, a scripted ``cross``, an Escapade ``walk``) comes through here.

        The body (and the item it ``carrying``, kept on the table: :meth:`_carried_shift`) is
        lifted :data:`MOVE_LIFT_IN` and set down at the destination; then every system's
        ``on_path`` hook sees the path in order (Field Hazards may stop or push it, F.1/F.3;
        Traps on the way spring, F.2); then physics settles it (a unit walked off a
        wall falls). ``walk`` False: the body is lifted over the way (the referee's
        ``place_body``), no ``on_path`` hook sees it. Returns the (3,) point where it ended.

        Raises
        ------
        RulesError
            Something stands at the destination (nothing has moved then).
        """
        st = self.body(key)
        if carrying is None:  # what the unit picked up travels with it (pick_up)
            carrying = self.tools.held(key)
        frm = self.footprint_centre(key)
        to = np.asarray(to, float)[:2]
        dist = float(np.linalg.norm(to - frm))
        delta = np.array([to[0] - frm[0], to[1] - frm[1], MOVE_LIFT_IN])
        moved = [key] + ([carrying] if carrying else [])
        old = {k: self.world.pose(k) for k in moved}
        shift = {key: delta}
        if carrying:
            shift[carrying] = delta if leave_table else self._carried_shift(carrying, frm, to)
        self._touched = True  # a refusal from here on must rebuild (see apply)
        for k in moved:
            pos, quat = old[k]
            self.world.set_pose(k, pos + shift[k], quat)
            self.world.set_velocity(k, (0, 0, 0))
        if check_overlap and not leave_table:
            blocking = [b for k in moved for b in overlapping_bodies(self.world, k)
                        if b not in moved]
            if blocking:
                for k in moved:
                    self.world.set_pose(k, *old[k])
                names = ", ".join(dict.fromkeys(
                    self.bodies[b].name if b in self.bodies else b for b in blocking))
                raise RulesError(f"{st.name} cannot stand at ({to[0]:.2f}, {to[1]:.2f}): "
                                 f"{names} is there")
        if carrying is not None:
            fields["carrying"] = carrying
        self.log("move", f'{st.name} moves {dist:.2f}" to ({to[0]:.2f}, {to[1]:.2f})' + note,
                 body=key, inches=round(dist, 4), to=[round(float(v), 4) for v in to],
                 player=player, **fields)
        start = np.array([frm[0], frm[1], 0.0])
        end = np.array([to[0], to[1], 0.0])
        for s in self.systems if walk else ():
            if key not in self.world.bodies or self.bodies[key].damage.destroyed:
                break
            end = s.on_path(key, start, end, careful)
        self.record_frame(force=True)
        self.settle(log_rest=True)
        return end

    # ================================================================== actions
    def refusal(self, action: Action) -> str:
        """Why ``action`` is refused now, in words ("" when it is allowed); changes nothing."""
        if self.closed:
            return "the game is closed"
        if self.over:
            return "the game is over" + (f": {self._outcome.text}" if self._outcome else "")
        if self.turn > MAX_TURN:
            return (f"the game reached the turn limit: turn {MAX_TURN} was the last a game may "
                    "have, so nothing more can be played")
        if len(self.actions) >= limit("actions"):
            return (f"the game's log holds {len(self.actions)} actions, the most a game keeps "
                    f"({how_to_raise('actions')}), so nothing more can be played")
        if "turn" in action.model_fields_set and action.turn != self.turn:
            return f"it is turn {self.turn}, not turn {action.turn}"
        if action.player != self.current_player and not action.deployment:
            return (f"it is {possessive(self.current_player)} turn, not "
                    f"{possessive(action.player)}")
        if action.by == "referee":
            if not (self.referee or self._trusted):
                return (f"{action.type!r} is issued by the referee, and this table has none "
                        "(open it with the referee option: `sandbox play --referee`, "
                        "referee=True; online, the referee's token)")
        else:
            seat = self.seat_refusal(action)
            if seat:
                return seat
        if isinstance(action, EndTurnAction):
            return ""
        handler = self._handlers.get(action.type)
        if handler is None:
            return f"{action.type!r} is not played in this game"
        return handler.refusal(action)

    def seat_refusal(self, action: Action) -> str:
        """Why the acting player may not issue ``action`` himself ("" when he may): who may do
        what (:attr:`Action.actor`). A referee's tool is refused to players; the units it names
        as acting (:meth:`Action.acting_units`) must be the player's own (a unit acts for its
        owner only). Changes nothing."""
        cls = type(action)
        if cls.actor == "referee":
            why = cls.referee_note or "no player issues it"
            return (f"{action.type!r} is a referee's tool: {why}"
                    " (a scene script, a table opened with the referee option or the "
                    "referee's seat online issues it)")
        if cls.actor == "unit":
            for key in action.acting_units():
                st = self.bodies.get(key)
                if st is not None and st.owner != action.player:
                    return (f"{st.name} belongs to {st.owner or 'nobody'}: a unit acts for its "
                            f"owner only, not for {action.player}")
        return ""

    def issue(self, action: Action, by: str | None = None) -> Action:
        """``action`` stamped with who issues it (:attr:`Action.by`), changing nothing else.

        ``by``: ``"player"`` (the acting player: seat checks apply; a ``by="referee"`` action
        is refused), ``"referee"`` (a caller that vouches for the referee: a scene script, the
        server for the referee's token), or None: the action's own ``by`` if it says referee,
        else the player, except at a referee's table (:attr:`referee`), where an action the
        player may not issue is the referee's (so a refusal gives the referee's reason).

        Raises
        ------
        RulesError
            ``by="player"`` for an action that says it is the referee's.
        """
        if by not in (None, "player", "referee"):
            raise ValueError(f"by must be 'player', 'referee' or None, got {by!r}")
        if by == "player" and action.by == "referee":
            raise RulesError(f"{action.type!r} says it is issued by the referee, and "
                             f"{action.player} is not the referee")
        if by is None:
            if action.by == "referee":
                return action
            player = action.model_copy(update={"by": "player"})
            if self.referee and self.refusal(player):
                # the referee may issue it: refused or not, his refusal is the reason (a
                # player's "a referee's tool" would be wrong at a referee's table)
                return action.model_copy(update={"by": "referee"})
            return player
        return action if action.by == by else action.model_copy(update={"by": by})

    def apply(self, action, index: int | None = None, *, by: str | None = None) -> list[dict]:
        """Validate, check and apply one action; return the events it logged.

        ``action`` is an :class:`~sandbox.engine.actions.Action` or its dict form (the same dict
        a scene's ``[[actions]]`` entry holds). A refused action changes nothing and is never
        logged (a failure after physics began rebuilds the game from the log, so the table is
        as a replay of the log makes it). ``by``: who issues it (:meth:`issue`); the logged
        action records it.

        Raises
        ------
        RulesError
            The action is not allowed now, with the rule's reason and the numbers; or another
            thread is applying an action to this game (a Game is not thread-safe: one thread
            plays it, or the callers take turns).
        SceneError
            A malformed action (naming the field) or an unknown id.
        """
        if not self._apply_lock.acquire(blocking=False):
            raise RulesError("another thread is applying an action to this game: a Game is not "
                             "thread-safe, so apply one action at a time")
        try:
            if not isinstance(action, Action):
                action = parse_action(action)
            if by == "referee":
                self._trusted += 1
            try:
                return self._apply(self.issue(action, by), index)
            finally:
                if by == "referee":
                    self._trusted -= 1
        finally:
            self._apply_lock.release()

    def _apply(self, action: Action, index: int | None) -> list[dict]:
        reason = self.refusal(action)
        if reason:
            raise RulesError(reason)
        if action.turn != self.turn:
            action = action.model_copy(update={"turn": self.turn})
        if self._resync:  # physics goes on from here: as a re-simulation of the log makes it
            self._rebuild(list(self.actions))
        n = len(self.events)
        n_rolls = len(self.dice.records())
        index = len(self.actions)
        self._take_snapshot(index)
        self._touched = False
        try:
            self._dispatch(action, index)
        except ActionSpent:
            self.actions.append(action)  # a die was rolled (a Sprint fell short): it stays
            self._end_if_decided()
            raise
        except Exception:
            if self._touched or len(self.events) != n or len(self.dice.records()) != n_rolls:
                snap = self._snapshots.pop(index, None)
                if snap is None or not self._restore(snap):
                    self._rebuild(list(self.actions))
            raise
        self.actions.append(action)
        self._end_if_decided()
        return self.events[n:]

    def _dispatch(self, action: Action, index: int) -> None:
        # Bullet's contact caches in their canonical order before and after every action, on
        # every path (played, replayed, after an undo): see PhysicsWorld.canonicalize
        self.world.canonicalize()
        try:
            if isinstance(action, EndTurnAction):
                self._end_player_turn()
                return
            self._touched = True
            self._handlers[action.type].apply(action, index)
        finally:
            if self.world is not None and self.world.client is not None:
                self.world.canonicalize()

    def end_turn(self) -> list[dict]:
        """The current player ends the turn (an ``end_turn`` action, logged like any other)."""
        return self.apply(EndTurnAction(type="end_turn", player=self.current_player,
                                        turn=min(self.turn, MAX_TURN)))  # past it: refused

    # ------------------------------------------------------------------ the turn machine
    def _begin_turn(self) -> None:
        self.log("turn", f"Turn {self.turn}: {possessive(self.current_player)} turn",
                 player=self.current_player)
        for s in self.systems:
            s.start_of_turn(self.turn)
        self._begin_player_turn()

    def _begin_player_turn(self) -> None:
        why = self._sits_out(self.player_index)
        if why:  # a system leaves this player out of the turn (13.2 Deployment Rush)
            self.log("turn", f"Turn {self.turn}: {self.current_player} sits out ({why})",
                     player=self.current_player, sits_out=why)
            self._next_player()
            return
        for s in self.systems:
            s.start_of_player_turn(self.turn, self.current_player)
        if any(s.needs_settle() for s in self.systems):  # a unit destroyed as the turn began
            self.settle()

    def _sits_out(self, index: int) -> str:
        """Why player ``index`` sits this turn out ("" when they play; never every player)."""
        whys = [next((w for s in self.systems if (w := s.sits_out(self.turn, p))), "")
                for p in self.players]
        return "" if all(whys) else whys[index]

    def _end_player_turn(self) -> None:
        ending = self.current_player
        for s in self.systems:
            s.end_of_player_turn(self.turn, ending)
        if any(s.needs_settle() for s in self.systems):  # destroyed by Fire at the turn's end
            self.settle()
        self.log("end_turn", f"{ending} ends the turn", player=ending)
        self._next_player()

    def _next_player(self) -> None:
        self.player_index += 1
        if self.player_index < len(self.players):
            self.log("turn", f"Turn {self.turn}: {possessive(self.current_player)} turn",
                     player=self.current_player)
            self._begin_player_turn()
            return
        for s in self.systems:
            s.end_of_turn(self.turn)
        self.player_index = 0
        self.turn += 1
        if self.turn > MAX_TURN:  # no turn begins past the limit: the game ends, truncated
            self.log("turn_limit", f"Turn {MAX_TURN} was the last turn a game may have: "
                     "the game stops here", limit=MAX_TURN)
            self._end(Outcome(truncated=True, reason=f"turn {MAX_TURN} was the last turn a "
                              "game may have"), end_of_turn=False)
            return
        self._begin_turn()

    def pending(self) -> bool:
        """True while a system still waits for a later turn (a Payload in flight)."""
        return any(s.pending() for s in self.systems)

    def advance_to(self, turn: int, player: str) -> None:
        """End turns until it is ``player``'s part of ``turn`` (or until the game's rules end
        it on the way: then :attr:`over`).

        Raises
        ------
        RulesError
            That moment has passed, or ``player`` does not play.
        """
        if player not in self.players:
            raise RulesError(f"{player!r} is not one of the players {self.players}")
        target = (turn, self.players.index(player))
        if (self.turn, self.player_index) > target:
            raise RulesError(f"turn {turn} of {player} has passed (it is turn {self.turn}, "
                             f"{possessive(self.current_player)} turn)")
        while (self.turn, self.player_index) < target and not self.over:
            self.end_turn()
        if (self.turn, self.player_index) != target and not self.over:
            raise RulesError(f"{player} sits out turn {turn}: it is "
                             f"{possessive(self.current_player)} turn")

    def script(self) -> list[Action]:
        """The scene's scripted actions in the order the turn machine meets them: by turn, then
        by the player's place in the turn order, then as written."""
        order = {p: i for i, p in enumerate(self.players)}
        acts = list(self.spec.actions)
        return [a for _, a in sorted(enumerate(acts), key=lambda ia: (
            not ia[1].deployment, ia[1].turn, order.get(ia[1].player, 0), ia[0]))]

    def play_script(self) -> None:
        """Play the scene's scripted actions (``sandbox run``), then play on while Payloads are
        in flight or until the scene's ``turns``, then :meth:`finish`.

        Raises
        ------
        RulesError
            An action is refused: ``actions[i]: reason``.
        """
        self.play_turns()
        self.finish()

    def play_turns(self, first: int = 1, last: int | None = None) -> None:
        """Play the scene's scripted actions of turns ``first``..``last`` through the turn
        machine (ending turns as their players come up). With ``last``, turn ``last`` is then
        ended (its end-of-turn hooks run and turn ``last + 1`` begins); without, play goes on
        while Payloads are in flight or until the scene's ``turns``. A game its rules end
        (:attr:`outcome` terminated: a conquest, a decided field) stops there: the rest of the
        script is not played (``sandbox odds``: with other dice a battle may be won sooner).

        Raises
        ------
        RulesError
            An action is refused: ``actions[i]: reason``.
        """
        index = {id(a): i for i, a in enumerate(self.spec.actions)}
        for a in self.script():
            if self.over:
                return  # decided by the rules: what the script had left is not played
            if a.turn < first or (last is not None and a.turn > last):
                continue
            where = f"actions[{index[id(a)]}]"
            try:
                if not a.deployment:  # deployment actions come before the battle (13.2)
                    self.advance_to(a.turn, a.player)
                if self.over:
                    return  # the rules ended the game as the turns went by
                self.apply(a, by="referee")  # a scene's script is the referee's
            except RulesError as exc:
                msg = str(exc)
                raise RulesError(msg if msg.startswith("actions[") else f"{where}: {msg}") from None
        if last is not None:
            while self.turn <= last and not self.over:
                self.end_turn()
            return
        self.play_on()

    def play_on(self) -> None:
        """End turns while Payloads are in flight (8.4) or until the scene's ``turns``, at most
        :data:`MAX_EXTRA_TURNS` past the script's last turn (what ``sandbox run`` does after the
        last scripted action).

        Raises
        ------
        RulesError
            Payloads still in flight after that many turns.
        """
        last = max([a.turn for a in self.spec.actions] + [self.spec.turns or 1, self.turn])
        while (self.turn < last or self.pending()) and not self.over:
            if self.turn > last + MAX_EXTRA_TURNS:
                raise RulesError(f"Payloads still in flight after turn {self.turn - 1}")
            start = self.turn
            while self.turn == start and not self.over:
                self.end_turn()

    # ------------------------------------------------------------------ the outcome
    @property
    def outcome(self) -> Outcome:
        """How the game stands: its :class:`~sandbox.engine.outcome.Outcome` once it is over
        (decided by a system's victory rules, or finished), else what the systems' hooks say
        now (a game still going on: neither terminated nor truncated; a winner when a system
        names who holds the victory if the battle ended now)."""
        if self._outcome is not None:
            return self._outcome
        outs = self._outcomes(final=False)
        return next((o for o in outs if o.terminated), outs[0] if outs else UNDECIDED)

    def _outcomes(self, final: bool) -> list[Outcome]:
        """What every system with victory rules says, in hook order."""
        return [o for s in self.systems if (o := s.outcome(final)) is not None]

    def _end_if_decided(self) -> None:
        """After every action (a turn's end included): a system's victory rules that end the
        game end it here (an ``outcome`` event, then ``end``)."""
        if self.over or self.closed:
            return
        out = next((o for o in self._outcomes(final=False) if o.terminated), None)
        if out is not None:
            self._end(out, end_of_turn=False)

    def finish(self) -> None:
        """End the game at the end of this turn: the turn's ``end_of_turn`` hooks run
        (Reinforcements arrive, the victory status is logged), the systems say the
        :attr:`outcome` (logged as an ``outcome`` event), then an ``end`` event with every
        body's state. Nothing may be applied afterwards."""
        if self.over:
            return
        self._end(None, end_of_turn=True)

    def _end(self, outcome: Outcome | None, end_of_turn: bool) -> None:
        if end_of_turn:
            for s in self.systems:
                s.end_of_turn(self.turn)
        if outcome is None:
            outs = self._outcomes(final=True)
            outcome = next((o for o in outs if o.decided), outs[0] if outs else Outcome(
                truncated=True, reason=f"finished on turn {self.turn}: this game has no "
                "victory condition"))
        self._outcome = outcome
        self.log("outcome", f"Outcome: {outcome.text}", **outcome.to_dict())
        self.over = True
        self.log("end", f"Finished after {self.world.time:.2f} s of simulated time",
                 states=[s.to_dict() for s in self.bodies.values()])
        self.recorder.finish(self.world.poses(self._recorded_keys()))

    def run(self) -> None:
        """The whole scripted game (``sandbox run``): :meth:`play_script`."""
        self.play_script()

    def rerun(self, actions: Sequence, finished: bool | None = None) -> None:
        """Play a recorded action log again on this freshly built game (a replay's check).

        ``finished`` None: a replay written before action logs were complete (its actions are
        the scene's script), so the script is played instead.

        Raises
        ------
        SceneError, RulesError
            A malformed or refused action in the log.
        """
        if finished is None:
            self.play_script()
            return
        self._replay_log([parse_action(a, f"actions[{i}]") for i, a in enumerate(actions)])
        if finished:
            self.finish()

    def check(self) -> list[str]:
        """Failed expectations of every system and the scene's ``[expect]`` table, in words."""
        fails: list[str] = []
        for s in self.systems:
            fails += s.check()
        return fails

    # ================================================================== undo, hash, saves
    def _rebuild(self, actions: Sequence[Action]) -> None:
        self._build()
        self._replay_log(actions)

    def _replay_log(self, actions: Sequence[Action]) -> None:
        """Play a logged game again, each action as it was issued (an action of a log written
        before seats were recorded, with no ``by``, is the referee's: that engine accepted
        anything)."""
        first_snapshot = len(self.actions) + len(actions) - self.undo_snapshots
        self._trusted += 1
        try:
            for a in actions:
                if a.by is None:
                    a = a.model_copy(update={"by": "referee"})
                if len(self.actions) >= first_snapshot:
                    self._take_snapshot(len(self.actions))
                reason = self.refusal(a)
                if reason:
                    raise RulesError(f"action {len(self.actions)} ({a.type}): {reason}")
                try:
                    self._dispatch(a, len(self.actions))
                except ActionSpent:
                    pass  # logged on purpose: a die was spent (a Sprint fell short)
                self.actions.append(a)
                self._end_if_decided()
        finally:
            self._trusted -= 1

    def _take_snapshot(self, index: int) -> None:
        """Keep the game as it is now, before action ``index``, for :meth:`undo`."""
        if self.undo_snapshots <= 0:
            return
        old = self._snapshots.pop(index - self.undo_snapshots, None)
        if old is not None:
            self.world.forget(old.physics)
        stale = self._snapshots.pop(index, None)
        if stale is not None:
            self.world.forget(stale.physics)
        # Shared, not copied: the game, the world, the scene, the bus, the systems themselves
        # (their attributes are copied), the assets (replaced, never changed, once on the
        # table) and Structures' stud graphs (see explosions.Structure.__deepcopy__).
        memo = {id(o): o for o in (self, self.world, self.spec, self.bus, self._models,
                                   *self.systems, *self.assets.values())}
        state = copy.deepcopy({"game": {f: getattr(self, f) for f in _SNAPSHOT_FIELDS},
                               "systems": [dict(vars(s)) for s in self.systems]}, memo)
        self._snapshots[index] = _Snapshot(self.world.snapshot(), state, dict(self.assets),
                                           len(self.events), self.recorder.mark())

    def _restore(self, snap: _Snapshot) -> bool:
        """Put the game back as it was in ``snap`` (False when the world cannot go back
        (:meth:`PhysicsWorld.restore`: the pairs with contacts switched off changed since);
        the caller rebuilds)."""
        if not self.world.restore(snap.physics):
            self.world.forget(snap.physics)
            return False
        self.world.forget(snap.physics)
        for f, v in snap.state["game"].items():
            setattr(self, f, v)
        for s, d in zip(self.systems, snap.state["systems"], strict=True):
            vars(s).clear()
            vars(s).update(d)
        self.assets = snap.assets
        del self.events[snap.n_events:]
        self.recorder.rewind(snap.recording)
        self._recorded_nap = None
        self._touched = False
        self.generation += 1  # views rebuild their nodes (bodies came and went)
        return True

    def undo(self) -> Action:
        """Take back the last action. Returns the action taken back.

        The game goes back to a snapshot taken just before that action (the world's pybullet
        state, every System's state, the dice, the log); bodies the action removed (a broken
        creation, an exploded Payload) are made again in their old places in Bullet's arrays
        and those it added taken out (:meth:`PhysicsWorld.restore`, issue 26). Where there is
        no snapshot (an action older than the last :data:`UNDO_SNAPSHOTS`) or the world cannot
        go back (contacts between a pair switched on or off since), the game is rebuilt from
        the scene, seed and the log less its last action. ``replay --verify`` and loading a
        save still re-simulate the whole log. After a snapshot, the table is exactly as
        before the action (same state hash), and play goes on exactly as a re-simulation (a
        save, a replay, a
        network peer) makes it: every action starts and ends with Bullet's contact caches
        made again in one canonical order (:meth:`PhysicsWorld.canonicalize`), and the
        world's sleep state is in the snapshot. Nothing is deferred to the next action.

        Raises
        ------
        RulesError
            When there is nothing to undo.
        """
        if self.closed or self.over:
            raise RulesError("the game is " + ("closed" if self.closed else "over") +
                             ": nothing can be undone")
        if not self.actions:
            raise RulesError("nothing to undo")
        last = self.actions[-1]
        index = len(self.actions) - 1
        snap = self._snapshots.pop(index, None)
        if snap is not None and self._restore(snap):
            del self.actions[index:]
        else:
            self._rebuild(self.actions[:-1])
        self.log("undo", f"Undid: {self.describe(last)}")
        return last

    def describe(self, action) -> str:
        """An action in words, with the names of the bodies rather than their keys."""
        return action.describe({k: st.name for k, st in self.bodies.items()})

    def state_dict(self) -> dict:
        """The state the hash covers: turn, player, every system's state, bodies, poses.

        Raises
        ------
        SandboxError
            The game is closed (its physics world is gone).
        """
        if self.closed:
            raise SandboxError("the game is closed: its physics world is gone, so it has no "
                               "state to read or hash")
        nd = CHECKSUM_DECIMALS
        poses = {}
        for k, (p, quat) in sorted(self.world.poses().items()):
            if k == "ground":
                continue
            q = np.asarray(quat, float)
            if q[3] < 0:
                q = -q
            poses[k] = [[round(float(v), nd) + 0.0 for v in p],
                        [round(float(v), nd) + 0.0 for v in q]]
        return {"turn": self.turn, "player": self.current_player, "over": self.over,
                "systems": {s.name: s.state() for s in self.systems},
                "bodies": {k: s.to_dict() for k, s in sorted(self.bodies.items())},
                "poses": poses, "rolls": len(self.dice.records())}

    def state_hash(self, state: dict | None = None) -> str:
        """SHA-256 hex digest of :meth:`state_dict` as canonical JSON: equal for the same scene,
        seed and actions, whichever path (script, table, save) played them. ``state``: that
        dict when the caller has just made it (the network server and clients send both)."""
        state = self.state_dict() if state is None else state
        text = json.dumps(state, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def save(self, path: str | Path) -> Path:
        """Write the game (scene, seed, action log, state hash) as versioned JSON, atomically.

        A failed save leaves any previous file at ``path`` untouched.
        """
        doc = self.save_doc(relative_to=Path(path).parent)
        data = (json.dumps(doc, indent=1, sort_keys=False, allow_nan=False)
                + "\n").encode("utf-8")
        try:
            return atomic_write_bytes(path, data)
        except OSError as exc:
            raise OutputError(f"{str(path)!r}: cannot write the save file "
                              f"({exc.strerror or exc})") from None

    def save_doc(self, relative_to: str | Path | None = None) -> dict:
        """The save file's document (what :meth:`save` writes; the network sends it as JSON),
        with a ``file_checksum`` over all of it, the embedded scene included. ``scene_dir``:
        the scene's folder (or the pack it came from), relative to ``relative_to`` (the save's
        folder) when given, else absolute."""
        doc = {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSION,
            "scene_dir": scene_dir_for_save(self.scene_origin or self.base_dir, relative_to),
            "seed": self.seed,
            "forced_dice": self.forced_dice,
            "referee": self.referee,
            "turn": self.turn,
            "player": self.current_player,
            "over": self.over,
            "outcome": self._outcome.to_dict() if self._outcome is not None else None,
            "checksum": self.state_hash(),
            "actions": [action_dict(a) for a in self.actions],
            "scene": scene_to_dict(self.spec),
            "part_sources": self.part_sources(),
        }
        doc["file_checksum"] = save_file_checksum(doc)
        return doc

    def part_sources(self) -> dict[str, str]:
        """Where each distinct part on the table came from: part name (``"3001.dat"``) →
        ``"library"`` (the LDraw library, ``LDRAWDIR``), ``"catalogue"`` (the built-in
        catalogue), ``"missing"`` (a placeholder box), ``"embedded"`` or ``"folder"`` (the
        model's own file or folder). A save records it so that a save loaded with another
        library says which parts changed (:func:`part_source_changes`)."""
        out: dict[str, str] = {}
        for asset in self.assets.values():
            model = getattr(asset, "model", None)
            for name, mesh in (model.parts.items() if model is not None else ()):
                out.setdefault(str(name), str(getattr(mesh, "source", "")))
        return dict(sorted(out.items()))

    @classmethod
    def load(cls, path: str | Path, ldrawdir: str | Path | None = None,
             on_event: Callable[[dict], None] | None = None, check: bool = True) -> "Game":
        """Load a save file: rebuild the scene, replay the log, compare the state hash.

        Raises
        ------
        ReplayError
            Unreadable, wrong format or version, or the replayed state does not match.
        """
        p = Path(path)
        try:
            doc = strict_json_loads(read_input_bytes(p, "save file"))
        except FileNotFoundError:
            raise ReplayError(f"{p}: no such save file") from None
        except FileRefused as exc:
            raise ReplayError(f"{p}: {exc}") from None
        except OSError as exc:
            raise ReplayError(f"{p}: not a readable save file: {reason(exc)}") from None
        except ValueError as exc:  # not UTF-8 JSON, NaN / infinity, nested too deep
            raise ReplayError(f"{p}: not a readable save file: {exc}") from None
        return cls.from_save_doc(doc, str(p), p.resolve().parent, ldrawdir, on_event, check)

    @classmethod
    def from_save_doc(cls, doc: Any, where: str, base_dir: str | Path,
                      ldrawdir: str | Path | None = None,
                      on_event: Callable[[dict], None] | None = None,
                      check: bool = True) -> "Game":
        """A game from a save document (a parsed save file, or one sent over the network):
        rebuild the scene, replay the log, compare the state hash. ``where`` names the source
        in errors; ``base_dir``: the save's folder, which a relative ``scene_dir`` (a folder or
        a ``.brikpack``) starts from, and model paths' folder when ``scene_dir`` is not usable.

        Raises
        ------
        ReplayError
            Wrong format or version, or the replayed state does not match.
        """
        p = where
        if not isinstance(doc, dict) or doc.get("format") != SAVE_FORMAT:
            fmt = doc.get("format") if isinstance(doc, dict) else None
            shown = repr(fmt) if isinstance(fmt, (str, int, type(None))) else type(fmt).__name__
            raise ReplayError(f"{p}: not a {SAVE_FORMAT} file (format {shown[:60]})")
        if doc.get("version") != SAVE_VERSION or isinstance(doc.get("version"), bool):
            shown = repr(doc.get("version"))[:40]
            raise ReplayError(f"{p}: save version {shown} is not {SAVE_VERSION}")
        if not isinstance(doc.get("file_checksum"), str):
            raise ReplayError(f"{p}: the save file has no file checksum (edited, or written by "
                              "an older build)")
        if doc["file_checksum"] != save_file_checksum(doc):
            raise ReplayError(f"{p}: the save file does not match its file checksum: its "
                              "scene, actions or state were edited or corrupted")
        logged = doc.get("actions")
        too_many = over_limit("actions", len(logged), "actions") if isinstance(logged, list) \
            else ""
        if too_many:
            raise ReplayError(f"{p}: actions: {too_many}")
        try:
            if not isinstance(doc.get("scene"), dict):
                raise TypeError("scene is not a table")
            spec = scene_from_dict(doc["scene"], f"{p}:scene")
            if not isinstance(doc["actions"], list):
                raise TypeError("actions is not a list")
            actions = [parse_action(a, f"{p}:actions[{i}]") for i, a in enumerate(doc["actions"])]
            seed = doc["seed"]
            if seed_refusal(seed):
                raise TypeError(seed_refusal(seed))
            forced = doc.get("forced_dice", True)
            if not isinstance(forced, bool):
                raise TypeError(f"forced_dice must be true or false, got {str(forced)[:40]}")
            referee = doc.get("referee", False)
            if not isinstance(referee, bool):
                raise TypeError(f"referee must be true or false, got {str(referee)[:40]}")
            sd = doc.get("scene_dir")
            if sd is not None and not (isinstance(sd, str) and "\x00" not in sd
                                       and len(sd) <= 4096):
                raise TypeError(f"scene_dir must name a folder or a .brikpack, got "
                                f"{type(sd).__name__} {repr(sd)[:40]}")
        except (KeyError, TypeError, ValueError) as exc:
            raise ReplayError(f"{p}: malformed save file: {exc}") from None
        except SceneError as exc:
            raise ReplayError(str(exc)) from None
        try:
            base, pack = resolve_scene_dir(doc.get("scene_dir"), base_dir)
            game = cls(spec, base, ldrawdir, seed=seed, on_event=on_event, actions=actions,
                       forced_dice=forced, referee=referee)
        except SandboxError as exc:
            raise ReplayError(f"{p}: replaying the action log failed: {exc}") from None
        game.scene_origin = pack
        if doc.get("over"):
            game.finish()
        if check and game.state_hash() != doc.get("checksum"):
            got = game.state_hash()
            why = part_source_changes(doc.get("part_sources"), game.part_sources())
            game.close()
            raise ReplayError(f"{p}: the replayed game does not match the save (state hash "
                              f"{got[:12]} != {str(doc.get('checksum'))[:12]})"
                              + (f": {why}" if why else ""))
        return game

    # ================================================================== outputs
    def replay(self) -> Replay:
        """The recording so far as a :class:`Replay` (its ``actions``: the whole action log)."""
        return Replay(scene=scene_to_dict(self.spec), seed=self.seed,
                      actions=[action_dict(a) for a in self.actions],
                      events=self.events, tracks=dict(self.recorder.tracks),
                      frame_dt=self.recorder.frame_dt, frames=self.recorder.frame,
                      frame_times=list(self.recorder.times),
                      meta={"finished": self.over, "forced_dice": self.forced_dice,
                            "referee": self.referee,
                            "outcome": None if self._outcome is None
                            else self._outcome.to_dict()})

    def close(self) -> None:
        """Free the physics world; the game accepts no action afterwards."""
        self.closed = True
        if "world" in self.__dict__:
            self.world.close()

    def __enter__(self) -> "Game":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _conjugate(q) -> np.ndarray:
    x, y, z, w = (float(v) for v in q)
    return np.array([-x, -y, -z, w])


def _rotate(q, v) -> np.ndarray:
    """``v`` (3,) rotated by the (x, y, z, w) quaternion ``q``."""
    q = np.asarray(q, float)
    u, w = q[:3], q[3]
    v = np.asarray(v, float)
    return v + 2.0 * np.cross(u, np.cross(u, v) + w * v)


def save_file_checksum(doc: dict) -> str:
    """SHA-256 hex digest of a save document without its ``file_checksum``, as canonical JSON:
    it covers the whole file (the embedded scene, seed, actions and the state hash), so an
    edited Armor or weapon is caught before anything is rebuilt."""
    body = {k: v for k, v in doc.items() if k != "file_checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: How a part's source reads in a message.
_SOURCE_WORDS = {"library": "the LDraw library", "catalogue": "the built-in catalogue",
                 "missing": "a placeholder box", "embedded": "the model's own file",
                 "folder": "a file beside the model"}
#: Most parts one message names.
_SOURCE_CHANGES_SHOWN = 6


def part_source_changes(saved: Any, now: dict[str, str]) -> str:
    """One line naming the parts whose source differs between a save (``saved``: its
    ``part_sources``, untrusted: anything not a table of names is ignored) and the game
    rebuilt from it (``now``), and why ("saved with the LDraw library, now the built-in
    catalogue: set LDRAWDIR as when it was saved"); "" when none differ or the save has no
    record (written before parts were recorded)."""
    if not isinstance(saved, dict):
        return ""
    diff = [(k, str(saved[k]), now.get(k, "absent")) for k in sorted(saved)[:10_000]
            if isinstance(k, str) and now.get(k, "absent") != saved[k]]
    diff += [(k, "absent", v) for k, v in now.items() if k not in saved]
    if not diff:
        return ""
    def word(s: str) -> str:
        return str(_SOURCE_WORDS.get(s, s))[:40]

    by_change: dict[tuple[str, str], list[str]] = {}
    for k, a, b in diff:
        by_change.setdefault((a, b), []).append(k[:40])
    parts = []
    for (a, b), names in by_change.items():
        more = f" and {len(names) - _SOURCE_CHANGES_SHOWN} more" \
            if len(names) > _SOURCE_CHANGES_SHOWN else ""
        parts.append(f"{len(names)} part(s) saved from {word(a)} now come from {word(b)} "
                     f"({', '.join(names[:_SOURCE_CHANGES_SHOWN])}{more})")
    lib = any("library" in (a, b) for _, a, b in diff)
    hint = ("; load it with the LDraw library it was saved with (LDRAWDIR)" if lib
            else "; the parts' files changed since it was saved")
    return "; ".join(parts) + hint


def open_game(path: str | Path, seed: int | None = None, ldrawdir=None,
              on_event: Callable[[dict], None] | None = None, forced_dice: bool = True,
              referee: bool = False) -> Game:
    """A :class:`Game` from a scene file (.toml), a scene pack (.brikpack) or a saved game
    (.save.json).

    Parameters
    ----------
    path : path
        Scene (TOML) or save file (JSON).
    seed : int, optional
        Overrides the scene's seed (a save keeps its own).
    ldrawdir : path, optional
        LDraw library (else ``LDRAWDIR``).
    forced_dice : bool
        For a scene: use its ``forced_dice`` (scripted runs; default) or not (live play).
        A save keeps its own choice.
    referee : bool
        The table has a referee (:class:`Game`); a save keeps its own, or takes this when set.

    Raises
    ------
    SceneError, ReplayError
        One line naming the file and what is wrong with it.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".toml" or is_pack(p):
        scene = open_pack(p) if is_pack(p) else p
        spec, base = load_scene(scene)
        with naming_the_file(scene):
            game = Game(spec, base, ldrawdir, seed=seed, on_event=on_event,
                        forced_dice=forced_dice, referee=referee)
        game.scene_origin = p.resolve() if is_pack(p) else None
        return game
    expected = "expected a scene (.toml) or a saved game (.save.json)"
    if suffix == ".replay":
        raise SceneError(f"{p} is a replay, not a game to play ({expected}): watch it with "
                         f"`sandbox replay {p}`")
    if suffix in (".ldr", ".mpd", ".dat"):
        raise SceneError(f"{p} is an LDraw model, not a game to play ({expected}); put the "
                         "model in a scene's [[units]] or [[creations]] (model = ...)")
    if suffix != ".json" and p.exists():
        try:
            head = read_input_bytes(p, "saved game")[:64].lstrip()
        except FileRefused as exc:
            raise SceneError(f"{p}: {exc}") from None
        except OSError:
            head = b"{"
        if not head.startswith(b"{"):
            raise SceneError(f"{p}: not a scene or a saved game ({expected})")
    game = Game.load(p, ldrawdir, on_event=on_event)
    game.referee = game.referee or bool(referee)
    return game
