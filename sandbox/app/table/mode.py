"""The input modes' common interface, what a mode draws, and the modes' registry.

An input mode (:class:`Mode`) is what the pointer and a mode's own keys mean for a while: select
and drag-move, measure, aim an attack, call a strike... The window's
:class:`~sandbox.app.table.input.InputLayer` holds one instance of each mode it has entered
(a mode keeps its settings, e.g. a strike's dice, between uses) and forwards to the current one:

``enter(**options) -> bool``
    Start the mode (False: refused, a message was flashed, the previous mode stays).
``again(**options)``
    Its key pressed while it is current (default: back to the game's home mode).
``hover(x, y)``, ``click(x, y, hit)``, ``drag_begin/drag_to/drag_end``
    The pointer, in Panda3D's window coordinates (x, y in [-1, 1], +y up); ``hit`` is the
    physics ray's first hit (or None).
``key(name) -> bool``
    The mode's own keys ([ ] Tab Enter); False: not one of them.
``preview()``
    The action the mode's preview would play (the window's ``O`` runs its odds), or None.
``draw(drawn)``
    Markers, a label on the table and the preview panel's lines (:class:`Drawn`).
``status()``
    Words after ``[mode]`` on the status line.

Each game has a *home* mode, the mode Esc returns to (select and drag-move for BrikWars); a
game registers its own with :func:`home_mode` under its key-map tag
(:func:`sandbox.app.table.keymap.game_tags`), and any mode with :func:`register_mode`.
This module reads no Panda3D: modes compute, the window draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from .input import InputLayer


@dataclass
class Drawn:
    """What the overlays show this frame: ``markers`` (render Markers), one ``label`` on the
    table at ``label_at`` (x, y, z inches; None: no label) and the preview panel's lines."""

    markers: list = field(default_factory=list)
    label: str = ""
    label_at: np.ndarray | None = None
    preview: list[str] = field(default_factory=list)


class Mode:
    """One input mode (see the module text). ``name`` is the key map's mode name."""

    name: ClassVar[str] = ""
    #: Pointer moves with no button down go to :meth:`hover` (and the frame feeds them).
    tracks_pointer: ClassVar[bool] = False

    def __init__(self, inp: "InputLayer"):
        self.inp = inp

    @property
    def app(self):
        return self.inp.app

    @property
    def session(self):
        return self.inp.app.session

    def enter(self, **options: Any) -> bool:
        return True

    def again(self, **options: Any) -> None:
        self.inp.set_mode("select")

    def exit(self) -> None:
        """Leaving the mode (its markers go with the next overlay draw)."""

    def hover(self, x: float, y: float) -> None:
        """The pointer moved with no button down."""

    def click(self, x: float, y: float, hit) -> None:
        """A left click (not a drag) on ``hit`` (None: nothing under the pointer)."""

    def drag_begin(self, x: float, y: float) -> bool:
        """A left drag starts at (x, y): True when the mode takes it (else nothing happens)."""
        return False

    def drag_to(self, x: float, y: float) -> None:
        """The left drag the mode took is now at (x, y)."""

    def drag_end(self, press: tuple[int, float, float], x: float, y: float) -> None:
        """The left drag the mode took ended at (x, y); ``press`` is (button, x, y)."""

    def cancel(self) -> bool:
        """Esc: True when the mode had something of its own to cancel (a drag, a question)."""
        return False

    def key(self, name: str) -> bool:
        return False

    def preview(self):
        return None

    def draw(self, drawn: Drawn) -> None:
        """Add the mode's markers, label and preview lines."""

    def draw_home(self, drawn: Drawn) -> None:
        """As the game's home mode: what shows in every mode (e.g. a game's legal squares)."""

    def status(self) -> str:
        return ""


#: Mode classes by name (every game), and each game tag's home mode (default: ``select``).
MODES: dict[str, type[Mode]] = {}
HOME_MODES: dict[str, type[Mode]] = {}


def register_mode(cls: type[Mode]) -> type[Mode]:
    """Class decorator: the mode is entered by its ``name`` (``InputLayer.set_mode``)."""
    if not cls.name:
        raise ValueError(f"{cls.__name__}: a mode needs a name")
    MODES[cls.name] = cls
    return cls


def home_mode(game: str):
    """Class decorator: the home mode of the games tagged ``game`` (its name stays
    ``select``)."""
    def deco(cls: type[Mode]) -> type[Mode]:
        HOME_MODES[game] = cls
        return cls
    return deco


def mode_class(name: str, tags: frozenset[str]) -> type[Mode]:
    """The class of mode ``name`` in a game with ``tags`` (``select``: the game's home mode).

    Raises
    ------
    KeyError
        No such mode.
    """
    if name == "select":
        for tag in sorted(tags):
            if tag in HOME_MODES:
                return HOME_MODES[tag]
    return MODES[name]
