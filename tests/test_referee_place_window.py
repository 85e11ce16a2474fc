"""The referee's hand in the window (issue 25 item 4: "moving any body" as a referee tool; the
window shows referee tools only in referee mode): at a table opened with the referee option,
Shift+P and a drag place an enemy unit, a creation and a piece of rubble where the referee
sets them down, each placing the engine's ``place_body`` issued by the referee; in a player's
window the referee's keys (Shift+P, V, I) only flash that they are a referee's tools (open
the table with --referee), the help lists none, and a player's ``place_body`` is refused.

Xvfb (``-displayfd``) and Panda3D's own mouse and key events drive the window, as a user's.
Each test opens its own window (one ShowBase at a time), on a known scene.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from pointer import key, move_pointer, point_at, screen_px

from sandbox.core.errors import RulesError

pytestmark = pytest.mark.window
REPO = Path(__file__).resolve().parents[1]
W, H = 640, 480


@contextmanager
def table(scene: str, referee: bool, out: Path):
    """A window on ``scene`` as shipped (a referee's table or a player's), in top view."""
    from sandbox.app.table.app import TabletopApp
    from sandbox.engine.game import open_game

    session = open_game(REPO / "scenes" / scene, referee=referee)
    app = TabletopApp(session, W, H, save_path=out / "game.save.json", screenshot_dir=out,
                      shadows=False, referee=referee)
    try:
        app.step(3)
        key(app, "t")  # top view: every model seen from above
        app.step(2)
        yield app
    finally:
        app.destroy()


def _top(app, body):
    lo, hi = app.session.bounds(body)
    return np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, hi[2] - 0.02])


def _pointer_seen_at(app, xy, timeout=60.0):
    """Draw frames until Panda3D's MouseWatcher has the pointer at ``xy`` ([-1, 1]); on a busy
    machine the X server's pointer warp may take longer than ``move_pointer``'s frames."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        mw = app.base.mouseWatcherNode
        if mw.has_mouse() and abs(mw.get_mouse().x - xy[0]) < 0.02 \
                and abs(mw.get_mouse().y - xy[1]) < 0.02:
            return
        move_pointer(app, *screen_px(app, xy), frames=1)
    raise AssertionError(f"the pointer never reached {xy}")


def _drag(app, body, to, steps=6):
    """Press on ``body``'s top, drag and release where its footprint centre lands on ``to``
    (x, y inches), through Panda3D's mouse events; waits for the placing's physics."""
    a = point_at(app, _top(app, body))
    _pointer_seen_at(app, a)
    grab = app.ground_point(*a)
    c = app.session.footprint_centre(body)
    dest = np.array([to[0] - (c[0] - grab[0]), to[1] - (c[1] - grab[1]), 0.0])
    b = app.world_to_screen(dest)
    assert b is not None
    hit = app.pick(*a)
    assert hit is not None and hit.key == body, (body, hit)  # the press lands on the body
    app.base.messenger.send("mouse1")
    app.step(1)
    assert app.input.press is not None and np.allclose(app.input.press[1:], a, atol=0.02), \
        (app.input.press, a)
    for k in range(1, steps + 1):
        move_pointer(app, *screen_px(app, (a[0] + (b[0] - a[0]) * k / steps,
                                           a[1] + (b[1] - a[1]) * k / steps)), frames=1)
    assert app.input.current.body == body, app.flashline.getText()  # held by the hand
    app.base.messenger.send("mouse1-up")
    app.step(1)
    app.wait_idle(120)


def _placed(app, body, to, n_before):
    """The last action is the referee's ``place_body`` of ``body``, the body stands at ``to``
    and the log's move event says the referee placed it."""
    s = app.session
    assert len(s.actions) == n_before + 1, app.flashline.getText()
    last = s.actions[-1]
    assert (last.type, last.body, last.by) == ("place_body", body, "referee")
    assert last.player == s.current_player  # the referee acts on the player's turn, as his
    assert np.linalg.norm(s.footprint_centre(body) - np.asarray(to)) < 0.35, \
        (s.footprint_centre(body), to)
    moves = [e for e in s.events if e["type"] == "move" and e["body"] == body]
    assert moves and moves[-1]["by"] == "referee" and "placed by the referee" in moves[-1]["text"]


def test_the_referee_places_an_enemy_unit_a_creation_and_rubble(window_display, tmp_path):
    with table("wall_demolition.toml", referee=True, out=tmp_path) as app:
        s = app.session
        assert app.base.isAccepting("shift-p")
        # the scene's own missile (the referee's, as its script issues it) breaks the wall
        for action in s.spec.actions:
            s.apply(action, by="referee")
        app.adopt(s)
        app.step(3)
        rubble = [k for k, st in s.bodies.items() if st.kind == "debris" and k in s.world.bodies]
        pieces = [k for k, st in s.bodies.items() if st.kind == "creation"
                  and k in s.world.bodies]
        assert rubble and pieces
        assert s.current_player == "Ministry of Truth"
        key(app, "e")  # the Insurgents' turn: the Ministry's units are the enemy's
        app.wait_idle(120)
        assert s.current_player == "Insurgents"
        enemy = next(k for k, st in s.bodies.items() if st.kind == "unit"
                     and st.owner != s.current_player and k in s.world.bodies)
        key(app, "h")  # the help unfolded: the referee's hand is listed at his table
        app.step(2)
        assert "Shift+P place any body" in app.help_panel.getText()
        key(app, "shift-p")
        assert app.input.mode == "place"
        app.step(2)
        assert "[place]" in app.status.getText()
        spots = iter([(-12.0, 10.0), (-6.0, 10.0), (0.0, 10.0)])
        # a piece of rubble whose top the pointer reaches (not under another piece)
        loose = next(k for k in rubble
                     if (h := app.pick(*app.world_to_screen(_top(app, k)))) is not None
                     and h.key == k)
        for body in (enemy, pieces[0], loose):
            n = len(s.actions)
            to = next(spots)
            _drag(app, body, to)
            _placed(app, body, to, n)
            assert app.input.mode == "place"  # the hand stays for the next body
        shot = app.screenshot(tmp_path / "referee_placed.png")
        assert shot.exists()
        # Esc leaves the referee's hand
        key(app, "escape")
        assert app.input.mode == "select"


def test_a_players_window_has_no_referees_hand(window_display, tmp_path):
    with table("skirmish.toml", referee=False, out=tmp_path) as app:
        s = app.session
        key(app, "shift-p")  # the key only says it is a referee's tool
        app.step(2)
        assert app.input.mode == "select"
        assert app._flash_text == ("Shift+P, place any body (the referee's hand): a "
                                   "referee's tool (open the table with sandbox play "
                                   "--referee)")
        key(app, "v")  # a missile strike and ignite, likewise
        app.step(2)
        assert app.input.mode == "select" and "V, missile strike (free): a referee's tool" \
            in app._flash_text
        key(app, "i")
        app.step(2)
        assert app.input.mode == "select" and app._flash_text.startswith("I, ignite")
        assert not app.base.isAccepting("shift-p-repeat")
        app.input.key("shift-p")  # not even through the input layer
        assert app.input.mode == "select"
        key(app, "h")
        app.step(2)
        assert "E end turn" in app.help_panel.getText()  # unfolded...
        assert "Shift+P" not in app.help_panel.getText()  # ...with no referee's tool
        # nor does the engine take the referee's tool from a player
        with pytest.raises(RulesError, match="referee's tool"):
            s.apply({"type": "place_body", "player": s.current_player, "body": "falcon1",
                     "to": [0.0, 0.0]})
        assert not s.actions
