"""Issue 26: the stud graph is made at load with array code, never at a creation's first
blast, and says the same as the part-by-part separating-axis test it replaces."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np

import sandbox
from sandbox.bricks import connectivity
from sandbox.bricks.connectivity import boxes_touch, boxes_touch_many

REPO = Path(__file__).resolve().parents[1]


def _rotation(rng) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


def test_the_array_separating_axis_test_agrees_with_the_pair_by_pair_one():
    rng = np.random.default_rng(26)
    pairs = []
    for k in range(400):
        axis_aligned = k % 4 == 0  # parallel axes: the cross products vanish and are skipped
        ra = np.eye(3) if axis_aligned else _rotation(rng)
        rb = np.eye(3) if axis_aligned else _rotation(rng)
        pairs.append((SimpleNamespace(centre=rng.uniform(-1, 1, 3),
                                      half_extents=rng.uniform(0.05, 0.6, 3), rotation=ra),
                      SimpleNamespace(centre=rng.uniform(-1, 1, 3),
                                      half_extents=rng.uniform(0.05, 0.6, 3), rotation=rb)))
    want = [boxes_touch(a, b) for a, b in pairs]
    got = boxes_touch_many(*(np.array([getattr(p[i], f) for p in pairs], dtype=float)
                             for i in (0,) for f in ("centre", "half_extents", "rotation")),
                           *(np.array([getattr(p[i], f) for p in pairs], dtype=float)
                             for i in (1,) for f in ("centre", "half_extents", "rotation")))
    assert got.tolist() == want
    assert 50 < sum(want) < 350  # both answers are exercised


def test_a_creation_gets_its_stud_graph_at_load_and_its_first_blast_builds_none(monkeypatch):
    with sandbox.open_game(REPO / "scenes" / "wall_demolition.toml") as game:
        creations = [k for k, st in game.bodies.items() if st.kind == "creation"]
        assert creations
        for key in creations:
            graph = game.assets[key].stud_graph
            assert graph is not None and graph.number_of_nodes() == game.assets[key].part_count
            assert graph.number_of_edges() > 0
        graphs = {k: game.assets[k].stud_graph for k in creations}
        built = []
        real = connectivity.stud_graph
        monkeypatch.setattr("sandbox.games.brikwars.explosions.stud_graph",
                            lambda *a, **k: built.append(1) or real(*a, **k))
        game.run()  # the missile blasts the wall
        assert game.blasts.structures, "the wall was blasted"
        assert built == []
        for root, s in game.blasts.structures.items():
            assert s.graph is graphs[root]  # the graph made at load


def test_the_stud_graph_says_what_the_part_by_part_reading_says():
    """stud_graph (index arrays, no networkx) against the reading it replaces, done pair by
    pair here: an edge per pair of parts with a stud joint, counting its studs, and for a part
    no stud joins an edge to every part whose box it touches (boxes_touch)."""
    from sandbox.bricks.mesh import placement_boxes
    from sandbox.bricks.model import load_model

    for name in ("guard_tower.mpd", "wall_demolition.mpd", "knight.ldr"):
        model = load_model(REPO / "models" / name)
        pls = list(model.placements)
        boxes = placement_boxes(model, pls)
        want: dict[tuple[int, int], int] = {}
        for a, b in connectivity.stud_joints(*connectivity.placement_studs(model, pls), boxes):
            pair = (min(a, b), max(a, b))
            want[pair] = want.get(pair, 0) + 1
        joined = {n for pair in want for n in pair}
        for i in range(len(pls)):
            if i not in joined:
                for j in range(len(pls)):
                    if j != i and boxes_touch(boxes[i], boxes[j]):
                        want.setdefault((min(i, j), max(i, j)), 0)
        g = connectivity.stud_graph(model, pls, boxes)
        got = {(min(a, b), max(a, b)): s for a, b, s in
               zip(g.u.tolist(), g.v.tolist(), g.studs.tolist(), strict=True)}
        assert len(got) == g.number_of_edges()  # one edge per pair
        assert got == want, name
        assert g.parts == [p.part for p in pls]
        assert [k for k in g.kinds] == ["stud" if s else "contact" for s in g.studs.tolist()]
        nxg = g.to_networkx()  # the networkx form: the same nodes, edges and attributes
        assert sorted(nxg.nodes) == list(g.nodes)
        assert {(min(a, b), max(a, b)): d["studs"] for a, b, d in nxg.edges(data=True)} == want
        assert connectivity.pieces(g, {0, 3}) == connectivity.pieces(nxg, {0, 3})


def test_opening_a_scene_does_not_import_networkx(tmp_path):
    """The stud graphs made at load need no networkx (issue 26: its import was 0.1 s of a
    headless run); a scene with creations is opened in a fresh interpreter, with the part
    cache filled by a first run (a cold cache makes the catalogue's parts with trimesh,
    which imports networkx itself)."""
    import os
    import subprocess
    import sys

    code = ("import sys, sandbox; g = sandbox.open_game(sys.argv[1]); "
            "assert any(a.stud_graph is not None for a in g.assets.values()); "
            "print('networkx.classes' in sys.modules)")
    scene = str(REPO / "scenes" / "wall_demolition.toml")
    env = dict(os.environ, SANDBOX_PART_CACHE=str(tmp_path / "parts"))
    for _ in range(2):  # the first run fills the part cache
        out = subprocess.run([sys.executable, "-c", code, scene], capture_output=True,
                             text=True, timeout=600, check=True, env=env)
    assert out.stdout.strip().splitlines()[-1] == "False"


def test_components_from_edge_arrays_are_the_pieces_networkx_finds():
    """connectivity.components (index arrays and label propagation, issue 26) splits a graph
    as pieces(graph.subgraph(kept)) does: same pieces, same order, on random graphs (chains,
    trees, cycles, lone parts) with random parts removed."""
    import networkx as nx

    rng = np.random.default_rng(26)
    for k in range(300):
        n = int(rng.integers(1, 120))
        g = nx.Graph()
        g.add_nodes_from(range(n))
        for _ in range(int(rng.integers(0, 2 * n))):
            a, b = rng.integers(0, n, 2)
            if a != b:
                g.add_edge(int(a), int(b))
        if k % 3 == 0:  # a long chain: many rounds of label propagation
            nx.add_path(g, rng.permutation(n).tolist())
        kept = [v for v in range(n) if rng.random() > (0.0 if k % 5 == 0 else 0.3)]
        want = connectivity.pieces(g.subgraph(kept))
        assert connectivity.components(g, kept) == want
        assert connectivity.components(g, set(kept)) == want  # any iterable; cached arrays
    assert connectivity.components(nx.path_graph(3), []) == []
    odd = nx.Graph([("a", "b"), ("c", "d")])  # not 0..n-1: networkx's answer
    assert connectivity.components(odd, ["a", "b", "c"]) == [["a", "b"], ["c"]]
