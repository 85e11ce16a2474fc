"""The players' own hands on the table: a dice tray, "done" markers, rulers and templates that
stay on the table, and picking up and putting down loose objects.

What Tabletop Simulator players take for granted, as engine actions (so saves, replays, undo
and the network see them exactly like moves and attacks):

- ``roll_dice``: the acting player rolls dice themselves (``"2d6"``, ``"1d10+1d4+2"``) from the
  seeded named stream ``tray``; every die is logged as a ``roll`` event, then the total as a
  ``dice_tray`` event.
- ``mark_done``: a unit is marked done for this turn (or unmarked); the marks of a player's
  units are cleared when that player's next turn begins.
- ``place_marker`` / ``remove_marker``: a ruler between two points (its length in inches is
  shown) or a circular template of a radius in inches, kept on the table (and in the state
  hash) until its player removes it. Ids are ``m1``, ``m2``, … in the order placed.
- ``pick_up`` / ``put_down``: a unit picks up a loose object (a body that is not a unit and not
  fixed: a barrel, a chest of Loot) within :data:`CARRY_REACH_IN` of it, edge to edge; the
  object then travels with every move of its carrier (the engine's one move,
  :meth:`sandbox.engine.game.Game.move_unit`, carries it, as an Escapade walk off a friendly
  edge does, BrikWars 13.1); ``put_down`` sets it down at a point within reach (or leaves it
  where it is). One item per unit.
- ``place_body``: the referee's hand (a referee's tool, :attr:`Action.actor` ``"referee"``):
  any body on the table (a unit of either side, a creation, a piece of rubble) is lifted and
  set down so that its footprint centre is at a point of the battlefield; nothing on the way
  sees it (no Field, no Trap: it is not walked there) and no Move is spent. Refused to players;
  a scene script, a table opened with the referee option (``sandbox play --referee``) and the
  referee's seat online issue it.

Rules: the dice tray, the done marks and the markers are the players' own aids and change
nothing of the battle; carrying follows 13.1's reach ("within 1 inch"); placing a body is the
referee's correction of the table (a model knocked over by a sleeve, a model set where the
players agree it stands), no rule of any game.
"""

from __future__ import annotations

import re
from typing import ClassVar, Literal, Mapping

import numpy as np
from pydantic import Field

from ..core.dice import DiceError, DiceExpression
from ..core.errors import RulesError
from .actions import Action, name_of
from .scene_types import Vec2
from .table import System, handles, refuses

#: How far (inches, edge to edge) a unit reaches to pick up or put down an object (13.1).
CARRY_REACH_IN: float = 1.0
#: Most dice one tray roll may hold, and most faces a die may have.
TRAY_MAX_DICE: int = 40
TRAY_MAX_SIDES: int = 100
#: Most markers on the table at once, and the largest template radius (inches).
MAX_MARKERS: int = 64
MAX_TEMPLATE_RADIUS_IN: float = 48.0

_TERM = re.compile(r"([+-]?)\s*(\d*\s*d\s*\d+|\d+)", re.IGNORECASE)


def parse_tray(text: str) -> list[tuple[int, DiceExpression]]:
    """The terms of a dice-tray expression: ``"2d6+1d4-1"`` → [(+1, 2d6), (+1, 1d4), (-1, 1)].

    Raises
    ------
    RulesError
        Not a sum of dice and whole numbers, more than :data:`TRAY_MAX_DICE` dice, or a die of
        more than :data:`TRAY_MAX_SIDES` faces (one line quoting the text).
    """
    s = str(text).strip()
    if not s or len(s) > 80:
        raise RulesError(f"dice {text!r}: write dice like 2d6 or 1d10+1d4")
    pos, dice = 0, 0
    out: list[tuple[int, DiceExpression]] = []
    while pos < len(s):
        m = _TERM.match(s, pos)
        if m is None or (out and not m.group(1)) or m.end() == pos:
            raise RulesError(f"dice {text!r}: write dice like 2d6 or 1d10+1d4")
        sign = -1 if m.group(1) == "-" else 1
        try:
            expr = DiceExpression.parse(m.group(2).replace(" ", ""))
        except DiceError as exc:
            raise RulesError(f"dice {text!r}: {exc}") from None
        if expr.sides is not None and expr.sides > TRAY_MAX_SIDES:
            raise RulesError(f"dice {text!r}: a die has at most {TRAY_MAX_SIDES} faces")
        dice += expr.count
        out.append((sign, expr))
        pos = m.end()
        while pos < len(s) and s[pos] == " ":
            pos += 1
    if dice == 0:
        raise RulesError(f"dice {text!r}: no die to roll")
    if dice > TRAY_MAX_DICE:
        raise RulesError(f"dice {text!r}: {dice} dice; the tray holds {TRAY_MAX_DICE} at most")
    return out


