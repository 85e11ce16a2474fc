"""A computer opponent for Micro Brick War, searching the pure rules (no physics).

Method: Monte Carlo tree search with UCB1 at the root (a one-level MCTS: "flat UCT"). The
candidates are a pruned set of the legal actions (every attack and build, farms that leave a
City two ways out, each unit's best two moves towards its goal, found a City, place the Goblet,
end turn; the computer never drops the Goblet); each simulation plays one
candidate on a copy of the :class:`~sandbox.rules.micro_brick_war.State`, then plays on with a
fast rule-of-thumb policy (:func:`policy_action`, with a little randomness) to the end of the
next opponent's turn, and scores the position with :func:`evaluate` (or 1/0 if the game ended).
Dice in simulations come from the search's own seeded :class:`random.Random`: the real game's
dice streams are never touched, so a game played with the AI stays deterministic.

Before searching, three rules of play are applied that a search of this size can miss:

- **A free win is always taken** (:func:`free_win`): a move that wins the game or conquers an
  enemy Capital with no die rolled (an empty Capital in reach; a Cavalry rides 2 squares).
- **No attack below** :data:`MIN_ATTACK_ODDS` (:func:`attack_odds`): the search never
  considers a fight it is more likely to lose than to win.
- **Forced moves** (:func:`forced_action`): besides the free win, a threatened City builds
  a defender and a Caravan on a free site founds its City.
- **A build plan** (:func:`build_plan`) decides what each City builds, so every unit type has
  its use: Caravans found Cities while there is room, Catapults (Attack 8, range 2) go where
  enemy Cities are near, Cavalry when farms allow, Infantry to defend a threatened City.

:func:`choose_action` is the headless entry point; :func:`play_turn` plays a whole turn.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Callable

from .micro_brick_war import (
    CATAPULT_RANGE,
    CITY_SPACING,
    UNIT_TYPES,
    Attack,
    Build,
    DropGoblet,
    EndTurn,
    Farm,
    FoundCity,
    Move,
    PlaceGoblet,
    Square,
    State,
    distance,
)

__all__ = ["choose_action", "play_turn", "policy_action", "evaluate", "win_probability",
           "random_action", "rush_action", "FastDie", "free_win", "forced_action",
           "attack_odds", "build_plan",
           "MIN_ATTACK_ODDS"]

#: The least chance of winning a fight the computer accepts (d6 + Attack >= d6 + Defend, ties
#: to the attacker). A lost fight removes the attacker and gives nothing back (the text's
#: "Fighting"), so below even odds an attack is expected to cost more than it takes: the
#: computer never makes one. An Infantry attacking a farm beside an enemy City (1 vs 0 + 1)
#: has 21/36 = 0.58 and may; a Cavalry against an Infantry inside a City (4 vs 2 + 3) has
#: 15/36 = 0.42 and may not.
MIN_ATTACK_ODDS = 0.5
#: Squares around a City within which an enemy fighting unit counts as a threat to it.
THREAT_RANGE = 3


class _R:
    __slots__ = ("result",)

    def __init__(self, v: int):
        self.result = v


class FastDie:
    """A die stream for simulations: ``roll(sides, reason)`` -> object with ``.result``."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def roll(self, sides: int, reason: str = "") -> _R:
        return _R(self.rng.randint(1, sides))


def win_probability(attack: int, defend: int) -> float:
    """Chance that d6 + ``attack`` >= d6 + ``defend`` (ties to the attacker)."""
    wins = sum(1 for a in range(1, 7) for d in range(1, 7) if a + attack >= d + defend)
    return wins / 36.0


def attack_odds(s: State, a: Attack) -> float:
    """The chance that attack ``a`` wins its fight (0..1), with the defender the rules pick
    (the best Defend inside a City) and the City's Defend bonus."""
    return _fight_odds(s, a)


def _fight_odds(s: State, a: Attack) -> float:
    u = s.units[a.unit]
    tgt = a.target
    inside = s.units_at(tgt)
    if tgt in s.cities:
        d = max(inside, key=lambda x: (x.type.defend, -x.serial))
        side, dm = d.owner, d.type.defend
    elif inside:
        side, dm = inside[0].owner, inside[0].type.defend
    else:
        side, dm = s.farms[tgt], 0
    return win_probability(u.type.attack, dm + s.defend_bonus(tgt, side))


