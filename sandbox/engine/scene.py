"""Scene files (TOML) validated with pydantic: the immutable spec of a game.

A scene file describes the battlefield, the creations and units on it (LDraw files, submodels
of them, or built-in parts), their BrikWars stats, the players, the seed and an optional
scripted list of actions. Lengths are inches, angles degrees (converted to radians inside).

Placement rule: a model is first turned into the world frame (Z up), then moved so that its
footprint's centre sits on the origin and its lowest point on the table (z = 0); then the
scene's ``rotation`` (degrees about X, Y, Z, applied in that order) and ``position`` (inches)
apply. A ``submodel`` taken with ``keep_model_placement = true`` (the default) stays where the
whole model puts it, so pieces cut from one model (a tower, the guard on it) keep standing
where the author built them.

Errors: :func:`load_scene` raises :class:`~sandbox.core.errors.SceneError` whose message names
the file, each offending field (``creations[0].stats.armor``) and the value found.
"""

from __future__ import annotations

import contextlib
import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from ..core.dice import MAX_SEED
from ..core.errors import RulesError, SceneError
from ..core.limits import FileRefused, how_to_raise, limit, over_limit, read_input_bytes, reason
from . import table_tools  # noqa: F401 - the players' hands' actions are the engine's own
from .actions import MAX_TURN, Action, action_union, registry_key, type_refusal
from .kinds import all_kinds
from .scene_types import ColourCode, Vec3

_DICE_RE = re.compile(r"^\s*(\d+)\s*d\s*(\d+)\s*$", re.IGNORECASE)

