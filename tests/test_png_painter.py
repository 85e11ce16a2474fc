"""``sandbox run`` draws its PNG in a thread of its own that got ready while the game played
(issue 26: :class:`sandbox.app.headless.PngPainter`): the picture is the one drawn in the
main thread byte for byte, and offscreen renderers in the main thread work before and after
it (a GL pipe shared between threads, or one that goes with its thread, breaks them)."""

from __future__ import annotations

import io

import numpy as np
from conftest import REPO
from PIL import Image

from sandbox.app.headless import PngPainter, render_game_png_bytes, run_scene
from sandbox.engine.game import Game
from sandbox.engine.scene import load_scene
from sandbox.render.offscreen import render_array
from sandbox.render.view import Camera, RenderBody, RenderMesh, SceneView

SCENE = REPO / "scenes" / "grenade_throw.toml"


def _view() -> SceneView:
    from sandbox.render.geometry import box_triangles

    v, n = box_triangles(np.array([-1.0, -1.0, 0.0]), np.array([1.0, 1.0, 1.5]))
    cols = np.tile(np.array([[0.2, 0.3, 0.9, 1.0]], np.float32), (len(v), 1))
    body = RenderBody(RenderMesh(v.astype(np.float32), n.astype(np.float32), cols),
                      np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0]), key="box")
    return SceneView(bodies=[body], battlefield=(8.0, 8.0),
                     camera=Camera.framing([-1, -1, 0], [1, 1, 1.5], aspect=4 / 3))


def test_painter_png_is_the_main_threads_and_main_thread_renders_still_work(ldrawdir):
    before = render_array(_view(), 160, 120)
    spec, base = load_scene(SCENE)
    game = Game(spec, base, ldrawdir=ldrawdir)
    try:
        game.run()
        with PngPainter(320, 240) as painter:
            painter.draw(game)
            threaded = painter.png()
        main = render_game_png_bytes(game, 320, 240)
        with PngPainter(320, 240) as painter:  # the thread is used again
            painter.draw(game)
            again = painter.png()
    finally:
        game.close()
    assert threaded == main == again
    picture = np.asarray(Image.open(io.BytesIO(threaded)))
    assert picture.shape == (240, 320, 3) and picture.std() > 5  # a real picture
    after = render_array(_view(), 160, 120)
    assert np.array_equal(before, after)


def test_a_painter_left_without_a_picture_stops_and_the_next_one_draws(tmp_path, ldrawdir):
    with PngPainter(160, 120):
        pass  # a run that failed before its picture
    res = run_scene(SCENE, tmp_path / "out", ldrawdir=ldrawdir)
    assert res.png_path is not None and res.png_path.stat().st_size > 1000
    assert Image.open(res.png_path).size == (960, 720)
