"""The input modes every game has: select and drag-move, measure, picking a point or a body for
a command (rulers, templates, taking a marker off), and the referee's hand (placing any body,
a referee's table only). See :mod:`.mode`."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ...engine.table_tools import PlaceBody
from ...render.view import Marker
from ..commands import CommandRefused
from .mode import Drawn, Mode, register_mode


def edge_point(lo, hi, towards) -> np.ndarray:
    """Where a body's footprint edge (box ``lo``-``hi``, inches) faces ``towards`` (x, y)."""
    from ...engine.measure import edge_point as _edge

    return _edge(lo, hi, towards)


@register_mode
class SelectMode(Mode):
    """Click selects; the hover tooltip names the body under the pointer; a drag of a body
    the game lets you move (:meth:`may_drag`) carries its footprint, grabbed where the press
    was, and hands the point to :meth:`moved`. A game's home mode subclasses it with its
    moves (BrikWars' ``BrikWarsHome``, Brigandine's, Micro Brick War's)."""

    name = "select"
    tracks_pointer = True

    def __init__(self, inp):
        super().__init__(inp)
        self.drag_unit: str | None = None
        self.drag_to_point: np.ndarray | None = None

    def enter(self, **options: Any) -> bool:
        self.drag_unit = self.drag_to_point = None
        return True

    def exit(self) -> None:
        self.app.tooltip.setText("")

    def hover(self, x: float, y: float) -> None:
        app = self.app
        if app.busy or app.in_log_column(x):
            return
        hit = app.pick(x, y)
        app.set_tooltip(hit.key if hit is not None and hit.key != "ground" else None, x, y)

    def click(self, x: float, y: float, hit) -> None:
        self.app.select(hit.key if hit is not None and hit.key != "ground" else None)

    # ---------------------------------------------------------------- drag-move
    def may_drag(self, key: str) -> str:
        """Why ``key`` may not be dragged ("" when it may); a game's home mode says (this
        one: none is moved by hand)."""
        return "units are not moved by hand here"

    def drag_begin(self, x: float, y: float) -> bool:
        app = self.app
        if app.busy:
            return False
        hit = app.pick(x, y)
        key = hit.key if hit is not None else None
        if key is None or key == "ground":
            return False
        reason = self.may_drag(key)
        if reason:
            app.flash(reason, error=True)
            return False
        self.drag_unit = key
        app.select(key)
        return True

    def drag_to(self, x: float, y: float) -> None:
        p = self.app.ground_point(x, y)
        if p is not None and self.drag_unit is not None:
            self.drag_to_point = p
            self.app.overlays_dirty = True

    def cancel(self) -> bool:
        app = self.app
        if self.drag_unit is not None:
            self.drag_unit = self.drag_to_point = None
            app.overlays_dirty = True
            app.flash("Move cancelled")
            return True
        return False

    def destination(self, unit: str, press, to) -> np.ndarray:
        """Where a drag sets ``unit`` down: the pointer carries its footprint centre, grabbed
        where the press was (x, y inches)."""
        c = self.session.footprint_centre(unit)
        grab = self.app.ground_point(press[1], press[2])
        offset = (c - grab[:2]) if grab is not None else np.zeros(2)
        return to[:2] + offset

    def drag_end(self, press, x: float, y: float) -> None:
        app = self.app
        unit, to = self.drag_unit, self.drag_to_point
        self.drag_unit = self.drag_to_point = None
        app.overlays_dirty = True
        if unit is None or to is None:
            return
        if app.busy:  # something else started meanwhile: never read physics under it
            app.flash("Wait: physics is still playing out")
            return
        self.moved(unit, self.destination(unit, press, to))

    def moved(self, unit: str, dest) -> None:
        """A drag of ``unit`` ended at ``dest`` (x, y inches): the game's home mode submits
        its move (this one has none)."""


