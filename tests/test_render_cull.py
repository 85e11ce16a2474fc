"""Issue 26, "draw what can be seen": studs and tubes hidden by connected parts are not drawn,
low-resolution stud primitives, and the pieces of a broken creation draw the studs a break
uncovers (their geometry comes from their own parts)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sandbox.bricks.ldraw import parse_ldraw
from sandbox.bricks.library import get_library
from sandbox.bricks.lowres import circle_primitive_text, low_res_part
from sandbox.bricks.model import load_model
from sandbox.bricks.partmesh import feature_arrays, get_part_mesh
from sandbox.bricks.visible import creation_geometry, hidden_features, visible_mesh
from sandbox.render.from_game import DETAIL_ENV, DETAILS, default_detail, render_mesh_of
from sandbox.render.view import RenderError

IDENTITY = "1 0 0 0 1 0 0 0 1"


def _model(tmp_path: Path, ldrawdir, lines: list[str]):
    path = tmp_path / "m.ldr"
    path.write_text("0 test\n0 Name: m.ldr\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return load_model(path, ldrawdir=ldrawdir)


def _line(colour: int, x: float, y: float, z: float, part: str) -> str:
    return f"1 {colour} {x} {y} {z} {IDENTITY} {part}"


def test_part_meshes_say_which_stud_or_tube_draws_each_triangle(ldrawdir):
    pm = get_part_mesh("3001.dat", ldrawdir)
    tri, edge, opt = feature_arrays(pm)
    assert len(tri) == len(pm.triangles) and len(edge) == len(pm.edges)
    assert len(opt) == len(pm.optional)
    assert len(pm.studs) == 8 and len(pm.tubes) == 3
    for s, stud in enumerate(pm.studs):
        mine = pm.triangles[tri == s].reshape(-1, 3)
        assert len(mine) == 48 * 3  # stud.dat: a 16-segment cylinder (32) and its top (16)
        assert np.allclose(mine[:, [0, 2]].mean(axis=0), stud[[0, 2]])
        assert mine[:, 1].min() == pytest.approx(stud[1] - 4.0)  # 4 LDU tall, -Y up
    for j, tube in enumerate(pm.tubes):
        mine = pm.triangles[tri == -2 - j].reshape(-1, 3)
        assert len(mine) and np.allclose(mine[:, [0, 2]].mean(axis=0), tube[[0, 2]])
    # the body: everything else, no stud or tube triangle left untagged
    assert 0 < int((tri == -1).sum()) < 40


@pytest.mark.parametrize("name", ["4-4cyli.dat", "4-4disc.dat", "4-4edge.dat", "4-4ndis.dat",
                                  "4-4ring3.dat", "1-4cyli.dat", "3-4cyli.dat", "1-8cyli.dat",
                                  "2-4ndis.dat", "3-8edge.dat"])
def test_generated_circles_at_16_segments_are_the_library_primitives(name, ldrawdir):
    """The generator lays circles out as LDraw does: at LDraw's own 16 segments it gives the
    library's file (same corners, same area, same faces' sides; the diagonal a quad is split
    along may differ)."""
    want = get_library(ldrawdir).read(name)
    got = parse_ldraw(circle_primitive_text(name, 16), Path(name), strict=False, warnings=[])[0]

    def summary(f):
        t = f.triangles
        cross = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
        corners = np.unique(np.round(t.reshape(-1, 3), 3), axis=0) if len(t) else np.zeros(0)
        lines = np.unique(np.round(np.sort(f.edges.reshape(-1, 3), axis=0), 3), axis=0)
        return corners, np.linalg.norm(cross, axis=1).sum(), cross.sum(axis=0), lines, \
            len(f.edges), len(f.optional)

    for a, b in zip(summary(want), summary(got), strict=True):
        assert np.allclose(a, b, atol=2e-3)


def test_low_resolution_studs_have_8_segments_and_the_same_studs(ldrawdir, tmp_path):
    m = _model(tmp_path, ldrawdir, [_line(4, 0, 0, 0, "3001.dat")])
    full, low = m.parts["3001.dat"], low_res_part(m, "3001.dat")
    assert np.array_equal(full.studs, low.studs) and np.array_equal(full.tubes, low.tubes)
    tri = feature_arrays(low)[0]
    assert all(int((tri == s).sum()) == 24 for s in range(8))  # 16 + 8, not 32 + 16
    assert len(low.triangles) < len(full.triangles) * 0.6
    assert low_res_part(m, "3001.dat") is low  # made once, kept on the library
    # the body (no stud primitive) is untouched
    assert np.array_equal(full.triangles[feature_arrays(full)[0] == -1],
                          low.triangles[tri == -1])


def test_a_brick_on_a_brick_hides_the_studs_and_tubes_between_them(ldrawdir, tmp_path):
    m = _model(tmp_path, ldrawdir, [_line(4, 0, 0, 0, "3001.dat"),
                                    _line(1, 0, -24, 0, "3001.dat")])
    h = hidden_features(m)
    assert h.studs[0].all() and not h.studs[1].any()  # the lower brick's 8 studs only
    assert h.tubes[1].all() and not h.tubes[0].any()  # the upper one's underside is closed
    assert h.closed.tolist() == [False, True]
    full, _ = visible_mesh(m)
    seen, lines = visible_mesh(m, hidden=h)
    assert full.n_triangles - seen.n_triangles == 8 * 48 + 3 * 96
    assert len(lines.edges) < len(visible_mesh(m)[1].edges)


@pytest.mark.parametrize("top, why", [
    ((47, 0, -24, 0, "3001.dat"), "a translucent brick shows what is inside it"),
    ((1, 10, -24, 0, "3001.dat"), "half a stud over the edge: its underside is open"),
    ((1, 20, -24, 0, "3001.dat"), "a stud row over the edge: its underside is open"),
])
def test_nothing_is_hidden_where_it_could_be_seen(ldrawdir, tmp_path, top, why):
    m = _model(tmp_path, ldrawdir, [_line(4, 0, 0, 0, "3001.dat"), _line(*top)])
    h = hidden_features(m)
    assert h.hidden_studs == 0 and h.hidden_tubes == 0, why


def test_a_stud_under_a_hollow_stud_stays(ldrawdir, tmp_path):
    """A round 1 x 1 brick's hollow stud is open through the part: the stud below it can be
    seen from above, so it is drawn (the rays up the stud get out)."""
    m = _model(tmp_path, ldrawdir, [_line(4, 0, 0, 0, "3005.dat"),
                                    _line(1, 0, -24, 0, "3062b.dat")])
    h = hidden_features(m)
    assert h.closed.tolist() == [False, True]
    assert not h.studs[0].any()
    plain = _model(tmp_path, ldrawdir, [_line(4, 0, 0, 0, "3005.dat"),
                                        _line(1, 0, -24, 0, "3005.dat")])
    assert hidden_features(plain).studs[0].all()


def test_a_piece_draws_the_studs_its_break_uncovered(ldrawdir, tmp_path):
    """The geometry of a piece comes from its own parts: the lower brick alone (the upper one
    blown off) draws its studs again."""
    m = _model(tmp_path, ldrawdir, [_line(4, 0, 0, 0, "3001.dat"),
                                    _line(1, 0, -24, 0, "3001.dat")])
    pls = m.placements
    whole, _ = creation_geometry(m, pls, np.array([0, 1]), cull=True, low_res=False)
    piece, _ = creation_geometry(m, pls, np.array([0]), cull=True, low_res=False)
    lower_in_whole = int((whole.placement_index == 0).sum())
    assert piece.n_triangles == len(m.parts["3001.dat"].triangles)
    assert piece.n_triangles - lower_in_whole == 8 * 48
    assert creation_geometry(m, pls, np.array([0]), cull=True, low_res=False)[0] is piece


def test_render_mesh_follows_the_detail_setting(ldrawdir, monkeypatch):
    from sandbox.engine.assets import build_part_asset

    a = build_part_asset("3001", 4, ldrawdir)
    a.attach(np.zeros(3), np.eye(3))
    full = render_mesh_of(a, detail=DETAILS["full"])
    assert full.n_triangles == len(a.local_vertices) // 3
    assert np.allclose(np.sort(full.vertices, axis=0), np.sort(a.local_vertices, axis=0),
                       atol=1e-5)
    low = render_mesh_of(a)
    assert low.n_triangles == 700 - 8 * 24 - 3 * 48
    monkeypatch.setenv(DETAIL_ENV, "full")
    assert default_detail() == DETAILS["full"]
    monkeypatch.setenv(DETAIL_ENV, "fancy")
    with pytest.raises(RenderError, match="SANDBOX_DETAIL"):
        default_detail()


def test_software_gl_is_told_by_the_renderer_string(monkeypatch):
    from sandbox.render.shaders import SHADOWS_ENV, default_shadows, is_software_gl

    assert is_software_gl("llvmpipe (LLVM 15.0.6, 256 bits)")
    assert is_software_gl("softpipe") and is_software_gl("Mesa X11 swrast")
    assert not is_software_gl("NVIDIA GeForce RTX 4090/PCIe/SSE2")
    assert not is_software_gl("AMD Radeon RX 7900 XTX (radeonsi, navi31, LLVM 15.0.7)")
    monkeypatch.delenv(SHADOWS_ENV, raising=False)
    assert default_shadows("llvmpipe (LLVM 15.0.6, 256 bits)") is False
    assert default_shadows("NVIDIA H200") is True
    monkeypatch.setenv(SHADOWS_ENV, "on")
    assert default_shadows("llvmpipe") is True
    monkeypatch.setenv(SHADOWS_ENV, "maybe")
    with pytest.raises(RenderError, match="SANDBOX_SHADOWS"):
        default_shadows("llvmpipe")


def test_edge_lines_start_off_on_software_gl_unless_asked(monkeypatch):
    """The tabletop's edge lines at start (issue 26: off on llvmpipe, where they cost more
    than the bricks; on with a GPU); ``$SANDBOX_EDGES`` decides when set (the test session
    sets it on: the window goldens are drawn with edge lines)."""
    from sandbox.render.shaders import EDGES_ENV, default_edges

    monkeypatch.delenv(EDGES_ENV, raising=False)
    assert default_edges("llvmpipe (LLVM 15.0.6, 256 bits)") is False
    assert default_edges("NVIDIA GeForce RTX 4090/PCIe/SSE2") is True
    monkeypatch.setenv(EDGES_ENV, "off")
    assert default_edges("NVIDIA H200") is False
    monkeypatch.setenv(EDGES_ENV, "on")
    assert default_edges("llvmpipe") is True
    monkeypatch.setenv(EDGES_ENV, "sometimes")
    with pytest.raises(RenderError, match="SANDBOX_EDGES"):
        default_edges("llvmpipe")


def test_the_unshadowed_program_lights_as_the_shadowed_one_in_full_sun(ldrawdir, monkeypatch):
    """Without shadows the renderer uses the program without shadow look-ups; a brick in full
    sun (nothing casts a shadow on its lit faces here) looks the same either way, and the
    renderer's own defaults on software GL are no shadows and no multisampling."""
    from sandbox.engine.assets import build_part_asset
    from sandbox.render.offscreen import OffscreenRenderer
    from sandbox.render.shaders import SHADOWS_ENV, is_software_gl
    from sandbox.render.view import Camera, RenderBody, SceneView

    monkeypatch.delenv(SHADOWS_ENV, raising=False)
    monkeypatch.delenv("SANDBOX_MSAA", raising=False)
    a = build_part_asset("3001", 4, ldrawdir)
    a.attach(np.zeros(3), np.eye(3))
    body = RenderBody(render_mesh_of(a), (0.0, 0.0, 0.5), (0, 0, 0, 1), key="b")
    view = SceneView(bodies=[body], battlefield=(6, 6), camera=Camera((2, -3, 3), (0, 0, 0.5)),
                     grid=False)
    pictures = []
    for shadows in (True, False):
        with OffscreenRenderer(160, 120, shadows=shadows, multisamples=0) as r:
            pictures.append(r.render(view)[..., :3].astype(int))
    brick = np.abs(pictures[0] - pictures[1]).sum(-1)
    assert np.mean(brick > 30) < 0.02  # the shadow on the table behind, no more
    with OffscreenRenderer(64, 48, shadows=None, multisamples=None) as r:
        if is_software_gl(r.gl_renderer):
            assert r.shadows is False and r.multisamples == 0
        else:
            assert r.shadows is True


