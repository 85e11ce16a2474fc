"""Scene packs (``sandbox pack``, ``.brikpack``) and portable saves: a pack round trip through
run, open_game and saves; hostile archives refused in one line; saves that keep working when
the scene folder (or the pack) moves along with them, and old saves with absolute paths."""

from __future__ import annotations

import io
import json
import shutil
import stat
import zipfile
from pathlib import Path

import pytest
from conftest import REPO
from typer.testing import CliRunner

from sandbox.app.pack import collect, write_pack
from sandbox.cli import app
from sandbox.core import brikpack
from sandbox.core.brikpack import (
    MANIFEST,
    open_pack,
    pack_bytes,
    read_pack,
    resolve_scene_dir,
    sha256_hex,
)
from sandbox.core.errors import ReplayError, SceneError
from sandbox.engine.game import Game, open_game

SKIRMISH = REPO / "scenes" / "skirmish.toml"


@pytest.fixture(autouse=True)
def _no_library(monkeypatch):
    monkeypatch.delenv("LDRAWDIR", raising=False)  # the shipped scenes need no library


def _play_a_move(game: Game) -> None:
    game.apply({"type": "move", "player": "Lion Knights", "unit": "knight1", "to": [-4.0, -3.0]})
    game.end_turn()


# ---------------------------------------------------------------------------- round trip
def test_pack_holds_the_scene_and_its_models_with_checksums(tmp_path):
    res = write_pack(SKIRMISH, tmp_path / "battle.brikpack")
    assert res.scene == "scenes/skirmish.toml"
    assert set(res.members) == {"scenes/skirmish.toml", "models/trooper.ldr"}
    manifest, files = read_pack(res.path)
    assert manifest["scene"] == "scenes/skirmish.toml"
    for name, data in files.items():
        src = REPO / name
        assert data == src.read_bytes()
        assert manifest["files"][name] == {"size": len(data), "sha256": sha256_hex(data)}
    # the same scene packs to the same bytes (no time stamps)
    again = write_pack(SKIRMISH, tmp_path / "again.brikpack")
    assert again.path.read_bytes() == res.path.read_bytes()


def test_a_pack_plays_as_its_scene_does(tmp_path):
    pack = write_pack(SKIRMISH, tmp_path / "battle.brikpack").path
    with open_game(SKIRMISH) as a, open_game(pack) as b:
        assert set(a.bodies) == set(b.bodies)
        _play_a_move(a)
        _play_a_move(b)
        assert a.state_hash() == b.state_hash()
        assert b.scene_origin == pack.resolve()


def test_pack_takes_local_files_a_model_references_but_not_embedded_ones(tmp_path):
    src = tmp_path / "src"
    (src / "models" / "parts").mkdir(parents=True)
    (src / "models" / "parts" / "myblock.dat").write_text(
        "0 my block\n0 Name: myblock.dat\n0 !LDRAW_ORG Unofficial_Part\n"
        "1 16 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    (src / "models" / "Sub.ldr").write_text(
        "0 sub\n1 16 0 0 0 1 0 0 0 1 0 0 0 1 parts/myblock.dat\n")
    (src / "models" / "main.mpd").write_text(
        "0 FILE main.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 sub.ldr\n"
        "1 4 0 -24 0 1 0 0 0 1 0 0 0 1 inner.ldr\n"
        "0 FILE inner.ldr\n1 1 0 0 0 1 0 0 0 1 0 0 0 1 3003.dat\n")
    (src / "models" / "unused.ldr").write_text("0 not referenced\n")
    (src / "scenes").mkdir()
    scene = src / "scenes" / "s.toml"
    scene.write_text('name = "t"\n[[players]]\nname = "A"\n[[units]]\nid = "u"\n'
                     'model = "../models/main.mpd"\nowner = "A"\n')
    member, files = collect(scene)
    assert member == "scenes/s.toml"
    assert set(files) == {"scenes/s.toml", "models/main.mpd", "models/Sub.ldr",
                          "models/parts/myblock.dat"}
    out = write_pack(scene, tmp_path / "t.brikpack").path
    shutil.rmtree(src)  # the pack alone is enough
    with open_game(out) as game:
        assert len(game.assets["u"].model.placements) == 2


