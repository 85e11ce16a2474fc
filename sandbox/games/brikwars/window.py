"""BrikWars's window modes (the game kind's ``window``, imported by the window only; they read
no Panda3D: modes compute, the window draws): the home mode (select and drag-move, with the
Escapade's edges and zones and the Field Hazards drawn in every mode), attack with a weapon,
Strategic Bombardment and missile strikes, The Big Drop, Launchers and throws, carrying,
interacting, Close Combat, the Escapade's Tactical Advantages, Marks, turrets and the referee's
ignite. See :mod:`sandbox.app.table.mode`; the keys that enter them are rows of
:mod:`sandbox.app.table.keymap`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...app.commands import CommandRefused
from ...app.table.keymap import (
    Handler,
    KeyCommand,
    command,
    enter_mode,
    input_call,
    mode_key,
)
from ...app.table.mode import Drawn, Mode
from ...app.table.modes_common import PickMode, SelectMode, edge_point
from ...core.errors import SandboxError
from ...engine.actions import MoveAction
from ...engine.events import possessive
from ...render.escapade_markers import escapade_markers
from ...render.hazard_markers import hazard_markers
from ...render.view import Marker
from .commands import CLOSE_COMBAT_MOVES, INTERACTIONS, MISSILE_VARIANTS, BrikWarsCommands
from .scene_flight import LaunchAction

#: Points of Firing Arc are the spaces between outstretched fingers (BrikWars 8.3); one space
#: is read as 15 degrees.
ARC_POINT_DEG: float = 15.0
_EXPLOSION = (1.0, 0.55, 0.1, 0.8)
_OK, _NO = (0.3, 1.0, 0.4, 1.0), (1.0, 0.25, 0.2, 1.0)


def arc_fan(origin, towards, arc_points: int, reach: float) -> Marker:
    """The Firing Arc as a fan polyline from ``origin`` centred on ``towards`` (8.3)."""
    d = np.asarray(towards[:2], float) - np.asarray(origin[:2], float)
    base = math.atan2(d[1], d[0])
    half = math.radians(ARC_POINT_DEG * arc_points) / 2
    z = 0.06
    pts = [(origin[0], origin[1], z)]
    for a in np.linspace(base - half, base + half, 12):
        pts.append((origin[0] + reach * math.cos(a), origin[1] + reach * math.sin(a), z))
    pts.append((origin[0], origin[1], z))
    return Marker.path(pts, (1.0, 0.6, 0.15, 0.9), 2.0)


def _rings(d: Drawn, p, n: int) -> None:
    """2" of blast radius per Explosive die (8.4)."""
    for k in range(1, n + 1):
        d.markers.append(Marker.ring((p[0], p[1], 0.03), 2.0 * k, colour=_EXPLOSION, width=0.1))


def _cmd(inp) -> BrikWarsCommands:
    """The window's command builder, BrikWars' own (:data:`COMMANDS`, made by the window for a
    BrikWars game)."""
    cmd = inp.cmd
    if not isinstance(cmd, BrikWarsCommands):
        raise TypeError(f"a BrikWars mode in a window whose commands are {type(cmd).__name__}")
    return cmd


