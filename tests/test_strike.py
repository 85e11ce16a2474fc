"""The table's one strike (games/brikwars/effects.py): every hit lands the same way.

BrikWars F.1, Catching Fire: "Units and objects that are on fire suffer a -1 penalty to their
Action rolls, and their Armor ratings both suffer a -1 penalty" (8.3 gives a burning minifig
-1d4: the sandbox reads both as -1d4, rolled on stream ``fire``). A burning unit hit by a
Skirmish gun rolled that Armor penalty; hit by a Weapon Trap's gun it did not. Both hits now
come through :func:`sandbox.games.brikwars.effects.strike`, with forced dice below.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sandbox.core.dice import DiceExpression
from sandbox.engine.actions import AttackAction, MoveAction
from sandbox.engine.game import Game
from sandbox.engine.scene import scene_from_dict
from sandbox.games.brikwars import effects
from sandbox.rules.weapons import weapon_profile

REPO = Path(__file__).resolve().parents[1]


def brick():
    return {"part": "3001", "colour": 4, "position": [0, 0, 0]}


def game(extra: dict, forced: dict) -> Game:
    data = {"name": "strike", "seed": 5, "battlefield": {"width": 24, "depth": 16},
            "players": [{"name": "Red"}, {"name": "Blue"}], "forced_dice": forced, **extra}
    return Game(scene_from_dict(data), REPO)


def burning_unit(owner: str, x: float) -> dict:
    # a 1" unit of bricks (a minifig by Size, 8.3), Armor 10 so that it survives the hit
    return {"id": "victim", "owner": owner, "position": [x, 0, 0], "parts": [brick()],
            "stats": {"size": 1, "armor": 10, "move": 5, "weight_class": 1}}


def set_alight(g: Game) -> None:
    g.hazards.fire.ignite("victim", DiceExpression.parse("1d4 Fire").roll(
        g.dice.stream("fire"), "test torch"))
    assert g.hazards.fire.burning("victim")


def armor_penalty_rolls(g: Game) -> list[dict]:
    return [e for e in g.events if e["type"] == "roll"
            and e["reason"].startswith("on Fire penalty to") and "Armor" in e["reason"]]


def hit_on_victim(g: Game) -> dict:
    return [e for e in g.events if e["type"] == "damage" and e["body"] == "victim"][-1]


def test_a_skirmish_gun_hit_on_a_burning_unit_rolls_the_on_fire_armor_penalty():
    # fire: the torch's 1d4 (3), then the on-Fire Armor penalty (2); attack: Action 5, Damage 4
    g = game({"units": [
        {"id": "gunner", "owner": "Red", "position": [-3, 0, 0], "parts": [brick()],
         "stats": {"size": 1, "armor": 4, "weapons": [{"type": "Gun", "size": 1}]}},
        burning_unit("Blue", 0.0)]}, {"fire": [3, 2], "attack": [5, 4]})
    try:
        set_alight(g)
        g.apply(AttackAction(type="attack", player="Red", unit="gunner", target="victim"))
        assert len(armor_penalty_rolls(g)) == 1
        hit = hit_on_victim(g)
        assert hit["damage"] == 4 and hit["armor"] == 8  # Armor 10, -2 on Fire (F.1)
        assert "Armor -2 on Fire" in hit["source"]
    finally:
        g.close()


def test_a_weapon_trap_gun_hit_on_a_burning_unit_rolls_the_same_penalty():
    # the victim walks onto a pressure plate; the Gun in the wall fires with the Trap's d4:
    # trap: Action 3 (Use 3), Damage 4; fire: the torch's 3, then the Armor penalty 2
    g = game({"units": [burning_unit("Red", -4.0)],
              "traps": [{"id": "plate", "trigger": "region", "centre": [0, 0], "radius": 0.6,
                         "effect": "weapon", "weapon": "Gun", "size": 1,
                         "position": [0, 3, 1]}]},
             {"fire": [3, 2], "trap": [3, 4]})
    try:
        set_alight(g)
        g.apply(MoveAction(type="move", player="Red", unit="victim", to=(0.0, 0.0)))
        shots = [e for e in g.events if e["type"] == "trap_attack"]
        assert len(shots) == 1 and shots[0]["hit"]
        assert len(armor_penalty_rolls(g)) == 1
        hit = hit_on_victim(g)
        assert hit["damage"] == 4 and hit["armor"] == 8  # the same F.1 penalty as the gun's
        assert "Armor -2 on Fire" in hit["source"]
    finally:
        g.close()


def test_on_hit_effects_are_weapon_data():
    gun = weapon_profile("Gun", 2)
    flamer = weapon_profile("FlameThrower", 1)
    assert not gun.ignites and flamer.ignites and gun.knocks_back and not gun.disrupts
    # a stunning Gun (weapon data only): its hit Disrupts, the one strike applies it
    g = game({"units": [burning_unit("Blue", 0.0)]}, {"damage": [1], "fire": [3]})
    try:
        roll = DiceExpression.parse("1d6").roll(g.dice.stream("damage"), "stun")
        effects.strike(g, g.bodies["victim"], roll, "a stun bolt",
                       weapon=replace(gun, name="Stun Gun", disrupts=True))
        assert g.bodies["victim"].damage.disrupted
        assert [e["text"] for e in g.events if e["type"] == "disrupted"] == [
            "victim is Disrupted by the Stun Gun (on hit)"]
        # a Fire weapon's hit sets the target alight; the plain Gun's does not
        assert not g.hazards.fire.burning("victim")
        fire = DiceExpression.parse("1d4 Fire").roll(g.dice.stream("fire"), "flames")
        effects.strike(g, g.bodies["victim"], fire, "flames", weapon=flamer)
        assert g.hazards.fire.burning("victim")
    finally:
        g.close()


def test_spend_action_is_the_one_record_of_a_units_action():
    g = game({"units": [burning_unit("Red", 0.0)]}, {})
    try:
        assert not effects.has_acted(g, "victim")
        effects.spend_action(g, "victim")
        assert effects.has_acted(g, "victim")
        assert "victim" in g.state_dict()["systems"]["skirmish"]["acted"]
    finally:
        g.close()
