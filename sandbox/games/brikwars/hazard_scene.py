"""Scene-file tables for Fire and Field Hazards (BrikWars F.1-F.3, 8.3): ``[[fields]]``,
the ``ignite``, ``flamethrower``, ``cross``, ``extinguish``, ``sight`` and ``mark`` actions, and
``[expect.hazards]`` checks.

Kept apart from :mod:`sandbox.engine.scene` (which imports these models into its schema) so the
scene file's core stays small. Lengths are inches; every action may name the ``turn`` it is
played on (default: the turn in progress), so a scene can script several turns; Burning Rolls
happen at the start of each player's turn.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ...core.dice import DiceExpression, DiceSum
from ...core.errors import DiceError
from ...engine.actions import Action
from ...engine.scene_types import Vec2, Vec3  # noqa: E402
from ...rules.explosives import VARIANT_OF_KIND


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _dice(v: str | None) -> str | None:
    if v is None:
        return v
    try:
        DiceExpression.parse(v)
    except DiceError as exc:
        raise ValueError(str(exc)) from None
    return v


def explosive_sum(v: str) -> str:
    """Mixed Explosive dice such as ``"1d12 Phased + 1d10 Exp"`` (8.4 Explosive Variants
    combine); each term must be a variant's dice (Exp, Fire, Piercing, KnockBack, Phased).

    Raises
    ------
    ValueError
        Naming the terms that are not Explosive Variant dice.
    """
    try:
        expr = DiceSum.parse(v)
    except DiceError as exc:
        raise ValueError(str(exc)) from None
    bad = [str(t) for t in expr.terms if t.kind not in VARIANT_OF_KIND or not t.kind]
    if bad:
        raise ValueError(f"mixed dice must be Explosive Variant dice (Exp, Fire, Piercing, "
                         f"KnockBack, Phased), not {bad}")
    return v


def _dice_or_explosive_sum(v: str | None) -> str | None:
    if isinstance(v, str) and "+" in v and "d" in v.split("+", 1)[1]:
        return explosive_sum(v)
    return _dice(v)


class FieldEntry(_Strict):
    """A Field Hazard on the battlefield (BrikWars F.1): a vertical cylinder of ``radius``
    inches (default: half its Size) from the table up to ``height``."""

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    name: str | None = None
    hazard: Literal["smoke", "exposure", "difficult", "concealed", "water"] = Field(
        description="smoke, exposure (incl. permanent Fire), difficult, concealed, or water "
                    "(puts out what is fully submerged)")
    size: float = Field(gt=0, le=1000, description="Field Size in inches")
    dice: str | None = Field(None, description="Hazard dice, e.g. '2d10 Exp', '1d4 Fire', '1d6'; "
                                               "a minefield's may be mixed Explosive dice")
    terrain: Literal["slow", "thrust", "slippery", "spiked"] | None = None
    permanent_fire: Literal["regular", "fuel", "molten", "atomic"] | None = Field(
        None, description="a Permanent Fire Hazard (sets the dice: 1d4..4d4 Fire)")
    centre: Vec2 = (0.0, 0.0)
    radius: float | None = Field(None, gt=0, description="inches (default: size / 2)")
    height: float = Field(5.0, gt=0, description="inches (Smoke: 5\" by default)")
    thrust_direction: Vec2 = (1.0, 0.0)
    powered: bool = Field(False, description="activated and powered by a creation: its dice "
                          "activate once per turn, an inch of Power each (F.1)")
    powered_by: str | None = Field(None, description="body id of the creation whose Power it "
                                   "spends (its 'power' stat)")
    exceptional: bool = False
    owner: str | None = None
    hidden: bool = Field(False, description="hidden from the other side until a Scout sees it "
                         "(F.3 Tracking)")

    @field_validator("dice")
    @classmethod
    def _check_dice(cls, v):
        return _dice_or_explosive_sum(v)


class _Act(Action):
    id: str | None = None


class Ignite(_Act):
    """Fire Damage dice landing on an object (a torch, a burning arrow, a boiler explosion)."""

    type: Literal["ignite"]
    actor: ClassVar[str] = "referee"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()
    referee_note: ClassVar[str] = (
        "it sets Fire dice on any body, with no weapon or Action behind them (a unit's "
        "FlameThrower is an 'attack')")
    target: str
    dice: str = Field("1d4 Fire", description="Fire Damage dice rolled on stream 'fire'")
    point: Vec3 | None = Field(None, description="where it strikes (default: the top centre)")
    per_die_modifier: int = Field(0, le=0, description="Out of Range penalty per die")
    damage: bool = Field(True, description="also apply the roll as Damage")

    @field_validator("dice")
    @classmethod
    def _check_dice(cls, v):
        return _dice(v)


class FlameThrowerAttack(_Act):
    """A FlameThrower Arc Fire attack from a unit at a target (BrikWars 8.3)."""

    type: Literal["flamethrower"]
    actor: ClassVar[str] = "referee"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()
    referee_note: ClassVar[str] = (
        "it fires a FlameThrower of any Size from any body, whatever the body carries "
        "(a unit's own FlameThrower is an 'attack')")
    attacker: str
    target: str
    size: float = Field(1.0, ge=1, le=40, description="Weapon Size in inches")
    arc: int = Field(1, ge=1, le=8, description="points of Firing Arc (at least 1)")


class Cross(_Act):
    """A unit moves in a straight line to ``to`` through whatever Fields lie on its way."""

    type: Literal["cross"]
    cost: ClassVar[str] = "move"
    acting: ClassVar[tuple[str, ...]] = ("unit", "followers")
    unit: str
    to: Vec2
    careful: bool = Field(False, description="spends its Action moving carefully (Spiked)")
    followers: list[str] = Field(default_factory=list,
                                 description="units following a Scout in single file")


class Extinguish(_Act):
    """Firefighting: ``apparatus`` inches of buckets or Hose on a burning object (F.1)."""

    type: Literal["extinguish"]
    actor: ClassVar[str] = "referee"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()
    referee_note: ClassVar[str] = "it puts Fire out with buckets or a Hose no unit carries"
    target: str
    apparatus: float = Field(1.0, ge=0)


class StopDropRoll(_Act):
    """A burning minifig spends his Action to stop, drop and roll: the Fire is out and he is
    Disrupted (BrikWars 8.3)."""

    type: Literal["stop_drop_roll"]
    cost: ClassVar[str] = "action"
    unit: str


class Sight(_Act):
    """Check line of sight from one unit to another (Smoke and obstacles); logged."""

    type: Literal["sight"]
    actor: ClassVar[str] = "player"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()
    viewer: str
    target: str


class MarkTarget(_Act):
    """A Scout Marks a target he can see within 8" (F.3)."""

    type: Literal["mark"]
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ("scout",)
    scout: str
    target: str


