"""Brigandine's window mode (the game kind's ``window``, imported by the window only): its
home mode, :class:`BrigandineMode`, turns drags, clicks and the phase's keys into the orders
:class:`~.orders.BrigandineOrders` builds (``brig_*`` actions; see :mod:`.orders` for the
gestures of each phase). Reads no Panda3D: the mode computes, the window draws.
"""

from __future__ import annotations

import numpy as np

from ...app.table.keymap import KeyCommand, game_key
from ...app.table.mode import Mode
from ...app.table.modes_common import SelectMode, edge_point
from ...render.view import Marker
from .orders import BrigandineOrders


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
            if orders.phase == 2 and orders.jousting is not None:
                app.flash(orders.joust_prompt(), 10.0)
                return
            if orders.phase == 2 and key != app.selected:
                app.flash(f"Artillery target: {app.session.body(key).name}")
                return
        super().click(x, y, hit)

    def key(self, name: str) -> bool:
        app, orders = self.app, self.orders
        if not (name in ("i", "d", "r", "w", "j", "enter") or name.isdigit()):
            return super().key(name)
        if name == "j" and (orders.phase != 2 or app.selected is None):
            app.flash("J: select your knight in phase 2, then J and click the enemy knight",
                      error=True)
            return True
        jousting = orders.jousting is not None
        order = orders.key(name, app.selected)
        if order is not None:
            app.submit(order)
            if jousting:
                app.flash(f"Joust chosen in secret: {order.aim}, "
                          f"{order.stance.replace('_', ' ')} (run in phase 5)", ok=True)
        elif orders.jousting is not None:
            app.flash(orders.joust_prompt(), 10.0)
        elif name.isdigit() and orders.phase == 2 and app.selected is not None:
            app.flash("Declares: "
                      f"{', '.join(orders.declaring.get(app.selected, [])) or 'nothing'}"
                      " (Enter: declare, hidden)")
        elif name.isdigit() and orders.phase == 5:
            app.flash(f"Melee by {orders.system.replace('_', '-')}: click an enemy")
        return True

    def cancel(self) -> bool:
        if self.orders.jousting is not None:
            self.orders.jousting = None
            self.app.flash("Joust choice cancelled")
            return True
        return super().cancel()

    def stat_card(self, key: str | None) -> list[str]:
        return self.orders.stat_card(key) if key is not None else []

    def draw(self, d) -> None:
        """The Brigandine ruler while dragging: half movement for a move, the full movement
        along the dragged direction for a charge (shift-drag, phase 3)."""
        press = self.inp.press
        if self.drag_unit is None or self.drag_to_point is None or press is None:
            return
        s, unit = self.session, self.drag_unit
        lo, hi = s.bounds(unit)
        c = s.footprint_centre(unit)
        dest = self.destination(unit, press, self.drag_to_point)
        dist = float(np.linalg.norm(dest - c))
        charge = self.inp.shift and self.orders.phase == 3
        limit, label = self.orders.ruler(unit, dist, charge)
        if charge and dist > 1e-6:  # the charge rides its full movement this way
            dest = c + (dest - c) * (limit / dist)
        ok = charge or dist <= limit + 0.05
        colour = ((1.0, 0.6, 0.2, 1.0) if charge else (0.3, 1.0, 0.4, 1.0)) if ok \
            else (1.0, 0.25, 0.2, 1.0)
        start = edge_point(lo, hi, dest)
        end = start + np.array([dest[0] - c[0], dest[1] - c[1], 0.0])
        d.markers.append(Marker.line((start + [0, 0, 0.05]).tolist(),
                                     (end + [0, 0, 0.05]).tolist(), colour, 3.0))
        d.markers.append(Marker.ring((c[0], c[1], 0.03), max(limit, 0.05) + (hi[0] - lo[0]) / 2,
                                     colour=(0.3, 1.0, 0.4, 0.5), width=0.06))
        d.label = label
        d.label_at = (start + end) / 2 + [0, 0, 0.6]

    def status(self) -> str:
        return "   " + self.orders.prompt()

    lost_word = "out of the fight"

    def how_long(self, turns: int) -> str:
        """Rounds of eight phases (each phase an engine turn)."""
        return f"{(turns - 1) // 8 + 1} round{'s' if turns > 8 else ''}"

    def lost(self, key: str) -> bool:
        """Destroyed, or a Brigandine unit no longer standing (fallen, fled)."""
        units = self.orders.combat.units
        return super().lost(key) or (key in units and not units[key].standing)


#: The game's window modes (the kind's ``window``): the home mode, named ``select``.
MODES: tuple[type[Mode], ...] = (BrigandineMode,)

#: The key map's tag of Brigandine (its kind's name).
BRIG = frozenset({"brigandine"})
K = KeyCommand
#: Brigandine's rows of the key map (its home mode takes the keys), before the common rows
#: they share letters with.
KEYS: tuple[KeyCommand, ...] = (
    K((), "click", "select", games=BRIG),
    K((), "drag", "move your unit", games=BRIG, modes=("select",)),
    K((), "shift-drag", "charge (phase 3)", games=BRIG, modes=("select",)),
    K(("i",), "I", "delay initiative (phase 1)", game_key, games=BRIG),
    K(tuple("1234567"), "1-7", "declare move/charge/shoot/melee/artillery/reload/joust "
      "(phase 2); 1-3 melee system (phase 5)", game_key, games=BRIG),
    K(("enter",), "Enter", "declare (hidden)", game_key, games=BRIG),
    K(("j",), "J", "joust (phase 2): click the enemy knight, 1-4 aim, 1-4 stance", game_key,
      games=BRIG),
    K(("d",), "D", "Defensive Action (phase 5)", game_key, games=BRIG),
    K(("r",), "R", "reload", game_key, games=BRIG),
    K(("w",), "W", "draw the side arm (phase 3)", game_key, games=BRIG),
)
