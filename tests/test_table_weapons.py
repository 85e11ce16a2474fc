"""Automatic weapons at the table (BrikWars 8.3): single shots, Bursts, Arc Fire over every
target in the Arc, jams that need a Reload; through the engine's one ``attack`` action."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import pytest

from sandbox.core.errors import RulesError
from sandbox.engine.game import Game
from sandbox.engine.scene import scene_from_dict
from sandbox.games.brikwars.arcs import ARC_POINT_RAD, bodies_in_arc

REPO = Path(__file__).resolve().parents[1]
LK, BF = "Lion Knights", "Black Falcons"


def _game(weapon: dict, forced: dict | None = None, **positions) -> Game:
    data = tomllib.loads((REPO / "scenes" / "skirmish.toml").read_text())
    u = next(u for u in data["units"] if u["id"] == "knight1")
    u["stats"]["weapons"] = [weapon]
    for key, pos in positions.items():
        next(x for x in data["units"] if x["id"] == key)["position"] = pos
    data["forced_dice"] = forced or {}
    return Game(scene_from_dict(data), REPO / "scenes")


def _rolls(game, n0):
    return [e for e in game.events[n0:] if e["type"] == "action_roll"]


def test_a_machinegun_fires_a_single_shot_by_default_and_a_burst_when_asked():
    """8.3 MachineGuns: "Arc Fire, single-shot Ranged attacks, or multi-shot Bursts"; a Burst
    takes a cumulative -1 per intended shot."""
    with _game({"bastard": "AutoGun"}, {"attack": [6, 1, 6, 6, 6, 6, 6, 6]}) as g:
        pv = g.skirmish.attack_preview("knight1", 0, "falcon1")
        assert pv.mode == "single" and not pv.arc_points
        assert not any("Auto Penalty" in m.source for m in pv.modifiers)
        n = len(g.events)
        g.apply({"type": "attack", "player": LK, "unit": "knight1", "weapon": 0,
                 "target": "falcon1"})
        assert len(_rolls(g, n)) == 1
    with _game({"bastard": "AutoGun"}, {"attack": [5] * 12}) as g:
        pv = g.skirmish.attack_preview("knight1", 0, "falcon1", mode="burst", shots=3)
        assert ("Auto Penalty (Burst 3)", -3) in [(m.source, m.action) for m in pv.modifiers]
        n = len(g.events)
        g.apply({"type": "attack", "player": LK, "unit": "knight1", "weapon": 0,
                 "target": "falcon1", "mode": "burst", "shots": 3})
        assert len(_rolls(g, n)) == 3


def test_a_jammed_machinegun_is_inoperative_until_reloaded():
    """8.3: a natural roll below the Auto Penalty fires that last round and the gun is
    Inoperative until it is Reloaded (an Action)."""
    with _game({"bastard": "AutoGun"}, {"attack": [2, 6, 6, 6, 6, 6]}) as g:
        g.apply({"type": "attack", "player": LK, "unit": "knight1", "weapon": 0,
                 "target": "falcon1", "mode": "burst", "shots": 3})
        assert any(e["type"] == "jammed" for e in g.events)
        g.end_turn()
        g.end_turn()
        with pytest.raises(RulesError, match="Inoperative: Reload it first"):
            g.apply({"type": "attack", "player": LK, "unit": "knight1", "weapon": 0,
                     "target": "falcon1"})
        g.apply({"type": "reload_weapon", "player": LK, "unit": "knight1", "weapon": 0})
        with pytest.raises(RulesError, match="already used its Action"):
            g.apply({"type": "attack", "player": LK, "unit": "knight1", "weapon": 0,
                     "target": "falcon1"})
        g.end_turn()
        g.end_turn()
        g.apply({"type": "attack", "player": LK, "unit": "knight1", "weapon": 0,
                 "target": "falcon1"})  # fires again


def test_arc_fire_attacks_every_target_in_the_arc_in_order():
    """8.3 Arc Fire: "Every target within the attacker's Firing Arc receives a single attack";
    a ShotGun's fixed Arc of 1 sweeps Black Hawk and the Falcon beside him, not the one off to
    the side."""
    with _game({"bastard": "ShotGun"}, {"attack": [6] * 20},
               knight1=[-2.0, -3.0, 0.0], falcon1=[2.5, -3.0, 0.0],
               falcon2=[2.5, -3.9, 0.0]) as g:
        pv = g.skirmish.attack_preview("knight1", 0, "falcon1")
        assert pv.mode == "arc" and pv.arc_points == 1
        keys = [h.key for h in pv.arc_hits]
        assert "falcon1" in keys and "falcon2" in keys and "knight2" not in keys
        n = len(g.events)
        g.apply({"type": "attack", "player": LK, "unit": "knight1", "weapon": 0,
                 "target": "falcon1"})
        assert sorted(e["target"] for e in _rolls(g, n)) == sorted(keys)
        with pytest.raises(RulesError, match="fixed Firing Arc of 1"):
            g.skirmish.attack_preview("knight1", 0, "falcon1", mode="arc", arc=2)
        with pytest.raises(RulesError, match="only MachineGuns fire Bursts"):
            g.skirmish.attack_preview("knight1", 0, "falcon1", mode="burst", shots=2)


def test_a_large_target_cut_by_the_arc_counts_the_part_inside_and_spans_points():
    """8.3: "only consider the portion of the target within the Firing Arc"; a target spanning
    whole points of Arc suffers an extra attack for each (the 6" wall)."""
    with _game({"type": "FlameThrower", "size": 1}, knight2=[-3.5, 0.5, 0.0]) as g:
        hits = {h.key: h for h in bodies_in_arc(g, "knight2", "wall", 3, 10.0)}
        wall = hits["wall"]
        lo, hi = g.bounds("wall")
        assert wall.size_in <= g.bodies["wall"].stats.size + 1e-9
        assert wall.spanned >= 1  # the long wall fills at least one whole point of the Arc
        assert ARC_POINT_RAD == pytest.approx(math.radians(22.5))


@pytest.mark.parametrize("variant, layers, expected", [
    ("explosive", 0, 8), ("explosive", 1, 3), ("armor_piercing", 1, 8), ("explosive", 2, 0),
])
def test_explosion_damage_is_checked_against_deflection(variant, layers, expected):
    """8.4 with 3.3: each layer of Deflection cancels the highest Damage die; Armor Piercing
    d6es cancel layers (here an XSize 2 missile, dice forced to 5 and 3, 0.2" from a unit)."""
    data = tomllib.loads((REPO / "scenes" / "skirmish.toml").read_text())
    u = next(u for u in data["units"] if u["id"] == "falcon1")
    u["stats"]["deflection"] = layers
    u["stats"]["armor"] = 30  # the Damage is read from the log, nothing is destroyed
    data["forced_dice"] = {"explosion": [5, 3]}
    with Game(scene_from_dict(data), REPO / "scenes", referee=True) as g:  # a referee missile
        lo, hi = g.bounds("falcon1")
        g.apply({"type": "missile", "player": LK, "point": [float(hi[0]) + 0.2,
                 float((lo[1] + hi[1]) / 2), 0.5], "xsize": 2, "variant": variant})
        dmg = [e["damage"] for e in g.events if e["type"] == "damage" and e["body"] == "falcon1"]
        assert dmg[:1] == ([expected] if expected else [])


FIRING_ROWS = ["Melee Weapon", "Gun", "BlastGun", "MachineGun", "FlameThrower", "Rocket"]
REFUSED_ROWS = {"Melee Shield": "only Parries or Shoves", "Explosive": "fires Ammo or a Payload",
                "Cannon": "fires Ammo or a Payload", "Launcher": "fires Ammo or a Payload"}


@pytest.mark.parametrize("row", FIRING_ROWS + sorted(REFUSED_ROWS))
def test_every_weapon_row_of_the_table_at_the_table(row):
    """8.1: every row of the Weapons table is either fired at the table through the engine's
    one ``attack`` (preview first: every modifier before the roll) or refused with the rule's
    reason (Shields Parry or Shove; Explosives, Cannons and Launchers fire Payloads, 8.4)."""
    near = row in ("Melee Weapon", "Melee Shield")
    pos = {"knight1": [0.1, -3.0, 0.0], "falcon1": [0.95, -3.0, 0.0]} if near else \
        {"knight1": [-1.0, -3.0, 0.0]}
    with _game({"type": row, "size": 1}, **pos) as g:
        pv = g.skirmish.attack_preview("knight1", 0, "falcon1")
        assert pv.lines()[0].startswith(pv.weapon.name)
        if row in REFUSED_ROWS:
            assert not pv.allowed and REFUSED_ROWS[row] in pv.reason
            with pytest.raises(RulesError, match=REFUSED_ROWS[row]):
                g.apply({"type": "attack", "player": LK, "unit": "knight1",
                         "target": "falcon1"})
            return
        assert pv.allowed, pv.reason
        n = len(g.events)
        g.apply({"type": "attack", "player": LK, "unit": "knight1", "target": "falcon1"})
        kinds = {e["type"] for e in g.events[n:]}
        assert "attack" in kinds and ("action_roll" in kinds or "launch" in kinds)
