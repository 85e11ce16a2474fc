"""Micro Brick War at the tabletop window (the game kind's ``window``, imported by the window
only; it reads no Panda3D): clicks on squares become ``mbw_*`` actions, legal
squares are highlighted, computer seats play themselves.

- Click one of your Cities or Capitals: it is selected; its free squares around are ringed
  yellow (click one to farm it); keys ``1``-``4`` build an Infantry, Cavalry, Catapult or
  Caravan there.
- Click a square with your units (again: the next unit there): the unit is selected; the squares
  it may move to are ringed green, those it may attack red; click one to move or attack.
  ``C`` turns a selected Caravan into a City; ``D`` drops the Golden Goblet.
- The Goblet's chooser, before placing it, sees the candidate squares ringed gold: click one.
- ``E`` ends the turn (the window's own key). Seats in ``ai`` (the scene's
  ``micro_brick_war.ai`` or ``sandbox play --ai``) are played by the computer opponent, one
  logged action at a time, whenever it is their turn and the table is still.

Reads the game through its public names only; every action goes through ``app.submit`` like any
other (so undo, saves and replays see it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...app.table.keymap import KeyCommand, game_key
from ...app.table.mode import Drawn, Mode
from ...app.table.modes_common import SelectMode
from ...engine.actions import EndTurnAction, parse_action
from ...render.view import Marker
from ...rules import micro_brick_war as mbw
from .system import ai_action

if TYPE_CHECKING:  # pragma: no cover
    from ...app.table.app import TabletopApp

BUILD_KEYS = {"1": "infantry", "2": "cavalry", "3": "catapult", "4": "caravan"}
_GREEN = (0.3, 1.0, 0.4, 0.95)
_RED = (1.0, 0.25, 0.2, 0.95)
_YELLOW = (1.0, 0.85, 0.2, 0.95)
_GOLD = (1.0, 0.7, 0.1, 0.95)
_WHITE = (1.0, 1.0, 1.0, 0.95)


class MbwInput:
    """The window's Micro Brick War layer (one per :class:`TabletopApp` whose game has the
    ``micro_brick_war`` system)."""

    def __init__(self, app: "TabletopApp", ai_seats=()):
        self.app = app
        self.unit: str | None = None
        self.city: tuple | None = None
        self.ai_seats = set(ai_seats) | set(self.system.section.ai)

    @property
    def system(self):
        return self.app.session.system("micro_brick_war")

    @property
    def rules(self) -> mbw.State:
        return self.system.rules

    def clear(self) -> None:
        self.unit, self.city = None, None
        self.app.overlays_dirty = True

    # ------------------------------------------------------------------ input
    def _submit(self, d: dict) -> None:
        app = self.app
        d = {**d, "player": app.session.current_player}
        action = parse_action(d)
        why = app.session.refusal(action)
        if why:
            app.flash(why, error=True)
            return
        self.clear()
        app.submit(action)

    def click(self, hit) -> bool:
        """A click on the table; True when it was a Micro Brick War click."""
        if hit is None:
            return False
        sq = self.system.square_at(hit.point)
        if sq is None:
            self.clear()
            return True
        r = self.rules
        name = mbw.square_name(sq)
        p = self.app.session.current_player
        if not r.goblet_placed and p == r.goblet_chooser and sq in r.goblet_candidates() \
                and self.unit is None and self.city is None:
            self._submit({"type": "mbw_place_goblet", "square": name})
            return True
        if self.unit is not None and self.unit in r.units:
            u = r.units[self.unit]
            if sq in r.reachable(u) and not r.refusal(mbw.Move(u.id, sq), p):
                self._submit({"type": "mbw_move", "unit": u.id, "to": name})
                return True
            if not r.refusal(mbw.Attack(u.id, sq), p):
                self._submit({"type": "mbw_attack", "unit": u.id, "target": name})
                return True
        if self.city is not None and not r.refusal(mbw.Farm(self.city, sq), p):
            self._submit({"type": "mbw_farm", "city": mbw.square_name(self.city), "square": name})
            return True
        mine = [u.id for u in r.units_at(sq) if u.owner == p]
        ours = sq in r.cities and r.controller(sq) == p
        if ours and self.city != sq and (self.unit is None or self.unit not in mine
                                         or self.unit == mine[-1]):
            self.unit, self.city = None, sq
            self.app.flash(f"City {name}: click a ringed square to farm, 1-4 builds "
                           "Infantry / Cavalry / Catapult / Caravan")
        elif mine:
            i = mine.index(self.unit) + 1 if self.unit in mine else 0
            if i >= len(mine):
                i = 0
            self.unit, self.city = mine[i], None
            u = r.units[self.unit]
            self.app.flash(f"{u.id}: {u.moves_left} square(s) of Speed left"
                           + (", attacked" if u.attacked else "")
                           + ("; C founds a City" if u.kind == "caravan" else "")
                           + ("; D drops the Goblet" if r.goblet_holder == u.id else ""))
        else:
            self.clear()
            what = self._describe(sq)
            if what:
                self.app.flash(what)
        self.app.overlays_dirty = True
        return True

    def _describe(self, sq) -> str:
        r = self.rules
        name = mbw.square_name(sq)
        if sq in r.blocks:
            return f"{name}: a Block"
        if sq in r.cities:
            c = r.cities[sq]
            return (f"{name}: {'Capital' if c.capital else 'City'} of {c.owner or 'nobody'}, "
                    f"held by {r.controller(sq) or 'nobody'}, {r.slots_used(sq)}/{c.slots} slots")
        if sq in r.farms:
            return f"{name}: {r.farms[sq] or 'nobody'}'s farm"
        us = r.units_at(sq)
        if us:
            return f"{name}: {us[0].id}"
        return ""

    def stat_card(self) -> list[str]:
        """Micro Brick War's card of the selection: a unit's type (Attack, Defend, Speed left,
        slots), its square; a City's or Capital's capacity (slots used of 4 or 16), who holds
        it, its farms and what it may build (UNIT TABLE costs in farms); [] when nothing is
        selected."""
        r = self.rules
        if self.unit is not None and self.unit in r.units:
            u = r.units[self.unit]
            t = u.type
            lines = [f"{t.name.title()} {u.id} ({u.owner}) on {mbw.square_name(u.square)}",
                     f"Attack +{t.attack}  Defend +{t.defend}  Speed {t.speed} "
                     f"({u.moves_left} left)  slots {t.slots}"]
            if u.attacked:
                lines.append("attacked this turn")
            if u.kind == "caravan":
                lines.append("C founds a City here (after standing a turn)")
            return lines
        if self.city is not None and self.city in r.cities:
            sq = self.city
            c = r.cities[sq]
            kind = "Capital" if c.capital else "City"
            farms = sorted(mbw.square_name(f) for f in r.neighbours(sq) if f in r.farms)
            lines = [f"{kind} {mbw.square_name(sq)} of {c.owner or 'nobody'}, held by "
                     f"{r.controller(sq) or 'nobody'}",
                     f"capacity {r.slots_used(sq)} of {c.slots} slots"
                     + ("; acted this turn" if c.acted else ""),
                     f"farms around it: {', '.join(farms) if farms else 'none'}",
                     "build: " + ", ".join(f"{i} {mbw.UNIT_TYPES[k].name} "
                                           f"({mbw.UNIT_TYPES[k].cost} farms)"
                                           for i, k in BUILD_KEYS.items())]
            return lines
        return []

    def key(self, n: str) -> bool:
        """A key press; True when Micro Brick War used it."""
        if self.city is not None and n in BUILD_KEYS:
            self._submit({"type": "mbw_build", "city": mbw.square_name(self.city),
                          "kind": BUILD_KEYS[n]})
            return True
        if self.unit is not None and n == "c":
            self._submit({"type": "mbw_found_city", "unit": self.unit})
            return True
        if self.unit is not None and n == "d":
            self._submit({"type": "mbw_drop_goblet", "unit": self.unit})
            return True
        if n == "escape" and (self.unit is not None or self.city is not None):
            self.clear()
            return True
        if n == "e":
            self.clear()
        return False

    # ------------------------------------------------------------------ per frame
    def tick(self) -> None:
        """A computer seat whose turn it is plays its next action (the table must be still)."""
        app = self.app
        g = app.session
        if app.busy or g.over or self.rules.over or g.current_player not in self.ai_seats:
            return  # a decided game: nothing more to play
        d = ai_action(g)
        if d is None:
            app.submit(EndTurnAction(type="end_turn", player=g.current_player))
        else:
            app.submit(parse_action(d))

    def markers(self) -> list[Marker]:
        """Rings on the squares the selection may use (and the Goblet's candidates)."""
        r = self.rules
        s = self.system
        p = self.app.session.current_player
        out: list[Marker] = []
        rad = s.square_in * 0.42

        def ring(sq, colour, z=0.2):
            c = s.centre(sq)
            out.append(Marker.ring((float(c[0]), float(c[1]), z), rad, colour=colour, width=0.07))

        if not r.goblet_placed and p == r.goblet_chooser:
            for sq in r.goblet_candidates():
                ring(sq, _GOLD)
        if self.unit is not None and self.unit in r.units:
            u = r.units[self.unit]
            ring(u.square, _WHITE, 0.5)
            for sq in r.reachable(u):
                ring(sq, _GREEN)
            for a in r.legal_actions(p):
                if isinstance(a, mbw.Attack) and a.unit == u.id:
                    ring(a.target, _RED, 0.5)
        elif self.city is not None and self.city in r.cities:
            ring(self.city, _WHITE, 0.5)
            for n in r.neighbours(self.city):
                if not r.refusal(mbw.Farm(self.city, n), p):
                    ring(n, _YELLOW)
        return out

    def panel(self) -> str:
        lines = self.system.panel_lines()
        if self.ai_seats:
            lines.append("Computer: " + ", ".join(sorted(self.ai_seats)))
        return "\n".join(lines)



# ------------------------------------------------------------------------------ the window mode


class MbwMode(SelectMode):
    """Micro Brick War's home mode: clicks on squares, ``1``-``4`` build, ``C`` founds a
    City, ``D`` drops the Goblet, the legal squares ringed in every mode (:class:`MbwInput`)."""

    computer_seats = True  # the computer opponent plays the --ai seats (MbwInput.tick)

    def __init__(self, inp):
        super().__init__(inp)
        self.mbw = MbwInput(inp.app, getattr(inp.app, "ai_seats", ()))

    def click(self, x: float, y: float, hit) -> None:
        if not self.mbw.click(hit):
            super().click(x, y, hit)

    def key(self, name: str) -> bool:
        return self.mbw.key(name) or super().key(name)

    def stat_card(self, key: str | None) -> list[str]:
        return self.mbw.stat_card()

    def draw_home(self, drawn: Drawn) -> None:
        drawn.markers.extend(self.mbw.markers())

    def panel(self) -> str:
        return self.mbw.panel()

    def tick(self) -> None:
        self.mbw.tick()


#: The game's window modes (the kind's ``window``): the home mode, named ``select``.
MODES: tuple[type[Mode], ...] = (MbwMode,)

#: The key map's tag of Micro Brick War (its kind's name).
MBW = frozenset({"micro_brick_war"})
K = KeyCommand
#: Micro Brick War's rows of the key map (its home mode takes the keys), before the common
#: rows they share letters with.
KEYS: tuple[KeyCommand, ...] = (
    K((), "click", "a square: select, move, attack, farm", games=MBW, modes=("select",)),
    K(tuple("1234"), "1-4", "build Infantry/Cavalry/Catapult/Caravan in the City", game_key,
      games=MBW),
    K(("c",), "C", "found a City (Caravan)", game_key, games=MBW),
    K(("d",), "D", "drop the Goblet", game_key, games=MBW),
    K(("escape", "e"), "", "", game_key, games=MBW),  # clear the selection, then on
)
