"""Power and Manning Guns at the table (BrikWars 8.1 Power Limits, Gathering Power, Turrets,
Hand-Held Weapons, Compensating; 8.5 Firing Weapons, Controls, Gunnery, Gunnery Support, Homing
In), each through the engine API (``open_game`` / ``apply``) with forced dice, the preview
showing every modifier before the roll."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import numpy as np
import pytest

from sandbox.core.errors import RulesError
from sandbox.engine.game import Game
from sandbox.engine.scene import scene_from_dict
from sandbox.games.brikwars.commands import BrikWarsCommands
from sandbox.games.brikwars.manning import TURRET_TILT_RAD, tilt_between

REPO = Path(__file__).resolve().parents[1]
IL, RR = "Iron Legion", "Red Raiders"


def _game(forced: dict | None = None, edit=None, walker: bool = False) -> Game:
    """The MachineGun nest without its script (and without the walker unless asked: a faster
    build); ``edit(data)`` changes the scene first."""
    data = tomllib.loads((REPO / "scenes" / "machinegun_nest.toml").read_text())
    data["actions"] = []
    if not walker:
        data["creations"] = [c for c in data["creations"] if c["id"] != "walker"]
    data.pop("expect", None)
    data["forced_dice"] = forced or {}
    if edit is not None:
        edit(data)
    return Game(scene_from_dict(data), REPO / "scenes")


def _entry(data, key):
    return next(e for e in data["creations"] + data["units"] if e["id"] == key)


def _attack(g, player, unit, target, weapon=0, **kw):
    g.apply({"type": "attack", "player": player, "unit": unit, "weapon": weapon,
             "target": target, **kw})


def _rolls(g, n0):
    return [e for e in g.events[n0:] if e["type"] == "action_roll"]


def _walker_weapons(*weapons):
    def edit(data):
        _entry(data, "walker")["stats"]["weapons"] = list(weapons)
    return edit


STINGER = {"type": "Gun", "size": 5, "name": "BioStinger"}
CLAW = {"type": "Gun", "size": 1, "name": "Claw Blade"}


def test_power_limits_refuse_weapons_past_twice_the_effective_size():
    """BrikWars 8.1, Power Limits (the Scorpiosaurus Rex example): a Size 3" Creation has 6" of
    Power a turn; it fires the 5" stinger and one 1" claw, but not the second claw (7" > 6");
    the stat card shows Power used and left, and the next turn it has its 6" again."""
    with _game({"attack": [2] * 10}, _walker_weapons(STINGER, CLAW, CLAW), walker=True) as g:
        g.end_turn()  # the Red Raiders' part of turn 1
        assert 'Power 6" a turn: used 0", left 6"' in g.skirmish.stat_card("walker")
        pv = g.skirmish.attack_preview("walker", 0, "raider1")
        assert pv.allowed and any('Power: 5" of 6"' in n for n in pv.notes)
        assert any('Power: 5" of 6"' in line for line in pv.lines())  # before the roll
        _attack(g, RR, "walker", "raider1", 0)
        _attack(g, RR, "walker", "raider1", 1)
        assert 'Power 6" a turn: used 6", left 0"' in g.skirmish.stat_card("walker")
        n = len(g.events)
        with pytest.raises(RulesError, match=r'has 6" of Power this turn .*used 6".*needs 1"'):
            _attack(g, RR, "walker", "raider1", 2)
        assert len(g.events) == n  # refused: nothing rolled, nothing logged
        g.end_turn()
        g.end_turn()
        _attack(g, RR, "walker", "raider1", 1)
        _attack(g, RR, "walker", "raider1", 2)  # 1" + 1" of a fresh 6"


def test_weapons_fired_in_one_turn_go_at_one_target_with_one_attack_type():
    """BrikWars 8.5, Firing Weapons: the attacker "chooses a single target ... and may fire any
    number of weapons at it of a single attack type ... up to his Power limit"; and Controls:
    each player's forces fire a given weapon only once per turn."""
    with _game({"attack": [2] * 10}, _walker_weapons(CLAW, CLAW), walker=True) as g:
        g.end_turn()
        _attack(g, RR, "walker", "turret", 0)
        with pytest.raises(RulesError, match="single target with one attack type"):
            _attack(g, RR, "walker", "sandbags", 1)
        with pytest.raises(RulesError, match="only once a turn"):
            _attack(g, RR, "walker", "turret", 0)
        _attack(g, RR, "walker", "turret", 1)


