"""The window's ``O``: the odds of a previewed attack, run in the background, beside it."""

from __future__ import annotations

import pytest
from test_tabletop_window import app, centre, click, key, point_at  # noqa: F401

pytestmark = pytest.mark.window


def test_o_shows_the_odds_of_the_previewed_attack(app, monkeypatch):  # noqa: F811
    import sandbox.app.table.files as tabletop  # the window's odds: FilesMixin.start_odds

    monkeypatch.setattr(tabletop, "ODDS_SEEDS", 4)
    s = app.session
    n_actions = len(s.actions)
    key(app, "o")  # nothing previewed: explained
    assert "aim an attack" in app._flash_text
    click(app, centre(app, "knight1"))
    key(app, "1")
    point_at(app, centre(app, "falcon1"))
    assert app.input.current.hover_target == "falcon1"
    key(app, "o")
    assert app.odds_action["type"] == "attack" and app.odds_action["target"] == "falcon1"
    app.wait_odds()
    app.step(2)
    text = app.preview.getText()
    assert "Bastard Gun" in text and "Odds over 4 seeds" in text, text
    assert len(s.actions) == n_actions  # the odds change nothing in the game
    key(app, "escape")
    app.step(2)
    assert "Odds over" not in app.preview.getText()  # only beside its own preview
