"""The tabletop draws Field Hazard areas, but a hidden one only once it was revealed (F.3)."""

from __future__ import annotations

import tomllib

from conftest import REPO

from sandbox.engine.game import Game
from sandbox.engine.scene import scene_from_dict
from sandbox.render.hazard_markers import hazard_markers
from sandbox.render.view import MarkerKind


def _rings(markers):
    return [m for m in markers if m.kind is MarkerKind.RING]


def test_hidden_field_is_drawn_for_the_referee_and_for_a_player_only_once_revealed():
    data = tomllib.loads((REPO / "scenes" / "minefield.toml").read_text())
    data["fields"][0]["hidden"] = True
    data.pop("actions", None)
    data.pop("expect", None)
    for u in data.get("units", []):  # no Scout Tracks it at the start of turn 1 (F.3)
        u.get("stats", {}).pop("scout", None)
    game = Game(scene_from_dict(data), REPO / "scenes")
    try:
        game.hazards.setup()  # the scene's Fields are placed (idempotent)
        player = data["players"][0]["name"]
        assert len(_rings(hazard_markers(game))) == 1  # the headless picture shows everything
        assert _rings(hazard_markers(game, viewer=player)) == []  # concealed from the player
        game.hazards.revealed["mines"] = [player]  # a Scout spotted it (F.3 Tracking)
        assert len(_rings(hazard_markers(game, viewer=player))) == 1
    finally:
        game.close()
