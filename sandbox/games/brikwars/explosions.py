"""Explosions in the game: ring Damage per part, break-up, KnockBack, chains (BrikWars 8.4).

:class:`Blasts` is the game's explosion sequencer (``game.system("blasts")``). One Explosion goes:

1. **Roll** the Damage dice on the ``explosion`` stream (logged). A Critical Failure (every
   die a 1) makes a Dud when the defender takes that option: it does not go off, stays armed
   and Unstable (8.4 Critical Failures).
2. **Measure** from the blast centre to every part of every body as it lies now
   (:func:`sandbox.physics.breakage.part_distances`: the part's collision box surface).
3. **Damage**: each ring (:func:`sandbox.rules.explosives.variant_rings`) hits what lies in
   it; each die acts by its kind, so combined Variants (``1d12 Phased + 1d10 Exp``) meet
   Deflection die by die (:func:`~sandbox.rules.explosives.ring_damage`). Units and Payloads
   take the ring of their nearest part, compared with their Armor
   (``Game._damage``). A creation's Components are its parts: the creation's Armor is rolled
   once and every part counts Cumulative Damage against it; parts whose total exceeds the
   roll are destroyed. The ground rolls its own 1d10 Armor (stream ``ground``) and is
   cratered out to the outermost ring whose Damage beats it (recorded, not yet drawn).
4. **Break up**: the creation's stud graph (:mod:`sandbox.bricks.connectivity`) without its
   destroyed parts falls into connected pieces; each becomes its own rigid body moving as its
   material moved; each destroyed part becomes a loose piece of rubble (kind ``"debris"``,
   destroyed). Pieces with a part on the ground (within :data:`GROUND_TOUCH_IN`) or of a
   fixed creation are nailed down.
5. **KnockBack** (8.1, 8.4): every loose object in the radius - pieces not nailed down,
   rubble, units, payloads - is thrown directly away from the blast (straight up when the
   blast lies under its footprint) by its ring's KnockBack (:func:`knockback_velocity`).
   Units standing on a thrown piece ride it: they get the piece's throw instead of their own,
   and when the piece lands its Collision roll hits its riders too ("the ground does 1d6
   Collision Damage to the both of them"). One fall, one roll: a thrown body (or rider) takes
   one Collision roll when it lands; tumbling over afterwards in the same action rolls no
   more (a fall is what the book rolls for, not each bounce of it). A unit thrown by
   KnockBack that comes to rest
   tipped over more than 45° is Disrupted (the physical reading of "the usual potential for
   being Disrupted").
6. **Chains**: Explosives damaged on the way (``[[explosives]]`` of the scene, dropped bombs,
   Duds) go off by 8.4 Premature Detonation: Unstable ones at once, after this blast, in the
   order they were damaged (bodies in creation order, so the order is fixed and logged);
   Semi-Stable ones taking more Damage than their XSize are activated (then Unstable) and go
   off at the end of the turn. Each Explosive goes off at most once, so chains end.

Rubble does not deal Collision Damage (it is destroyed material; the book's flying wall
parts hurt nobody). Field-Hazard dice make a :class:`~sandbox.rules.explosives.FieldHazard`
that shrinks 1" at the start of each of the attacker's turns (its effects are another
module's).
"""

from __future__ import annotations

import copy
import functools
import math
from dataclasses import dataclass, fields

import numpy as np

from ...bricks.connectivity import StudGraph, components, stud_graph
from ...core.dice import DiceExpression, DiceSum, ExpressionRoll
from ...core.errors import RulesError
from ...core.transforms import quat_to_matrix
from ...engine.assets import BodyAsset, PieceAsset, rigid_matrix
from ...engine.events import possessive
from ...engine.scene import Stats, parse_armor
from ...engine.table import System
from ...physics.breakage import (
    PiecePlan,
    boxes_now,
    knockback_velocity,
    point_box_distances,
    split_body,
    touching,
)
from ...physics.world import BoxShape
from ...rules import collision as collision_rules
from ...rules.damage import ExplosionRing, Stability, explosion_at, premature_detonation
from ...rules.explosives import (
    VARIANT_OF_KIND,
    FieldHazard,
    Variant,
    explosive_dice,
    field_size_in,
    is_dud,
    opposed_knockback,
    ring_damage,
    variant_rings,
)
from . import effects
from .defences import Defences
from .scene_blast import MissileStrike

#: A part whose box reaches this close to the table top (inches) is nailed down.
GROUND_TOUCH_IN: float = 0.03
#: A unit tipped over more than this from upright after KnockBack is Disrupted (radians).
DISRUPT_TILT_RAD: float = math.radians(45.0)
#: Armor of the ground (BrikWars 8.4 Wall Demolition: "its Armor of 1d10").
GROUND_ARMOR = (1, 10)


def _ring_at(rings: tuple[ExplosionRing, ...], distance_in: float) -> ExplosionRing:
    """The ring reaching ``distance_in`` inches, for a part within the blast's radius (the
    outer ring's ``outer_in``, where :func:`explosion_at` always finds a ring).

    Raises
    ------
    RulesError
        For a distance beyond the last ring (a caller's mistake).
    """
    ring = explosion_at(rings, distance_in)
    if ring is None:
        raise RulesError(f"{distance_in}\" lies beyond the blast's rings")
    return ring


