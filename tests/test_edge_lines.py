"""LDraw edge lines (issue 19): type-2 lines always, type-5 optional lines on silhouettes.

The reader keeps both line types, the part and model layers carry them with their colours
(24 = the LDConfig edge colour of the placement's colour), a game body hands them to the
renderer in its own frame, and the offscreen renderer draws type 2 always and type 5 only
where the GLSL test of :mod:`sandbox.render.shaders` finds both control points on one side.
"""

from __future__ import annotations

import numpy as np
import pytest

from sandbox.bricks.colours import ColourTable, darker_shade
from sandbox.bricks.ldraw import parse_ldraw

pytest.importorskip("panda3d")
from imaging import assert_matches_golden, rms  # noqa: E402

from sandbox.engine.assets import build_part_asset  # noqa: E402
from sandbox.render import (  # noqa: E402
    Camera,
    OffscreenRenderer,
    RenderBody,
    RenderMesh,
    SceneView,
)
from sandbox.render.from_game import DETAILS, render_mesh_of, scene_view  # noqa: E402

PARTS = (("brick", "3001", 4, -1.3), ("round", "3062b", 14, 0.2), ("cone", "4589", 1, 1.2),
         ("slope", "3040b", 0, 2.3))
CAMERA = Camera((2.6, -4.4, 2.8), (0.5, 0.0, 0.3), 34.0)


def _on_table(part: str, colour: int, x: float, ldrawdir):
    a = build_part_asset(part, colour, ldrawdir)
    a.move_to_drop((x, 0.0), 0.0)
    a.attach(np.array([x, 0.0, 0.0]), np.eye(3))
    return a


@pytest.fixture(scope="module")
def parts(ldrawdir):
    return {k: _on_table(p, c, x, ldrawdir) for k, p, c, x in PARTS}


@pytest.fixture(scope="module")
def renderer():
    with OffscreenRenderer(320, 240) as r:
        yield r


def _poses(assets):
    return {k: (np.array([x, 0.0, 0.0]), np.array([0.0, 0.0, 0.0, 1.0]))
            for k, _p, _c, x in PARTS if k in assets}


def test_the_reader_keeps_type_2_and_type_5_lines():
    text = ("0 test part\n0 BFC CERTIFY CCW\n"
            "2 24 0 0 0 10 0 0\n"
            "5 24 0 0 0 0 -4 0 10 0 0 -10 0 0\n"
            "5 4 1 2 3 4 5 6 7 8 9 10 11 12\n"
            "3 16 0 0 0 10 0 0 0 0 10\n")
    (f,) = parse_ldraw(text, "t.dat", strict=True, warnings=[])
    assert f.edges.shape == (1, 2, 3) and f.edge_colours.tolist() == [24]
    assert f.optional.shape == (2, 4, 3) and f.n_conditional == 2
    assert f.optional_colours.tolist() == [24, 4]
    assert f.optional[1].reshape(-1).tolist() == list(range(1, 13))


def test_edge_colour_comes_from_ldconfig_else_a_darker_shade(parts):
    red = parts["brick"].edge_lines()
    # LDConfig: Red CODE 4 EDGE #333333, Black CODE 0 EDGE #808080
    assert len(red.edges) > 0 and len(red.optional) > 0
    assert np.allclose(red.edge_colours, [0x33 / 255, 0x33 / 255, 0x33 / 255, 1.0], atol=1e-3)
    black = parts["slope"].edge_lines()
    assert np.allclose(black.edge_colours[:, :3], 0x80 / 255, atol=1e-3)
    table = ColourTable.builtin()
    direct = 0x2CC6600  # a direct colour has no EDGE value: half its brightness
    assert table.edge_rgba(direct) == pytest.approx((0.4, 0.2, 0.0, 1.0), abs=1e-3)
    assert darker_shade((0.05, 0.05, 0.05, 1.0)) == (0.5, 0.5, 0.5, 1.0)


def test_lines_are_in_the_body_frame_on_the_part(parts):
    for key, a in parts.items():
        lines = a.edge_lines()
        lo, hi = a.local_vertices.min(axis=0), a.local_vertices.max(axis=0)
        pts = np.concatenate([lines.edges.reshape(-1, 3), lines.optional[:, :2].reshape(-1, 3)])
        assert np.all(pts >= lo - 1e-3) and np.all(pts <= hi + 1e-3), key
        assert set(np.unique(lines.edge_index).tolist()) <= set(a.tags)


