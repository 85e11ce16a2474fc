"""Traps on the physical battlefield (BrikWars F.2 Traps, Triggers, Weapon Traps).

The scene's ``[[traps]]`` (see :mod:`sandbox.games.brikwars.trap_scene`) become armed
:class:`sandbox.rules.hazards.Trap` objects; physics decides when one goes off:

- contact triggers: an :class:`~sandbox.physics.world.ImpactEvent` between the trigger object
  and anything but the table, reported by :meth:`PhysicsWorld.step` (the engine's per-step hook);
- region triggers (pressure plates, tripwires): a body that moves into the region, found by an
  overlap query every recorded frame while physics runs (bodies already inside when the game
  was set up do not count), or a unit's move path whose segment crosses the region
  (:meth:`Traps.on_path`, from the ``cross`` action and the tabletop session's moves);
- interaction triggers: the ``interact`` action of a unit within reach (0.5") of the object,
  with the Trap's specific interaction (any other interaction does nothing).

What it does: Hazard dice on whoever set it off (Exposure-style Damage with the dice's kind, so
Fire dice can set it alight; ``Exp`` dice explode at the trigger point, 8.4), or a Weapon
Trap's attack from its mount with the Trap's own Action die (an inanimate object's d4, F.2) at
the one who set it off. Every die is on stream ``trap`` (Explosions: ``explosion``) and every
trigger, miss and hit is logged. Single-use Traps disarm when they go off (F.2: until a
minifig technician resets them).

Units: inches, Z up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ...core.dice import DiceSum, parse_dice
from ...core.errors import RulesError, SceneError
from ...engine.table import System, handles
from ...physics.queries import Region, bodies_in_region, closest_points
from ...rules import hazards as hz
from ...rules.attacks import resolve_attack
from ...rules.weapons import weapon_profile
from . import effects
from .defences import Defences, dice_of
from .trap_scene import Interact, TrapEntry

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.table import Table as Game

#: A unit must be this close to an object to interact with it, inches (base contact).
REACH_IN: float = 0.5


@dataclass
class PlacedTrap:
    """A Trap on the table: its scene entry, its rules state and its region (if any)."""

    entry: TrapEntry
    rules: hz.Trap
    region: Region | None
    inside: set[str] = field(default_factory=set)
    sprung: int = 0

    @property
    def name(self) -> str:
        return self.entry.name or self.entry.id


class Traps(System):
    """Traps of one :class:`~sandbox.engine.game.Game` (F.2)."""

    name = "traps"
    actions = (Interact,)

    def __init__(self, game: "Game"):
        super().__init__(game)
        self.traps: dict[str, PlacedTrap] = {}
        self._ready = False
        self._busy = False

    # ------------------------------------------------------------------ setup
    def setup(self) -> None:
        """Arm the scene's Traps (once, after the bodies have settled).

        Raises
        ------
        SceneError
            A trigger object that is not a body on the table, naming the field.
        """
        if self._ready:
            return
        self._ready = True
        for i, e in enumerate(getattr(self.game.spec, "traps", [])):
            if e.object is not None and e.object not in self.game.bodies:
                raise SceneError(f"traps[{i}].object: no body {e.object!r} on the table")
            mode = hz.TriggerMode.INTERACTION if e.trigger == "interaction" else hz.TriggerMode.ANY
            single = e.effect == "weapon" if e.single_use is None else e.single_use
            rules = hz.Trap(e.name or e.id, e.object or e.id, mode, e.interaction, single,
                            e.action_die)
            region = (Region(tuple(e.centre), e.radius, e.height) if e.trigger == "region"
                      else None)
            pt = PlacedTrap(e, rules, region)
            if region is not None:
                pt.inside = {k for k, _ in bodies_in_region(self.game.world, region,
                                                            list(self.game.bodies))}
            self.traps[e.id] = pt
            what = (f"{e.weapon} Size {e.size:g}\" (d{e.action_die})" if e.effect == "weapon"
                    else e.dice)
            where = (f"a {e.radius:g}\" region at ({e.centre[0]:g}, {e.centre[1]:g})"
                     if region is not None else f"{e.trigger} with {e.object}"
                     + (f" ({e.interaction})" if e.interaction else ""))
            self.game.log("trap", f"{pt.name}: {e.effect} Trap ({what}), triggered by {where}",
                          trap=e.id, trigger=e.trigger, effect=e.effect)

    # ------------------------------------------------------------------ triggers
    def on_step(self, world, events: Sequence) -> None:
        """Contact and region triggers during a physics step (called by the engine's per-step
        hook)."""
        if not self.traps or self._busy:
            return
        for ev in events:
            for pt in self.traps.values():
                if pt.entry.trigger != "contact" or not pt.rules.armed:
                    continue
                obj = pt.entry.object
                if obj is None or obj not in (ev.body_a, ev.body_b):
                    continue
                other = ev.body_b if ev.body_a == obj else ev.body_a
                if other == "ground" or other not in self.game.bodies:
                    continue
                if pt.rules.triggered_by(obj):
                    self.spring(pt, other, np.array(ev.position),
                                f"{self.game.bodies[other].name} touches "
                                f"{self.game.bodies[obj].name}")
        if world.steps % 8 == 0:
            self._check_regions()

    def _check_regions(self) -> None:
        for pt in self.traps.values():
            if pt.region is None:
                continue
            now = {k for k, _ in bodies_in_region(self.game.world, pt.region,
                                                  [k for k in self.game.bodies
                                                   if k in self.game.world.bodies])}
            new = sorted(now - pt.inside)
            pt.inside = now
            for k in new:
                if pt.rules.armed and not self.game.bodies[k].damage.destroyed:
                    self.spring(pt, k, np.array(self.game.world.pose(k)[0]),
                                f"{self.game.bodies[k].name} moves onto it")

    def on_path(self, unit: str, start: np.ndarray, end: np.ndarray,
                careful: bool = False) -> np.ndarray:
        """A unit moved from ``start`` to ``end`` ((2,) or (3,) table points, inches): region
        Traps whose region the straight path crosses go off, in the order the path enters
        them."""
        self.setup()
        a = np.array([start[0], start[1], 0.0])
        b = np.array([end[0], end[1], 0.0])
        hits = []
        for pt in self.traps.values():
            if pt.region is None or not pt.rules.armed or unit in pt.inside:
                continue
            ch = pt.region.chord(a, b)
            if ch is not None and ch[1] >= ch[0]:
                hits.append((ch[0], pt.entry.id, pt))
        for t0, _, pt in sorted(hits, key=lambda h: (h[0], h[1])):
            if not pt.rules.armed or self.game.bodies[unit].damage.destroyed:
                continue
            pt.inside.add(unit)
            self.spring(pt, unit, a + (b - a) * t0, f"{self.game.bodies[unit].name}'s path "
                        f"crosses it at ({a[0] + (b - a)[0] * t0:.2f}, "
                        f"{a[1] + (b - a)[1] * t0:.2f})")
        return end

    @handles(Interact)
    def interact(self, action: Interact, index: int) -> None:
        """A unit interacts with an object: interaction and contact Traps on it may go off.

        Raises
        ------
        SceneError
            An unknown unit or object, naming the action.
        RulesError
            The unit is farther than :data:`REACH_IN` from the object.
        """
        self.setup()
        g = self.game
        where = f"actions[{index}]"
        for k in (action.unit, action.object):
            if k not in g.bodies or k not in g.world.bodies:
                raise SceneError(f"{where}: no body {k!r} on the table")
        cp = closest_points(g.world, action.unit, action.object, 1e6)
        dist = cp[0] if cp is not None else 0.0
        u, o = g.bodies[action.unit], g.bodies[action.object]
        if dist > REACH_IN + 1e-9:
            raise RulesError(f"{where}: {u.name} is {dist:.2f}\" from {o.name}; it must be within "
                             f"{REACH_IN:g}\" to {action.interaction} it")
        g.log("action", f"{u.name} tries to {action.interaction} {o.name}", action="interact",
              player=action.player, body=action.unit, object=action.object,
              interaction=action.interaction)
        at = np.array(cp[2]) if cp is not None else np.array(g.world.pose(action.object)[0])
        for pt in self.traps.values():
            if pt.entry.object == action.object and pt.entry.trigger in ("contact",
                                                                         "interaction"):
                if pt.rules.triggered_by(action.object, action.interaction):
                    self.spring(pt, action.unit, at, f"{u.name} {action.interaction}s {o.name}")
                elif pt.rules.armed:
                    g.log("trap_quiet", f"{pt.name} does not react to '{action.interaction}'",
                          trap=pt.entry.id)
        g.record_frame(force=True)
        g.settle(max_seconds=4.0)

    # ------------------------------------------------------------------ effects
    def spring(self, pt: PlacedTrap, victim: str, point: np.ndarray, why: str) -> None:
        """The Trap goes off at ``point`` (world inches) on ``victim`` (F.2)."""
        g = self.game
        pt.rules.spring()
        pt.sprung += 1
        e = pt.entry
        g.log("trap_sprung", f"{pt.name} goes off: {why}"
              + ("" if pt.rules.armed else " (single use: disarmed)"), trap=e.id, body=victim,
              point=[round(float(v), 4) for v in point])
        self._busy = True
        try:
            if e.effect == "hazard":
                self._hazard(pt, victim, point)
            else:
                self._weapon(pt, victim, point)
        finally:
            self._busy = False

    def _hazard(self, pt: PlacedTrap, victim: str, point: np.ndarray) -> None:
        g = self.game
        if pt.entry.dice is None:  # TrapEntry's own check refuses this when the scene is read
            raise SceneError(f"traps[{pt.entry.id}]: a hazard effect needs 'dice'")
        expr = parse_dice(pt.entry.dice)
        if isinstance(expr, DiceSum) or expr.kind == "Exp":
            # an Explosive, variants combined or not (8.4): each die acts by its kind
            roll = expr.roll(g.dice.stream("explosion"), f"{pt.name} explodes")
            g.system("blasts").blast(np.asarray(point, float), roll, None, pt.name)
            return
        st = g.bodies[victim]
        roll = expr.roll(g.dice.stream("trap"), f"{pt.name} on {st.name}")
        kind = f"{expr.kind} Damage" if expr.kind else "Damage"
        if roll.total and not st.damage.destroyed:
            g.system(Defences).damage(st, roll.total, f"{kind} ({pt.name})", dice=dice_of(roll))
        if expr.kind in ("Fire", "Acid", "Poison") and victim in g.world.bodies:
            g.system("hazards").fire.ignite(victim, roll, at=point, igniter=pt.entry.owner,
                                            source=pt.name)

    def _weapon(self, pt: PlacedTrap, victim: str, point: np.ndarray) -> None:
        """The Weapon Trap fires from its mount at the spot where it was triggered (F.2:
        concealed weapon traps are pointed there): Range is measured to that spot."""
        g = self.game
        e = pt.entry
        st = g.bodies[victim]
        if victim not in g.world.bodies or st.damage.destroyed:
            return
        if e.weapon is None or e.position is None:  # TrapEntry refuses this when it is read
            raise SceneError(f"traps[{e.id}]: a weapon effect needs 'weapon' and 'position'")
        w = weapon_profile(e.weapon, e.size)
        spot = np.array([point[0], point[1], e.position[2]], dtype=float)
        dist = float(np.linalg.norm(spot - np.asarray(e.position, float)))
        shot = resolve_attack(g.dice.stream("trap"), w, action_die=e.action_die,
                              distance_in=dist, target=st.name, target_size_in=st.stats.size,
                              reason=f"{pt.name}'s {w.name}")
        act = shot.action
        g.log("trap_attack", f"{pt.name}'s {w.name} fires at {st.name} {dist:.2f}\" away with "
              f"d{e.action_die}: Action {act.total} vs Use {act.use} - "
              + ("Critical Failure" if act.critical_failure else ("hit" if shot.hit else "miss")),
              trap=e.id, body=victim, total=act.total, use=act.use, hit=shot.hit,
              distance=round(dist, 4))
        if not shot.hit or shot.damage is None:
            return
        # the one strike, as a unit's attack lands (F.2: a Weapon Trap is a weapon): Armor
        # less the on-Fire penalty (F.1), Fire, KnockBack away from its mount (8.1)
        effects.strike(g, st, shot.damage, f"Damage from {pt.name}'s {w.name} ({shot.damage})",
                       weapon=w, igniter=e.owner, fire_source=pt.name, knock=shot.knockback,
                       knock_from=e.position)

    # ------------------------------------------------------------------ checks
    def check_traps(self, sprung: Sequence[str], armed: Sequence[str]) -> list[str]:
        """Failures, in words, of ``[expect.hazards]`` ``sprung`` / ``armed`` Trap ids."""
        fails = []
        for k in sprung:
            if k not in self.traps or not self.traps[k].sprung:
                fails.append(f"expected trap {k!r} to go off, it did not")
        for k in armed:
            if k not in self.traps or not self.traps[k].rules.armed:
                fails.append(f"expected trap {k!r} still armed")
        return fails
