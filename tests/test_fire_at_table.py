"""A burning minifig at the table (BrikWars 8.3 Catching On Fire): -1d4 to Action Rolls, one
Hand at most, stop-drop-and-roll as an Action, and the mandatory run at the end of his turn."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

from sandbox.core.dice import DiceExpression
from sandbox.core.errors import RulesError
from sandbox.engine.game import Game
from sandbox.engine.scene import scene_from_dict

REPO = Path(__file__).resolve().parents[1]
LK = "Lion Knights"


def _burning_knight(forced=None) -> Game:
    data = tomllib.loads((REPO / "scenes" / "skirmish.toml").read_text())
    data["forced_dice"] = forced or {}
    g = Game(scene_from_dict(data), REPO / "scenes")
    g.hazards.fire.ignite("knight1", DiceExpression.parse("1d4 Fire").roll(g.dice.stream("fire")))
    assert g.hazards.fire.burning("knight1")
    return g


def test_a_burning_minifig_uses_one_hand_at_most():
    """8.3: "limited to using one of his two Hands at most": no two-handed Bastard Gun."""
    with _burning_knight() as g:
        pv = g.skirmish.attack_preview("knight1", 0, "falcon1")
        assert not pv.allowed and "can use only one Hand" in pv.reason
        with pytest.raises(RulesError, match="one Hand"):
            g.apply({"type": "attack", "player": LK, "unit": "knight1", "target": "falcon1"})


def test_stop_drop_and_roll_puts_the_fire_out_and_disrupts():
    """8.3: "spending an Action to stop, drop and roll ... and Disrupt himself"."""
    with _burning_knight() as g:
        g.apply({"type": "stop_drop_roll", "player": LK, "unit": "knight1"})
        assert not g.hazards.fire.burning("knight1")
        assert g.bodies["knight1"].damage.disrupted
        assert "knight1" in g.skirmish.turn_state.acted
        with pytest.raises(RulesError, match="not a burning minifig"):
            g.apply({"type": "stop_drop_roll", "player": LK, "unit": "knight2"})


def test_a_minifig_still_burning_at_the_end_of_his_turn_runs_every_inch_left():
    """8.3: "if he's still burning at the end of his turn and has unused inches of Move
    remaining, it's mandatory that he uses up every last inch by running": here 2" moved of 5",
    so 3" run in the direction of the d8 (a 1: east, +X)."""
    with _burning_knight({"fire": [3, 1]}) as g:
        c0 = g.footprint_centre("knight1")
        g.apply({"type": "move", "player": LK, "unit": "knight1", "to": [c0[0], c0[1] + 2.0]})
        c1 = g.footprint_centre("knight1")
        g.end_turn()
        c2 = g.footprint_centre("knight1")
        run = [e for e in g.events if e["type"] == "pushed" and e["body"] == "knight1"]
        assert len(run) == 1 and run[0]["hazard_in"] == pytest.approx(3.0, abs=0.05)
        assert c2[0] - c1[0] == pytest.approx(3.0, abs=0.4)
        assert abs(c2[1] - c1[1]) < 0.4 and np.isfinite(c2).all()


def _scene(extra: dict, forced: dict | None = None) -> Game:
    data = {"name": "power", "seed": 1, "battlefield": {"width": 24, "depth": 16},
            "players": [{"name": "Red"}, {"name": "Blue"}], "forced_dice": forced or {}}
    data.update(extra)
    return Game(scene_from_dict(data), REPO)


def _brick(z=0.0):
    return {"part": "3001", "colour": 4, "position": [0, 0, z]}


def test_a_burning_creation_loses_an_inch_of_power_per_inch_of_fire():
    """F.1: "a four inch wooden golem burning with a three inch fire would have its Power
    limit reduced from eight weapon inches to five"."""
    with _scene({"creations": [{"id": "golem", "owner": "Red", "position": [0, 0, 0],
                                "parts": [_brick()],
                                "stats": {"size": 4, "armor": 30, "weight_class": 1,
                                          "move": 0, "power": 8}}]},
                {"fire": [3]}) as g:
        assert g.defences.power_left("golem") == 8
        g.hazards.fire.ignite("golem", DiceExpression.parse("1d4 Fire").roll(
            g.dice.stream("fire")))
        size = g.hazards.fire.fire_size("golem")
        assert size >= 1 and g.defences.power_left("golem") == 8 - size


def test_exposure_damage_overloads_a_powered_unit():
    """F.1: "Every die of Exposure Damage costs its victim one inch of Power as if it had fired
    an inch worth of weapons": a 2d6 grill takes 2" of the droid's 4"."""
    with _scene({"units": [{"id": "droid", "owner": "Red", "position": [0, 0, 0],
                            "parts": [_brick()],
                            "stats": {"size": 1, "armor": 30, "move": 0, "power": 4,
                                      "flammable": False}}],
                 "fields": [{"id": "grill", "hazard": "exposure", "size": 4, "dice": "2d6",
                             "centre": [0, 0]}]}, {"hazard": [2, 3]}) as g:
        # turn 1 began when the game was built: the droid stood in the grill
        assert any(e["type"] == "exposure" and e["body"] == "droid" for e in g.events)
        assert g.defences.power_left("droid") == pytest.approx(2.0)