class RollDice(Action):
    """The player rolls ``dice`` (``"2d6"``, ``"1d10+1d4"``) in the dice tray; ``reason`` is
    shown in the log."""

    type: Literal["roll_dice"]
    actor: ClassVar[str] = "player"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()
    dice: str = Field(max_length=80)
    reason: str = Field("", max_length=80)


class MarkDone(Action):
    """``unit`` is marked done for this turn (``done`` False: the mark is taken off)."""

    type: Literal["mark_done"]
    actor: ClassVar[str] = "player"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()
    unit: str
    done: bool = True


class PlaceMarker(Action):
    """A ruler from ``points[0]`` to ``points[1]``, or a circular template of ``radius`` inches
    centred on ``points[0]`` (x, y inches), left on the table until removed."""

    type: Literal["place_marker"]
    actor: ClassVar[str] = "player"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()
    kind: Literal["ruler", "template"]
    points: list[Vec2] = Field(min_length=1, max_length=2)
    radius: float = Field(0.0, ge=0.0, le=MAX_TEMPLATE_RADIUS_IN)
    label: str = Field("", max_length=40)


class RemoveMarker(Action):
    """Take marker ``marker`` (an id like ``m3``) off the table."""

    type: Literal["remove_marker"]
    actor: ClassVar[str] = "player"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()
    marker: str


class PickUp(Action):
    """``unit`` picks up the loose object ``item`` within 1" of it (13.1 reach)."""

    type: Literal["pick_up"]
    cost: ClassVar[str] = "free"
    unit: str
    item: str


class PutDown(Action):
    """``unit`` puts down what it carries: at ``to`` (x, y inches, its footprint centre,
    within 1" of the unit) or, without ``to``, where it is."""

    type: Literal["put_down"]
    cost: ClassVar[str] = "free"
    unit: str
    to: Vec2 | None = None


class PlaceBody(Action):
    """The referee lifts ``body`` (any body on the table, whoever owns it) and sets it down so
    that its footprint centre is at ``to`` (x, y inches), its turn unchanged."""

    type: Literal["place_body"]
    actor: ClassVar[str] = "referee"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()
    referee_note: ClassVar[str] = (
        "it lifts any body, whoever owns it, and sets it down anywhere, with no Move spent "
        "(a unit's own move is a 'move')")
    body: str = Field(description="the body placed: a unit of either side, a creation, rubble")
    to: Vec2 = Field(description="where its footprint centre is set down (x, y inches)")

    def describe(self, names: Mapping[str, str] | None = None) -> str:
        return (f"the referee places {name_of(names, self.body)} at "
                f"({self.to[0]:.2f}, {self.to[1]:.2f})")


