"""The window's one key map: every key and gesture, the games and modes it works in, what it
does, and whether it is a referee's tool.

The same table makes the Panda3D bindings (:func:`bound_keys`), the dispatch of a key press
(:func:`commands_for`, first matching entry first; a handler that returns ``False`` passes the
key on to the next entry) and the on-screen help (:func:`help_items`, only the keys of the
current game and mode). A new command is one row here and, when it has its own pointer
behaviour, one :class:`~sandbox.app.table.mode.Mode` class.

Game tags (:func:`game_tags`): the game kind's name (``brikwars``, ``brigandine``,
``micro_brick_war``) and what its window module adds (``escapade``: a BrikWars Escapade, ch.
13). Referee tools (``referee=True``) are bound and shown only in a window opened with
``sandbox play --referee``: they place effects no player's unit pays for (a free missile strike
of any size, setting a body alight) and move any body.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

if TYPE_CHECKING:  # pragma: no cover
    from .input import InputLayer

#: A key handler: ``(input layer, key name) -> False`` to pass the key on, anything else when
#: the key was used.
Handler = Callable[["InputLayer", str], "bool | None"]

BW = frozenset({"brikwars"})
ESCAPADE = frozenset({"escapade"})
BRIG = frozenset({"brigandine"})
MBW = frozenset({"micro_brick_war"})


@dataclass(frozen=True)
class KeyCommand:
    """One row of the key map.

    Attributes
    ----------
    keys : tuple of str
        Panda3D event names (``"m"``, ``"shift-d"``, ``"f5"``); empty for a pointer gesture,
        which is listed in the help only.
    label : str
        How the help names the key(s) ("1-9", "Shift+R"); "" keeps the row out of the help.
    help : str
        What it does, a few words.
    run : Handler, optional
        Called with the key pressed (None for a gesture).
    games : frozenset of str, optional
        Game tags it works in (None: every game).
    modes : tuple of str, optional
        Input modes it works in (None: every mode).
    referee : bool
        A referee's tool: bound and shown only in referee mode.
    repeat : bool
        Also bound to the key's auto-repeat (camera keys).
    """

    keys: tuple[str, ...]
    label: str
    help: str
    run: Handler | None = None
    games: frozenset[str] | None = None
    modes: tuple[str, ...] | None = None
    referee: bool = False
    repeat: bool = False

    def applies(self, tags: frozenset[str], mode: str, referee: bool) -> bool:
        """Whether the row works in a game with ``tags``, in ``mode``, in or out of referee
        mode."""
        return ((self.games is None or bool(self.games & tags))
                and (self.modes is None or mode in self.modes)
                and (referee or not self.referee))


def game_tags(session) -> frozenset[str]:
    """The key map's tags of a game: its kind's name, and the tags its kind's window module
    adds (``tags(session)``: ``escapade`` for a BrikWars Escapade)."""
    kind = session.kind
    module = kind.window_module()
    extra = getattr(module, "tags", None) if module is not None else None
    return frozenset({kind.name}) | (frozenset(extra(session)) if extra is not None
                                     else frozenset())


# ---------------------------------------------------------------------------- handlers
def _mode_key(inp: "InputLayer", n: str):
    """The current mode's own key ([ ] Tab Enter); False when it has none."""
    return inp.current.key(n)


def _game_key(inp: "InputLayer", n: str):
    """A game's own key, taken by its home mode (whatever mode is current); False: unused."""
    return inp.home.key(n)


@dataclass(frozen=True)
class EnterMode:
    """A handler that enters input mode ``mode`` (with ``options``), or when it is current,
    calls its ``again`` (:meth:`InputLayer.toggle`)."""

    mode: str
    options: tuple[tuple[str, object], ...] = ()

    def __call__(self, inp: "InputLayer", n: str):
        inp.toggle(self.mode, **dict(self.options))


def _toggle(name: str, **options) -> EnterMode:
    return EnterMode(name, tuple(sorted(options.items())))


def _cmd(name: str, *args) -> Handler:
    """A command key whose action needs nothing but the selection (``TableCommands.name``)."""
    return lambda inp, n: inp.command(lambda: getattr(inp.cmd, name)(*args))


def _weapon(inp: "InputLayer", n: str):
    return inp.toggle("attack", weapon=int(n) - 1)


def _face(inp: "InputLayer", n: str):
    inp.command(lambda: inp.cmd.face(45.0 if n == "," else -45.0))


def _with_weapon(name: str) -> Handler:
    return lambda inp, n: inp.command(lambda: getattr(inp.cmd, name)(inp.weapon))


def _zoom(inp: "InputLayer", n: str):
    inp.wheel(1 if n in ("page_up", "+", "=") else -1)


def _end_turn(inp: "InputLayer", n: str):
    inp.end_turn()


def _app(method: str, *args) -> Handler:
    return lambda inp, n: getattr(inp.app, method)(*args)


def _inp(method: str, *args) -> Handler:
    return lambda inp, n: getattr(inp, method)(*args)


def _noop(inp: "InputLayer", n: str):
    return None