class AttackMode(Mode):
    """1-9: the selected unit's weapon. Point at a target to preview, click it to aim, click
    again (or Enter) to fire; Tab picks a fire mode (8.3)."""

    name = "attack"
    tracks_pointer = True

    def enter(self, weapon: int = 0, **options: Any) -> bool:
        app = self.app
        if app.selected is None:
            app.flash("Select one of your units first")
            return False
        ws = self.session.skirmish.weapons(app.selected)
        if weapon >= len(ws):
            app.flash(f"{self.session.body(app.selected).name} has {len(ws)} weapon(s)")
            return False
        self.weapon: int = weapon
        self.hover_target: str | None = None
        #: The target the first click aimed at (the second click on it fires).
        self.aimed: str | None = None
        #: The chosen fire mode (Tab; None: the weapon's default).
        self.fire_mode: str | None = None
        app.flash(f"{ws[weapon].name}: click a target to aim, click it again (or Enter) to fire")
        return True

    def again(self, **options: Any) -> None:
        self.inp.set_mode("attack", **options)

    def hover(self, x: float, y: float) -> None:
        app = self.app
        if app.busy or self.aimed is not None:
            return
        hit = app.pick(x, y)
        tgt = hit.key if hit is not None and hit.key != "ground" else None
        if tgt != self.hover_target:
            self.hover_target = tgt
            app.overlays_dirty = True

    def click(self, x: float, y: float, hit) -> None:
        app = self.app
        if hit is None or hit.key == "ground" or app.selected is None:
            return
        if self.aimed == hit.key:
            self.fire(hit.key)
            return
        self.aimed = self.hover_target = hit.key
        app.flash(f"Aimed at {app.name_of(hit.key)}: click it again or Enter to fire, "
                  "Esc to cancel")
        app.overlays_dirty = True

    def fire(self, target: str) -> None:
        app = self.app
        if app.selected is None:
            return
        unit, weapon, mode = app.selected, self.weapon, self.fire_mode
        self.inp.command(lambda: _cmd(self.inp).attack(unit, weapon, target, mode))
        self.inp.set_mode("select")

    def key(self, name: str) -> bool:
        app = self.app
        if name == "enter":
            if self.hover_target is not None:
                self.fire(self.hover_target)
            return True
        if name == "tab" and app.selected is not None:
            modes = _cmd(self.inp).fire_modes(app.selected, self.weapon)
            i = modes.index(self.fire_mode) if self.fire_mode in modes else 0
            self.fire_mode = modes[(i + 1) % len(modes)]
            app.flash(f"Fire mode: {self.fire_mode or 'the weapon default'}")
            app.overlays_dirty = True
            return True
        return False

    def preview(self):
        if self.hover_target is None or self.app.selected is None:
            return None
        return _cmd(self.inp).attack(self.app.selected, self.weapon, self.hover_target,
                                   self.fire_mode)

    def draw(self, d: Drawn) -> None:
        s, unit, target = self.session, self.app.selected, self.hover_target
        if unit is None:
            return
        ws = s.skirmish.weapons(unit)
        if self.weapon >= len(ws):  # another unit was selected meanwhile
            return
        w = ws[self.weapon]
        lo, hi = s.bounds(unit)
        c = s.footprint_centre(unit)
        if w.range_in:
            d.markers.append(Marker.ring((c[0], c[1], 0.03), w.range_in + (hi[0] - lo[0]) / 2,
                                         colour=(1.0, 1.0, 1.0, 0.45), width=0.06))
        if target is None or target == unit:
            return
        try:
            pv = s.skirmish.attack_preview(unit, self.weapon, target, mode=self.fire_mode,
                                           gunner=_cmd(self.inp).crew_for(unit, self.weapon))
        except SandboxError as exc:
            d.preview = [str(exc)]
            return
        tlo, thi = s.bounds(target)
        tc = (tlo + thi) / 2
        d.preview = pv.lines() + (["Click again or Enter to fire"] if pv.allowed else [])
        d.markers.append(Marker.line(pv.sight.start, pv.sight.hit_point or pv.sight.end,
                                     _OK if pv.sight.clear else _NO, 2.0))
        if pv.distance_in > (pv.range_in or 0) and not w.close_combat:
            d.markers.append(Marker.target((tc[0], tc[1], 0.0), 1.0))  # a long shot
        if pv.arc_points:
            d.markers.append(arc_fan(c, tc, pv.arc_points, (pv.range_in or 4.0)))
        if pv.explosive and w.damage is not None:
            _rings(d, tc, w.damage.count)


