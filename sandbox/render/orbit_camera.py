"""The orbit camera of the windows (the tabletop and the replay viewer): pure state, no Panda3D.

The camera looks at ``target`` (inches, world frame, Z up) from ``distance`` inches away, at
``azimuth`` degrees about Z from the front (0: from the -Y side, looking along +Y) and
``elevation`` degrees above the horizon. A window sets its Panda3D camera from :meth:`eye`
and :attr:`target` each frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

#: Elevation of the top-down view, degrees (90 would leave the view's "up" undefined).
TOP_ELEVATION: float = 89.9
#: Vertical field of view of the windows' lens, degrees.
LENS_FOV_V_DEG: float = 40.0


@dataclass
class OrbitCamera:
    """An orbit camera about ``target``.

    Attributes
    ----------
    target : (3,) float
        Inches.
    distance : float
        Inches from the target, kept in ``min_distance .. max_distance`` by :meth:`zoom`.
    azimuth, elevation : float
        Degrees; :meth:`orbit` keeps the elevation in ``min_elevation .. max_elevation``.
    yaw, pitch : float
        Other names of ``azimuth`` and ``elevation``.
    """

    target: np.ndarray = field(default_factory=lambda: np.zeros(3))
    distance: float = 30.0
    azimuth: float = 30.0
    elevation: float = 40.0
    min_elevation: float = 5.0
    max_elevation: float = TOP_ELEVATION
    min_distance: float = 2.0
    max_distance: float = 400.0

    def __post_init__(self):
        self.target = np.asarray(self.target, dtype=float).copy()
        self._saved: tuple | None = None

    # ------------------------------------------------------------------ other names
    @property
    def yaw(self) -> float:
        return self.azimuth

    @yaw.setter
    def yaw(self, value: float) -> None:
        self.azimuth = float(value)

    @property
    def pitch(self) -> float:
        return self.elevation

    @pitch.setter
    def pitch(self, value: float) -> None:
        self.elevation = float(value)

    # ------------------------------------------------------------------ the view
    def eye(self) -> np.ndarray:
        """Camera position, (3,) inches."""
        az, el = math.radians(self.azimuth), math.radians(self.elevation)
        d = np.array([math.cos(el) * math.sin(az), -math.cos(el) * math.cos(az), math.sin(el)])
        return self.target + self.distance * d

    def right(self) -> np.ndarray:
        """(3,) unit vector to the right of the view, horizontal."""
        az = math.radians(self.azimuth)
        return np.array([math.cos(az), math.sin(az), 0.0])

    def forward(self) -> np.ndarray:
        """(3,) unit vector into the view along the table (horizontal)."""
        az = math.radians(self.azimuth)
        return np.array([-math.sin(az), math.cos(az), 0.0])

    # ------------------------------------------------------------------ moving
    def orbit(self, d_azimuth: float, d_elevation: float) -> None:
        """Turn about the target by degrees (the elevation clamped to its limits)."""
        self.azimuth = (self.azimuth + d_azimuth) % 360.0
        self.elevation = float(min(max(self.elevation + d_elevation, self.min_elevation),
                                   self.max_elevation))

    def zoom(self, factor: float) -> None:
        """Multiply the distance by ``factor`` (clamped to its limits)."""
        self.distance = float(min(max(self.distance * factor, self.min_distance),
                                  self.max_distance))

    def pan(self, right: float, forward: float) -> None:
        """Move the target along the table: ``right`` and ``forward`` in half-distances
        (the tabletop's pan)."""
        self.target = self.target + (self.right() * right + self.forward() * forward) \
            * self.distance * 0.5

    def pan_view(self, right: float, up: float) -> None:
        """Move the target across the view: right and up (world Z), in distances (the replay
        viewer's pan)."""
        self.target = self.target + self.distance * (right * self.right()
                                                     + np.array([0.0, 0.0, up]))

    def focus(self, point, max_distance: float = 14.0) -> None:
        """Look at ``point`` (inches), coming in to ``max_distance`` if further away."""
        self.target = np.asarray(point, float).copy()
        self.distance = min(self.distance, max_distance)

    # ------------------------------------------------------------------ top view
    def top_down(self, width: float | None = None, depth: float | None = None,
                 aspect: float = 16 / 9, fill: float = 0.6) -> None:
        """Look straight down, aligned with the table (+X right, +Y up the screen), framing a
        ``width`` x ``depth`` inch table in ``fill`` of the view (room for the HUD); with no
        table size, only look straight down from where the camera is.
        The 3D view before is kept for :meth:`toggle_top`."""
        self._saved = (self.target.copy(), self.distance, self.azimuth, self.elevation)
        if width is None or depth is None:
            self.elevation = TOP_ELEVATION
            return
        half_v = math.tan(math.radians(LENS_FOV_V_DEG / 2))
        self.target = np.zeros(3)
        self.distance = max(depth / 2 / (fill * half_v), width / 2 / (fill * half_v * aspect))
        self.azimuth, self.elevation = 0.0, TOP_ELEVATION

    @property
    def is_top(self) -> bool:
        """In the top view of :meth:`top_down` (until :meth:`toggle_top` leaves it)."""
        return self._saved is not None

    def toggle_top(self, width: float, depth: float, aspect: float) -> bool:
        """Top view, or back to the 3D view it replaced. Returns True when now in top view."""
        if self._saved is not None:
            self.target, self.distance, self.azimuth, self.elevation = self._saved
            self._saved = None
            return False
        self.top_down(width, depth, aspect)
        return True
