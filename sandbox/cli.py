"""The ``sandbox`` command line (typer + rich).

Commands
--------
``sandbox run SCENE [--out DIR] [--quiet | --verbose | --json]``
    Run a scene headless: print the turn log, write ``events.jsonl``, ``<scene>.replay`` and
    ``<scene>.png`` into DIR (default ``out/<scene name>``). SCENE is a scene file, a scene
    pack (``.brikpack``) or the name of a shipped scene (``sandbox scenes``).
``sandbox scenes [--copy DIR]``
    List the scenes shipped in the package; copy them with their models into DIR.
``sandbox schema [-o FILE]``
    The scene file's JSON Schema (every field, its type, default and description).
``sandbox pack SCENE -o FILE.brikpack``
    One file holding a scene and its models (a zip with a manifest of SHA-256 checksums) that
    ``run``, ``play`` and ``serve`` open directly.
``sandbox model info FILE [--json]``
    Part placements, distinct parts, submodels, bounding box in inches, warnings.
``sandbox serve SCENE|SAVE [--host 127.0.0.1] [--port 8765] [--seat A,B] [--save-every N]``
    Serve a game online (``sandbox.net``): join tokens per seat, lockstep clients;
    ``sandbox play [SCENE] --join ws://HOST:PORT --token T`` plays one seat in the window.
``sandbox replay FILE [--info | --verify | --export out.mp4|out.gif [--turn N]
[--from T --to T] [--moment N] [--camera fixed|follow|orbit] [--no-captions]]``
    Open the replay window; print the summary and dramatic moments; re-simulate from scene,
    seed and actions and report the largest pose difference; or export a video (1280x720,
    the turn's dice and events as captions).
``sandbox export FILE --gltf out.glb [--ldraw out.mpd] [--frame N]``; ``sandbox export
REPLAY --gltf out.glb --animate [--turn N | --moment N]``
    The table as glTF / LDraw; a replay as an animated glTF (every body's recorded poses).
``sandbox report REPLAY|SAVE --out DIR [--markdown]``
    A battle report: index.html (opens from disk), moment pictures, turn maps, 3D viewer.
``sandbox odds SCENE [--runs N | --seeds A..B] [--workers K] [--ray [ADDRESS]] [--out DIR]
[--actions FILE] [--replay SEED|dramatic]``
    Play the scene's turn for many seeds (local processes or Ray) and print the odds; write
    ``runs.csv``, ``odds.json`` and ``odds.png`` into DIR (default ``out/<scene>-odds``).

Errors a user can cause (a bad scene, a malformed LDraw file, a corrupted replay) print one
clear message and exit with status 2; they never show a traceback.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape

from . import __version__
from .core.errors import OutputError, SandboxError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="BrikWars physics tabletop sandbox.")
model_app = typer.Typer(no_args_is_help=True, help="Inspect LDraw models.")
app.add_typer(model_app, name="model")

# Text from files (ids, names, LDraw lines) is never markup: plain by default, escaped where
# a line mixes it with markup.
console = Console(highlight=False, soft_wrap=True, markup=False)
err_console = Console(stderr=True, highlight=False, markup=False)


def _print_version(value: bool) -> None:
    if value:
        console.print(f"brikwars-sandbox {__version__}")
        raise typer.Exit()


@app.callback()
def _limits(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                 help="Print the version and exit"),
    max_file_mb: Optional[int] = typer.Option(None, "--max-file-mb", min=1,
                                              help="Largest input file, MiB (default 64)"),
    max_parts: Optional[int] = typer.Option(None, "--max-parts", min=1,
                                            help="Most parts one model may expand to (20000)"),
    max_bodies: Optional[int] = typer.Option(None, "--max-bodies", min=1,
                                             help="Most bodies in a scene (500)"),
    max_mesh_mb: Optional[int] = typer.Option(None, "--max-mesh-mb", min=1,
                                              help="Largest mesh of one body, MiB (2048)"),
    max_actions: Optional[int] = typer.Option(None, "--max-actions", min=1,
                                              help="Most actions in a scene, save, replay or "
                                              "game's log (5000)"),
) -> None:
    """BrikWars physics tabletop sandbox (limits: README, Limits)."""
    from .core.limits import set_limit

    for name, value in (("file_mb", max_file_mb), ("parts", max_parts),
                        ("bodies", max_bodies), ("mesh_mb", max_mesh_mb),
                        ("actions", max_actions)):
        set_limit(name, value)

#: Reader warnings printed by ``model info`` before summarising the rest.
MAX_WARNINGS_SHOWN = 20

_EVENT_STYLE = {
    "roll": "cyan", "impact": "yellow", "damage": "magenta", "destroyed": "bold red",
    "explosion": "bold red", "disrupted": "red", "warning": "bold yellow", "action": "bold green",
    "turn": "bold", "end": "bold",
}


def _fail(exc: Exception) -> None:
    err_console.print(f"[bold red]error:[/] {escape(str(exc))}", markup=True, soft_wrap=True)
    raise typer.Exit(code=2)


#: Optional features: (module, extra, what needs it).
EXTRAS = {
    "video": ("imageio_ffmpeg", "video", "MP4 video export"),
    "plots": ("matplotlib", "plots", "the odds picture (odds.png)"),
}


def missing_extra(feature: str) -> str | None:
    """The one-line hint for an optional feature whose extra is not installed, else None
    (``"MP4 video export needs the video extra: pip install 'brikwars-sandbox[video]'"``)."""
    import importlib.util

    module, extra, what = EXTRAS[feature]
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if found:
        return None
    return f"{what} needs the {extra} extra: pip install 'brikwars-sandbox[{extra}]'"


def _scene_arg(arg: Path) -> Path:
    """A command's SCENE: a file, else a shipped scene by name (``big_drop_guard_tower``)."""
    from .app.shipped import resolve_scene_arg

    return resolve_scene_arg(arg)


