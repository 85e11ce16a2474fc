"""The one action model: every action type is defined once and registered here.

Scene files (``[[actions]]``), the tabletop window, save files, replays, the network and batch
runs all accept the same union (:func:`action_union`), parsed by :func:`parse_action`.
An action is a frozen pydantic record; it says why it would be refused before anything changes
(:meth:`Action.refusal`) and applies itself through the engine (:meth:`Action.apply`), which
hands it to the system that registered its ``type`` (see :class:`sandbox.engine.table.System`).

To add an action type: subclass :class:`Action` with ``type: Literal["name"]`` beside the
system that plays it, and give that system a method decorated ``@handles(TheAction)`` (and
``@refuses(TheAction)`` for its refusal; :mod:`sandbox.engine.table`). The scene schema's union
is built from this registry once every game kind is imported
(:func:`sandbox.engine.scene.scene_model`), so scene files name it at once.

Who may do what
---------------
Every action type says, as class data, who issues it (:attr:`Action.actor`) and what it costs
(:attr:`Action.cost`):

- ``"unit"``: a unit of the acting player acts (its Action, or inches of its Move); the units
  named in :attr:`Action.acting` must be the player's own (a unit acts for its owner only).
- ``"player"``: the player as a whole (end the turn, a Strategic Bombardment paid in Strategy
  bricks, the dice tray).
- ``"referee"``: a referee's tool (a free missile strike, setting a body alight, a scripted
  FlameThrower with no weapon of the unit's, a Field Hazard put out by hand). Players are
  refused with a one-line reason; the referee issues it (:attr:`Action.by` ``"referee"``):
  a scene script, a table opened with the referee option, the referee's seat online.

An action's ``by`` records who issued it, so saves, replays and undo play it again as it was:
``"player"`` (the acting player, checked as above), ``"referee"`` (no seat check; a player's
limits such as a unit's Move do not bind the referee), or none (a log written before seats
were recorded: played as the referee's, as the engine of then accepted it).
"""

from __future__ import annotations

import difflib
import math
import typing
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Mapping, Union

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..core.errors import SceneError
from .scene_types import Vec2

if TYPE_CHECKING:  # pragma: no cover
    from .table import Table

#: The last turn a game may reach (engine turns: a Brigandine round is 8 of them, so round 125
#: is the last). Every action's ``turn`` and a scene's ``turns`` are at most this; a game that
#: reaches it ends with a truncated Outcome.
MAX_TURN: int = 1000
#: Who issues an action type (see "Who may do what" above).
ACTORS = ("unit", "player", "referee")
#: Who issued one action: the acting player, or the referee.
Issuer = Literal["player", "referee"]

#: Every registered action class by its ``type`` name.
REGISTRY: dict[str, type["Action"]] = {}

