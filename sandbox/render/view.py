"""Plain input records for rendering: what to draw, where, and from where.

Everything here is numpy and dataclasses (no Panda3D import), so the game and replay layers
can build a :class:`SceneView` without touching the renderer. The world frame is the
project's: inches, Z up, right-handed; the battlefield's ground is centred on the origin at
z = 0. Orientations are quaternions in pybullet's order ``(x, y, z, w)``.

Rendering reads these records and never changes them.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from sandbox.core.errors import SandboxError
from sandbox.core.transforms import quat_to_matrix as _quat_to_matrix

__all__ = [
    "RenderError",
    "RenderMesh",
    "RenderBody",
    "MarkerKind",
    "Marker",
    "Camera",
    "SceneView",
    "RED_BRICK",
    "DEFAULT_EDGE_COLOUR",
]

#: LDraw colour 4 (Red), RGBA 0..1: the traditional target-"X" brick.
RED_BRICK: tuple[float, float, float, float] = (0.788, 0.102, 0.035, 1.0)
#: Edge colour used when a mesh has edges but no edge colours (LDraw colour 24 is "edge").
DEFAULT_EDGE_COLOUR: tuple[float, float, float, float] = (0.10, 0.10, 0.10, 1.0)


class RenderError(SandboxError, ValueError):
    """Input the renderer cannot draw (bad array shapes, unknown marker, bad image size)."""


def display_refusal(what: str = "a window") -> str:
    """Why ``what`` cannot be opened on this machine for want of a display ("" when it can
    be tried): on Linux and the BSDs, Panda3D's X11 window falls back to ``:0`` when
    ``DISPLAY`` is unset, and would open on whatever X server answers there."""
    import os
    import sys

    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")) \
            and not os.environ.get("DISPLAY", "").strip():
        return (f"cannot open {what}: there is no display (DISPLAY is not set); run it in a "
                "desktop session, or under Xvfb (xvfb-run sandbox ...)")
    return ""


def _rgba(colour: Sequence[float], what: str) -> tuple[float, float, float, float]:
    """Return ``colour`` as an RGBA 4-tuple of floats in 0..1 (RGB gets alpha 1)."""
    c = tuple(float(v) for v in colour)
    if len(c) == 3:
        c = (*c, 1.0)
    if len(c) != 4 or not all(0.0 <= v <= 1.0 for v in c):
        raise RenderError(f"{what} must be RGB or RGBA in 0..1, got {colour!r}")
    return c  # type: ignore[return-value]


def _vec3(value: Sequence[float], what: str) -> np.ndarray:
    """Return ``value`` as a read-only (3,) float64 array, or raise :class:`RenderError`."""
    a = np.array(value, dtype=np.float64).reshape(-1)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise RenderError(f"{what} must be 3 finite numbers, got {value!r}")
    a.setflags(write=False)
    return a


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class RenderMesh:
    """A triangle soup in its body's own frame, with per-vertex colours.

    Identity (not value) equality: the renderer caches the GPU copy of a mesh per object, so
    build a mesh once and share it between the bodies (and frames) that use it.

    Parameters
    ----------
    vertices : (n, 3) float32
        Triangle corners in inches, body frame; every 3 consecutive rows are one triangle
        (counter-clockwise seen from the outside), so ``n`` is a multiple of 3.
    normals : (n, 3) float32
        Unit normals per corner (flat or smooth, as the mesh maker chose).
    colours : (n, 4) float32
        RGBA per corner, 0..1 (LDraw colours, sRGB values used as they are).
    edges : (m, 2, 3) float32, optional
        Line segments in inches, body frame (LDraw type-2 lines).
    edge_colours : (m, 4) float32, optional
        RGBA per segment; :data:`DEFAULT_EDGE_COLOUR` when omitted.
    optional : (k, 4, 3) float32, optional
        LDraw type-5 optional lines in inches, body frame: the two end points, then the two
        control points. Drawn only where the control points lie on one side of the line on
        screen (silhouettes of curved surfaces).
    optional_colours : (k, 4) float32, optional
        RGBA per optional line; :data:`DEFAULT_EDGE_COLOUR` when omitted.
    name : str
        For messages and the scene graph.

    Raises
    ------
    RenderError
        On a shape mismatch or non-finite values.
    """

    vertices: np.ndarray
    normals: np.ndarray
    colours: np.ndarray
    edges: np.ndarray | None = None
    edge_colours: np.ndarray | None = None
    name: str = "mesh"
    optional: np.ndarray | None = None
    optional_colours: np.ndarray | None = None

    def __post_init__(self) -> None:
        v = np.ascontiguousarray(self.vertices, dtype=np.float32)
        n = np.ascontiguousarray(self.normals, dtype=np.float32)
        c = np.ascontiguousarray(self.colours, dtype=np.float32)
        if v.ndim != 2 or v.shape[1] != 3 or v.shape[0] % 3:
            raise RenderError(
                f"mesh {self.name!r}: vertices must be (n, 3) with n a multiple of 3, "
                f"got {v.shape}"
            )
        if n.shape != v.shape:
            raise RenderError(f"mesh {self.name!r}: normals {n.shape} != vertices {v.shape}")
        if c.shape != (v.shape[0], 4):
            raise RenderError(
                f"mesh {self.name!r}: colours must be ({v.shape[0]}, 4), got {c.shape}"
            )
        if not (np.all(np.isfinite(v)) and np.all(np.isfinite(n))):
            raise RenderError(f"mesh {self.name!r}: non-finite vertices or normals")
        object.__setattr__(self, "vertices", _frozen(v))
        object.__setattr__(self, "normals", _frozen(n))
        object.__setattr__(self, "colours", _frozen(np.clip(c, 0.0, 1.0)))
        self._check_optional()
        if self.edges is None:
            if self.edge_colours is not None:
                raise RenderError(f"mesh {self.name!r}: edge_colours given without edges")
            return
        e = np.ascontiguousarray(self.edges, dtype=np.float32)
        if e.ndim != 3 or e.shape[1:] != (2, 3):
            raise RenderError(f"mesh {self.name!r}: edges must be (m, 2, 3), got {e.shape}")
        if self.edge_colours is None:
            ec = np.tile(np.asarray(DEFAULT_EDGE_COLOUR, np.float32), (e.shape[0], 1))
        else:
            ec = np.ascontiguousarray(self.edge_colours, dtype=np.float32)
            if ec.shape != (e.shape[0], 4):
                raise RenderError(
                    f"mesh {self.name!r}: edge_colours must be ({e.shape[0]}, 4), got {ec.shape}"
                )
        object.__setattr__(self, "edges", _frozen(e))
        object.__setattr__(self, "edge_colours", _frozen(np.clip(ec, 0.0, 1.0)))

    def _check_optional(self) -> None:
        if self.optional is None:
            if self.optional_colours is not None:
                raise RenderError(f"mesh {self.name!r}: optional_colours given without optional")
            return
        o = np.ascontiguousarray(self.optional, dtype=np.float32)
        if o.ndim != 3 or o.shape[1:] != (4, 3):
            raise RenderError(f"mesh {self.name!r}: optional must be (k, 4, 3), got {o.shape}")
        if not np.all(np.isfinite(o)):
            raise RenderError(f"mesh {self.name!r}: non-finite optional lines")
        if self.optional_colours is None:
            oc = np.tile(np.asarray(DEFAULT_EDGE_COLOUR, np.float32), (o.shape[0], 1))
        else:
            oc = np.ascontiguousarray(self.optional_colours, dtype=np.float32)
            if oc.shape != (o.shape[0], 4):
                raise RenderError(f"mesh {self.name!r}: optional_colours must be "
                                  f"({o.shape[0]}, 4), got {oc.shape}")
        object.__setattr__(self, "optional", _frozen(o))
        object.__setattr__(self, "optional_colours", _frozen(np.clip(oc, 0.0, 1.0)))

    @property
    def n_optional(self) -> int:
        """Number of optional (type-5) lines (0 when there are none)."""
        return 0 if self.optional is None else self.optional.shape[0]

    @property
    def n_triangles(self) -> int:
        """Number of triangles."""
        return self.vertices.shape[0] // 3

    @property
    def n_edges(self) -> int:
        """Number of edge segments (0 when there are none)."""
        return 0 if self.edges is None else self.edges.shape[0]

    def bounds(self) -> np.ndarray:
        """Axis-aligned bounds in the body frame.

        Returns
        -------
        (2, 3) float64
            ``[min_xyz, max_xyz]`` in inches; zeros for an empty mesh.
        """
        got = self.__dict__.get("_bounds")
        if got is None:  # the arrays are read-only: measured once (a video asks every frame)
            if self.vertices.shape[0] == 0:
                got = np.zeros((2, 3))
            else:
                got = np.stack([self.vertices.min(0), self.vertices.max(0)]).astype(np.float64)
            self.__dict__["_bounds"] = got
        return got.copy()

    @classmethod
    def concatenate(cls, meshes: Sequence[RenderMesh], name: str = "mesh") -> RenderMesh:
        """Join meshes (already in one common body frame) into one mesh, so one draw call.

        Parameters
        ----------
        meshes : sequence of RenderMesh
            The parts, each already placed in the body frame.
        name : str
            Name of the result.

        Returns
        -------
        RenderMesh
            Triangles and edges of all parts, in order.
        """
        if not meshes:
            raise RenderError("concatenate needs at least one mesh")
        with_edges = [m for m in meshes if m.edges is not None]
        with_optional = [m for m in meshes if m.optional is not None]
        return cls(
            vertices=np.concatenate([m.vertices for m in meshes]),
            normals=np.concatenate([m.normals for m in meshes]),
            colours=np.concatenate([m.colours for m in meshes]),
            edges=np.concatenate([m.edges for m in with_edges]) if with_edges else None,
            edge_colours=(
                np.concatenate([m.edge_colours for m in with_edges]) if with_edges else None
            ),
            name=name,
            optional=(np.concatenate([m.optional for m in with_optional])
                      if with_optional else None),
            optional_colours=(np.concatenate([m.optional_colours for m in with_optional])
                              if with_optional else None),
        )


@dataclass(frozen=True, eq=False)
class RenderBody:
    """One rigid body to draw: a mesh at a pose.

    Parameters
    ----------
    mesh : RenderMesh
        Geometry in the body frame.
    position : (3,) float
        Body-frame origin in world inches.
    orientation : (4,) float
        Unit quaternion ``(x, y, z, w)`` (pybullet's order), body → world. Normalised here.
    key : str
        Stable identity of the body (used as the scene-graph node name).
    highlight : bool
        Draw it tinted with a bright outline (selected unit, current target).
    """

    mesh: RenderMesh
    position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    orientation: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 0.0, 1.0]))
    key: str = "body"
    highlight: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.mesh, RenderMesh):
            raise RenderError(f"body {self.key!r}: mesh must be a RenderMesh, got {self.mesh!r}")
        object.__setattr__(self, "position", _vec3(self.position, f"body {self.key!r} position"))
        q = np.array(self.orientation, dtype=np.float64).reshape(-1)
        norm = float(np.linalg.norm(q)) if q.shape == (4,) else 0.0
        if q.shape != (4,) or not math.isfinite(norm) or norm < 1e-9:
            raise RenderError(
                f"body {self.key!r}: orientation must be a non-zero (x, y, z, w) quaternion, "
                f"got {self.orientation!r}"
            )
        object.__setattr__(self, "orientation", _frozen(q / norm))

    def world_bounds(self) -> np.ndarray:
        """Axis-aligned bounds of the posed mesh in world inches, shape (2, 3)."""
        lo, hi = self.mesh.bounds()
        corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                            for z in (lo[2], hi[2])])
        world = corners @ _quat_to_matrix(self.orientation).T + self.position
        return np.stack([world.min(0), world.max(0)])


class MarkerKind(enum.Enum):
    """What a :class:`Marker` draws."""

    TARGET = "target"  #: the red-brick "X" laid on the table at a point
    RING = "ring"  #: a flat circle (explosion radius) around a centre
    LINE = "line"  #: a polyline (a trajectory, a measuring tape)
    FLAME = "flame"  #: a tongue of flame standing on a burning surface (BrikWars F.1 Fire)


@dataclass(frozen=True, eq=False)
class Marker:
    """A game overlay: target X, ring or line. Build with the class methods.

    Parameters
    ----------
    kind : MarkerKind
        What to draw.
    points : (k, 3) float
        World inches: the target point (k=1), the ring centre (k=1) or the polyline (k>=2).
    colour : (4,) float
        RGBA 0..1.
    radius : float
        Ring radius in inches (RING only).
    width : float
        TARGET: size of the X across, inches; RING: band width, inches;
        LINE: thickness in pixels.
    """

    kind: MarkerKind
    points: np.ndarray
    colour: tuple[float, float, float, float] = RED_BRICK
    radius: float = 0.0
    width: float = 1.0

    def __post_init__(self) -> None:
        kind = MarkerKind(self.kind)
        object.__setattr__(self, "kind", kind)
        p = np.array(self.points, dtype=np.float64).reshape(-1, 3)
        need = 2 if kind is MarkerKind.LINE else 1
        if p.shape[0] < need or (kind is not MarkerKind.LINE and p.shape[0] != 1):
            raise RenderError(f"{kind.value} marker: wrong number of points {p.shape[0]}")
        if not np.all(np.isfinite(p)):
            raise RenderError(f"{kind.value} marker: non-finite points {p.tolist()}")
        object.__setattr__(self, "points", _frozen(p))
        object.__setattr__(self, "colour", _rgba(self.colour, f"{kind.value} marker colour"))
        if not (self.width > 0 and math.isfinite(self.width)):
            raise RenderError(f"{kind.value} marker: width must be > 0, got {self.width!r}")
        if kind is MarkerKind.RING and not (self.radius > 0 and math.isfinite(self.radius)):
            raise RenderError(f"ring marker: radius must be > 0 inches, got {self.radius!r}")

    @classmethod
    def target(cls, point: Sequence[float], size: float = 1.0,
               colour: Sequence[float] = RED_BRICK) -> Marker:
        """A red-brick "X" of ``size`` inches across, lying on the surface at ``point``."""
        return cls(MarkerKind.TARGET, np.asarray(point, float), tuple(colour), 0.0, size)

    @classmethod
    def ring(cls, centre: Sequence[float], radius: float,
             colour: Sequence[float] = (1.0, 0.55, 0.1, 0.9), width: float = 0.12) -> Marker:
        """A flat ring of ``radius`` inches (band ``width`` inches) in the plane z = centre z."""
        return cls(MarkerKind.RING, np.asarray(centre, float), tuple(colour), radius, width)

    @classmethod
    def line(cls, a: Sequence[float], b: Sequence[float],
             colour: Sequence[float] = (1.0, 1.0, 1.0, 1.0), width_px: float = 2.0) -> Marker:
        """A straight segment from ``a`` to ``b`` (inches), ``width_px`` pixels thick."""
        return cls(MarkerKind.LINE, np.array([a, b], float), tuple(colour), 0.0, width_px)

    @classmethod
    def path(cls, points: Sequence[Sequence[float]],
             colour: Sequence[float] = (1.0, 1.0, 1.0, 1.0), width_px: float = 2.0) -> Marker:
        """A polyline through ``points`` ((k, 3) inches, k >= 2), e.g. a sampled trajectory."""
        return cls(MarkerKind.LINE, np.asarray(points, float), tuple(colour), 0.0, width_px)

    @classmethod
    def flame(cls, point: Sequence[float], height: float = 0.6,
              colour: Sequence[float] = (1.0, 0.45, 0.05, 1.0)) -> Marker:
        """A flame ``height`` inches tall standing on a burning surface at ``point`` (inches):
        crossed orange tongues around a yellow core, drawn unlit (BrikWars F.1: "place flame
        elements on the surface of the object to indicate the size and shape of the fire")."""
        return cls(MarkerKind.FLAME, np.asarray(point, float), tuple(colour), 0.0, height)


@dataclass(frozen=True)
class Camera:
    """A perspective camera looking from ``eye`` at ``target`` with Z up.

    Parameters
    ----------
    eye, target : (3,) float
        World inches.
    fov_deg : float
        Vertical field of view in degrees (the horizontal one follows the image aspect).
    """

    eye: np.ndarray
    target: np.ndarray
    fov_deg: float = 40.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "eye", _vec3(self.eye, "camera eye"))
        object.__setattr__(self, "target", _vec3(self.target, "camera target"))
        if np.linalg.norm(self.eye - self.target) < 1e-6:
            raise RenderError(f"camera eye and target coincide at {self.eye.tolist()}")
        if not 1.0 <= self.fov_deg <= 150.0:
            raise RenderError(f"camera fov_deg must be in [1, 150], got {self.fov_deg!r}")

    @classmethod
    def framing(cls, lo: Sequence[float], hi: Sequence[float], azimuth_deg: float = 30.0,
                elevation_deg: float = 35.0, fov_deg: float = 40.0, aspect: float = 4 / 3,
                margin: float = 1.08) -> Camera:
        """A 3/4 view that fits the box ``[lo, hi]`` (world inches) in the picture.

        Parameters
        ----------
        lo, hi : (3,) float
            Opposite corners of the box to frame, inches.
        azimuth_deg : float
            Turn of the viewpoint from straight in front (world -Y, the side LDraw models
            face) towards +X (the viewer stands front-right), degrees.
        elevation_deg : float
            Height of the viewpoint above the horizon, degrees.
        fov_deg : float
            Vertical field of view, degrees.
        aspect : float
            Width / height of the picture the camera will be used for.
        margin : float
            Extra distance factor (1 = the box's outermost corner touches the frame).
        """
        lo_, hi_ = _vec3(lo, "framing lo"), _vec3(hi, "framing hi")
        centre = (lo_ + hi_) / 2.0
        az, el = math.radians(azimuth_deg), math.radians(elevation_deg)
        direction = np.array([math.cos(el) * math.sin(az), -math.cos(el) * math.cos(az),
                              math.sin(el)])  # from the target towards the eye
        forward = -direction
        right = np.cross(forward, [0.0, 0.0, 1.0])
        right = right / np.linalg.norm(right) if np.linalg.norm(right) > 1e-9 else np.array(
            [1.0, 0.0, 0.0])
        up = np.cross(right, forward)
        tan_v = math.tan(math.radians(fov_deg) / 2.0)
        tan_h = tan_v * aspect
        box = np.array([[x, y, z] for x in (lo_[0], hi_[0]) for y in (lo_[1], hi_[1])
                        for z in (lo_[2], hi_[2])])
        for _ in range(4):  # fit the distance, then centre the box's picture; repeat
            corners = box - centre
            depth = corners @ forward
            # each corner at depth (distance + c.forward) must project inside the half-angles
            need = np.maximum(np.abs(corners @ right) / tan_h, np.abs(corners @ up) / tan_v)
            distance = max(float(np.max(need - depth)) * margin, 1.0)
            sx = (corners @ right) / (distance + depth)
            sy = (corners @ up) / (distance + depth)
            mid_x, mid_y = (sx.max() + sx.min()) / 2, (sy.max() + sy.min()) / 2
            centre = centre + distance * (mid_x * right + mid_y * up)
        return cls(centre + distance * direction, centre, fov_deg)


@dataclass(frozen=True)
class SceneView:
    """Everything one picture shows. Built by the game/replay layer; read by the renderer.

    Parameters
    ----------
    bodies : sequence of RenderBody
        Posed meshes.
    markers : sequence of Marker
        Overlays (target X, explosion rings, trajectories).
    battlefield : (2,) float
        Table (width along X, depth along Y) in inches, centred on the origin, top at z = 0.
    ground_colour : (4,) float
        Table top RGBA 0..1 (default a muted green baize).
    grid : bool
        Draw a faint line every inch and a stronger one every 6 inches.
    camera : Camera, optional
        Viewpoint; when ``None`` a 3/4 view framing the battlefield and the bodies.
    background : (4,) float
        Sky RGBA 0..1.
    sun_direction : (3,) float
        Direction the sunlight travels (world, need not be unit), pointing down.
    edges : bool
        Draw the meshes' edge lines (LDraw type 2, and type-5 optional lines on
        silhouettes); False draws faces only.
    """

    bodies: Sequence[RenderBody] = ()
    markers: Sequence[Marker] = ()
    battlefield: tuple[float, float] = (48.0, 48.0)
    ground_colour: tuple[float, float, float, float] = (0.36, 0.50, 0.33, 1.0)
    grid: bool = True
    camera: Camera | None = None
    background: tuple[float, float, float, float] = (0.70, 0.80, 0.90, 1.0)
    sun_direction: tuple[float, float, float] = (0.45, 0.75, -1.0)
    edges: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "bodies", tuple(self.bodies))
        object.__setattr__(self, "markers", tuple(self.markers))
        for b in self.bodies:
            if not isinstance(b, RenderBody):
                raise RenderError(f"bodies must be RenderBody, got {b!r}")
        for m in self.markers:
            if not isinstance(m, Marker):
                raise RenderError(f"markers must be Marker, got {m!r}")
        w, d = (float(v) for v in self.battlefield)
        if not (w > 0 and d > 0 and math.isfinite(w) and math.isfinite(d)):
            raise RenderError(f"battlefield must be two positive inches, got {self.battlefield!r}")
        object.__setattr__(self, "battlefield", (w, d))
        object.__setattr__(self, "ground_colour", _rgba(self.ground_colour, "ground_colour"))
        object.__setattr__(self, "background", _rgba(self.background, "background"))
        sun = _vec3(self.sun_direction, "sun_direction")
        if sun[2] >= 0:
            raise RenderError(f"sun_direction must point down (z < 0), got {sun.tolist()}")
        object.__setattr__(self, "sun_direction", tuple(float(v) for v in sun))

    def bounds(self) -> np.ndarray:
        """World bounds of the table top, the bodies and the markers, shape (2, 3) inches."""
        w, d = self.battlefield
        boxes = [np.array([[-w / 2, -d / 2, 0.0], [w / 2, d / 2, 0.0]])]
        boxes += [b.world_bounds() for b in self.bodies if b.mesh.vertices.shape[0]]
        for m in self.markers:
            r = m.radius + m.width if m.kind is not MarkerKind.LINE else 0.0
            boxes.append(np.stack([m.points.min(0) - r, m.points.max(0) + r]))
        allb = np.concatenate(boxes)
        return np.stack([allb.min(0), allb.max(0)])

    def camera_for(self, aspect: float) -> Camera:
        """The view's camera, or a 3/4 view framing :meth:`bounds` at ``aspect`` (w / h)."""
        if self.camera is not None:
            return self.camera
        lo, hi = self.bounds()
        return Camera.framing(lo, hi, aspect=aspect)
