"""The scenes and models that ship inside the package (``sandbox scenes``).

The wheel holds them under ``sandbox/data/scenes`` and ``sandbox/data/models``; in a checkout
those two folders link to the repository's ``scenes/`` and ``models/``, so both are the same
files. Scenes name their models relative to themselves (``../models/guard_tower.mpd``), which is
why a copy (``sandbox scenes --copy DIR``) keeps the two folders side by side.
"""

from __future__ import annotations

import shutil
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..core.errors import OutputError

#: Model files copied with the scenes.
MODEL_SUFFIXES = (".ldr", ".mpd", ".dat")


def data_dir() -> Path:
    """The package's data folder (holds ``scenes/`` and ``models/``)."""
    return Path(str(resources.files("sandbox") / "data"))


def scenes_dir() -> Path:
    """The folder of the shipped scene files (``*.toml``)."""
    return data_dir() / "scenes"


def models_dir() -> Path:
    """The folder of the shipped models the scenes use."""
    return data_dir() / "models"


@dataclass(frozen=True)
class ShippedScene:
    """One shipped scene: ``name`` is what ``sandbox run NAME`` takes (the file's stem)."""

    name: str
    title: str
    description: str
    path: Path


def shipped_scenes() -> list[ShippedScene]:
    """Every shipped scene, by name, with the ``name`` and ``description`` fields of its file
    (read as TOML, not validated: listing never builds a table)."""
    out = []
    for path in sorted(scenes_dir().glob("*.toml")):
        try:
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            doc = {}
        title, desc = doc.get("name"), doc.get("description")
        out.append(ShippedScene(path.stem, title if isinstance(title, str) else path.stem,
                                desc if isinstance(desc, str) else "", path))
    return out


def shipped_scene(name: str) -> Path | None:
    """The path of the shipped scene called ``name`` (``big_drop_guard_tower``, with or without
    ``.toml``), or None."""
    stem = name.removesuffix(".toml")
    if not stem or "/" in stem or "\\" in stem or stem.startswith("."):
        return None
    path = scenes_dir() / f"{stem}.toml"
    return path if path.is_file() else None


def resolve_scene_arg(arg: str | Path) -> Path:
    """What a command's SCENE argument names: the file when one exists at that path, else the
    shipped scene of that name, else the path as given (whose reader then reports it missing).
    """
    path = Path(arg)
    if path.exists():
        return path
    found = shipped_scene(str(arg))
    return found if found is not None else path


def copy_scenes(dest: str | Path) -> tuple[list[Path], list[Path]]:
    """Copy the shipped scenes into ``dest/scenes`` and their models into ``dest/models``, as
    editable files; a file already there is kept (never overwritten).

    Returns
    -------
    (copied, kept)
        The files written and the files left as they were.

    Raises
    ------
    OutputError
        ``dest`` is a file, or a folder that cannot be written.
    """
    dest = Path(dest)
    if dest.exists() and not dest.is_dir():
        raise OutputError(f"--copy {str(dest)!r}: is a file, not a folder")
    copied: list[Path] = []
    kept: list[Path] = []
    sources = [(p, "scenes") for p in sorted(scenes_dir().glob("*.toml"))]
    sources += [(p, "models") for p in sorted(models_dir().iterdir())
                if p.suffix.lower() in MODEL_SUFFIXES and p.is_file()]
    try:
        for src, sub in sources:
            target = dest / sub / src.name
            if target.exists():
                kept.append(target)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target)
            copied.append(target)
    except OSError as exc:
        raise OutputError(f"--copy {str(dest)!r}: cannot write ({exc.strerror or exc})") \
            from None
    return copied, kept

