"""Limits on what an untrusted file may make the sandbox do, and safe reading of input files.

Every limit has a default and an environment variable that raises (or lowers) it; the
``sandbox`` command line sets the same variables from its global options
(``sandbox --max-parts 50000 run big.toml``):

=====================  =========================  =========  ===============================
limit                  environment variable       default    what it bounds
=====================  =========================  =========  ===============================
``file_mb``            ``SANDBOX_MAX_FILE_MB``    64         any input file (scene, model,
                                                             save, replay), MiB on disk
``parts``              ``SANDBOX_MAX_PARTS``      20000      parts one model expands to,
                                                             and a scene's bodies in all
``bodies``             ``SANDBOX_MAX_BODIES``     500        creations + units + reserves
``mesh_mb``            ``SANDBOX_MAX_MESH_MB``    2048       estimated memory of one body's
                                                             triangle mesh, MiB
``nesting``            ``SANDBOX_MAX_NESTING``    64         submodel / subfile depth
``actions``            ``SANDBOX_MAX_ACTIONS``    5000       actions in a scene's script, a
                                                             save's or a replay's log, and a
                                                             game's log (each is replayed
                                                             through physics when loaded)
=====================  =========================  =========  ===============================

A limit that is hit raises the reader's own error (:class:`~sandbox.core.errors.LDrawError`,
:class:`~sandbox.core.errors.SceneError`, :class:`~sandbox.core.errors.ReplayError`) with one
line naming the file, the limit, the value found and the variable (or option) that raises it.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import stat
from pathlib import Path
from typing import Iterator

#: name: (environment variable, default, command-line option)
LIMITS: dict[str, tuple[str, int, str]] = {
    "file_mb": ("SANDBOX_MAX_FILE_MB", 64, "--max-file-mb"),
    "parts": ("SANDBOX_MAX_PARTS", 20_000, "--max-parts"),
    "bodies": ("SANDBOX_MAX_BODIES", 500, "--max-bodies"),
    "mesh_mb": ("SANDBOX_MAX_MESH_MB", 2048, "--max-mesh-mb"),
    "nesting": ("SANDBOX_MAX_NESTING", 64, "--max-nesting"),
    "actions": ("SANDBOX_MAX_ACTIONS", 5000, "--max-actions"),
}


def limit(name: str) -> int:
    """The current value of limit ``name`` (its environment variable, else the default).

    A variable that is not a positive whole number is ignored (the default applies).
    """
    env, default, _opt = LIMITS[name]
    raw = os.environ.get(env, "").strip()
    try:
        value = int(raw)
    except ValueError:
        return default
    return value if value > 0 else default


def how_to_raise(name: str) -> str:
    """Words telling a user how to raise limit ``name``."""
    env, _default, opt = LIMITS[name]
    return f"raise it with {opt} or {env}"


def over_limit(name: str, count: int, what: str) -> str:
    """``"{count} {what}, over the limit of N (raise it with ...)"`` when ``count`` is over
    limit ``name``, else ``""`` (the one wording of every reader that counts)."""
    n = limit(name)
    return f"{count} {what}, over the limit of {n} ({how_to_raise(name)})" if count > n else ""


def set_limit(name: str, value: int | None) -> None:
    """Set limit ``name`` for this process and its children (None leaves it unchanged)."""
    if value is not None:
        os.environ[LIMITS[name][0]] = str(int(value))


class FileRefused(Exception):
    """Raised by :func:`read_input_bytes`; callers turn it into their own error type."""


def check_input_file(path: str | Path, what: str = "file") -> os.stat_result:
    """Refuse, before opening it, anything but a regular file within the size limit.

    Parameters
    ----------
    path : path
        The file.
    what : str
        Its kind in words ("scene file", "LDraw file"), for the message.

    Returns
    -------
    os.stat_result
        Of the file (following links).

    Raises
    ------
    FileRefused
        Missing, a folder, a device (``/dev/zero``), a FIFO or socket, or too large; the
        message names the kind of problem, never the content.
    FileNotFoundError
        When it does not exist (so callers can keep their "no such file" wording).
    """
    st = os.stat(path)  # FileNotFoundError passes through
    if stat.S_ISDIR(st.st_mode):
        raise FileRefused(f"is a folder, not a {what}")
    if not stat.S_ISREG(st.st_mode):
        kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(st.st_mode) else
                "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else
                "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        raise FileRefused(f"is {kind}, not a regular {what}; refused without reading it")
    cap = limit("file_mb") * 1024 * 1024
    if st.st_size > cap:
        raise FileRefused(f"is {st.st_size / 1048576:.1f} MiB, over the {limit('file_mb')} MiB "
                          f"limit for a {what} ({how_to_raise('file_mb')})")
    return st


def check_output_file(path: str | Path, what: str = "output") -> Path:
    """Refuse to write ``what`` over anything but a regular file (a device such as /dev/full,
    a FIFO, a socket, a folder): an atomic write would replace it with a plain file.

    Raises
    ------
    OutputError
        Naming the path and what is there.
    """
    from .errors import OutputError

    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        return p
    except OSError as exc:
        raise OutputError(f"{str(p)!r}: cannot write the {what} there ({exc.strerror or exc})") \
            from None
    if stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{str(p)!r} is a folder: give a file name for the {what}")
    if not stat.S_ISREG(st.st_mode):
        raise OutputError(f"{str(p)!r} is not a regular file (a device, FIFO or socket): the "
                          f"{what} is never written over it")
    return p


#: The files :func:`read_input_bytes` read while :func:`recording_reads` is on (this context).
_READS: contextvars.ContextVar[list | None] = contextvars.ContextVar("sandbox_reads",
                                                                     default=None)


@contextlib.contextmanager
def recording_reads() -> Iterator[list[tuple[int, int, str]]]:
    """Meanwhile, every file :func:`read_input_bytes` reads (in this thread or task) is listed
    as ``(st_dev, st_ino, real path)``: what an export must never write over (the scene, the
    save, every model and part it used)."""
    reads: list[tuple[int, int, str]] = []
    token = _READS.set(reads)
    try:
        yield reads
    finally:
        _READS.reset(token)


def read_input_bytes(path: str | Path, what: str = "file") -> bytes:
    """The bytes of an input file, after :func:`check_input_file`; never more than the limit
    (a file that grows while it is read is refused).

    Raises
    ------
    FileRefused, FileNotFoundError, OSError
    """
    check_input_file(path, what)
    cap = limit("file_mb") * 1024 * 1024
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):  # swapped after the check
            raise FileRefused(f"is not a regular {what}; refused")
        data = fh.read(cap + 1)
    reads = _READS.get()
    if reads is not None:
        reads.append((st.st_dev, st.st_ino, os.path.realpath(path)))
    if len(data) > cap:
        raise FileRefused(f"grew over the {limit('file_mb')} MiB limit for a {what} while "
                          f"being read ({how_to_raise('file_mb')})")
    return data


def reason(exc: BaseException) -> str:
    """A short description of an OS error (its strerror), never the file's content."""
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return str(exc)


def _no_constant(name: str):
    raise ValueError(f"{name} is not allowed (numbers must be finite)")


def _finite_float(text: str) -> float:
    v = float(text)
    if v != v or v in (float("inf"), float("-inf")):
        raise ValueError(f"number {text[:24]} is out of range (numbers must be finite)")
    return v


def strict_json_loads(data: bytes | str):
    """``json.loads`` for untrusted files: UTF-8, no NaN or infinity (``NaN``, ``Infinity``,
    ``1e999``), no nesting deeper than Python's recursion allows.

    Raises
    ------
    ValueError
        With a short reason (never the file's content beyond a number's text).
    """
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON (line {exc.lineno}, column {exc.colno}: "
                         f"{exc.msg})") from None
    except RecursionError:
        raise ValueError("nested too deep") from None
