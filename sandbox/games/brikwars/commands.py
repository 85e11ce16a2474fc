"""BrikWars' command keys in the window: the engine actions of its rules that the window builds
from a selection and a click (:class:`BrikWarsCommands`, named by this game's window module
``COMMANDS``; the players' own hands are the common :class:`~sandbox.app.commands.TableCommands`).

Every command only *builds* an action of the engine's registry; the window hands it to
``session.apply``, so the rules refuse or play it exactly as in a scripted run. A command that
cannot be built says why in one line (:class:`~sandbox.app.commands.CommandRefused`).

Keys (rows of this game's ``KEYS`` in :mod:`sandbox.games.brikwars.window`; V and I are a
referee's):
R relay a witnessed kill (13.2), N call Reinforcements (13.2),
F10 a Tactical Advantage swap of the selected unit and a clicked one (13.2), F11 an ambushing
unit set up at a clicked point (13.2),
X declare a Losing Battle (13.3), Z concede (13.3), C carry an item on the next walk (13.1),
A Strategic Bombardment (13.2, ``bombard``; B in the window is the same action as The Big
Drop, both Marked by the player's Scout), V a missile strike (8.4, ``missile``; Tab picks its
Explosive Variant), J throw (8.4),
I ignite (8.3 Fire), K interact (F.2), D stop, drop and roll (8.3), W reload (8.3), Y mark a
target (F.3), Tab a MachineGun's fire mode (8.3), ``,`` and ``.`` turn the selected unit 45°
left or right (``face``), ``;`` Close Combat (8.2: Shove, ``;`` again Grab, again Angry Inch;
the first click on the target previews, the second plays), ``'`` a Parry order with the chosen
weapon (8.2). Power and Manning Guns (8.1, 8.5): Shift+D Divert All Power, Shift+T Set Up a
Turret, Shift+G Gunnery Support, Shift+I Interfere; an attack with a Turret's weapon is manned
by the player's nearest free minifig at it (a Gunner first).
"""

from __future__ import annotations

import numpy as np

from ...app.commands import CommandRefused, TableCommands
from ...core.errors import RulesError, SandboxError
from ...engine.actions import AttackAction, ReloadWeaponAction
from ...engine.events import possessive
from ...rules.explosives import Variant, explosive_dice
from .close_combat import AngryInchAction, GrabAction, ParryOrder, ShoveAction
from .hazard_scene import Ignite, MarkTarget, StopDropRoll
from .scene_blast import MissileStrike
from .scene_escapade import (
    AmbushAction,
    DeclareAction,
    ReinforceAction,
    RelayAction,
    SwapAction,
    WalkAction,
)
from .scene_flight import BombardAction, ThrowAction
from .scene_manning import (
    DivertPowerAction,
    GunnerySupportAction,
    InterfereAction,
    SetUpTurretAction,
)
from .trap_scene import Interact

#: The Close Combat moves ``;`` cycles through (8.2).
CLOSE_COMBAT_MOVES = ("shove", "grab", "angry_inch")

#: The verbs K cycles through for ``interact`` (F.2: a Trap answers only its own).
INTERACTIONS = ("touch", "push", "pull", "turn", "open", "press", "lift")

#: Explosive Variants Tab cycles through for a missile strike (8.4).
MISSILE_VARIANTS = tuple(v.value for v in Variant)

#: Fire modes Tab cycles through for a weapon that has them (8.3).
FIRE_MODES = ("single", "burst", "arc")