def _goal(s: State, u, player: str):
    """Where a unit heads: the Goblet (if free), else the nearest enemy Capital or City."""
    if u.kind == "caravan":
        sites = _city_sites(s, player)
        return min(sites, key=lambda q: (distance(q, u.square), q)) if sites else None
    if s.goblet_holder == u.id:
        home = [c for c, city in s.cities.items() if s.controller(c) == player]
        return min(home, key=lambda c: distance(c, u.square)) if home else None
    if s.goblet is not None and (s.goblet_holder is None):
        mine = [x for x in s.units.values() if x.owner == player and x.type.fighting]
        closest = min(mine, key=lambda x: (distance(x.square, s.goblet), x.serial))
        if closest.id == u.id:
            return s.goblet
    if s.goblet_holder is not None and s.units[s.goblet_holder].owner != player:
        return s.units[s.goblet_holder].square
    targets = [c for c, city in s.cities.items()
               if s.controller(c) != player and (city.home is None or s.alive(city.home))]
    caps = [c for c in targets if s.cities[c].home is not None]
    pool = caps or targets
    if not pool:
        return None
    return min(pool, key=lambda c: (distance(c, u.square), c))


def free_win(s: State, player: str) -> Move | None:
    """A move for ``player`` that wins the game, or else conquers an enemy Capital, with no die
    rolled (an enemy Capital left empty within a unit's reach); None when there is none.

    Moves roll no dice, so each is tried on a copy of the state."""
    conquest = None
    for a in s.legal_actions(player):
        if not isinstance(a, Move):
            continue
        t = s.copy()
        t.apply(a, None)
        if t.over and t.winner == player:
            return a
        if conquest is None and len(t.eliminated) > len(s.eliminated):
            conquest = a
    return conquest


def forced_action(s: State, player: str):
    """The action the rules of play force before any search (None: search).

    In order: a free win (:func:`free_win`); a threatened City holding fewer fighting units
    than the enemies within :data:`THREAT_RANGE` builds the Infantry its plan asks for; a
    Caravan that can found its City does."""
    win = free_win(s, player)
    if win is not None:
        return win
    for sq, city in sorted(s.cities.items()):
        if city.acted or s.controller(sq) != player:
            continue
        garrison = [u for u in s.units_at(sq) if u.type.fighting]
        if _threat(s, sq, player) > len(garrison) and build_plan(s, sq, player) == "infantry" \
                and not s.refusal(Build(sq, "infantry"), player):
            return Build(sq, "infantry")
    for u in sorted(s.units.values(), key=lambda u: u.serial):
        if u.owner == player and u.kind == "caravan" \
                and not s.refusal(FoundCity(u.id), player):
            return FoundCity(u.id)
    return None


def _free_move(s: State, player: str, mine: list) -> Move | None:
    """The rollouts' cheap :func:`free_win`: a unit that can reach an empty enemy Capital."""
    caps = [c for c, city in s.cities.items() if city.home not in (None, player)
            and s.alive(city.home) and not s.units_at(c)]
    if not caps:
        return None
    for u in mine:
        if u.moves_left > 0 and not u.attacked and u.kind != "caravan":
            reach = s.reachable(u)
            for c in caps:
                if c in reach:
                    return Move(u.id, c)
    return None


def _city_sites(s: State, player: str) -> list[Square]:
    """Squares where a Caravan could found a City (at least :data:`CITY_SPACING` from every
    City, free, not the Goblet's), nearer ``player``'s Capital than any enemy's."""
    home = [c for c, city in s.cities.items() if city.home == player]
    enemy = [c for c, city in s.cities.items() if city.home not in (None, player)]
    out = []
    for c in range(s.width):
        for r in range(s.height):
            q = (c, r)
            if (q in s.blocks or q in s.farms or q in s.cities or q == s.goblet
                    or any(distance(q, x) < CITY_SPACING for x in s.cities)):
                continue
            if home and enemy and (min(distance(q, h) for h in home)
                                   >= min(distance(q, e) for e in enemy)):
                continue
            out.append(q)
    return out


def _threat(s: State, sq: Square, player: str) -> int:
    """Enemy fighting units within :data:`THREAT_RANGE` squares of ``sq``."""
    return sum(1 for u in s.units.values() if u.owner != player and u.type.fighting
               and distance(u.square, sq) <= THREAT_RANGE)


