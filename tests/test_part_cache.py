"""The on-disk part cache (issue 26, ``sandbox.bricks.partcache``): a part read back from it
is the part built from its files bit for bit; a corrupt entry is ignored with a warning and
rebuilt; a changed subfile makes an entry stale; the cache can be switched off and honours
``XDG_CACHE_HOME``; the folder stays bounded."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np
import pytest

from sandbox.bricks import catalogue, partcache
from sandbox.bricks.library import LDrawLibrary
from sandbox.bricks.partmesh import PartMesh, Resolver

ARRAYS = [name for name, _, _ in partcache._ARRAYS]
QUAD = "4 16 -10 0 -10 10 0 -10 10 0 10 -10 0 10"


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv(partcache.CACHE_ENV, str(d))
    return d


def same_part(a: PartMesh, b: PartMesh) -> None:
    """Every array the same dtype, shape and bytes; every other field equal."""
    for name in ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert x.tobytes() == y.tobytes(), name
    assert (a.name, a.title, a.source, a.mass_g, a.warnings) == (
        b.name, b.title, b.source, b.mass_g, b.warnings)
    assert (a.features is None) == (b.features is None)
    for x, y in zip(a.features or (), b.features or (), strict=True):
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes()


def fresh(root: Path) -> Resolver:
    """A library opened as a new process would (no parsed files, no parts in memory)."""
    return Resolver(LDrawLibrary(root))


def entries(d: Path) -> list[Path]:
    return sorted(d.glob("*.npz")) if d.is_dir() else []


def test_a_cached_library_part_is_the_built_part_bit_for_bit(ldrawdir, cache, monkeypatch):
    monkeypatch.setenv(partcache.CACHE_ENV, "off")
    built = fresh(ldrawdir).part_mesh("3001.dat")  # no cache at all
    assert not entries(cache)
    monkeypatch.setenv(partcache.CACHE_ENV, str(cache))
    first = fresh(ldrawdir).part_mesh("3001.dat")  # builds and writes the entry
    assert len(entries(cache)) == 1
    r = fresh(ldrawdir)
    again = r.part_mesh("3001.dat")
    assert "3001.dat" not in r.library._files  # read from the cache: the file was not parsed
    for got in (first, again):
        same_part(built, got)
    assert len(built.triangles) > 100 and len(built.studs) == 8
    assert built.features is not None and (built.features[0] >= 0).any()  # studs tagged
    assert not again.triangles.flags.writeable  # read-only, as a built part's arrays


def test_round_trip_of_an_entry(ldrawdir):
    pm = fresh(ldrawdir).part_mesh("3039.dat")
    deps = [("s/3039s01.dat", "ab" * 32), ("nothing.dat", "")]
    back, got_deps = partcache.decode(partcache.encode(pm, deps), PartMesh)
    same_part(pm, back)
    assert got_deps == deps


def test_catalogue_parts_are_cached_bit_for_bit(cache):
    for name in ("3626b.dat", "973.dat", "3001.dat", "3062b.dat"):
        built = catalogue._generate(name)
        entry = partcache.entry_key("catalogue", name)
        assert partcache.load(entry, name, lambda dep: "", PartMesh) is None
        partcache.store(entry, built, [])
        same_part(built, partcache.load(entry, name, lambda dep: "", PartMesh))


def test_a_corrupt_entry_is_ignored_with_a_warning_and_rebuilt(ldrawdir, cache, caplog):
    want = fresh(ldrawdir).part_mesh("3001.dat")
    (entry,) = entries(cache)
    good = entry.read_bytes()
    for bad in (b"", b"not a zip file", good[: len(good) // 2],
                partcache.encode(want, [])[:-40]):
        entry.write_bytes(bad)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="sandbox.bricks.partcache"):
            got = fresh(ldrawdir).part_mesh("3001.dat")
        same_part(want, got)
        assert any("part cache entry for 3001.dat ignored" in r.getMessage()
                   for r in caplog.records), bad[:20]
        assert entry.read_bytes() == good  # written again, whole


def test_an_entry_replaced_by_a_folder_is_repaired(ldrawdir, cache, caplog):
    """A folder where an entry goes is removed with the warning, and the part written again
    in its place (it stayed, and every later run warned again)."""
    want = fresh(ldrawdir).part_mesh("3001.dat")
    (entry,) = entries(cache)
    entry.unlink()
    (entry / "inside").mkdir(parents=True)
    with caplog.at_level(logging.WARNING, logger="sandbox.bricks.partcache"):
        got = fresh(ldrawdir).part_mesh("3001.dat")
    same_part(want, got)
    assert any("ignored" in r.getMessage() for r in caplog.records)
    assert entry.is_file()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="sandbox.bricks.partcache"):
        same_part(want, fresh(ldrawdir).part_mesh("3001.dat"))
    assert not caplog.records  # repaired: nothing more to say


def test_a_damaged_folder_says_so_in_a_few_lines_not_one_per_part(ldrawdir, cache, caplog):
    """Eight damaged entries: the first five each in a line, then one line for the rest;
    every part built again the same."""
    names = ["3001.dat", "3002.dat", "3003.dat", "3004.dat", "3005.dat", "3008.dat",
             "3009.dat", "3010.dat"]
    r = fresh(ldrawdir)
    want = {n: r.part_mesh(n) for n in names}
    for entry in entries(cache):
        entry.write_bytes(b"garbage")
    with caplog.at_level(logging.WARNING, logger="sandbox.bricks.partcache"):
        r = fresh(ldrawdir)
        for n in names:
            same_part(want[n], r.part_mesh(n))
    lines = [rec.getMessage() for rec in caplog.records]
    assert len(entries(cache)) >= len(names)
    assert len(lines) == partcache.MAX_BAD_LOGGED + 1, lines
    assert "rebuilt without a line each" in lines[-1]


def test_an_entry_of_the_wrong_shape_is_refused(ldrawdir):
    pm = fresh(ldrawdir).part_mesh("3001.dat")
    bad = PartMesh(pm.name, pm.title, pm.triangles.reshape(-1, 3), pm.colours, pm.certified,
                   pm.edges, pm.edge_colours, pm.studs, pm.stud_axes, pm.tubes, pm.bounds,
                   pm.mass_g, pm.source)
    with pytest.raises(partcache.EntryError, match="triangles"):
        partcache.decode(partcache.encode(bad, []), PartMesh)
    import io

    buf = io.BytesIO()
    np.savez(buf, header=np.array([object()], dtype=object))
    with pytest.raises(partcache.EntryError):
        partcache.decode(buf.getvalue(), PartMesh)  # pickled data is never loaded


def _part(path: Path, title: str, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"0 {title}\n0 Name: {path.name}\n0 !LDRAW_ORG Part\n0 BFC CERTIFY CCW\n"
                    f"{body}\n", encoding="utf-8")


def test_a_changed_subfile_makes_the_entry_stale(tmp_path, cache):
    lib = tmp_path / "ldraw"
    _part(lib / "parts" / "9001.dat", "Part", "1 16 0 0 0 1 0 0 0 1 0 0 0 1 s\\9001s01.dat")
    _part(lib / "parts" / "s" / "9001s01.dat", "~Sub", QUAD)
    first = fresh(lib).part_mesh("9001.dat")
    assert first.bounds[1][0] == 10.0
    assert len(entries(cache)) == 1
    _part(lib / "parts" / "s" / "9001s01.dat", "~Sub", QUAD.replace("10", "30"))
    os.utime(lib / "parts" / "s" / "9001s01.dat", ns=(1, 1))  # another mtime, surely
    second = fresh(lib).part_mesh("9001.dat")
    assert second.bounds[1][0] == 30.0  # not the stale entry
    # a subfile that appears where there was none (here: a primitive it names) counts too
    _part(lib / "parts" / "9002.dat", "Part 2", "1 16 0 0 0 1 0 0 0 1 0 0 0 1 later.dat")
    assert len(fresh(lib).part_mesh("9002.dat").triangles) == 0
    _part(lib / "p" / "later.dat", "Primitive", QUAD)
    assert len(fresh(lib).part_mesh("9002.dat").triangles) == 2


def test_the_cache_can_be_switched_off(ldrawdir, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    for off in ("off", "0", "no"):
        monkeypatch.setenv(partcache.CACHE_ENV, off)
        assert partcache.cache_dir() is None
        fresh(ldrawdir).part_mesh("3001.dat")
        partcache.store(partcache.entry_key("catalogue", "3001.dat"),
                        catalogue._generate("3001.dat"), [])
    assert not (tmp_path / "xdg").exists()


def test_the_folder_follows_xdg_cache_home(tmp_path, monkeypatch):
    monkeypatch.delenv(partcache.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert partcache.cache_dir() == tmp_path / "xdg" / "brikwars-sandbox" / "parts"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/is/ignored")  # the XDG rule
    assert partcache.cache_dir() == Path.home() / ".cache" / "brikwars-sandbox" / "parts"


def test_an_unwritable_folder_is_no_error(ldrawdir, tmp_path, monkeypatch):
    blocker = tmp_path / "a file"
    blocker.write_text("x")
    monkeypatch.setenv(partcache.CACHE_ENV, str(blocker / "cache"))
    same_part(fresh(ldrawdir).part_mesh("3001.dat"), fresh(ldrawdir).part_mesh("3001.dat"))


def test_the_folder_is_kept_bounded(cache):
    pm = catalogue._generate("3001.dat")
    keys = [partcache.entry_key("catalogue", f"test {i}") for i in range(4)]
    for i, k in enumerate(keys):
        partcache.store(k, pm, [])
        p = cache / f"{k}.npz"
        os.utime(p, ns=(i * 10**9, i * 10**9))  # oldest first
    size = (cache / f"{keys[0]}.npz").stat().st_size
    partcache._prune(cache, limit=2 * size)
    assert [p.stem for p in entries(cache)] == sorted(keys[2:])
    assert partcache.clear() == 2 and not entries(cache)


def test_low_resolution_parts_are_cached_bit_for_bit(ldrawdir, cache, monkeypatch):
    """The low-resolution stud variant (render-cull's ``low_res_part``) has its own entries,
    read back the same as made."""
    from types import SimpleNamespace

    from sandbox.bricks.lowres import low_res_part

    def low(name: str) -> PartMesh:
        lib = LDrawLibrary(ldrawdir)  # a new process's library: no parts in memory
        model = SimpleNamespace(parts={name: Resolver(lib).part_mesh(name)}, library=lib)
        return low_res_part(model, name)

    monkeypatch.setenv(partcache.CACHE_ENV, "off")
    made = low("3001.dat")
    monkeypatch.setenv(partcache.CACHE_ENV, str(cache))
    first = low("3001.dat")
    assert len(entries(cache)) == 2  # the part and its low-resolution variant
    again = low("3001.dat")
    for got in (first, again):
        same_part(made, got)
    full = fresh(ldrawdir).part_mesh("3001.dat")
    assert len(made.triangles) < len(full.triangles)  # fewer segments in the studs
