"""The tabletop window on a Brigandine scene under Xvfb: the banner names the round and phase,
the status line the phase's gestures, and keys become hidden Brigandine orders."""

from __future__ import annotations

import os
import select
import shutil
import subprocess

import pytest

from conftest import REPO

pytestmark = pytest.mark.window


@pytest.fixture(scope="module")
def display():
    exe = shutil.which("Xvfb")
    if exe is None:
        pytest.skip("Xvfb is not installed (tools/setup.sh installs it: apt-get install xvfb)")
    if os.environ.get("DISPLAY"):
        yield os.environ["DISPLAY"]  # Panda3D reads DISPLAY once per process: share it
        return
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen([exe, "-displayfd", str(write_fd), "-screen", "0", "1024x768x24",
                             "-nolisten", "tcp"], pass_fds=[write_fd],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
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


def test_banner_prompt_and_hidden_orders_from_keys(display, tmp_path):
    from sandbox.app.tabletop import TabletopApp
    from sandbox.game.engine import open_game

    session = open_game(REPO / "scenes" / "brigandine_joust.toml")
    app = TabletopApp(session, 640, 480, save_path=tmp_path / "game.save.json",
                      screenshot_dir=tmp_path, shadows=False)
    try:
        app.step(2)
        assert app.banner.getText().startswith("Round 1, phase 1. reactions: Templars's orders")
        assert "I: delay initiative" in app.status.getText()
        app.input.key("i")
        app.wait_idle(60)
        assert session.events[-1].type == "brig_order" and "delays" in session.events[-1].text
        for _ in range(2):  # both players end phase 1: the screen passes, phase 2 begins
            app.input.key("e")
            app.wait_idle(60)
        app.step(2)
        assert "phase 2. declare actions" in app.banner.getText()
        assert "pass the screen" in app.banner.getText()
        app.select("brian")
        app.input.key("7")          # joust
        app.input.key("enter")      # declare, hidden
        app.wait_idle(60)
        assert session.events[-1].type == "brig_order" and "joust" not in session.events[-1].text
        assert session.system("brigandine").declared["brian"].does == ["joust"]
    finally:
        app.destroy()
