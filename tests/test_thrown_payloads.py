"""Thrown weapons, launched Melee Weapons, Smoke bombs and Rocket attitude (BrikWars 8.4, 13.2).

The throw path (a minifig's ½" arm, Teamwork adding strength but not Range, the smallest
Action die rolling), Close Combat Damage of a Melee Weapon fired from a Launcher or thrown,
Smoke bombs dropped with Reinforcements making a shrinking Smoke Field, and Rockets whose nose
follows their flight.
"""

from __future__ import annotations

import copy
import math
import tomllib

import numpy as np
import pytest
from conftest import REPO

from sandbox.core.errors import RulesError, SceneError
from sandbox.core.units import GRAVITY_IN_S2
from sandbox.engine.game import Game
from sandbox.engine.scene import scene_from_dict
from sandbox.games.brikwars.projectiles import _rotation_between
from sandbox.physics.world import quat_to_matrix


def _scene(name: str) -> dict:
    return copy.deepcopy(tomllib.loads((REPO / "scenes" / name).read_text()))


def _run(data: dict, ldrawdir) -> Game:
    g = Game(scene_from_dict(data), REPO / "scenes", ldrawdir=ldrawdir)
    try:
        g.run()
    except BaseException:
        g.close()
        raise
    return g


def _events(g: Game, type_: str) -> list[dict]:
    return [e for e in g.events if e["type"] == type_]


def _refused(data: dict, ldrawdir, match: str) -> None:
    g = Game(scene_from_dict(data), REPO / "scenes", ldrawdir=ldrawdir)
    try:
        with pytest.raises(RulesError, match=match):
            g.run()
    finally:
        g.close()


# ------------------------------------------------------------------ throws
def test_grenade_and_teamwork_keg_land_on_their_targets(ldrawdir):
    g = _run(_scene("grenade_throw.toml"), ldrawdir)
    try:
        launches = {e["flight"]: e["state"] for e in _events(g, "launch")}
        grenade, keg = launches["grenade_throw"], launches["keg_throw"]
        assert grenade["kind"] == keg["kind"] == "throw"
        # one arm: a ½" Launcher; two with Teamwork: their half-inches add (Size 1")...
        assert grenade["weapon"] == "Throwing Arm x1" and keg["weapon"] == "Throwing Arm x2"
        # ...but the Range stays 3" (8.4), and the throw speed is the 3" (45°) throw's
        assert grenade["range_in"] == keg["range_in"] == 3.0
        assert grenade["speed"] == pytest.approx(math.sqrt(GRAVITY_IN_S2 * 3.0))
        # Use of a thrown object is its Close Combat Use (Size 1 weapon: 2)
        assert grenade["use"] == keg["use"] == 2
        # released 0.3" above the thrower's head, over his middle
        lo, hi = g.world.aabb("grenadier")
        assert grenade["origin"] == pytest.approx([*((lo + hi) / 2)[:2], hi[2] + 0.3], abs=0.01)
        booms = {e["body"]: e["point"] for e in _events(g, "explosion")}
        assert np.hypot(*(np.array(booms["grenade"][:2]) - [-2.1, -3.0])) < 0.75
        assert np.hypot(*(np.array(booms["keg"][:2]) - [-2.1, 3.0])) < 0.75
        assert g.bodies["sentry"].damage.destroyed and g.bodies["gunner"].damage.destroyed
        assert not any(g.bodies[k].damage.destroyed for k in ("grenadier", "hauler1", "hauler2"))
    finally:
        g.close()


def test_one_minifig_cannot_throw_the_keg_alone(ldrawdir):
    data = _scene("grenade_throw.toml")
    data["actions"][1]["throwers"] = ["hauler1"]
    _refused(data, ldrawdir, r"too big for Throwing Arm x1")


def test_objects_need_half_the_arms_strength(ldrawdir):
    # the keg without its charge is a Size 1" object: two minifigs make a Size 1" Launcher,
    # which throws Size 0" objects only (8.4 Payload Launchers: half the Weapon Size, down)
    data = _scene("grenade_throw.toml")
    data["explosives"] = [e for e in data["explosives"] if e["body"] != "keg"]
    _refused(data, ldrawdir, r"max Payload Size 0")


