"""Bricks: LDraw reading, the built-in part catalogue, part meshes, colours (no physics, no
rendering). LDraw geometry is in LDU, LDraw frame (-Y up); world output is in inches, Z up,
converted only through :mod:`sandbox.core.units`.

Public API::

    load_model(path, ldrawdir=None) -> Model          read .ldr/.mpd/.dat, expand submodels
    model_info(model) -> dict                           counts, bbox in inches, warnings
    model_mesh(model, placements=None) -> MeshArrays    world triangle soup (inches, Z up)
    placement_boxes(model, placements=None) -> list[PartBox]   physics boxes
    get_part_mesh(name, ldrawdir=None) -> PartMesh      one part (library > catalogue > placeholder)
    catalogue_part(name) -> PartMesh                    a generated basic part
    ColourTable.builtin() / ColourTable.from_ldconfig(path)
"""

from sandbox.bricks.catalogue import catalogue_part, has_part, part_names
from sandbox.bricks.colours import Colour, ColourTable
from sandbox.bricks.ldraw import LoadWarning, normalise_name
from sandbox.bricks.library import LDrawLibrary, get_library
from sandbox.bricks.mesh import (
    MeshArrays,
    PartBox,
    model_bounds_in,
    model_info,
    model_mesh,
    placement_box,
    placement_boxes,
)
from sandbox.bricks.model import Model, PartPlacement, load_model
from sandbox.bricks.partmesh import PartMesh, get_part_mesh

__all__ = [
    "Colour",
    "ColourTable",
    "LDrawLibrary",
    "LoadWarning",
    "MeshArrays",
    "Model",
    "PartBox",
    "PartMesh",
    "PartPlacement",
    "catalogue_part",
    "get_library",
    "get_part_mesh",
    "has_part",
    "load_model",
    "model_bounds_in",
    "model_info",
    "model_mesh",
    "normalise_name",
    "part_names",
    "placement_box",
    "placement_boxes",
]