class TableTools(System):
    """The dice tray, done marks, markers and carried objects (see the module notes)."""

    name = "tabletop"
    actions = (RollDice, MarkDone, PlaceMarker, RemoveMarker, PickUp, PutDown, PlaceBody)

    def __init__(self, game):
        super().__init__(game)
        #: Units marked done this turn.
        self.done: set[str] = set()
        #: Markers on the table by id: {"kind", "player", "points", "radius", "label"}.
        self.markers: dict[str, dict] = {}
        self.next_marker = 1
        #: What each unit carries: carrier key → item key.
        self.carried: dict[str, str] = {}

    # ------------------------------------------------------------------ reading
    def held(self, unit: str) -> str | None:
        """The item ``unit`` carries now (None when nothing, or when either has left the table
        or the carrier is destroyed)."""
        item = self.carried.get(unit)
        g = self.game
        if item is None or unit not in g.world.bodies or item not in g.world.bodies:
            return None
        st = g.bodies.get(unit)
        if st is None or st.damage.destroyed:
            return None
        return item

    def carrier_of(self, item: str) -> str | None:
        """Who carries ``item`` (None: nobody)."""
        return next((u for u, i in self.carried.items() if i == item and self.held(u)), None)

    def state(self) -> dict:
        return {"done": sorted(self.done),
                "markers": {k: self.markers[k] for k in sorted(self.markers)},
                "next_marker": self.next_marker,
                "carried": {u: self.carried[u] for u in sorted(self.carried) if self.held(u)}}

    # ------------------------------------------------------------------ hooks
    def start_of_player_turn(self, turn: int, player: str) -> None:
        """A player's units lose their done marks when the player's next turn begins."""
        g = self.game
        self.done = {k for k in self.done if k in g.bodies and g.bodies[k].owner != player}
        self.carried = {u: i for u, i in self.carried.items() if self.held(u)}

    # ------------------------------------------------------------------ actions
    def _unit_refusal(self, unit: str, player: str) -> str:
        g = self.game
        st = g.bodies.get(unit)
        if st is None:
            return f"no body called {unit!r} on the table"
        if st.kind != "unit":
            return f"{st.name} is not a unit"
        if st.owner != player:
            return f"{st.name} belongs to {st.owner or 'nobody'}, not to {player}"
        return ""

    @refuses(RollDice)
    def roll_refused(self, a: RollDice) -> str:
        try:
            parse_tray(a.dice)
        except RulesError as exc:
            return str(exc)
        return ""

    @refuses(MarkDone)
    def mark_refused(self, a: MarkDone) -> str:
        return self._unit_refusal(a.unit, a.player)

    @refuses(PlaceMarker)
    def marker_refused(self, a: PlaceMarker) -> str:
        if len(self.markers) >= MAX_MARKERS:
            return f"the table holds {MAX_MARKERS} markers at most: remove one first"
        if a.kind == "ruler" and len(a.points) != 2:
            return "a ruler needs two points"
        if a.kind == "template" and (len(a.points) != 1 or a.radius <= 0):
            return "a template needs one centre and a radius over 0 inches"
        for p in a.points:
            if self.game.spec.battlefield.off(p):
                return f"({p[0]:.2f}, {p[1]:.2f}) is off the battlefield"
        return ""

    @refuses(RemoveMarker)
    def remove_marker_refused(self, a: RemoveMarker) -> str:
        m = self.markers.get(a.marker)
        if m is None:
            return f"no marker {a.marker!r} on the table"
        if m["player"] != a.player:
            return f"marker {a.marker} is {m['player']}'s: only they may remove it"
        return ""

    @refuses(PickUp)
    def pick_up_refused(self, a: PickUp) -> str:
        g = self.game
        why = self._unit_refusal(a.unit, a.player) or g.act_refusal(a.unit, a.player)
        if why:
            return why
        st = g.bodies[a.unit]
        it = g.bodies.get(a.item)
        if it is None or a.item not in g.world.bodies or a.item == a.unit:
            return f"no loose object called {a.item!r} on the table"
        if it.kind == "unit":
            return f"{it.name} is a unit, not a loose object"
        if g.world.bodies[a.item].static:
            return f"{it.name} is fixed to the table"
        held = self.held(a.unit)
        if held is not None:
            return f"{st.name} already carries {g.bodies[held].name}"
        other = self.carrier_of(a.item)
        if other is not None:
            return f"{it.name} is carried by {g.bodies[other].name}"
        reach = g.measure(a.unit, a.item).inches
        if reach > CARRY_REACH_IN + 1e-9:
            return (f'{it.name} is {reach:.2f}" from {st.name}: it must be within '
                    f'{CARRY_REACH_IN:g}" to be picked up (13.1)')
        return ""

    @refuses(PutDown)
    def put_down_refused(self, a: PutDown) -> str:
        g = self.game
        why = self._unit_refusal(a.unit, a.player)
        if why:
            return why
        st = g.bodies[a.unit]
        item = self.held(a.unit)
        if item is None:
            return f"{st.name} carries nothing"
        if a.to is not None:
            reach = g.measure(a.unit, (a.to[0], a.to[1])).inches
            lo, hi = g.bounds(item)
            half = float(max(hi[0] - lo[0], hi[1] - lo[1])) / 2
            if reach - half > CARRY_REACH_IN + 1e-9:
                return (f"{g.bodies[item].name} can be put down within {CARRY_REACH_IN:g}\" "
                        f"of {st.name}, not {reach - half:.2f}\" away")
        return ""

    @handles(RollDice)
    def roll(self, a: RollDice, index: int) -> None:
        self._roll(a)

    @handles(MarkDone)
    def mark_done(self, a: MarkDone, index: int) -> None:
        g = self.game
        name = g.bodies[a.unit].name
        if a.done:
            self.done.add(a.unit)
        else:
            self.done.discard(a.unit)
        g.log("done", f"{name} is marked done for this turn" if a.done
              else f"{name} is no longer marked done", body=a.unit, done=a.done,
              player=a.player)

    @handles(PlaceMarker)
    def place_marker(self, a: PlaceMarker, index: int) -> None:
        g = self.game
        mid = f"m{self.next_marker}"
        self.next_marker += 1
        pts = [[round(float(p[0]), 4), round(float(p[1]), 4)] for p in a.points]
        self.markers[mid] = {"kind": a.kind, "player": a.player, "points": pts,
                             "radius": round(float(a.radius), 4), "label": a.label}
        if a.kind == "ruler":
            length = float(np.hypot(pts[1][0] - pts[0][0], pts[1][1] - pts[0][1]))
            text = (f"{a.player} lays a ruler ({mid}) from ({pts[0][0]:.2f}, "
                    f"{pts[0][1]:.2f}) to ({pts[1][0]:.2f}, {pts[1][1]:.2f}): "
                    f'{length:.2f}"')
        else:
            text = (f'{a.player} lays a {a.radius:g}" template ({mid}) at '
                    f"({pts[0][0]:.2f}, {pts[0][1]:.2f})")
        g.log("table_marker", text + (f" — {a.label}" if a.label else ""), marker=mid,
              kind=a.kind, points=pts, radius=round(float(a.radius), 4), player=a.player)

    @handles(RemoveMarker)
    def remove_marker(self, a: RemoveMarker, index: int) -> None:
        m = self.markers.pop(a.marker)
        self.game.log("table_marker_removed", f"{a.player} takes the {m['kind']} {a.marker} "
                      "off the table", marker=a.marker, player=a.player)

    @handles(PickUp)
    def pick_up(self, a: PickUp, index: int) -> None:
        g = self.game
        self.carried[a.unit] = a.item
        g.log("pick_up", f"{g.bodies[a.unit].name} picks up {g.bodies[a.item].name}",
              body=a.unit, item=a.item, player=a.player)

    @handles(PutDown)
    def put_down(self, a: PutDown, index: int) -> None:
        self._put_down(a)

    @refuses(PlaceBody)
    def place_refused(self, a: PlaceBody) -> str:
        g = self.game
        st = g.bodies.get(a.body)
        if st is None or a.body not in g.world.bodies:
            return f"no body called {a.body!r} on the table"
        if g.world.bodies[a.body].static:
            return f"{st.name} is fixed to the table"
        bf = g.spec.battlefield
        if bf.off(a.to):
            return (f"({a.to[0]:.2f}, {a.to[1]:.2f}) is off the {bf.width:g}\" x "
                    f"{bf.depth:g}\" battlefield")
        return ""

    @handles(PlaceBody)
    def _place(self, a: PlaceBody, index: int) -> None:
        """The engine's one move (what the body carries travels with it), lifted over the
        way: no system's ``on_path`` sees it; a body at the point refuses it."""
        self.game.move_unit(a.body, a.to, player=a.player, walk=False,
                            note=", placed by the referee", by="referee")

    def _roll(self, a: RollDice) -> None:
        g = self.game
        stream = g.dice.stream("tray")
        why = f"Dice tray ({a.player})" + (f": {a.reason}" if a.reason else "")
        total, parts = 0, []
        for sign, expr in parse_tray(a.dice):
            if expr.count == 0:
                total += sign * expr.modifier
                parts.append(f"{'-' if sign < 0 else '+'}{expr.modifier}")
                continue
            sides = int(expr.sides or 0)  # a term with dice has sides
            rolled = [stream.roll(sides, f"{why}: {expr}") for _ in range(expr.count)]
            values = [r.result for r in rolled]
            total += sign * (sum(values) + expr.modifier)
            parts.append(f"{'-' if sign < 0 else '+'}{expr} {values}")
        shown = " ".join(parts).lstrip("+")
        g.log("dice_tray", f"{a.player} rolls {a.dice.strip()}: {shown} = {total}"
              + (f" ({a.reason})" if a.reason else ""), dice=a.dice.strip(), total=total,
              player=a.player, reason=a.reason)

    def _put_down(self, a: PutDown) -> None:
        g = self.game
        item = self.held(a.unit)
        if item is None:  # the refusal said so before
            raise RulesError(f"{a.unit} carries nothing to put down")
        del self.carried[a.unit]
        name, iname = g.bodies[a.unit].name, g.bodies[item].name
        if a.to is None:
            g.log("put_down", f"{name} puts down {iname}", body=a.unit, item=item,
                  player=a.player)
            return
        g.move_unit(item, a.to, player=a.player, note=f", put down by {name}",
                    put_down_by=a.unit)
        g.log("put_down", f"{name} puts down {iname} at ({a.to[0]:.2f}, {a.to[1]:.2f})",
              body=a.unit, item=item, player=a.player, to=[float(a.to[0]), float(a.to[1])])
