"""Scene-file records of a Brigandine battle (``shared/rules/003``): the ``[brigandine]`` table
and the ``brig_*`` actions.

Kept apart from :mod:`sandbox.engine.scene`, which imports :class:`BrigandineSection` into
``SceneSpec.brigandine`` and these actions into its ``Action`` union. A scene playing Brigandine
writes ``game = "brigandine"``. Lengths are inches.

The round on the engine's turn machine: engine turn ``t`` is round ``(t - 1) // 8 + 1``, phase
``(t - 1) % 8 + 1`` (:func:`round_phase`); in each phase every player has a part (hotseat, in the
scene's player order) in which he gives that phase's orders; ``end_turn`` passes the screen to
the next player, and when the last player ends it the phase is resolved, in initiative order
(ties together), and the next phase begins. Orders stay hidden until their phase resolves
(declarations and joust choices until the end of phase 2).

``[brigandine]``
    ``tables`` (a folder of the group's own table files, relative to the scene; missing files
    fall back to the default set), ``keep_initiative`` (roll IQ once for the battle).
``[[brigandine.units]]``
    ``id`` (a scene unit), ``strength`` ("attk 2HF, def 1LC"), ``atk``, ``aim``, ``iq``,
    ``def_die`` (die sizes), ``morale``, ``move`` (inches), ``weapon`` (a weapon type of the
    man-to-man table), ``side_arm`` (another, drawn in phase 3), ``missile`` (bow, longbow,
    crossbow, arquebus, sling, javelin),
    ``artillery`` (a weapon of the artillery table the unit crews; an arquebus is its own),
    ``firing``, ``armor``, ``fc_class``, ``legendary``, ``magic_weapon``.
``[brigandine.expect]``
    ``defeated``, ``standing``, ``fled``, ``unhorsed`` (unit ids), ``joust_points``
    ({id = points}): what the System's ``check`` compares at the end.

Actions (each with ``player`` and ``turn``): ``brig_delay`` (phase 1), ``brig_declare``
(phase 2: ``unit``, ``does`` = any of move, charge, shoot, melee, artillery, reload, joust;
``target`` for artillery), ``brig_joust`` (phase 2: ``unit``, ``opponent``, secret ``aim`` and
``stance``), ``brig_move`` (phases 3 and 7: ``unit``, ``to``, at most half movement),
``brig_charge`` (phase 3: ``unit`` charges straight ``toward`` a point, up to full movement),
``brig_draw`` (phase 3: the side arm becomes the equipped weapon), ``brig_reload``
(artillery in phase 3, crossbows in phase 7), ``brig_shoot`` (phases 4 and 8:
``units`` fire at ``target``), ``brig_melee`` (phase 5: ``unit`` attacks ``target`` in
``system`` skirmish, man_to_man or fantasy; ``parry``; ``cornered``), ``brig_defend`` (phase 5:
Defensive Action instead of attacking).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ...core.errors import RulesError
from ...engine.actions import Action
from ...engine.scene_types import Vec2

_ID = r"^[A-Za-z0-9_.\-]+$"
PHASES_PER_ROUND = 8
Doing = Literal["move", "charge", "shoot", "melee", "artillery", "reload", "joust"]


def round_phase(turn: int) -> tuple[int, int]:
    """(round, phase) of engine turn ``turn`` (1-based both)."""
    return (turn - 1) // PHASES_PER_ROUND + 1, (turn - 1) % PHASES_PER_ROUND + 1


def turn_of(round_no: int, phase: int) -> int:
    """The engine turn of ``phase`` (1..8) of round ``round_no``."""
    return (round_no - 1) * PHASES_PER_ROUND + phase


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BrigUnitEntry(_Strict):
    """A scene unit's Brigandine stats."""

    id: str = Field(min_length=1, pattern=_ID)
    strength: str = Field("attk 1MF, def 1MF", description="'attk 2HF, def 1LC'")
    atk: int = 6
    aim: int = 6
    iq: int = 6
    def_die: int = 6
    morale: int = Field(7, ge=2, le=13)
    move: float = Field(6.0, ge=0, le=100, description="full movement, inches")
    weapon: str | None = Field(None, description="a weapon type of the man-to-man table")
    side_arm: str | None = Field(None, description="a second weapon type, drawn in phase 3")
    missile: Literal["bow", "longbow", "crossbow", "arquebus", "sling", "javelin"] | None = None
    artillery: str | None = Field(None, description="an artillery table weapon it crews")
    firing: int = Field(1, ge=1, le=10)
    armor: str | None = None
    fc_class: str | None = None
    legendary: bool = False
    magic_weapon: bool = False

    @field_validator("strength")
    @classmethod
    def _strength(cls, v):
        from ...rules.brigandine import parse_strength

        try:
            parse_strength(v)
        except RulesError as exc:
            raise ValueError(str(exc)) from None
        return v

    @field_validator("atk", "aim", "iq", "def_die")
    @classmethod
    def _die(cls, v):
        if v not in (4, 6, 8, 10, 12, 20):
            raise ValueError(f"must be a die of 4, 6, 8, 10, 12 or 20 sides, got {v}")
        return v


