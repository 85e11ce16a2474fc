"""BrikWars 13.3 Victory and Defeat, 13.4 Final Battles and the Last Stand."""

from __future__ import annotations

import pytest

from sandbox.core.errors import RulesError
from sandbox.rules.escapade_forces import EscapadeKind, Role
from sandbox.rules.escapade_victory import (
    ForceStanding,
    VictoryOutcome,
    campaign_exits,
    is_defeated,
    may_fight_losing_battle,
    must_fight_losing_battle,
    victory_status,
)

EH, ALLY, HOST, GAR, AD, MED = (Role.ESCAPADING_HERO, Role.ALLIED_ATTACKER, Role.HOST_HERO,
                                Role.GARRISON, Role.ALLIED_DEFENDER, Role.MEDDLER)


def st(name, role, initial=10.0, current=10.0, **kw):
    if role is GAR:
        kw.setdefault("led_by_heroes", False)
        kw.setdefault("heroes_on_field", False)
    return ForceStanding(name, role, initial, current, **kw)


STD, FINAL, LAST = EscapadeKind.STANDARD, EscapadeKind.FINAL_BATTLE, EscapadeKind.LAST_STAND


@pytest.mark.parametrize(
    "standings, name, kind, may",
    [
        # lost half (5 of 10) and outnumbered by the defenders (8): may
        ([st("eh", EH, 10, 5), st("host", HOST, 10, 8)], "eh", STD, True),
        # lost less than half
        ([st("eh", EH, 10, 6), st("host", HOST, 10, 8)], "eh", STD, False),
        # lost half but not outnumbered (defenders also down to 5)
        ([st("eh", EH, 10, 5), st("host", HOST, 10, 5)], "eh", STD, False),
        # allies count: eh 4 + ally 6 = 10 is not fewer than the host's 8
        ([st("eh", EH, 10, 4), st("ally", ALLY, 6, 6), st("host", HOST, 10, 8)], "eh", STD,
         False),
        # outnumbered by a single meddler is enough
        ([st("eh", EH, 10, 4), st("gar", GAR, 4, 2), st("m", MED, 9, 9)], "eh", STD, True),
        # all Heroes gone: must, whatever the numbers
        ([st("eh", EH, 10, 9, heroes_on_field=False), st("host", HOST, 10, 1)], "eh", STD,
         True),
        # Final Battle: the Host's Hero and Garrison may at any time, the attackers may not
        ([st("eh", EH, 10, 10), st("host", HOST, 10, 10)], "host", FINAL, True),
        ([st("eh", EH, 10, 10), st("gar", GAR, 10, 10)], "gar", FINAL, True),
        ([st("eh", EH, 10, 10), st("host", HOST, 10, 10)], "eh", FINAL, False),
        ([st("eh", EH, 10, 10), st("host", HOST, 10, 10)], "host", STD, False),
        # Last Stand: the defending Hero may at once
        ([st("hero", HOST, 10, 10), st("a", ALLY, 10, 10)], "hero", LAST, True),
    ],
)
def test_may_fight_losing_battle(standings, name, kind, may):
    assert may_fight_losing_battle(name, standings, kind) is may


def test_may_fight_losing_battle_unknown_force():
    with pytest.raises(RulesError):
        may_fight_losing_battle("ghost", [st("eh", EH)])


@pytest.mark.parametrize(
    "standing, must, defeated",
    [
        (st("eh", EH), False, False),
        (st("eh", EH, heroes_on_field=False), True, True),
        (st("gar", GAR), False, False),                # a Garrison has no Hero to lose
        (st("eh", EH, conceded=True), False, True),
        (st("eh", EH, losing_battle=True), False, True),
        (st("eh", EH, on_field=False), False, True),   # eliminated or withdrawn
    ],
)
def test_defeat(standing, must, defeated):
    assert must_fight_losing_battle(standing) is must
    assert is_defeated(standing) is defeated


D = dict(on_field=False)  # a defeated force, eliminated


