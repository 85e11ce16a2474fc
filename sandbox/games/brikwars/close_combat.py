"""Close Combat for Creations at the table: Parry, Shove, Grab, the Angry Inch (BrikWars 8.2).

The rules and their readings are in :mod:`sandbox.rules.close_combat`; this system plays them on
the one engine:

- ``parry`` (a standing order, no Action): ``unit`` will Parry enemy Close Combat attacks,
  Shoves and Grabs with its weapon number ``weapon`` (``stop = true``: no longer). A Parry is a
  Counter, so the defender's player gives the order on his own turn and it is rolled (stream
  ``parry``) when the blow lands, in :meth:`Skirmish.attack` for Melee attacks and here for
  Shoves and Grabs. Refused for Mindless Creations and for weapons that cannot Parry.
- ``shove`` (the unit's Action): an Automatic Hit (Too Large: an Action Roll against its Size)
  that pushes the target straight away through the table's KnockBack push
  (:meth:`Skirmish.knockback`, a real physical push); ``helpers`` join a Combined Attack,
  adding their Sizes (Too Small) and spending their Actions; ``weapon`` names a Melee Shield.
- ``grab`` (the unit's Action): an Automatic Hit (Too Large: Use = its Size) that holds the
  target: its moves are refused until the grabber's side's next turn begins.
- ``angry_inch`` (part of an attack): the unit moves up to 1" beyond its Move straight at a
  Close Combat target, to base contact; refused for Unmoving Creations.

A Parry's Critical Failure knocks the parrying weapon away from the attacker for the attacker's
Action Roll in inches: when the scene's weapon entry names its LDraw ``part``, a real body of
that part is thrown from where the weapon is and the part leaves the wielder's drawn mesh
(its collision box stays: the compound is not split, which would re-key the unit; an open
window keeps the mesh it built); otherwise it is logged. Either way the weapon is gone for the
rest of the game.

Ranged weapons of Creations (8.2): "both the firing angle and the weapon Range are measured
from the end of the weapon barrel". :meth:`CloseCombat.barrel_end` finds it: a weapon entry's
``barrel`` point (in the model's own frame, inches), or else the point of the weapon's ``part``
(the first placement of that LDraw part in the body's model) farthest out from the body's
footprint centre (a muzzle sticks out); None when neither is given (then the base edge stands
in, as before).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ...core.errors import RulesError
from ...engine.actions import Action
from ...engine.table import System, handles, refuses
from ...rules.attacks import ActionRoll, Modifier
from ...rules.close_combat import (
    ANGRY_INCH_IN,
    CLOSE_COMBAT_REACH_IN,
    Combatant,
    Control,
    ParryResult,
    angry_inch_refusal,
    counter_refusal,
    grab_use,
    knock_away_inches,
    parried_damage,
    parry_modifiers,
    parry_refusal,
    parrying_weapon_refusal,
    resolve_parry,
    resolve_shove_or_grab,
    shove_knockback_in,
    shove_refusal,
)
from ...rules.weapons import WeaponProfile, WeaponType
from . import effects
from .skirmish import possessive

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.table import Table


class ParryOrder(Action):
    """``unit`` Parries enemy Close Combat attacks with its weapon number ``weapon`` (0-based)
    until told otherwise, or with ``stop`` no longer Parries (BrikWars 8.2; a Counter, no
    Action)."""

    type: Literal["parry"]
    cost: ClassVar[str] = "free"
    unit: str
    weapon: int = Field(0, ge=0, le=99)
    stop: bool = False


class ShoveAction(Action):
    """``unit`` Shoves ``target`` (8.2): with its Melee Shield number ``weapon`` (None: bare),
    ``helpers`` adding their Sizes in a Combined Attack."""

    type: Literal["shove"]
    cost: ClassVar[str] = "action"
    acting: ClassVar[tuple[str, ...]] = ("unit", "helpers")
    unit: str
    target: str
    weapon: int | None = Field(None, ge=0, le=99)
    helpers: list[str] = Field(default_factory=list, max_length=8)


class GrabAction(Action):
    """``unit`` Grabs ``target`` and holds it (8.2)."""

    type: Literal["grab"]
    cost: ClassVar[str] = "action"
    unit: str
    target: str


class AngryInchAction(Action):
    """``unit`` lunges up to 1" beyond its Move at ``target`` to reach base contact (5.2 Angry
    Inch; refused for Unmoving Creations, 8.2)."""

    type: Literal["angry_inch"]
    cost: ClassVar[str] = "action"
    unit: str
    target: str


class CloseCombatExpect(BaseModel):
    """``[expect.close_combat]``: what a Close Combat scene must show."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    parried: list[str] = Field(default_factory=list, description="units that Parried a blow")
    shoved: dict[str, float] = Field(default_factory=dict,
                                     description="body -> least inches its Shove moved it")
    held: list[str] = Field(default_factory=list, description="bodies Grabbed and still held")
    knocked_away: list[str] = Field(default_factory=list,
                                    description="'unit#weapon' knocked out of its hands")


