"""``sandbox pack SCENE -o battle.brikpack``: a scene and everything it reads, in one file.

What goes in: the scene file; each model a creation, unit or other entry names (``model =``),
found as the game finds it (relative to the scene, else in the LDraw library's folder); the
files next to a model that its lines reference and that are not embedded in it (a local
``.ldr`` submodel, an unofficial ``.dat`` part kept beside the model), recursively. Parts of the
LDraw library itself are not packed: the friend opening the pack uses their own library (or
the built-in catalogue). Members keep their layout relative to each other, so the scene's
relative model paths hold; a model found in the library is packed where the scene looks first
(the scene's folder joined with its ``model`` path). The format and its checks:
:mod:`sandbox.core.brikpack`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..core.brikpack import MAX_MEMBERS, pack_bytes
from ..core.errors import SceneError
from ..core.limits import FileRefused, read_input_bytes, reason
from ..engine.assets import resolve_model_path
from ..engine.replay import atomic_write_bytes
from ..engine.scene import load_scene

#: File endings of LDraw files packed from a model's folder.
LDRAW_SUFFIXES = (".ldr", ".mpd", ".dat", ".l3b")


@dataclass
class PackResult:
    """A written pack: its path, the scene member and every member with its size in bytes."""

    path: Path
    scene: str
    members: dict[str, int]

    @property
    def size(self) -> int:
        return self.path.stat().st_size


def _models(value, found: list[str]) -> None:
    """Every ``model`` field's value in a scene document (tables and lists, iteratively)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            for k, item in v.items():
                if k == "model" and isinstance(item, str):
                    found.append(item)
                else:
                    stack.append(item)
        elif isinstance(v, (list, tuple)):
            stack.extend(v)


def _references(text: str) -> list[str]:
    """File names a model's type-1 lines reference that none of its ``0 FILE`` sections hold."""
    embedded, refs = set(), []
    for line in text.splitlines():
        tokens = line.split()
        if len(tokens) >= 3 and tokens[0] == "0" and tokens[1] == "FILE":
            embedded.add(" ".join(tokens[2:]).replace("\\", "/").lower())
        elif len(tokens) >= 15 and tokens[0] == "1":
            refs.append(" ".join(tokens[14:]).replace("\\", "/"))
    return [r for r in dict.fromkeys(refs) if r.lower() not in embedded]


def _in_folder(folder: Path, name: str) -> Path | None:
    """``name`` (case-insensitive, as LDraw readers look) inside ``folder``'s tree, or None."""
    cand = folder / name
    if not cand.is_file():
        try:
            by_lower = {p.name.lower(): p for p in (folder / name).parent.iterdir()}
        except OSError:
            return None
        cand = by_lower.get(Path(name).name.lower(), cand)
    try:
        inside = cand.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):
        return None
    if not (inside and cand.is_file() and cand.suffix.lower() in LDRAW_SUFFIXES):
        return None
    return cand


def collect(scene: str | Path, ldrawdir=None) -> tuple[str, dict[str, bytes]]:
    """The scene's member path and every file to pack (member path → bytes).

    Raises
    ------
    SceneError
        The scene is invalid, a model cannot be found or read, or more than
        :data:`~sandbox.core.brikpack.MAX_MEMBERS` files would be packed.
    """
    scene = Path(scene)
    spec, base = load_scene(scene)
    names: list[str] = []
    _models(spec.model_dump(), names)
    # logical place (absolute, normalised: where the scene will look) → source file
    scene_at = os.path.normpath(base / scene.name)  # in the folder models are looked up from
    chosen: dict[str, Path] = {scene_at: scene}
    todo: list[tuple[str, Path]] = []
    entries = (*spec.creations, *spec.units, *spec.reserves)
    for model in dict.fromkeys(names):
        # errors name the (first) entry with this model, as the game's do: units[knight1].model
        where = next((f"{e.kind}s[{e.id}]" for e in entries if e.model == model), "(scene)")
        src = resolve_model_path(model, base, ldrawdir, f"{scene}: {where}")
        todo.append((os.path.normpath(os.path.abspath(base / model)), src))
    while todo:
        dest, src = todo.pop()
        if dest in chosen:
            continue
        chosen[dest] = src
        if len(chosen) > MAX_MEMBERS - 1:
            raise SceneError(f"{scene}: more than {MAX_MEMBERS - 1} files to pack")
        try:
            text = read_input_bytes(src, "LDraw file").decode("utf-8", errors="replace")
        except (OSError, FileRefused) as exc:
            raise SceneError(f"{src}: cannot read the model to pack it: {reason(exc)}") \
                from None
        for ref in _references(text):
            found = _in_folder(src.parent, ref)
            if found is not None:
                rel = found.resolve().relative_to(src.parent.resolve())
                todo.append((os.path.normpath(os.path.join(os.path.dirname(dest), rel)), found))
    root = os.path.commonpath([os.path.dirname(d) for d in chosen])
    files: dict[str, bytes] = {}
    for dest, src in chosen.items():
        member = Path(os.path.relpath(dest, root)).as_posix()
        try:
            files[member] = read_input_bytes(src, "file")
        except (OSError, FileRefused) as exc:
            raise SceneError(f"{src}: cannot read it to pack it: {reason(exc)}") from None
    scene_member = Path(os.path.relpath(scene_at, root))
    return scene_member.as_posix(), files


def write_pack(scene: str | Path, out: str | Path, ldrawdir=None) -> PackResult:
    """Pack ``scene`` with its models into ``out`` (written atomically).

    Raises
    ------
    SceneError
        As :func:`collect`.
    OutputError
        ``out`` cannot be written.
    """
    scene_member, files = collect(scene, ldrawdir)
    try:
        data = pack_bytes(scene_member, files)
    except SceneError as exc:
        raise SceneError(f"{out}: {exc}") from None
    path = atomic_write_bytes(out, data)
    return PackResult(path, scene_member, {n: len(b) for n, b in sorted(files.items())})
