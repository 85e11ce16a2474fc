"""Scene actions and expectations of Power and Manning Guns (BrikWars 8.1, 8.5).

Actions (played by :class:`.manning.Manning`; they are also the window's keys):

- ``divert_power``: a Creation spends the turn Diverting All Power (a Full Round Action).
- ``set_up_turret``: a minifig spends his Action to Set Up a portable Turret.
- ``gunnery_support``: a Gunner spends his Action on Gunnery Support of a mounted weapon.
- ``interfere``: a unit at one set of Controls spends his Action to Interfere with whoever
  next fires the weapon from another set.

``[expect.manning]`` lets a scene check what happened (see :class:`ManningExpect`).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...engine.actions import Action


class DivertPowerAction(Action):
    """Creation ``unit`` Diverts All Power this turn (8.1 Gathering Power): no move, no weapon,
    no other Action; on its next turn the saved Power may help one weapon activation."""

    type: Literal["divert_power"]
    cost: ClassVar[str] = "action"
    unit: str


class SetUpTurretAction(Action):
    """Minifig ``unit`` spends his Action to Set Up the portable Turret ``turret`` (8.1
    Turrets); it fires from the following turn. A knocked-over Turret is stood up again."""

    type: Literal["set_up_turret"]
    cost: ClassVar[str] = "action"
    unit: str
    turret: str


class GunnerySupportAction(Action):
    """Gunner ``unit`` spends his Action supporting weapon number ``weapon`` (0-based) of body
    ``mount`` (8.5 Gunnery Support: +1 Action to its next attack, kept while nothing moves)."""

    type: Literal["gunnery_support"]
    cost: ClassVar[str] = "action"
    unit: str
    mount: str
    weapon: int = Field(0, ge=0, le=99)


class InterfereAction(Action):
    """``unit``, at a set of Controls of weapon ``weapon`` of body ``mount``, spends his Action
    to Interfere (8.5 Controls): the next attack with it from another set of Controls, before
    his next turn, takes his Action roll as a penalty."""

    type: Literal["interfere"]
    cost: ClassVar[str] = "action"
    unit: str
    mount: str
    weapon: int = Field(0, ge=0, le=99)


class ManningExpect(BaseModel):
    """``[expect.manning]``: what a scene checks about Power and manned weapons."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_events: dict[str, int] = Field(default_factory=dict,
                                       description="event type -> at least this many")
    inoperative: list[str] = Field(default_factory=list, description="'body#weapon' jammed")
    operative: list[str] = Field(default_factory=list,
                                 description="'body#weapon' not Inoperative at the end")
    set_up: list[str] = Field(default_factory=list, description="Turrets Set Up at the end")
    min_homing_in: dict[str, int] = Field(default_factory=dict,
                                          description="'body#weapon' -> highest Homing In bonus")