def _warn(text: str) -> None:
    err_console.print(f"[bold yellow]warning:[/] {escape(text)}", markup=True, soft_wrap=True)


def _print_event(ev: dict) -> None:
    style = _EVENT_STYLE.get(ev["type"], "")
    text, kind = escape(str(ev["text"])), escape(f"{ev['type']:>9}")
    console.print(f"[dim]{ev['time']:7.3f}s[/] [{style}]{kind}[/] {text}"
                  if style else f"[dim]{ev['time']:7.3f}s[/] {kind} {text}",
                  markup=True, soft_wrap=True)


def _json_line(doc: dict) -> None:
    sys.stdout.write(json.dumps(doc, sort_keys=True, allow_nan=False) + "\n")
    sys.stdout.flush()


@app.command()
def run(
    scene: Path = typer.Argument(..., help="Scene file (.toml), scene pack (.brikpack) or the "
                                 "name of a shipped scene ('sandbox scenes')"),
    out: Optional[Path] = typer.Option(None, "--out", help="Output folder (default out/<scene>)"),
    seed: Optional[int] = typer.Option(None, help="Override the scene's seed"),
    ldrawdir: Optional[Path] = typer.Option(None, envvar="LDRAWDIR", help="LDraw library folder"),
    png: bool = typer.Option(True, "--png/--no-png", help="Render a picture of the end state"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No turn log and no list of the "
                               "files written: only warnings and errors (on stderr)"),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Every event, each impact "
                                 "between debris too (summarised per wreck by default)"),
    as_json: bool = typer.Option(False, "--json", help="Every event as one JSON object a line "
                                 "on stdout, then one {\"type\": \"outputs\"} line"),
    edges: bool = typer.Option(False, "--edges/--no-edges",
                               help="Draw LDraw edge lines (type 2 and optional) in the PNG"),
) -> None:
    """Run a scene headless and write the event log, a replay and a PNG.

    Warnings and errors go to stderr; --quiet, --verbose and --json choose what goes to
    stdout."""
    from .app.headless import run_scene

    if sum((quiet, verbose, as_json)) > 1:
        _fail(ValueError("choose one of --quiet, --verbose and --json"))
        return

    def on_event(ev: dict) -> None:
        if as_json:
            _json_line(ev)
        elif not quiet:
            _print_event(ev)
        if ev.get("type") == "warning":
            _warn(str(ev.get("text", "")))

    try:
        result = run_scene(_scene_arg(scene), out_dir=out, seed=seed, ldrawdir=ldrawdir,
                           png=png, on_event=on_event, edges=edges,
                           summarise_debris=not (verbose or as_json))
    except SandboxError as exc:
        _fail(exc)
        return
    if as_json:
        _json_line({"type": "outputs", "events": str(result.events_path),
                    "replay": str(result.replay_path),
                    "picture": str(result.png_path) if result.png_path else None,
                    "outcome": result.game.outcome.to_dict(),
                    "expectation_failures": list(result.expectation_failures)})
    else:  # the Outcome is the run's result: printed with --quiet too
        console.print(f"[bold]Outcome:[/] {escape(result.game.outcome.text)}", markup=True)
    if not as_json and not quiet:
        console.print(f"[bold]events[/]  {escape(str(result.events_path))}", markup=True)
        console.print(f"[bold]replay[/]  {escape(str(result.replay_path))}", markup=True)
        if result.png_path:
            console.print(f"[bold]picture[/] {escape(str(result.png_path))}", markup=True)
    if result.expectation_failures:
        for f in result.expectation_failures:
            err_console.print(f"[bold red]expectation failed:[/] {escape(str(f))}", markup=True)
        raise typer.Exit(code=1)


