"""A full disk under ``--out`` at a symbolic link or a mount point (where the folders cannot be
swapped): the message is honest (issue 28): every file is written in full first, so a failure
while writing leaves the whole previous set, as the message says."""

from __future__ import annotations

import errno
import os

import pytest

from sandbox.app import outputs
from sandbox.core.errors import OutputError

OLD = {"events.jsonl": b"old events\n", "x.replay": b"old replay", "x.png": b"old picture"}
NEW = {"events.jsonl": b"new events\n", "x.replay": b"new replay", "x.png": b"new picture"}


@pytest.fixture
def linked_out(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    for name, data in OLD.items():
        (real / name).write_bytes(data)
    link = tmp_path / "out"
    os.symlink(real, link)  # a symbolic link: not swappable, written file by file
    return link, real


def _full_disk_after(monkeypatch, n_ok: int):
    """os.fsync fails with ENOSPC after ``n_ok`` files (as a full disk does at the flush)."""
    calls = {"n": 0}
    real_fsync = os.fsync

    def fsync(fd):
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            return real_fsync(fd)
        calls["n"] += 1
        if calls["n"] > n_ok:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_fsync(fd)

    monkeypatch.setattr(outputs.os, "fsync", fsync)


def test_a_full_disk_at_the_picture_leaves_the_whole_old_set(linked_out, monkeypatch):
    link, real = linked_out
    _full_disk_after(monkeypatch, 2)  # events and replay fit, the picture does not
    with pytest.raises(OutputError) as err:
        outputs.write_output_set(link, NEW)
    msg = str(err.value)
    assert "No space left on device" in msg and "previous ones are left as they were" in msg
    assert {p.name: p.read_bytes() for p in real.iterdir()} == OLD  # and no temporary file


def test_the_set_is_written_through_a_link(linked_out):
    link, real = linked_out
    outputs.write_output_set(link, NEW)
    assert {p.name: p.read_bytes() for p in real.iterdir()} == NEW
    assert os.path.islink(link)


def test_a_failure_between_renames_says_which_files_are_new(linked_out, monkeypatch):
    link, real = linked_out
    real_replace = os.replace
    calls = {"n": 0}

    def replace(a, b):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real_replace(a, b)

    monkeypatch.setattr(outputs.os, "replace", replace)
    with pytest.raises(OutputError) as err:
        outputs.write_output_set(link, NEW)
    msg = str(err.value)
    assert "events.jsonl, x.replay are new, x.png are still the previous run's" in msg
    assert "left as they were" not in msg
    assert [p.name for p in real.iterdir() if p.name.startswith(".")] == []
