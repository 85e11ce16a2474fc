"""The tabletop window, kept as a module for old imports: the code is the package
:mod:`sandbox.app.table` (window owner, HUD, key map, input modes, loading view)."""

from __future__ import annotations

from .table.app import LOADING_EVERY_S, ActionRunner, TabletopApp
from .table.files import ODDS_SEEDS
from .table.hud import LOG_COLUMN, LOG_FILTERS, shown_path
from .table.input import InputLayer
from .table.launch import open_for_play, play

__all__ = ["LOADING_EVERY_S", "LOG_COLUMN", "LOG_FILTERS", "ODDS_SEEDS", "ActionRunner",
           "InputLayer", "TabletopApp", "open_for_play", "play", "shown_path"]
