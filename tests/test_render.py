"""Offscreen rendering: golden frame, placement, reuse, batching, input checks.

Golden frames are named with the GL backend (``boxes_llvmpipe.png``), as dm_control's
``mujoco/testing/image_utils.py`` does; only llvmpipe goldens are stored, and a missing golden
fails. Set ``SANDBOX_UPDATE_GOLDEN=1`` to rewrite the golden files.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("panda3d")
trimesh = pytest.importorskip("trimesh")
from imaging import GOLDEN_DIR, RMS_TOLERANCE, assert_matches_golden, rms  # noqa: E402,F401
from PIL import Image  # noqa: E402

from sandbox.render import (  # noqa: E402
    Camera,
    Marker,
    OffscreenRenderer,
    RenderBody,
    RenderError,
    RenderMesh,
    SceneView,
    render_array,
    render_png,
)

STUD = 8.0 / 25.4  # inches
BRICK_H = 9.6 / 25.4  # inches
RED = (0.788, 0.102, 0.035, 1.0)
BLUE = (0.0, 0.333, 0.749, 1.0)
YELLOW = (0.949, 0.804, 0.216, 1.0)
WHITE = (0.95, 0.95, 0.95, 1.0)


# -- helpers ------------------------------------------------------------------------------


def _to_render_mesh(part, colour, name: str, edges: bool = True) -> RenderMesh:
    """A trimesh part → flat-shaded RenderMesh with its sharp edges as lines."""
    tri = part.triangles.reshape(-1, 3).astype(np.float32)
    normals = np.repeat(part.face_normals, 3, axis=0).astype(np.float32)
    colours = np.tile(np.asarray(colour, np.float32), (len(tri), 1))
    segs = None
    if edges:
        sharp = part.face_adjacency_edges[part.face_adjacency_angles > 0.5]
        segs = part.vertices[sharp].astype(np.float32)
    return RenderMesh(tri, normals, colours, edges=segs, name=name)


def brick_parts(nx: int, ny: int, colour, name: str = "brick", edges: bool = True):
    """The parts of an nx x ny brick (a box and its studs), origin at the bottom centre."""
    box = trimesh.creation.box(extents=(nx * STUD - 0.004, ny * STUD - 0.004, BRICK_H))
    box.apply_translation((0, 0, BRICK_H / 2))
    parts = [_to_render_mesh(box, colour, name, edges)]
    for i in range(nx):
        for j in range(ny):
            stud = trimesh.creation.cylinder(radius=2.4 / 25.4, height=1.7 / 25.4, sections=16)
            stud.apply_translation(((i - (nx - 1) / 2) * STUD, (j - (ny - 1) / 2) * STUD,
                                    BRICK_H + 0.85 / 25.4))
            parts.append(_to_render_mesh(stud, colour, name, edges))
    return parts


def brick(nx: int, ny: int, colour, name: str = "brick", edges: bool = True) -> RenderMesh:
    return RenderMesh.concatenate(brick_parts(nx, ny, colour, name, edges), name=name)


def yaw(deg: float) -> tuple[float, float, float, float]:
    """(x, y, z, w) quaternion of a turn of ``deg`` degrees about +Z."""
    h = math.radians(deg) / 2
    return (0.0, 0.0, math.sin(h), math.cos(h))


def red_mask(image: np.ndarray) -> np.ndarray:
    r, g, b = (image[..., i].astype(int) for i in range(3))
    return (r > 120) & (g < 80) & (b < 80)


TOP_DOWN = Camera(eye=(0.0, 0.0, 20.0), target=(0.0, 0.0, 0.0), fov_deg=40.0)


@pytest.fixture(scope="module")
def renderer():
    with OffscreenRenderer(320, 240) as r:
        yield r


# -- tests --------------------------------------------------------------------------------


def boxes_view() -> SceneView:
    bodies = [
        RenderBody(brick(4, 2, RED, "red"), position=(-1.2, 0.2, 0.0), orientation=yaw(15),
                   key="red"),
        RenderBody(brick(2, 2, BLUE, "blue"), position=(0.9, -0.6, 0.0), key="blue"),
        RenderBody(brick(2, 4, YELLOW, "yellow"), position=(0.9, -0.4, BRICK_H),
                   orientation=yaw(-20), key="yellow", highlight=True),
        RenderBody(brick(1, 2, WHITE, "white"), position=(0.2, 1.4, 0.0), orientation=yaw(90),
                   key="white"),
    ]
    markers = [Marker.target((-1.5, -1.8, 0.0), size=0.8), Marker.ring((-1.5, -1.8, 0.0), 0.9),
               Marker.line((-2.5, 1.5, 0.1), (1.5, 1.5, 2.0), colour=(1, 1, 1, 1))]
    cam = Camera.framing((-2.5, -2.5, 0.0), (2.5, 2.5, 1.0), aspect=320 / 240)
    return SceneView(bodies=bodies, markers=markers, battlefield=(12.0, 12.0), camera=cam)


def test_golden_boxes(renderer):
    image = renderer.render(boxes_view())[:, :, :3]
    assert image.shape == (240, 320, 3)
    # a sanity floor that holds on every backend: all brick colours are visible
    assert red_mask(image).sum() > 300
    assert_matches_golden(image, "boxes", renderer.backend)


def test_render_is_deterministic(renderer):
    a = renderer.render(boxes_view())
    b = renderer.render(boxes_view())
    assert rms(a, b) == 0.0


@pytest.mark.parametrize("x, left", [(-3.0, True), (3.0, False)])
def test_body_position_moves_it_in_the_picture(renderer, x, left):
    body = RenderBody(brick(4, 4, RED, edges=False), position=(x, 0.0, 0.0), key="r")
    image = renderer.render(SceneView(bodies=[body], battlefield=(12, 12), camera=TOP_DOWN,
                                      grid=False))
    ys, xs = np.nonzero(red_mask(image))
    assert len(xs) > 100
    cx = xs.mean()
    # +X is to the right when looking down with +Y up in the picture (right-handed, Z up)
    assert (cx < 160) == left, f"red centroid x={cx:.1f}"
    assert abs(ys.mean() - 120) < 10  # y = 0 is mid-height


def test_body_orientation_turns_it(renderer):
    mesh = brick(8, 1, RED, edges=False)  # long along X
    spans = []
    for q in [(0, 0, 0, 1), yaw(90)]:
        image = renderer.render(SceneView(
            bodies=[RenderBody(mesh, orientation=q, key="bar")], battlefield=(12, 12),
            camera=TOP_DOWN, grid=False))
        ys, xs = np.nonzero(red_mask(image))
        spans.append((np.ptp(xs), np.ptp(ys)))
    (w0, h0), (w1, h1) = spans
    assert w0 > 3 * h0 and h1 > 3 * w1, spans


def test_z_is_up(renderer):
    cam = Camera(eye=(0.0, -30.0, 1.0), target=(0.0, 0.0, 1.0), fov_deg=30.0)
    body = RenderBody(brick(2, 2, RED, edges=False), position=(0.0, 0.0, 3.0), key="high")
    image = renderer.render(SceneView(bodies=[body], battlefield=(12, 12), camera=cam))
    ys, _ = np.nonzero(red_mask(image))
    assert ys.mean() < 120  # above the horizon line through z = 1 → upper half


def test_renderer_reuse_leaves_nothing_behind(renderer):
    baseline = renderer.scene_node_count
    full = renderer.render(boxes_view())
    assert renderer.scene_node_count == baseline
    empty = renderer.render(SceneView(battlefield=(12, 12), camera=boxes_view().camera))
    assert red_mask(empty).sum() == 0  # no red brick left over from the previous frame
    assert red_mask(full).sum() > 300


def test_two_renderers_in_one_process():
    view = boxes_view()
    first = render_array(view, 160, 120)
    with OffscreenRenderer(160, 120) as r:
        second = r.render(view)[:, :, :3]
    with OffscreenRenderer(200, 100, shadows=False, multisamples=0) as r:
        third = r.render(view)
    assert first.shape == (120, 160, 3) and third.shape == (100, 200, 4)
    assert rms(first, second) == 0.0
    with pytest.raises(RenderError):
        r.render(view)  # closed


def test_one_geom_per_body_however_many_parts(renderer):
    one_part = brick(2, 2, RED, edges=False)
    many_parts = RenderMesh.concatenate(
        [p for k in range(10) for p in brick_parts(4, 2, BLUE, edges=True)], name="stack")
    assert len(brick_parts(4, 2, BLUE)) * 10 == 90
    renderer.render(SceneView(bodies=[RenderBody(one_part, key="a")], camera=TOP_DOWN))
    assert renderer.last_stats.body_geoms == 1
    renderer.render(SceneView(bodies=[RenderBody(many_parts, key="b")], camera=TOP_DOWN))
    assert renderer.last_stats.body_geoms == 2  # triangles + edge lines
    assert renderer.last_stats.triangles == many_parts.n_triangles
    bodies = [RenderBody(many_parts, position=(i, 0, 0), key=f"b{i}") for i in range(5)]
    renderer.render(SceneView(bodies=bodies, camera=TOP_DOWN))
    assert renderer.last_stats.bodies == 5
    assert renderer.last_stats.body_geoms == 10


def test_markers_are_drawn(renderer):
    ring = Marker.ring((0, 0, 0), 3.0, colour=(0.0, 0.0, 1.0, 1.0), width=0.4)
    image = renderer.render(SceneView(markers=[ring], battlefield=(12, 12), camera=TOP_DOWN,
                                      grid=False))
    blue = (image[..., 2] > 200) & (image[..., 0] < 60) & (image[..., 1] < 60)
    ys, xs = np.nonzero(blue)
    assert len(xs) > 200
    assert abs(xs.mean() - 160) < 4 and abs(ys.mean() - 120) < 4  # a ring around the centre
    assert not blue[120, 160]  # ... with a hole in the middle
    target = renderer.render(SceneView(markers=[Marker.target((0, 0, 0), size=2.0)],
                                       battlefield=(12, 12), camera=TOP_DOWN, grid=False))
    assert red_mask(target).sum() > 200


def test_render_png_writes_a_picture(tmp_path):
    out = render_png(SceneView(battlefield=(6, 6)), tmp_path / "sub" / "empty.png", 64, 48,
                     shadows=False)
    assert out.exists()
    assert Image.open(out).size == (64, 48)


@pytest.mark.parametrize(
    "make",
    [
        lambda: RenderMesh(np.zeros((4, 3)), np.zeros((4, 3)), np.zeros((4, 4))),
        lambda: RenderMesh(np.zeros((3, 3)), np.zeros((3, 3)), np.zeros((3, 3))),
        lambda: RenderMesh(np.zeros((3, 3)), np.zeros((3, 3)), np.zeros((3, 4)),
                           edges=np.zeros((2, 3))),
        lambda: RenderBody(brick(1, 1, RED), orientation=(0, 0, 0, 0)),
        lambda: Marker.ring((0, 0, 0), -1.0),
        lambda: Camera(eye=(1, 1, 1), target=(1, 1, 1)),
        lambda: SceneView(battlefield=(0, 10)),
        lambda: SceneView(sun_direction=(0, 0, 1)),
        lambda: OffscreenRenderer(0, 10),
    ],
)
def test_bad_input_raises_render_error(make):
    with pytest.raises(RenderError):
        make()


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs Linux /proc")
def test_closing_a_renderer_frees_its_gl_resources():
    def rss_mib() -> float:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf(
            "SC_PAGE_SIZE") / 2**20

    view = SceneView(battlefield=(6, 6))
    with OffscreenRenderer(320, 240) as r:
        r.render(view)
    before = rss_mib()
    for _ in range(6):
        with OffscreenRenderer(320, 240) as r:  # each holds a 2048² shadow map while open
            r.render(view)
    assert rss_mib() - before < 60.0  # a leaked shadow buffer + context is ~30 MiB each


def test_first_picture_with_shadows_is_the_same_drawn_whole_or_primed_small(monkeypatch):
    """A renderer's first picture with shadows takes two frames; the first (which only makes
    the shadow buffer) is drawn into a few pixels (issue 26). The picture is the one drawn
    with a whole first frame, pixel for pixel."""
    from sandbox.render import offscreen

    view = boxes_view()
    small = render_array(view, 320, 240)
    monkeypatch.setattr(offscreen, "_PRIMING_REGION", 1.0)  # the whole picture, as before
    whole = render_array(view, 320, 240)
    assert red_mask(small).sum() > 300
    assert np.array_equal(small, whole)