#: Most dice one Armor rating may roll (a hundred d10 is already far beyond any creation).
MAX_ARMOR_DICE = 100


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def parse_armor(value: int | str) -> tuple[int | None, tuple[int, int] | None]:
    """Armor as ``(fixed, None)`` for a number or ``(None, (count, sides))`` for ``"3d10"``.

    Raises
    ------
    ValueError
        For anything else.
    """
    if isinstance(value, bool):
        raise ValueError(f"Armor must be a number or dice like '3d10', got {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"Armor cannot be negative, got {value}")
        if value > 10_000:
            raise ValueError(f"Armor {value} is beyond any creation (at most 10000)")
        return value, None
    m = _DICE_RE.match(str(value))
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 2:
        raise ValueError(f"Armor must be a number or dice like '3d10', got {value!r}")
    if int(m.group(1)) > MAX_ARMOR_DICE or int(m.group(2)) > 100:
        raise ValueError(f"Armor {value!r} is too many dice (at most {MAX_ARMOR_DICE}, of at "
                         f"most 100 sides)")
    return None, (int(m.group(1)), int(m.group(2)))


#: Checks a weapon entry must pass (raise ValueError naming the field), registered by the game
#: kinds whose weapon tables they read (BrikWars: a known 8.1 row or Bastard Gun, Variants).
WEAPON_CHECKS: list[Callable[["WeaponSpec"], None]] = []


class WeaponSpec(_Strict):
    """One weapon a unit carries (BrikWars 8.1): a table row and Weapon Size, or a Bastard Gun.

    ``{type = "Gun", size = 2}`` or ``{bastard = "ShotGun"}``; ``name`` is shown to players.
    """

    type: str | None = Field(None, description="row of the 8.1 table, e.g. 'Gun', 'FlameThrower'")
    size: float | None = Field(None, le=1000,
                               description="Weapon Size in inches (XSize for Rockets)")
    bastard: str | None = Field(None, description="a minifig Bastard Gun by name, e.g. 'ShotGun'")
    name: str | None = None
    part: str | None = Field(None, description="LDraw part of the body's model that is this "
                             "weapon (its barrel's end, 8.2; thrown when knocked away)")
    barrel: Vec3 | None = Field(
        None, description="end of the barrel in the model's own frame, inches (8.2)")
    mount: Literal["hand", "mounted"] | None = Field(
        None, description="held in hands (8.1 Hand-Held categories) or mounted (Power, "
        "Gunnery); none: held by units, mounted on creations")
    controls: list[str] = Field(default_factory=list, description="ids of bodies holding "
                                "other sets of its Controls (8.5); the weapon's own body has one")
    variant: str = Field(
        "explosive", max_length=40,
        description="a Rocket's Explosive Variant (8.4), as for a missile")
    variants: list[Annotated[str, Field(max_length=40)]] = Field(
        default_factory=list, max_length=40,
        description="a Rocket's combined Variants, one die each (8.4)")
    on_hit: list[Literal["ignite", "knockback", "disrupt"]] | None = Field(
        None, max_length=3, description="what a hit does besides its Damage (default: the "
        "weapon table's: Fire dice 'ignite', 'knockback' by Size difference; 'disrupt': a "
        "stunning weapon)")

    @model_validator(mode="after")
    def _known(self):
        if (self.bastard is None) == (self.type is None):
            raise ValueError("give either 'type' and 'size' or 'bastard'")
        if self.bastard is None and self.size is None:
            raise ValueError(f"weapon {self.type!r} needs a 'size' in inches")
        all_kinds()  # every game's weapon checks registered, whatever was imported before
        for check in WEAPON_CHECKS:  # the games' weapon tables (BrikWars 8.1, 8.4)
            check(self)
        return self


class Stats(_Strict):
    """BrikWars stats a body carries (BrikWars ch. 8 and core rules)."""

    size: float = Field(1.0, gt=0, le=1000, allow_inf_nan=False, description="Size in inches")
    armor: Union[int, str] = Field(4, description="fixed Armor (4) or dice ('3d10')")
    deflection: int = Field(0, ge=0, le=10, description="layers of Deflection (Armor Plating, "
                            "Heavy Armor): each cancels the highest Damage die (3.3, 8.4)")
    weight_class: int = Field(1, ge=0, le=12, description="Weight class (Fire catches above it)")
    action_die: int = Field(6, description="Action die (d6 for a minifig)")
    move: float = Field(5.0, ge=0, le=1000, allow_inf_nan=False, description="Move in inches")
    flight: bool = Field(False, description="can fly or has a parachute (no Big Drop damage)")
    flammable: bool = Field(True, description="can catch Fire (BrikWars F.1)")
    scout: bool = Field(False, description="a Scout with an optical Tool: Pathfinding (F.3)")
    weapons: list[WeaponSpec] = Field(default_factory=list, description="weapons carried (8.1)")
    shield: list[int] = Field(default_factory=list,
                              description="Energy Shield dice by die type, e.g. [6, 6] (F.1)")
    power: float | None = Field(None, ge=0, description="inches of Power a turn (shields, "
                                "powered Fields; F.1); none: not tracked")
    on_fire_ok: bool = Field(False, description="designed to burn (a torch): no on-Fire penalty")
    control: Literal["independent", "operator", "pilot"] | None = Field(
        None, description="who runs it (8.2 Mindless): independent, an operator, or a trained "
        "Pilot of a Vehicle; none: creations 'operator', units 'independent'")
    leaping: bool = Field(False, description="an obvious leaping ability: a Creation may use "
                          "an Angry Inch (8.2 Unmoving)")
    specialties: list[Literal["Heavy", "Gunner", "Scout", "Commander", "Mechanik"]] = Field(
        default_factory=list, description="Specialties (Heavy: Compensating 8.1; Gunner: "
        "Gunnery 8.5)")
    specialty_die: int = Field(8, description="die rolled for a Specialty (Gunnery, 8.5)")
    turret: Literal["S", "M"] | None = Field(None, description="a portable Small or Large "
                                              "Turret (8.1): Set Up by a minifig's Action")
    plating: Literal["whole", "part"] | None = Field(
        None, description="Armor Plating over the whole Creation or part of it (8.2): its "
        "'deflection' layers meet every hit not aimed at an un-Armored section; Half Speed, no "
        "Sprint")
    joints: list[str] = Field(default_factory=list, max_length=20, description="hinges, joints "
                              "and turret rings: weak points Armored one d10 lower (8.1, 7.1)")

    @field_validator("shield")
    @classmethod
    def _shield(cls, v):
        for d in v:
            if d not in (4, 6, 8, 10, 12, 20):
                raise ValueError(f"shield die must be one of d4, d6, d8, d10, d12, d20, got d{d}")
        return v

    @field_validator("armor")
    @classmethod
    def _armor(cls, v):
        parse_armor(v)
        return v

    @field_validator("action_die", "specialty_die")
    @classmethod
    def _die(cls, v):
        if v not in (4, 6, 8, 10, 12, 20):
            raise ValueError(f"die must be one of d4, d6, d8, d10, d12, d20, got d{v}")
        return v


class PartRef(_Strict):
    """One built-in or library part placed directly in the scene."""

    part: str = Field(description="LDraw part number or file name, e.g. '3001' or '3001.dat'")
    colour: ColourCode = Field(16, description="LDraw colour code")
    position: Vec3 = Field((0.0, 0.0, 0.0), description="inches, in the body's frame")
    rotation: Vec3 = Field((0.0, 0.0, 0.0), description="degrees about X, Y, Z (in that order)")


class _Placed(_Strict):
    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$",
                    description="the body's id (actions and [expect] name it)")
    name: str | None = Field(None, description="name in the log (default: the id)")
    model: str | None = Field(None, description="LDraw .ldr/.mpd/.dat file, relative to the "
                              "scene file's folder (else the LDraw library's folder)")
    submodel: str | None = Field(None, description="embedded file of an MPD to take alone")
    instance: int | None = Field(
        None, ge=1, description="which placement of a submodel used more than once (1-based)")
    keep_model_placement: bool = Field(True, description="a submodel stays where the whole "
                                       "model puts it (then position and rotation move it "
                                       "from there); false: it is centred on the origin first")
    parts: list[PartRef] | None = Field(None, description="built-in or library parts placed "
                                        "directly, instead of a model")
    colour: ColourCode = Field(16, description="colour of the whole model where its lines say 16")
    position: Vec3 = Field((0.0, 0.0, 0.0), description="inches: moves the placed model (which "
                           "starts with its footprint centred on the origin and its lowest "
                           "point on the table)")
    rotation: Vec3 = Field((0.0, 0.0, 0.0), description="degrees about X, Y, Z (in that "
                           "order), before the position")
    owner: str | None = Field(None, description="the player it belongs to")
    fixed: bool = Field(False, description="nailed to the table (never moves)")
    stats: Stats = Field(Stats(), description="BrikWars stats (ch. 8)")

    @model_validator(mode="after")
    def _one_source(self):
        if (self.model is None) == (self.parts is None):
            raise ValueError("give exactly one of 'model' or 'parts'")
        if self.submodel is not None and self.model is None:
            raise ValueError("'submodel' needs 'model'")
        if self.parts is not None and not self.parts:
            raise ValueError("'parts' is empty")
        return self