@register_mode
class MeasureMode(Mode):
    """M: click two things (bodies or points): the ruler and the line of sight between them;
    a live ruler follows the pointer until the second click."""

    name = "measure"
    tracks_pointer = True

    def enter(self, **options: Any) -> bool:
        self.start = self.end = None
        self.hovering: np.ndarray | None = None
        return True

    def hover(self, x: float, y: float) -> None:
        app = self.app
        if self.start is None or self.end is not None or app.busy or app.in_log_column(x):
            return
        p = app.ground_point(x, y)
        if p is not None:
            self.hovering = p
            app.overlays_dirty = True

    def click(self, x: float, y: float, hit) -> None:
        thing = hit.key if hit is not None and hit.key != "ground" else (
            np.asarray(hit.point) if hit is not None else None)
        if thing is None:
            return
        if self.start is None or self.end is not None:
            self.start, self.end, self.hovering = thing, None, None
        else:
            self.end = thing
        self.app.overlays_dirty = True

    def draw(self, d: Drawn) -> None:
        s, a, b = self.session, self.start, self.end
        if a is None:
            return
        if b is not None:
            meas = s.measure(a, b)
            sight = s.line_of_sight(a, b)
            d.markers.append(Marker.line(np.array(meas.start) + [0, 0, 0.05],
                                         np.array(meas.end) + [0, 0, 0.05], (1, 1, 1, 1), 3.0))
            sc = (0.3, 1.0, 0.4, 1.0) if sight.clear else (1.0, 0.25, 0.2, 1.0)
            end = sight.hit_point if sight.hit_point is not None else sight.end
            d.markers.append(Marker.line(sight.start, end, sc, 2.0))
            if sight.hit_point is not None:
                d.markers.append(Marker.line(sight.hit_point, sight.end,
                                             (1, 0.25, 0.2, 0.35), 1.0))
            d.label = f'{meas.inches:.2f}"  ' + (
                "line of sight clear" if sight.clear
                else f"blocked by {self.app.name_of(sight.blocked_by)}")
            d.label_at = (np.array(meas.start) + np.array(meas.end)) / 2 + [0, 0, 0.8]
            return
        p = s.bounds(a)[0] if isinstance(a, str) else a
        d.markers.append(Marker.target(np.asarray(p, float), 0.6, (1, 1, 1, 1)))
        if self.hovering is not None:  # the live ruler to the pointer
            meas = s.measure(a, np.asarray(self.hovering, float))
            d.markers.append(Marker.line(np.array(meas.start) + [0, 0, 0.05],
                                         np.array(meas.end) + [0, 0, 0.05], (1, 1, 1, 0.8), 2.0))
            d.label = f'{meas.inches:.2f}"  (click the second point)'
            d.label_at = (np.array(meas.start) + np.array(meas.end)) / 2 + [0, 0, 0.8]


class PickMode(Mode):
    """A click on the table builds a command's action (:meth:`build`), which is submitted
    and the mode ends; a refusal is flashed and the mode stays. The key again restarts it."""

    name = "pick"
    tracks_pointer = True
    #: Said (and the mode refused) when entered with no unit selected; "" needs none.
    needs_selected: ClassVar[str] = ""

    def enter(self, **options: Any) -> bool:
        if self.needs_selected and self.app.selected is None:
            self.app.flash(self.needs_selected, error=True)
            return False
        self.prompt = ""
        self.start(**options)
        return True

    def start(self, **options: Any) -> None:
        """Set the mode up and :meth:`ask` the first question."""

    def again(self, **options: Any) -> None:
        self.inp.set_mode(self.name, **options)

    def ask(self, prompt: str) -> None:
        self.prompt = prompt
        self.app.flash(prompt)

    def build(self, hit):
        """The action a click on ``hit`` means (None: another click is wanted).

        Raises
        ------
        CommandRefused
        """
        raise NotImplementedError

    def click(self, x: float, y: float, hit) -> None:
        if hit is None:
            return
        try:
            action = self.build(hit)
        except CommandRefused as exc:
            self.app.flash(str(exc), error=True)
            return
        if action is not None:
            self.inp.set_mode("select")
            self.app.submit(action)

    def body(self, hit, what: str) -> str:
        """The body ``hit`` names, or a refusal naming the command ``what``."""
        if hit is None or hit.key == "ground" or hit.key not in self.session.bodies:
            raise CommandRefused(f"{what}: click a model on the table")
        return hit.key

    def status(self) -> str:
        return f"   {self.prompt}" if self.prompt else ""


