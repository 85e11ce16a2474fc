"""LDraw colour codes: the colour table read from ``LDConfig.ldr`` and a built-in fallback.

LDraw colours are integer codes. Two are special:

- ``16`` (main colour): "inherit the colour of the reference that placed me".
- ``24`` (edge colour): "the edge colour of the colour I inherit".

Direct colours ``0x2RRGGBB`` carry their own RGB (opaque); ``0x3RRGGBB`` the same, transparent.
The built-in fallback holds the common solid and transparent colours with the values of the
LDraw.org ``LDConfig.ldr`` (2024-04 update; colour values from "The LDraw Parts Library",
CC BY 4.0), so a model shipped with the project shows its colours on a machine with no library.

Colour values are sRGB (as LDConfig writes them and as the renderer draws them); exports to
formats that want linear light (glTF's ``baseColorFactor``) convert with
:func:`srgb_to_linear`. A colour's finish (LDConfig's ``CHROME``, ``PEARLESCENT``, ``METAL``,
``MATTE_METALLIC``, ``RUBBER`` keywords) is kept as :attr:`Colour.finish`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sandbox.bricks.load_warning import LoadWarning
from sandbox.core.errors import LDrawError

#: The "inherit the parent's colour" code.
MAIN_COLOUR: int = 16
#: The "edge colour of the parent's colour" code.
EDGE_COLOUR: int = 24

#: code: (name, value "#RRGGBB", edge "#RRGGBB", alpha 0..255)
_BUILTIN: dict[int, tuple[str, str, str, int]] = {
    0: ("Black", "#1B2A34", "#808080", 255),
    1: ("Blue", "#1E5AA8", "#333333", 255),
    2: ("Green", "#00852B", "#333333", 255),
    3: ("Dark_Turquoise", "#069D9F", "#333333", 255),
    4: ("Red", "#B40000", "#333333", 255),
    5: ("Dark_Pink", "#D3359D", "#333333", 255),
    6: ("Brown", "#543324", "#1E1E1E", 255),
    7: ("Light_Grey", "#8A928D", "#333333", 255),
    8: ("Dark_Grey", "#545955", "#333333", 255),
    9: ("Light_Blue", "#97CBD9", "#333333", 255),
    10: ("Bright_Green", "#58AB41", "#333333", 255),
    11: ("Light_Turquoise", "#00AAA4", "#333333", 255),
    12: ("Salmon", "#F06D61", "#333333", 255),
    13: ("Pink", "#F6A9BB", "#333333", 255),
    14: ("Yellow", "#FAC80A", "#333333", 255),
    15: ("White", "#F4F4F4", "#333333", 255),
    16: ("Main_Colour", "#FFFF80", "#333333", 255),
    17: ("Light_Green", "#ADD9A8", "#333333", 255),
    18: ("Light_Yellow", "#FFD67F", "#333333", 255),
    19: ("Tan", "#D7BA8C", "#333333", 255),
    22: ("Purple", "#671F81", "#333333", 255),
    24: ("Edge_Colour", "#7F7F7F", "#333333", 255),
    25: ("Orange", "#D67923", "#333333", 255),
    26: ("Magenta", "#901F76", "#333333", 255),
    27: ("Lime", "#A5CA18", "#333333", 255),
    28: ("Dark_Tan", "#897D62", "#333333", 255),
    33: ("Trans_Dark_Blue", "#0020A0", "#000B38", 128),
    34: ("Trans_Green", "#237841", "#174F2B", 128),
    36: ("Trans_Red", "#C91A09", "#660D05", 128),
    41: ("Trans_Medium_Blue", "#559AB7", "#326276", 128),
    43: ("Trans_Light_Blue", "#AEE9EF", "#59D1DE", 128),
    46: ("Trans_Yellow", "#F5CD2F", "#B49208", 128),
    47: ("Trans_Clear", "#FCFCFC", "#C9C9C9", 128),
    70: ("Reddish_Brown", "#5F3109", "#808080", 255),
    71: ("Light_Bluish_Grey", "#969696", "#333333", 255),
    72: ("Dark_Bluish_Grey", "#646464", "#333333", 255),
    73: ("Medium_Blue", "#7396C8", "#333333", 255),
    74: ("Medium_Green", "#7FC475", "#333333", 255),
    77: ("Light_Pink", "#FECCCF", "#333333", 255),
    78: ("Light_Nougat", "#FFC995", "#333333", 255),
    80: ("Metallic_Silver", "#767676", "#333333", 255),
    82: ("Metallic_Gold", "#DBAC34", "#333333", 255),
    84: ("Medium_Nougat", "#AA7D55", "#333333", 255),
    85: ("Medium_Lilac", "#441A91", "#333333", 255),
    92: ("Nougat", "#BB805A", "#333333", 255),
    135: ("Pearl_Light_Grey", "#A0A0A0", "#333333", 255),
    142: ("Pearl_Light_Gold", "#DEAC66", "#333333", 255),
    179: ("Pearl_Silver", "#898788", "#333333", 255),
    191: ("Bright_Light_Orange", "#FCAC00", "#333333", 255),
    212: ("Bright_Light_Blue", "#9DC3F7", "#333333", 255),
    226: ("Bright_Light_Yellow", "#FFEC6C", "#333333", 255),
    256: ("Rubber_Black", "#1B2A34", "#808080", 255),
    272: ("Dark_Blue", "#19325A", "#333333", 255),
    288: ("Dark_Green", "#00451A", "#808080", 255),
    297: ("Pearl_Gold", "#AA7F2E", "#333333", 255),
    308: ("Dark_Brown", "#352100", "#808080", 255),
    313: ("Maersk_Blue", "#ABD9FF", "#333333", 255),
    320: ("Dark_Red", "#720012", "#333333", 255),
    321: ("Dark_Azure", "#469BC3", "#333333", 255),
    326: ("Yellowish_Green", "#E2F99A", "#333333", 255),
    334: ("Chrome_Gold", "#DFC176", "#C2982E", 255),
    378: ("Sand_Green", "#708E7C", "#333333", 255),
    379: ("Sand_Blue", "#70819A", "#333333", 255),
    383: ("Chrome_Silver", "#CECECE", "#9C9C9C", 255),
    484: ("Dark_Orange", "#91501C", "#333333", 255),
}
#: Finishes of the built-in colours that have one (LDConfig.ldr's keywords).
_BUILTIN_FINISH: dict[int, str] = {
    80: "METAL", 82: "METAL", 135: "PEARLESCENT", 142: "PEARLESCENT", 179: "PEARLESCENT",
    297: "PEARLESCENT", 256: "RUBBER", 334: "CHROME", 383: "CHROME",
}
#: LDConfig finish keywords (a ``!COLOUR`` line holds at most one; ``MATERIAL`` starts a
#: glitter or speckle description, whose base colour is what counts here).
FINISHES: tuple[str, ...] = ("CHROME", "PEARLESCENT", "METAL", "MATTE_METALLIC", "RUBBER",
                             "MATERIAL")

#: Shown for a code that is in neither the table nor a direct colour (LDraw tools use a loud
#: magenta-ish grey; we use the Main_Colour yellow of LDConfig so it is visibly "unknown").
_UNKNOWN_RGBA = (1.0, 1.0, 0.5, 1.0)
_UNKNOWN_EDGE = (0.2, 0.2, 0.2, 1.0)


def darker_shade(rgba) -> tuple[float, float, float, float]:
    """The edge colour LDraw viewers give a colour without an ``EDGE`` value: half its
    brightness, or mid grey when the colour is near black (so the edge still shows)."""
    r, g, b = (float(v) for v in rgba[:3])
    if 0.299 * r + 0.587 * g + 0.114 * b < 0.2:
        return (0.5, 0.5, 0.5, 1.0)
    return (r * 0.5, g * 0.5, b * 0.5, 1.0)


#: What code 16 looks like when nothing above it gave a colour (a top-level "16" placement).
DEFAULT_MAIN_CODE: int = 7

_COLOUR_LINE = re.compile(r"^\s*0\s+!COLOUR\s+(\S+)\s+(.*)$", re.IGNORECASE)


def srgb_to_linear(c):
    """sRGB-encoded colour components (0..1) as linear light, the transfer function of IEC
    61966-2-1 that the glTF 2.0 specification names for ``baseColorFactor`` (glTF 2.0, 3.9.2:
    the factors are linear; colour textures are sRGB).

    Parameters
    ----------
    c : float or array of float
        sRGB components 0..1.

    Returns
    -------
    float or ndarray
        Linear components 0..1, same shape.

    >>> round(float(srgb_to_linear(0xB4 / 255)), 3), round(float(srgb_to_linear(0xC9 / 255)), 3)
    (0.456, 0.584)
    """
    a = np.asarray(c, dtype=float)
    out = np.where(a <= 0.04045, a / 12.92, ((a + 0.055) / 1.055) ** 2.4)
    return float(out) if out.ndim == 0 else out


def is_direct_colour(code: int) -> bool:
    """True for LDraw direct colours ``0x2RRGGBB`` (opaque) and ``0x3RRGGBB`` (transparent)."""
    return 0x2000000 <= code <= 0x3FFFFFF


def direct_colour(rgb: tuple[int, int, int]) -> int:
    """The opaque direct-colour code ``0x2RRGGBB`` for 8-bit ``rgb``.

    >>> hex(direct_colour((255, 0, 16)))
    '0x2ff0010'
    """
    r, g, b = (int(v) & 0xFF for v in rgb)
    return 0x2000000 | (r << 16) | (g << 8) | b


def parse_colour_code(token: str) -> int:
    """Parse an LDraw colour token: decimal, ``0x2RRGGBB`` or ``#2RRGGBB``.

    Raises
    ------
    ValueError
        When ``token`` is not a colour code.

    >>> parse_colour_code("71"), hex(parse_colour_code("0x2FF0000"))
    (71, '0x2ff0000')
    """
    t = token.strip()
    if t.startswith("#"):
        return int(t[1:], 16)
    if t[:2].lower() == "0x":
        return int(t[2:], 16)
    return int(t, 10)


def _hex_rgb(value: str) -> tuple[float, float, float]:
    v = value.lstrip("#")
    if len(v) != 6:
        raise ValueError(f"not a #RRGGBB colour: {value!r}")
    return tuple(int(v[i : i + 2], 16) / 255.0 for i in (0, 2, 4))  # type: ignore[return-value]


@dataclass(frozen=True)
class Colour:
    """One LDraw colour.

    Attributes
    ----------
    code : int
        LDraw colour code.
    name : str
        LDConfig name (e.g. ``"Light_Bluish_Grey"``).
    rgba : tuple of 4 float
        Face colour, 0..1 (alpha < 1 for transparent colours).
    edge_rgba : tuple of 4 float
        Edge (outline) colour, 0..1.
    finish : str
        LDConfig's finish keyword (one of :data:`FINISHES`), ``""`` for plain plastic.
    """

    code: int
    name: str
    rgba: tuple[float, float, float, float]
    edge_rgba: tuple[float, float, float, float]
    finish: str = ""


class ColourTable:
    """The LDraw colour table: code → :class:`Colour`.

    Build with :meth:`builtin` (no library needed) or :meth:`from_ldconfig`. Direct colours
    (``0x2RRGGBB``) need no entry. Code 16 with no parent resolves to
    :data:`DEFAULT_MAIN_CODE` (light grey); code 24 with no parent to its LDConfig value.

    Parameters
    ----------
    colours : dict of int to Colour
    """

    def __init__(self, colours: dict[int, Colour]):
        self._colours = dict(colours)
        self._rgba_cache: dict[int, tuple[float, float, float, float]] = {}

    @classmethod
    def builtin(cls) -> ColourTable:
        """The built-in table of common LDraw colours (values from LDConfig.ldr 2024-04)."""
        out = {}
        for code, (name, value, edge, alpha) in _BUILTIN.items():
            a = alpha / 255.0
            out[code] = Colour(code, name, (*_hex_rgb(value), a), (*_hex_rgb(edge), 1.0),
                               _BUILTIN_FINISH.get(code, ""))
        return cls(out)

    @classmethod
    def from_ldconfig(cls, path: str | Path, warnings: list | None = None) -> ColourTable:
        """Read ``!COLOUR`` lines of an ``LDConfig.ldr``, on top of the built-in table.

        Parameters
        ----------
        path : str or Path
            The ``LDConfig.ldr`` file.
        warnings : list, optional
            Receives a :class:`sandbox.bricks.ldraw.LoadWarning` per unreadable line.

        Raises
        ------
        LDrawError
            When the file cannot be read.
        """
        path = Path(path)
        from sandbox.core.limits import FileRefused, read_input_bytes, reason

        try:
            text = read_input_bytes(path, "colour table").decode("utf-8", errors="replace")
        except FileRefused as exc:
            raise LDrawError(str(exc), path) from None
        except OSError as exc:
            raise LDrawError(f"cannot read colour table: {reason(exc)}", path) from None
        table = cls.builtin()._colours
        pending_edges: dict[int, int] = {}
        for lineno, line in enumerate(text.splitlines(), start=1):
            m = _COLOUR_LINE.match(line)
            if not m:
                continue
            name, rest = m.group(1), m.group(2).split()
            fields: dict[str, str] = {}
            for i, tok in enumerate(rest[:-1]):
                if tok.upper() in ("CODE", "VALUE", "EDGE", "ALPHA") and tok.upper() not in fields:
                    fields[tok.upper()] = rest[i + 1]
            try:
                code = int(fields["CODE"])
                rgb = _hex_rgb(fields["VALUE"])
                alpha = int(fields.get("ALPHA", "255")) / 255.0
                edge = fields.get("EDGE", "#333333")
                if edge.startswith("#"):
                    edge_rgba = (*_hex_rgb(edge), 1.0)
                else:  # an edge given as another colour's code
                    pending_edges[code] = int(edge)
                    edge_rgba = _UNKNOWN_EDGE
            except (KeyError, ValueError) as exc:
                if warnings is not None:
                    warnings.append(LoadWarning(str(path), lineno, f"bad !COLOUR line: {exc}"))
                continue
            finish = next((t.upper() for t in rest if t.upper() in FINISHES), "")
            table[code] = Colour(code, name, (*rgb, alpha), edge_rgba, finish)
        for code, ref in pending_edges.items():
            if ref in table:
                c = table[code]
                table[code] = Colour(c.code, c.name, c.rgba, table[ref].rgba, c.finish)
        return cls(table)

    def __contains__(self, code: int) -> bool:
        return code in self._colours or is_direct_colour(code)

    def __len__(self) -> int:
        return len(self._colours)

    def get(self, code: int) -> Colour | None:
        """The :class:`Colour` for ``code`` (None for direct or unknown codes)."""
        return self._colours.get(code)

    def rgba(self, code: int) -> tuple[float, float, float, float]:
        """Face colour of ``code`` as RGBA floats 0..1.

        Code 16 (unresolved main colour) shows as :data:`DEFAULT_MAIN_CODE`; an unknown code as
        LDConfig's Main_Colour yellow.
        """
        hit = self._rgba_cache.get(code)
        if hit is not None:
            return hit
        if code == MAIN_COLOUR:
            out = self.rgba(DEFAULT_MAIN_CODE)
        elif is_direct_colour(code):
            rgb = ((code >> 16) & 0xFF, (code >> 8) & 0xFF, code & 0xFF)
            alpha = 0.5 if code >= 0x3000000 else 1.0
            out = (rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0, alpha)
        else:
            c = self._colours.get(code)
            out = c.rgba if c is not None else _UNKNOWN_RGBA
        self._rgba_cache[code] = out
        return out

    def edge_rgba(self, code: int) -> tuple[float, float, float, float]:
        """Edge colour of ``code`` as RGBA floats 0..1: the table's ``EDGE`` value (LDConfig);
        for a direct colour or a code the table lacks, a darker shade of the face colour
        (mid grey under a near-black face, as LDConfig gives Black)."""
        if code == MAIN_COLOUR:
            code = DEFAULT_MAIN_CODE
        c = self._colours.get(code)
        if c is not None:
            return c.edge_rgba
        return darker_shade(self.rgba(code))

    def edge_code(self, code: int) -> int:
        """A colour code for "the edge colour of ``code``" (code 24 under a ``code`` parent).

        Returns 24 for 16 (still unresolved), else the direct colour of the edge RGB.
        """
        if code == MAIN_COLOUR:
            return EDGE_COLOUR
        r, g, b, _ = self.edge_rgba(code)
        return direct_colour((round(r * 255), round(g * 255), round(b * 255)))

    def rgba_array(self, codes: np.ndarray) -> np.ndarray:
        """Face colours for an array of codes.

        Parameters
        ----------
        codes : (n,) int

        Returns
        -------
        (n, 4) float32
            RGBA 0..1.
        """
        codes = np.asarray(codes, dtype=np.int64)
        uniq, inv = np.unique(codes, return_inverse=True)
        lut = np.array([self.rgba(int(c)) for c in uniq], dtype=np.float32).reshape(-1, 4)
        return lut[inv.reshape(-1)]
