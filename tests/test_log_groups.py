"""The log grouped per body (issue 31 item 7): the wall demolition's parts are a few lines, not
one line per part, and every other line passes unchanged."""

from __future__ import annotations

import pytest
from conftest import REPO

from sandbox.app.log_groups import group_events, part_root


def test_part_roots():
    assert part_root("wall~12") == "wall" and part_root("wall#2") == "wall"
    assert part_root("wall") is None and part_root("guard1") is None and part_root(None) is None


@pytest.fixture(scope="module")
def demolition():
    from sandbox.engine.game import open_game

    g = open_game(REPO / "scenes" / "wall_demolition.toml")
    g.run()
    yield g
    g.close()


def test_the_wall_demolition_is_a_few_lines(demolition):
    events = demolition.events
    parts = [e for e in events if e["type"] == "knockback" and part_root(e["body"])]
    assert len(parts) >= 20
    grouped = group_events(events)
    kb = [e for e in grouped if e["type"] == "knockback" and e.get("grouped")]
    assert kb and kb[0]["text"].startswith("blast wall: ")
    lo = min(e["inches"] for e in parts if e["body"] in kb[0]["keys"])
    hi = max(e["inches"] for e in parts if e["body"] in kb[0]["keys"])
    assert f'parts thrown {lo:g}–{hi:g}"' in kb[0]["text"] or lo == hi
    assert sum(e["grouped"] for e in kb) + sum(
        1 for e in grouped if e["type"] == "knockback" and not e.get("grouped")
        and part_root(e["body"])) == len(parts)  # every part counted once
    impacts = [e for e in grouped if e["type"] == "impact" and e.get("grouped")]
    assert impacts and "impacts of its parts, up to" in impacts[0]["text"]
    assert len(grouped) < len(events) / 3
    # the lines that are not about parts are all there, in order
    plain = [e for e in events if not (e["type"] in ("knockback", "impact", "piece")
                                       and ("~" in str(e.get("body", e.get("body_a")))
                                            or "#" in str(e.get("body", e.get("body_a")))
                                            or "~" in str(e.get("body_b"))
                                            or "#" in str(e.get("body_b"))))]
    assert [e for e in grouped if not e.get("grouped") and e in plain] == plain
    pieces = [e for e in grouped if e["type"] == "piece"]
    assert len(pieces) == 1 and pieces[0]["text"] == "blast wall: 3 pieces (1 loose, " \
        "2 nailed down)"
