"""The Big Drop is a Strategic Bombardment (BrikWars 13.2), the one path for a dropped Payload.

13.2 Strategic Bombardment: "he can drop a Payload onto any target Marked by an allied Scout";
"An Explosive Bombardment costs one Strategy brick for each [die] of Explosive Damage", "one
Strategy brick for each inch in their Payload Size" for supplies; "Strategic Bombardments
arrive one turn after firing"; "they take a full turn to arrive ... The player waits until the
beginning of their next turn". The Big Drop: "The player holds the payload 5" off the ground
for every Strategy brick spent on the Bombardment, and lets go." F.3: a Scout Marks "a single
target he can see within 8"".

Played on the default scene (scenes/big_drop_guard_tower.toml): the Black Falcons (second in
the turn order, 3 Strategy bricks) with Scout Corvo 5" in front of the guard tower.
"""

from __future__ import annotations

import json

import pytest
from conftest import REPO

from sandbox.app.headless import run_scene
from sandbox.core.errors import RulesError, SceneError
from sandbox.engine.actions import action_dict
from sandbox.engine.game import open_game

SCENE = REPO / "scenes" / "big_drop_guard_tower.toml"
BF = "Black Falcons"


def _crate(**over) -> dict:
    """The default scene's call: a supply crate of Payload Size 2" (2 bricks) on the tower."""
    a = {"type": "bombard", "id": "crate", "player": BF, "target": [0.0, 0.0],
         "marked_by": "scout", "big_drop": True,
         "supplies": [{"part": "2456", "colour": 14, "size": 2.0, "armor": 4}]}
    a.update(over)
    return {k: v for k, v in a.items() if v is not None}


def _open(ldrawdir):
    g = open_game(SCENE, ldrawdir=ldrawdir)
    g.end_turn()  # the Lion Knights play first
    assert g.current_player == BF
    return g


@pytest.fixture(scope="module")
def table(ldrawdir):
    """One game for the refusals and previews (each checks that it changed nothing)."""
    with _open(ldrawdir) as g:
        yield g


@pytest.fixture
def game(ldrawdir):
    with _open(ldrawdir) as g:
        yield g


def _refused(g, action: dict, match: str) -> None:
    before, n, m = g.state_hash(), len(g.events), len(g.actions)
    with pytest.raises(RulesError, match=match):
        g.apply(action)
    assert g.state_hash() == before and len(g.events) == n and len(g.actions) == m


def test_no_mark_is_refused_with_the_rules_reason(table):
    """13.2: a Bombardment drops only onto a target Marked by an allied Scout (or a drop
    zone, "permanently Marked"); without either it is refused, nothing changes."""
    _refused(table, _crate(marked_by=None), "Marked by an allied Scout or onto a drop zone")
    assert table.bombardment.strategy_pile(BF) == 3


def test_a_mark_by_a_unit_that_is_not_a_scout_or_not_an_ally_is_refused(game):
    """13.2 "Marked by an allied Scout": Private Reale is the enemy's and no Scout."""
    _refused(game, _crate(marked_by="guard"), "cannot Mark targets for Black Falcons")
    g = game
    # the Scout made a plain trooper: no Mark (F.3 is a Scout's ability)
    g.bodies["scout"].stats = g.bodies["scout"].stats.model_copy(update={"scout": False})
    _refused(g, _crate(), "is not a Scout: only an allied Scout Marks")


def test_a_scout_marks_only_within_8_inches(ldrawdir):
    """F.3: "a single target he can see within 8"": the Scout 9" back cannot Mark the tower."""
    import tomllib

    from sandbox.engine.game import Game
    from sandbox.engine.scene import scene_from_dict

    data = tomllib.loads(SCENE.read_text())
    data.pop("expect")
    data["units"][1]["position"] = [0.0, -9.5, 0.0]
    with Game(scene_from_dict(data), SCENE.parent, ldrawdir=ldrawdir) as g:
        g.end_turn()
        _refused(g, data["actions"][0], r"beyond the 8\" a Scout Marks \(F.3\)")


def test_not_enough_strategy_bricks_is_refused(table):
    """13.2: one brick per inch of supplies' Payload Size; a 4" crate costs 4 and the pile
    holds 3."""
    big = _crate(supplies=[{"part": "2456", "colour": 14, "size": 4.0, "armor": 4}])
    _refused(table, big, "costs 4 Strategy bricks and Black Falcons has 3 in the Strategy pile")