def test_run_cli_opens_a_pack_and_its_replay_verifies(tmp_path):
    pack = tmp_path / "battle.brikpack"
    r = CliRunner().invoke(app, ["pack", "smoke_los", "-o", str(pack)])
    assert r.exit_code == 0, r.output
    assert "scenes/smoke_los.toml" in r.stdout
    r = CliRunner().invoke(app, ["run", str(pack), "--no-png", "-q", "--out",
                                 str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    replay = tmp_path / "o" / "battle.replay"
    from sandbox.app.headless import verify_replay
    from sandbox.engine.replay import load_replay

    rp = load_replay(replay)
    assert rp.meta["scene_dir"] == str(pack.resolve())
    assert verify_replay(rp, base_dir=replay.parent)["ok"]


def test_pack_refuses_an_output_name_without_the_ending(tmp_path):
    r = CliRunner().invoke(app, ["pack", "smoke_los", "-o", str(tmp_path / "x.zip")])
    assert r.exit_code == 2 and ".brikpack" in r.output


# ---------------------------------------------------------------------------- hostile packs
def _zip(members: dict[str, bytes], manifest: dict | None | bool = True,
         link: str | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        if manifest is True:
            manifest = {"format": brikpack.PACK_FORMAT, "version": 1,
                        "scene": next(iter(members)),
                        "files": {n: {"size": len(b), "sha256": sha256_hex(b)}
                                  for n, b in members.items()}}
        if manifest:
            z.writestr(MANIFEST, json.dumps(manifest))
        for name, data in members.items():
            z.writestr(name, data)
        if link is not None:
            info = zipfile.ZipInfo(link)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(info, "/etc/passwd")
    return buf.getvalue()


SCENE_TEXT = SKIRMISH.read_bytes()


def _refused(tmp_path: Path, data: bytes, words: str) -> str:
    p = tmp_path / "evil.brikpack"
    p.write_bytes(data)
    before = sorted(tmp_path.parent.rglob("*"))
    with pytest.raises(SceneError) as exc:
        open_pack(p)
    msg = str(exc.value)
    assert "\n" not in msg and "evil.brikpack" in msg and words in msg, msg
    assert sorted(tmp_path.parent.rglob("*")) == before  # nothing written anywhere
    return msg


@pytest.mark.parametrize("name", ["/etc/cron.d/x", "../x.toml", "a/../../x.toml",
                                  "..\\x.toml", "C:/x.toml", "a//b.toml", "a/./b.toml",
                                  "a\x01b.toml"])
def test_member_paths_outside_the_pack_are_refused(tmp_path, name):
    _refused(tmp_path, _zip({"s.toml": SCENE_TEXT, name: b"x"}), "refused")


def test_links_are_refused(tmp_path):
    _refused(tmp_path, _zip({"s.toml": SCENE_TEXT}, link="models"), "is a link")


def test_too_many_members_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(brikpack, "MAX_MEMBERS", 5)
    members = {"s.toml": SCENE_TEXT} | {f"m{i}.ldr": b"0\n" for i in range(5)}
    _refused(tmp_path, _zip(members), "more than a pack may hold (5)")


def test_a_zip_bomb_is_refused_by_size_and_in_total(tmp_path, monkeypatch):
    monkeypatch.setenv("SANDBOX_MAX_FILE_MB", "1")
    bomb = b"\0" * (3 << 20)  # 3 MiB of zeros: a few KiB compressed
    data = _zip({"s.toml": SCENE_TEXT, "models/bomb.ldr": bomb})
    assert len(data) < 64 << 10
    _refused(tmp_path, data, "above the file_mb limit")
    monkeypatch.delenv("SANDBOX_MAX_FILE_MB")
    monkeypatch.setattr(brikpack, "MAX_TOTAL_MB", 2)
    members = {"s.toml": SCENE_TEXT} | {f"models/b{i}.ldr": b"\0" * (1 << 20) for i in range(3)}
    _refused(tmp_path, _zip(members), "more than a pack may (2 MiB)")


def test_a_member_that_lies_about_its_size_is_caught(tmp_path):
    data = bytearray(_zip({"s.toml": SCENE_TEXT, "m.ldr": b"0 " + b"a" * 5000 + b"\n"}))
    # shrink m.ldr's declared size in the central directory: reading stops or the CRC fails
    i = 0
    while True:
        i = data.find(b"PK\x01\x02", i)
        if data[i + 46:i + 46 + 5] == b"m.ldr":
            break
        i += 4
    data[i + 24:i + 28] = (10).to_bytes(4, "little")
    msg = _refused(tmp_path, bytes(data), "m.ldr")
    assert "cannot be read" in msg or "does not match" in msg


@pytest.mark.parametrize("case,words", [
    ("edited", "does not match its SHA-256"),
    ("unlisted", "not listed"),
    ("missing", "missing"),
    ("no_manifest", "no manifest.json"),
    ("wrong_format", "not a brikwars-sandbox-pack manifest"),
    ("scene_not_toml", "'scene' must name a packed .toml file"),
    ("not_zip", "not a zip archive"),
    ("bad_json", "manifest.json is not valid JSON"),
])
def test_manifest_and_checksums_are_checked(tmp_path, case, words):
    good = {"s.toml": SCENE_TEXT, "m.ldr": b"0 model\n"}
    manifest = {"format": brikpack.PACK_FORMAT, "version": 1, "scene": "s.toml",
                "files": {n: {"size": len(b), "sha256": sha256_hex(b)} for n, b in good.items()}}
    if case == "edited":
        data = _zip({**good, "m.ldr": b"0 changed\n"}, manifest)
    elif case == "unlisted":
        data = _zip({**good, "extra.ldr": b"0\n"}, manifest)
    elif case == "missing":
        data = _zip({"s.toml": SCENE_TEXT}, manifest)
    elif case == "no_manifest":
        data = _zip(good, None)
    elif case == "wrong_format":
        data = _zip(good, {**manifest, "format": "zip"})
    elif case == "scene_not_toml":
        data = _zip(good, {**manifest, "scene": "m.ldr"})
    elif case == "bad_json":
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr(MANIFEST, "{not json")
        data = buf.getvalue()
    else:
        data = b"PK\x03\x04 not really a zip"
    _refused(tmp_path, data, words)


def test_cli_reports_a_hostile_pack_in_one_line(tmp_path):
    p = tmp_path / "evil.brikpack"
    p.write_bytes(_zip({"s.toml": SCENE_TEXT, "../../x": b"x"}))
    for cmd in (["run", str(p), "--no-png", "--out", str(tmp_path / "o")], ["serve", str(p)]):
        r = CliRunner().invoke(app, cmd)
        assert r.exit_code == 2, r.output
        assert "evil.brikpack" in r.output and "Traceback" not in r.output
        assert len(r.output.strip().splitlines()) == 1


@pytest.mark.parametrize("model, words", [("../../etc/passwd", "is not an LDraw file name"),
                                          ("missing.ldr", "")])
def test_packing_a_bad_model_names_the_unit_it_belongs_to(tmp_path, model, words):
    scene = tmp_path / "s.toml"
    scene.write_text('name = "t"\n[[players]]\nname = "A"\n[[units]]\nid = "knight1"\n'
                     f'model = "{model}"\nowner = "A"\n')
    with pytest.raises(SceneError) as exc:
        collect(scene)
    msg = str(exc.value)
    assert msg.startswith(f"{scene}: units[knight1].model: ") and words in msg, msg
    assert "model.model" not in msg


def test_packing_a_hostile_member_name_is_refused():
    with pytest.raises(SceneError, match="cannot pack '../x'"):
        pack_bytes("s.toml", {"s.toml": b"", "../x": b""})


# ---------------------------------------------------------------------------- saves
def _copy_tree(dst: Path) -> Path:
    (dst / "scenes").mkdir(parents=True)
    shutil.copytree(REPO / "models", dst / "models")
    shutil.copy(SKIRMISH, dst / "scenes" / "skirmish.toml")
    return dst / "scenes" / "skirmish.toml"


def test_a_save_finds_its_scene_after_both_move(tmp_path):
    scene = _copy_tree(tmp_path / "a")
    with open_game(scene) as game:
        _play_a_move(game)
        want = game.state_hash()
        save = game.save(tmp_path / "a" / "saves" / "my.save.json")
    doc = json.loads(save.read_text())
    assert doc["scene_dir"] == "../scenes"  # relative to the save's folder
    shutil.move(tmp_path / "a", tmp_path / "b")  # the whole folder moves (or is zipped up)
    with Game.load(tmp_path / "b" / "saves" / "my.save.json") as game:
        assert game.state_hash() == want
        assert game.base_dir.resolve() == (tmp_path / "b" / "scenes").resolve()


def test_an_old_save_with_an_absolute_scene_dir_still_loads(tmp_path):
    from sandbox.engine.game import save_file_checksum

    scene = _copy_tree(tmp_path / "a")
    with open_game(scene) as game:
        _play_a_move(game)
        want = game.state_hash()
        doc = game.save_doc()  # what older builds wrote: an absolute folder
    assert Path(doc["scene_dir"]).is_absolute()
    doc["file_checksum"] = save_file_checksum(doc)
    old = tmp_path / "elsewhere" / "old.save.json"
    old.parent.mkdir()
    old.write_text(json.dumps(doc))
    with Game.load(old) as game:
        assert game.state_hash() == want


def test_a_save_of_a_pack_game_reopens_the_pack(tmp_path):
    pack = write_pack(SKIRMISH, tmp_path / "battle.brikpack").path
    with open_game(pack) as game:
        _play_a_move(game)
        want = game.state_hash()
        save = game.save(tmp_path / "battle.save.json")
    assert json.loads(save.read_text())["scene_dir"] == "battle.brikpack"
    moved = tmp_path / "friend"
    moved.mkdir()
    shutil.move(pack, moved / pack.name)
    shutil.move(save, moved / save.name)
    brikpack._cleanup()  # a new process: nothing unpacked yet
    with Game.load(moved / save.name) as game:
        assert game.state_hash() == want
        assert game.scene_origin == (moved / pack.name).resolve()


def test_resolve_scene_dir_falls_back_to_the_save_folder(tmp_path):
    for value in (None, 5, "", "a\x00b", "/no/such/dir", "missing.brikpack", "x" * 5000):
        assert resolve_scene_dir(value, tmp_path) == (tmp_path, None)
    (tmp_path / "sub").mkdir()
    assert resolve_scene_dir("sub", tmp_path) == (tmp_path / "sub", None)
    evil = tmp_path / "evil.brikpack"
    evil.write_bytes(b"not a zip")
    with pytest.raises(SceneError):
        resolve_scene_dir("evil.brikpack", tmp_path)


def test_a_save_naming_a_hostile_pack_is_a_replay_error(tmp_path):
    from sandbox.engine.game import save_file_checksum

    with open_game(SKIRMISH) as game:
        doc = game.save_doc()
    (tmp_path / "evil.brikpack").write_bytes(_zip({"s.toml": SCENE_TEXT, "/abs": b""}))
    doc["scene_dir"] = "evil.brikpack"
    doc["file_checksum"] = save_file_checksum(doc)
    (tmp_path / "x.save.json").write_text(json.dumps(doc))
    with pytest.raises(ReplayError, match="evil.brikpack"):
        Game.load(tmp_path / "x.save.json")


def test_play_opens_a_pack_or_a_shipped_name_and_saves_beside_the_pack(tmp_path, monkeypatch):
    import sandbox.app.table.launch as launch  # where `sandbox play` takes the window from
    from sandbox.app.shipped import scenes_dir

    seen = []
    monkeypatch.setattr(launch, "play", lambda path, **kw: seen.append((path, kw["save_path"])))
    pack = write_pack(SKIRMISH, tmp_path / "battle.brikpack").path
    assert CliRunner().invoke(app, ["play", str(pack)]).exit_code == 0
    assert CliRunner().invoke(app, ["play", "skirmish"]).exit_code == 0
    assert seen == [(pack, tmp_path / "battle.save.json"), (scenes_dir() / "skirmish.toml", None)]


def test_serve_saves_beside_a_pack_and_a_named_scene_here(tmp_path, monkeypatch):
    import sandbox.net

    saves = []

    class FakeServer:  # records where the server would save; serves nothing
        def __init__(self, game, seats, **kw):
            saves.append((sorted(game.bodies), kw["save_path"]))

        async def serve_forever(self):
            return None

    monkeypatch.setattr(sandbox.net, "GameServer", FakeServer)
    monkeypatch.chdir(tmp_path)
    pack = write_pack(SKIRMISH, tmp_path / "battle.brikpack").path
    for arg in (str(pack), "skirmish"):
        r = CliRunner().invoke(app, ["serve", arg])
        assert r.exit_code == 0, r.output
    with open_game(SKIRMISH) as game:
        bodies = sorted(game.bodies)
    assert saves == [(bodies, tmp_path / "battle.save.json"), (bodies, Path("skirmish.save.json"))]
