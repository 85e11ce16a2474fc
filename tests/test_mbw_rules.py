"""Micro Brick War rules (shared/rules/004), pure: every number of the text, the text's own
examples, the readings chosen where it is silent, invariants over random legal play, and the
computer opponent's legality."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox.core.dice import DiceStream
from sandbox.core.errors import RulesError
from sandbox.rules import micro_brick_war as mbw
from sandbox.rules.micro_brick_war import (
    Attack,
    Build,
    DropGoblet,
    EndTurn,
    Farm,
    FoundCity,
    Move,
    PlaceGoblet,
    new_game,
)
from sandbox.rules.micro_brick_war import (
    parse_square as sq,
)
from sandbox.rules.micro_brick_war_ai import FastDie, choose_action, random_action, win_probability


def dice(*values: int) -> DiceStream:
    d = DiceStream("mbw", 0)
    d.force(*values)
    return d


def game(**kw) -> mbw.State:
    kw.setdefault("goblet", sq("a8"))
    return new_game(["Red", "Blue"], **kw)


def put(s: mbw.State, kind: str, owner: str, square: str) -> mbw.Unit:
    return s.place_unit(kind, owner, sq(square))


# ------------------------------------------------------------------------------ numbers
@pytest.mark.parametrize("kind, cost, attack, defend, speed, slots, fighting", [
    ("infantry", 2, 1, 2, 1, 1, True),
    ("cavalry", 4, 4, 1, 2, 2, True),
    ("catapult", 6, 8, 1, 1, 2, True),
    ("caravan", 4, 0, 0, 1, 2, False),
])
def test_unit_table(kind, cost, attack, defend, speed, slots, fighting):
    t = mbw.UNIT_TYPES[kind]
    assert (t.cost, t.attack, t.defend, t.speed, t.slots, t.fighting) == (
        cost, attack, defend, speed, slots, fighting)


@pytest.mark.parametrize("capital, kind, fits", [
    (True, "infantry", 16), (True, "cavalry", 8), (True, "catapult", 8),
    (False, "infantry", 4), (False, "cavalry", 2), (False, "catapult", 2),
])
def test_capacity_16_8_8_and_4_2_2(capital, kind, fits):
    s = game()
    where = "b2"
    if not capital:
        s.cities[sq("d4")] = mbw.City(sq("d4"), "Red")
        where = "d4"
    for _ in range(fits):
        put(s, kind, "Red", where)
    with pytest.raises(RulesError, match="full"):
        put(s, kind, "Red", where)
    # building into the full City is refused too
    for n in s.neighbours(sq(where)):
        if n not in s.cities:
            s.farms[n] = "Red"
    assert "no room" in s.refusal(Build(sq(where), kind))


# ------------------------------------------------------------------------------ the text's examples
def test_example_cavalry_beats_infantry_in_the_open_8_vs_4():
    s = game()
    cav = put(s, "cavalry", "Red", "d4")
    put(s, "infantry", "Blue", "e5")  # e5 is 2 from g7: in the open
    s.apply(Attack(cav.id, sq("e5")), dice(4, 2))
    f = s.fights[0]
    assert (f.attack_total, f.defend_total, f.attacker_won) == (8, 4, True)
    assert "Blue-infantry-1" not in s.units and cav.square == sq("e5")


def test_example_cavalry_ties_city_held_by_one_infantry_8_vs_8_and_enters():
    s = game()
    s.cities[sq("e5")] = mbw.City(sq("e5"), "Blue")
    cav = put(s, "cavalry", "Red", "d4")
    put(s, "infantry", "Blue", "e5")
    s.apply(Attack(cav.id, sq("e5")), dice(4, 3))
    f = s.fights[0]
    assert (f.attack_total, f.defend_total, f.defend_bonus) == (8, 8, 3)
    assert f.attacker_won and cav.square == sq("e5")
    assert s.controller(sq("e5")) == "Red"
    # "if there is no more our troops, the control of that city will return"
    s.units[cav.id].square = sq("d4")
    assert s.controller(sq("e5")) == "Blue"


def test_example_four_farms_build_a_cavalry_that_moves_the_same_turn():
    s = game()
    for f in ("a1", "a2", "b1", "a3"):
        s.farms[sq(f)] = "Red"
    s.apply(Build(sq("b2"), "cavalry"))
    assert not s.farms
    cav = s.units["Red-cavalry-1"]
    assert cav.square == sq("b2") and cav.moves_left == 2
    s.apply(Move(cav.id, sq("d4")))
    assert cav.square == sq("d4") and cav.moves_left == 0


# ------------------------------------------------------------------------------ table of rules
def _combat_state():
    s = game()
    return s


@pytest.mark.parametrize("att, dfn, where, rolls, a_total, d_total, won", [
    ("infantry", "infantry", "open", (3, 3), 4, 5, False),
    ("infantry", "infantry", "open", (4, 3), 5, 5, True),      # tie: attacker
    ("cavalry", "caravan", "open", (1, 6), 5, 6, False),
    ("infantry", "infantry", "around", (5, 3), 6, 6, True),    # +1 around own Capital
    ("catapult", "infantry", "inside", (1, 6), 9, 11, False),  # +3 inside; a lost Catapult goes
])
def test_fights(att, dfn, where, rolls, a_total, d_total, won):
    s = game()
    target = {"open": "e5", "around": "f6", "inside": "g7"}[where]
    src = "c3" if att == "catapult" and where == "open" else None
    if att == "catapult":
        src = {"open": "c3", "around": "d4", "inside": "e5"}[where]
    else:
        src = {"open": "d4", "around": "e5", "inside": "f6"}[where]
    a = put(s, att, "Red", src)
    put(s, dfn, "Blue", target)
    s.apply(Attack(a.id, sq(target)), dice(*rolls))
    f = s.fights[0]
    assert (f.attack_total, f.defend_total, f.attacker_won) == (a_total, d_total, won)
    assert (a.id in s.units) == won


def test_catapult_exactly_two_away_and_stays_put():
    s = game()
    cat = put(s, "catapult", "Red", "c3")
    put(s, "infantry", "Blue", "d4")
    put(s, "infantry", "Blue", "e5")
    assert "exactly 2" in s.refusal(Attack(cat.id, sq("d4")))
    s.apply(Attack(cat.id, sq("e5")), dice(1, 1))
    assert cat.square == sq("c3") and "Blue-infantry-2" not in s.units
    assert "already attacked" in s.refusal(Attack(cat.id, sq("e5")))
    assert "moves are over" in s.refusal(Move(cat.id, sq("c4")))


def test_caravan_does_not_fight_and_founds_a_city_the_turn_after():
    s = game()
    car = put(s, "caravan", "Red", "c3")
    put(s, "infantry", "Blue", "d4")
    assert "not a fighting unit" in s.refusal(Attack(car.id, sq("d4")))
    # next to the Capital b2: too close
    assert "at least 2" in s.refusal(FoundCity(car.id))
    s.apply(Move(car.id, sq("c4")))
    assert "the turn after" in s.refusal(FoundCity(car.id))
    s.apply(EndTurn())
    s.apply(EndTurn())
    s.apply(FoundCity(car.id))
    assert sq("c4") in s.cities and s.cities[sq("c4")].owner == "Red"
    # the new City acts at once
    s.apply(Farm(sq("c4"), sq("c5")))
    assert s.farms[sq("c5")] == "Red"


def test_at_most_five_cities():
    s = game(width=12, height=12, goblet=None)
    for name in ("a6", "c8", "e10", "g12", "k4"):
        s.cities[sq(name)] = mbw.City(sq(name), "Red")
    car = put(s, "caravan", "Red", "h6")
    assert "5 Cities" in s.refusal(FoundCity(car.id))


@pytest.mark.parametrize("rule, setup, action, words", [
    ("1a", lambda s: put(s, "infantry", "Red", "c3"), Farm(sq("b2"), sq("c3")), "rule 1a"),
    ("1b", lambda s: s.farms.__setitem__(sq("c3"), "Red"), None, "rule 1b"),
    ("farm once", lambda s: s.apply(Farm(sq("b2"), sq("a1"))), Farm(sq("b2"), sq("a2")),
     "already farmed"),
    ("around", lambda s: None, Farm(sq("b2"), sq("d4")), "around the City"),
    ("cost", lambda s: s.farms.__setitem__(sq("a1"), "Red"), Build(sq("b2"), "infantry"),
     "costs 2 farms"),
])
def test_farm_rules(rule, setup, action, words):
    s = game()
    u = put(s, "infantry", "Red", "d4") if rule == "1b" else None
    setup(s)
    if rule == "1b":
        s.apply(Move(u.id, sq("d3")))  # spend nothing; then try to enter the farm
        s.units[u.id].moves_left = 1
        action = Move(u.id, sq("c3"))
    assert words in s.refusal(action)


def test_rule_2a_2b_pass_own_farms_not_enemy_farms():
    s = game()
    cav = put(s, "cavalry", "Red", "d4")
    for f in ("c3", "c4", "c5", "d3", "d5", "e3", "e5"):
        s.farms[sq(f)] = "Blue"
    s.farms[sq("e4")] = "Red"
    assert sq("f4") in s.reachable(cav)          # through our farm on e4 (2a)
    assert sq("b4") not in s.reachable(cav)      # not through Blue's (2b)
    assert sq("e4") not in s.reachable(cav)      # but never onto a farm (1b)


def test_farms_paid_from_anyone_enemies_first_and_destroyed_by_fighting():
    s = game()
    s.farms.update({sq("a1"): "Red", sq("c1"): "Blue", sq("a3"): "Blue"})
    s.apply(Build(sq("b2"), "infantry"))
    assert s.farms == {sq("a1"): "Red"}
    s2 = game()
    inf = put(s2, "infantry", "Red", "d4")
    s2.farms[sq("e4")] = "Blue"
    s2.apply(Attack(inf.id, sq("e4")), dice(1, 1))
    assert sq("e4") not in s2.farms and inf.square == sq("e4")


def test_empty_enemy_city_is_taken_without_dice_and_reverts():
    s = game()
    s.cities[sq("d5")] = mbw.City(sq("d5"), "Blue")
    inf = put(s, "infantry", "Red", "d4")
    assert "move in" in s.refusal(Attack(inf.id, sq("d5")))
    s.apply(Move(inf.id, sq("d5")), None)
    assert s.controller(sq("d5")) == "Red" and not s.fights
    s.apply(Farm(sq("d5"), sq("d6")))  # a taken City farms for its captor
    assert s.farms[sq("d6")] == "Red"
    s.apply(EndTurn())
    s.apply(EndTurn())
    s.apply(Move(inf.id, sq("c6")))
    assert s.controller(sq("d5")) == "Blue"


def test_conquest_removes_the_players_units_and_neutralises_cities():
    s = new_game(["Red", "Blue", "Green"], goblet=None)
    red_cap, blue_cap = sq("b2"), sq("g2")
    assert s.cities[blue_cap].home == "Blue"
    s.cities[sq("d5")] = mbw.City(sq("d5"), "Blue")
    put(s, "infantry", "Blue", "d5")
    put(s, "cavalry", "Blue", "a8")
    inf = put(s, "infantry", "Red", "f2")
    s.apply(Move(inf.id, blue_cap))
    assert s.eliminated == ["Blue"] and not [u for u in s.units.values() if u.owner == "Blue"]
    assert s.cities[sq("d5")].owner is None and s.cities[blue_cap].owner == "Red"
    assert not s.over  # Green is left
    del red_cap


def test_victory_by_conquest_and_by_goblet_and_draw():
    s = game(turn_limit=1)
    cav = put(s, "cavalry", "Red", "f6")
    s.apply(Move(cav.id, sq("g7")))
    assert s.over and s.winner == "Red"
    assert "over" in s.refusal(EndTurn())
    g = game(turn_limit=1, goblet=sq("d5"))
    inf = put(g, "infantry", "Red", "d4")
    g.apply(Move(inf.id, sq("d5")))
    assert g.goblet_holder == inf.id
    g.apply(EndTurn())
    g.apply(EndTurn())
    assert g.over and g.winner == "Red"
    d = game(turn_limit=1)
    d.apply(EndTurn())
    d.apply(EndTurn())
    assert d.over and d.winner is None


def test_goblet_placement_chooser_drop_and_pickup():
    s = new_game(["Red", "Blue"])
    assert s.goblet_chooser == "Blue" and not s.goblet_placed
    assert mbw.goblet_chooser(["a", "b", "c"]) == "c"
    assert mbw.goblet_chooser(["a", "b", "c", "d"]) == "d"
    caps = [sq("b2"), sq("g7")]
    for c in s.goblet_candidates():
        assert mbw.distance(c, caps[0]) == mbw.distance(c, caps[1])
    assert "places the Golden Goblet" in s.refusal(PlaceGoblet(sq("d5")), "Red")
    s.apply(EndTurn())
    assert "same distance" in s.refusal(PlaceGoblet(sq("a2")))
    s.apply(PlaceGoblet(sq("d5")))
    assert s.goblet == sq("d5")
    cav = put(s, "cavalry", "Blue", "d6")
    car = put(s, "caravan", "Blue", "e6")
    s.apply(Move(car.id, sq("d5")))
    assert s.goblet_holder is None and s.goblet == sq("d5")  # a Caravan does not pick it up
    s.apply(EndTurn())
    s.apply(EndTurn())
    s.apply(Move(car.id, sq("e5")))
    s.apply(Move(cav.id, sq("d5")))
    assert s.goblet_holder == cav.id
    s.apply(DropGoblet(cav.id))
    s.apply(Move(cav.id, sq("c5")))
    assert s.goblet == sq("d5") and s.goblet_holder is None
    # an unplaced Goblet is placed when the chooser ends its first turn without
    t = new_game(["Red", "Blue"])
    central = t.goblet_candidates()[0]
    t.apply(EndTurn())
    t.apply(EndTurn())
    assert t.goblet_placed and t.goblet == central


def test_holder_removed_drops_the_goblet_where_it_stood():
    s = game(goblet=sq("d5"))
    inf = put(s, "infantry", "Blue", "d5")
    s.goblet, s.goblet_holder = None, inf.id
    cat = put(s, "catapult", "Red", "b5")
    s.apply(Attack(cat.id, sq("d5")), dice(6, 1))
    assert s.goblet == sq("d5") and s.goblet_holder is None


def test_refusals_change_nothing_and_turns_are_enforced():
    s = game()
    before = s.to_dict()
    for a in (Move("nope", sq("c3")), Farm(sq("g7"), sq("h8")), Build(sq("b2"), "cavalry"),
              Attack("x", sq("c3")), PlaceGoblet(sq("d5"))):
        assert s.refusal(a)
        with pytest.raises(RulesError):
            s.apply(a, dice(1, 1))
    assert s.to_dict() == before
    assert "Red's turn" in s.refusal(EndTurn(), "Blue")


@pytest.mark.parametrize("bad", [["A"], ["A", "A"], ["A", "B", "C", "D", "E"]])
def test_new_game_checks_players(bad):
    with pytest.raises(RulesError):
        new_game(bad)


def test_square_names():
    assert sq("a1") == (0, 0) and mbw.square_name((7, 7)) == "h8"
    for bad in ("z9", "a0", "3c", ""):
        with pytest.raises(RulesError):
            sq(bad, 8, 8)


def test_win_probability_ties_to_attacker():
    assert win_probability(0, 0) == pytest.approx(21 / 36)
    assert win_probability(4, 2) > win_probability(1, 2)


# ------------------------------------------------------------------------------ properties
def invariants(s: mbw.State) -> None:
    seen: dict = {}
    for u in s.units.values():
        assert s.on_board(u.square)
        assert u.square not in s.farms, "farms never under units"
        assert u.square not in s.blocks
        seen.setdefault(u.square, []).append(u)
    for square, us in seen.items():
        if square in s.cities:
            assert sum(x.type.slots for x in us) <= s.cities[square].slots, "capacity"
            assert len({x.owner for x in us}) == 1
        else:
            assert len(us) == 1, "one unit per square outside Cities"
    for f in s.farms:
        assert f not in s.cities and f not in s.blocks
    if s.goblet_holder is not None:
        assert s.goblet_holder in s.units and s.units[s.goblet_holder].type.fighting
        assert s.goblet is None


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), players=st.integers(2, 4), size=st.integers(5, 8))
def test_random_legal_play_keeps_invariants(seed, players, size):
    names = ["Red", "Blue", "Green", "Yellow"][:players]
    s = new_game(names, size, size, turn_limit=8)
    rng = random.Random(seed)
    die = FastDie(random.Random(seed + 1))
    for _ in range(600):
        if s.over:
            break
        acts = s.legal_actions()
        assert acts
        a = acts[rng.randrange(len(acts))] if rng.random() < 0.9 else EndTurn()
        assert s.refusal(a) == "", a
        s.apply(a, die)
        invariants(s)


def test_ai_plays_legal_moves_and_finishes():
    s = new_game(["Red", "Blue"], 6, 6, turn_limit=10)
    die = FastDie(random.Random(3))
    opp = random.Random(4)
    for _ in range(3000):
        if s.over:
            break
        if s.player == "Red":
            a = choose_action(s, iterations=16, seed=1)
            assert s.refusal(a) == ""
        else:
            a = random_action(s, opp)
        s.apply(a, die)
        invariants(s)
    assert s.over