@app.command()
def scenes(
    copy: Optional[Path] = typer.Option(None, "--copy", help="Copy the scenes into DIR/scenes "
                                        "and their models into DIR/models, to edit them"),
) -> None:
    """List the scenes shipped with the package (run one by name: sandbox run NAME)."""
    from .app.shipped import copy_scenes, shipped_scenes

    if copy is not None:
        try:
            copied, kept = copy_scenes(copy)
        except SandboxError as exc:
            _fail(exc)
            return
        console.print(f"copied {len(copied)} files into {copy}"
                      + (f"; kept {len(kept)} already there" if kept else ""))
        console.print(f"run one: sandbox run {copy / 'scenes' / 'skirmish.toml'}")
        return
    found = shipped_scenes()
    width = max((len(s.name) for s in found), default=0)
    for s in found:
        line = f"{s.name:<{width}}  {s.title}"
        if s.description:
            line += f": {s.description}"
        console.print(line, markup=False)
    console.print(f"{len(found)} scenes; run one: sandbox run NAME; "
                  "editable copies: sandbox scenes --copy DIR", markup=False, style="dim")


@app.command()
def schema(
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write it to FILE "
                                          "(default: stdout)"),
) -> None:
    """Print or write the scene file's JSON Schema.

    pydantic's schema of the scene model; its actions are every registered action type.
    docs/SCENES.md is generated from it."""
    from .app.scene_schema import scene_schema_text

    text = scene_schema_text()
    if output is None:
        sys.stdout.write(text)
        return
    from .engine.replay import atomic_write_bytes

    try:
        atomic_write_bytes(output, text.encode("utf-8"))
    except (OSError, SandboxError) as exc:
        _fail(ValueError(f"{output}: cannot write the schema ({exc})"))
        return
    console.print(f"[bold]wrote[/] {escape(str(output))}", markup=True)


@app.command()
def pack(
    scene: Path = typer.Argument(..., help="Scene file (.toml) or the name of a shipped scene"),
    output: Path = typer.Option(..., "--output", "-o", help="The pack to write: FILE.brikpack"),
    ldrawdir: Optional[Path] = typer.Option(None, envvar="LDRAWDIR", help="LDraw library folder "
                                            "(where the scene's library models are found)"),
) -> None:
    """Pack a scene and its models into one .brikpack file.

    A zip with a manifest of SHA-256 checksums, holding the scene, its models and the files
    beside them that they use; run, play and serve open it directly."""
    from .app.pack import write_pack
    from .core.brikpack import is_pack

    if not is_pack(output):
        _fail(ValueError(f"-o {output}: a scene pack's name ends in .brikpack"))
        return
    try:
        result = write_pack(_scene_arg(scene), output, ldrawdir=ldrawdir)
    except SandboxError as exc:
        _fail(exc)
        return
    for name, size in result.members.items():
        console.print(f"  {size:>9} B  {name}", markup=False)
    console.print(f"[bold]wrote[/] {escape(str(result.path))} ({len(result.members)} files, "
                  f"{result.size} B; scene {escape(result.scene)})", markup=True)


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
        try:
            sys.stdout.write(json.dumps(info, indent=2, allow_nan=False) + "\n")
        except ValueError:
            _fail(ValueError(f"{file}: the model's numbers are not finite"))
        return
    lo, hi = info["bbox_in"]
    console.print(f"[bold]{escape(file.name)}[/]", markup=True)
    console.print(f"  parts           {info['parts']}")
    console.print(f"  distinct parts  {info['distinct_parts']}")
    console.print(f"  submodels       {info['submodels']}")
    size = [round(b - a, 2) for a, b in zip(lo, hi, strict=True)]
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


class ExportCamera(str, Enum):
    """Camera of ``sandbox replay --export`` (see :mod:`sandbox.app.export`)."""

    fixed = "fixed"
    follow = "follow"
    orbit = "orbit"