class StrikeMode(Mode):
    """A: Strategic Bombardment with the player's Strategy bricks (13.2); V (a referee's
    tool): a missile strike of any size (8.4; Tab its Explosive Variant). Click the point,
    [ ] dice, click again or Enter."""

    name = "strike"

    def __init__(self, inp):
        super().__init__(inp)
        self.kind = "bombard"
        self.dice = 1
        #: The missile's Explosive Variant (8.4): its d10s swapped.
        self.variant = "explosive"
        self.point: np.ndarray | None = None

    def enter(self, kind: str = "bombard", **options: Any) -> bool:
        self.kind, self.point = kind, None
        self.app.flash(("Strategic Bombardment" if kind == "bombard" else "Missile strike")
                       + ": click the target point, [ ] dice, click again or Enter")
        return True

    def again(self, kind: str = "bombard", **options: Any) -> None:
        if kind == self.kind:
            self.inp.set_mode("select")
        else:
            self.inp.set_mode("strike", kind=kind)

    def click(self, x: float, y: float, hit) -> None:
        if hit is None:
            return
        p = np.asarray(hit.point, float)
        if self.point is not None and np.allclose(p, self.point, atol=0.25):
            self.strike()
        else:
            self.point = p
            self.app.overlays_dirty = True

    def strike(self) -> None:
        """Call the strike at the chosen point."""
        if self.point is None:
            self.app.flash("Click the target point first", error=True)
            return
        p, cmd = self.point, _cmd(self.inp)
        self.inp.set_mode("select")
        self.inp.command(lambda: cmd.bombard(p, self.dice) if self.kind == "bombard"
                         else cmd.missile(p, self.dice, self.variant))

    def key(self, name: str) -> bool:
        if name in ("[", "]"):
            self.dice = int(np.clip(self.dice + (1 if name == "]" else -1), 1, 40))
        elif name == "tab" and self.kind == "missile":
            i = MISSILE_VARIANTS.index(self.variant)
            self.variant = MISSILE_VARIANTS[(i + 1) % len(MISSILE_VARIANTS)]
            self.app.flash(f"Missile: {_cmd(self.inp).missile_dice(self.dice, self.variant)}")
        elif name == "enter":
            self.strike()
            return True
        else:
            return False
        self.app.overlays_dirty = True
        return True

    def preview(self):
        if self.kind != "bombard" or self.point is None:
            return None
        try:
            return _cmd(self.inp).bombard(self.point, self.dice)
        except CommandRefused:
            return None

    def status(self) -> str:
        out = f"   {self.dice} Explosive dice ([ and ] to change)"
        return out + (f", variant {self.variant} (Tab)" if self.kind == "missile" else "")

    def draw(self, d: Drawn) -> None:
        p = self.point
        if p is None:
            return
        cmd = _cmd(self.inp)
        d.markers.append(Marker.target((p[0], p[1], max(p[2], 0.0)), 1.0))
        dice, n_dice = f"{self.dice}d10 Explosive", self.dice
        if self.kind == "missile":  # Variants swap the d10s (8.4; Tab)
            dice = cmd.missile_dice(self.dice, self.variant)
            n_dice = cmd.missile_dice_count(self.dice, self.variant)
        _rings(d, p, n_dice)
        shown = self.preview()
        if shown is not None:
            d.preview = self.session.bombardment.preview(shown)
        what = "Strategic Bombardment" if self.kind == "bombard" else "Missile strike"
        d.label = f"{what}: {dice}  (click again or Enter)"
        d.label_at = np.array([p[0], p[1], max(p[2], 0.0) + 1.5])


class DropMode(Mode):
    """B: The Big Drop, a Strategic Bombardment Marked by the player's Scout (13.2): click the
    point, [ ] Strategy bricks, Enter; it falls at the player's next turn."""

    name = "drop"

    def __init__(self, inp):
        super().__init__(inp)
        self.bricks = 1
        self.point: np.ndarray | None = None

    def enter(self, **options: Any) -> bool:
        self.point = None
        self.app.flash("The Big Drop: select your Scout, click the point, [ ] bricks, Enter")
        return True

    def click(self, x: float, y: float, hit) -> None:
        if hit is not None:
            self.point = np.asarray(hit.point)
            self.app.overlays_dirty = True

    def action(self):
        """The Big Drop of ``bricks`` d10 Explosive at the point (13.2)."""
        return _cmd(self.inp).bombard(self.point, self.bricks, big_drop=True)

    def key(self, name: str) -> bool:
        if name in ("[", "]"):
            self.bricks = int(np.clip(self.bricks + (1 if name == "]" else -1), 1, 6))
            self.app.overlays_dirty = True
            return True
        if name == "enter":
            if self.point is not None:
                self.inp.command(self.action)
                self.inp.set_mode("select")
            return True
        return False

    def preview(self):
        if self.point is None:
            return None
        try:
            return self.action()
        except CommandRefused:
            return None

    def status(self) -> str:
        s = self.session
        if self.app.runner.busy:
            return ""
        return (f"   Strategy bricks {self.bricks} of {s.bombardment.strategy_pile()} in "
                f"{possessive(s.current_player)} pile ([ and ] to change)")

    def draw(self, d: Drawn) -> None:
        from ...rules.collision import big_drop_height

        p, s = self.point, self.session
        if p is None:
            return
        h = big_drop_height(self.bricks)
        ground = max(p[2], 0.0)
        d.markers.append(Marker.target((p[0], p[1], ground), 1.0))
        d.markers.append(Marker.path([(p[0], p[1], ground + h), (p[0], p[1], ground)],
                                     (1.0, 0.85, 0.2, 1.0), 2.0))
        _rings(d, p, self.bricks)
        label = f'The Big Drop: {self.bricks}d10 Explosive from {h:g}"'
        shown = self.preview()
        refused = shown is None
        if shown is not None:
            d.preview = s.bombardment.preview(shown)
            refused = bool(s.bombardment.call_refusal(shown))
            if shown.marked_by is not None and shown.marked_by in s.world.bodies:
                ok = not s.bombardment.mark_refusal(shown)
                d.markers.append(Marker.line(s.eye(shown.marked_by),  # the Scout's Mark (F.3)
                                             s.bombardment.mark_point(shown.target),
                                             _OK if ok else _NO, 2.0))
        else:
            try:
                _cmd(self.inp).marker(p)
            except CommandRefused as exc:
                d.preview = [str(exc)]
        # the label invites Enter only when the call would be played (13.2)
        d.label = label + ("  (refused: see the panel)" if refused else "  (Enter to call)")
        d.label_at = np.array([p[0], p[1], ground + h + 0.5])


