"""The PNG of ``sandbox run`` drawn in a process of its own, made ready while the game plays
(issue 26: the main job under 1.5 s; used by :class:`sandbox.app.headless.PngPainter`).

Why a process and not a thread: Panda3D's import, the offscreen buffer and the shader
compilation hold Python's global interpreter lock for most of their 0.2-0.3 s, so a thread
doing them made the main thread, which was building the game at the time, wait as long
(measured: the game's build 0.42-0.45 s with the thread against 0.24-0.25 s without, with the
same 0.21-0.25 s of main-thread CPU). A process shares no lock; on a second core its work is
off the run's critical path.

The child (:func:`serve`, started as ``python -c`` by :class:`Painter`) imports Panda3D, opens
a ``width`` x ``height`` offscreen buffer with shadows and primes it
(:meth:`~sandbox.render.offscreen.OffscreenRenderer.prime` with :func:`stand_in_view`), then
waits for one :class:`~sandbox.render.view.SceneView` on its standard input, draws it,
encodes the PNG (:func:`png_bytes`) and writes it back, then exits. Messages are an 8-byte
little-endian length and a pickle, one each way, between this process and the child it
started (nobody else writes to these pipes). A failure in the child (no GL pipe, a failed
draw) comes back as its exception and is raised by :meth:`Painter.png`; a child that dies
gives a :class:`~sandbox.render.view.RenderError`. The child writes its protocol to a copy
of its standard output and points its standard output at its standard error, so nothing a
library prints can break the protocol. End of input (the parent closed the pipe, or died)
ends the child without a picture.
"""

from __future__ import annotations

import os
import pickle
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

#: Largest message read from either side, bytes (a castle's view is a few tens of MB).
MAX_MESSAGE_BYTES = 1 << 30
_HEADER = struct.Struct("<Q")
#: The package's parent folder: the child imports this same ``sandbox``.
_ROOT = str(Path(__file__).resolve().parents[2])


def png_bytes(rgb: np.ndarray) -> bytes:
    """An (h, w, 3) uint8 picture as PNG bytes (Pillow's defaults)."""
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG")
    return buf.getvalue()


def stand_in_view(aspect: float, edges: bool):
    """A small scene with the states a game's picture uses (a lit, shadowed brick with its
    edge lines, the table and its grid) for :meth:`OffscreenRenderer.prime`."""
    from .geometry import box_triangles
    from .view import Camera, RenderBody, RenderMesh, SceneView

    lo, hi = np.array([-0.5, -0.5, 0.0]), np.array([0.5, 0.5, 0.4])
    v, n = box_triangles(lo, hi)
    cols = np.tile(np.array([[0.8, 0.1, 0.1, 1.0]], np.float32), (len(v), 1))
    seg = np.array([[[-0.5, -0.5, 0.4], [0.5, -0.5, 0.4]]], np.float32)
    mesh = RenderMesh(v.astype(np.float32), n.astype(np.float32), cols,
                      edges=seg if edges else None, name="stand-in")
    body = RenderBody(mesh, np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0]), key="stand-in")
    return SceneView(bodies=[body], battlefield=(4.0, 4.0), edges=edges,
                     camera=Camera.framing(lo.tolist(), hi.tolist(), aspect=aspect))