class _Follows(PickMode):
    """A pick mode whose marker follows the pointer (``hovering``, a ground point)."""

    def start(self, **options: Any) -> None:
        self.hovering: np.ndarray | None = None

    def hover(self, x: float, y: float) -> None:
        app = self.app
        if app.busy or app.in_log_column(x):
            return
        p = app.ground_point(x, y)
        if p is not None:
            self.hovering = p
            app.overlays_dirty = True


@register_mode
class RulerMode(_Follows):
    """Shift+M: lay a ruler that stays on the table (two clicks; the players' own hands)."""

    name = "ruler"

    def start(self, **options: Any) -> None:
        super().start()
        self.first: np.ndarray | None = None
        self.ask("Ruler: click the first point")

    def build(self, hit):
        if self.first is None:
            self.first = np.asarray(hit.point, float)
            self.ask("Ruler: click the second point (it stays on the table)")
            return None
        return self.inp.cmd.ruler(self.first, hit.point)

    def draw(self, d: Drawn) -> None:
        if self.first is None or self.hovering is None:
            return
        a = np.array([self.first[0], self.first[1], 0.06])
        b = np.array([self.hovering[0], self.hovering[1], 0.06])
        d.markers.append(Marker.line(a, b, (1.0, 0.95, 0.35, 0.7), 2.0))
        d.label, d.label_at = f'{float(np.linalg.norm(b - a)):.2f}"', (a + b) / 2 + [0, 0, 0.8]


@register_mode
class TemplateMode(_Follows):
    """Shift+C: lay a circular template ([ and ] change its radius, 1" to 12")."""

    name = "template"

    def __init__(self, inp):
        super().__init__(inp)
        #: Radius (inches) of the template laid; kept between uses.
        self.radius = 2.0

    def start(self, **options: Any) -> None:
        super().start()
        self.ask("Template: click its centre ([ ] radius)")

    def build(self, hit):
        return self.inp.cmd.template(hit.point, self.radius)

    def key(self, name: str) -> bool:
        if name not in ("[", "]"):
            return False
        self.radius = float(np.clip(self.radius + (1 if name == "]" else -1), 1, 12))
        self.app.overlays_dirty = True
        return True

    def draw(self, d: Drawn) -> None:
        h = self.hovering
        if h is None:
            return
        d.markers.append(Marker.ring((h[0], h[1], 0.05), self.radius,
                                     colour=(0.35, 0.85, 1.0, 0.6), width=0.1))
        d.label = f'template {self.radius:g}"  ([ ] radius, click to lay it)'
        d.label_at = np.array([h[0], h[1], 1.0])


@register_mode
class RemoveMarkerMode(PickMode):
    """Delete: click one of your rulers or templates to take it off the table."""

    name = "remove_marker"

    def start(self, **options: Any) -> None:
        self.ask("Remove: click one of your rulers or templates")

    def build(self, hit):
        return self.inp.cmd.remove_marker_near(hit.point)



