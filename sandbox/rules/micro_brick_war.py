"""Micro Brick War, the whole board game as pure rules (rule text: ``shared/rules/004``).

A chessboard (8 x 8 by default) of squares named like chess squares (``"a1"`` is column 0,
row 0, the lower left; ``"h8"`` the upper right of an 8 x 8 board). Every player starts with a
Capital; Capitals and Cities farm or build one unit a turn; farms are the only resource; units
fight by one d6 each plus a modifier; the game is won by conquering every enemy Capital or by
holding the Golden Goblet when it ends.

:class:`State` is the whole game: ``legal_actions(player)`` lists what the player may do now,
``refusal(action)`` says why an action is not allowed (in words, "" when it is) and
``apply(action, rng)`` plays it, rolling dice on ``rng`` (a
:class:`sandbox.core.dice.DiceStream`, or anything with ``roll(sides, reason)`` returning an
object with ``.result``). No physics: the game is playable (and searchable by the computer
opponent, :mod:`sandbox.rules.micro_brick_war_ai`) from this module alone.

Numbers of the text (the "UNIT TABLE", "Building one unit", "Attack city", capacities):

=========  =====  ======  ======  =====  =====
unit       farms  Attack  Defend  Speed  slots
=========  =====  ======  ======  =====  =====
Infantry   2      1       2       1      1
Cavalry    4      4       1       2      2
Catapult   6      8       1       1      2
Caravan    4      0       0       1      2
farm       -      -       0       0      -
=========  =====  ======  ======  =====  =====

Capital 16 slots (4 x 4), City 4 slots (2 x 2); at most 1 Capital and 5 Cities a player;
inside a City or Capital +3 Defend, around it +1; ties go to the attacker.

Readings chosen where the text is silent (what players expect; each is tested):

- **Moves** go to any of the 8 neighbouring squares, one square per point of Speed; a move
  action takes a unit along the shortest open path to a square within its Speed left this
  turn. Every unit may move each turn (its whole Speed), and a unit built this turn moves at
  once (the text's own example). Squares passed through must be open: no Block, no enemy farm
  (rule 2b; our own farms may be passed, 2a), no enemy unit, no City or Capital we do not
  control. A move may end on an empty square (no unit, no farm: rule 1b), in a City or
  Capital we control that has room, or in an *empty* enemy or neutral City or Capital, which
  it captures without dice (the text). Passing through our own units and Cities is allowed.
- **Attack**: Infantry and Cavalry attack an enemy on a neighbouring square (they "move to
  the enemy's location"), a Catapult one exactly 2 squares away (Chebyshev distance, over
  anything between) and stays put. Each fighting unit attacks at most once a turn, and an
  attack ends its moves for the turn. The target is an enemy unit in the open, an enemy farm
  (Defend 0: "farm can be destroyed if successfully attacked"), or a City or Capital held by
  an enemy, whose best defender (highest Defend, then the first built) fights. A Caravan
  never attacks. Attacker and defender each roll one d6 (the attacker first), add Attack or
  Defend and the defender's City bonus; the higher total wins, a tie goes to the attacker;
  the loser is removed (a Catapult that loses is removed too). A winning Infantry or Cavalry
  moves into the square it won (into a City only when no defender is left there).
- **City bonus**: a unit or farm inside a City or Capital that its side controls defends +3;
  one on a square next to such a City or Capital +1 (not both; an enemy's City shelters no
  one).
- **Farming**: a City or Capital puts one farm on a neighbouring empty square (no unit, no
  farm, no Block, no City, not the Goblet's square: rule 1a). The farm belongs to the player
  who controls that City. **Building** removes the unit's cost in farms from the squares
  around that City (anyone's farms, as the text says; the builder may name them, else its
  enemies' farms go first), and the unit appears inside if it has room. A City acts once a
  turn; control changing hands mid-turn does not reset that.
- **Cities**: a City's *owner* is the player who founded it (or the Capital's player); it is
  *controlled* by whoever's troops are inside, and by its owner when none are. A Caravan that
  stood on its square since its player's previous turn (it did not move this turn) becomes a
  City there if no City or Capital is within 1 square (at least 2 squares away) and its
  player owns fewer than 5 Cities; the new City may farm or build the same turn.
- **Conquest**: a unit entering an enemy's own Capital conquers that player: all their units
  disappear (the text), their Capital passes to the conqueror as a City-like holding of 16
  slots, their Cities become neutral (capturable by anyone entering them) and their farms stay
  (now nobody's: no one may pass them, anyone may build with them or destroy them). The
  conquered player's turns pass with nothing to do.
- **Golden Goblet**: placed on a square as equidistant (Chebyshev) from every Capital as the
  board allows (the smallest spread of distances; no Block, no City) by the chooser: the 2nd
  player with 2 players, the 3rd with 3, the last with 4, during their first turn (if they
  end it without, the most central candidate is taken). A fighting unit that enters its
  square picks it up; Caravans do not. Its holder may drop it on its own square (then move
  on); a holder that is removed drops it on the square where it stood.
- **End**: the game ends at once when one player is left unconquered (they win), else after
  the last player's turn of the turn limit (default 30), won by the player whose unit holds
  the Goblet; nobody holding it is a draw (no winner).
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any, Iterable, NamedTuple, Protocol

from ..core.errors import RulesError

__all__ = [
    "UNIT_TYPES", "UnitType", "CAPITAL_SLOTS", "CITY_SLOTS", "MAX_CITIES", "INSIDE_BONUS",
    "AROUND_BONUS", "Unit", "City", "State", "Farm", "Build", "Move", "Attack", "FoundCity",
    "DropGoblet", "PlaceGoblet", "EndTurn", "FightResult", "square_name", "parse_square",
    "distance", "new_game", "default_capitals", "goblet_chooser", "MAX_BOARD",
]


@dataclass(frozen=True)
class UnitType:
    """A row of the UNIT TABLE: cost in farms, Attack and Defend modifiers, Speed (squares a
    turn), City slots taken, and whether it fights."""

    name: str
    cost: int
    attack: int
    defend: int
    speed: int
    slots: int
    fighting: bool


#: The UNIT TABLE of the text (Caravan slots: 2, chosen, the text gives none).
UNIT_TYPES: dict[str, UnitType] = {
    "infantry": UnitType("infantry", 2, 1, 2, 1, 1, True),
    "cavalry": UnitType("cavalry", 4, 4, 1, 2, 2, True),
    "catapult": UnitType("catapult", 6, 8, 1, 1, 2, True),
    "caravan": UnitType("caravan", 4, 0, 0, 1, 2, False),
}
#: Farm's Defend modifier (UNIT TABLE: "FARM ... Defend=0").
FARM_DEFEND = 0
CAPITAL_SLOTS = 16
CITY_SLOTS = 4
#: Most Cities a player may own besides the Capital.
MAX_CITIES = 5
INSIDE_BONUS = 3
AROUND_BONUS = 1
#: The Catapult's one range, squares.
CATAPULT_RANGE = 2
#: Least Chebyshev distance from a new City to any City or Capital.
CITY_SPACING = 2
#: Board sizes allowed (squares a side).
MIN_BOARD, MAX_BOARD = 4, 16
DEFAULT_TURN_LIMIT = 30

Square = tuple[int, int]


def square_name(sq: Square) -> str:
    """``(col, row)`` -> ``"a1"`` style name (column letter, row number from 1)."""
    return f"{string.ascii_lowercase[sq[0]]}{sq[1] + 1}"


def parse_square(name: str, width: int = MAX_BOARD, height: int = MAX_BOARD) -> Square:
    """``"c4"`` -> ``(2, 3)``.

    Raises
    ------
    RulesError
        Not a square name, or off a ``width`` x ``height`` board.
    """
    if isinstance(name, (tuple, list)) and len(name) == 2:
        c, r = int(name[0]), int(name[1])
    else:
        s = str(name).strip().lower()
        if len(s) < 2 or s[0] not in string.ascii_lowercase or not s[1:].isdigit():
            raise RulesError(f"{name!r} is not a square (write a column letter and a row "
                             f"number, like 'c4')")
        c, r = string.ascii_lowercase.index(s[0]), int(s[1:]) - 1
    if not (0 <= c < width and 0 <= r < height):
        raise RulesError(f"square {name!r} is off the {width} x {height} board")
    return (c, r)


def distance(a: Square, b: Square) -> int:
    """Squares between ``a`` and ``b`` counting diagonal steps as one (Chebyshev)."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


