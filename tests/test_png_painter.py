"""``sandbox run`` draws its PNG in a process of its own that got ready while the game played
(issue 26: :class:`sandbox.app.headless.PngPainter`, :mod:`sandbox.render.png_process`): the
picture is the one drawn in this process byte for byte, offscreen renderers here work before
and after it, and the process's failures come back as one-line ``RenderError``s here, through
messages without pickle (a malformed one either way is a ``RenderError`` too)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from conftest import REPO
from PIL import Image

from sandbox.app.headless import PngPainter, render_game_png_bytes, run_scene
from sandbox.engine.game import Game
from sandbox.engine.scene import load_scene
from sandbox.render.offscreen import render_array
from sandbox.render.png_process import Painter, _send, answer_bytes, read_answer
from sandbox.render.view import Camera, RenderBody, RenderError, RenderMesh, SceneView
from sandbox.render.view_codec import view_to_bytes

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
        with PngPainter(320, 240) as painter:  # a second one in the same process
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


def test_the_process_draws_a_view_and_says_what_went_wrong():
    painter = Painter(160, 120, False)
    painter.draw(_view())
    assert Image.open(io.BytesIO(painter.png())).size == (160, 120)
    assert painter._proc.returncode == 0  # it ended after its picture
    bad = Painter(160, 120, False)
    bad.draw("not a view")
    with pytest.raises(RenderError, match="must be a SceneView, got str"):
        bad.png()  # not sent: refused here, as the child would
    assert bad._proc.returncode is not None  # and the child ended
    # a view the child refuses: its own error, raised here, on one line
    good = view_to_bytes(_view())
    with np.load(io.BytesIO(good), allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    text = arrays.pop("header").tobytes().replace(b'"fov_deg":40.0', b'"fov_deg":500', 1)
    buf = io.BytesIO()
    np.savez(buf, header=np.frombuffer(text, np.uint8), **arrays)
    odd = Painter(160, 120, False)
    _send(odd._proc.stdin, buf.getvalue())
    with pytest.raises(RenderError, match=r"^malformed view message: view.camera: camera "
                                          r"fov_deg must be in \[1, 150\], got 500$"):
        odd.png()
    cut = Painter(160, 120, False)
    _send(cut._proc.stdin, good[: len(good) // 2])
    with pytest.raises(RenderError, match="^malformed view message: archive: not a zip"):
        cut.png()


def test_the_childs_answer_is_png_bytes_or_a_one_line_error():
    png = b"\x89PNG\r\n\x1a\n\n rest"
    assert read_answer(answer_bytes(png)) == png
    with pytest.raises(RenderError, match=r"^no headless GL pipe \(p3headlessgl\)$"):
        read_answer(answer_bytes(error=RenderError("no headless GL pipe (p3headlessgl)")))
    with pytest.raises(RenderError) as got:  # another type: named, its lines folded
        read_answer(answer_bytes(error=AssertionError("line one\n  line two\n")))
    assert str(got.value) == "the PNG process failed: AssertionError: line one line two"
    with pytest.raises(RenderError, match=r"failed: MemoryError: x{1990}"):
        read_answer(answer_bytes(error=MemoryError("x" * 5000)))
    for bad in (b"", b"no header line", b'{"answer": "png"}\n', b"[1, 2]\nx",
                b'{"answer": "png", "x": 1}\nPNG', b'{"answer": "error"}\n',
                b'{"answer": "error", "type": "E", "message": 3}\n',
                b'{"answer": "error", "type": "E", "message": "m"}\ntrailing',
                b'{"answer": "exec", "code": "print(1)"}\n', b"\xff\xfe\n"):
        with pytest.raises(RenderError, match="malformed answer"):
            read_answer(bad)


def test_a_process_that_dies_gives_a_render_error_and_close_ends_a_waiting_one():
    dead = Painter(160, 120, False)
    dead._proc.kill()
    dead.draw(_view())
    with pytest.raises(RenderError, match="ended without a picture"):
        dead.png()
    waiting = Painter(160, 120, False)
    waiting.close()  # no view: it ends without drawing
    assert waiting._proc.returncode is not None
    waiting.close()  # twice is safe


def test_without_a_child_process_the_picture_is_drawn_here(ldrawdir, monkeypatch):
    import sandbox.render.png_process as png_process

    def no_child(self, *_a):
        raise OSError("no processes here")

    monkeypatch.setattr(png_process.Painter, "__init__", no_child)
    spec, base = load_scene(SCENE)
    game = Game(spec, base, ldrawdir=ldrawdir)
    try:
        game.run()
        with PngPainter(320, 240) as painter:
            painter.draw(game)
            here = painter.png()
        assert here == render_game_png_bytes(game, 320, 240)
    finally:
        game.close()


def test_a_module_in_the_current_folder_does_not_shadow_the_childs(tmp_path, monkeypatch):
    (tmp_path / "numpy.py").write_text("raise SystemExit('a numpy.py of the user')\n")
    monkeypatch.chdir(tmp_path)
    painter = Painter(160, 120, False)
    painter.draw(_view())
    assert Image.open(io.BytesIO(painter.png())).size == (160, 120)


def test_ctrl_c_in_a_terminal_stops_the_run_and_never_reaches_the_starting_child(tmp_path):
    """A terminal's Ctrl-C goes to its foreground process group: ``sandbox run`` gets it,
    the PNG process (a session of its own) does not, even while its interpreter is starting
    (it printed "Fatal Python error: init_import_site" and a traceback when it did). The run
    ends with status 130 without a traceback and leaves no process behind."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    run = subprocess.Popen(
        [sys.executable, "-c", "from sandbox.cli import main; main()", "run",
         str(REPO / "scenes" / "big_drop_kings_castle.toml"), "--out", str(tmp_path / "o"),
         "--quiet"], cwd=tmp_path, start_new_session=True, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    children = Path(f"/proc/{run.pid}/task/{run.pid}/children")
    child = None
    deadline = time.monotonic() + 120
    while child is None and run.poll() is None and time.monotonic() < deadline:
        for pid in (children.read_text().split() if children.exists() else []):
            try:  # the PNG process once it runs its own code (its session made before)
                if b"png_process" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    child = int(pid)
            except OSError:
                pass
    assert child is not None, "the run started no PNG process"
    assert os.getpgid(child) != os.getpgid(run.pid)  # out of the terminal's group
    os.killpg(run.pid, signal.SIGINT)  # the terminal's Ctrl-C, as the child starts
    out, err = run.communicate(timeout=120)
    assert run.returncode == 130, err[-800:]
    assert "Traceback" not in err and "Fatal Python error" not in err, err[-800:]
    deadline = time.monotonic() + 60
    while Path(f"/proc/{child}").exists() and time.monotonic() < deadline:
        try:  # a zombie of ours is reaped by its parent's exit; wait for it to go
            if Path(f"/proc/{child}/stat").read_text().split()[2] == "Z":
                break
        except OSError:
            break
    stat = Path(f"/proc/{child}/stat")
    assert not stat.exists() or stat.read_text().split()[2] == "Z"