#: The per-pixel unshadowed program the vertex-lit one replaced (issue 26): the reference its
#: pictures are checked against.
_PER_PIXEL_VERTEX = """
#version 130
uniform mat4 p3d_ModelViewProjectionMatrix;
uniform mat3 p3d_NormalMatrix;
uniform mat4 p3d_ViewMatrix;
in vec4 p3d_Vertex;
in vec3 p3d_Normal;
in vec4 p3d_Color;
out vec3 v_normal;
out vec4 v_colour;
out vec3 v_up;
void main() {
    v_normal = normalize(p3d_NormalMatrix * p3d_Normal);
    v_colour = p3d_Color;
    v_up = normalize((p3d_ViewMatrix * vec4(0.0, 0.0, 1.0, 0.0)).xyz);
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
}
"""
_PER_PIXEL_FRAGMENT = """
#version 130
uniform struct p3d_LightSourceParameters { vec4 color; vec4 position; } p3d_LightSource[2];
uniform vec4 p3d_ColorScale;
uniform vec4 u_sky;
uniform vec4 u_ground;
in vec3 v_normal;
in vec4 v_colour;
in vec3 v_up;
out vec4 o_colour;
void main() {
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) n = -n;
    vec4 base = v_colour * p3d_ColorScale;
    vec3 light = mix(u_ground.rgb, u_sky.rgb, dot(n, v_up) * 0.5 + 0.5);
    for (int i = 0; i < 2; ++i) {
        vec3 l = normalize(p3d_LightSource[i].position.xyz);
        light += p3d_LightSource[i].color.rgb * max(dot(n, l), 0.0);
    }
    o_colour = vec4(base.rgb * light, base.a);
}
"""


