"""A :class:`~sandbox.render.view.SceneView` as bytes and back, without pickle (issue 26: the
view ``sandbox run`` hands to its PNG process, :mod:`sandbox.render.png_process`).

Format: one NumPy ``.npz`` archive (:func:`numpy.savez`, members stored, not compressed)
holding

- ``header``: uint8, the UTF-8 text of a JSON object ``{"format": FORMAT, "meshes": [...],
  "view": {...}}``;
- every array of the view under the path where it is first met: ``meshes.3.vertices``,
  ``view.bodies.0.position``, ``view.markers.1.points``, ``view.camera.eye``. An array that
  two places hold (one object) is stored once; both places name its key.

In the JSON, an object is ``{"class": NAME, "fields": {FIELD: VALUE}}`` with NAME one of
:data:`FIELDS`' classes (``SceneView``, ``RenderBody``, ``RenderMesh``, ``Marker``,
``Camera``) and exactly that class's fields; an array is ``{"array": KEY}``; a body's mesh is
``{"mesh": I}``, an index into ``meshes`` (a mesh object that several bodies share is sent once
and shared again, as the renderer's per-mesh cache expects); a :class:`MarkerKind` is its
value (``"target"``...); a tuple is a list; ``None``, booleans, numbers and strings are
themselves.

Reading builds only those classes, each where its field expects it, through its own
constructor (which checks shapes, finiteness and ranges as for any view); nothing named in a
message is imported or looked up. Archive members are read with their declared ``.npy``
header checked against their bytes before anything is allocated: float32 or float64 only
(the header uint8), C order, at most 3 dimensions; no pickle is ever loaded. Anything else
(truncated bytes, not a zip, bad JSON, an unknown class or field, a wrong type or shape)
raises :class:`~sandbox.render.view.RenderError` with one line saying where.
"""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from typing import Any

import numpy as np

from ..core.npy import NpyError, parse_npy
from .view import Camera, Marker, MarkerKind, RenderBody, RenderError, RenderMesh, SceneView

#: The ``format`` of the header this module writes and reads.
FORMAT = "sandbox-view/1"

#: What each field of each class the codec knows holds: ``array`` (an ndarray; ``array?``
#: or None), ``str``, ``bool``, ``number`` (int or float), ``numbers`` (a tuple of them),
#: ``kind`` (a MarkerKind), ``mesh`` (a RenderMesh of ``meshes``), ``[Class]`` (a sequence of
#: that class's objects), ``Class?`` (one, or None). Every field of the class is listed.
FIELDS: dict[str, dict[str, str]] = {
    "SceneView": {"bodies": "[RenderBody]", "markers": "[Marker]", "battlefield": "numbers",
                  "ground_colour": "numbers", "grid": "bool", "camera": "Camera?",
                  "background": "numbers", "sun_direction": "numbers", "edges": "bool"},
    "RenderBody": {"mesh": "mesh", "position": "array", "orientation": "array", "key": "str",
                   "highlight": "bool"},
    "RenderMesh": {"vertices": "array", "normals": "array", "colours": "array",
                   "edges": "array?", "edge_colours": "array?", "name": "str",
                   "optional": "array?", "optional_colours": "array?"},
    "Marker": {"kind": "kind", "points": "array", "colour": "numbers", "radius": "number",
               "width": "number"},
    "Camera": {"eye": "array", "target": "array", "fov_deg": "number"},
}
_CLASSES: dict[str, type] = {"SceneView": SceneView, "RenderBody": RenderBody,
                             "RenderMesh": RenderMesh, "Marker": Marker, "Camera": Camera}
#: dtypes a view's arrays may have (the view's classes make float32 or float64 of them all).
_DTYPES = {np.dtype(np.float32).str, np.dtype(np.float64).str}
_HEADER_KEY = "header"


def _bad(where: str, what: str) -> RenderError:
    return RenderError(f"malformed view message: {where}: {what}"[:400])


