"""The window's gestures turned into Brigandine orders (``brig_*`` actions), without a window.

:class:`BrigandineOrders` is what the window's Brigandine mode (:mod:`.window`) uses on a
``game = "brigandine"`` scene; it
reads the game (phase, the selected unit) and builds the action the gesture means, which the
window then submits like any other (a refusal is flashed with the rule's reason):

* phase 1: ``I`` delays initiative (counts as 1);
* phase 2: ``1``-``7`` toggle what the selected unit declares (move, charge, shoot, melee,
  artillery, reload, joust), a click on an enemy picks the artillery target, ``Enter``
  declares (hidden until the phase ends: pass the screen); ``J`` then a click on the enemy
  knight, then ``1``-``4`` the aim and ``1``-``4`` the stance: the secret joust choice
  (``brig_joust``; both knights' choices are run in phase 5);
* phases 3 and 7: drag a unit to move it (half movement); shift-drag charges toward the point
  (phase 3); ``W`` draws the side arm (phase 3); ``R`` reloads;
* phases 4 and 8: with an archer selected, click an enemy to shoot;
* phase 5: with a unit selected, click an enemy to melee (``1``-``3`` pick Skirmish,
  Man-to-Man or Fantasy Combat first); ``D`` takes Defensive Action.
"""

from __future__ import annotations

from typing import Any

from .scene import (
    BrigCharge,
    BrigDeclare,
    BrigDefend,
    BrigDelay,
    BrigDraw,
    BrigJoust,
    BrigMelee,
    BrigMove,
    BrigReload,
    BrigShoot,
    round_phase,
)

#: What the digit keys toggle in phase 2, in order.
DECLARE_KEYS: tuple[str, ...] = ("move", "charge", "shoot", "melee", "artillery", "reload",
                                 "joust")
#: What the digit keys pick in phase 5.
MELEE_KEYS: tuple[str, ...] = ("skirmish", "man_to_man", "fantasy")


