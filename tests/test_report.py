"""Battle reports (issue 30): the report of the rule book's Wall Demolition (BrikWars 8.4),
its dice explained in words, its moment pictures and maps, the animated glTF it embeds
(Khronos-validated, with animations), the page opened in headless Chromium and scrubbed to the
explosion, and the command line."""

from __future__ import annotations

import asyncio
import io
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO
from PIL import Image
from typer.testing import CliRunner

from sandbox.app.gltf_anim import animated_gltf, strictly_increasing
from sandbox.app.headless import run_scene
from sandbox.cli import app
from sandbox.engine.replay import load_replay
from sandbox.engine.replay_index import ReplayIndex
from sandbox.report import build_report, load_source, story
from sandbox.report import page as report_page
from sandbox.report.browser import HeadlessChromium, find_chromium

pytestmark = pytest.mark.ldraw
SCENE = REPO / "scenes" / "wall_demolition.toml"


# ====================================================================== fixtures
@pytest.fixture(scope="module")
def wall(ldrawdir, tmp_path_factory):
    """(replay path, replay, report result) of the Wall Demolition, reported with Markdown."""
    tmp = tmp_path_factory.mktemp("report")
    res = run_scene(SCENE, out_dir=tmp / "run", png=False, ldrawdir=ldrawdir)
    out = tmp / "report"
    out.mkdir()
    (out / "notes.txt").write_text("mine")  # a file of the user's: left alone
    (out / "moment-99.png").write_bytes(b"old")  # a picture of an older report: dropped
    report = build_report(res.replay_path, out, markdown=True, ldrawdir=ldrawdir)
    return res.replay_path, load_replay(res.replay_path), report


class _Page(HTMLParser):
    """The parts of index.html a test reads: log lines, figures, images, sections."""

    def __init__(self):
        super().__init__()
        self.items: list[dict] = []
        self.imgs: list[str] = []
        self.ids: set[str] = set()
        self.figures: list[dict] = []
        self._li: list[dict] = []
        self._fig: dict | None = None
        self.scripts: list[dict] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "li":
            self._li.append({**a, "text": ""})
        elif tag == "figure":
            self._fig = {**a, "imgs": []}
        elif tag == "img":
            self.imgs.append(a["src"])
            if self._fig is not None:
                self._fig["imgs"].append(a["src"])
        elif tag == "script":
            self.scripts.append(a)

    def handle_endtag(self, tag):
        if tag == "li" and self._li:
            self.items.append(self._li.pop())
        elif tag == "figure" and self._fig is not None:
            self.figures.append(self._fig)
            self._fig = None

    def handle_data(self, data):
        for li in self._li:
            li["text"] += data


def _page(report) -> _Page:
    p = _Page()
    p.feed(report.files["index.html"].read_text("utf-8"))
    return p