# ------------------------------------------------------------------------------ actions
class Farm(NamedTuple):
    """The City or Capital on ``city`` puts a farm on the neighbouring square ``square``."""
    city: Square
    square: Square


class Build(NamedTuple):
    """The City on ``city`` builds a ``kind`` unit, paying with the farms on ``farms`` (None:
    chosen by the rules, the enemies' farms first)."""
    city: Square
    kind: str
    farms: tuple | None = None


class Move(NamedTuple):
    """Unit ``unit`` moves to ``to`` (within its Speed left, along open squares)."""
    unit: str
    to: Square


class Attack(NamedTuple):
    """Unit ``unit`` attacks what stands on ``target`` (a unit, a farm, or a held City)."""
    unit: str
    target: Square


class FoundCity(NamedTuple):
    """Caravan ``unit`` becomes a City on its square."""
    unit: str


class DropGoblet(NamedTuple):
    """The Goblet's holder ``unit`` drops it on its own square."""
    unit: str


class PlaceGoblet(NamedTuple):
    """The chooser puts the Golden Goblet on ``square``."""
    square: Square


class EndTurn(NamedTuple):
    """The player to move ends the turn."""


class _Die(Protocol):
    def roll(self, sides: int, reason: str = "") -> Any: ...


@dataclass
class Unit:
    """A unit on the board: ``id``, ``kind`` (a key of :data:`UNIT_TYPES`), ``owner``,
    ``square``, Speed left this turn, whether it attacked this turn, whether it moved this
    turn (a Caravan must stand still a turn before it founds a City), build order ``serial``."""

    id: str
    kind: str
    owner: str
    square: Square
    moves_left: int
    serial: int
    attacked: bool = False
    moved: bool = False

    @property
    def type(self) -> UnitType:
        return UNIT_TYPES[self.kind]

    def copy(self) -> "Unit":
        return Unit(self.id, self.kind, self.owner, self.square, self.moves_left, self.serial,
                    self.attacked, self.moved)


