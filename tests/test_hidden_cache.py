"""The hidden studs and tubes of a creation kept on disk (issue 26,
``sandbox.bricks.hiddencache``, through ``visible.cached_hidden_features``): a second read
gives what computing gives, bit for bit; a changed part, placement or colour misses; a
corrupt entry is computed again; the picture's geometry is the same either way."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from sandbox.bricks import hiddencache, partcache, visible
from sandbox.bricks.model import load_model

IDENTITY = "1 0 0 0 1 0 0 0 1"


def _model(folder: Path, ldrawdir, lines: list[str], part_text: str | None = None):
    folder.mkdir(parents=True, exist_ok=True)
    if part_text is not None:  # a part of the model's own folder
        (folder / "mybrick.dat").write_text(part_text, encoding="utf-8")
    path = folder / "m.ldr"
    path.write_text("0 test\n0 Name: m.ldr\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return load_model(path, ldrawdir=ldrawdir)


def _line(colour: int, x: float, y: float, z: float, part: str) -> str:
    return f"1 {colour} {x} {y} {z} {IDENTITY} {part}"


#: A wall: two 2 x 4 bricks, one across their joint (its underside closed), one half over
#: the end (open), and a 2 x 2 beside: studs and tubes hidden, some not.
WALL = [_line(4, -40, 0, 0, "3001.dat"), _line(1, 0, -24, 0, "3001.dat"),
        _line(4, 40, 0, 0, "3001.dat"), _line(14, 80, -24, 0, "3001.dat"),
        _line(2, 140, 0, 0, "3003.dat")]


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv(partcache.CACHE_ENV, str(d))
    return d


def _entries(d: Path) -> list[Path]:
    """The folder's hidden-feature entries (the parts' own entries share it)."""
    found = []
    for p in sorted(d.glob("*.npz")):
        try:
            with np.load(p, allow_pickle=False) as z:
                if "closed" in z.files:
                    found.append(p)
        except (ValueError, OSError):  # a corrupt one: a test wrote it
            found.append(p)
    return found


def _key(m) -> str:
    return hiddencache.entry_key(m, m.placements, [visible._opaque(m, p) for p in m.placements])


def _same(a, b) -> None:
    assert len(a.studs) == len(b.studs) and len(a.tubes) == len(b.tubes)
    for x, y in zip(a.studs + a.tubes + (a.closed,), b.studs + b.tubes + (b.closed,),
                    strict=True):
        assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)


def _no_compute(monkeypatch) -> None:
    def refuse(*_a, **_k):
        raise AssertionError("computed, not read from the cache")
    monkeypatch.setattr(visible, "hidden_features", refuse)


def test_a_second_read_gives_the_computed_arrays_bit_for_bit(ldrawdir, tmp_path, cache,
                                                            monkeypatch):
    m = _model(tmp_path / "a", ldrawdir, WALL)
    want = visible.hidden_features(m)
    assert want.hidden_studs == 8 and want.hidden_tubes == 3  # a real answer, not all
    first = visible.cached_hidden_features(m)
    _same(first, want)
    assert len(_entries(cache)) == 1
    _no_compute(monkeypatch)
    again = visible.cached_hidden_features(m)
    _same(again, want)
    # a model read again from its file (another process would) finds the entry as well
    _same(visible.cached_hidden_features(_model(tmp_path / "b", ldrawdir, WALL)), want)


def test_the_culled_geometry_is_the_same_from_the_cache(ldrawdir, tmp_path, cache):
    """What the picture draws: ``visible_mesh`` with the read answer is the computed one's."""
    m = _model(tmp_path / "a", ldrawdir, WALL)
    visible.cached_hidden_features(m)  # stored
    fresh = visible.visible_mesh(m, hidden=visible.hidden_features(m), low_res=True)
    read = visible.visible_mesh(m, hidden=visible.cached_hidden_features(m), low_res=True)
    for a, b in zip((*vars(fresh[0]).values(), *vars(fresh[1]).values()),
                    (*vars(read[0]).values(), *vars(read[1]).values()), strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)


