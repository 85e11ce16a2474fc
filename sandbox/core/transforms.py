"""Rotations: quaternions in pybullet's order (x, y, z, w) and 3x3 matrices.

One place for the conversions that physics, rendering and the game layer all need (the
render layer cannot import pybullet, so these are plain numpy).
"""

from __future__ import annotations

import math

import numpy as np

from .units import Vec


def matrix_to_quat(m: np.ndarray) -> tuple[float, float, float, float]:
    """Rotation matrix (3, 3) to a pybullet quaternion (x, y, z, w)."""
    m = np.asarray(m, dtype=float)
    t = np.trace(m)
    if t > 0:
        s = math.sqrt(t + 1.0) * 2
        w, x = 0.25 * s, (m[2, 1] - m[1, 2]) / s
        y, z = (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        w, x = (m[2, 1] - m[1, 2]) / s, 0.25 * s
        y, z = (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        w, x = (m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s
        y, z = 0.25 * s, (m[1, 2] + m[2, 1]) / s
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        w, x = (m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s
        y, z = (m[1, 2] + m[2, 1]) / s, 0.25 * s
    q = np.array([x, y, z, w])
    q /= np.linalg.norm(q)
    return tuple(float(v) for v in q)  # type: ignore[return-value]


def matrices_to_quats(ms) -> np.ndarray:
    """Rotation matrices (n, 3, 3) to pybullet quaternions (n, 4): :func:`matrix_to_quat` of
    each, the same numbers bit for bit (the same operations in the same order, element-wise;
    the norm as ``np.linalg.norm`` takes it, one dot product per row)."""
    m = np.asarray(ms, dtype=float).reshape(-1, 3, 3)
    m00, m01, m02 = m[:, 0, 0], m[:, 0, 1], m[:, 0, 2]
    m10, m11, m12 = m[:, 1, 0], m[:, 1, 1], m[:, 1, 2]
    m20, m21, m22 = m[:, 2, 0], m[:, 2, 1], m[:, 2, 2]
    t = (m00 + m11) + m22
    b0 = t > 0
    b1 = ~b0 & (m00 > m11) & (m00 > m22)
    b2 = ~b0 & ~b1 & (m11 > m22)
    b3 = ~(b0 | b1 | b2)
    q = np.empty((len(m), 4))
    with np.errstate(all="ignore"):  # every branch on every row; each row keeps its own
        s = np.sqrt(t + 1.0) * 2
        branch = [(b0, ((m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s))]
        s = np.sqrt(1.0 + m00 - m11 - m22) * 2
        branch.append((b1, (0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s)))
        s = np.sqrt(1.0 + m11 - m00 - m22) * 2
        branch.append((b2, ((m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s)))
        s = np.sqrt(1.0 + m22 - m00 - m11) * 2
        branch.append((b3, ((m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s)))
    for mask, xyzw in branch:
        for k, v in enumerate(xyzw):
            q[mask, k] = v[mask]
    # one (1, 4) @ (4, 1) product per row: BLAS's dot for each, as np.dot row by row
    norms = np.sqrt((q[:, None, :] @ q[:, :, None])[:, 0, 0])
    return q / norms[:, None]


def quat_to_matrix(q: Vec) -> np.ndarray:
    """pybullet quaternion (x, y, z, w) to a rotation matrix (3, 3)."""
    x, y, z, w = (float(v) for v in q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def quat_mul(a: Vec, b: Vec) -> list[float]:
    """Hamilton product of two (x, y, z, w) quaternions: ``a`` applied after ``b``."""
    ax, ay, az, aw = (float(v) for v in a)
    bx, by, bz, bw = (float(v) for v in b)
    return [aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz]