def _send(out: BinaryIO, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(_HEADER.pack(len(data)))
    out.write(data)
    out.flush()


def _receive(inp: BinaryIO) -> Any:
    """The next message, or raise EOFError (the other side is gone or closed the pipe)."""
    head = inp.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise EOFError("no message")
    (size,) = _HEADER.unpack(head)
    if size > MAX_MESSAGE_BYTES:
        raise EOFError(f"a message of {size} bytes")
    data = inp.read(size)
    if len(data) < size:
        raise EOFError("a message cut short")
    return pickle.loads(data)  # noqa: S301 - from the process at the other end of our pipe


def serve(width: int, height: int, edges: bool) -> None:
    """The child's work (see the module text); ends the process. Ctrl-C, which the terminal
    sends to the child too, is ignored there: the parent stops, closes the pipe, and the
    child ends at its end of input, without a traceback."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what libraries print goes to standard error, not into the protocol
    inp = sys.stdin.buffer
    renderer = failed = None
    try:
        from .offscreen import OffscreenRenderer

        renderer = OffscreenRenderer(width, height, shadows=True)
        renderer.prime(stand_in_view(width / height, edges))
    except Exception as exc:  # noqa: BLE001 - handed to the parent with the view's answer
        failed = exc
    try:
        view = _receive(inp)
    except EOFError:
        os._exit(0)
    try:
        if failed is not None:
            raise failed
        assert renderer is not None
        answer: tuple = ("png", png_bytes(renderer.render(view)[:, :, :3].copy()))
    except Exception as exc:  # noqa: BLE001 - raised again in the parent
        answer = ("error", exc)
    try:
        try:
            _send(out, answer)
        except (pickle.PicklingError, TypeError, AttributeError):  # an exception that does
            _send(out, ("error", RuntimeError(f"{type(answer[1]).__name__}: {answer[1]}")))
    except OSError:  # the parent is gone
        pass
    os._exit(0)  # no teardown of Panda3D's objects: the picture is out


class Painter:
    """A child process that draws one PNG (see the module text). Start it early; hand it
    the view with :meth:`draw`; take the PNG with :meth:`png`; :meth:`close` ends it without
    a picture (safe after :meth:`png`, and twice).

    Raises
    ------
    OSError, ValueError
        The child could not be started (no interpreter to run: :data:`sys.executable`
        empty); :class:`InProcessPainter` draws the same picture here instead.

    Parameters
    ----------
    width, height : int
        Picture size in pixels.
    edges : bool
        The views drawn show edge lines (the stand-in primes that state too).
    """

    def __init__(self, width: int, height: int, edges: bool):
        code = (f"import signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
                f"sys.path.insert(0, {_ROOT!r}); "
                f"from sandbox.render.png_process import serve; "
                f"serve({int(width)}, {int(height)}, {bool(edges)})")
        if not sys.executable:
            raise ValueError("no Python interpreter to start (sys.executable is empty)")
        # -P: the current folder is not put on the child's path (a numpy.py there would
        # shadow numpy); this package's folder is, first (the same sandbox as the parent's)
        self._proc = subprocess.Popen([sys.executable, "-P", "-c", code], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, close_fds=True)

    def draw(self, view) -> None:
        """Hand ``view`` (a :class:`~sandbox.render.view.SceneView`) to the child, which
        draws it while the caller goes on."""
        try:
            _send(self._proc.stdin, view)
            self._proc.stdin.close()
        except OSError:  # the child is gone: png() says so
            pass

    def png(self) -> bytes:
        """The picture of the view handed to :meth:`draw`, as PNG bytes (waits for it).

        Raises
        ------
        RenderError
            The child could not draw (no GL pipe, no buffer, a failed draw: its own error),
            or it ended without an answer.
        """
        from .view import RenderError

        try:
            kind, value = _receive(self._proc.stdout)
        except EOFError as exc:
            self.close()
            raise RenderError(f"the PNG process ended without a picture (exit status "
                              f"{self._proc.returncode}, {exc})") from None
        self.close()
        if kind == "png" and isinstance(value, bytes):
            return value
        if isinstance(value, BaseException):
            raise value
        raise RenderError(f"the PNG process answered {kind!r}")

    def close(self) -> None:
        """End the child (at once when it has no view; it exits by itself after a
        picture) and wait for it."""
        p = self._proc
        for pipe in (p.stdin, p.stdout):
            try:
                if pipe is not None and not pipe.closed:
                    pipe.close()
            except OSError:
                pass
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


class InProcessPainter:
    """:class:`Painter`'s interface drawing in this process, at :meth:`png` (when no child
    can be started): the same picture, without the head start."""

    def __init__(self, width: int, height: int, edges: bool):
        self.width, self.height, self._view = int(width), int(height), None

    def draw(self, view) -> None:
        self._view = view

    def png(self) -> bytes:
        from .offscreen import render_array
        from .view import RenderError

        if self._view is None:
            raise RenderError("png() before draw()")
        return png_bytes(render_array(self._view, self.width, self.height))

    def close(self) -> None:
        self._view = None


__all__ = ["MAX_MESSAGE_BYTES", "InProcessPainter", "Painter", "png_bytes", "serve",
           "stand_in_view"]
