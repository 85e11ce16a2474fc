"""The pybullet world: the only module family that imports pybullet.

Units and frames: inches, Z up, seconds, radians, grams (so forces are g·in/s² and impulses
g·in/s). pybullet runs in DIRECT mode (headless) with a fixed time step; bodies are created in
a fixed order by the caller (the game layer sorts them), so the same scene gives the same poses.

Collision shapes (issue 2): each part of a creation is one box, the part's bounds in its own
frame; a creation is one rigid compound body of those boxes. The body frame is the creation's
centre of mass with its axes along the principal axes of inertia, so mass, centre of mass and
inertia come from the parts (solid boxes of the parts' masses), not from Bullet's bounding-box
approximation of compound shapes.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Callable, Iterable, NamedTuple, Sequence

import numpy as np

from ..core.transforms import (  # noqa: F401 (re-exported)
    matrices_to_quats,
    matrix_to_quat,
    quat_to_matrix,
)
from ..core.units import GRAVITY_IN_S2, Vec


@contextlib.contextmanager
def _quiet_c_stdout():
    """Silence what pybullet's C code prints on file descriptors 1 and 2 ("pybullet build
    time", "argv[0]=") so the turn log stays readable. Python exceptions still propagate."""
    saved = []
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd in (1, 2):
            saved.append((fd, os.dup(fd)))
    except (AttributeError, OSError, ValueError):
        for _, dup in saved:
            os.close(dup)
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            for fd, _ in saved:
                os.dup2(null.fileno(), fd)
        yield
    finally:
        _libc_fflush()  # C stdio buffers what it printed when stdout is a pipe: drop it here
        for fd, dup in saved:
            os.dup2(dup, fd)
            os.close(dup)


def _libc_fflush() -> None:
    try:
        if not _LIBC:
            import ctypes

            _LIBC.append(ctypes.CDLL(None))  # dlopen once: about 1 ms a call
        _LIBC[0].fflush(None)
    except (OSError, AttributeError):
        pass


_LIBC: list = []


with _quiet_c_stdout():
    import pybullet
    from pybullet_utils.bullet_client import BulletClient


#: Fixed physics time step in seconds. 1/480 s keeps a brick falling at 100 in/s to a
#: 0.21" step, below half the height of a brick (0.378"), so thin parts do not tunnel.
DEFAULT_TIME_STEP: float = 1.0 / 480.0

#: A body is at rest when its speed stays below these for :data:`REST_HOLD_S` seconds.
REST_LINEAR_IN_S: float = 0.6
REST_ANGULAR_RAD_S: float = 0.15
REST_HOLD_S: float = 0.25

#: Speed cap of bodies (in/s), far above anything thrown on a table (a 12"/turn Rocket is slow).
MAX_SPEED_IN_S: float = 20000.0

#: A body moving more than this in one step (inches; 48 in/s at 1/480 s) is guarded against
#: tunnelling before the step (see PhysicsWorld.guard_step); the guard stops it this far short.
GUARD_MIN_STEP_IN: float = 0.1
GUARD_GAP_IN: float = 0.01
#: The guard's rays start on the moving body's own boxes, this far apart at most (inches): less
#: than the thinnest wall a rule draws (0.126"), so no wall slips between two rays.
GUARD_RAY_SPACING_IN: float = 0.1
#: Most rays one guard casts: the body's leading points (farthest along its motion) first.
GUARD_MAX_RAYS: int = 256
#: The rays start this far inside the body's boxes and behind its points (inches): a ray that
#: starts on the body's own surface reports that surface first and nothing behind it.
GUARD_INSET_IN: float = 0.005
GUARD_BACK_IN: float = 0.02
#: When the guard finds a surface ahead, the step is simulated in sub-steps in which no point
#: of the body moves (or turns) more than this (inches), at most :data:`GUARD_MAX_SUBSTEPS`:
#: a turned body meets a wall with a corner and spins, and one whole step of that spin would
#: carry its other corners through a thin wall.
GUARD_SUBSTEP_IN: float = 0.04
GUARD_MAX_SUBSTEPS: int = 64

#: pybullet's limit on children of one compound shape made by createCollisionShapeArray;
#: bodies of more boxes go through a generated URDF (see PhysicsWorld._load_compound_urdf).
MAX_BOXES_PER_SHAPE: int = 16

#: A movable body rests for sleeping once the sum of the squares of its speeds (in/s and
#: rad/s) stays below this for :data:`SLEEP_AFTER_S` of simulated time (Bullet's own rule and
#: numbers: btMultiBody's sleep threshold and 2 s timeout): 0.1 in/s and 0.1 rad/s, well under
#: the game's own rest thresholds.
SLEEP_THRESHOLD: float = 0.1 ** 2
SLEEP_AFTER_S: float = 2.0

#: Whether new worlds sleep (``PhysicsWorld(sleeping=None)``): once every movable body has
#: rested :data:`SLEEP_AFTER_S` below :data:`SLEEP_THRESHOLD`, the table sleeps: each body's
#: last drift is stopped (speeds set to exactly 0) and steps only count time, with no Bullet
#: call at all, until something touches the world (a body added, removed, moved, given a
#: speed or a force, woken). The per-body rest clocks are this class's own state, kept in
#: :class:`WorldSnapshot`, so undo and replays stay exact (Bullet's own sleep state is in no
#: pybullet ``saveState`` and cannot be read or set through pybullet: bullet3#3993).
SLEEPING: bool = True

_STILL = (0.0, 0.0, 0.0)

#: Contacts slower than this (in/s) do not bounce (a fall of about 0.03").
RESTITUTION_MIN_SPEED_IN_S: float = 5.0

#: Contacts whose relative normal speed is below this are resting, not impacts (in/s).
IMPACT_MIN_SPEED_IN_S: float = 2.0


@dataclass(frozen=True)
class BoxShape:
    """One collision box of a compound body, in the world frame.

    Attributes
    ----------
    centre : (3,) float
        Box centre, inches, world frame.
    half_extents : (3,) float
        Half sizes along the box's own axes, inches.
    rotation : (3, 3) float
        Box axes in the world frame (columns).
    mass : float
        Grams.
    tag : int
        Caller's index (e.g. the part placement index), kept with the child shape.
    """

    centre: tuple[float, float, float]
    half_extents: tuple[float, float, float]
    rotation: tuple[tuple[float, float, float], ...]
    mass: float
    tag: int = -1


@dataclass
class Body:
    """A body in the world.

    Attributes
    ----------
    key : str
        The game's name for it (creation id, unit id, payload id).
    uid : int
        pybullet body unique id.
    mass : float
        Grams (0 for static bodies).
    frame_rotation : (3, 3) float
        Rotation of the body frame relative to the world at creation time.
    frame_origin : (3,) float
        Body frame origin (centre of mass) in the world at creation time, inches.
    child_tags : list of int
        Tag of each child box, in pybullet's child order.
    static : bool
        Never moves (mass 0).
    links : list of int
        pybullet link indices that carry this body's shapes (-1 is the base).
    """

    key: str
    uid: int
    mass: float
    frame_rotation: np.ndarray
    frame_origin: np.ndarray
    child_tags: list[int] = field(default_factory=list)
    static: bool = False
    links: list[int] = field(default_factory=lambda: [-1])
    #: Bullet may put it to sleep once it rests (see SLEEP_THRESHOLD).
    sleeps: bool = False
    #: How it was made, to make it again the same (:meth:`PhysicsWorld.restore` brings back a
    #: body removed since a snapshot): ``("compound", boxes, static, friction, restitution,
    #: sleeping)`` or ``("ground", width, depth, thickness)``.
    recipe: tuple = field(default=(), repr=False, compare=False)


@dataclass
class WorldSnapshot:
    """The world at one moment, to go back to (:meth:`PhysicsWorld.snapshot`): pybullet's
    in-memory state (poses, velocities and contact manifolds of every body, ``saveState``)
    plus this class's own bookkeeping.

    Attributes
    ----------
    state_id : int
        pybullet's saved-state id (freed by :meth:`PhysicsWorld.forget`).
    bodies : dict of str to Body
        The bodies then, in creation order.
    time : float
        Seconds since the world started.
    steps : int
        Steps taken.
    """

    state_id: int
    bodies: dict[str, "Body"]
    time: float
    steps: int
    in_contact: frozenset
    touched: bool
    woken: dict
    guarded_now: frozenset
    no_collide: frozenset = frozenset()
    #: Seconds each movable body has rested below SLEEP_THRESHOLD, and whether the table
    #: sleeps (see SLEEPING): the engine's own sleep state.
    rested: tuple = ()
    asleep: bool = False
    #: Length of the world's journal of added and removed bodies then (see restore).
    journal: int = 0