def test_divert_all_power_saves_power_for_one_activation_next_turn():
    """BrikWars 8.1, Divert All Power: a Too Big weapon (5" on a Size 2" Creation: 4" of Power)
    is refused; Diverting All Power is a Full Round Action (no move, no weapon that turn); on
    the following turn the saved Power is added for a single weapon activation (read: the only
    one that turn), and afterwards the Creation is back to its regular limit."""
    def edit(data):
        _walker_weapons(STINGER, CLAW)(data)
        _entry(data, "walker")["stats"]["size"] = 2.0
    with _game({"attack": [2] * 10}, edit, walker=True) as g:
        g.end_turn()
        pv = g.skirmish.attack_preview("walker", 0, "raider1")
        assert not pv.allowed and "Too Big: Divert All Power" in pv.reason
        g.apply({"type": "divert_power", "player": RR, "unit": "walker"})
        assert g.events[-1]["type"] == "divert_power" and g.events[-1]["saved"] == 4.0
        with pytest.raises(RulesError, match="Diverting All Power"):
            g.apply({"type": "move", "player": RR, "unit": "walker", "to": [5.0, 0.0]})
        with pytest.raises(RulesError, match="Diverting All Power"):
            _attack(g, RR, "walker", "raider1", 1)
        g.end_turn()
        g.end_turn()
        pv = g.skirmish.attack_preview("walker", 0, "raider1")
        assert pv.allowed and any('+4" saved by Diverting' in n for n in pv.notes)
        assert any("saved for one weapon" in line for line in g.skirmish.stat_card("walker"))
        _attack(g, RR, "walker", "raider1", 0)
        assert "saved by Diverting" in [e for e in g.events if e["type"] == "power"][-1]["text"]
        with pytest.raises(RulesError, match="Power"):
            _attack(g, RR, "walker", "raider1", 1)  # the saved Power went to one activation
        g.end_turn()
        g.end_turn()
        assert not g.skirmish.attack_preview("walker", 0, "raider1").allowed  # back to 4"


def test_a_turret_is_set_up_fires_next_turn_and_needs_setting_up_when_knocked_over():
    """BrikWars 8.1, Turrets: a minifig spends an Action to Set Up the Turret; it fires from the
    following turn; a Turret knocked over (read from the physics body's tilt) must be Set Up
    again; a manually operated Small Turret's weapon needs no Power."""
    with _game({"attack": [2] * 20}) as g:
        pv = g.skirmish.attack_preview("turret", 0, "raider1", gunner="brass")
        assert not pv.allowed and "not Set Up" in pv.reason
        with pytest.raises(RulesError, match="choose a gunner"):
            _attack(g, IL, "turret", "raider1")
        g.apply({"type": "set_up_turret", "player": IL, "unit": "brass", "turret": "turret"})
        with pytest.raises(RulesError, match="Set Up this turn"):
            _attack(g, IL, "turret", "raider1", gunner="cog")
        g.end_turn()
        g.end_turn()
        pv = g.skirmish.attack_preview("turret", 0, "raider1", gunner="brass")
        assert pv.allowed and any("needs no Power" in n for n in pv.notes)
        _attack(g, IL, "turret", "raider1", gunner="brass")
        assert "brass" in g.skirmish.turn_state.acted  # the gunner's Action is spent
        # knock the Turret over: lay it on its side
        pos, quat = g.world.pose("turret")
        tip = np.array([math.sin(math.pi / 4), 0.0, 0.0, math.cos(math.pi / 4)])
        from sandbox.core.transforms import quat_mul
        g.world.set_pose("turret", np.asarray(pos) + [0, 0, 0.4], quat_mul(tip, quat))
        g.settle(max_seconds=1.0, quiet=True)
        assert tilt_between(quat, g.world.pose("turret")[1]) > TURRET_TILT_RAD
        g.end_turn()
        g.end_turn()
        assert any(e["type"] == "turret" and e["set_up"] is False for e in g.events)
        pv = g.skirmish.attack_preview("turret", 0, "raider1", gunner="brass")
        assert not pv.allowed and "not Set Up" in pv.reason
        assert g.measure("cog", "turret").inches <= 1.0  # Cog reaches the fallen Turret
        g.apply({"type": "set_up_turret", "player": IL, "unit": "cog", "turret": "turret"})
        assert tilt_between(g.manning.upright["turret"], g.world.pose("turret")[1]) < 0.2


