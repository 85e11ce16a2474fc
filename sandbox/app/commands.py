"""The tabletop's command keys: engine actions the window builds from a selection and a click.

Every command here only *builds* an action of the engine's registry
(:mod:`sandbox.engine.actions`); the window hands it to ``session.apply`` through
:meth:`~sandbox.app.table.app.TabletopApp.submit`, so the rules refuse or play it exactly as in a
scripted run. A command that cannot be built says why in one line (:class:`CommandRefused`),
which the window shows as a refusal.

:class:`TableCommands` builds the players' own hands (:mod:`sandbox.engine.table_tools`), in
every game: Shift-R the dice tray (``roll_dice``), Shift-E mark the selected unit done
(``mark_done``), Shift-M lay a ruler and Shift-C a circular template that stay on the table
(``place_marker``), Delete take one off (``remove_marker``), C pick up a loose object or put
down what the selected unit carries (``pick_up`` / ``put_down``). A game adds its own command
keys with a subclass named ``COMMANDS`` in its window module (BrikWars':
:class:`sandbox.games.brikwars.commands.BrikWarsCommands`); :func:`game_commands` picks it.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import SandboxError
from ..engine.events import possessive
from ..engine.table_tools import MarkDone, PickUp, PlaceMarker, PutDown, RemoveMarker, RollDice


class CommandRefused(SandboxError):
    """A command key cannot build its action now (the message says why, in one line)."""


class TableCommands:
    """Builds the engine actions of the players' own hands for a session (the window's current
    one); a game's subclass adds its command keys.

    Parameters
    ----------
    app : TabletopApp
        Reads ``app.session`` (the game) and ``app.selected`` (the selected body id).
    """

    def __init__(self, app):
        self.app = app

    @property
    def s(self):
        return self.app.session

    def _player(self) -> str:
        return self.s.current_player

    def _selected_unit(self, what: str) -> str:
        key = self.app.selected
        if key is None or key not in self.s.bodies:
            raise CommandRefused(f"{what}: select one of your units first")
        return key

    def _name(self, key: str) -> str:
        st = self.s.bodies.get(key)
        return st.name if st is not None else key

    # ---------------------------------------------------------------- the players' own hands
    def _xy(self, point) -> tuple[float, float]:
        return (round(float(point[0]), 4), round(float(point[1]), 4))

    def roll_dice(self, dice: str) -> RollDice:
        """Shift-R: the player rolls ``dice`` ("2d6", "1d10+1d4") in the dice tray."""
        if not dice.strip():
            raise CommandRefused("Dice tray: type dice like 2d6 or 1d10+1d4, then Enter")
        return RollDice(type="roll_dice", player=self._player(), turn=self.s.turn,
                        dice=dice.strip()[:80])

    def mark_done(self) -> MarkDone:
        """Shift-E: the selected unit is marked done for this turn (again: the mark comes off)."""
        unit = self._selected_unit("Done")
        done = unit not in self.s.tools.done
        return MarkDone(type="mark_done", player=self._player(), turn=self.s.turn, unit=unit,
                        done=done)

    def ruler(self, a, b) -> PlaceMarker:
        """Shift-M: a ruler from ``a`` to ``b`` (x, y inches) that stays on the table."""
        return PlaceMarker(type="place_marker", player=self._player(), turn=self.s.turn,
                           kind="ruler", points=[self._xy(a), self._xy(b)])

    def template(self, centre, radius: float) -> PlaceMarker:
        """Shift-C: a circular template of ``radius`` inches at ``centre`` (x, y inches)."""
        return PlaceMarker(type="place_marker", player=self._player(), turn=self.s.turn,
                           kind="template", points=[self._xy(centre)], radius=float(radius))

    def remove_marker_near(self, point, reach: float = 1.5) -> RemoveMarker:
        """Delete: the player's ruler or template nearest ``point`` (within ``reach`` inches
        of its line or its circle) comes off the table."""
        p = np.asarray(point, float)[:2]
        best, best_d = None, reach
        for mid, m in self.s.tools.markers.items():
            if m["player"] != self._player():
                continue
            pts = np.asarray(m["points"], float)
            if m["kind"] == "ruler":
                a, b = pts[0], pts[1]
                ab = b - a
                t = float(np.clip(np.dot(p - a, ab) / max(float(np.dot(ab, ab)), 1e-9), 0, 1))
                d = float(np.linalg.norm(p - (a + t * ab)))
            else:
                d = min(abs(float(np.linalg.norm(p - pts[0])) - m["radius"]),
                        float(np.linalg.norm(p - pts[0])))
            if d <= best_d:
                best, best_d = mid, d
        if best is None:
            raise CommandRefused(f"Remove: none of {possessive(self._player())} rulers or "
                                 f"templates within {reach:g}\" of that point")
        return RemoveMarker(type="remove_marker", player=self._player(), turn=self.s.turn,
                            marker=best)

    def pick_up(self, item: str) -> PickUp:
        """C: the selected unit picks up ``item`` (a loose object within 1")."""
        unit = self._selected_unit("Pick up")
        return PickUp(type="pick_up", player=self._player(), turn=self.s.turn, unit=unit,
                      item=item)

    def put_down(self, point=None) -> PutDown:
        """C again: the selected unit puts what it carries down at ``point`` (or where it is)."""
        unit = self._selected_unit("Put down")
        return PutDown(type="put_down", player=self._player(), turn=self.s.turn, unit=unit,
                       to=None if point is None else self._xy(point))


def game_commands(kind) -> type[TableCommands]:
    """The command builder of a game of ``kind`` (a :class:`~sandbox.engine.kinds.GameKind`):
    the ``COMMANDS`` class of the module its kind names as its ``window``, else
    :class:`TableCommands`.

    Raises
    ------
    TypeError
        The window module's ``COMMANDS`` is no :class:`TableCommands` subclass.
    """
    module = kind.window_module()
    cls = getattr(module, "COMMANDS", TableCommands) if module is not None else TableCommands
    if not (isinstance(cls, type) and issubclass(cls, TableCommands)):
        raise TypeError(f"{kind.window}.COMMANDS: {cls!r} is no TableCommands class")
    return cls
