"""Fire and Field Hazards in running games: spreading by physics distance, obstacles, water,
firefighting, flame markers and the shipped hazard scenes' logs (BrikWars F.1-F.3, 8.3)."""

from __future__ import annotations

import doctest
import importlib
import textwrap
from pathlib import Path

import numpy as np
import pytest

from sandbox.core.errors import SceneError
from sandbox.engine.game import Game
from sandbox.engine.scene import load_scene, scene_from_dict

REPO = Path(__file__).resolve().parents[1]

BRICKS = textwrap.dedent(
    """
    name = "hut and shed"
    seed = 5
    turns = {turns}
    [battlefield]
    width = 20
    depth = 12
    [[players]]
    name = "Red"
    [[creations]]
    id = "hut"
    stats = {{ size = 2, armor = 30, weight_class = 1, move = 0 }}
    parts = [ {{ part = "3001", colour = 6, position = [0, 0, 0] }},
              {{ part = "3001", colour = 6, position = [0, 0, 0.378] }} ]
    [[creations]]
    id = "shed"
    position = [{shed_x}, {shed_y}, 0]
    stats = {{ size = 2, armor = 30, weight_class = 1, move = 0 }}
    parts = [ {{ part = "3001", colour = 6, position = [0, 0, 0] }} ]
    {wall}
    [[fields]]
    id = "pond"
    hazard = "water"
    size = 2
    centre = [0, 6]
    [[actions]]
    type = "ignite"
    player = "Red"
    target = "hut"
    dice = "2d4 Fire"
    damage = false
    {extra}
    [forced_dice]
    fire = {fire}
    """
)

WALL = """
    [[creations]]
    id = "wall"
    position = [0, 0.55, 0]
    stats = { size = 2, armor = 30, weight_class = 9, move = 0, flammable = false }
    parts = [ { part = "3008", colour = 71, position = [0, 0, 0] },
              { part = "3008", colour = 71, position = [0, 0, 0.378] },
              { part = "3008", colour = 71, position = [0, 0, 0.756] } ]
"""


def play(text: str, tmp_path, ldrawdir=None) -> Game:
    p = tmp_path / "s.toml"
    p.write_text(text)
    spec, base = load_scene(p)
    g = Game(spec, base, ldrawdir=ldrawdir)
    g.run()
    return g


def test_fire_fills_a_body_then_jumps_to_a_neighbour_within_an_inch(tmp_path):
    # 2d4 Fire: 3, 4 -> a 2" Fire on the Size 2" hut; turn 2: 3, 4 -> no room: two spreads,
    # but only one neighbour (the shed, 0.37" away) -> one new 1" Fire there.
    g = play(BRICKS.format(turns=2, shed_x=1.0, shed_y=0, wall="", extra="", fire=[3, 4, 3, 4]),
             tmp_path)
    try:
        f = g.hazards.fire
        assert f.fire_size("hut") == 2 and f.fire_size("shed") == 1
        assert f.spread_count == 1 and f.grinding_damage("hut") == 2
        sites = [k for k, _, _ in f.flame_sites()]
        assert sites.count("hut") == 2 and sites.count("shed") == 1
        spread = [e for e in g.events if e["type"] == "spread"]
        assert spread and spread[0]["body"] == "shed" and spread[0]["turn"] == 2
    finally:
        g.close()


def test_no_spread_beyond_an_inch(tmp_path):
    g = play(BRICKS.format(turns=2, shed_x=3.0, shed_y=0, wall="", extra="", fire=[3, 4, 3, 4]),
             tmp_path)
    try:
        assert not g.hazards.fire.burning("shed") and g.hazards.fire.spread_count == 0
    finally:
        g.close()


def test_fire_does_not_pass_through_an_obstacle(tmp_path):
    # the shed stands beyond a non-flammable wall: close enough, but hidden behind it
    g = play(BRICKS.format(turns=2, shed_x=0.0, shed_y=1.1, wall=WALL, extra="",
                           fire=[3, 4, 3, 4]), tmp_path)
    try:
        assert not g.hazards.fire.burning("shed")
        assert any(e["type"] == "fire_blocked" and e["obstacle"] == "wall" for e in g.events)
    finally:
        g.close()


