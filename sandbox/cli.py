"""The ``sandbox`` command line (typer + rich).

Commands
--------
``sandbox run SCENE [--out DIR]``
    Run a scene headless: print the turn log, write ``events.jsonl``, ``<scene>.replay`` and
    ``<scene>.png`` into DIR (default ``out/<scene name>``).
``sandbox model info FILE [--json]``
    Part placements, distinct parts, submodels, bounding box in inches, warnings.
``sandbox replay FILE --verify``
    Re-simulate a replay from its scene, seed and actions; report the largest pose difference.

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
    console.print(f"  warnings        {len(info['warnings'])}")
    for w in info["warnings"]:
        console.print(f"    {w}", markup=False)


@app.command()
def replay(
    file: Path = typer.Argument(..., help="Replay file written by 'sandbox run'"),
    verify: bool = typer.Option(False, "--verify", help="Re-simulate and compare poses"),
    ldrawdir: Optional[Path] = typer.Option(None, envvar="LDRAWDIR", help="LDraw library folder"),
) -> None:
    """Inspect a replay; with --verify, re-simulate it and report the largest pose difference."""
    from .game.replay import load_replay
    from .app.headless import verify_replay

    try:
        rp = load_replay(file)
        if not verify:
            console.print(f"{file}: scene {rp.scene.get('name')!r}, seed {rp.seed}, "
                          f"{len(rp.events)} events, {rp.frames} frames, "
                          f"{len(rp.tracks)} bodies, {rp.stored_poses()} stored poses")
            return
        report = verify_replay(rp, base_dir=file.resolve().parent, ldrawdir=ldrawdir)
    except SandboxError as exc:
        _fail(exc)
        return
    console.print(f"largest position difference {report['max_position_diff_in']:.6f}\", "
                  f"largest angle difference {report['max_angle_diff_rad']:.6f} rad, "
                  f"events identical: {report['events_identical']}")
    if not report["ok"]:
        raise typer.Exit(code=1)


def main() -> None:
    """Console entry point."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
