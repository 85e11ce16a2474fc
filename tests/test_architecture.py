"""The engine's structure: no import cycle inside ``sandbox/``, no module of ``engine/`` or
``games/`` reaching into another object's private names, pybullet only in ``physics/``, one
registry of actions whose every type some system plays; the window (``sandbox.app``) reached
from a game only through its window module, and panda3d from none."""

from __future__ import annotations

import ast
import subprocess
import sys
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


#: Modules that load code or objects from bytes: no module of ``sandbox`` imports one, not
#: even for a private pipe (every file is untrusted; issue 26, :mod:`sandbox.render.view_codec`).
UNPICKLERS = {"pickle", "_pickle", "cPickle", "marshal", "shelve", "dill", "cloudpickle",
              "joblib", "jsonpickle"}


def _loads_objects(tree: ast.AST) -> list[str]:
    """What in ``tree`` imports an unpickler, or passes ``allow_pickle=True``."""
    hits = []
    for node in ast.walk(tree):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                 [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                 else [])
        hits += [f"line {node.lineno}: import {n}" for n in names
                 if n.split(".")[0] in UNPICKLERS]
        if isinstance(node, ast.Call):
            hits += [f"line {node.lineno}: allow_pickle=True" for k in node.keywords
                     if k.arg == "allow_pickle" and not (isinstance(k.value, ast.Constant)
                                                         and k.value.value is False)]
    return hits


def test_no_module_imports_pickle_or_loads_pickled_arrays():
    bad = [f"{p.relative_to(PKG.parent)} {hit}" for p in sorted(PKG.rglob("*.py"))
           for hit in _loads_objects(ast.parse(p.read_text(encoding="utf-8")))]
    assert bad == [], "\n".join(bad)


def test_the_scan_finds_pickle():
    src = ("import os, pickle\nfrom marshal import loads\nimport shelve as s\n"
           "from _pickle import Unpickler\nnp.load(f, allow_pickle=True)\n"
           "np.load(f, allow_pickle=flag)\nnp.load(f, allow_pickle=False)\n"
           "from .pickle import x\nimport pickletools_not\n")
    assert _loads_objects(ast.parse(src)) == [
        "line 1: import pickle", "line 2: import marshal", "line 3: import shelve",
        "line 4: import _pickle", "line 5: allow_pickle=True", "line 6: allow_pickle=True"]


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


def test_the_engine_imports_no_game_and_no_rules_module():
    """``sandbox/engine`` is game-agnostic: every game (BrikWars too) plugs in through its
    ``GameKind``; the engine names no game's package and no rules module."""
    g = _graph()
    bad = sorted(f"{me} imports {dep}" for me, dep in g.edges
                 if me.startswith("sandbox.engine")
                 and dep.startswith(("sandbox.games", "sandbox.rules")))
    assert bad == [], "\n".join(bad)
    assert {"sandbox.games.brikwars", "sandbox.games.brigandine",
            "sandbox.games.micro_brick_war"} <= set(g.nodes)


def test_a_game_without_brikwars_builds_none_of_its_systems():
    from sandbox.engine.game import open_game
    from sandbox.engine.kinds import game_kind

    brikwars = {cls.name for cls in game_kind("brikwars").systems}
    for scene in ("brigandine_joust.toml", "micro_brick_war.toml"):
        with open_game(PKG.parent / "scenes" / scene) as game:
            names = [s.name for s in game.systems]
            assert not brikwars & set(names), names
            assert game.skirmish is None and game.hazards is None  # drivers read None


def test_only_a_games_window_module_imports_the_window_and_none_imports_panda3d():
    """The one allowance for ``sandbox/games``: a game's window side, its window modes
    (``sandbox/games/<game>/window.py``, named by its kind's ``window``) and its command keys
    (``commands.py``, imported by its window module only), import the window's mode and
    command classes from ``sandbox.app``; no other module of a game, of the engine or of the
    rules does. No module of a game imports panda3d (modes compute, the window draws), and
    importing every kind and every kind's window module loads no panda3d."""
    g = _graph()
    bad = sorted(f"{me} imports {dep}" for me, dep in g.edges
                 if dep.startswith("sandbox.app")
                 and (me.startswith(("sandbox.engine", "sandbox.rules"))
                      or (me.startswith("sandbox.games")
                          and not me.endswith((".window", ".commands")))))
    bad += sorted(f"{me} imports {dep}" for me, dep in g.edges
                  if dep.startswith("sandbox.games") and dep.endswith(".commands")
                  and not me.endswith(".window"))
    assert bad == [], "\n".join(bad)
    for p in (PKG / "games").rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.split(".")[0] == "panda3d" for n in names), p
    code = ("import sys\n"
            "from sandbox.engine.kinds import all_kinds\n"
            "kinds = all_kinds()\n"
            "assert not [m for m in sys.modules if m.startswith('panda3d')], 'kinds'\n"
            "windows = [k.window_module() for k in kinds if k.window]\n"
            "assert len(windows) >= 3, windows\n"
            "print(sorted(m for m in sys.modules if m.startswith('panda3d')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=PKG.parent, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]", out.stdout


def _action_classes_tested(fn: ast.AST, names: set[str]) -> set[str]:
    """Action class names that ``isinstance`` calls inside function ``fn`` test for."""
    hits: set[str] = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "isinstance" \
                and len(n.args) == 2:
            t = n.args[1]
            for e in (t.elts if isinstance(t, ast.Tuple) else [t]):
                name = e.id if isinstance(e, ast.Name) else getattr(e, "attr", None)
                if name in names:
                    hits.add(name)
    return hits


def test_no_system_dispatches_actions_with_isinstance_chains():
    """Systems register one method per action type (``@handles``/``@refuses``); a function
    of the engine or a game testing three or more action classes with ``isinstance`` is the
    chain that design replaced (two, a filter such as Brigandine's melee orders, is allowed)."""
    from sandbox.engine.kinds import all_kinds
    all_kinds()  # every game's actions registered
    names = {cls.__name__ for cls in REGISTRY.values()}
    assert len(names) > 40
    chains = []
    for path in sorted((PKG / "engine").rglob("*.py")) + sorted((PKG / "games").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                hit = _action_classes_tested(fn, names)
                if len(hit) >= 3:
                    chains.append(f"{_module_name(path)}.{fn.name}: {sorted(hit)}")
    assert chains == []


def test_the_scan_finds_an_isinstance_chain():
    """The scan above is not blind: a three-way chain written here is found."""
    src = ("def apply(self, a):\n    if isinstance(a, MoveAction): pass\n"
           "    elif isinstance(a, (EndTurnAction, AttackAction)): pass\n")
    fn = ast.parse(src).body[0]
    names = {cls.__name__ for cls in REGISTRY.values()}
    assert _action_classes_tested(fn, names) == {"MoveAction", "EndTurnAction", "AttackAction"}


def test_mypy_excuses_no_module_of_the_engine_or_the_games():
    """``.ci/run`` runs mypy on ``sandbox/engine`` and ``sandbox/games``: no override in
    pyproject may switch its errors off for any of their modules."""
    import tomllib
    cfg = tomllib.loads((PKG.parent / "pyproject.toml").read_text(encoding="utf-8"))
    excused = []
    for o in cfg["tool"]["mypy"].get("overrides", []):
        mods = o["module"] if isinstance(o["module"], list) else [o["module"]]
        if o.get("ignore_errors"):
            excused += [m for m in mods if m.startswith(("sandbox.engine", "sandbox.games"))]
    assert excused == []
    assert "mypy sandbox/engine sandbox/games" in (PKG.parent / ".ci" / "run").read_text()