def test_the_big_drop_must_be_held_above_the_target(table):
    """The Big Drop: 5" off the ground per brick. A 1" crate (1 brick, 5") cannot be held
    above Private Reale's head 5.5" up on the tower: refused, with more bricks as the way."""
    small = _crate(supplies=[{"part": "3001", "colour": 14, "size": 1.0, "armor": 4}])
    _refused(table, small, r"holds the Payload 5\" off the ground .* spend more bricks")


def test_the_call_pays_at_once_and_the_payload_arrives_a_full_turn_later(game):
    """13.2: the bricks leave the pile when the Bombardment is called; a marker is placed and
    the Payload arrives at the beginning of the caller's next turn (not in the same action,
    not at the start of the other player's turn), held 10" up (2 bricks x 5")."""
    g = game
    evs = g.apply(_crate())
    kinds = [e["type"] for e in evs]
    assert kinds == ["mark", "bombard"]  # the Scout Marks, the Commander pays: nothing falls
    assert evs[1]["bricks"] == 2 and evs[1]["pile"] == 1 and evs[1]["arrives_turn"] == 2
    assert g.bombardment.strategy_pile(BF) == 1
    assert "crate_supply1" not in g.bodies and g.bombardment.pending()
    assert g.bombardment.marker_data() == [{"kind": "target", "point": [0.0, 0.0, 0.0]}]
    g.end_turn()  # Black Falcons end turn 1
    assert g.turn == 2 and g.current_player == "Lion Knights"
    assert "crate_supply1" not in g.bodies  # not at the start of the enemy's turn
    n = len(g.events)
    g.end_turn()  # the Lion Knights end turn 2: the Black Falcons' turn 2 begins
    arrived = g.events[n:]
    assert arrived[1]["type"] == "turn" and arrived[1]["player"] == BF
    release = next(e for e in arrived if e["type"] == "release")
    assert release["turn"] == 2 and release["heights"] == [10.0]
    landed = next(e for e in arrived if e["type"] == "landed")
    assert landed["body"] == "crate_supply1" and landed["off_target"] < 1.0
    hit = next(e for e in arrived if e["type"] == "impact")
    assert {hit["body_a"], hit["body_b"]} == {"crate_supply1", "guard"}  # on Reale's head
    assert not g.bombardment.pending()
    assert g.bombardment.strategy_pile(BF) == 1  # paid once


def test_the_preview_shows_the_cost_the_mark_and_the_arrival(table):
    """What the window's B shows before the call: who Marks, the bricks and the pile, when it
    falls and from how high; and the rule's reason when it would be refused."""
    from sandbox.engine.actions import parse_action

    lines = table.bombardment.preview(parse_action(_crate()))
    text = "\n".join(lines)
    assert "Marked by Scout Corvo, 4.7\" away" in text
    assert "Cost: 2 Strategy bricks of 3 in the pile" in text
    assert "Falls at the start of Black Falcons' turn 2, from 10\"" in text
    assert lines[-1] == "Enter to call it"
    bad = table.bombardment.preview(parse_action(_crate(marked_by="guard")))
    assert bad[-1].startswith("Refused: ") and "cannot Mark" in bad[-1]
    assert len(table.actions) == 1  # the Lion Knights' end_turn only: previews change nothing


def test_sandbox_run_and_one_action_at_a_time_give_the_same_game(tmp_path, ldrawdir):
    """The default scene by ``sandbox run`` (run_scene: its events.jsonl) and by the public
    API one action at a time (ending turns as a table would) log the same events and end in
    the same state hash as the scripted play."""
    res = run_scene(SCENE, out_dir=tmp_path, ldrawdir=ldrawdir, png=False)
    assert res.expectation_failures == []
    want = res.events_path.read_text()
    with open_game(SCENE, ldrawdir=ldrawdir) as ref:
        ref.play_script()
        want_hash = ref.state_hash()
    with open_game(SCENE, ldrawdir=ldrawdir) as g:
        for a in g.script():
            while (g.turn, g.players.index(g.current_player)) < (a.turn, 1):
                g.end_turn()
            g.apply(action_dict(a))
        g.play_on()
        g.finish()
        got = "".join(json.dumps(ev, sort_keys=True, allow_nan=False) + "\n" for ev in g.events)
        assert got == want
        assert g.state_hash() == want_hash


def test_old_big_drop_files_say_what_to_write(tmp_path):
    """No second path for a dropped Payload: the old same-action ``big_drop`` type is refused
    with one line naming its replacement (13.2)."""
    text = SCENE.read_text().replace('type = "bombard"', 'type = "big_drop"')
    p = tmp_path / "old.toml"
    p.write_text(text)
    with pytest.raises(SceneError, match=r"actions\[0\]: the 'big_drop' action is gone"):
        open_game(p)
