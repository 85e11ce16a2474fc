"""Manning Guns: Gunnery, Gunnery Support, Homing In, Controls, Interfere, Reload (BrikWars
8.5; Reload from 8.3 MachineGuns and 8.4 Cannons and Launchers)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from ..core.dice import DiceStream
from ..core.errors import RulesError
from .attacks import ActionRoll, Modifier
from .stats import Specialty, UnitSpec
from .weapons import WeaponProfile, WeaponType


def attack_die(unit: UnitSpec, *, mounted_weapon: bool) -> int:
    """The die a unit rolls for an attack: its Specialty die for a Gunner firing a weapon
    mounted on a Creation (Gunnery, 8.5), else its Action die."""
    if mounted_weapon and unit.has(Specialty.GUNNER):
        return unit.specialty_die
    return unit.action_die


def gunnery_support(supporters: int, weapon_size_in: float) -> Modifier | None:
    """+1 Action per Supporting Gunner; the firing team may not outnumber the Weapon Size (8.5).

    Parameters
    ----------
    supporters : int
        Gunners spending their Action on Gunnery Support (not counting the firer).
    weapon_size_in : float
        Weapon Size, inches: at most that many minifigs in the team (firer included).

    Raises
    ------
    RulesError
        If the team is larger than the Weapon Size in inches.
    """
    if supporters < 0 or int(supporters) != supporters:
        raise RulesError(f"Supporting Gunners must be a whole number >= 0, got {supporters}")
    if supporters == 0:
        return None
    if 1 + supporters > weapon_size_in + 1e-9:
        raise RulesError(
            f"a firing team of {1 + supporters} is larger than the Weapon Size "
            f"{weapon_size_in}\" allows"
        )
    return Modifier(f"Gunnery Support x{supporters}", int(supporters))


@dataclass
class HomingIn:
    """Gunnery Support bonuses kept while weapon and target stay put (8.5 Homing In; mutable).

    Bonuses from each attack's Support add up across turns as long as the weapon keeps firing at
    the same point and neither moves; a Critical Failure cancels them (start over).
    """

    weapon_size_in: float
    bonus: int = 0
    aim: object = None

    def modifier(self, new_supporters: int, aim: object = None) -> Modifier | None:
        """The Action bonus for the next attack at ``aim`` with ``new_supporters`` this turn."""
        if aim != self.aim:
            self.bonus, self.aim = 0, aim
        this_turn = gunnery_support(new_supporters, self.weapon_size_in)
        self.bonus += this_turn.action if this_turn else 0
        if not self.bonus:
            return None
        return Modifier(f"Gunnery Support (Homing In) +{self.bonus}", self.bonus)

    def after_attack(self, roll: ActionRoll) -> None:
        """A Critical Failure cancels the Homing In bonus."""
        if roll.critical_failure:
            self.bonus = 0

    def moved(self) -> None:
        """The weapon or the target moved, or the weapon aims elsewhere: start over."""
        self.bonus, self.aim = 0, None


def interfere(stream: DiceStream, interferer_action_die: int, who: str = "") -> Modifier:
    """Interfere from another set of Controls: roll the interferer's Action die and use the
    result as an Action penalty to the attack (8.5)."""
    r = stream.roll(interferer_action_die, f"Interfere{(' by ' + who) if who else ''}")
    return Modifier(f"Interfered -{r.result}", -r.result)


@dataclass
class ControlsLedger:
    """Who operated which weapon or system, turn by turn (8.5 Controls; mutable).

    - Each player's forces fire a given weapon only once per turn.
    - A minifig may Operate a system only if none of his *allies* used it on their previous
      turn; enemies who commandeer Controls use them at once.
    """

    used: dict[str, set] = field(default_factory=dict)

    def begin_turn(self, player: str) -> None:
        """``player`` starts a turn: forget what he used on his previous one."""
        self.used[player] = set()

    def can_operate(self, system: str, player: str, allies: Iterable[str] = ()) -> bool:
        if system in self.used.get(player, set()):
            return False
        return not any(system in self.used.get(a, set()) for a in allies if a != player)

    def operate(self, system: str, player: str, allies: Iterable[str] = ()) -> None:
        """Record that ``player`` operates ``system`` this turn.

        Raises
        ------
        RulesError
            When the rules forbid it.
        """
        allies = list(allies)
        if not self.can_operate(system, player, allies):
            raise RulesError(
                f"{player} cannot operate {system!r}: already used this turn or by an ally on "
                "their previous turn"
            )
        self.used.setdefault(player, set()).add(system)


@dataclass
class WeaponState:
    """Loaded / Inoperative state of one weapon across turns (mutable; 8.3, 8.4).

    - MachineGun: becomes Inoperative when it jams; one Action Reloads it, ready next turn.
    - Cannon: must be Reloaded (with Ammo at hand) after every shot.
    - Launcher: fires once per turn when loaded (loading it does not stop it firing).
    - Never Reload and fire on the same turn.
    """

    weapon: WeaponProfile
    loaded: bool = True
    inoperative: bool = False
    reloaded_turn: int | None = None
    fired_turn: int | None = None

    def can_fire(self, turn: int) -> bool:
        if self.inoperative or not self.loaded:
            return False
        if self.reloaded_turn == turn or self.fired_turn == turn:
            return False
        return True

    def fire(self, turn: int, *, jammed: bool = False) -> None:
        """Fire on ``turn``; ``jammed`` makes a MachineGun Inoperative after this round.

        Raises
        ------
        RulesError
            If the weapon cannot fire this turn.
        """
        if not self.can_fire(turn):
            why = ("Inoperative" if self.inoperative else "not loaded" if not self.loaded
                   else "Reloaded or already fired this turn")
            raise RulesError(f"{self.weapon.name} cannot fire on turn {turn}: {why}")
        self.fired_turn = turn
        if jammed and self.weapon.may_jam:
            self.inoperative = True
        if self.weapon.reload_each_shot or self.weapon.weapon_type is WeaponType.LAUNCHER:
            self.loaded = False

    def reload(self, turn: int, *, ammo_xsize: int | None = None) -> None:
        """Spend an Action to Reload on ``turn``; the weapon fires again from the next turn.

        Raises
        ------
        RulesError
            If it fired this turn, or a Cannon's Ammo is missing or too large.
        """
        if self.fired_turn == turn:
            raise RulesError(f"{self.weapon.name} fired on turn {turn}: no Reload the same turn")
        if self.weapon.reload_each_shot:
            if ammo_xsize is None:
                raise RulesError(f"{self.weapon.name} needs a round of Ammo to Reload")
            if ammo_xsize > (self.weapon.max_ammo_xsize or 0):
                raise RulesError(f"{self.weapon.name}: Ammo XSize {ammo_xsize} over max "
                                 f"{self.weapon.max_ammo_xsize}")
        self.inoperative = False
        self.loaded = True
        if self.weapon.weapon_type is not WeaponType.LAUNCHER:
            # placing a Payload in a Launcher is loading, not the Reload rule of 8.3/8.4
            self.reloaded_turn = turn
