"""Power, Energy Shields and the effects of being on Fire in a running game (BrikWars F.1, 8.3).

One place that every source of Damage goes through (:meth:`sandbox.engine.game.Game.damage`
calls :meth:`Defences.deflect`), so weapons, Collision Damage, Explosion rings and Fire meet
the same Energy Shields; and the helpers the attack code of the headless game and of the
tabletop session share: the on-Fire penalties of a burning attacker or target and the extra
Fire a burning object adds to what it strikes.

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

from ...core.errors import RulesError, SceneError
from ...engine.table import System
from ...physics.queries import bodies_near
from ...rules import hazards as hz
from ...rules.attacks import Modifier
from ...rules.fire_field import burning_strike_bonus, on_fire_modifiers

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.table import BodyState
    from ...engine.table import TableAPI as Game

#: A unit this close to an engulfed creation rides in or on it (inches).
RIDER_CONTACT_IN: float = 0.05


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
        if not dice:
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
            g.damage(target, roll.total, f"Fire Damage (burning {name})",
                      dice=dice_of(roll))
        if target.key in g.world.bodies and not target.damage.destroyed:
            g.hazards.fire.ignite(target.key, roll, at=at, igniter=g.bodies[attacker].owner
                                  if attacker in g.bodies else None,
                                  source=f"the Fire of {name}")
        return roll.total

    # ------------------------------------------------------------------ riders
    def engulfed_riders(self) -> None:
        """Units in or on an engulfed creation take its Wild Fire die (F.1), once a turn."""
        g = self.game
        fire = g.hazards.fire
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
                    g.damage(ust, roll.total, f"Fire Damage (engulfed {st.name})",
                              dice=dice_of(roll))
                fire.ignite(n.key, roll, at=n.point_to, igniter=st.owner, source=st.name)
