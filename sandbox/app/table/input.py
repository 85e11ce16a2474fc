"""The one entry point for input: the window's mouse and keyboard handlers call
:class:`InputLayer`, and so do tests (``pointer_down/move/up``, ``key``, ``wheel``), so what a
test does is what a player does.

Keys go through the key map (:mod:`.keymap`): the first row that applies to the game, the mode
and the seat (player or referee) gets the key. The pointer goes to the current input mode
(:mod:`.mode`): one instance per mode, entered with :meth:`InputLayer.set_mode`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

from ...engine.actions import EndTurnAction
from ..commands import CommandRefused, TableCommands, game_commands
from ..table_hands import TextEntry
from . import modes_common  # noqa: F401  (registers the modes every game has)
from .keymap import KeyCommand, commands_for, game_tags, key_map
from .mode import Mode, game_modes

if TYPE_CHECKING:  # pragma: no cover
    from .app import TabletopApp

#: Pointer travel (mouse units) before a press becomes a drag.
DRAG_THRESHOLD: float = 0.01


class InputLayer:
    """The single place input goes through (mouse, keyboard, tests); see the module text."""

    def __init__(self, app: "TabletopApp"):
        self.app = app
        #: Builds the command keys' engine actions (the game's own: relay, declare, bombard,
        #: throw, ...; the players' hands in every game); made again for each game in reset.
        self.cmd: TableCommands = TableCommands(app)
        self.reset()

    def reset(self) -> None:
        """Every mode forgotten, the game's home mode entered (a fresh window's input)."""
        self.press: tuple[int, float, float] | None = None
        self.dragging = False
        self._drag_taken = False
        self.last_pointer = (0.0, 0.0)
        self.shift = False
        self.sprint = False
        self._modes: dict[str, Mode] = {}
        self._tags = game_tags(self.app.session)
        #: The mode classes of the game on the table, by name (its kind's and the common ones).
        self.mode_classes: dict[str, type[Mode]] = game_modes(self.app.session.kind)
        self.cmd = game_commands(self.app.session.kind)(self.app)
        #: The key map of the game on the table (its kind's rows, then the common ones).
        self.keys: tuple[KeyCommand, ...] = key_map(self.app.session.kind)
        self.current: Mode = self.mode_of("select")
        self.current.enter()

    # ---------------------------------------------------------------- modes
    @property
    def tags(self) -> frozenset[str]:
        """The key map's tags of the game on the table (a loaded save may change them)."""
        tags = game_tags(self.app.session)
        if tags != self._tags:
            self.reset()
        return self._tags

    @property
    def mode(self) -> str:
        """The current mode's name (``select``, ``measure``, ``attack``, ...)."""
        return self.current.name

    @property
    def home(self) -> Mode:
        """The game's home mode (select and drag-move, with the game's own clicks and keys)."""
        return self.mode_of("select")

    def mode_of(self, name: str) -> Mode:
        """The instance of mode ``name`` (made on first use; it keeps its settings)."""
        if name not in self._modes:
            self._modes[name] = self.mode_classes[name](self)
        return self._modes[name]

    def set_mode(self, name: str, **options: Any) -> bool:
        """Enter mode ``name`` (False: it refused, and the current mode stays)."""
        new = self.mode_of(name)
        old = self.current
        if not new.enter(**options):
            return False
        if new is not old:
            old.exit()
        self.current = new
        self.app.overlays_dirty = True
        return True

    def toggle(self, name: str, **options: Any) -> None:
        """A mode's key: enter it, or when it is current, its :meth:`Mode.again`."""
        if self.current.name == name:
            self.current.again(**options)
        else:
            self.set_mode(name, **options)

    @property
    def weapon(self) -> int | None:
        """The weapon chosen with 1-9 (attack mode), else None."""
        return getattr(self.current, "weapon", None) if self.mode == "attack" else None

    @property
    def brig(self):
        """The Brigandine gestures of this session (None: not a Brigandine game)."""
        return getattr(self.home, "orders", None)

    def previewed_action(self):
        """The action the current preview would play, or None."""
        return self.current.preview()

    # ---------------------------------------------------------------- pointer
    def pointer_down(self, button: int, x: float, y: float, shift: bool = False) -> None:
        """A mouse button went down at (x, y) in [-1, 1]. Button 1 left, 2 middle, 3 right."""
        self.press = (button, float(x), float(y))
        self.last_pointer = (float(x), float(y))
        self.shift = shift
        self.dragging = False
        self._drag_taken = False

    def pointer_move(self, x: float, y: float) -> None:
        """The pointer moved to (x, y); drags go to the mode (left) or the camera."""
        app = self.app
        px, py = self.last_pointer
        self.last_pointer = (float(x), float(y))
        if self.press is None:
            if self.current.tracks_pointer:
                self.current.hover(x, y)
            return
        button, sx, sy = self.press
        if not self.dragging and math.hypot(x - sx, y - sy) > DRAG_THRESHOLD:
            self.dragging = True
            if button == 1:
                self._drag_taken = self.current.drag_begin(sx, sy)
        if not self.dragging:
            return
        if button == 1:
            if self._drag_taken:
                self.current.drag_to(x, y)
        elif self.shift or button == 2:
            app.rig.pan(-(x - px), -(y - py))
        else:
            app.rig.orbit(-(x - px) * 180.0, -(y - py) * 90.0)

    def pointer_up(self, button: int, x: float, y: float) -> None:
        """A mouse button came up at (x, y): a click or the end of a drag."""
        self.pointer_move(x, y)
        press, self.press = self.press, None
        if press is None or press[0] != button:
            return
        if self.dragging:
            self.dragging = False
            if button == 1 and self._drag_taken:
                self._drag_taken = False
                self.current.drag_end(press, x, y)
            self.app.overlays_dirty = True
            return
        if button == 1:
            self.click(x, y)

    def click(self, x: float, y: float) -> None:
        app = self.app
        if app.busy:
            app.flash("Wait: physics is still playing out")
            return
        self.current.click(x, y, app.pick(x, y))

    def wheel(self, steps: int) -> None:
        """Zoom: positive steps towards the target; over the log column, scroll the log
        (positive: back to older lines)."""
        if self.app.in_log_column(self.last_pointer[0]):
            self.app.scroll_log(3 * steps)
            return
        self.app.rig.zoom(0.88 ** steps)

    # ---------------------------------------------------------------- keys
    def key(self, name: str) -> None:
        """A key press, by Panda3D's key name ('e', 'enter', 'escape', 'f5', '1', ...): a
        typed box or the saved-games dialog first, then the key map's rows for the game, the
        mode and the seat, in order, until one uses it; at a player's table a referee's tool's
        key flashes one line saying it is one (open the table with ``--referee``)."""
        app = self.app
        n = name.lower()
        if app.entry is not None:  # a typed box is open: keys edit it
            self.entry_key(n)
            return
        if app.slot_dialog is not None:
            if n in ("escape", "f7"):
                app.slot_dialog.close()
            return
        tags = self.tags  # first: a save of another game loaded resets the input and its keys
        for row in commands_for(n, tags, self.mode, app.referee, self.keys):
            if row.run(self, n) is not False:
                return
        if not app.referee:  # a referee's tool at a player's table: say so, do nothing
            tools = [r for r in commands_for(n, tags, self.mode, True, self.keys) if r.referee]
            if tools:
                app.flash(f"{tools[0].label}, {tools[0].help}: a referee's tool (open the "
                          "table with sandbox play --referee)", error=True)

    def entry_key(self, n: str) -> None:
        """A key while a typed box is open: Enter, Esc and Backspace edit it; the characters
        come from the window's keystroke events (:meth:`TabletopApp.keystroke`)."""
        app = self.app
        entry = app.entry
        if n == "enter":
            app.entry = None
            entry.on_enter(entry.text)
        elif n == "escape":
            app.entry = None
            if entry.on_escape is not None:
                entry.on_escape()
        elif n == "backspace":
            entry.backspace()

    def command(self, build: Callable[[], object]) -> None:
        """Build a command key's action and hand it to the session (or say why not)."""
        try:
            action = build()
        except CommandRefused as exc:
            self.app.flash(str(exc), error=True)
            return
        self.app.submit(action)

    # ---------------------------------------------------------------- what the keys do
    def escape(self) -> None:
        """Esc cancels the innermost thing: the mode's own (a drag, a question), a press, the
        mode, the log search, the selection; never quits."""
        app = self.app
        if self.current.cancel():
            self.press, self.dragging = None, False
            return
        if self.press is not None:
            self.press, self.dragging = None, False
            app.overlays_dirty = True
        elif self.current is not self.home or self.sprint:
            self.sprint = False
            self.set_mode("select")
        elif app.log_search:
            app.set_log_search("")
            app.flash("Log search cleared")
        elif app.selected is not None:
            app.select(None)
        else:  # nothing left to cancel: Esc never quits (a second Esc too many would)
            app.flash("Nothing to cancel (Q quits)")

    def end_turn(self) -> None:
        self.app.submit(EndTurnAction(type="end_turn", player=self.app.session.current_player))

    def toggle_sprint(self) -> None:
        self.sprint = not self.sprint
        self.app.flash("Sprint on: the next move rolls the Action die for extra inches"
                       if self.sprint else "Sprint off")
        self.app.overlays_dirty = True

    def odds(self) -> None:
        """O: the odds of the previewed action, run in the background."""
        action = self.previewed_action()
        if action is None:
            self.app.flash("O: aim an attack, a Launcher shot or a Big Drop first, then O for "
                           "its odds", error=True)
            return
        self.app.start_odds(action)

    def camera_key_of(self, n: str) -> None:
        """Arrows orbit the camera; with Shift they pan it."""
        shift = n.startswith("shift-") or self.shift
        n = n.removeprefix("shift-")
        rig = self.app.rig
        dx = -1 if n == "arrow_left" else 1 if n == "arrow_right" else 0
        dy = 1 if n == "arrow_up" else -1 if n == "arrow_down" else 0
        if shift:
            rig.pan(0.1 * dx, 0.1 * dy)
        else:
            rig.orbit(10 * dx, 5 * dy)

    def top_view(self) -> None:
        app = self.app
        bf = app.session.spec.battlefield
        top = app.rig.toggle_top(bf.width, bf.depth, app.view_aspect)
        app.overlays_dirty = True
        app.flash("Top view (T: back to 3D)" if top else "3D view")

    def focus(self) -> None:
        app = self.app
        if app.selected is not None and not app.busy:
            lo, hi = app.session.bounds(app.selected)
            app.rig.focus((lo + hi) / 2)

    def open_search(self) -> None:
        app = self.app
        app.open_entry(TextEntry("search", "Search the log: ", lambda t: None,
                                 on_change=app.set_log_search,
                                 on_escape=lambda: app.set_log_search(""), text=app.log_search))

    def open_dice_tray(self) -> None:
        self.app.open_entry(TextEntry("dice", "Dice tray (e.g. 2d6, 1d10+1d4): ",
                                      lambda t: self.command(lambda: self.cmd.roll_dice(t))))

    def open_save_as(self) -> None:
        app = self.app
        app.open_entry(TextEntry("slot", "Save as (slot name): ", app.save_slot,
                                 text=app.session.spec.name[:30], selected=True))

