"""Expanded part geometry kept on disk between runs (issue 26: a part is built once).

A :class:`~sandbox.bricks.partmesh.PartMesh` (triangles, colours, edges, studs, tubes, bounds,
mass, warnings) of an LDraw library part, or of a part of the built-in catalogue, is written the
first time it is expanded and read back by later processes instead of parsing the part and all
its subfiles (or, for the catalogue, generating it with trimesh) again.

Key and validity. An entry's file name is the SHA-256 of the cache format, the code that
expands parts (the source of ``ldraw.py``, ``partmesh.py``, ``catalogue.py``, ``colours.py``
and ``lowres.py``: any change to how parts are made makes new entries), the ``nesting`` limit, the
library's colour table file (``LDConfig.ldr``), the part's name and the **part file's own
content**. A library part also depends on its subfiles (``s/``, primitives): the entry lists
every file the expansion looked up with its content hash (``""`` for one not found), and a
read checks each again (reading and hashing a file is far cheaper than parsing and expanding
it), so a changed, added or removed subfile makes the entry stale. A stale entry is rebuilt
and replaced.

Format: one NumPy ``.npz`` per part (``np.savez``, read with ``allow_pickle=False``: no code
is ever loaded from the cache) holding the arrays (with the stud-primitive tags,
``PartMesh.features``, when the part has them) and a JSON header (title, source, mass,
warnings, dependencies). Writes are atomic (a temporary file in the same folder, then
``os.replace``). The folder is bounded (:data:`MAX_CACHE_BYTES`, oldest entries removed first)
and so is an entry (:data:`MAX_ENTRY_BYTES`, larger parts are not kept). An entry that cannot
be read or does not hold what it should (a truncated file, another format, wrong shapes) is
ignored with one warning on the log (``logging``, never a traceback) and rebuilt.

Other results made from parts share the folder and its bound through :func:`store_arrays`
and :func:`load_arrays` (named arrays and a JSON header, keyed by their caller: the hidden
studs of a creation, :mod:`sandbox.bricks.hiddencache`).

Where: ``$SANDBOX_PART_CACHE`` if set (a folder; ``off``, ``0`` or ``no`` switch the cache off),
else ``$XDG_CACHE_HOME/brikwars-sandbox/parts``, else ``~/.cache/brikwars-sandbox/parts``
(the XDG Base Directory rule). A folder that cannot be made or written switches the cache off
for the process, quietly (it is only a cache).
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import tempfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from sandbox.bricks.load_warning import LoadWarning

if TYPE_CHECKING:  # pragma: no cover
    from sandbox.bricks.partmesh import PartMesh

log = logging.getLogger(__name__)

#: Environment variable naming the cache folder, or ``off`` to switch it off.
CACHE_ENV = "SANDBOX_PART_CACHE"
#: Values of :data:`CACHE_ENV` that switch the cache off.
OFF_VALUES = frozenset(("off", "0", "no", "false", "none"))
#: Bumped when the entry layout changes.
FORMAT = 1
#: Largest entry written or read, bytes.
MAX_ENTRY_BYTES = 32 * 1024 * 1024
#: The folder is pruned to this size (oldest entries first) when a write takes it over, bytes.
MAX_CACHE_BYTES = 512 * 1024 * 1024
#: Largest JSON header read, bytes.
_MAX_HEADER_BYTES = 4 * 1024 * 1024

#: (name, dtype kind, trailing shape) of every array of an entry, in PartMesh field order.
_ARRAYS: tuple[tuple[str, str, tuple[int, ...]], ...] = (
    ("triangles", "f", (3, 3)),
    ("colours", "i", ()),
    ("certified", "b", ()),
    ("edges", "f", (2, 3)),
    ("edge_colours", "i", ()),
    ("studs", "f", (3,)),
    ("stud_axes", "f", (3,)),
    ("tubes", "f", (3,)),
    ("bounds", "f", (3,)),
    ("optional", "f", (4, 3)),
    ("optional_colours", "i", ()),
)
#: The stud-primitive tags (``PartMesh.features``: which stud or tube draws each triangle,
#: edge and optional line), kept when the part has them.
_FEATURES = ("features_triangles", "features_edges", "features_optional")
_SOURCES = ("library", "catalogue")

_STATE: dict = {"dir": None, "dir_env": None, "broken": False, "code": None, "bytes": {}}
_FILE_DIGESTS: dict[tuple[str, int, int], str] = {}
#: Damaged entries logged one by one per folder (then one line for the rest).
MAX_BAD_LOGGED: int = 5
_BAD_SEEN: dict[str, int] = {}


class EntryError(ValueError):
    """A cache entry that does not hold a valid part (the message says why)."""


def cache_dir() -> Path | None:
    """The cache folder (see the module text), or None when the cache is off."""
    env = os.environ.get(CACHE_ENV)
    if env is not None and env.strip().lower() in OFF_VALUES:
        return None
    if env is not None and env.strip():
        return Path(env.strip()).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "brikwars-sandbox" / "parts"


def _usable_dir() -> Path | None:
    """The cache folder, made if needed; None when off or not usable in this process."""
    d = cache_dir()
    if d is None:
        return None
    if _STATE["dir_env"] != str(d):  # the setting changed (tests): try the new folder
        _STATE.update(dir=None, dir_env=str(d), broken=False)
    if _STATE["broken"]:
        return None
    if _STATE["dir"] is None:
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError:
            _STATE["broken"] = True
            return None
        _STATE["dir"] = d
    return _STATE["dir"]


def code_fingerprint() -> str:
    """SHA-256 over the source of the modules that make part geometry (hex)."""
    if _STATE["code"] is None:
        h = hashlib.sha256(f"partcache {FORMAT}".encode())
        here = Path(__file__).resolve().parent
        for name in ("ldraw.py", "partmesh.py", "catalogue.py", "colours.py", "lowres.py", "lod.py",
                     "partcache.py"):
            try:
                h.update((here / name).read_bytes())
            except OSError:  # not installed as source: never share entries across builds
                h.update(os.urandom(16))
        _STATE["code"] = h.hexdigest()
    return _STATE["code"]


def file_digest(path: str | Path | None) -> str:
    """SHA-256 (hex) of a file's bytes, ``""`` for None; remembered while the file's size and
    modification time stay the same.

    Raises
    ------
    OSError
        The file cannot be read.
    """
    if path is None:
        return ""
    st = os.stat(path)
    key = (str(path), st.st_size, st.st_mtime_ns)
    got = _FILE_DIGESTS.get(key)
    if got is None:
        got = _FILE_DIGESTS[key] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return got


def entry_key(*parts: str) -> str:
    """The entry name for ``parts`` (part name, content hashes...) under this code (hex)."""
    h = hashlib.sha256(code_fingerprint().encode())
    for p in parts:
        h.update(b"\0" + p.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _entry_path(d: Path, key: str) -> Path:
    return d / f"{key}.npz"


def encode(pm: PartMesh, deps: list[tuple[str, str]]) -> bytes:
    """An entry's bytes: the part's arrays and a JSON header (``np.savez``, no pickle)."""
    header = {"format": FORMAT, "name": pm.name, "title": pm.title, "source": pm.source,
              "mass_g": pm.mass_g, "deps": [list(d) for d in deps],
              "warnings": [[w.path, w.line, w.message] for w in pm.warnings]}
    arrays: dict[str, Any] = {name: np.asarray(getattr(pm, name)) for name, _, _ in _ARRAYS}
    features = getattr(pm, "features", None)
    if features is not None:
        arrays.update(zip(_FEATURES, (np.asarray(f) for f in features), strict=True))
    arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    buf = io.BytesIO()
    np.savez(buf, allow_pickle=False, **arrays)
    return buf.getvalue()


def decode(data: bytes, cls: type[PartMesh]) -> tuple[PartMesh, list[tuple[str, str]]]:
    """The part (a ``cls``: :class:`~sandbox.bricks.partmesh.PartMesh`) and its dependencies
    from an entry's bytes.

    Raises
    ------
    EntryError
        Not an entry of this format, or one whose arrays have the wrong type or shape.
    """
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            files = set(z.files)
            want = {"header"} | {name for name, _, _ in _ARRAYS}
            tagged = files == want | set(_FEATURES)
            if files != want and not tagged:
                raise EntryError(f"holds {sorted(files)[:12]}, not a part entry")
            raw = z["header"]
            if raw.dtype != np.uint8 or raw.ndim != 1 or raw.size > _MAX_HEADER_BYTES:
                raise EntryError("its header is not JSON text")
            header = json.loads(raw.tobytes().decode("utf-8"))
            arrays = {name: z[name] for name, _, _ in _ARRAYS}
            tags = tuple(z[name] for name in _FEATURES) if tagged else None
    except EntryError:
        raise
    except (ValueError, OSError, EOFError, KeyError, RecursionError,
            zipfile.BadZipFile) as exc:  # a truncated or foreign file (UnicodeError: ValueError)
        raise EntryError(f"unreadable ({type(exc).__name__}: {str(exc)[:120]})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise EntryError("another cache format")
    try:
        name, title, source = (str(header["name"]), str(header["title"]),
                               str(header["source"]))
        mass = header["mass_g"]
        warns = tuple(LoadWarning(str(p), None if line is None else int(line), str(m))
                      for p, line, m in header["warnings"])
        deps = [(str(k), str(h)) for k, h in header["deps"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise EntryError(f"its header is incomplete ({exc})") from None
    if source not in _SOURCES or not isinstance(mass, float):
        raise EntryError("its header is incomplete (source, mass)")
    rows = None
    for fname, kind, tail in _ARRAYS:
        a = arrays[fname]
        if a.dtype.kind != kind or a.shape[1:] != tail or a.ndim != 1 + len(tail):
            raise EntryError(f"{fname} has type {a.dtype} shape {a.shape}")
        if fname in ("triangles", "edges", "optional"):
            rows = a.shape[0]
        elif fname in ("colours", "certified", "edge_colours", "optional_colours"):
            if a.shape[0] != rows:
                raise EntryError(f"{fname} has {a.shape[0]} rows, not {rows}")
    if arrays["bounds"].shape != (2, 3) or arrays["studs"].shape != arrays["stud_axes"].shape:
        raise EntryError("bounds or studs have the wrong shape")
    if tags is not None:
        for fname, a, rows in zip(_FEATURES, tags, ("triangles", "edges", "optional"),
                                  strict=True):
            if a.dtype != np.int32 or a.shape != (arrays[rows].shape[0],):
                raise EntryError(f"{fname} has type {a.dtype} shape {a.shape}")
    for a in (*arrays.values(), *(tags or ())):
        a.setflags(write=False)
    more = {} if tags is None else {"features": tags}
    pm = cls(name, title, arrays["triangles"], arrays["colours"], arrays["certified"],
                  arrays["edges"], arrays["edge_colours"], arrays["studs"],
                  arrays["stud_axes"], arrays["tubes"], arrays["bounds"], mass, source, warns,
                  arrays["optional"], arrays["optional_colours"], **more)
    return pm, deps


def _read_entry(path: Path) -> bytes:
    """The bytes of entry file ``path``: EntryError when over :data:`MAX_ENTRY_BYTES`,
    FileNotFoundError when there is none."""
    size = path.stat().st_size
    if size > MAX_ENTRY_BYTES:
        raise EntryError(f"{size} bytes, over {MAX_ENTRY_BYTES}")
    return path.read_bytes()


def load(key: str, name: str, deps_now: Callable[[str], str],
         cls: type[PartMesh]) -> PartMesh | None:
    """The cached part for ``key`` (a ``cls``), or None (no entry, cache off, a stale or bad
    entry).

    ``deps_now(dep)`` gives a dependency's content hash as it is now (``""`` when absent);
    an entry whose dependencies changed is stale. A bad entry is logged once and removed.
    """
    d = _usable_dir()
    if d is None:
        return None
    path = _entry_path(d, key)
    try:
        pm, deps = decode(_read_entry(path), cls)
        if pm.name != name:
            raise EntryError(f"holds part {pm.name!r}, not {name!r}")
    except FileNotFoundError:
        return None
    except (EntryError, OSError) as exc:
        _report_bad(path, f"{path}: part cache entry for {name} ignored ({exc}); the part is "
                    "built again")
        _remove(path)
        return None
    for dep, digest in deps:
        try:
            now = deps_now(dep)
        except OSError:
            return None
        if now != digest:
            return None
    return pm


def store(key: str, pm: PartMesh, deps: list[tuple[str, str]]) -> None:
    """Write ``pm`` as the entry ``key`` (atomically), then keep the folder bounded. Quietly
    does nothing when the cache is off or the folder cannot be written."""
    d = _usable_dir()
    if d is None:
        return
    _write(d, key, encode(pm, deps))


def _write(d: Path, key: str, data: bytes) -> None:
    """Write entry ``key``'s bytes atomically, then keep the folder bounded (quietly nothing
    for an entry over :data:`MAX_ENTRY_BYTES` or a folder that cannot be written)."""
    if len(data) > MAX_ENTRY_BYTES:
        return
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".part-", suffix=".tmp", dir=d)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, _entry_path(d, key))
        tmp = None
    except OSError:
        _STATE["broken"] = True
        return
    finally:
        if tmp is not None:
            _remove(Path(tmp))
    # the folder is read once a process, then its size is counted as entries are written
    # (an overwritten entry counts twice: a prune the sooner, which measures it again)
    used = _STATE["bytes"].get(str(d))
    if used is None or used + len(data) > MAX_CACHE_BYTES:
        used = _prune(d)
    else:
        used += len(data)
    _STATE["bytes"][str(d)] = used


def store_arrays(key: str, arrays: dict[str, np.ndarray], header: dict) -> None:
    """Write named arrays and a JSON ``header`` as the entry ``key`` (another result than a
    part's mesh, such as :mod:`sandbox.bricks.hiddencache`'s), atomically and bounded as
    :func:`store`. Quietly does nothing when the cache is off or cannot be written."""
    d = _usable_dir()
    if d is None:
        return
    out: dict[str, Any] = {name: np.asarray(a) for name, a in arrays.items()}
    out["header"] = np.frombuffer(json.dumps({"format": FORMAT, **header}).encode(),
                                  dtype=np.uint8)
    buf = io.BytesIO()
    np.savez(buf, allow_pickle=False, **out)
    _write(d, key, buf.getvalue())


def load_arrays(key: str, names: frozenset[str] | set[str], what: str
                ) -> tuple[dict[str, np.ndarray], dict] | None:
    """The arrays and header of entry ``key`` written by :func:`store_arrays`, or None (no
    entry, cache off, or a bad entry: one that is not an ``.npz`` of exactly the arrays
    ``names`` and a JSON header of this format, which is logged once as :func:`load` does
    and removed). The arrays are read only; their types and shapes are the caller's to
    check (raise :class:`EntryError` and call :func:`discard`). ``what`` names the entry in
    the log."""
    d = _usable_dir()
    if d is None:
        return None
    path = _entry_path(d, key)
    try:
        data = _read_entry(path)
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                if set(z.files) != set(names) | {"header"}:
                    raise EntryError(f"holds {sorted(z.files)[:12]}, not {what}")
                raw = z["header"]
                if raw.dtype != np.uint8 or raw.ndim != 1 or raw.size > _MAX_HEADER_BYTES:
                    raise EntryError("its header is not JSON text")
                header = json.loads(raw.tobytes().decode("utf-8"))
                arrays = {name: z[name] for name in names}
        except EntryError:
            raise
        except (ValueError, OSError, EOFError, KeyError, RecursionError,
                zipfile.BadZipFile) as exc:  # truncated or foreign (UnicodeError: ValueError)
            raise EntryError(f"unreadable ({type(exc).__name__}: {str(exc)[:120]})") from None
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise EntryError("another cache format")
    except FileNotFoundError:
        return None
    except (EntryError, OSError) as exc:
        discard(key, what, exc)
        return None
    for a in arrays.values():
        a.setflags(write=False)
    return arrays, header


def discard(key: str, what: str, why: object) -> None:
    """Log once that entry ``key`` (``what``) was ignored for ``why``, and remove it."""
    d = _usable_dir()
    if d is None:
        return
    path = _entry_path(d, key)
    _report_bad(path, f"{path}: part cache entry for {what} ignored ({why}); it is made again")
    _remove(path)


def _report_bad(path: Path, message: str) -> None:
    """Log a damaged entry: the first :data:`MAX_BAD_LOGGED` of a folder each in a line,
    then one line saying that the rest are rebuilt without one (a damaged folder gave a line
    per part: 300 for the castle's window)."""
    folder = str(path.parent)
    n = _BAD_SEEN[folder] = _BAD_SEEN.get(folder, 0) + 1
    if n <= MAX_BAD_LOGGED:
        log.warning("%s", message)
    elif n == MAX_BAD_LOGGED + 1:
        log.warning("%s: more damaged part cache entries; they are rebuilt without a line "
                    "each (remove the folder, or SANDBOX_PART_CACHE=off)", folder)


def _remove(path: Path) -> None:
    """Remove an entry: a file or link, or a folder put in its place (else an entry that is a
    folder was never replaced: os.replace cannot put a file over it)."""
    try:
        if path.is_dir() and not path.is_symlink():
            import shutil

            shutil.rmtree(path)
        else:
            path.unlink()
    except OSError:
        pass


def _prune(d: Path, limit: int = MAX_CACHE_BYTES) -> int:
    """Remove the oldest entries until the folder holds at most ``limit`` bytes; returns the
    bytes its entries then hold (0 when it cannot be read)."""
    try:
        entries = []
        for e in os.scandir(d):
            if e.name.endswith(".npz") and e.is_file(follow_symlinks=False):
                st = e.stat(follow_symlinks=False)
                entries.append((st.st_mtime_ns, st.st_size, e.path))
    except OSError:
        return 0
    total = sum(s for _, s, _ in entries)
    for _, size, p in sorted(entries):
        if total <= limit:
            break
        _remove(Path(p))
        total -= size
    return total


def clear() -> int:
    """Remove every entry of the cache folder; returns how many (0 when the cache is off)."""
    d = cache_dir()
    if d is None or not d.is_dir():
        return 0
    n = 0
    for p in d.glob("*.npz"):
        _remove(p)
        n += 1
    return n
