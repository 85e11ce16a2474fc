"""The engine's structure: no import cycle inside ``sandbox/``, no module of ``engine/`` or
``games/`` reaching into another object's private names, pybullet only in ``physics/``, one
registry of actions whose every type some system plays."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

from sandbox.engine.actions import REGISTRY

PKG = Path(__file__).resolve().parents[1] / "sandbox"


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of nodes inside ``if TYPE_CHECKING:`` blocks (imports there never run)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                out.update(id(n) for n in ast.walk(child))
    return out


def _imports(path: Path, modules: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_nodes(tree)
    me = _module_name(path)
    package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)  # ``from pkg import x`` runs pkg/__init__ first: an edge to pkg
            for alias in node.names:
                full = f"{mod}.{alias.name}"
                if full in modules:
                    out.add(full)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m in modules and m != me}


def _graph() -> nx.DiGraph:
    files = [p for p in PKG.rglob("*.py")]
    modules = {_module_name(p) for p in files}
    g = nx.DiGraph()
    for p in files:
        me = _module_name(p)
        g.add_node(me)
        for dep in _imports(p, modules):
            g.add_edge(me, dep)  # a package imported by its own module counts too
    return g


def test_no_import_cycle_inside_sandbox():
    g = _graph()
    cycles = list(nx.simple_cycles(g))
    assert cycles == [], f"import cycles: {cycles[:5]}"


def test_game_modules_never_call_private_names_of_other_objects():
    bad = []
    for p in sorted([*(PKG / "engine").glob("*.py"), *(PKG / "games").rglob("*.py")]):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                owner = node.value
                if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                    continue
                bad.append(f"{p.relative_to(PKG)}:{node.lineno}: {ast.unparse(node)}")
    assert bad == [], "\n".join(bad)


def test_pybullet_is_imported_only_in_physics():
    for p in PKG.rglob("*.py"):
        if p.parent.name == "physics":
            continue
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.split(".")[0] == "pybullet" for n in names), p


def test_every_action_type_is_played_by_a_system(tmp_path):
    from sandbox.engine.game import open_game

    repo = PKG.parent
    seen: set[str] = set()
    # one scene of each game: a game's own actions are played only in that game
    for scene in ("skirmish.toml", "escapade_raid.toml", "brigandine_joust.toml",
                  "micro_brick_war.toml"):
        with open_game(repo / "scenes" / scene) as game:
            seen |= set(game._handlers)  # noqa: SLF001 - the engine's own registry, read only
            seen.add("end_turn")
    assert set(REGISTRY) <= seen, sorted(set(REGISTRY) - seen)
