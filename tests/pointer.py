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


def screen_px(app, xy) -> tuple[int, int]:
    """The window pixel of a point ``xy`` in [-1, 1] (Panda3D's render2d, y up)."""
    w, h = app.base.win.get_x_size(), app.base.win.get_y_size()
    return int(round((xy[0] + 1) / 2 * w)), int(round((1 - xy[1]) / 2 * h))


def point_at(app, world, frames: int = 2):
    """Put the pointer over the table point ``world`` (x, y, z inches); returns its screen
    position in [-1, 1]."""
    xy = app.world_to_screen(world)
    assert xy is not None, f"{world} is not in view"
    move_pointer(app, *screen_px(app, xy), frames=frames)
    return xy


def click(app, world) -> None:
    """A left click on the table point ``world``, through Panda3D's mouse events."""
    point_at(app, world)
    app.base.messenger.send("mouse1")
    app.step(1)
    app.base.messenger.send("mouse1-up")
    app.step(2)


def click_body(app, key: str) -> None:
    """A left click on the centre of body ``key``'s bounds."""
    lo, hi = app.session.bounds(key)
    click(app, (lo + hi) / 2)


def key(app, name: str) -> None:
    """A key press, as Panda3D's keyboard sends it (``"g"``, ``"shift-d"``, ``"f6"``)."""
    app.base.messenger.send(name)
    app.step(1)
