"""Which studs and tubes a creation hides, kept on disk between runs (issue 26: the main job's
picture culls a model's hidden studs without casting its rays again).

:func:`~sandbox.bricks.visible.hidden_features` casts rays through every part that another
part closes from below: a guard tower's 130 parts take about 0.1 s, every run, for the same
answer. :func:`cached` (called by :func:`~sandbox.bricks.visible.cached_hidden_features`)
gives the same flags (the same arrays, bit for bit) from the part cache's folder
(:mod:`sandbox.bricks.partcache`) when a run before made them, and computes and stores them
otherwise. This module imports nothing of ``visible.py``: the answer is computed by the
function its caller passes.

Key. The entry's name is the SHA-256 of the code that decides what is hidden (the source of
``visible.py``, ``connectivity.py``, ``mesh.py``, ``partmesh.py``, ``model.py``,
``core/units.py`` and this module) and of what the answer is computed from, **by content**:
for each placement in order, its part's geometry (the SHA-256 of the arrays the test reads:
triangles and their stud/tube tags, studs, stud axes, tubes, bounds; made once a process per
part mesh), its 4 x 4 matrix (float64 bytes) and whether its colour is opaque. A changed part
file, a changed subfile, another colour table that makes a colour translucent, a moved or
recoloured part: each gives another key, so a stale answer is never read. Nothing else
(the library's path, a file's modification time) is in the key, so identical creations in
different files share an entry.

An entry is an ``.npz`` (read with ``allow_pickle=False``) of three bool arrays, the
placements' stud flags and tube flags concatenated and the ``closed`` flags; one that cannot
be read, or whose arrays are not exactly the lengths the parts give (a truncated or foreign
file), is logged, removed and computed again. An entry edited on purpose with flags of the
right lengths is not detected (like every cache, this one trusts the user's own folder; the
flags only decide which studs are drawn, never the game). With the cache off
(``SANDBOX_PART_CACHE=off``) the answer is computed every time.
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

import sandbox.bricks.partcache as partcache
from sandbox.bricks.model import Model, PartPlacement
from sandbox.bricks.partmesh import PartMesh, feature_arrays

#: Bumped when the entry layout or the key changes.
FORMAT = 1
_ARRAYS = frozenset(("studs", "tubes", "closed"))
#: Fewer placements than this are computed, not looked up (nothing hides anything in one
#: part; a few parts take less time than a file read).
MIN_PLACEMENTS = 2

_LOCK = threading.Lock()
_PART_DIGESTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_CODE: list[str] = []


def _code_fingerprint() -> str:
    """SHA-256 (hex) over the source of the modules whose code decides what is hidden."""
    if not _CODE:
        h = hashlib.sha256(f"hidden features {FORMAT}".encode())
        here = Path(__file__).resolve().parent
        for path in (here / "visible.py", here / "connectivity.py", here / "mesh.py",
                     here / "partmesh.py", here / "model.py", here.parent / "core" / "units.py",
                     here / "hiddencache.py"):
            try:
                h.update(path.read_bytes())
            except OSError:  # not installed as source: never share entries across builds
                h.update(np.random.default_rng().bytes(16))
        _CODE.append(h.hexdigest())
    return _CODE[0]


def part_digest(pm: PartMesh) -> bytes:
    """SHA-256 (32 bytes) of the part geometry the hidden test reads (see the module text);
    made once per part mesh in a process."""
    with _LOCK:
        got = _PART_DIGESTS.get(pm)
    if got is None:
        h = hashlib.sha256()
        for a in (pm.triangles, feature_arrays(pm)[0], pm.studs, pm.stud_axes, pm.tubes,
                  pm.bounds):
            a = np.ascontiguousarray(a)
            h.update(f"{a.dtype.str}{a.shape}".encode())
            h.update(a.tobytes())
        got = h.digest()
        with _LOCK:
            _PART_DIGESTS[pm] = got
    return got


def entry_key(model: Model, placements: Sequence[PartPlacement],
              opaque: Sequence[bool]) -> str:
    """The cache entry's name for the hidden features of ``placements`` of ``model``, whose
    colours are ``opaque`` (one flag a placement), hex."""
    h = hashlib.sha256(_code_fingerprint().encode())
    for p, solid in zip(placements, opaque, strict=True):
        h.update(part_digest(model.parts[p.part]))
        h.update(np.ascontiguousarray(p.matrix, dtype=np.float64).tobytes())
        h.update(b"\1" if solid else b"\0")
    return partcache.entry_key("hidden features", h.hexdigest())


Flags = tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...], np.ndarray]


def cached(model: Model, placements: Sequence[PartPlacement], opaque: Sequence[bool],
           compute: Callable[[], Flags]) -> Flags:
    """The hidden-feature flags of ``placements`` (:class:`~sandbox.bricks.visible.Hidden`'s
    ``studs``, ``tubes`` and ``closed``), read from the disk cache when a run before stored
    them, else ``compute()`` (what :func:`sandbox.bricks.visible.hidden_features` gives),
    stored. The same arrays, bit for bit, either way.

    Parameters
    ----------
    model : Model
    placements : sequence of PartPlacement
    opaque : sequence of bool
        Per placement: its colour is opaque (part of the key: a translucent part hides
        nothing).
    compute : callable() -> (studs, tubes, closed)
        Per placement (k_i,) and (j_i,) bool arrays, and the (n,) bool ``closed``.
    """
    pls = list(placements)
    if len(pls) < MIN_PLACEMENTS or partcache.cache_dir() is None:
        return compute()
    key = entry_key(model, pls, opaque)
    n_studs = [len(model.parts[p.part].studs) for p in pls]
    n_tubes = [len(model.parts[p.part].tubes) for p in pls]
    what = f"the hidden studs of {len(pls)} placements"
    got = partcache.load_arrays(key, _ARRAYS, what)
    if got is not None:
        arrays, header = got
        shapes = {"studs": (sum(n_studs),), "tubes": (sum(n_tubes),), "closed": (len(pls),)}
        bad = [name for name, shape in shapes.items()
               if arrays[name].dtype != np.bool_ or arrays[name].shape != shape]
        if not bad and header.get("kind") == "hidden features":
            return (tuple(np.split(arrays["studs"].copy(), np.cumsum(n_studs)[:-1])),
                    tuple(np.split(arrays["tubes"].copy(), np.cumsum(n_tubes)[:-1])),
                    arrays["closed"].copy())
        partcache.discard(key, what, f"{', '.join(bad) or 'header'} not as the parts give")
    studs, tubes, closed = compute()
    partcache.store_arrays(key, {
        "studs": np.concatenate([np.zeros(0, bool), *studs]).astype(bool),
        "tubes": np.concatenate([np.zeros(0, bool), *tubes]).astype(bool),
        "closed": np.asarray(closed, dtype=bool)}, {"kind": "hidden features"})
    return studs, tubes, closed


__all__ = ["FORMAT", "cached", "entry_key", "part_digest"]