#: Action types of earlier files that are no longer played, with what to write instead.
RETIRED: dict[str, str] = {
    "big_drop": ("the 'big_drop' action is gone: The Big Drop is a Strategic Bombardment "
                 "(13.2), so write type = \"bombard\" with big_drop = true, marked_by (an "
                 "allied Scout) or drop_zone, and the Payload (explosive_dice, units, "
                 "supplies); it arrives at the beginning of the player's next turn"),
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Action(_Strict):
    """Base of every action (a frozen pydantic model).

    Attributes
    ----------
    type : str
        The registered name (a ``Literal`` in each subclass).
    player : str
        Who acts; it must be that player's turn.
    turn : int
        The turn it happens on (a scene script's schedule; at the table the engine stamps the
        current turn before logging it).
    by : "player", "referee" or None
        Who issued it (stamped by the engine when it is applied; see the module notes).
    """

    type: str
    player: str
    turn: int = Field(1, ge=1, le=MAX_TURN, description="turn on which it happens")
    by: Issuer | None = Field(None, description="who issued it: the acting player, or the "
                              "referee (a scene script, a referee's table or seat)")

    #: Who issues it: "unit" (a unit of the acting player), "player", or "referee".
    actor: ClassVar[str] = "unit"
    #: What it costs, in words: "action" (the unit's one Action), "move" (inches of its Move),
    #: "strategy" (Strategy bricks), "power" (a creation's Power), "free".
    cost: ClassVar[str] = "action"
    #: Fields naming the units that act (a body key or a list of them): each must belong to
    #: the acting player.
    acting: ClassVar[tuple[str, ...]] = ("unit",)
    #: Why a referee's tool is one (the refusal a player reads).
    referee_note: ClassVar[str] = ""

    #: True for actions that change nothing on the table (only read it): never undone alone.
    passive: ClassVar[bool] = False
    #: True for deployment actions (13.2 Tactical Advantage swaps): made before the battle's
    #: first other action by the player the rule names, whoever's turn it is; a script plays
    #: them first. Their system's refusal says when they are no longer allowed.
    deployment: ClassVar[bool] = False

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        ann = cls.model_fields["type"].annotation
        if typing.get_origin(ann) is Literal:
            for name in typing.get_args(ann):
                if name in REGISTRY and REGISTRY[name].__qualname__ != cls.__qualname__:
                    raise TypeError(f"action type {name!r} is defined twice: "
                                    f"{REGISTRY[name].__qualname__} and {cls.__qualname__}")
                REGISTRY[name] = cls

    def acting_units(self) -> list[str]:
        """Body keys of the units that act (from the fields :attr:`acting` names)."""
        out: list[str] = []
        for name in self.acting:
            v = getattr(self, name, None)
            if isinstance(v, str):
                out.append(v)
            elif isinstance(v, (list, tuple)):
                out.extend(k for k in v if isinstance(k, str))
        return out

    def describe(self, names: Mapping[str, str] | None = None) -> str:
        """This action in words (the log, undo, the network); ``names`` maps body keys to the
        names players see. Subclasses say more than ``"Player: its type"``."""
        return f"{self.player}: {self.type.replace('_', ' ')}"

    def scene_problem(self, spec: Any) -> str:
        """What is wrong with this action in scene ``spec`` that the scene file can be refused
        for before anything is built (``"field ... in words"``, "" when nothing)."""
        return ""

    def refusal(self, game: "Table") -> str:
        """Why ``game`` would refuse this action now, in words ("" when it is allowed).

        Nothing changes: no die is rolled, no body moves.
        """
        return game.refusal(self)

    def apply(self, game: "Table") -> list[dict]:
        """Apply through the engine (refused actions raise RulesError and change nothing);
        returns the events it logged."""
        return game.apply(self)


def name_of(names: Mapping[str, str] | None, key: str) -> str:
    """The name players see of body ``key`` (the key itself when ``names`` has none)."""
    return (names or {}).get(key, key)


# ------------------------------------------------------------------------------ core actions
class MoveAction(Action):
    """A unit moves so that its footprint centre ends at ``to`` (x, y inches): the one move.

    Every mover goes through :meth:`sandbox.engine.game.Game.move_unit`, so Difficult
    Terrain, Concealed Hazards, Traps and table edges see every move. ``unit`` may be written
    ``body`` (the scene files of format 1). ``clamp``: a move longer than what the unit may
    still move stops at that limit along the line to ``to`` (as a player sets a model down
    at the end of the tape), instead of being refused; scripts default to refusing.
    """

    type: Literal["move"]
    cost: ClassVar[str] = "move"  # a Sprint: its Action too
    unit: str = Field(validation_alias=AliasChoices("unit", "body"))
    to: Vec2
    sprint: bool = False
    clamp: bool = False

    def describe(self, names: Mapping[str, str] | None = None) -> str:
        return (f"{self.player} moves {name_of(names, self.unit)} to "
                f"({self.to[0]:.2f}, {self.to[1]:.2f})" + (" sprinting" if self.sprint else ""))


class AttackAction(Action):
    """``unit`` attacks ``target`` with its weapon number ``weapon`` (0-based, scene order).

    ``mode`` chooses how an automatic weapon fires (BrikWars 8.3): ``single`` (a Ranged
    attack; a MachineGun's default), ``burst`` (a MachineGun's ``shots`` at one target) or
    ``arc`` (Arc Fire over ``arc`` points centred on the target; FlameThrowers and BlastGuns
    always fire so). None: the weapon's default.
    """

    type: Literal["attack"]
    cost: ClassVar[str] = "action"  # a mounted weapon: Power (8.1)
    unit: str
    weapon: int = Field(0, ge=0, le=99)
    target: str
    mode: Literal["single", "burst", "arc"] | None = None
    shots: int | None = Field(None, ge=2, le=20, description="shots of a Burst")
    arc: int | None = Field(None, ge=1, le=8, description="points of Firing Arc")
    gunner: str | None = Field(None, description="the minifig at the Controls of a mounted "
                               "weapon (8.5; a Turret's weapon needs one): his Action is spent")
    part: Literal["unarmored", "joint"] | None = Field(
        None, description="the section aimed at (8.2 Armor Plating): an un-Armored section "
        "past partial Plating, or a hinge or joint (one d10 lower); none: any section")

    def acting_units(self) -> list[str]:
        """The gunner at the Controls acts (8.5: enemies who commandeer Controls use them);
        else the unit."""
        return [self.gunner] if self.gunner is not None else [self.unit]

    def describe(self, names: Mapping[str, str] | None = None) -> str:
        return (f"{self.player}: {name_of(names, self.unit)} attacks "
                f"{name_of(names, self.target)} with weapon {self.weapon + 1}")


class ReloadWeaponAction(Action):
    """``unit`` spends its Action to Reload its Inoperative weapon number ``weapon`` (8.3)."""

    type: Literal["reload_weapon"]
    cost: ClassVar[str] = "action"
    unit: str
    weapon: int = Field(0, ge=0, le=99)
    gunner: str | None = Field(None, description="the minifig who Reloads a Turret's weapon "
                               "(his Action is spent)")

    def acting_units(self) -> list[str]:
        return [self.gunner] if self.gunner is not None else [self.unit]


class EndTurnAction(Action):
    """The current player ends the turn (the turn machine moves on to the next player)."""

    type: Literal["end_turn"]
    actor: ClassVar[str] = "player"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()

    def describe(self, names: Mapping[str, str] | None = None) -> str:
        return f"{self.player} ends the turn"


def action_names(cls: type) -> tuple[str, ...]:
    """The ``type`` names an action class registers (none when its ``type`` is no Literal)."""
    fields = getattr(cls, "model_fields", {})
    ann = fields["type"].annotation if "type" in fields else None
    return typing.get_args(ann) if typing.get_origin(ann) is Literal else ()


def action_union() -> Any:
    """The discriminated union of every registered action class (for pydantic schemas)."""
    classes = tuple(dict.fromkeys(REGISTRY.values()))
    return Annotated[Union[classes], Field(discriminator="type")]


_ADAPTER: dict[tuple, TypeAdapter] = {}


def registry_key() -> tuple:
    """What the registry holds now (names and classes): a union built from it is stale once
    this changes."""
    return tuple((name, id(cls)) for name, cls in REGISTRY.items())


def type_refusal(data: dict) -> str:
    """Why ``data`` (an action's dict) names no registered action type, in one line ("" when
    it names one): ``no type``, a retired type's note, or ``unknown action type 'x'`` with the
    closest registered names (:mod:`difflib`), else a pointer to docs/SCENES.md."""
    t = data.get("type")
    if t is None:
        return "no type (every action names its type: see docs/SCENES.md)"
    if not isinstance(t, str):
        return f"type: expected the name of an action type, got {type(t).__name__}"
    if t in RETIRED:
        return RETIRED[t]
    if t in REGISTRY:
        return ""
    close = difflib.get_close_matches(t, list(REGISTRY), n=3)
    hint = ("did you mean " + " or ".join(map(repr, close)) + "?") if close \
        else "see docs/SCENES.md for the action types"
    shown = t if len(t) <= 40 else t[:37] + "..."
    return f"unknown action type {shown!r} ({hint})"


def parse_action(data: Any, where: str = "action") -> Action:
    """Validate one action (a dict, as a scene's ``[[actions]]`` entry, a save or a network
    message holds; an :class:`Action` passes through).

    Raises
    ------
    SceneError
        One line naming ``where``, the offending field and the problem.
    """
    if isinstance(data, Action):
        return data
    if not isinstance(data, dict):
        raise SceneError(f"{where}: an action must be a table of fields, got {type(data).__name__}")
    why = type_refusal(data)
    if why:
        raise SceneError(f"{where}: {why}")
    stack = list(data.items())  # NaN and infinities: refused in any field (a save, the network)
    while stack:
        name, v = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            raise SceneError(f"{where}: {name}: must be a finite number (got {v!r})")
        if isinstance(v, (list, tuple)) and len(stack) < 10_000:
            stack.extend((name, x) for x in v)
    key = registry_key()
    if key not in _ADAPTER:
        _ADAPTER.clear()
        _ADAPTER[key] = TypeAdapter(action_union())
    try:
        return _ADAPTER[key].validate_python(data)
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        shown = repr(data)
        if len(shown) > 120:
            shown = shown[:117] + "..."
        raise SceneError(f"{where}: invalid action {shown}: {loc}: {first['msg']}") from None


def action_dict(action: Action) -> dict:
    """The JSON form of an action (what scene files, saves and the network carry)."""
    return action.model_dump(mode="json", exclude_none=True)
