"""The Micro Brick War computer opponent's rules of play (issue 27, item 15), on hand-set
positions of the pure rules (004: "To win this game, you have to fullfil either one of the
following conditions: [1] ... conquer ... [2] at the end of the game, control the Golden
Goblet"), and a fresh board played against it through the engine (item 16)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sandbox.engine.game import Game
from sandbox.engine.scene import scene_from_dict
from sandbox.games.micro_brick_war.system import ai_play_turn
from sandbox.rules.micro_brick_war import Attack, Build, FoundCity, Move, new_game
from sandbox.rules.micro_brick_war_ai import (
    MIN_ATTACK_ODDS,
    FastDie,
    attack_odds,
    build_plan,
    candidates,
    choose_action,
    free_win,
    rush_action,
    win_probability,
)

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("cav", [(4, 6), (6, 4), (5, 5), (4, 4), (6, 5)])
def test_a_free_win_is_taken_with_the_goblet_on_the_board(cav):
    """A Cavalry (Speed 2) within two squares of Blue's empty Capital rides in and conquers
    it ("If the enemy's city is empty at the beginning, our troops can simply move in"),
    though the Golden Goblet lies on the board for the taking."""
    s = new_game(["Red", "Blue"], goblet=(3, 4))
    u = s.place_unit("cavalry", "Red", cav)
    assert free_win(s, "Red") == Move(u.id, (6, 6))
    a = choose_action(s, seed=7)
    assert a == Move(u.id, (6, 6))
    s.apply(a, None)
    assert s.over and s.winner == "Red"


def test_no_attack_below_the_threshold_is_ever_considered():
    """Cavalry (Attack 4) against an Infantry inside a Capital (Defend 2 + 3 inside): 15/36,
    below even odds: the attack is legal, but never a candidate nor chosen."""
    s = new_game(["Red", "Blue"], goblet=(3, 4))
    s.place_unit("infantry", "Blue", (6, 6))
    s.place_unit("infantry", "Blue", (6, 6))
    cav = s.place_unit("cavalry", "Red", (5, 5))
    legal = [a for a in s.legal_actions() if isinstance(a, Attack)]
    assert Attack(cav.id, (6, 6)) in legal
    assert attack_odds(s, Attack(cav.id, (6, 6))) == pytest.approx(win_probability(4, 5))
    assert win_probability(4, 5) < MIN_ATTACK_ODDS
    assert not [a for a in candidates(s, "Red") if isinstance(a, Attack)
                and attack_odds(s, a) < MIN_ATTACK_ODDS]
    for seed in range(4):
        a = choose_action(s, seed=seed)
        assert not (isinstance(a, Attack) and attack_odds(s, a) < MIN_ATTACK_ODDS), a


def test_a_caravan_on_a_free_site_founds_its_city():
    s = new_game(["Red", "Blue"], goblet=(3, 4))
    car = s.place_unit("caravan", "Red", (1, 4))
    assert choose_action(s, seed=0) == FoundCity(car.id)


def test_a_threatened_capital_builds_a_defender():
    s = new_game(["Red", "Blue"], goblet=(3, 4))
    for f in [(0, 0), (0, 1), (1, 0)]:
        s.farms[f] = "Red"
    s.place_unit("cavalry", "Blue", (3, 3))
    assert build_plan(s, (1, 1), "Red") == "infantry"
    a = choose_action(s, seed=0)
    assert isinstance(a, Build) and a.kind == "infantry"


def test_build_plan_uses_caravans_catapults_and_cavalry():
    s = new_game(["Red", "Blue"], 10, 10)  # Capitals 7 squares apart
    s.turn = 3
    for f in [(0, 0), (0, 1), (1, 0), (2, 0)]:
        s.farms[f] = "Red"
    assert build_plan(s, (1, 1), "Red") == "caravan"  # no City yet, 4 farms, a site free
    s.place_unit("caravan", "Red", (1, 4))
    assert build_plan(s, (1, 1), "Red") == "cavalry"  # a Caravan is on its way, no enemy near
    # an enemy City within 5 squares and 6 farms: a Catapult
    t = new_game(["Red", "Blue"], capitals=[(1, 1), (5, 5)], goblet=(3, 3))
    t.turn = 3
    t.place_unit("caravan", "Red", (1, 3))
    for f in [(0, 0), (0, 1), (1, 0), (2, 0), (0, 2), (2, 2)]:
        t.farms[f] = "Red"
    assert build_plan(t, (1, 1), "Red") == "catapult"


def test_the_computer_beats_a_rushing_opponent_in_most_of_six_games():
    """A small sample of tools/bench_mbw_ai.py's rushing games (the benchmark plays 100):
    the computer keeps its Capital held against rushes and wins at least 5 of 6."""
    wins = 0
    for seed in range(6):
        s = new_game(["Red", "Blue"], turn_limit=30)
        dice = FastDie(random.Random(f"dice:{seed}"))
        opp = random.Random(f"opponent:{seed}")
        ai = ["Red", "Blue"][seed % 2]
        for _ in range(20000):
            if s.over:
                break
            a = choose_action(s, seed=seed) if s.player == ai \
                else rush_action(s, opp)
            s.apply(a, dice)
        wins += s.winner == ai
    assert wins >= 5


def test_a_fresh_board_with_no_actions_is_played_against_the_computer(ldrawdir):
    """Item 16: a scene with only [micro_brick_war] (no units, no actions) sets up the board;
    the computer plays both seats through the engine until turn 3 is reached."""
    data = {"name": "fresh", "game": "micro_brick_war", "seed": 3,
            "players": [{"name": "Red"}, {"name": "Blue"}],
            "micro_brick_war": {"width": 6, "height": 6, "turn_limit": 12}}
    g = Game(scene_from_dict(data, "<fresh>"), REPO, ldrawdir=ldrawdir, forced_dice=False)
    with g:
        assert g.turn == 1 and g.current_player == "Red"
        for _ in range(4):
            ai_play_turn(g, iterations=8)
        assert g.turn == 3
        assert any(e["type"] == "mbw" for e in g.events)