_ARROWS = ("arrow_left", "arrow_right", "arrow_up", "arrow_down")
K = KeyCommand

#: The key map, in order of precedence (a key's first applicable row gets it first).
KEY_MAP: tuple[KeyCommand, ...] = (
    # --- the pointer (help only)
    K((), "click", "select", games=BW | BRIG),
    K((), "drag", "move your unit", games=BW | BRIG, modes=("select",)),
    K((), "shift-drag", "charge (phase 3)", games=BRIG, modes=("select",)),
    K((), "click", "a square: select, move, attack, farm", games=MBW, modes=("select",)),
    K((), "click", "two things: ruler and line of sight", modes=("measure",)),
    K((), "click", "a target to aim, again to fire", modes=("attack",)),
    K((), "click", "the point, again to call it", modes=("strike", "drop", "launch")),
    K((), "click", "what the prompt asks", modes=("ruler", "template", "remove_marker", "throw",
                                                  "carry", "interact", "close_combat", "swap",
                                                  "ambush", "mark", "ignite", "turret")),
    K((), "drag", "any body to where it stands (or click it, then the point)",
      modes=("place",), referee=True),
    K((), "right-drag", "orbit (Shift: pan)"),
    K((), "wheel", "zoom (over the log: scroll)"),
    # --- a game's own keys, before the common ones they share letters with
    K(("i",), "I", "delay initiative (phase 1)", _game_key, games=BRIG),
    K(tuple("1234567"), "1-7", "declare move/charge/shoot/melee/artillery/reload/joust "
      "(phase 2); 1-3 melee system (phase 5)", _game_key, games=BRIG),
    K(("enter",), "Enter", "declare (hidden)", _game_key, games=BRIG),
    K(("j",), "J", "joust (phase 2): click the enemy knight, 1-4 aim, 1-4 stance", _game_key,
      games=BRIG),
    K(("d",), "D", "Defensive Action (phase 5)", _game_key, games=BRIG),
    K(("r",), "R", "reload", _game_key, games=BRIG),
    K(("w",), "W", "draw the side arm (phase 3)", _game_key, games=BRIG),
    K(tuple("1234"), "1-4", "build Infantry/Cavalry/Catapult/Caravan in the City", _game_key,
      games=MBW),
    K(("c",), "C", "found a City (Caravan)", _game_key, games=MBW),
    K(("d",), "D", "drop the Goblet", _game_key, games=MBW),
    K(("escape", "e"), "", "", _game_key, games=MBW),  # clear the selection, then on
    # --- a mode's own keys
    K(("[", "]"), "[ ]", "fewer / more", _mode_key, modes=("drop", "strike", "template")),
    K(("tab",), "Tab", "Explosive Variant", _mode_key, games=BW, modes=("strike",)),
    K(("tab",), "Tab", "fire mode", _mode_key, games=BW, modes=("attack",)),
    K(("enter",), "Enter", "confirm", _mode_key, games=BW),
    # --- the players' own hands (sandbox.engine.table_tools)
    K(("/", "control-f"), "/", "search the log", _inp("open_search")),
    K(("shift-r",), "Shift+R", "dice tray", _inp("open_dice_tray")),
    K(("f6",), "F6", "save as", _inp("open_save_as")),
    K(("f7",), "F7", "saved games", _app("open_slots")),
    K(("shift-e",), "Shift+E", "mark done", _cmd("mark_done")),
    K(("shift-m",), "Shift+M", "ruler", _toggle("ruler")),
    K(("shift-c",), "Shift+C", "template", _toggle("template")),
    K(("delete",), "Del", "remove a ruler/template", _toggle("remove_marker")),
    K(("shift-p",), "Shift+P", "place any body (the referee's hand)", _toggle("place"),
      referee=True),
    K(("backspace",), "", "", _noop),  # edits a typed box (bound so the box gets it)
    # --- BrikWars
    K(tuple("123456789"), "1-9", "weapon: click aims, again fires", _weapon, games=BW),
    K(("s",), "S", "Sprint", _inp("toggle_sprint"), games=BW),
    K(("b",), "B", "The Big Drop", _toggle("drop"), games=BW),
    K(("l",), "L", "Launcher", _toggle("launch"), games=BW),
    K(("a",), "A", "Strategic Bombardment", _toggle("strike", kind="bombard"), games=BW),
    K(("v",), "V", "missile strike (free)", _toggle("strike", kind="missile"), games=BW,
      referee=True),
    K(("i",), "I", "ignite (1d4 Fire)", _toggle("ignite"), games=BW, referee=True),
    K(("c",), "C", "pick up / put down", _toggle("carry"), games=BW),
    K(("j",), "J", "throw", _toggle("throw"), games=BW),
    K(("k",), "K", "interact (again: verb)", _toggle("interact"), games=BW),
    K(("y",), "Y", "Mark a target", _toggle("mark"), games=BW),
    K((";",), ";", "Close Combat (again: move)", _toggle("close_combat"), games=BW),
    K(("'",), "'", "Parry", _with_weapon("parry"), games=BW),
    K((",", "."), ", .", "turn 45°", _face, games=BW),
    K(("d",), "D", "stop, drop and roll", _cmd("stop_drop_roll"), games=BW),
    K(("w",), "W", "reload", _with_weapon("reload"), games=BW),
    K(("shift-d",), "Shift+D", "Divert All Power", _cmd("divert_power"), games=BW),
    K(("shift-t",), "Shift+T", "Set Up Turret", _toggle("turret", what="set_up"), games=BW),
    K(("shift-g",), "Shift+G", "Gunnery Support", _toggle("turret", what="gunnery"),
      games=BW),
    K(("shift-i",), "Shift+I", "Interfere", _toggle("turret", what="interfere"), games=BW),
    K(("o",), "O", "odds of the preview", _inp("odds"), games=BW),
    K(("r",), "R", "relay a kill", _cmd("relay"), games=ESCAPADE),
    K(("n",), "N", "Reinforcements", _cmd("reinforce"), games=ESCAPADE),
    K(("x",), "X", "Losing Battle", _cmd("declare", "losing_battle"), games=ESCAPADE),
    K(("z",), "Z", "concede", _cmd("declare", "concede"), games=ESCAPADE),
    K(("f10",), "F10", "swap two units", _toggle("swap"), games=ESCAPADE),
    K(("f11",), "F11", "ambush", _toggle("ambush"), games=ESCAPADE),
    K((), "drag off your edge", "withdraw", games=ESCAPADE, modes=("select",)),
    # --- every game
    K(("m",), "M", "measure & line of sight", _toggle("measure")),
    K(("e",), "E", "end turn", _end_turn),
    K(("u", "control-z"), "U", "undo", _app("undo")),
    K(("escape",), "Esc", "cancel", _inp("escape")),
    K(("f5", "control-s"), "F5", "save", _app("save")),
    K(("f9", "control-o"), "F9", "load", _app("load")),
    K(("f8",), "F8", "watch the replay", _app("open_replay")),
    K(("control-r",), "Ctrl+R", "battle report", _app("open_report")),
    K(("shift-f8",), "Shift+F8", "end the battle here", _app("end_battle")),
    K(("t",), "T", "top view", _inp("top_view")),
    K(("f",), "F", "focus", _inp("focus")),
    K(_ARROWS + tuple("shift-" + a for a in _ARROWS), "arrows", "orbit (Shift: pan)",
      _inp("camera_key_of"), repeat=True),
    K(("page_up", "page_down", "+", "=", "-"), "+ -", "zoom", _zoom, repeat=True),
    K(("g",), "G", "grid", _app("toggle_grid")),
    K(("f2",), "F2", "log filter", _app("cycle_log_filter")),
    K(("f3",), "F3", "name plates", _app("toggle_plates")),
    K(("f4",), "F4", "edge lines", _app("toggle_edges")),
    K(("p", "f12"), "P", "screenshot", _app("screenshot_key")),
    K(("h",), "H", "fold the help", _app("toggle_help")),
    K(("q",), "Q", "quit", _app("quit")),
)


