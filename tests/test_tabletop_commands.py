"""The tabletop's command keys under Xvfb (issue 18): the Escapade played to its decided victory
through window input only (clicks, drags and keys through Panda3D's messenger, as a player's),
and live play rolling real seeded dice while scripted runs keep the scene's forced dice.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import REPO
from pointer import click, key, move_pointer, point_at, screen_px

pytestmark = pytest.mark.window
W, H = 800, 600






def centre(app, key_):
    lo, hi = app.session.bounds(key_)
    return (lo + hi) / 2


def top(app, key_):
    lo, hi = app.session.bounds(key_)
    return np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, hi[2] - 0.05])


def drag_unit(app, unit, to, steps=6, during=None):
    """Press on the unit, drag, release where its footprint centre lands on ``to`` (x, y)."""
    a = point_at(app, top(app, unit))
    grab = app.ground_point(*a)
    c = app.session.footprint_centre(unit)
    dest = np.array([to[0] - (c[0] - grab[0]), to[1] - (c[1] - grab[1]), 0.0])
    b = app.world_to_screen(dest)
    assert b is not None
    app.base.messenger.send("mouse1")
    app.step(1)
    for k in range(1, steps + 1):
        x = a[0] + (b[0] - a[0]) * k / steps
        y = a[1] + (b[1] - a[1]) * k / steps
        move_pointer(app, *screen_px(app, (x, y)), frames=1)
    if during is not None:
        app.step(1)
        during()
    app.base.messenger.send("mouse1-up")
    app.step(1)
    app.wait_idle(120)


def select(app, unit):
    click(app, top(app, unit))
    assert app.selected == unit


def attack(app, unit, target, weapon="1"):
    select(app, unit)
    key(app, weapon)
    n = len(app.session.actions)
    click(app, top(app, target))  # aim: the preview stays on the target, nothing fires
    assert app.input.current.aimed == target and len(app.session.actions) == n
    assert "click it again" in app.flashline.getText()
    click(app, top(app, target))  # fire (the hint: click again)
    app.wait_idle(120)


def end_turn(app):
    key(app, "e")
    app.wait_idle(120)


def refusals(app):
    return app._flash_text if app.flash_kind == "error" else ""


@pytest.fixture(scope="module")
def app(window_display, tmp_path_factory):
    from sandbox.app.table.app import TabletopApp
    from sandbox.engine.game import open_game

    out = tmp_path_factory.mktemp("commands_window")
    # a test re-enacts the scene's script: its forced dice are kept (the window's own
    # `sandbox play` opens with open_for_play, without them)
    # a referee's table (`sandbox play --referee`): V (a free missile strike) and I (ignite)
    # are a referee's tools, on keys and accepted
    session = open_game(REPO / "scenes" / "escapade_raid.toml", referee=True)
    a = TabletopApp(session, W, H, save_path=out / "game.save.json", screenshot_dir=out,
                    shadows=False, referee=True)
    a.out = out
    a.step(3)
    key(a, "t")  # top view: every model seen from above
    a.step(2)
    yield a
    a.destroy()


@pytest.fixture(autouse=True)
def fresh(app):
    """Each test starts from the Escapade raid as shipped
    in a window just opened (any order, any test alone)."""
    from conftest import fresh_table

    from sandbox.engine.game import open_game

    fresh_table(app, open_game(REPO / "scenes" / "escapade_raid.toml"))


def test_escapade_raid_played_to_its_victory_through_window_input(app):
    s = app.session
    assert s.current_player == "Baron Blud" and s.turn == 1
    # turn 1: Gorm shoots Alf, Blud relays the witnessed kill, Pim walks on
    attack(app, "gunner", "guard1")
    assert s.bodies["guard1"].damage.destroyed, refusals(app)
    # a destroyed unit is drawn fallen over, not left standing
    lo, hi = app._nodes["guard1"].get_tight_bounds(app.base.render)
    assert hi.z - lo.z < 1.0 and hi.z < 1.0, (lo, hi)
    select(app, "blud")
    key(app, "r")
    app.wait_idle(60)
    assert any(e["type"] == "escapade" and e.get("event") == "relay" for e in s.events), \
        refusals(app)
    drag_unit(app, "pim", (10.0, -2.5))
    assert np.linalg.norm(s.footprint_centre("pim") - [10.0, -2.5]) < 0.4, refusals(app)
    for _ in range(3):
        end_turn(app)
    # turn 2: Pim shoots Bert, Blud relays, Gorm walks to the chest
    assert s.turn == 2 and s.current_player == "Baron Blud"
    attack(app, "pim", "guard2")
    assert s.bodies["guard2"].damage.destroyed, refusals(app)
    select(app, "blud")
    key(app, "r")
    app.wait_idle(60)
    drag_unit(app, "gunner", (3.0, -8.7))
    end_turn(app)
    # Lord Hector: the Garrison fights a Losing Battle (X), Sir Hector and his squire withdraw
    # over their own (north) edge by dragging them off the table
    assert s.current_player == "Lord Hector"
    select(app, "guard3")
    key(app, "x")
    app.wait_idle(60)
    assert "Keep Garrison (garrison)" in app.escapade_panel.getText()
    assert "Losing Battle" in app.escapade_panel.getText(), refusals(app)
    drag_unit(app, "hector", (-6.0, 12.8))
    assert "hector" not in s.world.bodies, refusals(app)
    drag_unit(app, "squire", (-2.0, 12.8))
    assert "squire" not in s.world.bodies, refusals(app)
    end_turn(app)
    end_turn(app)
    # turn 3: Gorm picks up the chest (C, click it: a pick_up action) and carries it off the
    # raiders' (south) edge; Blud calls Reinforcements (N)
    assert s.turn == 3 and s.current_player == "Baron Blud"
    select(app, "gunner")
    key(app, "c")
    click(app, top(app, "chest"))
    app.wait_idle(60)
    assert s.tools.held("gunner") == "chest", refusals(app)
    drag_unit(app, "gunner", (3.0, -12.9))
    assert "gunner" not in s.world.bodies and "chest" not in s.world.bodies, refusals(app)
    select(app, "blud")
    key(app, "n")
    app.wait_idle(60)
    assert any(e.get("event") == "reinforcements" for e in s.events), refusals(app)
    end_turn(app)
    end_turn(app)
    # Mad Mags: a missile strike (V) of Explosive Size 3 on the powder barrel
    assert s.current_player == "Mad Mags"
    key(app, "v")
    key(app, "]")
    key(app, "]")
    assert app.input.current.dice == 3
    click(app, top(app, "barrel"))
    app.screenshot(app.out / "missile_aim.png")
    key(app, "enter")
    app.wait_idle(120)
    assert any(a.type == "missile" for a in s.actions), refusals(app)
    end_turn(app)  # the end of turn 3: Reinforcements arrive, the standing is logged
    v = s.escapade.ledger.victory_status()
    assert v.outcome.value == "escapading_hero", v
    assert "Victory: escapading hero (Blud's Raiders)" in app.escapade_panel.getText()
    assert {a.type for a in s.actions} >= {"attack", "relay", "walk", "declare", "reinforce",
                                            "missile", "end_turn", "pick_up"}
    # issue 31 item 5: the scene's last turn is over: the battle ends there (13.3), a banner
    # with the Outcome and a summary; no turn 4 is played
    assert s.over and s.outcome.winner == "Blud's Raiders", s.outcome
    end = app.end_panel.getText()
    assert "THE GAME IS OVER" in end and "Blud's Raiders win" in end, end
    assert "Lord Hector: 1 of 5 standing, 2 destroyed, 2 off the table" in end, end
    assert "F8: watch the replay" in end
    assert app.banner.getText().startswith("Game over")
    app.screenshot(app.out / "escapade_victory.png")
    n = len(s.actions)
    end_turn(app)  # refused: the game is over
    assert len(s.actions) == n and "the game is over" in refusals(app)
    launched = []
    app.launch = launched.append
    key(app, "f8")  # the replay of the whole game, opened in the replay viewer
    from sandbox.engine.replay import load_replay

    assert launched and launched[0][-2:] == ["replay", str(app.replay_path())], launched
    rp = load_replay(app.replay_path())
    assert rp.meta["finished"] and rp.meta["outcome"]["winner"] == "Blud's Raiders"
    key(app, "control-r")  # the battle report of it (sandbox report, its own process)
    assert launched[-1][-4:] == ["report", str(app.replay_path()), "--out",
                                 str(app.replay_path().with_suffix(".report"))], launched


def test_live_play_rolls_seeded_dice_not_the_scenes_forced_ones(app):
    import json

    from sandbox.app.table.launch import open_for_play

    scene = REPO / "scenes" / "escapade_raid.toml"
    old = app.session
    app.adopt(open_for_play(scene))  # what `sandbox play` opens
    old.close()
    app.select(None)
    app.input.set_mode("select")
    app.step(2)
    s = app.session
    assert s.forced_dice is False
    attack(app, "gunner", "guard1")
    rolls = s.dice.records()
    assert rolls and not any(r.forced for r in rolls)
    log = [e["text"] for e in s.events if e["type"] == "roll"]
    assert log and not any("(forced)" in t for t in log)
    assert "(forced)" not in app.logpanel.getText()
    key(app, "f5")  # the save records the choice, and F9 replays it identically
    doc = json.loads(app.save_path.read_text())
    assert doc["forced_dice"] is False
    want = s.state_hash()
    key(app, "f9")
    app.wait_idle(120)
    assert app.session is not s and app.session.forced_dice is False
    assert app.session.state_hash() == want
    # a scripted run of the same scene keeps its forced dice (the book's example)
    from sandbox.engine.game import open_game

    with open_game(scene) as scripted:
        scripted.apply({"type": "attack", "player": "Baron Blud", "unit": "gunner",
                        "target": "guard1"})
        assert scripted.forced_dice and any(r.forced for r in scripted.dice.records())


def _thrown(app):
    """The grenade scene after its scripted throw (dice, Damage and an explosion logged)."""
    s = _adopt(app, "grenade_throw.toml")
    app.submit(s.spec.actions[0])
    app.wait_idle(120)
    assert s.actions and s.actions[-1].type == "throw", refusals(app)
    return s


def _adopt(app, scene):
    from sandbox.engine.game import open_game

    old = app.session
    app.adopt(open_game(REPO / "scenes" / scene, referee=True))  # I (ignite): the referee's
    old.close()
    app.select(None)
    app.input.set_mode("select")
    app.step(2)
    return app.session


def test_throw_ignite_and_unit_actions_from_their_keys(app):
    s = _adopt(app, "grenade_throw.toml")
    select(app, "grenadier")
    key(app, "j")  # throw: click the grenade, then where it lands
    click(app, top(app, "grenade"))
    assert app.input.mode == "throw" and "Throw hand grenade" in app._flash_text
    click(app, top(app, "sentry"))
    app.wait_idle(120)
    thrown = [a for a in s.actions if a.type == "throw"]
    assert thrown and thrown[0].payload == "grenade" and thrown[0].throwers == ["grenadier"], \
        refusals(app)
    assert thrown[0].target_body == "sentry"
    n = len(s.actions)
    key(app, "i")  # ignite: 1d4 Fire on what is clicked
    click(app, top(app, "gunner"))
    app.wait_idle(120)
    assert s.actions[n:] and s.actions[n].type == "ignite" and s.actions[n].target == "gunner"
    # the rules' refusals come back in red, without the script's "actions[i]:" prefix
    select(app, "hauler1")
    key(app, "d")  # stop, drop and roll
    app.wait_idle(60)
    assert refusals(app) == "Red hauler Bors is not a burning minifig"
    key(app, "w")  # reload
    app.wait_idle(60)
    assert "has no weapon 0" in refusals(app)
    key(app, "y")  # mark a target
    click(app, top(app, "gunner"))
    app.wait_idle(60)
    assert s.actions[-1].type == "mark" and s.actions[-1].target == "gunner", refusals(app)
    select(app, "hauler1")
    for _ in range(3):  # K, then K again for another verb: touch, push, pull
        key(app, "k")
    assert app.input.current.verb == "pull"
    click(app, top(app, "keg"))
    app.wait_idle(60)
    assert refusals(app).endswith("it must be within 0.5\" to pull it")
    assert not refusals(app).startswith("actions[")
    # , turns the selected unit 45 degrees to the left in place (the engine's face action)
    select(app, "hauler2")
    q0 = np.asarray(s.world.pose("hauler2")[1])
    key(app, ",")
    app.wait_idle(60)
    assert s.actions[-1].type == "face" and s.actions[-1].degrees == 45.0, refusals(app)
    q1 = np.asarray(s.world.pose("hauler2")[1])
    turned = np.degrees(2 * np.arccos(min(1.0, abs(float(q0 @ q1)))))
    assert 40 < turned < 50, turned


def test_log_column_beside_the_table_scrolls_filters_and_names(app):
    from sandbox.app.table.hud import LOG_COLUMN

    s = _thrown(app)
    app.step(3)
    split = int(W * (1 - LOG_COLUMN))
    # the log lies in its column, beside the 3D view: changing its filter leaves the table's
    # pixels as they were
    lo, hi = app.logpanel.get_tight_bounds(app.base.render2d)
    assert lo.x >= 1 - 2 * LOG_COLUMN - 1e-3 and hi.x <= 1.001
    before = app.frame_array().astype(float)
    key(app, "f2")
    app.step(2)
    assert app.log_filter == "dice & Damage"
    after = app.frame_array().astype(float)
    band = slice(H // 4, H)  # below the banner and the message line ("Log: dice & Damage")
    assert np.sqrt(((before[band, :split - 2] - after[band, :split - 2]) ** 2).mean()) < 1.0
    assert np.sqrt(((before[:, split:] - after[:, split:]) ** 2).mean()) > 1.0  # the log changed
    shown = app.log_events(s.events)
    assert shown and all(e["type"] in ("roll", "action_roll", "damage", "destroyed", "armor",
                                       "attack", "explosion", "knockback", "fire")
                         or "damage" in e["type"] for e in shown)
    key(app, "f2")
    assert app.log_filter == "impacts"
    key(app, "f2")
    assert app.log_filter == "all"
    # whole lines (no "..."), names instead of ids
    text = app.logpanel.getText()
    assert "..." not in text and text.startswith("Log (all)")
    assert app.log_text({"type": "action", "text": "hauler1 marks gunner"}) == \
        "Red hauler Bors marks gunner"  # "gunner" is already in its name, Blue gunner
    # the wheel over the log scrolls it back; over the table it zooms
    point_at(app, top(app, "sentry"))
    dist = app.rig.distance
    key(app, "wheel_up")
    assert app.rig.distance < dist and app.log_scroll == 0
    move_pointer(app, W - 20, H - 40, frames=2)
    key(app, "wheel_up")
    app.step(2)
    assert app.log_scroll == 3 and "3 back" in app.logpanel.getText()
    key(app, "wheel_down")
    assert app.log_scroll == 0
    # a refusal expires at the end of the turn, and the stat card clears
    select(app, "hauler1")
    key(app, "d")
    app.wait_idle(60)
    assert "not a burning minifig" in app.flashline.getText()
    assert "Red hauler Bors" in app.card.getText()
    end_turn(app)
    app.step(2)
    assert app.flashline.getText() == "" and app.selected is None
    assert app.card.getText() == "Click a unit to see its stat card"
    # an object's stat card has no Action die
    app.select("keg")
    app.step(2)
    assert "powder keg" in app.card.getText() and "Action d" not in app.card.getText()
    app.screenshot(app.out / "log_column.png")


def test_name_plates_and_quitting_with_unsaved_play(app):
    s = _thrown(app)
    app.select(None)
    app.step(3)
    before = app.frame_array().astype(float)
    key(app, "f3")
    app.step(3)
    living = {k for k, st in s.bodies.items() if st.kind == "unit" and not st.damage.destroyed
              and k in s.world.bodies}
    assert set(app._plates) == living and len(living) >= 3
    assert "Red hauler Bors" in [p.node().get_text() for p in app._plates.values()]
    shown = app.frame_array().astype(float)
    band = slice(H // 4, H // 2 + H // 4)
    assert np.sqrt(((before[band] - shown[band]) ** 2).mean()) > 0.5  # plates drawn
    app.screenshot(app.out / "name_plates.png")
    key(app, "f3")
    assert not app._plates
    # Q with unsaved play: autosaved, and asked; Q again quits
    assert app.unsaved > 0
    quits = []
    app.on_quit = lambda: quits.append(1)
    key(app, "q")
    assert quits == [] and "Q again to quit" in app.flashline.getText()
    assert app.autosave_path().is_file()
    key(app, "q")
    assert quits == [1]
    key(app, "f5")  # saved: Q quits at once
    assert app.unsaved == 0
    key(app, "q")
    assert quits == [1, 1]


def test_live_measuring_line_follows_the_pointer(app):
    s = app.session
    app.select(None)
    key(app, "m")
    unit = next(k for k, st in s.bodies.items() if st.kind == "unit" and k in s.world.bodies)
    click(app, top(app, unit))
    c = s.footprint_centre(unit)
    point_at(app, (c[0] + 4.0, c[1], 0.0))
    app.step(2)
    live = app.ruler_label.node().get_text()
    assert "click the second point" in live
    inches = float(live.split('"')[0])
    assert 2.5 < inches < 4.5, live  # edge to edge: less than the 4" between centres
    point_at(app, (c[0] + 6.0, c[1], 0.0))
    app.step(2)
    assert float(app.ruler_label.node().get_text().split('"')[0]) > inches + 1.5
    key(app, "escape")


def test_a_move_off_a_wall_shows_the_fall_and_asks_first(app):
    s = _adopt(app, "big_drop_guard_tower.toml")
    c = s.footprint_centre("guard")
    z0 = s.bounds("guard")[0][2]
    assert z0 > 2.0  # on the tower
    off = next(c + d for d in (np.array([0.0, 3.0]), np.array([0.0, -3.0]),
                                np.array([3.0, 0.0]), np.array([-3.0, 0.0]))
               if app.input.home.fall_at("guard", c + d) > 1.0)
    labels = []
    n = len(s.actions)
    drag_unit(app, "guard", off, during=lambda: labels.append(app.ruler_label.node().get_text()))
    assert "falls" in labels[0], labels
    assert len(s.actions) == n and app.input.home.pending_move is not None  # asked, not moved
    assert "Enter to move anyway" in app.flashline.getText()
    key(app, "enter")
    app.wait_idle(120)
    assert s.actions[-1].type == "move"
    assert s.bounds("guard")[0][2] < z0 - 1.0  # it went over the edge and fell


def test_loading_screen_shows_progress_while_the_models_are_built(app, monkeypatch):
    import sandbox.app.table.app as tabletop

    monkeypatch.setattr(tabletop, "LOADING_EVERY_S", 0.0)  # a frame after every model
    app.loading_shown.clear()
    frames = []
    real = app._show_loading

    def spy(text, fraction=None):
        real(text, fraction)
        if text:
            frames.append(app.frame_array())

    monkeypatch.setattr(app, "_show_loading", spy)
    s = _adopt(app, "grenade_throw.toml")
    n = len(s.assets)
    assert app.loading_shown[0] == f"Loading the table: 1 of {n} models"
    assert app.loading_shown[-1] == f"Loading the table: {n - 1} of {n} models"
    assert app.loading_text.getText() == ""
    # the progress line is drawn (white text on its dark card, mid-window)
    mid = frames[-1][H // 2 - 30:H // 2 + 30, W // 4:3 * W // 4].astype(int)
    assert (mid.sum(axis=2) < 120).sum() > 200 and (mid.min(axis=2) > 220).sum() > 50


def test_top_view_rings_units_and_the_selection_is_ringed(app):
    s = app.session
    app.select(None)
    app.input.set_mode("select")
    if app.rig.pitch > 89.0:
        key(app, "t")  # back to 3D
    app.step(2)
    n3d = app.markers_np.get_num_children()
    key(app, "t")
    app.step(2)
    units = [k for k, st in s.bodies.items() if st.kind == "unit" and not st.damage.destroyed
             and k in s.world.bodies]
    assert app.markers_np.get_num_children() == n3d + len(units)
    shot = app.frame_array().astype(int)
    select(app, units[0])
    app.step(2)
    ringed = app.frame_array().astype(int)
    yellow = lambda im: ((im[..., 0] > 200) & (im[..., 1] > 180) & (im[..., 2] < 90)).sum()  # noqa: E731
    assert yellow(ringed) > yellow(shot) + 30  # the selection's yellow ring
    app.screenshot(app.out / "top_view_rings.png")
    # the hover tooltip names what is under the pointer
    point_at(app, top(app, units[1]))
    app.step(2)
    assert app.tooltip.getText().startswith(s.bodies[units[1]].name)


def test_b_calls_the_big_drop_as_a_bombardment_marked_by_the_scout(app):
    """BrikWars 13.2: the window's B is a Strategic Bombardment, not a drop in the same action.
    Without a Scout it is refused with the rule's reason; with the Scout selected the preview
    shows who Marks, the bricks and the pile, and when it falls; Enter pays and places the
    marker, and the Payload arrives at the beginning of the caller's next turn."""
    s = _adopt(app, "big_drop_guard_tower.toml")
    key(app, "b")  # the Lion Knights have no Scout and no drop zone
    click(app, top(app, "guard"))
    app.step(2)
    assert "has no Scout on the table to Mark the target" in app.preview.getText()
    key(app, "enter")
    assert "has no Scout" in refusals(app) and s.actions == []
    end_turn(app)
    assert s.current_player == "Black Falcons"
    select(app, "scout")
    key(app, "b")
    key(app, "]")  # 2 Strategy bricks: 2d10 Explosive, held 10" up
    click(app, top(app, "guard"))
    app.step(2)
    text = app.preview.getText()
    assert "Marked by Scout Corvo" in text and "Cost: 2 Strategy bricks of 3" in text, text
    assert "Falls at the start of Black Falcons' turn 2, from 10\"" in text, text
    key(app, "enter")
    app.wait_idle(120)
    a = s.actions[-1]
    assert (a.type, a.big_drop, a.marked_by, a.explosive_dice) == ("bombard", True, "scout", 2)
    assert s.bombardment.strategy_pile("Black Falcons") == 1
    assert not [k for k, st in s.bodies.items() if st.kind == "payload"]  # nothing fell yet
    end_turn(app)  # Black Falcons end turn 1
    end_turn(app)  # Lion Knights end turn 2: the Bombardment arrives
    assert s.current_player == "Black Falcons" and s.turn == 2
    assert any(e["type"] == "release" and e["turn"] == 2 for e in s.events)