def launch_aim(session, hit) -> tuple[np.ndarray, str | None]:
    """Aim point of a Launcher or a throw at what was clicked: a body's top centre (plus 1",
    over cover), or the point on the ground (inches)."""
    if hit.key != "ground" and hit.key in session.bodies:
        lo, hi = session.bounds(hit.key)
        return np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, hi[2] + 1.0]), hit.key
    p = np.asarray(hit.point, float)
    return np.array([p[0], p[1], max(p[2], 0.0)]), None


class LaunchMode(Mode):
    """L: the player's Launcher (8.4): click a target (an X beyond 12"), click again or Enter
    to fire."""

    name = "launch"

    def enter(self, **options: Any) -> bool:
        app = self.app
        ms = self.session.flight.launchers()
        if not ms:
            app.flash(f"{self.session.current_player} has no Launcher on the table "
                      "(A: Strategic Bombardment, B: The Big Drop)", error=True)
            return False
        self.launcher: str = ms[0].id
        self.aim: np.ndarray | None = None
        self.body: str | None = None
        app.flash(f"{ms[0].id}: click a target (an X beyond 12\"), click again or Enter "
                  "to fire")
        return True

    def click(self, x: float, y: float, hit) -> None:
        if hit is None:
            return
        aim, body = launch_aim(self.session, hit)
        if self.aim is not None and np.allclose(aim, self.aim, atol=0.25):
            self.fire()
        else:
            self.aim, self.body = aim, body
            self.app.overlays_dirty = True

    def action(self) -> tuple[LaunchAction | None, str]:
        """The Launcher shot at the aim point (8.4), or None and the preview's reason."""
        s = self.session
        pv = s.flight.launch_preview(self.launcher, self.aim, target_body=self.body)
        if not pv.allowed:
            return None, pv.reason
        return LaunchAction(type="launch", player=s.current_player, turn=s.turn,
                            weapon=self.launcher, payload=list(pv.payload),
                            target=tuple(round(float(v), 4) for v in pv.target),
                            target_body=self.body), ""

    def fire(self) -> None:
        """Fire the Launcher at the aim point through the session (8.4)."""
        if self.aim is None:
            return
        action, reason = self.action()
        if action is None:
            self.app.flash(reason, error=True)
            return
        self.app.submit(action)
        self.inp.set_mode("select")

    def key(self, name: str) -> bool:
        if name == "enter":
            self.fire()
            return True
        return False

    def preview(self):
        return self.action()[0] if self.aim is not None else None

    def draw(self, d: Drawn) -> None:
        if self.aim is None:
            return
        lp = self.session.flight.launch_preview(self.launcher, self.aim, target_body=self.body)
        d.markers.append(Marker.path(lp.path, (1.0, 0.85, 0.2, 1.0) if lp.allowed else _NO, 2.0))
        if lp.beyond_turn:  # the red-brick X on the target (8.4)
            d.markers.append(Marker.target((lp.target[0], lp.target[1], 0.0), 1.0))
        d.preview = lp.lines() + (["Click again or Enter to fire"] if lp.allowed else [])


class ThrowMode(PickMode):
    """J: the selected unit throws a loose object (8.4): click it, then where it lands."""

    name = "throw"
    needs_selected = "Throw: select one of your units first"

    def start(self, **options: Any) -> None:
        self.payload: str | None = None
        self.ask("Throw: click the object to throw")

    def build(self, hit):
        if self.payload is None:
            self.payload = self.body(hit, "Throw")
            self.ask(f"Throw {self.app.name_of(self.payload)}: click where it should land")
            return None
        aim, body = launch_aim(self.session, hit)
        return _cmd(self.inp).throw(self.payload, aim, body)


