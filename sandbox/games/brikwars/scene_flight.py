"""Scene-file records for Payloads in flight (BrikWars 8.4) and Strategic Bombardment (13.2).

Kept apart from :mod:`sandbox.engine.scene` (which imports them into its ``Action`` union and
``SceneSpec``) so that module stays small. Lengths are inches, angles degrees; every action
has a ``turn`` (1-based) on which it happens.

Top-level tables
----------------
``[[launchers]]``
    A Launcher or Cannon standing on the table: ``id``, ``type`` ("Launcher" or "Cannon"),
    ``size`` (Weapon Size, inches), ``creation`` (the body it is built into; its Payload does
    not collide with it on the way out), ``muzzle`` (where the Payload leaves it, (x, y, z)),
    ``loading_area`` ((x, y, z)) and ``loading_radius`` (the basket or breech: a Payload must lie
    within this many inches of ``loading_area`` to be fired), ``loaded`` (a Cannon starts loaded).
``[[explosives]]``
    Bodies of the scene that are Explosives: ``body``, ``xsize``, ``stability``
    ("unstable" or "semi-stable"), ``variant`` or ``variants`` (8.4 Explosive Variants, as
    for a ``missile``).
``[[drop_zones]]``
    Permanently Marked targets for Strategic Bombardment: ``id``, ``centre`` (x, y), ``size``.
``[[melee_payloads]]``
    Bodies of the scene that are Melee Weapons (a spear, a hand axe): ``body``, ``size``
    (Weapon Size); launched or thrown they do Close Combat Damage on impact.
"""

from __future__ import annotations

from typing import ClassVar, Literal, Mapping

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ...engine.actions import Action, name_of
from ...engine.scene_types import Vec2, Vec3  # noqa: E402
from .scene_blast import VariantName, check_variants

_ID = r"^[A-Za-z0-9_.\-]+$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LauncherMount(_Strict):
    """A Launcher or Cannon on the table (BrikWars 8.4 Cannons, Payload Launchers)."""

    id: str = Field(min_length=1, pattern=_ID)
    type: Literal["Launcher", "Cannon"]
    size: int = Field(ge=1, le=40, description="Weapon Size, inches")
    creation: str | None = Field(None, description="body the weapon is built into")
    muzzle: Vec3 = Field(description="where the Payload leaves the weapon, inches")
    loading_area: Vec3 = Field(description="the basket / breech / trolley, inches")
    loading_radius: float = Field(1.0, gt=0, le=24)
    loaded: bool = Field(True, description="a Cannon starts the battle loaded")


class ExplosiveBody(_Strict):
    """Marks a body of the scene as an Explosive of ``xsize`` (BrikWars 8.4)."""

    body: str
    xsize: int = Field(ge=1, le=40)
    stability: Literal["unstable", "semi-stable"] = "semi-stable"
    variant: VariantName = "explosive"
    variants: list[VariantName] = Field(
        default_factory=list, max_length=40,
        description="Explosive Variants combined, one die each (8.4); the d10s left stay Exp")

    @model_validator(mode="after")
    def _variants(self):
        check_variants(self.xsize, self.variant, self.variants)
        return self


class MeleePayload(_Strict):
    """Marks a body of the scene as a Melee Weapon of Weapon Size ``size`` (a spear, an axe).

    Launched or thrown, it does Close Combat Damage on impact: ``size`` Action dice of the
    firer (BrikWars 8.4 Payload Launchers: "Launched Melee Weapons do Damage as if they had hit
    the target in a Close Combat attack"; Thrown Minifig Weapons).
    """

    body: str
    size: int = Field(ge=1, le=40, description="Weapon Size, inches")


class DropZone(_Strict):
    """A drop zone: permanently Marked for Strategic Bombardment (BrikWars 13.2 Drop Zones)."""

    id: str = Field(min_length=1, pattern=_ID)
    centre: Vec2
    size: float = Field(gt=0, le=100, description="Size in inches: most Strategy bricks per drop")


class _Shot(Action):
    target: Vec3 = Field(description="aim point (x, y, z), inches; z > 0 to fire over obstacles")
    target_body: str | None = Field(None, description="the body aimed at (Target Size, tracking)")
    action_die: int = Field(6, description="Action die of the firer (d6 for a minifig)")
    unseen: bool = Field(False, description="the firer cannot see the target: -5 Action (5.1)")
    miss_spot: Vec2 | None = Field(
        None, description="the defender's choice of landing spot if the shot misses (x, y)")
    dud: bool | None = Field(
        None, description="the defender's choice to declare a Dud on a Critical Failure")
    id: str | None = None

    @model_validator(mode="after")
    def _die(self):
        if self.action_die not in (4, 6, 8, 10, 12, 20):
            raise ValueError(f"Action die must be one of d4..d20, got d{self.action_die}")
        return self


