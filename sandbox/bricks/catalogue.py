"""The built-in catalogue: basic parts generated from their dimensions (no LDraw library needed).

Each part is built in its LDraw frame (LDU, -Y up) exactly where the official LDraw part sits:
the origin at the centre of the top face, the body below it (+Y) and the studs above it (-Y),
the long side along X. A stud pitch is 20 LDU, a brick 24 LDU tall, a plate 8 LDU; studs are
cylinders 12 LDU across and 4 LDU tall; tiles have none. Bodies are solid boxes (the real
parts are hollow underneath): good enough to see and to collide with.

The rectangular parts (:data:`BRICKS`) are generated from a table of sizes and LDraw part
numbers: the basic bricks 1 x 1 to 1 x 16 and 2 x 2 to 2 x 10, plates 1 x 1 to 2 x 16 and the
wide plates 3 x 3 to 8 x 8, tiles 1 x 1 to 2 x 4 and the 32 x 32 baseplate (numbers and
sizes as the LDraw library's headers give them, e.g. ``2456.dat`` "Brick  2 x  6").

The minifig parts (3626b/3626c head, 973 torso, 3815 hips, 3816/3817 legs, 3818/3819 arms,
3820 hand) are simple recognisable shapes at real dimensions, with the origins of the official
parts, so a standard minifig assembly (torso at the origin, head at y = -24, hips at y = 32,
legs at y = 44, arms at x = ±15.552, y = 9) fits together. So are the few other parts the
shipped scenes use (:data:`SHAPES`: round brick, brick with pin, turntable, axle, bar, sword,
shield), each within the official part's bounds.

When an LDraw library is present its real part wins; the catalogue is the fallback
(:class:`sandbox.bricks.partmesh.Resolver`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

import sandbox.bricks.partcache as partcache
from sandbox.bricks.colours import EDGE_COLOUR, MAIN_COLOUR
from sandbox.bricks.ldraw import normalise_name
from sandbox.bricks.partmesh import Geometry, PartMesh, box_triangles, register_catalogue
from sandbox.core.lazy import lazy_import
from sandbox.core.units import BRICK_HEIGHT_LDU, PLATE_HEIGHT_LDU, STUD_PITCH_LDU

trimesh = lazy_import("trimesh")  # only the built-in catalogue's parts need it

#: Stud cylinder radius and height, LDU.
STUD_RADIUS_LDU: float = 6.0
STUD_HEIGHT_LDU: float = 4.0
#: Thickness of a (thin) baseplate, LDU.
BASEPLATE_HEIGHT_LDU: float = 4.0
_SECTIONS = 16


@dataclass(frozen=True)
class BrickSpec:
    """A rectangular part: ``studs_x`` by ``studs_z`` studs, ``height`` LDU tall.

    Attributes
    ----------
    title : str
    studs_x, studs_z : int
        Size in studs along X (the long side) and Z.
    height : float
        Body height, LDU.
    studs : bool
        False for tiles.
    """

    title: str
    studs_x: int
    studs_z: int
    height: float
    studs: bool = True


_B, _P = BRICK_HEIGHT_LDU, PLATE_HEIGHT_LDU

#: LDraw part numbers of the rectangular parts by (kind, studs across, studs along):
#: ``"brick"`` (24 LDU), ``"plate"`` (8 LDU), ``"tile"`` (a plate without studs). The sizes
#: are checked against the library's part headers by tests/test_catalogue.py.
SIZES: dict[tuple[str, int, int], tuple[str, ...]] = {
    ("brick", 1, 1): ("3005",), ("brick", 1, 2): ("3004",), ("brick", 1, 3): ("3622",),
    ("brick", 1, 4): ("3010",), ("brick", 1, 6): ("3009",), ("brick", 1, 8): ("3008",),
    ("brick", 1, 10): ("6111",), ("brick", 1, 12): ("6112",), ("brick", 1, 16): ("2465",),
    ("brick", 2, 2): ("3003",), ("brick", 2, 3): ("3002",), ("brick", 2, 4): ("3001",),
    ("brick", 2, 6): ("2456",), ("brick", 2, 8): ("3007",), ("brick", 2, 10): ("3006",),
    ("plate", 1, 1): ("3024",), ("plate", 1, 2): ("3023", "3023b"), ("plate", 1, 3): ("3623",),
    ("plate", 1, 4): ("3710",), ("plate", 1, 6): ("3666",), ("plate", 1, 8): ("3460",),
    ("plate", 1, 10): ("4477",), ("plate", 1, 12): ("60479",),
    ("plate", 2, 2): ("3022",), ("plate", 2, 3): ("3021",), ("plate", 2, 4): ("3020",),
    ("plate", 2, 6): ("3795",), ("plate", 2, 8): ("3034",), ("plate", 2, 10): ("3832",),
    ("plate", 2, 12): ("2445",), ("plate", 2, 14): ("91988",), ("plate", 2, 16): ("4282",),
    ("plate", 3, 3): ("11212",), ("plate", 4, 4): ("3031",), ("plate", 4, 6): ("3032",),
    ("plate", 4, 8): ("3035",), ("plate", 4, 10): ("3030",), ("plate", 4, 12): ("3029",),
    ("plate", 6, 6): ("3958",), ("plate", 6, 8): ("3036",), ("plate", 6, 10): ("3033",),
    ("plate", 6, 12): ("3028",), ("plate", 6, 16): ("3027",), ("plate", 8, 8): ("41539",),
    ("tile", 1, 1): ("3070b",), ("tile", 1, 2): ("3069b",), ("tile", 1, 3): ("63864",),
    ("tile", 1, 4): ("2431",), ("tile", 1, 6): ("6636",), ("tile", 1, 8): ("4162",),
    ("tile", 2, 2): ("3068b",), ("tile", 2, 4): ("87079",),
}
_HEIGHT = {"brick": _B, "plate": _P, "tile": _P}
#: Tiles whose LDraw title says "with Groove" (the others are plain "Tile  1 x  3").
_GROOVED = {"3070b", "3069b", "2431", "3068b", "87079"}


def _rect_title(kind: str, a: int, b: int, number: str) -> str:
    title = f"{kind.title()} {a:>2} x {b:>2}"
    return title + " with Groove" if number in _GROOVED else title


def _rect_specs() -> dict[str, BrickSpec]:
    out = {}
    for (kind, a, b), numbers in SIZES.items():
        for number in numbers:
            # the long side along X, as LDraw draws them (a 1 x 4 brick is 4 studs along X)
            out[f"{number}.dat"] = BrickSpec(_rect_title(kind, a, b, number), b, a,
                                             _HEIGHT[kind], studs=kind != "tile")
    out["3811.dat"] = BrickSpec("Baseplate 32 x 32", 32, 32, BASEPLATE_HEIGHT_LDU)
    return out


#: Rectangular parts by LDraw file name (generated from :data:`SIZES`).
BRICKS: dict[str, BrickSpec] = _rect_specs()

#: Minifig parts by LDraw file name: title.
MINIFIG: dict[str, str] = {
    "3626b.dat": "Minifig Head (simplified)",
    "3626c.dat": "Minifig Head with Hollow Stud (simplified)",
    "973.dat": "Minifig Torso (simplified)",
    "3815.dat": "Minifig Hips (simplified)",
    "3816.dat": "Minifig Leg Right (simplified)",
    "3817.dat": "Minifig Leg Left (simplified)",
    "3818.dat": "Minifig Arm Right (simplified)",
    "3819.dat": "Minifig Arm Left (simplified)",
    "3820.dat": "Minifig Hand (simplified)",
}


#: Other parts the shipped scenes use, by LDraw file name: title (simplified shapes within
#: the official part's bounds).
SHAPES: dict[str, str] = {
    "3062b.dat": "Brick  1 x  1 Round with Hollow Stud (simplified)",
    "2458.dat": "Brick  1 x  2 with Pin (simplified)",
    "3679.dat": "Turntable  2 x  2 Plate Top (simplified)",
    "3680.dat": "Turntable  2 x  2 Plate Base (simplified)",
    "3705.dat": "Technic Axle  4 (simplified)",
    "63965.dat": "Bar  6L with Thick Stop (simplified)",
    "3846.dat": "Minifig Shield Triangular (simplified)",
    "3847.dat": "Minifig Sword Shortsword (simplified)",
    "3957a.dat": "Antenna  4H with Rounded Top (simplified)",
}


def part_names() -> list[str]:
    """Every part name the catalogue can build (normalised, e.g. ``"3001.dat"``)."""
    return sorted(BRICKS) + sorted(MINIFIG) + sorted(SHAPES)


def has_part(name: str) -> bool:
    """True when the catalogue builds part ``name`` (any case, with or without ``.dat``)."""
    key = _key(name)
    return key in BRICKS or key in MINIFIG or key in SHAPES


def _key(name: str) -> str:
    key = normalise_name(name)
    return key if key.endswith(".dat") else key + ".dat"


def _rot_x(deg: float) -> np.ndarray:
    return trimesh.transformations.rotation_matrix(np.radians(deg), [1, 0, 0])


def _cyl_y(radius: float, y0: float, y1: float, x: float = 0.0, z: float = 0.0) -> trimesh.Trimesh:
    """A cylinder along Y from ``y0`` to ``y1`` centred on (x, z)."""
    h = abs(y1 - y0)
    m = trimesh.creation.cylinder(radius=radius, height=h, sections=_SECTIONS)
    m.apply_transform(_rot_x(90.0))  # z -> -y: a proper rotation, keeps the outward winding
    m.apply_translation([x, (y0 + y1) / 2.0, z])
    return m


def _circle_edges(radius: float, centre: np.ndarray, axis: int = 1) -> np.ndarray:
    """A circle of ``_SECTIONS`` edge segments in the plane normal to ``axis``."""
    a = np.linspace(0.0, 2 * np.pi, _SECTIONS + 1)
    u, v = [i for i in range(3) if i != axis]
    pts = np.zeros((_SECTIONS + 1, 3))
    pts[:, u] = radius * np.cos(a)
    pts[:, v] = radius * np.sin(a)
    pts += centre
    return np.stack([pts[:-1], pts[1:]], axis=1)


def _geometry(meshes: list[trimesh.Trimesh], edges: list[np.ndarray], studs=None, tubes=None):
    tris = np.concatenate([m.triangles for m in meshes]).reshape(-1, 3, 3)
    e = np.concatenate(edges).reshape(-1, 2, 3) if edges else np.zeros((0, 2, 3))
    studs = np.zeros((0, 3)) if studs is None else np.asarray(studs, dtype=float).reshape(-1, 3)
    axes = np.tile([0.0, -1.0, 0.0], (len(studs), 1))
    tubes = np.zeros((0, 3)) if tubes is None else np.asarray(tubes, dtype=float).reshape(-1, 3)
    return Geometry(tris, np.full(len(tris), MAIN_COLOUR, dtype=np.int64),
                    np.ones(len(tris), dtype=bool), e,
                    np.full(len(e), EDGE_COLOUR, dtype=np.int64), studs, axes, tubes)


def _box_mesh(lo, hi) -> trimesh.Trimesh:
    tris, _ = box_triangles(np.asarray(lo, float), np.asarray(hi, float))
    faces = np.arange(len(tris) * 3).reshape(-1, 3)
    return trimesh.Trimesh(vertices=tris.reshape(-1, 3), faces=faces, process=False)


def _brick_geometry(spec: BrickSpec) -> Geometry:
    hx = spec.studs_x * STUD_PITCH_LDU / 2.0
    hz = spec.studs_z * STUD_PITCH_LDU / 2.0
    lo, hi = np.array([-hx, 0.0, -hz]), np.array([hx, spec.height, hz])
    body_tris, body_edges = box_triangles(lo, hi)
    body = trimesh.Trimesh(vertices=body_tris.reshape(-1, 3),
                           faces=np.arange(len(body_tris) * 3).reshape(-1, 3), process=False)
    xs = -hx + STUD_PITCH_LDU / 2.0 + STUD_PITCH_LDU * np.arange(spec.studs_x)
    zs = -hz + STUD_PITCH_LDU / 2.0 + STUD_PITCH_LDU * np.arange(spec.studs_z)
    studs = np.array([[x, 0.0, z] for z in zs for x in xs]) if spec.studs else np.zeros((0, 3))
    meshes, edges = [body], [body_edges]
    if spec.studs:
        proto = _cyl_y(STUD_RADIUS_LDU, -STUD_HEIGHT_LDU, 0.0)
        ring = _circle_edges(STUD_RADIUS_LDU, np.array([0.0, -STUD_HEIGHT_LDU, 0.0]))
        tri0 = proto.triangles
        stud_tris = (tri0[None, :, :, :] + studs[:, None, None, :]).reshape(-1, 3, 3)
        meshes.append(trimesh.Trimesh(vertices=stud_tris.reshape(-1, 3),
                                      faces=np.arange(len(stud_tris) * 3).reshape(-1, 3),
                                      process=False))
        edges.append((ring[None] + studs[:, None, None, :]).reshape(-1, 2, 3))
    # underside tubes/posts between studs (positions only; bodies are solid)
    mid_x = (xs[:-1] + xs[1:]) / 2.0
    mid_z = (zs[:-1] + zs[1:]) / 2.0 if spec.studs_z > 1 else zs
    tubes = np.array([[x, spec.height, z] for z in mid_z for x in mid_x]).reshape(-1, 3)
    if spec.studs_x == 1 and spec.studs_z > 1:
        tubes = np.array([[0.0, spec.height, z] for z in (zs[:-1] + zs[1:]) / 2.0]).reshape(-1, 3)
    return _geometry(meshes, edges, studs, tubes)


def _minifig_geometry(key: str) -> Geometry:
    if key in ("3626b.dat", "3626c.dat"):  # head: cylinder with a stud on top, a neck below
        head = _cyl_y(12.0, 0.0, 20.0)
        neck = _cyl_y(8.0, 20.0, 24.0)
        stud = _cyl_y(STUD_RADIUS_LDU, -STUD_HEIGHT_LDU, 0.0)
        return _geometry([head, neck, stud],
                         [_circle_edges(12.0, np.array([0, y, 0.0])) for y in (0.0, 20.0)],
                         studs=[[0.0, 0.0, 0.0]])
    if key == "973.dat":  # torso: trapezoid 24 wide at the shoulders, 40 at the waist
        # corners indexed like box_triangles (bit 0: +x, bit 1: +y (down), bit 2: +z)
        corners = np.array([[(1 if i & 1 else -1) * (20.0 if i & 2 else 12.0),
                             32.0 if i & 2 else 0.0, 10.0 if i & 4 else -10.0] for i in range(8)])
        tris, e = box_triangles(np.zeros(3), np.ones(3))
        tris = corners[_corner_index(tris)]
        e = corners[_corner_index(e)]
        body = trimesh.Trimesh(vertices=tris.reshape(-1, 3),
                               faces=np.arange(len(tris) * 3).reshape(-1, 3), process=False)
        neck = _cyl_y(4.0, -12.0, 0.0)
        return _geometry([body, neck], [e])
    if key == "3815.dat":  # hips: a block with two studs for the legs and a pin up
        body = _box_mesh([-18.0, 0.0, -10.0], [18.0, 12.0, 10.0])
        pin = _cyl_y(4.0, -11.0, 0.0)
        _, e = box_triangles(np.array([-18.0, 0.0, -10.0]), np.array([18.0, 12.0, 10.0]))
        return _geometry([body, pin], [e], studs=[[10.0, 0.0, 0.0], [-10.0, 0.0, 0.0]])
    if key in ("3816.dat", "3817.dat"):  # legs: hip joint along X, leg block, foot forward
        x0, x1 = (-19.5, -1.5) if key == "3816.dat" else (1.5, 19.5)
        joint = trimesh.creation.cylinder(radius=9.0, segment=[[x0, 0.0, 0.0], [x1, 0.0, 0.0]],
                                          sections=_SECTIONS)
        leg = _box_mesh([x0, 0.0, -9.0], [x1, 22.0, 9.0])
        foot = _box_mesh([x0, 22.0, -11.0], [x1, 28.0, 9.0])
        _, e1 = box_triangles(np.array([x0, 0.0, -9.0]), np.array([x1, 22.0, 9.0]))
        _, e2 = box_triangles(np.array([x0, 22.0, -11.0]), np.array([x1, 28.0, 9.0]))
        return _geometry([joint, leg, foot], [e1, e2])
    if key in ("3818.dat", "3819.dat"):  # arms: shoulder ball, arm bent forward-down
        sx = -1.0 if key == "3818.dat" else 1.0
        shoulder = trimesh.creation.icosphere(subdivisions=1, radius=6.5)
        upper = trimesh.creation.cylinder(
            radius=5.0, segment=[[0.0, 0.0, 0.0], [sx * 3.0, 17.0, -2.0]], sections=_SECTIONS)
        fore = trimesh.creation.cylinder(radius=4.5, segment=[[sx * 3.0, 17.0, -2.0],
                                                              [sx * 3.0, 18.0, -12.0]],
                                         sections=_SECTIONS)
        return _geometry([shoulder, upper, fore], [])
    if key == "3820.dat":  # hand: a C-grip ring (axis Z) on a wrist pin (axis Z, behind)
        ring = trimesh.creation.annulus(r_min=3.2, r_max=6.0, height=8.0, sections=_SECTIONS)
        wrist = trimesh.creation.cylinder(radius=3.0, segment=[[0.0, 0.0, 4.0], [0.0, 0.0, 13.0]],
                                          sections=_SECTIONS)
        return _geometry([ring, wrist], [_circle_edges(6.0, np.array([0.0, 0.0, z]), axis=2)
                                         for z in (-4.0, 4.0)])
    raise KeyError(key)


def _cyl_x(radius: float, x0: float, x1: float, y: float = 0.0, z: float = 0.0):
    return trimesh.creation.cylinder(radius=radius, segment=[[x0, y, z], [x1, y, z]],
                                     sections=_SECTIONS)


def _prism_z(outline, z0: float, z1: float) -> trimesh.Trimesh:
    """A convex outline in the XY plane ((n, 2), either turn) extruded from ``z0`` to ``z1``
    (``z0 < z1``): a closed solid, faces counter-clockwise seen from outside."""
    pts = np.asarray(outline, dtype=float)
    x, y = pts[:, 0], pts[:, 1]
    if np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) < 0:  # make it counter-clockwise
        pts = pts[::-1]
    n = len(pts)
    lo, hi = np.c_[pts, np.full(n, z0)], np.c_[pts, np.full(n, z1)]
    tris = []
    for i in range(1, n - 1):
        tris.append([hi[0], hi[i], hi[i + 1]])  # top, +Z
        tris.append([lo[0], lo[i + 1], lo[i]])  # bottom, -Z
    for i in range(n):
        j = (i + 1) % n
        tris.append([lo[i], lo[j], hi[j]])
        tris.append([lo[i], hi[j], hi[i]])
    t = np.asarray(tris)
    return trimesh.Trimesh(vertices=t.reshape(-1, 3), faces=np.arange(len(t) * 3).reshape(-1, 3),
                           process=False)


def _shape_geometry(key: str) -> Geometry:
    """The simplified shapes of :data:`SHAPES`, in the official parts' frames (LDU, -Y up)."""
    stud = _cyl_y(STUD_RADIUS_LDU, -STUD_HEIGHT_LDU, 0.0)
    top_ring = _circle_edges(STUD_RADIUS_LDU, np.array([0.0, -STUD_HEIGHT_LDU, 0.0]))
    if key == "3062b.dat":  # round 1 x 1 brick: a cylinder 20 across, a stud on top
        return _geometry([_cyl_y(10.0, 0.0, _B), stud],
                         [_circle_edges(10.0, np.array([0.0, y, 0.0])) for y in (0.0, _B)]
                         + [top_ring], studs=[[0.0, 0.0, 0.0]], tubes=[[0.0, _B, 0.0]])
    if key == "2458.dat":  # a 1 x 2 brick with a pin 20 long out of its -Z side
        g = _brick_geometry(BrickSpec("", 2, 1, _B))
        body = trimesh.Trimesh(vertices=g.triangles.reshape(-1, 3),
                               faces=np.arange(len(g.triangles) * 3).reshape(-1, 3),
                               process=False)
        pin = trimesh.creation.cylinder(radius=6.0, segment=[[0.0, 14.0, -10.0],
                                                             [0.0, 14.0, -30.0]],
                                        sections=_SECTIONS)
        return _geometry([body, pin], [g.edges], g.studs, g.tubes)
    if key == "3679.dat":  # turntable top: a round plate 35 across with four studs
        xs = np.array([[x, 0.0, z] for z in (-10.0, 10.0) for x in (-10.0, 10.0)])
        studs = (stud.triangles[None] + xs[:, None, None, :]).reshape(-1, 3, 3)
        return _geometry([_cyl_y(17.5, 0.0, _P), trimesh.Trimesh(
            vertices=studs.reshape(-1, 3), faces=np.arange(len(studs) * 3).reshape(-1, 3),
            process=False)], [_circle_edges(17.5, np.array([0.0, 0.0, 0.0]))], studs=xs)
    if key == "3680.dat":  # turntable base: a 2 x 2 plate's body, no studs
        lo, hi = np.array([-20.0, 0.0, -20.0]), np.array([20.0, _P, 20.0])
        _, e = box_triangles(lo, hi)
        return _geometry([_box_mesh(lo, hi)], [e], tubes=[[0.0, 6.0, 0.0]])
    if key == "3705.dat":  # axle 4: a cross 12 across and 80 long along X
        arms = [_box_mesh([-40.0, -6.0, -2.0], [40.0, 6.0, 2.0]),
                _box_mesh([-40.0, -2.0, -6.0], [40.0, 2.0, 6.0])]
        return _geometry(arms, [box_triangles(np.array([-40.0, -6.0, -2.0]),
                                              np.array([40.0, 6.0, 2.0]))[1]])
    if key == "63965.dat":  # bar 6L: 8 across, a stop ring 12 across just above the origin
        parts = [_cyl_y(4.0, -102.5, -7.5), _cyl_y(6.0, -7.5, 0.0), _cyl_y(4.0, 0.0, 18.0)]
        return _geometry(parts, [_circle_edges(6.0, np.array([0.0, y, 0.0]))
                                 for y in (-7.5, 0.0)])
    if key == "3957a.dat":  # antenna 4H: a round base 16 across, a whip, a rounded top
        parts = [_cyl_y(8.0, 0.0, _P), _cyl_y(2.0, -84.0, 0.0), _cyl_y(4.0, -88.0, -84.0)]
        return _geometry(parts, [_circle_edges(8.0, np.array([0.0, y, 0.0])) for y in (0.0, _P)],
                         tubes=[[0.0, 4.0, 0.0]])
    if key == "3847.dat":  # shortsword: blade up (-Y), cross-guard along Z, grip down
        blade = _prism_z([[-6.0, -4.0], [6.0, -4.0], [0.0, -58.0]], -1.5, 1.5)
        blade.apply_transform(np.array([[0, 0, 1, 0], [0, 1, 0, 0], [-1, 0, 0, 0],
                                        [0, 0, 0, 1]], float))  # blade flat in the YZ plane
        guard = _box_mesh([-4.0, -4.0, -16.0], [4.0, 0.0, 16.0])
        return _geometry([blade, guard, _cyl_y(4.0, 0.0, 22.0)], [])
    if key == "3846.dat":  # triangular shield: a plate 40 wide, pointed below, a grip behind
        face = _prism_z([[-20.0, -14.0], [20.0, -14.0], [20.0, 10.0], [0.0, 32.37],
                         [-20.0, 10.0]], -10.0, -6.0)
        grip = _box_mesh([-3.0, -2.0, -6.0], [3.0, 8.0, 14.0])
        return _geometry([face, grip], [])
    raise KeyError(key)


