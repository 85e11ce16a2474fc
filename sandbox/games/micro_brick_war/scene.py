"""Scene-file records of Micro Brick War (rule text ``shared/rules/004``): the
``[micro_brick_war]`` table and the game's actions.

Kept apart from :mod:`sandbox.games.micro_brick_war.system` (the system) because
:mod:`sandbox.engine.scene` imports the actions before it builds the action union. Squares are
written like chess squares (``"a1"`` the lower left, columns a.., rows 1..).

``[micro_brick_war]``
    ``width``, ``height`` (squares, 4..16, default 8), ``capitals`` (``{ player, square }``
    each; default: opposite corners, one square in), ``blocks`` (squares), ``goblet`` (a
    square; default: the chooser places it with ``mbw_place_goblet``), ``turn_limit``
    (default 30), ``square_studs`` (studs a square is wide on the table, default 4),
    ``units`` (a starting army: ``{ player, kind, square }``), ``ai`` (players the computer
    plays in the window, also ``sandbox play --ai``).
``[micro_brick_war.expect]``
    ``winner`` (a player, or ``"draw"``), ``eliminated`` (players conquered), ``units``
    (unit ids on the board at the end), ``gone`` (unit ids removed), ``cities`` (squares
    that are Cities at the end), ``goblet_holder``.

Actions (``[[actions]]``, each with ``player`` and ``turn``)
    ``mbw_farm`` (``city``, ``square``), ``mbw_build`` (``city``, ``kind``, optional
    ``farms``), ``mbw_move`` (``unit``, ``to``), ``mbw_attack`` (``unit``, ``target``),
    ``mbw_found_city`` (``unit``), ``mbw_drop_goblet`` (``unit``), ``mbw_place_goblet``
    (``square``). Unit ids are ``<player>-<kind>-<n>``: ``Red-cavalry-1`` is Red's first
    Cavalry (in build order).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ...engine.actions import Action

_SQ = r"^[A-Za-z][0-9]{1,2}$"
Sq = str
UnitKind = Literal["infantry", "cavalry", "catapult", "caravan"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CapitalEntry(_Strict):
    """A player's Capital: ``player`` and ``square``."""

    player: str = Field(min_length=1)
    square: Sq = Field(pattern=_SQ)


class StartUnit(_Strict):
    """A unit on the board at the start: ``player``, ``kind``, ``square``."""

    player: str = Field(min_length=1)
    kind: UnitKind
    square: Sq = Field(pattern=_SQ)


class MicroBrickWarExpect(_Strict):
    """What a CI scene checks at the end (:meth:`MicroBrickWar.check`)."""

    winner: str | None = Field(None, description="a player, or 'draw'")
    eliminated: list[str] = Field(default_factory=list)
    units: list[str] = Field(default_factory=list, description="unit ids on the board")
    gone: list[str] = Field(default_factory=list, description="unit ids removed")
    cities: list[Sq] = Field(default_factory=list, description="squares that are Cities")
    goblet_holder: str | None = None


#: The plate a square of each width (studs) is drawn with, in rows of two studs.
SQUARE_PLATES: dict[int, str] = {4: "3020", 6: "3795", 8: "3034"}


class MicroBrickWarSection(_Strict):
    """The ``[micro_brick_war]`` table of a scene."""

    width: int = Field(8, ge=4, le=16, description="squares along X")
    height: int = Field(8, ge=4, le=16, description="squares along Y")
    capitals: list[CapitalEntry] = Field(default_factory=list)
    blocks: list[Sq] = Field(default_factory=list)
    goblet: Sq | None = Field(None, pattern=_SQ)
    turn_limit: int = Field(30, ge=1, le=100)
    square_studs: int = Field(4, ge=4, le=8, description="studs across one square: 4, 6 or 8")
    units: list[StartUnit] = Field(default_factory=list)
    ai: list[str] = Field(default_factory=list, description="players the computer plays")
    expect: MicroBrickWarExpect | None = None

    @field_validator("square_studs")
    @classmethod
    def _square_drawn(cls, v: int) -> int:
        if v not in SQUARE_PLATES:
            raise ValueError(f"must be one of {sorted(SQUARE_PLATES)} (a square is drawn with "
                             f"2-stud-wide plates), got {v}")
        return v


class MbwFarm(Action):
    """The City or Capital on ``city`` puts a farm on the neighbouring ``square``."""

    type: Literal["mbw_farm"]
    actor: ClassVar[str] = "player"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()
    city: Sq = Field(pattern=_SQ)
    square: Sq = Field(pattern=_SQ)


class MbwBuild(Action):
    """The City on ``city`` builds a ``kind``, paying with ``farms`` around it (default: the
    rules choose, enemies' farms first)."""

    type: Literal["mbw_build"]
    actor: ClassVar[str] = "player"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()
    city: Sq = Field(pattern=_SQ)
    kind: UnitKind
    farms: list[Sq] | None = None


class MbwMove(Action):
    """``unit`` moves to the square ``to`` within its Speed left."""

    type: Literal["mbw_move"]
    cost: ClassVar[str] = "move"
    unit: str = Field(min_length=1)
    to: Sq = Field(pattern=_SQ)


class MbwAttack(Action):
    """``unit`` attacks what stands on ``target`` (d6 + Attack vs d6 + Defend + City)."""

    type: Literal["mbw_attack"]
    cost: ClassVar[str] = "action"
    unit: str = Field(min_length=1)
    target: Sq = Field(pattern=_SQ)


class MbwFoundCity(Action):
    """The Caravan ``unit`` becomes a City on its square."""

    type: Literal["mbw_found_city"]
    cost: ClassVar[str] = "action"
    unit: str = Field(min_length=1)


class MbwDropGoblet(Action):
    """``unit`` drops the Golden Goblet on its square."""

    type: Literal["mbw_drop_goblet"]
    cost: ClassVar[str] = "free"
    unit: str = Field(min_length=1)


class MbwPlaceGoblet(Action):
    """The chooser puts the Golden Goblet on ``square``."""

    type: Literal["mbw_place_goblet"]
    actor: ClassVar[str] = "player"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()
    square: Sq = Field(pattern=_SQ)


MBW_ACTIONS = (MbwFarm, MbwBuild, MbwMove, MbwAttack, MbwFoundCity, MbwDropGoblet,
               MbwPlaceGoblet)
