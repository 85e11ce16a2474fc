"""The window's gestures turned into Brigandine orders (``brig_*`` actions), without a window.

:class:`BrigandineOrders` is what ``sandbox play`` uses on a ``game = "brigandine"`` scene; it
reads the game (phase, the selected unit) and builds the action the gesture means, which the
window then submits like any other (a refusal is flashed with the rule's reason):

* phase 1: ``I`` delays initiative (counts as 1);
* phase 2: ``1``-``7`` toggle what the selected unit declares (move, charge, shoot, melee,
  artillery, reload, joust), a click on an enemy picks the artillery target, ``Enter``
  declares (hidden until the phase ends: pass the screen);
* phases 3 and 7: drag a unit to move it (half movement); shift-drag charges toward the point
  (phase 3); ``W`` draws the side arm (phase 3); ``R`` reloads;
* phases 4 and 8: with an archer selected, click an enemy to shoot;
* phase 5: with a unit selected, click an enemy to melee (``1``-``3`` pick Skirmish,
  Man-to-Man or Fantasy Combat first); ``D`` takes Defensive Action.
"""

from __future__ import annotations

from typing import Any

from ..games.brigandine.scene import (
    BrigCharge,
    BrigDeclare,
    BrigDefend,
    BrigDelay,
    BrigDraw,
    BrigMelee,
    BrigMove,
    BrigReload,
    BrigShoot,
    round_phase,
)

#: What the digit keys toggle in phase 2, in order.
DECLARE_KEYS: tuple[str, ...] = ("move", "charge", "shoot", "melee", "artillery", "reload",
                                 "joust")
#: What the digit keys pick in phase 5.
MELEE_KEYS: tuple[str, ...] = ("skirmish", "man_to_man", "fantasy")


class BrigandineOrders:
    """Builds ``brig_*`` actions from window gestures for one game (see the module text)."""

    def __init__(self, game: Any):
        self.game = game
        self.declaring: dict[str, list[str]] = {}
        self.target: str | None = None
        self.system = "skirmish"

    @staticmethod
    def plays(game: Any) -> bool:
        """True when ``game`` is a Brigandine game."""
        return getattr(game.spec, "game", "") == "brigandine"

    @property
    def phase(self) -> int:
        return round_phase(max(1, self.game.turn))[1]

    def is_enemy(self, key: str) -> bool:
        """``key`` is a Brigandine unit of another player than the one giving orders."""
        units = getattr(self.game.system("brigandine"), "units", {})
        return key in units and units[key].owner != self.game.current_player

    def _base(self) -> dict:
        return {"player": self.game.current_player, "turn": self.game.turn}

    def prompt(self) -> str:
        """The help line for the current phase."""
        return {
            1: "I: delay initiative   E: done (pass the screen)",
            2: "select a unit, 1-7: toggle move/charge/shoot/melee/artillery/reload/joust, "
               "click enemy: artillery target, Enter: declare (hidden)   E: done",
            3: "drag: half move   shift-drag: charge   W: draw side arm   R: reload   E: done",
            4: "select an archer, click an enemy: shoot   E: done",
            5: "select a unit, 1-3: skirmish/man-to-man/fantasy, click an enemy: melee   "
               "D: Defensive Action   E: done",
            6: "artillery fires as declared   E: done",
            7: "drag: half move   R: reload a crossbow   E: done",
            8: "select an archer who only shot, click an enemy: second shot   E: done",
        }[self.phase]

    def key(self, name: str, selected: str | None) -> Any:
        """The order a key means now (or None: it only changed the choices, or means
        nothing in this phase). ``selected`` is the selected body key."""
        p, n = self.phase, name.lower()
        if p == 1 and n == "i":
            return BrigDelay(type="brig_delay", **self._base())
        if selected is None:
            return None
        if p == 2 and n.isdigit() and 1 <= int(n) <= len(DECLARE_KEYS):
            what = DECLARE_KEYS[int(n) - 1]
            items = self.declaring.setdefault(selected, [])
            items.remove(what) if what in items else items.append(what)
            return None
        if p == 2 and n == "enter" and self.declaring.get(selected):
            does = [d for d in DECLARE_KEYS if d in self.declaring[selected]]
            return BrigDeclare(type="brig_declare", unit=selected, does=does,
                               target=self.target if "artillery" in does else None,
                               **self._base())
        if p == 5 and n.isdigit() and 1 <= int(n) <= len(MELEE_KEYS):
            self.system = MELEE_KEYS[int(n) - 1]
            return None
        if p == 5 and n == "d":
            return BrigDefend(type="brig_defend", unit=selected, **self._base())
        if n == "r":
            return BrigReload(type="brig_reload", unit=selected, **self._base())
        if n == "w":
            return BrigDraw(type="brig_draw", unit=selected, **self._base())
        return None

    def click(self, selected: str | None, target: str) -> Any:
        """The order a click on body ``target`` means with ``selected`` selected (or None)."""
        p = self.phase
        if selected is None or target == selected:
            return None
        if p == 2:
            self.target = target
            return None
        if p in (4, 8):
            return BrigShoot(type="brig_shoot", units=[selected], target=target, **self._base())
        if p == 5:
            return BrigMelee(type="brig_melee", unit=selected, target=target, system=self.system,
                             **self._base())
        return None

    def drag(self, unit: str, to: tuple[float, float], shift: bool = False) -> Any:
        """A unit dragged to ``to`` (x, y inches): a move, or with shift a charge (phase 3)."""
        to = (round(float(to[0]), 4), round(float(to[1]), 4))
        if shift and self.phase == 3:
            return BrigCharge(type="brig_charge", unit=unit, toward=to, **self._base())
        return BrigMove(type="brig_move", unit=unit, to=to, **self._base())


