"""numpy arrays → Panda3D Geoms: one Geom per mesh, one for its edges, and overlay shapes.

Every builder writes whole numpy blocks into the vertex arrays (no per-vertex Python loop)
and makes one non-indexed primitive, so a body costs one draw call however many parts were
concatenated into its mesh. Units are the world's: inches.
"""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import (
    BitMask32,
    DepthOffsetAttrib,
    Geom,
    GeomLines,
    GeomNode,
    GeomTriangles,
    GeomVertexArrayFormat,
    GeomVertexData,
    GeomVertexFormat,
    InternalName,
    LODNode,
    LPoint3,
    NodePath,
    Shader,
    TransparencyAttrib,
)

from sandbox.core.units import INCH_PER_LDU, STUD_PITCH_LDU
from sandbox.render.view import Marker, MarkerKind, RenderMesh

#: Grid lines and rings float this far (inches) above their surface; together with a depth
#: offset this keeps them visible from straight above, where a depth offset alone is not enough.
OVERLAY_LIFT = 0.01
#: A body is drawn at its far level of detail (:mod:`sandbox.bricks.lod`) when one stud pitch
#: (20 LDU, 0.315") at its centre spans fewer pixels than this on screen.
FAR_STUD_PIXELS: float = 8.0
#: A body gets a far level only when its far mesh has at most this fraction of the near
#: mesh's triangles.
FAR_WORTH: float = 0.8
#: Camera mask bit of the sun's shadow camera (what is hidden from it casts no shadow).
SHADOW_MASK = BitMask32.bit(1)

__all__ = [
    "attach_marker",
    "mesh_geom",
    "edge_geom",
    "optional_geom",
    "attach_edges",
    "body_node",
    "far_switch_distance",
    "set_far_switch",
    "FAR_STUD_PIXELS",
    "FAR_WORTH",
    "lines_geom",
    "triangles_geom",
    "marker_geom",
    "box_triangles",
]


def _format(with_normal: bool) -> GeomVertexFormat:
    array = GeomVertexArrayFormat()
    array.add_column("vertex", 3, Geom.NT_float32, Geom.C_point)
    if with_normal:
        array.add_column("normal", 3, Geom.NT_float32, Geom.C_normal)
    array.add_column("color", 4, Geom.NT_float32, Geom.C_color)
    return GeomVertexFormat.register_format(GeomVertexFormat(array))


_FMT_LIT = _format(True)
_FMT_UNLIT = _format(False)


def _optional_format() -> GeomVertexFormat:
    array = GeomVertexArrayFormat()
    array.add_column("vertex", 3, Geom.NT_float32, Geom.C_point)
    array.add_column("color", 4, Geom.NT_float32, Geom.C_color)
    for name in ("a_other", "a_control0", "a_control1"):
        array.add_column(InternalName.make(name), 3, Geom.NT_float32, Geom.C_point)
    return GeomVertexFormat.register_format(GeomVertexFormat(array))


_FMT_OPTIONAL = _optional_format()
#: Faces under edge lines are drawn this far back (polygon offset units; see attach_edges).
_FACES_BEHIND_LINES = DepthOffsetAttrib.make(-1)
_OPTIONAL_SHADER: Shader | None = None


def _optional_shader() -> Shader:
    global _OPTIONAL_SHADER
    if _OPTIONAL_SHADER is None:
        from sandbox.render import shaders

        _OPTIONAL_SHADER = Shader.make(Shader.SL_GLSL, shaders.OPTIONAL_VERTEX,
                                       shaders.OPTIONAL_FRAGMENT)
    return _OPTIONAL_SHADER


def _vertex_data(name: str, columns: list[np.ndarray], fmt: GeomVertexFormat) -> GeomVertexData:
    """Interleave float32 ``columns`` (each (n, k)) into one static GeomVertexData."""
    block = np.ascontiguousarray(np.concatenate(columns, axis=1), dtype=np.float32)
    vdata = GeomVertexData(name, fmt, Geom.UH_static)
    vdata.unclean_set_num_rows(block.shape[0])
    array = vdata.modify_array(0)
    memoryview(array).cast("B")[:] = block.tobytes()
    return vdata


def triangles_geom(name: str, vertices: np.ndarray, normals: np.ndarray,
                   colours: np.ndarray) -> Geom:
    """One lit Geom from a triangle soup.

    Parameters
    ----------
    vertices, normals : (n, 3) float
        Corners (inches) and unit normals; n a multiple of 3.
    colours : (n, 4) float
        RGBA 0..1 per corner.
    """
    vdata = _vertex_data(name, [vertices, normals, colours], _FMT_LIT)
    prim = GeomTriangles(Geom.UH_static)
    if len(vertices):
        prim.add_consecutive_vertices(0, len(vertices))
    geom = Geom(vdata)
    geom.add_primitive(prim)
    return geom


