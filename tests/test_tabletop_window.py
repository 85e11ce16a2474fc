"""The tabletop window driven like a user (issue 7): Xvfb, Panda3D's own events, screenshots.

One ShowBase per process: the app is made once for this module. Clicks and drags move the X
pointer (``win.movePointer``) and send Panda3D's mouse events through its messenger, so they go
through the same handlers and :class:`InputLayer` as a player's mouse.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pointer import click, key, move_pointer, point_at, screen_px

pytestmark = pytest.mark.window
REPO = Path(__file__).resolve().parents[1]
W, H = 640, 480


@pytest.fixture(scope="module")
def app(window_display, tmp_path_factory):
    from sandbox.app.table.app import TabletopApp
    from sandbox.engine.game import open_game

    out = tmp_path_factory.mktemp("tabletop")
    session = open_game(REPO / "scenes" / "skirmish.toml")
    a = TabletopApp(session, W, H, save_path=out / "game.save.json", screenshot_dir=out)
    a.step(3)
    yield a
    a.destroy()


@pytest.fixture(autouse=True)
def fresh(app):
    """Each test starts from the scene as shipped in a window just opened (any order, any
    test alone): a new game adopted, the window's input, messages and help reset."""
    from sandbox.engine.game import open_game

    app.reset()
    old = app.session
    app.adopt(open_game(REPO / "scenes" / "skirmish.toml"))
    old.close()
    app.step(2)





def drag(app, world_from, world_to, steps=6, shift=False, labels=None):
    a = point_at(app, world_from)
    b = app.world_to_screen(world_to)
    app.base.messenger.send("shift-mouse1" if shift else "mouse1")
    app.step(1)
    for k in range(1, steps + 1):
        x = a[0] + (b[0] - a[0]) * k / steps
        y = a[1] + (b[1] - a[1]) * k / steps
        move_pointer(app, *screen_px(app, (x, y)), frames=1)
    shot = app.frame_array()
    if labels is not None:  # the ruler's label as the drag ends
        labels.append(app.ruler_label.node().get_text())
    app.base.messenger.send("mouse1-up")
    app.step(1)
    return shot


def centre(app, key):
    lo, hi = app.session.bounds(key)
    return (lo + hi) / 2



