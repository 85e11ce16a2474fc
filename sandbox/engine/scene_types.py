"""Value types shared by the scene-file schemas (pydantic)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

#: A coordinate in inches (or an angle in degrees): finite, within a table-sized range, so a
#: NaN or infinity in a scene file is a validation error naming the field, not a crash later.
Coord = Annotated[float, Field(allow_inf_nan=False, ge=-10000.0, le=10000.0)]
Vec3 = tuple[Coord, Coord, Coord]
Vec2 = tuple[Coord, Coord]
#: An LDraw colour code: 0 .. the largest direct colour ``0x3FFFFFF``.
ColourCode = Annotated[int, Field(ge=0, le=0x3FFFFFF)]