class BrigExpect(_Strict):
    defeated: list[str] = []
    standing: list[str] = []
    fled: list[str] = []
    unhorsed: list[str] = []
    joust_points: dict[str, int] = {}


class BrigandineSection(_Strict):
    """The ``[brigandine]`` table of a scene."""

    tables: str | None = Field(None, description="folder of the group's own table files")
    keep_initiative: bool = False
    surprise: list[str] = Field(default_factory=list, description="players whose surprise "
                                "succeeded: round 1 is a surprise round in which only they act "
                                "until the end of the melee phase (003, Surprise)")
    initiative_groups: list[list[str]] = Field(
        default_factory=list, description="players the referee combines: each group rolls "
        "one IQ die for initiative and acts together (003, Combat Phases)")
    initiative_split: dict[str, list[list[str]]] = Field(
        default_factory=dict, description="a player's units the referee splits into groups "
        "that each roll initiative: {player = [[unit ids], [unit ids]]}")
    units: list[BrigUnitEntry] = Field(min_length=1)
    expect: BrigExpect | None = None


# ------------------------------------------------------------------------------ actions
class BrigDelay(Action):
    """Phase 1: the player delays initiative, counting as 1."""

    type: Literal["brig_delay"]
    actor: ClassVar[str] = "player"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()


class BrigDeclare(Action):
    """Phase 2: what ``unit`` will do this round (binding; hidden until phase 2 ends)."""

    type: Literal["brig_declare"]
    cost: ClassVar[str] = "free"
    unit: str
    does: list[Doing] = Field(min_length=1)
    target: str | None = None


class BrigJoust(Action):
    """Phase 2: a jouster's secret aim and stance against ``opponent`` (revealed together)."""

    type: Literal["brig_joust"]
    cost: ClassVar[str] = "action"
    unit: str
    opponent: str
    aim: str
    stance: str


class BrigMove(Action):
    """Phases 3 and 7: ``unit`` moves to ``to`` (x, y inches), at most half movement."""

    type: Literal["brig_move"]
    cost: ClassVar[str] = "move"
    unit: str
    to: Vec2


class BrigCharge(Action):
    """Phase 3: ``unit`` charges in a straight line toward ``toward``, up to full movement."""

    type: Literal["brig_charge"]
    cost: ClassVar[str] = "move"
    unit: str
    toward: Vec2


class BrigDraw(Action):
    """Phase 3: ``unit`` draws its side arm, which becomes its equipped weapon (003)."""

    type: Literal["brig_draw"]
    cost: ClassVar[str] = "action"
    unit: str


class BrigReload(Action):
    """Artillery reloads in phase 3, a crossbow in phase 7."""

    type: Literal["brig_reload"]
    cost: ClassVar[str] = "action"
    unit: str


class BrigShoot(Action):
    """Phases 4 and 8: the archers ``units`` fire at ``target`` (in units of at most 4)."""

    type: Literal["brig_shoot"]
    cost: ClassVar[str] = "action"
    acting: ClassVar[tuple[str, ...]] = ("units",)
    units: list[str] = Field(min_length=1)
    target: str


class BrigMelee(Action):
    """Phase 5: ``unit`` attacks ``target`` with a combat ``system``."""

    type: Literal["brig_melee"]
    cost: ClassVar[str] = "action"
    unit: str
    target: str
    system: Literal["skirmish", "man_to_man", "fantasy"] = "skirmish"
    parry: bool = True
    cornered: bool = False
    attacks: int | None = Field(None, ge=1, le=20, description="Man-to-Man: how many of the "
                                "unit's #attk attacks go to this foe (None: all it has left)")


class BrigDefend(Action):
    """Phase 5: ``unit`` forgoes its attack for Defensive Action (Skirmish)."""

    type: Literal["brig_defend"]
    cost: ClassVar[str] = "action"
    unit: str


BRIG_ACTIONS = (BrigDelay, BrigDeclare, BrigJoust, BrigMove, BrigCharge, BrigDraw, BrigReload,
                BrigShoot, BrigMelee, BrigDefend)
