"""A whole Escapade driven through the EscapadeLedger (BrikWars 13.1-13.4)."""

from __future__ import annotations

import json

import pytest

from sandbox.core.dice import Dice
from sandbox.core.errors import RulesError
from sandbox.rules.escapade import (
    Edge,
    EdgePlan,
    EscapadeKind,
    EscapadeLedger,
    EscapadeSpec,
    ExitKind,
    ForceSpec,
    ForceUnit,
    Role,
    Side,
    Table,
    UnitStatus,
    VictoryOutcome,
    rect_area,
    roll_tactical_advantage,
)

U = ForceUnit
PLAN = EdgePlan(Table(48, 36), Edge.SOUTH, Edge.NORTH, (rect_area(0, 10, 30, 30, "keep"),))


def forces() -> tuple[ForceSpec, ...]:
    blud = ForceSpec("blud", "alice", Role.ESCAPADING_HERO, (
        U("blud", 1, is_hero=True), U("b-cmd", 1, is_commander=True),
        U("b-scout", 1, is_scout=True),
        U("b-1", 1), U("b-2", 1), U("b-3", 1), U("b-horse", 2, propulsion="hooves"),
        U("b-res", 1, in_reserve=True)), 3)                                   # 8 + 1 reserve
    ally = ForceSpec("ally", "bob", Role.ALLIED_ATTACKER, (
        U("ally", 1, is_hero=True), U("a-1", 1), U("a-2", 1), U("a-3", 1)), 2)  # 4
    host = ForceSpec("host", "carol", Role.HOST_HERO, (
        U("host", 1, is_hero=True), U("h-cmd", 1, is_commander=True), U("h-1", 1), U("h-2", 1)), 2)
    gar = ForceSpec("gar", "carol", Role.GARRISON, (
        U("g-1", 1), U("g-2", 1), U("g-3", 1), U("g-gun", 3)))                 # 6
    med = ForceSpec("med", "dave", Role.MEDDLER, (
        U("med", 1, is_hero=True), U("m-1", 1), U("m-2", 1)), 1)               # 3
    return (blud, ally, host, gar, med)


@pytest.fixture
def ledger() -> EscapadeLedger:
    return EscapadeLedger(EscapadeSpec(forces(), plan=PLAN))


def test_setup_totals_bennies_and_turn_order(ledger):
    # attackers 9 + 4 = 13, defenders 4 + 6 = 10: the Host is the underdog by 3
    assert ledger.underdog.attackers_inches == 13
    assert ledger.underdog.defenders_inches == 10
    assert ledger.underdog.underdog_side is Side.DEFENDERS
    assert ledger.bennies("host") == 3 and ledger.bennies("blud") == 0
    assert ledger.turn_order == ["host", "gar", "blud", "ally", "med"]
    assert ledger.initial_inches("blud") == 9
    assert ledger.victory_status().outcome is VictoryOutcome.HOST_HOLDS


def test_spec_rejects_broken_limits():
    bad = list(forces())
    bad[4] = ForceSpec("med", "dave", Role.MEDDLER, tuple(U(f"m{i}", 1) for i in range(10)), 1)
    with pytest.raises(RulesError, match="attacker/meddler cap"):
        EscapadeSpec(tuple(bad), plan=PLAN)
    lenient = EscapadeSpec(tuple(bad), plan=PLAN, strict=False)
    assert [p.force for p in lenient.limit_problems] == ["med"]


def test_spec_rejects_incomplete_turn_order():
    with pytest.raises(RulesError, match="turn order"):
        EscapadeSpec(forces(), plan=PLAN, base_turn_order=("blud", "ally"))


def test_strategy_bricks_and_reinforcements(ledger):
    # a kill by Blud's own unit, seen by his Scout: reportable
    assert ledger.destroy("g-1", killer="b-1", witnesses=["b-scout"]) is True
    # a kill nobody of his saw: not reportable
    assert ledger.destroy("g-2", killer="b-2", witnesses=["a-1"]) is False
    # an ally's kill seen by Blud's Commander: not Blud's forces, and the ally has no Commander
    assert ledger.destroy("h-1", killer="a-1", witnesses=["b-cmd"]) is False
    assert ledger.pending_reports("blud") == 1
    assert ledger.relay_report("blud", "b-cmd") == 1
    with pytest.raises(RulesError, match="no witnessed kill"):
        ledger.relay_report("blud", "b-cmd")
    assert ledger.destroy("g-3", killer="b-horse", witnesses=["b-cmd"]) is True
    with pytest.raises(RulesError, match="already spent"):
        ledger.relay_report("blud", "b-cmd")         # one Commander Action per turn
    with pytest.raises(RulesError, match="not a Commander"):
        ledger.relay_report("blud", "b-scout")
    ledger.end_turn()
    assert ledger.relay_report("blud", "b-cmd") == 2
    ledger.end_turn()
    # 2 bricks: not enough for a 3" tank...
    with pytest.raises(RulesError, match="needs 3 Strategy bricks"):
        ledger.call_reinforcements("blud", "b-cmd", new_units=[U("b-tank", 3)])
    # ... but a 2" unit plus the free reserve minifig is fine
    cost = ledger.call_reinforcements("blud", "b-cmd", new_units=[U("b-bike", 2)],
                                      reserve_units=["b-res"])
    assert cost == 2 and ledger.strategy_bricks("blud") == 0
    assert ledger.status("b-bike") is UnitStatus.INCOMING
    assert ledger.status("b-res") is UnitStatus.INCOMING
    assert sorted(ledger.end_turn()) == ["b-bike", "b-res"]
    assert ledger.status("b-bike") is UnitStatus.DEPLOYED
    assert ledger.unit_inches("blud") == 11