@app.command()
def replay(
    file: Path = typer.Argument(..., help="Replay file written by 'sandbox run'"),
    verify: bool = typer.Option(False, "--verify", help="Re-simulate and compare poses"),
    export: Optional[Path] = typer.Option(None, "--export",
                                          help="Write a video: out.mp4 or out.gif"),
    info: bool = typer.Option(False, "--info", help="Print the summary and dramatic moments"),
    turn: Optional[int] = typer.Option(None, "--turn", help="Export only this turn"),
    start: Optional[float] = typer.Option(None, "--from", help="Export from this time (s)"),
    end: Optional[float] = typer.Option(None, "--to", help="Export up to this time (s)"),
    moment: Optional[int] = typer.Option(None, "--moment", help="Export the N-th dramatic moment"),
    size: str = typer.Option(
        "1280x720", help="Export size, or window size with no --export (as 'sandbox play'), "
        "WxH"),
    camera: ExportCamera = typer.Option(
        ExportCamera.fixed, "--camera", help="Export camera: fixed (frames the action), "
        "follow (the moving bodies, or the --moment's), orbit (circles the action)"),
    captions: bool = typer.Option(
        True, "--captions/--no-captions", help="Burn the turn's dice and events into the "
        "exported video"),
    fps: float = typer.Option(30.0, help="Export frames per second of video"),
    speed: float = typer.Option(1.0, help="Export speed: simulated seconds per video second"),
    shadows: Optional[bool] = typer.Option(None, "--shadows/--no-shadows",
                                           help="Sun shadows (default: on with a GPU, off on "
                                           "software GL such as llvmpipe)"),
    ldrawdir: Optional[Path] = typer.Option(None, envvar="LDRAWDIR", help="LDraw library folder"),
) -> None:
    """Open the replay window; or --info, --verify (re-simulate, report the largest pose
    difference), or --export a video of a turn, a time range or a dramatic moment."""
    from .app import replay_cli
    from .app.headless import verify_replay
    from .engine.replay import load_replay

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
            if export.suffix.lower() == ".mp4" and (hint := missing_extra("video")):
                _fail(ValueError(hint))
                return
            replay_cli.export_with_progress(file, rp, export, console, ldrawdir=ldrawdir,
                                            size=(w, h), fps=fps, speed=speed, turn=turn,
                                            start=start, end=end, moment=moment, shadows=shadows,
                                            camera=camera.value, captions=captions)
            return
        if not verify:
            replay_cli.open_window(file, ldrawdir=ldrawdir, size=(w, h), shadows=shadows)
            return
        report = verify_replay(rp, base_dir=file.resolve().parent, ldrawdir=ldrawdir)
    except SandboxError as exc:  # re-simulating names no file: say which replay it was
        _fail(exc if str(file) in str(exc) else SandboxError(f"{file}: {exc}"))
        return
    console.print(f"largest position difference {report['max_position_diff_in']:.6f}\", "
                  f"largest angle difference {report['max_angle_diff_rad']:.6f} rad, "
                  f"events identical: {report['events_identical']}, "
                  f"timeline identical: {report.get('timeline_identical')}")
    if not report["ok"]:
        raise typer.Exit(code=1)


@app.command()
def play(
    file: Optional[Path] = typer.Argument(None, help="Scene file (.toml), scene pack "
                                          "(.brikpack), shipped scene's name or a saved game "
                                          "(.save.json); with --join, optional: the scene"),
    seed: Optional[int] = typer.Option(None, help="Override the scene's seed"),
    ldrawdir: Optional[Path] = typer.Option(None, envvar="LDRAWDIR", help="LDraw library folder"),
    size: str = typer.Option("1280x720", help="Window size WIDTHxHEIGHT in pixels"),
    save: Optional[Path] = typer.Option(None,
                                        help="Save file for F5 / F9 (default <scene>.save.json)"),
    join: Optional[str] = typer.Option(None, "--join", help="Play online: the server's "
                                       "ws://HOST:PORT (from 'sandbox serve')"),
    token: Optional[str] = typer.Option(None, "--token", help="Your seat's join token"),
    ai: list[str] = typer.Option([], "--ai", help="A seat the computer plays (Micro Brick War; "
                                 "repeat for more)"),
    referee: bool = typer.Option(False, "--referee", help="A referee runs the table: the "
                                 "referee's tools (free missile strike V, ignite I, moving any "
                                 "body) are on keys and accepted; without it players are "
                                 "refused them"),
    ready_file: Optional[Path] = typer.Option(None, "--ready-file", help="Write a JSON file "
                                              "when the window's first picture is drawn "
                                              "(window_s), and the table's (table_s)"),
) -> None:
    """Open the tabletop window: hotseat play of a scene or a saved game, or (--join, --token)
    one seat of a game served by 'sandbox serve'. The window opens at once with a loading view;
    the game loads behind it."""
    from .app.table.launch import play as play_window

    try:
        w, h = (int(v) for v in size.lower().split("x"))
    except ValueError:
        _fail(ValueError(f"--size must look like 1280x720, got {size!r}"))
        return
    if join is None and file is None:
        _fail(ValueError("give a scene or a save file, or --join ws://HOST:PORT --token T"))
        return
    if join is not None and not token:
        _fail(ValueError("--join needs --token (the seat's token 'sandbox serve' printed)"))
        return
    if file is not None:
        file = _scene_arg(file)
        if save is None and file.name.lower().endswith(".brikpack"):
            save = file.with_name(file.name[:-len(".brikpack")] + ".save.json")
    try:
        play_window(file, ldrawdir=ldrawdir, seed=seed, width=w, height=h, save_path=save,
                    join=join, token=token, ai=tuple(ai), referee=referee,
                    ready_file=ready_file)
    except SandboxError as exc:
        _fail(exc)


