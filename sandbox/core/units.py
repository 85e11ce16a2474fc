"""Units and frames: the one place where LDraw units and frames become world inches.

World frame: inches, Z up, right-handed, seconds, radians, grams.
LDraw frame: LDU (1 LDU = 0.4 mm), -Y up, right-handed.

The LDraw → world rotation maps LDraw (x, y, z) to world (x, z, -y): LDraw's up (-Y) becomes
world +Z and LDraw +Z becomes world +Y, so a model's LDraw front (-Z) faces world -Y. The
matrix is a proper rotation (+90° about X, determinant +1), so handedness and BFC winding are
preserved.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

#: A point or vector in inches (or a quaternion): a sequence of floats or a numpy array.
Vec = Sequence[float] | np.ndarray

#: Millimetres per LDraw unit.
MM_PER_LDU: float = 0.4
#: Millimetres per inch.
MM_PER_INCH: float = 25.4
#: Inches per LDraw unit (0.015748...).
INCH_PER_LDU: float = MM_PER_LDU / MM_PER_INCH
#: LDraw units per inch (63.5).
LDU_PER_INCH: float = MM_PER_INCH / MM_PER_LDU

#: Stud pitch, brick height and plate height in LDU.
STUD_PITCH_LDU: float = 20.0
BRICK_HEIGHT_LDU: float = 24.0
PLATE_HEIGHT_LDU: float = 8.0

#: Standard gravity in inches per second squared (9.80665 m/s² / 0.0254 m/in).
GRAVITY_IN_S2: float = 9.80665 / 0.0254

#: Rotation taking LDraw axes to world axes: world = LDRAW_TO_WORLD_ROT @ ldraw.
LDRAW_TO_WORLD_ROT: np.ndarray = np.array(
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]], dtype=float
)
LDRAW_TO_WORLD_ROT.setflags(write=False)


def ldu_to_inch(value):
    """Convert a length (scalar or array) from LDU to inches."""
    return np.asarray(value, dtype=float) * INCH_PER_LDU if not np.isscalar(value) else float(
        value
    ) * INCH_PER_LDU


def inch_to_ldu(value):
    """Convert a length (scalar or array) from inches to LDU."""
    return np.asarray(value, dtype=float) * LDU_PER_INCH if not np.isscalar(value) else float(
        value
    ) * LDU_PER_INCH


def ldraw_points_to_world(points: np.ndarray) -> np.ndarray:
    """Convert points from the LDraw frame in LDU to the world frame in inches.

    Parameters
    ----------
    points : (..., 3) float
        Points in LDU, LDraw frame (-Y up).

    Returns
    -------
    (..., 3) float
        The same points in inches, world frame (Z up).
    """
    p = np.asarray(points, dtype=float)
    return (p @ LDRAW_TO_WORLD_ROT.T) * INCH_PER_LDU


def world_points_to_ldraw(points: np.ndarray) -> np.ndarray:
    """Inverse of :func:`ldraw_points_to_world`: world inches (Z up) to LDraw LDU (-Y up)."""
    p = np.asarray(points, dtype=float)
    return (p @ LDRAW_TO_WORLD_ROT) * LDU_PER_INCH


def ldraw_directions_to_world(vectors: np.ndarray) -> np.ndarray:
    """Rotate direction vectors (normals) from the LDraw frame to the world frame, no scaling.

    Parameters
    ----------
    vectors : (..., 3) float
    """
    return np.asarray(vectors, dtype=float) @ LDRAW_TO_WORLD_ROT.T


def ldraw_transform_to_world(matrix: np.ndarray) -> np.ndarray:
    """Convert a 4x4 LDraw placement (LDU, LDraw frame) to a world placement (inches, Z up).

    The result maps a part's *world-frame local* points (inches, Z up, i.e. points already
    passed through :func:`ldraw_points_to_world`) to world points.

    Parameters
    ----------
    matrix : (4, 4) float
        Homogeneous transform in LDU whose upper 3x3 is the LDraw rotation/scale.

    Returns
    -------
    (4, 4) float
        ``R @ M @ R^T`` with the translation scaled to inches.
    """
    m = np.asarray(matrix, dtype=float)
    if m.shape != (4, 4):
        raise ValueError(f"expected a (4, 4) transform, got shape {m.shape}")
    r = LDRAW_TO_WORLD_ROT
    out = np.eye(4)
    out[:3, :3] = r @ m[:3, :3] @ r.T
    out[:3, 3] = (r @ m[:3, 3]) * INCH_PER_LDU
    return out
