"""Headless export of a shipped scene's replay to GIF and MP4, read back with imageio."""

from __future__ import annotations

import imageio.v2 as iio2
import imageio.v3 as iio3
import numpy as np
import pytest
from conftest import REPO
from typer.testing import CliRunner

from sandbox.app.export import export_replay, plan_export
from sandbox.app.headless import run_scene
from sandbox.cli import app
from sandbox.core.errors import ReplayError
from sandbox.game.playback import replay_assets
from sandbox.game.replay import load_replay

W, H = 160, 120


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("gt")
    res = run_scene(REPO / "scenes" / "big_drop_guard_tower.toml", out_dir=out, png=False)
    replay = load_replay(res.replay_path)
    return res.replay_path, replay, replay_assets(replay)


def _moving_pairs(frames: np.ndarray) -> int:
    return sum(int(np.abs(a.astype(int) - b.astype(int)).max() > 40)
               for a, b in zip(frames[:-1], frames[1:]))


def test_gif_of_the_drop(recorded, tmp_path):
    _, replay, assets = recorded
    seen = []
    res = export_replay(replay, tmp_path / "drop.gif", assets, width=W, height=H, fps=30,
                        shadows=False, progress=lambda d, n: seen.append((d, n)))
    assert seen[-1] == (res.rendered, res.rendered) and len(seen) == res.rendered
    frames = iio3.imread(res.path, index=None)
    assert frames.shape[1:] == (H, W, 3)
    # identical pictures (the set-up at rest) are merged: the count reported is the file's
    assert 2 <= len(frames) == res.frames < res.rendered
    assert _moving_pairs(frames) >= 3
    # GIF delays are centiseconds: they alternate so the clip lasts as long as it should
    from PIL import Image

    with Image.open(res.path) as gif:
        delays = []
        for i in range(gif.n_frames):
            gif.seek(i)
            delays.append(gif.info["duration"])
    assert len(delays) == res.frames and min(delays) >= 20
    assert abs(sum(delays) - res.rendered * 1000 / 30) <= 1000 / 30
    # The picture is the table and a sky, not a blank buffer.
    assert frames[0].std() > 10


def test_mp4_keeps_every_frame(recorded, tmp_path):
    _, replay, assets = recorded
    res = export_replay(replay, tmp_path / "drop.mp4", assets, width=W, height=H, fps=30,
                        turn=2, end=0.5, shadows=False)  # the crate falls on turn 2
    reader = iio2.get_reader(res.path, format="FFMPEG")
    frames = np.stack([f for f in reader])  # (list(reader) trusts an infinite len())
    reader.close()
    assert frames.shape == (res.frames, H, W, 3)
    assert res.first_frame == 16 and res.frames >= 7
    assert _moving_pairs(frames) >= 3


def test_bad_exports_are_refused_before_any_work(recorded, tmp_path):
    _, replay, _ = recorded
    with pytest.raises(ReplayError, match="out.avi"):
        plan_export(replay, tmp_path / "out.avi")
    with pytest.raises(ReplayError, match="even width"):
        plan_export(replay, tmp_path / "out.mp4", width=161, height=120)
    with pytest.raises(ReplayError, match="turn 7"):
        plan_export(replay, tmp_path / "out.gif", turn=7)
    with pytest.raises(ReplayError, match="leave out --turn"):
        plan_export(replay, tmp_path / "out.gif", turn=1, moment=1)
    _, first, last, frames = plan_export(replay, tmp_path / "out.gif", moment=1, fps=10)
    assert first <= last and frames[0] == first and frames[-1] == last


def test_failed_export_keeps_the_previous_file(recorded, tmp_path):
    _, replay, assets = recorded
    target = tmp_path / "keep.gif"
    target.write_bytes(b"previous good export")

    def boom(done, total):
        if done == 2:
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        export_replay(replay, target, assets, width=W, height=H, fps=10, turn=2,
                      shadows=False, progress=boom)
    assert target.read_bytes() == b"previous good export"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.gif"]


def test_cli_export_of_a_moment(recorded, tmp_path):
    path, _, _ = recorded
    out = tmp_path / "moment.gif"
    res = CliRunner().invoke(app, ["replay", str(path), "--export", str(out), "--moment", "1",
                                   "--size", f"{W}x{H}", "--fps", "10", "--no-shadows"])
    assert res.exit_code == 0, res.output
    assert "wrote" in res.output and out.is_file()
    assert iio3.imread(out, index=None).shape[1:] == (H, W, 3)
    res = CliRunner().invoke(app, ["replay", str(path), "--export", str(out), "--from", "2",
                                   "--to", "1"])
    assert res.exit_code == 2 and "after --to" in res.output
