"""Opening the window, and the loading view it shows until the game is ready.

Light on purpose: Panda3D only, so ``sandbox play`` shows a picture (the loading view) before
the engine, pybullet and the models are even imported; :mod:`.launch` builds the game behind it.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from panda3d.core import CardMaker, TextNode, loadPrcFileData

from ...core.errors import SandboxError

#: Width of the loading view's progress bar, in aspect2d units.
BAR_WIDTH: float = 1.2


def window_prc(width: int, height: int, title: str):
    """Settings for a real window, loaded over any renderer's page. Returns the page (unloaded
    again by :meth:`TabletopApp.destroy`)."""
    return loadPrcFileData("sandbox.tabletop", "\n".join([
        "load-display pandagl",
        "aux-display p3headlessgl",
        "window-type onscreen",
        f"win-size {int(width)} {int(height)}",
        f"window-title {title}",
        "audio-library-name null",
        "sync-video false",
        "framebuffer-multisample true",
        "multisamples 4",
        "notify-level-device fatal",
        "notify-level-display error",
        "model-cache-dir",
        "textures-power-2 none",
    ]))


def open_window(width: int, height: int, title: str):
    """A ShowBase with one on-screen window of ``width`` x ``height`` pixels.

    Returns
    -------
    (ShowBase, prc page)

    Raises
    ------
    SandboxError
        No display (``DISPLAY`` unset: never a silent ``:0``), no OpenGL display, or the
        window could not be opened.
    """
    from ...render.view import display_refusal

    why = display_refusal("the tabletop window")
    if why:
        raise SandboxError(why)
    prc = window_prc(width, height, title)
    from direct.showbase.ShowBase import ShowBase

    # The offscreen renderer may have loaded only the headless GL module in this process:
    # ask for the windowed GL pipe by name rather than through load-display.
    from panda3d.core import GraphicsPipeSelection, WindowProperties

    pipe = GraphicsPipeSelection.get_global_ptr().make_module_pipe("pandagl")
    if pipe is None or not pipe.is_valid():
        raise SandboxError("cannot open a window: no OpenGL display (is DISPLAY set, "
                           "or run under Xvfb)")
    base = ShowBase(windowType="none")
    base.pipe = pipe
    props = WindowProperties.size(int(width), int(height))
    props.set_title(title)
    if not base.openDefaultWindow(type="onscreen", props=props) or base.win is None:
        base.destroy()
        raise SandboxError(f"could not open a {width}x{height} window on "
                           f"{pipe.get_interface_name()}")
    base.disableMouse()
    software_gl_settings(base, props)
    return base, prc


#: ``SANDBOX_MSAA``: multisamples of the window (``0`` off, ``4``...); unset: 4 on a GPU,
#: none on software GL.
MSAA_ENV = "SANDBOX_MSAA"


def software_gl_settings(base, props=None) -> None:
    """On software GL (llvmpipe, softpipe: every pixel is CPU time) the window goes without
    multisampling unless ``$SANDBOX_MSAA`` asks for it: the main window is opened again
    without it (tens of milliseconds, before anything is drawn). Issue 26: 4x MSAA made the
    King's Castle gatehouse 1.8x slower with edge lines on llvmpipe. ``props``: the window's
    properties (default: those it has)."""
    from panda3d.core import FrameBufferProperties

    from ...render.shaders import is_software_gl

    want = os.environ.get(MSAA_ENV, "").strip()
    try:
        samples = int(want) if want else None
    except ValueError:
        raise SandboxError(f"{MSAA_ENV}={want!r} is not a number of samples (0, 2, 4, 8)") \
            from None
    have = base.win.get_fb_properties().get_multisamples()
    if samples is None:
        gsg = base.win.get_gsg()
        if gsg is None or not is_software_gl(gsg.get_driver_renderer()):
            return
        samples = 0
    if samples == have or (samples > 0 and have > 0):
        return
    if props is None:
        from panda3d.core import WindowProperties

        props = WindowProperties(base.win.get_properties())
    fb = FrameBufferProperties(base.win.get_fb_properties())
    fb.set_multisamples(max(samples, 0))
    if not base.openMainWindow(props=props, fbprops=fb, keepCamera=True) or base.win is None:
        if not base.openMainWindow(props=props, keepCamera=True) or base.win is None:
            raise SandboxError("could not open the window again without multisampling")


class LoadingView:
    """What the window shows while the game loads: the scene's name, a progress bar and a line
    saying what is being done. ``cover`` hides the table behind it (the first load); otherwise
    only the line shows, over the table (a later rebuild).

    Every line shown is kept in ``shown`` (tests read it).
    """

    def __init__(self, base, title: str = ""):
        from direct.gui.OnscreenText import OnscreenText

        self.base = base
        self.shown: list[str] = []
        self.root = base.aspect2d.attach_new_node("loading-view")
        self.root.set_bin("fixed", 100)
        self.root.set_depth_test(False)
        self.root.set_depth_write(False)
        self.cover = base.render2d.attach_new_node(self._card("cover", -1, 1, -1, 1))
        self.cover.set_color(0.10, 0.12, 0.17, 1)
        self.cover.set_bin("fixed", 99)
        self.title = OnscreenText(text=title, pos=(0, 0.16), scale=0.08, fg=(1, 0.93, 0.6, 1),
                                  align=TextNode.ACenter, mayChange=True, parent=self.root)
        self.bar_back = self.root.attach_new_node(
            self._card("bar-back", -BAR_WIDTH / 2, BAR_WIDTH / 2, -0.025, 0.025))
        self.bar_back.set_color(0.25, 0.27, 0.32, 1)
        self.bar = self.root.attach_new_node(self._card("bar", 0, BAR_WIDTH, -0.025, 0.025))
        self.bar.set_pos(-BAR_WIDTH / 2, 0, 0)
        self.bar.set_color(0.45, 0.75, 1.0, 1)
        self.line = OnscreenText(text="", pos=(0, -0.12), scale=0.05, fg=(1, 1, 1, 1),
                                 bg=(0, 0, 0, 0), align=TextNode.ACenter, mayChange=True,
                                 parent=self.root)
        self.fraction: float | None = None
        self.set_cover(True)

    @staticmethod
    def _card(name: str, left: float, right: float, bottom: float, top: float):
        cm = CardMaker(name)
        cm.set_frame(left, right, bottom, top)
        return cm.generate()

    def set_cover(self, cover: bool) -> None:
        """Whether the view hides the table (title, bar and a dark screen) or shows a line
        only."""
        for node in (self.cover, self.title, self.bar_back, self.bar):
            node.show() if cover else node.hide()
        self.covering = cover
        self.line.setPos(0, -0.12 if cover else 0.0)
        self.line.setBg((0, 0, 0, 0) if cover else (0, 0, 0, 0.7))

    def show(self, text: str, fraction: float | None = None, *, pulse: float | None = None
             ) -> None:
        """Say ``text`` with the bar at ``fraction`` in [0, 1] (None: unchanged); ``pulse``
        (seconds, when how far is not known): a short block sweeping along the bar."""
        self.root.show()
        self.line.setText(text)
        if text:
            self.shown.append(text)
        if pulse is not None:
            phase = (pulse / 1.5) % 2.0
            at = phase if phase <= 1.0 else 2.0 - phase
            self.bar.set_scale(0.2, 1, 1)
            self.bar.set_pos(-BAR_WIDTH / 2 + at * 0.8 * BAR_WIDTH, 0, 0)
        elif fraction is not None:
            self.fraction = min(1.0, max(0.0, float(fraction)))
            self.bar.set_scale(max(1e-3, self.fraction), 1, 1)
            self.bar.set_pos(-BAR_WIDTH / 2, 0, 0)

    def hide(self) -> None:
        self.line.setText("")
        self.set_cover(False)

    def draw(self) -> None:
        """Draw now (the frame loop may not be running): both buffers, so the view shows
        whatever was drawn before."""
        for _ in range(2):
            self.base.graphicsEngine.render_frame()

    def destroy(self) -> None:
        self.title.destroy()
        self.line.destroy()
        self.root.remove_node()
        self.cover.remove_node()


def write_ready(path: str | Path | None, **figures) -> None:
    """Write ``figures`` (JSON) to ``path`` atomically (``--ready-file``: a test or script
    waits for it to know the window drew its first picture). Nothing when ``path`` is None."""
    if path is None:
        return
    p = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=p.name, dir=p.parent or ".")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(figures, f)
    os.replace(tmp, p)
