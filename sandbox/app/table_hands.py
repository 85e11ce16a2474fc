"""The tabletop window's typed boxes, saved-game slots and the drawing of the players' own
hands (issue 18): the log search box, the dice tray, "done" marks, rulers and templates left on
the table, carried objects, and the save-slot dialog (Panda3D DirectGUI).

Nothing here changes the game: the boxes build engine actions through
:class:`~sandbox.app.commands.TableCommands` (the window submits them) or filter the log; the
slot dialog calls the window's own ``save``/``load``; the markers only read
``session.tools`` (:class:`sandbox.engine.table_tools.TableTools`).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Callable

import numpy as np

from ..render.view import Marker

#: Longest text a typed box takes.
ENTRY_MAX = 60
#: What a slot name may hold (the rest becomes "_"); saves are ``<slot>.save.json``.
_SLOT_CHARS = re.compile(r"[^A-Za-z0-9 _.-]")
#: Colours of the players' own markers.
RULER_COLOUR = (1.0, 0.95, 0.35, 1.0)
TEMPLATE_COLOUR = (0.35, 0.85, 1.0, 0.95)
DONE_COLOUR = (0.55, 0.6, 0.7, 1.0)
CARRY_COLOUR = (1.0, 0.75, 0.2, 1.0)


class TextEntry:
    """One typed box at a time (the log search, the dice tray, a slot's name).

    While it is open, the window's keys type into it instead of acting: printable characters
    come from Panda3D's ``keystroke`` events (:meth:`type`), Backspace deletes, Enter calls
    ``on_enter(text)`` and closes, Esc calls ``on_escape`` and closes. ``on_change`` sees
    every edit (the log search filters as you type). ``selected``: the pre-filled ``text`` is
    a suggestion, shown selected: the first character typed replaces it (Backspace clears
    it), Enter takes it as it is.
    """

    def __init__(self, purpose: str, prompt: str, on_enter: Callable[[str], None],
                 on_change: Callable[[str], None] | None = None,
                 on_escape: Callable[[], None] | None = None, text: str = "",
                 selected: bool = False):
        self.purpose = purpose
        self.prompt = prompt
        self.text = text
        self.selected = bool(selected and text)
        self.on_enter = on_enter
        self.on_change = on_change
        self.on_escape = on_escape
        #: Keystrokes of the key press that opened the box are not typed into it.
        self.opened = time.monotonic()
        self.opened_frame: int | None = None

    def type(self, ch: str) -> None:
        if len(ch) != 1 or not ch.isprintable():
            return
        if self.selected:  # typing over the selected suggestion replaces it
            self.text, self.selected = "", False
        if len(self.text) >= ENTRY_MAX:
            return
        self.text += ch
        if self.on_change is not None:
            self.on_change(self.text)

    def backspace(self) -> None:
        self.text = "" if self.selected else self.text[:-1]
        self.selected = False
        if self.on_change is not None:
            self.on_change(self.text)

    def shown(self) -> str:
        if self.selected:
            return f"{self.prompt}[{self.text}]_   (type to replace, Enter, Esc)"
        return f"{self.prompt}{self.text}_   (Enter, Esc)"


def slot_name(text: str) -> str:
    """A safe slot name from what was typed ("" when nothing is left)."""
    return _SLOT_CHARS.sub("_", text.strip())[:40].strip(" .")


def slot_files(folder: Path) -> list[Path]:
    """Saved games in ``folder`` (``*.save.json`` and ``*.autosave.json``), newest first."""
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir()
             if p.is_file() and p.name.endswith((".save.json", ".autosave.json"))]
    return sorted(found, key=lambda p: (-p.stat().st_mtime, p.name))


def slot_label(path: Path) -> str:
    """A slot's name as the dialog lists it."""
    name = path.name
    for end in (".save.json", ".autosave.json"):
        if name.endswith(end):
            return name[:-len(end)] + (" (autosave)" if end.startswith(".auto") else "")
    return name


def tools_markers(session, viewer: str) -> tuple[list[Marker], list[tuple[str, np.ndarray]]]:
    """The players' own things on the table as markers and labels: rulers (a line with the
    length), templates (a circle), "done" marks (a grey ring over the unit's head and one at
    its feet) and carried objects (a line from carrier to item)."""
    tools = getattr(session, "tools", None)
    if tools is None:
        return [], []
    out: list[Marker] = []
    labels: list[tuple[str, np.ndarray]] = []
    for mid, m in sorted(tools.markers.items()):
        pts = np.asarray(m["points"], float)
        mine = m["player"] == viewer
        alpha = 1.0 if mine else 0.6
        if m["kind"] == "ruler":
            a = np.array([pts[0][0], pts[0][1], 0.06])
            b = np.array([pts[1][0], pts[1][1], 0.06])
            col = (*RULER_COLOUR[:3], alpha)
            out.append(Marker.line(a, b, col, 3.0))
            for end in (a, b):
                out.append(Marker.ring(end, 0.18, colour=col, width=0.08))
            length = float(np.linalg.norm(b - a))
            labels.append((f'{mid}: {length:.2f}"', (a + b) / 2 + [0, 0, 0.5]))
        else:
            c = np.array([pts[0][0], pts[0][1], 0.05])
            col = (*TEMPLATE_COLOUR[:3], alpha * TEMPLATE_COLOUR[3])
            out.append(Marker.ring(c, m["radius"], colour=col, width=0.12))
            out.append(Marker.target(c, 0.5, col))
            labels.append((f'{mid}: {m["radius"]:g}"' + (f" {m['label']}" if m["label"] else ""),
                           c + [m["radius"] * 0.7, 0, 0.5]))
    for key in sorted(tools.done):
        if key not in session.world.bodies:
            continue
        lo, hi = session.bounds(key)
        c = (lo + hi) / 2
        out.append(Marker.ring((c[0], c[1], hi[2] + 0.25), 0.35, colour=DONE_COLOUR, width=0.12))
        r = 0.5 * float(np.hypot(hi[0] - lo[0], hi[1] - lo[1])) + 0.15
        out.append(Marker.ring((c[0], c[1], max(lo[2], 0.0) + 0.03), r, colour=DONE_COLOUR,
                               width=0.08))
        labels.append(("done", np.array([c[0], c[1], hi[2] + 0.7])))
    for unit in sorted(tools.carried):
        item = tools.held(unit)
        if item is None:
            continue
        lu, hu = session.bounds(unit)
        li, hi_ = session.bounds(item)
        out.append(Marker.line((lu + hu) / 2, (li + hi_) / 2, CARRY_COLOUR, 2.0))
        ci = (li + hi_) / 2
        out.append(Marker.ring((ci[0], ci[1], hi_[2] + 0.1), 0.5 * float(np.hypot(
            hi_[0] - li[0], hi_[1] - li[1])) + 0.1, colour=CARRY_COLOUR, width=0.1))
    return out, labels


class SlotDialog:
    """The saved-games dialog (F7): one button a slot (newest first) to load it, a line saying
    what loading would discard, Close. DirectGUI widgets on ``aspect2d``."""

    def __init__(self, app, folder: Path, extra: list[Path] = ()):
        from direct.gui.DirectGui import DGG, DirectButton, DirectFrame, DirectLabel

        self.app = app
        self.folder = folder
        files = slot_files(folder)
        for p in extra:
            if p.is_file() and p not in files:
                files.append(p)
        self.files = files[:12]
        rows = max(1, len(self.files))
        height = 0.32 + 0.1 * rows
        self.frame = DirectFrame(frameColor=(0.08, 0.09, 0.13, 0.95),
                                 frameSize=(-0.75, 0.75, -height / 2, height / 2),
                                 pos=(-app.aspect * 0.32, 0, 0.1), relief=DGG.FLAT)
        top = height / 2 - 0.09
        n = app.unsaved
        title = "Saved games: click one to load it" + (
            f"  ({n} unsaved action(s) will be lost)" if n else "")
        DirectLabel(parent=self.frame, text=title, scale=0.045, pos=(0, 0, top),
                    text_fg=(1, 0.93, 0.6, 1), frameColor=(0, 0, 0, 0), text_wordwrap=30)
        self.buttons = []
        for i, p in enumerate(self.files):
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(p.stat().st_mtime))
            b = DirectButton(parent=self.frame, text=f"{slot_label(p)}   {when}", scale=0.045,
                             pos=(0, 0, top - 0.1 * (i + 1)), frameSize=(-14, 14, -0.6, 1.1),
                             command=self.choose, extraArgs=[p], relief=DGG.FLAT,
                             frameColor=((0.2, 0.25, 0.35, 1), (0.35, 0.45, 0.6, 1),
                                         (0.3, 0.38, 0.5, 1), (0.2, 0.2, 0.2, 1)),
                             text_fg=(1, 1, 1, 1))
            self.buttons.append(b)
        if not self.files:
            DirectLabel(parent=self.frame, text=f"no saved games in {folder} yet (F6 saves one)",
                        scale=0.04, pos=(0, 0, top - 0.1), text_fg=(0.9, 0.9, 0.9, 1),
                        frameColor=(0, 0, 0, 0))
        self.close_button = DirectButton(parent=self.frame, text="Close (Esc)", scale=0.045,
                                         pos=(0, 0, -height / 2 + 0.06), command=self.close,
                                         relief=DGG.FLAT, text_fg=(1, 1, 1, 1),
                                         frameColor=(0.3, 0.15, 0.15, 1))

    def choose(self, path: Path) -> None:
        self.close()
        self.app.load(path)

    def close(self) -> None:
        if self.frame is not None:
            self.frame.destroy()
            self.frame = None
        if self.app.slot_dialog is self:
            self.app.slot_dialog = None