class CarryMode(PickMode):
    """C: pick up a loose object within 1" (it travels with every move), or put down what the
    selected unit carries where the next click says (C again: where it is) (13.1)."""

    name = "carry"
    needs_selected = "Pick up: select one of your units first"

    def start(self, **options: Any) -> None:
        held = self.session.tools.held(self.app.selected)
        self.putting_down = held is not None
        if held is not None:
            self.ask(f"Put down {self.app.name_of(held)}: click a point within 1\" "
                     "(C again: where it is)")
        else:
            self.ask("Pick up: click the loose object (within 1\"; it then travels with "
                     "every move)")

    def again(self, **options: Any) -> None:
        if self.putting_down:  # C twice: put it down where it is
            self.inp.set_mode("select")
            self.inp.command(_cmd(self.inp).put_down)
        else:
            super().again(**options)

    def build(self, hit):
        if self.putting_down:
            return _cmd(self.inp).put_down(hit.point)
        return _cmd(self.inp).pick_up(self.body(hit, "Pick up"))


class InteractMode(PickMode):
    """K: the selected unit interacts with a lever, door or object (F.2); K again changes the
    verb (a Trap answers only its own)."""

    name = "interact"
    needs_selected = "Interact: select one of your units first"

    def start(self, verb: str = INTERACTIONS[0], **options: Any) -> None:
        self.verb = verb
        self.ask(f"Interact ({verb}; K: another verb): click the lever, door or object")

    def again(self, **options: Any) -> None:
        i = INTERACTIONS.index(self.verb) if self.verb in INTERACTIONS else -1
        self.inp.set_mode(self.name, verb=INTERACTIONS[(i + 1) % len(INTERACTIONS)])

    def build(self, hit):
        return _cmd(self.inp).interact(self.body(hit, "Interact"), self.verb)


class CloseCombatMode(PickMode):
    """;: Close Combat (8.2): Shove, ``;`` again Grab, again Angry Inch; the first click on the
    target previews every modifier, a second click on it plays the move."""

    name = "close_combat"
    needs_selected = "Close Combat: select one of your units first"

    def start(self, move: str = CLOSE_COMBAT_MOVES[0], **options: Any) -> None:
        self.move = move
        #: The target previewed (a second click on it does the move).
        self.target: str | None = None
        self.ask(f"Close Combat ({move.replace('_', ' ')}; ; another move): click the target "
                 "to preview, again to do it")

    def again(self, **options: Any) -> None:
        i = CLOSE_COMBAT_MOVES.index(self.move)
        self.inp.set_mode(self.name, move=CLOSE_COMBAT_MOVES[(i + 1) % len(CLOSE_COMBAT_MOVES)])

    def build(self, hit):
        target = self.body(hit, "Close Combat")
        if target != self.target:
            self.target = target
            lines = _cmd(self.inp).close_combat_preview(self.move, target, self.inp.weapon)
            self.app.flash("\n".join(lines), seconds=12.0)
            return None
        return _cmd(self.inp).close_combat(self.move, target, self.inp.weapon)


class SwapMode(PickMode):
    """F10: a Tactical Advantage swap of the selected unit and a clicked one (13.2)."""

    name = "swap"
    needs_selected = "Swap: select one of the two units first (13.2 Tactical Advantage)"

    def start(self, **options: Any) -> None:
        self.ask("Swap: click the other unit (13.2 Tactical Advantage)")

    def build(self, hit):
        return _cmd(self.inp).swap(self.body(hit, "Swap"))


class AmbushMode(PickMode):
    """F11: the selected unit sets up in ambush at a clicked point (13.2)."""

    name = "ambush"
    needs_selected = "Ambush: select the unit first (13.2 Tactical Advantage)"

    def start(self, **options: Any) -> None:
        self.ask("Ambush: click where the unit sets up (13.2)")

    def build(self, hit):
        return _cmd(self.inp).ambush(hit.point)


class MarkMode(PickMode):
    """Y: the selected Scout Marks a target (F.3)."""

    name = "mark"
    needs_selected = "Mark: select your Scout first"

    def start(self, **options: Any) -> None:
        self.ask("Mark: click the target to Mark")

    def build(self, hit):
        return _cmd(self.inp).mark(self.body(hit, "Mark"))


class IgniteMode(PickMode):
    """I (a referee's tool): set a body on fire, 1d4 Fire (8.3)."""

    name = "ignite"

    def start(self, **options: Any) -> None:
        self.ask("Ignite: click what to set on fire (1d4 Fire)")

    def build(self, hit):
        return _cmd(self.inp).ignite(self.body(hit, "Ignite"))


