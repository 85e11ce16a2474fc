"""Fires on the physical battlefield: where they burn, Burning Rolls, spreading (BrikWars F.1,
8.3).

Each burning body carries its Fire as a patch of *sites*: one point per inch of Fire, in the
body's own frame, so the flames move with the body (and go with a part that falls off or is
thrown). The rules of :mod:`sandbox.rules.fire_field` decide sizes, Grinding Damage and how
many new Fires start; this module decides *where*: a new inch of Fire is placed on the body's
surface next to the newest burning inch, the oldest inch burns out first, and a Fire with no
room left jumps to the nearest flammable body within 1" that no obstacle hides (physics
closest-point and ray queries, :mod:`sandbox.physics.queries`). Minifigs burn by the simpler
rules of :mod:`sandbox.rules.fire` (8.3).

Readings: a "minifig" here is a unit of Size 1" or less; Burning Rolls are made at the start of
each turn in player order, for the Fires that player controls (the burning body's owner, or
the player who set an unaligned body alight); a minifig's Fire spreads only to a flammable
body of Weight class 1 or less it touches (within 0.05"). Fires on destroyed or removed bodies
go out (F.1: "until the object is destroyed").

Units: inches, Z up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ...core.dice import ExpressionRoll
from ...core.errors import RulesError
from ...core.transforms import quat_to_matrix
from ...core.units import Vec
from ...physics.queries import bodies_near, closest_points
from ...rules import fire as minifig_fire
from ...rules.fire_field import (
    SPREAD_DISTANCE_IN,
    FireType,
    ObjectFire,
    burning_roll,
    catch_fire,
    fight_fire,
    submerge,
)
from ...rules.stats import BattleState, UnitKind, UnitSpec
from .defences import Defences

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.table import Table as Game

#: Bodies this close count as "in direct contact" for a minifig's Fire (inches).
CONTACT_IN: float = 0.05
#: Neighbouring inches of one Fire patch are about this far apart on the surface (inches).
SITE_SPACING_IN: float = 0.8
#: Surface sample grid for placing flames (inches).
_SAMPLE_IN: float = 0.35


@dataclass
class BodyFire:
    """The Fire on one body.

    Attributes
    ----------
    key : str
    controller : str or None
        Player who makes its Burning Rolls.
    rules : ObjectFire or None
        The Field Hazard Fire (bodies larger than a minifig).
    minifig : BattleState or None
        A burning minifig's state (8.3).
    sites : list of (3,) float
        Burning inches, oldest first, body frame.
    """

    key: str
    controller: str | None
    rules: ObjectFire | None = None
    minifig: BattleState | None = None
    sites: list[np.ndarray] = field(default_factory=list)

    @property
    def size_in(self) -> int:
        if self.minifig is not None:
            return 1 if self.minifig.on_fire else 0
        return self.rules.size_in if self.rules is not None else 0

    @property
    def burning(self) -> bool:
        return self.size_in > 0

    @property
    def object_fire(self) -> ObjectFire:
        """The Field Hazard Fire of a body that is no minifig (``rules``).

        Raises
        ------
        RulesError
            When the body has none (a minifig's Fire is its ``minifig`` state).
        """
        if self.rules is None:
            raise RulesError(f"{self.key}: no object Fire (a minifig's Fire or none)")
        return self.rules


class FireController:
    """All Fires of one game. Owned by :class:`sandbox.games.brikwars.hazards.Hazards`.

    Parameters
    ----------
    game : Game
        Gives the physics world, the bodies' stats, the dice and the log.
    """

    def __init__(self, game: "Game"):
        self.game = game
        self.fires: dict[str, BodyFire] = {}
        self.spread_count = 0
        self._samples: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    # ------------------------------------------------------------------ facts
    def _stats(self, key: str):
        return self.game.bodies[key].stats

    def is_minifig(self, key: str) -> bool:
        st = self.game.bodies[key]
        return st.kind == "unit" and st.stats.size <= 1.0

    def flammable(self, key: str) -> bool:
        st = self.game.bodies.get(key)
        return (st is not None and getattr(st.stats, "flammable", True)
                and not st.damage.destroyed and key in self.game.world.bodies)

    def burning(self, key: str) -> bool:
        f = self.fires.get(key)
        return f is not None and f.burning

    def state(self) -> dict:
        """Burning inches per body (for the state hash)."""
        return {k: f.size_in for k, f in sorted(self.fires.items())}

    def fire_size(self, key: str) -> int:
        f = self.fires.get(key)
        return f.size_in if f is not None else 0

    def grinding_damage(self, key: str) -> int:
        f = self.fires.get(key)
        return f.rules.grinding_damage if f is not None and f.rules is not None else 0

    def _controller(self, key: str, igniter: str | None) -> str | None:
        return self.game.bodies[key].owner or igniter

    # ------------------------------------------------------------------ geometry
    def _surface(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """Sampled surface points and normals of a body, body frame (cached)."""
        if key not in self._samples:
            asset = self.game.assets[key]
            v = np.asarray(asset.local_vertices, float).reshape(-1, 3, 3)
            n = np.asarray(asset.local_normals, float).reshape(-1, 3, 3).mean(axis=1)
            c = v.mean(axis=1)
            cells = np.floor(c / _SAMPLE_IN).astype(np.int64)
            _, first = np.unique(cells, axis=0, return_index=True)
            first = np.sort(first)
            self._samples[key] = (c[first], n[first])
        return self._samples[key]

    def _to_local(self, key: str, world_point: Vec) -> np.ndarray:

        pos, orn = self.game.world.pose(key)
        return (np.asarray(world_point, float) - pos) @ quat_to_matrix(orn)

    def _nearest_surface(self, key: str, local_point: np.ndarray) -> np.ndarray:
        pts, _ = self._surface(key)
        cand = pts[self._outer(key)]
        return cand[int(np.argmin(np.linalg.norm(cand - local_point, axis=1)))].copy()

    def _outer(self, key: str) -> np.ndarray:
        """Indices of surface samples on the body's upper outside as it stands now.

        Flames sit on top faces (world normal pointing up), the highest one in each column of
        the table grid, so they stand on a roof and not inside a wall or a stud.
        """

        pts, normals = self._surface(key)
        _, orn = self.game.world.pose(key)
        rot = quat_to_matrix(orn)
        wp = pts @ rot.T
        up = (normals @ rot.T)[:, 2] > 0.6
        idx = np.flatnonzero(up) if up.any() else np.arange(len(pts))
        cells = np.floor(wp[idx, :2] / 0.5).astype(np.int64)
        best: dict[tuple[int, int], int] = {}
        for i, c in zip(idx, map(tuple, cells), strict=True):
            if c not in best or wp[i, 2] > wp[best[c], 2] + 1e-9:
                best[c] = int(i)
        return np.array(sorted(best.values()), dtype=np.int64)

    def _grow_site(self, bf: BodyFire) -> None:
        """Add one burning inch next to the newest one (away from the others), body frame."""
        pts, _ = self._surface(bf.key)
        cand = self._outer(bf.key)
        if not bf.sites:
            wz = self.game.world.body_to_world(bf.key, pts[cand])[:, 2]
            bf.sites.append(pts[cand[int(np.argmax(wz))]].copy())
            return
        existing = np.array(bf.sites)
        cp = pts[cand]
        gap = np.min(np.linalg.norm(cp[:, None, :] - existing[None, :, :], axis=2), axis=1)
        ok = gap >= SITE_SPACING_IN
        if not ok.any():
            ok = gap > 1e-6
        if not ok.any():
            bf.sites.append(existing[-1].copy())
            return
        d = np.linalg.norm(cp - existing[-1], axis=1)
        bf.sites.append(cp[int(np.argmin(np.where(ok, d, np.inf)))].copy())

    def _sync_sites(self, bf: BodyFire) -> None:
        want = bf.size_in
        while len(bf.sites) > want:
            bf.sites.pop(0)  # the oldest inch burns out first
        while len(bf.sites) < want:
            self._grow_site(bf)

    def flame_sites(self) -> list[tuple[str, np.ndarray, float]]:
        """Every burning inch as ``(body key, world point (3,), flame height inches)``."""
        out = []
        for key, bf in self.fires.items():
            if not bf.burning or key not in self.game.world.bodies:
                continue
            height = 0.5 if bf.minifig is not None else 0.9
            for p in bf.sites:
                out.append((key, self.game.world.body_to_world(key, p), height))
        return out

    # ------------------------------------------------------------------ catching
    def _minifig_state(self, key: str) -> BattleState:
        st = self.game.bodies[key]
        spec = UnitSpec(st.name, UnitKind.MINIFIG, size_in=st.stats.size,
                        action_die=st.stats.action_die, move_in=st.stats.move,
                        weight_class=st.stats.weight_class)
        return BattleState(spec)

    def ignite(self, key: str, roll: ExpressionRoll, *, at: Vec | None = None,
               igniter: str | None = None, source: str = "Fire Damage") -> int:
        """Fire Damage dice land on body ``key`` at world point ``at``: catch Fire (F.1, 8.3).

        Returns
        -------
        int
            The body's Fire Size afterwards, inches (a burning minifig counts 1).
        """
        if not self.flammable(key) or roll.expression.kind not in ("Fire", "Acid", "Poison"):
            return self.fire_size(key)
        st = self.game.bodies[key]
        bf = self.fires.get(key)
        before = bf.size_in if bf is not None else 0
        local = self._to_local(key, at) if at is not None else None
        if self.is_minifig(key):
            if roll.critical_failure or roll.total <= 0:
                self.game.log("fire", f"{st.name} shrugs off the {source}: no Fire (8.3)",
                              body=key, size=before)
                return before
            if bf is None or not bf.burning:
                state = self._minifig_state(key)
                state.on_fire = True
                bf = BodyFire(key, self._controller(key, igniter), minifig=state)
                self.fires[key] = bf
                bf.sites = [self._head(key)]
                self.game.log("fire", f"{st.name} is on Fire (8.3: a minifig who takes Fire "
                              "Damage burns)", body=key, size=1, started=True)
            return 1
        fire = bf.rules if bf is not None else None
        fire, res = catch_fire(fire, roll.values, target=st.name, object_size_in=st.stats.size,
                               weight_class=st.stats.weight_class,
                               fire_type=FireType(roll.expression.kind)
                               if roll.expression.kind in ("Fire", "Acid", "Poison")
                               else FireType.FIRE,
                               controller=self._controller(key, igniter))
        if fire is None:
            self.game.log("fire", f"{source} on {st.name}: Fire dice {list(res.values)} do not "
                          f"beat Weight class {st.stats.weight_class}", body=key, size=0)
            return 0
        if bf is None or bf.rules is not fire:
            bf = BodyFire(key, fire.controller, rules=fire)
            self.fires[key] = bf
        if res.started and local is not None:
            bf.sites = [self._nearest_surface(key, local)]
        self._sync_sites(bf)
        what = ("catches Fire" if res.started else f"Fire grows {res.grown_in}\"")
        self.game.log("fire", f"{st.name} {what}: Fire dice {list(res.values)} vs Weight class "
                      f"{st.stats.weight_class}, Fire Size {before}\" -> {fire.size_in}\"",
                      body=key, size=fire.size_in, started=res.started, grown=res.grown_in,
                      values=list(res.values))
        return fire.size_in

    def _head(self, key: str) -> np.ndarray:
        """The highest point of a body as it stands (a minifig's head), body frame."""
        pts, _ = self._surface(key)
        wz = self.game.world.body_to_world(key, pts)[:, 2]
        return pts[int(np.argmax(wz))].copy()

    def _start_spread_fire(self, source: str, target: str, at: Sequence[float]) -> None:
        """A spreading die starts a 1" Fire on ``target`` (or grows its Fire by 1")."""
        src = self.fires[source]
        st = self.game.bodies[target]
        self.spread_count += 1
        self.game.log("spread", f"Fire spreads from {self.game.bodies[source].name} to "
                      f"{st.name}", body=target, source=source)
        if self.is_minifig(target):
            bf = self.fires.get(target)
            if bf is None or not bf.burning:
                state = self._minifig_state(target)
                state.on_fire = True
                bf = BodyFire(target, self._controller(target, src.controller), minifig=state)
                bf.sites = [self._head(target)]
                self.fires[target] = bf
                self.game.log("fire", f"{st.name} is on Fire", body=target, size=1, started=True)
            return
        bf = self.fires.get(target)
        if bf is not None and bf.burning:
            fire, _ = catch_fire(bf.rules, [st.stats.weight_class + 1], target=st.name,
                                 object_size_in=st.stats.size, weight_class=st.stats.weight_class)
        else:
            fire = ObjectFire(st.name, st.stats.size, st.stats.weight_class, 1,
                              src.rules.fire_type if src.rules else FireType.FIRE,
                              self._controller(target, src.controller))
            bf = BodyFire(target, fire.controller, rules=fire,
                          sites=[self._nearest_surface(target, self._to_local(target, at))])
            self.fires[target] = bf
        self._sync_sites(bf)
        self.game.log("fire", f"{st.name} burns: Fire Size {bf.size_in}\"", body=target,
                      size=bf.size_in, started=bf.size_in == 1)

    # ------------------------------------------------------------------ turns
    def _prune(self) -> None:
        for key, bf in list(self.fires.items()):
            st = self.game.bodies.get(key)
            gone = key not in self.game.world.bodies or st is None or st.damage.destroyed
            if gone and bf.burning:
                if bf.rules is not None:
                    bf.rules.put_out()
                if bf.minifig is not None:
                    bf.minifig.on_fire = False
                bf.sites.clear()
                self.game.log("fire_out", f"The Fire on {st.name if st else key} goes with it",
                              body=key)

    def start_of_turn(self, turn: int) -> None:
        """Burning Rolls of every Fire, player by player (F.1 Burning, 8.3)."""
        self._prune()
        order = [p.name for p in self.game.spec.players] + [None]
        for player in order:
            for key in [k for k, bf in self.fires.items() if bf.controller == player]:
                bf = self.fires[key]
                if bf.burning and self.flammable(key):
                    self._burn(bf, player)
        self._prune()

    def _spread_candidates(self, key: str, distance: float, max_weight: int | None = None):
        near = bodies_near(self.game.world, key, distance,
                           candidates=[k for k in self.game.bodies if k != key])
        out = []
        for n in near:
            if not self.flammable(n.key) or n.blocked_by is not None:
                if n.blocked_by is not None:
                    self.game.log("fire_blocked", f"{self.game.bodies[n.key].name} is "
                                  f"{n.distance:.2f}\" away but {n.blocked_by} stands between",
                                  body=n.key, source=key, obstacle=n.blocked_by)
                continue
            if max_weight is not None and self.game.bodies[n.key].stats.weight_class > max_weight:
                continue
            other = self.fires.get(n.key)
            if other is not None and other.burning and (
                    other.minifig is not None
                    or (other.rules is not None and other.rules.engulfed)):
                continue
            out.append(n)
        return out

    def _burn(self, bf: BodyFire, player: str | None) -> None:
        g = self.game
        st = g.bodies[bf.key]
        stream = g.dice.stream("fire")
        who = player or "nobody"
        if bf.minifig is not None:
            r = minifig_fire.burning_roll(stream, bf.minifig)
            if r.extinguished:
                bf.sites.clear()
                g.log("burning", f"{st.name}'s Burning Roll (turn of {who}): {r.roll.result} - "
                      "the Fire goes out", body=bf.key, rolls=[r.roll.result], size=0)
                return
            g.log("burning", f"{st.name}'s Burning Roll (turn of {who}): {r.roll.result} - "
                  f"1 Grinding Damage, a limb is useless ({bf.minifig.useless_limbs} now)",
                  body=bf.key, rolls=[r.roll.result], size=1, grinding=1)
            cands = self._spread_candidates(bf.key, CONTACT_IN,
                                            max_weight=minifig_fire.FIRE_SPREAD_MAX_WEIGHT_CLASS)
            if cands:
                self._start_spread_fire(bf.key, cands[0].key, cands[0].point_to)
            return
        fire = bf.object_fire
        cands = self._spread_candidates(bf.key, SPREAD_DISTANCE_IN)
        res = burning_roll(stream, fire, neighbours=len(cands))
        g.log("burning", f"{st.name}'s Burning Roll (turn of {who}): {list(res.naturals)} vs "
              f"Weight class {fire.weight_class} - {res.died_down} die down, "
              f"{res.spreading} spread; Fire Size {res.size_before}\" -> {res.size_after}\"",
              body=bf.key, rolls=list(res.naturals), size=res.size_after,
              grinding=res.grinding_damage, grown=res.grown_in, new_fires=res.new_fires)
        self._sync_sites(bf)
        if res.grinding_damage:
            g.system(Defences).damage(st, res.grinding_damage, "Grinding Damage (Burning)")
        for n in cands[: res.new_fires]:
            self._start_spread_fire(bf.key, n.key, n.point_to)
        if fire.engulfed and len(fire.history) >= 2 and fire.history[-2] < fire.size_in:
            g.log("engulfed", f"{st.name} is completely engulfed in flames", body=bf.key)
        if not fire.burning:
            g.log("fire_out", f"The Fire on {st.name} dies out", body=bf.key)

    # ------------------------------------------------------------------ putting out
    def extinguish(self, key: str, apparatus_in: float, by: str = "") -> int:
        """Firefighting with ``apparatus_in`` inches of apparatus (F.1); inches removed."""
        bf = self.fires.get(key)
        st = self.game.bodies[key]
        if bf is None or not bf.burning:
            self.game.log("extinguish", f"{st.name} is not burning", body=key, removed=0)
            return 0
        if bf.minifig is not None:
            minifig_fire.douse(bf.minifig)
            cut = 1
        else:
            cut = fight_fire(bf.object_fire, apparatus_in)
        self._sync_sites(bf)
        self.game.log("extinguish", f"{by or 'Firefighters'} fight the Fire on {st.name} with "
                      f"{apparatus_in:g}\" of apparatus: -{cut}\", Fire Size {bf.size_in}\"",
                      body=key, removed=cut, size=bf.size_in)
        return cut

    def douse_minifig(self, key: str) -> None:
        """A burning minifig's Fire is out (stop, drop and roll; doused), 8.3."""
        bf = self.fires.get(key)
        if bf is not None and bf.minifig is not None:
            minifig_fire.stop_drop_and_roll(bf.minifig)
            bf.minifig.disrupted = False  # the body's Disruption is the game's (BodyState)
            self._sync_sites(bf)

    def submerge(self, key: str, what: str = "water") -> None:
        """Completely submerged: the Fire is out at once (F.1, 8.3)."""
        bf = self.fires.get(key)
        if bf is None or not bf.burning:
            return
        if bf.minifig is not None:
            minifig_fire.douse(bf.minifig)
        else:
            submerge(bf.object_fire)
        bf.sites.clear()
        self.game.log("extinguish", f"{self.game.bodies[key].name} is fully submerged in {what}:"
                      " the Fire is out", body=key, removed="all", size=0)

    def contact_point(self, key: str, other: str) -> np.ndarray | None:
        """Closest point on ``key`` to ``other`` (world inches), for where Damage struck."""
        cp = closest_points(self.game.world, other, key, 1e6)
        return None if cp is None else cp[2]
