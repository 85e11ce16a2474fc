"""The players' own hands in the tabletop window under Xvfb (issue 18), driven by input only:
keys and typed characters through Panda3D's messenger (``keystroke`` events, as the keyboard
sends them), clicks through the X pointer, the save-slot dialog's buttons through the window's
own mouse device. The log search, the dice tray, done marks, rulers and templates that stay on
the table, picking up and putting down, named save slots. Two frames are compared with goldens.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import REPO
from imaging import assert_matches_golden
from pointer import click, key, move_pointer, point_at, screen_px

pytestmark = pytest.mark.window
W, H = 800, 600






def type_text(app, text):
    for ch in text:
        app.base.messenger.send("keystroke", [ch])
    app.step(1)


def top(app, key_):
    lo, hi = app.session.bounds(key_)
    return np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, hi[2] - 0.05])


def select(app, unit):
    click(app, top(app, unit))
    assert app.selected == unit


def top_view(app, on: bool) -> None:
    """T until the view is (or is not) the top view."""
    if (app.rig.pitch > 89.0) != on:
        key(app, "t")
    app.step(1)


def table_frame(app) -> np.ndarray:
    """The window's frame less the log column (whose lines depend on the tests run before)."""
    from sandbox.app.table.hud import LOG_COLUMN

    return app.frame_array()[:, :int(W * (1 - LOG_COLUMN)) - 2]