def test_the_vertex_lit_program_draws_the_per_pixel_picture(ldrawdir):
    """Without shadows bricks are lit once per corner (every triangle has one normal on its
    three corners): a turned 2x4 brick, a minifig head (curved, many small triangles) and a
    translucent brick on the table give the per-pixel program's picture, pixel for pixel
    within one level of rounding."""
    from panda3d.core import Shader

    from sandbox.engine.assets import build_part_asset
    from sandbox.render.offscreen import OffscreenRenderer
    from sandbox.render.view import Camera, RenderBody, SceneView

    bodies = []
    for key, (part, colour, pos, q) in {
        "brick": ("3001", 4, (0.0, 0.0, 0.5), (0, 0, 0.38268343, 0.92387953)),
        "head": ("3626b", 14, (1.5, 0.5, 0.3), (0.2, 0, 0, 0.9797959)),
        "glass": ("3005", 47, (-1.2, 0.8, 0.3), (0, 0, 0, 1)),
    }.items():
        a = build_part_asset(part, colour, ldrawdir)
        a.attach(np.zeros(3), np.eye(3))
        bodies.append(RenderBody(render_mesh_of(a), pos, q, key=key))
    view = SceneView(bodies=bodies, battlefield=(6, 6),
                     camera=Camera((2, -3, 3), (0, 0, 0.5)))
    with OffscreenRenderer(200, 150, shadows=False, multisamples=0) as r:
        vertex_lit = r.render(view)[..., :3].astype(int)
        r._root.set_shader(Shader.make(Shader.SL_GLSL, _PER_PIXEL_VERTEX, _PER_PIXEL_FRAGMENT))
        per_pixel = r.render(view)[..., :3].astype(int)
    assert np.abs(vertex_lit - per_pixel).max() <= 1
    drawn = np.abs(vertex_lit - vertex_lit[0, 0]).sum(-1) > 30
    assert drawn.mean() > 0.2  # the table and the bricks are in the picture
