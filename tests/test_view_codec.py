"""The view ``sandbox run`` sends to its PNG process, as arrays and JSON without pickle
(issue 26: :mod:`sandbox.render.view_codec`): a game's view comes back equal field for field
and array for array, draws the same picture, and a malformed message (truncated, not an
archive, bad JSON, an unknown class or field, a wrong shape or type, a pickled array) is
refused with one :class:`RenderError` line."""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile

import numpy as np
import pytest
from conftest import REPO

from sandbox.app.headless import _game_view
from sandbox.engine.game import Game
from sandbox.engine.scene import load_scene
from sandbox.render.geometry import box_triangles
from sandbox.render.view import (
    Camera,
    Marker,
    MarkerKind,
    RenderBody,
    RenderError,
    RenderMesh,
    SceneView,
)
from sandbox.render.view_codec import FIELDS, FORMAT, view_from_bytes, view_to_bytes


def assert_same(a, b, path="view"):
    """``a`` and ``b`` equal: the same classes, every field equal, every array of the same
    dtype, shape and values."""
    assert type(a) is type(b), path
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, path
        assert np.array_equal(a, b), path
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{path}.{i}")
    else:
        assert a == b, path


def _game_views(ldrawdir, *names):
    out = {}
    for name in names:
        spec, base = load_scene(REPO / "scenes" / f"{name}.toml")
        game = Game(spec, base, ldrawdir=ldrawdir)
        try:
            game.run()
            out[name] = _game_view(game, 960, 720, name == "grenade_throw")
        finally:
            game.close()
    return out


def _every_field_view() -> SceneView:
    """A view with each field set away from its default: a mesh with edges and optional lines
    shared by two bodies, a highlighted body, every marker kind, a camera, no grid."""
    v, n = box_triangles(np.array([-1.0, -1.0, 0.0]), np.array([1.0, 1.0, 1.5]))
    cols = np.tile(np.array([[0.2, 0.3, 0.9, 0.5]], np.float32), (len(v), 1))
    seg = np.array([[[-1, -1, 1.5], [1, -1, 1.5]], [[1, -1, 1.5], [1, 1, 1.5]]], np.float32)
    opt = np.array([[[0, 0, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]]], np.float32)
    mesh = RenderMesh(v.astype(np.float32), n.astype(np.float32), cols, edges=seg,
                      edge_colours=np.array([[1, 0, 0, 1], [0, 1, 0, 1]], np.float32),
                      name="box ä", optional=opt)
    other = RenderMesh(v.astype(np.float32) * 0.5, n.astype(np.float32), cols, name="small")
    bodies = [RenderBody(mesh, np.array([1.0, 2.0, 0.0]), np.array([0.0, 0.0, 0.3, 0.9]),
                         key="a"),
              RenderBody(mesh, np.array([-3.0, 0.5, 0.25]), key="b", highlight=True),
              RenderBody(other, np.zeros(3), key="c")]
    markers = [Marker.target([0.5, 0.5, 0.0], 0.75), Marker.ring([1, 1, 0], 2.5, width=0.2),
               Marker.path([[0, 0, 0], [1, 1, 1], [2, 0, 3]], width_px=3),
               Marker.flame([0.0, 1.0, 1.5], 0.4)]
    return SceneView(bodies=bodies, markers=markers, battlefield=(20.0, 12.5),
                     ground_colour=(0.3, 0.3, 0.3, 1.0), grid=False,
                     camera=Camera([10.0, -12.0, 9.0], [0.0, 0.0, 0.5], 55.0),
                     background=(0.1, 0.1, 0.2, 1.0), sun_direction=(0.1, 0.2, -1.0),
                     edges=True)


