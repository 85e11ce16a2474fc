"""The Escapade in the game (BrikWars ch. 13): the scene's ``[escapade]`` table, the driver that
feeds kills and exits to the ledger, and the shipped scripted raid checked by its event log."""

from __future__ import annotations

import json
import tomllib

import pytest
from conftest import REPO

from sandbox.app.headless import run_scene
from sandbox.core.errors import RulesError, SceneError
from sandbox.engine.game import Game
from sandbox.engine.scene import scene_from_dict

SCENE = REPO / "scenes" / "escapade_raid.toml"


def _raw() -> dict:
    return tomllib.loads(SCENE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def raid(tmp_path_factory):
    out = tmp_path_factory.mktemp("raid")
    res = run_scene(SCENE, out_dir=out, png=False)
    events = [json.loads(line) for line in res.events_path.read_text().splitlines()]
    return res, [e for e in events if e["type"] == "escapade"]


def test_the_raid_runs_to_a_decided_victory(raid):
    res, esc = raid
    assert res.expectation_failures == []
    final = esc[-1]
    assert final["event"] == "status"
    v = final["summary"]["victory"]
    assert v["outcome"] == "escapading_hero" and v["victors"] == ["Blud's Raiders"]
    assert set(v["defeated"]) == {"Keep Garrison", "Sir Hector"}
    # the Host held the victory until the defenders were defeated on turn 2
    by_turn = {e["turn"]: e["summary"]["victory"]["outcome"] for e in esc if e["event"] == "status"}
    assert by_turn == {0: "host_holds", 1: "host_holds", 2: "escapading_hero", 3: "escapading_hero"}


def test_forces_underdogs_and_turn_order_in_the_log(raid):
    _, esc = raid
    start = next(e for e in esc if e["event"] == "start")
    assert (start["attackers_inches"], start["defenders_inches"]) == (4.0, 5.0)
    assert start["underdog_side"] == "attackers" and start["bennies"] == {"Blud's Raiders": 1}
    assert start["turn_order"][0] == "Blud's Raiders"  # underdogs first
    assert start["edges"] == {"north": "defenders", "south": "attackers", "east": "uncontrolled",
                              "west": "uncontrolled"}
    ta = next(e for e in esc if e["event"] == "tactical_advantage")
    assert ta["deploy_order"][-1] == "Blud's Raiders"  # the highest roll deploys last
    assert ta["swaps"]["Keep Garrison"] == "Blud's Raiders"  # no Command Specialist
    pim = next(e for e in esc if e["event"] == "deployment" and e["unit"] == "pim")
    assert pim["legal"] and pim["used_sprint"] and 5.0 < pim["edge_distance"] < 6.0


def test_witnessed_kills_earn_strategy_bricks(raid):
    _, esc = raid
    kills = [e for e in esc if e["event"] == "kill"]
    assert [(k["unit"], k["killer"], k["reportable"]) for k in kills] == [
        ("guard1", "gunner", True), ("guard2", "pim", True)]
    assert "blud" in kills[0]["witnesses"]
    relays = [e["bricks"] for e in esc if e["event"] == "relay"]
    assert relays == [1, 2]
    reinf = next(e for e in esc if e["event"] == "reinforcements")
    assert reinf["cost"] == 1 and reinf["bricks"] == 1  # merc bought, reserve trooper free
    forces = esc[-1]["summary"]["forces"]
    assert forces["Blud's Raiders"]["strategy_bricks"] == 1
    assert forces["Blud's Raiders"]["units"]["merc"] == "deployed"


def test_exits_are_decided_by_who_carried_what_over_which_edge(raid):
    _, esc = raid
    exits = {e["object"]: e for e in esc if e["event"] == "exit"}
    assert (exits["chest"]["kind"], exits["chest"]["owner"], exits["chest"]["edge"]) == (
        "claimed", "Blud's Raiders", "south")
    assert (exits["hector"]["kind"], exits["hector"]["owner"]) == ("withdrawn", "Sir Hector")
    # flung off the east edge by an explosion: no carrier, nobody's Loot
    assert (exits["barrel"]["kind"], exits["barrel"]["owner"], exits["barrel"]["carrier"]) == (
        "unclaimed", None, None)
    order = [e["object"] for e in esc if e["event"] == "exit"]
    assert order.index("chest") < order.index("gunner")  # booked before its carrier left
    final = esc[-1]["summary"]
    assert final["loot"] == {"chest": "Blud's Raiders", "barrel": None}
    assert final["forces"]["Sir Hector"]["units"] == {"hector": "reserve", "squire": "reserve"}


def _spec(mutate) -> object:
    data = _raw()
    mutate(data)
    return scene_from_dict(data, "raid")


@pytest.mark.parametrize("mutate, words", [
    (lambda d: d["escapade"].update(attackers_edge="up"), "attackers_edge"),
    (lambda d: d["escapade"].update(defenders_edge="south"), "cannot share the south edge"),
    (lambda d: d["escapade"]["strongholds"][0].update(points=[[0, 0], [1, 1], [0, 1]]),
     "exactly one of 'rect' or 'points'"),
    (lambda d: d["escapade"]["forces"][0].update(role="pirate"), "role"),
    (lambda d: d["escapade"]["forces"][1]["units"].append({"id": "blud"}),
     "more than one force: ['blud']"),
    (lambda d: d["escapade"].update(turn_order=["Keep Garrison"]), "turn_order"),
    (lambda d: d["actions"][0].update(carrying="chest"), "carrying"),
    (lambda d: d["actions"][6].update(role="meddler"), "only 'betray' takes one"),
], ids=["edge-name", "same-edge", "stronghold-shape", "role", "unit-twice", "turn-order",
        "attack-extra-field", "declare-role"])
def test_escapade_section_is_validated_naming_the_field(mutate, words):
    with pytest.raises(SceneError, match="escapade|actions") as exc:
        _spec(mutate)
    assert words in str(exc.value)


@pytest.mark.parametrize("mutate, words", [
    # 13.1: the Garrison is capped by the Stronghold's defenses (3Ü > 2Ü)
    (lambda d: d["escapade"].update(garrison_defense_cap=2.0), "Garrison defense level"),
    # 13.2: a Hero's units are no bigger than his Irresponsibility
    (lambda d: next(u for u in d["units"] if u["id"] == "mags")["stats"].update(size=2.0),
     "13.2 unit Size"),
    (lambda d: d["escapade"]["forces"][0].update(irresponsibility=5), "Irresponsible minimum"),
    (lambda d: d["escapade"]["forces"][3].update(player="Nobody"), "players"),
    (lambda d: d["escapade"]["forces"][0]["units"].append({"id": "ghost"}),
     "'ghost' is not a unit"),
    (lambda d: (d["escapade"]["forces"][1]["units"].pop(),
                d["escapade"]["forces"][3]["units"].append({"id": "guard3"})),
     "belongs to 'Lord Hector'"),
], ids=["garrison-defense-cap", "unit-size", "irresponsible-minimum", "player", "unknown-unit",
        "owner"])
def test_forces_are_checked_against_the_scene_and_the_rules(mutate, words):
    with pytest.raises(SceneError) as exc:
        Game(_spec(mutate), REPO / "scenes")
    assert words in str(exc.value)


def _game(mutate=lambda d: None, actions=None) -> Game:
    data = _raw()
    mutate(data)
    if actions is not None:
        data["actions"] = actions
    g = Game(scene_from_dict(data, "raid"), REPO / "scenes")
    return g


def test_deployment_out_of_reach_is_refused_and_sprint_placement_rolls():
    def far(d):  # gunner 9.4" from the south edge, no Sprint placement allowed
        next(u for u in d["units"] if u["id"] == "gunner")["position"] = [6.0, 2.6 - 5.0, 0.0]
    with pytest.raises(SceneError, match=r"units\[2\] 'gunner' .*from the nearest friendly edge"):
        _game(far).close()


def test_scripted_actions_must_follow_the_turn_order():
    acts = [{"type": "declare", "turn": 1, "player": "Lord Hector", "force": "Keep Garrison",
             "what": "concede"},
            {"type": "relay", "turn": 1, "player": "Baron Blud", "commander": "blud"}]
    with pytest.raises(SceneError, match="underdogs first"):
        _game(actions=acts).close()


@pytest.mark.parametrize("action, error", [
    ({"type": "relay", "turn": 1, "player": "Baron Blud", "commander": "blud"},
     "no witnessed kill to relay"),
    ({"type": "reinforce", "turn": 1, "player": "Baron Blud", "commander": "pim",
      "units": ["trooper"]}, "not a Commander"),
    ({"type": "relay", "turn": 1, "player": "Lord Hector", "commander": "blud"},
     "fights for Blud's Raiders"),
    ({"type": "walk", "turn": 1, "player": "Baron Blud", "unit": "blud", "to": [-4.0, -12.0 - 5.5]},
     "may move 5.00\" more"),
    ({"type": "walk", "turn": 1, "player": "Baron Blud", "unit": "blud", "to": [-4.0, -12.5],
      "carrying": "chest"}, "must be within 1\""),
    ({"type": "reinforce", "turn": 1, "player": "Baron Blud", "commander": "blud",
      "units": ["merc"]}, "needs 1 Strategy bricks, has 0"),
    ({"type": "declare", "turn": 1, "player": "Lord Hector", "force": "Keep Garrison",
      "what": "losing_battle"}, "may not Fight a Losing Battle"),
    ({"type": "declare", "turn": 1, "player": "Baron Blud", "force": "Blud's Raiders",
      "what": "betray", "role": "meddler"}, "cannot become meddler"),
], ids=["relay-nothing", "not-a-commander", "relay-enemy", "walk-too-far", "carry-too-far",
        "reinforce-no-bricks", "losing-battle-too-soon", "hero-cannot-betray"])
def test_escapade_actions_refused_with_the_reason(action, error):
    g = _game(actions=[action])
    try:
        with pytest.raises(RulesError, match=error):
            g.play_turns(1, 1)
    finally:
        g.close()


def test_withdrawn_unit_walks_off_its_own_edge_and_stays_in_reserve():
    act = {"type": "walk", "turn": 1, "player": "Baron Blud", "unit": "blud", "to": [-4.0, -12.6]}
    g = _game(actions=[act])
    try:
        g.play_turns(1, 1)
        led = g.escapade.ledger
        assert led.status("blud").value == "reserve"
        # no Commander on the table: the reserve trooper no longer counts (13.2)
        assert led.unit_inches("Blud's Raiders") == 2.0
        assert "blud" not in g.world.bodies and g.bodies["blud"].off_table
        # the Escapading Hero is off the table: his force Fights a Losing Battle (13.3)
        assert "Blud's Raiders" in led.victory_status().defeated
    finally:
        g.close()


def test_unit_walked_off_an_enemy_edge_is_lost():
    def near_north(d):
        next(u for u in d["units"] if u["id"] == "pim")["position"] = [0.0, 8.0, 0.0]
        d["escapade"]["strict"] = False
    act = {"type": "walk", "turn": 1, "player": "Baron Blud", "unit": "pim", "to": [0.0, 12.6]}
    g = _game(near_north, actions=[act])
    try:
        g.play_turns(1, 1)
        ev = next(e for e in g.events if e["type"] == "escapade" and e.get("event") == "exit")
        assert (ev["kind"], ev["edge"], ev["owner"]) == ("lost", "north", None)
        assert g.escapade.ledger.status("pim").value == "lost"
    finally:
        g.close()


def test_panel_lines_show_forces_bennies_strategy_and_victory():
    g = _game(actions=[])
    try:
        lines = g.escapade.panel_lines()
        text = "\n".join(lines)
        assert lines[0].startswith("Escapade (standard), turn 1")
        assert "Blud's Raiders (escapading hero): 4/4Ü, Bennies 1, Strategy 0" in lines
        assert "Keep Garrison (garrison): 3/3Ü, Bennies 0, Strategy 0" in lines
        assert "Attackers 4Ü vs defenders 5Ü: underdogs attackers" in text
        assert "Victory: host holds (Keep Garrison, Sir Hector)" in text
        assert ("Edges: north defenders, south attackers, east uncontrolled, "
                "west uncontrolled") in text
    finally:
        g.close()


def test_relayed_bricks_and_reinforcements_share_the_players_strategy_pile(raid):
    """One pile per player (13.2): bricks relayed by the Commander minus those spent on
    Reinforcements are what The Big Drop or a Bombardment can spend afterwards."""
    res, esc = raid
    g = res.game
    start = {p.name: p.strategy_bricks for p in g.spec.players}
    relayed = len([e for e in esc if e.get("event") == "relay"])  # one brick per kill relayed
    spent = sum(e["cost"] for e in esc if e.get("event") == "reinforcements")
    assert relayed >= 1 and spent >= 1
    assert g.bombardment.piles["Baron Blud"] == start["Baron Blud"] + relayed - spent
