"""Power and Manning Guns in the tabletop window (BrikWars 8.1, 8.5): Shift+T Sets Up the
Turret by a click, the Turret's MachineGun is aimed with its Gunner's die and Gunnery in the
preview, fired by a second click, and the walker's stat card shows its Power used and left."""

from __future__ import annotations

import pytest
from conftest import REPO
from pointer import click_body
from pointer import key as press

pytestmark = pytest.mark.window
W, H = 800, 600


@pytest.fixture(scope="module")
def app(window_display, tmp_path_factory, ldrawdir):
    from sandbox.app.table.app import TabletopApp
    from sandbox.engine.game import open_game

    out = tmp_path_factory.mktemp("manning")
    session = open_game(REPO / "scenes" / "machinegun_nest.toml", ldrawdir=ldrawdir)
    a = TabletopApp(session, W, H, save_path=out / "game.save.json", screenshot_dir=out)
    a.step(3)
    yield a
    a.destroy()


def click(app, key_):
    click_body(app, key_)
    app.wait_idle()


def key(app, name):
    press(app, name)
    app.wait_idle()


def test_set_up_aim_and_fire_the_turret_then_the_power_card(app):
    s = app.session
    app.select("brass")
    key(app, "shift-t")
    click(app, "turret")
    assert s.actions[-1].type == "set_up_turret"
    key(app, "e")
    key(app, "e")
    app.select("turret")
    key(app, "1")
    click(app, "raider1")  # aim: the preview shows the die and Power terms before the roll
    app.step(2)
    text = app.preview.getText()
    assert "Action Roll: d8" in text and "Gunnery: Sergeant Brass" in text
    assert "needs no Power" in text
    click(app, "raider1")  # fire
    assert s.actions[-1].type == "attack" and s.actions[-1].gunner == "brass"
    key(app, "e")
    app.select("walker")
    app.step(2)
    assert 'Power 6" a turn: used 0", left 6"' in app.card.getText()
    shot = app.screenshot()
    assert shot.exists()