def test_reinforcements_ignore_size_limit(ledger):
    for v, k in (("g-1", "b-1"), ("g-2", "b-2"), ("g-3", "b-3"), ("g-gun", "b-horse")):
        ledger.destroy(v, killer=k, witnesses=["b-scout"])
    for _ in range(4):
        ledger.relay_report("blud", "b-cmd")
        ledger.end_turn()
    assert ledger.call_reinforcements("blud", "b-cmd", new_units=[U("b-walker", 4)]) == 4


def test_small_victims_earn_nothing():
    spec = EscapadeSpec(forces() + (ForceSpec("pets", "erin", Role.MEDDLER,
                                              (U("pet", 1, is_hero=True), U("rat", 0.5)), 1),),
                        plan=PLAN)
    led = EscapadeLedger(spec)
    assert led.destroy("rat", killer="b-1", witnesses=["b-cmd"]) is False
    assert led.destroy("pet", killer="b-1", witnesses=["b-cmd"]) is True


def test_reserves_count_only_with_a_commander(ledger):
    assert ledger.unit_inches("blud") == 9
    ledger.destroy("b-cmd")
    assert ledger.unit_inches("blud") == 7          # the 1" reserve no longer counts
    with pytest.raises(RulesError):
        ledger.call_reinforcements("blud", "b-cmd", reserve_units=["b-res"])


def test_size_damage_lowers_value(ledger):
    assert ledger.apply_size_damage("g-gun", 1) == 2
    assert ledger.apply_size_damage("g-gun", 5) == 1
    assert ledger.unit_inches("gar") == 4


def test_loot_and_exits(ledger):
    # carried off the attackers' edge by Blud's own active unit
    out = ledger.record_exit("crown", (2, -18.5), carrier="b-1", carrier_active=True)
    assert out.kind is ExitKind.CLAIMED and ledger.loot_owner("crown") == "blud"
    # flung off the same edge by a catapult: nobody's
    out = ledger.record_exit("chalice", (2, -25))
    assert out.kind is ExitKind.UNCLAIMED and ledger.loot_owner("chalice") is None
    # a unit walking off its own friendly edge goes to the reserve and still counts
    out = ledger.record_exit("b-2", (0, -19), carrier="b-2", carrier_active=True)
    assert out.kind is ExitKind.WITHDRAWN and ledger.status("b-2") is UnitStatus.RESERVE
    assert ledger.unit_inches("blud") == 9
    # a unit leaving by the enemy edge is lost
    ledger.record_exit("b-3", (-5, 19), carrier="b-3", carrier_active=True)
    assert ledger.status("b-3") is UnitStatus.LOST
    # an attacker dragging a Garrison captive off the attackers' edge: Blud's Loot
    ledger.record_exit("g-1", (0, -19), carrier="b-1", carrier_active=True)
    assert ledger.status("g-1") is UnitStatus.LOST and ledger.loot_owner("g-1") == "blud"
    with pytest.raises(RulesError, match="not on the table"):
        ledger.record_exit("b-3", (0, -19), carrier="b-3", carrier_active=True)
    with pytest.raises(RulesError, match="has not left"):
        ledger.record_exit("sword", (0, 0))


def test_losing_battle_withdrawals_leave_for_good(ledger):
    for v in ("b-1", "b-2", "b-3", "b-horse", "b-scout"):
        ledger.destroy(v)
    assert ledger.unit_inches("blud") == 3 and ledger.can_fight_losing_battle("blud")
    ledger.fight_losing_battle("blud")
    ledger.record_exit("b-cmd", (0, -19), carrier="b-cmd", carrier_active=True)
    assert ledger.status("b-cmd") is UnitStatus.WITHDRAWN


def test_betrayal_moves_friendly_edges(ledger):
    assert ledger.friendly_edges("ally") == (Edge.SOUTH,)
    assert set(ledger.friendly_edges("med")) == {Edge.EAST, Edge.WEST}
    ledger.betray("ally", Role.MEDDLER)
    assert set(ledger.friendly_edges("ally")) == {Edge.EAST, Edge.WEST}
    assert ledger.are_enemies("ally", "blud") and ledger.are_enemies("ally", "med")
    with pytest.raises(RulesError):
        ledger.betray("blud", Role.MEDDLER)          # the Escapading Hero cannot change sides
    with pytest.raises(RulesError):
        ledger.betray("ally", Role.HOST_HERO)


