"""Scene packs (``.brikpack``): one file holding a scene with its models, to hand to a friend.

A pack is a zip archive: the scene file, every model file it uses (and the files next to a
model that the model references, such as unofficial parts), laid out as they were relative to
each other so the scene's relative model paths still hold, and ``manifest.json``::

    {"format": "brikwars-sandbox-pack", "version": 1, "scene": "scenes/battle.toml",
     "files": {"scenes/battle.toml": {"size": 2454, "sha256": "..."}, ...}}

Opening one (:func:`open_pack`) treats it as untrusted: the archive is read within the
``file_mb`` limit; at most :data:`MAX_MEMBERS` members, each within the ``file_mb`` limit and
all together within :data:`MAX_TOTAL_MB` MiB unpacked, read with a cap whatever sizes the zip
declares (a zip bomb stops at the cap); no absolute path, no ``..``, no backslash, no link, no
control character in a name; every file listed in the manifest and none more; every SHA-256
checked. It is unpacked into a fresh temporary folder (removed when the process ends), and the
scene inside is then opened like any other. Every refusal is one :class:`SceneError` line
naming the pack and the member.

:func:`pack_bytes` makes a pack of files already chosen (:mod:`sandbox.app.pack` finds what a
scene uses and writes the pack).
"""

from __future__ import annotations

import atexit
import hashlib
import io
import json
import os
import re
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from .errors import SceneError
from .limits import FileRefused, how_to_raise, limit, read_input_bytes, reason, strict_json_loads

PACK_FORMAT = "brikwars-sandbox-pack"
PACK_VERSION = 1
PACK_SUFFIX = ".brikpack"
MANIFEST = "manifest.json"
#: Most members one pack may hold (the manifest included).
MAX_MEMBERS = 2000
#: Most bytes all members may unpack to, MiB.
MAX_TOTAL_MB = 256
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_DRIVE = re.compile(r"^[A-Za-z]:")


def is_pack(path: str | Path) -> bool:
    """Whether ``path`` names a pack (by its ``.brikpack`` ending)."""
    return str(path).lower().endswith(PACK_SUFFIX)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_member_name(name: str) -> str | None:
    """Why ``name`` may not be a member's path (None: it may): relative POSIX paths only,
    without ``..``, ``.``, empty parts, backslashes, drive letters or control characters."""
    if not name or len(name) > 512:
        return "an empty or over-long name"
    if _CONTROL.search(name):
        return "a control character in the name"
    if "\\" in name:
        return "a backslash in the name"
    if name.startswith("/") or _DRIVE.match(name):
        return "an absolute path"
    parts = name.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return "'..', '.' or an empty part in the path"
    return None


def pack_bytes(scene: str, files: dict[str, bytes]) -> bytes:
    """A pack's bytes: ``files`` (member path → contents, the scene at ``scene`` among them)
    and the manifest with each file's size and SHA-256; the same files give the same bytes.

    Raises
    ------
    SceneError
        A member path that a reader would refuse, or ``scene`` not among ``files``.
    """
    for name in files:
        why = check_member_name(name)
        if why is not None or name == MANIFEST:
            raise SceneError(f"cannot pack {name!r}: {why or 'a reserved name'}")
    if scene not in files:
        raise SceneError(f"the scene {scene!r} is not among the packed files")
    manifest = {"format": PACK_FORMAT, "version": PACK_VERSION, "scene": scene,
                "files": {n: {"size": len(b), "sha256": sha256_hex(b)}
                          for n, b in sorted(files.items())}}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr(_info(MANIFEST), json.dumps(manifest, indent=1) + "\n")
        for name, data in sorted(files.items()):
            z.writestr(_info(name), data)
    return buf.getvalue()


def _info(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))  # the same bytes every time
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (stat.S_IFREG | 0o644) << 16
    return info


#: Packs opened in this process: (resolved path, SHA-256 of the archive) → the scene file in
#: the folder it was unpacked into.
_OPENED: dict[tuple[str, str], Path] = {}
#: Those folders, removed when the process ends.
_ROOTS: list[Path] = []