def build_plan(s: State, sq: Square, player: str) -> str | None:
    """What the City on ``sq`` should build now for ``player`` (a unit kind), or None to farm.

    Infantry when the City is threatened and thinly held; a Caravan while fewer than 3 Cities
    are held, none is on its way and a site is free; a Catapult when an enemy City stands
    within 5 squares and fewer than one in four fighting units is one; else Cavalry; Infantry
    when only 2 farms can be had. Returns None while the farms or slots fall short (farm on)."""
    city = s.cities[sq]
    around = sum(1 for n in s.neighbours(sq) if n in s.farms)
    room = city.slots - s.slots_used(sq)
    mine = [u for u in s.units.values() if u.owner == player]
    fighting = [u for u in mine if u.type.fighting]
    garrison = [u for u in s.units_at(sq) if u.type.fighting]

    def can(kind: str) -> bool:
        t = UNIT_TYPES[kind]
        return around >= t.cost and room >= t.slots

    if _threat(s, sq, player) > len(garrison):
        return "infantry" if can("infantry") else None
    open_farm = any(n not in s.farms and n not in s.blocks and n not in s.cities
                    and s.unit_at(n) is None for n in s.neighbours(sq))
    if (s.cities_owned(player) < 3 and not any(u.kind == "caravan" for u in mine)
            and s.turn >= 2 and _city_sites(s, player)):
        if can("caravan"):
            return "caravan"
        return None if open_farm else ("infantry" if can("infantry") else None)
    enemy_cities = [c for c in s.cities if s.controller(c) not in (None, player)]
    near = enemy_cities and min(distance(sq, c) for c in enemy_cities) <= 5
    if near and sum(u.kind == "catapult" for u in fighting) * 4 < max(4, len(fighting)):
        if can("catapult"):
            return "catapult"
        if open_farm:
            return None
    if can("cavalry"):
        return "cavalry"
    if can("infantry") and (not open_farm or not garrison):
        return "infantry"
    return None


def _keeps_exits(s: State, a: Farm, exits: int = 2) -> bool:
    """True when farming ``a.square`` still leaves ``exits`` open squares around the City
    (our own farms may be passed but not stood on: a ring of farms locks Speed-1 units in)."""
    open_ = [n for n in s.neighbours(a.city) if n != a.square and n not in s.farms
             and n not in s.blocks and n not in s.cities]
    return len(open_) >= exits


def _best_moves(s: State, u, player: str, k: int = 2) -> list[Move]:
    goal = _goal(s, u, player)
    reach = s.reachable(u)
    if not reach or goal is None:
        return []
    here = distance(u.square, goal)
    ranked = sorted(reach, key=lambda q: (distance(q, goal), reach[q], q))
    # closer first; a sideways step (no farther) gets round a friend or a farm in the way
    return [Move(u.id, q) for q in ranked if distance(q, goal) <= here][:k]


def candidates(s: State, player: str) -> list:
    """A pruned list of the legal actions worth searching."""
    legal = s.legal_actions(player)
    out, seen_units = [], set()
    plans: dict = {}
    for a in legal:
        if isinstance(a, DropGoblet):
            continue  # the computer never lets the Goblet go
        if isinstance(a, Attack):
            if _fight_odds(s, a) >= MIN_ATTACK_ODDS:
                out.append(a)
        elif isinstance(a, Build):
            if a.city not in plans:
                plans[a.city] = build_plan(s, a.city, player)
            if a.kind == plans[a.city]:
                out.append(a)
        elif isinstance(a, (FoundCity, EndTurn)):
            out.append(a)
        elif isinstance(a, PlaceGoblet):
            if len(out) < 4 or not any(isinstance(x, PlaceGoblet) for x in out):
                out.append(a)
        elif isinstance(a, Farm):
            if _keeps_exits(s, a):
                out.append(a)
        elif isinstance(a, Move) and a.unit not in seen_units:
            seen_units.add(a.unit)
            if not _leaves_city_open(s, s.units[a.unit], player):
                out.extend(_best_moves(s, s.units[a.unit], player))
    return out


def _leaves_city_open(s: State, u, player: str) -> bool:
    """True when ``u`` moving away would leave its City with fewer fighting units than the
    enemies threatening it (:data:`THREAT_RANGE`), at least one while any does."""
    if u.square not in s.cities or not u.type.fighting or s.goblet_holder == u.id:
        return False
    threat = _threat(s, u.square, player)
    garrison = sum(1 for x in s.units_at(u.square) if x.type.fighting)
    return threat > 0 and garrison - 1 < threat