def test_a_click_on_a_units_base_selects_it_and_name_plates_do_not_overlap(app):
    """Issue 31 item 6: in top view a click on the table just beside a unit's body, on its
    base's footprint, selects it (a player touches the base, not the head); the name plates
    (F3) are stacked so that none covers another."""
    s = app.session
    app.select(None)
    app.input.set_mode("select")
    if app.rig.pitch <= 89.0:
        key(app, "t")
    app.step(2)
    lo, hi = s.bounds("guard1")
    beside = np.array([hi[0] + 0.08, (lo[1] + hi[1]) / 2, 0.0])  # off the body, on its base
    assert app.pick(*point_at(app, beside)).key == "guard1"
    click(app, beside)
    assert app.selected == "guard1"
    far = np.array([hi[0] + 1.0, (lo[1] + hi[1]) / 2, 0.0])  # well off it: nothing
    click(app, far)
    assert app.selected is None
    key(app, "t")  # the 3D view, where the guards' plates would stand on each other
    app.step(2)
    key(app, "f3")
    app.step(3)
    rects = app.plate_rects
    living = [k for k, st in s.bodies.items() if st.kind == "unit" and not st.damage.destroyed
              and k in s.world.bodies]
    assert 5 <= len(rects) <= len(living)  # the plates in view
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert abs(a[0] - b[0]) >= a[2] + b[2] - 1e-9 \
                or abs(a[1] - b[1]) >= a[3] + b[3] - 1e-9, (a, b)
    app.screenshot(app.out / "plates_apart.png")
    key(app, "f3")


def test_the_log_groups_a_broken_walls_parts_also_under_dice_and_damage(app):
    """Issue 31 item 7: after the wall demolition (the referee's missile, played by the
    scene), the log column says how many parts were thrown how far, in one line per body,
    in "all" and under the "dice & Damage" filter; no line per part."""
    s = _adopt(app, "wall_demolition.toml")
    s.run()
    app.adopt(s)
    app.step(3)
    for wanted in ("all", "dice & Damage"):
        while app.log_filter != wanted:
            key(app, "f2")
        app.step(2)
        shown = app.log_events(s.events)
        text = "\n".join(app.log_text(e) for e in shown)
        assert "blast wall: " in text and " parts thrown " in text, text[-800:]
        assert not [e for e in shown if e["type"] == "knockback" and "part 1 (" in e["text"]]
        assert "part 1 (3001.dat) is Knocked Back" not in app.logpanel.getText()
    while app.log_filter != "all":
        key(app, "f2")
