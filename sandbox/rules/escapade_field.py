"""Escapade battlefield as pure data: table edges, the Stronghold, friendly edges, exits.

BrikWars 13.1 "Picking Sides" and 13.2 "Deploying Forces". The table is a rectangle
centred on the origin, ``width`` inches along world X and ``depth`` inches along world Y;
points are ``(x, y)`` tuples in inches. North is +Y, south -Y, east +X, west -X.

Readings chosen where the text is unclear:

- 13.1 The Stronghold: only the *stretch* of a table edge that lies inside the Stronghold area
  is lost as a friendly edge, not the whole edge; an edge fully inside it is unusable.
- 13.1 Defenders' Edge: "as nearly opposite as makes sense" picks the opposite edge when it has
  a usable stretch, else the adjacent edge with the longer usable stretch (north/east first on a
  tie), never the attackers' edge.
- 13.1 The Attackers' Edge / Defenders' Edge: a side keeps its edge while any force of that side
  (its Hero or, for the defenders, the Garrison) still has a unit on the table. A Hero's force
  that lost its Hero but still has units on the table keeps the edge, so it can withdraw.
- 13.1 Loot: an object is off the table when its centre is beyond an edge line; when it is
  beyond two (a corner) the edge it overshoots more is the one it crossed (north/south first on
  a tie). A unit that leaves under its own power, active, over its own friendly edge is
  withdrawn; any other unit leaving the table is lost to the battle.
- 13.2 Deployment: Heroes' units (other than in an ambush or a Final Battle) may not deploy
  inside the Stronghold area; "within one turn's movement of a friendly edge" is the straight
  distance to the nearest usable stretch of a friendly edge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import Iterable, Sequence

from sandbox.core.errors import RulesError

from .escapade_forces import Role, Side

Point = tuple[float, float]

__all__ = [
    "Edge",
    "Table",
    "Area",
    "EdgeStretch",
    "EdgePlan",
    "ExitFacts",
    "ExitKind",
    "ExitOutcome",
    "DeploymentCheck",
    "rect_area",
    "formation_area",
    "distance_to_segment",
    "pick_defenders_edge",
    "friendly_stretches",
    "resolve_exit",
    "check_deployment",
    "is_safe_entry_point",
    "SAFE_ENTRY_ENEMY_CLEARANCE_INCHES",
]

#: Non-Escapade Reinforcements need no enemy unit within this many inches (13.2).
SAFE_ENTRY_ENEMY_CLEARANCE_INCHES: float = 10.0
_EPS = 1e-9


class Edge(Enum):
    """A side of the rectangular table."""

    NORTH = "north"
    SOUTH = "south"
    EAST = "east"
    WEST = "west"

    @property
    def opposite(self) -> "Edge":
        """The edge across the table."""
        return {
            Edge.NORTH: Edge.SOUTH,
            Edge.SOUTH: Edge.NORTH,
            Edge.EAST: Edge.WEST,
            Edge.WEST: Edge.EAST,
        }[self]

    @property
    def adjacent(self) -> tuple["Edge", "Edge"]:
        """The two edges meeting this one at the corners (north or east first)."""
        if self in (Edge.NORTH, Edge.SOUTH):
            return (Edge.EAST, Edge.WEST)
        return (Edge.NORTH, Edge.SOUTH)


def distance_to_segment(p: Point, a: Point, b: Point) -> float:
    """Straight distance in inches from point ``p`` to the segment ``a``-``b``."""
    ax, ay = a
    bx, by = b
    px, py = p
    dx, dy = bx - ax, by - ay
    len2 = dx * dx + dy * dy
    t = 0.0 if len2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / len2))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


@dataclass(frozen=True)
class Area:
    """A simple polygon on the table (the Stronghold area, an enemy formation).

    Attributes
    ----------
    points : tuple of (x, y)
        Vertices in inches, in order (either winding); at least 3.
    name : str
    """

    points: tuple[Point, ...]
    name: str = ""

    def __post_init__(self) -> None:
        pts = tuple((float(x), float(y)) for x, y in self.points)
        if len(pts) < 3:
            raise RulesError(f"area {self.name!r} needs at least 3 points, got {len(pts)}")
        object.__setattr__(self, "points", pts)

    def _edges(self) -> Iterable[tuple[Point, Point]]:
        pts = self.points
        return ((pts[i], pts[(i + 1) % len(pts)]) for i in range(len(pts)))

    def contains(self, p: Point) -> bool:
        """True when ``p`` is inside the polygon or on its boundary."""
        x, y = p
        for a, b in self._edges():
            if distance_to_segment(p, a, b) <= 1e-7:
                return True
        inside = False
        for (x1, y1), (x2, y2) in self._edges():
            if (y1 > y) != (y2 > y):
                xc = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
                if xc > x:
                    inside = not inside
        return inside

    def inside_intervals(self, a: Point, b: Point) -> list[tuple[float, float]]:
        """Parameter intervals ``(t0, t1)`` of the segment ``a + t (b - a)`` lying inside."""
        ts = {0.0, 1.0}
        ax, ay = a
        dx, dy = b[0] - ax, b[1] - ay
        for (x1, y1), (x2, y2) in self._edges():
            ex, ey = x2 - x1, y2 - y1
            den = dx * ey - dy * ex
            if abs(den) < _EPS:
                # parallel: add the projections of collinear endpoints
                for qx, qy in ((x1, y1), (x2, y2)):
                    len2 = dx * dx + dy * dy
                    if len2 and abs((qx - ax) * dy - (qy - ay) * dx) < 1e-7 * math.sqrt(len2):
                        t = ((qx - ax) * dx + (qy - ay) * dy) / len2
                        if 0 < t < 1:
                            ts.add(t)
                continue
            t = ((x1 - ax) * ey - (y1 - ay) * ex) / den
            s = ((x1 - ax) * dy - (y1 - ay) * dx) / den
            if -_EPS <= s <= 1 + _EPS and 0 < t < 1:
                ts.add(t)
        cuts = sorted(ts)
        out: list[tuple[float, float]] = []
        for t0, t1 in zip(cuts, cuts[1:], strict=False):
            if t1 - t0 < 1e-12:
                continue
            tm = 0.5 * (t0 + t1)
            if self.contains((ax + tm * dx, ay + tm * dy)):
                if out and abs(out[-1][1] - t0) < 1e-12:
                    out[-1] = (out[-1][0], t1)
                else:
                    out.append((t0, t1))
        return out


def rect_area(x0: float, y0: float, x1: float, y1: float, name: str = "") -> Area:
    """An axis-aligned rectangular :class:`Area` from two opposite corners (inches)."""
    lo_x, hi_x = sorted((x0, x1))
    lo_y, hi_y = sorted((y0, y1))
    return Area(((lo_x, lo_y), (hi_x, lo_y), (hi_x, hi_y), (lo_x, hi_y)), name)


def formation_area(positions: Sequence[Point], margin_inches: float = 1.0, name: str = "") -> Area:
    """An enemy formation: the bounding box of its units' positions grown by a margin.

    13.2 Tactical Advantage forbids ambushers "inside an enemy formation" without defining a
    formation; this is the reading used here (a box around a group of units, 1" margin).
    """
    if not positions:
        raise RulesError(f"formation {name!r} needs at least one unit position")
    if margin_inches < 0:
        raise RulesError(f"formation margin must be >= 0 inches, got {margin_inches!r}")
    xs = [p[0] for p in positions]
    ys = [p[1] for p in positions]
    m = max(margin_inches, 1e-6)
    return rect_area(min(xs) - m, min(ys) - m, max(xs) + m, max(ys) + m, name)


@dataclass(frozen=True)
class Table:
    """The rectangular battlefield, centred on the origin.

    Attributes
    ----------
    width : float
        Extent along X in inches (east-west).
    depth : float
        Extent along Y in inches (north-south).
    """

    width: float
    depth: float

    def __post_init__(self) -> None:
        if not (self.width > 0 and self.depth > 0):
            raise RulesError(
                f"table must be > 0 inches each way, got {self.width!r} x {self.depth!r}"
            )

    def segment(self, edge: Edge) -> tuple[Point, Point]:
        """The edge line as two corner points (west-to-east or south-to-north)."""
        hx, hy = self.width / 2, self.depth / 2
        return {
            Edge.NORTH: ((-hx, hy), (hx, hy)),
            Edge.SOUTH: ((-hx, -hy), (hx, -hy)),
            Edge.EAST: ((hx, -hy), (hx, hy)),
            Edge.WEST: ((-hx, -hy), (-hx, hy)),
        }[edge]

    def contains(self, p: Point) -> bool:
        """True when ``p`` is on the table (edges included)."""
        return abs(p[0]) <= self.width / 2 + _EPS and abs(p[1]) <= self.depth / 2 + _EPS

    def edge_crossed(self, p: Point) -> Edge | None:
        """The edge an object centred at ``p`` has crossed, or None while it is on the table."""
        over = {
            Edge.NORTH: p[1] - self.depth / 2,
            Edge.SOUTH: -self.depth / 2 - p[1],
            Edge.EAST: p[0] - self.width / 2,
            Edge.WEST: -self.width / 2 - p[0],
        }
        edge, amount = max(over.items(), key=lambda kv: kv[1])
        return edge if amount > _EPS else None

    def project(self, p: Point, edge: Edge) -> Point:
        """The point of ``edge`` nearest to ``p`` (where ``p`` left the table)."""
        (ax, ay), (bx, by) = self.segment(edge)
        return (min(max(p[0], ax), bx), min(max(p[1], ay), by))


@dataclass(frozen=True)
class EdgeStretch:
    """A usable part of a table edge, from point ``a`` to point ``b`` (inches)."""

    edge: Edge
    a: Point
    b: Point

    @property
    def length(self) -> float:
        """Length in inches."""
        return math.dist(self.a, self.b)

    def distance(self, p: Point) -> float:
        """Distance in inches from ``p`` to this stretch."""
        return distance_to_segment(p, self.a, self.b)


def _usable(table: Table, edge: Edge, strongholds: Sequence[Area]) -> list[EdgeStretch]:
    """Stretches of ``edge`` outside every Stronghold area (13.1 The Stronghold)."""
    a, b = table.segment(edge)
    blocked: list[tuple[float, float]] = []
    for s in strongholds:
        blocked.extend(s.inside_intervals(a, b))
    blocked.sort()
    free: list[tuple[float, float]] = []
    cur = 0.0
    for t0, t1 in blocked:
        if t0 > cur + 1e-9:
            free.append((cur, t0))
        cur = max(cur, t1)
    if cur < 1 - 1e-9:
        free.append((cur, 1.0))

    def at(t: float) -> Point:
        return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))

    return [EdgeStretch(edge, at(t0), at(t1)) for t0, t1 in free]


def pick_defenders_edge(
    table: Table, attackers_edge: Edge, strongholds: Sequence[Area] = ()
) -> Edge | None:
    """The defenders' edge "as nearly opposite to the attackers' edge as makes sense" (13.1).

    Returns
    -------
    Edge or None
        The opposite edge if any of it lies outside the Stronghold; else the adjacent edge with
        the longer usable stretch; None when no edge other than the attackers' is usable.
    """

    def usable_len(e: Edge) -> float:
        return sum(s.length for s in _usable(table, e, strongholds))

    opp = attackers_edge.opposite
    if usable_len(opp) > 0:
        return opp
    best = max(attackers_edge.adjacent, key=usable_len)
    return best if usable_len(best) > 0 else None


@dataclass(frozen=True)
class EdgePlan:
    """Who the table edges belong to (13.1 Picking Sides).

    Attributes
    ----------
    table : Table
    attackers_edge : Edge
        Chosen by the Escapading Hero.
    defenders_edge : Edge or None
        The Host's edge; None when the Escapade has no Host.
    strongholds : tuple of Area
        Stronghold areas; edge stretches inside them belong to no one.
    """

    table: Table
    attackers_edge: Edge
    defenders_edge: Edge | None = None
    strongholds: tuple[Area, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "strongholds", tuple(self.strongholds))
        if self.defenders_edge is not None and self.defenders_edge is self.attackers_edge:
            raise RulesError(
                f"attackers and defenders cannot share the {self.attackers_edge.value} edge"
            )
        if not _usable(self.table, self.attackers_edge, self.strongholds):
            raise RulesError(
                f"the attackers' edge {self.attackers_edge.value} lies wholly inside the Stronghold"
            )
        if self.defenders_edge is not None and not _usable(
            self.table, self.defenders_edge, self.strongholds
        ):
            raise RulesError(
                f"the defenders' edge {self.defenders_edge.value} lies wholly inside the Stronghold"
            )

    def in_stronghold(self, p: Point) -> bool:
        """True when ``p`` is inside any Stronghold area."""
        return any(s.contains(p) for s in self.strongholds)

    def owner_edges(
        self, side: Side, *, attackers_present: bool = True, defenders_present: bool = True
    ) -> tuple[Edge, ...]:
        """Edges friendly to a side, given which sides still hold their edges.

        Meddlers own every edge not held by the attackers or defenders (an edge whose side has
        been wiped out, has left, or has Betrayed becomes uncontrolled, 13.1).
        """
        held: dict[Edge, Side] = {}
        if attackers_present:
            held[self.attackers_edge] = Side.ATTACKERS
        if defenders_present and self.defenders_edge is not None:
            held[self.defenders_edge] = Side.DEFENDERS
        if side is Side.MEDDLER:
            return tuple(e for e in Edge if e not in held)
        return tuple(e for e, s in held.items() if s is side)


def friendly_stretches(
    plan: EdgePlan, side: Side, *, attackers_present: bool = True, defenders_present: bool = True
) -> list[EdgeStretch]:
    """Usable (outside-Stronghold) stretches of every edge friendly to ``side`` (13.1)."""
    out: list[EdgeStretch] = []
    for e in plan.owner_edges(
        side, attackers_present=attackers_present, defenders_present=defenders_present
    ):
        out.extend(_usable(plan.table, e, plan.strongholds))
    return out


class ExitKind(Enum):
    """What happens to something that left the table (13.1 Picking Sides)."""

    CLAIMED = "claimed"  # Loot carried off a friendly edge: belongs to the carrier's Hero
    UNCLAIMED = "unclaimed"  # Loot that left any other way: belongs to no Hero
    WITHDRAWN = "withdrawn"  # a unit left by its own friendly edge (to reserve or Army)
    LOST = "lost"  # a unit that left any other way


@dataclass(frozen=True)
class ExitFacts:
    """Facts the physics layer reports when an object leaves the table.

    Attributes
    ----------
    object_name : str
        The object (an item of Loot, or a unit).
    position : (x, y)
        Its centre, in inches, once beyond the edge line.
    is_unit : bool
        The object is itself a unit (leaving under its own power if ``carrier`` is itself).
    carrier : str or None
        Last controlling active unit carrying or driving it (the unit itself when walking off);
        None when flung, fired or fallen.
    carrier_active : bool
        Whether that unit was an active unit under its force's control (not panicked, not
        knocked out, not an out-of-control vehicle).
    carrier_force : str or None
        The force the carrier belongs to.
    carrier_side : Side or None
        The side that force is on *now* (alliances can change).
    """

    object_name: str
    position: Point
    is_unit: bool = False
    carrier: str | None = None
    carrier_active: bool = False
    carrier_force: str | None = None
    carrier_side: Side | None = None


@dataclass(frozen=True)
class ExitOutcome:
    """Result of :func:`resolve_exit`.

    Attributes
    ----------
    kind : ExitKind
    edge : Edge
        The edge crossed.
    owner : str or None
        The force that claimed the Loot or withdrew the unit; None otherwise.
    reason : str
    """

    kind: ExitKind
    edge: Edge
    owner: str | None
    reason: str


def resolve_exit(
    plan: EdgePlan,
    facts: ExitFacts,
    *,
    attackers_present: bool = True,
    defenders_present: bool = True,
) -> ExitOutcome:
    """Decide who, if anyone, gets an object that left the table (13.1 Picking Sides).

    Loot is claimed only when carried off its own friendly edge by its own *active* unit; a
    unit is withdrawn only when it leaves, active, by its own friendly edge. Anything else that
    leaves (fired from a catapult, in a runaway carriage, over an enemy edge, over a stretch of
    edge inside the Stronghold) belongs to no one.

    Raises
    ------
    RulesError
        If ``facts.position`` is still on the table, or a carrier has no force/side.
    """
    edge = plan.table.edge_crossed(facts.position)
    if edge is None:
        raise RulesError(f"{facts.object_name!r} at {facts.position!r} has not left the table")
    lost = ExitKind.LOST if facts.is_unit else ExitKind.UNCLAIMED
    if facts.carrier is None or not facts.carrier_active:
        return ExitOutcome(lost, edge, None, "not carried off by an active unit")
    if facts.carrier_force is None or facts.carrier_side is None:
        raise RulesError(
            f"carrier {facts.carrier!r} of {facts.object_name!r} needs a force and side"
        )
    where = plan.table.project(facts.position, edge)
    if plan.in_stronghold(where):
        return ExitOutcome(lost, edge, None, "left over a Stronghold stretch of edge")
    friendly = plan.owner_edges(
        facts.carrier_side, attackers_present=attackers_present, defenders_present=defenders_present
    )
    if edge not in friendly:
        return ExitOutcome(
            lost, edge, None, f"the {edge.value} edge is not friendly to {facts.carrier_force}"
        )
    kind = ExitKind.WITHDRAWN if facts.is_unit else ExitKind.CLAIMED
    return ExitOutcome(
        kind, edge, facts.carrier_force, f"carried off the friendly {edge.value} edge"
    )


@dataclass(frozen=True)
class DeploymentCheck:
    """Result of :func:`check_deployment`.

    Attributes
    ----------
    legal : bool
    reason : str
    edge_distance : float or None
        Inches to the nearest usable friendly edge stretch (None when not measured).
    used_sprint : bool
        The placement needs the Sprint bonus: the unit has spent its Action and takes no
        response Actions before its first turn (13.2).
    """

    legal: bool
    reason: str
    edge_distance: float | None = None
    used_sprint: bool = False


def check_deployment(
    plan: EdgePlan,
    point: Point,
    role: Role,
    *,
    move_inches: float = 5.0,
    sprint_inches: float = 0.0,
    final_battle: bool = False,
    ambush: bool = False,
    enemy_formations: Sequence[Area] = (),
    attackers_present: bool = True,
    defenders_present: bool = True,
) -> DeploymentCheck:
    """Whether a unit may be placed at ``point`` at deployment or as a Reinforcement (13.2).

    - Garrison units deploy inside the Stronghold.
    - Host forces and allied defenders in a Final Battle deploy anywhere on the table (13.4).
    - An ambushing force deploys anywhere outside enemy formations and Strongholds (13.2).
    - Everyone else deploys within one turn's Move of a usable stretch of a friendly edge,
      outside the Stronghold; a Sprint roll (``sprint_inches``) may stretch that distance.

    Parameters
    ----------
    point : (x, y)
        Inches.
    move_inches, sprint_inches : float
        The unit's Move and its Sprint bonus (inches, >= 0).

    Raises
    ------
    RulesError
        For negative distances.
    """
    if move_inches < 0 or sprint_inches < 0:
        raise RulesError(
            f"Move and Sprint must be >= 0 inches, got {move_inches!r}, {sprint_inches!r}"
        )
    if not plan.table.contains(point):
        return DeploymentCheck(False, "off the table")
    if role is Role.GARRISON:
        ok = plan.in_stronghold(point)
        return DeploymentCheck(
            ok, "inside the Stronghold" if ok else "Garrison must deploy in the Stronghold"
        )
    if final_battle and role.side is Side.DEFENDERS:
        return DeploymentCheck(True, "Final Battle: defenders deploy anywhere")
    if ambush:
        if plan.in_stronghold(point):
            return DeploymentCheck(False, "an ambush cannot be set inside a Stronghold")
        for f in enemy_formations:
            if f.contains(point):
                return DeploymentCheck(False, f"inside enemy formation {f.name!r}")
        return DeploymentCheck(True, "ambush")
    if plan.in_stronghold(point):
        return DeploymentCheck(False, "inside the Stronghold")
    stretches = friendly_stretches(
        plan, role.side, attackers_present=attackers_present, defenders_present=defenders_present
    )
    if not stretches:
        return DeploymentCheck(False, "no friendly edge")
    d = min(s.distance(point) for s in stretches)
    if d <= move_inches + 1e-9:
        return DeploymentCheck(True, "within one Move of a friendly edge", d)
    if d <= move_inches + sprint_inches + 1e-9:
        return DeploymentCheck(True, "within a Sprint of a friendly edge", d, used_sprint=True)
    return DeploymentCheck(False, f'{d:.2f}" from the nearest friendly edge', d)


def is_safe_entry_point(point: Point, friendly: Sequence[Point], enemies: Sequence[Point]) -> bool:
    """Non-Escapade Reinforcement entry point without assigned edges (13.2 Reinforcements).

    A point on the table edge is safe when it is strictly closer to some friendly or allied unit
    than to any enemy unit, and no enemy unit is within 10" (exactly 10" counts as within).

    Parameters
    ----------
    point : (x, y)
        Inches, on the table edge.
    friendly, enemies : sequences of (x, y)
        Unit positions in inches.
    """
    if not friendly:
        return False
    near_friend = min(math.dist(point, f) for f in friendly)
    if not enemies:
        return True
    near_enemy = min(math.dist(point, e) for e in enemies)
    return near_friend < near_enemy and near_enemy > SAFE_ENTRY_ENEMY_CLEARANCE_INCHES
