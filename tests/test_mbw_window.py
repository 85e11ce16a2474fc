"""Micro Brick War in the tabletop window under Xvfb, played by input: click a Capital and a
square to farm, click a unit and a ringed square to move (the rings are drawn), end the turn
with E, and the computer seat plays Blue's turn by itself."""

from __future__ import annotations

import time

import pytest
from conftest import REPO
from pointer import move_pointer

pytestmark = pytest.mark.window
W, H = 640, 480


SCENE = {
    "name": "mbw window", "game": "micro_brick_war", "seed": 5,
    "battlefield": {"width": 9, "depth": 9},
    "players": [{"name": "Red", "colour": 4}, {"name": "Blue", "colour": 1}],
    "micro_brick_war": {"width": 5, "height": 5, "ai": ["Blue"],
                        "units": [{"player": "Red", "kind": "infantry", "square": "c2"}]},
    "actions": [{"type": "mbw_farm", "player": "Red", "turn": 1, "city": "b2", "square": "a1"}],
}


@pytest.fixture(scope="module")
def app(window_display, tmp_path_factory, ldrawdir):
    from sandbox.app.table.app import TabletopApp
    from sandbox.engine.game import Game
    from sandbox.engine.scene import scene_from_dict

    out = tmp_path_factory.mktemp("mbw_window")
    session = Game(scene_from_dict(SCENE), REPO, ldrawdir=ldrawdir)
    a = TabletopApp(session, W, H, save_path=out / "game.save.json", screenshot_dir=out,
                    shadows=False)
    a.out = out
    a.rig.toggle_top(6.0, 6.0, a.aspect)
    a.step(3)
    yield a
    a.destroy()


@pytest.fixture(autouse=True)
def fresh(app, ldrawdir):
    """Each test starts from the Micro Brick War scene
    in a window just opened (any order, any test alone)."""
    from conftest import fresh_table

    from sandbox.engine.game import Game
    from sandbox.engine.scene import scene_from_dict

    fresh_table(app, Game(scene_from_dict(SCENE), REPO, ldrawdir=ldrawdir))


def _px(xy):
    return int(round((xy[0] + 1) / 2 * W)), int(round((1 - xy[1]) / 2 * H))


def click_square(app, name):
    from sandbox.rules.micro_brick_war import parse_square

    c = app.mbw.system.centre(parse_square(name))
    xy = app.world_to_screen((float(c[0]), float(c[1]), 0.15))
    move_pointer(app, *_px(xy), frames=2)
    app.base.messenger.send("mouse1")
    app.step(1)
    app.base.messenger.send("mouse1-up")
    app.step(2)


def test_click_a_capital_then_a_square_farms_it(app):
    rules = app.mbw.rules
    click_square(app, "b2")
    assert app.mbw.city == (1, 1)
    click_square(app, "a2")
    app.wait_idle()
    assert rules.farms.get((0, 1)) == "Red"
    assert app.session.actions[-1].type == "mbw_farm"
    assert "Micro Brick War" in app.escapade_panel.getText()


def test_click_a_unit_shows_rings_and_moves(app):
    rules = app.mbw.rules
    click_square(app, "c2")
    assert app.mbw.unit == "Red-infantry-1"
    app.step(3)
    img = app.frame_array()
    green = (img[:, :, 1] > 200) & (img[:, :, 0] < 140) & (img[:, :, 2] < 140)
    assert green.sum() > 30  # the squares it may move to are ringed
    click_square(app, "c3")
    app.wait_idle()
    assert rules.units["Red-infantry-1"].square == (2, 2)
    assert app.session.actions[-1].type == "mbw_move"


def test_end_turn_by_key_and_the_computer_plays_blue(app):
    s = app.session
    app.base.messenger.send("e")
    app.step(2)
    t0 = time.monotonic()
    while (s.current_player != "Red" or app.busy) and time.monotonic() - t0 < 90:
        app.step(2)
    assert s.current_player == "Red" and s.turn == 2
    blue = [a for a in s.actions if a.player == "Blue"]
    assert blue and blue[-1].type == "end_turn"
    assert app.mbw.rules.goblet_placed  # Blue, the chooser, placed the Goblet
    assert {a.type for a in blue} <= {"mbw_farm", "mbw_build", "mbw_move", "mbw_attack",
                                      "mbw_place_goblet", "end_turn"}


RAID = {**SCENE, "name": "mbw raid", "micro_brick_war": {
    "width": 5, "height": 5, "ai": ["Blue"],
    "units": [{"player": "Red", "kind": "cavalry", "square": "a5"}]}, "actions": []}


def test_a_game_against_the_computer_played_to_a_decided_end(app, ldrawdir):
    """Issue 31 item 5: Red's cavalry rides at Blue's empty Capital by clicks (the card shows
    the unit's and the Capital's numbers), the computer plays Blue's turn, Red enters d4 and
    conquers: the end banner names Red, and the computer plays no more."""
    from conftest import fresh_table

    from sandbox.engine.game import Game
    from sandbox.engine.scene import scene_from_dict

    fresh_table(app, Game(scene_from_dict(RAID), REPO, ldrawdir=ldrawdir))
    s = app.session
    rules = app.mbw.rules
    click_square(app, "b2")  # Red's Capital: its card
    card = app.card.getText()
    assert "Capital b2 of Red" in card and "capacity 0 of 16 slots" in card, card
    assert "build: 1 infantry (2 farms)" in card
    click_square(app, "a5")
    card = app.card.getText()
    assert "Cavalry Red-cavalry-1 (Red) on a5" in card and "Speed 2 (2 left)" in card, card
    app.screenshot(app.out / "mbw_card.png")
    click_square(app, "c5")  # two squares: its Speed
    app.wait_idle()
    assert rules.units["Red-cavalry-1"].square == (2, 4), app._flash_text
    app.base.messenger.send("e")
    app.step(2)
    t0 = time.monotonic()
    while (s.current_player != "Red" or app.busy) and time.monotonic() - t0 < 90:
        app.step(2)
    assert s.current_player == "Red" and any(a.player == "Blue" for a in s.actions)
    click_square(app, "c5")
    assert app.mbw.unit == "Red-cavalry-1"
    click_square(app, "d4")  # into Blue's Capital: conquest
    app.wait_idle()
    assert s.over and s.outcome.winner == "Red", (s.outcome, app._flash_text)
    end = app.end_panel.getText()
    assert "THE GAME IS OVER" in end and "Red wins (conquest" in end, end
    n = len(s.actions)
    app.step(5)
    assert len(s.actions) == n  # the computer plays no more
    app.screenshot(app.out / "mbw_end.png")
