"""Every file is untrusted (issue 20): a corpus of bad inputs, family by family, each giving one
clear error of the project's own types or a warning naming file and line, never a crash, a
hang, a silent loss or a read outside the model's folder.

Static corpus files are in ``tests/corpus/``; large or system-dependent ones (deep chains, a
FIFO, ``/dev/zero``, big models, damaged replays and saves) are generated here.
"""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest

from sandbox.bricks import load_model
from sandbox.bricks.ldraw import parse_ldraw
from sandbox.core.errors import LDrawError, OutputError, ReplayError, SceneError
from sandbox.engine import replay as rp
from sandbox.engine.actions import parse_action
from sandbox.engine.game import Game
from sandbox.engine.scene import load_scene, scene_from_dict

CORPUS = Path(__file__).parent / "corpus"
BRICK = "1 4 0 {y} 0 1 0 0 0 1 0 0 0 1 3001.dat\n"


def scene_text(units: str = "", head: str = "", players: str = "") -> str:
    """A small valid scene (two players, one brick unit) with extra TOML spliced in."""
    return (f'name = "t"\nseed = 1\n{head}\n[battlefield]\nwidth = 20.0\ndepth = 20.0\n'
            f'[[players]]\nname = "Red"\n[[players]]\nname = "Blue"\n{players}\n'
            '[[units]]\nid = "a"\nowner = "Red"\nparts = [{part = "3001"}]\n'
            'position = [0.0, 0.0, 0.0]\n' + units)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "Traceback" not in text
    return text


# ====================================================================== recursion
def test_submodel_chain_1000_deep_is_one_clear_error(tmp_path, ldrawdir):
    lines = []
    for i in range(1000):
        lines += [f"0 FILE m{i}.ldr", f"1 4 0 0 0 1 0 0 0 1 0 0 0 1 m{i + 1}.ldr"]
    lines += ["0 FILE m1000.ldr", BRICK.format(y=0).strip()]
    path = write(tmp_path / "deep.mpd", "\n".join(lines) + "\n")
    with pytest.raises(LDrawError, match=r"nested more than 64 deep.*--max-nesting"):
        load_model(path, ldrawdir=ldrawdir)


def test_part_file_chain_1000_deep_is_cut_with_a_warning(tmp_path, ldrawdir):
    for i in range(1000):
        write(tmp_path / f"p{i}.dat", f"0 Part {i}\n0 !LDRAW_ORG Unofficial_Part\n"
              f"1 16 0 0 0 1 0 0 0 1 0 0 0 1 p{i + 1}.dat\n3 16 0 0 0 1 0 0 0 0 1\n")
    model = load_model(write(tmp_path / "m.ldr", "0 m\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 p0.dat\n"),
                       ldrawdir=ldrawdir)
    assert len(model.placements) == 1
    assert any("nested more than 64 deep" in str(w) for w in model.warnings)


def test_save_nested_100000_deep_is_one_replay_error(tmp_path):
    path = tmp_path / "deep.save.json"
    path.write_text('{"format": "brikwars-sandbox-save", "x": ' + "[" * 100_000
                    + "]" * 100_000 + "}")
    with pytest.raises(ReplayError, match="nested too deep|not a readable save"):
        Game.load(path)


