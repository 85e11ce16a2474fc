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
encodes the PNG (:func:`png_bytes`) and writes it back, then exits.

Messages, one each way: an 8-byte little-endian length (at most :data:`MAX_MESSAGE_BYTES`),
then the bytes. No pickle and nothing evaluated, even on this private pipe:

- parent to child: the view as arrays and a JSON header
  (:func:`~sandbox.render.view_codec.view_to_bytes`; read back by
  :func:`~sandbox.render.view_codec.view_from_bytes`, which builds only the view's own
  classes);
- child to parent (:func:`answer_bytes`, read by :func:`read_answer`): a JSON header line,
  ``{"answer": "png"}`` followed by the PNG's bytes, or ``{"answer": "error", "type": NAME,
  "message": TEXT}``.

A failure in the child comes back as the error's type name and message and is raised by
:meth:`Painter.png` as a :class:`~sandbox.render.view.RenderError`: the child's
``RenderError`` (no GL pipe, no buffer, a view it refuses, a malformed view message) with its
message as it is, any other type as ``the PNG process failed: NAME: MESSAGE``; either on one
line (line breaks folded) of at most :data:`MAX_ERROR_CHARS` characters. A malformed answer
and a child that dies give a ``RenderError`` too, never a traceback. The child writes its
protocol to a copy of its standard output and points its standard output at its standard
error, so nothing a library prints can break the protocol. End of input (the parent closed
the pipe, or died) ends the child without a picture.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import BinaryIO

import numpy as np

#: Largest message read from either side, bytes (a castle's view is a few tens of MB).
MAX_MESSAGE_BYTES = 1 << 30
#: Longest error message the child sends back, characters.
MAX_ERROR_CHARS = 2000
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


def _send(out: BinaryIO, data: bytes) -> None:
    out.write(_HEADER.pack(len(data)))
    out.write(data)
    out.flush()


def _receive(inp: BinaryIO) -> bytes:
    """The next message's bytes, or raise EOFError (the other side is gone or closed the
    pipe, or the message is cut short or too long)."""
    head = inp.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise EOFError("no message")
    (size,) = _HEADER.unpack(head)
    if size > MAX_MESSAGE_BYTES:
        raise EOFError(f"a message of {size} bytes")
    data = inp.read(size)
    if len(data) < size:
        raise EOFError("a message cut short")
    return data


def _one_line(text: str) -> str:
    """``text`` with its line breaks folded into spaces, at most :data:`MAX_ERROR_CHARS`."""
    if "\n" in text or "\r" in text:
        text = " ".join(line.strip() for line in text.splitlines() if line.strip())
    return text[:MAX_ERROR_CHARS]


def answer_bytes(png: bytes | None = None, error: BaseException | None = None) -> bytes:
    """The child's answer (see the module text): ``png``'s bytes, or ``error``'s type name and
    message (on one line)."""
    if error is None:
        return json.dumps({"answer": "png"}).encode() + b"\n" + bytes(png or b"")
    return json.dumps({"answer": "error", "type": type(error).__name__,
                       "message": _one_line(str(error))}).encode() + b"\n"


def read_answer(data: bytes) -> bytes:
    """The PNG's bytes from the child's answer.

    Raises
    ------
    RenderError
        The child's error (its ``RenderError``'s message as it is; another type as ``the PNG
        process failed: NAME: MESSAGE``), or a malformed answer.
    """
    from .view import RenderError

    head, newline, body = bytes(data).partition(b"\n")
    try:
        answer = json.loads(head.decode("utf-8")) if newline else {}
    except (ValueError, RecursionError):  # UnicodeError and JSONDecodeError too
        answer = {}
    if not isinstance(answer, dict):
        answer = {}
    kind = answer.get("answer")
    if kind == "png" and set(answer) == {"answer"} and body:
        return body
    if kind == "error" and set(answer) == {"answer", "type", "message"} and not body \
            and isinstance(answer["type"], str) and isinstance(answer["message"], str):
        name, message = answer["type"][:80], _one_line(answer["message"])
        if name == "RenderError":
            raise RenderError(message)
        raise RenderError(f"the PNG process failed: {_one_line(name)}: {message}")
    raise RenderError(f"the PNG process gave a malformed answer ({len(data)} bytes, "
                      f"starting {bytes(data[:40])!r})")


