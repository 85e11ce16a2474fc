"""Captions burnt into exported video frames: the turn, its dice and its events.

:class:`CaptionPainter` draws onto an RGB picture with Pillow's FreeType text (DejaVu Sans,
the font matplotlib ships; Pillow's own scalable default font where matplotlib's is missing):

- top left, the turn being played (the log's ``turn`` line, "Turn 1: Ministry of Truth's
  turn");
- along the bottom, on a dark see-through band: the dice rolled so far in this turn, grouped
  by what they were rolled for ("Armor Roll of blast wall d10: 5 5 5"), newest last, and the
  turn's latest events in the log's own words (Damage, explosions, units destroyed, actions),
  wrapped to the picture's width.

Impacts (physics detail; the Damage they do has its own line), KnockBack pushes and the log's
bookkeeping are left out. The captions change only when an event happens, so pictures of
bodies at rest stay identical (a GIF merges them).

Pixels: the picture is ``(height, width, 3)`` uint8, row 0 at the top; text sizes scale with
the picture's height.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

#: Event types never captioned (dice have their own line; impacts and pushes are physics
#: detail; the rest is bookkeeping).
SKIPPED_EVENTS: frozenset[str] = frozenset({
    "roll", "impact", "knockback", "body", "warning", "setup", "ready", "piece", "rest",
    "end_turn", "power", "tracking", "undo", "turn",
})
#: Lines of events and of dice shown at most.
EVENT_LINES: int = 3
DICE_LINES: int = 2
#: Text height as a fraction of the picture's height.
TEXT_SIZE: float = 1 / 34
#: Colours (RGBA 0..255): band, header, dice, events.
BAND = (0, 0, 0, 150)
HEADER = (255, 230, 120, 255)
DICE = (140, 225, 255, 255)
TEXT = (255, 255, 255, 255)


@lru_cache(maxsize=8)
def caption_font(px: int, bold: bool = False):
    """A scalable font ``px`` pixels high: DejaVu Sans (matplotlib's), else Pillow's own."""
    from PIL import ImageFont

    try:
        from matplotlib import font_manager

        path = font_manager.findfont(font_manager.FontProperties(
            family="DejaVu Sans", weight="bold" if bold else "normal"), fallback_to_default=True)
        return ImageFont.truetype(path, px)
    except (ImportError, OSError, ValueError):
        return ImageFont.load_default(size=px)


def dice_groups(rolls: Sequence[dict]) -> list[str]:
    """Consecutive rolls for the same reason and die as one text each, as
    ``"Collision Damage to Private Reale d6: 4"`` or ``"Armor Roll of blast wall d10: 5 5 5"``."""
    out: list[tuple[str, int, list[str]]] = []
    for r in rolls:
        reason, sides = str(r.get("reason") or r.get("stream") or "roll"), int(r.get("sides", 0))
        if out and out[-1][0] == reason and out[-1][1] == sides:
            out[-1][2].append(str(r.get("result", "?")))
        else:
            out.append((reason, sides, [str(r.get("result", "?"))]))
    return [f"{reason} d{sides}: {' '.join(results)}" for reason, sides, results in out]


def caption_text(events: Sequence[dict], turn: int) -> tuple[str, list[str], list[str]]:
    """``(header, dice, story)`` of the captions for turn ``turn`` given the events so far.

    ``header`` is the turn's log line (``"Turn 0: set-up"`` before the first turn), ``dice``
    the turn's dice groups (:func:`dice_groups`), ``story`` the texts of the turn's events
    that are captioned (not :data:`SKIPPED_EVENTS`), in log order.
    """
    header = "Set-up" if turn == 0 else f"Turn {turn}"
    mine = [e for e in events if int(e.get("turn", 0)) == turn]
    for e in mine:
        if e.get("type") == "turn" and e.get("text"):
            header = str(e["text"])
    dice = dice_groups([e for e in mine if e.get("type") == "roll"])
    story = [str(e.get("text", "")) for e in mine
             if e.get("type") not in SKIPPED_EVENTS and e.get("text")]
    return header, dice, story


def wrap(text: str, font, width: float) -> list[str]:
    """``text`` broken at spaces into lines no wider than ``width`` pixels (a single word
    wider than that gets a line of its own)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        cand = f"{line} {word}" if line else word
        if line and font.getlength(cand) > width:
            lines.append(line)
            line = word
        else:
            line = cand
    if line:
        lines.append(line)
    return lines


class CaptionPainter:
    """Draws a turn's captions onto pictures of one size.

    Parameters
    ----------
    width, height : int
        Picture size, pixels.
    """

    def __init__(self, width: int, height: int):
        self.width, self.height = int(width), int(height)
        self.px = max(8, int(round(self.height * TEXT_SIZE)))
        self.font = caption_font(self.px)
        self.bold = caption_font(self.px, bold=True)
        self.pad = max(2, self.px // 3)
        self.line_h = int(round(self.px * 1.25))
        self._cache: tuple[tuple, object] | None = None

    def layout(self, events: Sequence[dict], turn: int) -> tuple[str, list[tuple[str, tuple]]]:
        """``(header, [(line, colour), ...])``: the bottom band's lines, wrapped to the
        picture, the last :data:`DICE_LINES` of dice and :data:`EVENT_LINES` of events."""
        header, dice, story = caption_text(events, turn)
        room = self.width - 2 * self.pad
        dice_lines = wrap("Dice: " + "  |  ".join(dice), self.font, room) if dice else []
        if len(dice_lines) > DICE_LINES:  # the newest dice: drop whole groups from the front
            kept = list(dice)
            while kept and len(wrap("Dice: ... " + "  |  ".join(kept), self.font,
                                    room)) > DICE_LINES:
                kept.pop(0)
            dice_lines = wrap("Dice: ... " + "  |  ".join(kept), self.font, room)[:DICE_LINES]
        story_lines: list[str] = []
        for text in reversed(story):  # the latest events, each whole when it fits
            lines = wrap(text, self.font, room)
            if story_lines and len(story_lines) + len(lines) > EVENT_LINES:
                break
            story_lines = lines[:EVENT_LINES] + story_lines
        return header, [(t, DICE) for t in dice_lines] + [(t, TEXT) for t in story_lines]

    def paint(self, image: np.ndarray, events: Sequence[dict], turn: int) -> np.ndarray:
        """``image`` (h, w, 3) uint8 with the captions of turn ``turn`` drawn on it (a new
        array; the input is not changed)."""
        key = (turn, len(events), image.shape)
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, self._overlay(*self.layout(events, turn)))
        out = np.array(image[..., :3], dtype=np.uint8, copy=True)
        for (y0, y1, x0, x1), rgb, alpha in self._cache[1]:  # blend only where text goes
            sub = out[y0:y1, x0:x1].astype(np.float32)
            out[y0:y1, x0:x1] = (sub * (1.0 - alpha) + rgb + 0.5).astype(np.uint8)
        return out

    def _overlay(self, header: str, lines: list[tuple[str, tuple]]) -> list:
        """The captions as ``[(box (y0, y1, x0, x1), premultiplied RGB, alpha), ...]``: the
        header's box and the bottom band, drawn by Pillow on a see-through picture."""
        from PIL import Image, ImageDraw

        img = Image.new("RGBA", (self.width, self.height), (0, 0, 0, 0))
        draw = ImageDraw.Draw(img)
        p, lh = self.pad, self.line_h
        hw = min(int(self.bold.getlength(header) + 2 * p), self.width - 1)
        boxes = [(0, min(lh + p, self.height - 1), 0, hw)]
        draw.rectangle((0, 0, hw, boxes[0][1]), fill=BAND)
        draw.text((p, p // 2), header, font=self.bold, fill=HEADER)
        if lines:
            top = max(self.height - len(lines) * lh - p, 0)
            band = max(top - p // 2, 0)
            boxes.append((band, self.height, 0, self.width))
            draw.rectangle((0, band, self.width, self.height), fill=BAND)
            for i, (text, colour) in enumerate(lines):
                draw.text((p, top + i * lh), text, font=self.font, fill=colour)
        rgba = np.asarray(img, dtype=np.float32) / 255.0
        out = []
        for y0, y1, x0, x1 in boxes:
            y1, x1 = min(y1 + 1, self.height), min(x1 + 1, self.width)
            a = rgba[y0:y1, x0:x1, 3:4]
            out.append(((y0, y1, x0, x1), rgba[y0:y1, x0:x1, :3] * a * 255.0, a))
        return out
