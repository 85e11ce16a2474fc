"""Strategic Bombardment (BrikWars 13.2): Payloads called in with Strategy bricks.

A Commander spends Strategy bricks on a Payload of Explosives (one brick per die of Explosive
Damage), Reinforcements (one per Unit Inch, a reserve unit's Size) and supplies (one per inch
of Payload Size). The target must be Marked by an allied Scout (``marked_by``: a Scout of the
same player or of an ally on his scene ``side``, within 8" of the target and seeing it,
:meth:`Bombardment.mark_refusal`) or lie in
a drop zone (bricks spent never above its Size). A marker is placed now; the Payload arrives
at the beginning of the Commander's next turn (a full turn later, never in the same action):

- by Action Roll: one roll per Payload item, Use = 4 × bricks spent, a generic d6 (or the
  action's ``action_die``); Range is ignored. A hit comes down on the target; a miss lands where
  the defender chooses within the miss distance (see :mod:`.projectiles`; headless
  default: straight on away from the battlefield's centre). The Payload is released
  :data:`ARRIVAL_HEIGHT_IN` above the spot and comes straight down.
- with ``big_drop`` (The Big Drop): no roll; every item is held 5" off the ground per brick
  spent, over the target, side by side ``spacing`` inches apart along X, and let go together.
  They land where physics puts them. This is the only way a Payload is dropped: there is no
  separate same-action drop (the ``big_drop`` action type of earlier scene files is gone).

Unit and supply Payloads without Flight take Collision Damage on landing and are Disrupted
(the game's impact handling); Explosives explode on their first impact.

Non-Escapade Reinforcements (13.2, the ``reinforcements`` action): on a battlefield without
friendly edges a Commander spends his Action and one Strategy brick per Unit Inch; the reserve
units enter at a point of the battlefield edge "closer to a friendly or allied unit than it is
to any enemy units, and with no enemy units within ten inches"
(:func:`sandbox.rules.escapade_field.is_safe_entry_point`; allies: the players on the caller's
scene ``side``) and appear at the end of the turn at their ``[[reserves]]`` positions, each
within its Move of the entry point ("within one turn's movement").

Smoke bombs (13.2: "Reinforcement units can be fired alongside ... Explosive variants like
Smoke bombs"; 8.4 Alternate Damage Dice) cost one brick per die like Explosives. Every die is
replaced with Smoke, so the bomb does no Damage: on its first impact it bursts (its body leaves
the table, and no Collision Damage is rolled for it) into a Smoke Field of 4" of Size per die
centred where it struck, placed through :meth:`.hazards.Hazards.add_field`. The
Field is not permanent: at the start of each later turn (turns are rounds here, so every turn
is the attacking player's) it shrinks by 1", and it is gone at 0".
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...core.errors import RulesError, SceneError
from ...engine.assets import build_part_asset
from ...engine.scene import Stats
from ...engine.table import System, handles, refuses
from ...rules import collision as collision_rules
from ...rules.attacks import action_roll
from ...rules.escapade_commander import bombardment_cost, check_drop_zone
from ...rules.escapade_field import SAFE_ENTRY_ENEMY_CLEARANCE_INCHES, is_safe_entry_point
from ...rules.hazards import MARK_RANGE_IN
from . import effects
from .hazard_scene import FieldEntry
from .projectiles import MissContext, miss_distance
from .scene_flight import BombardAction, ReinforcementsAction
from .skirmish import possessive

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.table import Table as Game

#: How far from a side of the battlefield an entry point still lies "on the edge", inches.
EDGE_TOLERANCE_IN: float = 0.5
#: Height above the landing spot from which a rolled Bombardment Payload comes down, inches.
ARRIVAL_HEIGHT_IN: float = 6.0
#: How long a landing may take to come to rest, seconds.
LANDING_MAX_SECONDS: float = 8.0
#: Smoke Field Size per Explosive die replaced with Smoke, inches (8.4 Alternate Damage Dice).
SMOKE_FIELD_IN_PER_DIE: float = 4.0


@dataclass
class Order:
    """A Bombardment on its way (plain data for a save and the log)."""

    id: str
    player: str
    called_turn: int
    bricks: int
    use: int
    target: list[float]
    items: list[dict]
    big_drop: bool
    spacing: float
    action_die: int
    miss_spot: list[float] | None = None
    status: str = "incoming"  # incoming, arrived
    keys: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """A copy that later changes of the order (its bodies, its status) leave alone: the
        event logged when it is called keeps what it was then."""
        return copy.deepcopy(self.__dict__)


class Bombardment(System):
    """The game's Strategy piles and Strategic Bombardments, The Big Drop included (13.2)."""

    name = "bombardment"
    actions = (BombardAction, ReinforcementsAction)

    def __init__(self, game: "Game"):
        super().__init__(game)
        self.piles: dict[str, int] = {p.name: p.strategy_bricks for p in game.spec.players}
        self.orders: list[Order] = []
        #: Smoke Fields of burst Smoke bombs: field id -> {"turn", "player", "size"}.
        self.smoke: dict[str, dict] = {}
        self._smoke_bombs: dict[str, Order] = {}
        #: Non-Escapade Reinforcements called this turn: [player, [reserve ids]] (13.2).
        self.entering: list[list] = []

    def strategy_pile(self, player: str | None = None) -> int:
        """Strategy bricks left in a player's pile (default: the current player's; 13.2)."""
        p = self.game.current_player if player is None else player
        return int(self.piles.get(p, 0))

    def state(self) -> dict:
        return self.to_dict()

    def mark_refusal(self, a: BombardAction) -> str:
        """Why ``a.marked_by`` cannot Mark the Bombardment's target ("" when he can).

        BrikWars 13.2 (Strategic Bombardment: the target "must be Marked by an allied Scout")
        with F.3 Marking: the Marker is a Scout of the calling player or of an ally (same
        scene ``side``), on the table, not Disrupted, within 8" of the target point (edge of
        his base to the point) and with a clear line of sight to it (from his eye; Smoke and
        bodies block it). Readings: Marking a point needs no earlier ``mark`` action; the
        Scout Marks it as the Bombardment is called in (logged as its own ``mark`` event).
        The point is 0.25" above whatever is on top at the target (:meth:`mark_point`), and
        the range is measured to it. The Scout sees the target when nothing blocks his line
        of sight to that point (a unit standing there is the target itself and does not hide
        it), or when he sees the body on top there as he would for an attack (the engine's one
        line of sight to its centre): a gatehouse roof is Marked by seeing the gatehouse.
        """
        g = self.game
        if a.marked_by is None or a.marked_by not in g.bodies \
                or a.marked_by not in g.world.bodies:
            return f"{a.marked_by!r} is not a unit on the table"
        scout = g.bodies[a.marked_by]
        if not g.system("hazards").allied(a.player, scout.owner) or scout.damage.destroyed:
            return f"{scout.name} cannot Mark targets for {a.player}"  # allies: same side
        if not getattr(scout.stats, "scout", False):
            return (f"{scout.name} is not a Scout: only an allied Scout Marks a Bombardment "
                    "target (13.2, F.3)")
        if scout.damage.disrupted:
            return f"{scout.name} is Disrupted and cannot Mark a target"
        point, on_top = self._top(a.target)
        dist = g.measure(a.marked_by, point).inches
        if dist > MARK_RANGE_IN + 1e-9:
            return (f"{scout.name} is {dist:.2f}\" from the target, beyond the "
                    f"{MARK_RANGE_IN:g}\" a Scout Marks (F.3)")
        top = g.bodies.get(on_top) if on_top is not None else None
        ignore = (on_top,) if on_top is not None and top is not None and top.kind == "unit" \
            else ()
        sight = g.line_of_sight(a.marked_by, point, ignore=ignore)
        if not sight.clear and top is not None and on_top in g.world.bodies:
            body_sight = g.line_of_sight(a.marked_by, on_top)
            if body_sight.clear:
                sight = body_sight
        if not sight.clear:
            who = sight.blocked_by
            who = g.bodies[who].name if who in g.bodies else who
            return f"{scout.name} cannot see the target: blocked by {who}"
        return ""

    # ------------------------------------------------------------------ Reinforcements
    def entry_refusal(self, player: str, entry) -> str:
        """Why ``entry`` (x, y inches) is no entry point for ``player``'s Reinforcements on a
        battlefield without friendly edges ("" when it is one; 13.2 Non-Escapade
        Reinforcements: "any part of the battlefield edge that's closer to a friendly or allied
        unit than it is to any enemy units, and with no enemy units within ten inches").

        Readings: "on the edge" is within :data:`EDGE_TOLERANCE_IN` of a side of the
        battlefield; friendly and allied units are the units (not destroyed) of ``player`` and
        of the players on his scene ``side``; enemy units are every other owned unit;
        distances run centre to centre on the table (:func:`is_safe_entry_point`)."""
        g = self.game
        w, d = g.spec.battlefield.width / 2, g.spec.battlefield.depth / 2
        x, y = float(entry[0]), float(entry[1])
        off = min(abs(abs(x) - w), abs(abs(y) - d))
        if abs(x) > w + EDGE_TOLERANCE_IN or abs(y) > d + EDGE_TOLERANCE_IN \
                or off > EDGE_TOLERANCE_IN:
            return (f"({x:g}, {y:g}) is not on the battlefield edge: Reinforcements enter from "
                    "the edge (13.2)")
        hz = g.system("hazards")
        friends: list[tuple[float, float]] = []
        enemies: list[tuple[float, float]] = []
        for key, st in g.bodies.items():
            if st.kind != "unit" or st.damage.destroyed or key not in g.world.bodies \
                    or st.owner is None:
                continue
            c = g.footprint_centre(key)
            (friends if hz.allied(player, st.owner) else enemies).append(
                (float(c[0]), float(c[1])))
        if is_safe_entry_point((x, y), friends, enemies):
            return ""
        if not friends:
            return f"{player} has no unit on the table for Reinforcements to join (13.2)"
        nf = min(np.hypot(x - f[0], y - f[1]) for f in friends)
        ne = min(np.hypot(x - e[0], y - e[1]) for e in enemies)
        if ne <= SAFE_ENTRY_ENEMY_CLEARANCE_INCHES:
            return (f"an enemy unit is {ne:.1f}\" from ({x:g}, {y:g}): Reinforcements enter "
                    f"with no enemy within {SAFE_ENTRY_ENEMY_CLEARANCE_INCHES:g}\" (13.2)")
        return (f"({x:g}, {y:g}) is {nf:.1f}\" from the nearest friendly unit and {ne:.1f}\" "
                "from the nearest enemy: the entry point must be closer to a friend (13.2)")

    @refuses(ReinforcementsAction)
    def reinforcements_refusal(self, a: ReinforcementsAction) -> str:
        """Why Reinforcements cannot be called now ("" when they can): no Escapade (whose
        friendly edges have their own rule, ``reinforce``), a Commander of the player with his
        Action, reserve units not yet on the table, each within its Move of a lawful entry
        point (:meth:`entry_refusal`), and one Strategy brick per Unit Inch (13.2)."""
        g = self.game
        if getattr(g.spec, "escapade", None) is not None:
            return ("in an Escapade Reinforcements deploy from a friendly edge: a Commander "
                    "calls them with 'reinforce' (13.2)")
        cmd = g.bodies.get(a.commander)
        if cmd is None or a.commander not in g.world.bodies or cmd.damage.destroyed:
            return f"{a.commander!r} is not a unit on the table"
        if cmd.owner != a.player:
            return f"{cmd.name} is not one of {possessive(a.player)} units"
        if "Commander" not in (getattr(cmd.stats, "specialties", None) or []):
            return f"{cmd.name} is not a Commander: only a Commander calls Reinforcements (13.2)"
        if cmd.damage.disrupted:
            return f"{cmd.name} is Disrupted and cannot act this turn"
        if effects.has_acted(g, a.commander):
            return f"{cmd.name} has already used his Action this turn"
        reserves = {r.id: r for r in g.spec.reserves}
        called = {u for _, us in self.entering for u in us}
        for u in a.units:
            r = reserves.get(u)
            if r is None:
                return f"{u!r} is not a unit in 'reserves'"
            if u in g.bodies or u in called:
                return f"{u!r} is already on the table or called"
            if r.owner != a.player:
                return f"{u!r} is {r.owner or 'nobody'}'s reserve, not {possessive(a.player)}"
            dist = float(np.hypot(r.position[0] - a.entry[0], r.position[1] - a.entry[1]))
            if dist > r.stats.move + 1e-9:
                return (f"{u!r} would appear {dist:.1f}\" from the entry point, beyond its "
                        f"Move of {r.stats.move:g}\" (13.2: within one turn's movement)")
        reason = self.entry_refusal(a.player, a.entry)
        if reason:
            return reason
        bricks = self.reinforcement_cost(a)
        if bricks > self.strategy_pile(a.player):
            return (f"{bricks} Strategy brick(s) needed (one per Unit Inch), "
                    f"{self.strategy_pile(a.player)} in {possessive(a.player)} pile (13.2)")
        return ""

    def reinforcement_cost(self, a: ReinforcementsAction) -> int:
        """Strategy bricks for ``a``'s units: one per Unit Inch (13.2)."""
        reserves = {r.id: r for r in self.game.spec.reserves}
        return bombardment_cost(0, sum(reserves[u].stats.size for u in a.units), 0)

    @handles(ReinforcementsAction)
    def call_reinforcements(self, a: ReinforcementsAction, index: int = 0) -> None:
        """Spend the bricks and the Commander's Action; the units appear at the end of the
        turn (13.2: "Reinforcements appear at the end of the turn they're called in on")."""
        g = self.game
        bricks = self.reinforcement_cost(a)
        self.piles[a.player] = self.piles.get(a.player, 0) - bricks
        effects.spend_action(g, a.commander)
        self.entering.append([a.player, list(a.units)])
        g.log("reinforcements", f"{g.bodies[a.commander].name} calls Reinforcements for "
              f"{bricks} Strategy brick(s): {', '.join(a.units)} enter at ({a.entry[0]:g}, "
              f"{a.entry[1]:g}) at the end of the turn (13.2)", player=a.player,
              commander=a.commander, units=list(a.units), entry=list(a.entry), bricks=bricks,
              pile=self.piles[a.player])

    def end_of_player_turn(self, turn: int, player: str) -> None:
        """The player's called Reinforcements appear at their ``[[reserves]]`` positions."""
        g = self.game
        left = []
        for who, units in self.entering:
            if who != player:
                left.append([who, units])
                continue
            for u in units:
                entry = next(r for r in g.spec.reserves if r.id == u)
                g.add_body(u, "unit", entry.name or entry.id, entry.owner, entry.stats,
                           g.build_asset(entry))
                g.log("arrival", f"{entry.name or u} arrives as Reinforcements at "
                      f"({entry.position[0]:g}, {entry.position[1]:g}) (13.2)", unit=u,
                      player=player)
            g.record_frame(force=True)
        self.entering = left

    def mark_point(self, target) -> tuple[float, float, float]:
        """The point a Scout Marks for a Bombardment aimed at ``target`` (x, y inches): 0.25"
        above whatever is on top there (a tower's roof, a unit's head, else the table)."""
        return self._top(target)[0]

    def _top(self, target) -> tuple[tuple[float, float, float], str | None]:
        x, y = float(target[0]), float(target[1])
        hit = self.game.pick((x, y, 1000.0), (x, y, -1.0))
        if hit is None or hit.key == "ground":
            return (x, y, 0.25), None
        return (x, y, max(float(hit.point[2]), 0.0) + 0.25), hit.key

    def cost(self, a: BombardAction) -> int:
        """Strategy bricks the Payload costs (13.2): one per Explosive or Smoke die, per Unit
        Inch of Reinforcements and per inch of supplies' Payload Size.

        Raises
        ------
        SceneError
            A unit that is not in ``reserves``.
        """
        reserves = {r.id: r for r in self.game.spec.reserves}
        for u in a.units:
            if u not in reserves:
                raise SceneError(f"bombard.units: {u!r} is not a unit in 'reserves'")
        unit_inches = sum(reserves[u].stats.size for u in a.units)
        supply_inches = sum(s.size for s in a.supplies)
        return bombardment_cost(a.explosive_dice + a.smoke_dice, unit_inches, supply_inches)

    def arrival(self, a: BombardAction) -> tuple[int, str]:
        """(turn, player) at whose beginning the Bombardment arrives: the calling player's next
        turn (13.2: "they take a full turn to arrive", "waits until the beginning of their
        next turn")."""
        return (self.game.turn + 1, a.player)

    def preview(self, a: BombardAction) -> list[str]:
        """What calling ``a`` would do, in lines, before anything happens (the window's B and
        A): the Payload, who Marks it, the Strategy bricks it costs and the pile, when and how
        it arrives, and the rule's reason when it would be refused. Changes nothing."""
        g = self.game
        bricks = self.cost(a)
        what = ([f"{a.explosive_dice}d10 Explosive"] if a.explosive_dice else []) + (
            [f"{a.smoke_dice}-die Smoke bomb"] if a.smoke_dice else []) + [
            g.bodies[u].name if u in g.bodies else u for u in a.units] + [
            f"supplies of Size {s.size:g}\"" for s in a.supplies]
        lines = [("The Big Drop" if a.big_drop else "Strategic Bombardment")
                 + f" (13.2): {', '.join(what)}"]
        if a.drop_zone is not None:
            lines.append(f"Target: drop zone {a.drop_zone}")
        elif a.marked_by is not None and a.marked_by in g.bodies:
            point = self.mark_point(a.target)
            dist = g.measure(a.marked_by, point).inches if a.marked_by in g.world.bodies else 0
            lines.append(f"Marked by {g.bodies[a.marked_by].name}, {dist:.1f}\" away "
                         f"(F.3: {MARK_RANGE_IN:g}\")")
        lines.append(f"Cost: {bricks} Strategy brick{'' if bricks == 1 else 's'} "
                     f"of {self.strategy_pile(a.player)} in the pile")
        turn, player = self.arrival(a)
        lines.append(f"Falls at the start of {possessive(player)} turn {turn}"
                     + (f", from {collision_rules.big_drop_height(max(bricks, 1)):g}\""
                        if a.big_drop else
                        f": Action Roll, Use {collision_rules.bombardment_use(bricks)}"))
        reason = self.call_refusal(a)
        lines.append(f"Refused: {reason}" if reason else "Enter to call it")
        return lines

    @refuses(BombardAction)
    def call_refusal(self, a: BombardAction) -> str:
        """Why ``a`` is refused (""  when allowed); changes nothing.

        BrikWars 13.2: the target is Marked by an allied Scout (:meth:`mark_refusal`) or lies
        in a drop zone whose Size the bricks never exceed; the Payload's bricks come out of the
        player's Strategy pile; a reserve unit is delivered once.
        """
        g = self.game
        if a.marked_by is None and a.drop_zone is None:
            return ("a Strategic Bombardment drops only onto a target Marked by an allied Scout "
                    "or onto a drop zone (13.2): give marked_by or drop_zone")
        reserves = {r.id for r in g.spec.reserves}
        for u in a.units:
            if u not in reserves:
                return f"{u!r} is not a unit in 'reserves'"
            if u in g.bodies:
                return f"{u!r} is already on the table"
        bricks = self.cost(a)
        if a.drop_zone is not None:
            zone = next((z for z in g.spec.drop_zones if z.id == a.drop_zone), None)
            if zone is None:
                return f"drop zone {a.drop_zone!r} is not one of [[drop_zones]]"
            try:
                check_drop_zone(bricks, zone.size)
            except RulesError as exc:
                return f"{exc} (drop zone {zone.id!r}, 13.2 Drop Zones)"
            off = math.hypot(a.target[0] - zone.centre[0], a.target[1] - zone.centre[1])
            if off > zone.size / 2 + 1e-9:
                return (f"the target is {off:.2f}\" from the centre of drop zone {zone.id!r} "
                        f"of Size {zone.size:g}\"")
        else:
            reason = self.mark_refusal(a)
            if reason:
                return reason
        if a.big_drop:
            height = collision_rules.big_drop_height(max(bricks, 1))
            top = self.mark_point(a.target)[2] - 0.25
            if top + 0.5 > height:
                return (f"The Big Drop holds the Payload {height:g}\" off the ground (5\" per "
                        f"Strategy brick, 13.2) and the target is {top:.2f}\" high: spend more "
                        "bricks or pick another target")
        have = self.strategy_pile(a.player)
        if bricks > have:
            return (f"the Payload costs {bricks} Strategy brick{'' if bricks == 1 else 's'} and "
                    f"{a.player} has {have} in the Strategy pile (13.2)")
        return ""

    def pending(self) -> bool:
        return any(o.status == "incoming" for o in self.orders)

    def to_dict(self) -> dict:
        out = {"piles": dict(self.piles), "orders": [o.to_dict() for o in self.orders],
               "smoke": {k: dict(v) for k, v in self.smoke.items()}}
        if self.entering:  # Reinforcements called this turn (13.2)
            out["entering"] = [list(x) for x in self.entering]
        return out

    def marker_data(self) -> list[dict]:
        return [{"kind": "target", "point": [o.target[0], o.target[1], 0.0]}
                for o in self.orders if o.status == "incoming"]

    @handles(BombardAction)
    def bombard(self, a: BombardAction, index: int) -> None:
        """Call in a Bombardment (13.2), the one path for every dropped Payload: the Scout
        Marks the point (or the drop zone takes it), the Payload's Strategy bricks leave the
        pile, a marker is placed; it arrives at the beginning of the player's next turn
        (:meth:`start_of_player_turn`), by Action Roll or as The Big Drop.

        The engine has asked :meth:`refusal` (:meth:`call_refusal`: no Mark, a Mark the Scout
        cannot make, a drop zone too small, too few Strategy bricks) before it calls this.
        """
        g = self.game
        bricks = self.cost(a)
        if a.drop_zone is not None:
            marked = f"drop zone {a.drop_zone}"
        elif a.marked_by is None:  # refused before apply (call_refusal)
            raise RulesError(self.call_refusal(a))
        else:
            scout = g.bodies[a.marked_by]
            point = self.mark_point(a.target)
            dist = g.measure(a.marked_by, point).inches
            g.log("mark", f"{scout.name} Marks the point ({a.target[0]:g}, {a.target[1]:g}) for "
                  f"a Strategic Bombardment: {dist:.2f}\" away, in sight (13.2, F.3)",
                  scout=a.marked_by, point=[round(v, 4) for v in point],
                  distance=round(dist, 4))
            marked = f"Marked by {scout.name}"
        have = self.piles.get(a.player, 0)
        self.piles[a.player] = have - bricks
        items: list[dict] = []
        for u in a.units:
            items.append({"kind": "unit", "unit": u})
        if a.explosive_dice:
            items.append({"kind": "explosive", "dice": a.explosive_dice, "part": a.explosive_part})
        if a.smoke_dice:
            items.append({"kind": "smoke", "dice": a.smoke_dice, "part": a.explosive_part})
        for s in a.supplies:
            items.append({"kind": "supply", "part": s.part, "colour": s.colour, "size": s.size,
                          "armor": s.armor})
        order = Order(a.id or f"bombardment{index + 1}", a.player, g.turn, bricks,
                      collision_rules.bombardment_use(bricks), list(a.target), items, a.big_drop,
                      a.spacing, a.action_die, list(a.miss_spot) if a.miss_spot else None)
        self.orders.append(order)
        turn, player = self.arrival(a)
        how = (f"as The Big Drop, held {collision_rules.big_drop_height(bricks):g}\" up"
               if a.big_drop else f"by Action Roll (Use {order.use})")
        g.log("bombard", f"{a.player} spends {bricks} Strategy brick{'' if bricks == 1 else 's'} "
              f"on a Bombardment at ({a.target[0]:g}, {a.target[1]:g}) ({marked}); a marker is "
              f"placed, it arrives at the beginning of {possessive(player)} turn {turn} {how}",
              action="bombard", player=a.player, bricks=bricks, target=list(a.target),
              order=order.to_dict(), pile=self.piles[a.player], arrives_turn=turn)

    # ------------------------------------------------------------------ arrival
    def start_of_turn(self, turn: int) -> None:
        """Smoke Fields shrink by 1" at the start of each later turn (8.4)."""
        self._shrink_smoke(turn)

    def start_of_player_turn(self, turn: int, player: str) -> None:
        """Bombardments arrive at the beginning of their player's next turn (13.2: "they take
        a full turn to arrive"; "the player waits until the beginning of their next turn")."""
        for o in self.orders:
            if o.status == "incoming" and o.player == player and o.called_turn < turn:
                self._arrive(o)

    def _spots(self, o: Order) -> list[np.ndarray]:
        n = len(o.items)
        t = np.array(o.target, float)
        return [t + np.array([(i - (n - 1) / 2) * o.spacing, 0.0]) for i in range(n)]

    def _arrive(self, o: Order) -> None:
        g = self.game
        o.status = "arrived"
        spots = self._spots(o)
        heights = []
        for i, (item, spot) in enumerate(zip(o.items, spots, strict=True)):
            if o.big_drop:
                height = collision_rules.big_drop_height(o.bricks)
            else:
                spot = self._roll(o, i, spot)
                height = ARRIVAL_HEIGHT_IN
            heights.append(height)
            o.keys.append(self._spawn(o, i, item, spot, height))
        g.record_frame(force=True)
        g.log("release", f"Bombardment {o.id} is released"
              + (f" from {heights[0]:g}\" (The Big Drop)" if o.big_drop else ""),
              order=o.id, bodies=list(o.keys), heights=heights)
        for key, item in zip(o.keys, o.items, strict=True):
            if item["kind"] == "smoke":
                self._smoke_bombs[key] = o
        g.world.step_until_rest(max_seconds=LANDING_MAX_SECONDS, min_seconds=0.05,
                                on_step=self._on_step)
        for key in o.keys:
            if key in g.world.bodies:
                pos = g.world.pose(key)[0]
                off = math.hypot(pos[0] - o.target[0], pos[1] - o.target[1])
                g.log("landed", f"{g.bodies[key].name} comes to rest {off:.2f}\" from the marker",
                      body=key, position=[round(float(v), 4) for v in pos],
                      off_target=round(off, 4), order=o.id)
        g.log("rest", f"Everything is at rest at {g.world.time:.2f} s")

    def _roll(self, o: Order, i: int, spot: np.ndarray) -> np.ndarray:
        g = self.game
        roll = action_roll(g.dice.stream("bombardment"), o.action_die, o.use, (),
                           f"Bombardment {o.id} item {i + 1}: Action Roll")
        if roll.hit:
            g.log("attack", f"Bombardment item {i + 1} hits: {roll.total} against Use {o.use}",
                  order=o.id, hit=True)
            return spot
        dist = miss_distance(o.use, roll.total)
        if o.miss_spot is not None:
            new = np.array(o.miss_spot, float) + (spot - np.array(o.target, float))
        else:
            # away from the battlefield's centre (the origin); +X for a target on the centre
            n = float(np.linalg.norm(spot))
            line = spot / n if n > 1e-9 else np.array([1.0, 0.0])
            new = np.array(g.system("flight").miss_chooser(MissContext(
                None, np.array([spot[0], spot[1], 0.0]), dist, line)), float)
        if np.linalg.norm(new - spot) > dist + 1e-6:
            raise RulesError(f"Bombardment {o.id}: miss spot {new.tolist()} is beyond the miss "
                             f"distance {dist:g}\"")
        g.log("attack", f"Bombardment item {i + 1} misses: {roll.total} against Use {o.use}; it "
              f"comes down at {np.round(new, 2).tolist()} (within {dist:g}\")", order=o.id,
              hit=False, miss_distance=dist, spot=[round(float(v), 4) for v in new])
        return new

    def _spawn(self, o: Order, i: int, item: dict, spot: np.ndarray, height: float) -> str:
        g = self.game
        if item["kind"] == "unit":
            entry = next(r for r in g.spec.reserves if r.id == item["unit"])
            asset = g.build_asset(entry, placed=False)
            key, name, stats, owner, dice = (entry.id, entry.name or entry.id, entry.stats,
                                             entry.owner, 0)
        elif item["kind"] == "supply":
            asset = build_part_asset(item["part"], item["colour"], g.ldrawdir)
            key, name, owner, dice = (f"{o.id}_supply{i + 1}", f"supply crate ({item['part']})",
                                      o.player, 0)
            stats = Stats(size=item["size"], armor=item["armor"])
        elif item["kind"] == "smoke":
            asset = build_part_asset(item["part"], 15, g.ldrawdir)
            key, name, owner = f"{o.id}_smoke{i + 1}", f"{item['dice']}-die Smoke bomb", o.player
            stats, dice = Stats(size=1.0, armor=0), 0
        else:
            asset = build_part_asset(item["part"], 0, g.ldrawdir)
            key, name, owner = f"{o.id}_explosive{i + 1}", f"{item['dice']}d10 Explosive", o.player
            stats, dice = Stats(size=1.0, armor=0), item["dice"]
        if key in g.bodies:
            raise SceneError(f"Bombardment {o.id}: a body called {key!r} already exists")
        asset.move_to_drop(spot, height)
        g.add_body(key, "payload", name, owner, stats, asset)
        g.bodies[key].explosive_dice = dice
        return key

    # ------------------------------------------------------------------ Smoke bombs
    def _on_step(self, world, events) -> None:
        """The game's step handling, except that a Smoke bomb's first impact bursts it."""
        burst = []
        for ev in events:
            for key in (ev.body_a, ev.body_b):
                if key in self._smoke_bombs and key not in burst and key in world.bodies:
                    burst.append(key)
                    self._burst(key, ev)
        if burst:
            events = [ev for ev in events if ev.body_a not in burst and ev.body_b not in burst]
        self.game.handle_steps(world, events)

    def _burst(self, key: str, ev) -> None:
        """A Smoke bomb strikes (``ev``, an ImpactEvent): a Smoke Field of 4" per die centred
        at the point of impact (8.4), and no Collision Damage."""
        g = self.game
        point = np.asarray(ev.position, float)
        g.log("impact", f"{g.bodies[key].name} strikes at {ev.normal_speed:.1f} in/s",
              **ev.to_dict())
        o = self._smoke_bombs.pop(key)
        item = o.items[o.keys.index(key)]
        size = SMOKE_FIELD_IN_PER_DIE * int(item["dice"])
        name = g.bodies[key].name
        g.world.remove(key)
        g.log("landed", f"{name} bursts where it strikes, at "
              f"({point[0]:.2f}, {point[1]:.2f})", body=key, order=o.id,
              position=[round(float(v), 4) for v in point])
        fid = f"{key}_field"
        self.smoke[fid] = {"turn": g.turn, "player": o.player, "size": size}
        g.system("hazards").add_field(
            FieldEntry(id=fid, name=f"smoke of {o.id}", hazard="smoke", size=size,
                       centre=(float(point[0]), float(point[1])), owner=o.player),
            source=f"{name}: {item['dice']} dice replaced with Smoke, 4\" each")

    def _shrink_smoke(self, turn: int) -> None:
        """Temporary Smoke Fields shrink 1" at the start of each later turn (8.4)."""
        g = self.game
        for fid, info in list(self.smoke.items()):
            if info["turn"] >= turn or fid not in g.system("hazards").fields:
                continue
            info["size"] -= 1.0
            if info["size"] <= 1e-9:
                del self.smoke[fid]
                g.system("hazards").remove_field(fid, "the Smoke has cleared")
                continue
            entry = g.system("hazards").fields[fid].entry
            g.system("hazards").add_field(
                entry.model_copy(update={"size": info["size"], "radius": None}),
                source="shrinks 1\" at the start of the turn")
