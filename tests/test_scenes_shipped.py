"""Every shipped scene runs headless, meets its [expect] table, and re-simulates exactly.

Also the picture check of the main job: the default scene and the King's Castle gatehouse are
rendered before and after The Big Drop and compared with small golden images (RMS tolerance).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import REPO
from imaging import assert_matches_golden

from sandbox.app.headless import run_scene, verify_replay
from sandbox.engine.game import Game
from sandbox.engine.replay import load_replay
from sandbox.engine.scene import load_scene
from sandbox.render.from_game import scene_view
from sandbox.render.offscreen import OffscreenRenderer

SCENES = sorted((REPO / "scenes").glob("*.toml"))


def test_every_scene_is_listed_in_the_readme():
    readme = (REPO / "README.md").read_text()
    missing = [p.name for p in SCENES if p.name not in readme]
    assert not missing, f"scenes not described in README.md: {missing}"


@pytest.mark.parametrize("scene", SCENES, ids=[p.stem for p in SCENES])
def test_shipped_scene_runs_meets_expectations_and_verifies(scene, tmp_path, ldrawdir):
    res = run_scene(scene, out_dir=tmp_path, ldrawdir=ldrawdir, png=False)
    assert res.expectation_failures == []
    assert any(e["type"] == "end" for e in res.game.events)
    report = verify_replay(load_replay(res.replay_path), ldrawdir=ldrawdir)
    assert report["ok"], report


def _render(game: Game, renderer: OffscreenRenderer, poses) -> np.ndarray:
    bf = game.spec.battlefield
    destroyed = [k for k, s in game.bodies.items() if s.damage.destroyed]
    view = scene_view(game.assets, poses, (bf.width, bf.depth), bf.ground_colour,
                      destroyed=destroyed, aspect=renderer.width / renderer.height)
    return renderer.render(view)[..., :3]


@pytest.mark.parametrize("scene_name", ["big_drop_guard_tower", "big_drop_kings_castle"])
def test_before_and_after_pictures(scene_name, tmp_path, ldrawdir):
    spec, base = load_scene(REPO / "scenes" / f"{scene_name}.toml")
    game = Game(spec, base, ldrawdir=ldrawdir)
    try:
        with OffscreenRenderer(320, 240) as renderer:
            renderer_backend = renderer.backend
            before = _render(game, renderer, game.final_poses())
            game.play_turns()
            after = _render(game, renderer, game.final_poses())
    finally:
        game.close()
    # The drop changed the picture (something landed, or a body is scorched).
    assert np.abs(after.astype(int) - before.astype(int)).mean() > 0.02
    assert_matches_golden(before, f"{scene_name}_before", renderer_backend)
    assert_matches_golden(after, f"{scene_name}_after", renderer_backend)
