"""BrikWars 13.2 Tactical Advantage and Deployment Rush, with forced dice."""

from __future__ import annotations

import pytest

from sandbox.core.dice import Dice
from sandbox.core.errors import RulesError
from sandbox.rules.escapade_deploy import (
    can_rush,
    can_swap,
    rush_turn,
    tactical_advantage,
    top_command_specialist,
)
from sandbox.rules.escapade_forces import ForceSpec, ForceUnit, Role


def fs(name, role, *, cmd=True, scout=False, irr=3, sizes=(1, 1), die=6, reserve_scout=False):
    units = [ForceUnit(f"{name}-{i}", s) for i, s in enumerate(sizes)]
    if cmd:
        units.append(ForceUnit(f"{name}-cmd", 1, is_commander=True, action_die=die))
    if scout:
        units.append(ForceUnit(f"{name}-scout", 1, is_scout=True, in_reserve=reserve_scout))
    return ForceSpec(name, name, role, tuple(units), None if role is Role.GARRISON else irr)


EH, ALLY, HOST, GAR, MED = (Role.ESCAPADING_HERO, Role.ALLIED_ATTACKER, Role.HOST_HERO,
                            Role.GARRISON, Role.MEDDLER)


@pytest.mark.parametrize(
    "forces, dice, totals, order, swaps, ambush",
    [
        # plain: lowest deploys first
        ([fs("eh", EH), fs("host", HOST)], [4, 3], [4, 3], ["host", "eh"], {}, []),
        # scouts add +1; a tie keeps the listed order
        ([fs("eh", EH, scout=True), fs("host", HOST)], [3, 4], [4, 4], ["eh", "host"], {}, []),
        # a Scout held in reserve doesn't help
        ([fs("eh", EH, scout=True, reserve_scout=True), fs("host", HOST)], [3, 4], [3, 4],
         ["eh", "host"], {}, []),
        # Garrison and Host Hero roll separately; the eh's 6 is twice the best enemy (3): ambush
        ([fs("eh", EH), fs("gar", GAR), fs("host", HOST)], [6, 2, 3], [6, 2, 3],
         ["gar", "host", "eh"], {}, ["eh"]),
        # 5 is not twice 3
        ([fs("eh", EH), fs("gar", GAR), fs("host", HOST)], [5, 2, 3], [5, 2, 3],
         ["gar", "host", "eh"], {}, []),
        # a Critical Failure: the highest-rolling enemy may swap two of its units; the Host's
        # 3 is not twice the attackers' best (the ally's 2)
        ([fs("eh", EH), fs("ally", ALLY), fs("host", HOST)], [1, 2, 3], [1, 2, 3],
         ["eh", "ally", "host"], {"eh": "host"}, []),
        # ... the Host's 5 vs the best enemy 2 is an ambush: it sets up last
        ([fs("eh", EH), fs("ally", ALLY), fs("host", HOST), fs("gar", GAR)], [1, 2, 5, 3],
         [1, 2, 5, 3], ["eh", "ally", "gar", "host"], {"eh": "host"}, ["host"]),
        # a Critical Failure with a Scout still counts as one (total 2)
        ([fs("eh", EH, scout=True), fs("host", HOST)], [1, 3], [2, 3], ["eh", "host"],
         {"eh": "host"}, []),
        # a force with no Command Specialist: no roll, deploys first, suffers the swap
        ([fs("eh", EH), fs("med", MED, cmd=False)], [2], [2, 0], ["med", "eh"],
         {"med": "eh"}, []),
        # ... and cannot be out-rolled into an ambush (no enemy roll to double)
        ([fs("eh", EH), fs("gar", GAR, cmd=False)], [6], [6, 0], ["gar", "eh"],
         {"gar": "eh"}, []),
        # meddlers are each other's enemies
        ([fs("m1", MED), fs("m2", MED)], [6, 3], [6, 3], ["m2", "m1"], {}, ["m1"]),
        # two ambushers set up last in increasing order
        ([fs("m1", MED), fs("eh", EH), fs("ally", ALLY), fs("host", HOST)], [1, 6, 5, 2],
         [1, 6, 5, 2], ["m1", "host", "ally", "eh"], {"m1": "eh"}, ["eh", "ally"]),
    ],
)
def test_tactical_advantage(forces, dice, totals, order, swaps, ambush):
    stream = Dice(1).stream("deploy")
    stream.force(*dice)
    res = tactical_advantage(forces, stream)
    assert [r.total for r in res.rolls] == totals
    assert list(res.deploy_order) == order
    assert res.swaps == swaps
    assert res.ambushers == frozenset(ambush)
    assert stream.pending_forced == ()
    assert len(stream.records) == len(dice)
    assert res.to_dict()["deploy_order"] == order