@dataclass
class Charge:
    """An Explosive on the table (mutable): a body that may go off (BrikWars 8.4)."""

    key: str
    name: str
    expression: DiceExpression | DiceSum
    #: None: each die acts by its own kind (mixed variants, 8.4); a Variant reads every die so.
    variant: Variant | None
    stability: Stability
    xsize: int
    dud_allowed: bool = True
    activated: bool = False
    dud: bool = False
    spent: bool = False
    #: From the Action Roll of the shot that delivered it (8.4): Out of Range per die, and
    #: Over the Top bonus dice of a hit.
    per_die_modifier: int = 0
    bonus_dice: int = 0


@dataclass
class Structure:
    """A creation as parts and studs: what is left, what each part has taken.

    Attributes
    ----------
    root : str
        Key of the creation in the scene.
    graph : StudGraph
        Stud connection graph; node = part index = collision box tag.
    armor_roll : int or None
        The creation's one Armor Roll.
    part_damage : dict of int to int
        Cumulative Damage of each part.
    destroyed : set of int
    body_tags : dict of str to list of int
        Parts of each live body made from this creation.
    synced : dict of str to int
        Body-level Cumulative Damage already spread to its parts (Collision Damage lands on
        the body; the next explosion spreads it to every part of that body).
    """

    root: str
    graph: StudGraph
    armor_roll: int | None
    part_damage: dict[int, int]
    destroyed: set[int]
    body_tags: dict[str, list[int]]
    synced: dict[str, int]

    def __deepcopy__(self, memo: dict) -> "Structure":
        """A copy for an undo snapshot; the stud graph is never changed after set-up, so the
        copy shares it (copying the King's Castle's graph would cost more than the undo)."""
        memo[id(self.graph)] = self.graph
        return Structure(**{f.name: copy.deepcopy(getattr(self, f.name), memo)
                            for f in fields(self)})


class _TriangleSplit:
    """Which triangles of a broken body's mesh each piece gets (``split(i)``: plan ``i``'s,
    ascending), worked out on the first piece's first need (a renderer, Fire's samples, a
    second break), not at the break (issue 26: a sort of the King's Castle's 466k triangles).

    One pass: a stable sort of the triangles by plan keeps each plan's triangles in ascending
    order (what ``np.sort`` of its triangles gives), cut at the plans' bounds.
    """

    def __init__(self, placement_index, plans: list[PiecePlan]):
        self._pidx = placement_index
        self._tags = [plan.tags for plan in plans]
        self._cut: tuple[np.ndarray, np.ndarray] | None = None

    def __call__(self, i: int) -> np.ndarray:
        if self._cut is None:
            pidx = np.asarray(self._pidx)
            top = max(int(pidx.max(initial=-1)), max((max(t) for t in self._tags),
                                                     default=-1)) + 1
            plan_of = np.full(top + 1, len(self._tags), dtype=np.int64)
            for k, tags in enumerate(self._tags):
                plan_of[np.asarray(tags, dtype=np.int64)] = k
            tri_plan = plan_of[pidx]
            order = np.argsort(tri_plan, kind="stable")
            cuts = np.searchsorted(tri_plan[order], np.arange(len(self._tags) + 1), "left")
            self._cut, self._pidx = (order, cuts), None
        order, cuts = self._cut
        return order[cuts[i]:cuts[i + 1]]


