"""Headless Chromium driven over the DevTools protocol: open a report, wait, screenshot.

Used by the report's tests and ``tools/bench_report.py`` to check that ``index.html`` works
as a person opens it (from disk, no network, WebGL through SwiftShader on a machine without
a GPU). Chromium is found on the ``PATH`` (``chromium``, Debian's package; or
``chromium-browser``, ``google-chrome``) unless given. Talks to the browser with
``websockets``; every wait is for a condition in the page, bounded by a timeout.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from ..core.errors import SandboxError

#: Executables tried, in order.
CHROMIUM_NAMES: tuple[str, ...] = ("chromium", "chromium-browser", "google-chrome",
                                   "google-chrome-stable")


class BrowserError(SandboxError):
    """Chromium could not be started, or the page did not do what was waited for."""


def find_chromium() -> str | None:
    """The path of a Chromium on the ``PATH``, or None."""
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


class HeadlessChromium:
    """One headless Chromium with one page (use as an async context manager).

    Parameters
    ----------
    width, height : int
        The page's viewport, CSS pixels (device pixel ratio 1).
    executable : str, optional
        Default: :func:`find_chromium`.
    start_timeout_s : float
        How long Chromium may take to start.
    """

    def __init__(self, width: int = 1280, height: int = 900, executable: str | None = None,
                 start_timeout_s: float = 60.0):
        self.width, self.height = int(width), int(height)
        self.executable = executable or find_chromium()
        self.start_timeout_s = float(start_timeout_s)
        self._proc: subprocess.Popen | None = None
        self._profile: str | None = None
        self._ws = None
        self._next_id = 0

    async def __aenter__(self) -> HeadlessChromium:
        await self.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def start(self) -> None:
        """Launch Chromium and attach to its page.

        Raises
        ------
        BrowserError
            No Chromium, or it did not open its DevTools port in time.
        """
        import websockets

        if not self.executable:
            raise BrowserError("no Chromium found (install Debian's 'chromium' package)")
        self._profile = tempfile.mkdtemp(prefix="sandbox-chromium-")
        args = [self.executable, "--headless=new", "--remote-debugging-port=0",
                f"--user-data-dir={self._profile}", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--mute-audio",
                "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
                "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                f"--window-size={self.width},{self.height}", "about:blank"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
        self._proc = subprocess.Popen(args, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
        port_file = Path(self._profile) / "DevToolsActivePort"
        deadline = time.monotonic() + self.start_timeout_s
        while not (port_file.exists() and port_file.read_text().strip()):
            if self._proc.poll() is not None:
                raise BrowserError(f"Chromium exited at start (status {self._proc.returncode})")
            if time.monotonic() > deadline:
                raise BrowserError(f"Chromium did not start within {self.start_timeout_s:g} s")
            await asyncio.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            targets = json.loads(r.read())
        page = next((t for t in targets if t.get("type") == "page"), None)
        if page is None:
            raise BrowserError("Chromium has no page to drive")
        self._ws = await websockets.connect(page["webSocketDebuggerUrl"], max_size=2**28)
        await self.send("Page.enable")
        await self.send("Runtime.enable")
        await self.send("Emulation.setDeviceMetricsOverride",
                        {"width": self.width, "height": self.height, "deviceScaleFactor": 1,
                         "mobile": False})

    async def close(self) -> None:
        """Stop Chromium and delete its profile. Safe to call twice."""
        if self._ws is not None:
            try:
                await self._ws.close()
            except Exception:  # noqa: BLE001 - the browser may already be gone
                pass
            self._ws = None
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.terminate()
                try:
                    self._proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
                    self._proc.wait(timeout=10)
            self._proc = None
        if self._profile is not None:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None

    async def send(self, method: str, params: dict | None = None) -> dict:
        """One DevTools command; its result (events that arrive meanwhile are dropped).

        Raises
        ------
        BrowserError
            The command failed.
        """
        self._next_id += 1
        my_id = self._next_id
        await self._ws.send(json.dumps({"id": my_id, "method": method, "params": params or {}}))
        while True:
            msg = json.loads(await self._ws.recv())
            if msg.get("id") == my_id:
                if "error" in msg:
                    raise BrowserError(f"{method}: {msg['error'].get('message')}")
                return msg.get("result", {})

    async def open(self, url: str) -> None:
        """Navigate the page to ``url`` (returns once the navigation is committed)."""
        await self.send("Page.navigate", {"url": url})

    async def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (promises awaited)."""
        r = await self.send("Runtime.evaluate", {"expression": expression,
                                                 "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            why = d.get("exception", {}).get("description") or d.get("text")
            raise BrowserError(f"{expression[:60]}: {why}")
        return r.get("result", {}).get("value")

    async def wait_for(self, expression: str, timeout_s: float = 60.0, poll_s: float = 0.05):
        """Poll ``expression`` until it is truthy; its value.

        Raises
        ------
        BrowserError
            Still falsy after ``timeout_s`` seconds.
        """
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                value = await self.evaluate(expression)
            except BrowserError:
                value = None  # the page is still loading (no document to evaluate in)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"waited {timeout_s:g} s for {expression!r}")
            await asyncio.sleep(poll_s)

    async def screenshot(self, clip: dict | None = None, beyond: bool = False) -> bytes:
        """A PNG of the viewport (or of ``clip``: x, y, width, height in CSS pixels of the
        document). ``beyond``: a clip may reach below the viewport (Chromium then lays the
        page out again without its scroll bar, which can move things sideways)."""
        params: dict = {"format": "png", "captureBeyondViewport": bool(beyond)}
        if clip is not None:
            params["clip"] = {**clip, "scale": 1}
        r = await self.send("Page.captureScreenshot", params)
        return base64.b64decode(r["data"])