@dataclass
class City:
    """A City or Capital: ``square``, ``owner`` (founder; None: neutral), ``capital`` (16
    slots), ``home`` (the player whose own Capital this is; None for Cities), ``acted`` (farmed
    or built this turn)."""

    square: Square
    owner: str | None
    capital: bool = False
    home: str | None = None
    acted: bool = False

    @property
    def slots(self) -> int:
        return CAPITAL_SLOTS if self.capital else CITY_SLOTS

    def copy(self) -> "City":
        return City(self.square, self.owner, self.capital, self.home, self.acted)


@dataclass(frozen=True)
class FightResult:
    """One fight: the attacker's and defender's d6 and totals, who won, what was removed."""

    attacker: str
    defender: str
    attack_die: int
    attack_total: int
    defend_die: int
    defend_total: int
    defend_bonus: int
    attacker_won: bool
    attack_mod: int = 0
    defend_mod: int = 0

    def words(self) -> str:
        verdict = "attacker wins" if self.attacker_won else "defender wins"
        tie = " (a tie goes to the attacker)" if self.attack_total == self.defend_total else ""
        where = {INSIDE_BONUS: " + 3 inside a City", AROUND_BONUS: " + 1 around a City"}
        return (f"{self.attacker} rolls {self.attack_die} + Attack {self.attack_mod} = "
                f"{self.attack_total} vs {self.defender} rolls {self.defend_die} + Defend "
                f"{self.defend_mod}" + where.get(self.defend_bonus, "")
                + f" = {self.defend_total}: {verdict}{tie}")