def commands_for(key: str, tags: frozenset[str], mode: str, referee: bool,
                 table: Iterable[KeyCommand] = KEY_MAP) -> list[KeyCommand]:
    """The rows that may take ``key`` now, in order of precedence."""
    return [c for c in table if key in c.keys and c.run is not None
            and c.applies(tags, mode, referee)]


def bound_keys(referee: bool, table: Iterable[KeyCommand] = KEY_MAP) -> list[tuple[str, str]]:
    """``(Panda3D event, key)`` pairs to bind: every key of the table (its auto-repeat too
    where the row says so), less the referee's tools outside referee mode."""
    out: dict[str, str] = {}
    for c in table:
        if c.run is None or (c.referee and not referee):
            continue
        for k in c.keys:
            out.setdefault(k, k)
            if c.repeat:
                out.setdefault(k + "-repeat", k)
    return list(out.items())


def help_items(tags: frozenset[str], mode: str, referee: bool,
               table: Iterable[KeyCommand] = KEY_MAP) -> list[tuple[str, str]]:
    """``(label, help)`` of the rows that work now, each label once (its first row: the one
    a press reaches), in table order."""
    seen: set[str] = set()
    out = []
    for c in table:
        if not c.label or not c.applies(tags, mode, referee):
            continue
        if c.keys and all(k in seen for k in c.keys):
            continue  # every key of the row is taken by an earlier row
        seen.update(c.keys)
        out.append((c.label, c.help))
    return out


def help_text(tags: frozenset[str], mode: str, referee: bool, width: int = 60) -> str:
    """The help panel's lines: ``label help`` items packed into lines of ``width``
    characters."""
    lines: list[str] = []
    line = ""
    for label, text in help_items(tags, mode, referee):
        item = f"{label} {text}"
        if line and len(line) + 3 + len(item) > width:
            lines.append(line)
            line = ""
        line = f"{line}   {item}" if line else item
    if line:
        lines.append(line)
    return "\n".join(lines)
