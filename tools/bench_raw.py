"""Raw pybullet baseline (not a test): the sandbox's compounds built and stepped by pybullet alone.

Reads a dump written by ``tools/bench.py`` (``--child dump``): the battlefield size, the time
step, and for every body its mass, centre of mass, principal frame, principal inertia and its
collision boxes in that frame (half sizes, centres, quaternions): exactly what the sandbox hands
to pybullet. This process imports nothing of the sandbox (pybullet, json and the standard
library only), builds the same bodies the same way (a compound shape for up to 16 boxes, a
one-link URDF above), steps the sandbox's settle, and optionally idles and times the table at
rest. It prints one JSON line. ``tools/bench.py`` times it as a whole process (wall time, CPU
and peak memory of the child, from ``os.wait4``).

    python tools/bench_raw.py DUMP.json [--idle 4] [--steps 480] [--sleeping]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time


def build(c, pybullet, dump: dict, sleeping: bool) -> list[int]:
    w, d = dump["battlefield"]
    c.resetSimulation()
    c.setGravity(0, 0, -dump["gravity"])
    c.setPhysicsEngineParameter(fixedTimeStep=dump["time_step"], numSubSteps=1,
                                numSolverIterations=50, deterministicOverlappingPairs=1,
                                restitutionVelocityThreshold=5.0)
    ground = c.createMultiBody(0, c.createCollisionShape(pybullet.GEOM_BOX,
                                                         halfExtents=[w / 2, d / 2, 0.5]),
                               -1, [0, 0, -0.5], [0, 0, 0, 1])
    c.changeDynamics(ground, -1, lateralFriction=0.7, restitution=0.1)
    uids = []
    for b in dump["bodies"]:
        mass = 0.0 if b["static"] else b["mass"]
        if len(b["half"]) <= 16:
            shape = c.createCollisionShapeArray(
                shapeTypes=[pybullet.GEOM_BOX] * len(b["half"]), halfExtents=b["half"],
                collisionFramePositions=b["centres"], collisionFrameOrientations=b["quats"])
            uid = c.createMultiBody(mass, shape, -1, b["com"], b["orn"])
        else:
            lines = ['<?xml version="1.0"?>', '<robot name="b">', '<link name="body">',
                     '<inertial><origin xyz="0 0 0" rpy="0 0 0"/>', f'<mass value="{mass!r}"/>',
                     f'<inertia ixx="{b["diag"][0]!r}" ixy="0" ixz="0" iyy="{b["diag"][1]!r}" '
                     f'iyz="0" izz="{b["diag"][2]!r}"/>', '</inertial>']
            for h, p, q in zip(b["half"], b["centres"], b["quats"], strict=True):
                r = c.getEulerFromQuaternion(q)
                lines.append(f'<collision><origin xyz="{p[0]!r} {p[1]!r} {p[2]!r}" '
                             f'rpy="{r[0]!r} {r[1]!r} {r[2]!r}"/><geometry><box size="'
                             f'{2 * h[0]!r} {2 * h[1]!r} {2 * h[2]!r}"/></geometry></collision>')
            lines += ["</link>", "</robot>", ""]
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "b.urdf")
                with open(path, "w") as fh:
                    fh.write("\n".join(lines))
                uid = c.loadURDF(path, b["com"], b["orn"], useFixedBase=mass == 0.0,
                                 flags=pybullet.URDF_USE_INERTIA_FROM_FILE)
        dyn = dict(lateralFriction=0.5, restitution=0.1, rollingFriction=0.0, linearDamping=0.0,
                   angularDamping=0.0, maxJointVelocity=20000.0)
        if not b["static"]:
            dyn["localInertiaDiagonal"] = b["diag"]
            if sleeping:
                dyn["activationState"] = pybullet.ACTIVATION_STATE_ENABLE_SLEEPING
                dyn["sleepThreshold"] = 0.01
        c.changeDynamics(uid, -1, **dyn)
        uids.append(uid)
    return uids


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dump")
    ap.add_argument("--idle", type=float, default=0.0, help="simulated s at rest before timing")
    ap.add_argument("--steps", type=int, default=0, help="steps timed after the idle")
    ap.add_argument("--sleeping", action="store_true", help="Bullet's sleeping on")
    args = ap.parse_args()
    t0 = time.perf_counter()
    import pybullet
    from pybullet_utils.bullet_client import BulletClient

    with open(args.dump) as fh:
        dump = json.load(fh)
    c = BulletClient(connection_mode=pybullet.DIRECT)
    build(c, pybullet, dump, args.sleeping)
    for _ in range(dump["settle_steps"]):
        c.stepSimulation()
    out = {"bodies": len(dump["bodies"]), "load_and_settle_s": time.perf_counter() - t0}
    if args.steps:
        for _ in range(int(round(args.idle / dump["time_step"]))):
            c.stepSimulation()
        t = time.perf_counter()
        for _ in range(args.steps):
            c.stepSimulation()
        out["idle_x_real_time"] = args.steps * dump["time_step"] / (time.perf_counter() - t)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
