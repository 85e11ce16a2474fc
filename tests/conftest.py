"""Shared fixtures: the LDraw library beside the repository, and the repo root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_ldraw() -> Path | None:
    """``$LDRAWDIR`` if set, else ``../shared/ldraw`` beside the repository, if it exists."""
    env = os.environ.get("LDRAWDIR")
    for cand in ([Path(env)] if env else []) + [REPO.parent / "shared" / "ldraw"]:
        if cand.is_dir():
            return cand.resolve()
    return None


@pytest.fixture(scope="session")
def ldrawdir() -> Path:
    lib = shared_ldraw()
    if lib is None:
        pytest.skip("no LDraw library: set LDRAWDIR or put it at ../shared/ldraw")
    return lib


# ------------------------------------------------------------------------------ windows
@pytest.fixture(scope="session")
def xvfb_display():
    """The one Xvfb of the test session (``-displayfd``: the server picks a free display), kept
    until the session ends, for every test marked ``window``.

    Panda3D connects to the X display once per process, so every window of the process must
    live on the same server: one fixture per module (the old way) broke a window module run
    after another module's Xvfb had gone. Skips when Xvfb is not installed
    (``tools/setup.sh`` installs it).
    """
    import select
    import shutil
    import subprocess

    exe = shutil.which("Xvfb")
    if exe is None:
        pytest.skip("Xvfb is not installed (tools/setup.sh installs it: apt-get install xvfb)")
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen([exe, "-displayfd", str(write_fd), "-screen", "0", "1280x1024x24",
                             "-nolisten", "tcp"], pass_fds=[write_fd],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    old = os.environ.get("DISPLAY")
    try:
        ready, _, _ = select.select([read_fd], [], [], 20)
        if not ready:
            raise RuntimeError("Xvfb did not report a display within 20 s")
        os.environ["DISPLAY"] = ":" + os.read(read_fd, 32).decode().strip()
        yield os.environ["DISPLAY"]
    finally:
        os.close(read_fd)
        proc.terminate()
        proc.wait(timeout=10)
        if old is None:
            os.environ.pop("DISPLAY", None)
        else:
            os.environ["DISPLAY"] = old


@pytest.fixture(scope="module")
def window_display(xvfb_display):
    """The session's Xvfb, with no ShowBase left over from another module: a module makes its
    window (one ShowBase at a time per process) and must destroy it; a ShowBase a failed
    module left behind is destroyed here, so the next module still opens its own."""
    import builtins

    from sandbox.app.tabletop import TabletopApp

    # messages expire by the wall clock; frozen, a busy machine can't expire one mid-test
    TabletopApp.message_clock = staticmethod(lambda: 0.0)
    _drop_showbase(builtins)
    yield xvfb_display
    leftover = getattr(builtins, "base", None)
    _drop_showbase(builtins)
    if leftover is not None:
        pytest.fail("a window module left its ShowBase open (destroy it in its fixture)")


def _drop_showbase(builtins) -> None:
    base = getattr(builtins, "base", None)
    if base is not None:
        base.destroy()


def pytest_collection_modifyitems(config, items):
    """A test that uses the window display must be marked ``window`` (so ``-m "not window"``
    leaves out every test that opens one)."""
    for item in items:
        uses = {"xvfb_display", "window_display"} & set(getattr(item, "fixturenames", ()))
        if uses and item.get_closest_marker("window") is None:
            raise pytest.UsageError(f"{item.nodeid} opens a window: mark it "
                                    "@pytest.mark.window")


# ------------------------------------------------------------------------------ plug-ins
@pytest.fixture
def plug_in():
    """Registries a test may add a game kind, action types, scene sections or weapon checks
    to: everything it registered is taken out again afterwards (other tests see the shipped
    games only)."""
    from sandbox.engine import actions, kinds, scene

    kinds.all_kinds()  # the shipped games registered first: they stay
    saved = (dict(actions.REGISTRY), dict(kinds.GAMES), dict(scene.SECTIONS),
             dict(scene.EXPECT_SECTIONS), list(scene.WEAPON_CHECKS))
    yield
    for live, old in zip((actions.REGISTRY, kinds.GAMES, scene.SECTIONS, scene.EXPECT_SECTIONS),
                         saved, strict=False):
        live.clear()
        live.update(old)
    scene.WEAPON_CHECKS[:] = saved[4]
