"""Moving the X pointer in window tests, waiting until Panda3D has seen it.

``win.movePointer`` goes through the X server (Xvfb): on a busy machine Panda3D's
MouseWatcher may report the new position only some frames later, and a click sent before
then lands where the pointer was.
"""

from __future__ import annotations


def move_pointer(app, x: int, y: int, *, frames: int = 2, max_frames: int = 200) -> None:
    """Move the pointer of ``app``'s window to pixel (x, y), then draw frames until the
    MouseWatcher reports it there (at most ``max_frames``), then ``frames`` more so the app's
    own pointer handling has run."""
    base = app.base
    base.win.movePointer(0, int(x), int(y))
    w, h = base.win.get_x_size(), base.win.get_y_size()
    want = (2.0 * x / w - 1.0, 1.0 - 2.0 * y / h)
    tol = 2.5 * 2.0 / min(w, h)
    for _ in range(max_frames):
        app.step(1)
        mw = base.mouseWatcherNode
        if mw.has_mouse():
            m = mw.get_mouse()
            if abs(m.x - want[0]) <= tol and abs(m.y - want[1]) <= tol:
                break
    app.step(frames)
