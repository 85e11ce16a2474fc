"""The game loop of a headless run: scene → physics → rules → event log → replay.

``game/`` is the only layer that sequences things (DESIGN.md): apply an action, step physics
until everything rests, turn what physics reports into rules facts, apply the outcomes, log.

Event log: every event is a dict with a ``type`` and a ``text`` a player can read; dice rolls
are events of type ``roll`` with the stream, die, result and reason, in the order rolled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from ..core.dice import Dice
from ..core.errors import RulesError, SceneError
from ..physics.world import ImpactEvent, PhysicsWorld
from ..rules import collision as collision_rules
from .assets import BodyAsset, build_asset, build_part_asset
from .replay import Recorder, Replay
from .scene import BigDrop, ExplosivePayload, SceneSpec, Stats, SupplyPayload, UnitPayload, parse_armor, scene_to_dict

#: Physics steps per recorded replay frame (480 Hz physics → 60 frames per second).
STEPS_PER_FRAME: int = 8
#: Longest a single action may take to come to rest, simulated seconds.
MAX_ACTION_SECONDS: float = 8.0
#: A body whose lowest point is this far below the table top (inches) has fallen off it.
OFF_TABLE_DEPTH_IN: float = 6.0
#: Time allowed for the scene to settle before the first action, seconds.
SETTLE_SECONDS: float = 1.5


@dataclass
class BodyState:
    """Mutable battle state of one body on the table."""

    key: str
    kind: str  # "creation", "unit", "payload"
    name: str
    owner: str | None
    stats: Stats
    damage: collision_rules.DamageState = field(default_factory=collision_rules.DamageState)
    explosive_dice: int = 0
    off_table: bool = False

    @property
    def cumulative(self) -> bool:
        return self.kind == "creation"

    def to_dict(self) -> dict:
        return {"key": self.key, "kind": self.kind, "name": self.name, "owner": self.owner,
                "off_table": self.off_table, **self.damage.to_dict()}


class Game:
    """One headless game built from a scene spec.

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
        Called with every event dict as it happens (the CLI prints them).
    """

    def __init__(self, spec: SceneSpec, base_dir: str | Path, ldrawdir: str | Path | None = None,
                 seed: int | None = None, on_event: Callable[[dict], None] | None = None):
        self.spec = spec
        self.base_dir = Path(base_dir)
        self.ldrawdir = ldrawdir
        self.seed = spec.seed if seed is None else int(seed)
        self.dice = Dice(self.seed, forced=spec.forced_dice)
        self.world = PhysicsWorld()
        self.recorder = Recorder(self.world.time_step * STEPS_PER_FRAME)
        self.events: list[dict] = []
        self.bodies: dict[str, BodyState] = {}
        self.assets: dict[str, BodyAsset] = {}
        self.warnings: list[str] = []
        self._on_event = on_event
        self._rolls_logged: dict[str, int] = {}  # stream name -> rolls already in the log
        self._explode_now: list[tuple[str, np.ndarray]] = []
        self.turn = 0
        self._models: dict = {}
        # Payloads in flight (8.4) and Strategic Bombardments waiting to land (13.2)
        from .bombardment import Bombardment
        from .projectiles import FlightControl

        self.flight = FlightControl(self)
        self.bombardment = Bombardment(self)
        # Fire and Field Hazards (BrikWars F.1-F.3, 8.3)
        from .hazards import Hazards

        self.hazards = Hazards(self)
        # Power, Energy Shields, on-Fire penalties (F.1) and Traps (F.2)
        from .defences import Defences
        from .traps import Traps

        self.defences = Defences(self)
        self.traps = Traps(self)
        # Explosions, break-up, KnockBack and detonation chains (8.4)
        from .explosions import Blasts

        self.blasts = Blasts(self)
        # An Escapade's ledger, fed by this game's events (BrikWars ch. 13)
        from .escapade import EscapadeDriver

        self.escapade = EscapadeDriver(self) if spec.escapade is not None else None

    # ------------------------------------------------------------------ logging
    def log(self, type_: str, text: str, **fields) -> dict:
        """Append an event (``{"type", "time", "text", ...}``) to the log."""
        self._flush_rolls()
        ev = {"type": type_, "time": round(self.world.time, 6), "turn": self.turn, "text": text, **fields}
        self.events.append(ev)
        if self._on_event:
            self._on_event(ev)
        if getattr(self, "escapade", None) is not None:
            self.escapade.on_event(ev)  # kills and exits become Escapade facts (13.1, 13.2)
        return ev

    def _flush_rolls(self) -> None:
        # Only the rolls made since the last event (this runs on every log() call).
        new = []
        for stream in self.dice.streams():
            done = self._rolls_logged.get(stream.name, 0)
            new.extend(stream.records[done:])
            self._rolls_logged[stream.name] = len(stream.records)
        for r in new:
            ev = {"type": "roll", "time": round(self.world.time, 6), "turn": self.turn,
                  "text": f"{r.reason}: d{r.sides} rolled {r.result}" + (" (forced)" if r.forced else ""),
                  **r.to_dict()}
            self.events.append(ev)
            if self._on_event:
                self._on_event(ev)

    # ------------------------------------------------------------------ setup
    def setup(self) -> None:
        """Build the battlefield and every body, in file order, and let them settle."""
        bf = self.spec.battlefield
        self.world.add_ground(bf.width, bf.depth)
        self.log("setup", f"Battlefield {bf.width:g}\" x {bf.depth:g}\", seed {self.seed}",
                 width=bf.width, depth=bf.depth, seed=self.seed)
        for kind, entries in (("creation", self.spec.creations), ("unit", self.spec.units)):
            for entry in entries:
                asset = build_asset(entry, self.base_dir, self.ldrawdir, cache=self._models)
                self._add_body(entry.id, kind, entry.name or entry.id, entry.owner, entry.stats,
                               asset, static=entry.fixed)
        for entry in self.spec.reserves:
            # Read reserves' models now, so a bad one is reported before any action plays.
            build_asset(entry, self.base_dir, self.ldrawdir, placed=False, cache=self._models)
        self._record_frame(force=True)
        self.world.step_until_rest(max_seconds=SETTLE_SECONDS, on_step=self._on_step_quiet)
        self.traps.setup()  # arm Traps on the settled table (F.2)
        n = len(self.bodies)
        self.log("ready", f"{n} bod{'y' if n == 1 else 'ies'} on the table, at rest after "
                 f"{self.world.time:.2f} s", bodies=len(self.bodies))
        if self.escapade is not None:
            self.escapade.start()  # Tactical Advantage, deployment checks (13.2)

    def _add_body(self, key, kind, name, owner, stats, asset: BodyAsset, static=False) -> None:
        for w in asset.warnings:
            self.warnings.append(w)
            self.log("warning", f"{key}: {w}", body=key, message=w)
        body = self.world.add_compound(key, asset.boxes, static=static)
        asset.attach(body.frame_origin, body.frame_rotation)
        self.assets[key] = asset
        self.bodies[key] = BodyState(key, kind, name, owner, stats)
        lo, hi = asset.bounds()  # the mesh itself: pybullet's AABB is padded and loose
        parts = f"{asset.part_count} part" + ("" if asset.part_count == 1 else "s")
        self.log("body", f"{name} ({kind}): {parts}, {body.mass:.1f} g, "
                 f"bounds {[round(float(v), 2) for v in lo]} to {[round(float(v), 2) for v in hi]}",
                 body=key, kind=kind, parts=asset.part_count, mass_g=round(body.mass, 3))

    # ------------------------------------------------------------------ stepping
    def _recorded_keys(self) -> list[str]:
        """Bodies a replay records: every movable one, and fixed ones of the game (once)."""
        return [k for k, b in self.world.bodies.items() if not b.static or k in self.bodies]

    def _record_frame(self, force: bool = False) -> None:
        self.recorder.record(self.world.poses(self._recorded_keys()), force=force,
                             time=self.world.time)

    def _on_step_quiet(self, world: PhysicsWorld, events: list[ImpactEvent]) -> None:
        if world.steps % STEPS_PER_FRAME == 0:
            self._record_frame()

    def _on_step(self, world: PhysicsWorld, events: list[ImpactEvent]) -> None:
        for ev in events:
            self._handle_impact(ev)
        self.traps.on_step(world, events)  # contact and pressure-plate Traps (F.2)
        for key, point in self._explode_now:
            self._explode(key, point)
        self._explode_now.clear()
        if world.steps % STEPS_PER_FRAME == 0:
            self._remove_fallen()
            self._record_frame()

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

    def _handle_impact(self, ev: ImpactEvent) -> None:
        a = self.bodies.get(ev.body_a)
        b = self.bodies.get(ev.body_b)
        names = f"{a.name if a else ev.body_a} hit {b.name if b else ev.body_b}"
        self.log("impact", f"{names} at {ev.normal_speed:.1f} in/s "
                 f"(a {collision_rules.equivalent_fall_height(ev.normal_speed):.1f}\" fall)",
                 **ev.to_dict())
        if any(s is not None and s.damage.destroyed for s in (a, b)):
            # Wreckage (a destroyed crate, rubble) does no more Collision Damage, and what is
            # already destroyed cannot be harmed again.
            return
        victims = [s for s in (a, b) if s is not None]
        victims = self.blasts.collision_victims(ev, victims)  # riders share, rubble harms none
        bombs = [s for s in victims if s.kind == "payload" and s.explosive_dice]
        if bombs:
            # An Explosive Payload explodes where it first hits (BrikWars 8.4); the Explosion
            # is the Damage of this impact, so no Collision Damage is rolled for it.
            for s in bombs:
                if s.key not in {k for k, _ in self._explode_now}:
                    self._explode_now.append((s.key, np.array(ev.position)))
            return
        if not victims:
            return
        rolls = collision_rules.roll_collision_damage(
            self.dice.stream("collision"), ev.normal_speed, " and ".join(v.name for v in victims))
        if not rolls:
            return
        damage = sum(r.result for r in rolls)
        for v in victims:
            self._damage(v, damage, "Collision Damage", dice=[(r.sides, r.result) for r in rolls])
            if (v.kind == "payload" and not v.stats.flight and not v.damage.disrupted
                    and not v.damage.destroyed):
                v.damage.disrupted = True
                self.log("disrupted", f"{v.name} is Disrupted by the landing", body=v.key)
        for src, dst in ((a, b), (b, a)):  # a burning body adds 1d4 Fire to what it hits (F.1)
            if src is not None and dst is not None and dst in victims:
                self.defences.burning_strike(src.key, dst, "collision", at=ev.position)

    def _damage(self, victim: BodyState, damage: int, what: str,
                dice: list[tuple[int, int]] | None = None, armor_penalty: int = 0) -> None:
        """Apply ``damage`` points to ``victim``: every source of Damage comes through here.

        ``dice`` are the ``(sides, value)`` of the Damage dice, which the victim's Energy
        Shield may deflect first (F.1, :mod:`.defences`); ``armor_penalty`` (<= 0) lowers its
        Armor for this comparison (on Fire, F.1).
        """
        damage = self.defences.deflect(victim, damage, dice, what)
        fixed, armor_dice = parse_armor(victim.stats.armor)
        stream = self.dice.stream("armor")
        if armor_penalty and victim.damage.armor_roll is None:  # roll the Armor first
            collision_rules.apply_damage(victim.damage, 0, fixed, armor_dice, victim.cumulative,
                                         stream, victim.name)
        victim.damage.armor_roll = (victim.damage.armor_roll or 0) + armor_penalty \
            if armor_penalty else victim.damage.armor_roll
        try:
            out = collision_rules.apply_damage(victim.damage, damage, fixed, armor_dice,
                                               victim.cumulative, stream, victim.name)
        finally:
            if armor_penalty:
                victim.damage.armor_roll -= armor_penalty
        if armor_penalty:
            what = f"{what}, Armor {armor_penalty:+d} on Fire"
        verdict = "destroyed" if out.destroyed else "holds"
        against = "Cumulative Damage " + str(out.total) if victim.cumulative else str(out.total)
        self.log("damage", f"{victim.name} takes {damage} {what}: {against} against Armor "
                 f"{out.compared_with} — {verdict}", body=victim.key, damage=damage, source=what,
                 total=out.total, armor=out.compared_with, destroyed=out.destroyed)
        if out.destroyed:
            self.log("destroyed", f"{victim.name} is destroyed", body=victim.key)
        self.blasts.on_damage(victim, damage)  # Premature Detonation (8.4)

    def _explode(self, key: str, point: np.ndarray) -> None:
        """An Explosive body goes off at ``point`` (BrikWars 8.4): see :mod:`.explosions`."""
        self.blasts.explode_body(key, point)

    # ------------------------------------------------------------------ actions
    def run(self) -> None:
        """Set up, play every scripted action (turn 1), and finish."""
        self.setup()
        self.play_turns()
        self.log("end", f"Finished after {self.world.time:.2f} s of simulated time",
                 states=[s.to_dict() for s in self.bodies.values()])
        self.recorder.finish(self.world.poses(self._recorded_keys()))

    def play_turns(self, first: int = 1, last: int | None = None) -> None:
        """Play turns ``first``..``last`` (default: until no action is left and nothing flies).

        At the start of each turn, Payloads in flight move on and Bombardments land (8.4, 13.2),
        then that turn's scripted actions (``turn``, default 1) apply in file order.
        """
        last_action = max([getattr(a, "turn", 1) for a in self.spec.actions] + [1]
                          + [getattr(self.spec, "turns", None) or 1])
        turn = first
        while True:
            if last is not None and turn > last:
                break
            if last is None and turn > last_action and not (
                    self.flight.pending() or self.bombardment.pending()):
                break
            if turn > last_action + self.flight.MAX_EXTRA_TURNS:
                raise RulesError(f"Payloads still in flight after turn {turn - 1}")
            self.turn = turn
            self.log("turn", f"Turn {turn} begins")
            self.bombardment.start_of_turn(turn)
            self.blasts.start_of_turn(turn)
            self.flight.start_of_turn(turn)
            self.hazards.start_of_turn(turn)
            for i, action in enumerate(self.spec.actions):
                if getattr(action, "turn", 1) == turn:
                    self.apply(action, i)
            self.blasts.end_of_turn(turn)
            if self.escapade is not None:
                self.escapade.end_of_turn(turn)
            turn += 1

    def apply(self, action, index: int = 0) -> None:
        """Apply one action: The Big Drop here; flights and Bombardments in their modules."""
        if isinstance(action, BigDrop):
            self._big_drop(action, index)
        elif self.flight.handles(action):
            self.flight.apply(action, index)
        elif self.bombardment.handles(action):
            self.bombardment.apply(action, index)
        elif self.blasts.handles(action):
            self.blasts.apply(action, index)
        elif self.escapade is not None and self.escapade.handles(action):
            self.escapade.apply(action, index)
        elif self.hazards.handles(action):
            self.hazards.apply(action, index)
        elif self.traps.handles(action):
            self.traps.apply(action, index)
        else:  # pragma: no cover - the schema allows nothing else yet
            raise RulesError(f"unknown action {action!r}")

    def _big_drop(self, a: BigDrop, index: int) -> None:
        height = collision_rules.big_drop_height(a.strategy_bricks)
        key = a.id or f"payload{index + 1}"
        if key in self.bodies:
            raise SceneError(f"actions[{index}].id {key!r} is already used by another body")
        # The Strategy bricks come out of the player's pile (BrikWars 13.2, The Commander).
        have = self.bombardment.piles.get(a.player, 0)
        if a.strategy_bricks > have:
            raise RulesError(f"actions[{index}]: {a.player} spends {a.strategy_bricks} Strategy "
                             f"bricks on The Big Drop but has {have} in the Strategy pile")
        self.bombardment.piles[a.player] = have - a.strategy_bricks
        p = a.payload
        if isinstance(p, UnitPayload):
            entry = next(r for r in self.spec.reserves if r.id == p.unit)
            asset = build_asset(entry, self.base_dir, self.ldrawdir, placed=False, cache=self._models)
            name, stats, owner, explosive = entry.name or entry.id, entry.stats, entry.owner, 0
            key = entry.id
        elif isinstance(p, SupplyPayload):
            asset = build_part_asset(p.part, p.colour, self.ldrawdir)
            name, stats, owner, explosive = f"supply crate ({p.part})", p.stats, a.player, 0
        else:
            assert isinstance(p, ExplosivePayload)
            asset = build_part_asset(p.part, p.colour, self.ldrawdir)
            name, stats, owner = f"{a.strategy_bricks}d10 Explosive", Stats(size=1.0, armor=0), a.player
            explosive = a.strategy_bricks
        asset.move_to_drop(np.array([a.target[0], a.target[1]]), height)
        self.log("action", f"{a.player} calls in The Big Drop: {name}, {a.strategy_bricks} Strategy "
                 f"brick{'' if a.strategy_bricks == 1 else 's'}, held {height:g}\" above ({a.target[0]:g}, {a.target[1]:g})",
                 action="big_drop", player=a.player, payload=p.kind, strategy_bricks=a.strategy_bricks,
                 target=list(a.target), height=height, body=key,
                 pile=self.bombardment.piles[a.player])
        self._add_body(key, "payload", name, owner, stats, asset)
        self.bodies[key].explosive_dice = explosive
        for other in self.world.bodies:
            if other != key and self.world.client.getClosestPoints(
                    self.world.bodies[key].uid, self.world.bodies[other].uid, 0.0):
                raise RulesError(f"The Big Drop of {name} at {height:g}\" starts inside {other!r}: "
                                 "spend more Strategy bricks or pick another target")
        self._record_frame(force=True)
        self.log("release", f"{name} is released", body=key)
        self.world.step_until_rest(max_seconds=MAX_ACTION_SECONDS, min_seconds=0.05,
                                   on_step=self._on_step)
        if key in self.world.bodies:
            pos, _ = self.world.pose(key)
            off = math.hypot(pos[0] - a.target[0], pos[1] - a.target[1])
            self.log("landed", f"{name} comes to rest {off:.2f}\" from the target point",
                     body=key, position=[round(float(v), 4) for v in pos], off_target=round(off, 4))
        self.log("rest", f"Everything is at rest at {self.world.time:.2f} s")

    # ------------------------------------------------------------------ outputs
    def final_poses(self) -> dict[str, tuple[list[float], list[float]]]:
        """Poses of every body now in the world (static ones too)."""
        return {k: v for k, v in self.world.poses().items() if k != "ground"}

    def replay(self) -> Replay:
        """The recording so far as a :class:`Replay`."""
        return Replay(scene=scene_to_dict(self.spec), seed=self.seed,
                      actions=[a.model_dump(mode="json") for a in self.spec.actions],
                      events=self.events, tracks=dict(self.recorder.tracks),
                      frame_dt=self.recorder.frame_dt, frames=self.recorder.frame,
                      frame_times=list(self.recorder.times))

    def close(self) -> None:
        self.world.close()
