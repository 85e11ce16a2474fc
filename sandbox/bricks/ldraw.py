"""Low-level LDraw file reading: line types 0-5, MPD files, BFC state, header meta commands.

This module turns text into :class:`LDrawFile` records (one per embedded file of an MPD) and
knows nothing about libraries or models; see :mod:`sandbox.bricks.library` (finding files) and
:mod:`sandbox.bricks.model` (expanding a model into part placements).

Geometry is kept in LDU in the file's own LDraw frame (-Y up). Polygons are stored as
triangles wound counter-clockwise (CCW) seen from their front side *where the file is BFC
certified*: a ``CW`` file's polygons are reversed on reading. Type-1 references keep their
``INVERTNEXT`` flag; the winding flip of a negative-determinant matrix is applied where the
reference is expanded (:mod:`sandbox.bricks.partmesh`). Reference: LDraw File Format 1.0.2
and the Language Extension for Back Face Culling (BFC) 0.2 (ldraw.org).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sandbox.bricks.colours import parse_colour_code
from sandbox.bricks.load_warning import LoadWarning  # noqa: F401 - re-exported
from sandbox.core.errors import LDrawError
from sandbox.core.limits import FileRefused, read_input_bytes, reason

#: Largest coordinate magnitude an LDraw line may hold, LDU (40 km): beyond it a placement is
#: no brick model, and products of such matrices overflow to infinity.
MAX_COORD_LDU: float = 1.0e8
#: Colour codes this reader accepts: 0 .. the largest direct colour (``0x3FFFFFF``).
MAX_COLOUR_CODE: int = 0x3FFFFFF
_LDRAW_LINE = re.compile(r"^[0-5](\s|$)")


def unsafe_reference(key: str) -> bool:
    r"""True for a subfile reference that could leave the library or the model's folder tree:
    an absolute path, a drive letter or a ``..`` component.

    >>> [unsafe_reference(k) for k in ("s/3001s01.dat", "../x.ldr", "/etc/x.ldr", "c:/x.dat")]
    [False, True, True, True]
    """
    k = key.replace("\\", "/")
    if k.startswith("/") or re.match(r"^[a-z]:", k, re.IGNORECASE) or "\x00" in k:
        return True
    return any(part == ".." for part in k.split("/"))


def looks_like_ldraw(text: str) -> bool:
    """True when the first non-blank line of ``text`` is an LDraw line (type 0-5) and the text
    holds no NUL byte; a file failing this is reported without quoting it."""
    if "\x00" in text:
        return False
    for raw in text.splitlines():
        line = raw.strip().lstrip("\ufeff").strip()
        if line:
            return bool(_LDRAW_LINE.match(line))
    return True

#: ``!LDRAW_ORG`` types (lower case prefixes) that make a file a part rather than a model.
_PART_TYPES = (
    "part",
    "unofficial_part",
    "subpart",
    "unofficial_subpart",
    "primitive",
    "unofficial_primitive",
    "8_primitive",
    "48_primitive",
    "unofficial_8_primitive",
    "unofficial_48_primitive",
    "shortcut",
    "unofficial_shortcut",
)


def normalise_name(name: str) -> str:
    r"""The lookup key of an LDraw file reference: lower case, ``/`` separators, trimmed.

    >>> normalise_name(r"S\3001S01.DAT ")
    's/3001s01.dat'
    """
    return name.strip().replace("\\", "/").lower()


@dataclass(eq=False)
class SubfileRef:
    """One type-1 line: a reference to a subfile (part, primitive or submodel).

    Attributes
    ----------
    colour : int
        LDraw colour code (16 = inherit).
    matrix : (4, 4) float
        Placement of the subfile in the referencing file's frame, LDU.
    name : str
        The reference as written (e.g. ``"s\\3001s01.dat"``).
    key : str
        :func:`normalise_name` of ``name``.
    line : int
        1-based physical line number in the file on disk.
    invert : bool
        ``0 BFC INVERTNEXT`` preceded this line (in a certified context).
    certified : bool
        The referencing file was BFC certified (and clipping on) at this line; a subfile's
        winding is trusted only when every file above it is certified.
    """

    colour: int
    matrix: np.ndarray
    name: str
    key: str
    line: int
    invert: bool = False
    certified: bool = False


@dataclass(eq=False)
class LDrawFile:
    """One LDraw file (a whole ``.dat``/``.ldr``, or one ``0 FILE`` section of an MPD).

    Attributes
    ----------
    name : str
        The name under which other files reference it (``0 FILE`` name or file name).
    path : str
        The file on disk that holds it.
    title : str
        First comment line (the description, e.g. ``"Brick  2 x  4"``).
    org_type : str
        First word after ``!LDRAW_ORG`` (``"Part"``, ``"Model"``, ...) or ``""``.
    certified : bool
        ``0 BFC CERTIFY`` seen.
    first_line : int
        Physical line number of the file's first line in ``path``.
    refs : list of SubfileRef
    triangles : (n, 3, 3) float
        Type 3 and 4 lines as triangles, LDU, CCW where certified.
    tri_colours : (n,) int
    tri_certified : (n,) bool
        Winding of the triangle is known (file certified and clipping on).
    edges : (m, 2, 3) float
        Type 2 lines, LDU.
    edge_colours : (m,) int
    optional : (k, 4, 3) float
        Type 5 (optional, "conditional") lines, LDU: the two end points, then the two
        control points. Drawn only where both control points fall on the same side of the
        line as seen from the camera (a silhouette of a curved surface).
    optional_colours : (k,) int
    n_conditional : int
        Number of type-5 lines.
    first_geometry_line : int or None
        Line of the first type 2-5 line, or None.
    """

    name: str
    path: str
    title: str = ""
    org_type: str = ""
    certified: bool = False
    first_line: int = 1
    refs: list[SubfileRef] = field(default_factory=list)
    triangles: np.ndarray = field(default_factory=lambda: np.zeros((0, 3, 3)))
    tri_colours: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    tri_certified: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    edges: np.ndarray = field(default_factory=lambda: np.zeros((0, 2, 3)))
    edge_colours: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    optional: np.ndarray = field(default_factory=lambda: np.zeros((0, 4, 3)))
    optional_colours: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    n_conditional: int = 0
    #: Line of the first type 2-5 line (polygons and edges drawn by the file itself), or None.
    first_geometry_line: int | None = None

    @property
    def key(self) -> str:
        """:func:`normalise_name` of :attr:`name`."""
        return normalise_name(self.name)

    @property
    def is_part(self) -> bool:
        """True when the header says part/subpart/primitive/shortcut (not a model)."""
        t = self.org_type.lower()
        if t:
            return t in _PART_TYPES
        return False

    @property
    def redirect(self) -> SubfileRef | None:
        """For a ``~Moved to XXXX`` alias part with one type-1 line: that line, else None."""
        if self.title.lower().startswith("~moved to") and len(self.refs) == 1:
            return self.refs[0]
        return None


def read_text(path: str | Path) -> str:
    """Read an LDraw file as text (UTF-8, falling back to Latin-1).

    Raises
    ------
    LDrawError
        When the file cannot be read.
    """
    try:
        data = read_input_bytes(path, "LDraw file")
    except FileRefused as exc:
        raise LDrawError(str(exc), path) from None
    except OSError as exc:
        raise LDrawError(f"cannot read file: {reason(exc)}", path) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


class _FileBuilder:
    """Accumulates one file's lines (BFC state, geometry lists) during parsing."""

    def __init__(self, name: str, path: str, first_line: int):
        self.f = LDrawFile(name=name, path=path, first_line=first_line)
        self.seen_content = False
        self.title_done = False
        self.winding_cw = False
        self.clip = True
        self.invert_next = False
        self.tris: list[list[float]] = []
        self.tri_cols: list[int] = []
        self.tri_cert: list[bool] = []
        self.edges: list[list[float]] = []
        self.edge_cols: list[int] = []
        self.optional: list[list[float]] = []
        self.opt_cols: list[int] = []

    def finish(self) -> LDrawFile:
        f = self.f
        if self.tris:
            f.triangles = np.asarray(self.tris, dtype=float).reshape(-1, 3, 3)
            f.tri_colours = np.asarray(self.tri_cols, dtype=np.int64)
            f.tri_certified = np.asarray(self.tri_cert, dtype=bool)
        if self.edges:
            f.edges = np.asarray(self.edges, dtype=float).reshape(-1, 2, 3)
            f.edge_colours = np.asarray(self.edge_cols, dtype=np.int64)
        if self.optional:
            f.optional = np.asarray(self.optional, dtype=float).reshape(-1, 4, 3)
            f.optional_colours = np.asarray(self.opt_cols, dtype=np.int64)
        return f