# ====================================================================== content
@pytest.mark.slow
def test_report_tells_every_turn_roll_and_moment(wall):
    _, rp, report = wall
    out = report.out
    page = _page(report)
    events = rp.events
    # every turn of the log has its section, its map and its player's line
    turns = sorted({int(e.get("turn", 0)) for e in events})
    assert turns == [0, 1] and report.turns == 1
    for t in turns:
        assert f"turn-{t}" in page.ids
        assert f"map-turn-{t}.png" in page.imgs and (out / f"map-turn-{t}.png").is_file()
    # every die is in exactly one roll line of the log (and once more in the viewer's log)
    rolls = [i for i, e in enumerate(events) if e["type"] == "roll"]
    assert len(rolls) == report.rolls >= 8  # the scene's dice (its log is pinned by the baseline)
    lines = [li for li in page.items if "data-rolls" in li and li.get("class", "").startswith(
        "roll ")]
    told = [int(i) for li in lines for i in li["data-rolls"].split()]
    assert sorted(told) == rolls
    for li in lines:
        first = events[int(li["data-rolls"].split()[0])]
        assert f"rolled {first['result']}" in li["text"] and first["reason"] in li["text"]
    texts = [" ".join(li["text"].split()) for li in lines]
    # the worked example's dice in words: the blast, the wall's Armor, the landings
    assert any("Explosion of Size 3\" Missile: 3d10 rolled 3 + 6 + 7 = 16 (forced) → 16 "
               "Damage within 2\", 9 Damage within 4\", 3 Damage within 6\"" in t for t in texts)
    assert any("Armor Roll of blast wall: 3d10 rolled 5 + 5 + 5 = 15 (forced): Armor 15; "
               "16 Damage within 2\": 32 of 32 part(s) destroyed; 9 Damage within 4\": they "
               "hold" in t for t in texts)
    assert any(t.endswith("Collision Damage to Private Reale: d6 rolled 4 (forced) against "
                          "Armor 4: holds") for t in texts)
    assert any("Armor Roll of the ground: d10 rolled 8 (forced): Armor 8 — The ground within "
               "4\" of the blast is destroyed" in t for t in texts)
    # every moment of the replay's own index has its picture, framed on it (not all alike)
    moments = ReplayIndex(rp).ranked()
    assert report.moments == len(moments) >= 5
    figs = [f for f in page.figures if f.get("class") == "moment"]
    assert len(figs) == len(moments)
    shots = {}
    for fig, m in zip(figs, moments, strict=True):
        assert abs(float(fig["data-t"]) - m.time) < 1e-5 and len(fig["imgs"]) == 1
        path = out / fig["imgs"][0]
        with Image.open(path) as im:
            assert im.size == (800, 450)
            arr = np.asarray(im.convert("RGB"), dtype=float)
        assert arr.std() > 20  # a picture, not a blank frame
        shots[fig["imgs"][0]] = arr
    assert len(shots) >= 5
    # casualties and outcome
    html = report.files["index.html"].read_text("utf-8")
    # the game's Outcome event (wall_demolition has no victory condition: truncated)
    outcome = [e for e in events if e["type"] == "outcome"][-1]
    assert "Outcome" in html and outcome["text"].removeprefix("Outcome: ")[:40] in html
    assert re.search(r"<td>Private Reale</td><td>Ministry of Truth</td><td>disrupted", html)
    assert "blast wall broke into 3 piece(s); 32 part(s) destroyed (turn 1)" in html
    assert "blast wall part 1 (3001.dat)" not in html.split('id="casualties"')[1]
    # the Markdown tells the same, with the same pictures beside it
    md = report.files["report.md"].read_text("utf-8")
    for src in set(page.imgs):
        assert f"]({src})" in md
    assert "Collision Damage to Private Reale: d6 rolled 4 (forced) against Armor 4: holds" in md
    assert md.count("\U0001F3B2") == len(lines)
    # the set was written as one: older report pictures gone, the user's file kept
    assert not (out / "moment-99.png").exists() and (out / "notes.txt").read_text() == "mine"
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".report")]


@pytest.mark.slow
def test_page_is_self_contained(wall):
    _, _, report = wall
    html = report.files["index.html"].read_text("utf-8")
    page = _page(report)
    # nothing fetched from a network: no http(s) URL in a src or href, scripts inlined
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    assert all("src" not in s for s in page.scripts)
    imports = json.loads(re.search(r'<script type="importmap">(.*?)</script>', html,
                                   re.S).group(1))["imports"]
    assert set(imports) == set(report_page.THREE_MODULES)
    assert all(v.startswith("data:text/javascript;base64,") for v in imports.values())
    # every picture the page shows is a file beside it
    for src in page.imgs:
        assert (report.out / src).is_file() and "/" not in src
    # the embedded model is the .glb written beside it
    b64 = re.search(r'<script id="glb-data" type="application/octet-stream">\s*(\S+)\s*'
                    r"</script>", html).group(1)
    import base64

    glb = next(p for p in report.files.values() if p.suffix == ".glb")
    assert base64.b64decode(b64) == glb.read_bytes()


def test_outcome_event_is_told():
    events = [{"type": "turn", "time": 0.0, "turn": 1, "text": "Turn 1", "player": "A"},
              {"type": "outcome", "time": 1.0, "turn": 1, "text": "A wins: B has no units",
               "winner": "A"}]
    assert story.outcome_text(events) == "A wins: B has no units"
    assert story.outcome_text(events[:1]) is None
    assert story.outcome_text([{"type": "outcome", "winner": "B"}]) == "Winner: B"
    d = report_page.ReportData("T", "", "T", 1, ["A", "B"], 1.0,
                               story.turn_stories(events, 1.0), [], {}, [], [],
                               story.outcome_text(events), None, None)
    html = report_page.html_page(d)
    assert '<p class="outcome">A wins: B has no units</p>' in html
    assert "importmap" not in html  # no model, no viewer


