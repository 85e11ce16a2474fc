"""BrikWars 13.1 forces: Unit Inches, deployment limits, underdogs, turn order."""

from __future__ import annotations

import pytest

from sandbox.core.errors import RulesError
from sandbox.rules.escapade_forces import (
    EscapadeKind,
    ForceSpec,
    ForceUnit,
    Role,
    Side,
    force_unit_inches,
    limit_violations,
    reference_inches,
    side_totals,
    turn_order,
    underdogs,
    unit_inches,
    validate_forces,
)


def figs(prefix: str, n: int, size: float = 1.0, **kw) -> tuple[ForceUnit, ...]:
    return tuple(ForceUnit(f"{prefix}{i}", size, **kw) for i in range(n))


def force(name, role, inches_units, irr=None, **kw) -> ForceSpec:
    """A force whose units are given as (size, damage) or size."""
    units = []
    for i, u in enumerate(inches_units):
        size, dmg = (u, 0) if not isinstance(u, tuple) else u
        units.append(ForceUnit(f"{name}-{i}", size, dmg))
    if irr is None and role is not Role.GARRISON:
        irr = 3
    return ForceSpec(name, name, role, tuple(units), irr, **kw)


# --- 13.1 Effective Size and Accounting ------------------------------------------------------

@pytest.mark.parametrize(
    "size, damage, value",
    [
        (1, 0, 1.0),      # a minifig
        (4, 0, 4.0),
        (4, 1, 3.0),      # each inch of Size Damage costs one Unit Inch
        (4, 3, 1.0),
        (4, 4, 1.0),      # ... to a minimum of 1
        (4, 9, 1.0),
        (2.5, 1, 1.5),
        (0.5, 0, 0.5),    # a half-inch critter is worth its Size
        (0.5, 2, 0.5),    # damage never raises a Value above Size
    ],
)
def test_unit_inches(size, damage, value):
    assert unit_inches(size, damage) == pytest.approx(value)
    assert ForceUnit("u", size, damage).unit_inches == pytest.approx(value)


@pytest.mark.parametrize("size, damage", [(0, 0), (-1, 0), (2, -1)])
def test_unit_inches_rejects(size, damage):
    with pytest.raises(RulesError):
        unit_inches(size, damage)
    with pytest.raises(RulesError):
        ForceUnit("u", size, damage)


@pytest.mark.parametrize(
    "units, expected",
    [
        # commander on the table: reserves count
        ((ForceUnit("c", 1, is_commander=True), ForceUnit("r", 3, in_reserve=True)), 4.0),
        # no commander: reserves don't count
        ((ForceUnit("a", 1), ForceUnit("r", 3, in_reserve=True)), 1.0),
        # the only commander is himself in reserve: nobody in the field to deploy them
        ((ForceUnit("a", 1), ForceUnit("c", 1, is_commander=True, in_reserve=True)), 1.0),
        ((ForceUnit("t", 4, 2), ForceUnit("m", 1)), 3.0),
    ],
)
def test_force_unit_inches_reserves(units, expected):
    assert force_unit_inches(units) == pytest.approx(expected)


# --- 13.1 / 13.2 limits ----------------------------------------------------------------------

EH = Role.ESCAPADING_HERO


