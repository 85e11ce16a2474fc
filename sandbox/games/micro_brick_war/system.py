"""Micro Brick War on the brick tabletop (rule text ``shared/rules/004``): the game's system,
registered as ``game = "micro_brick_war"``.

The rules live in :mod:`sandbox.rules.micro_brick_war` (pure Python; every reading the text
leaves open is written there); this module keeps that :class:`State`, refuses what it
refuses, applies actions through it (dice on the stream ``"mbw"``: the attacker's d6, then the
defender's) and shows the result with bricks on the table:

- **The board**: a chessboard of 2 x 4 plates (white and dark grey), one static body;
  **Blocks** are walls of 2 x 4 bricks; **farms** green 2 x 2 plates; **Capitals** and
  **Cities** keeps of plates in their owner's colour, 4 x 4 studs (16 slots) and 2 x 2 (4
  slots), their units standing on the slot studs inside; **units** microscale figures of
  catalogue parts (Infantry a 1 x 1 brick with a yellow tile; Cavalry a 1 x 2 brick with a
  rider; Catapult a plate with an arm post; Caravan a tan wagon), in their player's colour;
  the **Golden Goblet** a yellow cup riding on its holder's head.
- **Physics shows, the d6 decides**: a beaten unit is knocked off the board with an impulse
  (and taken off the table if it does not fall off by itself); a Catapult's stone is a real
  launched body (``solve_launch``: the low arc to the target square) that flies and lands
  harming nothing (the kind has no system listening to impacts). Whatever the bodies do, the rules'
  result stands: after each action every piece the rules keep is set back on its square.
- **Turns**: the engine's turn machine gives each player a turn; ``end_of_player_turn`` ends
  that player's turn in the rules. The game is decided at once by conquest, else after the
  turn limit by the Goblet; an ``mbw_victory`` event says so, and every later action is refused.

The computer opponent (:mod:`sandbox.rules.micro_brick_war_ai`) plays a seat through
:func:`ai_action` / :func:`ai_play_turn`: its actions are ordinary logged actions, so saves,
undo and replays treat them like a person's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.errors import RulesError, SceneError
from ...engine.actions import Action, action_names
from ...engine.outcome import Outcome
from ...engine.scene import Creation, PartRef, Stats
from ...engine.table import System
from ...physics.projectiles import solve_launch
from ...rules import micro_brick_war as mbw
from ...rules.micro_brick_war_ai import choose_action
from .scene import (
    MBW_ACTIONS,
    SQUARE_PLATES,
    MbwAttack,
    MbwBuild,
    MbwDropGoblet,
    MbwFarm,
    MbwFoundCity,
    MbwMove,
    MbwPlaceGoblet,
    MicroBrickWarSection,
)

__all__ = ["MicroBrickWar", "ai_action", "ai_play_turn", "to_rules", "from_rules",
           "STONE_SPEED_IN_S", "KNOCK_SPEED_IN_S"]

LDU_IN = 0.4 / 25.4
STUD_IN = 20 * LDU_IN
BRICK_IN = 24 * LDU_IN
PLATE_IN = 8 * LDU_IN
#: Muzzle speed of a Catapult's stone, in/s (the low arc reaches 2 squares with room to spare).
STONE_SPEED_IN_S = 40.0
#: Speed a beaten unit is knocked away with, in/s (outward and up).
KNOCK_SPEED_IN_S = 70.0
NEUTRAL_COLOUR = 7
#: Board colours (light, dark squares), farm colour, Block colour, Goblet colour.
BOARD_COLOURS = (15, 72)
FARM_COLOUR = 2
BLOCK_COLOUR = 71
GOBLET_COLOUR = 14
#: How far above the square a dropped Goblet is let go, inches.
GOBLET_DROP_IN = 0.8
_FIXED = Stats(size=0.5, armor=100, move=0, flammable=False)


#: A rules action (:mod:`sandbox.rules.micro_brick_war`) that a game action stands for.
RulesAction = (mbw.Farm | mbw.Build | mbw.Move | mbw.Attack | mbw.FoundCity | mbw.DropGoblet
               | mbw.PlaceGoblet)

#: Each game action, the rules action it stands for and their fields (the same names; in
#: the order they are read: a Build's farms before its city, so the same bad square is named
#: first as ever).
RULES_ACTIONS: dict[type[Action], tuple[type[RulesAction], tuple[str, ...]]] = {
    MbwFarm: (mbw.Farm, ("city", "square")),
    MbwBuild: (mbw.Build, ("farms", "city", "kind")),
    MbwMove: (mbw.Move, ("unit", "to")),
    MbwAttack: (mbw.Attack, ("unit", "target")),
    MbwFoundCity: (mbw.FoundCity, ("unit",)),
    MbwDropGoblet: (mbw.DropGoblet, ("unit",)),
    MbwPlaceGoblet: (mbw.PlaceGoblet, ("square",)),
}
#: The other way: rules action class -> its game action and fields.
GAME_ACTIONS: dict[type, tuple[type[Action], tuple[str, ...]]] = {
    rules: (game, fields) for game, (rules, fields) in RULES_ACTIONS.items()}
#: Fields naming a square (``"a1"`` in the game, ``(column, row)`` in the rules) and fields
#: naming a list of them (a tuple in the rules; None: the rules choose).
SQUARE_FIELDS = frozenset({"city", "square", "to", "target"})
SQUARE_LIST_FIELDS = frozenset({"farms"})


def to_rules(action: Action, width: int, height: int) -> RulesAction:
    """The rules' action for a game action (squares parsed on a ``width`` x ``height`` board).

    Raises
    ------
    RulesError
        A square that is not on the board, or an action that is not Micro Brick War's.
    """
    entry = RULES_ACTIONS.get(type(action))
    if entry is None:
        raise RulesError(f"{action.type!r} is not a Micro Brick War action")
    rules, fields = entry
    values: dict[str, Any] = {}
    for f in fields:
        v = getattr(action, f)
        if f in SQUARE_FIELDS:
            v = mbw.parse_square(v, width, height)
        elif f in SQUARE_LIST_FIELDS and v is not None:
            v = tuple(mbw.parse_square(x, width, height) for x in v)
        values[f] = v
    return rules(**values)


def from_rules(action: RulesAction | mbw.EndTurn, player: str, turn: int) -> dict | None:
    """The game action (dict form) of a rules action; None for ``EndTurn`` (the engine's
    ``end_turn``)."""
    entry = GAME_ACTIONS.get(type(action))
    if entry is None:
        return None
    game, fields = entry
    out: dict[str, Any] = {"type": action_names(game)[0]}
    for f in fields:
        v: Any = getattr(action, f)  # a square, a tuple of squares, a unit id or a kind
        if f in SQUARE_FIELDS:
            out[f] = mbw.square_name(v)
        elif f not in SQUARE_LIST_FIELDS:
            out[f] = v
        elif v is not None:  # a Build's farms (None: the rules choose)
            out[f] = [mbw.square_name(x) for x in v]
    return {**out, "player": player, "turn": turn}


def _part(part: str, colour: int, x: float = 0.0, y: float = 0.0, top: float = 0.0) -> PartRef:
    """A part whose top face is at ``top`` (its LDraw origin is the top face's centre)."""
    return PartRef(part=part, colour=colour, position=(x, y, top))


def unit_parts(kind: str, colour: int) -> list[PartRef]:
    """The microscale figure of a unit (catalogue parts; 1 x 1 or 1 x 2 studs, along X)."""
    h = STUD_IN / 2
    if kind == "infantry":
        return [_part("3005", colour, top=BRICK_IN), _part("3070b", 14, top=BRICK_IN + PLATE_IN)]
    if kind == "cavalry":
        return [_part("3004", colour, top=BRICK_IN),
                _part("3024", 14, x=h, top=BRICK_IN + PLATE_IN)]
    if kind == "catapult":
        return [_part("3023", colour, top=PLATE_IN),
                _part("3005", 6, x=-h, top=PLATE_IN + BRICK_IN),
                _part("3024", 0, x=-h, top=PLATE_IN + BRICK_IN + PLATE_IN)]
    if kind == "caravan":
        return [_part("3004", 19, top=BRICK_IN), _part("3023", colour, top=BRICK_IN + PLATE_IN)]
    raise SceneError(f"micro_brick_war: no figure for a {kind!r}")


#: Where a figure's head is: (x offset from its centre, height of its top), inches (the
#: Golden Goblet rides there).
FIGURE_HEAD = {"infantry": (0.0, BRICK_IN + PLATE_IN),
               "cavalry": (STUD_IN / 2, BRICK_IN + PLATE_IN),
               "catapult": (-STUD_IN / 2, BRICK_IN + 2 * PLATE_IN),
               "caravan": (0.0, BRICK_IN + PLATE_IN)}


class MicroBrickWar(System):
    """The Micro Brick War system: the rules' :class:`~sandbox.rules.micro_brick_war.State`
    and the bricks that show it.

    Attributes
    ----------
    rules : State
        The game in the rules (the engine's ``state_hash`` covers ``rules.to_dict()``).
    section : MicroBrickWarSection
    """

    name = "micro_brick_war"
    actions = MBW_ACTIONS

    def __init__(self, game):
        super().__init__(game)
        spec = game.spec
        self.section: MicroBrickWarSection = spec.micro_brick_war or MicroBrickWarSection()
        sec = self.section
        self.players = [p.name for p in spec.players]
        self.colours = {p.name: p.colour for p in spec.players}
        w, h = sec.width, sec.height
        try:
            caps = None
            if sec.capitals:
                by = {c.player: mbw.parse_square(c.square, w, h) for c in sec.capitals}
                missing = [p for p in self.players if p not in by]
                if missing or set(by) - set(self.players):
                    raise RulesError(f"capitals must name every player once (players "
                                     f"{self.players})")
                caps = [by[p] for p in self.players]
            self.rules = mbw.new_game(
                self.players, w, h, caps, [mbw.parse_square(b, w, h) for b in sec.blocks],
                sec.turn_limit,
                None if sec.goblet is None else mbw.parse_square(sec.goblet, w, h))
            for u in sec.units:
                self.rules.place_unit(u.kind, u.player, mbw.parse_square(u.square, w, h))
        except RulesError as exc:
            raise SceneError(f"micro_brick_war: {exc}") from None
        for p in sec.ai:
            if p not in self.players:
                raise SceneError(f"micro_brick_war.ai: {p!r} is not one of {self.players}")
        self.square_in = sec.square_studs * STUD_IN
        self._anchor: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._city_colour: dict[tuple, int] = {}
        self._farms: dict[tuple, str] = {}
        self._cities: dict[tuple, str] = {}
        self._decided = False

    # ------------------------------------------------------------------ geometry
    def centre(self, sq) -> np.ndarray:
        """(2,) centre of a square on the table, inches (the board is centred on the origin)."""
        s = self.square_in
        return np.array([(sq[0] - (self.rules.width - 1) / 2) * s,
                         (sq[1] - (self.rules.height - 1) / 2) * s])

    def square_at(self, xy) -> tuple[int, int] | None:
        """The square under a table point (x, y inches), None off the board."""
        s = self.square_in
        c = int(np.floor(xy[0] / s + self.rules.width / 2))
        r = int(np.floor(xy[1] / s + self.rules.height / 2))
        return (c, r) if self.rules.on_board((c, r)) else None

    def _surface(self, sq) -> float:
        return PLATE_IN * (3 if sq in self.rules.cities else 1)

    def _slot_points(self, sq) -> dict[str, np.ndarray]:
        """Where each unit on ``sq`` stands: the square's centre in the open; on the slot
        studs of a City (2 x 2) or Capital (4 x 4), the 2-slot units first, in pairs."""
        units = self.rules.units_at(sq)
        c = self.centre(sq)
        if sq not in self.rules.cities:
            return {u.id: c for u in units}
        n = 4 if self.rules.cities[sq].capital else 2
        free = [[True] * n for _ in range(n)]
        out = {}
        for u in sorted(units, key=lambda u: (-u.type.slots, u.serial)):
            done = False
            for r in range(n):
                for col in range(0, n, 1 if u.type.slots == 1 else 2):
                    cells = [(col, r)] if u.type.slots == 1 else [(col, r), (col + 1, r)]
                    if all(cc < n and free[rr][cc] for cc, rr in cells):
                        for cc, rr in cells:
                            free[rr][cc] = False
                        x = np.mean([cc for cc, _ in cells]) - (n - 1) / 2
                        out[u.id] = c + np.array([x * STUD_IN, (r - (n - 1) / 2) * STUD_IN])
                        done = True
                        break
                if done:
                    break
            if not done:  # pragma: no cover - capacity makes this impossible
                out[u.id] = c
        return out

    # ------------------------------------------------------------------ bodies
    def _body(self, key: str, name: str, owner, parts: list[PartRef], xy, z: float,
              static: bool) -> None:
        entry = Creation(id=key, name=name, parts=parts, position=(float(xy[0]), float(xy[1]), z),
                         fixed=static, owner=owner, stats=_FIXED)
        asset = self.game.build_asset(entry)
        self.game.add_body(key, "unit" if not static else "creation", name, owner, _FIXED,
                           asset, static=static)
        if not static:
            pos, quat = self.game.world.pose(key)
            self._anchor[key] = (np.asarray(pos) - np.array([xy[0], xy[1], z]),
                                 np.asarray(quat), np.array([xy[0], xy[1], z]))

    def _place(self, key: str, xy, z: float) -> None:
        """Set a movable piece upright with its lowest point at ``z`` over ``xy``."""
        if key not in self.game.world.bodies:
            return
        off, quat, _ = self._anchor[key]
        self.game.world.set_pose(key, np.array([xy[0], xy[1], z]) + off, quat)
        self.game.world.set_velocity(key, (0, 0, 0))
        self._anchor[key] = (off, quat, np.array([xy[0], xy[1], z]))

    def _take_off(self, key: str) -> None:
        if key in self.game.world.bodies:
            self.game.world.remove(key)
        st = self.game.bodies.get(key)
        if st is not None:
            st.off_table = True

    def _colour(self, owner) -> int:
        return self.colours.get(owner, NEUTRAL_COLOUR) if owner else NEUTRAL_COLOUR

    def _city_body(self, sq) -> None:
        city = self.rules.cities[sq]
        colour = self._colour(city.owner)
        if self._city_colour.get(sq) == colour and sq in self._cities:
            return
        if sq in self._cities:
            self._take_off(self._cities.pop(sq))
        self._city_colour[sq] = colour
        if city.capital:
            parts = [_part("3020", colour, 0, y, top=t) for y in (-STUD_IN, STUD_IN)
                     for t in (PLATE_IN, 2 * PLATE_IN)]
        else:
            parts = [_part("3022", colour, top=t) for t in (PLATE_IN, 2 * PLATE_IN)]
        what = "Capital" if city.capital else "City"
        key = self._fresh_key(f"mbw-city-{mbw.square_name(sq)}")
        self._body(key, f"{what} {mbw.square_name(sq)}", city.owner, parts, self.centre(sq),
                   PLATE_IN, static=True)
        self._cities[sq] = key

    def _unit_key(self, uid: str) -> str:
        return f"mbw-{uid}"

    def setup(self) -> None:
        """Build the board, Blocks, Capitals, starting units and the Goblet."""
        r = self.rules
        n = self.section.square_studs
        plate = SQUARE_PLATES[n]
        parts = []
        for c in range(r.width):
            for row in range(r.height):
                x, y = self.centre((c, row))
                colour = BOARD_COLOURS[(c + row) % 2]
                for k in range(n // 2):
                    parts.append(_part(plate, colour, x, y + (2 * k - (n // 2 - 1)) * STUD_IN,
                                       top=PLATE_IN))
        self._body("mbw-board", "the chessboard", None, parts, (0.0, 0.0), 0.0, static=True)
        for b in sorted(r.blocks):
            x = [_part("3001", BLOCK_COLOUR, 0, y, top=t) for y in (-STUD_IN, STUD_IN)
                 for t in (BRICK_IN, 2 * BRICK_IN)]
            self._body(f"mbw-block-{mbw.square_name(b)}", f"Block {mbw.square_name(b)}", None, x,
                       self.centre(b), PLATE_IN, static=True)
        for sq in sorted(r.cities):
            self._city_body(sq)
        for u in sorted(r.units.values(), key=lambda u: u.serial):
            self._unit_body(u)
        self._goblet_body()
        self._tidy()
        self.game.settle(quiet=True)
        self.game.log("mbw", f"Micro Brick War on a {r.width} x {r.height} board: "
                      + ", ".join(f"{p}'s Capital {mbw.square_name(c.square)}"
                                  for c in r.cities.values() if c.capital for p in [c.home])
                      + f"; {r.goblet_chooser} places the Golden Goblet"
                      + (f" (on {mbw.square_name(r.goblet)})"
                         if r.goblet_placed and r.goblet is not None else "")
                      + f"; {r.turn_limit} turns", what="setup",
                      board=[r.width, r.height], turn_limit=r.turn_limit)

    def _unit_body(self, u) -> None:
        key = self._unit_key(u.id)
        xy = self._slot_points(u.square).get(u.id, self.centre(u.square))
        self._body(key, u.id, u.owner, unit_parts(u.kind, self._colour(u.owner)), xy,
                   self._surface(u.square), static=False)

    def _goblet_body(self) -> None:
        r = self.rules
        if "mbw-goblet" in self.game.bodies or not r.goblet_placed:
            return
        parts = [_part("3024", GOBLET_COLOUR, top=PLATE_IN),
                 _part("3005", GOBLET_COLOUR, top=PLATE_IN + BRICK_IN)]
        xy, z = self._goblet_spot()
        self._body("mbw-goblet", "the Golden Goblet", None, parts, xy, z, static=False)

    def _goblet_spot(self):
        r = self.rules
        if r.goblet_holder is not None:
            u = r.units[r.goblet_holder]
            _, _, at = self._anchor[self._unit_key(u.id)]
            dx, top = FIGURE_HEAD[u.kind]
            return at[:2] + np.array([dx, 0.0]), float(at[2] + top)
        sq = r.goblet  # in a corner of its square, beside any unit standing there
        return self.centre(sq) + 1.5 * STUD_IN, self._surface(sq)

    def _tidy(self) -> None:
        """Set every piece the rules keep back on its square (physics only shows things)."""
        r = self.rules
        live = {self._unit_key(u.id) for u in r.units.values()}
        for sq in sorted({u.square for u in r.units.values()}):
            for uid, xy in self._slot_points(sq).items():
                self._place(self._unit_key(uid), xy, self._surface(sq))
        for key in list(self._anchor):
            if key.startswith("mbw-") and key != "mbw-goblet" and key not in live:
                self._take_off(key)
                del self._anchor[key]
        if "mbw-goblet" in self._anchor and (r.goblet_placed):
            xy, z = self._goblet_spot()
            self._place("mbw-goblet", xy, z)
        for f in sorted(set(self._farms) - set(r.farms)):
            self._take_off(self._farms.pop(f))
        for f in sorted(r.farms):
            if f not in self._farms:
                key = self._fresh_key(f"mbw-farm-{mbw.square_name(f)}")
                self._body(key, f"farm {mbw.square_name(f)}", r.farms[f],
                           [_part("3022", FARM_COLOUR, top=PLATE_IN)], self.centre(f), PLATE_IN,
                           static=True)
                self._farms[f] = key
        for sq in sorted(r.cities):
            self._city_body(sq)

    def _fresh_key(self, key: str) -> str:
        """``key``, or ``key-2``, ``key-3``... when a body of that key was on the table before."""
        n, out = 1, key
        while out in self.game.bodies:
            n += 1
            out = f"{key}-{n}"
        return out

    # ------------------------------------------------------------------ engine hooks
    def state(self) -> dict:
        return self.rules.to_dict()

    def refusal(self, action: Any) -> str:
        try:
            ra = to_rules(action, self.rules.width, self.rules.height)
        except RulesError as exc:
            return str(exc)
        return self.rules.refusal(ra, action.player)

    def apply(self, action: Any, index: int) -> None:
        r = self.rules
        ra = to_rules(action, r.width, r.height)
        attacker = r.units[ra.unit] if isinstance(ra, mbw.Attack) else None
        frm = attacker.square if attacker is not None else None
        lines = r.apply(ra, self.game.dice.stream("mbw"))
        fights = list(r.fights)
        removed = list(r.removed)
        for f in fights:
            self.game.log("mbw_fight", f.words(), attacker=f.attacker, defender=f.defender,
                          attack_die=f.attack_die, attack_total=f.attack_total,
                          defend_die=f.defend_die, defend_total=f.defend_total,
                          city_bonus=f.defend_bonus, attacker_won=f.attacker_won)
        for line in lines:
            if not any(line == f.words() for f in fights):
                self.game.log("mbw", line, what=action.type, player=action.player)
        # bodies: new units, stone, knock-offs
        for u in sorted(r.units.values(), key=lambda u: u.serial):
            if self._unit_key(u.id) not in self.game.bodies:
                self._unit_body(u)
        self._goblet_body()
        if isinstance(ra, mbw.Attack) and attacker is not None and attacker.kind == "catapult":
            self._throw_stone(frm, ra.target, index)
        for uid in removed:
            if isinstance(ra, mbw.FoundCity):
                continue
            self._knock_off(self._unit_key(uid), frm)
        if isinstance(ra, mbw.DropGoblet) and "mbw-goblet" in self._anchor:
            # dropped: the Goblet falls from its holder's head as a free body
            xy, z = self._goblet_spot()
            self._place("mbw-goblet", xy + np.array([STUD_IN, 0.0]), z + GOBLET_DROP_IN)
            self.game.settle()
        self._tidy()
        self.game.record_frame(force=True)
        self.game.settle(quiet=True)
        self._announce()

    def _throw_stone(self, frm, target, index: int) -> None:
        """A real stone launched along the solved low arc to the target square."""
        key = f"mbw-stone-{index}"
        start = self.centre(frm)
        z0 = self._surface(frm) + BRICK_IN + 2 * PLATE_IN + 0.15
        goal = np.array([*self.centre(target), self._surface(target) + BRICK_IN / 2])
        origin = np.array([start[0], start[1], z0])
        launches = solve_launch(origin, goal, STONE_SPEED_IN_S)
        self._body(key, "a Catapult stone", None, [_part("3024", 0, top=PLATE_IN)],
                   start, z0, static=False)
        v = launches[0].velocity
        self.game.world.set_velocity(key, v)
        self.game.log("launch", f"The Catapult on {mbw.square_name(frm)} hurls a stone at "
                      f"{mbw.square_name(target)} (low arc, {np.degrees(launches[0].elevation):.1f}"
                      f" deg; the d6 already decided the fight)", body=key,
                      **launches[0].to_dict())
        self.game.settle()
        self._take_off(key)
        self._anchor.pop(key, None)

    def _knock_off(self, key: str, frm) -> None:
        """A beaten unit is knocked away with an impulse; off the table it goes."""
        if key not in self.game.world.bodies:
            return
        _, _, at = self._anchor[key]
        away = at[:2] - (self.centre(frm) if frm is not None else np.zeros(2))
        if float(np.linalg.norm(away)) < 1e-6:
            away = at[:2] if float(np.linalg.norm(at[:2])) > 1e-6 else np.array([1.0, 0.0])
        away = away / float(np.linalg.norm(away))
        self.game.world.set_velocity(key, (float(away[0] * KNOCK_SPEED_IN_S),
                                           float(away[1] * KNOCK_SPEED_IN_S),
                                           KNOCK_SPEED_IN_S * 0.6), (0.0, 9.0, 0.0))
        self.game.log("mbw", f"{self.game.bodies[key].name} is knocked off the board",
                      what="knocked_off", body=key)
        self.game.settle(max_seconds=1.5)
        self._take_off(key)
        self._anchor.pop(key, None)

    def _announce(self) -> None:
        r = self.rules
        if r.over and not self._decided:
            self._decided = True
            text = (f"{r.winner} wins Micro Brick War" if r.winner else
                    "Micro Brick War ends in a draw: nobody holds the Golden Goblet")
            how = "conquest" if r.winner and len(r.eliminated) == len(r.players) - 1 else "goblet"
            self.game.log("mbw_victory", text, winner=r.winner, by=how if r.winner else "draw",
                          eliminated=list(r.eliminated))

    def end_of_player_turn(self, turn: int, player: str) -> None:
        r = self.rules
        if r.over or r.player != player:
            return
        placed = r.goblet_placed
        for line in r.apply(mbw.EndTurn()):
            if not line.endswith("ends the turn"):
                self.game.log("mbw", line, what="end_turn", player=player)
        if r.goblet_placed and not placed:
            self._goblet_body()
            self._tidy()
            self.game.settle(quiet=True)
        self._announce()

    # ------------------------------------------------------------------ the outcome
    def outcome(self, final: bool = False) -> Outcome:
        """Micro Brick War's end (004): conquest (one player holds every Capital: "conquer
        the world by huge army built") or, after the last turn, the Golden Goblet (its holder
        wins; nobody holding it is a draw). Until then the game goes on; stopped earlier
        (``final``) it is truncated with no winner."""
        r = self.rules
        if r.over:
            why = next((line for line in reversed(r.log) if "wins" in line or "draw" in line),
                       "")
            how = ("conquest" if r.winner and len(r.eliminated) == len(r.players) - 1
                   else "the Golden Goblet")
            return Outcome(terminated=True, winner=r.winner, draw=r.winner is None,
                           reason=f"{how}: {why}" if why else how)
        return Outcome(truncated=final, reason=f"turn {r.turn} of {r.turn_limit}: no player "
                       "holds every Capital yet")

    # ------------------------------------------------------------------ checks
    def check(self) -> list[str]:
        """The scene's ``[micro_brick_war.expect]``, failed ones in words."""
        exp = self.section.expect
        if exp is None:
            return []
        r = self.rules
        fails = []
        if exp.winner is not None:
            got = r.winner if r.over else None
            want = None if exp.winner == "draw" else exp.winner
            if not r.over or got != want:
                fails.append(f"micro_brick_war.expect.winner: wanted {exp.winner}, got "
                             + (str(got or "draw") if r.over else "no result (game not over)"))
        for p in exp.eliminated:
            if p not in r.eliminated:
                fails.append(f"micro_brick_war.expect.eliminated: {p} was not conquered")
        for uid in exp.units:
            if uid not in r.units:
                fails.append(f"micro_brick_war.expect.units: {uid} is not on the board")
        for uid in exp.gone:
            if uid in r.units:
                fails.append(f"micro_brick_war.expect.gone: {uid} is still on the board")
        for sq in exp.cities:
            if mbw.parse_square(sq, r.width, r.height) not in r.cities:
                fails.append(f"micro_brick_war.expect.cities: no City on {sq}")
        if exp.goblet_holder is not None and r.goblet_holder != exp.goblet_holder:
            fails.append(f"micro_brick_war.expect.goblet_holder: wanted {exp.goblet_holder}, "
                         f"got {r.goblet_holder}")
        return fails

    def panel_lines(self) -> list[str]:
        """The game in a few lines for the window's panel."""
        r = self.rules
        lines = [f"Micro Brick War: turn {r.turn}/{r.turn_limit}, {r.player} to play"]
        for p in r.players:
            n = sum(1 for u in r.units.values() if u.owner == p)
            f = sum(1 for o in r.farms.values() if o == p)
            c = sum(1 for sq in r.cities if r.controller(sq) == p)
            lines.append(f"{p}: {n} units, {f} farms, {c} cities"
                         + (" (conquered)" if p in r.eliminated else ""))
        if r.goblet_holder:
            lines.append(f"Golden Goblet: held by {r.goblet_holder}")
        elif r.goblet_placed and r.goblet is not None:
            lines.append(f"Golden Goblet: on {mbw.square_name(r.goblet)}")
        if r.over:
            lines.append(f"Winner: {r.winner}" if r.winner else "Draw")
        return lines


def ai_action(game, player: str | None = None, iterations: int = 48) -> dict | None:
    """The computer opponent's next action for ``player`` (default: the player to move) as
    an action dict for ``game.apply``; None means end the turn (``game.end_turn()``).

    Raises
    ------
    KeyError
        The game is not Micro Brick War.
    """
    sysm = game.system("micro_brick_war")
    r = sysm.rules
    player = player or game.current_player
    a = choose_action(r, player, iterations=iterations, seed=game.seed)
    return from_rules(a, player, game.turn)


def ai_play_turn(game, iterations: int = 48, max_actions: int = 200) -> int:
    """The computer plays the current player's whole turn on ``game`` (its actions logged like
    any other), ending it. Returns the number of actions applied (end of turn included)."""
    for n in range(max_actions):
        if game.over:
            return n
        d = ai_action(game, iterations=iterations)
        if d is None:
            game.end_turn()
            return n + 1
        game.apply(d)
    game.end_turn()
    return max_actions + 1
