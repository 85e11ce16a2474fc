"""Record (or check) what every shipped scene's script gives: the state hash, a digest of the
event log and the systems of the state, played with ``open_game(...).play_script()``.

The file it writes (``tests/data/scene_baseline.json``) pins the engine's behaviour across a
refactor: ``tests/test_scene_baseline.py`` checks every scene against it. Re-record it only for
a documented rule change::

    LDRAWDIR=../shared/ldraw .venv/bin/python tools/scene_baseline.py --write [scene.toml ...]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from sandbox.engine.game import open_game  # noqa: E402

BASELINE = REPO / "tests" / "data" / "scene_baseline.json"


def library(ldrawdir: str | Path | None = None) -> Path:
    """The LDraw library, as an absolute path: ``ldrawdir``, else ``$LDRAWDIR``, else
    ``../shared/ldraw`` beside the repository."""
    found = ldrawdir or os.environ.get("LDRAWDIR") or REPO.parent / "shared" / "ldraw"
    return Path(found).resolve()


def events_digest(events: list[dict], ldrawdir: Path) -> str:
    """SHA-256 of the event log as canonical JSON lines, the library's path (warnings name
    model files) written ``<LDRAWDIR>`` so the digest does not depend on where it lies."""
    h = hashlib.sha256()
    for ev in events:
        text = json.dumps(ev, sort_keys=True, separators=(",", ":"), default=str)
        h.update(text.replace(str(ldrawdir), "<LDRAWDIR>").encode())
        h.update(b"\n")
    return h.hexdigest()


def record(scene: Path, ldrawdir: str | Path | None = None) -> dict:
    """What ``scene``'s script gives: ``{"state_hash", "events", "n_events", "systems"}``."""
    lib = library(ldrawdir)
    game = open_game(scene, ldrawdir=lib)
    try:
        game.play_script()
        state = game.state_dict()
        return {"state_hash": game.state_hash(state), "events": events_digest(game.events, lib),
                "n_events": len(game.events), "systems": list(state["systems"])}
    finally:
        game.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenes", nargs="*", type=Path)
    ap.add_argument("--write", action="store_true", help="write the baseline file")
    ap.add_argument("--ldrawdir", default=None)
    args = ap.parse_args(argv)
    scenes = args.scenes or sorted((REPO / "scenes").glob("*.toml"))
    old = json.loads(BASELINE.read_text()) if BASELINE.exists() else {}
    new = dict(old)
    bad = 0
    for scene in scenes:
        got = record(scene, args.ldrawdir)
        want = old.get(scene.name)
        same = want == got
        bad += not same
        print(f"{scene.name}: {got['state_hash'][:12]} {got['n_events']} events "
              f"{'same' if same else ('NEW' if want is None else 'DIFFERENT')}", flush=True)
        new[scene.name] = got
    if args.write:
        BASELINE.write_text(json.dumps(dict(sorted(new.items())), indent=1) + "\n")
        return 0
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