def _cleanup() -> None:
    for root in _ROOTS:
        shutil.rmtree(root, ignore_errors=True)
    _ROOTS.clear()
    _OPENED.clear()


atexit.register(_cleanup)


def _read_member(z: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int, where: str) -> bytes:
    """A member's bytes, read in chunks and stopped at ``cap`` bytes whatever the zip says."""
    out = bytearray()
    try:
        with z.open(info) as fh:
            while True:
                chunk = fh.read(1 << 16)
                if not chunk:
                    break
                out += chunk
                if len(out) > cap:
                    raise SceneError(f"{where}: member {info.filename!r} unpacks to more than "
                                     f"its size limit allows (the file_mb limit a file, "
                                     f"{MAX_TOTAL_MB} MiB in all); refused")
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError,
            NotImplementedError, RuntimeError) as exc:
        # RuntimeError: an encrypted member; NotImplementedError: an unknown compression
        raise SceneError(f"{where}: member {info.filename!r} cannot be read: {reason(exc)}") \
            from None
    return bytes(out)


def _read_archive(path: Path) -> bytes:
    """The pack file's bytes, within the ``file_mb`` limit (a :class:`SceneError` if not)."""
    try:
        return read_input_bytes(path, "scene pack")
    except FileNotFoundError:
        raise SceneError(f"{path}: no such scene pack") from None
    except FileRefused as exc:
        raise SceneError(f"{path}: {exc}") from None
    except OSError as exc:
        raise SceneError(f"{path}: not a readable scene pack: {reason(exc)}") from None


