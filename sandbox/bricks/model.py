"""Loading an LDraw model (``.ldr``, ``.mpd``, ``.dat``) into part placements.

A model is expanded through its submodels (MPD ``0 FILE`` sections, ``.ldr`` files next to it
or in the library's ``models/``) down to parts; every part placement carries its resolved
colour and its 4x4 matrix in LDU relative to the main model, in the LDraw frame (-Y up).
:attr:`PartPlacement.world_matrix` gives it in inches, Z up, through
:func:`sandbox.core.units.ldraw_transform_to_world` (the one conversion place).

What counts as a part: a reference that resolves to the library's ``parts/`` or ``p/``, to the
built-in catalogue, or to a file whose ``!LDRAW_ORG`` type is a part (MPDs may embed
unofficial parts). Everything else is a submodel and is expanded.

Problems (STYLE.md #8, lenient reader, strict core):

- a malformed line in the model file raises :class:`~sandbox.core.errors.LDrawError` naming
  file and line; in a library part it is skipped with a warning;
- a submodel that references itself, directly or through others, raises ``LDrawError``
  naming the file, the line and the cycle;
- a missing part becomes a placeholder box (``missing=True``) and a warning.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sandbox.bricks.colours import EDGE_COLOUR, MAIN_COLOUR, ColourTable
from sandbox.bricks.ldraw import (
    MAX_COORD_LDU,
    LDrawFile,
    LoadWarning,
    normalise_name,
    parse_ldraw,
    read_text,
    unsafe_reference,
)
from sandbox.bricks.library import PART_ROOTS, LDrawLibrary, get_library, library_dir
from sandbox.bricks.partmesh import PartMesh, Resolver
from sandbox.core.errors import LDrawError
from sandbox.core.limits import how_to_raise, limit
from sandbox.core.units import ldraw_transform_to_world

#: Kept for callers: the default of the parts limit (``SANDBOX_MAX_PARTS``,
#: :mod:`sandbox.core.limits`); a model expanding to more placements is refused.
MAX_PLACEMENTS: int = limit("parts")
_MAX_REDIRECTS = 16


@dataclass(frozen=True, eq=False)
class PartPlacement:
    """One part placed in a model.

    Attributes
    ----------
    part : str
        Normalised part name, e.g. ``"3001.dat"`` (after following ``~Moved to`` aliases).
    colour : int
        Resolved LDraw colour code (16 only for a 16 placed at the top level).
    matrix : (4, 4) float
        Placement in LDU relative to the main model, LDraw frame (-Y up).
    source : str
        Name of the file (MPD section or file) holding the type-1 line.
    line : int
        1-based physical line number of that line in the file on disk.
    missing : bool
        The part was not found; its mesh is a placeholder box.
    inverted : bool
        An odd number of ``BFC INVERTNEXT`` above it (turn its faces inside out).
    chain : tuple of str
        Normalised names of the files from the main model down to the one holding the line
        (``("main.ldr", "tower.ldr")``), so a scene can take one submodel's parts.
    chain_lines : tuple of int
        Line numbers of the type-1 lines that placed each submodel of ``chain[1:]``; two
        placements of the same submodel differ here (which instance a part belongs to).
    """

    part: str
    colour: int
    matrix: np.ndarray
    source: str
    line: int
    missing: bool = False
    inverted: bool = False
    chain: tuple[str, ...] = ()
    chain_lines: tuple[int, ...] = ()

    @property
    def world_matrix(self) -> np.ndarray:
        """(4, 4) float: the placement in inches, world frame (Z up); maps part-local world-frame
        points (:func:`sandbox.core.units.ldraw_points_to_world` of the part's LDU points)."""
        return ldraw_transform_to_world(self.matrix)


@dataclass(frozen=True, eq=False)
class Model:
    """A loaded LDraw model (an immutable spec; STYLE.md #4).

    Attributes
    ----------
    name : str
        File name without extension.
    path : Path
    title : str
        Description line of the main file.
    placements : tuple of PartPlacement
        Every part after expanding submodels, in file order.
    submodels : tuple of str
        Names of the model files embedded in an MPD other than the main one (used or not;
        embedded *parts* are not counted), then external submodel files that were used.
    unused_submodels : tuple of str
        Those of :attr:`submodels` that nothing references.
    warnings : tuple of LoadWarning
    colours : ColourTable
    parts : dict of str to PartMesh
        The mesh of every distinct part.
    library : LDrawLibrary or None
    """

    name: str
    path: Path
    title: str
    placements: tuple[PartPlacement, ...]
    submodels: tuple[str, ...]
    unused_submodels: tuple[str, ...]
    warnings: tuple[LoadWarning, ...]
    colours: ColourTable
    parts: dict[str, PartMesh] = field(repr=False)
    library: LDrawLibrary | None = None

    @property
    def distinct_parts(self) -> tuple[str, ...]:
        """Sorted names of the distinct parts placed (colours not distinguished)."""
        return tuple(sorted(self.parts))

    def part_counts(self) -> Counter:
        """How many times each part is placed."""
        return Counter(p.part for p in self.placements)

    def part_mesh(self, placement: PartPlacement | str) -> PartMesh:
        """The :class:`PartMesh` of a placement (or part name)."""
        name = placement.part if isinstance(placement, PartPlacement) else normalise_name(placement)
        return self.parts[name]


class _Loader:
    def __init__(self, path: Path, library: LDrawLibrary | None, warnings: list[LoadWarning]):
        self.path = path
        self.library = library
        self.warnings = warnings
        files = parse_ldraw(read_text(path), path, strict=True, warnings=warnings)
        self.main = files[0]
        self.embedded: dict[str, LDrawFile] = {}
        self.order: list[str] = []
        for f in files:
            k = f.key
            if k in self.embedded:
                warnings.append(LoadWarning(str(path), f.first_line,
                                            f"duplicate embedded file '{f.name}'; first one used"))
                continue
            self.embedded[k] = f
            self.order.append(k)
        self.resolver = Resolver(library, self.embedded, path.parent, strict=True)
        self.colours = self.resolver.colours
        self.placements: list[PartPlacement] = []
        self.used: set[str] = set()
        self.external: dict[str, list[LDrawFile]] = {}
        self.polygon_warned: set[str] = set()
        self.colour_warned: set[tuple[str, int]] = set()

    # -- resolution ------------------------------------------------------------------------
    def classify(self, key: str) -> tuple[str, LDrawFile | None]:
        """(``"model"`` | ``"part"`` | ``"missing"``, file)."""
        f = self.embedded.get(key)
        if f is not None:
            return ("part" if f.is_part else "model"), f
        f = self.resolver.folder_file(key)
        if f is not None:
            return ("part" if _file_is_part(f, key) else "model"), self._external(key, f)
        if self.library is not None:
            found = self.library.find(key)
            if found is not None:
                root = found[0]
                if root in PART_ROOTS:
                    return "part", self.library.read(key)
                g = self.library.read(key)
                if g is not None:
                    return ("part" if _file_is_part(g, key) else "model"), self._external(key, g)
        from sandbox.bricks.catalogue import has_part

        if has_part(key):
            return "part", None
        return "missing", None

    def _external(self, key: str, f: LDrawFile) -> LDrawFile:
        """An external model file: re-read strictly with its own MPD sections available."""
        if key in self.external:
            return self.external[key][0]
        path = Path(f.path)
        if path.suffix.lower() == ".mpd" or path == self.path:
            files = parse_ldraw(read_text(path), path, strict=True, warnings=self.warnings,
                                default_name=key)
        else:
            files = [f]
        self.external[key] = files
        for sub in files[1:]:  # an external MPD's sections become visible (first one wins)
            self.embedded.setdefault(sub.key, sub)
        return files[0]

    # -- expansion -----------------------------------------------------------------------
    def expand(self, f: LDrawFile, matrix: np.ndarray, colour: int, inverted: bool,
               stack: tuple[str, ...], lines: tuple[int, ...] = ()) -> None:
        max_depth = limit("nesting")
        if len(stack) > max_depth:
            raise LDrawError(f"submodels nested more than {max_depth} deep "
                             f"({' -> '.join(stack[:3])} -> ... -> {stack[-1]}; "
                             f"{how_to_raise('nesting')})", f.path, lines[-1] if lines else None)
        if (f.first_geometry_line is not None and not f.is_part
                and f.key not in self.polygon_warned):
            self.polygon_warned.add(f.key)
            self.warnings.append(LoadWarning(
                f.path, f.first_geometry_line,
                f"'{f.name}' draws lines or polygons of its own (not in a part): they are not "
                "placed on the table (only parts are)"))
        for ref in f.refs:
            if unsafe_reference(ref.key):
                self.warnings.append(LoadWarning(
                    f.path, ref.line, f"reference '{ref.name[:80]}' points outside the LDraw "
                    "library and the model's folder; refused (not opened)"))
                continue
            kind, target = self.classify(ref.key)
            m = matrix @ ref.matrix
            col = _inherit(ref.colour, colour, self.colours)
            inv = inverted != ref.invert
            if not np.all(np.isfinite(m)) or np.abs(m[:3, 3]).max() > MAX_COORD_LDU:
                self.warnings.append(LoadWarning(
                    f.path, ref.line, f"placement of '{ref.name[:80]}' lies beyond "
                    f"±{MAX_COORD_LDU:g} LDU after its submodels' matrices; skipped"))
                continue
            if ref.colour not in self.colours and ref.colour not in (MAIN_COLOUR, EDGE_COLOUR) \
                    and (f.path, ref.colour) not in self.colour_warned:
                self.colour_warned.add((f.path, ref.colour))
                self.warnings.append(LoadWarning(
                    f.path, ref.line, f"unknown colour code {ref.colour} (not in the colour "
                    "table); drawn in the unknown-colour yellow"))
            if kind == "model" and target is not None:
                if ref.key in stack:
                    chain = " -> ".join(stack + (ref.key,))
                    raise LDrawError(f"submodel '{ref.name}' in '{f.name}' references itself "
                                     f"(cycle {chain})", f.path, ref.line)
                self.used.add(ref.key)
                self.expand(target, m, col, inv, stack + (ref.key,), lines + (ref.line,))
                continue
            key = ref.key
            if kind == "part" and target is not None:
                key, m, col = self._follow_redirect(key, target, m, col)
            if abs(np.linalg.det(m[:3, :3])) < 1e-12:
                self.warnings.append(LoadWarning(
                    f.path, ref.line, f"part '{ref.name[:80]}' has a singular (flattening) "
                    "placement matrix; skipped"))
                continue
            missing = kind == "missing"
            if missing:
                self.warnings.append(LoadWarning(
                    f.path, ref.line,
                    f"missing part '{ref.name}' (in '{f.name}'): not in the model, "
                    + ("the library " if self.resolver.library is not None
                       else "the catalogue (no LDraw library: set LDRAWDIR)")
                    + ("or the catalogue; " if self.resolver.library is not None else "; ")
                    + "placeholder box used"))
            self.placements.append(PartPlacement(key, col, m, f.name, ref.line, missing, inv, stack,
                                                 lines))
            if len(self.placements) > limit("parts"):
                raise LDrawError(f"model expands to more than {limit('parts')} parts "
                                 f"({how_to_raise('parts')})", f.path, ref.line)

    def _follow_redirect(self, key: str, f: LDrawFile, m: np.ndarray, col: int):
        seen = {key}
        for _ in range(_MAX_REDIRECTS):
            red = f.redirect
            if red is None:
                break
            kind, nxt = self.classify(red.key)
            if kind != "part" or red.key in seen:
                break
            key, m, col = red.key, m @ red.matrix, _inherit(red.colour, col, self.colours)
            seen.add(key)
            if nxt is None:
                break
            f = nxt
        return key, m, col


def _file_is_part(f: LDrawFile, key: str) -> bool:
    if f.org_type:
        return f.is_part
    return key.endswith(".dat")


def _inherit(code: int, parent: int, colours: ColourTable) -> int:
    """Resolve a child's colour against its parent's (16 → parent, 24 → parent's edge)."""
    if code == MAIN_COLOUR:
        return parent
    if code == EDGE_COLOUR and parent != MAIN_COLOUR:
        return colours.edge_code(parent)
    return code


def _is_dir(path: Path) -> bool:
    """``path.is_dir()``, False when the path cannot even be looked up (a name too long)."""
    try:
        return path.is_dir()
    except OSError:
        return False


def load_model(path: str | Path, ldrawdir: str | Path | None = None) -> Model:
    """Load an LDraw model and expand it into part placements.

    Parameters
    ----------
    path : str or Path
        ``.ldr``, ``.mpd`` or ``.dat`` file. For an MPD the first ``0 FILE`` is the main model.
    ldrawdir : str or Path, optional
        The LDraw library folder; default ``$LDRAWDIR``; with neither, only the model's own
        files and the built-in catalogue are used.

    Returns
    -------
    Model

    Raises
    ------
    LDrawError
        Unreadable file, a malformed line in the model (names file and line), a submodel
        cycle (names file, line and cycle), or an explicit ``ldrawdir`` that does not exist.
    """
    path = Path(path)
    warnings: list[LoadWarning] = []
    library: LDrawLibrary | None
    if ldrawdir is None and library_dir() is not None and not _is_dir(library_dir()):
        warnings.append(LoadWarning(str(library_dir()), None,
                                    "LDRAWDIR does not exist; using the built-in catalogue"))
        library = None
    else:
        library = get_library(ldrawdir)
    loader = _Loader(path, library, warnings)
    main = loader.main
    try:
        loader.expand(main, np.eye(4), MAIN_COLOUR, False, (main.key,))
    except RecursionError:  # only with a nesting limit raised far beyond its default
        raise LDrawError(f"submodels nested too deep to expand ({how_to_raise('nesting')} "
                         "only as far as Python's recursion allows)", path) from None
    if not loader.placements:
        warnings.append(LoadWarning(str(path), None, "the model places no parts"))

    parts: dict[str, PartMesh] = {}
    for p in loader.placements:
        if p.part not in parts:
            try:
                pm = loader.resolver.part_mesh(p.part)
            except RecursionError:
                raise LDrawError(f"part '{p.part}' has subfiles nested too deep to expand",
                                 path) from None
            parts[p.part] = pm
            warnings.extend(pm.warnings)
    warnings.extend(loader.resolver.folder_warnings)
    if library is not None:
        warnings.extend(library.colour_warnings)

    embedded_models = [k for k in loader.order[1:] if not loader.embedded[k].is_part]
    names = {k: loader.embedded[k].name for k in loader.order}
    unused = [names[k] for k in embedded_models if k not in loader.used]
    for k in embedded_models:
        if k not in loader.used:
            f = loader.embedded[k]
            warnings.append(LoadWarning(str(path), f.first_line,
                                        f"embedded submodel '{f.name}' is never used"))
    external = [loader.external[k][0].name for k in loader.external
                if k in loader.used and k not in names]
    submodels = tuple(names[k] for k in embedded_models) + tuple(external)
    return Model(
        name=path.stem,
        path=path,
        title=main.title,
        placements=tuple(loader.placements),
        submodels=submodels,
        unused_submodels=tuple(unused),
        warnings=tuple(dict.fromkeys(warnings)),
        colours=loader.colours,
        parts=parts,
        library=library,
    )
