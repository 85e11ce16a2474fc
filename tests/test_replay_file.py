"""Replay files: round trip, bodies at rest cost nothing, and bad files give clear errors."""

import json
import zipfile

import numpy as np
import pytest

from sandbox.core.errors import ReplayError
from sandbox.engine import replay as rp


def sample() -> rp.Replay:
    rec = rp.Recorder(1 / 60)
    for f in range(30):
        z = max(0.0, 10 - 0.5 * f)
        rec.record({"moving": ((0.0, 0.0, z), (0, 0, 0, 1)),
                    "still": ((1.0, 2.0, 0.5), (0, 0, 0, 1))})
    rec.finish({"moving": ((0.0, 0.0, 0.0), (0, 0, 0, 1)),
                "still": ((1.0, 2.0, 0.5), (0, 0, 0, 1))})
    return rp.Replay(scene={"name": "t"}, seed=5, actions=[{"type": "big_drop"}],
                     events=[{"type": "setup", "text": "x"}], tracks=rec.tracks,
                     frame_dt=rec.frame_dt, frames=rec.frame, meta={"scene_dir": "/x"})


def test_round_trip(tmp_path):
    r = sample()
    path = rp.save_replay(r, tmp_path / "a.replay")
    back = rp.load_replay(path)
    assert back.seed == 5 and back.scene == {"name": "t"} and back.events == r.events
    assert back.meta == {"scene_dir": "/x"}
    for key in r.tracks:
        assert back.tracks[key].frames == r.tracks[key].frames
        np.testing.assert_allclose(back.tracks[key].positions, r.tracks[key].positions, atol=1e-4)
    # Poses between stored frames are the last stored pose.
    pos, _ = back.tracks["moving"].pose_at(5)
    assert pos[2] == pytest.approx(7.5)


def test_bodies_at_rest_cost_nothing():
    r = sample()
    assert len(r.tracks["still"].frames) == 1  # stored once, never again
    assert len(r.tracks["moving"].frames) == 21  # 20 falling frames + the last one


def test_not_pickle(tmp_path):
    path = rp.save_replay(sample(), tmp_path / "a.replay")
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            assert name.endswith(".npy")
            head = z.read(name)[:128]
            assert b"'descr': '|O'" not in head  # no object arrays


def test_truncated_file(tmp_path):
    path = rp.save_replay(sample(), tmp_path / "a.replay")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ReplayError, match="truncated or corrupted"):
        rp.load_replay(path)


def test_corrupted_contents_fail_checksum(tmp_path):
    r = sample()
    r.tracks["moving"].positions[3] = (0.0, 0.0, 99.0)
    path = rp.save_replay(r, tmp_path / "a.replay")
    # Tamper: rewrite one array inside the archive with different numbers.
    with np.load(path, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays["b0_pos"] = arrays["b0_pos"] + 1
    np.savez_compressed(tmp_path / "b.npz", **arrays)
    with pytest.raises(ReplayError, match="checksum"):
        rp.load_replay(tmp_path / "b.npz")


def test_unknown_version(tmp_path):
    r = sample()
    header = r.header()
    header["version"] = 99
    np.savez_compressed(tmp_path / "v.npz",
                        header_json=np.frombuffer(json.dumps(header).encode(), np.uint8))
    with pytest.raises(ReplayError, match="version 99"):
        rp.load_replay(tmp_path / "v.npz")


def test_not_a_replay(tmp_path):
    p = tmp_path / "x.replay"
    p.write_text("hello")
    with pytest.raises(ReplayError):
        rp.load_replay(p)
    with pytest.raises(ReplayError, match="cannot read"):
        rp.load_replay(tmp_path / "missing.replay")


def test_failed_write_keeps_previous_file(tmp_path, monkeypatch):
    path = rp.save_replay(sample(), tmp_path / "a.replay")
    good = path.read_bytes()

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(rp.os, "fsync", boom)
    with pytest.raises(OSError, match="disk full"):
        rp.save_replay(sample(), path)
    assert path.read_bytes() == good
    assert [p.name for p in tmp_path.iterdir()] == ["a.replay"]  # no temp file left behind
