"""BrikWars 13.1 Picking Sides and 13.2 deployment zones, on a 48" x 36" table."""

from __future__ import annotations

import pytest

from sandbox.core.errors import RulesError
from sandbox.rules.escapade_field import (
    Area,
    Edge,
    EdgePlan,
    ExitFacts,
    ExitKind,
    Table,
    check_deployment,
    distance_to_segment,
    formation_area,
    friendly_stretches,
    is_safe_entry_point,
    pick_defenders_edge,
    rect_area,
    resolve_exit,
)
from sandbox.rules.escapade_forces import Role, Side

TABLE = Table(48.0, 36.0)  # x in [-24, 24], y in [-18, 18]
# A Stronghold in the north-east corner, covering the east half of the north edge (x 0..24)
# and the top 8" of the east edge (y 10..18).
CORNER_KEEP = rect_area(0, 10, 30, 30, "keep")
# A keep in the middle of the table, touching no edge.
MID_KEEP = rect_area(-6, -4, 6, 4, "keep")
PLAN = EdgePlan(TABLE, Edge.SOUTH, Edge.NORTH, (CORNER_KEEP,))


@pytest.mark.parametrize(
    "point, edge",
    [
        ((0, 0), None),
        ((24, 18), None),          # on the corner: still on the table
        ((0, 18.5), Edge.NORTH),
        ((0, -19), Edge.SOUTH),
        ((25, 0), Edge.EAST),
        ((-30, 5), Edge.WEST),
        ((26, 19), Edge.EAST),     # corner: the larger overshoot wins
        ((25, 21), Edge.NORTH),
    ],
)
def test_edge_crossed(point, edge):
    assert TABLE.edge_crossed(point) is edge


@pytest.mark.parametrize(
    "p, a, b, d",
    [((0, 0), (-1, 2), (1, 2), 2.0), ((3, 0), (-1, 0), (1, 0), 2.0), ((4, 3), (0, 0), (0, 0), 5.0)],
)
def test_distance_to_segment(p, a, b, d):
    assert distance_to_segment(p, a, b) == pytest.approx(d)


@pytest.mark.parametrize(
    "point, inside",
    [((0, 0), True), ((6, 4), True), ((6.01, 0), False), ((0, -5), False), ((-6, 0), True)],
)
def test_area_contains(point, inside):
    assert MID_KEEP.contains(point) is inside


def test_area_needs_three_points():
    with pytest.raises(RulesError):
        Area(((0, 0), (1, 1)))


@pytest.mark.parametrize(
    "side, att, dfn, expected",
    [
        # attackers: the whole south edge
        (Side.ATTACKERS, True, True, [(Edge.SOUTH, (-24, -18), (24, -18))]),
        # defenders: only the west half of the north edge; the rest is inside the Stronghold
        (Side.DEFENDERS, True, True, [(Edge.NORTH, (-24, 18), (0, 18))]),
        # meddlers: east (below the keep) and west
        (Side.MEDDLER, True, True,
         [(Edge.EAST, (24, -18), (24, 10)), (Edge.WEST, (-24, -18), (-24, 18))]),
        # attackers wiped out: their edge becomes uncontrolled, friendly to meddlers
        (Side.MEDDLER, False, True,
         [(Edge.SOUTH, (-24, -18), (24, -18)), (Edge.EAST, (24, -18), (24, 10)),
          (Edge.WEST, (-24, -18), (-24, 18))]),
        (Side.ATTACKERS, False, True, []),
        # defenders gone: the usable part of the north edge goes to meddlers
        (Side.MEDDLER, True, False,
         [(Edge.NORTH, (-24, 18), (0, 18)), (Edge.EAST, (24, -18), (24, 10)),
          (Edge.WEST, (-24, -18), (-24, 18))]),
    ],
)
def test_friendly_stretches(side, att, dfn, expected):
    got = friendly_stretches(PLAN, side, attackers_present=att, defenders_present=dfn)
    got = sorted((s.edge.value, s.a, s.b) for s in got)
    want = sorted((e.value, a, b) for e, a, b in expected)
    assert [(e, pytest.approx(a), pytest.approx(b)) for e, a, b in want] == got