class TurretMode(PickMode):
    """Shift+T Set Up a Turret, Shift+G Gunnery Support, Shift+I Interfere (8.1, 8.5): the
    selected minifig and a clicked weapon's Creation or Turret."""

    name = "turret"
    needs_selected = "Select one of your minifigs first"
    PROMPTS = {"set_up": "Set Up: click the Turret",
               "gunnery": "Gunnery Support: click the weapon's Creation or Turret",
               "interfere": "Interfere: click the weapon's Creation or Turret"}

    def start(self, what: str = "set_up", **options: Any) -> None:
        self.what = what
        self.ask(self.PROMPTS[what])

    def build(self, hit):
        cmd, weapon = _cmd(self.inp), self.inp.weapon
        key = self.body(hit, self.PROMPTS[self.what].split(":")[0])
        if self.what == "set_up":
            return cmd.set_up_turret(key)
        if self.what == "gunnery":
            return cmd.gunnery_support(key, weapon)
        return cmd.interfere(key, weapon)


class BrikWarsHome(SelectMode):
    """BrikWars's home mode: click selects; drag your own unit to move it (S: Sprint); a drag
    longer than the unit may move stops at its limit along the line (Shift held at the press:
    refused instead); a move that would fall more than 1" waits for Enter (5.4); a drag off a
    friendly edge in an Escapade withdraws (13.1). In every mode the Escapade's table edges,
    deployment zones and Stronghold (13.1) and the Field Hazards' areas and flames (F.1; a
    hidden one only once a Scout revealed it to the player whose turn it is, F.3) are drawn."""

    def __init__(self, inp):
        super().__init__(inp)
        #: A move waiting for Enter because it would fall more than 1".
        self.pending_move: MoveAction | None = None

    def may_drag(self, key: str) -> str:
        """Why ``key`` may not be dragged ("" when it may): the Skirmish system's move
        refusal (one of your units that may still act)."""
        if key not in self.session.bodies:
            return ""
        return self.session.skirmish.move_refusal(key)

    def cancel(self) -> bool:
        if self.pending_move is not None:
            self.pending_move = None
            self.app.flash("Move cancelled")
            return True
        return super().cancel()

    def moved(self, unit: str, dest) -> None:
        """A drag ended: move ``unit`` to ``dest`` (x, y inches), an Escapade withdrawal off
        a friendly edge (13.1), or ask first when it falls more than 1" (5.4)."""
        app, inp = self.app, self.inp
        if getattr(app.session, "escapade", None) is not None and _cmd(inp).off_table(dest):
            app.submit(_cmd(inp).walk(unit, dest, inp.sprint))
            inp.sprint = False
            return
        move = MoveAction(type="move", player=app.session.current_player, unit=unit,
                          to=(round(float(dest[0]), 4), round(float(dest[1]), 4)),
                          sprint=inp.sprint, clamp=not inp.shift)
        inp.sprint = False
        dest = self.stop_point(unit, dest, move.sprint, move.clamp)
        fall = self.fall_at(unit, dest)
        if fall > 1.0:
            self.pending_move = move
            app.flash(f'This move falls {fall:.1f}" off its footing: Enter to move '
                      "anyway, Esc to cancel", 10.0, error=True)
            return
        app.submit(move)

    def key(self, name: str) -> bool:
        if name == "enter" and self.pending_move is not None:
            move, self.pending_move = self.pending_move, None
            self.app.submit(move)
            return True
        return False

    def stop_point(self, unit: str, dest, sprint: bool, clamp: bool) -> np.ndarray:
        """Where a move of ``unit`` towards ``dest`` (x, y inches) ends: at the unit's limit
        along the line when ``clamp`` (a drag without Shift) and the drag is longer than the
        unit may still move (a new Sprint's limit waits for its roll); else ``dest``."""
        s = self.session
        dest = np.asarray(dest, float)[:2]
        if not clamp or (sprint and unit not in s.skirmish.turn_state.sprint_in):
            return dest
        c = s.footprint_centre(unit)
        left, dist = s.skirmish.move_allowance(unit), float(np.linalg.norm(dest - c))
        if dist <= left + 1e-9 or dist == 0.0:
            return dest
        return c + (dest - c) * (left / dist)

    def fall_at(self, unit: str, dest) -> float:
        """How far (inches) ``unit`` would drop if set down at ``dest`` (x, y): from the
        height of its feet now to what is under ``dest`` (0 when it stays on its level)."""
        s = self.session
        lo, hi = s.bounds(unit)
        if lo[2] < 0.25:
            return 0.0
        hit = s.pick(np.array([dest[0], dest[1], lo[2] + 0.3]),
                     np.array([dest[0], dest[1], -1.0]))
        if hit is None or hit.key == unit:
            return 0.0
        return max(0.0, float(lo[2] - max(float(hit.point[2]), 0.0)))

    def draw(self, d: Drawn) -> None:
        press = self.inp.press
        if self.drag_unit is None or self.drag_to_point is None or press is None:
            return
        s, unit = self.session, self.drag_unit
        lo, hi = s.bounds(unit)
        c = s.footprint_centre(unit)
        asked = self.destination(unit, press, self.drag_to_point)
        dist = float(np.linalg.norm(asked - c))
        left = s.skirmish.move_allowance(unit)
        sprint = self.inp.sprint
        dest = self.stop_point(unit, asked, sprint, not self.inp.shift)
        stops = not np.allclose(dest, asked)  # shortened to the limit (Shift: refuse)
        ok = dist <= left + 1e-9 or stops
        start = edge_point(lo, hi, asked)
        end = start + np.array([dest[0] - c[0], dest[1] - c[1], 0.0])
        colour = (0.3, 1.0, 0.4, 1.0) if ok else (
            (1.0, 0.8, 0.2, 1.0) if sprint else (1.0, 0.25, 0.2, 1.0))
        d.markers.append(Marker.line((start + [0, 0, 0.05]).tolist(),
                                     (end + [0, 0, 0.05]).tolist(), colour, 3.0))
        if stops:  # the rest of the drag, dimmed: beyond the limit
            beyond = start + np.array([asked[0] - c[0], asked[1] - c[1], 0.0])
            d.markers.append(Marker.line((end + [0, 0, 0.05]).tolist(),
                                         (beyond + [0, 0, 0.05]).tolist(),
                                         (1.0, 0.25, 0.2, 0.5), 1.5))
        d.markers.append(Marker.ring((c[0], c[1], 0.03), max(left, 0.05) + (hi[0] - lo[0]) / 2,
                                     colour=(0.3, 1.0, 0.4, 0.5), width=0.06))
        half = (hi[:2] - lo[:2]) / 2
        box = [[dest[0] + sx * half[0], dest[1] + sy * half[1], 0.05]
               for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1), (-1, -1))]
        d.markers.append(Marker.path(box, colour, 2.0))
        d.label = f'{dist:.2f}" of {left:.2f}"' + (
            f'  stops at {left:.2f}" (Shift: refuse)' if stops else "") + ("" if ok else (
            "  Sprint: roll for more" if sprint else "  too far (S: Sprint)"))
        fall = self.fall_at(unit, dest)
        if fall > 0.25:  # the path leaves a roof or a wall
            d.label += f"  falls {fall:.1f}\""
        d.label_at = (start + end) / 2 + [0, 0, 0.6]

    def stat_card(self, key: str | None) -> list[str]:
        """The BrikWars stat card of the selected body (the Skirmish system's)."""
        return self.session.skirmish.stat_card(key) if key is not None else []

    def draw_home(self, drawn: Drawn) -> None:
        s = self.session
        drawn.markers.extend(escapade_markers(s))
        drawn.markers.extend(hazard_markers(s, viewer=s.current_player))

    def panel(self) -> str:
        """An Escapade's forces, Reinforcements and Victory Points (13.2-13.3); "" without
        one."""
        esc = getattr(self.session, "escapade", None)
        return "\n".join(esc.panel_lines()) if esc is not None else ""