@register_mode
class PlaceMode(Mode):
    """Shift+P, the referee's hand (a referee's table only: ``sandbox play --referee``): drag
    any body (a unit of either side, a creation, a piece of rubble) to where it should stand,
    or click it and then click the point; each placing is the engine's ``place_body``, issued
    by the referee. The mode stays for the next body; Esc drops a held body, then leaves."""

    name = "place"
    tracks_pointer = True

    def enter(self, **options: Any) -> bool:
        if not self.app.referee:  # the key is bound for a referee only; never a player's
            self.app.flash("Placing any body is the referee's tool (sandbox play --referee)",
                           error=True)
            return False
        self.body: str | None = None
        #: Where the held body's footprint centre would go now (x, y inches), or None.
        self.to: np.ndarray | None = None
        #: The footprint centre less the grabbed point (a drag keeps the grip).
        self.offset = np.zeros(2)
        self.prompt = "Referee: drag any body to where it stands (or click it, then the point)"
        self.app.flash(self.prompt)
        return True

    def again(self, **options: Any) -> None:
        self.inp.set_mode("select")

    def exit(self) -> None:
        self.body = self.to = None

    def refusal(self, key: str, to=None) -> str:
        """Why the referee may not place ``key`` (at ``to``, default where it stands): the
        engine's own refusal of ``place_body`` ("" when it may)."""
        s = self.session
        if key not in s.bodies or key not in s.world.bodies:
            return f"no body called {key!r} on the table"
        at = s.footprint_centre(key) if to is None else to
        return s.system("tabletop").refusal(self.action(key, at))

    def action(self, key: str, to) -> PlaceBody:
        return PlaceBody(type="place_body", player=self.session.current_player, body=key,
                         to=(round(float(to[0]), 4), round(float(to[1]), 4)), by="referee")

    def take(self, key: str, grab) -> bool:
        """Hold body ``key``, grabbed at ``grab`` (x, y inches; None: at its centre)."""
        why = self.refusal(key)
        if why:
            self.app.flash(why, error=True)
            return False
        self.body, self.to = key, None
        c = self.session.footprint_centre(key)
        self.offset = (c - np.asarray(grab, float)[:2]) if grab is not None else np.zeros(2)
        self.app.select(key)
        self.prompt = f"Referee: place {self.app.name_of(key)}: release or click the point"
        return True

    def put(self, point) -> None:
        """Set the held body down with its grip at ``point`` (x, y inches)."""
        key, self.body, self.to = self.body, None, None
        self.prompt = "Referee: drag any body to where it stands (or click it, then the point)"
        self.app.overlays_dirty = True
        if key is None or point is None:
            return
        self.app.submit(self.action(key, np.asarray(point, float)[:2] + self.offset))

    def hover(self, x: float, y: float) -> None:
        if self.body is not None and not self.app.busy:
            self.to = self.app.ground_point(x, y)
            self.app.overlays_dirty = True

    def click(self, x: float, y: float, hit) -> None:
        app = self.app
        if self.body is None:
            if hit is None or hit.key == "ground":
                app.flash("Referee: click a body to pick it up", error=True)
                return
            self.take(hit.key, None)
            return
        self.put(app.ground_point(x, y))

    def drag_begin(self, x: float, y: float) -> bool:
        app = self.app
        if app.busy:
            return False
        hit = app.pick(x, y)
        if hit is None or hit.key == "ground":
            return False
        return self.take(hit.key, app.ground_point(x, y))

    def drag_to(self, x: float, y: float) -> None:
        self.hover(x, y)

    def drag_end(self, press, x: float, y: float) -> None:
        if self.app.busy:
            self.app.flash("Wait: physics is still playing out")
            return
        self.put(self.app.ground_point(x, y))

    def cancel(self) -> bool:
        if self.body is None:
            return False
        self.body = self.to = None
        self.app.flash("Placing cancelled")
        self.app.overlays_dirty = True
        return True

    def draw(self, d: Drawn) -> None:
        if self.body is None or self.to is None:
            return
        s, key = self.session, self.body
        lo, hi = s.bounds(key)
        c = s.footprint_centre(key)
        dest = np.asarray(self.to, float)[:2] + self.offset
        ok = not self.refusal(key, dest)
        colour = (0.75, 0.55, 1.0, 1.0) if ok else (1.0, 0.25, 0.2, 1.0)
        d.markers.append(Marker.line((c[0], c[1], 0.06), (dest[0], dest[1], 0.06), colour, 2.0))
        half = (hi[:2] - lo[:2]) / 2
        box = [[dest[0] + sx * half[0], dest[1] + sy * half[1], 0.05]
               for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1), (-1, -1))]
        d.markers.append(Marker.path(box, colour, 2.0))
        d.label = (f"place {self.app.name_of(key)}: "
                   f'{float(np.linalg.norm(dest - c)):.2f}" (the referee)')
        d.label_at = np.array([dest[0], dest[1], 0.8])

    def status(self) -> str:
        return f"   {self.prompt}"