def test_a_games_view_comes_back_equal(ldrawdir):
    views = _game_views(ldrawdir, "big_drop_guard_tower", "cottage_fire", "grenade_throw")
    kinds = {m.kind for v in views.values() for m in v.markers}
    assert {MarkerKind.FLAME, MarkerKind.LINE} <= kinds  # the flames, the flight lines
    assert any(b.mesh.edges is not None for b in views["grenade_throw"].bodies)
    for name, view in views.items():
        back = view_from_bytes(view_to_bytes(view))
        assert len(back.bodies) == len(view.bodies) > 0, name
        assert_same(view, back, name)
        assert view_to_bytes(back) == view_to_bytes(view)  # the same message again


def test_every_field_comes_back_and_a_shared_mesh_stays_shared():
    view = _every_field_view()
    back = view_from_bytes(view_to_bytes(view))
    assert_same(view, back)
    assert back.bodies[0].mesh is back.bodies[1].mesh  # sent once, one GPU copy
    assert back.bodies[2].mesh is not back.bodies[0].mesh
    assert {m.kind for m in back.markers} == set(MarkerKind)
    assert back.camera is not None and back.camera.fov_deg == 55.0
    bare = SceneView()  # no bodies, no markers, no camera
    assert_same(bare, view_from_bytes(view_to_bytes(bare)))


def test_the_decoded_view_draws_the_same_picture():
    from sandbox.render.offscreen import render_array

    view = _every_field_view()
    assert np.array_equal(render_array(view, 160, 120),
                          render_array(view_from_bytes(view_to_bytes(view)), 160, 120))


def test_the_codec_knows_every_field_of_the_views_classes():
    for cls in (SceneView, RenderBody, RenderMesh, Marker, Camera):
        assert set(FIELDS[cls.__name__]) == {f.name for f in dataclasses.fields(cls)}


def test_what_is_not_a_view_is_not_sent():
    with pytest.raises(RenderError, match="must be a SceneView, got str"):
        view_to_bytes("not a view")
    view = _every_field_view()
    object.__setattr__(view, "camera", {"eye": (1, 2, 3)})  # past the view's own checks
    with pytest.raises(RenderError, match=r"view.camera must be a Camera, got dict"):
        view_to_bytes(view)


# --- malformed messages -----------------------------------------------------------------

def _parts(data: bytes) -> tuple[dict, dict[str, np.ndarray]]:
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    return json.loads(arrays.pop("header").tobytes()), arrays


def _pack(header, arrays: dict[str, np.ndarray], compressed: bool = False,
          raw_header: bytes | None = None) -> bytes:
    text = raw_header if raw_header is not None else json.dumps(header).encode()
    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(
        buf, header=np.frombuffer(text, np.uint8), **arrays)
    return buf.getvalue()


def _refused(data: bytes, match: str) -> str:
    with pytest.raises(RenderError, match=match) as got:
        view_from_bytes(data)
    message = str(got.value)
    assert message.startswith("malformed view message: ") and "\n" not in message
    return message