def policy_action(s: State, rng: random.Random, eps: float = 0.1):
    """A fast rule-of-thumb action for the player to move (used in simulations, and good on
    its own): favourable attacks, build, farm, advance on the goal, end the turn."""
    p = s.player
    if not s.alive(p):
        return EndTurn()
    if not s.goblet_placed and p == s.goblet_chooser:
        return PlaceGoblet(s.goblet_candidates()[0])
    mine = [u for u in s.units.values() if u.owner == p]
    win = _free_move(s, p, mine)
    if win is not None:
        return win
    # attacks with good odds
    best, best_v = None, 0.0
    for u in mine:
        if not u.type.fighting or u.attacked:
            continue
        rng_sq = CATAPULT_RANGE if u.kind == "catapult" else 1
        if u.kind != "catapult" and u.moves_left <= 0:
            continue
        c, r = u.square
        for dc in range(-rng_sq, rng_sq + 1):
            for dr in range(-rng_sq, rng_sq + 1):
                t = (c + dc, r + dr)
                if max(abs(dc), abs(dr)) != rng_sq or not s.on_board(t):
                    continue
                if s._attack_refusal(u, t):
                    continue
                pr = _fight_odds(s, Attack(u.id, t))
                val = pr * (3.0 if t in s.cities else 1.0 if s.unit_at(t) else 0.4)
                if t == s.goblet or (s.goblet_holder and s.units[s.goblet_holder].square == t):
                    val *= 3
                if pr >= MIN_ATTACK_ODDS and val > best_v:
                    best, best_v = Attack(u.id, t), val
    if best is not None and rng.random() > eps:
        return best
    # cities: build by the plan, or farm
    for sq, city in sorted(s.cities.items()):
        if city.acted or s.controller(sq) != p:
            continue
        want = build_plan(s, sq, p)
        if want is not None and not s.refusal(Build(sq, want)):
            return Build(sq, want)
        free = [n for n in s.neighbours(sq) if not s.refusal(Farm(sq, n))
                and _keeps_exits(s, Farm(sq, n))]
        if free:
            return Farm(sq, free[rng.randrange(len(free))] if rng.random() < eps else free[0])
    # a Caravan on a site founds its City
    for u in sorted(mine, key=lambda u: u.serial):
        if u.kind == "caravan" and not s.refusal(FoundCity(u.id)):
            return FoundCity(u.id)
    # moves towards goals
    for u in sorted(mine, key=lambda u: u.serial):
        if u.moves_left <= 0 or u.attacked:
            continue
        if _leaves_city_open(s, u, p):
            continue  # keep the City held against the enemies near it
        mv = _best_moves(s, u, p, k=1)
        if mv:
            return mv[0]
    return EndTurn()


def random_action(s: State, rng: random.Random):
    """A uniformly random legal action of the player to move (the benchmark's opponent)."""
    acts = s.legal_actions()
    return acts[rng.randrange(len(acts))]


def rush_action(s: State, rng: random.Random):
    """A rushing opponent (for benchmarks): every City builds the strongest unit it can pay for
    (Cavalry, else Infantry) or farms, every unit marches on the nearest enemy Capital and
    attacks whatever stands in its way at odds of 1 in 3 or better."""
    p = s.player
    if not s.alive(p):
        return EndTurn()
    if not s.goblet_placed and p == s.goblet_chooser:
        return PlaceGoblet(s.goblet_candidates()[0])
    mine = sorted((u for u in s.units.values() if u.owner == p), key=lambda u: u.serial)
    for u in mine:
        if not u.type.fighting or u.attacked or u.moves_left <= 0:
            continue
        for n in s.neighbours(u.square):
            if not s._attack_refusal(u, n) and _fight_odds(s, Attack(u.id, n)) >= 1 / 3:
                return Attack(u.id, n)
    for sq, city in sorted(s.cities.items()):
        if city.acted or s.controller(sq) != p:
            continue
        for kind in ("cavalry", "infantry"):
            if not s.refusal(Build(sq, kind)):
                return Build(sq, kind)
        free = [n for n in s.neighbours(sq) if not s.refusal(Farm(sq, n))]
        if free:
            return Farm(sq, free[rng.randrange(len(free))])
    caps = [c for c, city in s.cities.items() if city.home not in (None, p)
            and s.alive(city.home)]
    for u in mine:
        if u.moves_left <= 0 or u.attacked or not u.type.fighting or not caps:
            continue
        goal = min(caps, key=lambda c: distance(c, u.square))
        reach = s.reachable(u)
        closer = [q for q in reach if distance(q, goal) < distance(u.square, goal)]
        if closer:
            return Move(u.id, min(closer, key=lambda q: (distance(q, goal), q)))
    return EndTurn()


