"""Replay timeline (format 2), the index of events/turns/dramatic moments, and the playback
model, without a window; and ``sandbox replay --verify`` on shipped scenes."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import REPO
from typer.testing import CliRunner

from sandbox.app.headless import run_scene
from sandbox.cli import app
from sandbox.core.errors import ReplayError
from sandbox.engine import replay as rp
from sandbox.engine.playback import SPEEDS, ReplayPlayback
from sandbox.engine.replay_index import ReplayIndex

Q = (0.0, 0.0, 0.0, 1.0)


def timeline() -> rp.Replay:
    """A body at rest; a bomb dropped at frame 3 (t = 0.05 + a step) and removed at 8."""
    rec = rp.Recorder(1 / 60)
    t = 0.0
    for f in range(12):
        poses = {"tower": ((0.0, 0.0, 2.0), Q)}
        if 3 <= f < 8:
            poses["bomb"] = ((0.0, 0.0, 10.0 - 2.0 * (f - 3)), Q)
        rec.record(poses, force=f == 3, time=t)
        t += 1 / 60 if f != 2 else 1 / 480  # the action frame comes one physics step later
    rec.finish({"tower": ((0.0, 0.0, 2.0), Q)})
    events = [{"type": "setup", "time": 0.0, "turn": 0, "text": "set up"},
              {"type": "turn", "time": rec.times[3], "turn": 1, "text": "Turn 1 begins"},
              {"type": "action", "time": rec.times[3], "turn": 1, "text": "drop"},
              {"type": "roll", "time": rec.times[7] + 0.001, "turn": 1, "text": "d10 rolled 7",
               "stream": "explosion", "sides": 10, "result": 7},
              {"type": "explosion", "time": rec.times[7] + 0.001, "turn": 1, "text": "boom",
               "body": "bomb", "rings": [7, 3], "radius": 4.0, "point": [0, 0, 2]},
              {"type": "damage", "time": rec.times[7] + 0.001, "turn": 1, "text": "7 Damage",
               "body": "tower", "damage": 7},
              {"type": "destroyed", "time": rec.times[7] + 0.001, "turn": 1, "text": "gone",
               "body": "tower"}]
    return rp.Replay(scene={"name": "t"}, seed=1, actions=[], events=events, tracks=rec.tracks,
                     frame_dt=rec.frame_dt, frames=rec.frame, meta={}, frame_times=rec.times)


def test_bodies_exist_only_while_on_the_table(tmp_path):
    r = rp.load_replay(rp.save_replay(timeline(), tmp_path / "t.replay"))
    assert r.tracks["bomb"].spans == [[3, 8]]
    assert r.tracks["tower"].spans == [[0, 12]]
    assert sorted(r.poses_at(2)) == ["tower"]  # not dropped yet
    assert sorted(r.poses_at(5)) == ["bomb", "tower"]
    assert r.poses_at(5)["bomb"][0][2] == pytest.approx(6.0)
    assert sorted(r.poses_at(8)) == ["tower"]  # exploded: gone, not frozen in the air
    assert r.times()[3] - r.times()[2] == pytest.approx(1 / 480)
    with pytest.raises(ReplayError, match="frame 12 is outside"):
        r.poses_at(12)


def test_version_1_files_are_still_read(tmp_path):
    r = timeline()
    arrays = {k: v for k, v in rp._arrays(r).items()
              if k != "frame_times" and not k.endswith("_spans")}
    header = r.header()
    header["version"] = 1
    header["checksum"] = rp._checksum(header, arrays)
    np.savez_compressed(tmp_path / "v1.npz",
                        header_json=np.frombuffer(json.dumps(header).encode(), np.uint8), **arrays)
    back = rp.load_replay(tmp_path / "v1.npz")
    assert back.tracks["bomb"].spans == [[3, 12]]
    np.testing.assert_allclose(back.times(), np.arange(12) / 60)


def test_missing_frame_times_is_a_clear_error(tmp_path):
    path = rp.save_replay(timeline(), tmp_path / "t.replay")
    with np.load(path, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    del arrays["frame_times"]
    np.savez_compressed(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ReplayError, match="checksum|missing"):
        rp.load_replay(tmp_path / "bad.npz")


def test_index_frames_of_events_turns_and_moments():
    idx = ReplayIndex(timeline())
    assert idx.turn_frames == {0: 0, 1: 3}
    assert idx.event_frames.tolist() == [0, 3, 3, 8, 8, 8, 8]
    assert idx.turn_range(1) == (3, 11)
    with pytest.raises(ReplayError, match=r"turn 4 is not in the replay \(it has turns 0, 1\)"):
        idx.turn_range(4)
    ranked = idx.ranked()
    assert [m.kind for m in ranked] == ["explosion", "destroyed", "damage", "flight"]
    assert ranked[0].score == 10 and ranked[0].frame == 8
    assert ranked[1].score == 7  # the Damage that destroyed it
    flight = ranked[3]
    assert flight.bodies == ("bomb",) and flight.score == pytest.approx(8.0)
    assert 3 <= flight.start_frame <= flight.frame <= flight.end_frame  # not before its turn
    with pytest.raises(ReplayError, match="moment 9"):
        idx.moment(9)
    assert idx.moving_at(5) == ["bomb"] and idx.moving_at(10) == []
    assert idx.time_range(None, None) == (0, 11)
    with pytest.raises(ReplayError, match="after"):
        idx.time_range(0.2, 0.1)


def test_playback_model():
    pb = ReplayPlayback(timeline())
    assert pb.frame == 0 and pb.turn == 0 and not pb.playing
    assert [e["type"] for e in pb.events()] == ["setup"]
    pb.jump_to_turn(1)
    assert pb.frame == 3 and pb.turn == 1 and "bomb" in pb.poses()
    assert pb.dice_log() == []
    pb.next_event({"explosion"})
    assert pb.frame == 8 and "bomb" not in pb.poses()
    assert [e["result"] for e in pb.dice_log()] == [7]  # the dice log is in sync
    assert pb.destroyed() == {"bomb", "tower"}
    assert pb.recent_explosions()[0]["body"] == "bomb"
    pb.step(-1)
    assert pb.frame == 7 and pb.destroyed() == set() and pb.dice_log() == []
    pb.previous_event()
    assert pb.frame == 3
    # Play in simulated time: 2 wall seconds at 1/16 speed is 0.125 s, 7-8 frames on.
    pb.set_speed(SPEEDS[0])
    pb.play()
    pb.advance(2.0)
    assert pb.playing and pb.time == pytest.approx(pb.index.times[3] + 0.125, abs=1 / 60)
    pb.faster()
    assert pb.speed == SPEEDS[1]
    pb.set_speed(8)
    pb.advance(10.0)
    assert pb.at_end and not pb.playing
    pb.play()  # from the end: starts again
    assert pb.frame == 0 and pb.playing
    pb.seek_fraction(0.5)
    assert pb.frame == 6 and pb.fraction() == pytest.approx(6 / 11)
    m = pb.jump_to_moment(1)
    assert m.kind == "explosion" and pb.frame == 8
    with pytest.raises(ReplayError, match="speed 100"):
        pb.set_speed(100)
    with pytest.raises(ReplayError, match="event 99"):
        pb.jump_to_event(99)
    assert pb.seek(-5) == 0 and pb.seek(99) == 11


@pytest.fixture(scope="module")
def guard_tower_replay(tmp_path_factory):
    out = tmp_path_factory.mktemp("gt")
    res = run_scene(REPO / "scenes" / "big_drop_guard_tower.toml", out_dir=out, png=False)
    return res.replay_path


def test_real_replay_payload_appears_when_dropped(guard_tower_replay):
    r = rp.load_replay(guard_tower_replay)
    pb = ReplayPlayback(r)
    assert "crate_supply1" not in pb.poses()
    pb.jump_to_turn(2)  # called on turn 1, the Bombardment falls at the Falcons' turn 2 (13.2)
    assert pb.turn == 2 and "crate_supply1" in pb.poses()
    assert pb.poses()["crate_supply1"][0][2] > 9.0  # held 10" up
    flights = [m for m in pb.index.moments
               if m.kind == "flight" and m.bodies == ("crate_supply1",)]
    # released 10" up, it lands on the guard's head on the tower, about 5.5" up
    assert flights and 4.0 < flights[0].score < 5.0
    impacts = [i for i, e in enumerate(r.events) if e["type"] == "impact"]
    pb.jump_to_event(impacts[0])
    assert pb.events()[-1]["time"] <= pb.time + 1e-5  # nothing from the future
    assert r.events[impacts[0]] in pb.events()


def test_cli_verify_shipped_scene_and_a_tampered_one(guard_tower_replay, tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["replay", str(guard_tower_replay), "--verify"])
    assert res.exit_code == 0, res.output
    assert "largest position difference 0.000000" in res.output
    r = rp.load_replay(guard_tower_replay)
    tr = r.tracks["crate_supply1"]
    x, y, z = tr.positions[5]
    tr.positions[5] = (x + 0.25, y, z)
    bad = rp.save_replay(r, tmp_path / "tampered.replay")
    res = runner.invoke(app, ["replay", str(bad), "--verify"])
    assert res.exit_code == 1
    assert "largest position difference 0.25" in res.output


def test_cli_info_lists_moments(guard_tower_replay):
    res = CliRunner().invoke(app, ["replay", str(guard_tower_replay), "--info"])
    assert res.exit_code == 0, res.output
    assert "dramatic moments" in res.output and "supply crate (2456) flies" in res.output
    res = CliRunner().invoke(app, ["replay", str(guard_tower_replay) + ".missing", "--info"])
    assert res.exit_code == 2 and "cannot read replay" in res.output


@pytest.fixture(scope="module")
def wall_demolition(tmp_path_factory):
    """The rule book's Wall Demolition (8.4): the wall breaks into pieces in turn 1."""
    from sandbox.engine.playback import replay_assets

    out = tmp_path_factory.mktemp("wd")
    res = run_scene(REPO / "scenes" / "wall_demolition.toml", out_dir=out, png=False)
    r = rp.load_replay(res.replay_path)
    return res.replay_path, r, replay_assets(r)