class BrigandineOrders:
    """Builds ``brig_*`` actions from window gestures for one game (see the module text)."""

    def __init__(self, game: Any):
        self.game = game
        self.declaring: dict[str, list[str]] = {}
        self.target: str | None = None
        self.system = "skirmish"
        #: A joust choice being made (J): {"unit", "opponent", "aim"} as far as chosen.
        self.jousting: dict[str, str] | None = None

    @property
    def combat(self) -> Any:
        return self.game.system("brigandine")

    def joust_options(self) -> tuple[list[str], list[str]]:
        """The jousting table's aims and stances, in key order (1, 2, ...)."""
        j = self.combat.tables.jousting
        return list(j.aims), list(j.stances)

    def joust_prompt(self) -> str:
        """What the joust gesture asks next ("" when none is being made)."""
        j = self.jousting
        if j is None:
            return ""
        aims, stances = self.joust_options()
        name = self.game.body(j["unit"]).name
        if "opponent" not in j:
            return f"Joust: {name} rides at... click the enemy knight (Esc: cancel)"
        if "aim" not in j:
            return (f"Joust: {name} aims at " + "  ".join(
                f"{i + 1} {a.replace('_', ' ')}" for i, a in enumerate(aims)) + " (secret)")
        return (f"Joust: {name} aims at the {j['aim']}; stance " + "  ".join(
            f"{i + 1} {st.replace('_', ' ')}" for i, st in enumerate(stances)) + " (secret)")

    def stat_card(self, key: str) -> list[str]:
        """Brigandine's stat card of unit ``key``: ATK/AIM/IQ/DEF dice, #attk/#def, weapon and
        side arm, movement by the rules (half movement a phase, full movement in a charge),
        morale, and this round's declarations and orders as far as the viewer may see them
        (003: declarations are revealed together when phase 2 ends)."""
        g, c = self.game, self.combat
        st = g.body(key)
        if key not in c.units:
            return [st.name, "not a Brigandine unit (scenery)"]
        u = c.units[key]
        s = u.stats
        (na, ta), (nd, td) = s.strength.attk, s.strength.defence
        lines = [f"{st.name} ({u.owner or 'no owner'})",
                 f"ATK d{s.atk}  AIM d{s.aim}  IQ d{s.iq}  DEF d{s.def_die}  Morale {s.morale}",
                 f"#attk {na} {ta}   #def {nd} {td} ({u.def_left} left)"]
        weapon = s.weapon.name if s.weapon else "fist"
        if s.weapon is not None:
            weapon += f" (class {s.weapon.wclass}, rank {s.weapon.rank})"
        lines.append(f"Weapon: {weapon}" + (f"; side arm {u.side_arm.name}" if u.side_arm
                                             else ""))
        if s.missile or u.artillery:
            lines.append(f"Missile: {u.artillery or s.missile}")
        lines.append(f'Move {s.move / 2:g}" a phase (half of {s.move:g}"), '
                     f'charge {s.move:g}" (full movement)')
        state = [w for w, on in (("weary", u.weary), ("defeated", u.defeated),
                                 ("fled", u.fled), ("unhorsed", u.unhorsed)) if on]
        if u.joust_points:
            state.append(f"{u.joust_points} joust points")
        if state:
            lines.append(", ".join(state))
        own = u.owner == g.current_player
        phase = self.phase
        if u.does and (phase > 2 or own):
            lines.append(f"Declared: {', '.join(u.does)}"
                         + (f" (target {g.body(u.target).name})" if u.target else ""))
        elif own and phase == 2:
            decl = c.declared.get(key)
            if decl is not None:
                lines.append(f"Declared (hidden): {', '.join(decl.does)}")
            elif self.declaring.get(key):
                lines.append(f"Declaring: {', '.join(self.declaring[key])} (Enter)")
            if key in c.jousts:
                j = c.jousts[key]
                lines.append(f"Joust (hidden): at {g.body(j.opponent).name}, aim {j.aim}, "
                             f"{j.stance.replace('_', ' ')}")
        elif phase == 2:
            lines.append("Declarations: hidden until phase 2 ends")
        return lines

    def ruler(self, unit: str, dist: float, charge: bool) -> tuple[float, str]:
        """The Brigandine move ruler: the limit (inches) and its label for a drag of ``dist``
        inches: a charge (shift-drag, phase 3) rides the full movement toward the point (the
        point gives only the direction); a move goes at most half movement a phase."""
        c = self.combat
        if unit not in c.units:
            return 0.0, "not a Brigandine unit"
        full = c.units[unit].stats.move
        if charge:
            return full, (f'charge: rides up to {full:g}" (full movement) this way '
                          "until it meets an enemy")
        half = full / 2
        word = "" if dist <= half + 0.05 else "  too far (half movement a phase)"
        return half, f'{dist:.2f}" of {half:g}"{word}'

    @staticmethod
    def plays(game: Any) -> bool:
        """True when ``game`` is a Brigandine game."""
        return getattr(game.spec, "game", "") == "brigandine"

    @property
    def phase(self) -> int:
        return round_phase(max(1, self.game.turn))[1]

    def is_enemy(self, key: str) -> bool:
        """``key`` is a Brigandine unit of another player than the one giving orders."""
        units = getattr(self.game.system("brigandine"), "units", {})
        return key in units and units[key].owner != self.game.current_player

    def _base(self) -> dict:
        return {"player": self.game.current_player, "turn": self.game.turn}

    def prompt(self) -> str:
        """The help line for the current phase."""
        if self.jousting is not None and self.phase == 2:
            return self.joust_prompt()
        return {
            1: "I: delay initiative   E: done (pass the screen)",
            2: "select a unit, 1-7: toggle move/charge/shoot/melee/artillery/reload/joust, "
               "click enemy: artillery target, Enter: declare (hidden)   J: joust   E: done",
            3: "drag: half move   shift-drag: charge   W: draw side arm   R: reload   E: done",
            4: "select an archer, click an enemy: shoot   E: done",
            5: "select a unit, 1-3: skirmish/man-to-man/fantasy, click an enemy: melee   "
               "D: Defensive Action   E: done",
            6: "artillery fires as declared   E: done",
            7: "drag: half move   R: reload a crossbow   E: done",
            8: "select an archer who only shot, click an enemy: second shot   E: done",
        }[self.phase]

    def key(self, name: str, selected: str | None) -> Any:
        """The order a key means now (or None: it only changed the choices, or means
        nothing in this phase). ``selected`` is the selected body key."""
        p, n = self.phase, name.lower()
        if p == 1 and n == "i":
            return BrigDelay(type="brig_delay", **self._base())
        if selected is None:
            return None
        if p == 2 and n == "j":
            self.jousting = {"unit": selected}
            return None
        j = self.jousting
        if p == 2 and j is not None and "opponent" in j and n.isdigit():
            aims, stances = self.joust_options()
            k = int(n) - 1
            if "aim" not in j:
                if 0 <= k < len(aims):
                    j["aim"] = aims[k]
                return None
            if not 0 <= k < len(stances):
                return None
            self.jousting = None
            return BrigJoust(type="brig_joust", unit=j["unit"], opponent=j["opponent"],
                             aim=j["aim"], stance=stances[k], **self._base())
        if p == 2 and n.isdigit() and 1 <= int(n) <= len(DECLARE_KEYS):
            what = DECLARE_KEYS[int(n) - 1]
            items = self.declaring.setdefault(selected, [])
            items.remove(what) if what in items else items.append(what)
            return None
        if p == 2 and n == "enter" and self.declaring.get(selected):
            does = [d for d in DECLARE_KEYS if d in self.declaring[selected]]
            return BrigDeclare(type="brig_declare", unit=selected, does=does,
                               target=self.target if "artillery" in does else None,
                               **self._base())
        if p == 5 and n.isdigit() and 1 <= int(n) <= len(MELEE_KEYS):
            self.system = MELEE_KEYS[int(n) - 1]
            return None
        if p == 5 and n == "d":
            return BrigDefend(type="brig_defend", unit=selected, **self._base())
        if n == "r":
            return BrigReload(type="brig_reload", unit=selected, **self._base())
        if n == "w":
            return BrigDraw(type="brig_draw", unit=selected, **self._base())
        return None

    def click(self, selected: str | None, target: str) -> Any:
        """The order a click on body ``target`` means with ``selected`` selected (or None)."""
        p = self.phase
        if selected is None or target == selected:
            return None
        if p == 2 and self.jousting is not None and "opponent" not in self.jousting:
            self.jousting["opponent"] = target
            return None
        if p == 2:
            self.target = target
            return None
        if p in (4, 8):
            return BrigShoot(type="brig_shoot", units=[selected], target=target, **self._base())
        if p == 5:
            return BrigMelee(type="brig_melee", unit=selected, target=target, system=self.system,
                             **self._base())
        return None

    def drag(self, unit: str, to: tuple[float, float], shift: bool = False) -> Any:
        """A unit dragged to ``to`` (x, y inches): a move, or with shift a charge (phase 3)."""
        to = (round(float(to[0]), 4), round(float(to[1]), 4))
        if shift and self.phase == 3:
            return BrigCharge(type="brig_charge", unit=unit, toward=to, **self._base())
        return BrigMove(type="brig_move", unit=unit, to=to, **self._base())