def evaluate(s: State, player: str) -> float:
    """Score of the position for ``player`` in 0..1 (1: won, 0: lost)."""
    if s.over:
        return 1.0 if s.winner == player else (0.0 if s.winner else 0.3)
    if not s.alive(player):
        return 0.0
    score = {p: 0.0 for p in s.players}
    for u in s.units.values():
        score[u.owner] += UNIT_TYPES[u.kind].cost + 1
    for o in s.farms.values():
        if o in score:
            score[o] += 0.6
    for c, city in s.cities.items():
        ctrl = s.controller(c)
        if ctrl in score:
            score[ctrl] += 6 if city.capital else 4
    if s.goblet_holder:
        h = s.units[s.goblet_holder]
        score[h.owner] += 4 + 20 * s.turn / max(1, s.turn_limit)
    # pressure: own fighting units close to enemy Capitals
    for u in s.units.values():
        if not u.type.fighting:
            continue
        caps = [c for c, city in s.cities.items() if city.home and city.home != u.owner
                and s.alive(city.home)]
        if caps:
            score[u.owner] += 1.5 / (1 + min(distance(u.square, c) for c in caps))
    others = [score[p] for p in s.players if p != player and s.alive(p)]
    diff = score[player] - (max(others) if others else 0.0)
    return 1.0 / (1.0 + math.exp(-diff / 8.0))


def _simulate(s: State, player: str, rng: random.Random, die: FastDie,
              max_steps: int = 120, ends: int = 0) -> float:
    # play on to the end of our turn and the next player's turn
    steps = 0
    while not s.over and steps < max_steps:
        a = policy_action(s, rng)
        if isinstance(a, EndTurn):
            ends += 1
        try:
            s.apply(a, die)
        except Exception:  # a policy slip: end the turn instead
            s.apply(EndTurn(), die)
            ends += 1
        steps += 1
        if ends >= 2:
            break
    return evaluate(s, player)


@dataclass
class SearchStats:
    """What the last :func:`choose_action` did: candidates, simulations."""
    candidates: int = 0
    simulations: int = 0


LAST = SearchStats()


def choose_action(state: State, player: str | None = None, iterations: int = 48,
                  seed: int = 0, c: float = 0.6):
    """The computer opponent's next action for ``player`` (default: the player to move).

    Parameters
    ----------
    state : State
        Not changed (the search works on copies).
    iterations : int
        Simulations in all (at least one per candidate).
    seed : int
        Seeds the search's own randomness (the game's dice are never used).

    Returns
    -------
    An action of :mod:`sandbox.rules.micro_brick_war` legal now; ``EndTurn()`` when nothing
    else is.
    """
    player = state.player if player is None else player
    if state.over or player != state.player:
        return EndTurn()
    forced = forced_action(state, player)
    if forced is not None:
        return forced
    cands = candidates(state, player)
    if not cands:
        return EndTurn()
    if len(cands) == 1:
        return cands[0]
    rng = random.Random(f"{seed}:{state.turn}:{state.current}:{len(state.units)}:"
                        f"{len(state.farms)}")
    die = FastDie(rng)
    n = [0] * len(cands)
    w = [0.0] * len(cands)
    total = max(iterations, len(cands))
    for it in range(total):
        if it < len(cands):
            i = it
        else:
            logt = math.log(it)
            i = max(range(len(cands)), key=lambda j: w[j] / n[j] + c * math.sqrt(logt / n[j]))
        s = state.copy()
        s.apply(cands[i], die)
        if isinstance(cands[i], EndTurn):
            # the opponent plays its turn, then we score
            v = _simulate(s, player, rng, die, ends=1) if not s.over else evaluate(s, player)
        else:
            v = _simulate(s, player, rng, die)
        n[i] += 1
        w[i] += v
    LAST.candidates, LAST.simulations = len(cands), total
    best = max(range(len(cands)), key=lambda j: (n[j], w[j] / n[j]))
    return cands[best]


def play_turn(state: State, rng_die, chooser: Callable[[State], object] | None = None,
              max_actions: int = 200) -> list:
    """Play the rest of the current player's turn on ``state`` with ``chooser`` (default
    :func:`choose_action`), rolling real dice on ``rng_die``; returns the actions played (the
    last is ``EndTurn``)."""
    chooser = chooser or (lambda s: choose_action(s))
    played = []
    for _ in range(max_actions):
        a = chooser(state)
        state.apply(a, rng_die)
        played.append(a)
        if isinstance(a, EndTurn) or state.over:
            return played
    state.apply(EndTurn(), rng_die)
    played.append(EndTurn())
    return played