def _corner_index(unit_pts: np.ndarray) -> np.ndarray:
    """Corner indices (bit 0: x, bit 1: y, bit 2: z) of points of the unit box."""
    u = np.rint(unit_pts).astype(int)
    return u[..., 0] + 2 * u[..., 1] + 4 * u[..., 2]


@lru_cache(maxsize=None)
def catalogue_part(name: str) -> PartMesh:
    """The generated :class:`~sandbox.bricks.partmesh.PartMesh` of a catalogue part.

    Parameters
    ----------
    name : str
        Part name, any case, with or without ``.dat`` (``"3001"``, ``"3001.dat"``).

    Returns
    -------
    PartMesh
        Source ``"catalogue"``; triangles CCW outward, all certified; colours 16.

    Raises
    ------
    KeyError
        When the catalogue has no such part (see :func:`has_part`).
    """
    key = _key(name)
    if key not in BRICKS and key not in MINIFIG and key not in SHAPES:
        raise KeyError(f"no part {name!r} in the built-in catalogue")
    # made once: the disk cache's entry is keyed by this code (sandbox.bricks.partcache)
    entry = partcache.entry_key("catalogue", key)
    pm = partcache.load(entry, key, lambda dep: "", PartMesh)
    if pm is None:
        pm = _generate(key)
        partcache.store(entry, pm, [])
    return pm


def _generate(key: str) -> PartMesh:
    if key in BRICKS:
        spec = BRICKS[key]
        return PartMesh.from_geometry(key, spec.title, _brick_geometry(spec), "catalogue")
    if key in MINIFIG:
        return PartMesh.from_geometry(key, MINIFIG[key], _minifig_geometry(key), "catalogue")
    return PartMesh.from_geometry(key, SHAPES[key], _shape_geometry(key), "catalogue")


register_catalogue(has_part, catalogue_part)