def test_wiped_out_side_leaves_an_uncontrolled_edge(ledger):
    for unit in ("blud", "b-cmd", "b-scout", "b-1", "b-2", "b-3", "b-horse",
                 "ally", "a-1", "a-2", "a-3"):
        ledger.destroy(unit)
    assert not ledger.side_present(Side.ATTACKERS)
    assert set(ledger.friendly_edges("med")) == {Edge.SOUTH, Edge.EAST, Edge.WEST}
    out = ledger.record_exit("crown", (0, -19), carrier="m-1", carrier_active=True)
    assert out.owner == "med"


def test_deployment_through_the_ledger(ledger):
    assert ledger.check_deployment("b-1", (0, -14)).legal
    far = ledger.check_deployment("b-1", (0, -11), sprint_inches=3)
    assert far.legal and far.used_sprint
    assert not ledger.check_deployment("h-1", (0, -14)).legal
    assert ledger.check_deployment("g-1", (10, 15)).legal
    assert ledger.check_deployment("m-1", (-22, 0)).legal


def test_bennies(ledger):
    ledger.share_bennies("host", "gar", 1)
    assert (ledger.bennies("host"), ledger.bennies("gar")) == (2, 1)
    with pytest.raises(RulesError, match="not an ally"):
        ledger.share_bennies("host", "blud", 1)
    assert ledger.spend_benny("gar") == 0
    with pytest.raises(RulesError):
        ledger.spend_benny("gar")


def test_battle_to_the_end(ledger):
    # the Host may not give up early: 4 of 4 left
    with pytest.raises(RulesError, match="may not Fight a Losing Battle"):
        ledger.fight_losing_battle("host")
    for v in ("h-1", "h-2"):
        ledger.destroy(v, killer="b-1", witnesses=["b-cmd"])
    # host 2 of 4 (half lost); defenders 2 + 6 = 8 < attackers 13
    ledger.fight_losing_battle("host")
    assert ledger.victory_status().outcome is VictoryOutcome.HOST_HOLDS   # the Garrison stands
    for v in ("g-1", "g-2", "g-3", "g-gun"):
        ledger.destroy(v)
    status = ledger.victory_status()
    assert status.outcome is VictoryOutcome.ESCAPADING_HERO and status.victors == ("blud",)
    ledger.destroy("blud")                          # Blud falls: his force is defeated too
    status = ledger.victory_status()
    assert status.outcome is VictoryOutcome.NO_CLEAR_VICTOR  # ally and meddler still fighting
    ledger.concede("med")
    status = ledger.victory_status()
    assert status.outcome is VictoryOutcome.SNATCHED and status.victors == ("ally",)
    summary = ledger.summary()
    json.dumps(summary)                              # plain data for the log
    assert summary["victory"]["victors"] == ["ally"]
    assert summary["forces"]["host"]["losing_battle"] is True
    assert summary["forces"]["blud"]["units"]["blud"] == "destroyed"
    assert [e["event"] for e in ledger.events].count("destroyed") == 7
    assert summary["campaign_exits"] == []


def test_final_battle_and_last_stand():
    fb = EscapadeLedger(EscapadeSpec(forces(), kind=EscapadeKind.FINAL_BATTLE, plan=PLAN))
    assert fb.can_fight_losing_battle("host") and fb.can_fight_losing_battle("gar")
    assert not fb.can_fight_losing_battle("blud")
    assert fb.check_deployment("h-1", (0, 0)).legal        # Host deploys anywhere
    fb.fight_losing_battle("host")
    fb.fight_losing_battle("gar")
    fb.destroy("blud")
    assert fb.summary()["campaign_exits"] == ["blud", "host"]

    hero = ForceSpec("old", "zed", Role.HOST_HERO, (U("old", 1, is_hero=True), U("o-1", 5)), 6)
    rivals = ForceSpec("r", "yan", Role.ALLIED_ATTACKER, (U("r", 1, is_hero=True), U("r-1", 9)), 9)
    ls = EscapadeLedger(EscapadeSpec((hero, rivals), kind=EscapadeKind.LAST_STAND, plan=PLAN))
    ls.fight_losing_battle("old")
    s = ls.summary()
    assert s["victory"]["outcome"] == "snatched" and s["victory"]["victors"] == ["r"]
    assert s["campaign_exits"] == ["old"]


def test_tactical_advantage_from_spec():
    spec = EscapadeSpec(forces(), plan=PLAN)
    dice = Dice(5, forced={"deploy": [2, 6]})  # blud 2+1 (Scout) = 3, host 6: ambush
    ta = roll_tactical_advantage(spec, dice.stream("deploy"))
    assert ta.deploy_order == ("ally", "gar", "med", "blud", "host")
    assert ta.ambushers == {"host"}
    assert ta.swaps == {"ally": "host", "gar": "blud", "med": "host"}
