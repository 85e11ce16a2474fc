"""The window's heads-up display: turn banner, stat card, preview panel, the log column, the
message line, the status line, the hover tooltip, a typed box, and the foldable key help.

A mixin of :class:`~sandbox.app.table.app.TabletopApp`: its texts are the app's attributes
(``app.banner``, ``app.card``, ``app.logpanel``, ``app.flashline``...), which the network link
and the tests read. The help panel is made from the key map (:mod:`.keymap`): only the keys of
the game on the table, the current mode and the seat (player or referee); folded by default
to one line, ``H`` unfolds it.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from panda3d.core import ClockObject, NodePath, TextNode

from ...engine.events import possessive
from ...render import offscreen as _offscreen
from ...rules.collision import COLLISION_MIN_SPEED_IN_S
from ..log_groups import group_events
from ..table_hands import TextEntry
from .keymap import help_text

#: How many log events the panel shows at most (fewer when long lines wrap).
LOG_LINES: int = 14
#: Screen height (y in [-1, 1]) above which a label on the table would cover the turn banner.
LABEL_TOP_Y: float = 0.62
#: Share of the window's width the log column takes, beside (not over) the table.
LOG_COLUMN: float = 0.32
#: Colour of the log column.
COLUMN_COLOUR = (0.10, 0.12, 0.17, 1.0)
#: Event types the log panel leaves out (bookkeeping and filler rather than play).
_QUIET_EVENTS = {"body", "setup", "warning", "rest"}
#: The log panel's filters (F2 cycles): every line, dice and Damage, physics impacts.
LOG_FILTERS = ("all", "dice & Damage", "impacts")
_DICE_EVENTS = {"roll", "action_roll", "damage", "destroyed", "armor", "attack", "explosion",
                "knockback", "fire"}
#: Message colours: refusals and errors red, things done green, hints white.
FLASH_COLOURS = {"error": (1.0, 0.45, 0.4, 1.0), "ok": (0.55, 1.0, 0.55, 1.0),
                 "info": (1.0, 1.0, 1.0, 1.0)}
#: Recorded frames per simulated second (runner: 480 Hz physics, a frame every 8 steps).
PLAYBACK_FPS: float = 60.0
#: Text size of the help panel and the status line (aspect2d units).
HELP_SCALE: float = 0.032
_SHADOW_MASK = _offscreen._SHADOW_MASK


class HudMixin:
    """The HUD's part of the window (see the module text)."""

    def _setup_hud(self) -> None:
        from direct.gui.OnscreenText import OnscreenText

        b = self.base

        def text(pos, scale, align, fg=(1, 1, 1, 1), parent=b.aspect2d, bg=None):
            return OnscreenText(text="", pos=pos, scale=scale, align=align, fg=fg, bg=bg,
                                shadow=(0, 0, 0, 0.9), mayChange=True, parent=parent)

        # Anchored to the window's edges (ShowBase moves the a2d anchors on a resize), so no
        # window shape clips them.
        self.banner = text((0, -0.1), 0.075, TextNode.ACenter, (1, 0.93, 0.6, 1), b.a2dTopCenter)
        self.card = text((0.04, -0.1), 0.045, TextNode.ALeft, parent=b.a2dTopLeft)
        self.card.setWordwrap(24)  # a long name wraps before the turn banner (about 1.1 units)
        self.preview = text((-0.04, -0.1), 0.042, TextNode.ARight, (1, 0.95, 0.8, 1), b.a2dTopRight)
        self.logpanel = text((0.0, 0.0), 0.036, TextNode.ALeft, (0.92, 0.96, 1, 1),
                             b.a2dBottomRight)
        #: The status line: ``[mode]`` and what the mode says (dice, a phase's gestures).
        self.status = text((0.03, 0.1), HELP_SCALE, TextNode.ALeft, (0.92, 1, 0.92, 1),
                           b.a2dBottomLeft, bg=(0, 0, 0, 0.6))
        #: The key help (H folds and unfolds it): the key map's rows for the game, the mode
        #: and the seat, in a panel at the bottom left of the table.
        self.help_panel = text((0, 0), HELP_SCALE, TextNode.ALeft, (0.95, 0.97, 1, 1),
                               b.a2dBottomLeft, bg=(0, 0, 0, 0.55))
        self._help_key: tuple | None = None
        self.pile = text((0, -0.17), 0.042, TextNode.ACenter, (1, 0.93, 0.6, 1), b.a2dTopCenter)
        self.tooltip = text((0, 0), 0.038, TextNode.ALeft, (1, 1, 0.9, 1), b.aspect2d,
                            bg=(0, 0, 0, 0.6))
        self.flashline = text((0, -0.26), 0.05, TextNode.ACenter, FLASH_COLOURS["error"],
                              b.a2dTopCenter)
        # wrapped to the middle of the window (about 1.4 units wide): a long refusal must not
        # run over the stat card on the left or off the window's edges
        self.flashline.setWordwrap(28)
        # Escapade: forces table, underdog Bennies, Strategy piles, victory status (ch. 13)
        self.escapade_panel = text((-0.03, -0.4), 0.034, TextNode.ALeft, (1, 1, 0.85, 1),
                                   b.a2dTopRight)
        #: The end of the game: a banner with the Outcome, a summary and what to do next,
        #: in the middle of the table (empty while the game goes on).
        self.end_panel = text((0, 0.25), 0.055, TextNode.ACenter, (1, 0.95, 0.7, 1),
                              b.aspect2d, bg=(0.05, 0.05, 0.1, 0.85))
        self.end_panel.setWordwrap(30)
        #: The typed box's line (log search, dice tray, slot name), over the log column.
        self.entry_text = text((0, 0), 0.04, TextNode.ALeft, (1, 1, 0.7, 1), b.a2dBottomRight,
                               bg=(0, 0, 0, 0.8))
        # labels of the players' rulers and templates ("m1: 6.00\""), billboards like the ruler's
        self.tool_labels_np = self.base.render.attach_new_node("tool-labels")
        self.tool_labels_np.set_light_off(1)
        self.tool_labels_np.set_shader_off(1)
        self.tool_labels_np.set_depth_test(False)
        self.tool_labels_np.set_depth_write(False)
        self.tool_labels_np.set_bin("fixed", 45)
        self.tool_labels_np.hide(_SHADOW_MASK)
        self.ruler_label = NodePath(TextNode("ruler-label"))
        self.ruler_label.reparent_to(self.base.render)
        self.ruler_label.set_billboard_point_eye()
        self.ruler_label.set_scale(0.6)
        self.ruler_label.set_light_off(1)
        self.ruler_label.set_shader_off(1)
        self.ruler_label.set_depth_test(False)
        self.ruler_label.set_depth_write(False)
        self.ruler_label.set_bin("fixed", 50)
        self.ruler_label.hide(_SHADOW_MASK)
        tn = self.ruler_label.node()
        tn.set_align(TextNode.ACenter)
        tn.set_text_color(1, 1, 1, 1)
        tn.set_shadow(0.06, 0.06)
        tn.set_shadow_color(0, 0, 0, 1)

    def flash(self, text: str, seconds: float = 4.0, *, error: bool = False,
              ok: bool = False) -> None:
        """A short message under the banner: red for refusals and errors, green for things
        done (saved, loaded), white for hints."""
        self._flash_text = text
        self._flash_until = self.message_clock() + seconds
        kind = "error" if error else ("ok" if ok else "info")
        self.flash_kind = kind
        self.flashline.setFg(FLASH_COLOURS[kind])

    @property
    def aspect(self) -> float:
        """Width / height of the window now (it may have been resized)."""
        win = getattr(self.base, "win", None)
        if win is not None and win.get_y_size() > 0:
            return win.get_x_size() / win.get_y_size()
        return self.width / self.height

    @property
    def view_aspect(self) -> float:
        """Width / height of the 3D view (the window less the log column)."""
        return self.aspect * (1 - LOG_COLUMN)

    def in_log_column(self, x: float) -> bool:
        """Whether window x (in [-1, 1]) is over the log column."""
        return x > 1 - 2 * LOG_COLUMN

    def _view_x(self, x: float) -> float:
        """Window x in [-1, 1] to the 3D view's film x in [-1, 1]."""
        return (float(x) + 1) / (1 - LOG_COLUMN) - 1

    def scroll_log(self, lines: int) -> None:
        """Scroll the log back (positive) or forward (negative) by ``lines`` events."""
        self.log_scroll = max(0, self.log_scroll + int(lines))

    def log_events(self, events: list[dict]) -> list[dict]:
        """The events the log panel shows under its filter (F2), oldest first."""
        out = [e for e in events if _shown_in_log(e)]
        if self.log_filter == "dice & Damage":
            out = [e for e in out if e["type"] in _DICE_EVENTS or "damage" in e["type"]
                   or e["type"] == "dice_tray"]
        elif self.log_filter == "impacts":
            out = [e for e in out if e["type"] == "impact"]
        out = group_events(out, self._names())  # one line per broken body, not per part
        if self.log_search:  # the search box (/): lines containing the text, any case
            want = self.log_search.lower()
            out = [e for e in out if want in self.log_text(e).lower()]
        return out

    def set_log_search(self, text: str) -> None:
        """Show only the log lines containing ``text`` ("" shows every line again)."""
        self.log_search = text
        self.log_scroll = 0
        self._log_key = None

    def open_entry(self, entry: TextEntry) -> None:
        """Open a typed box: the keys type into it until Enter or Esc."""
        entry.opened_frame = ClockObject.get_global_clock().get_frame_count()
        self.entry = entry

    def keystroke(self, ch: str) -> None:
        """A typed character (Panda3D's ``keystroke`` event) for the open box, if any."""
        e = self.entry
        if e is None:
            return
        if e.opened_frame == ClockObject.get_global_clock().get_frame_count():
            return  # the key press that opened the box ('/') is not typed into it
        e.type(ch)


    def log_text(self, e: dict) -> str:
        """One log line as a player reads it: whole, with names instead of ids."""
        return _log_line(e, self._names())

    def _names(self) -> dict[str, str]:
        g = self.session
        if getattr(self, "_names_gen", None) != (g.generation, len(g.bodies)):
            self._names_gen = (g.generation, len(g.bodies))
            self._names_map = {k: st.name for k, st in g.bodies.items()
                               if st.name and st.name != k and k not in st.name}
        return self._names_map

    def _update_log(self, events: list[dict]) -> None:
        """The log panel: the newest of ``events`` the filter and search keep, wrapped whole."""
        shown = self.log_events(events)
        self.log_scroll = min(self.log_scroll, max(0, len(shown) - 1))
        end = len(shown) - self.log_scroll
        shown = shown[max(0, end - max(LOG_LINES, self._log_rows)):end]  # trimmed to fit below
        head = (f"Log ({self.log_filter}" + (f", {self.log_scroll} back" if self.log_scroll else "")
                + (f', search "{self.log_search}"' if self.log_search else "") + ")")
        lines = [self.log_text(e) for e in shown]
        tn = self.logpanel.textNode
        key = (head, tuple(lines))
        if key != getattr(self, "_log_key", None):
            self._log_key = key
            while True:  # the newest lines that fit the column's height, wrapped whole
                self.logpanel.setText("\n".join([head] + lines))
                if tn.get_num_rows() <= self._log_rows or len(lines) <= 1:
                    break
                lines = lines[1:]

    def _update_hud(self, now: float) -> None:
        s = self.session
        busy = self.busy
        pb = self._playback
        if not self.runner.busy and not busy:
            turn = (s.turn, s.current_player)
            if self._turn_seen is not None and turn != self._turn_seen:
                # a new turn: the last player's refusals expire and the stat card clears
                if self.flash_kind == "error":
                    self._flash_until = 0.0
                self.select(None)
            self._turn_seen = turn
        if not self.runner.busy:  # the worker may be between players: read the turn when idle
            label = f"Turn {s.turn}: {possessive(s.current_player)} turn"
            for system in s.systems:  # a game with its own round (Brigandine's phases) names it
                if hasattr(system, "banner"):
                    label = system.banner(s.turn, s.current_player)
            self._banner_label = label
            bomb = s.bombardment  # BrikWars's Strategy bricks (13.2) only; None in other games
            pile = bomb.strategy_pile() if bomb is not None else 0
            self.pile.setText(f"Strategy pile: {pile} brick{'' if pile == 1 else 's'}"
                              if bomb is not None else "")
        label = getattr(self, "_banner_label", "")
        if s.over and not busy and not self.runner.busy:
            label = "Game over"
        self.banner.setText(label + ("   (physics...)" if busy or pb else ""))
        self.end_panel.setText(self.end_text() if s.over and not busy else "")
        if self.end_panel.getText():  # centred on the table, left of the log column
            self.end_panel.setPos(-self.aspect * LOG_COLUMN, 0.25)
        own_card = getattr(self.input.home, "stat_card", None)  # a game's own stat card
        selected = self.selected if self.selected in s.bodies else None
        lines = own_card(selected) if own_card is not None and not busy else None
        if lines:
            self.card.setText("\n".join(lines))
        elif selected is not None and not busy and own_card is None:
            self.card.setText("\n".join(  # a game whose home mode keeps no card of its own
                [s.bodies[selected].name, "Status: " + ", ".join(s.status_words(selected))]))
        elif not busy:
            self.card.setText("Click a unit to see its stat card")
        events = s.events
        limit = len(events)
        if pb is not None:
            t = pb["t_start"] + (pb["cursor"] - pb["f_start"]) / PLAYBACK_FPS
            limit = pb["n_events"]
            while limit < len(events) and events[limit]["time"] <= t + 1e-9:
                limit += 1
        # the log panel is filtered and formatted again only when something it shows changed
        # (not every frame: a long game's log is thousands of events)
        limit = min(limit, len(events))  # a playback's count may run ahead of a rebuilt log
        inputs = (id(events), limit, id(events[limit - 1]) if limit else None, self.log_filter,
                  self.log_search, self.log_scroll, self._log_rows, s.generation, len(s.bodies))
        if inputs != getattr(self, "_log_inputs", None) or getattr(self, "_log_key", None) is None:
            self._log_inputs = inputs
            self._update_log(events[:limit])
        inp = self.input
        extra = ("   SPRINT" if inp.sprint else "") + inp.current.status()
        if inp.home is not inp.current:
            extra += inp.home.status()  # a game's phase prompt shows in every mode
        seat = f"you: {self.net.seat_label}   " if self.net is not None else ""  # online
        self.status.setText(f"{seat}[{inp.mode}]{extra}")
        self._update_help()
        shown = self.message_clock() < self._flash_until
        self.flashline.setText(self._flash_text if shown else "")
        self.entry_text.setText(self.entry.shown() if self.entry is not None else "")
        if busy:
            self.tooltip.setText("")

    def end_text(self) -> str:
        """The end banner: the Outcome, a summary (turns; each player's units standing and
        lost, destroyed or off the table), and what the players may do next."""
        s = self.session
        out = s.outcome
        played = s.turn - 1 if s.spec.turns and s.turn > s.spec.turns else s.turn
        home = self.input.home  # the game's words: Brigandine counts rounds, and its fallen
        lines = ["THE GAME IS OVER", out.text, f"{home.how_long(played)}, {len(s.actions)} actions"]
        for player in s.players:
            units = [b for b in s.bodies.values() if b.owner == player and b.kind == "unit"]
            lost = [b for b in units if home.lost(b.key)]
            gone = [b for b in units if b.off_table and b not in lost]
            lines.append(f"{player}: {len(units) - len(lost) - len(gone)} of {len(units)} "
                         f"standing, {len(lost)} {home.lost_word}"
                         + (f", {len(gone)} off the table" if gone else ""))
        lines.append("F8: watch the replay    Ctrl+R: battle report    F5: save    Q: quit")
        return "\n".join(lines)

    def set_tooltip(self, key: str | None, x: float, y: float) -> None:
        """The hover tooltip: the name, owner and state of the body under the pointer."""
        s = self.session
        if key is None or key not in s.bodies:
            self.tooltip.setText("")
            return
        st = s.bodies[key]
        words = ", ".join(s.status_words(key))
        self.tooltip.setText(f"{st.name} ({st.owner or 'no owner'})"
                             + (f"\n{words}" if words else ""))
        self.tooltip.setPos(float(x) * self.aspect + 0.04, float(y) - 0.07)


    def toggle_help(self) -> None:
        """H: unfold the key help, or fold it back to its one line."""
        self.show_help = not self.show_help

    def help_lines(self) -> str:
        """The help panel's text now: one line folded, else the keys that work now."""
        inp = self.input
        if not self.show_help:
            return "H: help"
        game = " + ".join(sorted(inp.tags))
        head = f"Keys ({game}, {inp.mode} mode{', referee' if self.referee else ''}):  H folds"
        width = max(40, int(2 * self.aspect * (1 - LOG_COLUMN) / (HELP_SCALE * 0.52)) - 4)
        return head + "\n" + help_text(inp.tags, inp.mode, self.referee, width, inp.keys)

    def _update_help(self) -> None:
        key = (self.show_help, self.input.mode, self.input.tags, self.referee, self.aspect)
        if key == self._help_key:
            return
        self._help_key = key
        text = self.help_lines()
        self.help_panel.setText(text)
        rows = text.count("\n") + 1
        self.help_panel.setPos(0.03, 0.03 + HELP_SCALE * 1.2 * (rows - 1) + 0.01)
        # the status line ([mode] and its words) sits just above the help
        self.status.setPos(0.03, 0.05 + HELP_SCALE * 1.2 * rows)

    def cycle_log_filter(self) -> None:
        """F2: the log panel's next filter (all, dice & Damage, impacts)."""
        self.log_filter = LOG_FILTERS[(LOG_FILTERS.index(self.log_filter) + 1) % len(LOG_FILTERS)]
        self.log_scroll = 0
        self.flash(f"Log: {self.log_filter}")

    def _layout(self) -> None:
        """Re-lay the HUD for the window's shape (after a resize): in a narrow window, or
        under a long banner, the stat card goes below the banner and the message line rather
        than beside them."""
        col = 2 * self.aspect * LOG_COLUMN
        banner_left = -col / 2 - self.banner.textNode.get_width() * 0.075 / 2
        first = self.card.getText().split("\n", 1)[0]  # the line beside the banner
        card_right = -self.aspect + 0.04 + self.card.textNode.calc_width(first) * 0.045
        narrow = self.aspect < 1.6 or banner_left < card_right + 0.05
        if narrow != getattr(self, "_narrow", None):
            self._narrow = narrow
            self.card.setPos(0.04, -0.36 if narrow else -0.1)
        aspect = self.aspect
        if abs(self.base.camLens.get_aspect_ratio() - self.view_aspect) > 1e-3:
            # ShowBase's own window-event handler sets the lens to the whole window's shape
            # (whenever that event comes): the 3D view is the window less the log column
            self.base.camLens.set_fov(_offscreen._h_fov(40.0, self.view_aspect), 40.0)
        if aspect != getattr(self, "_laid_aspect", None):
            self._laid_aspect = aspect
            self.base.camLens.set_fov(_offscreen._h_fov(40.0, self.view_aspect), 40.0)
            col = 2 * aspect * LOG_COLUMN  # the column's width in aspect2d units
            left = -col + 0.03
            wrap = (col - 0.06)
            self._log_rows = max(4, int(0.95 / (0.036 * 1.2)))
            # the log fills the column's lower half, its first row at the top of that half
            self.logpanel.setPos(left, 0.04 + (self._log_rows - 1) * 0.036 * 1.2)
            self.logpanel.textNode.set_wordwrap(wrap / 0.036)
            self._log_key = None
            self.escapade_panel.setPos(left, -0.42)
            self.entry_text.setPos(left, 0.04 + self._log_rows * 0.036 * 1.2 + 0.03)
            self.entry_text.textNode.set_wordwrap(wrap / 0.04)
            self.escapade_panel.textNode.set_wordwrap(wrap / 0.034)
            self.preview.setPos(-0.03, -0.1)
            self.preview.textNode.set_wordwrap(wrap / 0.042)
            # the banner, the help and the message line centred over the 3D view
            for node, y in ((self.banner, -0.1), (self.pile, -0.17), (self.flashline, -0.26)):
                node.setPos(-col / 2, y)

    _was_playing = False