_NOT_TITLE = {"//", "STEP", "ROTSTEP", "CLEAR", "PAUSE", "SAVE", "WRITE", "PRINT", "BFC"}
_NEEDED = {1: 15, 2: 8, 3: 11, 4: 14, 5: 14}


def parse_ldraw(
    text: str,
    path: str | Path,
    *,
    strict: bool,
    warnings: list[LoadWarning],
    default_name: str | None = None,
) -> list[LDrawFile]:
    """Parse LDraw text into files (several for an MPD, the first being the main one).

    Parameters
    ----------
    text : str
        The whole file.
    path : str or Path
        The file on disk (for messages and :attr:`LDrawFile.path`).
    strict : bool
        True for the model file being loaded: a malformed line raises. False for library
        parts: a malformed line is skipped with a warning.
    warnings : list of LoadWarning
        Receives non-fatal problems.
    default_name : str, optional
        Name of the file when it has no ``0 FILE`` line (default: the file name of ``path``).

    Returns
    -------
    list of LDrawFile
        In file order; an MPD's ``0 NOFILE`` sections and ``0 !DATA`` blocks are skipped.

    Raises
    ------
    LDrawError
        For a malformed line when ``strict`` (message names file and line).
    """
    path = str(path)
    files: list[LDrawFile] = []
    cur: _FileBuilder | None = None
    skipping = ""  # inside "0 NOFILE" ... or "0 !DATA" ...: that word
    skipped_warned = False
    seen_file = False  # a "0 FILE" line met: the text is an MPD
    name0 = default_name if default_name is not None else Path(path).name

    def bad(lineno: int, msg: str) -> None:
        if strict:
            raise LDrawError(msg, path, lineno)
        warnings.append(LoadWarning(path, lineno, f"{msg}; line skipped"))

    def warn(lineno: int, msg: str) -> None:
        warnings.append(LoadWarning(path, lineno, msg))

    if strict and not looks_like_ldraw(text):
        # never quote a file that is not LDraw (a scene naming /etc/passwd as its model)
        raise LDrawError("not an LDraw file (its first line is no LDraw line of type 0-5)",
                         path)

    def colour_of(lineno: int, token: str) -> int:
        code = parse_colour_code(token)  # ValueError: not a number
        if code < 0 or code > MAX_COLOUR_CODE:
            shown = token if len(token) <= 24 else token[:21] + "..."
            warn(lineno, f"colour code {shown} is out of range (0..{MAX_COLOUR_CODE:#x}); "
                 "main colour 16 used")
            return 16
        return code

    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("\ufeff"):
            if lineno > 1:
                warn(lineno, "byte order mark inside the file ignored")
            line = line.lstrip("\ufeff").strip()
        if not line:
            continue
        head = line[0]
        if head == "0":
            toks = line.split()
            if toks[0] != "0":
                bad(lineno, f"malformed line: unknown line type {toks[0][:20]!r}")
                continue
            word = toks[1].upper() if len(toks) > 1 else ""
            if word == "FILE":
                if len(toks) <= 2:
                    warn(lineno, "'0 FILE' without a file name ignored")
                    continue
                if cur is not None:
                    files.append(cur.finish())
                cur = _FileBuilder(line.split(None, 2)[2].strip(), path, lineno)
                skipping = ""
                seen_file = True
                continue
            if word == "NOFILE" or word == "!DATA":
                if not seen_file:
                    warn(lineno, f"'0 {word}' outside an MPD (no '0 FILE' before it) ignored")
                    continue
                if cur is not None:
                    files.append(cur.finish())
                cur = None
                skipping = word
                skipped_warned = False
                continue
            if skipping:
                continue
            if cur is None:
                cur = _FileBuilder(name0, path, lineno)
            _meta(cur, toks, line)
            continue
        if skipping:
            if not skipped_warned:
                warn(lineno, f"LDraw lines after '0 {skipping}' belong to no file until the next "
                     "'0 FILE'; ignored")
                skipped_warned = True
            continue
        if cur is None:
            cur = _FileBuilder(name0, path, lineno)
        try:
            kind = int(head) if len(line) == 1 or line[1] in " \t" else -1
        except ValueError:
            kind = -1
        if kind not in _NEEDED:
            bad(lineno, f"malformed line: unknown line type in {line[:40]!r}")
            continue
        cur.title_done = True
        if kind == 1:
            toks = line.split(None, 14)
            if len(toks) < 15 or not toks[14].strip():
                bad(lineno, "malformed type-1 line: needs colour, 12 numbers and a file name: "
                    f"{line[:120]!r}")
                continue
            try:
                colour = colour_of(lineno, toks[1])
                v = [float(t) for t in toks[2:14]]
            except ValueError:
                bad(lineno, f"malformed type-1 line: not a number in {line[:120]!r}")
                continue
            if not all(map(math.isfinite, v)):
                bad(lineno, f"malformed type-1 line: non-finite number in {line[:120]!r}")
                continue
            if max(map(abs, v)) > MAX_COORD_LDU:
                bad(lineno, f"type-1 line: a number beyond ±{MAX_COORD_LDU:g} LDU")
                continue
            m = np.array(
                [[v[3], v[4], v[5], v[0]], [v[6], v[7], v[8], v[1]], [v[9], v[10], v[11], v[2]],
                 [0.0, 0.0, 0.0, 1.0]]
            )
            name = toks[14].strip()
            if strict and abs(np.linalg.det(m[:3, :3])) < 1e-12:
                warn(lineno, f"singular placement matrix for '{name[:80]}' (it flattens the "
                     "subfile to nothing)")
            certified = cur.f.certified and cur.clip
            cur.f.refs.append(
                SubfileRef(colour, m, name, normalise_name(name), lineno,
                           invert=cur.invert_next and certified, certified=certified)
            )
            cur.invert_next = False
            continue
        toks = line.split()
        need = _NEEDED[kind]
        if len(toks) < need:
            bad(lineno, f"malformed type-{kind} line: expected {need - 2} coordinates: "
                f"{line[:120]!r}")
            continue
        try:
            colour = colour_of(lineno, toks[1])
            v = [float(t) for t in toks[2:need]]
        except ValueError:
            bad(lineno, f"malformed type-{kind} line: not a number in {line[:120]!r}")
            continue
        if not all(map(math.isfinite, v)):
            bad(lineno, f"malformed type-{kind} line: non-finite number in {line[:120]!r}")
            continue
        if max(map(abs, v)) > MAX_COORD_LDU:
            bad(lineno, f"type-{kind} line: a coordinate beyond ±{MAX_COORD_LDU:g} LDU")
            continue
        cur.invert_next = False
        if cur.f.first_geometry_line is None:
            cur.f.first_geometry_line = lineno
        if kind == 2:
            cur.edges.append(v)
            cur.edge_cols.append(colour)
        elif kind == 5:
            cur.f.n_conditional += 1
            cur.optional.append(v)
            cur.opt_cols.append(colour)
        else:
            cert = cur.f.certified and cur.clip
            if kind == 3:
                tris = [v]
            else:
                tris = [v[0:9], v[0:3] + v[6:12]]
            for t in tris:
                if cur.winding_cw:
                    t = t[0:3] + t[6:9] + t[3:6]
                cur.tris.append(t)
                cur.tri_cols.append(colour)
                cur.tri_cert.append(cert)
    if cur is not None:
        files.append(cur.finish())
    if not files:
        files.append(LDrawFile(name=name0, path=path))
    return files


def _meta(cur: _FileBuilder, toks: list[str], line: str) -> None:
    """Apply one type-0 line (title, ``!LDRAW_ORG``, ``BFC``) to the file being built."""
    f = cur.f
    word = toks[1].upper() if len(toks) > 1 else ""
    if word == "BFC":
        opts = {t.upper() for t in toks[2:]}
        if "NOCERTIFY" in opts:
            f.certified = False
        elif "CERTIFY" in opts:
            f.certified = True
        if "CW" in opts:
            cur.winding_cw = True
        elif "CCW" in opts:
            cur.winding_cw = False
        if "NOCLIP" in opts:
            cur.clip = False
        elif "CLIP" in opts:
            cur.clip = True
        if "INVERTNEXT" in opts:
            cur.invert_next = True
        return
    if word in ("!LDRAW_ORG", "LDRAW_ORG") and len(toks) > 2 and not f.org_type:
        f.org_type = toks[2]
        return
    if not cur.title_done and not f.title and word not in ("NAME:", "AUTHOR:") and len(toks) > 1:
        if not word.startswith("!") and word not in _NOT_TITLE:
            f.title = line[1:].strip()
    cur.title_done = cur.title_done or bool(f.title)