@app.command()
def serve(
    file: Path = typer.Argument(..., help="Scene file (.toml), scene pack (.brikpack), shipped "
                                "scene's name or a saved game (.save.json)"),
    host: str = typer.Option("127.0.0.1", help="Address to listen on (0.0.0.0: every network; "
                             "127.0.0.1: this machine only)"),
    port: int = typer.Option(8765, min=0, max=65535, help="Port to listen on (0: any free port)"),
    seed: Optional[int] = typer.Option(None, help="Override the scene's seed"),
    seat: list[str] = typer.Option([], "--seat", help="Players sharing one seat (one token), "
                                   "comma-separated; repeatable. Default: a seat per player"),
    save: Optional[Path] = typer.Option(None, help="Save file (default <scene>.save.json)"),
    save_every: int = typer.Option(1, "--save-every", min=0, help="Save after every N accepted "
                                   "changes (default 1: each; 0: only when the server stops); "
                                   "the save is also written at start"),
    ldrawdir: Optional[Path] = typer.Option(None, envvar="LDRAWDIR", help="LDraw library folder"),
    referee: bool = typer.Option(False, "--referee", help="Add a referee's seat: its token (and "
                                 "only it) issues the referee's tools"),
) -> None:
    """Serve a game online: print a join token per seat and one for spectators, accept each
    seat's actions on its turn, keep every client in lockstep (Ctrl-C saves and stops)."""
    import asyncio

    from . import open_game
    from .net import GameServer

    by_name = not file.exists()  # a shipped scene's name: its save goes in this folder
    file = _scene_arg(file)
    try:
        game = open_game(file, seed=seed, ldrawdir=ldrawdir)
        if save is None:
            name = (file.name.removesuffix(".save.json").removesuffix(".toml")
                    .removesuffix(".brikpack"))
            # beside the scene, the pack or the save; a shipped scene named by name: here
            # (never inside the installed package)
            save = Path(name + ".save.json") if by_name else file.with_name(name + ".save.json")
        if file.suffix.lower() == ".toml" and save.exists() and save.samefile(file):
            raise OutputError(f"--save {str(save)!r} is the scene file: the server saves "
                              "there at start and after every change; give another file")
        server = GameServer(game, [s.split(",") for s in seat], host=host, port=port,
                            save_path=save, save_every=save_every, referee=referee,
                            on_log=lambda line: console.print(line, markup=False))
    except SandboxError as exc:
        _fail(exc)
        return
    if host not in ("127.0.0.1", "localhost", "::1"):
        console.print(f"listening on {host}: anyone who can reach this machine and has a token "
                      "can join", markup=False)
    try:
        asyncio.run(server.serve_forever())
    except KeyboardInterrupt:
        pass
    except SandboxError as exc:
        _fail(exc)
    finally:
        game.close()


@app.command()
def export(
    file: Path = typer.Argument(..., help="Scene (.toml), saved game (.save.json) or replay"),
    gltf: Optional[Path] = typer.Option(None, "--gltf", help="Write glTF: out.glb (binary) or "
                                        "out.gltf (JSON)"),
    ldraw: Optional[Path] = typer.Option(None, "--ldraw", help="Write an LDraw file: out.mpd"),
    frame: Optional[int] = typer.Option(None, "--frame", help="Replay frame (default: last)"),
    animate: bool = typer.Option(False, "--animate", help="Replays: an animated glTF of every "
                                 "body's recorded poses (with --gltf)"),
    turn: Optional[int] = typer.Option(None, "--turn", help="With --animate: only this turn"),
    moment: Optional[int] = typer.Option(None, "--moment", help="With --animate: only the "
                                         "N-th dramatic moment's clip"),
    ldrawdir: Optional[Path] = typer.Option(None, envvar="LDRAWDIR", help="LDraw library folder"),
) -> None:
    """Export the table (a scene after set-up, a save after its log, a replay at --frame) as
    glTF for Blender / three.js and as an LDraw MPD for LeoCAD / Stud.io; or (--animate) a
    replay as an animated glTF."""
    from .app.table_export import load_snapshot, write_gltf, write_ldraw
    from .core.limits import recording_reads

    if animate or turn is not None or moment is not None:
        _export_animated(file, gltf, ldraw, frame, animate, turn, moment, ldrawdir)
        return
    if gltf is None and ldraw is None:
        _fail(ValueError("nothing to write: give --gltf out.glb and/or --ldraw out.mpd"))
        return
    try:
        _export_names(gltf, ldraw)
        with recording_reads() as reads:
            snap = load_snapshot(file, frame=frame, ldrawdir=ldrawdir)
        for out, opt in ((gltf, "--gltf"), (ldraw, "--ldraw")):
            if out is not None:
                _not_an_input(out, opt, [file], reads, ldrawdir)
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
        console.print(f"[bold]wrote[/] {escape(str(w))}", markup=True)