def lines_geom(name: str, segments: np.ndarray, colours: np.ndarray) -> Geom:
    """One unlit line Geom.

    Parameters
    ----------
    segments : (m, 2, 3) float
        Segment end points, inches.
    colours : (m, 4) float
        RGBA 0..1 per segment.
    """
    points = np.asarray(segments, np.float32).reshape(-1, 3)
    cols = np.repeat(np.asarray(colours, np.float32), 2, axis=0)
    vdata = _vertex_data(name, [points, cols], _FMT_UNLIT)
    prim = GeomLines(Geom.UH_static)
    if len(points):
        prim.add_consecutive_vertices(0, len(points))
    geom = Geom(vdata)
    geom.add_primitive(prim)
    return geom


def mesh_geom(mesh: RenderMesh) -> Geom:
    """The single triangle Geom of a :class:`RenderMesh` (its draw call)."""
    return triangles_geom(mesh.name, mesh.vertices, mesh.normals, mesh.colours)


def edge_geom(mesh: RenderMesh) -> Geom | None:
    """The single line Geom of a mesh's edges, or ``None`` when it has none."""
    if mesh.edges is None or mesh.n_edges == 0:
        return None
    return lines_geom(mesh.name + ":edges", mesh.edges, mesh.edge_colours)


def optional_geom(mesh: RenderMesh) -> Geom | None:
    """The single line Geom of a mesh's optional (type-5) lines, or ``None`` without any.

    Each segment's two vertices carry the other end (``a_other``) and both control points
    (``a_control0``, ``a_control1``) for the view-dependent test of
    :data:`sandbox.render.shaders.OPTIONAL_VERTEX`.
    """
    if mesh.optional is None or mesh.n_optional == 0:
        return None
    o = np.asarray(mesh.optional, np.float32)
    ends = o[:, :2].reshape(-1, 3)  # a0, b0, a1, b1, ...
    other = o[:, [1, 0]].reshape(-1, 3)  # b0, a0, b1, a1, ...
    c0 = np.repeat(o[:, 2], 2, axis=0)
    c1 = np.repeat(o[:, 3], 2, axis=0)
    cols = np.repeat(np.asarray(mesh.optional_colours, np.float32), 2, axis=0)
    vdata = _vertex_data(mesh.name + ":optional", [ends, cols, other, c0, c1], _FMT_OPTIONAL)
    prim = GeomLines(Geom.UH_static)
    prim.add_consecutive_vertices(0, len(ends))
    geom = Geom(vdata)
    geom.add_primitive(prim)
    return geom


def attach_edges(parent: NodePath, name: str, edges: Geom | None,
                 optional: Geom | None) -> NodePath | None:
    """Attach a body's edge lines under ``parent`` (its mesh node): one node ``name`` holding
    the type-2 lines (fixed-function, unlit) and the optional lines (their GLSL test), drawn
    over the faces, casting no shadow. Shared by the offscreen renderer, the tabletop and the
    replay window; hide the returned node to turn the lines off.

    The faces of ``parent`` (a GeomNode) are pushed back by a polygon offset, as LDView does:
    a polygon offset grows with the face's depth slope, so a line on the seam between two
    bricks stays in front of the end face meeting it at a grazing angle, also at the
    off-centre samples of multisampling (lifting the lines by a fixed depth offset alone lost
    those seams under 4x MSAA).

    Returns
    -------
    NodePath or None
        None when the mesh has no lines at all.
    """
    if edges is None and optional is None:
        return None
    faces = parent.node()
    if isinstance(faces, GeomNode):
        for i in range(faces.get_num_geoms()):
            faces.set_geom_state(i, faces.get_geom_state(i).add_attrib(_FACES_BEHIND_LINES))
    holder = parent.attach_new_node(name)
    holder.set_light_off(1)
    holder.set_depth_offset(1)
    holder.hide(SHADOW_MASK)
    if edges is not None:
        node = GeomNode(name + ":type2")
        node.add_geom(edges)
        holder.attach_new_node(node).set_shader_off(1)
    if optional is not None:
        node = GeomNode(name + ":optional")
        node.add_geom(optional)
        holder.attach_new_node(node).set_shader(_optional_shader(), 1)
    return holder


def far_switch_distance(view_px: float, fov_deg: float) -> float:
    """Distance from the camera (inches) beyond which a stud pitch spans fewer than
    :data:`FAR_STUD_PIXELS` pixels, for a lens whose field of view ``fov_deg`` (degrees)
    spans ``view_px`` pixels (a window's height and its vertical field of view)."""
    focal_px = (float(view_px) / 2) / math.tan(math.radians(fov_deg) / 2)
    return STUD_PITCH_LDU * INCH_PER_LDU * focal_px / FAR_STUD_PIXELS


