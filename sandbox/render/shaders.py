"""The GLSL program that lights bricks and the table: hemisphere ambient, sun with shadows.

Panda3D's own shader generator (``setShaderAuto``) writes Cg, which fails on Mesa llvmpipe
("The profile is not supported") and silently falls back to fixed-function lighting without
shadows; this small GLSL 1.30 program uses Panda3D's built-in light inputs
(``p3d_LightSource[i].shadowMap`` / ``shadowViewMatrix``) instead, and runs on llvmpipe and on
real GPUs alike.

Inputs set by the renderer (world units are inches):

``u_sky``, ``u_ground`` : vec4
    Hemisphere ambient colours for normals pointing up / down.
``u_shadow_offset`` : float
    Normal offset (inches) applied before the shadow look-up, against shadow acne.
``u_shadow_texel`` : float
    One shadow-map texel in texture coordinates, for percentage-closer filtering.
"""

from __future__ import annotations

#: Number of directional lights the program reads (sun, then fill).
N_LIGHTS = 2

VERTEX = """
#version 130
uniform mat4 p3d_ModelViewProjectionMatrix;
uniform mat4 p3d_ModelViewMatrix;
uniform mat3 p3d_NormalMatrix;
uniform mat4 p3d_ViewMatrix;
uniform struct p3d_LightSourceParameters {
    vec4 color;
    vec4 position;
    sampler2DShadow shadowMap;
    mat4 shadowViewMatrix;
} p3d_LightSource[2];
uniform float u_shadow_offset;

in vec4 p3d_Vertex;
in vec3 p3d_Normal;
in vec4 p3d_Color;

out vec3 v_normal;
out vec4 v_colour;
out vec3 v_up;
out vec4 v_shadow[2];

void main() {
    vec4 view_pos = p3d_ModelViewMatrix * p3d_Vertex;
    vec3 n = normalize(p3d_NormalMatrix * p3d_Normal);
    v_normal = n;
    v_colour = p3d_Color;
    v_up = normalize((p3d_ViewMatrix * vec4(0.0, 0.0, 1.0, 0.0)).xyz);
    vec4 offset_pos = view_pos + vec4(n * u_shadow_offset, 0.0);
    for (int i = 0; i < 2; ++i) {
        v_shadow[i] = p3d_LightSource[i].shadowViewMatrix * offset_pos;
    }
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
}
"""

FRAGMENT = """
#version 130
uniform struct p3d_LightSourceParameters {
    vec4 color;
    vec4 position;
    sampler2DShadow shadowMap;
    mat4 shadowViewMatrix;
} p3d_LightSource[2];
uniform vec4 p3d_ColorScale;
uniform vec4 u_sky;
uniform vec4 u_ground;
uniform float u_shadow_texel;

in vec3 v_normal;
in vec4 v_colour;
in vec3 v_up;
in vec4 v_shadow[2];

out vec4 o_colour;

float shadow_pcf(int i) {
    // 3x3 percentage-closer filter; the hardware comparison gives 2x2 bilinear on top.
    vec4 s = v_shadow[i];
    float lit = 0.0;
    for (int dx = -1; dx <= 1; ++dx) {
        for (int dy = -1; dy <= 1; ++dy) {
            vec4 o = vec4(float(dx), float(dy), 0.0, 0.0) * u_shadow_texel * s.w;
            if (i == 0) lit += textureProj(p3d_LightSource[0].shadowMap, s + o);
            else lit += textureProj(p3d_LightSource[1].shadowMap, s + o);
        }
    }
    return lit / 9.0;
}

void main() {
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) n = -n;
    vec4 base = v_colour * p3d_ColorScale;
    float up = dot(n, v_up) * 0.5 + 0.5;
    vec3 light = mix(u_ground.rgb, u_sky.rgb, up);
    for (int i = 0; i < 2; ++i) {
        vec3 l = normalize(p3d_LightSource[i].position.xyz);
        float diffuse = max(dot(n, l), 0.0);
        if (diffuse > 0.0) {
            light += p3d_LightSource[i].color.rgb * diffuse * shadow_pcf(i);
        }
    }
    o_colour = vec4(base.rgb * light, base.a);
}
"""