def test_top_command_specialist_prefers_the_bigger_die():
    f = ForceSpec("f", "p", EH, (ForceUnit("a", 1, is_commander=True, action_die=6),
                                 ForceUnit("b", 1, is_commander=True, action_die=10),
                                 ForceUnit("c", 1, is_commander=True, action_die=20,
                                           in_reserve=True)), 3)
    assert top_command_specialist(f).name == "b"
    stream = Dice(3).stream("ta")
    stream.force(9)
    assert tactical_advantage([f], stream).rolls[0].roll.sides == 10


def test_tactical_advantage_rejects_duplicate_forces():
    with pytest.raises(RulesError):
        tactical_advantage([fs("a", EH), fs("a", HOST)], Dice(1).stream("x"))


def test_tactical_advantage_is_deterministic():
    forces = [fs("eh", EH), fs("host", HOST), fs("med", MED)]
    a = tactical_advantage(forces, Dice(42).stream("deploy")).to_dict()
    b = tactical_advantage(forces, Dice(42).stream("deploy")).to_dict()
    assert a == b


@pytest.mark.parametrize(
    "a, b, ok",
    [
        (ForceUnit("a", 1), ForceUnit("b", 1), True),
        (ForceUnit("a", 2), ForceUnit("b", 2.5), True),
        (ForceUnit("a", 1), ForceUnit("b", 2), False),                       # not similar Size
        (ForceUnit("a", 2), ForceUnit("b", 2, propulsion="wheels"), False),  # other Propulsion
        (ForceUnit("a", 1), ForceUnit("b", 1, in_reserve=True), False),      # not deployed
        (ForceUnit("a", 1), ForceUnit("a", 1), False),                       # the same unit
    ],
)
def test_can_swap(a, b, ok):
    assert can_swap(a, b) is ok


@pytest.mark.parametrize(
    "force, ok",
    [
        (fs("f", EH, irr=2, sizes=(1, 1)), True),            # largest 1" < Irresponsibility 2
        (fs("f", EH, irr=2, sizes=(1, 2)), False),           # 2" is not smaller than 2
        (fs("f", EH, irr=3, sizes=(2, 2)), True),
        (fs("f", GAR, sizes=(1,)), False),                    # Garrisons never rush
        (ForceSpec("f", "p", EH, (ForceUnit("a", 1), ForceUnit("t", 3, in_reserve=True)), 2),
         True),                                               # the reserve tank doesn't count
    ],
)
def test_can_rush(force, ok):
    assert can_rush(force) is ok


def test_rush_turn_keeps_turn_order_and_skips():
    forces = [fs("eh", EH, irr=2, sizes=(1,)), fs("host", HOST, irr=2, sizes=(2,)),
              fs("gar", GAR), fs("m1", MED, irr=4, sizes=(3,)), fs("m2", MED, irr=3)]
    order = ["m1", "host", "gar", "m2", "eh"]
    assert rush_turn(order, forces) == ["m1", "m2", "eh"]
    assert rush_turn(order, forces, declined=["m2"]) == ["m1", "eh"]
    assert rush_turn(["host", "gar"], forces) == []
    with pytest.raises(RulesError):
        rush_turn(["nobody"], forces)
