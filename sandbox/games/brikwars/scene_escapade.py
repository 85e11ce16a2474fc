"""Scene-file records of an Escapade (BrikWars ch. 13): the ``[escapade]`` table and its actions.

Kept apart from :mod:`sandbox.engine.scene`, which imports :class:`EscapadeSection` into
``SceneSpec.escapade`` and the actions into its ``Action`` union. Lengths are inches; the table
is the scene's ``[battlefield]`` (centred on the origin, north is +Y, east +X).

``[escapade]``
    ``kind`` ("standard", "final_battle", "last_stand"), ``attackers_edge`` ("north", "south",
    "east", "west"), optional ``defenders_edge`` (default: picked "as nearly opposite as makes
    sense", 13.1, when the Escapade has a Host), ``strongholds`` (each a ``rect = [x0, y0, x1,
    y1]`` or ``points = [[x, y], ...]``), ``garrison_defense_cap`` (Unit Inches),
    ``turn_order`` (force names as agreed, before underdogs move first), ``loot`` (ids of bodies
    that are Loot), ``strict`` (refuse broken deployment limits, default true).
``[[escapade.forces]]``
    ``name``, ``player`` (a scene player), ``role`` ("escapading_hero", "allied_attacker",
    "host_hero", "garrison", "allied_defender", "meddler"), ``irresponsibility`` (a Hero's
    level; none for a Garrison), ``army_available_inches``, ``ambush`` (set up anywhere, if
    Tactical Advantage allows it), ``units`` (each ``{ id, hero, commander, scout, reserve,
    size_damage, deploy_sprint }``: ``id`` names a scene unit, or one in ``[[reserves]]`` for a
    reserve unit; Size, Move and Action die come from its stats) and ``new_units`` (ids in
    ``[[reserves]]`` a Commander may buy as Reinforcements for one Strategy brick per Unit Inch).
``[escapade.expect]``
    Checks of a CI scene: ``outcome``, ``victors``, ``bennies`` (at the start), ``strategy_bricks``
    (at the end), ``exits`` (``{ object, kind, owner }``), ``destroyed`` (units).

Actions (``[[actions]]``, each with ``player`` and ``turn``)
    ``walk`` (a unit moves to ``to``; a point beyond a table edge walks it off the table;
    ``carrying`` takes an item within 1" along), ``attack`` (``unit`` fires weapon number
    ``weapon``, 0-based, at ``target``), ``relay`` (a ``commander`` relays one witnessed kill),
    ``reinforce`` (a ``commander`` calls ``units``: reserve units free, new units for Strategy
    bricks), ``declare`` (``force`` declares ``what`` = "losing_battle", "concede" or "betray"
    with ``role``), ``swap`` (Tactical Advantage, 13.2: the ``player`` of a failed force's
    highest-rolling enemy swaps two of its ``units``; played before the battle's first action),
    ``ambush`` (Tactical Advantage, 13.2: an ambushing force's ``player`` places its ``unit``
    at ``to`` anywhere outside enemy formations and Strongholds, also before the first action).
``rush`` (in ``[escapade]``)
    Forces whose Heroes make a Deployment Rush (13.2): turn 1 is the rush turn, in which only
    their players play and only their units move and act; the regular turns follow.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ...engine.actions import Action, AttackAction

Vec2 = tuple[float, float]
_ID = r"^[A-Za-z0-9_.\-]+$"
EdgeName = Literal["north", "south", "east", "west"]
RoleName = Literal["escapading_hero", "allied_attacker", "host_hero", "garrison",
                   "allied_defender", "meddler"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StrongholdEntry(_Strict):
    """A Stronghold area (13.1): an axis-aligned ``rect`` or a polygon of ``points`` (inches)."""

    name: str = "Stronghold"
    rect: tuple[float, float, float, float] | None = Field(
        None, description="two opposite corners x0, y0, x1, y1, inches")
    points: list[Vec2] | None = Field(None, description="polygon vertices, inches")

    @model_validator(mode="after")
    def _one(self):
        if (self.rect is None) == (self.points is None):
            raise ValueError("give exactly one of 'rect' or 'points'")
        if self.rect is not None and (self.rect[0] == self.rect[2] or self.rect[1] == self.rect[3]):
            raise ValueError(f"rect {list(self.rect)} has no area")
        if self.points is not None and len(self.points) < 3:
            raise ValueError(f"a polygon needs at least 3 points, got {len(self.points)}")
        return self


class ForceUnitEntry(_Strict):
    """One unit of a force: a scene unit (or reserve) by id, with its Escapade roles (13.1,
    13.2)."""

    id: str = Field(min_length=1, pattern=_ID)
    hero: bool = False
    commander: bool = Field(False, description="a Commander (Command Specialist), 13.2")
    scout: bool | None = Field(None, description="a Scout (default: the unit's stats.scout)")
    reserve: bool | None = Field(
        None, description="held in reserve (default: true for a unit in [[reserves]])")
    size_damage: float = Field(0.0, ge=0, description="unrepaired Size Damage, inches")
    deploy_sprint: bool = Field(
        False, description="may roll a Sprint to deploy beyond one Move of the edge (13.2)")


class EscapadeForceEntry(_Strict):
    """One force brought to the Escapade (13.1)."""

    name: str = Field(min_length=1)
    player: str
    role: RoleName
    irresponsibility: int | None = Field(None, ge=0, le=100)
    army_available_inches: float | None = Field(None, ge=0)
    ambush: bool = Field(False, description="sets up anywhere if Tactical Advantage allows (13.2)")
    units: list[ForceUnitEntry] = Field(min_length=1)
    new_units: list[str] = Field(
        default_factory=list, description="ids in [[reserves]] to buy as Reinforcements")


class ExitExpect(_Strict):
    """Expectation: ``object`` left the table with this ``kind`` and ``owner`` (13.1)."""

    object: str
    kind: Literal["claimed", "unclaimed", "withdrawn", "lost"]
    owner: str | None = None


class EscapadeExpect(_Strict):
    """What a CI Escapade must end with (checked against the ledger and its log)."""

    outcome: Literal["host_holds", "escapading_hero", "snatched", "no_clear_victor"] | None = None
    victors: list[str] | None = None
    bennies: dict[str, int] = Field(default_factory=dict,
                                    description="underdog Bennies at the start")
    strategy_bricks: dict[str, int] = Field(default_factory=dict, description="piles at the end")
    exits: list[ExitExpect] = Field(default_factory=list)
    destroyed: list[str] = Field(default_factory=list,
                                 description="units the ledger marks destroyed")


class EscapadeSection(_Strict):
    """The ``[escapade]`` table of a scene (BrikWars ch. 13)."""

    kind: Literal["standard", "final_battle", "last_stand"] = "standard"
    attackers_edge: EdgeName
    defenders_edge: EdgeName | None = None
    strongholds: list[StrongholdEntry] = Field(default_factory=list)
    garrison_defense_cap: float | None = Field(None, ge=0)
    turn_order: list[str] = Field(default_factory=list)
    loot: list[str] = Field(default_factory=list, description="ids of bodies that are Loot")
    strict: bool = True
    forces: list[EscapadeForceEntry] = Field(min_length=1)
    rush: list[str] = Field(
        default_factory=list,
        description="Heroes' forces making a Deployment Rush (13.2): turn 1 is then the rush "
                    "turn, played by them alone; regular turns follow")
    expect: EscapadeExpect | None = None

    @model_validator(mode="after")
    def _names(self):
        names = [f.name for f in self.forces]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"duplicate force names: {dup}")
        ids = [u.id for f in self.forces for u in f.units] + [i for f in self.forces
                                                               for i in f.new_units]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"units listed in more than one force: {dup}")
        if self.turn_order and sorted(self.turn_order) != sorted(names):
            raise ValueError(f"turn_order {self.turn_order} must list every force once: {names}")
        unknown = [n for n in self.rush if n not in names]
        if unknown:
            raise ValueError(f"rush: {unknown} are not forces of the Escapade ({names})")
        if self.defenders_edge is not None and self.defenders_edge == self.attackers_edge:
            raise ValueError(f"attackers and defenders cannot share the {self.attackers_edge} edge")
        return self


# ------------------------------------------------------------------------------ actions
class WalkAction(Action):
    """A unit moves to ``to`` (x, y inches) within its Move; beyond a table edge it walks off."""

    type: Literal["walk"]
    cost: ClassVar[str] = "move"
    unit: str
    to: Vec2
    sprint: bool = False
    carrying: str | None = Field(None, description="an item within 1\" carried along (Loot)")


#: The scripted attack is the table's attack: one action type, ``attack``.
AttackScript = AttackAction


class RelayAction(Action):
    """A Commander spends his Action relaying one witnessed kill: +1 Strategy brick (13.2)."""

    type: Literal["relay"]
    cost: ClassVar[str] = "action"
    acting: ClassVar[tuple[str, ...]] = ("commander",)
    commander: str


class ReinforceAction(Action):
    """A Commander calls Reinforcements; they arrive at the end of the turn (13.2)."""

    type: Literal["reinforce"]
    cost: ClassVar[str] = "action"
    acting: ClassVar[tuple[str, ...]] = ("commander",)
    commander: str
    units: list[str] = Field(min_length=1, description="ids in [[reserves]]")


class DeclareAction(Action):
    """A force concedes, declares a Losing Battle (13.3) or Betrays its alliance (13.1)."""

    type: Literal["declare"]
    actor: ClassVar[str] = "player"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()
    force: str
    what: Literal["losing_battle", "concede", "betray"]
    role: Literal["allied_attacker", "allied_defender", "meddler"] | None = None

    @model_validator(mode="after")
    def _role(self):
        if (self.what == "betray") != (self.role is not None):
            raise ValueError("'betray' needs a new 'role', and only 'betray' takes one")
        return self


class SwapAction(Action):
    """Tactical Advantage (13.2): the highest-rolling enemy of a force that critically failed
    its roll (or has no Command Specialist) swaps the locations of two of its deployed units of
    similar Size and Propulsion. A deployment action: made before the battle's first other
    action, by that enemy's player whoever's turn it is."""

    type: Literal["swap"]
    actor: ClassVar[str] = "player"
    cost: ClassVar[str] = "free"
    acting: ClassVar[tuple[str, ...]] = ()
    units: list[str] = Field(min_length=2, max_length=2, description="the two units swapped")

    deployment: ClassVar[bool] = True

    @model_validator(mode="after")
    def _two(self):
        if self.units[0] == self.units[1]:
            raise ValueError(f"units: swap two different units, not {self.units[0]!r} twice")
        return self


class AmbushAction(Action):
    """Tactical Advantage (13.2): a force whose roll was at least twice its highest-rolling
    enemy's "can place its units anywhere on the battlefield except for inside an enemy
    formation or Stronghold", after everybody else has set up. A deployment action: before the
    battle's first other action, whoever's turn it is; the unit stands on the table at ``to``."""

    type: Literal["ambush"]
    cost: ClassVar[str] = "free"
    unit: str
    to: Vec2

    deployment: ClassVar[bool] = True


ESCAPADE_ACTIONS = (WalkAction, RelayAction, ReinforceAction, DeclareAction, SwapAction,
                    AmbushAction)