class _Writer:
    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self._array_keys: dict[int, str] = {}
        self.meshes: list[dict] = []
        self._mesh_index: dict[int, int] = {}

    def obj(self, value: Any, name: str, path: str) -> dict:
        cls = _CLASSES[name]
        if type(value) is not cls:
            raise RenderError(f"view_to_bytes: {path} must be a {name}, got "
                              f"{type(value).__name__}")
        _check_fields(name)
        return {"class": name, "fields": {
            f: self.value(getattr(value, f), kind, f"{path}.{f}")
            for f, kind in FIELDS[name].items()}}

    def value(self, value: Any, kind: str, path: str) -> Any:
        if kind.endswith("?"):
            return None if value is None else self.value(value, kind[:-1], path)
        if kind == "array":
            return {"array": self._array(value, path)}
        if kind == "str":
            return str(value)
        if kind == "bool":
            return bool(value)
        if kind == "number":
            return _number(value, path)
        if kind == "numbers":
            return [_number(v, f"{path}.{i}") for i, v in enumerate(value)]
        if kind == "kind":
            return MarkerKind(value).value
        if kind == "mesh":
            return {"mesh": self._mesh(value, path)}
        if kind.startswith("["):
            return [self.obj(v, kind[1:-1], f"{path}.{i}") for i, v in enumerate(value)]
        return self.obj(value, kind, path)

    def _array(self, a: Any, path: str) -> str:
        key = self._array_keys.get(id(a))
        if key is not None:
            return key
        if not isinstance(a, np.ndarray) or a.dtype.str not in _DTYPES:
            raise RenderError(f"view_to_bytes: {path} must be a float32 or float64 array, got "
                              f"{getattr(a, 'dtype', type(a).__name__)}")
        self.arrays[path] = a
        self._array_keys[id(a)] = path
        return path

    def _mesh(self, mesh: Any, path: str) -> int:
        index = self._mesh_index.get(id(mesh))
        if index is None:
            index = len(self.meshes)
            self.meshes.append(self.obj(mesh, "RenderMesh", f"meshes.{index}"))
            self._mesh_index[id(mesh)] = index
        return index


def _check_fields(name: str) -> None:
    """Refuse a class whose fields are not :data:`FIELDS`' (a field added to the class and
    not to the codec would be lost)."""
    names = {f.name for f in dataclasses.fields(_CLASSES[name])}
    if names != set(FIELDS[name]):
        raise RenderError(f"view_to_bytes: the codec knows {name}'s fields "
                          f"{sorted(FIELDS[name])}, the class has {sorted(names)}")


def _number(v: Any, path: str) -> int | float:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise RenderError(f"view_to_bytes: {path} must be a number, got {v!r}")
    return v


def view_to_bytes(view: SceneView) -> bytes:
    """The bytes of ``view`` (see the module text for the format).

    Raises
    ------
    RenderError
        ``view`` is not a :class:`SceneView`, or holds something the view's classes do not
        (another class in a field, an array of another dtype).
    """
    w = _Writer()
    tree = w.value(view, "SceneView", "view")
    header = json.dumps({"format": FORMAT, "meshes": w.meshes, "view": tree},
                        separators=(",", ":"))
    buf = io.BytesIO()
    np.savez(buf, allow_pickle=False,
             **{_HEADER_KEY: np.frombuffer(header.encode("utf-8"), dtype=np.uint8)},
             **w.arrays)
    return buf.getvalue()


