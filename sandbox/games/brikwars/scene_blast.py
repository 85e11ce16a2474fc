"""Scene-file record of a scripted Explosive strike (BrikWars 8.4, Heavy Explosions).

Kept apart from :mod:`sandbox.engine.scene`, which imports it into its ``Action`` union. No
Launcher, no flight (those are :mod:`.scene_flight`): "a missile strikes point P".

``[[actions]]`` with ``type = "missile"``
    ``player``, ``point`` (x, y, z, inches: the blast centre), ``xsize`` (Explosive Size: its
    number of Damage dice), ``variant`` ("explosive", "incendiary", "armor_piercing",
    "concussion", "phased": every d10 swapped, an odd d10 left by Phased stays a d10) or
    ``variants`` (a list, one die of each named variant, e.g. ``["phased", "armor_piercing"]``:
    the d10s not swapped stay Explosive d10s; 8.4 "any combination"), optional ``hazard`` and
    ``hazard_dice`` (dice of the XSize replaced by a Field Hazard: Smoke, Exposure, Fire, ...),
    ``size`` (the missile's Size in inches, for
    the log), ``dud_on_critical_failure`` (the defender's option, 8.4 Critical Failures) and
    ``turn``.
"""

from __future__ import annotations

import typing
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ...core.errors import RulesError
from ...engine.actions import Action
from ...engine.scene_types import Vec3  # noqa: E402
from ...rules.explosives import explosive_dice

#: Names of the Explosive Variants of 8.4 (Alternate Damage Dice) in scene files.
VariantName = Literal["explosive", "incendiary", "armor_piercing", "concussion", "phased"]
VARIANT_NAMES: tuple[str, ...] = typing.get_args(VariantName)


def check_variants(dice: int, variant: str, variants: typing.Sequence[str]) -> None:
    """Raise ValueError (naming the field) when ``variant``/``variants`` do not fit ``dice``
    d10s of an Explosive (BrikWars 8.4: Phased costs two d10s a d12)."""
    try:
        explosive_dice(dice, variant, list(variants))
    except RulesError as exc:
        field = "variants" if variants else "variant"
        raise ValueError(f"{field}: {exc}") from None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MissileStrike(Action):
    """An Explosive that strikes ``point`` and goes off there (BrikWars 8.4)."""

    type: Literal["missile"]
    actor: ClassVar[str] = "referee"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()
    referee_note: ClassVar[str] = (
        "a free Explosive strike that no unit fires (a unit's Rocket is an 'attack', a "
        "Launcher's shot a 'launch', a Bombardment a 'bombard')")
    player: str
    point: Vec3 = Field(description="blast centre (x, y, z), inches")
    xsize: int = Field(ge=1, le=40, description="Explosive Size: number of Damage dice")
    variant: VariantName = "explosive"
    variants: list[VariantName] = Field(
        default_factory=list, max_length=40,
        description="Explosive Variants combined, one die each (8.4); the d10s left stay Exp")
    hazard: str | None = Field(None, description="Field Hazard replacing some dice (Smoke, ...)")
    hazard_dice: int = Field(0, ge=0, le=40)
    size: float | None = Field(None, gt=0, le=1000, description="the missile's Size in inches")
    name: str | None = None
    dud_on_critical_failure: bool = True

    @model_validator(mode="after")
    def _hazard(self):
        if (self.hazard is None) != (self.hazard_dice == 0):
            raise ValueError("give both 'hazard' and 'hazard_dice' >= 1, or neither")
        if self.hazard_dice > self.xsize:
            raise ValueError(f"hazard_dice {self.hazard_dice} exceeds xsize {self.xsize}")
        if self.xsize > self.hazard_dice:
            check_variants(self.xsize - self.hazard_dice, self.variant, self.variants)
        return self