@dataclass(frozen=True)
class ImpactEvent:
    """Two bodies that came into contact with a relative normal speed.

    Attributes
    ----------
    time : float
        Seconds since the world started.
    body_a, body_b : str
        Keys of the two bodies (``"ground"`` for the battlefield).
    position : (3,) float
        Contact point on ``body_b``, inches.
    normal : (3,) float
        Contact normal from ``body_b`` towards ``body_a`` (pybullet's convention).
    normal_speed : float
        Relative approach speed along the normal just before contact, in/s (>= 0).
    impulse : float
        Normal impulse during the first contact step, g·in/s.
    """

    time: float
    body_a: str
    body_b: str
    position: tuple[float, float, float]
    normal: tuple[float, float, float]
    normal_speed: float
    impulse: float

    def to_dict(self) -> dict:
        return {
            "time": round(self.time, 6),
            "body_a": self.body_a,
            "body_b": self.body_b,
            "position": [round(v, 4) for v in self.position],
            "normal": [round(v, 4) for v in self.normal],
            "normal_speed": round(self.normal_speed, 3),
            "impulse": round(self.impulse, 3),
        }


def _inertia_box(mass: float, half: np.ndarray) -> np.ndarray:
    """Inertia tensor (3, 3) of a solid box about its centre, in its own axes (g·in²)."""
    a, b, c = 2.0 * half
    return (mass / 12.0) * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])


class BoxArrays(NamedTuple):
    """Boxes as arrays (:func:`box_arrays`): what the mass properties and a body's shapes are
    computed from. A caller that has them for many bodies (a break: every piece's boxes are
    rows of the broken body's) passes rows of them instead of converting each body's boxes."""

    masses: np.ndarray  # (n,) grams
    centres: np.ndarray  # (n, 3) inches
    half_extents: np.ndarray  # (n, 3) inches
    rotations: np.ndarray  # (n, 3, 3)

    def rows(self, index) -> "BoxArrays":
        """The boxes ``index`` (int array), as new contiguous arrays."""
        return BoxArrays(*(a[index] for a in self))


def box_arrays(boxes: Sequence[BoxShape]) -> BoxArrays:
    """The boxes' masses, centres, half sizes and rotations as float arrays, in order."""
    return BoxArrays(np.array([b.mass for b in boxes], dtype=float).reshape(-1),
                     np.array([b.centre for b in boxes], dtype=float).reshape(-1, 3),
                     np.array([b.half_extents for b in boxes], dtype=float).reshape(-1, 3),
                     np.array([b.rotation for b in boxes], dtype=float).reshape(-1, 3, 3))


def compound_mass_properties(boxes: Sequence[BoxShape], arrays: BoxArrays | None = None
                             ) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, centre of mass and inertia tensor of solid boxes.

    Parameters
    ----------
    boxes : sequence of BoxShape
        World-frame boxes with masses in grams.
    arrays : BoxArrays, optional
        The same boxes as arrays (:func:`box_arrays`), when the caller has them.

    Returns
    -------
    mass : float
        Grams.
    com : (3,) float
        Centre of mass, inches, world frame.
    inertia : (3, 3) float
        Inertia tensor about the centre of mass, world axes, g·in².

    Raises
    ------
    ValueError
        If there are no boxes or the total mass is not positive.
    """
    if not boxes:
        raise ValueError("a compound body needs at least one box")
    if arrays is None:
        arrays = box_arrays(boxes)
    masses, centres, halfs, rot = arrays
    total = float(masses.sum())
    if total <= 0:
        raise ValueError(f"total mass must be positive, got {total}")
    com = (masses[:, None] * centres).sum(axis=0) / total
    # Every box at once (issue 21: a break makes 46 bodies), the same numbers bit for bit as
    # summing ``R I R^T + m (|d|^2 E - d d^T)`` box by box in order (:func:`_inertia_box`):
    # stacked products, one np.dot per box (BLAS's rounding), an in-order accumulation.
    size = 2.0 * halfs
    a, b_, c = size[:, 0], size[:, 1], size[:, 2]
    local = np.zeros((len(boxes), 3, 3))
    local[:, 0, 0] = b_ * b_ + c * c
    local[:, 1, 1] = a * a + c * c
    local[:, 2, 2] = a * a + b_ * b_
    local = (masses / 12.0)[:, None, None] * local
    d = centres - com
    # one (1, 3) @ (3, 1) product per box: numpy's matmul calls BLAS's dot for each, the same
    # rounding as ``np.dot(x, x)`` box by box (an einsum or a row sum rounds differently)
    dd = (d[:, None, :] @ d[:, :, None])[:, 0, 0]
    shift = dd[:, None, None] * np.eye(3) - d[:, :, None] * d[:, None, :]
    terms = rot @ local @ np.swapaxes(rot, 1, 2) + masses[:, None, None] * shift
    inertia = np.add.accumulate(np.concatenate([np.zeros((1, 3, 3)), terms]), axis=0)[-1]
    return total, com, inertia


def _boxes_in_frame(boxes: Sequence[BoxShape], origin: np.ndarray, rot: np.ndarray,
                    arrays: BoxArrays | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Half sizes (n, 3, at least 1e-3"), centres (n, 3) and orientations (n, 4, x y z w) of
    world boxes in a body frame (``origin``, axes ``rot``), all boxes at once (issue 21): the
    same numbers bit for bit as ``rot.T @ (centre - origin)`` and
    ``matrix_to_quat(rot.T @ rotation)`` box by box (the quaternions at once): a stacked
    matmul calls BLAS once per box, as the product box by box does (issue 26)."""
    if arrays is None:
        arrays = box_arrays(boxes)
    halfs = np.maximum(arrays.half_extents, 1e-3)
    d = arrays.centres - origin
    rt = rot.T
    centres = (rt @ d[:, :, None])[:, :, 0]
    turns = rt @ arrays.rotations
    return halfs, centres, matrices_to_quats(turns)


def _principal_frame(inertia: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigen-decomposition of an inertia tensor into a proper rotation and diagonal."""
    vals, vecs = np.linalg.eigh(inertia)
    return _principal_axes(vals, vecs)


def _principal_axes(vals: np.ndarray, vecs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_principal_frame` from ``eigh``'s answer (``vecs`` is changed in place)."""
    if np.linalg.det(vecs) < 0:
        vecs[:, 2] = -vecs[:, 2]
    # Deterministic sign choice: make the largest component of each axis positive.
    for k in range(3):
        i = int(np.argmax(np.abs(vecs[:, k])))
        if vecs[i, k] < 0:
            vecs[:, k] = -vecs[:, k]
            vecs[:, (k + 1) % 3] = -vecs[:, (k + 1) % 3]
    return vecs, np.maximum(vals, 1e-9)


_BLAS_LIMITED: list = []


def limit_blas_threads() -> None:
    """One BLAS thread for this process's small matrix work ((n, 3) @ (3, 3) products:
    OpenBLAS's threads spin on them and cost more CPU than they save), through threadpoolctl,
    once, at the first world. Left alone when the user set a thread count in the environment
    (``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS``, ``MKL_NUM_THREADS``): no environment
    variable is read back or changed here."""
    if _BLAS_LIMITED:
        return
    _BLAS_LIMITED.append(True)
    if any(os.environ.get(v) for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                       "MKL_NUM_THREADS", "BLIS_NUM_THREADS")):
        return
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # an install without it: numpy's own default
        return
    threadpool_limits(limits=1, user_api="blas")