@dataclass
class State:
    """The whole game of Micro Brick War (see the module text for the readings chosen).

    Attributes
    ----------
    width, height : int
        Board size in squares.
    players : list of str
        Turn order.
    blocks : set of Square
    farms : dict Square -> str or None
        Each farm's owner (None: a conquered player's, nobody's).
    cities : dict Square -> City
    units : dict str -> Unit
    goblet : Square or None
        Where the Goblet lies (None: held, or not placed yet).
    goblet_holder : str or None
        Unit id holding it.
    goblet_placed : bool
    goblet_chooser : str
    turn : int
        1-based turn number; ``current`` indexes ``players``.
    turn_limit : int
    eliminated : list of str
        Conquered players, in order.
    over : bool
    winner : str or None
    log : list of str
        What happened, in words (the last action's lines; cleared by each ``apply``).
    """

    width: int
    height: int
    players: list[str]
    blocks: set = field(default_factory=set)
    farms: dict = field(default_factory=dict)
    cities: dict = field(default_factory=dict)
    units: dict = field(default_factory=dict)
    goblet: Square | None = None
    goblet_holder: str | None = None
    goblet_placed: bool = False
    goblet_chooser: str = ""
    turn: int = 1
    current: int = 0
    turn_limit: int = DEFAULT_TURN_LIMIT
    eliminated: list = field(default_factory=list)
    over: bool = False
    winner: str | None = None
    serial: int = 0
    counters: dict = field(default_factory=dict)
    log: list = field(default_factory=list)
    fights: list = field(default_factory=list)
    removed: list = field(default_factory=list)

    # ------------------------------------------------------------------ copying, hashing
    def copy(self) -> "State":
        """A deep copy (fast: for the computer opponent's search)."""
        s = State.__new__(State)
        s.width, s.height, s.players = self.width, self.height, self.players
        s.blocks = self.blocks
        s.farms = dict(self.farms)
        s.cities = {k: c.copy() for k, c in self.cities.items()}
        s.units = {k: u.copy() for k, u in self.units.items()}
        s.goblet, s.goblet_holder = self.goblet, self.goblet_holder
        s.goblet_placed, s.goblet_chooser = self.goblet_placed, self.goblet_chooser
        s.turn, s.current, s.turn_limit = self.turn, self.current, self.turn_limit
        s.eliminated = list(self.eliminated)
        s.over, s.winner, s.serial = self.over, self.winner, self.serial
        s.counters = dict(self.counters)
        s.log, s.fights, s.removed = [], [], []
        return s

    def to_dict(self) -> dict:
        """JSON-ready state (what the engine's state hash covers)."""
        return {
            "size": [self.width, self.height], "turn": self.turn,
            "player": self.player, "turn_limit": self.turn_limit,
            "blocks": sorted(square_name(b) for b in self.blocks),
            "farms": {square_name(k): v for k, v in sorted(self.farms.items())},
            "cities": {square_name(k): {"owner": c.owner, "capital": c.capital, "home": c.home,
                                        "acted": c.acted, "controller": self.controller(k)}
                       for k, c in sorted(self.cities.items())},
            "units": {u.id: {"kind": u.kind, "owner": u.owner, "square": square_name(u.square),
                             "moves_left": u.moves_left, "attacked": u.attacked,
                             "moved": u.moved}
                      for u in sorted(self.units.values(), key=lambda u: u.serial)},
            "goblet": square_name(self.goblet) if self.goblet else None,
            "goblet_holder": self.goblet_holder, "goblet_placed": self.goblet_placed,
            "eliminated": list(self.eliminated), "over": self.over, "winner": self.winner,
        }

    # ------------------------------------------------------------------ reading the board
    @property
    def player(self) -> str:
        """The player to move."""
        return self.players[self.current]

    def on_board(self, sq: Square) -> bool:
        return 0 <= sq[0] < self.width and 0 <= sq[1] < self.height

    def neighbours(self, sq: Square) -> list[Square]:
        """The up to 8 squares around ``sq`` on the board."""
        c, r = sq
        out = []
        for dc in (-1, 0, 1):
            for dr in (-1, 0, 1):
                if (dc or dr) and 0 <= c + dc < self.width and 0 <= r + dr < self.height:
                    out.append((c + dc, r + dr))
        return out

    def units_at(self, sq: Square) -> list[Unit]:
        """Units on ``sq`` (several only inside a City), in build order."""
        return sorted((u for u in self.units.values() if u.square == sq), key=lambda u: u.serial)

    def unit_at(self, sq: Square) -> Unit | None:
        for u in self.units.values():
            if u.square == sq:
                return u
        return None

    def controller(self, sq: Square) -> str | None:
        """Who controls the City on ``sq``: the owner of the troops inside, else its owner."""
        city = self.cities[sq]
        for u in self.units.values():
            if u.square == sq:
                return u.owner
        return city.owner

    def slots_used(self, sq: Square) -> int:
        return sum(u.type.slots for u in self.units.values() if u.square == sq)

    def cities_owned(self, player: str) -> int:
        """Cities (not Capitals) ``player`` owns."""
        return sum(1 for c in self.cities.values() if c.owner == player and not c.capital)

    def alive(self, player: str) -> bool:
        return player not in self.eliminated

    def unit(self, uid: str) -> Unit:
        u = self.units.get(uid)
        if u is None:
            raise RulesError(f"no unit {uid!r} on the board")
        return u

    def defend_bonus(self, sq: Square, side: str | None) -> int:
        """City bonus of something of ``side`` on ``sq``: +3 inside a City or Capital its side
        controls, +1 next to one, else 0."""
        if side is None:
            return 0
        if sq in self.cities:
            return INSIDE_BONUS if self.controller(sq) == side else 0
        for n in self.neighbours(sq):
            if n in self.cities and self.controller(n) == side:
                return AROUND_BONUS
        return 0

    def goblet_candidates(self) -> list[Square]:
        """Squares the Goblet may be placed on: open squares (no Block, City, unit or farm)
        whose Chebyshev distances to the Capitals spread least, most central first."""
        caps = [c.square for c in self.cities.values() if c.capital]
        best, out = None, []
        for c in range(self.width):
            for r in range(self.height):
                sq = (c, r)
                if sq in self.blocks or sq in self.cities or sq in self.farms \
                        or self.unit_at(sq) is not None:
                    continue
                d = [distance(sq, k) for k in caps]
                spread = max(d) - min(d) if d else 0
                if best is None or spread < best:
                    best, out = spread, [sq]
                elif spread == best:
                    out.append(sq)
        cx, cy = (self.width - 1) / 2, (self.height - 1) / 2
        return sorted(out, key=lambda s: (abs(s[0] - cx) + abs(s[1] - cy), s))

    # ------------------------------------------------------------------ movement
    def _passable(self, sq: Square, player: str) -> bool:
        if sq in self.blocks:
            return False
        if sq in self.farms and self.farms[sq] != player:
            return False  # 2b
        if sq in self.cities:
            return self.controller(sq) == player
        u = self.unit_at(sq)
        return u is None or u.owner == player

    def _can_end(self, sq: Square, unit: Unit) -> str:
        if sq in self.blocks:
            return f"{square_name(sq)} is a Block"
        if sq in self.cities:
            city = self.cities[sq]
            inside = self.units_at(sq)
            if inside and inside[0].owner != unit.owner:
                return (f"the {'Capital' if city.capital else 'City'} on {square_name(sq)} is "
                        f"held by {inside[0].owner}: attack it")
            used = self.slots_used(sq)
            if used + unit.type.slots > city.slots:
                return (f"the {'Capital' if city.capital else 'City'} on {square_name(sq)} is "
                        f"full ({used} of {city.slots} slots used, a {unit.kind} needs "
                        f"{unit.type.slots})")
            return ""
        if sq in self.farms:
            return f"a farm stands on {square_name(sq)} (rule 1b: no unit can enter)"
        other = self.unit_at(sq)
        if other is not None:
            return f"{other.id} stands on {square_name(sq)} (one unit a square)"
        return ""

    def reachable(self, unit: Unit) -> dict[Square, int]:
        """Squares ``unit`` may end its move on now, with the squares of Speed it costs."""
        out: dict[Square, int] = {}
        if unit.moves_left <= 0 or unit.attacked:
            return out
        frontier = [unit.square]
        seen = {unit.square: 0}
        for step in range(1, unit.moves_left + 1):
            nxt = []
            for sq in frontier:
                for n in self.neighbours(sq):
                    if n in seen:
                        continue
                    seen[n] = step
                    if not self._can_end(n, unit):
                        out[n] = step
                    if self._passable(n, unit.owner) and step < unit.moves_left:
                        nxt.append(n)
            frontier = nxt
        return out

    # ------------------------------------------------------------------ refusals
    def refusal(self, action, player: str | None = None) -> str:
        """Why ``action`` is not allowed now for ``player`` (default: the player to move), in
        words; "" when it is allowed. Changes nothing."""
        player = self.player if player is None else player
        if self.over:
            return "the game is over" + (f": {self.winner} won" if self.winner else "")
        if player != self.player:
            return f"it is {self.player}'s turn, not {player}'s"
        if isinstance(action, EndTurn):
            return ""
        if not self.alive(player):
            return f"{player} was conquered and has nothing left to play"
        if isinstance(action, PlaceGoblet):
            if self.goblet_placed:
                return "the Golden Goblet is already placed"
            if player != self.goblet_chooser:
                return f"{self.goblet_chooser} places the Golden Goblet, not {player}"
            if not self.on_board(action.square):
                return "that square is off the board"
            cands = self.goblet_candidates()
            if action.square not in cands:
                return (f"the Goblet must go at the same distance from every Capital: "
                        f"{square_name(action.square)} is not one of "
                        f"{', '.join(square_name(s) for s in cands[:12])}")
            return ""
        if isinstance(action, (Farm, Build)):
            city = self.cities.get(action.city)
            where = square_name(action.city) if self.on_board(action.city) else str(action.city)
            if city is None:
                return f"there is no City or Capital on {where}"
            if self.controller(action.city) != player:
                return f"the City on {where} is not {player}'s to command"
            if city.acted:
                return f"the City on {where} already farmed or built this turn"
            if isinstance(action, Farm):
                sq = action.square
                if not self.on_board(sq) or distance(sq, action.city) != 1:
                    return f"a farm goes on a square around the City on {where}"
                n = square_name(sq)
                if sq in self.blocks:
                    return f"{n} is a Block"
                if sq in self.cities:
                    return f"{n} is a City"
                if sq in self.farms:
                    return f"{n} already has a farm"
                if self.unit_at(sq) is not None:
                    return f"a unit stands on {n} (rule 1a: no farm can be put there)"
                if sq == self.goblet:
                    return f"the Golden Goblet lies on {n}"
                return ""
            kind = UNIT_TYPES.get(action.kind)
            if kind is None:
                return f"{action.kind!r} is not a unit (have {', '.join(UNIT_TYPES)})"
            around = [n for n in self.neighbours(action.city) if n in self.farms]
            if action.farms is not None:
                farms = [tuple(f) for f in action.farms]
                if len(set(farms)) != len(farms):
                    return "a farm is named twice"
                bad = [f for f in farms if f not in around]
                if bad:
                    return (f"no farm around the City on {where} at "
                            + ", ".join(square_name(b) if self.on_board(b) else str(b)
                                        for b in bad))
                if len(farms) != kind.cost:
                    return f"a {kind.name} costs {kind.cost} farms, {len(farms)} named"
            elif len(around) < kind.cost:
                return (f"a {kind.name} costs {kind.cost} farms; only {len(around)} around the "
                        f"City on {where}")
            used = self.slots_used(action.city)
            if used + kind.slots > city.slots:
                return (f"no room: {used} of {city.slots} slots used, a {kind.name} needs "
                        f"{kind.slots}")
            return ""
        if isinstance(action, (Move, Attack, FoundCity, DropGoblet)):
            u = self.units.get(action.unit)
            if u is None:
                return f"no unit {action.unit!r} on the board"
            if u.owner != player:
                return f"{u.id} is {u.owner}'s, not {player}'s"
            if isinstance(action, Move):
                if not self.on_board(action.to):
                    return "that square is off the board"
                if action.to == u.square:
                    return f"{u.id} is already on {square_name(u.square)}"
                if u.attacked:
                    return f"{u.id} attacked this turn: its moves are over"
                if u.moves_left <= 0:
                    return f"{u.id} has no Speed left this turn"
                why = self._can_end(action.to, u)
                if why:
                    return why
                if action.to not in self.reachable(u):
                    return (f"{square_name(action.to)} is out of {u.id}'s reach ({u.moves_left} "
                            f"square(s) of Speed left, over open squares)")
                return ""
            if isinstance(action, Attack):
                return self._attack_refusal(u, action.target)
            if isinstance(action, FoundCity):
                if u.kind != "caravan":
                    return f"{u.id} is a {u.kind}: only a Caravan founds a City"
                if u.moved:
                    return f"{u.id} moved this turn: a Caravan founds a City the turn after"
                if u.square in self.cities:
                    return f"{square_name(u.square)} is already a City"
                near = [s for s in self.cities if distance(s, u.square) < CITY_SPACING]
                if near:
                    return (f"a new City must be at least {CITY_SPACING} squares from any City "
                            f"or Capital ({square_name(near[0])} is closer)")
                if self.cities_owned(player) >= MAX_CITIES:
                    return f"{player} already has {MAX_CITIES} Cities, the most allowed"
                if u.square == self.goblet:
                    return "the Golden Goblet lies here"
                return ""
            if self.goblet_holder != u.id:
                return f"{u.id} does not hold the Golden Goblet"
            return ""
        return f"{type(action).__name__} is not a Micro Brick War action"

    def _attack_refusal(self, u: Unit, target: Square) -> str:
        t = u.type
        if not t.fighting:
            return f"{u.id} is a {u.kind}, not a fighting unit"
        if u.attacked:
            return f"{u.id} already attacked this turn"
        if not self.on_board(target):
            return "that square is off the board"
        d = distance(u.square, target)
        n = square_name(target)
        if u.kind == "catapult":
            if d != CATAPULT_RANGE:
                return (f"a Catapult attacks only an enemy exactly {CATAPULT_RANGE} squares "
                        f"away ({n} is {d})")
        else:
            if d != 1:
                return f"{u.id} attacks a neighbouring square ({n} is {d} away)"
            if u.moves_left <= 0:
                return f"{u.id} has no Speed left to reach {n}"
        if target in self.cities:
            inside = self.units_at(target)
            if not inside:
                if self.controller(target) == u.owner:
                    return f"the City on {n} is {u.owner}'s own"
                return f"the City on {n} is empty: move in to take it, no dice needed"
            if inside[0].owner == u.owner:
                return f"{n} is held by {u.owner}'s own troops"
            return ""
        other = self.unit_at(target)
        if other is not None:
            return "" if other.owner != u.owner else f"{other.id} is {u.owner}'s own unit"
        if target in self.farms:
            return "" if self.farms[target] != u.owner else f"the farm on {n} is {u.owner}'s own"
        return f"there is no enemy on {n}"

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, player: str | None = None) -> list:
        """Every action ``player`` (default: the player to move) may take now; builds are
        listed with the rules' choice of farms (``farms=None``). Empty when it is not their
        turn or the game is over."""
        player = self.player if player is None else player
        if self.over or player != self.player:
            return []
        out: list = []
        if not self.alive(player):
            return [EndTurn()]
        if not self.goblet_placed and player == self.goblet_chooser:
            out += [PlaceGoblet(s) for s in self.goblet_candidates()]
        for sq, city in sorted(self.cities.items()):
            if city.acted or self.controller(sq) != player:
                continue
            free = self.slots_used(sq)
            around = [n for n in self.neighbours(sq) if n in self.farms]
            for k, t in UNIT_TYPES.items():
                if len(around) >= t.cost and free + t.slots <= city.slots:
                    out.append(Build(sq, k))
            for n in self.neighbours(sq):
                if not self.refusal(Farm(sq, n), player):
                    out.append(Farm(sq, n))
        for u in sorted(self.units.values(), key=lambda u: u.serial):
            if u.owner != player:
                continue
            for sq in sorted(self.reachable(u)):
                out.append(Move(u.id, sq))
            if u.type.fighting and not u.attacked:
                rng = CATAPULT_RANGE if u.kind == "catapult" else 1
                c, r = u.square
                for dc in range(-rng, rng + 1):
                    for dr in range(-rng, rng + 1):
                        tgt = (c + dc, r + dr)
                        if max(abs(dc), abs(dr)) == rng and self.on_board(tgt) \
                                and not self._attack_refusal(u, tgt):
                            out.append(Attack(u.id, tgt))
            if u.kind == "caravan" and not self.refusal(FoundCity(u.id), player):
                out.append(FoundCity(u.id))
            if self.goblet_holder == u.id:
                out.append(DropGoblet(u.id))
        out.append(EndTurn())
        return out

    # ------------------------------------------------------------------ applying
    def apply(self, action, rng: _Die | None = None) -> list[str]:
        """Play ``action`` for the player to move; returns what happened, in words (also in
        :attr:`log`; fights in :attr:`fights`, removed unit ids in :attr:`removed`).

        Raises
        ------
        RulesError
            The action is not allowed (nothing changed), or an attack without ``rng``.
        """
        why = self.refusal(action)
        if why:
            raise RulesError(why)
        if isinstance(action, Attack) and rng is None:
            raise RulesError("an attack needs dice: pass a dice stream")
        self.log, self.fights, self.removed = [], [], []
        p = self.player
        if isinstance(action, EndTurn):
            self._end_turn()
        elif isinstance(action, PlaceGoblet):
            self.goblet, self.goblet_placed = action.square, True
            self.log.append(f"{p} places the Golden Goblet on {square_name(action.square)}")
        elif isinstance(action, Farm):
            self.cities[action.city].acted = True
            self.farms[action.square] = p
            self.log.append(f"The City on {square_name(action.city)} farms "
                            f"{square_name(action.square)}")
        elif isinstance(action, Build):
            self._build(action, p)
        elif isinstance(action, Move):
            self._move(self.units[action.unit], action.to)
        elif isinstance(action, Attack):
            self._attack(self.units[action.unit], action.target, rng)
        elif isinstance(action, FoundCity):
            u = self.units.pop(action.unit)
            self.cities[u.square] = City(u.square, p)
            self.log.append(f"{u.id} founds a City on {square_name(u.square)}")
            self.removed.append(u.id)
        elif isinstance(action, DropGoblet):
            u = self.units[action.unit]
            self.goblet_holder, self.goblet = None, u.square
            self.log.append(f"{u.id} drops the Golden Goblet on {square_name(u.square)}")
        self._check_victory()
        return list(self.log)

    def _build(self, action: Build, p: str) -> None:
        kind = UNIT_TYPES[action.kind]
        if action.farms is not None:
            pay = [tuple(f) for f in action.farms]
        else:  # enemies' farms first, then ours; in square order
            around = [n for n in self.neighbours(action.city) if n in self.farms]
            pay = sorted(around, key=lambda s: (self.farms[s] == p, s))[:kind.cost]
        for f in pay:
            del self.farms[f]
        self.cities[action.city].acted = True
        self.serial += 1
        n = self.counters.get((p, kind.name), 0) + 1
        self.counters[(p, kind.name)] = n
        uid = f"{_ident(p)}-{kind.name}-{n}"
        self.units[uid] = Unit(uid, kind.name, p, action.city, kind.speed, self.serial)
        self.log.append(f"The City on {square_name(action.city)} removes {len(pay)} farms ("
                        f"{', '.join(square_name(f) for f in pay)}) and builds {uid}")

    def _enter(self, u: Unit, to: Square) -> None:
        """``u`` arrives on ``to``: Goblet pick-up, City capture, Capital conquest."""
        before = self.controller(to) if to in self.cities else None
        u.square = to
        if to == self.goblet and u.type.fighting and self.goblet_holder is None:
            self.goblet, self.goblet_holder = None, u.id
            self.log.append(f"{u.id} picks up the Golden Goblet")
        city = self.cities.get(to)
        if city is not None and before != u.owner:
            what = "Capital" if city.capital else "City"
            if city.home is not None and city.home != u.owner and self.alive(city.home):
                self._conquer(city.home, u.owner, to)
            else:
                self.log.append(f"{u.owner} takes the {what} on {square_name(to)}")

    def _move(self, u: Unit, to: Square) -> None:
        cost = self.reachable(u)[to]
        u.moves_left -= cost
        u.moved = True
        frm = u.square
        self.log.append(f"{u.id} moves {square_name(frm)} -> {square_name(to)}")
        self._enter(u, to)

    def _remove(self, u: Unit) -> None:
        del self.units[u.id]
        self.removed.append(u.id)
        if self.goblet_holder == u.id:
            self.goblet_holder, self.goblet = None, u.square
            self.log.append(f"The Golden Goblet falls on {square_name(u.square)}")

    def _attack(self, u: Unit, target: Square, rng: _Die) -> None:
        u.attacked = True
        inside = self.units_at(target)
        if target in self.cities:
            d = max(inside, key=lambda x: (x.type.defend, -x.serial))
            side, dname, dmod = d.owner, d.id, d.type.defend
        elif inside:
            d = inside[0]
            side, dname, dmod = d.owner, d.id, d.type.defend
        else:
            d = None
            side, dname, dmod = (self.farms[target], f"the farm on {square_name(target)}",
                                 FARM_DEFEND)
        bonus = self.defend_bonus(target, side)
        aroll = int(rng.roll(6, f"{u.id} attacks {square_name(target)} (Attack "
                             f"{u.type.attack})").result)
        droll = int(rng.roll(6, f"{dname} defends (Defend {dmod}"
                             + (f", City +{bonus}" if bonus else "") + ")").result)
        at, dt = aroll + u.type.attack, droll + dmod + bonus
        res = FightResult(u.id, dname, aroll, at, droll, dt, bonus, at >= dt, u.type.attack, dmod)
        self.fights.append(res)
        self.log.append(res.words())
        if not res.attacker_won:
            self._remove(u)
            self.log.append(f"{u.id} is removed")
            return
        if d is not None:
            self._remove(d)
            self.log.append(f"{d.id} is removed")
        else:
            del self.farms[target]
            self.log.append(f"The farm on {square_name(target)} is destroyed")
        if u.kind != "catapult":
            u.moves_left = 0
            if target not in self.cities or not self.units_at(target):
                self.log.append(f"{u.id} moves into {square_name(target)}")
                self._enter(u, target)
        else:
            u.moves_left = 0

    def _conquer(self, loser: str, winner: str, capital: Square) -> None:
        self.eliminated.append(loser)
        self.log.append(f"{winner} conquers {loser}'s Capital on {square_name(capital)}: "
                        f"{loser}'s units disappear")
        for u in [u for u in self.units.values() if u.owner == loser]:
            self._remove(u)
        for c in self.cities.values():
            if c.owner == loser:
                c.owner = None
        self.cities[capital].owner = winner
        for f, o in list(self.farms.items()):
            if o == loser:
                self.farms[f] = None

    def _check_victory(self) -> None:
        alive = [p for p in self.players if self.alive(p)]
        if len(alive) == 1 and len(self.players) > 1 and not self.over:
            self.over, self.winner = True, alive[0]
            self.log.append(f"{alive[0]} holds every Capital and wins")

    def _end_turn(self) -> None:
        p = self.player
        if not self.goblet_placed and p == self.goblet_chooser and self.alive(p):
            cands = self.goblet_candidates()
            if cands:
                self.goblet, self.goblet_placed = cands[0], True
                self.log.append(f"{p} did not place the Golden Goblet: it goes on "
                                f"{square_name(cands[0])}")
        self.log.append(f"{p} ends the turn")
        self.current += 1
        if self.current >= len(self.players):
            self.current = 0
            if self.turn >= self.turn_limit:
                self._end_game()
                return
            self.turn += 1
        self._start_player_turn()

    def _start_player_turn(self) -> None:
        p = self.player
        for u in self.units.values():
            if u.owner == p:
                u.moves_left, u.attacked, u.moved = u.type.speed, False, False
        for c in self.cities.values():
            c.acted = False

    def _end_game(self) -> None:
        self.over = True
        holder = self.units.get(self.goblet_holder) if self.goblet_holder else None
        self.winner = holder.owner if holder is not None else None
        self.log.append(f"Turn {self.turn_limit} is over: " + (
            f"{self.winner} holds the Golden Goblet and wins" if self.winner
            else "nobody holds the Golden Goblet: a draw"))

    # ------------------------------------------------------------------ unit placement
    def place_unit(self, kind: str, owner: str, sq: Square) -> Unit:
        """Put a unit on the board outside the rules' turn (a scene's starting army).

        Raises
        ------
        RulesError
            Unknown kind or player, or the square cannot take it.
        """
        if kind not in UNIT_TYPES:
            raise RulesError(f"{kind!r} is not a unit (have {', '.join(UNIT_TYPES)})")
        if owner not in self.players:
            raise RulesError(f"{owner!r} is not a player")
        self.serial += 1
        n = self.counters.get((owner, kind), 0) + 1
        uid = f"{_ident(owner)}-{kind}-{n}"
        u = Unit(uid, kind, owner, sq, UNIT_TYPES[kind].speed, self.serial)
        why = self._can_end(sq, u) if self.on_board(sq) else "off the board"
        if why:
            raise RulesError(f"cannot place a {kind} on {sq}: {why}")
        self.counters[(owner, kind)] = n
        self.units[uid] = u
        return u