class Creation(_Placed):
    """A brick creation (a wall, a tower, a vehicle): Cumulative Damage against an Armor Roll."""

    kind: Literal["creation"] = "creation"


class Unit(_Placed):
    """A minifig or creature: each hit compared with its Armor on its own."""

    kind: Literal["unit"] = "unit"


class Player(_Strict):
    name: str = Field(min_length=1, max_length=64)
    colour: ColourCode = Field(4, description="LDraw colour code of the player's markers")
    strategy_bricks: int = Field(0, ge=0, description="Strategy pile at the start")
    side: str | None = Field(None, max_length=64, description="players with the same side are "
                             "allies (8.5 Controls: allies do not share a weapon turn by turn)")


class Battlefield(_Strict):
    width: float = Field(36.0, gt=0, le=1000, description="inches along X")
    depth: float = Field(24.0, gt=0, le=1000, description="inches along Y")
    ground_colour: tuple[float, float, float] = Field(
        (0.36, 0.5, 0.3), description="red, green, blue from 0 to 1")

    def off(self, point) -> bool:
        """Whether ``point`` (x, y inches; more coordinates ignored) lies beyond the
        battlefield's edge (it is centred on the origin)."""
        return abs(float(point[0])) > self.width / 2 or abs(float(point[1])) > self.depth / 2


class Expect(_Strict):
    """Expectations a CI scene checks after running (the games add their own tables:
    :func:`register_scene_section` with ``expect=True``)."""

    min_impacts: int = 0
    collision_rolls_min: int = 0
    destroyed: list[str] = []
    standing: list[str] = []

    if TYPE_CHECKING:  # pragma: no cover - the games' tables (see scene_model)
        def __getattr__(self, name: str) -> Any: ...


