"""Damage, Power, Energy Shields and the effects of being on Fire in a running game (BrikWars
8.1, 8.4, F.1, 8.3).

One place that every source of Damage goes through (:meth:`Defences.damage`: Energy Shields,
Armor, Cumulative Damage; a destroyed unit falls over once physics rests), so weapons,
Collision Damage, Explosion rings and Fire meet the same Energy Shields; and the helpers the
attack code of the headless game and of the tabletop session share: the on-Fire penalties of
a burning attacker or target and the extra Fire a burning object adds to what it strikes.

Readings (the rules are silent or their die symbols were lost):

- Power is a creation's ``power`` stat in inches a turn, spent by Energy Shield dice (an inch
  each, F.1) and powered Fields (an inch a Hazard die when they activate, F.1); a body with
  no ``power`` stat is not tracked (unlimited). Power comes back at the start of each turn.
- An Energy Shield needs dice that match the incoming Damage die: Collision and Crash Damage
  are d6, Explosions d10, Fire d4, weapons their own Damage die; Action-die (melee) Damage is
  met by d6 shields.
- On Fire (F.1 Catching Fire): a burning object attacks at -1 Action and its Armor counts 1
  less; a burning minifig rolls a d4 for each instead (8.3, -1d4), on stream ``fire``.
- A burning attacker adds one Fire die (1d4 Fire) to whatever it strikes; it can set the
  target alight like any Fire Damage. A burning body that collides with another adds the
  same die to the Collision Damage of the other.
- An engulfed creation's Fire (its whole Size burning) reaches the units it carries: a unit
  touching it (within 0.05") takes its Wild Fire die (1d4 Fire) at the start of each turn.

Units: inches, Z up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ...core.errors import RulesError, SceneError
from ...engine.scene import parse_armor
from ...engine.table import System
from ...physics.queries import bodies_near
from ...rules import collision as collision_rules
from ...rules import hazards as hz
from ...rules.attacks import Modifier
from ...rules.fire_field import burning_strike_bonus, on_fire_modifiers

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.table import BodyState
    from ...engine.table import Table as Game

#: A unit this close to an engulfed creation rides in or on it (inches).
RIDER_CONTACT_IN: float = 0.05
#: A destroyed unit's spin as it falls over, in units of sqrt(g / its height) (rad/s).
TOPPLE_SPIN: float = 1.2
#: Pushes a destroyed unit gets to fall over, each twice the last (:meth:`Defences.after_settle`).
TOPPLE_TRIES: int = 3


def dice_of(roll, sides: int | None = None) -> list[tuple[int, int]]:
    """``(sides, value)`` of every die of an :class:`~sandbox.core.dice.ExpressionRoll`, for
    Energy Shields; ``sides`` overrides the die type (Action-die melee Damage: 6, F.1)."""
    n = sides if sides is not None else roll.expression.sides
    return [(int(n), int(v)) for v in roll.values] if n else []


@dataclass
class PowerPool:
    """Inches of Power one body has this turn (F.1)."""

    per_turn_in: float
    turn: int | None = None
    spent_in: float = 0.0

    def left(self, turn: int) -> float:
        if self.turn != turn:
            self.turn, self.spent_in = turn, 0.0
        return self.per_turn_in - self.spent_in


class Defences(System):
    """Power, Energy Shields and on-Fire effects of one :class:`~sandbox.engine.game.Game`."""

    name = "defences"

    def __init__(self, game: "Game"):
        super().__init__(game)
        self.shields: dict[str, hz.EnergyShield] = {}
        self.power: dict[str, PowerPool] = {}
        self.deflected: dict[str, int] = {}
        #: Units destroyed since physics last came to rest: they fall over then (topple).
        self.to_topple: list[str] = []

    # ------------------------------------------------------------------ Damage
    def damage(self, victim: "BodyState", damage: int, what: str,
               dice: list[tuple[int, int]] | None = None, armor_penalty: int = 0) -> None:
        """Apply ``damage`` points to ``victim``: every source of Damage comes through here.

        ``dice`` are the ``(sides, value)`` of the Damage dice, which the victim's Energy
        Shield may deflect first (F.1, :meth:`deflect`); ``armor_penalty`` (<= 0) lowers its
        Armor for this comparison (on Fire, F.1). Damage must exceed Armor (8.1); creations
        add up Cumulative Damage. ``on_damage`` hooks of every system run afterwards
        (Premature Detonation); a destroyed unit falls over once physics rests.
        """
        g = self.game
        damage = self.deflect(victim, damage, dice, what)
        fixed, armor_dice = parse_armor(victim.stats.armor)
        stream = g.dice.stream("armor")
        if armor_penalty and victim.damage.armor_roll is None:  # roll the Armor first
            collision_rules.apply_damage(victim.damage, 0, fixed, armor_dice, victim.cumulative,
                                         stream, victim.name)
        victim.damage.armor_roll = (victim.damage.armor_roll or 0) + armor_penalty \
            if armor_penalty else victim.damage.armor_roll
        try:
            out = collision_rules.apply_damage(victim.damage, damage, fixed, armor_dice,
                                               victim.cumulative, stream, victim.name)
        finally:
            if armor_penalty:
                victim.damage.armor_roll -= armor_penalty
        if armor_penalty:
            what = f"{what}, Armor {armor_penalty:+d} on Fire"
        verdict = "destroyed" if out.destroyed else "holds"
        against = "Cumulative Damage " + str(out.total) if victim.cumulative else str(out.total)
        g.log("damage", f"{victim.name} takes {damage} {what}: {against} against Armor "
              f"{out.compared_with} — {verdict}", body=victim.key, damage=damage, source=what,
              total=out.total, armor=out.compared_with, destroyed=out.destroyed)
        if out.destroyed:
            g.log("destroyed", f"{victim.name} is destroyed", body=victim.key)
            if victim.kind == "unit" and victim.key not in self.to_topple:
                self.to_topple.append(victim.key)  # it falls over once physics rests
        g.after_damage(victim, damage)

    def status_words(self, key: str) -> list[str]:
        """Disrupted, on Fire, Cumulative Damage taken, the Armor rolled."""
        st = self.game.body(key)
        d = st.damage
        out = []
        if d.disrupted:
            out.append("Disrupted")
        if self.burning(key):
            out.append("on Fire")
        if d.cumulative_damage:
            out.append(f"Cumulative Damage {d.cumulative_damage}")
        if d.armor_roll is not None and st.cumulative:
            out.append(f"Armor rolled {d.armor_roll}")
        return out

    # ------------------------------------------------------------------ destroyed units fall
    def needs_settle(self) -> bool:
        """A unit destroyed outside an action's settle (a Bombardment arriving, Fire at a
        turn's end) waits to fall over."""
        return bool(self.to_topple)

    def after_settle(self, quiet: bool, max_seconds: float, min_seconds: float) -> None:
        """Every unit destroyed since physics last rested that still stands falls over; one
        still standing after a push (caught by a merlon, leaning on a wall) is pushed again,
        twice as hard, at most :data:`TOPPLE_TRIES` times. A quiet settle (no rules) keeps
        them waiting."""
        if quiet:
            return
        g = self.game
        for attempt in range(TOPPLE_TRIES):
            pushed = self.topple_destroyed(spin=2.0 ** attempt)
            if not pushed:
                break
            g.world.step_until_rest(max_seconds=max_seconds, min_seconds=min_seconds,
                                    on_step=g.handle_steps)
            self.to_topple += [k for k in pushed if k in g.world.bodies and g.upright(k)]
        self.to_topple = []

    def topple_destroyed(self, spin: float = 1.0) -> list[str]:
        """Every unit destroyed since physics last rested that still stands falls over
        (:meth:`topple`, its spin times ``spin``); returns those that were pushed (the caller
        steps physics until rest again)."""
        keys, self.to_topple = self.to_topple, []
        return [k for k in keys if self.topple(k, spin)]

    def topple(self, key: str, spin: float = 1.0) -> bool:
        """A destroyed unit falls over (it does not stay standing): physics spins it about the
        edge of its base, so the body itself comes to lie on the table (or whatever is under
        it). It falls along the body's most horizontal axis (its own frame, so the same body
        always falls the same way and every path agrees). A unit already lying (thrown by a
        blast), creations and Payloads are left as they are. Returns True when it toppled."""
        g = self.game
        st = g.bodies.get(key)
        body = g.world.bodies.get(key)
        if st is None or st.kind != "unit" or body is None or body.static:
            return False
        lo, hi = g.world.aabb(key)
        height = float(hi[2] - lo[2])
        pos, quat = g.world.pose(key)
        if not g.upright(key):
            return False  # already lying (thrown by a blast): nothing to topple
        x, y, z, w = (float(v) for v in quat)
        ax = np.array([1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 0.0])  # body x, y in the
        ay = np.array([2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 0.0])  # world, flattened
        d = max((ax, ay), key=lambda v: float(np.linalg.norm(v)))
        n = float(np.linalg.norm(d))
        d = d / n if n > 1e-6 else np.array([1.0, 0.0, 0.0])
        axis = np.cross([0.0, 0.0, 1.0], d)  # turning about it tips the top towards d
        omega = axis * TOPPLE_SPIN * spin * float(np.sqrt(g.world.gravity / max(height, 0.2)))
        pivot = np.array([pos[0] - d[0] * 0.1, pos[1] - d[1] * 0.1, float(lo[2])])
        lin, _ = g.world.velocity(key)
        v = np.asarray(lin, float) + np.cross(omega, np.asarray(pos, float) - pivot)
        g.world.set_velocity(key, v, omega)
        g.log("topple", f"{st.name} falls over", body=key)
        return True

    # ------------------------------------------------------------------ Power
    def power_left(self, key: str) -> float:
        """Inches of Power body ``key`` has left this turn (inf when not tracked), >= 0.

        A body on Fire has its Power limit cut by an inch for every inch of the Fire's Size
        (F.1: "a four inch wooden golem burning with a three inch fire would have its Power
        limit reduced from eight weapon inches to five").
        """
        st = self.game.bodies.get(key)
        per = getattr(st.stats, "power", None) if st is not None else None
        if per is None:
            return float("inf")
        pool = self.power.setdefault(key, PowerPool(float(per)))
        cut = float(self.game.system("hazards").fire.fire_size(key)) if self.burning(key) else 0.0
        return max(0.0, pool.left(self.game.turn) - cut)

    def overload(self, key: str, inches: float, what: str) -> float:
        """Exposure Damage Overloads ``key``: each die costs it an inch of Power this turn, as
        if it had fired an inch of weapons (F.1), never below none left. Returns the inches
        taken (0 for bodies whose Power is not tracked)."""
        left = self.power_left(key)
        if inches <= 0 or not math.isfinite(left):
            return 0.0
        taken = min(float(inches), left)
        if taken > 0:
            self.spend_power(key, taken, f"Overload ({what})")
        return taken

    def spend_power(self, key: str, inches: float, what: str) -> None:
        """Spend ``inches`` of ``key``'s Power this turn (F.1).

        Raises
        ------
        RulesError
            When it has less left, with both numbers.
        """
        left = self.power_left(key)
        if inches > left + 1e-9:
            raise RulesError(f"{self.game.bodies[key].name} needs {inches:g}\" of Power for "
                             f"{what}, has {left:g}\" left on turn {self.game.turn}")
        if key in self.power:
            self.power[key].spent_in += inches
            self.game.log("power", f"{self.game.bodies[key].name} spends {inches:g}\" of Power "
                          f"on {what}: {self.power_left(key):g}\" left", body=key,
                          inches=inches, left=self.power_left(key))

    # ------------------------------------------------------------------ shields
    def shield_of(self, key: str) -> hz.EnergyShield | None:
        """The Energy Shield of body ``key`` (from its ``shield`` stat), or None.

        Raises
        ------
        SceneError
            When it has more shield dice than inches of Size (F.1), naming the body.
        """
        if key in self.shields:
            return self.shields[key]
        st = self.game.bodies.get(key)
        dice = list(getattr(st.stats, "shield", []) or []) if st is not None else []
        if st is None or not dice:
            return None
        try:
            sh = hz.EnergyShield(f"{st.name}'s Energy Shield", dice, st.stats.size)
        except RulesError as exc:
            raise SceneError(f"{key}.stats.shield = {dice}: {exc}") from None
        self.shields[key] = sh
        return sh

    def deflect(self, victim: "BodyState", damage: int, dice: Sequence[tuple[int, int]] | None,
                what: str) -> int:
        """Damage left after ``victim``'s Energy Shield deflects matching dice (F.1).

        Parameters
        ----------
        dice : sequence of (sides, value) or None
            The incoming Damage dice (None: not dice, e.g. Grinding Damage: nothing to deflect).
        """
        sh = self.shield_of(victim.key)
        if sh is None or not dice or damage <= 0:
            return damage
        res = hz.shield_block(sh, dice, damage, turn=self.game.turn,
                              power_left_in=self.power_left(victim.key))
        if not res.blocked:
            return damage
        if res.power_in:
            self.spend_power(victim.key, res.power_in, "its Energy Shield")
        self.deflected[victim.key] = self.deflected.get(victim.key, 0) + len(res.blocked)
        left = sum(1 for u in sh.used if not u)
        self.game.log("shield", f"{victim.name}'s Energy Shield deflects {list(res.blocked)} of "
                      f"the {what}: {damage} -> {res.damage} Damage ({left} shield "
                      f"di{'e' if left == 1 else 'ce'} left this turn)", body=victim.key,
                      blocked=list(res.blocked), before=damage, after=res.damage)
        return res.damage

    # ------------------------------------------------------------------ on Fire
    def burning(self, key: str) -> bool:
        return self.game.system("hazards").fire.burning(key)

    def on_fire_penalty(self, key: str, what: str) -> int:
        """The on-Fire penalty of a burning body for ``what`` (0 when not burning), <= 0:
        -1d4 rolled now on stream ``fire``; 0 for bodies whose ``on_fire_ok`` stat says they
        are designed to burn (a torch, a flaming sword).

        Reading: F.1 prints "a -1 penalty" for units and objects on Fire where 8.3 gives a
        burning minifig "a -1d4 penalty to Action Rolls and Armor"; the chapter lost its die
        symbols elsewhere, so F.1's "-1" is read as the same -1d4 for every burning body.
        """
        st = self.game.bodies.get(key)
        if st is None or not self.burning(key) or getattr(st.stats, "on_fire_ok", False):
            return 0
        if on_fire_modifiers() is None:
            return 0
        r = self.game.dice.stream("fire").roll(4, f"on Fire penalty to {st.name}'s {what}")
        return -int(r.result)

    def action_modifier(self, key: str) -> Modifier | None:
        """An Action modifier for a burning attacker (F.1, 8.3), or None."""
        p = self.on_fire_penalty(key, "Action Roll")
        return Modifier(f"on Fire {p:+d}", p) if p else None

    def burning_strike(self, attacker: str, target: "BodyState", what: str,
                       at=None) -> int:
        """A burning ``attacker`` adds 1d4 Fire to what it strikes (F.1); returns the Damage.

        The die is applied as Fire Damage (through the target's shield) and may set the target
        alight.
        """
        if not self.burning(attacker) or target.damage.destroyed:
            return 0
        g = self.game
        name = g.bodies[attacker].name if attacker in g.bodies else attacker
        roll = burning_strike_bonus().roll(g.dice.stream("fire"),
                                           f"+1 Fire of burning {name} on {target.name}")
        g.log("burning_strike", f"{name} is on Fire: +{roll.total} Fire Damage to {target.name} "
              f"({what})", body=target.key, source=attacker, damage=roll.total)
        if roll.total:
            self.damage(target, roll.total, f"Fire Damage (burning {name})",
                      dice=dice_of(roll))
        if target.key in g.world.bodies and not target.damage.destroyed:
            g.system("hazards").fire.ignite(target.key, roll, at=at,
                                            igniter=g.bodies[attacker].owner
                                            if attacker in g.bodies else None,
                                            source=f"the Fire of {name}")
        return roll.total

    # ------------------------------------------------------------------ riders
    def engulfed_riders(self) -> None:
        """Units in or on an engulfed creation take its Wild Fire die (F.1), once a turn."""
        g = self.game
        fire = g.system("hazards").fire
        for key, bf in list(fire.fires.items()):
            st = g.bodies.get(key)
            if (st is None or st.kind != "creation" or bf.rules is None or not bf.rules.engulfed
                    or key not in g.world.bodies):
                continue
            units = [k for k, b in g.bodies.items()
                     if b.kind == "unit" and k != key and not b.damage.destroyed
                     and k in g.world.bodies]
            for n in bodies_near(g.world, key, RIDER_CONTACT_IN, candidates=units):
                ust = g.bodies[n.key]
                roll = bf.rules.hazard_dice.roll(g.dice.stream("fire"),
                                                 f"{st.name}'s Fire on {ust.name} inside it")
                g.log("engulfed_rider", f"{ust.name} is inside the engulfed {st.name}: "
                      f"{roll.total} Fire Damage", body=n.key, source=key, damage=roll.total)
                if roll.total:
                    self.damage(ust, roll.total, f"Fire Damage (engulfed {st.name})",
                              dice=dice_of(roll))
                fire.ignite(n.key, roll, at=n.point_to, igniter=st.owner, source=st.name)
