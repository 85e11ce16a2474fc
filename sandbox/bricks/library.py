"""Finding and caching LDraw library files (``LDRAWDIR``), case-insensitively.

An LDraw library is a folder with ``parts/`` (and ``parts/s/`` subparts), ``p/`` primitives (and
``p/48/``, ``p/8/`` hi/lo-res ones), ``models/``, ``LDConfig.ldr`` and, optionally,
``unofficial/parts/`` and ``unofficial/p/`` (parts not yet released by LDraw.org, laid out the
same way). References are looked up case-insensitively, with ``\\`` or ``/`` separators, in
this order, as LDView and LeoCAD do (official before unofficial): ``parts/``, ``parts/s/``,
``p/``, ``p/48/``, ``unofficial/parts/``, ``unofficial/parts/s/``, ``unofficial/p/``,
``unofficial/p/48/``, ``models/`` (a name with a folder, such as ``s\\3001s01.dat`` or
``48\\1-4cyli.dat``, is looked up relative to each of those folders).

A library is opened once per folder (:func:`get_library`) and keeps its parsed files and
expanded part geometry for the life of the process, so loading a second model is fast.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from sandbox.bricks.colours import ColourTable
from sandbox.bricks.ldraw import LDrawFile, LoadWarning, normalise_name, parse_ldraw, read_text
from sandbox.core.errors import LDrawError

#: Environment variable naming the LDraw library folder (the field's convention).
LDRAWDIR_ENV = "LDRAWDIR"

#: The library's folders, in lookup order (see the module text).
_ROOTS = ("parts", "p", "unofficial/parts", "unofficial/p", "models")
#: Roots whose files are parts (or their subparts and primitives), not models.
PART_ROOTS = frozenset(("parts", "p", "unofficial/parts", "unofficial/p"))


def _child_ci(folder: Path, name: str) -> Path | None:
    """The entry of ``folder`` called ``name`` ignoring case (exact match preferred)."""
    exact = folder / name
    try:
        if exact.exists():
            return exact
    except OSError:  # a name over the file system's limit: no such entry
        return None
    try:
        for entry in os.scandir(folder):
            if entry.name.lower() == name.lower():
                return Path(entry.path)
    except OSError:
        return None
    return None


def _index_tree(root: Path) -> dict[str, Path]:
    """Map lower-case ``/``-separated paths relative to ``root`` to files, recursively."""
    out: dict[str, Path] = {}
    base = len(str(root)) + 1
    for dirpath, _dirs, files in os.walk(root):
        rel_dir = dirpath[base:].replace(os.sep, "/").lower()
        for fn in files:
            key = f"{rel_dir}/{fn.lower()}" if rel_dir else fn.lower()
            out.setdefault(key, Path(dirpath) / fn)
    return out


class LDrawLibrary:
    """An LDraw parts library on disk, with lookup and caches.

    Parameters
    ----------
    root : str or Path
        The library folder (the one holding ``parts/`` and ``p/``).

    Raises
    ------
    LDrawError
        When ``root`` is not a folder.
    """

    def __init__(self, root: str | Path):
        self.root = Path(root).resolve()
        try:
            is_dir = self.root.is_dir()
        except OSError as exc:  # a name over the file system's limit (ENAMETOOLONG), a loop
            raise LDrawError(f"LDraw library folder cannot be opened ({exc.strerror or exc})",
                             self.root) from None
        if not is_dir:
            raise LDrawError("LDraw library folder does not exist", self.root)
        self._lock = threading.RLock()
        self._index: dict[str, dict[str, Path]] | None = None
        self._files: dict[str, LDrawFile | None] = {}
        self._file_warnings: dict[str, tuple[LoadWarning, ...]] = {}
        self._colours: ColourTable | None = None
        #: Expanded geometry per file key (filled by :mod:`sandbox.bricks.partmesh`).
        self.geometry_cache: dict = {}
        #: :class:`~sandbox.bricks.partmesh.PartMesh` per part key.
        self.part_cache: dict = {}
        self.colour_warnings: list[LoadWarning] = []
        #: The library's own :class:`~sandbox.bricks.partmesh.Resolver` (set on first use).
        self.resolver = None

    def __repr__(self) -> str:
        return f"LDrawLibrary({str(self.root)!r})"

    def _ensure_index(self) -> dict[str, dict[str, Path]]:
        if self._index is None:
            with self._lock:
                if self._index is None:
                    idx = {}
                    for r in _ROOTS:
                        folder: Path | None = self.root
                        for step in r.split("/"):
                            folder = _child_ci(folder, step) if folder is not None else None
                        idx[r] = _index_tree(folder) if folder and folder.is_dir() else {}
                    self._index = idx
        return self._index

    @property
    def colours(self) -> ColourTable:
        """The library's colour table (``LDConfig.ldr``; built-in colours if it has none)."""
        if self._colours is None:
            cfg = _child_ci(self.root, "LDConfig.ldr")
            if cfg is not None:
                self._colours = ColourTable.from_ldconfig(cfg, self.colour_warnings)
            else:
                self._colours = ColourTable.builtin()
        return self._colours

    def find(self, name: str) -> tuple[str, Path] | None:
        """Locate a referenced file.

        Parameters
        ----------
        name : str
            The reference as written or normalised (``"S\\3001s01.DAT"``, ``"3001.dat"``).

        Returns
        -------
        (str, Path) or None
            The root it was found under (one of ``"parts"``, ``"p"``, ``"unofficial/parts"``,
            ``"unofficial/p"``, ``"models"``; :data:`PART_ROOTS` hold parts) and the file.
        """
        key = normalise_name(name)
        idx = self._ensure_index()
        tries = []
        for parts, prims in (("parts", "p"), ("unofficial/parts", "unofficial/p")):
            tries.append((parts, key))
            if "/" not in key:
                tries.append((parts, "s/" + key))
            tries.append((prims, key))
            if "/" not in key:
                tries.append((prims, "48/" + key))
        tries.append(("models", key))
        for root, k in tries:
            hit = idx[root].get(k)
            if hit is not None:
                return root, hit
        return None

    def read(self, name: str) -> LDrawFile | None:
        """The parsed library file for ``name`` (first file of an MPD), or None if absent.

        Library files are read leniently: malformed lines are skipped and reported by
        :meth:`file_warnings`.
        """
        key = normalise_name(name)
        with self._lock:
            if key in self._files:
                return self._files[key]
            found = self.find(key)
            parsed: LDrawFile | None = None
            warns: list[LoadWarning] = []
            if found is not None:
                try:
                    parsed = parse_ldraw(read_text(found[1]), found[1], strict=False,
                                         warnings=warns, default_name=key)[0]
                except LDrawError as exc:
                    warns.append(LoadWarning(str(found[1]), None, str(exc)))
            self._files[key] = parsed
            self._file_warnings[key] = tuple(warns)
            return parsed

    def file_warnings(self, name: str) -> tuple[LoadWarning, ...]:
        """Warnings collected when :meth:`read` parsed ``name``."""
        return self._file_warnings.get(normalise_name(name), ())


_LIBRARIES: dict[Path, LDrawLibrary] = {}
_LIB_LOCK = threading.Lock()


def library_dir(ldrawdir: str | Path | None = None) -> Path | None:
    """The library folder: ``ldrawdir`` if given, else ``$LDRAWDIR``, else None."""
    if ldrawdir is not None:
        return Path(ldrawdir)
    env = os.environ.get(LDRAWDIR_ENV, "").strip()
    return Path(env) if env else None


def get_library(ldrawdir: str | Path | None = None) -> LDrawLibrary | None:
    """The (process-wide cached) library at ``ldrawdir`` or ``$LDRAWDIR``.

    Returns
    -------
    LDrawLibrary or None
        None when no folder is configured.

    Raises
    ------
    LDrawError
        When the configured folder does not exist.
    """
    folder = library_dir(ldrawdir)
    if folder is None:
        return None
    key = folder.resolve()
    with _LIB_LOCK:
        lib = _LIBRARIES.get(key)
        if lib is None:
            lib = _LIBRARIES[key] = LDrawLibrary(key)
        return lib