@dataclass(frozen=True)
class SceneSection:
    """A table (or array of tables) of scene files that a game brings.

    Attributes
    ----------
    name : str
        Its name in the file (``escapade`` for ``[escapade]``, ``traps`` for ``[[traps]]``).
    annotation : type
        Its pydantic type: ``list[TrapEntry]`` or ``EscapadeSection | None``.
    default : list or None
        ``[]`` (an array of tables) or ``None`` (an optional table).
    description : str
    check : callable(spec) -> None, optional
        Cross-checks against the rest of the scene (ids it names, the scene's ``game``): raise
        ValueError with one line naming the field.
    expect : bool
        A table of ``[expect]`` (``[expect.hazards]``) rather than of the scene.
    sets_table : bool
        The game builds the table from this section (a board): a scene with it and no
        creations, units or actions still has something on the table.
    """

    name: str
    annotation: Any
    default: Any = None
    description: str = ""
    check: Callable[[Any], None] | None = None
    expect: bool = False
    sets_table: bool = False

    def field(self) -> tuple[Any, Any]:
        # pydantic copies a mutable default for each scene
        return self.annotation, Field(self.default, description=self.description or None)


#: Scene sections the game kinds registered, by name (scene tables, ``[expect]`` tables).
SECTIONS: dict[str, SceneSection] = {}
EXPECT_SECTIONS: dict[str, SceneSection] = {}


def register_scene_section(section: SceneSection) -> None:
    """Let scene files have ``section`` (called by a game's ``kind`` module when imported).

    Raises
    ------
    ValueError
        A section of that name is registered already, or names a core field of the scene.
    """
    table = EXPECT_SECTIONS if section.expect else SECTIONS
    core = Expect if section.expect else SceneSpec
    old = table.get(section.name)
    if section.name in core.model_fields or (old is not None and old != section):
        raise ValueError(f"scene section {section.name!r} is defined twice")
    table[section.name] = section


class SceneSpec(_Strict):
    """The whole scene file. Field names are those of the TOML file.

    This class holds the engine's own fields; the model that validates files
    (:func:`scene_model`) adds the sections of every game kind and the union of every
    registered action type, so a spec's ``escapade``, ``traps`` … are read as attributes.
    """

    name: str = Field("untitled", description="the scene's title (sandbox scenes lists it)")
    description: str = Field("", description="one line on what happens")
    game: str = Field("brikwars", min_length=1, max_length=64,
                      description="the game played: 'brikwars' or another registered game")
    seed: int = Field(0, ge=-MAX_SEED, le=MAX_SEED, description="seed of every dice stream "
                      "(sandbox run --seed overrides it)")
    format: int = Field(1, description="scene file format version (this build reads 1)")
    battlefield: Battlefield = Battlefield()
    players: list[Player] = []
    creations: list[Creation] = []
    units: list[Unit] = []
    reserves: list[Unit] = []
    actions: list[Action] = []
    turns: int | None = Field(None, ge=1, le=MAX_TURN, description="play at least this many turns")
    forced_dice: dict[str, list[Annotated[int, Field(ge=1, le=100)]]] = Field(
        default_factory=dict, description="dice to force per stream, for re-enacting examples"
    )
    expect: Expect | None = None

    if TYPE_CHECKING:  # pragma: no cover - the games' sections (see scene_model)
        def __getattr__(self, name: str) -> Any: ...

    @model_validator(mode="after")
    def _cross_refs(self):
        ids = [c.id for c in self.creations] + [u.id for u in self.units] + [
            r.id for r in self.reserves
        ]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"duplicate ids: {dup}")
        if "ground" in ids:
            raise ValueError("the id 'ground' is reserved for the battlefield")
        names = [p.name for p in self.players]
        dup_players = sorted({n for n in names if names.count(n) > 1})
        if dup_players:
            raise ValueError(f"players: duplicate player names {dup_players}")
        for sec in SECTIONS.values():
            if sec.check is not None and sec.name in type(self).model_fields:
                sec.check(self)
        for i, a in enumerate(self.actions):
            if a.player not in names:
                raise ValueError(f"actions[{i}].player {a.player!r} is not one of {names}")
            why = a.scene_problem(self)
            if why:
                raise ValueError(f"actions[{i}].{why}")
        for owner in [c.owner for c in self.creations + self.units + self.reserves]:
            if owner is not None and owner not in names:
                raise ValueError(f"owner {owner!r} is not one of the players {names}")
        if not (self.creations or self.units or self.actions
                or any(getattr(self, n, None) for n, sec in SECTIONS.items() if sec.sets_table)):
            raise ValueError("the scene has nothing on the table: no creations, units or actions")
        if self.expect is not None:
            known = set(ids) | {str(aid) for a in self.actions if (aid := getattr(a, "id", None))}
            for field_name in ("destroyed", "standing"):
                for key in getattr(self.expect, field_name):
                    if key not in known and not key.startswith("payload"):
                        raise ValueError(f"expect.{field_name}: {key!r} is not the id of a "
                                         f"creation, unit, reserve or action")
        return self