def test_gunnery_die_support_and_the_team_limit():
    """BrikWars 8.5, Gunnery and Gunnery Support: a Gunner at a mounted weapon's Controls rolls
    his Specialty die; each Supporting Gunner adds +1, but the firing team may not outnumber
    the Weapon Size in inches (2 for the Size 2" MachineGun), and each must reach the weapon."""
    def edit(data):
        data["units"].append({**_entry(data, "cog"), "id": "pip", "name": "Private Pip",
                              "position": [-6.0, 0.9, 0.0]})
        data["units"].append({**_entry(data, "cog"), "id": "far", "name": "Private Far",
                              "position": [-10.0, 4.0, 0.0]})
    with _game({"attack": [2, 3]}, edit) as g:
        g.apply({"type": "set_up_turret", "player": IL, "unit": "brass", "turret": "turret"})
        g.end_turn()
        g.end_turn()
        with pytest.raises(RulesError, match="cannot reach"):
            g.apply({"type": "gunnery_support", "player": IL, "unit": "far", "mount": "turret"})
        g.apply({"type": "gunnery_support", "player": IL, "unit": "cog", "mount": "turret"})
        with pytest.raises(RulesError, match="firing team of 3 is larger than the Weapon Size"):
            g.apply({"type": "gunnery_support", "player": IL, "unit": "pip", "mount": "turret"})
        pv = g.skirmish.attack_preview("turret", 0, "raider1", gunner="brass")
        assert pv.action_die == 8 and "Action Roll: d8" in pv.lines()
        assert ("Gunnery Support (Homing In) +1", 1) in [(m.source, m.action)
                                                          for m in pv.modifiers]
        n = len(g.events)
        _attack(g, IL, "turret", "raider1", gunner="brass")
        roll = next(e for e in g.events[n:] if e["type"] == "roll")
        assert roll["sides"] == 8  # Gunnery: the Specialty d8, not the Action d6
        assert _rolls(g, n)[0]["total"] == 3  # 2 + 1 Support


def test_homing_in_accumulates_and_a_critical_failure_cancels_it():
    """BrikWars 8.5, Homing In: while the weapon keeps firing at the same point and neither
    moves, new Gunnery Support adds to the previous turns' (+1, then +2); any Critical Failure
    cancels the bonus and the Gunners start over; aiming elsewhere starts over too."""
    with _game({"attack": [2, 1, 2]}) as g:
        g.apply({"type": "set_up_turret", "player": IL, "unit": "brass", "turret": "turret"})
        for turn_bonus in (1, 2):
            g.end_turn()
            g.end_turn()
            g.apply({"type": "gunnery_support", "player": IL, "unit": "cog",
                     "mount": "turret"})
            pv = g.skirmish.attack_preview("turret", 0, "raider1", gunner="brass")
            assert f"Gunnery Support (Homing In) +{turn_bonus}" in [m.source
                                                                    for m in pv.modifiers]
            _attack(g, IL, "turret", "raider1", gunner="brass")
        # the second shot rolled a natural 1: a Critical Failure
        assert any(e["type"] == "homing_in" for e in g.events)
        assert g.manning.homing["turret#0"].bonus == 0
        g.end_turn()
        g.end_turn()
        pv = g.skirmish.attack_preview("turret", 0, "raider1", gunner="brass")
        assert not any("Homing In" in m.source for m in pv.modifiers)
        assert g.manning.best_homing["turret#0"] == 2


def test_homing_in_starts_over_when_the_target_moves():
    """BrikWars 8.5: the bonus is permanent "until the Weapon moves or aims somewhere else"."""
    with _game({"attack": [2, 2]}) as g:
        g.apply({"type": "set_up_turret", "player": IL, "unit": "brass", "turret": "turret"})
        g.end_turn()
        g.end_turn()
        g.apply({"type": "gunnery_support", "player": IL, "unit": "cog", "mount": "turret"})
        _attack(g, IL, "turret", "raider1", gunner="brass")
        g.end_turn()
        # the raider steps aside on his turn
        c = g.footprint_centre("raider1")
        g.apply({"type": "move", "player": RR, "unit": "raider1",
                 "to": [float(c[0]) + 1.0, float(c[1])]})
        g.end_turn()
        pv = g.skirmish.attack_preview("turret", 0, "raider1", gunner="brass")
        assert not any("Homing In" in m.source for m in pv.modifiers)


