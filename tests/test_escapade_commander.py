"""BrikWars 13.2 The Commander: Strategy bricks, Reinforcements, Bombardment costs."""

from __future__ import annotations

import pytest

from sandbox.core.errors import RulesError
from sandbox.rules.escapade_commander import (
    big_drop_height_inches,
    bombardment_cost,
    bombardment_use,
    check_drop_zone,
    kill_earns_strategy,
    reinforcement_cost,
)
from sandbox.rules.escapade_forces import ForceUnit

BASE = dict(victim_size_inches=1.0, victim_is_enemy=True, killer_in_commanders_force=True,
            witnessed_by_commander_or_scout=True, commander_on_field=True)


@pytest.mark.parametrize(
    "change, earns",
    [
        ({}, True),
        ({"victim_size_inches": 4.0}, True),
        ({"victim_size_inches": 0.5}, False),          # under 1": no brick
        ({"victim_is_enemy": False}, False),
        ({"killer_in_commanders_force": False}, False),  # an ally's kill
        ({"witnessed_by_commander_or_scout": False}, False),
        ({"commander_on_field": False}, False),
    ],
)
def test_kill_earns_strategy(change, earns):
    assert kill_earns_strategy(**{**BASE, **change}) is earns


@pytest.mark.parametrize(
    "new, reserve, cost",
    [
        ([ForceUnit("a", 1)], [], 1),
        ([ForceUnit("a", 1), ForceUnit("t", 4)], [], 5),
        ([ForceUnit("t", 4, 2)], [], 2),                  # a damaged unit is worth less
        ([ForceUnit("c", 0.5)], [], 1),                   # whole bricks
        ([], [ForceUnit("r", 6)], 0),                     # reserves are free
        ([ForceUnit("big", 9)], [ForceUnit("r", 6)], 9),  # no Size limit on Reinforcements
    ],
)
def test_reinforcement_cost(new, reserve, cost):
    assert reinforcement_cost(new, reserve) == cost


@pytest.mark.parametrize(
    "exp, units, supplies, cost",
    [(3, 0, 0, 3), (0, 2, 0, 2), (0, 0, 1.5, 2), (2, 1, 1, 4)],
)
def test_bombardment_cost(exp, units, supplies, cost):
    assert bombardment_cost(exp, units, supplies) == cost


@pytest.mark.parametrize("args", [(0, 0, 0), (-1, 0, 0)])
def test_bombardment_cost_rejects(args):
    with pytest.raises(RulesError):
        bombardment_cost(*args)


@pytest.mark.parametrize("bricks, use, height", [(1, 4, 5.0), (3, 12, 15.0)])
def test_bombardment_use_and_big_drop(bricks, use, height):
    assert bombardment_use(bricks) == use
    assert big_drop_height_inches(bricks) == height


def test_bombardment_needs_bricks():
    with pytest.raises(RulesError):
        bombardment_use(0)
    with pytest.raises(RulesError):
        big_drop_height_inches(0)


def test_drop_zone_limit():
    check_drop_zone(3, 3)
    with pytest.raises(RulesError, match="4 Strategy bricks"):
        check_drop_zone(4, 3)