_MODELS: dict[tuple, type[SceneSpec]] = {}


def scene_model() -> type[SceneSpec]:
    """The model scene files are validated with: :class:`SceneSpec` with every game kind's
    sections and ``[expect]`` tables and the union of every registered action type, built
    once every game package is imported (:func:`~sandbox.engine.kinds.all_kinds`), and again
    when an action type or a section is registered later (a game plugged in at run time)."""
    all_kinds()
    key = (registry_key(), tuple(map(id, SECTIONS.values())),
           tuple(map(id, EXPECT_SECTIONS.values())))
    if key not in _MODELS:
        _MODELS.clear()
        expect = create_model(  # type: ignore[call-overload]
            "Expect", __base__=Expect, __module__=__name__, __doc__=Expect.__doc__,
            **{n: sec.field() for n, sec in EXPECT_SECTIONS.items()})
        _MODELS[key] = create_model(  # type: ignore[call-overload]
            "SceneSpec", __base__=SceneSpec, __module__=__name__, __doc__=SceneSpec.__doc__,
            actions=(list[action_union()], Field([])),  # type: ignore[misc]
            expect=(expect | None, None),
            **{n: sec.field() for n, sec in SECTIONS.items()})
    return _MODELS[key]


def _format_errors(err: ValidationError, source: str) -> str:
    """One line for one problem (``file: field: what (got value)``), else a header line and
    one line a problem."""
    found = []
    for e in err.errors():
        loc = ""
        for part in e["loc"]:
            loc += f"[{part}]" if isinstance(part, int) else (f".{part}" if loc else str(part))
        value = e.get("input")
        shown = repr(value)
        if len(shown) > 80:
            shown = shown[:77] + "..."
        msg = e["msg"].removeprefix("Value error, ")
        got = "" if not loc or shown in msg else f" (got {shown})"
        found.append(f"{loc or '(scene)'}: {msg}{got}")
    if len(found) == 1:
        return f"{source}: {found[0]}"
    return "\n".join([f"{source}: invalid scene ({len(found)} problems)"]
                     + [f"  {line}" for line in found])


@contextlib.contextmanager
def naming_the_file(path: str | Path):
    """Errors about a scene found while its table is built (a model file that is missing, an
    id an action names) or while its script is played (an action the rules refuse:
    ``RulesError``) name the scene file, as errors found while reading it do."""
    try:
        yield
    except (SceneError, RulesError) as exc:  # RulesError: a scripted action refused
        text = str(exc)
        if str(path) in text:
            raise
        raise type(exc)(f"{path}: {text}") from None


