"""The warning record of the LDraw reader (a leaf module: the colour table and the reader
both report through it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LoadWarning:
    """A non-fatal problem found while reading LDraw files.

    Attributes
    ----------
    path : str
        The file on disk (or a library part name) holding the problem.
    line : int or None
        1-based physical line number in ``path``, when the problem is on one line.
    message : str
        What is wrong and what was done about it.
    """

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message}"
