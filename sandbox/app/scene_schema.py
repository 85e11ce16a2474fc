"""The scene file's JSON Schema and the field reference generated from it (docs/SCENES.md).

:func:`scene_schema` is pydantic's JSON Schema of :class:`~sandbox.engine.scene.SceneSpec`;
its ``actions`` items are the union of every registered action type
(:func:`sandbox.engine.actions.action_union`), so a new action type appears in the schema and
the reference without an edit here. ``sandbox schema`` prints it; ``tools/scene_docs.py``
writes :func:`scene_docs_markdown` to ``docs/SCENES.md`` (a test checks the file is current).
"""

from __future__ import annotations

import json
import re
from typing import Any

#: The schema's ``$id``-less dialect (pydantic writes draft 2020-12).
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _schema_generator():
    """pydantic's generator, which also lists a field's other names: a field read by several
    names (``AliasChoices("unit", "body")``) gets a property per name, and a required one
    needs any one of them (pydantic's own schema shows only the first)."""
    from pydantic.json_schema import GenerateJsonSchema

    class WithAliasChoices(GenerateJsonSchema):
        def model_fields_schema(self, schema):
            out = super().model_fields_schema(schema)
            target = self.resolve_ref_schema(out)
            props = target.get("properties", {})
            for field in schema["fields"].values():
                paths = field.get("validation_alias")
                if not isinstance(paths, list) or not all(isinstance(p, list) for p in paths):
                    continue
                names = [p[0] for p in paths if len(p) == 1 and isinstance(p[0], str)]
                if len(names) < 2 or names[0] not in props:
                    continue
                for alt in names[1:]:
                    props[alt] = {**props[names[0]], "description": f"another name for "
                                  f"'{names[0]}'"}
                if names[0] in target.get("required", []):
                    target["required"] = [r for r in target["required"] if r != names[0]]
                    if not target["required"]:
                        del target["required"]
                    # exactly one of the names (the reader takes the first it finds)
                    target.setdefault("allOf", []).append(
                        {"oneOf": [{"required": [n]} for n in names]})
            return out

    return WithAliasChoices


def scene_schema() -> dict[str, Any]:
    """The scene file's JSON Schema (draft 2020-12) as a dict."""
    from ..engine.scene import SceneSpec

    schema = SceneSpec.model_json_schema(schema_generator=_schema_generator())
    return {"$schema": DIALECT, "title": "BrikWars sandbox scene file", **{
        k: v for k, v in schema.items() if k != "title"}}