def _read_members(data: bytes) -> dict[str, np.ndarray]:
    """The archive's arrays by key, each checked before it is made (see the module text)."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError):
        raise _bad("archive", "not a zip archive of arrays (truncated or not a view)") from None
    out: dict[str, np.ndarray] = {}
    total = 0
    with zf:
        for info in zf.infolist():
            name = info.filename
            if not name.endswith(".npy") or "/" in name or len(name) > 200:
                raise _bad("archive", f"unexpected member {name[:80]!r}")
            key = name[:-4]
            total += info.file_size
            if info.compress_type != zipfile.ZIP_STORED or total > len(data):
                raise _bad(key, "a compressed member, or more bytes than the message holds")
            try:
                blob = zf.read(info)
            except (zipfile.BadZipFile, OSError, EOFError, ValueError,
                    NotImplementedError, RuntimeError) as exc:
                raise _bad(key, f"cannot be read ({type(exc).__name__})") from None
            out[key] = _parse_npy(blob, key)
    return out


def _parse_npy(blob: bytes, key: str) -> np.ndarray:
    allowed = {np.dtype(np.uint8).str} if key == _HEADER_KEY else _DTYPES
    try:
        return parse_npy(blob, allowed)
    except NpyError as exc:
        raise _bad(key, str(exc)) from None


class _Reader:
    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.arrays = arrays
        self.meshes: list[RenderMesh] = []

    def obj(self, node: Any, name: str, path: str) -> Any:
        if not isinstance(node, dict) or set(node) != {"class", "fields"}:
            raise _bad(path, f"not an object of class {name}")
        got = node["class"]
        if got != name:  # only the class this place holds: never a name looked up
            raise _bad(path, f"unknown class {str(got)[:60]!r} where a {name} belongs"
                       if got not in _CLASSES else f"a {got} where a {name} belongs")
        fields = node["fields"]
        if not isinstance(fields, dict) or set(fields) != set(FIELDS[name]):
            have = sorted(map(str, fields)) if isinstance(fields, dict) else fields
            raise _bad(path, f"{name} needs the fields {sorted(FIELDS[name])}, got {have}"[:300])
        args = {f: self.value(fields[f], kind, f"{path}.{f}")
                for f, kind in FIELDS[name].items()}
        try:
            return _CLASSES[name](**args)
        except RenderError as exc:
            raise _bad(path, str(exc)) from None
        except (TypeError, ValueError, OverflowError) as exc:
            raise _bad(path, f"{type(exc).__name__}: {exc}") from None

    def value(self, node: Any, kind: str, path: str) -> Any:
        if kind.endswith("?"):
            return None if node is None else self.value(node, kind[:-1], path)
        if kind == "array":
            key = node.get("array") if isinstance(node, dict) and len(node) == 1 else None
            if not isinstance(key, str) or key not in self.arrays or key == _HEADER_KEY:
                raise _bad(path, f"not an array of the archive: {str(node)[:80]}")
            return self.arrays[key]
        if kind in ("str", "bool"):
            if type(node) is not {"str": str, "bool": bool}[kind]:
                raise _bad(path, f"not a {kind}: {str(node)[:80]}")
            return node
        if kind == "number":
            if type(node) not in (int, float):
                raise _bad(path, f"not a number: {str(node)[:80]}")
            return node
        if kind == "numbers":
            if not isinstance(node, list) or any(type(v) not in (int, float) for v in node):
                raise _bad(path, f"not a list of numbers: {str(node)[:80]}")
            return tuple(node)
        if kind == "kind":
            try:
                return MarkerKind(node)
            except ValueError:
                raise _bad(path, f"unknown marker kind {str(node)[:60]!r}") from None
        if kind == "mesh":
            i = node.get("mesh") if isinstance(node, dict) and len(node) == 1 else None
            if type(i) is not int or not 0 <= i < len(self.meshes):
                raise _bad(path, f"not a mesh of the message: {str(node)[:80]}")
            return self.meshes[i]
        if kind.startswith("["):
            if not isinstance(node, list):
                raise _bad(path, f"not a list: {str(node)[:80]}")
            return [self.obj(v, kind[1:-1], f"{path}.{i}") for i, v in enumerate(node)]
        return self.obj(node, kind, path)


def view_from_bytes(data: bytes) -> SceneView:
    """The view whose bytes :func:`view_to_bytes` made.

    Raises
    ------
    RenderError
        ``data`` is not such a message (see the module text), in one line saying where.
    """
    arrays = _read_members(bytes(data))
    raw = arrays.pop(_HEADER_KEY, None)
    if raw is None or raw.ndim != 1:
        raise _bad("archive", "no JSON header")
    try:
        header = json.loads(raw.tobytes().decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # UnicodeError and JSONDecodeError too
        raise _bad("header", f"not JSON text ({type(exc).__name__})") from None
    if not isinstance(header, dict) or set(header) != {"format", "meshes", "view"} \
            or header["format"] != FORMAT or not isinstance(header["meshes"], list):
        raise _bad("header", f"not a {FORMAT} header")
    r = _Reader(arrays)
    try:
        for i, node in enumerate(header["meshes"]):
            r.meshes.append(r.obj(node, "RenderMesh", f"meshes.{i}"))
        return r.obj(header["view"], "SceneView", "view")
    except RecursionError:
        raise _bad("header", "nested too deeply") from None


__all__ = ["FIELDS", "FORMAT", "view_from_bytes", "view_to_bytes"]
