"""``sandbox schema`` and docs/SCENES.md: the scene file's JSON Schema, generated from the scene
model (actions from the registry), and the field reference generated from the schema."""

from __future__ import annotations

import json
import tomllib

import jsonschema
import pytest
from conftest import REPO
from typer.testing import CliRunner

from sandbox.app.scene_schema import scene_docs_markdown, scene_schema
from sandbox.cli import app
from sandbox.engine.actions import REGISTRY


@pytest.fixture(scope="module")
def schema() -> dict:
    s = scene_schema()
    jsonschema.Draft202012Validator.check_schema(s)
    return s


def test_every_shipped_scene_is_valid_against_the_schema(schema):
    v = jsonschema.Draft202012Validator(schema)
    for path in sorted((REPO / "scenes").glob("*.toml")):
        errors = list(v.iter_errors(tomllib.loads(path.read_text())))
        assert errors == [], f"{path.name}: {errors[0].message}"


def test_schema_rejects_what_the_loader_rejects(schema):
    v = jsonschema.Draft202012Validator(schema)
    base = tomllib.loads((REPO / "scenes" / "skirmish.toml").read_text())
    assert v.is_valid(base)
    assert not v.is_valid({**base, "colour_of_sky": "blue"})  # an unknown field
    bad_unit = {**base["units"][0], "position": [0, 0]}  # a position needs x, y, z
    assert not v.is_valid({**base, "units": [bad_unit]})
    assert not v.is_valid({**base, "actions": [{"type": "teleport", "player": "x"}]})


def test_actions_union_is_every_registered_action_type(schema):
    mapping = schema["properties"]["actions"]["items"]["discriminator"]["mapping"]
    assert set(mapping) == set(REGISTRY)


def test_schema_command_writes_the_same_schema(tmp_path, schema):
    out = tmp_path / "scene.schema.json"
    r = CliRunner().invoke(app, ["schema", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert json.loads(out.read_text()) == schema
    r = CliRunner().invoke(app, ["schema"])
    assert json.loads(r.stdout) == schema


def test_scene_docs_are_up_to_date():
    committed = (REPO / "docs" / "SCENES.md").read_text(encoding="utf-8")
    assert committed == scene_docs_markdown(), \
        "docs/SCENES.md is stale: run .venv/bin/python tools/scene_docs.py"


def test_scene_docs_name_every_field_of_every_table(schema):
    doc = scene_docs_markdown(schema)
    for name, model in [("Scene", schema), *schema["$defs"].items()]:
        for field in model.get("properties", {}):
            assert f"| `{field}` |" in doc, (name, field)
    for t in REGISTRY:
        assert f'`type = "{t}"`' in doc
    # the README's placement fields are described, not just listed
    for line in ("| `keep_model_placement` | true/false | `true` |",
                 "| `fixed` | true/false | `false` |", "| `strategy_bricks` |"):
        assert line in doc