@app.command()
def report(
    file: Path = typer.Argument(..., help="Replay (.replay) or saved game (.save.json)"),
    out: Path = typer.Option(..., "--out", help="Folder to write the report into"),
    markdown: bool = typer.Option(False, "--markdown", help="Also write report.md (forums)"),
    shadows: bool = typer.Option(True, "--shadows/--no-shadows", help="Sun shadows in the "
                                 "pictures"),
    ldrawdir: Optional[Path] = typer.Option(None, envvar="LDRAWDIR", help="LDraw library folder"),
) -> None:
    """Write a battle report: index.html (turn by turn, every die explained, the moments'
    pictures, a map per turn, casualties, the Outcome, a 3D viewer of the replay) that opens
    from disk with no network; --markdown adds report.md with the pictures beside it."""
    from .report import build_report

    try:
        res = build_report(file, out, markdown=markdown, ldrawdir=ldrawdir, shadows=shadows,
                           progress=lambda msg: err_console.print(f"report: {msg}"))
    except SandboxError as exc:
        _fail(exc)
        return
    console.print(f"{res.turns} turn(s), {res.rolls} dice explained, {res.moments} moment(s); "
                  f"{res.seconds:.1f} s")
    console.print(f"[bold]wrote[/] {escape(str(res.files['index.html']))}", markup=True)
    if "report.md" in res.files:
        console.print(f"[bold]wrote[/] {escape(str(res.files['report.md']))}", markup=True)


def _export_animated(file: Path, gltf: Optional[Path], ldraw: Optional[Path],
                     frame: Optional[int], animate: bool, turn: Optional[int],
                     moment: Optional[int], ldrawdir: Optional[Path]) -> None:
    """``export REPLAY --gltf out.glb --animate [--turn N | --moment N]``."""
    from .app.gltf_anim import write_animated_gltf
    from .engine.replay import load_replay

    if not animate:
        _fail(ValueError("--turn and --moment are for --animate (a still export takes "
                         "--frame)"))
        return
    if gltf is None or ldraw is not None or frame is not None:
        _fail(ValueError("--animate writes one animated glTF: give --gltf out.glb (and no "
                         "--ldraw or --frame)"))
        return
    if file.suffix.lower() != ".replay":
        _fail(ValueError(f"{file}: --animate needs a replay (.replay), which holds the poses"))
        return
    try:
        rp = load_replay(file)
        path, made = write_animated_gltf(rp, gltf, turn=turn, moment=moment,
                                         base_dir=file.resolve().parent, ldrawdir=ldrawdir)
    except SandboxError as exc:
        _fail(exc)
        return
    console.print(f"{made.bodies} bodies, {made.keyframes} keyframes, "
                  f"{made.duration_s:.2f} s from {made.start_s:.2f} s "
                  f"(frames {made.first_frame}..{made.last_frame})")
    console.print(f"[bold]wrote[/] {escape(str(path))}", markup=True)
#: What ``sandbox export`` writes, by option: the file name endings each takes.
EXPORT_SUFFIXES = {"--gltf": (".glb", ".gltf"), "--ldraw": (".mpd", ".ldr")}


def _export_names(gltf: Optional[Path], ldraw: Optional[Path]) -> None:
    """Refuse an export file name of another kind (``--gltf out.png``) or both outputs on one
    path (OutputError, one line)."""
    for out, opt in ((gltf, "--gltf"), (ldraw, "--ldraw")):
        if out is not None and out.suffix.lower() not in EXPORT_SUFFIXES[opt]:
            raise OutputError(f"{opt} {str(out)!r}: the file name must end in "
                              f"{' or '.join(EXPORT_SUFFIXES[opt])} (got "
                              f"{out.suffix or 'no ending'!r})")
    if gltf is not None and ldraw is not None and gltf.resolve() == ldraw.resolve():
        raise OutputError(f"--gltf and --ldraw name the same file {str(gltf)!r}")


def _not_an_input(out: Path, opt: str, inputs: list[Path], reads: list,
                  ldrawdir: Optional[Path] = None) -> None:
    """Refuse to write ``out`` over a file the export read: the scene, save or replay, a
    model or part it used; the same file by another name (a link) too; or anything in the
    LDraw library (parts read earlier in this process are not read again) (OutputError)."""
    import os

    from .bricks.library import library_dir

    try:
        target = os.path.realpath(out)
        st = os.stat(out)
    except OSError:
        st = None  # nothing there yet (or unreadable: the write says why)
    ids = {(d, i) for d, i, _ in reads}
    paths = {p for _, _, p in reads} | {os.path.realpath(p) for p in inputs}
    for p in inputs:
        with contextlib.suppress(OSError):
            s = os.stat(p)
            ids.add((s.st_dev, s.st_ino))
    if target in paths or (st is not None and (st.st_dev, st.st_ino) in ids):
        raise OutputError(f"{opt} {str(out)!r} is one of the export's inputs (the scene, "
                          "save, replay or a model it uses): refused, nothing written; give "
                          "another file name")
    lib = library_dir(ldrawdir)
    inside = False
    if lib is not None:
        with contextlib.suppress(OSError, ValueError):
            inside = Path(target).is_relative_to(os.path.realpath(lib))
        if inside:
            raise OutputError(f"{opt} {str(out)!r} is in the LDraw library "
                              f"({str(lib)!r}): an export never writes there; give another "
                              "file name")


def _pct(r: dict | None):
    from rich.text import Text

    if not r or r.get("p") is None:
        return "-"
    t = Text(f"{100 * r['p']:.0f}% ")
    t.append(f"{100 * r['low']:.0f}–{100 * r['high']:.0f}", style="dim")
    return t


