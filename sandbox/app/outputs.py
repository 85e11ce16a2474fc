"""A run's outputs written as one set: a killed or failed run leaves the previous set intact.

``sandbox run`` writes ``events.jsonl``, ``<scene>.replay`` and ``<scene>.png`` into one
folder. :func:`write_output_set` writes the new files into a fresh sibling folder
(``.<name>.new-XXXX``, each file flushed to disk), copies (hard-links) any other files of the
output folder into it, and then swaps the two folders in one atomic step (Linux
``renameat2(RENAME_EXCHANGE)``), so that at every moment the output folder holds either the
whole old set or the whole new one. Leftovers of a killed run (the sibling folder) are removed
by the next run.

Where the swap is not possible (not Linux, a file system without it, an output folder that
holds sub-folders, is a symbolic link, a mount point or the current folder), every new file is
first written in full beside the old ones (temporary names, flushed to disk), and only then
renamed over them, in the order events, replay, picture: a full disk or any failure while
writing leaves the whole previous set; a kill between two of the renames (an instant) can
leave a mixed set, and an error there says which files are new.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import stat
import tempfile
from pathlib import Path

from ..core.errors import OutputError

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_SYSTEM_ROOTS = ("/proc", "/sys", "/dev")
_STAGE = ".new-"


def check_output_dir(out: str | Path, option: str = "--out",
                     names: tuple[str, ...] = ()) -> Path:
    """Make sure ``out`` is (or can become) a writable folder; create it. ``names``: the
    files the run will write there; a folder by such a name is refused now (not after the
    run).

    Raises
    ------
    OutputError
        One line: a file in the way, a system folder (``/proc``), no permission, a read-only
        file system, a folder where an output file goes.
    """
    out = Path(out)
    shown = f"{option} {str(out)!r}"
    absolute = os.path.abspath(out)
    for root in _SYSTEM_ROOTS:
        if absolute.startswith("/dev/shm/"):  # a memory file system users may write to
            break
        if absolute == root or absolute.startswith(root + "/"):
            raise OutputError(f"{shown}: is inside {root}, a system folder; choose another "
                              "output folder")
    if out.exists() and not out.is_dir():
        raise OutputError(f"{shown}: is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{shown}: cannot create the output folder "
                          f"({exc.strerror or type(exc).__name__})") from None
    try:
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=out)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise OutputError(f"{shown}: cannot write into the output folder "
                          f"({exc.strerror or type(exc).__name__})") from None
    for name in names:
        if (out / name).is_dir():
            raise OutputError(f"{shown}: {name!r} there is a folder; the run writes a file by "
                              "that name (move the folder away)")
    return out


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2); False where that is not available."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    r = fn(_AT_FDCWD, os.fsencode(str(a)), _AT_FDCWD, os.fsencode(str(b)), _RENAME_EXCHANGE)
    return r == 0


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _clean_leftovers(out: Path) -> None:
    """Remove staging folders that killed runs left beside ``out``."""
    try:
        for entry in os.scandir(out.parent):
            if entry.name.startswith(f".{out.name}{_STAGE}") and entry.is_dir(
                    follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
    except OSError:
        pass


def _swappable(out: Path) -> bool:
    if out.is_symlink() or not out.is_dir():
        return False
    here = Path.cwd().resolve()
    real = out.resolve()
    if real == here or real in here.parents or real.parent == real:
        return False
    try:
        return all(e.is_file(follow_symlinks=False) for e in os.scandir(out))
    except OSError:
        return False


def _write_file(path: Path, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def write_output_set(out: str | Path, files: dict[str, bytes],
                     drop: frozenset[str] | set[str] = frozenset()) -> dict[str, Path]:
    """Write ``files`` (name → bytes) into folder ``out`` as one set (see the module text).
    ``drop``: names of the set this run does not make (a picture with ``--no-png``): an old
    one goes with the old set instead of standing beside the new files.

    Returns
    -------
    dict of str to Path
        Where each file now is.

    Raises
    ------
    OutputError
        The folder or a file cannot be written (the previous set is left as it was).
    """
    out = Path(out)
    check_output_dir(out)
    _clean_leftovers(out)
    paths = {name: out / name for name in files}
    stage: Path | None = None
    try:
        if _swappable(out):
            try:
                stage = Path(tempfile.mkdtemp(prefix=f".{out.name}{_STAGE}", dir=out.parent))
            except OSError:  # the parent folder is not writable: file by file below
                stage = None
        if stage is not None:
            for entry in os.scandir(out):  # the folder's other files come along, unchanged
                if entry.name not in files and entry.name not in drop:
                    try:
                        os.link(entry.path, stage / entry.name)
                    except OSError:
                        shutil.copy2(entry.path, stage / entry.name)
            for name, data in files.items():
                _write_file(stage / name, data)
            os.chmod(stage, stat.S_IMODE(os.stat(out).st_mode))
            _fsync_dir(stage)
            if _exchange(stage, out):
                _fsync_dir(out.parent)
                shutil.rmtree(stage, ignore_errors=True)  # now the old set
                return paths
            shutil.rmtree(stage, ignore_errors=True)
            stage = None
        _write_then_rename(out, files, paths)  # fallback: all written first, then renamed
        for name in drop:
            if name not in files:
                (out / name).unlink(missing_ok=True)
        return paths
    except _PartlyReplaced as exc:
        raise OutputError(f"--out {str(out)!r}: cannot write the outputs ({exc.reason}); "
                          f"{exc.done} are new, {exc.left} are still the previous run's") \
            from None
    except OSError as exc:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)
        raise OutputError(f"--out {str(out)!r}: cannot write the outputs "
                          f"({exc.strerror or type(exc).__name__}); the previous ones are "
                          "left as they were") from None


class _PartlyReplaced(Exception):
    """Some files of the set were renamed into place before a failure."""

    def __init__(self, done: list[str], left: list[str], reason: str):
        super().__init__(reason)
        self.done, self.left, self.reason = ", ".join(done), ", ".join(left), reason


def _write_then_rename(out: Path, files: dict[str, bytes], paths: dict[str, Path]) -> None:
    """Write every file under a temporary name in ``out`` (flushed), then rename each over
    its target. A failure while writing (a full disk) removes the temporary files and raises
    OSError with nothing replaced; a failure between renames raises :class:`_PartlyReplaced`.
    """
    from ..core.limits import check_output_file
    from ..engine.replay import new_file_mode

    temps: dict[str, str] = {}
    try:
        for name, data in files.items():
            check_output_file(paths[name], name)  # never over a device, FIFO or folder
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out)
            temps[name] = tmp
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, new_file_mode())
    except BaseException:
        for tmp in temps.values():
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise
    done: list[str] = []
    for name in files:
        try:
            os.replace(temps[name], paths[name])
        except OSError as exc:
            for left in files:
                if left not in done:
                    try:
                        os.unlink(temps[left])
                    except OSError:
                        pass
            if not done:
                raise
            raise _PartlyReplaced(done, [n for n in files if n not in done],
                                  exc.strerror or type(exc).__name__) from None
        done.append(name)
    _fsync_dir(out)
