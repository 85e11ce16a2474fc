"""Write docs/SCENES.md, the reference of every scene field, from the scene's JSON Schema.

Usage: ``.venv/bin/python tools/scene_docs.py [--check]`` (``--check``: exit 1 when the
committed file differs from what it would write; ``tests/test_scene_schema.py`` checks the same).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sandbox.app.scene_schema import scene_docs_markdown
from sandbox.engine.replay import atomic_write_bytes

DOC = Path(__file__).resolve().parents[1] / "docs" / "SCENES.md"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only compare; exit 1 when stale")
    args = ap.parse_args()
    text = scene_docs_markdown()
    if args.check:
        current = DOC.read_text(encoding="utf-8") if DOC.is_file() else ""
        if current != text:
            print(f"{DOC} is out of date: run python tools/scene_docs.py", file=sys.stderr)
            return 1
        print(f"{DOC} is up to date")
        return 0
    atomic_write_bytes(DOC, text.encode("utf-8"))
    print(f"wrote {DOC} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