def _odds_table(odds: dict, title: str):
    """The odds as a short table: per body the outcomes that happened in any run (chance and
    95% interval), mean Damage and KnockBack; then victories and expectations."""
    from rich.table import Table

    bodies = odds["bodies"]
    flags = [(k, h) for k, h in (("destroyed", "destroyed"), ("disrupted", "Disrupted"),
                                 ("knocked_back", "Knocked Back"), ("on_fire", "on Fire"),
                                 ("off_table", "off table"))
             if k == "destroyed" or any(e.get(k, {}).get("k") for e in bodies.values())]
    nums = [(k, h) for k, h in (("damage", "Damage"), ("knockback_in", 'KnockBack"'),
                                ("parts_destroyed", "parts lost"), ("pieces", "pieces"))
            if k == "damage" or any(e.get(k, {}).get("max") for e in bodies.values())]
    t = Table(title=title, title_justify="left", show_edge=False, pad_edge=False,
              caption="chance % and its 95% interval; Damage etc.: mean per run",
              caption_justify="left")
    t.add_column("")
    for _, h in flags + nums:
        t.add_column(h, justify="right")
    mean = lambda d: "-" if not d or not d.get("n") else f"{d['mean']:.2f}"  # noqa: E731
    quiet = []
    for body, e in bodies.items():
        if not any(e.get(k, {}).get("k") for k, _ in flags) \
                and not any(e.get(k, {}).get("max") for k, _ in nums):
            quiet.append(body)  # nothing happened to it in any run
            continue
        t.add_row(body, *[_pct(e.get(k)) for k, _ in flags], *[mean(e.get(k)) for k, _ in nums])
    if quiet:
        t.caption += f"; nothing happened in any run to: {', '.join(quiet)}"
    pad = [""] * (len(flags) + len(nums) - 1)
    for side, r in odds.get("winners", {}).items():  # the games' Outcomes: win rates per side
        if side in ("draw", "no winner") and not r.get("k"):
            continue
        t.add_row(side if side in ("draw", "no winner") else f"wins: {side}", _pct(r), *pad)
    for force, r in odds.get("victory", {}).get("forces", {}).items():
        t.add_row(f"victory: {force}", _pct(r), *pad)
    for name, r in odds.get("expect", {}).items():
        t.add_row(f"expect {name}", _pct(r), *pad)
    return t