def shown_path(path: str | Path) -> str:
    """A path as a player wants to read it: relative to the working folder when inside it."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(p)


def _shown_in_log(e: dict) -> bool:
    """Whether the log panel shows an event: not bookkeeping, and impacts only from the
    Collision threshold up (the settling of a moved unit stays in the event log only)."""
    if e["type"] in _QUIET_EVENTS:
        return False
    if e["type"] == "impact" and float(e.get("normal_speed", math.inf)) < COLLISION_MIN_SPEED_IN_S:
        return False
    return True


def _log_line(e: dict, names: dict[str, str] | None = None) -> str:
    """A log event as the panel shows it: the whole line, body ids replaced by names."""
    t = e["type"]
    text = str(e["text"])
    if names:
        text = _NAME_RE_CACHE.sub(names, text)
    if t == "roll":
        return f"  die: {text}"
    return text


class _NameSubstitution:
    """Replaces whole-word body ids by their names (one compiled pattern per names map)."""

    def __init__(self):
        self._key = None
        self._re = None

    def sub(self, names: dict[str, str], text: str) -> str:
        key = id(names), len(names)
        if key != self._key:
            self._key = key
            ids = sorted(names, key=len, reverse=True)
            self._re = re.compile(r"(?<![\w'])(" + "|".join(map(re.escape, ids)) + r")(?![\w])") \
                if ids else None
        if self._re is None:
            return text
        return self._re.sub(lambda m: names[m.group(1)], text)


_NAME_RE_CACHE = _NameSubstitution()
