"""One clear line for a hostile or careless file (found by trying the sandbox as a new user):
an action with no ``type`` said pydantic's "Unable to extract tag using discriminator 'type'",
an unknown type listed some sixty names on one line, and a save whose ``scene_dir`` is a
number was silently accepted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_net import DUEL

from sandbox import open_game
from sandbox.core.errors import ReplayError, SceneError
from sandbox.engine.actions import parse_action
from sandbox.engine.game import Game, save_file_checksum
from sandbox.engine.scene import load_scene

MOVE = '[[actions]]\ntype = "move"\nplayer = "Red"\nunit = "red1"\nto = [-2.0, 0.0]\n'


def _scene(tmp_path: Path, second: str) -> Path:
    p = tmp_path / "typo.toml"
    p.write_text(DUEL + MOVE + "[[actions]]\n" + second + 'player = "Red"\nunit = "red1"\n'
                 "to = [-1.0, 0.0]\n")
    return p


def _refusal(path: Path) -> str:
    with pytest.raises(SceneError) as err:
        load_scene(path)
    msg = str(err.value)
    assert "\n" not in msg and len(msg) < 300, msg
    assert "Unable to extract tag" not in msg and "discriminator" not in msg
    return msg


def test_an_action_with_no_type_says_so(tmp_path):
    p = _scene(tmp_path, "")
    assert _refusal(p).startswith(f"{p}: actions[1]: no type (")


def test_a_misspelt_action_type_names_the_closest(tmp_path):
    p = _scene(tmp_path, 'type = "mvoe"\n')
    msg = _refusal(p)
    assert msg.startswith(f"{p}: actions[1]: unknown action type 'mvoe' (did you mean 'move'")


def test_an_unknown_action_type_points_to_the_scene_docs(tmp_path):
    p = _scene(tmp_path, 'type = "xyzzy_qwerty"\n')
    msg = _refusal(p)
    assert msg == (f"{p}: actions[1]: unknown action type 'xyzzy_qwerty' (see docs/SCENES.md "
                   "for the action types)")
    assert "end_turn" not in msg and "ignite" not in msg  # no list of every type


@pytest.mark.parametrize("data, words", [
    ({"player": "Red"}, "save.json:actions[3]: no type ("),
    ({"type": "atack", "player": "Red"}, "unknown action type 'atack' (did you mean 'attack'"),
    ({"type": 7, "player": "Red"}, "type: expected the name of an action type, got int"),
])
def test_a_save_or_network_action_with_a_bad_type_is_one_line(data, words):
    with pytest.raises(SceneError) as err:
        parse_action(data, "save.json:actions[3]")
    assert words in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("value", [5, 1.5, ["scenes"], {"a": 1}, True])
def test_a_save_whose_scene_dir_is_not_a_folder_name_is_refused(tmp_path, value):
    scene = tmp_path / "duel.toml"
    scene.write_text(DUEL)
    save = tmp_path / "g.save.json"
    with open_game(scene) as g:
        g.save(save)
    doc = json.loads(save.read_text())
    doc["scene_dir"] = value
    doc["file_checksum"] = save_file_checksum(doc)  # as an attacker can
    save.write_text(json.dumps(doc))
    with pytest.raises(ReplayError) as err:
        Game.load(save)
    msg = str(err.value)
    assert msg.startswith(f"{save}: malformed save file: scene_dir must name a folder") \
        and "\n" not in msg, msg