#: The game's window modes (the kind's ``window``): the home mode (named ``select``) and the
#: modes the key map's BrikWars rows enter.
#: The command builder of BrikWars' keys (:func:`sandbox.app.commands.game_commands`).
COMMANDS = BrikWarsCommands

MODES: tuple[type[Mode], ...] = (
    BrikWarsHome, AttackMode, StrikeMode, DropMode, LaunchMode, ThrowMode, CarryMode,
    InteractMode, CloseCombatMode, SwapMode, AmbushMode, MarkMode, IgniteMode, TurretMode)


def tags(session) -> frozenset[str]:
    """The key map's tags this game adds to its name: ``escapade`` for an Escapade (ch. 13:
    its relay, Reinforcements, concessions and Tactical Advantages)."""
    return frozenset({"escapade"}) if getattr(session, "escapade", None) is not None \
        else frozenset()


# ------------------------------------------------------------------------------ the keys
#: The key map's tags of BrikWars (every scene) and of an Escapade (ch. 13), see :func:`tags`.
BW = frozenset({"brikwars"})
ESCAPADE = frozenset({"escapade"})


def _weapon(inp, n: str):
    return inp.toggle("attack", weapon=int(n) - 1)


def _face(inp, n: str):
    inp.command(lambda: _cmd(inp).face(45.0 if n == "," else -45.0))


