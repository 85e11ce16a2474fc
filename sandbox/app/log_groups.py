"""Log lines grouped per body: a wall that breaks into dozens of parts is one line per kind of
thing that happened to its parts, not one line per part (issue 31 item 7).

A run of consecutive events about the parts and pieces of broken bodies (keys ``wall~3`` for a
loose part, ``wall#2`` for a piece, as :mod:`sandbox.engine.game` names them) becomes, per body
and event type, in the order they first happen:

- ``knockback``: "blast wall: 33 parts thrown 2–3\\"";
- ``impact``: "blast wall: 150 impacts among its parts, up to 24.6 in/s";
- ``piece``: "blast wall: 3 pieces (1 loose, 2 nailed down)".

A single event of a kind stays as it is. The grouped event keeps the first one's type and time
(so the log's filters and the replay's clock treat it like its members) and carries
``grouped`` (how many) and ``keys`` (the parts' keys). Pure functions: the window's log column
and the replay viewer's log both use :func:`group_events`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: A part or piece of a broken body: ``<body>~<n>`` (a loose part), ``<body>#<n>`` (a piece).
PART_KEY = re.compile(r"^(?P<root>[^~#]+)[~#]\d+$")
#: A part's or piece's name: "blast wall part 1 (3001.dat)", "blast wall (piece of 30 parts)".
_PART_NAME = re.compile(r"^(?P<name>.+?) (?:part \d+\b|\(piece of \d+ parts?\))")
#: Event types grouped per body.
GROUPED_TYPES = frozenset({"knockback", "impact", "piece"})


def part_root(key: object) -> str | None:
    """The body a part or piece key belongs to (``"wall~3"`` → ``"wall"``), else None."""
    m = PART_KEY.match(key) if isinstance(key, str) else None
    return m.group("root") if m else None


def _subject(e: dict) -> str | None:
    """The part an event is about (an impact: either body that is a part), else None."""
    if e.get("type") not in GROUPED_TYPES:
        return None
    if e["type"] == "impact":
        for k in ("body_a", "body_b"):
            if part_root(e.get(k)) is not None:
                return e[k]
        return None
    return e.get("body") if part_root(e.get("body")) is not None else None


def _root_name(events: list[dict], root: str, names: dict[str, str] | None) -> str:
    if names and root in names:
        return names[root]
    for e in events:
        m = _PART_NAME.match(str(e.get("text", "")))
        if m:
            return m.group("name")
    return root


def _inches(values: Iterable[float]) -> str:
    vs = sorted(float(v) for v in values)
    lo, hi = vs[0], vs[-1]
    return f'{lo:g}"' if lo == hi else f'{lo:g}–{hi:g}"'


def _merged(kind: str, root: str, members: list[dict], names: dict[str, str] | None) -> dict:
    name = _root_name(members, root, names)
    n = len(members)
    if kind == "knockback":
        text = f"{name}: {n} parts thrown {_inches(e.get('inches', 0) for e in members)}"
    elif kind == "impact":
        top = max(float(e.get("normal_speed", 0.0)) for e in members)
        text = f"{name}: {n} impacts of its parts, up to {top:.1f} in/s"
    else:
        loose = sum(1 for e in members if not e.get("nailed"))
        text = (f"{name}: {n} pieces ({loose} loose, {n - loose} nailed down)")
    return {**members[0], "text": text, "grouped": n,
            "keys": [_subject(e) for e in members], "body": root}


def group_events(events: list[dict], names: dict[str, str] | None = None) -> list[dict]:
    """``events`` with each run of events about broken bodies' parts grouped per body and
    type (see the module notes); every other event passes unchanged, in order. ``names``:
    body key → name, for the grouped lines (default: read from the parts' own names)."""
    out: list[dict] = []
    run: list[dict] = []

    def flush() -> None:
        groups: dict[tuple[str, str], list[dict]] = {}
        for e in run:
            groups.setdefault((e["type"], part_root(_subject(e)) or ""), []).append(e)
        for (kind, root), members in groups.items():
            out.extend(members if len(members) == 1 else [_merged(kind, root, members, names)])
        run.clear()

    for e in events:
        if _subject(e) is not None:
            run.append(e)
            continue
        if run:
            flush()
        out.append(e)
    if run:
        flush()
    return out