def coarse(frame: np.ndarray, k: int = 4) -> np.ndarray:
    """The frame averaged over k x k pixels: thin lines a pixel apart (the 3D view's hairline
    edge markers move by one pixel between runs) compare equal, a moved model does not."""
    h, w = (frame.shape[0] // k) * k, (frame.shape[1] // k) * k
    f = frame[:h, :w].astype(np.float64).reshape(h // k, k, w // k, k, 3).mean(axis=(1, 3))
    return np.round(f).astype(np.uint8)


def backend(app) -> str:
    return "llvmpipe" if "llvmpipe" in app.gl_renderer.lower() else "other"


def refusals(app):
    return app._flash_text if app.flash_kind == "error" else ""


@pytest.fixture(scope="module")
def app(window_display, tmp_path_factory):
    from sandbox.app.table.app import TabletopApp
    from sandbox.engine.game import open_game

    out = tmp_path_factory.mktemp("hands_window")
    session = open_game(REPO / "scenes" / "skirmish.toml", forced_dice=False)
    a = TabletopApp(session, W, H, save_path=out / "game.save.json", screenshot_dir=out,
                    shadows=False)
    a.out = out
    a.show_help = False  # the frames compared with goldens show the table, not the help
    a.step(3)
    yield a
    a.destroy()


@pytest.fixture(autouse=True)
def fresh(app):
    """Each test starts from the skirmish (live dice)
    in a window just opened (any order, any test alone)."""
    from conftest import fresh_table

    from sandbox.engine.game import open_game

    fresh_table(app, open_game(REPO / "scenes" / "skirmish.toml", forced_dice=False))


def test_log_search_filters_as_you_type_and_esc_clears(app):
    key(app, "/")
    assert app.entry is not None and app.entry.purpose == "search"
    assert app.entry.text == ""  # the '/' that opened it is not typed into it
    type_text(app, "at rest")
    assert app.log_search == "at rest"
    shown = app.log_events(app.session.events)
    assert shown and all("at rest" in app.log_text(e).lower() for e in shown)
    app.log_search = ""
    everything = app.log_events(app.session.events)
    app.log_search = "at rest"
    assert len(shown) < len(everything)
    app.step(2)
    assert 'search "at rest"' in app.logpanel.getText()
    assert "Search the log: at rest_" in app.entry_text.getText()
    key(app, "e")  # typing: the E key types (its keystroke), it does not end the turn
    type_text(app, "e")
    assert app.session.turn == 1 and app.session.current_player == "Lion Knights"
    assert app.log_search == "at reste"
    key(app, "backspace")
    assert app.log_search == "at rest"
    key(app, "escape")
    assert app.entry is None and app.log_search == ""
    # Enter keeps the search; Esc on the table clears it afterwards
    key(app, "control-f")
    type_text(app, "TURN")
    key(app, "enter")
    assert app.entry is None and app.log_search == "TURN"
    assert all("turn" in app.log_text(e).lower() for e in app.log_events(app.session.events))
    key(app, "escape")
    assert app.log_search == ""


def test_dice_tray_rolls_logged_seeded_dice(app):
    s = app.session
    key(app, "shift-r")
    type_text(app, "2d6+1d4")
    key(app, "enter")
    app.wait_idle(60)
    assert s.actions[-1].type == "roll_dice", refusals(app)
    tray = [e for e in s.events if e["type"] == "dice_tray"]
    assert tray and tray[-1]["dice"] == "2d6+1d4"
    rolls = [e for e in s.events if e["type"] == "roll" and e["stream"] == "tray"]
    assert len(rolls) == 3 and not any(e.get("forced") for e in rolls)
    app.step(2)
    assert "rolls 2d6+1d4" in app.logpanel.getText()
    n = len(s.actions)
    key(app, "shift-r")
    type_text(app, "banana")
    key(app, "enter")
    app.wait_idle(60)
    assert len(s.actions) == n and "dice" in refusals(app)


def test_done_marks_rulers_and_templates_drawn_on_the_table(app):
    s = app.session
    top_view(app, True)  # the marks seen from above
    select(app, "knight1")
    key(app, "shift-e")
    app.wait_idle(60)
    assert s.tools.done == {"knight1"}, refusals(app)
    # a ruler: shift-M, two clicks; the live line follows the pointer in between
    key(app, "shift-m")
    click(app, np.array([-6.0, -6.0, 0.0]))
    point_at(app, np.array([0.0, -6.0, 0.0]))
    assert app.input.current.hovering is not None and app.input.current.first is not None
    click(app, np.array([4.0, -6.0, 0.0]))
    app.wait_idle(60)
    assert s.tools.markers["m1"]["kind"] == "ruler", refusals(app)
    assert np.allclose(s.tools.markers["m1"]["points"], [[-6, -6], [4, -6]], atol=0.3)
    # a template: shift-T, ] for a 3" radius, click its centre
    key(app, "shift-c")
    key(app, "]")
    assert app.input.current.radius == 3.0
    click(app, np.array([0.0, 5.0, 0.0]))
    app.wait_idle(60)
    assert s.tools.markers["m2"]["kind"] == "template" and s.tools.markers["m2"]["radius"] == 3.0
    app.select(None)
    app.step(3)
    app.flash("")
    app.step(2)
    frame = table_frame(app)
    app.screenshot(app.out / "hands_marks.png")
    assert_matches_golden(frame, "tabletop_hands_marks", backend(app))
    # the marks stay over the turn; the done mark goes at the Knights' next turn
    key(app, "e")
    app.wait_idle(60)
    assert sorted(s.tools.markers) == ["m1", "m2"] and s.tools.done == {"knight1"}
    key(app, "e")
    app.wait_idle(60)
    assert s.current_player == "Lion Knights" and s.tools.done == set()
    # Delete, click on the ruler: it comes off the table
    key(app, "delete")
    click(app, np.array([0.0, -6.0, 0.0]))
    app.wait_idle(60)
    assert sorted(s.tools.markers) == ["m2"], refusals(app)
    top_view(app, False)


def test_named_save_slots_and_the_load_dialog(app):
    from panda3d.core import MouseButton

    s = app.session
    key(app, "f6")
    assert app.entry is not None and app.entry.purpose == "slot"
    # the scene's name is a selected suggestion: typing replaces it (issue 31 item 10)
    assert app.entry.text == s.spec.name[:30] and "type to replace" in app.entry.shown()
    type_text(app, "before the charge")
    assert app.entry.text == "before the charge"
    key(app, "enter")
    slot = app.slots_dir / "before the charge.save.json"
    assert slot.is_file() and app.unsaved == 0
    want = s.state_hash()
    key(app, "shift-r")
    type_text(app, "1d6")
    key(app, "enter")
    app.wait_idle(60)
    assert app.unsaved == 1
    key(app, "f7")
    dlg = app.slot_dialog
    assert dlg is not None and slot in dlg.files
    app.step(2)
    app.screenshot(app.out / "slots_dialog.png")
    button = dlg.buttons[dlg.files.index(slot)]
    b = button.get_pos(app.base.render2d)
    move_pointer(app, *screen_px(app, (b[0], b[2] + 0.01)), frames=0)
    app.step(2)
    dev = app.base.win.get_input_device(0)
    dev.button_down(MouseButton.one())
    app.step(2)
    dev.button_up(MouseButton.one())
    app.step(2)
    app.wait_idle(120)
    assert app.slot_dialog is None
    assert app.session is not s and app.session.state_hash() == want, refusals(app)
    assert app.unsaved == 0
    key(app, "f7")
    assert app.slot_dialog is not None
    key(app, "escape")
    assert app.slot_dialog is None


def test_pick_up_carry_and_put_down_through_the_window(app):
    from sandbox.engine.game import open_game

    old = app.session
    app.adopt(open_game(REPO / "scenes" / "escapade_raid.toml"))
    old.close()
    app.select(None)
    app.input.set_mode("select")
    top_view(app, True)
    app.step(2)
    s = app.session
    s.apply({"type": "move", "player": "Baron Blud", "unit": "gunner", "to": [3.0, -8.7]})
    app.adopt(s)
    app.step(2)
    select(app, "gunner")
    key(app, "c")
    click(app, top(app, "chest"))
    app.wait_idle(60)
    assert s.tools.held("gunner") == "chest", refusals(app)
    top_view(app, False)  # the 3D view: the chest in Gorm's hands, ringed
    # a fixed camera for the golden frame (the 3D view otherwise keeps the tests' before)
    app.rig.target = np.array([4.0, -6.0, 0.0])
    app.rig.distance, app.rig.azimuth, app.rig.elevation = 30.0, -20.0, 40.0
    app.flash("")
    app.step(2)
    frame = coarse(table_frame(app))
    app.screenshot(app.out / "hands_carry.png")
    # 5.0, not 4.0: the Escapade's table-edge lines (wide lines, no multisampling on software GL)
    # come out a pixel thicker or thinner from run to run (RMS 4.1-4.3 against one another
    # with the same carry, looked at); the chest in the gunner's hands is what is compared
    assert_matches_golden(frame, "tabletop_hands_carry", backend(app), tolerance=5.0)
    select(app, "gunner")
    key(app, "c")  # carrying: C then a click puts it down there
    assert app.input.current.prompt.startswith("Put down")
    click(app, np.array([3.0, -10.3, 0.0]))
    app.wait_idle(60)
    assert s.tools.held("gunner") is None, refusals(app)
    assert s.actions[-1].type == "put_down"
    assert np.linalg.norm(s.footprint_centre("chest") - [3.0, -10.3]) < 0.5
    top_view(app, False)


def test_a_carried_chest_walked_to_0_3_in_from_the_edge_stays_carried(app):
    """Issue 31 item 2: Gunner Gorm picks up the supply chest (C, click) and is dragged to
    0.3" from the south edge with the chest south of him: the chest comes along on his other
    side, inside the table, still carried; nothing falls off, nothing is claimed."""
    from sandbox.engine.game import open_game

    old = app.session
    s = open_game(REPO / "scenes" / "escapade_raid.toml")
    # the known state: Gorm beside the chest, then a new turn of his (his full Move)
    s.apply({"type": "move", "player": "Baron Blud", "unit": "gunner", "to": [3.0, -8.7]})
    for _ in range(3):
        s.apply({"type": "end_turn", "player": s.current_player})
    assert s.current_player == "Baron Blud" and s.skirmish.move_allowance("gunner") == 5.0
    app.adopt(s)
    old.close()
    app.select(None)
    app.input.set_mode("select")
    top_view(app, True)
    app.step(2)
    select(app, "gunner")
    key(app, "c")
    click(app, top(app, "chest"))
    app.wait_idle(60)
    assert s.tools.held("gunner") == "chest", refusals(app)
    assert s.footprint_centre("chest")[1] < s.footprint_centre("gunner")[1]  # south of him
    lo, hi = s.bounds("gunner")
    c = s.footprint_centre("gunner")
    goal_y = -12.0 + 0.3 + (hi[1] - lo[1]) / 2  # his base 0.3" from the south edge
    a = point_at(app, np.array([c[0], c[1], 0.0]))
    b = app.world_to_screen(np.array([c[0], goal_y, 0.0]))
    app.base.messenger.send("mouse1")
    app.step(1)
    for k in range(1, 7):
        move_pointer(app, *screen_px(app, (a[0] + (b[0] - a[0]) * k / 6,
                                           a[1] + (b[1] - a[1]) * k / 6)), frames=1)
    app.base.messenger.send("mouse1-up")
    app.step(1)
    app.wait_idle(60)
    assert s.actions[-1].type == "move", refusals(app)
    lo, hi = s.bounds("gunner")
    assert lo[1] == pytest.approx(-11.7, abs=0.08)
    assert s.tools.held("gunner") == "chest"
    clo, chi = s.bounds("chest")
    assert clo[1] > -12.0 and chi[2] > 0.2 and not s.bodies["chest"].off_table
    assert not [e for e in s.events if e["type"] == "off_table"]
    assert "fell off" not in app.logpanel.getText()
    top_view(app, False)
