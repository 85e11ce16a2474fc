"""Golden-image comparison shared by the rendering tests.

Golden frames are named with the GL backend (``boxes_llvmpipe.png``), as dm_control's
``mujoco/testing/image_utils.py`` does; only llvmpipe goldens are stored. A missing golden
fails the test (it used to skip, which hid a golden never made). Set
``SANDBOX_UPDATE_GOLDEN=1`` to rewrite the golden files.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

GOLDEN_DIR = Path(__file__).parent / "golden"
#: RMS difference (0..255 per channel) allowed against a golden frame. Two runs on the same
#: llvmpipe give 0.0; shadow-map PCF and MSAA resolve differences between Mesa versions move a
#: few edge pixels by tens of levels, which is well under 4.0 on a 320x240 frame, while a brick
#: moved by one stud or a wrong colour gives more than 8.
RMS_TOLERANCE = 4.0

def rms(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)))


def assert_matches_golden(image: np.ndarray, name: str, backend: str,
                          tolerance: float = RMS_TOLERANCE) -> None:
    """Compare ``image`` (H, W, 3) uint8 with ``tests/golden/{name}_{backend}.png`` (RMS at
    most ``tolerance``).

    With ``SANDBOX_UPDATE_GOLDEN=1`` the golden is (re)written instead. On a mismatch the
    actual frame and an amplified difference image are saved in a temporary folder named in
    the failure message.
    """
    path = GOLDEN_DIR / f"{name}_{backend}.png"
    if os.environ.get("SANDBOX_UPDATE_GOLDEN") == "1":
        GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
        Image.fromarray(image).save(path)
        return
    if not path.exists():
        pytest.fail(f"no golden frame {path.name} for backend {backend!r}: a missing golden "
                    "fails (make it with SANDBOX_UPDATE_GOLDEN=1, check it, commit it)")
    golden = np.asarray(Image.open(path).convert("RGB"))
    if golden.shape != image.shape:
        pytest.fail(f"{path.name}: golden shape {golden.shape} != actual {image.shape}")
    err = rms(golden, image)
    if err > tolerance:
        out = Path(tempfile.mkdtemp(prefix="sandbox-golden-"))
        Image.fromarray(image).save(out / f"{name}_{backend}_actual.png")
        diff = np.clip(np.abs(golden.astype(int) - image.astype(int)) * 4, 0, 255)
        Image.fromarray(diff.astype(np.uint8)).save(out / f"{name}_{backend}_diff.png")
        pytest.fail(f"{path.name}: RMS {err:.2f} > {tolerance}; actual and diff in {out}")