class LaunchAction(_Shot):
    """Fire a Launcher or Cannon at a point (BrikWars 8.4); ``payload`` lists loaded bodies."""

    type: Literal["launch"]
    actor: ClassVar[str] = "player"
    cost: ClassVar[str] = "action"
    acting: ClassVar[tuple[str, ...]] = ()
    weapon: str = Field(description="id of a [[launchers]] entry")
    payload: list[str] = Field(min_length=1, description="bodies in the loading area")
    arc: Literal["low", "high"] = "high"
    speed: float | None = Field(None, gt=0, le=1200, description="muzzle speed, in/s")

    def describe(self, names: Mapping[str, str] | None = None) -> str:
        return (f"{self.player} fires {self.weapon} "
                f"({', '.join(name_of(names, k) for k in self.payload)}) at "
                f"({self.target[0]:.2f}, {self.target[1]:.2f})")


class ReloadAction(Action):
    """Reload a Cannon with a round of Ammo lying by its loading area (BrikWars 8.4 Ammunition)."""

    type: Literal["reload"]
    actor: ClassVar[str] = "player"
    cost: ClassVar[str] = "action"
    acting: ClassVar[tuple[str, ...]] = ()
    weapon: str
    ammo: str = Field(description="an Explosive body within the loading area")

    def describe(self, names: Mapping[str, str] | None = None) -> str:
        return f"{self.player} Reloads {self.weapon} with {name_of(names, self.ammo)}"


class RocketAction(_Shot):
    """Fire a Rocket body in a straight line (BrikWars 8.4; Tracking Rockets turn 45° a turn)."""

    type: Literal["rocket"]
    actor: ClassVar[str] = "player"
    cost: ClassVar[str] = "action"
    acting: ClassVar[tuple[str, ...]] = ()
    rocket: str = Field(description="the Rocket body (listed in [[explosives]])")
    tracking: bool = False
    speed: float = Field(240.0, gt=0, le=1200, description="flight speed, in/s")


class ThrowAction(_Shot):
    """Minifigs throw an object: a Size ½" Launcher each, Range 3" (BrikWars 8.4 Thrown Weapons)."""

    type: Literal["throw"]
    cost: ClassVar[str] = "action"
    acting: ClassVar[tuple[str, ...]] = ("throwers",)
    throwers: list[str] = Field(min_length=1, description="units throwing together (Teamwork)")
    payload: str
    arc: Literal["low", "high"] = "low"

    def describe(self, names: Mapping[str, str] | None = None) -> str:
        return (f"{self.player}: {', '.join(name_of(names, k) for k in self.throwers)} throw "
                f"{name_of(names, self.payload)}")


class SupplyDrop(_Strict):
    """A supply crate in a Bombardment (one Strategy brick per inch of Payload Size)."""

    part: str = "3001"
    colour: int = 14
    size: float = Field(1.0, gt=0, le=20)
    armor: int = 2