def test_window_opens_and_draws_the_table(app):
    assert app.base.win is not None and app.base.win.get_x_size() == W
    img = app.frame_array()
    assert img.shape == (H, W, 3)
    # baize green under the middle of the table, sky blue at the top corner
    mid = img[H // 2 - 40:H // 2 + 40, W // 2 - 40:W // 2 + 40].reshape(-1, 3).mean(0)
    assert mid[1] > mid[0] + 20 and mid[1] > mid[2] + 20, mid
    sky = img[5:15, W - 15:W - 5].reshape(-1, 3).mean(0)
    assert sky[2] > sky[0], sky


def test_click_selects_and_shows_the_stat_card(app):
    click(app, centre(app, "knight1"))
    assert app.selected == "knight1"
    card = app.card.getText()
    assert "Sir Roland" in card and 'Move 5"' in card and "Bastard Gun" in card


def test_drag_moves_with_a_live_ruler_and_refuses_too_far(app):
    s = app.session
    c0 = s.footprint_centre("knight1")
    start = centre(app, "knight1")
    during = drag(app, start, start + np.array([3.0, 0.0, 0.0]))
    assert app.busy or s.actions  # the move was handed to the session
    app.wait_idle()
    assert len(s.actions) == 1 and s.actions[-1].type == "move"
    moved = float(np.linalg.norm(s.footprint_centre("knight1") - c0))
    assert 2.0 < moved < 4.0
    assert "moves" in app.logpanel.getText()
    # the ruler was drawn in green while dragging (the overlay shows in the frame)
    green = (during[:, :, 1] > 200) & (during[:, :, 0] < 140) & (during[:, :, 2] < 140)
    assert green.sum() > 20
    # now drag far beyond the Move left with Shift held: refused, nothing changes
    n = len(s.actions)
    start = centre(app, "knight1")
    drag(app, start, start + np.array([0.0, 6.0, 0.0]), shift=True)
    app.wait_idle()
    assert len(s.actions) == n
    assert "may move" in app.flashline.getText()


def test_a_drag_past_the_limit_stops_at_it_along_the_line(app):
    """Issue 31 item 4: 5" of Move, a drag to about 6.5" away: the knight stops at 5.00" on
    the dragged line (the ruler says where), one move action with clamp=True."""
    s = app.session
    c0 = s.footprint_centre("knight1")
    start = centre(app, "knight1")
    labels: list[str] = []
    during = drag(app, start, start + np.array([0.0, 6.5, 0.0]), labels=labels)
    assert 'stops at 5.00"' in labels[0], labels
    # the ruler in green up to the stop point (not red: the move will be made)
    green = (during[:, :, 1] > 200) & (during[:, :, 0] < 140) & (during[:, :, 2] < 140)
    assert green.sum() > 20
    app.wait_idle()
    assert len(s.actions) == 1 and s.actions[-1].clamp
    c1 = s.footprint_centre("knight1")
    step = c1 - c0
    assert 4.6 < float(np.linalg.norm(step)) <= 5.0 + 1e-6  # settled where it was set down
    assert abs(step[0]) < 0.5 and step[1] > 4.5  # along the dragged line
    assert s.skirmish.move_allowance("knight1") < 1e-3


def test_attack_preview_then_fire(app):
    s = app.session
    click(app, centre(app, "knight1"))
    key(app, "1")
    point_at(app, centre(app, "falcon1"))
    app.step(2)
    assert app.input.current.hover_target == "falcon1"
    text = app.preview.getText()
    assert "Bastard Gun: Use 3" in text and "Line of sight: clear" in text
    key(app, "enter")
    app.wait_idle()
    assert s.actions[-1].type == "attack"
    assert any(e["type"] == "action_roll" for e in s.events)


def test_undo_save_load_and_end_turn(app, tmp_path):
    from sandbox.engine.actions import MoveAction

    s = app.session
    for to in ((-4.0, -3.0), (-3.5, -2.5)):
        app.submit(MoveAction(type="move", player=s.current_player, unit="knight1", to=to))
        app.wait_idle()
    n = len(s.actions)
    assert n == 2
    key(app, "u")
    app.wait_idle()
    assert len(app.session.actions) == n - 1
    key(app, "f5")
    assert app.save_path.is_file()
    saved = app.session.state_hash()
    key(app, "e")
    app.wait_idle()
    assert "Black Falcons" in app.banner.getText()
    key(app, "f9")  # one unsaved action: F9 asks first (issue 18), F9 again loads
    assert app.unsaved == 1 and "F9 again" in app.flashline.getText()
    key(app, "f9")
    app.wait_idle()
    assert app.session.state_hash() == saved
    assert "Lion Knights" in app.banner.getText()


def test_grid_toggle_and_screenshot_key(app):
    app.select(None)
    for _ in range(2000):  # let any physics from the tests before finish playing back
        if not app.busy:
            break
        app.step(1)
    # a message flashed by an earlier test expires by the wall clock: on a busy machine it
    # could vanish between the frames compared below
    app.flash("", 0.0)
    app.step(3)
    a = app.frame_array().astype(float)
    key(app, "g")
    app.step(2)
    b = app.frame_array().astype(float)
    key(app, "g")
    app.step(2)
    c = app.frame_array().astype(float)
    assert np.sqrt(((a - b) ** 2).mean()) > 1.0      # the grid lines went away
    assert np.sqrt(((a - c) ** 2).mean()) < 1.0      # and came back the same
    files = set(app.screenshot_dir.glob("*.png"))
    key(app, "p")
    new = set(app.screenshot_dir.glob("*.png")) - files
    assert len(new) == 1
    from PIL import Image

    im = np.asarray(Image.open(new.pop()).convert("RGB")).astype(float)
    assert im.shape == (H, W, 3)
    assert np.sqrt(((im - c) ** 2).mean()) < 8.0     # the PNG is the frame on screen


def test_esc_cancels_a_drag_enemy_drag_is_explained_and_quit_keys(app):
    s = app.session
    app.input.set_mode("select")
    n = len(s.actions)
    # Esc in the middle of a drag: no move is handed to the session
    start = centre(app, "knight1" if s.current_player == "Lion Knights" else "falcon1")
    point_at(app, start)
    app.base.messenger.send("mouse1")
    app.step(1)
    b = app.world_to_screen(start + np.array([1.5, 0.0, 0.0]))
    move_pointer(app, *screen_px(app, b), frames=2)
    assert app.input.current.drag_unit is not None
    key(app, "escape")
    app.base.messenger.send("mouse1-up")
    app.step(2)
    app.wait_idle()
    assert len(s.actions) == n and "cancelled" in app.flashline.getText()
    # dragging the other side's unit says why, in red
    enemy = "falcon1" if s.current_player == "Lion Knights" else "knight1"
    drag(app, centre(app, enemy), centre(app, enemy) + np.array([1.0, 0.0, 0.0]))
    app.wait_idle()
    assert len(s.actions) == n and app.flash_kind == "error"
    assert "belongs to" in app.flashline.getText() and "' turn" in app.flashline.getText()
    assert "' turn" in app.banner.getText() and "Strategy pile: 0 bricks" in app.pile.getText()
    # T toggles the top view (aligned with the table) and back to the same 3D view
    before = (app.rig.yaw, app.rig.pitch, app.rig.distance)
    key(app, "t")
    assert app.rig.pitch > 89 and app.rig.yaw == 0
    key(app, "t")
    assert (app.rig.yaw, app.rig.pitch, app.rig.distance) == before
    # Q quits; Esc with nothing left to cancel does not (a new player pressed it once too often)
    quits = []
    app.on_quit = lambda: quits.append(1)
    app.select(None)
    key(app, "escape")
    assert quits == [] and "Q quits" in app.flashline.getText()
    key(app, "q")
    assert len(quits) == 1


def test_hud_stays_inside_a_resized_window(app):
    from panda3d.core import WindowProperties

    app.select("knight1")
    try:
        app.base.win.request_properties(WindowProperties.size(360, 480))
        for _ in range(8):
            app.step(1)
        assert app.base.win.get_x_size() == 360
        for node in (app.card, app.logpanel, app.banner):  # left edges inside the window
            lo, hi = node.get_tight_bounds(app.base.render2d)
            assert lo.x >= -1.001, node.getText()
    finally:
        app.base.win.request_properties(WindowProperties.size(W, H))
        for _ in range(8):
            app.step(1)


def test_launcher_key_previews_the_arc_then_fires(app, tmp_path):
    """L on the catapult scene (loaded as a save): click the guard for the arc, again to fire."""
    from sandbox.engine.actions import EndTurnAction
    from sandbox.engine.game import open_game
    from sandbox.games.brikwars.scene_flight import LaunchAction

    home = app.save(tmp_path / "home.save.json")
    cat = open_game(REPO / "scenes" / "catapult_over_wall.toml")
    cat.apply(EndTurnAction(type="end_turn", player="Lion Knights"))
    cat.save(tmp_path / "cat.save.json")
    cat.close()
    try:
        app.load(tmp_path / "cat.save.json")
        app.wait_idle()
        s = app.session
        assert s.current_player == "Black Falcons" and s.flight.launchers()
        key(app, "l")
        assert app.input.mode == "launch"
        guard = centre(app, "guard")
        click(app, guard)
        assert app.input.current.body == "guard"
        assert "Launcher" in app.preview.getText() and "Payload: boulder" in app.preview.getText()
        click(app, guard)
        app.wait_idle()
        assert isinstance(app.session.actions[-1], LaunchAction)
        assert app.session.body("guard").damage.destroyed
    finally:
        app.load(home)
        app.wait_idle()
    assert "knight1" in app.session.bodies


def test_f9_without_a_quick_save_says_so(app, tmp_path):
    """F9 before any F5: "No quick save yet", not a missing-file error (a new player's trial)."""
    kept = app.save_path
    app.save_path = tmp_path / "none.save.json"
    try:
        key(app, "f9")
        assert "No quick save yet" in app.flashline.getText() and app.flash_kind == "error"
    finally:
        app.save_path = kept


def test_help_is_folded_to_one_line_and_unfolds_with_this_games_keys(app):
    assert app.help_panel.getText() == "H: help"
    folded = app.frame_array()
    key(app, "h")
    app.step(1)
    text = app.help_panel.getText()
    assert text.startswith("Keys (brikwars, select mode)")
    assert "M measure & line of sight" in text and "1-9 weapon" in text
    assert "R relay" not in text and "F10" not in text  # the Escapade's keys: not this scene
    assert "V missile" not in text and "I ignite" not in text  # a referee's tools
    unfolded = app.frame_array()
    assert np.abs(unfolded.astype(int) - folded).sum() > 0  # the panel is drawn
    key(app, "m")  # the help follows the mode
    assert app.help_panel.getText().startswith("Keys (brikwars, measure mode)")
    key(app, "escape")
    key(app, "h")
    assert app.help_panel.getText() == "H: help"


def test_a_players_window_has_no_referee_tools(app):
    assert app.referee is False
    n = len(app.session.actions)
    for k in ("v", "i"):  # the free missile strike and ignite: not bound, not dispatched
        key(app, k)
        app.input.key(k)
        assert app.input.mode == "select"
    click(app, centre(app, "falcon1"))
    app.wait_idle()
    assert len(app.session.actions) == n


def test_shift_f8_twice_ends_the_battle_with_its_outcome(app):
    """Issue 31 item 5: the players end the battle (13.3) with Shift+F8, asked first: a banner
    with the Outcome and a summary; then nothing more is played."""
    s = app.session
    key(app, "shift-f8")
    assert not s.over and "Shift+F8 again" in app.flashline.getText()
    key(app, "shift-f8")
    app.wait_idle()
    assert s.over and s.outcome.truncated
    end = app.end_panel.getText()
    assert "THE GAME IS OVER" in end and "no victory condition" in end, end
    assert "Lion Knights:" in end and "F8: watch the replay" in end
    key(app, "e")
    app.wait_idle()
    assert not s.actions and "the game is over" in app.flashline.getText()


def test_the_arrow_keys_orbit_and_shift_arrows_pan_the_camera(app):
    """The arrows turn the camera about its target, Shift+arrows move the target (each key
    press once, as a player presses it; they raised TypeError in the window before)."""
    rig = app.rig
    yaw, pitch, target = rig.yaw, rig.pitch, np.array(rig.target, float)
    for name in ("arrow_left", "arrow_up"):
        app.base.messenger.send(name)
    app.step(2)
    assert rig.yaw != yaw and rig.pitch != pitch
    assert np.allclose(rig.target, target)
    app.base.messenger.send("shift-arrow_right")
    app.step(2)
    assert not np.allclose(rig.target, target)