def test_broken_creation_is_drawn_whole_from_frame_0(wall_demolition):
    from sandbox.render.replay_view import ReplayDrawing

    _, r, assets = wall_demolition
    scene_bodies = [e["id"] for group in ("creations", "units") for e in r.scene[group]]
    at0 = r.poses_at(0)
    assert set(scene_bodies) <= set(at0), sorted(at0)
    # the explosion replaced the wall by pieces in the game; the replay still draws it
    assert "wall" not in r.poses_at(r.frames - 1) and any(k.startswith("wall#") for k in r.tracks)
    assert set(r.tracks) <= set(assets)
    drawn = {b.key for b in ReplayDrawing.for_replay(r, assets).view(at0).bodies}
    assert drawn == set(at0)
    # every frame draws something: no body recorded without a mesh, none missing before
    pb = ReplayPlayback(r)
    for f in range(r.frames):
        pb.seek(f)
        assert set(pb.poses()) <= set(assets)


def test_moments_and_info_use_body_names(wall_demolition):
    path, r, _ = wall_demolition
    index = ReplayIndex(r)
    assert index.body_name("reale") == "Private Reale"
    assert index.body_name("wall#2") == "blast wall (piece 2)"
    assert index.body_name("wall~89") == "blast wall (part 89)"
    assert index.body_name("nobody") == "nobody"
    res = CliRunner().invoke(app, ["replay", str(path), "--info"])
    assert res.exit_code == 0, res.output
    assert "Private Reale flies" in res.output and "blast wall (part" in res.output
    import re

    assert not re.search(r"\b(reale|templin) flies|wall[#~]\d", res.output), res.output


def test_cli_window_size_defaults_to_play_s(guard_tower_replay, monkeypatch):
    from sandbox.app import replay_cli

    seen = {}
    monkeypatch.setattr(replay_cli, "open_window",
                        lambda path, ldrawdir=None, size=None, shadows=True: seen.update(size=size))
    res = CliRunner().invoke(app, ["replay", str(guard_tower_replay)])
    assert res.exit_code == 0, res.output
    assert seen["size"] == (1280, 720)
