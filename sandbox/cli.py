"""The ``sandbox`` command line (typer + rich).

Commands
--------
``sandbox run SCENE [--out DIR]``
    Run a scene headless: print the turn log, write ``events.jsonl``, ``<scene>.replay`` and
    ``<scene>.png`` into DIR (default ``out/<scene name>``).
``sandbox model info FILE [--json]``
    Part placements, distinct parts, submodels, bounding box in inches, warnings.
``sandbox replay FILE [--info | --verify | --export out.mp4|out.gif [--turn N]
[--from T --to T] [--moment N]]``
    Open the replay window; print the summary and dramatic moments; re-simulate from scene,
    seed and actions and report the largest pose difference; or export a video.

Errors a user can cause (a bad scene, a malformed LDraw file, a corrupted replay) print one
clear message and exit with status 2; they never show a traceback.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from .core.errors import SandboxError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="BrikWars physics tabletop sandbox.")
model_app = typer.Typer(no_args_is_help=True, help="Inspect LDraw models.")
app.add_typer(model_app, name="model")

console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False)

#: Reader warnings printed by ``model info`` before summarising the rest.
MAX_WARNINGS_SHOWN = 20

_EVENT_STYLE = {
    "roll": "cyan", "impact": "yellow", "damage": "magenta", "destroyed": "bold red",
    "explosion": "bold red", "disrupted": "red", "warning": "bold yellow", "action": "bold green",
    "turn": "bold", "end": "bold",
}


def _fail(exc: Exception) -> None:
    err_console.print(f"[bold red]error:[/] {exc}", markup=True, soft_wrap=True)
    raise typer.Exit(code=2)


def _print_event(ev: dict) -> None:
    style = _EVENT_STYLE.get(ev["type"], "")
    console.print(f"[dim]{ev['time']:7.3f}s[/] [{style}]{ev['type']:>9}[/] {ev['text']}"
                  if style else f"[dim]{ev['time']:7.3f}s[/] {ev['type']:>9} {ev['text']}",
                  markup=True, soft_wrap=True)


@app.command()
def run(
    scene: Path = typer.Argument(..., help="Scene file (.toml)"),
    out: Optional[Path] = typer.Option(None, "--out", help="Output folder (default out/<scene>)"),
    seed: Optional[int] = typer.Option(None, help="Override the scene's seed"),
    ldrawdir: Optional[Path] = typer.Option(None, envvar="LDRAWDIR", help="LDraw library folder"),
    png: bool = typer.Option(True, "--png/--no-png", help="Render a picture of the end state"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Do not print the turn log"),
) -> None:
    """Run a scene headless and write the event log, a replay and a PNG."""
    from .app.headless import run_scene

    try:
        result = run_scene(scene, out_dir=out, seed=seed, ldrawdir=ldrawdir, png=png,
                           on_event=None if quiet else _print_event)
    except SandboxError as exc:
        _fail(exc)
        return
    console.print(f"[bold]events[/]  {result.events_path}", markup=True)
    console.print(f"[bold]replay[/]  {result.replay_path}", markup=True)
    if result.png_path:
        console.print(f"[bold]picture[/] {result.png_path}", markup=True)
    if result.expectation_failures:
        for f in result.expectation_failures:
            err_console.print(f"[bold red]expectation failed:[/] {f}", markup=True)
        raise typer.Exit(code=1)


@model_app.command("info")
def model_info_cmd(
    file: Path = typer.Argument(..., help="LDraw .ldr, .mpd or .dat file"),
    as_json: bool = typer.Option(False, "--json", help="Print JSON"),
    ldrawdir: Optional[Path] = typer.Option(None, envvar="LDRAWDIR", help="LDraw library folder"),
) -> None:
    """Print parts, distinct parts, submodels, bounding box (inches) and warnings."""
    from .bricks import load_model, model_info

    try:
        info = model_info(load_model(file, ldrawdir=ldrawdir))
    except SandboxError as exc:
        _fail(exc)
        return
    if as_json:
        sys.stdout.write(json.dumps(info, indent=2) + "\n")
        return
    lo, hi = info["bbox_in"]
    console.print(f"[bold]{file.name}[/]", markup=True)
    console.print(f"  parts           {info['parts']}")
    console.print(f"  distinct parts  {info['distinct_parts']}")
    console.print(f"  submodels       {info['submodels']}")
    size = [round(h - l, 2) for l, h in zip(lo, hi)]
    console.print(f"  bounding box    {size[0]}\" x {size[1]}\" x {size[2]}\" "
                  f"(from {[round(v, 2) for v in lo]} to {[round(v, 2) for v in hi]})")
    if "mass_g" in info:
        console.print(f"  mass            {info['mass_g']:.1f} g")
    if info.get("missing_parts"):
        console.print(f"  missing parts   {info['missing_parts']} (drawn as placeholder boxes)")
    console.print(f"  warnings        {len(info['warnings'])}")
    shown = info["warnings"][:MAX_WARNINGS_SHOWN]
    for w in shown:
        console.print(f"    {w}", markup=False)
    if len(info["warnings"]) > len(shown):
        console.print(f"    ... and {len(info['warnings']) - len(shown)} more (--json lists all)")
    if info.get("missing_parts") and ldrawdir is None:
        console.print("  hint: set LDRAWDIR (or --ldrawdir) to an LDraw parts library")


@app.command()
def replay(
    file: Path = typer.Argument(..., help="Replay file written by 'sandbox run'"),
    verify: bool = typer.Option(False, "--verify", help="Re-simulate and compare poses"),
    export: Optional[Path] = typer.Option(None, "--export", help="Write a video: out.mp4 or out.gif"),
    info: bool = typer.Option(False, "--info", help="Print the summary and dramatic moments"),
    turn: Optional[int] = typer.Option(None, "--turn", help="Export only this turn"),
    start: Optional[float] = typer.Option(None, "--from", help="Export from this time (s)"),
    end: Optional[float] = typer.Option(None, "--to", help="Export up to this time (s)"),
    moment: Optional[int] = typer.Option(None, "--moment", help="Export the N-th dramatic moment"),
    size: Optional[str] = typer.Option(
        None, help="Export size (default 640x480), or window size with no --export "
        "(default 1280x720, as 'sandbox play'), WxH"),
    fps: float = typer.Option(30.0, help="Export frames per second of video"),
    speed: float = typer.Option(1.0, help="Export speed: simulated seconds per video second"),
    shadows: bool = typer.Option(True, "--shadows/--no-shadows", help="Sun shadows"),
    ldrawdir: Optional[Path] = typer.Option(None, envvar="LDRAWDIR", help="LDraw library folder"),
) -> None:
    """Open the replay window; or --info, --verify (re-simulate, report the largest pose
    difference), or --export a video of a turn, a time range or a dramatic moment."""
    from .game.replay import load_replay
    from .app.headless import verify_replay
    from .app import replay_cli

    if size is None:
        size = "640x480" if export is not None else "1280x720"
    try:
        w, h = (int(v) for v in size.lower().split("x"))
    except ValueError:
        _fail(ValueError(f"--size must look like 640x480, got {size!r}"))
        return
    try:
        rp = load_replay(file)
        if info:
            replay_cli.print_info(file, rp, console)
            return
        if export is not None:
            replay_cli.export_with_progress(file, rp, export, console, ldrawdir=ldrawdir,
                                            size=(w, h), fps=fps, speed=speed, turn=turn,
                                            start=start, end=end, moment=moment, shadows=shadows)
            return
        if not verify:
            replay_cli.open_window(file, ldrawdir=ldrawdir, size=(w, h), shadows=shadows)
            return
        report = verify_replay(rp, base_dir=file.resolve().parent, ldrawdir=ldrawdir)
    except SandboxError as exc:
        _fail(exc)
        return
    console.print(f"largest position difference {report['max_position_diff_in']:.6f}\", "
                  f"largest angle difference {report['max_angle_diff_rad']:.6f} rad, "
                  f"events identical: {report['events_identical']}, "
                  f"timeline identical: {report.get('timeline_identical')}")
    if not report["ok"]:
        raise typer.Exit(code=1)


@app.command()
def play(
    file: Path = typer.Argument(..., help="Scene file (.toml) or a saved game (.save.json)"),
    seed: Optional[int] = typer.Option(None, help="Override the scene's seed"),
    ldrawdir: Optional[Path] = typer.Option(None, envvar="LDRAWDIR", help="LDraw library folder"),
    size: str = typer.Option("1280x720", help="Window size WIDTHxHEIGHT in pixels"),
    save: Optional[Path] = typer.Option(None, help="Save file for F5 / F9 (default <scene>.save.json)"),
) -> None:
    """Open the tabletop window: hotseat play of a scene or a saved game."""
    from .app.tabletop import play as play_window

    try:
        w, h = (int(v) for v in size.lower().split("x"))
    except ValueError:
        _fail(ValueError(f"--size must look like 1280x720, got {size!r}"))
        return
    try:
        play_window(file, ldrawdir=ldrawdir, seed=seed, width=w, height=h, save_path=save)
    except SandboxError as exc:
        _fail(exc)


@app.command()
def export(
    file: Path = typer.Argument(..., help="Scene (.toml), saved game (.save.json) or replay"),
    gltf: Optional[Path] = typer.Option(None, "--gltf", help="Write a binary glTF: out.glb"),
    ldraw: Optional[Path] = typer.Option(None, "--ldraw", help="Write an LDraw file: out.mpd"),
    frame: Optional[int] = typer.Option(None, "--frame", help="Replay frame (default: last)"),
    ldrawdir: Optional[Path] = typer.Option(None, envvar="LDRAWDIR", help="LDraw library folder"),
) -> None:
    """Export the table (a scene after set-up, a save after its log, a replay at --frame) as
    glTF for Blender / three.js and as an LDraw MPD for LeoCAD / Stud.io."""
    from .app.table_export import load_snapshot, write_gltf, write_ldraw

    if gltf is None and ldraw is None:
        _fail(ValueError("nothing to write: give --gltf out.glb and/or --ldraw out.mpd"))
        return
    try:
        snap = load_snapshot(file, frame=frame, ldrawdir=ldrawdir)
        written = []
        if gltf is not None:
            written.append(write_gltf(snap, gltf))
        if ldraw is not None:
            written.append(write_ldraw(snap, ldraw))
    except SandboxError as exc:
        _fail(exc)
        return
    console.print(f"{len(snap.bodies)} bodies, {snap.part_count()} parts")
    for w in written:
        console.print(f"[bold]wrote[/] {w}", markup=True)


def main() -> None:
    """Console entry point."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