def serve(width: int, height: int, edges: bool) -> None:
    """The child's work (see the module text); ends the process. Ctrl-C, which the terminal
    sends to the child too, is ignored there: the parent stops, closes the pipe, and the
    child ends at its end of input, without a traceback."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what libraries print goes to standard error, not into the protocol
    inp = sys.stdin.buffer
    renderer = failed = None
    from .view_codec import view_from_bytes

    try:
        from .offscreen import OffscreenRenderer

        renderer = OffscreenRenderer(width, height, shadows=True)
        renderer.prime(stand_in_view(width / height, edges))
    except Exception as exc:  # noqa: BLE001 - handed to the parent with the view's answer
        failed = exc
    try:
        message = _receive(inp)
    except EOFError:
        os._exit(0)
    try:
        if failed is not None:
            raise failed
        assert renderer is not None
        answer = answer_bytes(png_bytes(renderer.render(view_from_bytes(message))[:, :, :3]
                                        .copy()))
    except Exception as exc:  # noqa: BLE001 - raised in the parent as a RenderError
        answer = answer_bytes(error=exc)
    try:
        _send(out, answer)
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
        self._refused: Exception | None = None
        code = (f"import signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
                f"sys.path.insert(0, {_ROOT!r}); "
                f"from sandbox.render.png_process import serve; "
                f"serve({int(width)}, {int(height)}, {bool(edges)})")
        if not sys.executable:
            raise ValueError("no Python interpreter to start (sys.executable is empty)")
        # -P: the current folder is not put on the child's path (a numpy.py there would
        # shadow numpy); this package's folder is, first (the same sandbox as the parent's).
        # A session of its own: a terminal's Ctrl-C goes to its foreground process group,
        # and reached the child too while its interpreter was still starting, before its
        # code could ignore it ("Fatal Python error: init_import_site" and a traceback); now
        # only the parent gets it, and the child ends at the end of its input.
        self._proc = subprocess.Popen([sys.executable, "-P", "-c", code], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, close_fds=True,
                                      start_new_session=True)

    def draw(self, view) -> None:
        """Hand ``view`` (a :class:`~sandbox.render.view.SceneView`) to the child, which
        draws it while the caller goes on. A view that cannot be sent (not a SceneView) is
        refused by :meth:`png`, as the child would refuse it."""
        from .view import RenderError
        from .view_codec import view_to_bytes

        try:
            data = view_to_bytes(view)
        except RenderError as exc:
            self._refused = exc
            self.close()
            return
        try:
            _send(self._proc.stdin, data)
            self._proc.stdin.close()
        except OSError:  # the child is gone: png() says so
            pass

    def png(self) -> bytes:
        """The picture of the view handed to :meth:`draw`, as PNG bytes (waits for it).

        Raises
        ------
        RenderError
            The child could not draw (no GL pipe, no buffer, a failed draw: its own error,
            see the module text), the view could not be sent, the answer is malformed, or
            the child ended without an answer.
        """
        from .view import RenderError

        if self._refused is not None:
            raise self._refused
        try:
            data = _receive(self._proc.stdout)
        except EOFError as exc:
            self.close()
            raise RenderError(f"the PNG process ended without a picture (exit status "
                              f"{self._proc.returncode}, {exc})") from None
        self.close()
        return read_answer(data)

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


__all__ = ["MAX_ERROR_CHARS", "MAX_MESSAGE_BYTES", "InProcessPainter", "Painter", "answer_bytes",
           "png_bytes", "read_answer", "serve", "stand_in_view"]
