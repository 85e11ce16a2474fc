"""Run the docstring examples of the rules engine and the dice module."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "sandbox.core.dice",
    "sandbox.rules.stats",
    "sandbox.rules.weapons",
    "sandbox.rules.power",
    "sandbox.rules.attacks",
    "sandbox.rules.damage",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0 or name == "sandbox.rules.stats"


def test_rules_import_no_physics_or_rendering():
    """The rules layer must import without pybullet or panda3d (DESIGN.md layers)."""
    import subprocess
    import sys

    code = (
        "import sys, sandbox.rules; "
        "bad = [m for m in sys.modules if m.startswith(('pybullet', 'panda3d'))]; "
        "sys.exit(1 if bad else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