def test_lines_follow_the_body_frame(ldrawdir):
    """World frame before attach, body frame after: the cache is dropped on a frame change."""
    a = build_part_asset("3062b", 14, ldrawdir)
    a.move_to_drop((3.0, 1.0), 0.0)
    world = a.edge_lines().edges.copy()
    lo = world.reshape(-1, 3).min(axis=0)
    assert lo[2] == pytest.approx(0.0, abs=0.02) and np.all(world[..., 0] > 2.5)
    turn = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    a.attach(np.array([3.0, 1.0, 0.5]), turn)
    local = a.edge_lines().edges
    assert np.allclose(local, (world - [3.0, 1.0, 0.5]) @ turn, atol=1e-5)


def test_render_mesh_carries_lines_only_when_asked(parts):
    a = parts["cone"]
    full = DETAILS["full"]
    plain, lined = render_mesh_of(a, detail=full), render_mesh_of(a, edges=True, detail=full)
    assert plain.n_edges == 0 and plain.n_optional == 0
    assert lined.n_edges == len(a.edge_lines().edges) and lined.n_optional > 0
    # low-resolution studs (the default) draw the stud's circles with 8 lines, not 16
    low = render_mesh_of(a, edges=True, detail=DETAILS["low"])
    assert 0 < low.n_edges < lined.n_edges and low.n_triangles < lined.n_triangles
    lined = low
    scorched = render_mesh_of(a, destroyed=True, edges=True)
    assert scorched.edge_colours.mean() != pytest.approx(lined.edge_colours.mean())
    joined = RenderMesh.concatenate([lined, lined])
    assert joined.n_optional == 2 * lined.n_optional


def _changed(img: np.ndarray, base: np.ndarray) -> int:
    return int((np.abs(img[..., :3].astype(int) - base[..., :3].astype(int)).sum(-1) > 60).sum())


def test_optional_lines_show_only_on_silhouettes(parts, renderer):
    """A round brick close up: its optional lines run down the cylinder. Drawn always they
    stripe the whole side; through the shader only the two outline lines (and the stud's)
    show: more than the type-2 lines alone, far fewer than all optional lines."""
    a = parts["round"]
    lines = a.edge_lines()
    cam = Camera((0.2 + 1.2, -1.9, 0.9), (0.2, 0.0, 0.28), 30.0)

    def picture(edges, colours, optional):
        mesh = RenderMesh(a.local_vertices, a.local_normals, a.local_colours, edges=edges,
                          edge_colours=colours, optional=optional,
                          optional_colours=None if optional is None else lines.optional_colours)
        body = RenderBody(mesh, (0.2, 0.0, 0.0), (0, 0, 0, 1), key="round")
        return renderer.render(SceneView(bodies=[body], battlefield=(6, 6), camera=cam,
                                         grid=False))

    none = picture(None, None, None)
    type2 = _changed(picture(lines.edges, lines.edge_colours, None), none)
    shader = _changed(picture(lines.edges, lines.edge_colours, lines.optional), none)
    every = _changed(picture(np.concatenate([lines.edges, lines.optional[:, :2]]),
                             np.concatenate([lines.edge_colours, lines.optional_colours]),
                             None), none)
    assert type2 > 200
    assert shader > type2 + 40  # the silhouettes
    assert every > shader + 200  # the hidden optional lines stay hidden


def test_golden_edge_lines_and_the_toggle(parts, renderer):
    on = scene_view(parts, _poses(parts), (8.0, 6.0), camera=CAMERA, edges=True)
    img = renderer.render(on)[..., :3]
    assert renderer.last_stats.body_geoms == 3 * len(parts)  # faces, type 2, optional
    assert_matches_golden(img, "edge_lines", renderer.backend)
    off = SceneView(bodies=on.bodies, battlefield=on.battlefield, camera=CAMERA,
                    ground_colour=on.ground_colour, edges=False)
    bare = renderer.render(off)[..., :3]
    assert renderer.last_stats.body_geoms == len(parts)
    assert rms(img, bare) > 4.0  # the lines are what the golden shows
    plain = renderer.render(scene_view(parts, _poses(parts), (8.0, 6.0), camera=CAMERA))
    assert rms(plain[..., :3], bare) < 1.0  # a game picture without edges is the default


def test_run_picture_option_draws_the_lines(ldrawdir):
    """``sandbox run --edges`` reaches the picture: the same game state with and without."""
    import io
    from pathlib import Path

    from PIL import Image

    from sandbox.app.headless import render_game_png_bytes
    from sandbox.engine.game import open_game

    scene = Path(__file__).resolve().parents[1] / "scenes" / "skirmish.toml"
    with open_game(scene, ldrawdir=ldrawdir) as game:
        plain, lined = (np.asarray(Image.open(io.BytesIO(
            render_game_png_bytes(game, 320, 240, edges=e))).convert("RGB")) for e in (False, True))
    assert rms(plain, lined) > 0.5