class BrikWarsCommands(TableCommands):
    """Builds the engine actions of BrikWars' command keys for the window's session (and the
    players' own hands, :class:`~sandbox.app.commands.TableCommands`)."""

    # ---------------------------------------------------------------- the Escapade (ch. 13)
    def _escapade(self, what: str):
        esc = getattr(self.s, "escapade", None)
        if esc is None:
            raise CommandRefused(f"{what}: this game is not an Escapade (BrikWars ch. 13)")
        return esc

    def force_of(self, key: str | None) -> str | None:
        """The Escapade force a unit fights for (its scene entry), or None."""
        esc = getattr(self.s, "escapade", None)
        if esc is None or key is None:
            return None
        for f in esc.section.forces:
            if key in [u.id for u in f.units] or key in f.new_units:
                return f.name
        return None

    def _my_force(self, what: str) -> str:
        esc = self._escapade(what)
        force = self.force_of(self.app.selected)
        mine = [f.name for f in esc.section.forces if f.player == self._player()]
        if force is not None and force in mine:
            return force
        if len(mine) == 1:
            return mine[0]
        if not mine:
            raise CommandRefused(f"{what}: {self._player()} has no force in this Escapade")
        raise CommandRefused(f"{what}: select a unit of the force ({', '.join(mine)})")

    def relay(self) -> RelayAction:
        """R: the selected Commander relays one witnessed kill (13.2)."""
        self._escapade("Relay")
        unit = self._selected_unit("Relay")
        return RelayAction(type="relay", player=self._player(), turn=self.s.turn, commander=unit)

    def reinforce(self) -> ReinforceAction:
        """N: the selected Commander calls his force's reserve and new units not yet on the
        table (13.2; new units cost a Strategy brick per Unit Inch)."""
        esc = self._escapade("Reinforcements")
        unit = self._selected_unit("Reinforcements")
        force = self.force_of(unit)
        entry = next((f for f in esc.section.forces if f.name == force), None)
        if entry is None:
            raise CommandRefused(f"Reinforcements: {self._name(unit)} is not in a force")
        reserves = {r.id for r in self.s.spec.reserves}
        wanted = [u.id for u in entry.units if u.id in reserves] + list(entry.new_units)
        wanted = [k for k in wanted if k not in self.s.bodies]
        if not wanted:
            raise CommandRefused(f"Reinforcements: {force} has no reserve or new unit left to call")
        return ReinforceAction(type="reinforce", player=self._player(), turn=self.s.turn,
                               commander=unit, units=wanted)

    def declare(self, what: str) -> DeclareAction:
        """X (``losing_battle``) or Z (``concede``): the selected unit's force, or the player's
        only force, declares (13.3)."""
        force = self._my_force("Losing Battle" if what == "losing_battle" else "Concede")
        return DeclareAction(type="declare", player=self._player(), turn=self.s.turn,
                             force=force, what=what)

    def walk(self, unit: str, to, sprint: bool = False, carrying: str | None = None) -> WalkAction:
        """A walk: on the table, off a friendly edge, or carrying an item within 1" (13.1)."""
        return WalkAction(type="walk", player=self._player(), turn=self.s.turn, unit=unit,
                          to=(round(float(to[0]), 4), round(float(to[1]), 4)), sprint=sprint,
                          carrying=carrying)

    def off_table(self, point) -> bool:
        """Whether a point (x, y inches) is beyond the battlefield's edge."""
        return self.s.spec.battlefield.off(point)

    # ---------------------------------------------------------------- strikes from above
    def marker(self, point) -> dict:
        """Who Marks ``point`` (x, y inches) for a Bombardment (13.2): ``{"marked_by": id}`` or
        ``{"drop_zone": id}``. The selected unit when it is one of the player's Scouts; else
        the first of the player's Scouts able to Mark it (within 8\" and in sight, F.3); else
        a drop zone of the player's that holds the point.

        Raises
        ------
        CommandRefused
            The player has no Scout on the table and no drop zone there (the rule's reason).
        """
        s, me = self.s, self._player()
        target = (round(float(point[0]), 4), round(float(point[1]), 4))
        sel = self.app.selected
        scouts = [k for k, st in s.bodies.items()
                  if st.owner == me and getattr(st.stats, "scout", False)
                  and not st.damage.destroyed and k in s.world.bodies]
        if sel in scouts:
            return {"marked_by": sel}
        bomb = s.bombardment
        for k in scouts:
            probe = BombardAction(type="bombard", player=me, turn=s.turn, target=target,
                                  marked_by=k, explosive_dice=1)
            if not bomb.mark_refusal(probe):
                return {"marked_by": k}
        for z in s.spec.drop_zones:
            if float(np.hypot(target[0] - z.centre[0], target[1] - z.centre[1])) <= z.size / 2:
                return {"drop_zone": z.id}
        if scouts:
            return {"marked_by": scouts[0]}  # the rules then say why he cannot Mark it
        raise CommandRefused(f"Bombardment: {me} has no Scout on the table to Mark the target "
                             "and no drop zone there (13.2: the target must be Marked by an "
                             "allied Scout)")

    def bombard(self, point, dice: int, big_drop: bool = False) -> BombardAction:
        """A (by Action Roll) or B (``big_drop``: The Big Drop): a Strategic Bombardment of
        ``dice`` Explosive dice at a point, Marked by a Scout (:meth:`marker`; 13.2). It costs
        a Strategy brick per die and arrives at the beginning of the player's next turn.

        Raises
        ------
        CommandRefused
            No Scout or drop zone to Mark the point.
        """
        return BombardAction(type="bombard", player=self._player(), turn=self.s.turn,
                             target=(round(float(point[0]), 4), round(float(point[1]), 4)),
                             explosive_dice=int(dice), big_drop=big_drop, **self.marker(point))

    def swap(self, other: str) -> SwapAction:
        """F10: Tactical Advantage (13.2): swap the selected unit and ``other`` (two deployed
        units of a force that failed its roll), for the player of its highest-rolling enemy,
        at deployment (before the battle's first action), whoever's turn it is."""
        esc = self._escapade("Swap")
        first = self.app.selected
        if first is None or first not in self.s.bodies:
            raise CommandRefused("Swap: select one of the two units to swap first")
        player = esc.swap_player(first)
        if player is None:
            raise CommandRefused(f"Swap: nobody may swap {self._name(first)}'s units (13.2 "
                                 "Tactical Advantage: only a force that critically failed or "
                                 "has no Command Specialist)")
        return SwapAction(type="swap", player=player, turn=self.s.turn, units=[first, other])

    def ambush(self, point) -> AmbushAction:
        """F11: Tactical Advantage (13.2): an ambushing force's selected unit sets up at a clicked
        point, at deployment (before the battle's first action), whoever's turn it is."""
        esc = self._escapade("Ambush")
        unit = self._selected_unit("Ambush")
        force = esc.force_of_unit(unit)
        if force is None:
            raise CommandRefused(f"Ambush: {self._name(unit)} is not a unit of the Escapade")
        p = np.asarray(point, float)
        return AmbushAction(type="ambush", player=esc.player_of_force(force), turn=self.s.turn,
                            unit=unit, to=(round(float(p[0]), 4), round(float(p[1]), 4)))

    def missile(self, point, xsize: int, variant: str = "explosive") -> MissileStrike:
        """V: an Explosive of Size ``xsize`` strikes a point and goes off (8.4); Tab picks the
        ``variant`` its d10s are swapped for (an odd d10 a Phased one cannot swap stays).

        Raises
        ------
        CommandRefused
            The variant does not fit the XSize (a Phased XSize 1), in the rule's words.
        """
        p = np.asarray(point, float)
        try:
            explosive_dice(int(xsize), variant)
        except RulesError as exc:
            raise CommandRefused(f"Missile strike: {exc} (8.4 Explosive Variants)") from None
        return MissileStrike(type="missile", player=self._player(), turn=self.s.turn,
                             point=tuple(round(float(v), 4) for v in p), xsize=int(xsize),
                             variant=variant, name=f"{possessive(self._player())} missile")

    @staticmethod
    def missile_dice(xsize: int, variant: str) -> str:
        """The Damage dice a missile of ``xsize`` and ``variant`` rolls, or why it cannot."""
        try:
            return str(explosive_dice(int(xsize), variant))
        except RulesError as exc:
            return f"not allowed: {exc}"

    @staticmethod
    def missile_dice_count(xsize: int, variant: str) -> int:
        """How many Damage dice (and so 2" rings) that missile has; 0 when not allowed."""
        try:
            return explosive_dice(int(xsize), variant).count
        except RulesError:
            return 0

    # ---------------------------------------------------------------- unit actions
    def throw(self, payload: str, aim, target_body: str | None) -> ThrowAction:
        """J: the selected unit throws ``payload`` at ``aim`` (8.4 Thrown Weapons)."""
        unit = self._selected_unit("Throw")
        return ThrowAction(type="throw", player=self._player(), turn=self.s.turn,
                           throwers=[unit], payload=payload,
                           target=tuple(round(float(v), 4) for v in aim), target_body=target_body,
                           action_die=int(self.s.body(unit).stats.action_die))

    def ignite(self, target: str) -> Ignite:
        """I: 1d4 Fire lands on ``target`` (a torch; 8.3 Fire)."""
        return Ignite(type="ignite", player=self._player(), turn=self.s.turn, target=target)

    def interact(self, obj: str, interaction: str = "touch") -> Interact:
        """K: the selected unit interacts with ``obj`` (pulls a lever, opens a door; F.2)."""
        unit = self._selected_unit("Interact")
        return Interact(type="interact", player=self._player(), turn=self.s.turn, unit=unit,
                        object=obj, interaction=interaction)

    def stop_drop_roll(self) -> StopDropRoll:
        """D: the selected burning minifig stops, drops and rolls (8.3)."""
        unit = self._selected_unit("Stop, drop and roll")
        return StopDropRoll(type="stop_drop_roll", player=self._player(), turn=self.s.turn,
                            unit=unit)

    def reload(self, weapon: int | None) -> ReloadWeaponAction:
        """W: the selected unit reloads its weapon (the chosen one, else its first) (8.3)."""
        unit = self._selected_unit("Reload")
        return ReloadWeaponAction(type="reload_weapon", player=self._player(), turn=self.s.turn,
                                  unit=unit, weapon=int(weapon or 0))

    def mark(self, target: str) -> MarkTarget:
        """Y: the selected Scout Marks ``target`` (F.3)."""
        unit = self._selected_unit("Mark")
        return MarkTarget(type="mark", player=self._player(), turn=self.s.turn, scout=unit,
                          target=target)

    def attack(self, unit: str, weapon: int, target: str, mode: str | None) -> AttackAction:
        """An attack in a chosen fire mode (None: the weapon's default; 8.3); a Turret's
        weapon is manned by :meth:`crew_for` (8.1, 8.5)."""
        return AttackAction(type="attack", player=self._player(), turn=self.s.turn, unit=unit,
                            weapon=weapon, target=target, mode=mode,
                            gunner=self.crew_for(unit, weapon))

    def crew_for(self, unit: str, weapon: int | None) -> str | None:
        """Who mans weapon ``weapon`` of ``unit`` when it is a portable Turret's: the current
        player's nearest minifig that reaches it or its Controls and has not acted, a Gunner
        first (8.5); None for any other weapon (or when nobody can)."""
        man = self.s.system("manning")
        if unit not in man.turrets or weapon is None:
            return None
        sk = self.s.skirmish
        free = []
        for k, st in self.s.bodies.items():
            if st.kind != "unit" or st.owner != self._player() or k in sk.turn_state.acted:
                continue
            if st.damage.destroyed or man.station(k, unit, weapon) is None:
                continue
            gunner = "Gunner" in (st.stats.specialties or [])
            free.append((not gunner, self.s.measure(k, unit).inches, k))
        return min(free)[2] if free else None

    def divert_power(self) -> DivertPowerAction:
        """Shift+D: the selected Creation Diverts All Power this turn (8.1)."""
        unit = self._selected_unit("Divert All Power")
        return DivertPowerAction(type="divert_power", player=self._player(), turn=self.s.turn,
                                 unit=unit)

    def set_up_turret(self, turret: str) -> SetUpTurretAction:
        """Shift+T: the selected minifig Sets Up the clicked Turret (8.1)."""
        unit = self._selected_unit("Set Up")
        return SetUpTurretAction(type="set_up_turret", player=self._player(), turn=self.s.turn,
                                 unit=unit, turret=turret)

    def gunnery_support(self, mount: str, weapon: int | None) -> GunnerySupportAction:
        """Shift+G: the selected Gunner supports the clicked body's weapon (the chosen one,
        else its first; 8.5)."""
        unit = self._selected_unit("Gunnery Support")
        return GunnerySupportAction(type="gunnery_support", player=self._player(),
                                    turn=self.s.turn, unit=unit, mount=mount,
                                    weapon=int(weapon or 0))

    def interfere(self, mount: str, weapon: int | None) -> InterfereAction:
        """Shift+I: the selected unit Interferes with the clicked body's weapon (8.5)."""
        unit = self._selected_unit("Interfere")
        return InterfereAction(type="interfere", player=self._player(), turn=self.s.turn,
                               unit=unit, mount=mount, weapon=int(weapon or 0))

    def fire_modes(self, unit: str, weapon: int) -> list[str | None]:
        """The fire modes a weapon can fire (None first: its default), for Tab."""
        sk = self.s.skirmish
        w = sk.weapons(unit)[weapon]
        out: list[str | None] = [None]
        for m in FIRE_MODES:
            try:
                sk.fire_mode(w, m, None, None)
            except SandboxError:
                continue
            out.append(m)
        return out

    def face(self, degrees: float):
        """, and .: the selected unit turns 45° left or right in place (4.1, 8.3)."""
        from .skirmish import FaceAction

        unit = self._selected_unit("Turn")
        return FaceAction(type="face", player=self._player(), turn=self.s.turn, unit=unit,
                          degrees=float(degrees))

    # ---------------------------------------------------------------- Close Combat (8.2)
    def parry(self, weapon: int | None) -> ParryOrder:
        """': the selected unit will Parry with the chosen weapon (else its first Melee Weapon
        or Shield) — a standing order, no Action (8.2)."""
        unit = self._selected_unit("Parry")
        if weapon is None:
            ws = self.s.skirmish.weapons(unit)
            weapon = next((i for i, w in enumerate(ws) if w.close_combat), None)
            if weapon is None:
                raise CommandRefused(f"Parry: {self._name(unit)} holds no Melee Weapon or "
                                     "Shield (8.2)")
        return ParryOrder(type="parry", player=self._player(), turn=self.s.turn, unit=unit,
                          weapon=int(weapon))

    def close_combat(self, move: str, target: str, weapon: int | None = None):
        """;: the selected unit Shoves (with its chosen weapon when it is a Melee Shield),
        Grabs, or makes an Angry Inch at ``target`` (8.2)."""
        unit = self._selected_unit(move.replace("_", " ").title())
        common = dict(player=self._player(), turn=self.s.turn, unit=unit, target=target)
        if move == "shove":
            ws = self.s.skirmish.weapons(unit)
            shield = weapon if weapon is not None and weapon < len(ws) and \
                ws[weapon].weapon_type.value == "Melee Shield" else None
            return ShoveAction(type="shove", weapon=shield, **common)
        if move == "grab":
            return GrabAction(type="grab", **common)
        if move == "angry_inch":
            return AngryInchAction(type="angry_inch", **common)
        raise CommandRefused(f"no Close Combat move {move!r} (have {CLOSE_COMBAT_MOVES})")

    def close_combat_preview(self, move: str, target: str, weapon: int | None = None
                             ) -> list[str]:
        """The preview of a Close Combat move: every modifier before the roll (8.2)."""
        return self.s.system("close_combat").preview(self.close_combat(move, target, weapon))
