"""The battle report as one HTML page (with the 3D viewer inlined) and as Markdown.

The HTML is self-contained: its CSS, the viewer's script, three.js (through an import map of
``data:`` URLs, since browsers refuse ES modules from ``file://``) and the animated glTF
(base64) are inside it; only the pictures are files beside it, as they are for the Markdown.
All text from the replay is escaped.
"""

from __future__ import annotations

import base64
import html
import json
import re
from dataclasses import dataclass, field
from importlib import resources

from ..engine.replay_index import DramaticMoment
from .pictures import Picture
from .story import Casualty, LogLine, TurnStory

#: three.js files the viewer imports, by import-map name (shipped in ``static/three``).
THREE_MODULES: dict[str, str] = {
    "three": "three.module.min.js",
    "three/addons/loaders/GLTFLoader.js": "GLTFLoader.js",
    "three/addons/controls/OrbitControls.js": "OrbitControls.js",
    "three/addons/utils/BufferGeometryUtils.js": "BufferGeometryUtils.js",
}
#: Playback speeds offered, simulated seconds per second (the first one is the default).
SPEEDS: tuple[float, ...] = (0.25, 0.1, 0.5, 1.0, 2.0)


@dataclass
class ReportData:
    """Everything one report shows (built by :func:`sandbox.report.build.build_report`)."""

    title: str
    description: str
    scene_name: str
    seed: int
    players: list[str]
    duration_s: float
    turns: list[TurnStory]
    moments: list[tuple[DramaticMoment, Picture | None]]
    maps: dict[int, Picture]
    casualties: list[Casualty]
    broken: list[str]
    outcome: str | None
    glb: bytes | None
    glb_name: str | None
    start_s: float = 0.0
    finished: bool = True
    notes: list[str] = field(default_factory=list)


def _static(name: str) -> str:
    return resources.files("sandbox.report").joinpath("static", name).read_text("utf-8")


def import_map() -> str:
    """The page's import map: every three.js module as a ``data:`` URL (GLTFLoader's relative
    import of BufferGeometryUtils becomes a bare name the map resolves)."""
    imports = {}
    for name, file in THREE_MODULES.items():
        src = _static(f"three/{file}")
        src = src.replace("from '../utils/BufferGeometryUtils.js'",
                          "from 'three/addons/utils/BufferGeometryUtils.js'")
        imports[name] = ("data:text/javascript;base64,"
                         + base64.b64encode(src.encode("utf-8")).decode("ascii"))
    return json.dumps({"imports": imports}, indent=1)


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _t(seconds: float) -> str:
    return f"{seconds:.2f}"


def _line_html(line: LogLine) -> str:
    cls = {"roll": "roll", "player": "player"}.get(line.kind, "event")
    attrs = f'class="{cls} ev-{_e(line.type)}" data-t="{line.time:.6f}"'
    if line.kind == "roll":
        attrs += f' data-rolls="{" ".join(map(str, line.events))}"'
    else:
        attrs += f' data-events="{" ".join(map(str, line.events))}"'
    body = _e(line.text)
    if line.kind == "roll":
        body = '<span class="dice">DICE</span>' + body
    if line.folded:
        inner = "".join(f"<li>{_e(t)}</li>" for t in line.folded)
        body = f"<details><summary>{body}</summary><ul>{inner}</ul></details>"
    return f'<li {attrs}><time>{_t(line.time)} s</time>{body}</li>'


def _live_line_html(line: LogLine) -> str:
    dice = '<span class="dice">DICE</span>' if line.kind == "roll" else ""
    cls = {"roll": "roll", "player": "player"}.get(line.kind, "event")
    return (f'<li class="{cls}" data-t="{line.time:.6f}" data-seek="{line.time:.6f}">'
            f"<time>{_t(line.time)}</time>{dice}{_e(line.text)}</li>")


