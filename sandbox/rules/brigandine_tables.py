"""Brigandine's combat tables as data: loaded from TOML, validated by pydantic.

The rule text (Brigandine, ch. "Combat", ``shared/rules/003``) describes how the Missile Fire,
Skirmish Combat, Man-to-Man, Fantasy Combat and Jousting tables are used, but prints none of
them, nor any artillery numbers. This project ships a **default set of its own design** in
``sandbox/rules/data/brigandine/`` (``missile.toml``, ``skirmish.toml``, ``man_to_man.toml``,
``fantasy.toml``, ``jousting.toml``, ``artillery.toml``; each file says so in its header). A
group drops in its own: :func:`load_tables` takes a folder, and any of the six files found there
replaces the default one; both go through the same schema.

A group's folder is untrusted: it must hold at least one of the six files and no other
``.toml`` (a misspelt name is an error, never a silent fallback to the default table); each
file must be a regular file of at most :data:`MAX_TABLE_BYTES`, with whole numbers written as
numbers (``true`` is not 1), at most :data:`MAX_ROWS` rows or entries per list or table.

Errors: :class:`~sandbox.core.errors.SceneError`, one line naming the file and the field.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError, model_validator

from ..core.errors import SceneError
from ..core.limits import FileRefused, check_input_file, read_input_bytes

#: The six skirmish unit types: light/medium/heavy foot (F, infantry) and cavalry (C).
UNIT_TYPES: tuple[str, ...] = ("LF", "MF", "HF", "LC", "MC", "HC")
#: Where the default tables live.
DEFAULT_DIR: Path = Path(__file__).resolve().parent / "data" / "brigandine"
#: The table files, by name.
TABLE_FILES: tuple[str, ...] = ("missile", "skirmish", "man_to_man", "fantasy", "jousting",
                                "artillery")
#: Largest table file read (bytes): the default ones are under 4 KiB.
MAX_TABLE_BYTES: int = 256 * 1024
#: Most rows, cells or entries in any one list or table of a table file.
MAX_ROWS: int = 200
#: Most entries a group's tables folder may hold (it is listed to find misspelt names).
MAX_FOLDER_ENTRIES: int = 1000

#: A whole number written as one (``true`` is refused, not read as 1).
Int = Annotated[int, Strict()]
#: A number written as one (a whole number is fine; ``true`` is refused).
Num = Annotated[float, Strict()]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _check_types(types: list[str]) -> None:
    if list(types) != list(UNIT_TYPES):
        raise ValueError(f"types must be {list(UNIT_TYPES)} in that order, got {types}")


class MissileTable(_Strict):
    """Missile Fire: ``rows[#firing - 1][def type]`` is the AIM die's number (003, Missile Fire)."""

    designed_by: str = ""
    types: list[str] = list(UNIT_TYPES)
    max_unit_size: Int = Field(4, ge=1, le=20)
    rows: list[Annotated[list[Int], Field(max_length=MAX_ROWS)]] = Field(min_length=1,
                                                                         max_length=MAX_ROWS)

    @model_validator(mode="after")
    def _shape(self):
        _check_types(self.types)
        for i, row in enumerate(self.rows):
            if len(row) != len(UNIT_TYPES) or any(not 1 <= v <= 100 for v in row):
                raise ValueError(f"rows[{i}] must hold {len(UNIT_TYPES)} numbers 1..100, "
                                 f"got {row}")
        return self

    def number(self, firing: int, def_type: str) -> int:
        """The number one AIM die must reach for a unit of ``firing`` archers (>= 1) against a
        target of ``def_type``; more archers than rows use the last row."""
        row = self.rows[min(max(1, int(firing)), len(self.rows)) - 1]
        return row[UNIT_TYPES.index(def_type)]


class SkirmishTable(_Strict):
    """Skirmish: ``cells[attk type][def type] = [dice per man, number]`` (003, Skirmish)."""

    designed_by: str = ""
    types: list[str] = list(UNIT_TYPES)
    cells: dict[str, Annotated[list[tuple[Int, Int]], Field(max_length=MAX_ROWS)]] = Field(
        max_length=MAX_ROWS)

    @model_validator(mode="after")
    def _shape(self):
        _check_types(self.types)
        if sorted(self.cells) != sorted(UNIT_TYPES):
            raise ValueError(f"cells must have rows {list(UNIT_TYPES)}, got {sorted(self.cells)}")
        for k, row in self.cells.items():
            if len(row) != len(UNIT_TYPES):
                raise ValueError(f"cells.{k} must hold {len(UNIT_TYPES)} cells, got {len(row)}")
            for per_man, number in row:
                if not (1 <= per_man <= 10 and 1 <= number <= 100):
                    raise ValueError(f"cells.{k}: [{per_man}, {number}] needs 1..10 dice per man "
                                     f"and a number 1..100")
        return self

    def cell(self, attk_type: str, def_type: str) -> tuple[int, int]:
        """``(dice per man, number)`` for an ``attk_type`` attacker against ``def_type``."""
        return tuple(self.cells[attk_type][UNIT_TYPES.index(def_type)])  # type: ignore[return-value]


class WeaponClassRow(_Strict):
    to_hit: list[Int] = Field(max_length=MAX_ROWS)


class WeaponTypeRow(_Strict):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    wclass: str = Field(alias="class")
    rank: Int = Field(ge=0, le=30)
    to_hit: list[Int] | None = Field(None, max_length=MAX_ROWS)


class ManToManTable(_Strict):
    """Man-to-Man: what d6+ATK must reach, by weapon type (full table) or weapon class
    (simplified table) against the defender's armour class (003, Man-to-man Combat Tables)."""

    designed_by: str = ""
    armor_classes: list[str] = Field(min_length=1, max_length=MAX_ROWS)
    weapon_classes: dict[str, WeaponClassRow] = Field(max_length=MAX_ROWS)
    weapon_types: dict[str, WeaponTypeRow] = Field(max_length=MAX_ROWS)

    @model_validator(mode="after")
    def _shape(self):
        n = len(self.armor_classes)
        for name, row in self.weapon_classes.items():
            if len(row.to_hit) != n:
                raise ValueError(f"weapon_classes.{name}.to_hit needs {n} numbers")
        for name, row in self.weapon_types.items():
            if row.wclass not in self.weapon_classes:
                raise ValueError(f"weapon_types.{name}.class {row.wclass!r} is not one of "
                                 f"{sorted(self.weapon_classes)}")
            if row.to_hit is not None and len(row.to_hit) != n:
                raise ValueError(f"weapon_types.{name}.to_hit needs {n} numbers")
        return self

    def to_hit(self, weapon_type: str | None, weapon_class: str, armor_class: str) -> int:
        """The number for a blow: the weapon type's own row when it has one, else its class's
        (the simplified table)."""
        col = self.armor_classes.index(armor_class)
        row = self.weapon_types.get(weapon_type or "")
        if row is not None and row.to_hit is not None:
            return row.to_hit[col]
        return self.weapon_classes[weapon_class].to_hit[col]


class FantasyTable(_Strict):
    """Fantasy Combat: the number an ATK die must reach to strike an opponent of each class."""

    designed_by: str = ""
    classes: dict[str, Int] = Field(max_length=MAX_ROWS)

    @model_validator(mode="after")
    def _shape(self):
        if "mortal" not in self.classes:
            raise ValueError("classes must include 'mortal' (soldiers without a class)")
        return self


class JoustingTable(_Strict):
    """Jousting: ``outcomes[aim][opponent's stance]`` and the points of each outcome."""

    designed_by: str = ""
    aims: list[str] = Field(min_length=1, max_length=MAX_ROWS)
    stances: list[str] = Field(min_length=1, max_length=MAX_ROWS)
    outcomes: dict[str, Annotated[list[str], Field(max_length=MAX_ROWS)]] = Field(
        max_length=MAX_ROWS)
    points: dict[str, Int] = Field(max_length=MAX_ROWS)

    @model_validator(mode="after")
    def _shape(self):
        if sorted(self.outcomes) != sorted(self.aims):
            raise ValueError(f"outcomes must have one row per aim {self.aims}")
        for aim, row in self.outcomes.items():
            if len(row) != len(self.stances):
                raise ValueError(f"outcomes.{aim} needs {len(self.stances)} outcomes")
            for o in row:
                if o not in self.points:
                    raise ValueError(f"outcomes.{aim}: {o!r} has no entry in points")
        return self

    def outcome(self, aim: str, stance: str) -> str:
        return self.outcomes[aim][self.stances.index(stance)]


class ArtilleryWeapon(_Strict):
    to_hit: list[Int] = Field(max_length=MAX_ROWS)
    hits: Int = Field(ge=1, le=20)
    extra_hit_every: Int = Field(ge=1, le=20)
    speed_in_s: Num = Field(gt=0, le=5000)
    range_in: Num = Field(gt=0, le=1000)

    @model_validator(mode="after")
    def _shape(self):
        if len(self.to_hit) != len(UNIT_TYPES):
            raise ValueError(f"to_hit needs {len(UNIT_TYPES)} numbers")
        return self


class ArtilleryTable(_Strict):
    designed_by: str = ""
    types: list[str] = list(UNIT_TYPES)
    weapons: dict[str, ArtilleryWeapon] = Field(max_length=MAX_ROWS)

    @model_validator(mode="after")
    def _shape(self):
        _check_types(self.types)
        return self


_MODELS: dict[str, type[BaseModel]] = {
    "missile": MissileTable, "skirmish": SkirmishTable, "man_to_man": ManToManTable,
    "fantasy": FantasyTable, "jousting": JoustingTable, "artillery": ArtilleryTable,
}


@dataclass(frozen=True)
class Tables:
    """All six Brigandine tables, and where each came from."""

    missile: MissileTable
    skirmish: SkirmishTable
    man_to_man: ManToManTable
    fantasy: FantasyTable
    jousting: JoustingTable
    artillery: ArtilleryTable
    sources: tuple[str, ...] = ()


def load_table(name: str, path: str | Path) -> BaseModel:
    """Read and validate one table file (``name`` one of :data:`TABLE_FILES`).

    Raises
    ------
    SceneError
        One line naming the file: missing, not a regular file (a folder, a FIFO, a device),
        over :data:`MAX_TABLE_BYTES`, a name too long, not UTF-8, bad TOML (a number over
        4300 digits, nesting too deep), or a field out of shape (naming the field).
    """
    p = Path(path)
    try:
        st = check_input_file(p, f"Brigandine {name} table")
        if st.st_size > MAX_TABLE_BYTES:
            raise FileRefused(f"is {st.st_size} bytes, over the {MAX_TABLE_BYTES} bytes a "
                              "Brigandine table file may have")
        text = read_input_bytes(p, f"Brigandine {name} table")[:MAX_TABLE_BYTES + 1]
        if len(text) > MAX_TABLE_BYTES:
            raise FileRefused(f"grew over {MAX_TABLE_BYTES} bytes while being read")
        data = tomllib.loads(text.decode("utf-8"))
    except FileNotFoundError:
        raise SceneError(f"{p}: no such Brigandine table file") from None
    except FileRefused as exc:
        raise SceneError(f"{p}: {exc}") from None
    except UnicodeDecodeError:
        raise SceneError(f"{p}: not UTF-8 text") from None
    except OSError as exc:
        raise SceneError(f"{p}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SceneError(f"{p}: not valid TOML: {exc}") from None
    except RecursionError:
        raise SceneError(f"{p}: not valid TOML: nested too deep") from None
    except ValueError as exc:  # a whole number of more than 4300 digits
        raise SceneError(f"{p}: not valid TOML: {' '.join(str(exc).split())[:120]}") from None
    try:
        return _MODELS[name].model_validate(data)
    except ValidationError as err:
        e = err.errors()[0]
        loc = ".".join(str(x) for x in e["loc"]) or "(file)"
        raise SceneError(f"{p}: invalid {name} table: {loc}: {e['msg']}") from None
    except RecursionError:
        raise SceneError(f"{p}: invalid {name} table: nested too deep") from None


def table_files(folder: str | Path) -> dict[str, Path]:
    """The table files of a group's folder by table name (at least one; no other ``.toml``).

    Raises
    ------
    SceneError
        One line naming the folder or the file: not a folder (missing, a file, a name too
        long), unreadable, too many entries, a ``.toml`` that is none of :data:`TABLE_FILES`
        (with the nearest name), or none of them at all.
    """
    d = Path(folder)
    names: list[str] = []
    try:
        if not d.is_dir():
            raise SceneError(f"{d}: Brigandine tables must be a folder of .toml files "
                             f"({', '.join(n + '.toml' for n in TABLE_FILES)})")
        with os.scandir(d) as it:
            for entry in it:
                names.append(entry.name)
                if len(names) > MAX_FOLDER_ENTRIES:
                    raise SceneError(f"{d}: over {MAX_FOLDER_ENTRIES} entries: not a folder "
                                     "of Brigandine tables")
    except OSError as exc:
        raise SceneError(f"{d}: cannot read the Brigandine tables folder: "
                         f"{exc.strerror or exc}") from None
    wanted = {f"{n}.toml": n for n in TABLE_FILES}
    found: dict[str, Path] = {}
    for entry in sorted(names):
        if entry in wanted:
            found[wanted[entry]] = d / entry
        elif entry.lower().endswith(".toml"):
            near = difflib.get_close_matches(entry.lower(), list(wanted), n=1, cutoff=0.6)
            hint = f" (did you mean {near[0]}?)" if near else ""
            raise SceneError(f"{d / entry}: not a Brigandine table file name{hint}: the "
                             f"tables are {', '.join(wanted)}")
    if not found:
        raise SceneError(f"{d}: holds none of the Brigandine table files "
                         f"({', '.join(wanted)}); without one the default tables would be "
                         "played, so the folder is refused")
    return found


_DEFAULT: Tables | None = None


def load_tables(folder: str | Path | None = None) -> Tables:
    """The six tables: each from ``folder``/<name>.toml when that file is there, else the
    project's default set (:data:`DEFAULT_DIR`); :attr:`Tables.sources` says which.

    Raises
    ------
    SceneError
        ``folder`` is not a folder, holds no table file or a misspelt one, or a table file
        is invalid (see :func:`table_files`, :func:`load_table`).
    """
    global _DEFAULT
    if folder is None and _DEFAULT is not None:
        return _DEFAULT
    own = table_files(folder) if folder is not None else {}
    found: dict[str, BaseModel] = {}
    sources = []
    for name in TABLE_FILES:
        path = own.get(name, DEFAULT_DIR / f"{name}.toml")
        found[name] = load_table(name, path)
        sources.append(str(path))
    tables = Tables(**found, sources=tuple(sources))  # type: ignore[arg-type]
    if folder is None:
        _DEFAULT = tables
    return tables