def read_pack(path: str | Path, raw: bytes | None = None) -> tuple[dict, dict[str, bytes]]:
    """Read and check a pack: its manifest and its files (member path → bytes). ``raw``: the
    archive's bytes when already read.

    Raises
    ------
    SceneError
        One line naming the pack and what is wrong (see the module's checks).
    """
    p = Path(path)
    where = str(p)
    if raw is None:
        raw = _read_archive(p)
    try:
        z = zipfile.ZipFile(io.BytesIO(raw))
        infos = z.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise SceneError(f"{where}: not a scene pack (not a zip archive: {reason(exc)})") \
            from None
    if len(infos) > MAX_MEMBERS:
        raise SceneError(f"{where}: {len(infos)} members, more than a pack may hold "
                         f"({MAX_MEMBERS}); refused")
    per_file = limit("file_mb") << 20
    total_cap = MAX_TOTAL_MB << 20
    names: set[str] = set()
    for info in infos:
        name = info.filename
        why = check_member_name(name.removesuffix("/") if info.is_dir() else name)
        if why is not None:
            raise SceneError(f"{where}: member {name[:120]!r}: {why}; refused")
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise SceneError(f"{where}: member {name!r} is a link; refused")
        if info.flag_bits & 0x1:
            raise SceneError(f"{where}: member {name!r} is encrypted; refused")
        if name.lower() in names:
            raise SceneError(f"{where}: member {name!r} appears twice; refused")
        names.add(name.lower())
        if info.file_size > per_file:
            raise SceneError(f"{where}: member {name!r} is {info.file_size >> 20} MiB, above "
                             f"the file_mb limit of {per_file >> 20} MiB "
                             f"({how_to_raise('file_mb')})")
    if MANIFEST not in {i.filename for i in infos}:
        raise SceneError(f"{where}: not a scene pack: no {MANIFEST}")
    declared = sum(i.file_size for i in infos)
    if declared > total_cap:
        raise SceneError(f"{where}: its members unpack to {declared >> 20} MiB, more than a "
                         f"pack may ({MAX_TOTAL_MB} MiB); refused")
    total = 0
    data: dict[str, bytes] = {}
    for info in infos:
        if info.is_dir():
            continue
        blob = _read_member(z, info, min(per_file, total_cap - total), where)
        total += len(blob)
        data[info.filename] = blob
    try:
        manifest = strict_json_loads(data.pop(MANIFEST))
    except ValueError as exc:
        raise SceneError(f"{where}: {MANIFEST} is not valid JSON: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != PACK_FORMAT:
        raise SceneError(f"{where}: {MANIFEST} is not a {PACK_FORMAT} manifest")
    if manifest.get("version") != PACK_VERSION or isinstance(manifest.get("version"), bool):
        raise SceneError(f"{where}: pack version {str(manifest.get('version'))[:20]!r} is not "
                         f"{PACK_VERSION}")
    listed = manifest.get("files")
    scene = manifest.get("scene")
    if not isinstance(listed, dict) or not all(isinstance(v, dict) for v in listed.values()):
        raise SceneError(f"{where}: {MANIFEST}: 'files' is not a table of files")
    if not isinstance(scene, str) or scene not in listed or not scene.lower().endswith(".toml"):
        raise SceneError(f"{where}: {MANIFEST}: 'scene' must name a packed .toml file")
    extra = sorted(set(data) - set(listed))
    missing = sorted(set(listed) - set(data))
    if extra or missing:
        raise SceneError(f"{where}: the files do not match {MANIFEST}: "
                         + (f"not listed: {extra[:5]}" if extra else f"missing: {missing[:5]}"))
    for name, entry in listed.items():
        if sha256_hex(data[name]) != entry.get("sha256"):
            raise SceneError(f"{where}: member {name!r} does not match its SHA-256 in "
                             f"{MANIFEST} (edited or corrupted)")
    return manifest, data


def open_pack(path: str | Path) -> Path:
    """Check and unpack a pack into a temporary folder (once per process and archive); return
    the path of its scene file there. The folder is removed when the process ends.

    Raises
    ------
    SceneError
        As :func:`read_pack`; or the temporary folder cannot be written.
    """
    p = Path(path)
    raw = _read_archive(p)
    key = (str(p.resolve()), sha256_hex(raw))
    if key in _OPENED and _OPENED[key].is_file():
        return _OPENED[key]
    manifest, data = read_pack(p, raw)
    root = Path(tempfile.mkdtemp(prefix="brikpack-"))
    _ROOTS.append(root)
    try:
        for name, blob in data.items():
            target = root.joinpath(*PurePosixPath(name).parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            with os.fdopen(fd, "wb") as fh:
                fh.write(blob)
    except OSError as exc:
        shutil.rmtree(root, ignore_errors=True)
        raise SceneError(f"{p}: cannot unpack into {root}: {reason(exc)}") from None
    scene = root.joinpath(*PurePosixPath(manifest["scene"]).parts)
    _OPENED[key] = scene
    return scene


def scene_dir_for_save(origin: str | Path, save_dir: str | Path | None) -> str:
    """What a save (or replay) records as its scene's place: ``origin`` (the scene's folder,
    or the pack it came from) relative to ``save_dir`` (the save's folder) in POSIX form, so
    the save and its scene can move together; absolute where no relative path exists (another
    drive) or ``save_dir`` is None (a save sent over the network)."""
    origin = Path(origin).resolve()
    if save_dir is None:
        return str(origin)
    try:
        return Path(os.path.relpath(origin, Path(save_dir).resolve())).as_posix()
    except ValueError:  # Windows: another drive
        return str(origin)


def resolve_scene_dir(value, save_dir: str | Path) -> tuple[Path, Path | None]:
    """Where a save's (or replay's) scene models are: ``(folder, pack)``.

    ``value`` is the recorded ``scene_dir``: a folder or a ``.brikpack``, relative to
    ``save_dir`` (what :func:`scene_dir_for_save` writes) or absolute (older saves); a pack is
    unpacked (:func:`open_pack`) and ``pack`` is its path. Anything missing or unusable gives
    ``(save_dir, None)``: models are then looked for next to the save.

    Raises
    ------
    SceneError
        The recorded pack exists but is refused (see :func:`read_pack`).
    """
    fallback = Path(save_dir)
    if not isinstance(value, str) or not value or "\x00" in value or len(value) > 4096:
        return fallback, None
    p = Path(value)
    if not p.is_absolute():
        p = fallback / p
    try:
        if is_pack(p) and p.is_file():
            return open_pack(p).parent, p.resolve()
        if p.is_dir():
            return p, None
    except OSError:
        pass
    return fallback, None