@pytest.mark.parametrize(
    "forces, kind, cap, rules",
    [
        # legal baseline: EH 6, ally 6, meddler 5, Garrison 6, host hero 4, ally defender 10
        ([force("eh", EH, [1] * 6, 3), force("ally", Role.ALLIED_ATTACKER, [2, 2, 2], 2),
          force("med", Role.MEDDLER, [1] * 5), force("gar", Role.GARRISON, [3, 3]),
          force("host", Role.HOST_HERO, [4], 4), force("ad", Role.ALLIED_DEFENDER, [2] * 5)],
         EscapadeKind.STANDARD, None, []),
        # ally exceeds the Escapading Hero's deployed force
        ([force("eh", EH, [1] * 4, 3), force("ally", Role.ALLIED_ATTACKER, [1] * 5)],
         EscapadeKind.STANDARD, None, ["13.1 attacker/meddler cap"]),
        # meddler exceeds it too
        ([force("eh", EH, [1] * 4, 3), force("med", Role.MEDDLER, [2, 2, 1])],
         EscapadeKind.STANDARD, None, ["13.1 attacker/meddler cap"]),
        # Size Damage brings an oversized ally back under the cap
        ([force("eh", EH, [1] * 4, 3), force("ally", Role.ALLIED_ATTACKER, [(3, 1), (3, 1)])],
         EscapadeKind.STANDARD, None, []),
        # unit larger than Irresponsibility
        ([force("eh", EH, [1, 1, 3], 2)], EscapadeKind.STANDARD, None, ["13.2 unit Size"]),
        # EH below his Irresponsibility although able
        ([force("eh", EH, [1, 1], 3)], EscapadeKind.STANDARD, None,
         ["13.1 Irresponsible minimum"]),
        # ... not able: no violation, and others deploy as if he brought 3 (ally of 3 is fine)
        ([force("eh", EH, [1, 1], 3, army_available_inches=2),
          force("ally", Role.ALLIED_ATTACKER, [1, 1, 1])], EscapadeKind.STANDARD, None, []),
        ([force("eh", EH, [1, 1], 3, army_available_inches=2),
          force("ally", Role.ALLIED_ATTACKER, [1, 1, 1, 1])], EscapadeKind.STANDARD, None,
         ["13.1 attacker/meddler cap"]),
        # Garrison capped at the Escapading Hero's deployed force
        ([force("eh", EH, [1] * 5, 3), force("gar", Role.GARRISON, [3, 3])],
         EscapadeKind.STANDARD, None, ["13.1 Garrison cap"]),
        # ... and at the Stronghold's defense level
        ([force("eh", EH, [1] * 5, 3), force("gar", Role.GARRISON, [2, 2])],
         EscapadeKind.STANDARD, 3, ["13.1 Garrison defense level"]),
        # Host Hero ignores the Escapading Hero's limits (Size limit only)
        ([force("eh", EH, [1] * 3, 3), force("host", Role.HOST_HERO, [4] * 5, 4)],
         EscapadeKind.STANDARD, None, []),
        # allied defender capped at Host Hero + Garrison (4 + 3 = 7)
        ([force("eh", EH, [1] * 3, 3), force("host", Role.HOST_HERO, [4], 4),
          force("gar", Role.GARRISON, [3]), force("ad", Role.ALLIED_DEFENDER, [2] * 4)],
         EscapadeKind.STANDARD, None, ["13.1 allied defender cap"]),
        ([force("eh", EH, [1] * 3, 3), force("host", Role.HOST_HERO, [4], 4),
          force("gar", Role.GARRISON, [3]), force("ad", Role.ALLIED_DEFENDER, [2, 2, 3], 3)],
         EscapadeKind.STANDARD, None, []),
        # Final Battle: Heroes have no Size or Unit Inch limits...
        ([force("eh", EH, [6, 6], 2), force("ally", Role.ALLIED_ATTACKER, [9] * 4, 1)],
         EscapadeKind.FINAL_BATTLE, None, []),
        # ... but the Garrison keeps its cap
        ([force("eh", EH, [1, 1], 2), force("gar", Role.GARRISON, [2, 2])],
         EscapadeKind.FINAL_BATTLE, None, ["13.1 Garrison cap"]),
    ],
)
def test_limit_violations(forces, kind, cap, rules):
    got = limit_violations(forces, kind, garrison_defense_cap=cap)
    assert [v.rule for v in got] == rules
    if rules:
        with pytest.raises(RulesError, match=rules[0].split()[0]):
            validate_forces(forces, kind, garrison_defense_cap=cap)
    else:
        validate_forces(forces, kind, garrison_defense_cap=cap)


def test_violation_reports_value_and_limit():
    eh, ally = force("eh", EH, [1] * 4, 3), force("ally", Role.ALLIED_ATTACKER, [1] * 5)
    (v,) = limit_violations([eh, ally])
    assert (v.force, v.value, v.limit) == ("ally", 5.0, 4.0)


@pytest.mark.parametrize(
    "forces, kind",
    [
        ([force("ally", Role.ALLIED_ATTACKER, [1])], EscapadeKind.STANDARD),   # no EH
        ([force("a", EH, [1]), force("b", EH, [1])], EscapadeKind.STANDARD),  # two EHs
        ([force("a", EH, [1]), force("g1", Role.GARRISON, [1]), force("g2", Role.GARRISON, [1])],
         EscapadeKind.STANDARD),
        ([force("a", EH, [1]), force("h1", Role.HOST_HERO, [1]), force("h2", Role.HOST_HERO, [1])],
         EscapadeKind.STANDARD),
        ([force("a", EH, [1]), force("ad", Role.ALLIED_DEFENDER, [1])], EscapadeKind.STANDARD),
        ([force("a", EH, [1]), force("h", Role.HOST_HERO, [1])], EscapadeKind.LAST_STAND),
    ],
)
def test_impossible_roles(forces, kind):
    with pytest.raises(RulesError):
        limit_violations(forces, kind)