def test_compensating_lets_a_heavy_standing_still_hold_a_2_inch_machinegun():
    """BrikWars 8.1, Compensating and Hand-Held Weapons: a Size 2" Ranged weapon is Long for a
    minifig (Not Allowed); a Heavy standing still holds it as a Long-Ranged Weapon, but not on
    a turn he moved, and having Compensated he may not move afterwards."""
    def edit(data):
        mg = {"type": "MachineGun", "size": 2, "name": "Heavy's MachineGun"}
        _entry(data, "cog")["stats"]["weapons"] = [mg]
        _entry(data, "brass")["stats"]["weapons"] = [mg]
        _entry(data, "brass")["stats"]["specialties"] = ["Heavy"]
        _entry(data, "brass")["position"] = [-7.0, -3.0, 0.0]  # clear of the Turret
    with _game({"attack": [2] * 6}, edit) as g:
        pv = g.skirmish.attack_preview("cog", 0, "raider2")
        assert not pv.allowed and "Not Allowed (8.1 Hand-Held Weapons)" in pv.reason
        pv = g.skirmish.attack_preview("brass", 0, "raider2")
        assert pv.allowed and any("Long-Ranged Weapon (Compensating" in n for n in pv.notes)
        _attack(g, IL, "brass", "raider2")
        c = g.footprint_centre("brass")
        with pytest.raises(RulesError, match="fired Compensating this turn"):
            g.apply({"type": "move", "player": IL, "unit": "brass",
                     "to": [float(c[0]) - 1.0, float(c[1])]})
        g.end_turn()
        g.end_turn()
        g.apply({"type": "move", "player": IL, "unit": "brass",
                 "to": [float(c[0]) - 1.0, float(c[1])]})
        pv = g.skirmish.attack_preview("brass", 0, "raider2")
        assert not pv.allowed and "has not moved" in pv.reason


@pytest.mark.parametrize("size, ok, held", [
    (1, True, "Hand Weapon"), (2, True, "Two-Handed Weapon"), (3, False, "Not Allowed"),
])
def test_hand_held_melee_categories(size, ok, held):
    """BrikWars 8.1, Hand-Held Weapons: up to 1x the holder's Size a Hand Weapon, up to 1.5x a
    Heavy Weapon, up to 2x a Two-Handed Weapon; larger is Not Allowed."""
    def edit(data):
        _entry(data, "cog")["stats"]["weapons"] = [{"type": "Melee Weapon", "size": size}]
        _entry(data, "cog")["position"] = [0.3, 1.5, 0.0]
    with _game({"attack": [2] * 4}, edit) as g:
        pv = g.skirmish.attack_preview("cog", 0, "raider1")
        assert pv.allowed is ok
        assert held in (" ".join(pv.notes) if ok else pv.reason)


def test_a_burning_minifig_cannot_swing_a_two_handed_weapon():
    """BrikWars 8.1 Hand-Held (Long: Two-Handed) with 8.3: a burning minifig uses one Hand."""
    def edit(data):
        _entry(data, "cog")["stats"]["weapons"] = [{"type": "Melee Weapon", "size": 2}]
        _entry(data, "cog")["stats"]["armor"] = 30  # burns, is not destroyed
        _entry(data, "cog")["position"] = [0.3, 1.5, 0.0]
    with _game({"fire": [3]}, edit) as g:
        g.apply({"type": "ignite", "player": IL, "target": "cog"}, by="referee")  # a torch
        assert g.hazards.fire.burning("cog")
        pv = g.skirmish.attack_preview("cog", 0, "raider1")
        assert not pv.allowed and "only one Hand" in pv.reason


def test_interfere_from_another_set_of_controls():
    """BrikWars 8.5, Controls: a unit at one set of Controls spends an Action to Interfere; the
    attack from another set takes his Action roll as a penalty (shown before the roll)."""
    def edit(data):
        _entry(data, "turret")["stats"]["weapons"][0]["controls"] = ["console"]
        data["creations"].append({"id": "console", "name": "remote console", "fixed": True,
                                  "position": [-2.0, 5.0, 0.0],
                                  "stats": {"size": 1.0, "armor": 4, "move": 0.0},
                                  "parts": [{"part": "3003", "colour": 71}]})
        _entry(data, "raider1")["position"] = [-2.0, 4.0, 0.0]
    with _game({"attack": [5], "interfere": [3]}, edit) as g:
        g.apply({"type": "set_up_turret", "player": IL, "unit": "brass", "turret": "turret"})
        g.end_turn()
        g.apply({"type": "interfere", "player": RR, "unit": "raider1", "mount": "turret"})
        with pytest.raises(RulesError, match="cannot reach"):
            g.apply({"type": "interfere", "player": RR, "unit": "raider2", "mount": "turret"})
        g.end_turn()
        pv = g.skirmish.attack_preview("turret", 0, "raider2", gunner="brass")
        assert any("Interfered by Raider Rusk at remote console: -1d6" in line
                   for line in pv.lines())
        n = len(g.events)
        _attack(g, IL, "turret", "raider2", gunner="brass")
        ev = next(e for e in g.events[n:] if e["type"] == "interfere")
        assert ev["penalty"] == -3
        assert _rolls(g, n)[0]["total"] == 2  # 5 - 3: a miss


