"""The conformance check of every game kind (``check_game_kind``), and proof that it fails
for a kind with a misspelt hook, an action no system plays, an action a scene cannot name, or
window modes that do not resolve."""

from __future__ import annotations

import sys
import types
from typing import Literal

import pytest

from sandbox.engine.actions import Action
from sandbox.engine.conformance import check_game_kind
from sandbox.engine.kinds import GameKind, all_kinds
from sandbox.engine.table import System, handles

KINDS = {k.name: k for k in all_kinds()}


def test_the_shipped_games_are_kinds():
    assert {"brikwars", "brigandine", "micro_brick_war"} <= set(KINDS)


@pytest.mark.parametrize("name", sorted(KINDS))
def test_every_game_kind_conforms(name):
    assert check_game_kind(KINDS[name]) == []


def _knock_kind():
    """A small kind defined at test time: one system playing one action."""

    class Knock(Action):
        type: Literal["test_knock"]
        unit: str

    class Knocking(System):
        name = "knocking"

        @handles(Knock)
        def knock(self, action, index):
            pass

    return Knock, Knocking


def test_a_well_formed_kind_conforms(plug_in):
    _, knocking = _knock_kind()
    assert check_game_kind(GameKind("test_knock_game", systems=(knocking,))) == []


def test_a_misspelt_hook_fails(plug_in):
    _, knocking = _knock_kind()

    class Sloppy(knocking):
        name = "sloppy"

        def start_of_turm(self, turn):  # misspelt: the engine would never call it
            pass

        def on_stepp(self, world, impacts):
            pass

        def outcom(self, final=False):  # the victory rules' hook, misspelt
            return None

        def may_akt(self, key, player):
            return ""

    problems = check_game_kind(GameKind("test_knock_game", systems=(Sloppy,)))
    assert any("Sloppy.start_of_turm is no hook" in p and "'start_of_turn'" in p
               for p in problems), problems
    assert any("Sloppy.on_stepp is no hook" in p for p in problems), problems
    assert any("Sloppy.outcom is no hook" in p and "'outcome'" in p for p in problems), problems
    assert any("Sloppy.may_akt is no hook" in p for p in problems), problems


def test_an_action_no_system_plays_fails(plug_in):
    knock, knocking = _knock_kind()

    class Orphan(Action):  # defined beside the game's systems, listed by none
        type: Literal["test_orphan"]

    problems = check_game_kind(GameKind("test_knock_game", systems=(knocking,)))
    assert problems == ["test_knock_game: no system plays Orphan ('test_orphan')"]


def test_a_listed_action_no_method_handles_fails(plug_in):
    knock, _ = _knock_kind()

    class Lazy(System):
        name = "lazy"
        actions = (knock,)  # listed, but no @handles method and no apply of its own

    problems = check_game_kind(GameKind("test_knock_game", systems=(Lazy,)))
    assert problems == ["test_knock_game: Lazy lists Knock but no method of it handles it "
                        "(@handles)"]


def test_an_action_a_scene_cannot_name_fails(plug_in):
    class Unnamed(Action):  # its type is no Literal: never registered, no scene can write it
        type: str = "test_unnamed"

    class Retired(Action):  # a retired name: scene files are told to write something else
        type: Literal["big_drop"]

    class Player(System):
        name = "player"

        @handles(Unnamed, Retired)
        def play(self, action, index):
            pass

    problems = check_game_kind(GameKind("test_knock_game", systems=(Player,)))
    assert any("plays Unnamed, whose type is no Literal: a scene cannot name it" in p
               for p in problems), problems
    assert any("'big_drop' of Retired is a retired name" in p for p in problems), problems


def test_two_systems_of_one_name_fail(plug_in):
    _, knocking = _knock_kind()

    class Again(knocking):
        pass

    problems = check_game_kind(GameKind("test_knock_game", systems=(knocking, Again)))
    assert "test_knock_game: system name 'knocking' is used by 2 systems" in problems


def test_window_modes_that_do_not_resolve_fail(plug_in, monkeypatch):
    """A kind's ``window`` must import and list named, distinct mode classes (the window
    resolves it lazily: a kind imports no window)."""
    _, knocking = _knock_kind()
    misspelt = GameKind("test_knock_game", systems=(knocking,),
                        window="sandbox.games.brikwars.windw")
    (problem,) = check_game_kind(misspelt)
    assert "window 'sandbox.games.brikwars.windw' cannot be imported" in problem
    module = types.ModuleType("test_knock_window")

    class Home:
        name = "select"

    module.MODES = (Home, Home, "select")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "test_knock_window", module)
    problems = check_game_kind(GameKind("test_knock_game", systems=(knocking,),
                                        window="test_knock_window"))
    assert any("'select' is no mode class" in p for p in problems), problems
    assert any("2 modes are named 'select'" in p for p in problems), problems
    module.MODES = ()  # type: ignore[attr-defined]
    (problem,) = check_game_kind(GameKind("test_knock_game", systems=(knocking,),
                                          window="test_knock_window"))
    assert "has no MODES" in problem
    # the shipped kinds' windows resolve (their home mode is named "select")
    for name in ("brikwars", "brigandine", "micro_brick_war"):
        modes = KINDS[name].window_module().MODES
        assert [m.name for m in modes if m.name == "select"] == ["select"], name
