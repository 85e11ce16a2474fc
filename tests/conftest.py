"""Shared fixtures: the LDraw library beside the repository, and the repo root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_ldraw() -> Path | None:
    """``$LDRAWDIR`` if set, else ``../shared/ldraw`` beside the repository, if it exists."""
    env = os.environ.get("LDRAWDIR")
    for cand in ([Path(env)] if env else []) + [REPO.parent / "shared" / "ldraw"]:
        if cand.is_dir():
            return cand.resolve()
    return None


@pytest.fixture(scope="session")
def ldrawdir() -> Path:
    lib = shared_ldraw()
    if lib is None:
        pytest.skip("no LDraw library: set LDRAWDIR or put it at ../shared/ldraw")
    return lib