def html_page(d: ReportData) -> str:
    """The report as one HTML document (see the module docstring)."""
    out: list[str] = []
    w = out.append
    w("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
    w('<meta name="viewport" content="width=device-width, initial-scale=1">')
    w(f"<title>{_e(d.title)} — battle report</title>")
    w(f"<style>\n{_static('report.css')}\n</style>")
    if d.glb is not None:
        w(f'<script type="importmap">\n{import_map()}\n</script>')
    w("</head><body><main>")
    w(f"<header><h1>{_e(d.title)}</h1>")
    if d.description:
        w(f"<p>{_e(d.description)}</p>")
    played = [t for t in d.turns if t.turn > 0]
    meta = (f"Scene {_e(d.scene_name)} · seed {d.seed} · {len(played)} turn(s) · "
            f"{d.duration_s:.2f} s of simulated time")
    if d.players:
        meta += " · players: " + ", ".join(_e(p) for p in d.players)
    w(f'<p class="meta">{meta}</p></header>')

    w('<section id="outcome"><h2>Outcome</h2>')
    w(f'<p class="outcome">{_e(d.outcome) if d.outcome else "No outcome recorded."}</p>')
    if not d.finished:
        w('<p class="muted">The game was saved before its end.</p>')
    for note in d.notes:
        w(f'<p class="muted">{_e(note)}</p>')
    w("</section>")

    if d.glb is not None:
        w('<section id="viewer-section"><h2>The battle in 3D</h2>')
        w(f'<div id="viewer" data-start="{d.start_s:.6f}" data-duration="{d.duration_s:.6f}">')
        w('<div><div id="stage"><canvas id="view3d"></canvas>'
          '<div id="viewer-status">Loading the 3D view…</div></div>')
        w('<div id="controls"><button id="play" type="button" aria-pressed="false">Play'
          '</button><input id="scrub" type="range" min="0" max="1" step="any" value="0" '
          'aria-label="time"><output id="clock">0.00 s</output>'
          '<select id="speed" aria-label="speed">'
          + "".join(f'<option value="{s:g}">{s:g}×</option>' for s in SPEEDS)
          + "</select></div>")
        w('<p class="muted">Drag to turn the table, scroll to zoom; click a line of the log '
          'to see it.</p></div>')
        w('<ol id="live-log">')
        for t in d.turns:
            for line in t.lines:
                w(_live_line_html(line))
        w("</ol></div></section>")

    if d.moments:
        w('<section id="moments"><h2>Moments</h2><div class="moments">')
        for n, (m, pic) in enumerate(d.moments, start=1):
            w(f'<figure class="moment" id="moment-{n}" data-t="{m.time:.6f}">')
            if pic is not None:
                w(f'<img src="{_e(pic.name)}" alt="{_e(m.text)}" loading="lazy" width="800" '
                  'height="450">')
            w(f'<figcaption><span class="kind">{_e(m.kind)}</span>'
              f"<time>turn {m.turn} · {_t(m.time)} s</time>{_e(m.text)} "
              f'<a class="seek" href="#t={m.time:.3f}" data-seek="{m.time:.6f}">&#9654; 3D</a>'
              "</figcaption></figure>")
        w("</div></section>")

    w('<section id="turns"><h2>Turn by turn</h2>')
    for t in d.turns:
        w(f'<section class="turn" id="turn-{t.turn}"><h3>{_e(t.title)} '
          f'<a class="seek" href="#t={t.start_s:.3f}" data-seek="{t.start_s:.6f}">'
          f"&#9654; {_t(t.start_s)} s</a></h3>")
        w('<ol class="log">')
        for line in t.lines:
            w(_line_html(line))
        if not t.lines:
            w('<li class="muted">Nothing happened.</li>')
        w("</ol>")
        pic = d.maps.get(t.turn)
        if pic is not None:
            w(f'<img class="map" src="{_e(pic.name)}" alt="Map at the end of {_e(t.title)}" '
              'loading="lazy">')
        else:
            w("<div></div>")
        w("</section>")
    w("</section>")

    w('<section id="casualties"><h2>Casualties</h2>')
    if d.casualties:
        w("<table><thead><tr><th>Body</th><th>Owner</th><th>Status</th><th>Turn</th>"
          "<th>Cause</th></tr></thead><tbody>")
        for c in d.casualties:
            cls = ' class="destroyed"' if c.status == "destroyed" else ""
            w(f"<tr><td>{_e(c.name)}</td><td>{_e(c.owner)}</td><td{cls}>{_e(c.status)}</td>"
              f"<td>{'' if c.turn is None else c.turn}</td><td>{_e(c.cause)}</td></tr>")
        w("</tbody></table>")
    else:
        w("<p>No casualties.</p>")
    if d.broken:
        w("<ul>" + "".join(f"<li>{_e(b)}</li>" for b in d.broken) + "</ul>")
    w("</section>")
    w('<footer>Written by <code>sandbox report</code> (brikwars-sandbox). 3D view: three.js '
      "r169, MIT licence.</footer></main>")
    if d.glb is not None:
        w('<script id="glb-data" type="application/octet-stream">')
        w(base64.b64encode(d.glb).decode("ascii"))
        w("</script>")
        w(f'<script type="module">\n{_static("viewer.js")}\n</script>')
    w("</body></html>\n")
    return "\n".join(out)


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def _md(text) -> str:
    return _MD_SPECIAL.sub(r"\\\1", str(text))


def markdown_page(d: ReportData) -> str:
    """The report as Markdown for forums (pictures referenced beside it)."""
    out: list[str] = []
    w = out.append
    w(f"# {_md(d.title)}: battle report\n")
    if d.description:
        w(f"{_md(d.description)}\n")
    played = [t for t in d.turns if t.turn > 0]
    w(f"*Scene {_md(d.scene_name)}, seed {d.seed}, {len(played)} turn(s), "
      f"{d.duration_s:.2f} s of simulated time"
      + (f"; players: {', '.join(_md(p) for p in d.players)}" if d.players else "") + ".*\n")
    w("## Outcome\n")
    w(f"**{_md(d.outcome)}**\n" if d.outcome else "No outcome recorded.\n")
    if d.moments:
        w("## Moments\n")
        for n, (m, pic) in enumerate(d.moments, start=1):
            w(f"### {n}. {m.kind.capitalize()}: turn {m.turn}, {_t(m.time)} s\n")
            if pic is not None:
                w(f"![{_md(m.text)}]({pic.name})\n")
            w(f"{_md(m.text)}\n")
    w("## Turn by turn\n")
    for t in d.turns:
        w(f"### {_md(t.title)}\n")
        pic = d.maps.get(t.turn)
        if pic is not None:
            w(f"![Map at the end of {_md(t.title)}]({pic.name})\n")
        for line in t.lines:
            text = _md(line.text)
            if line.kind == "player":
                w(f"- `{_t(line.time)} s` **{text}**")
            elif line.kind == "roll":
                w(f"- `{_t(line.time)} s` \U0001F3B2 {text}")
            else:
                w(f"- `{_t(line.time)} s` {text}")
        if not t.lines:
            w("- Nothing happened.")
        w("")
    w("## Casualties\n")
    if d.casualties:
        w("| Body | Owner | Status | Turn | Cause |")
        w("|---|---|---|---|---|")
        for c in d.casualties:
            w(f"| {_md(c.name)} | {_md(c.owner)} | {_md(c.status)} | "
              f"{'' if c.turn is None else c.turn} | {_md(c.cause)} |")
        w("")
    else:
        w("No casualties.\n")
    for b in d.broken:
        w(f"- {_md(b)}")
    w("\n*Written by `sandbox report` (brikwars-sandbox).*\n")
    return "\n".join(out)
