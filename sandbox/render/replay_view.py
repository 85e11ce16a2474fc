"""Scene views of a replay frame, and cameras that frame the action (reads state only).

:class:`ReplayDrawing` turns the state of a :class:`~sandbox.engine.playback.ReplayPlayback`
into :class:`~sandbox.render.view.SceneView` records for the offscreen renderer (exports) and
gives the replay window the meshes and the "action" box to follow. It builds each body's
:class:`~sandbox.render.view.RenderMesh` once (the renderer caches GPU copies by mesh
identity), plus a scorched copy for bodies once they are destroyed.

World frame: inches, Z up; quaternions ``(x, y, z, w)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .from_game import render_mesh_of
from .view import Camera, Marker, RenderBody, RenderMesh, SceneView

#: The action box is at least this big along each axis, inches (a falling brick alone would
#: fill the picture otherwise).
MIN_ACTION_SIZE_IN: float = 8.0
#: Explosion rings are drawn for this long after the blast, seconds.
EXPLOSION_SHOW_S: float = 0.5


class ReplayDrawing:
    """Meshes of a replay's bodies, and views of its frames.

    Parameters
    ----------
    assets : mapping of key to asset
        Body-frame meshes (``local_vertices (n, 3)`` inches, ``local_normals``,
        ``local_colours (n, 4)``, ``local_edges``, ``name``), as from
        :func:`~sandbox.engine.playback.replay_assets`.
    battlefield : (width, depth)
        Table size, inches.
    ground_colour : (3,) or (4,) float
        Table top RGB(A) 0..1.
    edges : bool
        Meshes carry the LDraw edge lines (type 2 and optional type 5).
    """

    def __init__(self, assets: Mapping[str, object], battlefield: tuple[float, float],
                 ground_colour: Sequence[float] = (0.36, 0.5, 0.3), edges: bool = False):
        self.assets = dict(assets)
        self.edges = bool(edges)
        self.battlefield = (float(battlefield[0]), float(battlefield[1]))
        self.ground_colour = tuple(ground_colour) + ((1.0,) if len(ground_colour) == 3 else ())
        self._meshes: dict[tuple[str, bool], RenderMesh] = {}
        #: Bounding-sphere radius of every body about its frame origin, inches.
        self.radius = {k: float(np.linalg.norm(a.local_vertices, axis=1).max())
                       if len(a.local_vertices) else 0.0 for k, a in self.assets.items()}

    @classmethod
    def for_replay(cls, replay, assets: Mapping[str, object],
                   edges: bool = False) -> ReplayDrawing:
        """A drawing with the battlefield of the replay's scene."""
        bf = replay.scene.get("battlefield", {})
        return cls(assets, (bf.get("width", 48.0), bf.get("depth", 48.0)),
                   bf.get("ground_colour", (0.36, 0.5, 0.3)), edges)

    def mesh(self, key: str, destroyed: bool = False) -> RenderMesh:
        """The body's mesh (made once; scorched when ``destroyed``)."""
        k = (key, bool(destroyed))
        if k not in self._meshes:
            self._meshes[k] = render_mesh_of(self.assets[key], destroyed=bool(destroyed),
                                             edges=self.edges)
        return self._meshes[k]

    def action_bounds(self, poses: Mapping[str, tuple], keys: Iterable[str] | None = None,
                      min_size: float = MIN_ACTION_SIZE_IN) -> np.ndarray | None:
        """(2, 3) world box around the bodies ``keys`` (all posed ones when None) at
        ``poses``, grown to ``min_size`` inches per axis and down to the table; None when
        none of them is posed."""
        chosen = [k for k in (poses if keys is None else keys) if k in poses and k in self.assets]
        if not chosen:
            return None
        return self.swept_bounds([{k: poses[k] for k in chosen}], min_size)

    def swept_bounds(self, poses_seq: Iterable[Mapping[str, tuple]],
                     min_size: float = MIN_ACTION_SIZE_IN) -> np.ndarray | None:
        """(2, 3) world box swept by the listed bodies over a sequence of poses (the box of
        each body's bounding sphere at each pose), grown as in :meth:`action_bounds`."""
        lo = np.full(3, np.inf)
        hi = np.full(3, -np.inf)
        for poses in poses_seq:
            for k, (pos, _q) in poses.items():
                r = self.radius.get(k)
                if r is None:
                    continue
                p = np.asarray(pos, float)
                lo = np.minimum(lo, p - r)
                hi = np.maximum(hi, p + r)
        if not np.all(np.isfinite(lo)):
            return None
        lo[2] = min(lo[2], 0.0)
        centre, half = (lo + hi) / 2, np.maximum((hi - lo) / 2, min_size / 2)
        lo, hi = centre - half, centre + half
        lo[2] = max(lo[2], -1.0)  # growing never digs far under the table
        return np.stack([lo, hi])

    def camera_for_bounds(self, bounds: np.ndarray, aspect: float, azimuth_deg: float = 30.0,
                          elevation_deg: float = 30.0) -> Camera:
        """A 3/4 view framing a world box (``(2, 3)`` inches)."""
        return Camera.framing(bounds[0], bounds[1], azimuth_deg=azimuth_deg,
                              elevation_deg=elevation_deg, aspect=aspect)

    def view(self, poses: Mapping[str, tuple], destroyed: Iterable[str] = (),
             explosions: Sequence[dict] = (), camera: Camera | None = None,
             aspect: float = 4 / 3) -> SceneView:
        """A view of one frame.

        Parameters
        ----------
        poses : mapping of key to (position (3,), quaternion (x, y, z, w))
            Bodies on the table (others are not drawn).
        destroyed : iterable of str
            Keys drawn scorched.
        explosions : sequence of dict
            Explosion events (``point``, ``radius`` inches) to draw as rings.
        camera : Camera, optional
            Default: frame every posed body.
        """
        dead = set(destroyed)
        bodies = [RenderBody(self.mesh(k, k in dead), np.asarray(pos, float),
                             np.asarray(q, float), key=k)
                  for k, (pos, q) in poses.items() if k in self.assets]
        markers = []
        for e in explosions:
            radius = float(e.get("radius", 0.0) or 0.0)
            if radius > 0 and "point" in e:
                markers.append(Marker.ring(e["point"], radius))
        if camera is None:
            b = self.action_bounds(poses)
            camera = self.camera_for_bounds(b, aspect) if b is not None else None
        return SceneView(bodies=bodies, markers=markers, battlefield=self.battlefield,
                         ground_colour=self.ground_colour, camera=camera)

    def view_of(self, playback, camera: Camera | None = None, aspect: float = 4 / 3) -> SceneView:
        """A view of the frame a :class:`~sandbox.engine.playback.ReplayPlayback` shows."""
        return self.view(playback.poses(), playback.destroyed(),
                         playback.recent_explosions(EXPLOSION_SHOW_S), camera, aspect)

