"""Benchmark (not a test) of replays: recording size, export speed, verify time.

Measures, for each shipped scene:

- bytes per moving body per recorded frame: the replay file's size, and its pose arrays
  alone (compressed), divided by the number of (body, frame) pairs in which a body moved;
- export frames per second: a GIF and an MP4 of the whole replay at 320x240 (no shadows);
- verify time relative to the original run: ``verify_replay`` against ``run_scene``.

Run: ``LDRAWDIR=../shared/ldraw .venv/bin/python tools/bench_replay.py [--size 320x240]``
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sandbox.app.export import export_replay  # noqa: E402
from sandbox.app.headless import run_scene, verify_replay  # noqa: E402
from sandbox.engine.playback import replay_assets  # noqa: E402
from sandbox.engine.replay import _arrays, load_replay  # noqa: E402


def moving_body_frames(replay) -> int:
    """(body, frame) pairs where the body's pose was stored because it moved."""
    return sum(max(len(t.frames) - len(t.spans), 0) for t in replay.tracks.values())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="320x240")
    ap.add_argument("--shadows", action="store_true")
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    for scene in sorted((REPO / "scenes").glob("*.toml")):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            try:
                res = run_scene(scene, out_dir=tmp, png=False)
            except Exception as exc:  # noqa: BLE001 - a benchmark reports and goes on
                print(f"{scene.name}: cannot run ({exc})")
                continue
            run_s = time.perf_counter() - t0
            replay = load_replay(res.replay_path)
            t0 = time.perf_counter()
            report = verify_replay(replay)
            verify_s = time.perf_counter() - t0
            moving = moving_body_frames(replay)
            buf = io.BytesIO()
            arrays = {k: v for k, v in _arrays(replay).items() if k != "frame_times"}
            np.savez_compressed(buf, **arrays)
            size = res.replay_path.stat().st_size
            print(f"{scene.name}: {replay.frames} frames, {len(replay.tracks)} bodies, "
                  f"{moving} moving body-frames")
            print(f"  file {size} B = {size / max(moving, 1):.1f} B per moving body-frame; "
                  f"pose arrays {buf.tell()} B = {buf.tell() / max(moving, 1):.1f} B")
            print(f"  run {run_s:.2f} s, verify {verify_s:.2f} s = {verify_s / run_s:.2f}x "
                  f"the run (max diff {report['max_position_diff_in']:.2e} in, ok {report['ok']})")
            assets = replay_assets(replay)
            for suffix in (".gif", ".mp4"):
                ex = export_replay(replay, Path(tmp) / f"x{suffix}", assets, width=w, height=h,
                                   fps=30, shadows=args.shadows)
                print(f"  export {suffix} {w}x{h}: {ex.frames} frames in {ex.seconds:.2f} s = "
                      f"{ex.frames_per_second:.1f} frames/s")


if __name__ == "__main__":
    main()
