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

The modes every game has register with :func:`register_mode` (:mod:`.modes_common`). A game's
own modes are listed by the module its kind names (``GameKind.window``: ``MODES``, see
:class:`~sandbox.engine.kinds.GameKind`); :func:`game_modes` puts them over the common ones. The
one named ``select`` is the game's *home* mode, the mode Esc returns to (select and drag-move
by default): its keys, clicks, stat card, side panel and the markers it draws in every mode are
the game's. This module reads no Panda3D: modes compute, the window draws.
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
    #: As the game's home mode: it plays the seats ``sandbox play --ai`` gives the computer
    #: (in :meth:`tick`); a game whose home mode does not refuses ``--ai``.
    computer_seats: ClassVar[bool] = False

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

    def panel(self) -> str:
        """As the game's home mode: the side panel's text (an Escapade's forces, a board
        game's pile), "" for none."""
        return ""

    #: As the game's home mode: what the end banner calls the units :meth:`lost`.
    lost_word: ClassVar[str] = "destroyed"

    def how_long(self, turns: int) -> str:
        """As the game's home mode: ``turns`` engine turns played, in the game's words (the
        end banner)."""
        return f"{turns} turn{'s' if turns != 1 else ''}"

    def lost(self, key: str) -> bool:
        """As the game's home mode: whether unit ``key`` is lost (the end banner)."""
        return bool(self.session.bodies[key].damage.destroyed)

    def tick(self) -> None:
        """As the game's home mode: called each frame while the table is still (a computer
        seat plays its next action)."""

    def status(self) -> str:
        return ""


#: The modes every game has, by name (:func:`register_mode`).
MODES: dict[str, type[Mode]] = {}


def register_mode(cls: type[Mode]) -> type[Mode]:
    """Class decorator: a mode every game has, entered by its ``name``
    (``InputLayer.set_mode``). A game's own modes are listed by its kind's window module
    instead (:func:`game_modes`)."""
    if not cls.name:
        raise ValueError(f"{cls.__name__}: a mode needs a name")
    MODES[cls.name] = cls
    return cls


def game_modes(kind) -> dict[str, type[Mode]]:
    """The mode classes of a game of ``kind`` (a :class:`~sandbox.engine.kinds.GameKind`) by
    name: the common ones (:data:`MODES`), and over them the ``MODES`` of the module the kind
    names as its ``window`` (its ``select`` is the game's home mode).

    Raises
    ------
    TypeError
        The kind's window module lists something that is no named :class:`Mode` class.
    """
    out = dict(MODES)
    module = kind.window_module()
    for cls in getattr(module, "MODES", ()) if module is not None else ():
        if not (isinstance(cls, type) and issubclass(cls, Mode) and cls.name):
            raise TypeError(f"{kind.window}.MODES: {cls!r} is no named window Mode class")
        out[cls.name] = cls
    return out