@pytest.mark.parametrize(
    "attackers, strongholds, expected",
    [
        (Edge.SOUTH, (), Edge.NORTH),
        (Edge.EAST, (), Edge.WEST),
        (Edge.SOUTH, (MID_KEEP,), Edge.NORTH),
        # the whole north edge inside a Stronghold: pick the adjacent edge with more room
        (Edge.SOUTH, (rect_area(-30, 10, 30, 30), rect_area(20, -30, 30, 30)), Edge.WEST),
        (Edge.SOUTH, (rect_area(-30, 10, 30, 30),), Edge.EAST),  # tie: east first
        (Edge.SOUTH, (rect_area(-30, -10, 30, 30),), Edge.EAST),  # 8" of each side left
        # everything but the attackers' edge inside the Stronghold
        (Edge.SOUTH, (rect_area(-30, -18, 30, 30),), None),
    ],
)
def test_pick_defenders_edge(attackers, strongholds, expected):
    assert pick_defenders_edge(TABLE, attackers, strongholds) is expected


@pytest.mark.parametrize(
    "att, dfn, strongholds",
    [
        (Edge.NORTH, Edge.NORTH, ()),
        (Edge.NORTH, Edge.SOUTH, (rect_area(-30, 10, 30, 30),)),  # attackers' edge all inside
        (Edge.SOUTH, Edge.NORTH, (rect_area(-30, 10, 30, 30),)),  # defenders' edge all inside
    ],
)
def test_edge_plan_rejects(att, dfn, strongholds):
    with pytest.raises(RulesError):
        EdgePlan(TABLE, att, dfn, strongholds)


A, D, M = Side.ATTACKERS, Side.DEFENDERS, Side.MEDDLER


@pytest.mark.parametrize(
    "facts, present, kind, owner",
    [
        # Loot carried by an active attacker off the attackers' edge: claimed
        (ExitFacts("gold", (3, -19), False, "raider", True, "eh", A), (True, True),
         ExitKind.CLAIMED, "eh"),
        # ... by an inactive (panicked, burning) carrier: nobody's
        (ExitFacts("gold", (3, -19), False, "raider", False, "eh", A), (True, True),
         ExitKind.UNCLAIMED, None),
        # flung off the attackers' own edge by a catapult: nobody's
        (ExitFacts("gold", (3, -25), False, None, False, None, None), (True, True),
         ExitKind.UNCLAIMED, None),
        # carried off the defenders' edge by an attacker: nobody's
        (ExitFacts("gold", (-5, 19), False, "raider", True, "eh", A), (True, True),
         ExitKind.UNCLAIMED, None),
        # a defender carries it off the defenders' usable stretch: claimed by the Host
        (ExitFacts("gold", (-5, 19), False, "guard", True, "host", D), (True, True),
         ExitKind.CLAIMED, "host"),
        # ... but off the stretch inside the Stronghold: nobody's, not even the defenders'
        (ExitFacts("gold", (5, 19), False, "guard", True, "host", D), (True, True),
         ExitKind.UNCLAIMED, None),
        # meddler off an uncontrolled edge: claimed
        (ExitFacts("gold", (-25, 0), False, "thief", True, "med", M), (True, True),
         ExitKind.CLAIMED, "med"),
        # meddler off the attackers' edge while attackers hold it: nobody's
        (ExitFacts("gold", (0, -19), False, "thief", True, "med", M), (True, True),
         ExitKind.UNCLAIMED, None),
        # ... after the attackers are wiped out it is uncontrolled: claimed
        (ExitFacts("gold", (0, -19), False, "thief", True, "med", M), (False, True),
         ExitKind.CLAIMED, "med"),
        # a unit walking off its own friendly edge is withdrawn
        (ExitFacts("raider", (0, -19), True, "raider", True, "eh", A), (True, True),
         ExitKind.WITHDRAWN, "eh"),
        # a unit knocked off the table (not under its own control) is lost
        (ExitFacts("raider", (0, -19), True, "raider", False, "eh", A), (True, True),
         ExitKind.LOST, None),
        # a unit walking off an enemy edge is lost
        (ExitFacts("raider", (-25, 0), True, "raider", True, "eh", A), (True, True),
         ExitKind.LOST, None),
    ],
)
def test_resolve_exit(facts, present, kind, owner):
    out = resolve_exit(PLAN, facts, attackers_present=present[0], defenders_present=present[1])
    assert (out.kind, out.owner) == (kind, owner)
    assert out.edge is TABLE.edge_crossed(facts.position)