HAZARD_ACTIONS = (Ignite, FlameThrowerAttack, Cross, Extinguish, Sight, MarkTarget,
                  StopDropRoll)


class HazardExpect(_Strict):
    """``[expect.hazards]``: what a CI scene checks about Fire and Field Hazards."""

    burning: list[str] = []
    not_burning: list[str] = []
    fire_size: dict[str, int] = Field(default_factory=dict)
    min_grinding_damage: dict[str, int] = Field(default_factory=dict)
    triggered: list[str] = Field(default_factory=list, description="units that set off a Hazard")
    safe: list[str] = Field(default_factory=list, description="units that crossed unharmed")
    stopped: list[str] = Field(default_factory=list, description="Scouts that stopped short")
    sight_blocked: list[str] = Field(default_factory=list, description="ids of sight actions")
    sight_clear: list[str] = Field(default_factory=list, description="ids of sight actions")
    min_spread: int = Field(0, ge=0, description="Fires started by spreading")
    sprung: list[str] = Field(default_factory=list, description="ids of Traps that went off")
    armed: list[str] = Field(default_factory=list, description="ids of Traps still armed")
    min_deflected: dict[str, int] = Field(default_factory=dict,
                                          description="Energy Shield dice spent, per body")
    revealed: list[str] = Field(default_factory=list, description="ids of hidden Fields and "
                                "Traps a Scout revealed (F.3 Tracking)")
    disrupted: list[str] = Field(default_factory=list, description="units that fell over in a "
                                 "Slippery Field (F.1)")

    @model_validator(mode="after")
    def _disjoint(self):
        both = set(self.burning) & set(self.not_burning)
        if both:
            raise ValueError(f"both burning and not burning: {sorted(both)}")
        return self
