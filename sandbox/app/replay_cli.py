"""What ``sandbox replay FILE`` does: summary, verify, export with a progress bar, or the window.

The command-line options live in :mod:`sandbox.cli`; this module does the work and prints
with rich (the app layer may print).
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ..engine.outcome import Outcome
from ..engine.replay import Replay
from ..engine.replay_index import ReplayIndex


def print_info(path: Path, rp: Replay, console: Console) -> None:
    """The replay's summary, its Outcome, its turns and its dramatic moments, numbered for
    --moment."""
    index = ReplayIndex(rp)
    console.print(f"{path}: scene {str(rp.scene.get('name'))[:80]!r}, seed {rp.seed}, "
                  f"{len(rp.events)} events, {rp.frames} frames "
                  f"({index.time_of(rp.frames - 1):.2f} s), {len(rp.tracks)} bodies, "
                  f"{rp.stored_poses()} stored poses", markup=False)
    console.print(f"  Outcome: {_outcome_text(rp.meta.get('outcome'))[:300]}", markup=False)
    for t in index.turns():
        lo, hi = index.turn_range(t)
        console.print(f"  turn {t}: frames {lo}..{hi} "
                      f"({index.time_of(lo):.3f}..{index.time_of(hi):.3f} s)")
    ranked = index.ranked()
    if ranked:
        console.print("[bold]dramatic moments[/] (export one with --moment N):", markup=True)
    for i, m in enumerate(ranked, 1):
        console.print(f"  {i:2d}. {m.time:6.3f} s  turn {m.turn}  {m.kind:9s} {m.text}",
                      markup=False)


def _outcome_text(doc: object) -> str:
    """The Outcome a replay's meta keeps, in words (a replay from before outcomes has none)."""
    if doc is None:
        return "none recorded"
    try:
        if not isinstance(doc, dict):
            raise TypeError
        return Outcome.from_dict(doc).text
    except TypeError:
        return "unreadable"


def export_with_progress(path: Path, rp: Replay, out: Path, console: Console, *,
                         ldrawdir=None, size: tuple[int, int] = (1280, 720), fps: float = 30.0,
                         speed: float = 1.0, turn: int | None = None, start: float | None = None,
                         end: float | None = None, moment: int | None = None,
                         shadows: bool | None = None, camera: str = "fixed",
                         captions: bool = True) -> None:
    """Rebuild the bodies, then export with a rich progress bar; prints what was written.

    Raises
    ------
    ReplayError
        From :func:`~sandbox.app.export.export_replay` and
        :func:`~sandbox.engine.playback.replay_assets`.
    """
    from ..engine.playback import replay_assets
    from .export import export_replay, plan_export

    t0 = time.perf_counter()
    plan_export(rp, out, width=size[0], height=size[1], fps=fps, speed=speed, turn=turn,
                start=start, end=end, moment=moment,
                camera=camera)  # bad options fail before the rebuild
    with console.status("rebuilding the bodies from the scene..."):
        assets = replay_assets(rp, base_dir=path.resolve().parent, ldrawdir=ldrawdir)
    with Progress(TextColumn("[bold]exporting[/] {task.description}"), BarColumn(),
                  MofNCompleteColumn(), TimeRemainingColumn(), console=console) as bar:
        task = bar.add_task(escape(out.name), total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        res = export_replay(rp, out, assets, width=size[0], height=size[1], fps=fps, speed=speed,
                            turn=turn, start=start, end=end, moment=moment, shadows=shadows,
                            camera=camera, captions=captions, progress=progress)
    merged = (f" (of {res.rendered} pictures: identical ones merged)"
              if res.frames != res.rendered else "")
    console.print(f"[bold]wrote[/] {escape(str(res.path))}: {res.frames} frames{merged} "
                  f"{res.width}x"
                  f"{res.height}, {res.rendered / res.fps:.2f} s at {res.fps:g} fps, "
                  f"{camera} camera{'' if captions else ', no captions'}, "
                  f"replay frames {res.first_frame}..{res.last_frame}, "
                  f"{res.frames_per_second:.1f} frames/s "
                  + (f"({res.loop_frames_per_second:.1f} once drawing) "
                     if res.loop_frames_per_second is not None else "")
                  + f"({time.perf_counter() - t0:.1f} s in all)", markup=True)


def open_window(path: Path, ldrawdir=None, size: tuple[int, int] = (1280, 720),
                shadows: bool | None = None) -> None:
    """Open the replay window and run it until closed."""
    from .replay_viewer import open_viewer

    viewer = open_viewer(path, ldrawdir=ldrawdir, width=size[0], height=size[1], shadows=shadows)
    viewer.run()
