"""The window's one key map: every key and gesture, the games and modes it works in, what it
does, and whether it is a referee's tool.

The same table makes the Panda3D bindings (:func:`bound_keys`), the dispatch of a key press
(:func:`commands_for`, first matching entry first; a handler that returns ``False`` passes the
key on to the next entry) and the on-screen help (:func:`help_items`, only the keys of the
current game and mode). The table is :func:`key_map`: a game's own rows, from the module its
kind names as its ``window`` (``KEYS``), then the rows every game has (:data:`COMMON_KEYS`).
A new command is one row (a game's in its window module) and, when it has its own pointer
behaviour, one :class:`~sandbox.app.table.mode.Mode` class.

Game tags (:func:`game_tags`): the game kind's name (``brikwars``, ``brigandine``,
``micro_brick_war``) and what its window module adds (``escapade``: a BrikWars Escapade, ch.
13). Referee tools (``referee=True``) work and are shown only in a window opened with
``sandbox play --referee``: they place effects no player's unit pays for (a free missile strike
of any size, setting a body alight) and move any body; elsewhere their keys only flash that
they are a referee's tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from ...engine.kinds import all_kinds

if TYPE_CHECKING:  # pragma: no cover
    from .input import InputLayer

#: A key handler: ``(input layer, key name) -> False`` to pass the key on, anything else when
#: the key was used.
Handler = Callable[["InputLayer", str], "bool | None"]

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
def mode_key(inp: "InputLayer", n: str):
    """The current mode's own key ([ ] Tab Enter); False when it has none."""
    return inp.current.key(n)


def game_key(inp: "InputLayer", n: str):
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


def enter_mode(name: str, **options) -> EnterMode:
    """A key that enters mode ``name`` with ``options`` (again: the mode's ``again``)."""
    return EnterMode(name, tuple(sorted(options.items())))


@dataclass(frozen=True)
class Call:
    """A key's handler that calls ``method`` of the input layer (``on = "input"``), of the
    window (``"app"``) or of the table's commands (``"commands"``, run as a command) with
    ``args``, and with the key's name after them when ``with_key`` (the arrows: which one).
    Named, not a lambda, so that tests can check every such call against the method's
    signature without a window (tests/test_window_keymap.py)."""

    on: str
    method: str
    args: tuple = ()
    with_key: bool = False

    def __call__(self, inp: "InputLayer", n: str):
        args = (*self.args, n) if self.with_key else self.args
        if self.on == "commands":
            return inp.command(lambda: getattr(inp.cmd, self.method)(*args))
        return getattr(inp.app if self.on == "app" else inp, self.method)(*args)


def command(name: str, *args) -> Handler:
    """A command key whose action needs nothing but the selection (``TableCommands.name``)."""
    return Call("commands", name, args)


def app_call(method: str, *args) -> Handler:
    """A key that calls the window's ``method``."""
    return Call("app", method, args)


def input_call(method: str, *args, with_key: bool = False) -> Handler:
    """A key that calls the input layer's ``method`` (with the key's name last when
    ``with_key``)."""
    return Call("input", method, args, with_key)


def _zoom(inp: "InputLayer", n: str):
    inp.wheel(1 if n in ("page_up", "+", "=") else -1)


def _end_turn(inp: "InputLayer", n: str):
    inp.end_turn()


def _noop(inp: "InputLayer", n: str):
    return None


_ARROWS = ("arrow_left", "arrow_right", "arrow_up", "arrow_down")
K = KeyCommand