def _ident(player: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in player)


def default_capitals(n_players: int, width: int, height: int) -> list[Square]:
    """Starting Capitals ("as shown"): opposite corners with 2 players (1 square in from the
    edge: b2 and g7 on 8 x 8), three corners with 3, all four with 4."""
    lo_c, hi_c, lo_r, hi_r = 1, width - 2, 1, height - 2
    corners = [(lo_c, lo_r), (hi_c, hi_r), (hi_c, lo_r), (lo_c, hi_r)]
    if n_players == 2:
        return corners[:2]
    if n_players == 3:
        return [corners[0], corners[2], (width // 2, hi_r)]
    return corners[:4]


def goblet_chooser(players: list[str]) -> str:
    """Who places the Goblet: the 2nd of 2 players, the 3rd of 3, the last of 4 (the text)."""
    return players[min(len(players), 4) - 1] if len(players) >= 2 else players[0]


def new_game(players: Iterable[str], width: int = 8, height: int = 8,
             capitals: Iterable[Square] | None = None, blocks: Iterable[Square] = (),
             turn_limit: int = DEFAULT_TURN_LIMIT, goblet: Square | None = None) -> State:
    """A fresh game: each player's Capital, the Blocks, optionally the Goblet already placed.

    Raises
    ------
    RulesError
        2-4 distinct players, a board of 4..16 squares a side, Capitals on distinct open
        squares, a turn limit of at least 1.
    """
    players = list(players)
    if not 2 <= len(players) <= 4 or len(set(players)) != len(players):
        raise RulesError(f"Micro Brick War is for 2-4 distinct players, got {players}")
    if not (MIN_BOARD <= width <= MAX_BOARD and MIN_BOARD <= height <= MAX_BOARD):
        raise RulesError(f"the board must be {MIN_BOARD}..{MAX_BOARD} squares a side, got "
                         f"{width} x {height}")
    if turn_limit < 1:
        raise RulesError(f"the turn limit must be at least 1, got {turn_limit}")
    caps = list(capitals) if capitals is not None else default_capitals(len(players), width, height)
    if len(caps) != len(players):
        raise RulesError(f"{len(players)} players need {len(players)} Capitals, got {len(caps)}")
    s = State(width, height, players, turn_limit=turn_limit)
    for b in blocks:
        if not s.on_board(b):
            raise RulesError(f"Block {b} is off the board")
        s.blocks.add(tuple(b))
    s.blocks = frozenset(s.blocks)
    for p, c in zip(players, caps, strict=True):
        c = tuple(c)
        if not s.on_board(c) or c in s.blocks or c in s.cities:
            raise RulesError(f"{p}'s Capital {c} must be on a free square of the board")
        s.cities[c] = City(c, p, capital=True, home=p)
    s.goblet_chooser = goblet_chooser(players)
    if goblet is not None:
        if tuple(goblet) not in s.goblet_candidates():
            raise RulesError(f"the Goblet on {square_name(tuple(goblet))} is not at the same "
                             f"distance from every Capital (candidates: "
                             f"{', '.join(square_name(x) for x in s.goblet_candidates()[:12])})")
        s.goblet, s.goblet_placed = tuple(goblet), True
    return s
