"""Every shipped scene without an LDraw library (no ``LDRAWDIR``), issue 29: the built-in
catalogue has every part the scenes and the project's models use, so nothing is drawn or
simulated as a placeholder box; a scene that names a model of the library itself says in one
line that it needs ``LDRAWDIR``."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import REPO

from sandbox.bricks.catalogue import catalogue_part
from sandbox.core.errors import SceneError
from sandbox.engine.game import Game
from sandbox.engine.scene import load_scene

SCENES = sorted((REPO / "scenes").glob("*.toml"))
#: Scenes whose script is long to simulate (seconds on a busy machine): built, not played.
BUILD_ONLY = {"wall_demolition"}


def _library_models(spec, base) -> list[str]:
    """Models the scene names that are not beside it: they come from ``LDRAWDIR``."""
    entries = list(spec.creations) + list(spec.units)
    return sorted({e.model for e in entries
                   if e.model is not None and not (base / e.model).is_file()})


def _placeholders(game: Game) -> list[str]:
    out = [w for w in game.warnings if "placeholder" in w or "missing part" in w]
    for key, asset in game.assets.items():
        if asset.model is not None:
            out += [f"{key}: {name}" for name, pm in asset.model.parts.items()
                    if pm.source != "catalogue"]
    return out


@pytest.mark.parametrize("scene", SCENES, ids=[p.stem for p in SCENES])
def test_scene_runs_without_a_library_and_without_placeholders(scene, monkeypatch):
    monkeypatch.delenv("LDRAWDIR", raising=False)
    spec, base = load_scene(scene)
    needs = _library_models(spec, base)
    if needs:
        with pytest.raises(SceneError, match="set LDRAWDIR") as err:
            Game(spec, base, ldrawdir=None)
        assert "\n" not in str(err.value) and needs[0] in str(err.value)
        return
    game = Game(spec, base, ldrawdir=None)
    try:
        assert _placeholders(game) == []
        if scene.stem not in BUILD_ONLY:
            game.play_script()
            assert _placeholders(game) == []
            assert any(e["type"] == "end" for e in game.events)
    finally:
        game.close()


def test_only_the_scenes_with_library_models_need_ldrawdir():
    needs = {p.stem for p in SCENES if _library_models(*load_scene(p))}
    assert needs == {"big_drop_kings_castle", "creation_close_combat", "machinegun_nest"}


def test_the_main_jobs_crate_is_a_real_2x6_brick(monkeypatch):
    """The supply crate of the README's main job (part 2456, Brick 2 x 6) lands as a brick of
    its real size and mass, not a 1 x 1 placeholder."""
    monkeypatch.delenv("LDRAWDIR", raising=False)
    spec, base = load_scene(REPO / "scenes" / "big_drop_guard_tower.toml")
    game = Game(spec, base, ldrawdir=None)
    try:
        game.play_script()
        crates = [a for a in game.assets.values() if a.model is not None
                  and [p.part for p in a.placements] == ["2456.dat"]]
        assert len(crates) == 1
        pm = crates[0].model.parts["2456.dat"]
        assert pm.source == "catalogue" and pm.title == "Brick  2 x  6"
        np.testing.assert_allclose(pm.bounds, [[-60, -4, -20], [60, 24, 20]])
        assert pm.mass_g == pytest.approx(catalogue_part("2456").mass_g) and pm.mass_g > 3.0
        assert _placeholders(game) == []
    finally:
        game.close()
