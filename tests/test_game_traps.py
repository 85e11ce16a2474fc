"""Traps, Energy Shields, Power, powered Fields and the effects of Fire on the physical
battlefield (BrikWars F.1, F.2, 8.3): scenes/trap_corridor.toml and small games."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sandbox.app.headless import check_expectations
from sandbox.core.dice import DiceExpression
from sandbox.core.errors import RulesError, SceneError
from sandbox.engine.actions import AttackAction, EndTurnAction, MoveAction
from sandbox.engine.game import Game
from sandbox.engine.game import Game as GameSession
from sandbox.engine.scene import load_scene, scene_from_dict
from sandbox.games.brikwars import effects
from sandbox.rules import hazards as hz

REPO = Path(__file__).resolve().parents[1]


def brick(part="3001", z=0.0, colour=4):
    return {"part": part, "colour": colour, "position": [0, 0, z]}


def make_game(extra: dict, forced=None, seed=3) -> Game:
    data = {"name": "t", "seed": seed, "battlefield": {"width": 24, "depth": 16},
            "players": [{"name": "Red", "strategy_bricks": 3}, {"name": "Blue"}],
            "forced_dice": forced or {}}
    for k, v in extra.items():
        data[k] = v
    g = Game(scene_from_dict(data), REPO)
    g.turn = 1
    return g


def events(g, type_):
    return [e for e in g.events if e["type"] == type_]


# ---------------------------------------------------------------- the shipped scene


@pytest.fixture(scope="module")
def corridor():
    spec, base = load_scene(REPO / "scenes" / "trap_corridor.toml")
    g = Game(spec, base)
    g.run()
    yield g
    g.close()


def test_corridor_meets_its_expectations(corridor):
    assert check_expectations(corridor) == []


def test_pressure_plate_weapon_trap_fires_once_with_a_d4(corridor):
    sprung = [e for e in events(corridor, "trap_sprung") if e["trap"] == "plate"]
    assert len(sprung) == 1 and sprung[0]["body"] == "intruder"  # Mott crossed it disarmed
    shot = events(corridor, "trap_attack")[0]
    assert shot["hit"] and shot["use"] == 3 and "with d4" in shot["text"]
    # distance from the gun in the wall to the spot where the plate was stepped on
    assert shot["distance"] == pytest.approx(np.hypot(1.2, 2.0), abs=0.1)
    rolls = [e for e in corridor.events if e["type"] == "roll" and e["stream"] == "trap"]
    assert rolls[0]["sides"] == 4  # an inanimate object's Action die (F.2)
    assert not corridor.traps.traps["plate"].rules.armed


def test_lever_only_answers_its_interaction(corridor):
    quiet = events(corridor, "trap_quiet")
    assert len(quiet) == 1 and "'push'" in quiet[0]["text"]
    jet = [e for e in events(corridor, "trap_sprung") if e["trap"] == "jet"]
    assert len(jet) == 1
    assert corridor.hazards.fire.burning("intruder")


def test_contact_trap_goes_off_on_a_physics_impact_and_the_shield_deflects(corridor):
    urn = [e for e in events(corridor, "trap_sprung") if e["trap"] == "urn_bomb"]
    assert len(urn) == 1 and "touches the booby-trapped urn" in urn[0]["text"]
    shield = events(corridor, "shield")
    assert shield and shield[0]["body"] == "droid" and sorted(shield[0]["blocked"]) == [4, 6]
    assert shield[0]["after"] == 0
    assert corridor.defences.power_left("droid") == pytest.approx(1.0)
    assert not corridor.bodies["droid"].damage.destroyed


# ---------------------------------------------------------------- validation


def test_trap_tables_are_validated_by_field():
    with pytest.raises(SceneError, match="centre"):
        scene_from_dict({"traps": [{"id": "t", "trigger": "region", "effect": "hazard",
                                    "dice": "1d6"}]})
    with pytest.raises(SceneError, match="interaction"):
        scene_from_dict({"traps": [{"id": "t", "trigger": "interaction", "object": "x",
                                    "effect": "hazard", "dice": "1d6"}]})
    with pytest.raises(SceneError, match="unknown weapon type"):
        scene_from_dict({"traps": [{"id": "t", "trigger": "region", "centre": [0, 0],
                                    "effect": "weapon", "weapon": "Trebuchet",
                                    "position": [0, 0, 1]}]})
    with pytest.raises(SceneError, match="action_die"):
        scene_from_dict({"traps": [{"id": "t", "trigger": "region", "centre": [0, 0],
                                    "effect": "hazard", "dice": "1d6", "action_die": 7}]})
    with pytest.raises(SceneError, match=r"traps\[0\]\.object: no body 'ghost'"):
        make_game({"units": [{"id": "u", "parts": [brick()]}],
                   "traps": [{"id": "t", "trigger": "contact", "object": "ghost",
                              "effect": "hazard", "dice": "1d6"}]})
    with pytest.raises(SceneError, match="shield die"):
        scene_from_dict({"units": [{"id": "u", "parts": [brick()],
                                    "stats": {"shield": [7]}}]})


# ---------------------------------------------------------------- triggers by physics


def test_region_trap_goes_off_when_a_dropped_body_lands_in_it_every_time_unless_single_use():
    g = make_game({
        "units": [{"id": "guard", "owner": "Blue", "position": [6, 0, 0], "parts": [brick()],
                   "stats": {"size": 1, "armor": 30}}],
        "traps": [{"id": "plate", "trigger": "region", "centre": [0, 0], "radius": 1.5,
                   "effect": "hazard", "dice": "1d6", "single_use": False}],
        # two crates by The Big Drop onto a drop zone (13.2), landing on Red's turn 2
        "drop_zones": [{"id": "pad", "centre": [0, 0], "size": 4}],
        "actions": [{"type": "bombard", "id": f"crate{i}", "player": "Red", "drop_zone": "pad",
                     "big_drop": True, "target": [0.2 * i, 0],
                     "supplies": [{"part": "3001", "size": 1, "armor": 30}]} for i in range(2)],
    }, forced={"trap": [5, 2]})
    try:
        g.play_turns()
        sprung = events(g, "trap_sprung")
        assert [e["body"] for e in sprung] == ["crate0_supply1", "crate1_supply1"]
        assert g.traps.traps["plate"].rules.armed  # not single use
        dmg = [e for e in events(g, "damage") if "plate" in e["source"]]
        assert [e["damage"] for e in dmg] == [5, 2]
        assert "guard" not in {e["body"] for e in sprung}  # stood outside, never entered
    finally:
        g.close()


def test_move_path_crossing_a_tripwire_but_not_one_beside_it():
    g = make_game({
        "units": [{"id": "scout", "owner": "Red", "position": [-6, 0, 0], "parts": [brick()],
                   "stats": {"size": 1, "armor": 30, "move": 10}}],
        "traps": [{"id": "wire", "trigger": "region", "centre": [0, 0], "radius": 0.3,
                   "effect": "hazard", "dice": "2d6"},
                  {"id": "aside", "trigger": "region", "centre": [0, 3], "radius": 0.3,
                   "effect": "hazard", "dice": "2d6"}],
        "actions": [{"type": "cross", "player": "Red", "unit": "scout", "to": [4, 0]}],
    }, forced={"trap": [3, 4]})
    try:
        g.play_turns()
        sprung = events(g, "trap_sprung")
        assert [e["trap"] for e in sprung] == ["wire"]
        assert sprung[0]["point"][0] == pytest.approx(-0.3, abs=1e-6)
        assert g.bodies["scout"].damage.to_dict()  # logged Damage 7 against Armor 30
        assert [e["damage"] for e in events(g, "damage")] == [7]
    finally:
        g.close()


def test_interaction_out_of_reach_is_refused():
    g = make_game({
        "creations": [{"id": "lever", "position": [3, 0, 0], "parts": [brick("3005")],
                       "fixed": True, "stats": {"size": 1, "armor": 4, "move": 0}}],
        "units": [{"id": "u", "owner": "Red", "position": [-3, 0, 0], "parts": [brick()],
                   "stats": {"size": 1, "armor": 4}}],
        "traps": [{"id": "t", "trigger": "interaction", "object": "lever", "interaction": "pull",
                   "effect": "hazard", "dice": "1d6"}],
        "actions": [{"type": "interact", "player": "Red", "unit": "u", "object": "lever",
                     "interaction": "pull"}],
    })
    try:
        with pytest.raises(RulesError, match="must be within 0.5"):
            g.play_turns()
        assert not events(g, "trap_sprung")
    finally:
        g.close()


# ---------------------------------------------------------------- Energy Shields and Power


def shielded(shield, power, extra_units=()):
    return make_game({"units": [{"id": "droid", "owner": "Blue", "position": [0, 0, 0],
                                 "parts": [brick(), brick(z=0.378)],
                                 "stats": {"size": 2, "armor": 30, "shield": shield,
                                           "power": power}}, *extra_units]})


def test_shield_die_once_per_turn_matching_type_and_power():
    g = shielded([6, 10], 1.0)
    try:
        st = g.bodies["droid"]
        g.damage(st, 9, "test Damage", dice=[(6, 5), (6, 4)])
        assert events(g, "shield")[-1]["blocked"] == [5] and st.damage.cumulative_damage == 0
        assert events(g, "damage")[-1]["damage"] == 4
        # the d10 die is unused but the 1" of Power is spent: no more deflection this turn
        g.damage(st, 7, "test Damage", dice=[(10, 7)])
        assert len(events(g, "shield")) == 1 and events(g, "damage")[-1]["damage"] == 7
        g.turn = 2  # Power and shield dice come back
        g.damage(st, 7, "test Damage", dice=[(10, 7)])
        assert events(g, "shield")[-1]["blocked"] == [7]
        g.damage(st, 3, "Grinding Damage")  # no dice: nothing to deflect
        assert events(g, "damage")[-1]["damage"] == 3
    finally:
        g.close()


def test_shield_dice_limited_by_size():
    g = shielded([6, 6, 6], 3.0)
    try:
        with pytest.raises(SceneError, match=r"droid.stats.shield .* exceed its 2\" of Size"):
            g.damage(g.bodies["droid"], 3, "x", dice=[(6, 3)])
    finally:
        g.close()


def test_melee_action_die_damage_meets_d6_shields():
    assert hz.shield_block(hz.EnergyShield("s", [6], 1), [(6, 4)], 4, turn=1).damage == 0
    g = shielded([6], 1.0)
    try:
        roll = DiceExpression.parse("1d8").roll(g.dice.stream("attack"))
        effects.strike(g, g.bodies["droid"], roll, "a sword", attacker="droid", melee=True)
        assert events(g, "shield")[-1]["blocked"] == [roll.total]
    finally:
        g.close()


# ---------------------------------------------------------------- powered Fields


def bonfire(powered, power=2.0):
    field = {"id": "grill", "hazard": "exposure", "size": 4, "dice": "2d6", "centre": [0, 0],
             "radius": 3, "height": 3, "powered": powered}
    if powered:
        field["powered_by"] = "generator"
    return make_game({
        "creations": [{"id": "generator", "position": [8, 0, 0], "parts": [brick()],
                       "stats": {"size": 1, "armor": 30, "power": power, "move": 0}}],
        "units": [{"id": f"u{i}", "owner": "Blue", "position": [-1 + 2 * i, 0, 0],
                   "parts": [brick()], "stats": {"size": 1, "armor": 30}} for i in range(2)],
        "fields": [field]}, forced={"hazard": [3, 3, 2, 2, 1, 1]})


def test_passive_field_rolls_for_every_victim():
    g = bonfire(False)
    try:
        # turn 1 began when the game was built: its start-of-turn hooks have run
        assert [e["body"] for e in events(g, "exposure")] == ["u0", "u1"]
    finally:
        g.close()


def test_powered_field_activates_once_a_turn_for_power():
    g = bonfire(True)
    try:
        # turn 1 began when the game was built: its start-of-turn hooks have run
        act = events(g, "powered_field")
        assert [e["activated"] for e in act] == [True, False]
        assert [e["body"] for e in events(g, "exposure")] == ["u0"]
        assert g.defences.power_left("generator") == pytest.approx(0.0)
        while g.turn < 2:
            g.end_turn()
        assert len(events(g, "exposure")) == 2
    finally:
        g.close()
    g = bonfire(True, power=1.0)  # 2 Hazard dice need 2" of Power
    try:
        # turn 1 began when the game was built: its start-of-turn hooks have run
        assert not events(g, "exposure")
        assert "needs 2\" of Power" in events(g, "powered_field")[0]["text"]
    finally:
        g.close()


def test_powered_by_is_checked():
    with pytest.raises(SceneError, match=r"fields\[f\]\.powered_by: no body 'nope'"):
        make_game({"units": [{"id": "u", "parts": [brick()]}],
                   "fields": [{"id": "f", "hazard": "exposure", "size": 2, "dice": "1d6",
                               "powered": True, "powered_by": "nope"}]}).close()


# ---------------------------------------------------------------- Fire


def test_burning_creation_strikes_with_plus_one_fire_and_burning_target_loses_armor():
    g = make_game({"creations": [
        {"id": "mech", "owner": "Red", "position": [0, 0, 0], "parts": [brick()],
         "stats": {"size": 4, "armor": 10, "weight_class": 2, "move": 0}},
        {"id": "hut", "owner": "Blue", "position": [5, 0, 0], "parts": [brick()],
         "stats": {"size": 4, "armor": 10, "weight_class": 1, "move": 0}}]},
        forced={"fire": [3, 3, 1, 1, 2], "attack": [5]})  # on Fire: -1d4 (here 1), F.1/8.3
    try:
        fire = g.hazards.fire
        fire.ignite("mech", DiceExpression.parse("1d4 Fire").roll(g.dice.stream("fire")))
        fire.ignite("hut", DiceExpression.parse("1d4 Fire").roll(g.dice.stream("fire")))
        assert fire.burning("mech") and fire.burning("hut")
        assert g.defences.action_modifier("mech").action == -1
        roll = DiceExpression.parse("1d6").roll(g.dice.stream("attack"))
        effects.strike(g, g.bodies["hut"], roll, "a punch", attacker="mech")
        dmg = events(g, "damage")
        assert dmg[-2]["damage"] == 5 and dmg[-2]["armor"] == 9  # Armor 10 - 1 on Fire
        assert "Armor -1 on Fire" in dmg[-2]["source"]
        assert events(g, "burning_strike")[0]["damage"] == 2 and dmg[-1]["damage"] == 2
        assert g.bodies["hut"].damage.armor_roll == 10  # the penalty is not kept
    finally:
        g.close()


def test_burning_minifig_attacks_at_minus_1d4_and_adds_fire_in_a_session():
    import tomllib

    from sandbox.engine.scene import scene_from_dict

    data = tomllib.loads((REPO / "scenes" / "skirmish.toml").read_text())
    # a burning minifig uses one Hand at most (8.3): Sir Bors carries a one-handed Gun here
    next(u for u in data["units"] if u["id"] == "knight2")["stats"]["weapons"] = [
        {"type": "Gun", "size": 1, "name": "Pistol"}]
    next(u for u in data["units"] if u["id"] == "falcon1")["stats"]["armor"] = 30  # survives
    data["forced_dice"] = {"attack": [5, 6], "fire": [3, 2, 2]}
    s = GameSession(scene_from_dict(data), REPO / "scenes")
    try:
        LK, BF = "Lion Knights", "Black Falcons"
        c = s.footprint_centre("knight1")
        s.apply(MoveAction(type="move", player=LK, unit="knight1", to=(c[0] + 5.0, c[1])))
        s.apply(EndTurnAction(type="end_turn", player=LK))
        s.apply(MoveAction(type="move", player=BF, unit="falcon1", to=(1.5, -3.0)))
        s.apply(EndTurnAction(type="end_turn", player=BF))
        s.apply(MoveAction(type="move", player=LK, unit="knight2", to=(-3.5, -0.5)))
        g = s
        g.hazards.fire.ignite("knight2", DiceExpression.parse("1d4 Fire").roll(
            g.dice.stream("fire")))
        mods = sum(m.action for m in s.skirmish.attack_preview("knight2", 0, "falcon1").modifiers)
        s.apply(AttackAction(type="attack", player=LK, unit="knight2", weapon=0,
                             target="falcon1"))
        pen = [e for e in s.events if e["type"] == "roll" and "on Fire penalty" in e["reason"]]
        assert pen and pen[0]["sides"] == 4 and pen[0]["result"] == 2
        act = [e for e in s.events if e["type"] == "action_roll"][-1]
        assert act["total"] == 5 + mods - 2 and act["hit"]  # -1d4 on Fire (8.3)
        assert any(e["type"] == "burning_strike" for e in s.events)
        assert g.hazards.fire.burning("falcon1")
    finally:
        s.close()


def test_unit_inside_an_engulfed_creation_takes_its_fire():
    g = make_game({
        "creations": [{"id": "mech", "owner": "Red", "position": [0, 0, 0],
                       "parts": [brick(), brick(z=0.378)],
                       "stats": {"size": 1, "armor": 30, "weight_class": 0, "move": 0}}],
        "units": [{"id": "pilot", "owner": "Red", "position": [0, 0, 0.76],
                   "parts": [brick("3005")],
                   "stats": {"size": 1, "armor": 30}},
                  {"id": "bystander", "owner": "Red", "position": [6, 0, 0],
                   "parts": [brick("3005")], "stats": {"size": 1, "armor": 30}}]},
        forced={"fire": [3, 2]})
    try:
        g.hazards.fire.ignite("mech", DiceExpression.parse("1d4 Fire").roll(
            g.dice.stream("fire")))
        assert g.hazards.fire.fires["mech"].rules.engulfed
        g.defences.engulfed_riders()
        rid = events(g, "engulfed_rider")
        assert [e["body"] for e in rid] == ["pilot"] and rid[0]["damage"] == 2
        assert g.hazards.fire.burning("pilot")
    finally:
        g.close()


def test_a_burning_body_adds_fire_to_what_collides_with_it():
    g = make_game({
        "creations": [{"id": "hut", "owner": "Blue", "position": [0, 0, 0],
                       "parts": [brick(), brick(z=0.378)],
                       "stats": {"size": 4, "armor": 40, "weight_class": 1, "move": 0}}],
        "drop_zones": [{"id": "pad", "centre": [0, 0], "size": 4}],
        "actions": [{"type": "bombard", "id": "crate", "player": "Red", "drop_zone": "pad",
                     "big_drop": True, "target": [0, 0],
                     "supplies": [{"part": "3001", "size": 1, "armor": 40}]}]},
        forced={"fire": [3, 2, 2]})  # ignite, Burning Roll, +1 Fire
    try:
        g.hazards.fire.ignite("hut", DiceExpression.parse("1d4 Fire").roll(
            g.dice.stream("fire")))
        g.play_turns()
        strikes = events(g, "burning_strike")
        assert strikes and strikes[0]["body"] == "crate_supply1"
        assert strikes[0]["source"] == "hut" and strikes[0]["damage"] == 2
        assert g.hazards.fire.burning("crate_supply1")
    finally:
        g.close()
