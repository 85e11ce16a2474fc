"""Scene-file tables for Traps (BrikWars F.2 Traps, Triggers, Weapon Traps): ``[[traps]]`` and
the ``interact`` action.

A Trap has a trigger and an effect:

- ``trigger = "contact"``: any physical contact with the ``object`` (a loose doorknob wired with
  a mercury switch) — an impact that physics reports in a step, by anything but the table;
- ``trigger = "interaction"``: a unit must ``interact`` with the ``object`` in one specific way
  (``interaction = "pull"``: the right lever, the keypad code);
- ``trigger = "region"``: a pressure plate or tripwire: a vertical cylinder (``centre``,
  ``radius``, ``height``) that goes off when a body moves into it (an overlap query during
  physics steps) or a unit's move path crosses it.

The effect is ``effect = "hazard"`` with Hazard ``dice`` (``"2d6"``, ``"1d4 Fire"``,
``"2d10 Exp"``, mixed Explosive dice ``"1d12 Phased + 1d10 Exp"``) on whoever set it off (an
Explosion at the trigger point for ``Exp`` or mixed Explosive dice, 8.4), or
``effect = "weapon"``: a Weapon Trap of ``weapon`` and ``size`` mounted at ``position`` that
attacks with its own ``action_die`` (an inanimate object's d4 by default; a smart weapon's
larger die) at the spot where it was triggered. Weapon Traps are single use unless
``single_use = false``. Lengths are inches.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ...engine.actions import Action
from ...engine.scene_types import Vec2, Vec3
from .hazard_scene import _dice_or_explosive_sum


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TrapEntry(_Strict):
    """A Trap on the battlefield (BrikWars F.2)."""

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    name: str | None = None
    trigger: Literal["contact", "interaction", "region"]
    object: str | None = Field(None, description="body id of the trigger (contact, interaction)")
    interaction: str | None = Field(None, description="the specific interaction, e.g. 'pull'")
    centre: Vec2 | None = Field(None, description="(x, y) of a region trigger, inches")
    radius: float = Field(0.5, gt=0, le=100, description="region radius, inches")
    height: float = Field(1.0, gt=0, le=100, description="region height, inches")
    effect: Literal["hazard", "weapon"]
    dice: str | None = Field(None, description="Hazard dice of a hazard effect")
    weapon: str | None = Field(None, description="8.1 weapon type of a Weapon Trap, e.g. 'Bow'")
    size: float = Field(1.0, ge=0.5, le=20, description="Weapon Size, inches")
    position: Vec3 | None = Field(None, description="where the weapon sits, inches")
    action_die: int = Field(4, description="the Trap's Action die (F.2: d4 unless smart)")
    single_use: bool | None = Field(None, description="default: true for Weapon Traps")
    owner: str | None = None
    hidden: bool = Field(False, description="hidden from the other side until a Scout sees it "
                         "(F.3 Tracking)")

    @field_validator("dice")
    @classmethod
    def _check_dice(cls, v):
        return _dice_or_explosive_sum(v)

    @field_validator("action_die")
    @classmethod
    def _die(cls, v):
        if v not in (4, 6, 8, 10, 12, 20):
            raise ValueError(f"action_die must be one of d4, d6, d8, d10, d12, d20, got d{v}")
        return v

    @model_validator(mode="after")
    def _complete(self):
        if self.trigger in ("contact", "interaction") and not self.object:
            raise ValueError(f"a {self.trigger} trigger needs 'object' (a body id)")
        if self.trigger == "interaction" and not self.interaction:
            raise ValueError("an interaction trigger needs 'interaction', e.g. 'pull'")
        if self.trigger == "region" and self.centre is None:
            raise ValueError("a region trigger needs 'centre' = [x, y]")
        if self.effect == "hazard" and not self.dice:
            raise ValueError("a hazard effect needs 'dice', e.g. '2d6' or '2d10 Exp'")
        if self.effect == "weapon":
            if not self.weapon or self.position is None:
                raise ValueError("a weapon effect needs 'weapon' and 'position'")
            from ...rules.weapons import weapon_profile

            weapon_profile(self.weapon, self.size)  # unknown types are refused here
        return self


class Interact(Action):
    """A unit interacts with an object in one way (pulls a lever, types a code; F.2)."""

    type: Literal["interact"]
    cost: ClassVar[str] = "free"
    id: str | None = None
    unit: str
    object: str
    interaction: str = Field("touch", min_length=1)
