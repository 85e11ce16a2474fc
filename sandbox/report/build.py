"""``sandbox report REPLAY|SAVE --out DIR [--markdown]``: a battle report of one game.

Writes into DIR, as one set (a failed or killed run leaves the previous report whole, see
:func:`sandbox.app.outputs.write_output_set`):

- ``index.html``: the report (:mod:`sandbox.report.page`), opened from disk with no network;
- ``moment-<n>.png``: each dramatic moment of the replay's index, rendered offscreen;
- ``map-turn-<n>.png``: a top-down map of the battlefield at the end of each turn (with
  matplotlib, the ``plots`` extra; without it the report says it has no maps);
- ``<scene>.glb``: the animated glTF the page's 3D viewer plays (for Blender too);
- ``report.md`` with ``--markdown``: the same report for forums.

A saved game (``.save.json``) is replayed first (its action log re-simulated), which records
the poses a report needs.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..core.errors import ReplayError, SceneError
from ..engine.replay import Replay
from ..engine.replay_index import ReplayIndex
from .page import ReportData, html_page, markdown_page
from .pictures import moment_pictures, turn_map
from .story import broken_parts, casualties, outcome_text, sanitize, turn_stories

#: Files a report may hold (the rest of the output folder is left alone).
_OWN = re.compile(r"^(index\.html|report\.md|moment-\d+\.png|map-turn-\d+\.png)$")


@dataclass(frozen=True)
class ReportResult:
    """What :func:`build_report` wrote.

    Attributes
    ----------
    out : Path
        The report's folder.
    files : dict of str to Path
        Every file written, by name.
    turns : int
        Turns told (set-up not counted).
    rolls : int
        Dice explained.
    moments : int
        Dramatic moments pictured.
    seconds : float
        Wall time of the whole report.
    timings : dict of str to float
        Wall seconds per stage (``load``, ``assets``, ``story``, ``gltf``, ``pictures``,
        ``maps``, ``page``, ``write``).
    """

    out: Path
    files: dict[str, Path]
    turns: int
    rolls: int
    moments: int
    seconds: float
    timings: dict[str, float] = field(default_factory=dict)


def load_source(path: str | Path, ldrawdir=None) -> tuple[Replay, Path]:
    """The replay of a ``.replay`` file, or of a saved game replayed; and the folder its
    models are found from.

    Raises
    ------
    ReplayError, SceneError
        One line naming the file (a scene is refused: it has not been played yet).
    """
    p = Path(path)
    if p.suffix.lower() == ".replay":
        from ..engine.replay import load_replay

        return load_replay(p), p.resolve().parent
    if p.suffix.lower() == ".toml":
        raise SceneError(f"{p} is a scene, not a played game: run it first (sandbox run "
                         f"{p}) and report its replay")
    from ..engine.game import Game

    game = Game.load(p, ldrawdir)
    try:
        rp = game.replay()
        rp.meta["scene_dir"] = str(game.base_dir.resolve())
        return rp, game.base_dir
    finally:
        game.close()


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "battle"


def report_files(replay: Replay, assets: dict, *, markdown: bool = False,
                 shadows: bool = True, viewer: bool = True,
                 timings: dict[str, float] | None = None) -> tuple[dict[str, bytes], dict]:
    """The report's files (name → bytes) and figures (``turns``, ``rolls``, ``moments``).

    Raises
    ------
    ReplayError
        The replay has no frames or no body with a mesh.
    RenderError
        No offscreen GL for the pictures.
    """
    timings = {} if timings is None else timings
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[name] = timings.get(name, 0.0) + now - clock
        clock = now

    try:
        index = ReplayIndex(replay)
    except (TypeError, ValueError, KeyError) as exc:  # an event field of the wrong type
        raise ReplayError(f"the replay of {str(replay.scene.get('name'))[:80]!r} has a "
                          f"malformed event ({type(exc).__name__}: {str(exc)[:120]})") from None
    events = sanitize(replay.events)
    times = index.times
    end_s = float(times[-1]) if len(times) else 0.0
    turns = turn_stories(events, end_s)
    rolls = sum(len(line.events) for t in turns for line in t.lines if line.kind == "roll")
    names = dict(index.names)
    lost = casualties(events, names)
    moments = index.ranked()
    lap("story")
    files: dict[str, bytes] = {}
    glb = glb_name = None
    start_s = float(times[0]) if len(times) else 0.0
    if viewer:
        from ..app.gltf_anim import animated_gltf

        made = animated_gltf(replay, assets, index=index, normals=False)  # a lighter page
        glb, start_s = made.data, made.start_s
        glb_name = _slug(str(replay.scene.get("name", "battle"))) + ".glb"
        files[glb_name] = glb
        lap("gltf")
    pics = moment_pictures(replay, index, assets, moments, shadows=shadows)
    for p in pics:
        files[p.name] = p.data
    lap("pictures")
    maps = {}
    notes = []
    try:
        import matplotlib  # noqa: F401 - the plots extra
    except ImportError:
        notes.append("No turn maps: they need matplotlib (pip install "
                     "'brikwars-sandbox[plots]').")
    else:
        for t in turns:
            if t.turn in index.turn_frames:
                m = turn_map(replay, index, assets, t.turn, t.title, events)
                maps[t.turn] = m
                files[m.name] = m.data
    lap("maps")
    players = [str(p.get("name")) for p in replay.scene.get("players", []) or []
               if isinstance(p, dict) and p.get("name")]
    data = ReportData(
        title=str(replay.scene.get("name") or "Battle"),
        description=str(replay.scene.get("description") or ""),
        scene_name=str(replay.scene.get("name") or "?"), seed=int(replay.seed),
        players=players, duration_s=end_s - start_s, turns=turns,
        moments=[(m, pics[i] if i < len(pics) else None) for i, m in enumerate(moments)],
        maps=maps, casualties=lost, broken=broken_parts(events, names),
        outcome=outcome_text(events), glb=glb, glb_name=glb_name, start_s=start_s,
        finished=replay.meta.get("finished", True) is not False, notes=notes)
    files["index.html"] = html_page(data).encode("utf-8")
    if markdown:
        files["report.md"] = markdown_page(data).encode("utf-8")
    lap("page")
    played = [t for t in turns if t.turn > 0]
    return files, {"turns": len(played), "rolls": rolls, "moments": len(moments)}


def build_report(source: str | Path, out: str | Path, *, markdown: bool = False,
                 ldrawdir=None, shadows: bool = True,
                 progress: Callable[[str], None] | None = None) -> ReportResult:
    """Write the battle report of a replay or a saved game into folder ``out``.

    Raises
    ------
    ReplayError, SceneError
        The source cannot be read or its scene rebuilt (one line naming the file).
    OutputError
        ``out`` cannot be written (the previous report is left as it was).
    RenderError
        No offscreen GL for the pictures.
    """
    from ..app.outputs import check_output_dir, write_output_set
    from ..engine.playback import replay_assets

    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    say = progress or (lambda _msg: None)
    say("reading")
    replay, base = load_source(source, ldrawdir)
    if replay.frames <= 0:
        raise ReplayError(f"{source}: the game has no recorded frames to report")
    check_output_dir(out)
    t1 = time.perf_counter()
    timings["load"] = t1 - t0
    say("rebuilding the bodies")
    assets = replay_assets(replay, base_dir=base, ldrawdir=ldrawdir)
    timings["assets"] = time.perf_counter() - t1
    say("writing the story, the 3D view and the pictures")
    files, figures = report_files(replay, assets, markdown=markdown, shadows=shadows,
                                  timings=timings)
    t2 = time.perf_counter()
    outdir = Path(out)
    stale = {e.name for e in outdir.iterdir() if e.is_file() and _OWN.match(e.name)
             and e.name not in files} if outdir.is_dir() else set()
    written = write_output_set(outdir, files, drop=stale)
    timings["write"] = time.perf_counter() - t2
    return ReportResult(outdir, written, figures["turns"], figures["rolls"], figures["moments"],
                        time.perf_counter() - t0, timings)
