"""The tabletop window on an Escapade (BrikWars ch. 13) under Xvfb: edges and deployment zones
drawn on the table, and the panel with the forces table, underdog Bennies, Strategy piles and
the victory status, updated after an action."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import REPO

pytestmark = pytest.mark.window
W, H = 800, 600


@pytest.fixture(scope="module")
def app(window_display, tmp_path_factory):
    from sandbox.app.table.app import TabletopApp
    from sandbox.engine.game import open_game

    out = tmp_path_factory.mktemp("escapade_window")
    session = open_game(REPO / "scenes" / "escapade_raid.toml")
    a = TabletopApp(session, W, H, save_path=out / "game.save.json", screenshot_dir=out,
                    shadows=False)
    a.out = out
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


def _edge_pixels(shot, colour) -> int:
    rgb = shot[..., :3].astype(int)
    if colour == "red":
        return int(((rgb[..., 0] > 180) & (rgb[..., 1] < 90) & (rgb[..., 2] < 90)).sum())
    if colour == "blue":
        return int(((rgb[..., 2] > 180) & (rgb[..., 0] < 110) & (rgb[..., 1] < 150)).sum())
    return int(((rgb[..., 0] > 200) & (rgb[..., 1] > 170) & (rgb[..., 2] < 80)).sum())


def test_panel_shows_forces_bennies_strategy_and_victory(app):
    text = app.escapade_panel.getText()
    assert "Escapade (standard), turn 1" in text
    # Unit Inches now/at the start, the underdog Benny, the Strategy pile
    assert "Blud's Raiders (escapading hero): 4/4Ü, Bennies 1, Strategy 0" in text.splitlines()
    assert "Attackers 4Ü vs defenders 5Ü: underdogs attackers" in text
    assert "Victory: host holds (Keep Garrison, Sir Hector)" in text


def test_edges_and_zones_are_drawn(app):
    from sandbox.render.escapade_markers import EDGE_COLOURS

    app.rig.top_down()
    app.overlays_dirty = True
    app.step(3)
    lines = [n for n in app.markers_np.get_children()]
    assert len(lines) >= 8  # outline, 4 edge stretches, 4 zones, the Stronghold
    shot_path = app.screenshot(app.out / "escapade_top.png")
    from PIL import Image

    shot = np.asarray(Image.open(shot_path))
    h = shot.shape[0]
    # the attackers' (south) edge red at the bottom, the defenders' (north) blue at the top
    assert _edge_pixels(shot[h // 2:], "red") > 100
    assert _edge_pixels(shot[: h // 2], "blue") > 100
    assert _edge_pixels(shot, "yellow") > 100  # uncontrolled east and west edges
    assert _edge_pixels(shot[h // 2:], "blue") < _edge_pixels(shot[: h // 2], "blue")
    assert EDGE_COLOURS["attackers"][0] > 0.9


def test_panel_updates_after_a_witnessed_kill(app):
    from sandbox.engine.actions import AttackAction

    app.submit(AttackAction(type="attack", player="Baron Blud", unit="gunner", target="guard1"))
    app.wait_idle(60)
    text = app.escapade_panel.getText()
    # a witnessed kill waiting for the Commander to relay it; the Garrison lost 1 Unit Inch
    assert "Blud's Raiders (escapading hero): 4/4Ü, Bennies 1, Strategy 0 (+1 to relay)" in text
    assert "Keep Garrison (garrison): 2/3Ü, Bennies 0, Strategy 0" in text
    app.screenshot(app.out / "escapade_after_kill.png")