#: Scene file format versions this build reads.
SCENE_FORMATS = (1,)
#: Fields naming a file, a part or a body: no control characters (a newline in a part name
#: would inject LDraw lines into the inline document a scene's parts are read through).
_NAME_FIELDS = {"part", "model", "submodel", "id", "unit", "body", "creation", "player",
                "owner", "target_id", "bastard", "type"}
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _loc(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(scene)"


def _precheck(data, source: str) -> None:
    """Checks pydantic's lax mode would let through: NaN and infinities anywhere, control
    characters in names, an unknown format version (iterative: no recursion on deep input)."""
    if not isinstance(data, dict):
        raise SceneError(f"{source}: a scene must be a table of fields, got "
                         f"{type(data).__name__}")
    fmt = data.get("format", 1)
    if isinstance(fmt, bool) or fmt not in SCENE_FORMATS:
        raise SceneError(f"{source}: format: scene format version {fmt!r} is not supported "
                         f"(this build reads {', '.join(map(str, SCENE_FORMATS))})")
    actions = data.get("actions")
    too_many = over_limit("actions", len(actions), "actions") if isinstance(actions, list) else ""
    if too_many:
        raise SceneError(f"{source}: actions: {too_many}")
    if isinstance(actions, list) and actions:
        all_kinds()  # every game's action types registered
    for i, a in enumerate(actions if isinstance(actions, list) else []):
        why = type_refusal(a) if isinstance(a, dict) else ""
        if why:  # "no type", a retired one, or an unknown one and the closest names
            raise SceneError(f"{source}: actions[{i}]: {why}")
    stack: list[tuple[tuple, object]] = [((), data)]
    seen = 0
    while stack:
        path, v = stack.pop()
        seen += 1
        if len(path) > 32:
            raise SceneError(f"{source}: {_loc(path[:4])}...: nested more than 32 deep")
        if isinstance(v, float) and not math.isfinite(v):
            raise SceneError(f"{source}: {_loc(path)}: must be a finite number (got {v!r})")
        if isinstance(v, str) and path and path[-1] in _NAME_FIELDS and _CONTROL.search(v):
            raise SceneError(f"{source}: {_loc(path)}: control characters (a newline?) are not "
                             f"allowed in a name (got {v[:40]!r})")
        if isinstance(v, dict):
            stack.extend((path + (str(k),), x) for k, x in v.items())
        elif isinstance(v, (list, tuple)):
            stack.extend((path + (i,), x) for i, x in enumerate(v))


def _reject_bools(raw, model, path: tuple, source: str) -> None:
    """``true`` where a number is meant (an Armor of ``true``, a width of ``true``): pydantic's
    lax mode reads it as 1; walk the raw data beside the validated model and refuse it."""
    stack = [(path, raw, model)]
    while stack:
        path, r, m = stack.pop()
        if isinstance(r, bool):
            if not isinstance(m, bool):
                raise SceneError(f"{source}: {_loc(path)}: expected a number or text, got "
                                 f"{str(r).lower()}")
            continue
        if isinstance(r, dict):
            for k, x in r.items():
                if isinstance(m, BaseModel) and str(k) in type(m).model_fields:
                    sub = getattr(m, str(k))
                elif isinstance(m, dict) and k in m:
                    sub = m[k]
                else:  # an alias or a key the model does not keep: nothing to compare
                    continue
                stack.append((path + (str(k),), x, sub))
        elif isinstance(r, (list, tuple)) and isinstance(m, (list, tuple)):
            stack.extend((path + (i,), x, y) for i, (x, y) in enumerate(zip(r, m, strict=False)))


def scene_from_dict(data: dict, source: str = "<scene>") -> SceneSpec:
    """Validate a scene given as a dict.

    Raises
    ------
    SceneError
        Naming each offending field and value: also for NaN or infinite numbers, ``true``
        where a number is meant, control characters in names, an unknown ``format`` version
        and more bodies than the ``bodies`` limit (:mod:`sandbox.core.limits`).
    """
    _precheck(data, source)
    try:
        spec = scene_model().model_validate(data)
    except ValidationError as err:
        raise SceneError(_format_errors(err, source)) from None
    except RecursionError:
        raise SceneError(f"{source}: nested too deep") from None
    _reject_bools(data, spec, (), source)
    n = len(spec.creations) + len(spec.units) + len(spec.reserves)
    if n > limit("bodies"):
        raise SceneError(f"{source}: {n} creations, units and reserves, over the limit of "
                         f"{limit('bodies')} bodies ({how_to_raise('bodies')})")
    return spec


def load_scene(path: str | Path) -> tuple[SceneSpec, Path]:
    """Read and validate a TOML scene file.

    Returns
    -------
    spec : SceneSpec
    base : Path
        The folder that relative model paths are resolved against.

    Raises
    ------
    SceneError
        Unreadable file, TOML syntax error (with line and column), or invalid fields.
    """
    p = Path(path)
    try:
        text = read_input_bytes(p, "scene file").decode("utf-8")
    except FileNotFoundError:
        raise SceneError(f"{p}: no such scene file") from None
    except FileRefused as exc:
        raise SceneError(f"{p}: {exc}") from None
    except OSError as exc:
        raise SceneError(f"{p}: cannot read scene file: {reason(exc)}") from None
    except UnicodeDecodeError:
        raise SceneError(f"{p}: not a scene file (not UTF-8 text)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SceneError(f"{p}: not valid TOML: {exc}") from None
    except RecursionError:
        raise SceneError(f"{p}: not a usable scene file: nested too deep") from None
    return scene_from_dict(data, str(p)), p.resolve().parent


def scene_to_dict(spec: SceneSpec) -> dict:
    """A plain, JSON/TOML-ready dict of the spec (round-trips through :func:`scene_from_dict`)."""
    return spec.model_dump(mode="json", exclude_none=True)