#: The same lighting without shadows (issue 26), lit per vertex: no shadow-map coordinates,
#: no 2 x 9 shadow-map look-ups, and the hemisphere and the two suns are worked out once per
#: corner instead of once per pixel. Used when the sun casts no shadow (the default on software
#: GL, where every pixel's program is CPU time). Every triangle the renderer draws has one
#: normal on all three corners (``bricks.mesh``, ``bricks.visible``, the table, the markers),
#: so its three corners get the same light and the picture is the per-pixel one's (within a
#: rounding of the interpolation). Back faces are culled (Panda3D's default; the meshes carry
#: both windings of every triangle whose winding is not BFC certified, each with its own
#: normal), so no back face needs the turned normal the per-pixel program gives it.
VERTEX_UNSHADOWED = """
#version 130
uniform mat4 p3d_ModelViewProjectionMatrix;
uniform mat3 p3d_NormalMatrix;
uniform mat4 p3d_ViewMatrix;
uniform struct p3d_LightSourceParameters {
    vec4 color;
    vec4 position;
} p3d_LightSource[2];
uniform vec4 p3d_ColorScale;
uniform vec4 u_sky;
uniform vec4 u_ground;

in vec4 p3d_Vertex;
in vec3 p3d_Normal;
in vec4 p3d_Color;

out vec4 v_colour;

vec3 light_for(vec3 n, vec3 up) {
    vec3 light = mix(u_ground.rgb, u_sky.rgb, dot(n, up) * 0.5 + 0.5);
    for (int i = 0; i < 2; ++i) {
        vec3 l = normalize(p3d_LightSource[i].position.xyz);
        light += p3d_LightSource[i].color.rgb * max(dot(n, l), 0.0);
    }
    return light;
}

void main() {
    vec3 n = normalize(p3d_NormalMatrix * p3d_Normal);
    vec3 up = normalize((p3d_ViewMatrix * vec4(0.0, 0.0, 1.0, 0.0)).xyz);
    vec4 base = p3d_Color * p3d_ColorScale;
    v_colour = vec4(base.rgb * light_for(n, up), base.a);
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
}
"""

FRAGMENT_UNSHADOWED = """
#version 130
in vec4 v_colour;

out vec4 o_colour;

void main() {
    o_colour = v_colour;
}
"""


def programs(shadows: bool) -> tuple[str, str]:
    """(vertex, fragment) GLSL of the brick lighting, with or without sun shadows."""
    return (VERTEX, FRAGMENT) if shadows else (VERTEX_UNSHADOWED, FRAGMENT_UNSHADOWED)


#: Renderer strings (``GL_RENDERER``) of software OpenGL: Mesa's llvmpipe, softpipe and
#: swrast, and the Windows and Apple fallbacks. Matched case-insensitively.
SOFTWARE_RENDERERS: tuple[str, ...] = ("llvmpipe", "softpipe", "swrast", "software",
                                       "gdi generic", "apple software")


def is_software_gl(renderer: str) -> bool:
    """True when the GL renderer string names a software rasterizer (CPU, no GPU).

    >>> is_software_gl("llvmpipe (LLVM 15.0.6, 256 bits)"), is_software_gl("NVIDIA H200/PCIe")
    (True, False)
    """
    r = (renderer or "").lower()
    return any(name in r for name in SOFTWARE_RENDERERS)


#: ``SANDBOX_SHADOWS``: ``on`` or ``off`` for the windows; unset: by the renderer.
SHADOWS_ENV = "SANDBOX_SHADOWS"
#: ``SANDBOX_EDGES``: ``on`` or ``off``: the tabletop's LDraw edge lines at start (F4 toggles
#: them); unset: by the renderer.
EDGES_ENV = "SANDBOX_EDGES"
#: ``SANDBOX_FAR``: ``on`` or ``off``: a window draws bodies far from the camera at their far
#: level of detail (:mod:`sandbox.bricks.lod`); unset: on with software GL, off with a GPU.
FAR_ENV = "SANDBOX_FAR"


