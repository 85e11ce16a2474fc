"""Possessives of player names ending in s (found by trying the sandbox as a new user): the
window's missile strike was "Lion Knights's missile"; every text made from a player's name
takes the engine's one possessive (:func:`sandbox.engine.events.possessive`)."""

from __future__ import annotations

from types import SimpleNamespace

from conftest import REPO

from sandbox.engine.game import open_game
from sandbox.games.brikwars.commands import BrikWarsCommands


def test_the_windows_missile_strike_of_the_lion_knights(ldrawdir):
    with open_game(REPO / "scenes" / "skirmish.toml", ldrawdir=ldrawdir, referee=True) as g:
        assert g.current_player == "Lion Knights"
        a = BrikWarsCommands(SimpleNamespace(session=g, selected=None)).missile(
            (0.0, 0.0, 0.5), 2)
        assert a.name == "Lion Knights' missile"
        g.apply(a)
        assert any("Lion Knights' missile" in e.get("text", "") for e in g.events)
        assert not any("Knights's" in e.get("text", "") for e in g.events)


def test_brigandine_orders_and_refusals_of_the_templars(ldrawdir):
    with open_game(REPO / "scenes" / "brigandine_joust.toml", ldrawdir=ldrawdir) as g:
        brig = g.system("brigandine")
        assert "Templars' orders" in brig.banner(1, "Templars")
        assert "Saxons' orders" in brig.banner(1, "Saxons")
        assert "'s orders" in brig.banner(1, "Red")
        theirs = next(k for k, u in brig.units.items() if u.owner != g.current_player)
        why = brig._own(SimpleNamespace(player=g.current_player), theirs)[1]
        assert why.endswith(f"is not {g.current_player}'"), why