def test_a_truncated_or_foreign_message_is_refused():
    good = view_to_bytes(_every_field_view())
    for cut in (0, 10, len(good) // 3, len(good) - 1):
        _refused(good[:cut], "not a zip archive|cannot be read|bad array header")
    _refused(b"\x00" * 100, "not a zip archive")
    header, arrays = _parts(good)
    _refused(_pack(header, arrays, compressed=True), "compressed member")
    _refused(_pack(None, arrays, raw_header=b"{not json"), r"header: not JSON text")
    _refused(_pack(None, arrays, raw_header=b"\xff\xfe"), r"header: not JSON text")
    _refused(_pack(dict(header, format="sandbox-view/0"), arrays), f"not a {FORMAT} header")
    _refused(_pack(header, {}), "not an array of the archive")
    no_header = io.BytesIO()
    np.savez(no_header, **arrays)
    _refused(no_header.getvalue(), "no JSON header")


def test_an_unknown_class_or_field_is_refused_and_nothing_is_imported():
    header, arrays = _parts(view_to_bytes(_every_field_view()))
    bad = json.loads(json.dumps(header))
    bad["view"]["fields"]["camera"]["class"] = "subprocess.Popen"
    msg = _refused(_pack(bad, arrays), r"view.camera: unknown class 'subprocess.Popen' where "
                                       r"a Camera belongs")
    assert "subprocess" in msg
    bad = json.loads(json.dumps(header))
    bad["view"]["fields"]["camera"]["class"] = "Marker"  # a known class in the wrong place
    _refused(_pack(bad, arrays), r"view.camera: a Marker where a Camera belongs")
    bad = json.loads(json.dumps(header))
    bad["meshes"][0]["fields"]["__class__"] = "x"
    _refused(_pack(bad, arrays), r"meshes.0: RenderMesh needs the fields")
    bad = json.loads(json.dumps(header))
    bad["view"]["fields"]["markers"][0]["fields"]["kind"] = "bomb"
    _refused(_pack(bad, arrays), r"view.markers.0.kind: unknown marker kind 'bomb'")
    bad = json.loads(json.dumps(header))
    bad["view"]["fields"]["bodies"][0]["fields"]["mesh"] = {"mesh": 7}
    _refused(_pack(bad, arrays), r"view.bodies.0.mesh: not a mesh of the message")
    bad = json.loads(json.dumps(header))
    bad["view"]["fields"]["grid"] = "yes"
    _refused(_pack(bad, arrays), r"view.grid: not a bool")
    bad = json.loads(json.dumps(header))
    bad["view"]["fields"]["bodies"][1]["fields"]["key"] = 5
    _refused(_pack(bad, arrays), r"view.bodies.1.key: not a str")
    bad = json.loads(json.dumps(header))
    bad["view"]["fields"]["bodies"][0]["fields"]["position"] = {"array": "header"}
    _refused(_pack(bad, arrays), r"view.bodies.0.position: not an array of the archive")


def test_a_wrong_array_shape_or_type_is_refused():
    header, arrays = _parts(view_to_bytes(_every_field_view()))
    key = header["meshes"][0]["fields"]["normals"]["array"]
    _refused(_pack(header, dict(arrays, **{key: arrays[key][:-3]})),
             r"meshes.0: mesh 'box ä': normals \(33, 3\) != vertices \(36, 3\)")
    pos = header["view"]["fields"]["bodies"][0]["fields"]["position"]["array"]
    _refused(_pack(header, dict(arrays, **{pos: np.zeros(4)})),
             r"view.bodies.0: body 'a' position must be 3 finite numbers")
    _refused(_pack(header, dict(arrays, **{pos: np.zeros(3, np.int64)})),
             f"{pos}: unexpected array type")
    _refused(_pack(header, dict(arrays, **{pos: np.zeros((1, 1, 1, 3))})),
             rf"{pos}: unexpected array shape \(1, 1, 1, 3\)")
    pickled = io.BytesIO()  # an object array (a pickle inside the .npy) is never loaded
    np.savez(pickled, header=np.frombuffer(json.dumps(header).encode(), np.uint8),
             **dict(arrays, **{pos: np.array([{"a": 1}, None, 3], dtype=object)}))
    _refused(pickled.getvalue(), f"{pos}: unexpected array type '\\|O'")
    # a member changed after the archive was made fails its checksum
    good = _pack(header, arrays)
    blob = good.replace(b"'shape': (3,)", b"'shape': (9,)", 1)
    assert blob != good
    _refused(blob, r"cannot be read \(BadZipFile\)")
    # an .npy header that declares more than its bytes hold, in a well-formed archive
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for k, a in dict(arrays, header=np.frombuffer(json.dumps(header).encode(),
                                                      np.uint8)).items():
            npy = io.BytesIO()
            np.save(npy, a)
            data = npy.getvalue()
            if k == pos:
                data = data.replace(b"'shape': (3,)", b"'shape': (9,)", 1)
            zf.writestr(k + ".npy", data)
    _refused(buf.getvalue(), rf"{pos}: declares \(9,\) but holds 24 bytes")
