"""The project's small exception tree (built-in subclasses, offending state in the message)."""

from __future__ import annotations


class SandboxError(Exception):
    """Base of every error this project raises on purpose."""


class LDrawError(SandboxError, ValueError):
    """A malformed or unreadable LDraw file.

    Attributes
    ----------
    path : str
        The file that holds the problem.
    line : int or None
        1-based line number, when the problem is on one line.
    """

    def __init__(self, message: str, path: str = "", line: int | None = None):
        self.path = str(path)
        self.line = line
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}" if where else message)


class SceneError(SandboxError, ValueError):
    """An invalid scene file; the message names the field and the value."""


class ReplayError(SandboxError, ValueError):
    """A replay or save file that is truncated, corrupted or of an unknown version."""


class RulesError(SandboxError, ValueError):
    """Input the BrikWars rules do not allow (e.g. a Weapon Size below 0)."""


class DiceError(SandboxError, ValueError):
    """A malformed dice expression or an impossible die."""


class OutputError(SandboxError, ValueError):
    """An output folder or file that cannot be written (a file in the way, no permission)."""


class NetError(SandboxError, ValueError):
    """A network message or connection the online game refuses (malformed, out of turn, a
    wrong token), or a server that cannot be reached; the message says which and why."""