class PhysicsWorld:
    """A headless pybullet world in inches with a fixed time step.

    Parameters
    ----------
    time_step : float
        Seconds per step (default :data:`DEFAULT_TIME_STEP`).
    gravity : float
        Downward acceleration, in/s² (default 386.09).

    Notes
    -----
    Each world owns its own DIRECT-mode client, so several worlds can live in one process
    (tests compare two runs side by side). Call :meth:`close` when done (or use ``with``).
    """

    def __init__(self, time_step: float = DEFAULT_TIME_STEP, gravity: float = GRAVITY_IN_S2,
                 sleeping: bool | None = None):
        if not (0 < time_step <= 0.1):
            raise ValueError(f"time_step must be in (0, 0.1] seconds, got {time_step}")
        self.time_step = float(time_step)
        self.gravity = float(gravity)
        #: The table sleeps once every body rests (see SLEEPING; None: the module's SLEEPING).
        self.sleeping = SLEEPING if sleeping is None else bool(sleeping)
        limit_blas_threads()
        with _quiet_c_stdout():
            self.client = BulletClient(connection_mode=pybullet.DIRECT)
        c = self.client
        c.resetSimulation()
        c.setGravity(0, 0, -self.gravity)
        c.setPhysicsEngineParameter(
            fixedTimeStep=self.time_step,
            numSubSteps=1,
            numSolverIterations=50,
            deterministicOverlappingPairs=1,
            # Bullet's default (0.2, tuned for metres) is 0.2 in/s here: resting bricks kept
            # bouncing on micro-contacts. Slower contacts than this do not bounce.
            restitutionVelocityThreshold=RESTITUTION_MIN_SPEED_IN_S,
        )
        self.bodies: dict[str, Body] = {}
        self._by_uid: dict[int, Body] = {}
        self.time = 0.0
        self.steps = 0
        self._in_contact: set[tuple[int, int]] = set()
        self._guarded_now: set[str] = set()
        #: Guard every fast body against tunnelling before each step (see guard_step).
        self.auto_guard = True
        self._dynamic: list[Body] | None = None
        #: Something moved or changed outside a step (a body added, removed, teleported, given
        #: a speed, woken): the next step must fetch contacts even if every body is asleep.
        self._touched = True
        #: Speeds given to bodies since the last step (see step: a woken body's first step)
        self._woken: dict[str, tuple[list, list]] = {}
        #: Body pairs whose contacts are switched off (:meth:`set_collides`): pybullet's
        #: ``restoreState`` does not restore them, so the journal keeps every switch, and a
        #: removed body's pairs (remove forgets them), for restore to undo.
        self.no_collide: set[tuple[str, str]] = set()
        #: Seconds each movable body has rested below SLEEP_THRESHOLD (see SLEEPING).
        self._rested: dict[str, float] = {}
        #: True while the whole table sleeps: steps count time only (see SLEEPING).
        self.dormant = False
        #: How many times the table fell asleep (a new count each time; never restored).
        self.naps = 0
        self._frozen_poses: dict[str, tuple[tuple, tuple]] = {}
        self._frozen_aabbs: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        #: Broadphase proxies were refreshed (canonicalize): the next step fetches contacts.
        self._refetch = False
        #: Keys in the order of Bullet's body and collision-object arrays: a body added goes
        #: last; a removed one's place is taken by the last (Bullet's swap-and-pop removal).
        self._order: list[str] = []
        #: Bodies added and removed while a snapshot is kept, to undo them (restore):
        #: ``("add", key)``, ``("remove", body, moved, pairs)`` or ``("pair", pair, was_off)``:
        #: ``moved`` the key of the body that took its place in Bullet's arrays (None when it
        #: was the last), ``pairs`` its pairs in ``no_collide`` then (forgotten by the removal,
        #: given back by the restore); ``pair`` switched by set_collides, off before or not.
        #: Entry ``i`` has the number ``_journal_start + i``.
        self._journal: list[tuple] = []
        self._journal_start = 0
        #: Snapshots that can be restored: pybullet state id -> journal number then.
        self._live: dict[int, int] = {}
        #: Temporary folder for generated URDF files (_load_compound_urdf), made on first use.
        self._tmpdir: str | None = None
        self._urdf_count = 0
        self._bind()

    def _bind(self) -> None:
        """pybullet functions bound to this client once: ``BulletClient.__getattr__`` builds a
        new ``functools.partial`` on every call, a large share of the per-body work per step."""
        cid = self.client._client
        self._get_velocity = functools.partial(pybullet.getBaseVelocity, physicsClientId=cid)
        self._get_pose = functools.partial(pybullet.getBasePositionAndOrientation,
                                           physicsClientId=cid)
        self._step_simulation = functools.partial(pybullet.stepSimulation, physicsClientId=cid)
        self._contact_points = functools.partial(pybullet.getContactPoints, physicsClientId=cid)

    def _wake_table(self) -> None:
        """Something changed outside a step: contacts are fetched afresh next step, and a
        sleeping table wakes (its bodies' rest clocks go on from where they were)."""
        self._touched = True
        if self.dormant:
            self.dormant = False
            self._frozen_poses, self._frozen_aabbs = {}, {}

    def _fall_asleep(self) -> None:
        """Every movable body has rested SLEEP_AFTER_S: stop each one's last drift (speeds
        exactly 0, as Bullet's own sleeping does) and let steps count time only."""
        for b in self._dynamic_bodies():
            self.client.resetBaseVelocity(b.uid, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0])
        self.dormant = True
        self.naps += 1

    def _dynamic_bodies(self) -> list[Body]:
        """The movable bodies in creation order (cached until a body is added or removed)."""
        if self._dynamic is None:
            self._dynamic = [b for b in self._by_uid.values() if not b.static]
        return self._dynamic

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Disconnect the pybullet client (and remove the world's temporary folder)."""
        tmp, self._tmpdir = getattr(self, "_tmpdir", None), None
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if getattr(self, "client", None) is not None:
            try:
                self.client.disconnect()
            except pybullet.error:
                pass
            self.client = None  # type: ignore[assignment]

    def __enter__(self) -> "PhysicsWorld":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):  # pragma: no cover - best effort
        try:
            self.close()
        except Exception:
            pass

    # ------------------------------------------------------------------ bodies
    def _register(self, body: Body) -> Body:
        if body.key in self.bodies:
            raise ValueError(f"a body called {body.key!r} already exists")
        self.bodies[body.key] = body
        self._order.append(body.key)
        if self._live:
            self._journal.append(("add", body.key))
        self._by_uid[body.uid] = body
        self._dynamic = None
        self._wake_table()
        self._rested[body.key] = 0.0
        return body

    def add_ground(self, width: float, depth: float, thickness: float = 1.0) -> Body:
        """Add the battlefield: a static box whose top face is z = 0.

        Parameters
        ----------
        width, depth : float
            Table size along X and Y, inches (centred on the origin).
        thickness : float
            Inches below z = 0.
        """
        if width <= 0 or depth <= 0:
            raise ValueError(f"battlefield size must be positive, got {width} x {depth}")
        return self._register(self._make_ground("ground", width, depth, thickness))

    def _make_ground(self, key: str, width: float, depth: float, thickness: float) -> Body:
        """The ground's Bullet body (not registered): a static box whose top face is z = 0."""
        c = self.client
        shape = c.createCollisionShape(
            pybullet.GEOM_BOX, halfExtents=[width / 2, depth / 2, thickness / 2]
        )
        uid = c.createMultiBody(0, shape, -1, [0, 0, -thickness / 2], [0, 0, 0, 1])
        c.changeDynamics(uid, -1, lateralFriction=0.7, restitution=0.1)
        return Body(key, uid, 0.0, np.eye(3), np.zeros(3), [-1], static=True,
                    recipe=("ground", width, depth, thickness))

    def add_compound(
        self,
        key: str,
        boxes: Sequence[BoxShape],
        static: bool = False,
        friction: float = 0.5,
        restitution: float = 0.1,
        sleeping: bool | None = None,
        *,
        arrays: BoxArrays | None = None,
    ) -> Body:
        """Add a rigid compound body made of boxes.

        Parameters
        ----------
        key : str
            Unique name.
        boxes : sequence of BoxShape
            World-frame boxes (the body is created where the boxes are).
        static : bool
            A fixed body (mass 0) that never moves.
        friction, restitution : float
            Contact coefficients (ABS on ABS is about 0.3-0.5 friction).
        sleeping : bool, optional
            Let Bullet itself put this body to sleep once it rests (Bullet's own per-body
            sleeping; off unless asked: its state is in no snapshot, see :data:`SLEEPING` for
            the table's sleep, which is the world's own; ``breakage.RUBBLE_SLEEPS``).
        arrays : BoxArrays, optional
            The boxes as arrays (:func:`box_arrays`), when the caller has them (the same
            body; saves converting the boxes again).

        Returns
        -------
        Body
            Its ``frame_origin`` is the centre of mass and ``frame_rotation`` the principal
            axes; the body's child boxes keep their order (``child_tags``).

        Raises
        ------
        ValueError
            On a duplicate key, no boxes, or non-positive mass.
        """
        if key in self.bodies:
            raise ValueError(f"a body called {key!r} already exists")
        return self._register(self._make_compound(key, boxes, static, friction, restitution,
                                                  sleeping, arrays))

    def add_compounds(self, pieces: Sequence[tuple[str, Sequence[BoxShape]]],
                      arrays: BoxArrays, rows: Sequence[np.ndarray], static: bool = False,
                      sleeping: Sequence[bool | None] | None = None, friction: float = 0.5,
                      restitution: float = 0.1) -> list[Body]:
        """Add many compound bodies whose boxes are rows of one set of box arrays (a body's
        pieces when it breaks), in order: each exactly as :meth:`add_compound` makes it, the
        same numbers bit for bit, with the arithmetic done for all bodies at once (issue 26:
        per-box products stacked over every piece, the principal frames in one ``eigh``;
        each body's sums still its own, in the same order).

        Parameters
        ----------
        pieces : sequence of (str, sequence of BoxShape)
            Key and world-frame boxes of each body.
        arrays : BoxArrays
            Boxes as arrays (:func:`box_arrays`); ``rows[i]`` (int array) are body ``i``'s
            boxes, in the order of ``pieces[i]``'s.
        static, friction, restitution :
            As :meth:`add_compound`, for every body.
        sleeping : sequence of bool or None, optional
            Per body, as :meth:`add_compound`'s ``sleeping``.

        Returns
        -------
        list of Body

        Raises
        ------
        ValueError
            A duplicate or existing key, a body with no boxes or no mass, or ``rows`` that
            do not match the boxes.
        """
        if not pieces:
            return []
        keys = [k for k, _ in pieces]
        if len(set(keys)) != len(keys) or any(k in self.bodies for k in keys):
            raise ValueError(f"duplicate body keys among {keys[:5]}...")
        if len(rows) != len(pieces) or any(len(r) != len(b) or not len(b)
                                           for r, (_, b) in zip(rows, pieces, strict=True)):
            raise ValueError("add_compounds: each body needs boxes and one row per box")
        sleeping = list(sleeping) if sleeping is not None else [None] * len(pieces)
        sizes = np.array([len(r) for r in rows])
        a = arrays.rows(np.concatenate([np.asarray(r, dtype=np.intp) for r in rows]))
        ends = np.cumsum(sizes)
        starts = ends - sizes
        owner = np.repeat(np.arange(len(pieces)), sizes)
        # mass and centre of mass: each body's own sums (compound_mass_properties)
        totals, coms = [], []
        for s0, s1 in zip(starts.tolist(), ends.tolist(), strict=True):
            m = a.masses[s0:s1]
            total = float(m.sum())
            if total <= 0:
                raise ValueError(f"total mass must be positive, got {total}")
            totals.append(total)
            coms.append((m[:, None] * a.centres[s0:s1]).sum(axis=0) / total)
        com_rows = np.array(coms)[owner]
        # every box's inertia term at once (row by row, as compound_mass_properties), then
        # each body's in-order accumulation
        masses, rot = a.masses, a.rotations
        size = 2.0 * a.half_extents
        x, y, z = size[:, 0], size[:, 1], size[:, 2]
        local = np.zeros((len(masses), 3, 3))
        local[:, 0, 0] = y * y + z * z
        local[:, 1, 1] = x * x + z * z
        local[:, 2, 2] = x * x + y * y
        local = (masses / 12.0)[:, None, None] * local
        d = a.centres - com_rows
        dd = (d[:, None, :] @ d[:, :, None])[:, 0, 0]
        shift = dd[:, None, None] * np.eye(3) - d[:, :, None] * d[:, None, :]
        terms = rot @ local @ np.swapaxes(rot, 1, 2) + masses[:, None, None] * shift
        inertias = np.array([
            np.add.accumulate(np.concatenate([np.zeros((1, 3, 3)), terms[s0:s1]]), axis=0)[-1]
            for s0, s1 in zip(starts.tolist(), ends.tolist(), strict=True)])
        # principal frames: one eigh for all (LAPACK runs per matrix, as one by one)
        vals, vecs = np.linalg.eigh(inertias)
        frames = [_principal_axes(vals[i], vecs[i].copy()) for i in range(len(pieces))]
        # every box in its body's frame at once (_boxes_in_frame: one BLAS call per box,
        # each with its body's transposed axes, as there)
        axes = np.array([f[0] for f in frames])[owner]
        halfs = np.maximum(a.half_extents, 1e-3)
        rt = np.swapaxes(axes, 1, 2)
        centres = (rt @ d[:, :, None])[:, :, 0]
        quats = matrices_to_quats(rt @ rot)
        out = []
        for i, ((key, boxes), s0, s1) in enumerate(zip(pieces, starts.tolist(), ends.tolist(),
                                                       strict=True)):
            body = self._create_compound(
                key, boxes, static, friction, restitution, sleeping[i], totals[i], coms[i],
                frames[i][0], frames[i][1], (halfs[s0:s1], centres[s0:s1], quats[s0:s1]))
            out.append(self._register(body))
        return out

    def _make_compound(self, key: str, boxes: Sequence[BoxShape], static: bool,
                       friction: float, restitution: float, sleeping: bool | None,
                       arrays: BoxArrays | None = None) -> Body:
        """The pybullet body of :meth:`add_compound`, not yet registered."""
        if arrays is None and boxes:
            arrays = box_arrays(boxes)
        mass, com, inertia = compound_mass_properties(boxes, arrays)
        rot, diag = _principal_frame(inertia)
        return self._create_compound(key, boxes, static, friction, restitution, sleeping,
                                     mass, com, rot, diag,
                                     _boxes_in_frame(boxes, com, rot, arrays))

    def _create_compound(self, key: str, boxes: Sequence[BoxShape], static: bool,
                         friction: float, restitution: float, sleeping: bool | None,
                         mass: float, com: np.ndarray, rot: np.ndarray, diag: np.ndarray,
                         frame: tuple[np.ndarray, np.ndarray, np.ndarray]) -> Body:
        """The pybullet body of boxes whose mass, centre of mass, principal frame and
        principal moments (``diag``) are known, with the boxes in that frame (``frame``:
        :func:`_boxes_in_frame`); not yet registered."""
        c = self.client
        dyn = dict(
            lateralFriction=friction,
            restitution=restitution,
            rollingFriction=0.0,
            # btMultiBody damping is quadratic in speed: in inches it would act as strong
            # air drag (a 10" fall lost 20% of its speed), so switch it off.
            linearDamping=0.0,
            angularDamping=0.0,
            # btMultiBody clamps speeds at 100 units/s by default: 100 in/s is a 13" fall.
            maxJointVelocity=MAX_SPEED_IN_S,
        )
        if len(boxes) <= MAX_BOXES_PER_SHAPE:
            shape = self._shape_in_frame(frame)
            uid = c.createMultiBody(0.0 if static else mass, shape, -1, com.tolist(),
                                    matrix_to_quat(rot))
        else:
            uid = self._load_compound_urdf(com, rot, 0.0 if static else mass, diag, frame)
        if not static:
            dyn["localInertiaDiagonal"] = diag.tolist()
            if sleeping:
                dyn["activationState"] = pybullet.ACTIVATION_STATE_ENABLE_SLEEPING
                dyn["sleepThreshold"] = SLEEP_THRESHOLD
        c.changeDynamics(uid, -1, **dyn)
        links = [-1]
        return Body(key, uid, 0.0 if static else mass, rot, com, [b.tag for b in boxes], static,
                    links, sleeps=not static and bool(sleeping),
                    recipe=("compound", tuple(boxes), static, friction, restitution, sleeping))

    def _load_compound_urdf(self, com: np.ndarray, rot: np.ndarray, mass: float,
                            diag: np.ndarray,
                            frame: tuple[np.ndarray, np.ndarray, np.ndarray]) -> int:
        """One rigid body of any number of boxes, through pybullet's URDF importer.

        ``createCollisionShapeArray`` caps a compound at 16 children and ``createMultiBody`` at
        128 links, so big creations (the King's Castle: 761 parts; the Destroyer Droid: 3864)
        are written as a one-link URDF whose collision elements are the boxes, in the body
        frame (centre of mass, principal axes), with the exact mass and principal inertia
        (``URDF_USE_INERTIA_FROM_FILE``). The file is generated here, in the world's own
        temporary folder (made once, removed by :meth:`close`), read once and deleted.
        """
        c = self.client

        def num(v) -> str:  # shortest exact text of a float (numpy 2's repr adds a type name)
            return repr(float(v))

        lines = ['<?xml version="1.0"?>', f'<robot name="body{len(self.bodies)}">',
                 '<link name="body">', '<inertial><origin xyz="0 0 0" rpy="0 0 0"/>',
                 f'<mass value="{num(mass)}"/>',
                 f'<inertia ixx="{num(diag[0])}" ixy="0" ixz="0" iyy="{num(diag[1])}" iyz="0" '
                 f'izz="{num(diag[2])}"/>', '</inertial>']
        sizes, centres, quats = frame
        euler = pybullet.getEulerFromQuaternion  # plain math: no client, no bound partial
        # one %-format per box; %r of a Python float is its shortest exact text, as num()
        box = ('<collision><origin xyz="%r %r %r" rpy="%r %r %r"/>'
               '<geometry><box size="%r %r %r"/></geometry></collision>')
        lines += [box % (*local, *euler(q), *h) for h, local, q in
                  zip((sizes * 2.0).tolist(), centres.tolist(), quats.tolist(), strict=True)]
        lines += ["</link>", "</robot>", ""]
        self._urdf_count += 1
        path = os.path.join(self._urdf_dir(), f"body{self._urdf_count}.urdf")
        try:
            with open(path, "w", encoding="ascii") as fh:
                fh.write("\n".join(lines))
            with _quiet_c_stdout():
                uid = c.loadURDF(path, com.tolist(), matrix_to_quat(rot),
                                 useFixedBase=mass == 0.0,
                                 flags=pybullet.URDF_USE_INERTIA_FROM_FILE)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(path)
        return uid

    def _urdf_dir(self) -> str:
        """The world's temporary folder for generated URDF files (made on first use)."""
        if self._tmpdir is None:
            self._tmpdir = tempfile.mkdtemp(prefix="sandbox-body-")
        return self._tmpdir

    def _shape_in_frame(self, frame: tuple[np.ndarray, np.ndarray, np.ndarray]) -> int:
        """One pybullet compound shape (<= 16 boxes) expressed in a body frame (``frame``:
        half sizes, centres and orientations there, :func:`_boxes_in_frame`)."""
        halfs, positions, orientations = frame
        return self.client.createCollisionShapeArray(
            shapeTypes=[pybullet.GEOM_BOX] * len(halfs),
            halfExtents=halfs.tolist(),
            collisionFramePositions=positions.tolist(),
            collisionFrameOrientations=[tuple(q) for q in orientations.tolist()],
        )

    def set_collides(self, a: str, b: str, enabled: bool) -> None:
        """Switch contacts between bodies ``a`` and ``b`` on or off (every pair of their
        links, pybullet ``setCollisionFilterPair``), noted in :attr:`no_collide` and, while a
        snapshot is kept, in the journal (a restore switches them back).

        Raises KeyError when either body is not in the world."""
        pair = (a, b) if a < b else (b, a)
        was_off = pair in self.no_collide
        self._switch_pair(a, b, enabled)
        if self._live:
            self._journal.append(("pair", pair, was_off))

    def _switch_pair(self, a: str, b: str, enabled: bool) -> None:
        """:meth:`set_collides` without the journal (a removal and a restore journal or undo
        their own switches)."""
        ba, bb = self.bodies[a], self.bodies[b]
        pair = (a, b) if a < b else (b, a)
        if enabled:
            self.no_collide.discard(pair)
        else:
            self.no_collide.add(pair)
        for la in ba.links:
            for lb in bb.links:
                self.client.setCollisionFilterPair(ba.uid, bb.uid, la, lb, int(enabled))

    def _release_pairs(self, key: str) -> frozenset:
        """Switch contacts back on between ``key`` and every body it was kept from
        (:attr:`no_collide`), before the body leaves pybullet; return those pairs.

        pybullet keeps pair filters by body id, not by body, and hands a freed id to the next
        body made: without this, a Payload that goes off while its contacts with its Launcher
        are off would pass that to the next body with its id (a blast piece), which would then
        fall through the Launcher."""
        pairs = frozenset(p for p in self.no_collide if key in p)
        for a, b in sorted(pairs):
            self._switch_pair(a, b, True)
        return pairs

    def remove(self, key: str) -> None:
        """Remove a body from the world; its pairs in :attr:`no_collide` are forgotten (and
        switched back on in pybullet, whose filters outlive the body: see _release_pairs).

        Raises KeyError when no body is called ``key``."""
        body = self.bodies[key]
        pairs = self._release_pairs(key)
        moved = self._remove_body(key)
        if self._live:
            self._journal.append(("remove", body, moved, pairs))
        self._by_uid.pop(body.uid, None)
        self._dynamic = None
        self._wake_table()
        self._rested.pop(key, None)
        self._in_contact = {p for p in self._in_contact if body.uid not in p}

    def _remove_body(self, key: str) -> str | None:
        """Take a body out of pybullet and of ``bodies``; return the key of the body that takes
        its place in Bullet's arrays (swap and pop: the last one), None when it was last."""
        body = self.bodies.pop(key)
        order = self._order
        i = order.index(key)
        moved = order[-1] if i != len(order) - 1 else None
        order[i] = order[-1]
        order.pop()
        self.client.removeBody(body.uid)
        return moved

    def _make_again(self, body: Body) -> bool:
        """Make a removed body again from its recipe, last in Bullet's arrays; True when
        pybullet gave it its old id (it reuses the last freed id first)."""
        kind, *args = body.recipe
        if kind == "compound":
            new = self._make_compound(body.key, *args)
        elif kind == "ground":
            new = self._make_ground(body.key, *args)
        else:
            return False
        self.bodies[body.key] = body
        self._order.append(body.key)
        return new.uid == body.uid

    # ------------------------------------------------------------------ snapshots
    def snapshot(self) -> WorldSnapshot:
        """The world now, to :meth:`restore` later (pybullet ``saveState``, in memory); from
        now until it is forgotten, bodies added and removed are journaled."""
        at = self._journal_start + len(self._journal)
        snap = WorldSnapshot(self.client.saveState(), dict(self.bodies), self.time, self.steps,
                             frozenset(self._in_contact), self._touched, dict(self._woken),
                             frozenset(self._guarded_now), frozenset(self.no_collide),
                             tuple(self._rested.items()), self.dormant, journal=at)
        self._live[snap.state_id] = at
        return snap

    def can_restore(self, snap: WorldSnapshot) -> bool:
        """True when :meth:`restore` can go back to ``snap``: it is kept (not forgotten, not
        made void by the restore of an earlier one), and the pairs with contacts switched off
        are those of then once the journal is undone (bodies added and removed, pairs
        switched since: ``restoreState`` keeps the collision filters as they are now; only a
        change of :attr:`no_collide` by hand, outside set_collides, fails this)."""
        return (self._live.get(snap.state_id) == snap.journal
                and snap.journal >= self._journal_start
                and self._no_collide_back_to(snap.journal) == snap.no_collide)

    def _no_collide_back_to(self, journal: int) -> set[tuple[str, str]]:
        """:attr:`no_collide` once the journal is undone back to entry ``journal``: a body
        added since takes its pairs away, a body removed since brings its pairs back, a pair
        switched since is as it was."""
        pairs = set(self.no_collide)
        for op in reversed(self._journal[journal - self._journal_start:]):
            if op[0] == "add":
                pairs = {p for p in pairs if op[1] not in p}
            elif op[0] == "pair" and op[2]:
                pairs.add(op[1])
            elif op[0] == "pair":
                pairs.discard(op[1])
            else:
                pairs |= op[3]
        return pairs

    def restore(self, snap: WorldSnapshot) -> bool:
        """Go back to ``snap``: undo the bodies added and removed since, newest first, then
        restore every body's pose, velocity and contact manifolds (pybullet ``restoreState``)
        and the step count.

        pybullet's ``restoreState`` matches bodies by their place in Bullet's body and
        collision-object arrays, and the solver's islands follow that order too, so a body
        removed since (a creation that broke, an exploded Payload) must come back to its old
        place, not at the end: Bullet removed it by moving the last body into its place
        (swap and pop). So each removal is undone as its exact inverse: the body is made again
        from its recipe (last), then the body that had moved into its place is taken out
        (the remade one moves back in) and made again (last, where it was). pybullet hands
        out the ids it freed last first, so every body gets its old id back. A body added
        since is taken out (it is last at that point). Pairs with contacts switched off go
        with their bodies: an added body's are switched back on, a removed body's off again,
        and a pair switched since (:meth:`set_collides`) is switched back (:attr:`no_collide`
        ends as it was, and so do pybullet's filters for every body).

        Returns False, changing nothing, when ``snap`` cannot be restored
        (:meth:`can_restore`), and False too in the unexpected case that pybullet gave a
        remade body another id (the world is then half restored: the caller rebuilds, as it
        does for False).
        """
        if not self.can_restore(snap):
            return False
        since = self._journal[snap.journal - self._journal_start:]
        del self._journal[snap.journal - self._journal_start:]
        for op in reversed(since):
            if op[0] == "pair":
                self._switch_pair(*op[1], not op[2])
                continue
            if op[0] == "add":
                if self._order[-1] != op[1]:
                    return False
                self._release_pairs(op[1])
                self._remove_body(op[1])
                continue
            _, body, moved, pairs = op
            if not self._make_again(body):
                return False
            if moved is not None:
                other = self.bodies[moved]
                self._remove_body(moved)  # it comes back with its id: its filters hold
                if not self._make_again(other):
                    return False
            for a, b in sorted(pairs):  # its contacts switched off as they were
                self._switch_pair(a, b, False)
        # snapshots taken after this one are void: their journal entries are gone
        self._live = {k: v for k, v in self._live.items() if v <= snap.journal}
        self.client.restoreState(stateId=snap.state_id)
        self.bodies = dict(snap.bodies)
        self._by_uid = {b.uid: b for b in self.bodies.values()}
        self._dynamic = None
        self.time, self.steps = snap.time, snap.steps
        self._in_contact = set(snap.in_contact)
        self._touched = snap.touched
        self._woken = dict(snap.woken)
        self._guarded_now = set(snap.guarded_now)
        self._rested = dict(snap.rested)
        self.no_collide = set(snap.no_collide)
        self.dormant = snap.asleep
        self.naps += 1  # a restored sleep is another nap for whoever kept the last one
        self._frozen_poses, self._frozen_aabbs = {}, {}
        self.canonicalize()
        return True

    def canonicalize(self) -> None:
        """Put Bullet's collision caches in one canonical state: every body's broadphase proxy
        made again, in creation order (pybullet ``setCollisionFilterPair`` of a body with itself
        refreshes its proxies and changes no filter). Its contact pairs, collision algorithms
        and contact manifolds go, and the next step makes them again in the order of the new
        proxy ids, which is the bodies' order whatever the history.

        Why: a pybullet ``saveState``/``restoreState`` keeps poses and speeds but not the
        order of Bullet's contact manifolds (creation order, shuffled by removals), and the
        solver's result depends on that order. The game calls this at every action boundary
        on every path (played, replayed, restored by undo), so physics stepped on from a
        restored snapshot is the physics of the game never undone, bit for bit.
        """
        c = self.client
        for body in self.bodies.values():
            for link in body.links:
                c.setCollisionFilterPair(body.uid, body.uid, link, link, 1)
        self._refetch = True

    def forget(self, snap: WorldSnapshot) -> None:
        """Free a snapshot's pybullet state (it cannot be restored afterwards), and the journal
        entries no kept snapshot needs."""
        if self._live.get(snap.state_id) == snap.journal:
            del self._live[snap.state_id]
        first = min(self._live.values(), default=self._journal_start + len(self._journal))
        if first > self._journal_start:
            del self._journal[:first - self._journal_start]
            self._journal_start = first
        if self.client is not None:
            self.client.removeState(snap.state_id)

    # ------------------------------------------------------------------ state
    def _pose_tuple(self, key: str) -> tuple[tuple, tuple]:
        """pybullet's pose tuples of a body (while the table sleeps, read once and kept)."""
        if not self.dormant:
            return self._get_pose(self.bodies[key].uid)
        got = self._frozen_poses.get(key)
        if got is None:
            got = self._frozen_poses[key] = self._get_pose(self.bodies[key].uid)
        return got

    def pose(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """Position (3,) inches and quaternion (x, y, z, w) of a body's frame."""
        pos, orn = self._pose_tuple(key)
        return np.array(pos), np.array(orn)

    def set_pose(self, key: str, position: Vec, orientation: Vec) -> None:
        """Teleport a body (frame position in inches, quaternion x, y, z, w)."""
        self.client.resetBasePositionAndOrientation(
            self.bodies[key].uid, list(position), list(orientation)
        )
        self.wake(key)

    def velocity(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """Linear (in/s) and angular (rad/s) velocity of a body."""
        lin, ang = self._get_velocity(self.bodies[key].uid)
        return np.array(lin), np.array(ang)

    def set_velocity(
        self, key: str, linear: Vec, angular: Vec = (0, 0, 0)
    ) -> None:
        """Set a body's linear (in/s) and angular (rad/s) velocity."""
        self.client.resetBaseVelocity(self.bodies[key].uid, list(linear), list(angular))
        self.wake(key)
        if self.bodies[key].sleeps:
            self._woken[key] = (list(linear), list(angular))

    def wake(self, key: str) -> None:
        """Wake a sleeping body (what an action touches; a static one has no sleep), and note
        that the world changed outside a step (contacts are fetched afresh next step; a
        sleeping table wakes, and this body's rest clock starts again)."""
        self._wake_table()
        self._rested[key] = 0.0
        body = self.bodies[key]
        if body.sleeps:
            self.client.changeDynamics(body.uid, -1,
                                       activationState=pybullet.ACTIVATION_STATE_WAKE_UP)

    def aabb(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """World axis-aligned bounds (min, max) of a body, inches."""
        if self.dormant:
            got = self._frozen_aabbs.get(key)
            if got is None:
                self.dormant = False
                got = self._frozen_aabbs[key] = self.aabb(key)
                self.dormant = True
            return got[0].copy(), got[1].copy()
        body = self.bodies[key]
        los, his = [], []
        for link in body.links:
            lo, hi = self.client.getAABB(body.uid, link)
            los.append(lo)
            his.append(hi)
        return np.min(los, axis=0), np.max(his, axis=0)

    def body_to_world(self, key: str, local: np.ndarray) -> np.ndarray:
        """Map points (..., 3) from a body's frame to the world, inches."""
        pos, orn = self.pose(key)
        return np.asarray(local, dtype=float) @ quat_to_matrix(orn).T + pos

    def dynamic_keys(self) -> list[str]:
        """Keys of the movable bodies, in creation order."""
        return [k for k, b in self.bodies.items() if not b.static]

    def closest_distance(self, key: str, point: Sequence[float],
                         max_distance: float) -> float | None:
        """Distance (inches) from a point to a body's surface, or None beyond ``max_distance``.

        Uses a tiny sphere probe and pybullet's closest-point query, so it measures to the
        nearest collision box, not to the body centre.
        """
        c = self.client
        probe_shape = c.createCollisionShape(pybullet.GEOM_SPHERE, radius=1e-3)
        probe = c.createMultiBody(0, probe_shape, -1, list(point), [0, 0, 0, 1])
        try:
            pts = c.getClosestPoints(probe, self.bodies[key].uid, max_distance)
        finally:
            c.removeBody(probe)
        if not pts:
            return None
        return max(0.0, min(p[8] for p in pts) + 1e-3)

    # ------------------------------------------------------------------ stepping
    def _speeds(self, velocities: dict[int, tuple] | None = None) -> dict[int, tuple]:
        """Velocity and position of every movable body as pybullet's tuples ``(lin, ang, pos)``
        (numpy arrays are made only for the bodies of a new contact; see _point_velocity).
        ``velocities``: ``{uid: (lin, ang)}`` already read this step and still valid."""
        out = {}
        get_vel, get_pose = self._get_velocity, self._get_pose
        for b in self._dynamic_bodies():
            v = velocities.get(b.uid) if velocities is not None else None
            lin, ang = v if v is not None else get_vel(b.uid)
            if lin == _STILL and ang == _STILL:  # asleep: its point velocities are 0 anywhere
                out[b.uid] = (lin, ang, _STILL)
            else:
                out[b.uid] = (lin, ang, get_pose(b.uid)[0])
        return out

    @staticmethod
    def _point_velocity(state, point: np.ndarray) -> np.ndarray:
        if state is None:
            return np.zeros(3)
        lin, ang, pos = state
        return np.array(lin) + np.cross(np.array(ang), point - np.array(pos))

    @staticmethod
    def _maybe_over(v, limit: float) -> bool:
        """False only when ``|v| <= limit`` for sure (|v| <= sqrt(3) max|v_i|), so the exact
        norm is computed only near or above the limit: same answers as the norm alone."""
        m = max(abs(v[0]), abs(v[1]), abs(v[2]))
        return m * 1.7320508075688773 * (1.0 + 1e-9) > limit

    def guard_step(self, key: str, ignore: Iterable[str] = ()) -> str | None:
        """Move a fast body up to the first surface its next step would cross.

        Bullet's continuous collision detection does not act on pybullet's multibodies, and a
        brick falling at 200 in/s moves 0.42" per 1/480 s step: more than a plate is thick.
        Before the step, rays from points on the body's own collision boxes (their leading
        halves, at most :data:`GUARD_RAY_SPACING_IN` apart, the :data:`GUARD_MAX_RAYS` farthest
        along the motion) look along the step's motion; if one meets another body, the body
        is moved along its own velocity to :data:`GUARD_GAP_IN` short of that surface (its
        velocity kept), so the step makes contact there instead of tunnelling through or deep
        into it. (Rays from the body's world bounding box started ahead of a turned body's
        real surface, and a thin wall turned on the table fell between them and it.)

        Parameters
        ----------
        key : str
            The moving body.
        ignore : iterable of str
            Bodies it may pass (a Payload leaving its own Launcher).

        Returns
        -------
        str or None
            Key of the body it was moved up to, else None.
        """
        self._guarded_now.add(key)
        lin, ang = self.velocity(key)
        step = lin * self.time_step
        dist = float(np.linalg.norm(step))
        if dist < 1e-9:
            return None
        direction = step / dist
        pos, orn = self.pose(key)
        starts = self._guard_points(key) @ quat_to_matrix(orn).T + pos
        lead = starts @ direction
        keep = lead >= lead.min() + 0.5 * (lead.max() - lead.min()) - 1e-9  # the leading half
        starts, lead = starts[keep], lead[keep]
        if len(starts) > GUARD_MAX_RAYS:
            starts = starts[np.argsort(-lead, kind="stable")[:GUARD_MAX_RAYS]]
        starts = starts - direction * GUARD_BACK_IN
        reach = GUARD_BACK_IN + dist + GUARD_GAP_IN
        ends = starts + direction * reach
        skip = {self.bodies[k].uid for k in ignore if k in self.bodies} | {self.bodies[key].uid}
        best = None
        for hit in self.client.rayTestBatch(starts.tolist(), ends.tolist()):
            uid, frac = hit[0], hit[2]
            if uid < 0 or uid in skip or uid not in self._by_uid:
                continue
            if best is None or frac < best[0]:
                best = (frac, self._by_uid[uid].key, uid, np.asarray(hit[3], dtype=float))
        if best is None:
            return None
        # A thin obstacle (one the body could cross within this step: its motion, its turning,
        # and as much again for the spin a corner's impact gives it): the impact's step in
        # finer sub-steps (step() sets them back). A ray from that far behind its near face
        # back to it meets its far face; in a thick one (the ground) it starts inside and
        # meets nothing, and the step stays whole.
        arm = float(np.max(np.linalg.norm(starts - pos, axis=1))) + GUARD_BACK_IN
        sweep = 2.0 * dist + float(np.linalg.norm(ang)) * arm * self.time_step
        far = best[3] + direction * sweep
        back = self.client.rayTest(far.tolist(), (best[3] - direction * 1e-3).tolist())[0]
        if back[0] == best[2] and back[2] > 1e-6:
            sub = int(min(GUARD_MAX_SUBSTEPS, max(1, np.ceil(sweep / GUARD_SUBSTEP_IN))))
            if sub > self.__dict__.get("_guard_substeps", 1):
                self._guard_substeps = sub
        advance = max(0.0, best[0] * reach - GUARD_BACK_IN - GUARD_GAP_IN)
        if advance > 0:
            self.set_pose(key, pos + direction * advance, orn)
            # resetBasePositionAndOrientation zeroes a multibody's velocity: give it back
            self.set_velocity(key, lin, ang)
        return best[1]

    def _guard_points(self, key: str) -> np.ndarray:
        """(N, 3) points on the surfaces of a body's collision boxes, in its frame (centre of
        mass, principal axes), at most :data:`GUARD_RAY_SPACING_IN` apart: where the guard's
        rays start. Read from pybullet once per body (kept while the same body is there)."""
        body = self.bodies[key]
        cache = self.__dict__.setdefault("_guard_cache", {})
        got = cache.get(body.uid)
        if got is not None and got[0] is body:
            return got[1]
        out = []
        for shape in self.client.getCollisionShapeData(body.uid, -1):
            dims, local_pos, local_orn = shape[3], shape[5], shape[6]
            half = np.asarray(dims[:3], dtype=float) / 2.0
            if shape[2] != pybullet.GEOM_BOX:  # a sphere (radius) or another kind: its bounds
                half = np.full(3, float(dims[0]))
            half = np.maximum(half - GUARD_INSET_IN, 0.5 * half)  # just inside its surface
            axes = [np.linspace(-h, h, max(2, int(np.ceil(2 * h / GUARD_RAY_SPACING_IN)) + 1))
                    for h in half]
            grid = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3)
            surface = np.any(np.isclose(np.abs(grid), half, rtol=0.0, atol=1e-9), axis=1)
            out.append(grid[surface] @ quat_to_matrix(local_orn).T + np.asarray(local_pos))
        pts = np.unique(np.round(np.concatenate(out), 9), axis=0) if out else np.zeros((1, 3))
        cache[body.uid] = (body, pts)
        return pts

    def step(self, impacts: bool = True, _known: list[tuple] | None = None
             ) -> list[ImpactEvent]:
        """Advance one fixed time step; return impacts that began during it.

        Bodies that would move more than :data:`GUARD_MIN_STEP_IN` this step are first
        guarded against tunnelling (:meth:`guard_step`), unless the caller already guarded
        them for this step (with its own ``ignore`` list).

        ``impacts=False`` (a quiet settle, :meth:`step_until_rest`): no impacts are looked
        for; the pairs in contact are only noted as to be fetched (:meth:`_fetch_pairs`).

        ``_known`` (:meth:`step_until_rest` only): every movable body's ``(linear, angular)``
        speeds as pybullet gives them, in :meth:`_dynamic_bodies` order, read since the last
        step with nothing changed in between (its rest check's reading): used instead of
        reading them again (issue 26: one read per body and step in a settle, not two).
        """
        if self.dormant:  # the whole table sleeps (see SLEEPING): time only
            self.steps += 1
            self.time = self.steps * self.time_step
            return []
        get_vel = self._get_velocity
        known = iter(_known) if _known is not None else None
        velocities: dict[int, tuple] = {}
        guarded = self._guarded_now
        limit = GUARD_MIN_STEP_IN / self.time_step
        # every body asleep (exactly still) before and after the step, and nothing changed
        # from outside: no pose changed, so the contacts are last step's (Bullet keeps the
        # manifolds of sleeping bodies): the whole table idles without fetching them
        still = not self._touched and not guarded and not self._refetch
        self._touched = self._refetch = False
        rested, dt = self._rested, self.time_step
        sleepy = self.sleeping and not guarded
        for b in self._dynamic_bodies():  # never changed in place: a removal makes a new one
            got = next(known) if known is not None else None
            if b.key in guarded:
                rested[b.key] = 0.0
                continue  # guarded by the caller (pose and velocity may have changed)
            lin, ang = got if got is not None else get_vel(b.uid)
            # Bullet's sleep rule (btMultiBody::checkMotionAndSleepIfRequired), kept here
            if (ang[0] * ang[0] + ang[1] * ang[1] + ang[2] * ang[2] + lin[0] * lin[0]
                    + lin[1] * lin[1] + lin[2] * lin[2]) < SLEEP_THRESHOLD:
                rested[b.key] = t = rested.get(b.key, 0.0) + dt
                sleepy = sleepy and t > SLEEP_AFTER_S
            else:
                rested[b.key] = 0.0
                sleepy = False
            if still and (lin != _STILL or ang != _STILL):
                still = False
            if (self.auto_guard and self._maybe_over(lin, limit)
                    and np.linalg.norm(lin) * self.time_step > GUARD_MIN_STEP_IN):
                self.guard_step(b.key)  # moves it: read again below
                still = False
                continue
            velocities[b.uid] = (lin, ang)
        self._guarded_now.clear()
        if sleepy and self._dynamic_bodies():
            self._fall_asleep()
            self.steps += 1
            self.time = self.steps * self.time_step
            return []
        before = self._speeds(velocities) if impacts else {}
        sub = self.__dict__.get("_guard_substeps", 1)
        early: list = []  # contacts of a guarded impact's sub-steps (see guard_step)
        if sub > 1:
            self._guard_substeps = 1
            self.client.setPhysicsEngineParameter(fixedTimeStep=self.time_step / sub)
            try:
                for i in range(sub):
                    self._step_simulation()
                    if i < sub - 1 and impacts:  # a bounce within the step is an impact
                        early.extend(self._contact_points())
            finally:
                self.client.setPhysicsEngineParameter(fixedTimeStep=self.time_step)
        else:
            self._step_simulation()
        if self._woken:
            # pybullet's wake-up reaches a sleeping multibody's collider only at the end of
            # the next step, which clears its speed: give it back once (a one-step delay)
            for key, (lin, ang) in self._woken.items():
                b = self.bodies.get(key)
                if b is not None and get_vel(b.uid) == (_STILL, _STILL) and (any(lin) or any(ang)):
                    self.client.resetBaseVelocity(b.uid, lin, ang)
            self._woken.clear()
        self.steps += 1
        self.time = self.steps * self.time_step
        by_uid, in_contact = self._by_uid, self._in_contact
        pairs: set[tuple[int, int]] = set()
        contacts: dict[tuple[int, int], list] = {}
        if still and all(get_vel(b.uid) == (_STILL, _STILL) for b in self._dynamic_bodies()):
            return []  # nothing moved: same contacts, no new ones
        if not impacts:
            self._pairs_stale = True
            return []
        self._fetch_pairs()
        in_contact = self._in_contact
        final = self._contact_points()
        # the pairs touching now, from the distinct (A, B) of the points (issue 26: a table of
        # resting creations has thousands of points a step, nearly all of known pairs)
        for a, b in {(cp[1], cp[2]) for cp in final}:
            if a in by_uid and b in by_uid:
                pairs.add((a, b) if a < b else (b, a))
        if early or not pairs <= in_contact:  # else every pair rests: no point is needed
            for cp in early + list(final):
                a, b = cp[1], cp[2]
                if a not in by_uid or b not in by_uid:
                    continue
                pair = (a, b) if a < b else (b, a)
                if pair not in in_contact:  # a resting contact needs no more than its pair
                    contacts.setdefault(pair, []).append(cp)
        events = []
        for pair in sorted(contacts):
            best = None
            impulse = 0.0
            for cp in contacts[pair]:
                a, b = cp[1], cp[2]
                pos_b = np.array(cp[6])
                normal = np.array(cp[7])  # from B towards A
                va = self._point_velocity(before.get(a), pos_b)
                vb = self._point_velocity(before.get(b), pos_b)
                speed = float(-np.dot(va - vb, normal))
                impulse += cp[9] * self.time_step / sub
                if best is None or speed > best[0]:
                    best = (speed, a, b, pos_b, normal)
            speed, a, b, pos_b, normal = best
            if speed < IMPACT_MIN_SPEED_IN_S:
                continue
            # Report the faster-moving body first (the one that did the hitting) and static
            # bodies (the ground) last, so logs read "payload hit tower", "tower hit ground".
            ka, kb = self._by_uid[a].key, self._by_uid[b].key
            speed_a = float(np.linalg.norm(np.array(before[a][0]))) if a in before else -1.0
            speed_b = float(np.linalg.norm(np.array(before[b][0]))) if b in before else -1.0
            if speed_b > speed_a:
                ka, kb, normal = kb, ka, -normal
            events.append(
                ImpactEvent(
                    self.time,
                    ka,
                    kb,
                    tuple(float(v) for v in pos_b),
                    tuple(float(v) for v in normal),
                    speed,
                    float(impulse),
                )
            )
        self._in_contact = pairs
        return events

    def _fetch_pairs(self) -> None:
        """After a quiet settle: the pairs in contact now, as the last step that looked for
        impacts would have left them (only the pairs are kept between steps)."""
        if self.__dict__.pop("_pairs_stale", False):
            by_uid = self._by_uid
            self._in_contact = {(a, b) if a < b else (b, a)
                                for a, b in {(cp[1], cp[2]) for cp in self._contact_points()}
                                if a in by_uid and b in by_uid}

    def is_at_rest(self) -> bool:
        """True when every dynamic body moves slower than the rest thresholds now."""
        if self.dormant:
            return True  # every body exactly still
        get_vel = self._get_velocity
        return self._at_rest([get_vel(b.uid) for b in self._dynamic_bodies()])

    def _at_rest(self, velocities: list[tuple]) -> bool:
        """:meth:`is_at_rest` of speeds read (``(linear, angular)`` per movable body)."""
        for lin, ang in velocities:
            if ((self._maybe_over(lin, REST_LINEAR_IN_S) and np.linalg.norm(lin) > REST_LINEAR_IN_S)
                    or (self._maybe_over(ang, REST_ANGULAR_RAD_S)
                        and np.linalg.norm(ang) > REST_ANGULAR_RAD_S)):
                return False
        return True

    def step_until_rest(
        self,
        max_seconds: float = 10.0,
        min_seconds: float = 0.0,
        on_step: Callable[["PhysicsWorld", list[ImpactEvent]], None] | None = None,
        impacts: bool = True,
    ) -> list[ImpactEvent]:
        """Step until every body has been at rest for :data:`REST_HOLD_S`, or a time cap.

        Parameters
        ----------
        max_seconds : float
            Cap on simulated time for this call, seconds.
        min_seconds : float
            Always simulate at least this long (so a body released at rest gets moving).
        on_step : callable, optional
            Called after every step with the world and that step's impacts (for recording).
        impacts : bool
            False: a quiet settle whose impacts nobody reads (the set-up's): no contact is
            fetched during it (issue 26: thousands of points a step on a big table), only
            the pairs in contact at its end, which later steps need.

        Returns
        -------
        list of ImpactEvent
            Every impact, in time order.
        """
        events: list[ImpactEvent] = []
        start = self.time
        hold_steps_needed = max(1, int(round(REST_HOLD_S / self.time_step)))
        rest_steps = 0
        get_vel = self._get_velocity
        try:
            known = None
            while self.time - start < max_seconds - 1e-12:
                ev = self.step(impacts, known)
                known = None
                events.extend(ev)
                if on_step is not None:
                    on_step(self, ev)
                if self.time - start < min_seconds:
                    continue
                if self.dormant:
                    at_rest = True  # every body exactly still
                else:
                    # read once: the rest check's speeds are the next step's (nothing runs
                    # between them), so that step does not read them again
                    known = [get_vel(b.uid) for b in self._dynamic_bodies()]
                    at_rest = self._at_rest(known)
                rest_steps = rest_steps + 1 if at_rest else 0
                if rest_steps >= hold_steps_needed:
                    break
        finally:
            self._fetch_pairs()
        return events

    def poses(self, keys: Iterable[str] | None = None
              ) -> dict[str, tuple[list[float], list[float]]]:
        """Poses of bodies as plain lists ``{key: ([x, y, z], [qx, qy, qz, qw])}``."""
        out = {}
        for k in keys if keys is not None else self.bodies:
            pos, orn = self._pose_tuple(k)
            out[k] = (list(pos), list(orn))
        return out