@pytest.mark.parametrize(
    "standings, kind, outcome, victors",
    [
        # the Host holds the victory by default
        ([st("eh", EH), st("host", HOST), st("gar", GAR)], STD, VictoryOutcome.HOST_HOLDS,
         ("host", "gar")),
        # ... while any defending force (even only an allied defender) stands
        ([st("eh", EH), st("host", HOST, **D), st("gar", GAR, **D), st("ad", AD)], STD,
         VictoryOutcome.HOST_HOLDS, ("host", "gar")),
        # a Host with only a Garrison
        ([st("eh", EH, **D), st("gar", GAR)], STD, VictoryOutcome.HOST_HOLDS, ("gar",)),
        # all defenders defeated: the Escapading Hero wins
        ([st("eh", EH), st("host", HOST, losing_battle=True), st("gar", GAR, **D),
          st("m", MED)], STD, VictoryOutcome.ESCAPADING_HERO, ("eh",)),
        # ... unless he is defeated too: his still-standing ally snatches it
        ([st("eh", EH, heroes_on_field=False), st("ally", ALLY), st("host", HOST, conceded=True)],
         STD, VictoryOutcome.SNATCHED, ("ally",)),
        # ... or a meddler, when every opposing Hero is defeated
        ([st("eh", EH, **D), st("ally", ALLY, **D), st("host", HOST, **D), st("m", MED)], STD,
         VictoryOutcome.SNATCHED, ("m",)),
        # two rival alliances still fighting: no clear victor
        ([st("eh", EH, **D), st("ally", ALLY), st("host", HOST, **D), st("m", MED)], STD,
         VictoryOutcome.NO_CLEAR_VICTOR, ()),
        # nobody left
        ([st("eh", EH, **D), st("host", HOST, **D)], STD, VictoryOutcome.NO_CLEAR_VICTOR, ()),
        # no Host: the Escapading Hero wins only once every meddler is defeated
        ([st("eh", EH), st("m1", MED), st("m2", MED, **D)], STD,
         VictoryOutcome.NO_CLEAR_VICTOR, ()),
        ([st("eh", EH), st("m1", MED, conceded=True), st("m2", MED, **D)], STD,
         VictoryOutcome.ESCAPADING_HERO, ("eh",)),
        ([st("eh", EH)], STD, VictoryOutcome.ESCAPADING_HERO, ("eh",)),
        # no Host, Escapading Hero defeated: the last meddler standing snatches it
        ([st("eh", EH, conceded=True), st("m1", MED), st("m2", MED, **D)], STD,
         VictoryOutcome.SNATCHED, ("m1",)),
        # Last Stand: the Hero is Host; while he stands he holds the field
        ([st("hero", HOST), st("gar", GAR), st("a1", ALLY), st("a2", ALLY)], LAST,
         VictoryOutcome.HOST_HOLDS, ("hero", "gar")),
        ([st("hero", HOST, losing_battle=True), st("gar", GAR, **D), st("a1", ALLY),
          st("a2", ALLY)], LAST, VictoryOutcome.SNATCHED, ("a1", "a2")),
    ],
)
def test_victory_status(standings, kind, outcome, victors):
    res = victory_status(standings, kind)
    assert res.outcome is outcome, res.reason
    assert res.victors == victors
    assert res.to_dict()["outcome"] == outcome.value


def test_victory_needs_an_escapading_hero():
    with pytest.raises(RulesError):
        victory_status([st("host", HOST)])


@pytest.mark.parametrize(
    "standings, kind, out",
    [
        ([st("eh", EH, **D), st("host", HOST)], STD, ()),
        ([st("eh", EH, **D), st("host", HOST)], FINAL, ("eh",)),
        ([st("eh", EH), st("host", HOST, losing_battle=True)], FINAL, ("host",)),
        ([st("eh", EH), st("host", HOST)], FINAL, ()),
        ([st("hero", HOST), st("a", ALLY)], LAST, ("hero",)),  # a Last Stand always ends him
    ],
)
def test_campaign_exits(standings, kind, out):
    assert campaign_exits(standings, kind) == out
