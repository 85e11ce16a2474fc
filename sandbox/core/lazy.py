"""Modules imported on first use (issue 21: the headless job pays only for what it uses)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_import(name: str) -> ModuleType:
    """``name`` as a module whose code runs on the first attribute read (the standard
    library's :class:`importlib.util.LazyLoader` recipe); an already imported module is
    returned as it is.

    Raises
    ------
    ModuleNotFoundError
        No module of that name is installed (found now, not on first use).
    """
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
