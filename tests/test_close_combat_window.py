"""BrikWars 8.2 Close Combat from the tabletop window under Xvfb: ``'`` gives a Parry order
with the chosen weapon; ``;`` then a click on the target previews a Shove with every modifier
(the target's Parry included) before any die is rolled; a second click plays it."""

from __future__ import annotations

import pytest
from conftest import REPO
from test_tabletop_commands import H, W, centre, click, key, refusals

pytestmark = pytest.mark.window


@pytest.fixture(scope="module")
def app(window_display, tmp_path_factory, ldrawdir):
    from sandbox.app.table.app import TabletopApp
    from sandbox.engine.game import open_game

    out = tmp_path_factory.mktemp("close_combat_window")
    session = open_game(REPO / "scenes" / "creation_close_combat.toml", ldrawdir=ldrawdir)
    a = TabletopApp(session, W, H, save_path=out / "game.save.json", screenshot_dir=out,
                    shadows=False)
    a.step(3)
    key(a, "t")  # top view
    a.step(2)
    yield a
    a.destroy()


def test_parry_order_and_a_previewed_shove_through_window_keys(app):
    """BrikWars 8.2 at the window: the Parry order and the Shove preview (Automatic Hit, the
    target's Parry with its Use) before the roll, then the Shove on the second click."""
    s = app.session
    app.select("rknight")
    key(app, "2")  # the shield
    key(app, "'")
    app.wait_idle(60)
    assert s.close_combat.parry_orders == {"rknight": 1}, refusals(app)
    key(app, "e")
    app.wait_idle(60)
    app.select("fknight")
    key(app, ";")
    assert app.input.mode == "close_combat" and app.input.current.prompt.startswith(
        "Close Combat (shove")
    n_rolls, n_actions = len(s.dice.records()), len(s.actions)
    click(app, centre(app, "rknight"))
    text = app.flashline.getText()
    assert "Automatic Hit" in text and "Sir Rex will Parry with shield: Use 2" in text, text
    assert len(s.dice.records()) == n_rolls and len(s.actions) == n_actions
    click(app, centre(app, "rknight"))
    app.wait_idle(120)
    assert s.actions[-1].type == "shove", refusals(app)
    assert any(e["type"] == "parry" for e in s.events)
