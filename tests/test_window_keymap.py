"""The window's one key map, without a window: the bindings, the dispatch and the help all come
from it; referee tools are dispatched and listed only in referee mode (bound in both: a
player's press says it is a referee's tool); each game lists its own keys,
which come from its kind (its window module's KEYS); every mode a key enters exists."""

from __future__ import annotations

from sandbox.app.table import keymap
from sandbox.app.table.input import InputLayer  # noqa: F401  (registers every mode)
from sandbox.app.table.keymap import (
    COMMON_KEYS,
    EnterMode,
    bound_keys,
    commands_for,
    help_items,
    help_text,
    key_map,
)
from sandbox.app.table.mode import MODES, game_modes
from sandbox.engine.kinds import game_kind
from sandbox.games.brigandine.window import BRIG
from sandbox.games.brikwars.window import BW, ESCAPADE
from sandbox.games.micro_brick_war.window import MBW

KEY_MAP = key_map()  # every game's rows, then the common ones

#: Every key the window bound before the key map (main at 4b5cde8), less the referee's V and I.
OLD_KEYS = ["escape", "q", "enter", "t", "f", "g", "h", "p", "m", "s", "b", "l", "[", "]", "e",
            "u", "d", "r", "w", "o", "a", "n", "x", "z", "c", "j", "k", "y", "tab", ",", ".",
            ";", "'", "shift-d", "shift-t", "shift-g", "shift-i", "f2", "f3", "f4", "f5", "f6",
            "f7", "f9", "f10", "f11", "f12", "page_up", "page_down", "+", "=", "-", "/",
            "shift-r", "shift-e", "shift-m", "shift-c", "delete", "backspace", "arrow_left",
            "arrow_right", "arrow_up", "arrow_down", "control-z", "control-s", "control-o",
            "control-f", "shift-arrow_left", "shift-arrow_right", "shift-arrow_up",
            "shift-arrow_down"] + [str(i) for i in range(1, 10)]


def test_every_key_the_window_had_is_still_bound_and_referee_tools_too():
    player = {event for event, _ in bound_keys(referee=False)}
    referee = {event for event, _ in bound_keys(referee=True)}
    assert set(OLD_KEYS) <= player
    # a referee's tool's key is bound at a player's table too: there it only says that it is
    # a referee's tool (InputLayer.key); I is Brigandine's delay initiative as well
    assert {"v", "i", "shift-p"} <= player and referee == player
    assert {"arrow_left-repeat", "page_up-repeat"} <= player  # held camera keys repeat


def test_referee_tools_are_not_dispatched_or_listed_for_a_player():
    assert commands_for("v", BW, "select", referee=False) == []
    assert commands_for("i", BW, "select", referee=False) == []
    (row,) = commands_for("v", BW, "select", referee=True)
    assert row.referee and row.run == EnterMode("strike", (("kind", "missile"),))
    player = dict(help_items(BW, "select", referee=False))
    ref = dict(help_items(BW, "select", referee=True))
    assert "V" not in player and "I" not in player
    assert ref["V"].startswith("missile strike") and ref["I"].startswith("ignite")
    # the referee's hand (place any body) is every game's, and a referee's only
    for tags in (BW, BRIG, MBW):
        assert commands_for("shift-p", tags, "select", referee=False) == []
        (row,) = commands_for("shift-p", tags, "select", referee=True)
        assert row.referee and row.run == EnterMode("place", ())
        assert "Shift+P" in dict(help_items(tags, "select", referee=True))
        assert "Shift+P" not in dict(help_items(tags, "select", referee=False))
    # Brigandine's I is a player's order (delay initiative), not the referee's ignite
    (brig_i,) = commands_for("i", BRIG, "select", referee=False)
    assert "initiative" in brig_i.help


