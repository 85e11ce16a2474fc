"""The far level of detail (issue 26, "castle window >= 30 fps on llvmpipe"): what a part and a
creation look like from afar (sandbox/bricks/lod.py), and the window drawing it only there."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sandbox.bricks.lod import FAR_ERROR_LDU, FAR_KEEP, FAR_SEGMENTS, far_part, make_far
from sandbox.bricks.lowres import low_res_part
from sandbox.bricks.model import load_model
from sandbox.bricks.partmesh import BODY_FEATURE, feature_arrays

REPO = Path(__file__).resolve().parents[1]


def _model(tmp_path: Path, ldrawdir: Path, lines: list[str], name: str = "m.ldr"):
    path = tmp_path / name
    path.write_text("\n".join(["0 test model", *lines]) + "\n")
    return load_model(path, ldrawdir=ldrawdir)


def _area(tris: np.ndarray) -> float:
    return float(0.5 * np.linalg.norm(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]),
                                      axis=1).sum())


def test_a_horse_from_afar_keeps_its_shape_and_colours_with_a_third_of_its_triangles(
        tmp_path, ldrawdir):
    """The horse (4493c01: 9,833 triangles, the castle's heaviest part) decimated per colour:
    under half its triangles, every colour still there with about its area, its bounds within
    the error allowed, no lines."""
    m = _model(tmp_path, ldrawdir, ["1 15 0 0 0 1 0 0 0 1 0 0 0 1 4493c01.dat"])
    near = low_res_part(m, "4493c01.dat", FAR_SEGMENTS)
    far = far_part(m, "4493c01.dat")
    assert len(far.triangles) < 0.5 * len(near.triangles)
    assert set(np.unique(far.colours)) == set(np.unique(near.colours))
    for code in np.unique(near.colours):
        a0 = _area(near.triangles[near.colours == code])
        a1 = _area(far.triangles[far.colours == code])
        assert abs(a1 - a0) <= 0.25 * a0, code
    assert np.abs(far.bounds - near.bounds).max() <= 2 * FAR_ERROR_LDU
    assert len(far.edges) == 0 and len(far.optional) == 0
    assert far.certified.all()


def test_studs_from_afar_are_squares_that_keep_their_place_and_tags(tmp_path, ldrawdir):
    """A 2x4 brick's far mesh: its 8 studs with 4 segments a circle (fewer triangles than the
    8-segment low-resolution ones), each triangle still tagged with its stud, the same studs;
    a part this small is not decimated (its body is the same triangles)."""
    m = _model(tmp_path, ldrawdir, ["1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat"])
    low = low_res_part(m, "3001.dat")
    far = far_part(m, "3001.dat")
    ft_low, _, _ = feature_arrays(low)
    ft_far, _, _ = feature_arrays(far)
    assert np.array_equal(far.studs, low.studs) and len(far.studs) == 8
    for s in range(8):
        n_low, n_far = int((ft_low == s).sum()), int((ft_far == s).sum())
        assert 0 < n_far < n_low, s
    body_low = np.sort(low.triangles[ft_low == BODY_FEATURE].reshape(-1, 9), axis=0)
    body_far = np.sort(far.triangles[ft_far == BODY_FEATURE].reshape(-1, 9), axis=0)
    assert np.array_equal(body_low, body_far)


def test_the_far_geometry_culls_the_studs_a_creation_hides(tmp_path, ldrawdir):
    """Two 2x4 bricks stacked: from afar as near, the lower brick's 8 covered studs (and the
    upper one's tubes) are not drawn: the stack has fewer triangles than the two bricks apart
    by exactly the hidden studs' and tubes' far triangles."""
    from sandbox.bricks.visible import hidden_features, visible_mesh

    m = _model(tmp_path, ldrawdir, ["1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat",
                                     "1 1 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat"])
    hidden = hidden_features(m, m.placements)
    assert hidden.hidden_studs == 8
    culled, _ = visible_mesh(m, hidden=hidden, far=True)
    whole, lines = visible_mesh(m, far=True)
    ft, _, _ = feature_arrays(far_part(m, "3001.dat"))
    dropped = sum(int((ft == s).sum()) for s in np.flatnonzero(hidden.studs[0]))
    dropped += sum(int((ft == -2 - t).sum()) for t in np.flatnonzero(hidden.tubes[1]))
    assert dropped > 0
    assert len(whole.vertices) // 3 - len(culled.vertices) // 3 == dropped
    assert len(lines.edges) == 0


def test_a_far_part_is_made_once_and_read_back_from_the_part_cache(tmp_path, ldrawdir,
                                                                    monkeypatch):
    """A library part's far mesh goes to the part cache on disk: a new library (a new
    process) reads it back, the same arrays, without decimating again."""
    import sandbox.bricks.lod as lod

    m = _model(tmp_path, ldrawdir, ["1 15 0 0 0 1 0 0 0 1 0 0 0 1 4493c01.dat"])
    first = far_part(m, "4493c01.dat")
    m2 = load_model(tmp_path / "m.ldr", ldrawdir=ldrawdir)
    m2.library.__dict__.pop("_far_parts", None)  # as a new process: only the disk has it

    def refuse(*args, **kwargs):
        raise AssertionError("decimated again")

    monkeypatch.setattr(lod, "make_far", refuse)
    again = far_part(m2, "4493c01.dat")
    assert again is not first
    assert np.array_equal(again.triangles, first.triangles)
    assert np.array_equal(again.colours, first.colours)
    assert np.array_equal(feature_arrays(again)[0], feature_arrays(first)[0])


def test_a_part_whose_winding_is_unknown_is_not_decimated(tmp_path, ldrawdir):
    """Decimation needs the winding: a part file without BFC certification keeps all its body
    triangles (drawn two-sided as near)."""
    rows = []
    for i in range(20):
        for j in range(20):
            x0, z0 = i * 2, j * 2
            rows.append(f"4 16 {x0} 0 {z0} {x0 + 2} 0 {z0} {x0 + 2} 0 {z0 + 2} {x0} 0 {z0 + 2}")
    (tmp_path / "sheet.dat").write_text("0 a flat sheet\n0 Name: sheet.dat\n" + "\n".join(rows)
                                        + "\n")
    m = _model(tmp_path, ldrawdir, ["1 4 0 0 0 1 0 0 0 1 0 0 0 1 sheet.dat"])
    pm = m.parts["sheet.dat"]
    assert len(pm.triangles) == 800 and not pm.certified.any()
    far = make_far(pm)
    assert len(far.triangles) == 800
    # the same sheet certified: flat, so it collapses to FAR_KEEP of its triangles, its area
    # (and border) the same
    (tmp_path / "sheet2.dat").write_text("0 a flat sheet\n0 Name: sheet2.dat\n0 BFC CERTIFY CCW\n"
                                         + "\n".join(rows) + "\n")
    m2 = _model(tmp_path, ldrawdir, ["1 4 0 0 0 1 0 0 0 1 0 0 0 1 sheet2.dat"], "m2.ldr")
    far2 = make_far(m2.parts["sheet2.dat"])
    assert len(far2.triangles) <= FAR_KEEP * 800
    assert abs(_area(far2.triangles) - 40.0 * 40.0) < 1e-6 * 1600


@pytest.mark.window
def test_the_window_draws_the_far_level_only_from_afar(window_display, monkeypatch):
    """The gatehouse scene in a window with the far level on (as on software GL by default):
    at the table's framing its bodies draw their far meshes, a picture that looks like the
    near one (a small difference, not none); with the camera close they draw the near mesh,
    the picture of the near level pixel for pixel."""
    from panda3d.core import LODNode

    from sandbox.app.table.app import TabletopApp
    from sandbox.engine.game import open_game

    monkeypatch.setenv("SANDBOX_FAR", "on")
    app = TabletopApp(open_game(REPO / "scenes" / "big_drop_kings_castle.toml"), 640, 360)
    try:
        if app.show_edges:  # the faces compared (the far level has no lines: a haze from afar)
            app.toggle_edges()
        app.step(3)
        lods = [n.node() for n in app._nodes.values() if isinstance(n.node(), LODNode)]
        assert lods, "no body has a far level"
        assert app.far_switch is not None and app.rig.distance > app.far_switch

        def pictures():
            auto = app.frame_array()[..., :3].astype(float)
            for lod in lods:
                lod.force_switch(0)
            app.step(2)
            near = app.frame_array()[..., :3].astype(float)
            for lod in lods:
                lod.clear_force_switch()
            app.step(2)
            return auto, near

        auto, near = pictures()
        rms = float(np.sqrt(np.mean((auto - near) ** 2)))
        # measured 4.4: the baseplates' studs, 2-3 pixels a pitch here, alias differently
        # at 4 and 8 segments (looked at); the castle's walls, minifigs and flags alike
        assert 0.05 < rms < 6.0, rms
        app.rig.distance = 0.5 * app.far_switch
        app.step(3)
        auto, near = pictures()
        assert np.array_equal(auto, near)
    finally:
        app.destroy()
