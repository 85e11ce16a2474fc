"""A group's Brigandine tables folder is untrusted (issue 28): every hostile folder gives one
line naming the file, never a traceback nor a silent fallback to the default tables."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sandbox.core.errors import SceneError
from sandbox.rules.brigandine_tables import DEFAULT_DIR, MAX_TABLE_BYTES, load_tables


def _refused(folder, *words: str) -> str:
    with pytest.raises(SceneError) as err:
        load_tables(folder)
    msg = str(err.value)
    assert "\n" not in msg and len(msg) < 400 + len(str(folder)), msg
    for w in words:
        assert w in msg, (w, msg)
    return msg


@pytest.fixture
def own(tmp_path) -> Path:
    d = tmp_path / "tables"
    d.mkdir()
    return d


def test_a_group_folder_with_one_table_replaces_that_one(own):
    shutil.copy(DEFAULT_DIR / "missile.toml", own / "missile.toml")
    t = load_tables(own)
    assert t.sources[0] == str(own / "missile.toml")
    assert t.sources[1] == str(DEFAULT_DIR / "skirmish.toml")


def test_huge_numbers_and_deep_nesting(own):
    f = own / "missile.toml"
    f.write_text("rows = [[" + "9" * 5000 + ", 1, 1, 1, 1, 1]]\n")
    _refused(own, str(f), "not valid TOML")
    f.write_text("rows = " + "[" * 3000 + "]" * 3000 + "\n")
    _refused(own, str(f))
    f.write_text("x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n")
    _refused(own, str(f))


def test_misspelt_empty_and_foreign_folders(own, tmp_path):
    _refused(own, str(own), "none of the Brigandine table files")  # empty
    (own / "misile.toml").write_text((DEFAULT_DIR / "missile.toml").read_text())
    _refused(own, str(own / "misile.toml"), "did you mean missile.toml")
    _refused("/etc", "/etc")
    _refused(tmp_path / "no_such_folder", "must be a folder")
    (tmp_path / "a_file").write_text("x")
    _refused(tmp_path / "a_file", "must be a folder")
    _refused(tmp_path / ("n" * 300), "n" * 40)  # a name over the file system's limit


def test_not_a_regular_file_in_place_of_a_table(own):
    (own / "skirmish.toml").mkdir()
    _refused(own, str(own / "skirmish.toml"), "folder")
    os.rmdir(own / "skirmish.toml")
    os.mkfifo(own / "skirmish.toml")  # a reader would block on it forever
    _refused(own, str(own / "skirmish.toml"), "FIFO")
    os.unlink(own / "skirmish.toml")
    os.symlink("/dev/zero", own / "skirmish.toml")
    _refused(own, str(own / "skirmish.toml"), "device")


def test_a_100_mb_file_is_refused_unread(own):
    f = own / "fantasy.toml"
    with open(f, "wb") as fh:
        fh.truncate(100 * 1024 * 1024)  # sparse: 100 MB without writing them
    _refused(own, str(f), "100.0 MiB, over")
    with open(f, "wb") as fh:
        fh.truncate(MAX_TABLE_BYTES + 1)  # under the general file limit, over the tables'
    _refused(own, str(f), f"over the {MAX_TABLE_BYTES} bytes")


def test_true_is_not_one_and_a_million_rows_are_refused(own):
    f = own / "missile.toml"
    text = (DEFAULT_DIR / "missile.toml").read_text()
    f.write_text(text.replace("max_unit_size = 4", "max_unit_size = true"))
    assert "max_unit_size = true" in f.read_text()
    _refused(own, str(f), "max_unit_size", "valid integer")
    f.write_text("rows = [" + ",".join(["[1,1,1,1,1,1]"] * 1_000_000) + "]\n")  # 14 MB
    _refused(own, str(f))
    f.write_text("rows = [" + ",".join(["[1,1,1,1,1,1]"] * 5000) + "]\n")  # 70 KB, too many
    _refused(own, str(f), "rows")