def test_teamwork_adds_strength_not_range_and_smallest_die_rolls(ldrawdir):
    data = _scene("grenade_throw.toml")
    # the gunner steps back to 4.5" from the haulers: 2" Out of Range for the whole team
    data["units"][4]["position"] = [-0.5, 3.0, 0.0]
    data["actions"][1]["target"] = [-0.5, 3.0, 0.9]
    data["expect"] = None
    data.pop("expect")
    # Gunn has only a d4 (a Vermin-sized Action die): he makes the roll for the pair
    data["units"][2]["stats"]["action_die"] = 4
    data["forced_dice"] = {"projectile": [4, 4], "explosion": [8, 7]}
    g = _run(data, ldrawdir)
    try:
        keg_roll = [e for e in _events(g, "roll") if e["stream"] == "projectile"
                    and "Throwing Arm x2" in e["reason"]]
        assert [e["sides"] for e in keg_roll] == [4]
        (attack,) = [e for e in _events(g, "attack") if e.get("flight") == "keg_throw"]
        assert attack["total"] == 4 - 2 and attack["hit"]
    finally:
        g.close()


def test_thrown_hand_axe_does_close_combat_damage(ldrawdir):
    data = _scene("grenade_throw.toml")
    data["explosives"] = [e for e in data["explosives"] if e["body"] != "grenade"]
    data["creations"][0]["name"] = "hand axe"
    data["melee_payloads"] = [{"body": "grenade", "size": 1}]  # a Size 1" Hand Weapon
    data["actions"] = data["actions"][:1]
    data.pop("expect")
    data["forced_dice"] = {"projectile": [4], "damage": [5]}
    g = _run(data, ldrawdir)
    try:
        (hit,) = _events(g, "melee_impact")
        assert hit["victim"] == "sentry" and hit["damage"] == 5 and hit["weapon_size"] == 1
        dmg = [e for e in _events(g, "damage") if e["body"] == "sentry"]
        assert dmg[0]["source"] == 'Close Combat Damage (Size 1" Melee Weapon)'
        assert dmg[0]["destroyed"]  # 5 against Armor 4
        assert not _events(g, "explosion")
    finally:
        g.close()


# ------------------------------------------------------------------ launched Melee Weapons
@pytest.mark.parametrize("dice, destroyed", [([5, 4], True), ([2, 1], False)])
def test_launched_melee_weapon_does_close_combat_damage(ldrawdir, dice, destroyed):
    data = _scene("catapult_over_wall.toml")
    # the boulder becomes a Size 2" Melee Weapon (a ballista's spear): 2 Action dice (the crew's
    # d6) of Close Combat Damage against the guard's Armor 4, not 2d6 Crash Damage
    data["creations"][2]["name"] = "ballista spear"
    data["melee_payloads"] = [{"body": "boulder", "size": 2}]
    data["forced_dice"] = {"projectile": [5], "damage": list(dice), "collision": [1, 1, 1, 1]}
    data.pop("expect")
    g = _run(data, ldrawdir)
    try:
        (hit,) = _events(g, "melee_impact")
        assert hit["victim"] == "guard" and hit["damage"] == sum(dice)
        rolls = [e for e in _events(g, "roll") if e["stream"] == "damage"]
        assert [(e["sides"], e["result"]) for e in rolls] == [(6, d) for d in dice]
        first = [e for e in _events(g, "damage") if e["body"] == "guard"][0]
        assert first["source"] == 'Close Combat Damage (Size 2" Melee Weapon)'
        assert first["damage"] == sum(dice)
        assert not any(e["source"] == "Crash Damage" for e in _events(g, "damage"))
        assert g.bodies["guard"].damage.destroyed is destroyed
    finally:
        g.close()


def test_melee_payload_schema_names_the_field():
    data = _scene("catapult_over_wall.toml")
    data["melee_payloads"] = [{"body": "boulder", "size": 0}]
    with pytest.raises(SceneError, match="melee_payloads"):
        scene_from_dict(data)


