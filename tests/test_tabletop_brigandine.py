"""The tabletop window on a Brigandine scene under Xvfb: the banner names the round and phase,
the status line the phase's gestures, and keys become hidden Brigandine orders."""

from __future__ import annotations

import pytest
from conftest import REPO

pytestmark = pytest.mark.window


def test_banner_prompt_and_hidden_orders_from_keys(window_display, tmp_path):
    from sandbox.app.table.app import TabletopApp
    from sandbox.engine.game import open_game

    session = open_game(REPO / "scenes" / "brigandine_joust.toml")
    app = TabletopApp(session, 640, 480, save_path=tmp_path / "game.save.json",
                      screenshot_dir=tmp_path, shadows=False)
    try:
        app.step(2)
        assert app.banner.getText().startswith("Round 1, phase 1. reactions: Templars' orders")
        assert "I: delay initiative" in app.status.getText()
        assert app.help_panel.getText() == "H: help"  # folded at first
        app.input.key("h")
        app.step(1)
        text = app.help_panel.getText()  # Brigandine's keys, not BrikWars's
        assert text.startswith("Keys (brigandine, select mode)")
        assert "I delay initiative" in text and "1-7 declare" in text
        assert "1-9 weapon" not in text and "B The Big Drop" not in text and "I ignite" not in text
        assert app.pile.getText() == ""  # no Strategy bricks in Brigandine
        app.input.key("i")
        app.wait_idle(60)
        assert session.events[-1].type == "brig_order" and "delays" in session.events[-1].text
        for _ in range(2):  # both players end phase 1: the screen passes, phase 2 begins
            app.input.key("e")
            app.wait_idle(60)
        app.step(2)
        assert "phase 2. declare actions" in app.banner.getText()
        assert "pass the screen" in app.banner.getText()
        app.select("brian")
        app.input.key("7")          # joust
        app.input.key("enter")      # declare, hidden
        app.wait_idle(60)
        assert session.events[-1].type == "brig_order" and "joust" not in session.events[-1].text
        assert session.system("brigandine").declared["brian"].does == ["joust"]
    finally:
        app.destroy()