def body_node(key: str, mesh: RenderMesh, far: RenderMesh | None = None,
              switch_distance: float | None = None, show_edges: bool = True) -> NodePath:
    """One body's node for a window: its mesh (with its edge lines under it, a node named
    ``key + ":edges"``, hidden unless ``show_edges``), or, given ``far`` and
    ``switch_distance``, an ``LODNode`` that draws ``mesh`` (and its lines) while the camera
    is nearer its centre than ``switch_distance`` inches and ``far`` (no lines) beyond
    (:func:`far_switch_distance`; change it with :func:`set_far_switch`). A far mesh with
    more than :data:`FAR_WORTH` of the near one's triangles is not used (one Geom is then
    cheaper than two).

    Returns
    -------
    NodePath
        Detached (reparent it); named ``key``.
    """
    if far is not None and far.n_triangles > FAR_WORTH * mesh.n_triangles:
        far = None
    near_node = GeomNode(key if far is None or switch_distance is None else key + ":near")
    near_node.add_geom(mesh_geom(mesh))
    near_np = NodePath(near_node)
    e = attach_edges(near_np, key + ":edges", edge_geom(mesh), optional_geom(mesh))
    if e is not None and not show_edges:
        e.hide()
    if far is None or switch_distance is None:
        return near_np
    lod = LODNode(key)
    lo, hi = mesh.bounds()
    lod.set_center(LPoint3(*((np.asarray(lo) + np.asarray(hi)) / 2)))
    holder = NodePath(lod)
    near_np.reparent_to(holder)
    lod.add_switch(float(switch_distance), 0.0)
    far_node = GeomNode(key + ":far")
    far_node.add_geom(mesh_geom(far))
    holder.attach_new_node(far_node)
    lod.add_switch(1e9, float(switch_distance))
    return holder


def set_far_switch(np_body: NodePath, switch_distance: float) -> None:
    """Move the switch of a :func:`body_node` with a far level to ``switch_distance``
    inches (a window whose height changed); no-op for a node without one."""
    node = np_body.node()
    if isinstance(node, LODNode) and node.get_num_switches() == 2:
        node.set_switch(0, float(switch_distance), 0.0)
        node.set_switch(1, 1e9, float(switch_distance))