def scene_schema_text() -> str:
    """:func:`scene_schema` as indented JSON text, ending in a newline (stable key order)."""
    return json.dumps(scene_schema(), indent=2, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------------------ the reference
def _plain(text: str) -> str:
    """Docstring markup (reStructuredText roles and literals) as Markdown, on one line."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)
    text = text.replace("``", "`")
    return " ".join(text.split())


def _first_paragraph(text: str) -> str:
    return _plain(text.strip().split("\n\n")[0]) if text else ""


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _anchor(name: str) -> str:
    return name.lower()


def _type(node: dict, defs: dict) -> str:
    """A field's type in words, with links to the tables it refers to."""
    if "$ref" in node:
        name = _ref_name(node["$ref"])
        return f"[{name}](#{_anchor(name)})"
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "enum" in node:
        return " or ".join(f"`{json.dumps(v)}`" for v in node["enum"])
    if "anyOf" in node or "oneOf" in node:
        opts = [o for o in node.get("anyOf", node.get("oneOf", []))]
        shown = [_type(o, defs) for o in opts if o.get("type") != "null"]
        text = " or ".join(dict.fromkeys(shown))
        return text + (" (optional)" if len(shown) < len(opts) else "")
    t = node.get("type")
    if t == "array":
        if "prefixItems" in node:
            items = node["prefixItems"]
            kinds = {_type(i, defs) for i in items}
            return (f"[{len(items)} × {kinds.pop()}]" if len(kinds) == 1
                    else "[" + ", ".join(_type(i, defs) for i in items) + "]")
        items = node.get("items", {})
        if "discriminator" in items:
            return "list of actions (see [Actions](#actions))"
        return f"list of {_type(items, defs)}" if items else "list"
    if t == "object":
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            return f"table of {_type(extra, defs)}"
        return "table"
    names = {"string": "text", "integer": "whole number", "number": "number",
             "boolean": "true/false", "null": "none"}
    return names.get(str(t), str(t or "any"))


def _limits(node: dict) -> str:
    """A field's bounds (``≥ 1``, ``≤ 100``, a pattern, a length), for the table."""
    out = []
    for n in [node] + [o for o in node.get("anyOf", []) if o.get("type") != "null"]:
        for key, sym in (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"),
                         ("exclusiveMaximum", "<")):
            if key in n:
                v = n[key]
                out.append(f"{sym} {v}" if isinstance(v, int) else f"{sym} {v:g}")
        if "minLength" in n and n["minLength"] > 1:
            out.append(f"length ≥ {n['minLength']}")
        if "maxLength" in n:
            out.append(f"length ≤ {n['maxLength']}")
        if "pattern" in n:
            out.append(f"matches `{n['pattern']}`")
    return ", ".join(dict.fromkeys(out))


def _default(node: dict, required: bool) -> str:
    if required:
        return "**required**"
    if "default" not in node:
        return ""
    d = node["default"]
    if d is None:
        return "none"
    if isinstance(d, dict) and len(json.dumps(d)) > 40:
        return "(the table's defaults)"
    return f"`{json.dumps(d, ensure_ascii=False)}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(model: dict, defs: dict) -> list[str]:
    props = model.get("properties", {})
    required = set(model.get("required", []))
    either: dict[str, list[str]] = {}  # a required field that may be written by another name
    for group in model.get("allOf", []):
        names = [r["required"][0] for r in group.get("oneOf", []) if r.get("required")]
        for n in names:
            either[n] = [m for m in names if m != n]
    lines = ["| field | type | default | bounds | what it is |", "|---|---|---|---|---|"]
    for name, node in props.items():
        default = _default(node, name in required or name in either)
        if name in either:
            default += " (or " + " or ".join(f"`{m}`" for m in either[name]) + ")"
        lines.append("| " + " | ".join(_cell(c) for c in (
            f"`{name}`", _type(node, defs), default, _limits(node),
            _plain(node.get("description", "")))) + " |")
    return lines


def _refs(node: Any) -> list[str]:
    """Names of the tables ``node`` refers to, in order of appearance."""
    out: list[str] = []
    stack = [node]
    while stack:
        n = stack.pop(0)
        if isinstance(n, dict):
            if isinstance(n.get("$ref"), str):
                out.append(_ref_name(n["$ref"]))
            stack.extend(v for k, v in n.items() if k != "mapping")
        elif isinstance(n, list):
            stack.extend(n)
    return list(dict.fromkeys(out))


def scene_docs_markdown(schema: dict | None = None) -> str:
    """docs/SCENES.md: every table of the scene file with each field's type, default, bounds
    and description, from :func:`scene_schema`; the actions listed by ``type``."""
    schema = scene_schema() if schema is None else schema
    defs = schema.get("$defs", {})
    actions_node = schema["properties"]["actions"]["items"]
    action_names = {_ref_name(r): t for t, r in
                    sorted(actions_node["discriminator"]["mapping"].items())}
    # tables in the order a reader meets them: breadth first from the scene's own fields
    order: list[str] = []
    queue = [r for r in _refs({k: v for k, v in schema["properties"].items() if k != "actions"})]
    while queue:
        name = queue.pop(0)
        if name in order or name in action_names or name not in defs:
            continue
        order.append(name)
        queue.extend(_refs(defs[name]))
    action_refs: list[str] = []
    for name in action_names:
        for r in _refs(defs[name]):
            if r not in order and r not in action_names and r not in action_refs:
                action_refs.append(r)
    i = 0
    while i < len(action_refs):  # tables only actions use, and the tables those use
        for r in _refs(defs[action_refs[i]]):
            if r not in order and r not in action_names and r not in action_refs:
                action_refs.append(r)
        i += 1

    out = [
        "# Scene files: every field",
        "",
        "<!-- Generated by tools/scene_docs.py from the scene's JSON Schema (sandbox schema); "
        "do not edit: run `.venv/bin/python tools/scene_docs.py`. -->",
        "",
        "A scene is a TOML file. Lengths are inches, angles degrees, colours LDraw colour "
        "codes; a model's path is relative to the scene file's folder (then the LDraw "
        "library's). Unknown fields are errors. The JSON Schema of the whole file: "
        "`sandbox schema -o scene.schema.json` (editors such as VS Code with Even Better TOML "
        "or Taplo validate against it).",
        "",
        "Contents: [the scene](#scene) · "
        + " · ".join(f"[{n}](#{_anchor(n)})" for n in order)
        + " · [Actions](#actions)",
        "",
        "## Scene",
        "",
        _first_paragraph(schema.get("description", "")),
        "",
        *_table(schema, defs),
        "",
    ]
    for name in order + action_refs:
        model = defs[name]
        out += [f"## {name}", ""]
        intro = _first_paragraph(model.get("description", ""))
        if intro:
            out += [intro, ""]
        if "properties" in model:
            out += _table(model, defs)
        else:
            out.append(f"Type: {_type(model, defs)}.")
        out.append("")
    out += ["## Actions", "",
            "`[[actions]]` entries (and what the table, saves and replays record), chosen by "
            "`type`:", "",
            " · ".join(f"[`{t}`](#{_anchor(n)})" for n, t in action_names.items()), ""]
    for name, t in action_names.items():
        model = defs[name]
        out += [f"### {name}", "", f"`type = \"{t}\"`. "
                + _first_paragraph(model.get("description", "")), ""]
        out += _table(model, defs)
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
