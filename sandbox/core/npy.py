"""One ``.npy`` array read from bytes without numpy's loader: its header checked against the
bytes it holds, a type from a list, never an object array (so never pickle). Shared by the
replay reader (:mod:`sandbox.engine.replay`) and the PNG process's view messages
(:mod:`sandbox.render.view_codec`)."""

from __future__ import annotations

import io
from collections.abc import Collection

import numpy as np


class NpyError(ValueError):
    """A malformed ``.npy`` member; the message says what, without saying where."""


def parse_npy(blob: bytes, dtypes: Collection[str], max_dims: int = 3) -> np.ndarray:
    """The array in ``blob`` (a whole ``.npy`` file, format 1.0 or 2.0), read only.

    Parameters
    ----------
    blob : bytes
    dtypes : collection of str
        The ``dtype.str`` values allowed (``"<f4"``, ``"|u1"``, ...).
    max_dims : int
        Most dimensions allowed.

    Raises
    ------
    NpyError
        A bad header ("bad array header (...)"), a type not allowed or a Fortran-ordered
        array ("unexpected array type ..."), too many or negative dimensions ("unexpected
        array shape ..."), or a body that is not the size the header declares ("declares
        SHAPE but holds N bytes").
    """
    fh = io.BytesIO(blob)
    try:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
        else:
            raise ValueError(f"npy version {version}")
    except (ValueError, OSError, EOFError, SyntaxError, TypeError, MemoryError) as exc:
        raise NpyError(f"bad array header ({type(exc).__name__})") from None
    if dtype.str not in dtypes or fortran:
        raise NpyError(f"unexpected array type {dtype.str!r}")
    if len(shape) > max_dims or any(int(d) < 0 for d in shape):
        raise NpyError(f"unexpected array shape {shape}")
    count = 1
    for d in shape:
        count *= int(d)
    body = memoryview(blob)[fh.tell():]
    if count * dtype.itemsize != len(body):
        raise NpyError(f"declares {shape} but holds {len(body)} bytes")
    return np.frombuffer(body, dtype=dtype).reshape(shape)


__all__ = ["NpyError", "parse_npy"]
