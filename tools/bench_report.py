"""Benchmark (not a test) of battle reports: how long ``sandbox report`` takes, and how long
the page takes to load in headless Chromium.

For each scene (default: ``escapade_raid``, the shipped game with the most turns, and
``wall_demolition``, the heaviest model): run it headless, then ``build_report`` its replay
(with Markdown), printing the wall time of each stage; then open ``index.html`` from disk in
headless Chromium ``--loads`` times and print, from the page's own clock (milliseconds since
navigation start): DOMContentLoaded (the text and pictures are there), the viewer's module
start, the model decoded and parsed, and the 3D view ready (first picture drawn); plus the
load average, since this machine is shared.

Run: ``LDRAWDIR=../shared/ldraw .venv/bin/python tools/bench_report.py [--scene NAME ...]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sandbox.app.headless import run_scene  # noqa: E402
from sandbox.report import build_report  # noqa: E402
from sandbox.report.browser import HeadlessChromium, find_chromium  # noqa: E402

_FIGURES = """JSON.stringify({
  dcl: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd,
  load: performance.getEntriesByType('navigation')[0].loadEventEnd,
  marks: window.reportViewer.marks, ready: window.reportViewer.readyMs})"""


async def page_loads(index_html: Path, loads: int) -> list[dict]:
    import json

    out = []
    async with HeadlessChromium(1280, 900) as browser:
        for _ in range(loads):
            await browser.open("about:blank")
            await browser.open(index_html.resolve().as_uri())
            state = await browser.wait_for("document.documentElement.dataset.viewer", 300)
            if state != "ready":
                raise SystemExit(f"viewer: {state}")
            await browser.wait_for("performance.getEntriesByType('navigation')[0]"
                                   ".loadEventEnd > 0", 60)
            out.append(json.loads(await browser.evaluate(_FIGURES)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", action="append", default=None,
                    help="scene name under scenes/ (repeatable)")
    ap.add_argument("--loads", type=int, default=3, help="page loads to time")
    args = ap.parse_args()
    scenes = args.scene or ["escapade_raid", "wall_demolition"]
    ldrawdir = os.environ.get("LDRAWDIR")
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        for name in scenes:
            run = run_scene(REPO / "scenes" / f"{name}.toml", out_dir=Path(tmp) / name,
                            png=False, ldrawdir=ldrawdir)
            out = Path(tmp) / f"{name}-report"
            load0 = os.getloadavg()[0]
            t0 = time.perf_counter()
            res = build_report(run.replay_path, out, markdown=True, ldrawdir=ldrawdir)
            total = time.perf_counter() - t0
            stages = ", ".join(f"{k} {v:.2f}" for k, v in res.timings.items())
            size = res.files["index.html"].stat().st_size / 1e6
            print(f"{name}: report in {total:.1f} s ({res.turns} turns, {res.rolls} dice, "
                  f"{res.moments} moments; index.html {size:.1f} MB) [{stages}] "
                  f"load average {load0:.1f}")
            if find_chromium() is None:
                print("  no Chromium: page loads not timed")
                continue
            for i, f in enumerate(asyncio.run(page_loads(res.files["index.html"],
                                                          args.loads)), start=1):
                m = f.get("marks") or {}
                print(f"  load {i}: DOMContentLoaded {f['dcl']:.0f} ms, load {f['load']:.0f}"
                      f" ms, viewer module {m.get('module', 0):.0f} ms, model decoded "
                      f"{m.get('decoded', 0):.0f} ms, parsed {m.get('parsed', 0):.0f} ms, "
                      f"3D view ready {f['ready']:.0f} ms (load average "
                      f"{os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