def test_scripted_flamethrower_sweeps_every_body_in_its_arc():
    """BrikWars 8.3 Arc Fire: the scene script's ``flamethrower`` attacks every target in the
    Arc (the same sweep as the table's, game/arcs.py), not only the one it names."""
    data = tomllib.loads((REPO / "scenes" / "skirmish.toml").read_text())
    for key, pos in {"knight1": [-2.0, -3.0, 0.0], "falcon1": [2.5, -3.0, 0.0],
                     "falcon2": [2.5, -3.9, 0.0]}.items():
        next(u for u in data["units"] if u["id"] == key)["position"] = pos
    data["forced_dice"] = {"attack": [6, 3, 2, 2, 6, 3, 2, 2]}
    with Game(scene_from_dict(data), REPO / "scenes", referee=True) as g:  # a referee's tool
        g.apply({"type": "flamethrower", "player": "Lion Knights", "attacker": "knight1",
                 "target": "falcon1", "size": 1, "arc": 2})
        ev = next(e for e in g.events if e["type"] == "action" and "swept" in e)
        assert {"falcon1", "falcon2"} <= set(ev["swept"])
        rolled = " ".join(e["text"] for e in g.events if e["type"] == "roll")
        assert "Action Roll vs Black Hawk" in rolled and "Action Roll vs Raven" in rolled


def test_window_commands_build_the_manning_actions():
    """The window's keys (Shift+D/T/G/I) build the engine's actions; a Turret's weapon is
    manned by the nearest free Gunner (8.5)."""
    with _game({"attack": [2] * 4}, walker=True) as g:
        class App:
            session, selected = g, "brass"
        cmd = BrikWarsCommands(App())
        g.apply(cmd.set_up_turret("turret"))
        App.selected = "cog"
        g.end_turn()
        g.end_turn()
        g.apply(cmd.gunnery_support("turret", 0))
        a = cmd.attack("turret", 0, "raider1", None)
        assert a.gunner == "brass"
        g.apply(a)
        g.end_turn()
        App.selected = "walker"
        g.apply(cmd.divert_power())
        assert g.events[-1]["type"] == "divert_power"


def test_allies_do_not_each_operate_a_weapon_on_their_own_turns():
    """BrikWars 8.5, Controls: "a minifig can only Operate a system if none of his allies used
    the same system on their previous turn"; enemies who commandeer Controls use them at once.
    (A third player, the Iron Legion's ally on the scene's ``side``, with a Gunner at the nest.)"""
    def edit(data):
        data["players"].insert(1, {"name": "Steel Guard", "colour": 8, "side": "Allies"})
        data["players"][0]["side"] = "Allies"
        data["units"].append({**_entry(data, "cog"), "id": "ally", "name": "Corporal Ally",
                              "owner": "Steel Guard", "position": [-6.0, 0.9, 0.0]})
    with _game({"attack": [2] * 6}, edit) as g:
        assert g.players == [IL, "Steel Guard", RR]
        g.apply({"type": "set_up_turret", "player": IL, "unit": "brass", "turret": "turret"})
        g.end_turn()
        g.end_turn()
        g.end_turn()
        _attack(g, IL, "turret", "raider1", gunner="brass")  # turn 2
        g.end_turn()
        pv = g.skirmish.attack_preview("turret", 0, "raider1", gunner="ally")
        assert not pv.allowed and "ally Iron Legion used the Heavy MachineGun" in pv.reason
        g.end_turn()
        g.end_turn()
        g.end_turn()  # turn 3: the Iron Legion leaves the gun alone
        _attack(g, "Steel Guard", "turret", "raider1", gunner="ally")