class Blasts(System):
    """Explosions, break-up, KnockBack and detonation chains of one :class:`Game`."""

    name = "blasts"
    actions = (MissileStrike,)

    def __init__(self, game):
        super().__init__(game)
        self.structures: dict[str, Structure] = {}
        self.root_of: dict[str, str] = {}
        self.charges: dict[str, Charge] = {}
        self.riders: dict[str, str] = {}
        self.fields: list[FieldHazard] = []
        self.craters: list[dict] = []
        self.knocked_units: set[str] = set()
        self.thrown: set[str] = set()  # thrown by a blast this action, not yet landed
        self.landed: set[str] = set()  # took their landing roll this action
        self.pending_end_of_turn: list[str] = []
        self._armed_scene = False
        self._field_dice: dict[int, int] = {}
        self._serial = 0
        #: Explosives that go off after this physics step: (body key, where), in order.
        self.explode_now: list[tuple[str, np.ndarray]] = []

    # ------------------------------------------------------------------ detonations
    def queue_explosion(self, key: str, point) -> None:
        """An Explosive body goes off at ``point`` after this physics step (once)."""
        if key not in {k for k, _ in self.explode_now}:
            self.explode_now.append((key, np.asarray(point, float)))

    def explosion_queued(self, key: str) -> bool:
        """True when ``key`` will go off after this physics step."""
        return key in {k for k, _ in self.explode_now}

    def detonate_queued(self) -> None:
        """Set off every queued Explosive, chains included (BrikWars 8.4)."""
        while self.explode_now:
            key, point = self.explode_now.pop(0)
            self.explode_body(key, point)

    def after_step(self) -> None:
        """Queued Explosives go off once every system has seen the physics step."""
        self.detonate_queued()

    def explode(self, point, roll, what: str, **options):
        """The one explosion: rings of Explosion Damage, break-up, KnockBack and chains
        (BrikWars 8.4), at ``point`` (x, y, z inches) with the rolled Damage dice ``roll``;
        see :meth:`explode_at`."""
        return self.explode_at(np.asarray(point, float), roll, what, **options)

    # ------------------------------------------------------------------ impacts
    def on_impact(self, ev) -> None:
        """Turn one physics impact into Collision Damage (8.4, The Big Drop) or an Explosive
        Payload's blast; a landing Payload without Flight is Disrupted; a burning body adds
        1d4 Fire to what it hits (F.1)."""
        g = self.game
        a = g.bodies.get(ev.body_a)
        b = g.bodies.get(ev.body_b)
        if any(s is not None and s.damage.destroyed for s in (a, b)):
            # Wreckage (a destroyed crate, rubble) does no more Collision Damage, and what is
            # already destroyed cannot be harmed again.
            return
        victims = [s for s in (a, b) if s is not None]
        victims = self.collision_victims(ev, victims)  # riders share, rubble harms none
        bombs = [s for s in victims if s.kind == "payload" and s.explosive_dice]
        if bombs:
            # An Explosive Payload explodes where it first hits (BrikWars 8.4); the Explosion
            # is the Damage of this impact, so no Collision Damage is rolled for it, and its
            # KnockBack is the push: the contact impulse the bomb gave what it struck is
            # taken back (a 240 in/s Rocket would otherwise bowl a minifig 20" away).
            for s in bombs:
                self.queue_explosion(s.key, np.array(ev.position))
                self._absorb_push(s.key, ev)
            return
        if not victims:
            return
        rolls = collision_rules.roll_collision_damage(
            g.dice.stream("collision"), ev.normal_speed, " and ".join(v.name for v in victims))
        if not rolls:
            return
        damage = sum(r.result for r in rolls)
        defences = g.system(Defences)
        for v in victims:
            defences.damage(v, damage, "Collision Damage",
                            dice=[(r.sides, r.result) for r in rolls])
            if v.kind == "payload" and not v.stats.flight:
                effects.disrupt(g, v, "is Disrupted by the landing")
        for src, dst in ((a, b), (b, a)):  # a burning body adds 1d4 Fire to what it hits (F.1)
            if src is not None and dst is not None and dst in victims:
                defences.burning_strike(src.key, dst, "collision", at=ev.position)

    def _absorb_push(self, bomb: str, ev) -> None:
        g = self.game
        other = ev.body_b if bomb == ev.body_a else ev.body_a
        body = g.world.bodies.get(other)
        if other == "ground" or body is None or body.static or body.mass <= 0:
            return
        n = np.asarray(ev.normal, float)  # from body_b towards body_a
        dv = (ev.impulse / body.mass) * (n if other == ev.body_a else -n)
        lin, ang = g.world.velocity(other)
        g.world.set_velocity(other, lin - dv, ang)

    # ------------------------------------------------------------------ bookkeeping
    def explode_at(self, point, roll, what: str, variant: Variant | None = None,
                   exclude=frozenset()) -> tuple:
        """The one explosion at ``point`` (inches) with rolled Damage dice ``roll`` (8.4):
        rings, break-up, KnockBack, then every detonation it sets off. ``variant`` None: each
        die acts by its kind (``3d10 Exp``, ``1d12 Phased + 1d10 Exp``)."""
        rings = self.blast(np.asarray(point, float), roll, variant, what, exclude=exclude)
        self.drain()
        return rings

    def _arm_scene(self) -> None:
        if self._armed_scene:
            return
        self._armed_scene = True
        for e in getattr(self.game.spec, "explosives", None) or []:
            st = self.game.bodies.get(e.body)
            if st is None:
                raise RulesError(f"explosives: no body {e.body!r} on the table")
            stab = Stability.UNSTABLE if e.stability == "unstable" else Stability.SEMI_STABLE
            expr = explosive_dice(e.xsize, e.variant, e.variants)
            self.charges.setdefault(e.body, Charge(e.body, st.name, expr, None, stab, e.xsize))

    def charge_of(self, key: str) -> Charge | None:
        """The Explosive carried by a body (scene ``[[explosives]]``, dropped bombs), if any."""
        self._arm_scene()
        if key in self.charges:
            return self.charges[key]
        st = self.game.bodies.get(key)
        if st is not None and st.explosive_dice:
            # A dropped bomb: Semi-Stable, activated by the drop (8.4: "falling bombs"); a
            # table Rocket keeps its weapon's Variants
            c = Charge(key, st.name, self._dice_of_body(key, st.explosive_dice), None,
                       Stability.UNSTABLE, st.explosive_dice, activated=True)
            self.charges[key] = c
            return c
        return None

    def explosive_dice_of(self, key: str) -> str | None:
        """The Damage dice a body's Explosive would roll ("1d12 Phased + 1d10 Exp"), None when
        it carries none or it went off (BrikWars 8.4). Reads only: arms nothing."""
        c = self.charges.get(key)
        if c is not None:
            return None if c.spent else str(c.expression)
        for e in getattr(self.game.spec, "explosives", None) or []:
            if e.body == key:
                return str(explosive_dice(e.xsize, e.variant, e.variants))
        st = self.game.bodies.get(key)
        if st is not None and st.explosive_dice:
            return str(self._dice_of_body(key, st.explosive_dice))
        return None

    def _dice_of_body(self, key: str, xsize: int):
        """Damage dice of a body carrying ``xsize`` Explosive dice: a table Rocket's Variants
        (the flight system's ``spawned_explosives``), else plain d10s."""
        try:
            spawned = self.game.system("flight").spawned_explosives.get(key)
        except KeyError:
            spawned = None
        if spawned is not None and spawned.xsize == xsize:
            return explosive_dice(xsize, spawned.variant, spawned.variants)
        return explosive_dice(xsize)

    def _boxes(self, key: str) -> list[BoxShape]:
        return self.game.assets[key].boxes

    def _structure(self, key: str) -> Structure | None:
        """The stud structure of a creation body (built on first need), else None."""
        root = self.root_of.get(key, key)
        if root in self.structures:
            return self.structures[root]
        st = self.game.bodies.get(key)
        asset = self.game.assets.get(key)
        if st is None or st.kind != "creation" or asset is None or asset.model is None:
            return None
        graph = asset.stud_graph  # made at load (game.assets)
        if graph is None:
            graph = stud_graph(asset.model, asset.placements, boxes=None)
        s = Structure(key, graph, st.damage.armor_roll, {n: 0 for n in graph.nodes}, set(),
                      {key: [b.tag for b in asset.boxes]}, {key: st.damage.cumulative_damage})
        self.structures[key] = s
        self.root_of[key] = key
        return s

    def _armor_roll(self, s: Structure) -> int:
        root = self.game.bodies[s.root]
        if s.armor_roll is None:
            s.armor_roll = root.damage.armor_roll
        if s.armor_roll is None:
            fixed, dice = parse_armor(root.stats.armor)
            if dice is not None:
                rolls = self.game.dice.stream("armor").roll_many(dice[0], dice[1],
                                                                 f"Armor Roll of {root.name}")
                s.armor_roll = sum(r.result for r in rolls)
            else:  # no dice: parse_armor gives the fixed number
                s.armor_roll = int(fixed or 0)
            root.damage.armor_roll = s.armor_roll
        for k in s.body_tags:
            self.game.bodies[k].damage.armor_roll = s.armor_roll
        return s.armor_roll

    # ------------------------------------------------------------------ actions
    def apply(self, action: MissileStrike, index: int) -> None:
        """A scripted missile strike: it goes off at ``point``; then physics runs to rest."""
        g = self.game
        name = action.name or (f"Size {action.size:g}\" missile" if action.size else "missile")
        point = np.asarray(action.point, float)
        damage_dice = action.xsize - action.hazard_dice
        kind = ", ".join(action.variants) if action.variants else action.variant
        whose = "" if name.startswith(action.player) else f"{possessive(action.player)} "
        g.log("action", f"{whose}{name} ({action.xsize} XSize, {kind}) strikes "
              f"{np.round(point, 3).tolist()}", action="missile", player=action.player,
              point=[float(v) for v in point], xsize=action.xsize, variant=action.variant,
              **({"variants": list(action.variants)} if action.variants else {}))
        if action.hazard:
            self.add_field(action.hazard, action.hazard_dice, point, action.player)
        if damage_dice > 0:
            expr = explosive_dice(damage_dice, action.variant, action.variants)
            charge = Charge(f"missile{index + 1}", name, expr, None,
                            Stability.UNSTABLE, action.xsize, action.dud_on_critical_failure,
                            activated=True)
            self.detonate(charge, point, owner=action.player)
        g.settle(max_seconds=8.0)
        self.after_rest()
        g.log("rest", f"Everything is at rest at {g.world.time:.2f} s")

    def start_of_player_turn(self, turn: int, player: str) -> None:
        """Field Hazards left by the player's Explosions in earlier turns shrink by 1" (8.4:
        "at the beginning of each of the attacking player's turns"); the table's Field
        shrinks with them and is gone at 0"."""
        for i, f in enumerate(self.fields):
            if f.active and f.created_turn < turn and f.owner in (player, None):
                size = f.shrink()
                self.game.log("field", f"The {f.hazard} field shrinks to {size:g}\"",
                              field=f.to_dict())
                self._place_field(i, f)

    def end_of_turn(self, turn: int) -> None:
        """Activated Semi-Stable Explosives go off at the end of the turn (8.4)."""
        g = self.game
        due = [k for k in self.pending_end_of_turn if not self.charges[k].spent]
        self.pending_end_of_turn.clear()
        if not due:
            return
        for k in due:
            if k in g.world.bodies:
                self.queue_explosion(k, g.world.pose(k)[0])
        self.drain()
        g.settle(max_seconds=8.0)
        self.after_rest()

    def drain(self) -> None:
        """Set off queued detonations (outside a physics step) until none is left."""
        self.detonate_queued()

    def add_field(self, hazard: str, dice: int, point, owner) -> FieldHazard:
        """A Field Hazard Explosion (8.4): Field Size by hazard kind, placed on the table as a
        real Field of the hazards system (Smoke blocks sight; an Exposure Field, Fire among
        them, burns who stands in it, F.1). Other hazard kinds stay records."""
        centre = (float(point[0]), float(point[1]), float(point[2]))
        f = FieldHazard(hazard, centre, field_size_in(hazard, dice),
                        owner, self.game.turn)
        self.fields.append(f)
        self._field_dice[len(self.fields) - 1] = int(dice)
        self.game.log("field", f"A {f.size_in:g}\" {hazard} field forms at "
                      f"{np.round(point, 2).tolist()}", field=f.to_dict())
        self._place_field(len(self.fields) - 1, f)
        return f

    #: Exposure Damage dice of the Field Hazards an Explosion may leave (F.1: Fire in d4s).
    EXPOSURE_DICE = {"fire": "d4 Fire", "acid": "d6 Acid", "poison": "d6 Poison",
                     "exposure": "d6"}

    def _place_field(self, i: int, f: FieldHazard) -> None:
        from .hazard_scene import FieldEntry

        kind = f.hazard.strip().lower()
        fid = f"blast-field{i + 1}"
        hazards = self.game.system("hazards")
        if not f.active:
            hazards.remove_field(fid, "shrunk to nothing (8.4)")
            return
        centre = (float(f.centre[0]), float(f.centre[1]))
        if kind == "smoke":
            entry = FieldEntry(id=fid, name=f"{f.hazard} of an Explosion", hazard="smoke",
                               size=f.size_in, centre=centre)
        elif kind in self.EXPOSURE_DICE:
            # at most one Hazard die an inch of Size (F.1, as rules.hazards.Field.resized):
            # a shrinking Field loses its dice beyond its Size, for good
            n = min(self._field_dice.get(i, 1), math.floor(f.size_in + 1e-9))
            if n < 1:
                hazards.remove_field(fid, "its last Hazard die is gone (F.1)")
                return
            self._field_dice[i] = n
            entry = FieldEntry(id=fid, name=f"{f.hazard} of an Explosion", hazard="exposure",
                               size=f.size_in, centre=centre,
                               dice=f"{n}{self.EXPOSURE_DICE[kind]}")
        else:
            return
        hazards.add_field(entry, source="left by an Explosion, 8.4")

    # ------------------------------------------------------------------ detonation
    def explode_body(self, key: str, point, drain: bool = False) -> None:
        """A body's Explosive goes off at ``point`` (an impact, a Premature Detonation)."""
        g = self.game
        st = g.bodies.get(key)
        charge = self.charge_of(key)
        if st is None or charge is None or charge.spent:
            return
        self.detonate(charge, np.asarray(point, float), owner=st.owner, drain=drain)

    def detonate(self, charge: Charge, point: np.ndarray, owner=None,
                 drain: bool = True) -> ExpressionRoll | None:
        """Roll an Explosive's dice and, unless it is a Dud, resolve the blast at ``point``."""
        g = self.game
        roll = charge.expression.roll(g.dice.stream("explosion"), f"Explosion of {charge.name}",
                                      per_die_modifier=charge.per_die_modifier,
                                      bonus_dice=charge.bonus_dice)
        if charge.dud_allowed and not charge.dud and is_dud(roll):
            charge.dud = True
            charge.stability = Stability.UNSTABLE
            charge.activated = True
            g.log("dud", f"{charge.name} is a Dud (Critical Failure): it stays armed and Unstable",
                  body=charge.key, point=[round(float(v), 4) for v in point])
            if charge.key not in g.bodies:
                self._spawn_dud(charge, point, owner)
            return None
        charge.spent = True
        st = g.bodies.get(charge.key)
        if st is not None:
            st.damage.destroyed = True
            if charge.key in g.world.bodies:
                g.world.remove(charge.key)
        self.blast(point, roll, charge.variant, charge.name, exclude={charge.key})
        if drain:
            self.drain()
        return roll

    def _spawn_dud(self, charge: Charge, point: np.ndarray, owner) -> None:
        from ...engine.assets import build_part_asset

        g = self.game
        asset = build_part_asset("3005", 0, g.ldrawdir, name=f"{charge.name} (Dud)")
        lo, hi = asset.bounds()
        asset.transform(np.eye(3), point - (lo + hi) / 2)
        g.add_body(charge.key, "payload", f"{charge.name} (Dud)", owner,
                    Stats(size=1.0, armor=0), asset)
        self.charges[charge.key] = charge

    def on_damage(self, victim, damage: int) -> None:
        """Premature Detonation check after a body takes Damage (BrikWars 8.4)."""
        charge = self.charge_of(victim.key)
        if charge is None or charge.spent or damage <= 0:
            return
        stab = Stability.UNSTABLE if (charge.activated or charge.dud) else charge.stability
        when = premature_detonation(stab, damage, charge.xsize)
        g = self.game
        if when == "now":
            if victim.key in g.world.bodies and not self.explosion_queued(victim.key):
                g.log("detonation", f"{victim.name} is Unstable and goes off ({damage} Damage)",
                      body=victim.key)
                self.queue_explosion(victim.key, g.world.pose(victim.key)[0])
        elif when == "end of turn" and not charge.activated:
            charge.activated = True
            charge.stability = Stability.UNSTABLE
            self.pending_end_of_turn.append(victim.key)
            g.log("detonation", f"{victim.name} is activated ({damage} Damage > XSize "
                  f"{charge.xsize}) and will go off at the end of the turn", body=victim.key)

    # ------------------------------------------------------------------ the blast
    def blast(self, point: np.ndarray, roll: ExpressionRoll, variant: Variant | None,
              source: str, exclude=frozenset()) -> tuple[ExplosionRing, ...]:
        """Resolve one Explosion at ``point`` (inches): Damage, break-up, KnockBack. Each die
        acts by its kind (``variant`` None; mixed variants combine, 8.4) or as ``variant``."""
        g = self.game
        rings = variant_rings(roll, variant)
        variant = None  # the rings now carry each die's kind
        radius = rings[-1].outer_in if rings else 0.0
        kinds = sorted({k for r in rings for k in r.kinds})
        label = (VARIANT_OF_KIND[kinds[0]].value if len(kinds) == 1
                 else "mixed" if kinds else "explosive")
        g.log("explosion", f"{source} explodes at {np.round(point, 2).tolist()}: "
              + ", ".join(f"{r.damage} Damage within {r.outer_in:g}\"" for r in rings),
              body=next(iter(exclude), None), point=[round(float(v), 4) for v in point],
              rings=[r.damage for r in rings], knockback=[r.knockback_in for r in rings],
              radius=radius, variant=label)
        if not rings:
            return rings
        targets = [k for k in g.world.bodies if k != "ground" and k not in exclude]
        hits: dict[str, dict[int, float]] = {}
        boxes_at: dict[str, list[BoxShape]] = {}  # each hit body's boxes where it is now
        for key in targets:
            now = boxes_now(g.world, key, self._boxes(key))
            dist = point_box_distances(point, now)
            close = np.flatnonzero(dist <= radius + 1e-9).tolist()
            if close:  # tag -> inches, in box order (part_distances, the parts within reach)
                hits[key] = {now[i].tag: float(dist[i]) for i in close}
                boxes_at[key] = now
        self._ground(point, rings, variant)
        thrown: list[tuple[str, ExplosionRing]] = []  # (body, the ring that throws it)
        for key, near in hits.items():
            st = g.bodies.get(key)
            if st is None:
                continue
            if st.kind == "debris":
                thrown.append((key, _ring_at(rings, min(near.values()))))
                continue
            s = self._structure(key) if not st.damage.destroyed else None
            if s is not None:
                thrown.extend(self._hit_structure(key, s, near, boxes_at[key], rings,
                                                  variant))
                continue
            d = min(near.values())
            ring = _ring_at(rings, d)
            # Deflection cancels the highest dice; Armor Piercing and Phased see past it (8.4)
            dmg = ring_damage(ring, variant, deflection_layers=st.stats.deflection)
            if dmg > 0 and not st.damage.destroyed:
                sides = ring.sides or (10,) * len(ring.dice)
                g.system(Defences).damage(st, dmg, f"Explosion Damage ({d:.2f}\" from the blast)",
                          dice=list(zip(sides, ring.dice, strict=True))
                          if dmg == ring.damage else None)
            fixed = g.world.bodies[key].static
            if not fixed and ring.knockback_in > 0:
                thrown.append((key, ring))
        self._knock_back(point, thrown)
        return rings

    def _ground(self, point, rings, variant) -> None:
        g = self.game
        h = float(point[2])
        reach = [r for r in rings if h <= r.outer_in + 1e-9]
        if not reach or h < -1e-6 or all(k == "KnockBack" for r in rings for k in r.kinds):
            return
        rolls = g.dice.stream("ground").roll_many(*GROUND_ARMOR, "Armor Roll of the ground")
        armor = sum(r.result for r in rolls)
        beaten = [r for r in reach if ring_damage(r, variant) > armor]
        if not beaten:
            g.log("ground", f"The ground holds (Armor Roll {armor})", armor=armor)
            return
        outer = beaten[-1].outer_in
        radius = math.sqrt(max(0.0, outer * outer - h * h))
        crater = {"centre": [round(float(point[0]), 4), round(float(point[1]), 4)],
                  "radius": round(radius, 4), "armor": armor, "turn": g.turn}
        self.craters.append(crater)
        g.log("crater", f"The ground within {outer:g}\" of the blast is destroyed (Armor Roll "
              f"{armor}): a crater {radius:.2f}\" in radius", **crater)

    def _hit_structure(self, key, s: Structure, near: dict[int, float], now: list[BoxShape],
                       rings, variant):
        """Ring Damage to a creation's parts (``now``: its boxes where it is); split it;
        return what is thrown."""
        g = self.game
        st = g.bodies[key]
        armor = self._armor_roll(s)
        tags = s.body_tags[key]
        extra = st.damage.cumulative_damage - s.synced.get(key, 0)
        if extra > 0:
            for t in tags:
                s.part_damage[t] += extra
        per_ring: dict[float, list[int]] = {}
        newly = []
        layers = st.stats.deflection
        for t in sorted(near):
            ring = _ring_at(rings, near[t])
            dmg = ring_damage(ring, variant, deflection_layers=layers)
            if dmg <= 0:
                continue
            s.part_damage[t] += dmg
            per_ring.setdefault(ring.outer_in, []).append(t)
            if s.part_damage[t] > armor and t not in s.destroyed:
                s.destroyed.add(t)
                newly.append(t)
        for outer in sorted(per_ring):
            ts = per_ring[outer]
            ring = _ring_at(rings, outer)
            dmg = ring_damage(ring, variant, deflection_layers=layers)
            dead = [t for t in ts if t in newly]
            worst = max(s.part_damage[t] for t in ts)
            g.log("damage", f"{st.name}: {len(ts)} part(s) within {outer:g}\" take {dmg} "
                  f"Explosion Damage (Cumulative Damage up to {worst} against Armor {armor}) — "
                  + (f"{len(dead)} destroyed" if dead else "they hold"),
                  body=key, damage=dmg, source="Explosion Damage", ring=outer, parts=len(ts),
                  destroyed_parts=len(dead), total=worst, armor=armor, destroyed=False)
        alive = [t for t in tags if t not in s.destroyed]
        st.damage.cumulative_damage = max([s.part_damage[t] for t in alive], default=0)
        s.synced[key] = st.damage.cumulative_damage
        if not newly:
            return self._loose_whole(key, near, now, rings)
        return self._split(key, s, near, now, rings, newly)

    def _loose_whole(self, key, near, now: list[BoxShape], rings):
        """An unbroken creation in the blast is thrown only if nothing nails it down."""
        body = self.game.world.bodies[key]
        if body.static or any(self._on_ground_many(now)):
            return []
        ring = _ring_at(rings, min(near.values()))
        return [(key, ring)] if ring.knockback_in > 0 else []

    def _split(self, key, s: Structure, near, now_boxes: list[BoxShape], rings, newly):
        g = self.game
        st = g.bodies[key]
        world = g.world
        static = world.bodies[key].static
        tags = s.body_tags.pop(key)
        s.synced.pop(key, None)
        now = {b.tag: b for b in now_boxes}
        old_asset = g.assets[key]
        pos, orn = world.pose(key)
        r_old = quat_to_matrix(orn)
        alive = [t for t in tags if t not in s.destroyed]
        groups = components(s.graph, alive)
        plans, kinds = [], []
        for grp in groups:
            self._serial += 1
            plans.append(PiecePlan(f"{s.root}#{self._serial}", tuple(grp)))
            kinds.append("piece")
        for t in sorted(newly):
            if t in now:
                plans.append(PiecePlan(f"{s.root}~{t}", (t,), rubble=True))
                kinds.append("debris")
        new = split_body(world, key, self._boxes(key), plans)
        del self.game.assets[key]
        g.log("break", f"{st.name} breaks into {len(groups)} piece(s) and "
              f"{sum(k == 'debris' for k in kinds)} destroyed part(s)", body=key,
              pieces=[p.key for p, k in zip(plans, kinds, strict=True) if k == "piece"],
              debris=[p.key for p, k in zip(plans, kinds, strict=True) if k == "debris"])
        thrown = []
        if old_asset.placement_index is None or not old_asset.has_body_mesh():
            raise RulesError(f"{old_asset.name}: no per-part mesh to break apart")
        split = _TriangleSplit(old_asset.placement_index, plans)
        # nailed down: a part's box reaching the table top, every box at once
        grounded = dict(zip(now, self._on_ground_many(list(now.values())), strict=True))
        for i, (plan, kind) in enumerate(zip(plans, kinds, strict=True)):
            body = new[plan.key]
            asset = self._piece_asset(old_asset, plan, body, functools.partial(split, i), r_old,
                                      pos)
            asset.boxes = [now[t] for t in plan.tags]  # the piece's boxes at its creation
            g.assets[plan.key] = asset
            self.root_of[plan.key] = s.root
            if kind == "piece":
                ps = type(st)(plan.key, "creation", f"{g.bodies[s.root].name} (piece of "
                              f"{len(plan.tags)} parts)", st.owner, st.stats,
                              damage=type(st.damage)())
                ps.damage.armor_roll = s.armor_roll
                ps.damage.cumulative_damage = max(s.part_damage[t] for t in plan.tags)
                g.bodies[plan.key] = ps
                s.body_tags[plan.key] = list(plan.tags)
                s.synced[plan.key] = ps.damage.cumulative_damage
                nailed = static or any(grounded[t] for t in plan.tags)
                d = min((near[t] for t in plan.tags if t in near), default=None)
                if not nailed and d is not None:
                    ring = _ring_at(rings, d)
                    if ring.knockback_in > 0:
                        thrown.append((plan.key, ring))
                g.log("piece", f"{ps.name}: " + ("nailed down" if nailed else "loose"),
                      body=plan.key, parts=len(plan.tags), nailed=nailed,
                      mass_g=round(body.mass, 3))
            else:
                t = plan.tags[0]
                ds = type(st)(plan.key, "debris", f"{g.bodies[s.root].name} part {t} "
                              f"({old_asset.placements[t].part if old_asset.placements else t})",
                              st.owner, st.stats, damage=type(st.damage)())
                ds.damage.armor_roll = s.armor_roll
                ds.damage.cumulative_damage = s.part_damage[t]
                ds.damage.destroyed = True
                g.bodies[plan.key] = ds
                if t in near and not static:
                    ring = _ring_at(rings, near[t])
                    if ring.knockback_in > 0:
                        thrown.append((plan.key, ring))
        # the creation as a whole: destroyed only when every part is
        if not s.body_tags:
            g.bodies[s.root].damage.destroyed = True
            g.log("destroyed", f"{g.bodies[s.root].name} is destroyed", body=s.root)
        if key != s.root:
            st.damage.destroyed = False
        return thrown

    @staticmethod
    def _on_ground_many(boxes: list[BoxShape]) -> list[bool]:
        """Whether each box reaches down to the table top (:data:`GROUND_TOUCH_IN`), every box
        at once."""
        if not boxes:
            return []
        r = np.array([b.rotation for b in boxes], dtype=float)
        h = np.array([b.half_extents for b in boxes], dtype=float)
        z = np.array([b.centre[2] for b in boxes], dtype=float)
        lowest = z - (np.abs(r[:, 2, :]) * h).sum(axis=1)
        return (lowest <= GROUND_TOUCH_IN).tolist()

    @staticmethod
    def _piece_asset(old: BodyAsset, plan: PiecePlan, body, tri,
                     r_old: np.ndarray, pos: np.ndarray) -> BodyAsset:
        """The asset of a piece: its triangles ``tri`` of the old mesh (an array, or a function
        that gives them on first need), in the piece's body frame (``r_old``, ``pos``: the old
        body's pose); the arrays are made on first use
        (:class:`~sandbox.engine.assets.PieceAsset`)."""
        if old.placement_index is None:
            raise RulesError(f"{old.name}: no per-part mesh to break apart")
        old_pose = rigid_matrix(r_old, pos)
        r_new, o_new = body.frame_rotation, body.frame_origin
        frame = None
        if old.model_frame is not None:
            frame = np.linalg.inv(rigid_matrix(r_new, o_new)) @ (old_pose @ old.model_frame)
        return PieceAsset(f"{old.name} [{plan.key}]", [], len(plan.tags), parent=old, tri=tri,
                          parent_rotation=r_old, parent_position=pos, origin=o_new,
                          rotation=r_new,
                          model=old.model, placements=old.placements, model_frame=frame)

    # ------------------------------------------------------------------ KnockBack
    def _knock_back(self, point, thrown: list[tuple[str, ExplosionRing]]) -> None:
        """Throw loose bodies: Explosive d10s' inches unresisted, Concussion d6s' inches less
        the body's Physical Opposition (8.4)."""
        g = self.game
        world = g.world
        carriers = [k for k, _ in thrown if g.bodies.get(k) is not None
                    and g.bodies[k].kind == "creation"]
        for key, ring in thrown:
            if key not in world.bodies:
                continue
            st = g.bodies[key]
            inches = ring.knockback_in
            if ring.resisted_in > 0:
                kept, _ = opposed_knockback(g.dice.stream("opposition"), ring.resisted_in,
                                            st.stats.size, st.name)
                inches = inches - ring.resisted_in + kept
            if inches <= 0:
                continue
            carrier = None
            if st.kind == "unit":
                carrier = next((c for c in carriers if c in world.bodies
                                and self._rides(key, c)), None)
            if carrier is not None:
                self.riders[key] = carrier
                continue
            dv = self._throw(key, point, inches)
            self.thrown.add(key)
            self.landed.discard(key)
            lin, ang = world.velocity(key)
            world.set_velocity(key, lin + dv, ang)
            if st.kind == "unit":
                self.knocked_units.add(key)
            g.log("knockback", f"{st.name} is Knocked Back {inches:g}\" "
                  f"({'up' if dv[2] > 0.99 * np.linalg.norm(dv) else 'away'}, "
                  f"{np.linalg.norm(dv):.1f} in/s)", body=key, inches=inches,
                  velocity=[round(float(v), 3) for v in dv])
        for rider, carrier in list(self.riders.items()):
            if rider in world.bodies and carrier in world.bodies:
                lin_c, ang_c = world.velocity(carrier)
                com_c, _ = world.pose(carrier)
                pos_r, _ = world.pose(rider)
                world.set_velocity(rider, lin_c + np.cross(ang_c, pos_r - com_c))
                self.thrown.add(rider)
                self.landed.discard(rider)
                self.knocked_units.add(rider)
                g.log("knockback", f"{g.bodies[rider].name} rides {g.bodies[carrier].name}",
                      body=rider, carrier=carrier)

    def _rides(self, unit: str, carrier: str) -> bool:
        """A unit stands on a carrier: touching it, its feet above the carrier's lowest part."""
        w = self.game.world
        if not touching(w, unit, carrier):
            return False
        return bool(w.aabb(unit)[0][2] > w.aabb(carrier)[0][2] + 0.1)

    def _throw(self, key: str, point, inches: float) -> np.ndarray:
        world = self.game.world
        com, _ = world.pose(key)
        lo, hi = world.aabb(key)
        below = (lo[0] - 1e-6 <= point[0] <= hi[0] + 1e-6
                 and lo[1] - 1e-6 <= point[1] <= hi[1] + 1e-6
                 and point[2] <= lo[2] + 1e-6)
        direction = np.array([0.0, 0.0, 1.0]) if below else com - np.asarray(point, float)
        if np.linalg.norm(direction) < 1e-9:
            direction = np.array([0.0, 0.0, 1.0])
        return knockback_velocity(direction, inches, world.gravity)

    # ------------------------------------------------------------------ impacts, rest
    def collision_victims(self, ev, victims: list) -> list:
        """Who an impact harms, given riders and rubble (see the module docstring)."""
        bodies = self.game.bodies
        a, b = bodies.get(ev.body_a), bodies.get(ev.body_b)
        bombs = [v for v in victims if v.kind == "payload" and v.explosive_dice]
        if any(s is not None and s.kind == "debris" for s in (a, b)):
            return bombs
        pair = {ev.body_a, ev.body_b}
        for rider, carrier in self.riders.items():
            if pair == {rider, carrier}:
                return bombs
        # one fall, one roll: a thrown body tumbling on after its landing rolls no more
        out = [v for v in victims if v.key not in self.landed or v in bombs]
        for v in list(out):
            for rider, carrier in self.riders.items():
                r = bodies.get(rider)
                if (carrier == v.key and r is not None and not r.damage.destroyed and r not in out
                        and rider not in self.landed):
                    out.append(r)
        if collision_rules.collision_dice(ev.normal_speed):
            for v in out:
                if v.key in self.thrown:
                    self.landed.add(v.key)
        return out

    def after_rest(self) -> None:
        """End of an action: riders step off; thrown units lying tipped over are Disrupted."""
        g = self.game
        self.riders.clear()
        self.thrown.clear()
        self.landed.clear()
        for key in sorted(self.knocked_units):
            st = g.bodies.get(key)
            if st is None or key not in g.world.bodies or st.damage.destroyed:
                continue
            _, orn = g.world.pose(key)
            body = g.world.bodies[key]
            up = quat_to_matrix(orn) @ body.frame_rotation.T @ np.array([0.0, 0.0, 1.0])
            tilt = math.acos(max(-1.0, min(1.0, float(up[2]))))
            if tilt > DISRUPT_TILT_RAD:
                effects.disrupt(g, st, f"is Disrupted: Knocked Back and lying "
                                f"{math.degrees(tilt):.0f}° from upright")
        self.knocked_units.clear()

    def state(self) -> dict:
        """Explosion state for saves and logs: fields, craters, charges."""
        return {"fields": [f.to_dict() for f in self.fields], "craters": list(self.craters),
                "charges": {k: {"spent": c.spent, "dud": c.dud, "activated": c.activated,
                                "stability": c.stability.value} for k, c in self.charges.items()}}
