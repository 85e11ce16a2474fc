"""Shared fixtures: the LDraw library beside the repository, and the repo root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# The window goldens are drawn with LDraw edge lines; the tabletop starts without them on
# software GL (issue 26) unless $SANDBOX_EDGES says on, so the test session (and the windows
# it starts) says on; tests/test_render_cull.py checks the default itself.
os.environ.setdefault("SANDBOX_EDGES", "on")
# Likewise the windows' far level of detail (issue 26: on by default on software GL): the
# window tests and goldens look at bodies close up as a GPU draws them; tests/test_far_lod.py
# turns it on and checks it.
os.environ.setdefault("SANDBOX_FAR", "off")

# The part cache (issue 26) of the test session: a folder of its own, removed at the end (not
# the user's ~/.cache); the child processes tests start inherit it.
if "SANDBOX_PART_CACHE" not in os.environ:
    import atexit
    import shutil
    import tempfile

    _PART_CACHE = tempfile.mkdtemp(prefix="sandbox-test-parts-")
    os.environ["SANDBOX_PART_CACHE"] = _PART_CACHE
    atexit.register(shutil.rmtree, _PART_CACHE, True)


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
    from xvfb import start_xvfb

    try:
        proc, display = start_xvfb("1280x1024x24")
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    old = os.environ.get("DISPLAY")
    try:
        os.environ["DISPLAY"] = display
        yield os.environ["DISPLAY"]
    finally:
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

    from sandbox.app.table.app import TabletopApp

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
def fresh_table(app, game):
    """A window test's known state, whatever ran before it: the window as just opened
    (:meth:`TabletopApp.reset`: no selection, mode, message, typed box; help folded) on
    ``game`` (a new Game), the previous game closed. Returns ``game``."""
    app.reset()
    old = app.session
    app.adopt(game)
    if old is not game:
        old.close()
    app.input.reset()
    app.step(2)
    return game
