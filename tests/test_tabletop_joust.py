"""A Brigandine joust played in the tabletop window by clicks and keys only (issue 31 items 1
and 3): in phase 2 each knight's player clicks his knight, presses J, clicks the enemy knight
and picks the aim and the stance with 1-4 (secret ``brig_joust`` choices); both choices are run
in phase 5. Two courses at Ashby: the first breaks Sir Brian's lance on Sir Wilfred's shield,
the second unhorses Sir Brian; the field is decided and the end banner names the Saxons. The
stat card is Brigandine's (ATK/AIM/IQ/DEF, #attk/#def, lance, half and full movement)."""

from __future__ import annotations

import pytest
from conftest import REPO
from pointer import click, key

pytestmark = pytest.mark.window
W, H = 800, 600


@pytest.fixture()
def app(window_display, tmp_path):
    from sandbox.app.table.app import TabletopApp
    from sandbox.engine.game import open_game

    session = open_game(REPO / "scenes" / "brigandine_joust.toml", forced_dice=False)
    a = TabletopApp(session, W, H, save_path=tmp_path / "joust.save.json",
                    screenshot_dir=tmp_path, shadows=False)
    a.out = tmp_path
    a.step(2)
    key(a, "t")  # top view
    a.step(2)
    yield a
    a.destroy()


def top(app, unit):
    lo, hi = app.session.bounds(unit)
    return (lo + hi) / 2 * [1, 1, 0] + [0, 0, hi[2] - 0.05]


def end_turns(app, n):
    for _ in range(n):
        key(app, "e")
        app.wait_idle(120)


def joust(app, knight, opponent, aim, stance):
    """Click the knight, J, click the opponent, the aim's and the stance's keys."""
    s = app.session
    click(app, top(app, knight))
    assert app.selected == knight
    key(app, "j")
    assert "click the enemy knight" in app.status.getText()
    click(app, top(app, opponent))
    assert "aims at 1 helm" in app.status.getText()
    n = len(s.actions)
    key(app, aim)
    key(app, stance)
    app.wait_idle(60)
    assert len(s.actions) == n + 1 and s.actions[-1].type == "brig_joust", app._flash_text
    return s.actions[-1]


def test_a_joust_played_by_clicks_to_its_result(app):
    s = app.session
    end_turns(app, 2)  # phase 1: nothing to do
    assert "phase 2" in app.banner.getText()
    # the first course: Brian aims at the shield in high guard; Wilfred at the shield, leaning
    a = joust(app, "brian", "wilfred", "2", "1")
    assert (a.unit, a.opponent, a.aim, a.stance) == ("brian", "wilfred", "shield", "high_guard")
    card = app.card.getText()  # Brigandine's card, not BrikWars's
    assert "ATK d8  AIM d6  IQ d8  DEF d6" in card, card
    assert "#attk 1 HC   #def 2 HC" in card and "Weapon: lance" in card
    assert 'Move 3" a phase (half of 6"), charge 6" (full movement)' in card
    assert "Joust (hidden): at Sir Wilfred, aim shield, high guard" in card
    assert 'Move 5"' not in card and "no weapons" not in card
    key(app, "h")
    app.step(2)
    assert "J joust" in app.help_panel.getText()
    app.screenshot(app.out / "brigandine_card_help.png")
    key(app, "h")
    end_turns(app, 1)
    a = joust(app, "wilfred", "brian", "2", "3")
    assert (a.aim, a.stance) == ("shield", "lean")
    end_turns(app, 1 + 2 * 2 + 2)  # phase 2 ends (revealed), phases 3 and 4, phase 5 runs it
    js = [e for e in s.events if e["type"] == "brig_joust"]
    assert js and js[0]["outcomes"] == ["lance_broken", "glance"], [e["text"] for e in js]
    assert js[0]["points"] == [2, 1]
    assert "Joust: Sir Brian (shield, high_guard) -> lance_broken" in app.logpanel.getText() \
        or any("lance_broken" in e["text"] for e in js)
    # the second course (round 2, phase 2): Brian braces and aims at the helm, Wilfred leans
    # and strikes his breast: Brian is unhorsed, the Saxons hold the field
    end_turns(app, 2 * 3 + 2 * 1)  # phases 6-8, then round 2's phase 1
    assert s.turn == 10 and "phase 2" in app.banner.getText()
    joust(app, "brian", "wilfred", "1", "4")
    end_turns(app, 1)
    joust(app, "wilfred", "brian", "3", "3")
    for _ in range(2 * 4):
        if s.over:
            break
        end_turns(app, 1)
    js = [e for e in s.events if e["type"] == "brig_joust"]
    assert js[-1]["outcomes"] == ["miss", "unhorsed"], [e["text"] for e in js]
    assert s.system("brigandine").units["brian"].unhorsed
    assert s.over and s.outcome.winner == "Saxons", s.outcome
    end = app.end_panel.getText()
    assert "THE GAME IS OVER" in end and "Saxons win" in end, end
    assert "2 rounds" in end and "Templars: 0 of 1 standing, 1 out of the fight" in end, end
    app.screenshot(app.out / "brigandine_joust_end.png")
