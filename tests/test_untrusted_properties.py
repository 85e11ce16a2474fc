"""Property tests (hypothesis): the LDraw line parser, the scene loader, the replay loader and
the save loader raise nothing but the project's own error types, whatever they are given."""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox.bricks.ldraw import parse_ldraw
from sandbox.core.errors import LDrawError, ReplayError, SandboxError, SceneError
from sandbox.engine import replay as rp
from sandbox.engine.game import Game, save_file_checksum
from sandbox.engine.scene import load_scene, scene_from_dict

FAST = settings(max_examples=40, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

# ------------------------------------------------------------------ LDraw lines
_TOKENS = st.sampled_from([
    "0", "1", "2", "3", "4", "5", "6", "16", "24", "-1", "0x2FF0000", "#3ABCDEF", "1e30",
    "1e308", "nan", "inf", "-0", "0.5", "99999999999999999999999", "FILE", "NOFILE", "!DATA",
    "BFC", "CERTIFY", "INVERTNEXT", "CW", "NOCLIP", "!LDRAW_ORG", "Part", "3001.dat",
    "s\\3001s01.dat", "../x.ldr", "/etc/hostname", "sub.ldr", "\ufeff0", "[bold]", "[/]", "",
])
_LINE = st.one_of(
    st.lists(_TOKENS, min_size=0, max_size=16).map(" ".join),
    st.text(max_size=40),
)


@FAST
@given(lines=st.lists(_LINE, max_size=25))
def test_ldraw_parser_raises_only_ldraw_errors(lines):
    text = "\n".join(lines)
    try:
        parse_ldraw(text, "m.ldr", strict=True, warnings=[])
    except LDrawError:
        pass
    warns: list = []
    parse_ldraw(text, "lib.dat", strict=False, warnings=warns)  # lenient: never raises


# ------------------------------------------------------------------ scenes
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                     st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12))
_KEYS = st.sampled_from([
    "name", "seed", "format", "battlefield", "width", "depth", "players", "creations", "units",
    "reserves", "actions", "launchers", "id", "parts", "part", "colour", "position", "rotation",
    "stats", "armor", "size", "move", "weapons", "type", "owner", "model", "player", "turn",
    "expect", "destroyed", "creation", "muzzle", "loading_area", "forced_dice", "escapade",
])
_JSONISH = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(_KEYS, inner, max_size=5)),
    max_leaves=25,
)


def _base_scene() -> dict:
    return {"name": "t", "players": [{"name": "Red"}],
            "units": [{"id": "a", "owner": "Red", "parts": [{"part": "3001"}]}]}


@FAST
@given(data=st.dictionaries(_KEYS, _JSONISH, max_size=6))
def test_scene_loader_raises_only_scene_errors(data):
    for doc in (data, {**_base_scene(), **data}):
        try:
            scene_from_dict(doc, "<fuzz>")
        except SceneError:
            pass


@FAST
@given(text=st.one_of(st.text(max_size=200),
                      st.lists(st.sampled_from(['[[units]]', 'id = "a"', "parts = [{part = 1}]",
                                                "seed = inf", "x = [[[[]]]]", "[battlefield]",
                                                "width = true", "format = 9", "name = '\\n'"]),
                               max_size=8).map("\n".join)))
def test_scene_file_loader_raises_only_scene_errors(tmp_path, text):
    path = tmp_path / "f.toml"
    path.write_bytes(text.encode("utf-8", errors="replace"))
    try:
        load_scene(path)
    except SceneError:
        pass


# ------------------------------------------------------------------ replays
@pytest.fixture(scope="module")
def replay_bytes(tmp_path_factory) -> bytes:
    rec = rp.Recorder(1 / 60)
    for f in range(12):
        rec.record({"a": ((0.0, 0.0, 6 - 0.5 * f), (0, 0, 0, 1)), "b": ((1.0, 0, 0), (0, 0, 0, 1))})
    rec.finish({"a": ((0.0, 0.0, 0.0), (0, 0, 0, 1))})
    r = rp.Replay(scene={"name": "t"}, seed=3, actions=[{"type": "x"}],
                  events=[{"type": "setup", "text": "[bold]x"}], tracks=rec.tracks,
                  frame_dt=rec.frame_dt, frames=rec.frame)
    return rp.replay_bytes(r)


@FAST
@given(flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), max_size=6),
       cut=st.one_of(st.none(), st.integers(0, 10**6)))