def test_scene_nested_deep_is_one_scene_error(tmp_path):
    path = write(tmp_path / "deep.toml", "x = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(SceneError):
        load_scene(path)


# ====================================================================== resources
@pytest.mark.parametrize("loader,error", [
    (lambda p: load_model(p), LDrawError), (load_scene, SceneError), (Game.load, ReplayError),
    (rp.load_replay, ReplayError)])
def test_dev_zero_is_refused_unread(loader, error):
    with pytest.raises(error, match="is a device"):
        loader("/dev/zero")


@pytest.mark.parametrize("loader,error", [
    (lambda p: load_model(p), LDrawError), (load_scene, SceneError), (Game.load, ReplayError),
    (rp.load_replay, ReplayError)])
def test_fifo_is_refused_without_hanging(tmp_path, loader, error):
    fifo = tmp_path / "pipe.ldr"
    os.mkfifo(fifo)
    with pytest.raises(error, match="FIFO"):
        loader(fifo)


def test_file_size_limit_names_the_flag(tmp_path, monkeypatch):
    monkeypatch.setenv("SANDBOX_MAX_FILE_MB", "1")
    big = write(tmp_path / "big.ldr", "0 big\n" + "0 // padding\n" * 100_000)
    with pytest.raises(LDrawError, match=r"over the 1 MiB limit.*--max-file-mb"):
        load_model(big)
    with pytest.raises(SceneError, match="over the 1 MiB limit"):
        load_scene(write(tmp_path / "big.toml", "# x\n" * 300_000))


def test_part_limit_stops_a_huge_model_before_building_it(tmp_path, ldrawdir):
    # 25,000 placements: over the default limit of 20,000 (a 100,000-part model took 21.6 GB)
    text = "0 huge\n" + "".join(BRICK.format(y=-24 * (i % 50)) for i in range(25_000))
    with pytest.raises(LDrawError, match=r"more than 20000 parts.*--max-parts"):
        load_model(write(tmp_path / "huge.ldr", text), ldrawdir=ldrawdir)


def test_scene_wide_part_limit(tmp_path, ldrawdir, monkeypatch):
    monkeypatch.setenv("SANDBOX_MAX_PARTS", "5")
    model = write(tmp_path / "four.ldr", "0 four\n" + "".join(BRICK.format(y=-24 * i)
                                                              for i in range(4)))
    units = "".join(f'[[creations]]\nid = "c{i}"\nmodel = "{model}"\n'
                    f'position = [{2.0 * i - 6}, 5.0, 0.0]\n' for i in range(3))
    spec, base = load_scene(write(tmp_path / "s.toml", scene_text(units)))
    with pytest.raises(SceneError, match=r"creations\[c1\]: the scene's bodies hold more than "
                       r"5 parts in all"):
        Game(spec, base, ldrawdir=ldrawdir)


def test_mesh_memory_is_estimated_before_building(tmp_path, ldrawdir, monkeypatch):
    from sandbox.bricks import model_mesh

    model = load_model(write(tmp_path / "m.ldr", "0 m\n" + "".join(
        BRICK.format(y=-24 * i) for i in range(200))), ldrawdir=ldrawdir)
    monkeypatch.setenv("SANDBOX_MAX_MESH_MB", "1")
    with pytest.raises(LDrawError, match=r"MiB, over the 1 MiB limit.*--max-mesh-mb"):
        model_mesh(model)


def test_body_limit(tmp_path):
    units = "".join(f'[[units]]\nid = "u{i}"\nparts = [{{part = "3001"}}]\n' for i in range(501))
    with pytest.raises(SceneError, match=r"502 creations, units and reserves.*--max-bodies"):
        load_scene(write(tmp_path / "crowd.toml", scene_text(units)))


# ====================================================================== numbers
def test_colour_codes_out_of_range_warn_with_file_and_line(ldrawdir):
    model = load_model(CORPUS / "bad_colours.ldr", ldrawdir=ldrawdir)
    text = [str(w) for w in model.warnings]
    assert any("bad_colours.ldr:2: colour code -5 is out of range" in w for w in text)
    assert any("bad_colours.ldr:4: colour code 1234" in w for w in text)  # beyond 64 bits
    assert any("bad_colours.ldr:3: unknown colour code 9999" in w for w in text)
    assert len(model.placements) == 3


def test_huge_coordinates_are_one_clear_error(ldrawdir):
    with pytest.raises(LDrawError, match=r"huge_coords.ldr:2: .*beyond"):
        load_model(CORPUS / "huge_coords.ldr", ldrawdir=ldrawdir)
    warns = []
    files = parse_ldraw((CORPUS / "huge_coords.ldr").read_text(), "lib.dat", strict=False,
                        warnings=warns)
    assert len(files[0].refs) == 1 and len(warns) == 2


@pytest.mark.parametrize("seed", ["Infinity", "NaN", "1e999", "-Infinity"])
def test_non_finite_seed_in_a_save(tmp_path, seed):
    path = tmp_path / "s.save.json"
    path.write_text('{"format": "brikwars-sandbox-save", "version": 2, "seed": ' + seed + "}")
    with pytest.raises(ReplayError, match="finite|out of range"):
        Game.load(path)


def test_nan_in_an_action():
    with pytest.raises(SceneError, match="finite"):
        parse_action({"type": "move", "player": "Red", "unit": "a", "to": [float("nan"), 1.0]})


def test_non_finite_numbers_in_a_scene(tmp_path):
    for bad in ("inf", "nan", "-inf"):
        text = scene_text(f"\n[[creations]]\nid = \"b\"\nparts = [{{part = \"3001\"}}]\n"
                          f"position = [1.0, {bad}, 0.0]\n")
        with pytest.raises(SceneError, match=r"creations\[0\]\.position\[1\]"):
            load_scene(write(tmp_path / "n.toml", text))


# ====================================================================== replays
def small_replay(tmp_path) -> Path:
    rec = rp.Recorder(1 / 60)
    for f in range(20):
        rec.record({"a": ((0.0, 0.0, 10 - 0.5 * f), (0, 0, 0, 1))})
    rec.finish({"a": ((0.0, 0.0, 0.0), (0, 0, 0, 1))})
    r = rp.Replay(scene={"name": "t"}, seed=5, actions=[], events=[{"type": "setup", "text": "x"}],
                  tracks=rec.tracks, frame_dt=rec.frame_dt, frames=rec.frame)
    return rp.save_replay(r, tmp_path / "a.replay")


def npz_bytes(arrays: dict) -> bytes:
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


def test_bit_flips_in_compressed_arrays(tmp_path):
    path = small_replay(tmp_path)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("b0_pos.npy")
    local = data[info.header_offset:info.header_offset + 30]  # the local header's own lengths
    start = (info.header_offset + 30 + int.from_bytes(local[26:28], "little")
             + int.from_bytes(local[28:30], "little"))
    for k in range(0, info.compress_size, max(1, info.compress_size // 8)):
        bad = bytearray(data)
        bad[start + k] ^= 0x5A
        (tmp_path / "f.replay").write_bytes(bytes(bad))
        with pytest.raises(ReplayError) as err:
            rp.load_replay(tmp_path / "f.replay")
        assert "f.replay" in one_line(err.value)


@pytest.mark.parametrize("header", ["[1, 2, 3]", '"text"', "null",
                                    '{"format": "brikwars-replay", "version": true}'])
def test_header_of_the_wrong_json_type(tmp_path, header):
    raw = npz_bytes({"header_json": np.frombuffer(header.encode(), np.uint8)})
    (tmp_path / "h.replay").write_bytes(raw)
    with pytest.raises(ReplayError, match="h.replay"):
        rp.load_replay(tmp_path / "h.replay")


def test_scene_of_the_wrong_type_with_a_valid_checksum(tmp_path):
    header = {"format": "brikwars-replay", "version": 2, "scene": [1], "seed": 1, "actions": [],
              "events": [], "bodies": [], "frame_dt": 0.01, "frames": 0, "meta": {}}
    arrays = {"frame_times": np.zeros(0)}
    header["checksum"] = rp._checksum(dict(header), arrays)
    raw = npz_bytes({"header_json": np.frombuffer(json.dumps(header).encode(), np.uint8),
                     **arrays})
    (tmp_path / "s.replay").write_bytes(raw)
    with pytest.raises(ReplayError, match="'scene' is not a table"):
        rp.load_replay(tmp_path / "s.replay")


def test_npy_renamed_replay(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(10))
    os.replace(tmp_path / "x.npy", tmp_path / "x.replay")
    with pytest.raises(ReplayError, match="not a replay file"):
        rp.load_replay(tmp_path / "x.replay")


def test_declared_array_size_beyond_the_file_is_not_allocated(tmp_path):
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        head, {"descr": "<f8", "fortran_order": False, "shape": (10**12,)})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header_json.npy", head.getvalue() + b"\0" * 64)
    (tmp_path / "big.replay").write_bytes(buf.getvalue())
    with pytest.raises(ReplayError, match=r"declares \(1000000000000,\)"):
        rp.load_replay(tmp_path / "big.replay")


def test_object_arrays_are_refused(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        arr = io.BytesIO()
        np.save(arr, np.array([{"a": 1}], dtype=object), allow_pickle=True)
        z.writestr("header_json.npy", arr.getvalue())
    (tmp_path / "o.replay").write_bytes(buf.getvalue())
    with pytest.raises(ReplayError, match="unexpected array type"):
        rp.load_replay(tmp_path / "o.replay")


# ====================================================================== rich markup
def test_event_text_with_markup_is_printed_literally(capsys):
    from sandbox import cli

    cli._print_event({"type": "warning", "time": 0.0, "text": "unit [/] and [bold]x[/bold]"})
    cli._print_event({"type": "[bold]odd", "time": 0.0, "text": "[/]"})
    out = capsys.readouterr().out
    assert "unit [/] and [bold]x[/bold]" in out and "[bold]odd" in out


def test_error_text_with_markup_is_printed_literally(tmp_path):
    from typer.testing import CliRunner

    from sandbox import cli

    bad = write(tmp_path / "[bold]odd[red].ldr", "0 x\n1 4 0 0 0 1 0 0 0 1 0 0 0\n")
    res = CliRunner().invoke(cli.app, ["model", "info", str(bad)])
    assert res.exit_code == 2
    assert "[bold]odd[red].ldr" in res.output and "Traceback" not in res.output
    good = write(tmp_path / "[red]ok.ldr", "0 x\n" + BRICK.format(y=0))
    res = CliRunner().invoke(cli.app, ["model", "info", str(good)])
    assert res.exit_code == 0 and "[red]ok.ldr" in res.output


# ====================================================================== output folders
def test_output_folder_problems_are_one_line(tmp_path):
    from sandbox.app.headless import run_scene
    from sandbox.app.outputs import check_output_dir

    scene = write(tmp_path / "s.toml", scene_text())
    a_file = write(tmp_path / "file", "x")
    with pytest.raises(OutputError, match="is a file, not a folder"):
        run_scene(scene, out_dir=a_file, png=False)
    with pytest.raises(OutputError, match="inside /proc"):
        run_scene(scene, out_dir="/proc/sandbox-out", png=False)
    with pytest.raises(OutputError, match="cannot create"):
        check_output_dir(a_file / "sub")
    if os.geteuid() != 0:  # root writes anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        with pytest.raises(OutputError, match="cannot write"):
            check_output_dir(ro)


def test_export_into_proc_is_one_line(tmp_path):
    from sandbox.app.export import export_replay

    r = rp.load_replay(small_replay(tmp_path))
    with pytest.raises(OutputError, match="--export"):
        export_replay(r, Path("/proc/nope/x.gif"), {}, width=64, height=48)


def test_a_failed_write_leaves_the_previous_set(tmp_path, monkeypatch):
    from sandbox.app import outputs

    out = tmp_path / "run"
    outputs.write_output_set(out, {"a.txt": b"old a", "b.txt": b"old b"})
    write(out / "notes.md", "mine")
    calls = []

    def failing(path, data):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        Path(path).write_bytes(data)

    monkeypatch.setattr(outputs, "_write_file", failing)
    with pytest.raises(OutputError, match="No space left"):
        outputs.write_output_set(out, {"a.txt": b"new a", "b.txt": b"new b"})
    assert (out / "a.txt").read_bytes() == b"old a" and (out / "b.txt").read_bytes() == b"old b"
    assert (out / "notes.md").read_text() == "mine"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".run.new-")]
    monkeypatch.undo()
    outputs.write_output_set(out, {"a.txt": b"new a", "b.txt": b"new b"})
    assert (out / "a.txt").read_bytes() == b"new a" and (out / "notes.md").read_text() == "mine"


# ====================================================================== LDraw silent losses
@pytest.mark.parametrize("name,where,words,parts", [
    ("polygon_only.ldr", ":3:", "draws lines or polygons of its own", 0),
    ("nofile_first.mpd", ":1:", "'0 NOFILE' outside an MPD", 1),
    ("data_in_ldr.ldr", ":2:", "'0 !DATA' outside an MPD", 1),
    ("bom_inside.mpd", ":3:", "byte order mark inside the file", 1),
    ("singular.ldr", ":2:", "singular", 1),
    ("unnamed_file.mpd", ":3:", "'0 FILE' without a file name", 2),
])
def test_ldraw_losses_are_warned_with_file_and_line(ldrawdir, name, where, words, parts):
    model = load_model(CORPUS / name, ldrawdir=ldrawdir)
    text = [str(w) for w in model.warnings]
    assert any(name + where in w and words in w for w in text), text
    assert len(model.placements) == parts


def test_lines_after_nofile_are_warned(tmp_path, ldrawdir):
    path = write(tmp_path / "m.mpd", "0 FILE main.ldr\n" + BRICK.format(y=0)
                 + "0 NOFILE\n" + BRICK.format(y=-24))
    model = load_model(path, ldrawdir=ldrawdir)
    assert any("m.mpd:4: LDraw lines after '0 NOFILE'" in str(w) for w in model.warnings)


# ====================================================================== overlaps at set-up
def test_overlapping_creations_are_warned_naming_both_and_the_depth(tmp_path, ldrawdir):
    text = scene_text('[[creations]]\nid = "wall"\nparts = [{part = "3001"}]\n'
                      'position = [0.3, 0.0, 0.0]\n')
    spec, base = load_scene(write(tmp_path / "o.toml", text))
    with Game(spec, base, ldrawdir=ldrawdir) as game:
        assert any(re.search(r"creations\[wall\] and units\[a\] overlap by 0\.[3-6]\d\d\" at "
                             r"set-up", w) for w in game.warnings), game.warnings
        assert game.dice.records() == []  # set-up rolls no Collision Damage


def test_a_slight_overlap_is_warned_and_rolls_no_dice(tmp_path, ldrawdir):
    text = scene_text('[[creations]]\nid = "wall"\nparts = [{part = "3001"}]\n'
                      'position = [0.0, 0.55, 0.0]\n')  # a 2x4 is 0.63" deep: 0.08" into it
    spec, base = load_scene(write(tmp_path / "o.toml", text))
    with Game(spec, base, ldrawdir=ldrawdir) as game:
        warns = [e["text"] for e in game.events if e["type"] == "warning"]
        assert any("creations[wall] and units[a] overlap by 0.0" in w for w in warns), warns
        assert not [e for e in game.events if e["type"] in ("roll", "damage", "impact")]
        assert game.dice.records() == []


# ====================================================================== security
def test_references_outside_the_folder_are_refused_unopened(ldrawdir, monkeypatch):
    import sandbox.bricks.ldraw as ldraw_mod

    opened = []
    real = ldraw_mod.read_input_bytes
    monkeypatch.setattr(ldraw_mod, "read_input_bytes",
                        lambda p, what="file": opened.append(str(p)) or real(p, what))
    model = load_model(CORPUS / "inner" / "reaches_out.ldr", ldrawdir=ldrawdir)
    text = [str(w) for w in model.warnings]
    assert any("reaches_out.ldr:2: reference '../outside.ldr' points outside" in w for w in text)
    assert any("reaches_out.ldr:3: reference '/etc/hostname' points outside" in w for w in text)
    assert len(model.placements) == 1
    assert not [p for p in opened if "outside" in p or "hostname" in p]


@pytest.mark.parametrize("name", [None, "secret.ldr"])
def test_a_non_ldraw_model_is_not_quoted(tmp_path, ldrawdir, name):
    """A text file named as a model: refused by its name, unopened; the same text in a file
    named like an LDraw file is read and refused without quoting it."""
    path = CORPUS / "secret.txt"
    if name is not None:
        path = tmp_path / name
        path.write_bytes((CORPUS / "secret.txt").read_bytes())
    text = scene_text('[[creations]]\nid = "s"\nmodel = "' + str(path)
                      + '"\nposition = [5.0, 5.0, 0.0]\n')
    spec, base = load_scene(write(tmp_path / "p.toml", text))
    with pytest.raises((LDrawError, SceneError)) as err:
        Game(spec, base, ldrawdir=ldrawdir)
    assert "not an LDraw file" in str(err.value) and "SECRET" not in str(err.value)
    assert "root:x" not in str(err.value)
    if name is None:
        assert "refused (not opened)" in str(err.value)


def test_an_edited_save_is_refused(tmp_path, ldrawdir):
    spec, base = load_scene(write(tmp_path / "s.toml", scene_text()))
    with Game(spec, base, ldrawdir=ldrawdir) as game:
        path = game.save(tmp_path / "g.save.json")
    doc = json.loads(path.read_text())
    doc["scene"]["units"][0]["stats"]["armor"] = 9
    write(tmp_path / "edited.save.json", json.dumps(doc))
    with pytest.raises(ReplayError, match="does not match its file checksum"):
        Game.load(tmp_path / "edited.save.json", ldrawdir)
    del doc["file_checksum"]
    write(tmp_path / "nosum.save.json", json.dumps(doc))
    with pytest.raises(ReplayError, match="no file checksum"):
        Game.load(tmp_path / "nosum.save.json", ldrawdir)
    Game.load(path, ldrawdir).close()  # the untouched file loads


@pytest.mark.parametrize("units,head,players,field", [
    ('[[creations]]\nid = "b"\nparts = [{part = "3001.dat\\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 x.dat"}]\n',
     "", "", r"creations\[0\]\.parts\[0\]\.part: control characters"),
    ('[[creations]]\nid = "b"\nparts = [{part = "3001"}]\nposition = [5.0, 5.0, 0.0]\n'
     'stats = {armor = true}\n', "", "", r"creations\[0\]\.stats\.armor"),
    ("", "", "", r"battlefield\.width: expected a number"),
    ('[[creations]]\nid = "b"\nparts = [{part = "3001"}]\nstats = {size = inf}\n', "", "",
     r"creations\[0\]\.stats\.size"),
    ('[[creations]]\nid = "b"\nparts = [{part = "3001"}]\nstats = {move = 1e400}\n', "", "",
     r"creations\[0\]\.stats\.move"),
    ("", "format = 2", "", r"format: scene format version 2 is not supported"),
    ('[[launchers]]\nid = "l"\ntype = "Launcher"\nsize = 2\ncreation = "ghost"\n'
     'muzzle = [0.0, 0.0, 1.0]\nloading_area = [0.0, 0.0, 0.5]\n', "", "",
     r"launchers\[0\]\.creation 'ghost'"),
    ("", "", '[[players]]\nname = "Red"\n', r"duplicate player names \['Red'\]"),
    ('[[creations]]\nid = "b"\ncolour = 123456789012\nparts = [{part = "3001"}]\n', "", "",
     r"creations\[0\]\.colour"),
])
def test_scene_validation_names_the_field(tmp_path, units, head, players, field):
    text = scene_text(units, head, players)
    if "width" in field:
        text = text.replace("width = 20.0", "width = true")
    with pytest.raises(SceneError, match=field):
        load_scene(write(tmp_path / "v.toml", text))


def test_the_valid_scene_template_loads(tmp_path):
    spec, _ = load_scene(write(tmp_path / "ok.toml", scene_text()))
    assert spec.units[0].id == "a"
    assert scene_from_dict(spec.model_dump(mode="json"), "x").units[0].id == "a"


def test_replay_meta_of_the_wrong_kind(tmp_path):
    for meta in ({"scene_dir": "a\x00b"}, {"scene_dir": 5}, {"finished": "yes"}):
        r = rp.load_replay(small_replay(tmp_path))
        r.meta = meta
        rp.save_replay(r, tmp_path / "m.replay")
        with pytest.raises(ReplayError, match="meta"):
            rp.load_replay(tmp_path / "m.replay")


def test_outputs_are_never_written_over_a_device_or_fifo(tmp_path):
    """An atomic write renames over its target: a FIFO or a device (/dev/full) given as an
    output would become a plain file. Refused with one line instead; nothing changes."""
    import os
    import stat

    from sandbox.core.errors import OutputError
    from sandbox.engine.replay import atomic_write_bytes

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="not a regular file"):
        atomic_write_bytes(fifo, b"x")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    if os.path.exists("/dev/null"):
        with pytest.raises(OutputError, match="not a regular file"):
            atomic_write_bytes("/dev/null", b"x")
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_odds_actions_file_that_is_a_fifo_is_refused_unread(tmp_path):
    import os

    from sandbox.app.odds import load_actions
    from sandbox.core.errors import SceneError

    fifo = tmp_path / "acts.json"
    os.mkfifo(fifo)
    with pytest.raises(SceneError, match="--actions"):
        load_actions(fifo)  # would block forever if it were opened