def _switch(env: str, renderer: str, on_gpu: bool = True) -> bool:
    """``$env`` as on/off (also ``1``/``0``, ``yes``/``no``, ``true``/``false``) when set,
    else ``on_gpu`` on a GPU and its opposite on software GL (:func:`is_software_gl`).

    Raises
    ------
    RenderError
        For another value of the variable (naming it).
    """
    import os

    from .view import RenderError

    want = os.environ.get(env, "").strip().lower()
    if not want:
        return on_gpu != is_software_gl(renderer)
    if want in ("on", "1", "yes", "true"):
        return True
    if want in ("off", "0", "no", "false"):
        return False
    raise RenderError(f"{env}={want!r}: say on or off")


def default_shadows(renderer: str) -> bool:
    """Whether a window casts sun shadows by default: ``$SANDBOX_SHADOWS`` (``on``/``off``,
    also ``1``/``0``, ``yes``/``no``) when set, else True on a GPU and False on software GL
    (:func:`is_software_gl`).

    Raises
    ------
    RenderError
        For another value of the variable (naming it).
    """
    return _switch(SHADOWS_ENV, renderer)


def default_edges(renderer: str) -> bool:
    """Whether the tabletop draws LDraw edge lines when it opens: ``$SANDBOX_EDGES``
    (``on``/``off``) when set, else True on a GPU and False on software GL. Issue 26: on
    llvmpipe at 1280x720 the King's Castle gatehouse drew 22 frames a second with its edge
    lines (about 280,000 segments: 57 ms of CPU a frame) and 39 without (34 ms); F4 turns
    them on at any time.

    Raises
    ------
    RenderError
        For another value of the variable (naming it).
    """
    return _switch(EDGES_ENV, renderer)


def default_far_level(renderer: str) -> bool:
    """Whether a window draws bodies far from the camera at their far level of detail
    (:mod:`sandbox.bricks.lod`; where: :func:`sandbox.render.geometry.far_switch_distance`):
    ``$SANDBOX_FAR`` (``on``/``off``) when set, else True on software GL and False on a GPU
    (which draws the whole King's Castle, 314,508 triangles, without noticing). Issue 26: on
    llvmpipe at 1280x720 the whole castle at the table's framing drew 27.5 frames a second
    and 42 with its far level (182,584 triangles).

    Raises
    ------
    RenderError
        For another value of the variable (naming it).
    """
    return _switch(FAR_ENV, renderer, on_gpu=False)


#: Optional lines (LDraw type 5), after LDView and LeoCAD: a segment is drawn only where its
#: two control points fall on the same side of it on screen, i.e. where the curved surface it
#: stands for turns away from the viewer (a silhouette). Decided per vertex on the GPU: each
#: vertex carries the segment's other end and both control points (vertex columns
#: ``a_other``, ``a_control0``, ``a_control1``), projects all four and compares the signs of
#: two 2-D cross products; both ends of a segment reach the same verdict, and the fragment
#: program drops the hidden ones. No per-frame CPU work: the camera may move freely.
OPTIONAL_VERTEX = """
#version 130
uniform mat4 p3d_ModelViewProjectionMatrix;

in vec4 p3d_Vertex;
in vec4 p3d_Color;
in vec3 a_other;
in vec3 a_control0;
in vec3 a_control1;

out vec4 v_colour;
out float v_hide;

vec2 on_screen(vec3 p) {
    vec4 c = p3d_ModelViewProjectionMatrix * vec4(p, 1.0);
    return c.xy / max(abs(c.w), 1e-6);
}

void main() {
    vec2 a = on_screen(p3d_Vertex.xyz);
    vec2 d = on_screen(a_other) - a;
    vec2 c0 = on_screen(a_control0) - a;
    vec2 c1 = on_screen(a_control1) - a;
    float s0 = d.x * c0.y - d.y * c0.x;
    float s1 = d.x * c1.y - d.y * c1.x;
    v_hide = (s0 * s1 < 0.0) ? 1.0 : 0.0;
    v_colour = p3d_Color;
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
}
"""

OPTIONAL_FRAGMENT = """
#version 130
uniform vec4 p3d_ColorScale;

in vec4 v_colour;
in float v_hide;

out vec4 o_colour;

void main() {
    if (v_hide > 0.5) discard;
    o_colour = v_colour * p3d_ColorScale;
}
"""
