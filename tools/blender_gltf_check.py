"""Open an exported glTF in Blender (the ``bpy`` module) and report what Blender made of it.

Blender is not a dependency of the sandbox: run this with a Python that has ``bpy`` (pip's
``bpy`` 4.x needs CPython 3.11), in its own virtual environment::

    python3.11 -m venv /tmp/bpy-venv && /tmp/bpy-venv/bin/pip install "bpy>=4,<6"
    /tmp/bpy-venv/bin/python tools/blender_gltf_check.py table.glb --material Red \
        --render table.png

Prints one line of counts (objects, meshes, materials, triangles), then each requested
material's Principled BSDF inputs (base colour as Blender holds it: linear RGBA, metallic,
roughness, alpha, blend mode), and with ``--render`` writes a small Cycles (CPU) picture of
the import seen from above the table's corner. Exits 1 when the file does not import or a
requested material is absent.
"""

from __future__ import annotations

import argparse
import math
import sys


def _principled(mat):
    if mat.node_tree is None:
        return None
    return next((n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED"), None)


def _look_at(obj, target) -> None:
    from mathutils import Vector

    direction = Vector(target) - obj.location
    obj.rotation_euler = direction.to_track_quat("-Z", "Y").to_euler()


def render(path: str, size: int, samples: int) -> None:
    """A Cycles CPU render of the imported scene: a sun, a camera above a corner, aimed at
    the centre of the bodies' bounds (every mesh but the battlefield)."""
    import bpy
    from mathutils import Vector

    scene = bpy.context.scene
    meshes = [o for o in scene.objects if o.type == "MESH"]
    bodies = [o for o in meshes if not o.name.startswith("battlefield")] or meshes
    corners = [o.matrix_world @ Vector(c) for o in bodies for c in o.bound_box]
    lo = Vector((min(c.x for c in corners), min(c.y for c in corners),
                 min(c.z for c in corners)))
    hi = Vector((max(c.x for c in corners), max(c.y for c in corners),
                 max(c.z for c in corners)))
    centre, extent = (lo + hi) / 2, max((hi - lo).length, 0.1)
    cam_data = bpy.data.cameras.new("check_camera")
    cam_data.lens = 35
    cam = bpy.data.objects.new("check_camera", cam_data)
    scene.collection.objects.link(cam)
    cam.location = centre + Vector((0.5, -0.7, 0.45)) * extent * 1.1
    _look_at(cam, centre)
    scene.camera = cam
    sun_data = bpy.data.lights.new("check_sun", "SUN")
    sun_data.energy = 3.0
    sun = bpy.data.objects.new("check_sun", sun_data)
    sun.rotation_euler = (math.radians(40), math.radians(10), math.radians(30))
    scene.collection.objects.link(sun)
    world = scene.world or bpy.data.worlds.new("check_world")
    scene.world = world
    world.use_nodes = True
    bg = world.node_tree.nodes.get("Background")
    if bg is not None:
        bg.inputs["Color"].default_value = (0.8, 0.85, 0.9, 1.0)
        bg.inputs["Strength"].default_value = 0.6
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    scene.render.resolution_x = size
    scene.render.resolution_y = int(size * 0.75)
    scene.render.filepath = path
    scene.render.image_settings.file_format = "PNG"
    bpy.ops.render.render(write_still=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", help="a .glb or .gltf")
    ap.add_argument("--material", action="append", default=[],
                    help="print this material's inputs (repeatable)")
    ap.add_argument("--render", help="write a Cycles (CPU) picture here (.png)")
    ap.add_argument("--size", type=int, default=480, help="picture width, pixels")
    ap.add_argument("--samples", type=int, default=16, help="Cycles samples per pixel")
    args = ap.parse_args(argv)

    import bpy

    bpy.ops.wm.read_factory_settings(use_empty=True)
    try:
        result = bpy.ops.import_scene.gltf(filepath=args.file)
    except RuntimeError as exc:
        print(f"{args.file}: Blender could not import it: {exc}")
        return 1
    if "FINISHED" not in result:
        print(f"{args.file}: Blender's import did not finish ({result})")
        return 1
    objects = list(bpy.context.scene.objects)
    meshes = [o for o in objects if o.type == "MESH"]
    tris = 0
    for o in meshes:
        o.data.calc_loop_triangles()
        tris += len(o.data.loop_triangles)
    print(f"{args.file}: {len(objects)} objects, {len(meshes)} mesh objects, "
          f"{len(bpy.data.meshes)} meshes, {len(bpy.data.materials)} materials, "
          f"{tris} triangles (Blender {bpy.app.version_string})")
    status = 0
    for name in args.material:
        mat = bpy.data.materials.get(name)
        node = _principled(mat) if mat is not None else None
        if node is None:
            print(f"  material {name!r}: not found")
            status = 1
            continue
        base = [round(float(v), 4) for v in node.inputs["Base Color"].default_value]
        metal = round(float(node.inputs["Metallic"].default_value), 3)
        rough = round(float(node.inputs["Roughness"].default_value), 3)
        alpha = round(float(node.inputs["Alpha"].default_value), 3)
        blend = getattr(mat, "surface_render_method", getattr(mat, "blend_method", "?"))
        print(f"  material {name!r}: base colour (linear) {base}, metallic {metal}, "
              f"roughness {rough}, alpha {alpha}, blend {blend}")
    if args.render:
        render(args.render, args.size, args.samples)
        print(f"  rendered {args.render}")
    return status


if __name__ == "__main__":
    sys.exit(main())