@app.command()
def odds(
    scene: Path = typer.Argument(..., help="Scene file (.toml)"),
    runs: int = typer.Option(100, "--runs", min=1, help="Seeds 1..N (unless --seeds)"),
    seeds: Optional[str] = typer.Option(None, "--seeds", help="Seed range A..B (inclusive)"),
    workers: Optional[int] = typer.Option(None, "--workers", min=1,
                                          help="Local processes (default: every CPU)"),
    ray: bool = typer.Option(False, "--ray", help="Run on Ray: a local Ray with 2 CPUs, or "
                             "'--ray ADDRESS' to join a cluster"),
    ray_address: Optional[str] = typer.Option(None, "--ray-address",
                                              help="Ray cluster to join (as '--ray ADDRESS')"),
    out: Optional[Path] = typer.Option(None, "--out", help="Output folder (default "
                                       "out/<scene>-odds); runs there are not redone"),
    actions: Optional[Path] = typer.Option(None, "--actions", help="Actions file (JSON list, "
                                           "a save file, or TOML [[actions]]) instead of the "
                                           "scene's script"),
    replay_seed: Optional[str] = typer.Option(None, "--replay", help="Write the replay of this "
                                              "seed, or of the most 'dramatic' run"),
    png: bool = typer.Option(True, "--png/--no-png", help="Plot odds.png"),
    ldrawdir: Optional[Path] = typer.Option(None, envvar="LDRAWDIR", help="LDraw library folder"),
) -> None:
    """What are the odds: play the scene's turn for many seeds, physics in the loop, and
    report each outcome's chance with a 95% interval."""
    import time as _time

    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from .app import odds as odds_mod

    scene = _scene_arg(scene)
    try:
        if seeds is None and runs > odds_mod.MAX_RUNS:
            raise ValueError(f"--runs {runs}: more than {odds_mod.MAX_RUNS} runs")
        seed_range = odds_mod.parse_seeds(seeds) if seeds is not None else range(1, runs + 1)
        if replay_seed not in (None, "dramatic"):
            try:
                int(replay_seed)
            except ValueError:
                raise ValueError(f"--replay must be a seed or 'dramatic', got {replay_seed!r}") \
                    from None
    except (SandboxError, ValueError) as exc:
        _fail(exc)
        return
    out_dir = out if out is not None else Path("out") / f"{scene.stem}-odds"
    if png and (hint := missing_extra("plots")):
        _warn(f"{hint} (the odds are written without it)")
        png = False
    use_ray = ray or ray_address is not None
    t0 = _time.perf_counter()
    base = {"done": None}
    with Progress(TextColumn("[bold]odds[/]"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[rate]}"), TextColumn("ETA"), TimeRemainingColumn(),
                  console=err_console, transient=False) as bar:
        task = bar.add_task("runs", total=len(seed_range), rate="")

        def progress(done: int, total: int) -> None:
            if base["done"] is None:
                base["done"] = done  # runs found in --out
            new = done - base["done"]
            dt = _time.perf_counter() - t0
            bar.update(task, completed=done, total=total,
                       rate=f"{new / dt:.2f} runs/s" if new and dt > 0 else "")

        try:
            result = odds_mod.run_odds(scene, seed_range, out_dir, workers=workers,
                                       ray=use_ray, ray_address=ray_address,
                                       actions_file=actions, ldrawdir=ldrawdir,
                                       progress=progress, png=png)
        except SandboxError as exc:
            bar.stop()
            _fail(exc)
            return
    o = result.odds
    console.print(_odds_table(o, f"{scene.name}: {o['ok']} runs"
                              + (f", {o['failed']} failed" if o["failed"] else "")))
    console.print(f"{result.new_runs} new runs in {result.seconds:.1f} s "
                  f"({result.runs_per_second:.2f} runs/s), {result.reused} found in {out_dir}")
    for e in o["errors"]:
        s = e["seeds"]
        err_console.print(f"[bold red]{len(s)} run(s) failed[/] (seeds {', '.join(map(str, s[:8]))}"
                          f"{' …' if len(s) > 8 else ''}): {e['error']}", markup=True)
    for name, path in result.files.items():
        console.print(f"[bold]{name:<9}[/] {path}", markup=True)
    if result.interrupted:
        err_console.print(f"[bold yellow]interrupted:[/] {len(result.rows)} finished runs kept; "
                          f"run the same command again to go on", markup=True)
        # the outputs are written (atomically); leave at once: the interpreter's exit would join
        # the stopped pool's threads, which a SIGTERM mid-run can leave waiting
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    if replay_seed is not None:
        if replay_seed == "dramatic":
            ok = [r for r in result.rows if r.get("status") == "ok"]
            if not ok:
                _fail(ValueError("--replay dramatic: no run finished"))
                return
            pick = max(ok, key=lambda r: (odds_mod.drama(r), -int(r["seed"])))["seed"]
        else:
            pick = int(replay_seed)
        try:
            path = odds_mod.write_replay(scene, pick, Path(out_dir) / f"seed{pick}.replay",
                                         actions_file=actions, ldrawdir=ldrawdir)
        except SandboxError as exc:
            _fail(exc)
            return
        console.print(f"[bold]replay[/]    {path} (seed {pick}; watch: sandbox replay {path})",
                      markup=True)
    if o["ok"] == 0:
        raise typer.Exit(code=1)


def main() -> None:
    """Console entry point."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    sys.argv[1:] = ray_argv(sys.argv[1:])
    if sys.argv[1:2] != ["run"]:
        app()
        return
    try:
        app()
    except SystemExit as done:
        _end_run_process(done)


def _end_run_process(done: SystemExit) -> None:
    """End a finished ``sandbox run`` process without the interpreter tearing down its
    modules one object at a time (issue 26: 0.25-0.3 s of the main job, freeing what the
    process's end frees anyway). What the interpreter's exit does that matters runs first:
    other threads joined, ``atexit`` handlers (temporary folders of scene packs), logging
    and the standard streams flushed. The exit status is the one ``SystemExit`` carries."""
    import atexit
    import threading

    join_threads = getattr(threading, "_shutdown", None)
    if join_threads is None:  # another Python: exit the ordinary way
        raise done
    code = done.code
    if code is not None and not isinstance(code, int):
        sys.stderr.write(f"{code}\n")
        code = 1
    join_threads()
    atexit._run_exitfuncs()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`sandbox run | head`)
            code = code or 120
    os._exit(code or 0)


def ray_argv(args: list[str]) -> list[str]:
    """``odds --ray ADDRESS`` (or ``--ray=ADDRESS``) as ``--ray --ray-address ADDRESS``: typer
    has no option whose value may be left out. A word after ``--ray`` is an address when it is
    ``auto``, ``local`` or has a ``:`` (host:port, ray://...) and is no file."""
    if not args or args[0] != "odds":
        return args
    out: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("--ray="):
            out += ["--ray", "--ray-address", a.split("=", 1)[1]]
        elif a == "--ray" and i + 1 < len(args) and not args[i + 1].startswith("-") \
                and (args[i + 1] in ("auto", "local") or ":" in args[i + 1]) \
                and not Path(args[i + 1]).exists():
            if args[i + 1] == "local":
                out.append("--ray")
            else:
                out += ["--ray", "--ray-address", args[i + 1]]
            i += 1
        else:
            out.append(a)
        i += 1
    return out


if __name__ == "__main__":  # pragma: no cover
    main()
