"""Scene files: validation names the field and value; nothing crashes with a traceback."""

import subprocess
import sys
import textwrap

import pytest

from sandbox.core.errors import SceneError
from sandbox.engine.scene import load_scene, parse_armor, scene_from_dict, scene_to_dict

GOOD = textwrap.dedent(
    """
    name = "t"
    seed = 3
    [battlefield]
    width = 24
    depth = 16
    [[players]]
    name = "Red"
    [[creations]]
    id = "stack"
    owner = "Red"
    stats = { size = 2, armor = "2d10", weight_class = 2 }
    parts = [ { part = "3001", colour = 71 } ]
    [[drop_zones]]
    id = "pad"
    centre = [0.0, 0.0]
    size = 4
    [[actions]]
    type = "bombard"
    player = "Red"
    target = [0.0, 0.0]
    drop_zone = "pad"
    big_drop = true
    spacing = 1.5
    supplies = [ { part = "3003", size = 2 } ]
    """
)


def write(tmp_path, text):
    p = tmp_path / "scene.toml"
    p.write_text(text)
    return p


def test_good_scene_loads_and_round_trips(tmp_path):
    spec, base = load_scene(write(tmp_path, GOOD))
    assert spec.seed == 3 and spec.creations[0].stats.armor == "2d10"
    assert base == tmp_path.resolve()
    again = scene_from_dict(scene_to_dict(spec))
    assert again == spec


@pytest.mark.parametrize(
    "old,new,field,value",
    [
        ('armor = "2d10"', 'armor = "lots"', "creations[0].stats.armor", "'lots'"),
        ("width = 24", "width = -5", "battlefield.width", "-5"),
        ("spacing = 1.5", "spacing = -1", "actions[0].spacing", "-1"),
        ("big_drop = true", 'big_drop = "piano"', "actions[0].big_drop", "piano"),
        ('player = "Red"', 'player = "Blue"', "actions[0].player", "'Blue'"),
        ("seed = 3", 'seed = "x"', "seed", "'x'"),
        ('id = "stack"', 'id = "has space"', "creations[0].id", "'has space'"),
    ],
)
def test_invalid_fields_are_named_with_their_value(tmp_path, old, new, field, value):
    assert old in GOOD
    with pytest.raises(SceneError) as info:
        load_scene(write(tmp_path, GOOD.replace(old, new, 1)))
    msg = str(info.value)
    assert str(tmp_path) in msg
    assert value in msg
    assert field.split("[")[0] in msg


def test_the_retired_big_drop_action_is_refused_with_what_to_write(tmp_path):
    """BrikWars 13.2: The Big Drop is a Strategic Bombardment (Marked, paid, a turn to arrive);
    a scene file still holding the old same-action ``big_drop`` gets one line saying so."""
    old = GOOD.replace('type = "bombard"', 'type = "big_drop"')
    with pytest.raises(SceneError, match=r"actions\[0\]: the 'big_drop' action is gone.*"
                                         r"type = \"bombard\" with big_drop = true"):
        load_scene(write(tmp_path, old))
    from sandbox.engine.actions import parse_action

    with pytest.raises(SceneError, match="'big_drop' action is gone"):
        parse_action({"type": "big_drop", "player": "Red", "target": [0, 0]})


def test_unknown_field_is_rejected(tmp_path):
    with pytest.raises(SceneError, match="colour_scheme"):
        load_scene(write(tmp_path, GOOD.replace("seed = 3", "seed = 3\ncolour_scheme = 1")))


def test_toml_syntax_error_names_line(tmp_path):
    with pytest.raises(SceneError, match="line"):
        load_scene(write(tmp_path, GOOD + "\n[[creations]\n"))


def test_missing_file():
    with pytest.raises(SceneError, match="no such scene file"):
        load_scene("/nonexistent/scene.toml")


def test_armor_parsing():
    assert parse_armor(4) == (4, None)
    assert parse_armor("3d10") == (None, (3, 10))
    for bad in ("3d1", "d10", "x", -1, True):
        with pytest.raises(ValueError):
            parse_armor(bad)


def test_cli_reports_invalid_scene_without_traceback(tmp_path):
    p = write(tmp_path, GOOD.replace("width = 24", "width = 0"))
    r = subprocess.run([sys.executable, "-m", "sandbox.cli", "run", str(p), "--out",
                        str(tmp_path / "o")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert "battlefield.width" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout
