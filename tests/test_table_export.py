"""glTF and LDraw exports of the table: round trips of the Wall Demolition after its explosion
(BrikWars 8.4: the blast wall breaks into pieces and destroyed parts)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import trimesh
from typer.testing import CliRunner

from sandbox import open_game
from sandbox.app.table_export import (
    TABLE_TO_GLTF,
    load_snapshot,
    snapshot_of_game,
    snapshot_of_replay,
    write_gltf,
    write_ldraw,
)
from sandbox.bricks import load_model
from sandbox.bricks.colours import srgb_to_linear
from sandbox.cli import app
from sandbox.core.errors import ReplayError, SceneError
from sandbox.engine.replay import save_replay

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "scenes" / "wall_demolition.toml"
TOL_IN = 0.01

pytestmark = pytest.mark.ldraw


@pytest.fixture(scope="module")
def blasted(ldrawdir, tmp_path_factory):
    """(snapshot after the explosion, replay path, the game's final poses)."""
    tmp = tmp_path_factory.mktemp("export")
    with open_game(SCENE, ldrawdir=ldrawdir) as game:
        game.play_script()
        snap = snapshot_of_game(game)
        rp = game.replay()
        rp.meta["scene_dir"] = str(SCENE.parent)  # as `sandbox run` records it
        replay_path = save_replay(rp, tmp / "wall.replay")
    return snap, replay_path, tmp


def _loaded_glb(snap, path):
    write_gltf(snap, path)
    return trimesh.load(path, force="scene")


def test_the_wall_is_broken_and_every_part_is_on_the_table(blasted):
    snap, _, _ = blasted
    groups = Counter(b.group for b in snap.bodies)
    assert groups["wall"] > 10  # pieces and destroyed parts of the blast wall
    assert "wall" not in {b.key for b in snap.bodies}
    assert snap.part_count() == 160 + 9 + 9  # no part lost by the break-up
    debris = [b for b in snap.bodies if b.debris]
    assert debris and all(len(b.tags) == 1 and b.group == "wall" for b in debris)


def test_part_poses_put_each_part_where_its_mesh_is_on_the_table(blasted):
    """The LDraw placements the exports write, checked against the drawn meshes (which the
    physics moved): each part's own triangles, placed by its exported pose, within 0.01"."""
    from sandbox.bricks.mesh import model_mesh

    snap, _, _ = blasted
    checked = 0
    for b in snap.bodies:
        a = b.asset
        world = a.local_vertices.astype(float) @ b.pose[:3, :3].T + b.pose[:3, 3]
        tris = world.reshape(-1, 3, 3)
        for t, (p, m) in zip(b.tags, b.part_matrices(), strict=True):
            got = tris[a.placement_index == t].reshape(-1, 3)
            if not len(got):
                continue
            wm = p.world_matrix
            own = (model_mesh(a.model, [p]).vertices - wm[:3, 3]) @ np.linalg.inv(wm[:3, :3]).T
            now = own @ m[:3, :3].T + m[:3, 3]
            assert now.shape == got.shape
            assert np.abs(now - got).max() < TOL_IN, (b.key, p.part)
            checked += 1
    assert checked == snap.part_count()


def test_glb_round_trip_nodes_poses_and_colours(blasted, tmp_path):
    snap, _, _ = blasted
    scene = _loaded_glb(snap, tmp_path / "wall.glb")
    nodes = set(scene.graph.nodes)
    assert {"table", "battlefield"} <= nodes
    assert np.allclose(scene.graph.get("table")[0], TABLE_TO_GLTF)
    colour_nodes = [n for n in nodes if "/" in n]
    # one node per body, one per colour of each body, the battlefield, the table, the root
    assert len(nodes) == len(snap.bodies) + len(colour_nodes) + 3
    assert len(scene.geometry) == len(colour_nodes) + 1
    for b in snap.bodies:
        assert b.name in nodes
        got, _ = scene.graph.get(b.name, frame_from="table")
        assert np.abs(got[:3, 3] - b.pose[:3, 3]).max() < TOL_IN
        assert np.abs(got[:3, :3] - b.pose[:3, :3]).max() < 1e-5
        # the mesh itself, back in the world, where the body's mesh is
        children = [n for n in colour_nodes if n.startswith(b.name + "/")]
        assert children
        verts, faces = [], 0
        for child in children:
            m, geom = scene.graph.get(child, frame_from="table")
            verts.append(np.asarray(scene.geometry[geom].vertices) @ m[:3, :3].T + m[:3, 3])
            faces += len(scene.geometry[geom].faces)
        world = np.concatenate(verts)
        want = b.asset.local_vertices.astype(float) @ b.pose[:3, :3].T + b.pose[:3, 3]
        assert faces * 3 == len(want)  # indexed: every triangle, shared corners once
        assert np.abs(world.min(axis=0) - want.min(axis=0)).max() < TOL_IN
        assert np.abs(world.max(axis=0) - want.max(axis=0)).max() < TOL_IN
    # LDraw colours as materials: the wall is Light_Bluish_Grey (71, #969696), linear light
    wall_piece = next(b for b in snap.bodies if b.group == "wall" and "#" in b.key)
    geom = scene.graph.get(f"{wall_piece.name}/Light_Bluish_Grey", frame_from="table")[1]
    mat = scene.geometry[geom].visual.material
    assert mat.name == "Light_Bluish_Grey"
    grey = round(float(srgb_to_linear(150 / 255)) * 255)  # 78: trimesh reads 8-bit factors
    assert list(np.asarray(mat.baseColorFactor)[:4]) == [grey, grey, grey, 255]
    names = {scene.geometry[g].visual.material.name for g in scene.geometry}
    assert "battlefield" in names and len(names) >= 4  # the minifigs add their colours


def test_mpd_round_trip_part_counts_colours_and_poses(blasted, ldrawdir, tmp_path):
    snap, _, _ = blasted
    out = write_ldraw(snap, tmp_path / "ruins.mpd")
    model = load_model(out, ldrawdir=ldrawdir)
    assert not model.warnings
    want = [(p, m) for b in snap.bodies for p, m in b.part_matrices()]
    assert len(model.placements) == len(want) == snap.part_count()
    assert model.part_counts() == Counter(p.part for p, _ in want)
    assert Counter(p.colour for p in model.placements) == Counter(p.colour for p, _ in want)
    # every creation a submodel; the broken wall holds its pieces as submodels
    subs = {s.lower() for s in model.submodels}
    assert {"wall.ldr", "reale.ldr", "templin.ldr", "wall_1.ldr"} <= subs
    pieces = [b for b in snap.bodies if b.group == "wall" and "#" in b.key]
    assert all(any(p.chain[1:3] == ("wall.ldr", f"wall_{b.key.split('#')[1]}.ldr")
                   for p in model.placements) for b in pieces)
    loose = [p for p in model.placements if p.chain[1:] == ("wall.ldr",)]
    assert len(loose) == sum(b.debris for b in snap.bodies)
    # each part where the table has it (position within 0.01", same turn), one-to-one
    used = set()
    for p in model.placements:
        got = p.world_matrix
        cands = [i for i, (q, _) in enumerate(want)
                 if q.part == p.part and q.colour == p.colour and i not in used]
        d = [np.abs(want[i][1][:3, 3] - got[:3, 3]).max() for i in cands]
        best = cands[int(np.argmin(d))]
        assert min(d) < TOL_IN
        assert np.abs(want[best][1][:3, :3] - got[:3, :3]).max() < 1e-4
        used.add(best)


def test_replay_frames_export_the_wall_whole_then_broken(blasted, ldrawdir):
    snap, replay_path, _ = blasted
    from sandbox.engine.playback import replay_assets
    from sandbox.engine.replay import load_replay

    rp = load_replay(replay_path)
    assets = replay_assets(rp, ldrawdir=ldrawdir)
    first = snapshot_of_replay(rp, 0, assets=assets)
    assert "wall" in {b.key for b in first.bodies}
    assert first.part_count() == snap.part_count()
    last = snapshot_of_replay(rp, assets=assets)
    assert {b.key for b in last.bodies} == {b.key for b in snap.bodies}
    by_key = {b.key: b for b in snap.bodies}
    for b in last.bodies:
        assert np.abs(b.pose[:3, 3] - by_key[b.key].pose[:3, 3]).max() < TOL_IN
    with pytest.raises(ReplayError, match="frame"):
        snapshot_of_replay(rp, rp.frames, assets=assets)


def test_scene_export_is_the_table_after_set_up_and_refuses_a_frame(ldrawdir):
    snap = load_snapshot(SCENE, ldrawdir=ldrawdir)
    assert [b.key for b in snap.bodies] == ["wall", "reale", "templin"]
    assert (snap.width, snap.depth) == (36.0, 24.0)
    with pytest.raises(SceneError, match="--frame"):
        load_snapshot(SCENE, frame=3, ldrawdir=ldrawdir)


def test_cli_export_writes_both_files(blasted, ldrawdir, tmp_path):
    _, replay_path, _ = blasted
    glb, mpd = tmp_path / "a.glb", tmp_path / "a.mpd"
    res = CliRunner().invoke(app, ["export", str(replay_path), "--gltf", str(glb),
                                   "--ldraw", str(mpd), "--frame", "0",
                                   "--ldrawdir", str(ldrawdir)])
    assert res.exit_code == 0, res.output
    assert glb.read_bytes()[:4] == b"glTF"
    assert mpd.read_text().startswith("0 FILE a.mpd")
    bad = CliRunner().invoke(app, ["export", str(replay_path), "--gltf", str(glb),
                                   "--frame", "99999", "--ldrawdir", str(ldrawdir)])
    assert bad.exit_code == 2 and "frame" in bad.output
    none = CliRunner().invoke(app, ["export", str(replay_path)])
    assert none.exit_code == 2
