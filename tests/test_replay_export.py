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
from sandbox.engine.playback import replay_assets
from sandbox.engine.replay import load_replay

W, H = 160, 120


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("gt")
    res = run_scene(REPO / "scenes" / "big_drop_guard_tower.toml", out_dir=out, png=False)
    replay = load_replay(res.replay_path)
    return res.replay_path, replay, replay_assets(replay)


def _moving_pairs(frames: np.ndarray) -> int:
    return sum(int(np.abs(a.astype(int) - b.astype(int)).max() > 40)
               for a, b in zip(frames[:-1], frames[1:], strict=True))


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


# ------------------------------------------------------------------ issue 18: size, captions,
# cameras
def _read_mp4(path):
    reader = iio2.get_reader(path, format="FFMPEG")
    frames = np.stack([f for f in reader])
    reader.close()
    return frames


def test_default_export_is_1280x720(recorded, tmp_path):
    import inspect

    from sandbox.app import replay_cli
    from sandbox.app.export import DEFAULT_SIZE

    assert DEFAULT_SIZE == (1280, 720)
    for fn in (export_replay, plan_export):
        sig = inspect.signature(fn).parameters
        assert (sig["width"].default, sig["height"].default) == (1280, 720)
    assert inspect.signature(replay_cli.export_with_progress).parameters["size"].default == \
        (1280, 720)
    # the command line without --size: one picture, read back at 1280x720
    path, replay, _ = recorded
    t = float(replay.times()[-1])
    out = tmp_path / "one.gif"
    res = CliRunner().invoke(app, ["replay", str(path), "--export", str(out), "--from", str(t),
                                   "--to", str(t), "--no-shadows"])
    assert res.exit_code == 0, res.output
    assert "1280x720" in res.output and "fixed camera" in res.output
    assert iio3.imread(out, index=None).shape[1:] == (720, 1280, 3)
    import os
    import stat

    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask  # not mkstemp's 0600


def test_captions_burn_the_turns_dice_and_events(recorded, tmp_path):
    from sandbox.engine.playback import ReplayPlayback
    from sandbox.render.captions import CaptionPainter, caption_text

    _, replay, assets = recorded
    w, h = 320, 180
    kw = dict(width=w, height=h, fps=15, turn=2, shadows=False)
    plain = export_replay(replay, tmp_path / "plain.mp4", assets, captions=False, **kw)
    told = export_replay(replay, tmp_path / "told.mp4", assets, **kw)
    a, b = _read_mp4(plain.path), _read_mp4(told.path)
    assert a.shape == b.shape == (plain.frames, h, w, 3) and told.frames == plain.frames
    diff = np.abs(a.astype(int) - b.astype(int)).mean(axis=(0, 3))  # (h, w)
    # the header (top left) and the band of dice and events (bottom) differ; the table
    # between them is the same picture
    assert diff[:8, :60].mean() > 20 and diff[-12:, :].mean() > 20
    assert diff[h // 3: h // 2, w // 3: 2 * w // 3].mean() < 3
    # what the captions say at the end of turn 2 (the Marked crate arrives then, 13.2): its
    # dice (as rolled) and its Damage
    pb = ReplayPlayback(replay)
    pb.seek(told.last_frame)
    header, dice, story = caption_text(pb.events(), 2)
    rolls = [e for e in pb.events() if e["type"] == "roll" and e["turn"] == 2]
    assert header.startswith("Turn 2") and rolls
    assert " ".join(dice).count("d6") >= 1
    assert all(f"d{r['sides']}: " in " ".join(dice) for r in rolls)
    assert any("Collision Damage" in s for s in story)
    assert not any(s.startswith("Turn") for s in story)
    _, lines = CaptionPainter(1280, 720).layout(pb.events(), 2)
    assert lines and any(t.startswith("Dice:") for t, _ in lines)
    assert any("Collision Damage" in t and "against Armor" in t for t, _ in lines)


def test_each_camera_gives_different_frames(recorded, tmp_path):
    _, replay, assets = recorded
    got = {}
    for cam in ("fixed", "follow", "orbit"):
        res = export_replay(replay, tmp_path / f"{cam}.mp4", assets, width=W, height=H, fps=10,
                            turn=2, camera=cam, captions=False, shadows=False)
        got[cam] = _read_mp4(res.path)
        assert got[cam].shape == (res.frames, H, W, 3)
    n = min(len(f) for f in got.values())
    for x, y in (("fixed", "follow"), ("fixed", "orbit"), ("follow", "orbit")):
        d = np.abs(got[x][1:n].astype(int) - got[y][1:n].astype(int)).mean()
        assert d > 4, (x, y, d)
    # the fixed camera does not move: the bare table corner stays put between two pictures
    # while the orbit's turns away
    fixed, orbit = got["fixed"], got["orbit"]
    assert np.abs(fixed[0, :20].astype(int) - fixed[-1, :20].astype(int)).mean() < 3
    assert np.abs(orbit[0].astype(int) - orbit[-1].astype(int)).mean() > 8


def test_camera_paths(recorded):
    from sandbox.app.export import ORBIT_DEG_PER_S, clip_cameras
    from sandbox.engine.playback import ReplayPlayback
    from sandbox.render.replay_view import ReplayDrawing

    _, replay, assets = recorded
    pb = ReplayPlayback(replay)
    drawing = ReplayDrawing.for_replay(replay, assets)
    lo, hi = pb.index.turn_range(2)
    frames = list(range(lo, hi + 1))
    fixed = clip_cameras(drawing, pb, frames, 16 / 9, "fixed", fps=10)
    assert all(c is fixed[0] for c in fixed)
    orbit = clip_cameras(drawing, pb, frames, 16 / 9, "orbit", fps=10)
    dist = [np.linalg.norm(c.eye - c.target) for c in orbit]
    assert np.allclose(dist, dist[0]) and np.allclose([c.target for c in orbit], fixed[0].target)
    az = np.degrees(np.unwrap([np.arctan2(c.eye[0] - c.target[0], -(c.eye[1] - c.target[1]))
                               for c in orbit]))
    assert np.allclose(np.diff(az), ORBIT_DEG_PER_S / 10)
    # following the crate's fall: the camera's target goes down with it
    follow = clip_cameras(drawing, pb, frames, 16 / 9, "follow", fps=10, focus=("crate_supply1",))
    crate_z = [pb.replay.poses_at(f)["crate_supply1"][0][2] for f in frames]
    assert crate_z[0] - crate_z[-1] > 1.0
    assert follow[0].target[2] - follow[-1].target[2] > 0.5
    with pytest.raises(ReplayError, match="--camera 'pan'"):
        clip_cameras(drawing, pb, frames, 1.0, "pan")


def test_cli_camera_choice(recorded, tmp_path):
    path, _, _ = recorded
    out = tmp_path / "orbit.gif"
    res = CliRunner().invoke(app, ["replay", str(path), "--export", str(out), "--moment", "1",
                                   "--size", f"{W}x{H}", "--fps", "5", "--no-shadows",
                                   "--camera", "orbit", "--no-captions"])
    assert res.exit_code == 0, res.output
    assert "orbit camera, no captions" in res.output and out.is_file()
    res = CliRunner().invoke(app, ["replay", str(path), "--export", str(out), "--camera", "pan"])
    assert res.exit_code == 2 and "pan" in res.output