def test_dice_in_words_for_action_rolls_and_damage():
    """Escapade-style shooting (BrikWars 8.1/8.2): the Action Roll against Use, then the
    Damage roll against Armor, both rolled before either is told."""
    t = 1.45
    ev = [{"type": "roll", "time": t, "turn": 2, "stream": "attack", "sides": 6, "result": 5,
           "reason": "Pim's Bastard Gun: Action Roll vs Bert", "forced": False},
          {"type": "roll", "time": t, "turn": 2, "stream": "attack", "sides": 6, "result": 5,
           "reason": "Pim's Bastard Gun: Damage to Bert", "forced": False},
          {"type": "action_roll", "time": t, "turn": 2, "total": 5, "use": 3, "hit": True,
           "text": "Action Roll [5] +0 = 5 vs Use 3: hit (Bert)"},
          {"type": "damage", "time": t, "turn": 2, "damage": 6, "total": 6, "armor": 4,
           "destroyed": True, "text": "Bert takes 6 Damage"},
          {"type": "roll", "time": 2.0, "turn": 2, "stream": "tray", "sides": 6, "result": 2,
           "reason": "Tray", "forced": False},
          {"type": "tray", "time": 2.0, "turn": 2, "text": "the tray tips"}]
    groups = story.roll_groups(ev)
    assert groups == [[0], [1], [4]]
    said = [story.explain_rolls(ev, g) for g in groups]
    assert said[0] == "Pim's Bastard Gun: Action Roll vs Bert: d6 rolled 5 against Use 3: hit"
    assert said[1] == "Pim's Bastard Gun: Damage to Bert: d6 rolled 5 → 6 Damage against " \
                      "Armor 4: destroyed"
    assert said[2] == "Tray: d6 rolled 2 → the tray tips"
    lines = story.story_lines(ev)
    assert [ln.kind for ln in lines] == ["roll", "roll", "event", "event", "roll", "event"]


def test_malformed_event_fields_are_left_out_not_fatal():
    """A replay is an untrusted file: fields of the wrong type make the report tell less."""
    ev = [{"type": "roll", "time": 1.0, "turn": 1, "text": "x", "sides": "six",
           "result": float("nan"), "reason": ["not", "text"]},
          {"type": "damage", "time": 1.0, "turn": 1, "text": "y", "armor": None,
           "damage": "9", "destroyed": "yes", "body": 7},
          {"type": "explosion", "time": 1.0, "turn": 1, "text": "z", "point": "here",
           "rings": [1, "a", None, 2]},
          {"type": "end", "time": 2.0, "turn": 1, "text": "end", "states": [
              {"key": "a", "destroyed": True, "cumulative_damage": "lots"}, "junk"]},
          "not an event"]
    clean = story.sanitize(ev)
    assert len(clean) == 4 and "point" not in clean[2] and clean[2]["rings"] == [1.0, 2.0]
    assert "armor" not in clean[1] and "destroyed" not in clean[1] and "body" not in clean[1]
    lines = story.story_lines(clean)
    assert lines[0].kind == "roll" and "rolled 0" in lines[0].text
    assert [c.status for c in story.casualties(clean, {})] == ["destroyed"]