# ------------------------------------------------------------------------------ the window mode
from .table.mode import home_mode  # noqa: E402  (the gestures above need no window)
from .table.modes_common import SelectMode  # noqa: E402


@home_mode("brigandine")
class BrigandineMode(SelectMode):
    """Brigandine's home mode in the window: drags are half moves (shift-drag a charge), a
    click on an enemy shoots, melees or picks the artillery target, and the phase's keys
    (``I``, ``1``-``7``, ``Enter``, ``D``, ``R``, ``W``) give orders (see the module text)."""

    def __init__(self, inp):
        super().__init__(inp)
        self._orders: BrigandineOrders | None = None

    @property
    def orders(self) -> BrigandineOrders:
        """The gestures of the game on the table (made again when the game changes)."""
        if self._orders is None or self._orders.game is not self.session:
            self._orders = BrigandineOrders(self.session)
        return self._orders

    def may_drag(self, key: str) -> str:
        return ""  # the order says whether it may move (a refusal is flashed)

    def moved(self, unit: str, dest) -> None:
        self.app.submit(self.orders.drag(unit, (dest[0], dest[1]), self.inp.shift))

    def click(self, x: float, y: float, hit) -> None:
        app, orders = self.app, self.orders
        key = hit.key if hit is not None and hit.key != "ground" else None
        if key is not None and app.selected is not None and orders.is_enemy(key):
            order = orders.click(app.selected, key)
            if order is not None:
                app.submit(order)
                return
            if orders.phase == 2 and key != app.selected:
                app.flash(f"Artillery target: {app.session.body(key).name}")
                return
        super().click(x, y, hit)

    def key(self, name: str) -> bool:
        app, orders = self.app, self.orders
        if not (name in ("i", "d", "r", "w", "enter") or name.isdigit()):
            return super().key(name)
        order = orders.key(name, app.selected)
        if order is not None:
            app.submit(order)
        elif name.isdigit() and orders.phase == 2 and app.selected is not None:
            app.flash("Declares: "
                      f"{', '.join(orders.declaring.get(app.selected, [])) or 'nothing'}"
                      " (Enter: declare, hidden)")
        elif name.isdigit() and orders.phase == 5:
            app.flash(f"Melee by {orders.system.replace('_', '-')}: click an enemy")
        return True

    def status(self) -> str:
        return "   " + self.orders.prompt()