def test_garrison_has_no_irresponsibility():
    with pytest.raises(RulesError):
        ForceSpec("g", "p", Role.GARRISON, (), 2)
    with pytest.raises(RulesError):
        ForceSpec("h", "p", Role.HOST_HERO, (), None)


def test_reference_uses_irresponsibility_when_short():
    assert reference_inches([force("eh", EH, [1, 1], 5)]) == 5.0
    assert reference_inches([force("eh", EH, [1] * 7, 5)]) == 7.0


# --- 13.1 Underdogs --------------------------------------------------------------------------

@pytest.mark.parametrize(
    "forces, att, dfn, side, bennies, first",
    [
        # attackers 6 vs defenders 4+3=7: attackers underdog by 1
        ([force("eh", EH, [1] * 6), force("host", Role.HOST_HERO, [2, 2], 2),
          force("gar", Role.GARRISON, [3])], 6, 7, Side.ATTACKERS, {"eh": 1}, {"eh"}),
        # attackers 6+4 vs 3 Garrison: Host underdog by 7, capped at its own 3
        ([force("eh", EH, [1] * 6), force("ally", Role.ALLIED_ATTACKER, [2, 2]),
          force("gar", Role.GARRISON, [3])], 10, 3, Side.DEFENDERS, {"gar": 3}, {"gar"}),
        # Host underdog: Bennies go to the Host Hero; cap counts Host Hero + Garrison but not allies
        ([force("eh", EH, [1] * 12, 3), force("host", Role.HOST_HERO, [1, 1], 1),
          force("gar", Role.GARRISON, [1] * 3), force("ad", Role.ALLIED_DEFENDER, [1] * 5, 1)],
         12, 10, Side.DEFENDERS, {"host": 2}, {"host", "gar", "ad"}),
        ([force("eh", EH, [1] * 12, 3), force("host", Role.HOST_HERO, [1], 1),
          force("ad", Role.ALLIED_DEFENDER, [1], 1)],
         12, 2, Side.DEFENDERS, {"host": 1}, {"host", "ad"}),
        # EH underdog with allies: his Bennies capped at his own force (3), not allies'
        ([force("eh", EH, [1, 1, 1]), force("ally", Role.ALLIED_ATTACKER, [1, 1, 1]),
          force("host", Role.HOST_HERO, [3] * 5, 3)], 6, 15, Side.ATTACKERS, {"eh": 3},
         {"eh", "ally"}),
        # a tie: nobody is the underdog
        ([force("eh", EH, [1] * 4), force("gar", Role.GARRISON, [2, 2])],
         4, 4, None, {}, set()),
        # no Host: meddlers below the Escapading Hero's own force get the difference (capped)
        ([force("eh", EH, [1] * 8), force("ally", Role.ALLIED_ATTACKER, [1] * 8),
          force("m1", Role.MEDDLER, [1] * 5), force("m2", Role.MEDDLER, [1, 1]),
          force("m3", Role.MEDDLER, [1] * 8)], 16, 0, None, {"m1": 3, "m2": 2}, {"m1", "m2"}),
    ],
)
def test_underdogs(forces, att, dfn, side, bennies, first):
    res = underdogs(forces)
    assert side_totals(forces) == (att, dfn)
    assert (res.attackers_inches, res.defenders_inches) == (att, dfn)
    assert res.underdog_side is side
    assert res.bennies == bennies
    assert res.underdog_forces == frozenset(first)


def test_fractional_difference_rounds_down():
    forces = [force("eh", EH, [1, 1, 1]), force("gar", Role.GARRISON, [(3, 0), (1.5, 0)])]
    assert underdogs(forces).bennies == {"eh": 1}


@pytest.mark.parametrize(
    "base, under, expected",
    [
        (["a", "b", "c", "d"], {"c"}, ["c", "a", "b", "d"]),
        (["a", "b", "c", "d"], {"d", "b"}, ["b", "d", "a", "c"]),
        (["a", "b"], set(), ["a", "b"]),
    ],
)
def test_turn_order_underdogs_first(base, under, expected):
    assert turn_order(base, under) == expected


@pytest.mark.parametrize("base, under", [(["a", "a"], set()), (["a"], {"z"})])
def test_turn_order_rejects(base, under):
    with pytest.raises(RulesError):
        turn_order(base, under)