# ------------------------------------------------------------------ Smoke bombs
def test_smoke_bomb_makes_a_shrinking_smoke_field(ldrawdir):
    data = _scene("smoke_bombardment.toml")
    data["turns"] = 10
    g = _run(data, ldrawdir)
    try:
        (call,) = _events(g, "bombard")
        assert call["bricks"] == 3 and call["pile"] == 1  # 1 Unit Inch + 2 Smoke dice
        fields = [e for e in _events(g, "field") if e["field"] == "smokedrop_smoke2_field"]
        # 4" a die at the point of impact, then 1" less at the start of each later turn
        assert [(e["turn"], e["size"]) for e in fields] == [(2, 8.0)] + [
            (t, 8.0 - (t - 2)) for t in range(3, 10)]
        centre = np.array(fields[0]["centre"])
        assert np.hypot(*(centre - [2.5, 0.0])) < 1.0
        (gone,) = _events(g, "field_gone")
        assert gone["turn"] == 10 and "smokedrop_smoke2_field" not in g.hazards.fields
        # the bomb did no Damage: only the trooper's landing Collision Damage
        assert {e["body"] for e in _events(g, "damage")} == {"trooper"}
        assert not _events(g, "explosion")
        assert "smokedrop_smoke2" not in g.world.bodies  # it burst
        assert g.hazards.sight == {"sentry_t2": False, "archer_t2": True, "sentry_t3": False}
    finally:
        g.close()


def test_smoke_bombs_cost_a_brick_a_die(ldrawdir):
    data = _scene("smoke_bombardment.toml")
    falcons = next(p for p in data["players"] if p["name"] == "Black Falcons")
    falcons["strategy_bricks"] = 2
    _refused(data, ldrawdir, "costs 3 Strategy bricks and Black Falcons has 2")


# ------------------------------------------------------------------ Rocket attitude
def test_rotation_between_takes_a_onto_b():
    rng = np.random.default_rng(5)
    for _ in range(20):
        a, b = rng.normal(size=(2, 3))
        a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
        r = _rotation_between(a, b)
        assert r @ a == pytest.approx(b, abs=1e-9)
        assert r.T @ r == pytest.approx(np.eye(3), abs=1e-9)
        assert np.linalg.det(r) == pytest.approx(1.0)
    assert _rotation_between(np.array([1.0, 0, 0]), np.array([-1.0, 0, 0])) @ [1, 0, 0] \
        == pytest.approx([-1, 0, 0])


def test_rocket_nose_follows_its_flight(ldrawdir):
    data = _scene("rocket_three_turns.toml")
    data["actions"][1]["to"] = [12.0, 14.0]  # far to the side: the Rocket turns 45°
    sentry = next(u for u in data["units"] if u["id"] == "sentry")
    sentry["stats"] = {**sentry["stats"], "move": 15.0}  # he runs that far in one Move
    data.pop("expect")
    g = _run(data, ldrawdir)
    try:
        states = [e["state"] for e in g.events if e["type"] in ("launch", "held", "flight")]
        assert len(states) >= 4
        nose = np.array(states[0]["nose"])
        # the Rocket is a 1x4 brick lying along X: its nose is its long side
        assert abs(nose[np.argmax(np.abs(nose))]) == pytest.approx(1.0, abs=1e-6)
        for s in states:
            v = np.array(s["velocity"])
            axis = quat_to_matrix(s["orientation"]) @ nose
            angle = math.degrees(math.acos(np.clip(np.dot(axis, v / np.linalg.norm(v)), -1, 1)))
            # held after a 12" leg, it still points along its flight (no spin, no drift)
            assert angle < 0.5, (s["status"], angle)
        # and after the 45° tracking turn it points the new way
        (turned,) = [s for s in states if s["status"] == "flying" and s["turns_flown"] == 2]
        first = np.array(states[0]["velocity"])
        now = np.array(turned["velocity"])
        cos = np.dot(first, now) / np.linalg.norm(first) / np.linalg.norm(now)
        assert math.degrees(math.acos(cos)) == pytest.approx(45.0, abs=1.0)
    finally:
        g.close()