GUN2 = {"type": "Gun", "size": 2}


def test_a_fire_cuts_the_power_limit_and_a_power_stat_is_shared_with_shields():
    """BrikWars F.1 with 8.1: a burning Creation's Power limit drops an inch per inch of its
    Fire ("reduced from eight weapon inches to five"); a scene ``power`` stat is the one pool
    Energy Shields, Fields and weapons spend (F.1 Overload: "as if it had fired")."""
    def edit(data):
        _walker_weapons(GUN2, GUN2, GUN2)(data)
        _entry(data, "walker")["stats"]["weight_class"] = 1
        _entry(data, "walker")["stats"]["armor"] = 40
    with _game({"attack": [2] * 6, "fire": [3]}, edit, walker=True) as g:
        g.end_turn()
        g.apply({"type": "ignite", "player": RR, "target": "walker"}, by="referee")
        cut = g.hazards.fire.fire_size("walker")
        assert cut >= 1
        assert g.manning.power_limit_in("walker") == 6 - cut
        _attack(g, RR, "walker", "turret", 0)
        with pytest.raises(RulesError, match=f'has {6 - cut:g}" of Power'):
            for i in (1, 2):
                _attack(g, RR, "walker", "turret", i)

    def tracked(data):
        _walker_weapons(GUN2, GUN2)(data)
        _entry(data, "walker")["stats"]["power"] = 3.0
    with _game({"attack": [2] * 4}, tracked, walker=True) as g:
        g.end_turn()
        _attack(g, RR, "walker", "turret", 0)
        assert g.defences.power_left("walker") == 1.0  # spent from the one pool
        with pytest.raises(RulesError, match='has 3" of Power this turn .*needs 2"'):
            _attack(g, RR, "walker", "turret", 1)


def test_a_machinegun_is_not_reloaded_and_fired_on_the_same_turn():
    """BrikWars 8.3 MachineGuns and Reloading: a jammed gun is Reloaded with one Action by
    "any minifig operating the weapon", "ready to use again on the following turn"; it "can't
    be Reloaded and fired on the same turn, even by multiple minifigs"."""
    with _game({"attack": [5, 2, 1, 2, 2, 2]}) as g:
        g.apply({"type": "set_up_turret", "player": IL, "unit": "brass", "turret": "turret"})
        g.end_turn()
        g.end_turn()
        _attack(g, IL, "turret", "raider1", gunner="brass", mode="burst", shots=3)
        assert "turret#0" in g.skirmish.inoperative
        with pytest.raises(RulesError, match="can't be Reloaded and fired on the same turn"):
            g.apply({"type": "reload_weapon", "player": IL, "unit": "turret", "gunner": "cog"})
        g.end_turn()
        g.end_turn()
        with pytest.raises(RulesError, match="give the gunner"):
            g.apply({"type": "reload_weapon", "player": IL, "unit": "turret"})
        g.apply({"type": "reload_weapon", "player": IL, "unit": "turret", "gunner": "cog"})
        assert g.events[-1]["text"].startswith("Private Cog Reloads the Heavy MachineGun")
        with pytest.raises(RulesError, match="fires again on the following turn"):
            _attack(g, IL, "turret", "raider1", gunner="brass")
        g.end_turn()
        g.end_turn()
        _attack(g, IL, "turret", "raider1", gunner="brass")


def test_a_moved_turret_is_set_up_again_and_a_flying_creation_has_half_power():
    """BrikWars 8.1: "If the Turret is moved ... then it must be Set Up all over again"; Power
    Limits: "Flying Creations have Power inches limited to their own Effective Size"."""
    def edit(data):
        _entry(data, "walker")["stats"]["flight"] = True
    with _game({}, edit, walker=True) as g:
        g.apply({"type": "set_up_turret", "player": IL, "unit": "brass", "turret": "turret"})
        pos, quat = g.world.pose("turret")
        g.world.set_pose("turret", np.asarray(pos) + [0.0, 0.6, 0.0], quat)  # slid 0.6"
        assert g.manning.turret_displaced("turret") == "moved"
        assert "was moved since it was Set Up" in g.manning.turret_status("turret")
        assert g.manning.power_limit_in("walker") == 6.0  # on the ground
        p, q = g.world.pose("walker")
        g.world.set_pose("walker", np.asarray(p) + [0.0, 0.0, 3.0], q)  # in the air
        assert g.manning.power_limit_in("walker") == 3.0