def _with_weapon(name: str) -> Handler:
    return lambda inp, n: inp.command(lambda: getattr(inp.cmd, name)(inp.weapon))


K = KeyCommand
#: BrikWars's rows of the key map (:func:`sandbox.app.table.keymap.key_map`), in order of
#: precedence, before the common rows.
KEYS: tuple[KeyCommand, ...] = (
    # --- the pointer (help only)
    K((), "click", "select", games=BW),
    K((), "drag", "move your unit", games=BW, modes=("select",)),
    K((), "click", "a target to aim, again to fire", games=BW, modes=("attack",)),
    K((), "click", "the point, again to call it", games=BW, modes=("strike", "drop", "launch")),
    K((), "click", "what the prompt asks", games=BW,
      modes=("throw", "carry", "interact", "close_combat", "swap", "ambush", "mark", "ignite",
             "turret")),
    # --- a mode's own keys
    K(("[", "]"), "[ ]", "fewer / more", mode_key, games=BW, modes=("drop", "strike")),
    K(("tab",), "Tab", "Explosive Variant", mode_key, games=BW, modes=("strike",)),
    K(("tab",), "Tab", "fire mode", mode_key, games=BW, modes=("attack",)),
    K(("enter",), "Enter", "confirm", mode_key, games=BW),
    # --- BrikWars
    K(tuple("123456789"), "1-9", "weapon: click aims, again fires", _weapon, games=BW),
    K(("s",), "S", "Sprint", input_call("toggle_sprint"), games=BW),
    K(("b",), "B", "The Big Drop", enter_mode("drop"), games=BW),
    K(("l",), "L", "Launcher", enter_mode("launch"), games=BW),
    K(("a",), "A", "Strategic Bombardment", enter_mode("strike", kind="bombard"), games=BW),
    K(("v",), "V", "missile strike (free)", enter_mode("strike", kind="missile"), games=BW,
      referee=True),
    K(("i",), "I", "ignite (1d4 Fire)", enter_mode("ignite"), games=BW, referee=True),
    K(("c",), "C", "pick up / put down", enter_mode("carry"), games=BW),
    K(("j",), "J", "throw", enter_mode("throw"), games=BW),
    K(("k",), "K", "interact (again: verb)", enter_mode("interact"), games=BW),
    K(("y",), "Y", "Mark a target", enter_mode("mark"), games=BW),
    K((";",), ";", "Close Combat (again: move)", enter_mode("close_combat"), games=BW),
    K(("'",), "'", "Parry", _with_weapon("parry"), games=BW),
    K((",", "."), ", .", "turn 45°", _face, games=BW),
    K(("d",), "D", "stop, drop and roll", command("stop_drop_roll"), games=BW),
    K(("w",), "W", "reload", _with_weapon("reload"), games=BW),
    K(("shift-d",), "Shift+D", "Divert All Power", command("divert_power"), games=BW),
    K(("shift-t",), "Shift+T", "Set Up Turret", enter_mode("turret", what="set_up"), games=BW),
    K(("shift-g",), "Shift+G", "Gunnery Support", enter_mode("turret", what="gunnery"),
      games=BW),
    K(("shift-i",), "Shift+I", "Interfere", enter_mode("turret", what="interfere"), games=BW),
    K(("o",), "O", "odds of the preview", input_call("odds"), games=BW),
    K(("r",), "R", "relay a kill", command("relay"), games=ESCAPADE),
    K(("n",), "N", "Reinforcements", command("reinforce"), games=ESCAPADE),
    K(("x",), "X", "Losing Battle", command("declare", "losing_battle"), games=ESCAPADE),
    K(("z",), "Z", "concede", command("declare", "concede"), games=ESCAPADE),
    K(("f10",), "F10", "swap two units", enter_mode("swap"), games=ESCAPADE),
    K(("f11",), "F11", "ambush", enter_mode("ambush"), games=ESCAPADE),
    K((), "drag off your edge", "withdraw", games=ESCAPADE, modes=("select",)),
)