def test_the_help_lists_only_the_keys_of_the_game_and_the_mode():
    bw = dict(help_items(BW, "select", False))
    esc = dict(help_items(BW | ESCAPADE, "select", False))
    brig = dict(help_items(BRIG, "select", False))
    mbw = dict(help_items(MBW, "select", False))
    assert "1-9" in bw and "B" in bw and "R" not in bw and "F10" not in bw
    assert esc["R"] == "relay a kill" and "F10" in esc
    assert "1-7" in brig and "1-9" not in brig and "B" not in brig and brig["I"].startswith("delay")
    assert "1-4" in mbw and "1-9" not in mbw and "L" not in mbw and mbw["C"].startswith("found")
    for game in (bw, brig, mbw):  # every game: the camera, saves, the help's own key
        assert {"M", "E", "U", "F5", "T", "H", "Q"} <= set(game)
    # a mode's own keys show in that mode only
    assert "[ ]" not in bw and "[ ]" in dict(help_items(BW, "strike", False))
    assert dict(help_items(BW, "attack", False))["Tab"] == "fire mode"
    # the text wraps to the width asked, one item never split
    text = help_text(BW, "select", False, width=70)
    assert all(len(line) <= 70 or "   " not in line for line in text.split("\n"))
    assert "1-9 weapon: click aims, again fires" in text


def test_every_mode_a_key_enters_exists_in_its_games_and_each_game_has_its_own_home_mode():
    games = {"brikwars": BW | ESCAPADE, "brigandine": BRIG, "micro_brick_war": MBW}
    every: set[str] = set()
    for name, tags in games.items():
        modes = game_modes(game_kind(name))  # the common modes and the kind's window's
        rows = [row for row in KEY_MAP if row.games is None or row.games & tags]
        entered = {row.run.mode for row in rows if isinstance(row.run, EnterMode)}
        assert entered <= set(modes), (name, entered - set(modes))
        every |= set(modes)
        # the home mode is the game's own, from its package (the kind's ``window``)
        assert modes["select"].__module__ == f"sandbox.games.{name}.window"
    # a row limited to some modes names modes some game has (a row of every game may name
    # BrikWars' strike: it never applies where there is none)
    assert {m for row in KEY_MAP for m in (row.modes or ())} <= every
    # the common modes are no game's: BrikWars' attack is not a Brigandine mode
    assert "attack" not in MODES and "attack" not in game_modes(game_kind("brigandine"))
    # the rows a game adds are its kind's: the common rows name no game, and a game's key map
    # is its own rows, then the common ones
    assert all(row.games is None for row in COMMON_KEYS)
    for name, tags in games.items():
        rows = key_map(game_kind(name))
        own = [row for row in rows if row not in COMMON_KEYS]
        assert set(COMMON_KEYS) <= set(rows)
        assert own and all(row.games is not None and row.games <= tags for row in own), name
        # the pointer's gestures first (the help's first lines), then the game's keys before
        # the common ones they share letters with (Micro Brick War's E before end turn)
        gestures = sum(not row.keys for row in rows)
        assert all(not row.keys for row in rows[:gestures])
        keyed = list(rows[gestures:])
        own_keyed = [row for row in keyed if row not in COMMON_KEYS]
        assert keyed[:len(own_keyed)] == own_keyed
    # a key the map does not know is no command in any game
    assert commands_for("f1", BW, "select", True) == []
    assert keymap.help_text(MBW, "measure", False).startswith("click two things")


def test_every_key_that_calls_a_method_calls_it_with_arguments_it_takes():
    """Every row whose handler is a named call (input layer, window, commands) names a method
    that exists and accepts the arguments the key passes (the arrows pass the key's name:
    without it they raised TypeError in the window, issue 26's trial)."""
    import inspect

    from sandbox.app.commands import TableCommands, game_commands
    from sandbox.app.table.app import TabletopApp
    from sandbox.engine.kinds import all_kinds

    commands = {TableCommands, *(game_commands(k) for k in all_kinds())}
    targets = {"input": [InputLayer], "app": [TabletopApp], "commands": sorted(
        commands, key=lambda c: c.__name__)}
    calls = [(row, row.run) for row in KEY_MAP if isinstance(row.run, keymap.Call)]
    assert len(calls) > 20
    for row, call in calls:
        args = (*call.args, row.keys[0] if row.keys else "x") if call.with_key else call.args
        owners = [c for c in targets[call.on] if callable(getattr(c, call.method, None))]
        assert owners, f"{row.label}: no {call.on} method {call.method!r}"
        for owner in owners:
            try:
                inspect.signature(getattr(owner, call.method)).bind(None, *args)
            except TypeError as exc:
                raise AssertionError(f"{row.label} ({call.method}{args}): {exc}") from None
    arrows = next(call for row, call in calls if call.method == "camera_key_of")
    assert arrows.with_key