class BombardAction(Action):
    """Strategic Bombardment (BrikWars 13.2): Explosives, Reinforcements and supplies.

    Cost: one Strategy brick per Explosive or Smoke die, per Unit Inch, per inch of supplies.
    The target is Marked by an allied Scout (``marked_by``) or lies in a drop zone. It lands
    at the beginning of the player's next turn, by Action Roll (Use 4 × bricks) or, with
    ``big_drop`` (The Big Drop), held 5" off the ground per brick and let go. Smoke bombs
    burst into a Smoke Field (see :mod:`sandbox.games.brikwars.bombardment`).
    """

    type: Literal["bombard"]
    actor: ClassVar[str] = "player"
    cost: ClassVar[str] = "strategy"
    acting: ClassVar[tuple[str, ...]] = ()
    target: Vec2
    marked_by: str | None = Field(None, description="the allied Scout that Marked the target")
    drop_zone: str | None = Field(None, description="id of a [[drop_zones]] entry")
    explosive_dice: int = Field(0, ge=0, le=40)
    smoke_dice: int = Field(
        0, ge=0, le=40, description="Smoke bombs: Explosive dice replaced with Smoke, 4\" of "
                                    "Smoke Field each (8.4 Alternate Damage Dice, 13.2)")
    explosive_part: str = "3005"
    units: list[str] = Field(default_factory=list, description="reserve units delivered")
    supplies: list[SupplyDrop] = Field(default_factory=list)
    big_drop: bool = False
    spacing: float = Field(1.5, ge=0, le=12, description="inches between Payloads side by side")
    action_die: int = 6
    miss_spot: Vec2 | None = None
    id: str | None = None

    def scene_problem(self, spec) -> str:
        """A target off the battlefield."""
        half_w, half_d = spec.battlefield.width / 2, spec.battlefield.depth / 2
        if abs(self.target[0]) > half_w or abs(self.target[1]) > half_d:
            return (f"target {list(self.target)} is off the battlefield (x within ±{half_w:g}, "
                    f"y within ±{half_d:g} inches)")
        return ""

    def describe(self, names: Mapping[str, str] | None = None) -> str:
        by = (f"Marked by {name_of(names, self.marked_by)}" if self.marked_by
              else f"drop zone {self.drop_zone}")
        return (f"{self.player} calls a Strategic Bombardment"
                + (" (The Big Drop)" if self.big_drop else "")
                + f" at ({self.target[0]:.2f}, {self.target[1]:.2f}), {by}")

    @model_validator(mode="after")
    def _valid(self):
        if self.marked_by is not None and self.drop_zone is not None:
            raise ValueError("give one of 'marked_by' (a Scout) or 'drop_zone', not both")
        # neither: the rules refuse it with 13.2's reason (Bombardment.call_refusal)
        if not (self.explosive_dice or self.smoke_dice or self.units or self.supplies):
            raise ValueError("a Bombardment needs a Payload")
        return self


class ReinforcementsAction(Action):
    """A Commander calls Reinforcements onto a battlefield without friendly edges (BrikWars
    13.2 Non-Escapade Reinforcements): ``units`` from ``[[reserves]]`` enter at ``entry``, a
    point of the battlefield edge "closer to a friendly or allied unit than it is to any enemy
    units, and with no enemy units within ten inches"; one Strategy brick per Unit Inch; they
    appear at the end of the turn, each at its ``[[reserves]]`` position (within its Move of
    the entry point: "within one turn's movement")."""

    type: Literal["reinforcements"]
    cost: ClassVar[str] = "action"
    acting: ClassVar[tuple[str, ...]] = ("commander",)
    commander: str = Field(description="the Commander calling them (his Action)")
    units: list[str] = Field(min_length=1, max_length=50, description="ids in [[reserves]]")
    entry: Vec2 = Field(description="the entry point on the battlefield edge (x, y), inches")


class LandedNear(_Strict):
    """Expectation: ``body`` ends up within ``within`` inches (horizontally) of ``near``, and,
    when ``turn`` is given, its Payload landed on that turn (a ``landed`` event)."""

    body: str
    near: Vec2
    within: float = Field(gt=0, description="tolerance, inches")
    turn: int | None = Field(None, ge=1)


def check_landed(expectations: list[LandedNear], events: list[dict],
                 positions: dict[str, list[float]]) -> list[str]:
    """Failures (in words) of ``landed`` expectations against a finished game's log and poses.

    A body no longer in the world (an Explosive that went off) is checked at the point where it
    struck or exploded, from its last ``landed`` or ``explosion`` event.

    Parameters
    ----------
    positions : mapping of body key to (3,) float
        Final positions (inches) of the bodies still in the world.
    """
    fails = []
    for e in expectations:
        pos = positions.get(e.body)
        if pos is None:
            # a Payload that exploded: where it struck (its last ``landed`` event)
            gone = [ev.get("position") or ev.get("point") for ev in events
                    if ev["type"] in ("landed", "explosion") and ev.get("body") == e.body
                    and (ev.get("position") or ev.get("point"))]
            pos = gone[-1] if gone else None
        if pos is None:
            fails.append(f"expected {e.body!r} to land near {list(e.near)}, but it is gone")
            continue
        off = ((pos[0] - e.near[0]) ** 2 + (pos[1] - e.near[1]) ** 2) ** 0.5
        if off > e.within:
            fails.append(f"expected {e.body!r} within {e.within:g}\" of {list(e.near)}, it is "
                         f"{off:.2f}\" away at {[round(v, 2) for v in pos[:2]]}")
        if e.turn is not None:
            turns = [ev["turn"] for ev in events
                     if ev["type"] == "landed" and ev.get("body") == e.body]
            if e.turn not in turns:
                fails.append(f"expected {e.body!r} to land on turn {e.turn}, landed on {turns}")
    return fails
