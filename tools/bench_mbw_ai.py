"""Benchmark: the Micro Brick War computer opponent against a uniformly random player.

Plays ``--games`` seeded games on the pure rules (8 x 8, default Capitals, turn limit 30),
the AI taking the first seat in even games and the second in odd ones, and prints the AI's
wins, draws and losses, and its mean time per decision.

    PYTHONPATH=. python tools/bench_mbw_ai.py --games 100 --iterations 48
"""

from __future__ import annotations

import argparse
import random
import time

from sandbox.rules.micro_brick_war import EndTurn, new_game
from sandbox.rules.micro_brick_war_ai import FastDie, choose_action, random_action


def play(seed: int, ai_seat: int, iterations: int,
         turn_limit: int = 30) -> tuple[str | None, str, float, int]:
    players = ["Red", "Blue"]
    s = new_game(players, turn_limit=turn_limit)
    dice = FastDie(random.Random(f"dice:{seed}"))
    opp = random.Random(f"random-player:{seed}")
    ai = players[ai_seat]
    think, decisions = 0.0, 0
    steps = 0
    while not s.over and steps < 20000:
        if s.player == ai:
            t0 = time.perf_counter()
            a = choose_action(s, iterations=iterations, seed=seed)
            think += time.perf_counter() - t0
            decisions += 1
        else:
            a = random_action(s, opp)
            # a random player ends its turn only when it draws EndTurn among its actions
        s.apply(a, dice)
        steps += 1
    if not s.over:
        s.apply(EndTurn(), dice)
    return s.winner, ai, think, decisions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--iterations", type=int, default=48)
    ap.add_argument("--turn-limit", type=int, default=30)
    args = ap.parse_args()
    wins = draws = losses = 0
    think = 0.0
    decisions = 0
    t0 = time.perf_counter()
    for g in range(args.games):
        winner, ai, t, d = play(g, g % 2, args.iterations, args.turn_limit)
        think += t
        decisions += d
        if winner == ai:
            wins += 1
        elif winner is None:
            draws += 1
        else:
            losses += 1
        print(f"game {g + 1}: AI is {ai}, winner {winner or 'nobody (draw)'}", flush=True)
    print(f"AI vs random: {wins}/{args.games} won, {draws} drawn, {losses} lost; "
          f"{1000 * think / max(1, decisions):.1f} ms per AI decision ({decisions} decisions), "
          f"{time.perf_counter() - t0:.1f} s in all")


if __name__ == "__main__":
    main()
