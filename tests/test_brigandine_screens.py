"""Brigandine's own screens without a window (issue 31 item 4): the stat card by its rules,
the move and charge ruler (half movement a phase, full movement for a charge), and the joust
gesture's choices as ``brig_joust`` orders."""

from __future__ import annotations

import pytest
from conftest import REPO


@pytest.fixture()
def orders():
    from sandbox.engine.game import open_game
    from sandbox.games.brigandine.orders import BrigandineOrders

    g = open_game(REPO / "scenes" / "brigandine_charge.toml")
    try:
        yield BrigandineOrders(g)
    finally:
        g.close()


def test_the_card_and_the_ruler_follow_brigandine(orders):
    c = orders.combat
    key = next(iter(c.units))
    u = c.units[key]
    card = "\n".join(orders.stat_card(key))
    assert f"ATK d{u.stats.atk}  AIM d{u.stats.aim}  IQ d{u.stats.iq}" in card
    assert f"#attk {u.stats.strength.attk[0]}" in card and "#def" in card
    full = u.stats.move
    assert f'Move {full / 2:g}" a phase (half of {full:g}"), charge {full:g}"' in card
    # a charge dragged 11.4" away: the ruler is the full movement, never "too far"
    limit, label = orders.ruler(key, 11.4, charge=True)
    assert limit == full and "too far" not in label and f'{full:g}" (full movement)' in label
    limit, label = orders.ruler(key, full / 2 + 1.0, charge=False)
    assert limit == full / 2 and "too far (half movement a phase)" in label
    assert "too far" not in orders.ruler(key, full / 2 - 0.2, charge=False)[1]


def test_the_joust_gesture_builds_the_secret_choice(orders):
    g = orders.game
    while orders.phase != 2:
        g.end_turn()
    mine = [k for k, u in orders.combat.units.items() if u.owner == g.current_player][0]
    foe = [k for k, u in orders.combat.units.items() if u.owner != g.current_player][0]
    assert orders.key("j", mine) is None and "click the enemy knight" in orders.prompt()
    assert orders.click(mine, foe) is None and "aims at 1 helm" in orders.prompt()
    assert orders.key("9", mine) is None and "aim" not in orders.jousting  # no 9th aim
    assert orders.key("3", mine) is None and "stance 1 high guard" in orders.prompt()
    a = orders.key("4", mine)
    assert (a.type, a.unit, a.opponent, a.aim, a.stance) == ("brig_joust", mine, foe,
                                                              "breast", "brace")
    assert orders.jousting is None and a.refusal(g) == ""
