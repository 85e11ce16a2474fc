"""The reader on every real model in ../shared/ldraw/models (LDraw users' files).

Counts are checked against hard numbers and against an independent, deliberately naive
counter (a regex walk over the MPD text, no library, no shared code with the reader).
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from sandbox.bricks import load_model, model_info, model_mesh, placement_boxes

pytestmark = pytest.mark.ldraw


def _shared_ldraw() -> Path:
    env = os.environ.get("LDRAWDIR")
    return Path(env) if env else Path(__file__).parents[1].parent / "shared" / "ldraw"


@pytest.fixture(scope="module")
def ldraw_dir() -> Path:
    path = _shared_ldraw()
    if not (path / "parts").is_dir():
        pytest.skip(f"LDraw library not found at {path} (set LDRAWDIR)")
    return path


MODELS = sorted(p.name for p in (_shared_ldraw() / "models").glob("*")) or ["<none>"]

#: file: (placements, distinct parts, submodels = embedded model files other than the main one)
EXPECTED = {
    "6080 - Kings Castle.mpd": (761, 88, 62),
    "20009-1 - AT-TE Walker - Mini.mpd": (100, 39, 17),
    "8002 - Destroyer Droid.mpd": (3864, 62, 39),
    "car.ldr": (61, 26, 0),
    "heavily_nested.mpd": (1757, 4, 3),
    "pyramid.ldr": (13, 2, 0),
    "tractor.mpd": (20, 12, 5),
}


def naive_count(path: Path) -> tuple[int, int, int]:
    """Placements, distinct parts and embedded model files, by a regex walk of the text."""
    sections: dict[str, list[str]] = {}
    order: list[str] = []
    cur = None
    for line in path.read_text(encoding="latin-1").splitlines():
        m = re.match(r"\s*0\s+FILE\s+(.+?)\s*$", line, re.I)
        if m:
            cur = m.group(1).lower()
            sections[cur] = []
            order.append(cur)
            continue
        if re.match(r"\s*0\s+NOFILE", line, re.I):
            cur = None
            continue
        if cur is None and not sections:
            cur = "<main>"
            sections[cur] = []
            order.append(cur)
        if cur is not None:
            sections[cur].append(line)
    is_part = {k: any(re.match(r"0\s+!LDRAW_ORG\s+\S*(part|primitive)", s, re.I) for s in v)
               for k, v in sections.items()}
    counts: Counter = Counter()

    def walk(name: str) -> None:
        for line in sections[name]:
            tok = line.split(None, 14)
            if len(tok) == 15 and tok[0] == "1":
                ref = tok[14].strip().lower().replace("\\", "/")
                ref_key = ref if ref in sections else tok[14].strip().lower()
                if ref_key in sections and not is_part[ref_key]:
                    walk(ref_key)
                else:
                    counts[ref] += 1

    walk(order[0])
    models = [k for k in order[1:] if not is_part[k]]
    return sum(counts.values()), len(counts), len(models)


@pytest.mark.parametrize("name", MODELS)
def test_model_counts(ldraw_dir, name):
    path = ldraw_dir / "models" / name
    m = load_model(path, ldraw_dir)
    info = model_info(m)
    got = (info["parts"], info["distinct_parts"], info["submodels"])
    assert got == naive_count(path)
    if name in EXPECTED:
        assert got == EXPECTED[name]
    assert info["missing_parts"] == 0
    # only "never used" notes are expected with the full subset library
    assert all("never used" in w for w in info["warnings"]), info["warnings"][:5]
    lo, hi = np.array(info["bbox_in"])
    assert np.all(hi > lo)


def test_kings_castle_details_and_speed(ldraw_dir):
    path = ldraw_dir / "models" / "6080 - Kings Castle.mpd"
    t0 = time.perf_counter()
    m = load_model(path, ldraw_dir)
    mesh = model_mesh(m)
    elapsed = time.perf_counter() - t0
    assert elapsed < 10.0  # ~1 s on 2 cores; generous for slow CI
    assert m.unused_submodels == ("back_left_panels_upper2.ldr",)
    assert len(m.submodels) == 62 and m.name == "6080 - Kings Castle"
    assert mesh.vertices.dtype == np.float32 and len(mesh.vertices) % 3 == 0
    assert mesh.vertices.shape == mesh.normals.shape and mesh.colours.shape[1] == 4
    np.testing.assert_allclose(np.linalg.norm(mesh.normals, axis=1), 1.0, atol=1e-3)
    # the world bbox of the mesh agrees with model_info's
    info = model_info(m)
    np.testing.assert_allclose(mesh.vertices.min(axis=0), info["bbox_in"][0], atol=1e-3)
    np.testing.assert_allclose(mesh.vertices.max(axis=0), info["bbox_in"][1], atol=1e-3)
    # the castle stands on the ground (LDraw y = 0 at the base plates): Z up, near 0
    assert -0.5 < info["bbox_in"][0][2] < 0.1 and info["bbox_in"][1][2] > 5.0


def test_droid_embedded_unofficial_parts_are_parts(ldraw_dir):
    m = load_model(ldraw_dir / "models" / "8002 - Destroyer Droid.mpd", ldraw_dir)
    embedded = {n for n, pm in m.parts.items() if pm.source == "embedded"}
    assert embedded and all(n.startswith("8002 - ") for n in embedded)
    assert not any(s.endswith(".dat") for s in m.submodels)


def test_placements_have_source_lines(ldraw_dir):
    path = ldraw_dir / "models" / "tractor.mpd"
    m = load_model(path, ldraw_dir)
    lines = path.read_text().splitlines()
    for p in m.placements:
        toks = lines[p.line - 1].split(None, 14)
        assert toks[0] == "1"
        ref = toks[14].strip().lower()
        if ref != p.part:  # a "~Moved to" alias was followed (6014.dat -> 6014a.dat)
            assert m.library.read(ref).redirect.key == p.part


def test_boxes_match_part_sizes(ldraw_dir):
    m = load_model(ldraw_dir / "models" / "pyramid.ldr", ldraw_dir)
    boxes = placement_boxes(m)
    assert len(boxes) == len(m.placements)
    for p, b in zip(m.placements, boxes, strict=True):
        assert np.isclose(np.linalg.det(b.rotation), 1.0)
        if p.part == "3001.dat":  # body only: 80 x 40 x 24 LDU
            np.testing.assert_allclose(sorted(2 * b.half_extents),
                                       sorted(np.array([80, 40, 24]) / 63.5), atol=1e-9)


def test_ldrawdir_env_var_is_used(ldraw_dir, monkeypatch):
    monkeypatch.setenv("LDRAWDIR", str(ldraw_dir))
    m = load_model(ldraw_dir / "models" / "car.ldr")
    assert m.library is not None and not any(p.missing for p in m.placements)
    sub = model_mesh(m, m.placements[:2])
    assert set(sub.placement_index.tolist()) == {0, 1}
