"""Edge lines in the tabletop window (issue 19): on by default, F4 turns them off and on."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.window
REPO = Path(__file__).resolve().parents[1]
W, H = 480, 360


@pytest.fixture(scope="module")
def app(window_display):
    from sandbox.app.table.app import TabletopApp
    from sandbox.engine.game import open_game

    a = TabletopApp(open_game(REPO / "scenes" / "skirmish.toml"), W, H)
    a.step(3)
    yield a
    a.destroy()


def _edge_nodes(app):
    return [c for key, n in app._nodes.items() for c in n.get_children()
            if c.get_name() == key + ":edges"]


def _diff(a, b) -> float:
    return float(np.sqrt(np.mean((a[..., :3].astype(float) - b[..., :3].astype(float)) ** 2)))


def test_f4_toggles_the_edge_lines(app):
    nodes = _edge_nodes(app)
    assert nodes and all(not n.is_hidden() for n in nodes)
    wall = next(n for n in nodes if n.get_name() == "wall:edges")
    assert {c.get_name() for c in wall.get_children()} == {"wall:edges:type2",
                                                            "wall:edges:optional"}
    with_lines = app.frame_array()
    app.base.messenger.send("f4")
    app.step(2)
    assert not app.show_edges and all(n.is_hidden() for n in _edge_nodes(app))
    without = app.frame_array()
    assert _diff(with_lines, without) > 0.5
    app.base.messenger.send("f4")
    app.step(2)
    assert app.show_edges and _diff(app.frame_array(), with_lines) < 0.2