def box_triangles(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Flat-shaded triangles of the axis-aligned box ``[lo, hi]``.

    Returns
    -------
    vertices, normals : (36, 3) float32
        Inches, outward unit normals.
    """
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    verts, norms = [], []
    for axis in range(3):
        for side in (0, 1):
            n = np.zeros(3)
            n[axis] = 1.0 if side else -1.0
            u, v = (axis + 1) % 3, (axis + 2) % 3
            quad = []
            for du, dv in ((0, 0), (1, 0), (1, 1), (0, 1)):
                p = np.empty(3)
                p[axis] = hi[axis] if side else lo[axis]
                p[u] = hi[u] if du else lo[u]
                p[v] = hi[v] if dv else lo[v]
                quad.append(p)
            tri = [quad[0], quad[1], quad[2], quad[0], quad[2], quad[3]]
            if not side:  # keep counter-clockwise seen from outside
                tri = [tri[0], tri[2], tri[1], tri[3], tri[5], tri[4]]
            verts += tri
            norms += [n] * 6
    return np.asarray(verts, np.float32), np.asarray(norms, np.float32)


def _target_x(marker: Marker) -> Geom:
    """Two crossed flat red bricks with studs, ``width`` inches across, at the point."""
    size = marker.width
    long_, wide, tall = size / math.sqrt(2.0), size * 0.16, size * 0.08
    verts, norms = [], []
    for angle in (math.pi / 4, -math.pi / 4):
        c, s = math.cos(angle), math.sin(angle)
        rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
        lift = tall if angle < 0 else 0.0  # the second bar rests on the first
        v, n = box_triangles(np.array([-long_, -wide / 2, lift]),
                             np.array([long_, wide / 2, lift + tall]))
        # studs: small boxes along the bar (cheap, read as studs at marker scale)
        k = 4
        for i in range(k):
            x = -long_ + (i + 0.5) * 2 * long_ / k
            r = wide * 0.3
            sv, sn = box_triangles(np.array([x - r, -r, lift + tall]),
                                   np.array([x + r, r, lift + tall * 1.6]))
            v, n = np.concatenate([v, sv]), np.concatenate([n, sn])
        verts.append(v @ rot.T)
        norms.append(n @ rot.T)
    v = np.concatenate(verts) + marker.points[0]
    n = np.concatenate(norms)
    cols = np.tile(np.asarray(marker.colour, np.float32), (len(v), 1))
    return triangles_geom("target", v, n, cols)


def _ring(marker: Marker, segments: int = 96) -> Geom:
    """A flat annulus of ``radius`` ± ``width`` / 2 inches, facing +Z, at the centre."""
    r0 = max(marker.radius - marker.width / 2, 0.0)
    r1 = marker.radius + marker.width / 2
    a = np.linspace(0.0, 2 * math.pi, segments + 1)
    cs = np.stack([np.cos(a), np.sin(a), np.zeros_like(a)], axis=1)
    inner, outer = cs * r0, cs * r1
    i0, i1, o0, o1 = inner[:-1], inner[1:], outer[:-1], outer[1:]
    tris = np.stack([i0, o0, o1, i0, o1, i1], axis=1).reshape(-1, 3) + marker.points[0]
    norms = np.tile(np.array([0, 0, 1], np.float32), (len(tris), 1))
    cols = np.tile(np.asarray(marker.colour, np.float32), (len(tris), 1))
    return triangles_geom("ring", tris, norms, cols)


def _polyline(marker: Marker) -> Geom:
    p = marker.points
    segs = np.stack([p[:-1], p[1:]], axis=1)
    cols = np.tile(np.asarray(marker.colour, np.float32), (len(segs), 1))
    return lines_geom("line", segs, cols)


def _flame(marker: Marker, blades: int = 3) -> Geom:
    """Crossed vertical flame silhouettes (outer tongue, inner core), ``width`` inches tall.

    Each blade is a fan of triangles around the flame's axis: widest a third of the way up,
    a pointed tip; the outer tongue takes the marker colour fading to red at the tip, the core
    is yellow. Two-sided and unlit in the renderer, so it reads as light, not as a brick.
    """
    h = marker.width
    # half-widths of the silhouette at heights 0, .15, .35, .6, .8, 1 (fractions of h)
    zs = np.array([0.0, 0.15, 0.35, 0.6, 0.8, 1.0])
    ws = np.array([0.10, 0.26, 0.30, 0.22, 0.12, 0.0])
    base = np.asarray(marker.colour, np.float32)
    tip = np.array([0.85, 0.08, 0.02, base[3]], np.float32)
    core = np.array([1.0, 0.92, 0.25, base[3]], np.float32)
    verts, cols = [], []
    for scale, c0, c1, lift in ((1.0, base, tip, 0.0), (0.55, core, base, 0.01)):
        z = zs * h * scale + lift * h
        w = ws * h * scale
        for k in range(blades):
            a = math.pi * k / blades
            axis = np.array([math.cos(a), math.sin(a), 0.0])
            up = np.stack([np.zeros_like(z), np.zeros_like(z), z], axis=1)
            left, right = up - w[:, None] * axis, up + w[:, None] * axis
            for i in range(len(z) - 1):
                f0, f1 = zs[i], zs[i + 1]
                quad = [left[i], right[i], right[i + 1], left[i], right[i + 1], left[i + 1]]
                fr = [f0, f0, f1, f0, f1, f1]
                verts += quad
                cols += [c0 * (1 - f) + c1 * f for f in fr]
    v = np.asarray(verts, np.float32) + marker.points[0].astype(np.float32)
    n = np.tile(np.array([0, 0, 1], np.float32), (len(v), 1))
    return triangles_geom("flame", v, n, np.asarray(cols, np.float32))


def marker_geom(marker: Marker) -> GeomNode:
    """A GeomNode (one Geom) for a marker, in world coordinates."""
    node = GeomNode(marker.kind.value)
    if marker.kind is MarkerKind.TARGET:
        node.add_geom(_target_x(marker))
    elif marker.kind is MarkerKind.RING:
        node.add_geom(_ring(marker))
    elif marker.kind is MarkerKind.FLAME:
        node.add_geom(_flame(marker))
    else:
        node.add_geom(_polyline(marker))
    return node


def attach_marker(parent: NodePath, marker: Marker) -> NodePath:
    """Attach one overlay marker under ``parent`` with the render state every view uses.

    A target X is lit and shadowed like a brick; rings, lines and flames are overlays: unlit,
    unshadowed, drawn over the table (rings lifted, depth offset), two-sided, blended when
    translucent. Shared by the offscreen renderer, the tabletop and the replay window.
    """
    node = parent.attach_new_node(marker_geom(marker))
    if marker.kind is MarkerKind.RING:
        node.set_z(2 * OVERLAY_LIFT)
    if marker.kind is MarkerKind.TARGET:
        return node  # lit and shadowed like a brick
    node.hide(SHADOW_MASK)  # overlays are not things: they cast no shadow
    node.set_light_off(1)
    node.set_shader_off(1)
    node.set_depth_offset(2)
    node.set_two_sided(True)
    if marker.colour[3] < 1.0:
        node.set_transparency(TransparencyAttrib.M_alpha)
    if marker.kind is MarkerKind.LINE:
        node.set_render_mode_thickness(marker.width)
    return node