# ====================================================================== animated glTF
def _validate(path: Path) -> str:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("the Khronos validator needs node and npm")
    r = subprocess.run(["bash", str(REPO / "tools" / "validate_gltf.sh"), str(path)],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0 and "errors" not in r.stdout:
        pytest.skip(f"the Khronos validator could not be installed: {r.stderr[-300:]}")
    return r.stdout


@pytest.mark.slow
def test_animated_glb_validates_with_animations(wall, tmp_path):
    import pygltflib

    path, rp, report = wall
    glb = next(p for p in report.files.values() if p.suffix == ".glb")
    out = _validate(glb)
    assert re.search(r": 0 errors, 0 warnings, .* 1 animations", out), out
    g = pygltflib.GLTF2.load_binary(str(glb))
    blob = g.binary_blob()

    def read(acc_index: int) -> np.ndarray:
        acc = g.accessors[acc_index]
        view = g.bufferViews[acc.bufferView]
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[acc.type]
        a = np.frombuffer(blob, np.float32, acc.count * width,
                          view.byteOffset + (acc.byteOffset or 0))
        return a.reshape(acc.count, width) if width > 1 else a

    nodes = {n.extras.get("key"): i for i, n in enumerate(g.nodes) if n.extras}
    assert set(nodes) == set(rp.tracks)  # every body a node
    anim = g.animations[0]
    chans = {(c.target.node, c.target.path): anim.samplers[c.sampler] for c in anim.channels}
    t_break = next(e["time"] for e in rp.events if e["type"] == "break")
    times = rp.times()
    # the whole wall vanishes at the break; its pieces and parts appear there (STEP scale)
    wall_scale = chans[(nodes["wall"], "scale")]
    assert wall_scale.interpolation == "STEP"
    ts, sc = read(wall_scale.input), read(wall_scale.output)
    assert sc[0, 0] == 1.0 and sc[-1, 0] == 0.0
    assert abs(ts[list(sc[:, 0]).index(0.0)] - t_break) < 0.02
    for key in ("wall#1", "wall#2", "wall~89"):
        s = chans[(nodes[key], "scale")]
        ts, sc = read(s.input), read(s.output)
        assert sc[0, 0] == 0.0 and sc[-1, 0] == 1.0
        assert abs(ts[list(sc[:, 0]).index(1.0)] - t_break) < 0.02
    # a flying part: strictly increasing key times; its last key is its final recorded pose
    for key in ("wall#2", "reale"):
        tr = chans[(nodes[key], "translation")]
        ts, pos = read(tr.input), read(tr.output)
        assert np.all(np.diff(ts) > 0) and ts[-1] <= times[-1] + 1e-4
        assert np.allclose(pos[-1], rp.tracks[key].positions[-1], atol=1e-4)
        rot = read(chans[(nodes[key], "rotation")].output)
        assert np.allclose(np.linalg.norm(rot, axis=1), 1.0, atol=1e-5)
        q_end = np.asarray(rp.tracks[key].quats[-1])
        q_end /= np.linalg.norm(q_end)
        assert abs(abs(float(np.dot(rot[-1], q_end))) - 1.0) < 1e-5
        assert np.linalg.norm(pos[-1] - pos[0]) > 1.0  # it moved (thrown by the blast)
    # played back at every recorded frame, the animation shows the recorded poses: bodies at
    # rest hold still between keys, and each body is on the table exactly when it was
    tied = np.zeros(len(times), dtype=bool)
    tied[:-1] = np.diff(times) < 1e-6  # a frame followed by one at the same time
    for key, tr in rp.tracks.items():
        n = nodes[key]
        trans = chans.get((n, "translation"))
        scale = chans.get((n, "scale"))
        for f in range(rp.frames):
            if tied[f]:
                continue
            t = times[f]
            if trans is not None:
                ts, pos = read(trans.input), read(trans.output)
                got = [np.interp(t, ts, pos[:, i]) for i in range(3)]
                assert np.allclose(got, tr.pose_at(f)[0], atol=1e-3), (key, f)
            if scale is not None:
                ts, sc = read(scale.input), read(scale.output)
                shown = sc[max(int(np.searchsorted(ts, t + 1e-6, side="right")) - 1, 0), 0]
                assert shown == float(tr.exists_at(f)), (key, f)
            else:
                assert tr.exists_at(f), (key, f)


@pytest.mark.slow
def test_animated_export_cli_and_one_turn(wall, tmp_path, ldrawdir):
    path, rp, _ = wall
    out = tmp_path / "turn1.glb"
    res = CliRunner().invoke(app, ["export", str(path), "--gltf", str(out), "--animate",
                                   "--turn", "1", "--ldrawdir", str(ldrawdir)])
    assert res.exit_code == 0, res.output
    assert "keyframes" in res.output and out.stat().st_size > 100_000
    assert re.search(r": 0 errors, .* 1 animations", _validate(out))
    res = CliRunner().invoke(app, ["export", str(path), "--gltf", str(out), "--animate",
                                   "--turn", "7"])
    assert res.exit_code == 2 and "turn 7 is not in the replay" in res.output
    res = CliRunner().invoke(app, ["export", str(path), "--gltf", str(out), "--animate",
                                   "--moment", "1", "--ldrawdir", str(ldrawdir)])
    assert res.exit_code == 0, res.output
    m = ReplayIndex(rp).moment(1)
    assert f"(frames {m.start_frame}..{m.end_frame})" in res.output
    res = CliRunner().invoke(app, ["export", str(SCENE), "--gltf", str(out), "--animate"])
    assert res.exit_code == 2 and "--animate needs a replay" in res.output


def test_key_times_strictly_increase():
    t = strictly_increasing([0.0, 0.25, 0.25, 0.25, 0.5])
    assert np.all(np.diff(t) > 0) and t[3] == 0.25 and t[-1] == 0.5


@pytest.mark.slow
def test_animated_gltf_of_one_turn_starts_at_the_turn(wall, ldrawdir):
    from sandbox.engine.playback import replay_assets

    _, rp, _ = wall
    assets = replay_assets(rp, ldrawdir=ldrawdir)
    made = animated_gltf(rp, assets, turn=1)
    lo, hi = ReplayIndex(rp).turn_range(1)
    assert (made.first_frame, made.last_frame) == (lo, hi)
    assert made.start_s == pytest.approx(float(rp.times()[lo]))
    assert made.duration_s == pytest.approx(float(rp.times()[hi] - rp.times()[lo]))


# ====================================================================== sources and errors
@pytest.mark.slow
def test_a_saved_game_is_replayed_for_its_report(wall, tmp_path, ldrawdir):
    from sandbox import open_game

    _, rp, _ = wall
    with open_game(SCENE, ldrawdir=ldrawdir) as game:
        game.play_script()
        save = game.save(tmp_path / "wall.save.json")
    again, base = load_source(save, ldrawdir)
    assert [e["text"] for e in again.events] == [e["text"] for e in rp.events]
    assert set(again.tracks) == set(rp.tracks) and base.is_dir()


def test_report_cli_errors_are_one_line(tmp_path):
    res = CliRunner().invoke(app, ["report", str(tmp_path / "none.replay"), "--out",
                                   str(tmp_path / "r")])
    assert res.exit_code == 2 and "none.replay" in res.output
    errors = [ln for ln in res.output.splitlines() if ln.startswith("error:")]
    assert "Traceback" not in res.output and len(errors) == 1
    assert not (tmp_path / "r").exists()  # nothing made for a report that cannot be
    res = CliRunner().invoke(app, ["report", str(SCENE), "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "run it first" in res.output
    (tmp_path / "file").write_text("x")
    bad = tmp_path / "bad.replay"
    bad.write_bytes(b"not a zip")
    res = CliRunner().invoke(app, ["report", str(bad), "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "not a replay file" in res.output


# ====================================================================== in a browser
def _crop_mean(png: bytes, box: dict) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as im:
        a = np.asarray(im.convert("RGB"), dtype=float)
    x0, x1 = int(max(box["x0"], 0)), int(min(box["x1"], a.shape[1]))
    y0, y1 = int(max(box["y0"], 0)), int(min(box["y1"], a.shape[0]))
    assert x1 - x0 > 20 and y1 - y0 > 10, box
    return a[y0:y1, x0:x1]


@pytest.mark.slow
def test_page_in_headless_chromium_scrubs_to_the_explosion(wall, tmp_path):
    """Open index.html from disk, wait for the 3D view, take the intact wall at 0 s, scrub
    to after the blast: the wall is replaced by its pieces, the picture changed there, and
    the log beside the viewer has caught up."""
    if find_chromium() is None:
        pytest.skip("no Chromium (Debian: apt-get install chromium)")
    _, rp, report = wall
    url = report.files["index.html"].resolve().as_uri()
    blast = next(e for e in rp.events if e["type"] == "explosion")
    t_after = blast["time"] + 0.5
    canvas_rect = ("(() => {const r = document.getElementById('view3d')"
                   ".getBoundingClientRect(); return {x: r.left + scrollX, y: r.top + scrollY,"
                   " width: r.width, height: r.height};})()")

    async def run():
        async with HeadlessChromium(1280, 900) as browser:
            await browser.open(url + "#t=0")
            state = await browser.wait_for("document.documentElement.dataset.viewer", 180)
            assert state == "ready", await browser.evaluate(
                "document.getElementById('viewer-status').textContent")
            st0 = await browser.evaluate("reportViewer.state()")
            box = await browser.evaluate("reportViewer.screenBox('wall')")
            x, y, z = blast["point"]
            centre = await browser.evaluate(f"reportViewer.screenPoint([{x}, {y}, {z}])")
            edge = await browser.evaluate(f"reportViewer.screenPoint([{x + 2}, {y}, {z}])")
            rect = await browser.evaluate(canvas_rect)
            before = await browser.screenshot(rect)
            # scrub: drag the slider to just after the explosion
            await browser.evaluate(
                f"(() => {{const s = document.getElementById('scrub'); s.value = '{t_after}';"
                " s.dispatchEvent(new Event('input')); return true;})()")
            await browser.wait_for(f"Math.abs(reportViewer.time - {t_after}) < 1e-3", 30)
            await browser.wait_for("new Promise(r => requestAnimationFrame(() => "
                                   "requestAnimationFrame(() => r(true))))", 30)
            st1 = await browser.evaluate("reportViewer.state()")
            after = await browser.screenshot(rect)
            log = await browser.evaluate(
                "[...document.querySelectorAll('#live-log li')].map(li => "
                "[parseFloat(li.dataset.t), li.classList.contains('past')])")
            # Play runs the clock on from there; Pause stops it
            await browser.evaluate("document.getElementById('play').click()")
            assert await browser.evaluate("document.getElementById('play').textContent") \
                == "Pause"
            await browser.wait_for(f"reportViewer.time > {t_after} + 0.05", 60)
            await browser.evaluate("document.getElementById('play').click()")
            paused = await browser.evaluate("reportViewer.time")
            await browser.wait_for("new Promise(r => requestAnimationFrame(() => "
                                   "requestAnimationFrame(() => r(true))))", 30)
            assert await browser.evaluate("reportViewer.time") == paused  # frames drawn, still
            # a click on a line of the log shows its moment
            line_t = await browser.evaluate(
                "(() => {const li = [...document.querySelectorAll('#live-log li.roll')].pop();"
                " li.click(); return parseFloat(li.dataset.t);})()")
            assert abs(await browser.evaluate("reportViewer.time") - line_t) < 1e-6
            return st0, st1, box, centre, edge, before, after, log

    st0, st1, box, centre, edge, before, after, log = asyncio.run(run())
    (tmp_path / "intact.png").write_bytes(before)
    (tmp_path / "blasted.png").write_bytes(after)
    assert "wall" in st0["visible"] and "wall#1" in st0["hidden"]
    assert "wall" in st1["hidden"] and {"wall#1", "wall#2", "wall#3"} <= set(st1["visible"])
    # where the missile struck, the picture showed the wall and now shows the hole: most of
    # the 2" around the blast point changed; the wall's region as a whole changed colour
    r = float(np.hypot(edge["x"] - centre["x"], edge["y"] - centre["y"]))
    hole = {"x0": centre["x"] - r, "x1": centre["x"] + r, "y0": centre["y"] - r,
            "y1": centre["y"] + r}
    a, b = _crop_mean(before, hole), _crop_mean(after, hole)
    hole_changed = float((np.abs(a - b).mean(axis=2) > 10).mean())
    a, b = _crop_mean(before, box), _crop_mean(after, box)
    wall_changed = float((np.abs(a - b).mean(axis=2) > 10).mean())
    shift = float(np.abs(a.mean(axis=(0, 1)) - b.mean(axis=(0, 1))).max())
    (tmp_path / "figures.txt").write_text(
        f"blast region changed {hole_changed:.3f}, wall region changed {wall_changed:.3f}, "
        f"wall colour shift {shift:.2f}\n")
    # measured on llvmpipe/SwiftShader: 0.44, 0.16 and 3.7 (intact and blasted frames looked at)
    assert hole_changed > 0.25, f"only {hole_changed:.1%} of the blast's 2-inch region changed"
    assert wall_changed > 0.08, f"only {wall_changed:.1%} of the wall's region changed"
    assert shift > 1.5, f"the wall's region changed colour by {shift:.2f} only"
    # the log beside the viewer is in step: every line up to the time shown, none after
    assert log and all(past == (t <= t_after + 1e-6) for t, past in log)