@pytest.mark.parametrize("model", ["../../etc/passwd", "/dev/zero", "notes.txt"])
def test_a_scene_model_that_is_not_an_ldraw_file_name_is_refused_unopened(tmp_path, model):
    """A scene naming a system file or a device as a model is refused by its name, before
    anything is read: one line naming the entry."""
    from sandbox.engine.assets import resolve_model_path

    with pytest.raises(SceneError, match=r"units\[spy\]\.model: .* is not an LDraw file name"):
        resolve_model_path(model, tmp_path, None, "units[spy]")


def test_scene_errors_are_one_line_naming_the_file_and_field(tmp_path, ldrawdir):
    """A single problem is one line, ``file: field: what (got value)``, whether it is found
    while reading the file or while its table is built (a missing model)."""
    from sandbox.engine.game import open_game

    bad = write(tmp_path / "w.toml", scene_text().replace("width = 20.0", "width = -20.0"))
    with pytest.raises(SceneError) as err:
        load_scene(bad)
    assert str(err.value) == (f"{bad}: battlefield.width: Input should be greater than 0 "
                              "(got -20.0)")
    gone = write(tmp_path / "m.toml", scene_text(
        '[[creations]]\nid = "c"\nmodel = "nope.ldr"\n'))
    with pytest.raises(SceneError) as err:
        open_game(gone, ldrawdir=ldrawdir)
    text = str(err.value)
    assert "\n" not in text and text.startswith(f"{gone}: creations[c].model: no such file")
