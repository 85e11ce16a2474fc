"""Benchmark online play on loopback: actions per second through the server, and the latency
from sending an action to every client's confirmed hash, with 2 and 8 clients.

    PYTHONPATH=. python tools/bench_net.py [--actions 200] [--clients 2 8]

Clients are two seats and spectators; every client has its own game and physics world and
answers every entry with its state hash. The server, the clients and their worker threads all
run in this one process, so on a machine of few cores the figures include every client's
simulation time (on a LAN each machine simulates in parallel). The rate limit is raised for the
benchmark (each seat sends an action and a hash for most actions, well over the default 50
messages a second at these speeds).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from sandbox import open_game
from sandbox.net import GameServer, HeadlessClient, Limits

SCENE = """
name = "Net benchmark"
seed = 3
format = 1
[battlefield]
width = 12.0
depth = 12.0
[[players]]
name = "Red"
colour = 4
[[players]]
name = "Blue"
colour = 1
[[units]]
id = "red1"
name = "Red brick"
owner = "Red"
position = [-3.0, 0.0, 0.0]
stats = { size = 1.0, armor = 4, action_die = 6, move = 5.0 }
parts = [{ part = "3003", colour = 4, position = [0.0, 0.0, 0.0] }]
[[units]]
id = "blue1"
name = "Blue brick"
owner = "Blue"
position = [3.0, 0.0, 0.0]
stats = { size = 1.0, armor = 4, action_die = 6, move = 5.0 }
parts = [{ part = "3003", colour = 1, position = [0.0, 0.0, 0.0] }]
"""


def _actions(n: int, moves: bool):
    """``n`` actions in turn order: end_turn only, or a move (physics settles) then end_turn."""
    out = []
    turn = 0
    while len(out) < n:
        player, unit = ("Red", "red1") if turn % 2 == 0 else ("Blue", "blue1")
        x = -3.0 if player == "Red" else 3.0
        if moves:
            y = 1.0 if (turn // 2) % 2 == 0 else -1.0
            out.append({"type": "move", "player": player, "unit": unit, "to": [x, y]})
        out.append({"type": "end_turn", "player": player})
        turn += 1
    return out[:n]


async def bench(scene: Path, n_clients: int, n_actions: int, moves: bool) -> dict:
    game = open_game(scene)
    srv = GameServer(game, port=0, limits=Limits(rate_per_s=100_000), on_log=lambda s: None)
    await srv.start()
    clients = []
    for i in range(n_clients):
        seat = srv.seats[i] if i < 2 else srv.seats[-1]
        clients.append(await HeadlessClient(srv.url, seat.token, scene_dir=scene.parent,
                                            name=f"c{i}").connect())
    by_player = {p: c for c in clients[:2] for p in c.welcome["players"]}
    latencies = []
    t0 = time.perf_counter()
    for action in _actions(n_actions, moves):
        t = time.perf_counter()
        entry = await by_player[action["player"]].act(action)
        for c in clients:
            await c.wait_confirmed(entry["seq"])
        latencies.append(time.perf_counter() - t)
    elapsed = time.perf_counter() - t0
    hashes = {c.hashes[srv.seq] for c in clients} | {srv.hashes[srv.seq]}
    for c in clients:
        await c.close()
        c.shutdown()
    await srv.close()
    game.close()
    latencies.sort()
    return {"clients": n_clients, "actions": n_actions, "moves": moves,
            "actions_per_s": n_actions / elapsed,
            "latency_ms_median": 1000 * statistics.median(latencies),
            "latency_ms_p95": 1000 * latencies[int(0.95 * (len(latencies) - 1))],
            "in_step": len(hashes) == 1, "desyncs": len(srv.desyncs)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--actions", type=int, default=200)
    ap.add_argument("--clients", type=int, nargs="+", default=[2, 8])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scene = Path(tmp) / "bench.toml"
        scene.write_text(SCENE)
        print(f"{'clients':>7} {'actions':>14} {'actions/s':>10} {'latency median':>15} "
              f"{'p95':>9}  all hashes equal")
        for moves in (False, True):
            for n in args.clients:
                r = asyncio.run(bench(scene, n, args.actions, moves))
                kind = "move+end_turn" if moves else "end_turn"
                print(f"{r['clients']:>7} {kind:>14} {r['actions_per_s']:>10.1f} "
                      f"{r['latency_ms_median']:>12.1f} ms {r['latency_ms_p95']:>6.1f} ms  "
                      f"{r['in_step'] and not r['desyncs']}", flush=True)


if __name__ == "__main__":
    main()