#: The rows every game has, in order of precedence (a key's first applicable row gets it
#: first); a game's own rows come before them (:func:`key_map`).
COMMON_KEYS: tuple[KeyCommand, ...] = (
    # --- the pointer (help only)
    K((), "click", "two things: ruler and line of sight", modes=("measure",)),
    K((), "click", "what the prompt asks", modes=("ruler", "template", "remove_marker")),
    K((), "drag", "any body to where it stands (or click it, then the point)",
      modes=("place",), referee=True),
    K((), "right-drag", "orbit (Shift: pan)"),
    K((), "wheel", "zoom (over the log: scroll)"),
    # --- a mode's own keys
    K(("[", "]"), "[ ]", "radius", mode_key, modes=("template",)),
    # --- the players' own hands (sandbox.engine.table_tools)
    K(("/", "control-f"), "/", "search the log", input_call("open_search")),
    K(("shift-r",), "Shift+R", "dice tray", input_call("open_dice_tray")),
    K(("f6",), "F6", "save as", input_call("open_save_as")),
    K(("f7",), "F7", "saved games", app_call("open_slots")),
    K(("shift-e",), "Shift+E", "mark done", command("mark_done")),
    K(("shift-m",), "Shift+M", "ruler", enter_mode("ruler")),
    K(("shift-c",), "Shift+C", "template", enter_mode("template")),
    K(("delete",), "Del", "remove a ruler/template", enter_mode("remove_marker")),
    K(("shift-p",), "Shift+P", "place any body (the referee's hand)", enter_mode("place"),
      referee=True),
    K(("backspace",), "", "", _noop),  # edits a typed box (bound so the box gets it)
    # --- every game
    K(("m",), "M", "measure & line of sight", enter_mode("measure")),
    K(("e",), "E", "end turn", _end_turn),
    K(("u", "control-z"), "U", "undo", app_call("undo")),
    K(("escape",), "Esc", "cancel", input_call("escape")),
    K(("f5", "control-s"), "F5", "save", app_call("save")),
    K(("f9", "control-o"), "F9", "load", app_call("load")),
    K(("f8",), "F8", "watch the replay", app_call("open_replay")),
    K(("control-r",), "Ctrl+R", "battle report", app_call("open_report")),
    K(("shift-f8",), "Shift+F8", "end the battle here", app_call("end_battle")),
    K(("t",), "T", "top view", input_call("top_view")),
    K(("f",), "F", "focus", input_call("focus")),
    K(_ARROWS + tuple("shift-" + a for a in _ARROWS), "arrows", "orbit (Shift: pan)",
      input_call("camera_key_of", with_key=True), repeat=True),
    K(("page_up", "page_down", "+", "=", "-"), "+ -", "zoom", _zoom, repeat=True),
    K(("g",), "G", "grid", app_call("toggle_grid")),
    K(("f2",), "F2", "log filter", app_call("cycle_log_filter")),
    K(("f3",), "F3", "name plates", app_call("toggle_plates")),
    K(("f4",), "F4", "edge lines", app_call("toggle_edges")),
    K(("p", "f12"), "P", "screenshot", app_call("screenshot_key")),
    K(("h",), "H", "fold the help", app_call("toggle_help")),
    K(("q",), "Q", "quit", app_call("quit")),
)



def key_map(kind=None) -> tuple[KeyCommand, ...]:
    """The key map of a game of ``kind`` (a :class:`~sandbox.engine.kinds.GameKind`; None:
    of every game kind, as the window binds them), in order of precedence: the game's own
    rows (``KEYS`` of the module its kind names as its ``window``) before the common ones
    (:data:`COMMON_KEYS`) they share letters with; the pointer's gestures (rows without keys,
    the help's first lines) lead, the game's first.

    Raises
    ------
    ImportError
        The kind's window module does not import.
    """
    kinds = [kind] if kind is not None else all_kinds()
    own: list[KeyCommand] = []
    for k in kinds:
        module = k.window_module()
        own.extend(getattr(module, "KEYS", ()) if module is not None else ())
    rows = (*own, *COMMON_KEYS)
    return (*(r for r in rows if not r.keys), *(r for r in rows if r.keys))

def commands_for(key: str, tags: frozenset[str], mode: str, referee: bool,
                 table: Iterable[KeyCommand] | None = None) -> list[KeyCommand]:
    """The rows that may take ``key`` now, in order of precedence (``table``: the key map of
    the game on the table; None: every game's, :func:`key_map`)."""
    rows = key_map() if table is None else table
    return [c for c in rows if key in c.keys and c.run is not None
            and c.applies(tags, mode, referee)]


def bound_keys(referee: bool,
               table: Iterable[KeyCommand] | None = None) -> list[tuple[str, str]]:
    """``(Panda3D event, key)`` pairs to bind: every key of the table (default: every game's,
    so a save of another game loads into the same window; its auto-repeat too where the row
    says so). The referee's tools are bound outside referee mode too, their auto-repeat not:
    there a press only says that the key is a referee's tool (:meth:`InputLayer.key`)."""
    out: dict[str, str] = {}
    for c in key_map() if table is None else table:
        if c.run is None:
            continue
        if c.referee and not referee:
            for k in c.keys:
                out.setdefault(k, k)
            continue
        for k in c.keys:
            out.setdefault(k, k)
            if c.repeat:
                out.setdefault(k + "-repeat", k)
    return list(out.items())


def help_items(tags: frozenset[str], mode: str, referee: bool,
               table: Iterable[KeyCommand] | None = None) -> list[tuple[str, str]]:
    """``(label, help)`` of the rows that work now, each label once (its first row: the one
    a press reaches), in table order."""
    seen: set[str] = set()
    out = []
    for c in key_map() if table is None else table:
        if not c.label or not c.applies(tags, mode, referee):
            continue
        if c.keys and all(k in seen for k in c.keys):
            continue  # every key of the row is taken by an earlier row
        seen.update(c.keys)
        out.append((c.label, c.help))
    return out


def help_text(tags: frozenset[str], mode: str, referee: bool, width: int = 60,
              table: Iterable[KeyCommand] | None = None) -> str:
    """The help panel's lines: ``label help`` items packed into lines of ``width``
    characters."""
    lines: list[str] = []
    line = ""
    for label, text in help_items(tags, mode, referee, table):
        item = f"{label} {text}"
        if line and len(line) + 3 + len(item) > width:
            lines.append(line)
            line = ""
        line = f"{line}   {item}" if line else item
    if line:
        lines.append(line)
    return "\n".join(lines)