@pytest.mark.parametrize("change, why", [
    (lambda w: [w[0], _line(1, 10, -24, 0, "3001.dat"), *w[2:]], "a brick moved"),
    (lambda w: [w[0], _line(47, 0, -24, 0, "3001.dat"), *w[2:]], "a brick made translucent"),
    (lambda w: w[:4], "a part taken away"),
    (lambda w: [w[0], _line(1, 0, -24, 0, "3002.dat"), *w[2:]], "another part"),
])
def test_a_changed_placement_misses(ldrawdir, tmp_path, cache, change, why):
    m = _model(tmp_path / "a", ldrawdir, WALL)
    visible.cached_hidden_features(m)
    other = _model(tmp_path / "b", ldrawdir, change(WALL))
    assert _key(other) != _key(m), why
    _same(visible.cached_hidden_features(other), visible.hidden_features(other))
    assert len(_entries(cache)) == 2, why


def test_a_changed_part_file_misses(ldrawdir, tmp_path, cache):
    """A part of the model's folder edited between two runs: same name, same placements,
    other geometry (the brick inside it moved half a stud): the entry is not read."""
    lines = [_line(4, 0, 0, 0, "3001.dat"), _line(1, 0, -24, 0, "mybrick.dat")]
    before = _model(tmp_path / "a", ldrawdir, lines,
                    "0 my brick\n0 Name: mybrick.dat\n" + _line(16, 0, 0, 0, "3001.dat") + "\n")
    got = visible.cached_hidden_features(before)
    assert got.hidden_studs == 8
    after = _model(tmp_path / "b", ldrawdir, lines,
                   "0 my brick\n0 Name: mybrick.dat\n" + _line(16, 10, 0, 0, "3001.dat") + "\n")
    assert hiddencache.part_digest(after.parts["mybrick.dat"]) != \
        hiddencache.part_digest(before.parts["mybrick.dat"])
    now = visible.cached_hidden_features(after)
    _same(now, visible.hidden_features(after))
    assert now.hidden_studs == 0  # half a stud over the edge: open underneath
    assert len(_entries(cache)) == 2


def _write_bad(path: Path, how: str, good: bytes) -> None:
    if how == "truncated":
        path.write_bytes(good[: len(good) // 2])
    elif how == "garbage":
        path.write_bytes(b"not a zip file at all" * 10)
    elif how == "short arrays":  # a well-formed entry of the wrong lengths
        import io
        z = np.load(io.BytesIO(good), allow_pickle=False)
        arrays = {k: z[k] for k in z.files}
        arrays["studs"] = arrays["studs"][:-1]
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        path.write_bytes(buf.getvalue())
    else:  # floats where bools belong
        import io
        z = np.load(io.BytesIO(good), allow_pickle=False)
        arrays = {k: z[k] for k in z.files}
        arrays["closed"] = arrays["closed"].astype(float)
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        path.write_bytes(buf.getvalue())


@pytest.mark.parametrize("how", ["truncated", "garbage", "short arrays", "wrong type"])
def test_a_corrupt_entry_is_computed_again(ldrawdir, tmp_path, cache, caplog, how):
    m = _model(tmp_path / "a", ldrawdir, WALL)
    want = visible.hidden_features(m)
    visible.cached_hidden_features(m)
    (entry,) = _entries(cache)
    good = entry.read_bytes()
    _write_bad(entry, how, good)
    with caplog.at_level(logging.WARNING, logger="sandbox.bricks.partcache"):
        got = visible.cached_hidden_features(m)
    _same(got, want)
    assert any("ignored" in r.getMessage() for r in caplog.records)
    assert entry.read_bytes() == good  # stored again, whole


def test_with_the_cache_off_it_computes(ldrawdir, tmp_path, monkeypatch):
    monkeypatch.setenv(partcache.CACHE_ENV, "off")
    m = _model(tmp_path / "a", ldrawdir, WALL)
    _same(visible.cached_hidden_features(m), visible.hidden_features(m))
    assert not list(tmp_path.rglob("*.npz"))


def test_the_picture_geometry_reads_the_cache(ldrawdir, tmp_path, cache, monkeypatch):
    """``creation_geometry`` (what a picture draws) stores the answer, and a later process
    (a model read again) draws the same triangles from it without computing."""
    m = _model(tmp_path / "a", ldrawdir, WALL)
    tags = np.arange(len(m.placements))
    first, _ = visible.creation_geometry(m, m.placements, tags, cull=True, low_res=True)
    assert len(_entries(cache)) == 1
    _no_compute(monkeypatch)
    again = _model(tmp_path / "b", ldrawdir, WALL)
    second, _ = visible.creation_geometry(again, again.placements, tags, cull=True,
                                          low_res=True)
    for a, b in zip(vars(first).values(), vars(second).values(), strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