def test_firefighting_and_doctests(tmp_path):
    extra = """
    [[actions]]
    type = "extinguish"
    player = "Red"
    target = "hut"
    apparatus = 2
    """
    g = play(BRICKS.format(turns=1, shed_x=4.0, shed_y=0, wall="", extra=extra, fire=[3, 4]),
             tmp_path)
    try:
        assert not g.hazards.fire.burning("hut")
        assert any(e["type"] == "extinguish" and e["removed"] == 2 for e in g.events)
    finally:
        g.close()
    for name in ("sandbox.rules.fire_field", "sandbox.rules.hazards", "sandbox.physics.queries"):
        res = doctest.testmod(importlib.import_module(name))
        assert res.failed == 0 and res.attempted > 0


def test_bad_fields_are_scene_errors(tmp_path):
    text = BRICKS.format(turns=1, shed_x=4.0, shed_y=0, wall="", extra="", fire=[3, 4]).replace(
        'hazard = "water"', 'hazard = "exposure"\n    dice = "3d6"')
    with pytest.raises(SceneError, match="exceed"):
        play(text, tmp_path)
    with pytest.raises(SceneError, match="fields"):
        scene_from_dict({"fields": [{"id": "x", "hazard": "lava", "size": 2}]})


def test_boiler_mech_scene_follows_the_book(ldrawdir):
    spec, base = load_scene(REPO / "scenes" / "boiler_mech.toml")
    g = Game(spec, base, ldrawdir=ldrawdir)
    try:
        g.run()
        sizes = [e["size"] for e in g.events if e["type"] in ("fire", "burning")]
        assert sizes == [1, 2, 2, 4]
        assert [e["rolls"] for e in g.events if e["type"] == "burning"] == [[3], [1, 3], [3, 4]]
        assert g.hazards.fire.grinding_damage("mech") == 4
        assert any(e["type"] == "engulfed" and e["turn"] == 4 for e in g.events)
    finally:
        g.close()


def test_burning_creation_is_drawn_with_flames(tmp_path, ldrawdir):
    from sandbox.render.from_game import scene_view
    from sandbox.render.hazard_markers import hazard_markers
    from sandbox.render.offscreen import OffscreenRenderer
    from sandbox.render.view import MarkerKind

    spec, base = load_scene(REPO / "scenes" / "cottage_fire.toml")
    g = Game(spec, base, ldrawdir=ldrawdir)
    try:
        g.run()
        markers = hazard_markers(g)
        flames = [m for m in markers if m.kind is MarkerKind.FLAME]
        assert len(flames) == 3 * (3 + 1)   # 3" on the cottage + the burning peasant
        lo, hi = g.world.aabb("cottage")
        roof = [m for m in flames if lo[0] - 0.5 < m.points[0][0] < hi[0] + 0.5
                and lo[1] - 0.5 < m.points[0][1] < hi[1] + 0.5]
        assert roof and all(m.points[0][2] > hi[2] - 0.6 for m in roof)   # on the roof
        bf = spec.battlefield
        with OffscreenRenderer(320, 240) as r:
            args = (g.assets, g.final_poses(), (bf.width, bf.depth), bf.ground_colour)
            plain = r.render(scene_view(*args, aspect=4 / 3))[..., :3].astype(int)
            lit = r.render(scene_view(*args, markers=markers, aspect=4 / 3))[..., :3].astype(int)
        changed = np.abs(lit - plain).sum(axis=2) > 60
        orange = (lit[..., 0] > 200) & (lit[..., 1] > 60) & (lit[..., 1] < 200) & (lit[..., 2] < 90)
        assert changed.sum() > 200 and (orange & changed).sum() > 100
    finally:
        g.close()