def test_replay_loader_raises_only_replay_errors(tmp_path, replay_bytes, flips, cut):
    data = bytearray(replay_bytes)
    for pos, mask in flips:
        data[pos % len(data)] ^= mask
    if cut is not None:
        data = data[: cut % (len(data) + 1)]
    path = tmp_path / "f.replay"
    path.write_bytes(bytes(data))
    try:
        rp.load_replay(path)
    except ReplayError:
        pass


@FAST
@given(header=st.one_of(_JSONISH, st.fixed_dictionaries({"scene_dir": _SCALARS,
                                                         "finished": _SCALARS})),
       key=st.sampled_from(["scene", "seed", "actions", "events", "bodies", "frame_dt",
                            "frames", "meta", "version"]))
def test_replay_header_fields_of_any_type(tmp_path, replay_bytes, header, key):
    """A header field replaced by any JSON value (checksum recomputed, so the loader's type
    checks are what stands in the way)."""
    import io

    import numpy as np

    path = tmp_path / "orig.replay"
    path.write_bytes(replay_bytes)
    with zipfile.ZipFile(path) as z:
        arrays = {n[:-4]: np.load(io.BytesIO(z.read(n))) for n in z.namelist()}
    doc = json.loads(arrays.pop("header_json").tobytes())
    doc.pop("checksum")
    doc[key] = header
    try:
        doc["checksum"] = rp._checksum(doc, arrays)
        raw = json.dumps(doc, allow_nan=False).encode()
    except ValueError:  # NaN in the fuzzed value: not JSON at all
        return
    buf = io.BytesIO()
    np.savez_compressed(buf, header_json=np.frombuffer(raw, np.uint8), **arrays)
    (tmp_path / "h.replay").write_bytes(buf.getvalue())
    try:
        loaded = rp.load_replay(tmp_path / "h.replay")
    except ReplayError:
        return
    from rich.console import Console

    from sandbox.app.replay_cli import print_info

    try:  # what loads is also summarised without a crash (`sandbox replay --info`)
        print_info(tmp_path / "h.replay", loaded, Console(file=io.StringIO(), markup=False))
    except ReplayError:
        pass


# ------------------------------------------------------------------ saves
@pytest.fixture(scope="module")
def save_doc(tmp_path_factory, ldrawdir) -> tuple[dict, Path]:
    folder = tmp_path_factory.mktemp("save")
    scene = folder / "s.toml"
    scene.write_text('name = "t"\n[[players]]\nname = "Red"\n[[units]]\nid = "a"\n'
                     'owner = "Red"\nparts = [{part = "3001"}]\n')
    spec, base = load_scene(scene)
    with Game(spec, base, ldrawdir=ldrawdir) as game:
        path = game.save(folder / "g.save.json")
    return json.loads(path.read_text()), folder


@FAST
@given(value=_JSONISH, key=st.sampled_from(["scene", "seed", "actions", "turn", "player",
                                             "over", "checksum", "scene_dir", "version"]),
       resign=st.booleans())
def test_save_loader_raises_only_replay_errors(save_doc, ldrawdir, value, key, resign):
    doc, folder = save_doc
    doc = dict(doc)
    doc[key] = value
    if resign:  # get past the file checksum to the loader's own checks
        try:
            doc["file_checksum"] = save_file_checksum(doc)
        except ValueError:
            return
    try:
        text = json.dumps(doc, allow_nan=True)
    except (ValueError, TypeError):
        return
    path = folder / "f.save.json"
    path.write_text(text)
    try:
        Game.load(path, ldrawdir).close()
    except ReplayError:
        pass


@FAST
@given(text=st.one_of(st.text(max_size=120), _JSONISH.map(
    lambda v: json.dumps(v) if not _has_nan(v) else "{}")))
def test_save_loader_on_any_text(tmp_path, text):
    path = tmp_path / "t.save.json"
    path.write_bytes(text.encode("utf-8", errors="replace"))
    try:
        Game.load(path)
    except SandboxError as exc:
        assert isinstance(exc, ReplayError), exc


def _has_nan(v) -> bool:
    if isinstance(v, float):
        return not math.isfinite(v)
    if isinstance(v, dict):
        return any(_has_nan(x) for x in v.values())
    if isinstance(v, list):
        return any(_has_nan(x) for x in v)
    return False