def test_resolve_exit_on_table_raises():
    with pytest.raises(RulesError, match="has not left"):
        resolve_exit(PLAN, ExitFacts("gold", (0, 0)))


@pytest.mark.parametrize(
    "point, role, kw, legal, sprint",
    [
        # attackers within 5" of the south edge
        ((0, -14), Role.ESCAPADING_HERO, {}, True, False),
        ((0, -13), Role.ESCAPADING_HERO, {}, True, False),          # exactly 5"
        ((0, -12), Role.ESCAPADING_HERO, {}, False, False),         # 6"
        ((0, -12), Role.ESCAPADING_HERO, {"sprint_inches": 3}, True, True),
        ((0, -9), Role.ESCAPADING_HERO, {"sprint_inches": 3}, False, False),
        ((0, -10), Role.ALLIED_ATTACKER, {"move_inches": 8}, True, False),   # a fast unit
        # defenders measure from the usable (west) half of the north edge only
        ((-5, 14), Role.HOST_HERO, {}, True, False),
        ((-1, 14), Role.HOST_HERO, {}, True, False),                # 4" from the stretch
        ((-8, 12), Role.HOST_HERO, {}, False, False),               # 6": too far
        ((10, 16), Role.HOST_HERO, {}, False, False),               # inside the Stronghold
        # meddlers deploy from uncontrolled edges (west, lower east)
        ((-21, 0), Role.MEDDLER, {}, True, False),
        ((21, 0), Role.MEDDLER, {}, True, False),
        ((0, -15), Role.MEDDLER, {}, False, False),                 # near attackers' edge only
        # Garrison deploys inside the Stronghold
        ((10, 15), Role.GARRISON, {}, True, False),
        ((-10, 15), Role.GARRISON, {}, False, False),
        # Final Battle: the Host and allies deploy anywhere, including in the Stronghold
        ((0, 0), Role.HOST_HERO, {"final_battle": True}, True, False),
        ((10, 15), Role.ALLIED_DEFENDER, {"final_battle": True}, True, False),
        ((0, 0), Role.ESCAPADING_HERO, {"final_battle": True}, False, False),
        # ambush: anywhere but enemy formations and Strongholds
        ((0, 0), Role.MEDDLER, {"ambush": True}, True, False),
        ((10, 15), Role.MEDDLER, {"ambush": True}, False, False),
        ((-10, 0), Role.MEDDLER,
         {"ambush": True, "enemy_formations": (formation_area([(-11, 1), (-9, -1)], 1.0),)},
         False, False),
        ((-12, 0), Role.MEDDLER,
         {"ambush": True, "enemy_formations": (formation_area([(-11, 1), (-9, -1)], 1.0),)},
         False, False),  # on the formation's 1" margin
        ((-13.5, 0), Role.MEDDLER,
         {"ambush": True, "enemy_formations": (formation_area([(-11, 1), (-9, -1)], 1.0),)},
         True, False),
        # off the table
        ((0, -19), Role.ESCAPADING_HERO, {}, False, False),
    ],
)
def test_check_deployment(point, role, kw, legal, sprint):
    res = check_deployment(PLAN, point, role, **kw)
    assert res.legal is legal, res.reason
    assert res.used_sprint is sprint


def test_deployment_without_an_edge():
    res = check_deployment(PLAN, (0, -15), Role.ESCAPADING_HERO, attackers_present=False)
    assert not res.legal and res.reason == "no friendly edge"


@pytest.mark.parametrize(
    "point, friends, enemies, safe",
    [
        ((0, -18), [(0, -15)], [(0, 0)], True),        # friend 3", enemy 18"
        ((0, -18), [(0, -15)], [(0, -8)], False),      # enemy exactly 10": within ten inches
        ((0, -18), [(0, -15)], [(0, -7.9)], True),
        ((0, -18), [(0, 0)], [(15, -18)], False),      # enemy nearer than the friend
        ((0, -18), [], [(0, 10)], False),              # nobody friendly about
        ((0, -18), [(5, -5)], [], True),
    ],
)
def test_safe_entry_point(point, friends, enemies, safe):
    assert is_safe_entry_point(point, friends, enemies) is safe


def test_table_rejects_bad_size():
    with pytest.raises(RulesError):
        Table(0, 10)
