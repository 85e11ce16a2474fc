"""Properties of the Escapade arithmetic (hypothesis) and the modules' doctests."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sandbox.rules import escapade_commander, escapade_field, escapade_forces
from sandbox.rules.escapade_field import Edge, Table
from sandbox.rules.escapade_forces import (
    ForceSpec,
    ForceUnit,
    Role,
    turn_order,
    underdogs,
    unit_inches,
)

sizes = st.floats(min_value=0.25, max_value=40, allow_nan=False)
damage = st.floats(min_value=0, max_value=60, allow_nan=False)


@given(sizes, damage, damage)
def test_unit_inches_bounds_and_monotone(size, d1, d2):
    lo, hi = sorted((d1, d2))
    v_lo, v_hi = unit_inches(size, lo), unit_inches(size, hi)
    assert min(1.0, size) <= v_hi <= v_lo <= size


@given(st.lists(st.integers(1, 6), min_size=1, max_size=12),
       st.lists(st.integers(1, 6), min_size=1, max_size=12))
def test_underdog_bennies_never_exceed_own_force(att, dfn):
    eh = ForceSpec("eh", "a", Role.ESCAPADING_HERO,
                   tuple(ForceUnit(f"e{i}", s) for i, s in enumerate(att)), 6)
    gar = ForceSpec("gar", "b", Role.GARRISON,
                    tuple(ForceUnit(f"g{i}", s) for i, s in enumerate(dfn)))
    res = underdogs([eh, gar])
    diff = abs(sum(att) - sum(dfn))
    for name, n in res.bennies.items():
        own = sum(att) if name == "eh" else sum(dfn)
        assert n == min(diff, own)
    assert (len(res.bennies) == 1) == (diff != 0)


@given(st.permutations(list("abcdefg")), st.sets(st.sampled_from(list("abcdefg"))))
def test_turn_order_is_a_permutation_with_underdogs_first(base, under):
    out = turn_order(base, under)
    assert sorted(out) == sorted(base)
    assert set(out[: len(under)]) == under


@given(st.floats(-60, 60), st.floats(-60, 60))
def test_edge_crossed_iff_off_table(x, y):
    table = Table(48, 36)
    edge = table.edge_crossed((x, y))
    assert (edge is None) == table.contains((x, y))
    if edge is not None:
        px, py = table.project((x, y), edge)
        assert table.contains((px, py))
        assert edge in (Edge.NORTH, Edge.SOUTH, Edge.EAST, Edge.WEST)


@pytest.mark.parametrize("module", [escapade_forces, escapade_commander, escapade_field])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.failed == 0
