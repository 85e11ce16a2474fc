"""The window's keys for issue 13's items 9 and 11 under Xvfb, on the Escapade raid: F10 plays
a Tactical Advantage swap (13.2) by clicks, and V then Tab picks a missile's Explosive Variant
with its mixed dice shown before the strike (8.4)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import REPO
from pointer import click_body, key

pytestmark = pytest.mark.window
W, H = 800, 600


@pytest.fixture(scope="module")
def app(window_display, tmp_path_factory):
    from sandbox.app.table.app import TabletopApp
    from sandbox.engine.game import open_game

    out = tmp_path_factory.mktemp("swap_window")
    session = open_game(REPO / "scenes" / "escapade_raid.toml")
    a = TabletopApp(session, W, H, save_path=out / "game.save.json", screenshot_dir=out,
                    shadows=False, referee=True)  # V: the referee's missile strike
    a.step(3)
    yield a
    a.destroy()


@pytest.fixture(autouse=True)
def fresh(app):
    """Each test starts from the Escapade raid as shipped
    in a window just opened (any order, any test alone)."""
    from conftest import fresh_table

    from sandbox.engine.game import open_game

    fresh_table(app, open_game(REPO / "scenes" / "escapade_raid.toml"))




def test_f10_swaps_two_garrison_guards_by_clicks(app):
    """13.2: the Raiders (highest roll) swap two guards of the Garrison (no Command
    Specialist): select guard1, F10, click guard3; the swap is played before any action."""
    s = app.session
    app.rig.top_down()
    app.step(3)
    a0, b0 = s.footprint_centre("guard1"), s.footprint_centre("guard3")
    app.select("guard1")
    key(app, "f10")
    assert app.input.mode == "swap" and "Swap" in app.flashline.getText()
    click_body(app, "guard3")
    app.wait_idle(60)
    assert s.actions and s.actions[-1].type == "swap"
    assert np.allclose(s.footprint_centre("guard1"), b0, atol=0.15)
    assert np.allclose(s.footprint_centre("guard3"), a0, atol=0.15)


def test_v_then_tab_shows_the_missile_variant_dice(app):
    """8.4: V (missile strike), ] twice for XSize 3, Tab to Phased: the flash and the HUD name
    the dice it will roll, 1d12 Phased + 1d10 Exp (the odd d10 kept). V is a referee's tool:
    the referee's help lists it (and the Escapade's keys), the strike mode's help its keys."""
    key(app, "h")
    text = app.help_panel.getText()
    assert "referee" in text.split("\n")[0] and "V missile strike (free)" in text
    assert "I ignite" in text and "R relay a kill" in text and "F10 swap two units" in text
    key(app, "v")
    assert app.input.mode == "strike"
    app.step(1)
    assert "[ ] fewer / more" in app.help_panel.getText()
    assert "Tab Explosive Variant" in app.help_panel.getText()
    key(app, "]")
    key(app, "]")
    for _ in range(4):  # explosive -> incendiary -> armor_piercing -> concussion -> phased
        key(app, "tab")
    assert app.input.current.variant == "phased"
    assert "1d12 Phased + 1d10 Exp" in app.flashline.getText()
    key(app, "escape")