class CloseCombat(System):
    """Parry orders, Shoves, Grabs and the Angry Inch (see the module notes)."""

    name = "close_combat"
    actions = (ParryOrder, ShoveAction, GrabAction, AngryInchAction)

    def __init__(self, game: "Table"):
        super().__init__(game)
        #: unit -> weapon number it Parries with
        self.parry_orders: dict[str, int] = {}
        #: held body -> its grabber
        self.holds: dict[str, str] = {}
        #: "unit#weapon" knocked out of its hands (8.2)
        self.knocked_away: set[str] = set()
        #: units that used an Angry Inch this player turn -> the target
        self.angry: dict[str, str] = {}
        #: units whose Parry succeeded at least once
        self.parried: set[str] = set()
        #: body -> inches its footprint centre moved under a Shove
        self.shoved: dict[str, float] = {}

    # ------------------------------------------------------------------ read-outs
    def combatant(self, key: str) -> Combatant:
        """The rules' view of a body (Size, Creation or not, control, Action die, leaping)."""
        st = self.game.body(key)
        s = st.stats
        creation = st.kind == "creation"
        control: Control = getattr(s, "control", None) or (
            "operator" if creation else "independent")
        return Combatant(st.name, float(s.size), creation, control, int(s.action_die),
                         bool(getattr(s, "leaping", False)))

    def weapon(self, key: str, index: int) -> WeaponProfile:
        """Weapon number ``index`` of a body (RulesError for a number it lacks)."""
        ws = self.game.system("skirmish").weapons(key)
        if not 0 <= index < len(ws):
            raise RulesError(f"{self.game.body(key).name} has no weapon {index} (weapons are "
                             f"numbered from 0; it has {len(ws)})")
        return ws[index]

    def weapon_refusal(self, key: str, index: int) -> str:
        """"" or why weapon ``index`` of ``key`` is gone (knocked out of its hands, 8.2)."""
        if f"{key}#{index}" in self.knocked_away:
            return (f"{self.game.body(key).name}'s weapon {index} was knocked out of its hands "
                    "by a failed Parry (8.2)")
        return ""

    def held_refusal(self, key: str) -> str:
        """"" or why ``key`` cannot move: it is held by a Grab (8.2)."""
        by = self.holds.get(key)
        if by is None:
            return ""
        g = self.game
        return (f"{g.body(key).name} is held by {g.body(by).name}'s Grab (8.2) until "
                f"{possessive(g.body(by).owner or 'nobody')} next turn")

    def parry_plan(self, attacker: str, target: str, incoming: WeaponProfile | None, *,
                   shove: bool = False, shove_size_in: float | None = None
                   ) -> tuple[WeaponProfile | None, list[Modifier], str]:
        """How ``target`` would Parry ``attacker`` now: ``(weapon, modifiers, why not)``.

        ``weapon`` is None and ``why not`` says why when it has no Parry order or may not
        Parry; otherwise the modifiers are those the Parry roll will take (8.2)."""
        idx = self.parry_orders.get(target)
        if idx is None:
            return None, [], ""
        g = self.game
        if g.body(target).damage.destroyed or g.body(target).damage.disrupted:
            return None, [], f"{g.body(target).name} is out of the fight"
        gone = self.weapon_refusal(target, idx)
        if gone:
            return None, [], gone
        w = self.weapon(target, idx)
        d, a = self.combatant(target), self.combatant(attacker)
        why = parry_refusal(d, a, w)
        if why:
            return None, [], why
        return w, parry_modifiers(d, a, incoming, shove=shove, attacker_size_in=shove_size_in), ""

    def parry_lines(self, attacker: str, target: str, incoming: WeaponProfile | None,
                    **kw) -> list[str]:
        """The Parry the target will make, in words, for a preview (before any roll)."""
        g = self.game
        w, mods, why = self.parry_plan(attacker, target, incoming, **kw)
        name = g.body(target).name
        if w is None:
            why = why or counter_refusal(self.combatant(target))
            return [f"{name} cannot Parry: {why}"] if why else [f"{name} has no Parry order"]
        out = [f"{name} will Parry with {w.name}: Use {w.use}, Action d"
               f"{self.combatant(target).action_die}"
               + (f", +{w.deflection_on_parry} Deflection on success"
                  if w.weapon_type is WeaponType.MELEE_SHIELD else ", stops the blow on success")]
        out += [f"  Parry {m.source}: Action {m.action:+d}" for m in mods]
        return out

    def preview(self, action: ShoveAction | GrabAction | AngryInchAction) -> list[str]:
        """A Shove, Grab or Angry Inch in words before any die is rolled: Sizes, Automatic Hit
        or the Use to reach, the target's Parry with every modifier, the KnockBack, and why it
        would be refused (8.2). Nothing changes."""
        why = self.refusal(action)
        lines: dict[type, Callable[[Any, str], list[str]]] = {
            AngryInchAction: self._angry_inch_lines, ShoveAction: self._shove_lines,
            GrabAction: self._grab_lines}
        out = lines[type(action)](action, why)
        out.append(f"Cannot: {why}" if why else "Click the target again (or Enter) to do it")
        return out

    def _angry_inch_lines(self, action: AngryInchAction, why: str) -> list[str]:
        g = self.game
        mover = self.combatant(action.unit)
        tgt = self.combatant(action.target) if action.target in g.bodies else None
        d = g.measure(action.unit, action.target).inches if tgt is not None else 0.0
        return [f'Angry Inch: {mover.name} lunges up to {ANGRY_INCH_IN:g}" at '
                f'{tgt.name if tgt else action.target} ({d:.2f}" away)']

    def _shove_lines(self, action: ShoveAction, why: str) -> list[str]:
        shield = None
        if action.weapon is not None and not why:
            shield = self.weapon(action.unit, action.weapon)
        out = self._contact_lines("Shove", [action.unit, *action.helpers], action.target,
                                  shield)
        if out and not why:
            size = self._size_of([action.unit, *action.helpers])
            tgt = self.combatant(action.target)
            out.append(f'  KnockBack {shove_knockback_in(size, tgt.size_in, shield):g}" '
                       "straight away (no Damage)")
        return out

    def _grab_lines(self, action: GrabAction, why: str) -> list[str]:
        out = self._contact_lines("Grab", [action.unit], action.target, None)
        if out:
            out.append("  the target cannot move until your next turn")
        return out

    def _size_of(self, keys: list[str]) -> float:
        """The Sizes (inches) of the bodies of ``keys`` on the table, added (a Combined
        Attack)."""
        return sum(self.combatant(k).size_in for k in keys if k in self.game.bodies)

    def _contact_lines(self, verb: str, keys: list[str], target: str,
                       shield: WeaponProfile | None) -> list[str]:
        """A Shove's or Grab's Sizes, hit and the target's Parry in words (none when
        ``target`` is no body on the table); ``keys``: the mover, then any helpers."""
        g = self.game
        mover = self.combatant(keys[0])
        if target not in g.bodies:
            return []
        tgt = self.combatant(target)
        size = self._size_of(keys)
        out = [f'{verb}: {" + ".join(g.body(k).name for k in keys if k in g.bodies)} '
               f'(Size {size:g}") on {tgt.name} (Size {tgt.size_in:g}")']
        use = grab_use(mover, tgt)
        out.append("  Automatic Hit" if use is None else
                   f"  Too Large against a small target: Action d{mover.action_die} vs "
                   f"Use {use} (its Size)")
        out += ["  " + x for x in self.parry_lines(
            keys[0], target, shield, shove=verb == "Shove", shove_size_in=size)]
        return out

    # ------------------------------------------------------------------ the barrel (8.2)
    def barrel_end(self, key: str, index: int) -> np.ndarray | None:
        """(3,) world point of the end of weapon ``index``'s barrel, inches, or None (see the
        module notes)."""
        g = self.game
        specs = g.body(key).stats.weapons
        if not 0 <= index < len(specs) or key not in g.world.bodies:
            return None
        spec = specs[index]
        asset = g.assets.get(key)
        if asset is None or asset.model_frame is None:
            return None
        if spec.barrel is not None:
            p = asset.model_frame @ np.array([*map(float, spec.barrel), 1.0])
            return g.world.body_to_world(key, p[:3])
        pts = self.part_points(key, spec.part) if spec.part else None
        if pts is None or not len(pts):
            return None
        c = g.footprint_centre(key)
        far = np.linalg.norm(pts[:, :2] - c, axis=1)
        return pts[int(np.argmax(far))]

    def hide_part(self, key: str, part: str) -> None:
        """Take the first placement of ``part`` out of a body's drawn mesh (the knocked-away
        weapon leaves its hands; its collision box stays: the compound is not split)."""
        g = self.game
        asset = g.assets.get(key)
        if asset is None or asset.placement_index is None or asset.local_vertices is None:
            return
        want = part.lower().removesuffix(".dat") + ".dat"
        tags = [t for t in asset.tags if t < len(asset.placements)
                and asset.placements[t].part.lower() == want]
        pidx = np.asarray(asset.placement_index)
        n = len(pidx) * 3
        arrays = ("vertices", "normals", "colours", "local_vertices", "local_normals",
                  "local_colours")
        if not tags or any(getattr(asset, f) is None or len(getattr(asset, f)) != n
                           for f in arrays):
            return
        keep = pidx != min(tags)
        vsel = (np.nonzero(keep)[0][:, None] * 3 + np.arange(3)).reshape(-1)
        # (a piece of a broken creation has a PieceAsset: replaced, not dataclasses.replace)
        g.assets[key] = asset.replaced(placement_index=pidx[keep],
                                       **{f: getattr(asset, f)[vsel] for f in arrays})

    def part_colour(self, key: str, part: str) -> int:
        """LDraw colour of the first placement of ``part`` in a body's model (16 if none)."""
        asset = self.game.assets.get(key)
        if asset is None:
            return 16
        want = part.lower().removesuffix(".dat") + ".dat"
        for t in sorted(asset.tags):
            if t < len(asset.placements) and asset.placements[t].part.lower() == want:
                c = int(asset.placements[t].colour)
                return c if c != 16 else int(getattr(self.game.body(key), "colour", 16) or 16)
        return 16

    def part_points(self, key: str, part: str) -> np.ndarray | None:
        """World vertices of the first placement of LDraw ``part`` in a body's model."""
        g = self.game
        asset = g.assets.get(key)
        if asset is None or asset.placement_index is None or asset.local_vertices is None:
            return None
        want = part.lower().removesuffix(".dat") + ".dat"
        tags = [t for t in asset.tags if t < len(asset.placements)
                and asset.placements[t].part.lower() == want]
        if not tags:
            return None
        tri = np.nonzero(np.asarray(asset.placement_index) == min(tags))[0]
        if not len(tri):
            return None
        v = asset.local_vertices[(tri[:, None] * 3 + np.arange(3)).reshape(-1)]
        return g.world.body_to_world(key, v.astype(float))

    # ------------------------------------------------------------------ the Parry at the blow
    def parry(self, attacker: str, target: str, incoming: WeaponProfile | None,
              attack_roll: ActionRoll | None, *, against: str = "attack",
              shove_size_in: float | None = None) -> ParryResult | None:
        """Roll ``target``'s Parry against ``attacker`` (None when it does not Parry), log it,
        and knock the weapon away on a Critical Failure (8.2)."""
        g = self.game
        w, mods, _ = self.parry_plan(attacker, target, incoming, shove=against == "shove",
                                     shove_size_in=shove_size_in)
        if w is None:
            return None
        d = self.combatant(target)
        res = resolve_parry(g.dice.stream("parry"), w, d.action_die, mods, against=against,
                            reason=f"{d.name} Parries with {w.name}")
        act = res.roll
        verdict = ("Critical Failure" if act.critical_failure else
                   ("success" if res.success else "failure"))
        n = res.deflection_layers
        effect = ("the blow is stopped" if res.blocks else
                  (f"+{n} layer{'' if n == 1 else 's'} of Deflection" if n else ""))
        g.log("parry", f"{d.name} Parries with {w.name}: {[r.result for r in act.rolls]} "
              f"{sum(m.action for m in act.modifiers):+d} = {act.total} vs Use {act.use}: "
              f"{verdict}" + (f" ({effect})" if effect else "")
              + "".join(f"; {m.source}" for m in mods),
              body=target, attacker=attacker, weapon=w.name, total=act.total, use=act.use,
              success=res.success, blocks=res.blocks, deflection=res.deflection_layers,
              critical_failure=act.critical_failure)
        if res.success:
            self.parried.add(target)
        if res.knocked_away:
            idx = self.parry_orders.pop(target)
            inches = knock_away_inches(attack_roll, g.dice.stream("parry"),
                                       self.combatant(attacker).action_die,
                                       f"{self.combatant(attacker).name}'s Action Roll "
                                       f"(knock-away of {w.name})")
            self.knock_away(target, idx, attacker, inches)
        return res

    def blow_roll(self, roll, parry: ParryResult | None, victim_key: str):
        """The Damage roll that lands after a Parry: None when stopped, else the roll less the
        dice a Shield Parry's Deflection cancels (highest first; 8.2)."""
        if parry is None:
            return roll
        if parry.blocks:
            return None
        layers = parry.deflection_layers
        if not layers:
            return roll
        left = parried_damage(roll, parry)
        keep = sorted(range(len(roll.rolls)), key=lambda i: -roll.values[i])[layers:]
        groups = tuple((roll.rolls[i],) for i in sorted(keep))
        out = replace(roll, groups=groups, n_base=min(roll.n_base, len(groups)))
        if out.total != left:  # pragma: no cover - the two readings of Deflection must agree
            raise RulesError(f"Deflection mismatch: {out.total} != {left}")
        self.game.log("deflection", f"{self.game.body(victim_key).name}'s Shield Parry "
                      f"cancels {layers} Damage di{'e' if layers == 1 else 'ce'}: "
                      f"{roll.total} -> {out.total}", body=victim_key, layers=layers,
                      before=roll.total, after=out.total)
        return out

    def knock_away(self, key: str, index: int, attacker: str, inches: float) -> None:
        """Weapon ``index`` leaves ``key``'s hands, thrown ``inches`` directly away from
        ``attacker`` (a real body when the weapon names its LDraw part; 8.2)."""
        g = self.game
        self.knocked_away.add(f"{key}#{index}")
        st = g.body(key)
        spec = st.stats.weapons[index]
        w = self.weapon(key, index)
        d = g.footprint_centre(key) - g.footprint_centre(attacker)
        n = float(np.linalg.norm(d))
        d = d / n if n > 1e-9 else np.array([1.0, 0.0])
        thrown = None
        if spec.part and inches > 0:
            pts = self.part_points(key, spec.part)
            at = pts.mean(axis=0) if pts is not None and len(pts) else (
                np.array([*g.footprint_centre(key), g.bounds(key)[1][2]]))
            thrown = f"{key}~{index}"
            if thrown in g.bodies:
                thrown = f"{thrown}~{len(self.knocked_away)}"
            from ...engine.assets import build_part_asset

            asset = build_part_asset(spec.part, self.part_colour(key, spec.part), g.ldrawdir,
                                     name=f"{st.name}'s {w.name}")
            lo, hi = asset.bounds()
            half = (hi - lo) / 2
            start = np.array([at[0] + d[0] * (half[0] + 0.6), at[1] + d[1] * (half[1] + 0.6),
                              max(at[2], float(g.bounds(key)[1][2]) + 0.1) + half[2]])
            asset.transform(np.eye(3), start - (lo + hi) / 2)
            self.hide_part(key, spec.part)
            g.add_body(thrown, "payload", f"{st.name}'s {w.name}", st.owner,
                       type(st.stats)(size=max(0.1, float(w.size)), armor=2), asset)
            speed = float(np.sqrt(inches * g.world.gravity))  # a 45 degree throw of v^2/g
            v = speed / np.sqrt(2.0)
            g.world.set_velocity(thrown, (d[0] * v, d[1] * v, v))
        g.log("knocked_away", f"{w.name} is knocked out of {st.name}'s hands, {inches:g}\" "
              f"directly away from {g.body(attacker).name}"
              + (" (thrown)" if thrown else " (no part in the model: logged)"),
              body=key, weapon=index, weapon_name=w.name, inches=inches, thrown=thrown,
              direction=[round(float(v), 4) for v in d])

    # ------------------------------------------------------------------ hooks
    def start_of_player_turn(self, turn: int, player: str) -> None:
        """Holds end when the grabber's side's next turn begins."""
        g = self.game
        for held, by in list(self.holds.items()):
            if g.bodies.get(by) is None or g.bodies[by].owner == player:
                del self.holds[held]
                g.log("released", f"{g.body(held).name} is released from "
                      f"{g.body(by).name}'s Grab", body=held, grabber=by)

    def end_of_player_turn(self, turn: int, player: str) -> None:
        self.angry.clear()

    def on_damage(self, victim, damage: int) -> None:
        """A destroyed or Disrupted grabber lets go."""
        if victim.damage.destroyed or victim.damage.disrupted:
            for held, by in list(self.holds.items()):
                if by == victim.key:
                    del self.holds[held]

    def state(self) -> dict:
        return {"parry_orders": dict(sorted(self.parry_orders.items())),
                "holds": dict(sorted(self.holds.items())),
                "knocked_away": sorted(self.knocked_away),
                "angry": dict(sorted(self.angry.items()))}

    def check(self) -> list[str]:
        """Compare the game with ``[expect.close_combat]``; failures in words."""
        exp = self.game.spec.expect
        e = getattr(exp, "close_combat", None) if exp is not None else None
        if e is None:
            return []
        fails = [f"expected {k!r} to Parry a blow" for k in e.parried if k not in self.parried]
        for k, n in e.shoved.items():
            if self.shoved.get(k, 0.0) < n:
                fails.append(f'expected {k!r} Shoved at least {n:g}", saw '
                             f'{self.shoved.get(k, 0.0):.2f}"')
        fails += [f"expected {k!r} held by a Grab" for k in e.held if k not in self.holds]
        fails += [f"expected {k!r} knocked away" for k in e.knocked_away
                  if k not in self.knocked_away]
        return fails

    # ------------------------------------------------------------------ refusals
    def _contact(self, unit: str, target: str) -> str:
        g = self.game
        if target not in g.bodies:
            return f"no body called {target!r} on the table"
        if unit == target:
            return "a unit cannot Shove or Grab itself"
        t = g.body(target)
        if t.damage.destroyed or target not in g.world.bodies:
            return f"{t.name} is already destroyed"
        dist = g.measure(unit, target).inches
        if dist > CLOSE_COMBAT_REACH_IN:
            return (f'{t.name} is {dist:.2f}" away: Close Combat needs base contact '
                    f'({CLOSE_COMBAT_REACH_IN:g}"; an Angry Inch may close 1")')
        return ""

    def _acting(self, unit: str, player: str) -> str:
        g = self.game
        reason = g.system("skirmish").move_refusal(unit, player)  # names an unknown unit too
        if reason:
            return reason
        if effects.has_acted(g, unit):
            return f"{g.body(unit).name} has already used its Action this turn"
        return ""

    @refuses(ParryOrder)
    def parry_order_refused(self, action: ParryOrder) -> str:
        reason = self.game.system("skirmish").move_refusal(action.unit, action.player)
        if reason:
            return reason
        if action.stop:
            return ""
        why = counter_refusal(self.combatant(action.unit))
        if why:
            return why
        try:
            w = self.weapon(action.unit, action.weapon)
        except RulesError as exc:
            return str(exc)
        return self.weapon_refusal(action.unit, action.weapon) or parrying_weapon_refusal(w)

    @refuses(AngryInchAction)
    def angry_inch_refused(self, action: AngryInchAction) -> str:
        g = self.game
        reason = self._acting(action.unit, action.player)
        if reason:
            return reason
        if action.target not in g.bodies:
            return f"no body called {action.target!r} on the table"
        why = angry_inch_refusal(self.combatant(action.unit))
        if why:
            return why
        if action.unit in self.angry:
            return f"{g.body(action.unit).name} has already used its Angry Inch this turn"
        dist = g.measure(action.unit, action.target).inches
        if dist <= CLOSE_COMBAT_REACH_IN:
            return f"{g.body(action.target).name} is already in base contact"
        if dist > ANGRY_INCH_IN + CLOSE_COMBAT_REACH_IN:
            return (f'{g.body(action.target).name} is {dist:.2f}" away: an Angry Inch '
                    f'closes only {ANGRY_INCH_IN:g}"')
        return self.held_refusal(action.unit)

    @refuses(ShoveAction)
    def shove_refused(self, action: ShoveAction) -> str:
        return (self._acting(action.unit, action.player)
                or self._contact(action.unit, action.target)
                or self._shove_refusal(action))

    @refuses(GrabAction)
    def grab_refused(self, action: GrabAction) -> str:
        reason = self._acting(action.unit, action.player) or self._contact(action.unit,
                                                                            action.target)
        if reason:
            return reason
        if action.target in self.holds:
            return f"{self.game.body(action.target).name} is already held"
        return ""

    def _shove_refusal(self, a: ShoveAction) -> str:
        g = self.game
        if a.weapon is not None:
            try:
                w = self.weapon(a.unit, a.weapon)
            except RulesError as exc:
                return str(exc)
            if w.weapon_type is not WeaponType.MELEE_SHIELD:
                return f"{w.name} is not a Melee Shield: Shove bare-handed or with a Shield (8.2)"
            why = self.weapon_refusal(a.unit, a.weapon)
            if why:
                return why
        for h in a.helpers:
            if h == a.unit or a.helpers.count(h) > 1:
                return f"{h!r} is named twice in the Combined Attack"
            why = self._acting(h, a.player) or self._contact(h, a.target)
            if why:
                return f"Combined Attack: {why}"
        if g.world.bodies[a.target].static:
            return f"{g.body(a.target).name} is fixed to the table: it cannot be Shoved"
        return shove_refusal([self.combatant(k) for k in [a.unit, *a.helpers]],
                             self.combatant(a.target))

    # ------------------------------------------------------------------ apply
    @handles(ParryOrder)
    def _parry_order(self, action: ParryOrder, index: int) -> None:
        g = self.game
        name = g.body(action.unit).name
        if action.stop:
            self.parry_orders.pop(action.unit, None)
            g.log("parry_order", f"{name} stops Parrying", body=action.unit, weapon=None,
                  player=action.player)
            return
        self.parry_orders[action.unit] = action.weapon
        w = self.weapon(action.unit, action.weapon)
        g.log("parry_order", f"{name} will Parry Close Combat attacks with {w.name} "
              f"(Use {w.use})", body=action.unit, weapon=action.weapon, player=action.player)

    @handles(AngryInchAction)
    def _apply_angry_inch(self, action: AngryInchAction, index: int) -> None:
        self._angry_inch(action)

    @handles(ShoveAction)
    def _apply_shove(self, action: ShoveAction, index: int) -> None:
        self._shove(action)

    @handles(GrabAction)
    def _apply_grab(self, action: GrabAction, index: int) -> None:
        self._grab(action)

    def _angry_inch(self, a: AngryInchAction) -> None:
        g = self.game
        m = g.measure(a.unit, a.target)
        frm = g.footprint_centre(a.unit)
        step = np.asarray(m.end[:2], float) - np.asarray(m.start[:2], float)
        n = float(np.linalg.norm(step))
        go = max(0.0, min(ANGRY_INCH_IN, m.inches - 0.05))
        to = frm + (step / n * go if n > 1e-9 else 0.0)
        self.angry[a.unit] = a.target
        g.move_unit(a.unit, (float(to[0]), float(to[1])), player=a.player,
                    note=f" (Angry Inch at {g.body(a.target).name}, beyond its Move)")

    def _attempt(self, a, what: str) -> tuple[bool, ActionRoll | None]:
        """The mover's own roll (Automatic Hit, or Too Large's Action Roll), logged."""
        g = self.game
        mover, target = self.combatant(a.unit), self.combatant(a.target)
        use = grab_use(mover, target)
        res = resolve_shove_or_grab(g.dice.stream("attack"), mover, target, reason=what)
        act = res.roll
        if act is None:  # an Automatic Hit
            g.log("action_roll", f"{what}: Automatic Hit on {target.name}", body=a.unit,
                  target=a.target, total=None, use=None, hit=True)
        else:
            g.log("action_roll", f"{what}: Action Roll {[r.result for r in act.rolls]} = "
                  f"{act.total} vs Use {use} (Too Large against a small target, 8.2): "
                  + ("Critical Failure" if act.critical_failure else
                     ("hit" if act.hit else "miss")),
                  body=a.unit, target=a.target, total=act.total, use=use, hit=act.hit)
            if act.critical_failure:
                g.system("hazards").on_action_roll(a.unit, act)
        return res.hit, res.roll

    def _shove(self, a: ShoveAction) -> None:
        g = self.game
        sk = g.system("skirmish")
        shovers = [a.unit, *a.helpers]
        for k in shovers:
            effects.spend_action(g, k)
        size = sum(self.combatant(k).size_in for k in shovers)
        shield = self.weapon(a.unit, a.weapon) if a.weapon is not None else None
        tgt = g.body(a.target)
        names = " + ".join(g.body(k).name for k in shovers)
        g.log("shove", f"{names} Shove{'s' if len(shovers) == 1 else ''} {tgt.name}"
              + (f" with {shield.name}" if shield else "") + f' (Size {size:g}")',
              body=a.unit, target=a.target, helpers=list(a.helpers), size=size,
              weapon=shield.name if shield else None, player=a.player)
        hit, roll = self._attempt(a, f"{names}'s Shove")
        if not hit:
            g.settle()
            return
        pr = self.parry(a.unit, a.target, shield, roll, against="shove", shove_size_in=size)
        if pr is not None and pr.blocks:
            g.settle()
            return
        inches = shove_knockback_in(size, float(tgt.stats.size), shield)
        before = g.footprint_centre(a.target).copy()
        self.holds.pop(a.target, None)  # a Shove breaks a hold on its target
        sk.knockback(a.unit, a.target, inches)
        g.record_frame(force=True)
        g.settle(log_rest=True)
        if a.target in g.world.bodies:
            moved = float(np.linalg.norm(g.footprint_centre(a.target) - before))
            self.shoved[a.target] = max(self.shoved.get(a.target, 0.0), moved)
            g.log("shoved", f'{tgt.name} is Shoved {inches:g}" and ends {moved:.2f}" from '
                  "where it stood", body=a.target, inches=inches, moved=round(moved, 4))

    def _grab(self, a: GrabAction) -> None:
        g = self.game
        effects.spend_action(g, a.unit)
        tgt = g.body(a.target)
        g.log("grab", f"{g.body(a.unit).name} Grabs {tgt.name}", body=a.unit, target=a.target,
              player=a.player)
        hit, roll = self._attempt(a, f"{g.body(a.unit).name}'s Grab")
        if not hit:
            return
        pr = self.parry(a.unit, a.target, None, roll, against="grab")
        if pr is not None and pr.blocks:
            return
        self.holds[a.target] = a.unit
        g.log("grabbed", f"{tgt.name} is held by {g.body(a.unit).name} (8.2 Grab): it cannot "
              "move", body=a.target, grabber=a.unit)
