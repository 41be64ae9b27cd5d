"""A drained triaxial test in a box of six servo walls: the peak and critical-state friction
angles of the engine's grains.

1,000 glass spheres (r = 2 to 2.5 mm, mu = 0.5, granular preset, no gravity) fill a 6 cm cube
loosely. Consolidation: each of the six walls is a servo (WorldBuilder.plane(servo=...)) holding
the force sigma_0 L^2 of a pressure sigma_0 (--pressure) on the cube's face, until the loads
settle; the faces shrink as the bed packs, so the confining stress sigma_c it settles at is
higher. Shearing: a second world starts from the consolidated grains with the walls where the
servos left them; the four side walls go on holding their consolidated loads, and the two end walls are
servos whose target they never reach, so they close in at their speed limit: a constant axial
strain rate (--rate, slow enough for a quasi-static test: the inertial number is printed). The
stresses are the walls' loads over their faces' current areas: sigma_1 on the ends, sigma_3 the
sides' mean; the mobilised friction angle is sin(phi) = (sigma_1 - sigma_3) / (sigma_1 +
sigma_3) (Mohr-Coulomb, no cohesion), the volumetric strain the box's. Prints and writes
triaxial.csv into --out: axial strain, sigma_1, sigma_3, phi, volumetric strain.

    python python/examples/triaxial.py --out results/triaxial
"""

import argparse
import csv
import math
import pathlib

import numpy as np

import grains

L, R_MIN, R_MAX, RHO = 0.06, 0.002, 0.0025, 2500.0
# The walls: (point at rest, inward normal), x-, x+, y-, y+, z-, z+.
NORMALS = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]


def faces(world, walls, points):
    """The six faces' positions along their axes from the servos' advances."""
    return [
        np.array(p) + world.servo_state(w)["advance"] * np.array(n, float)
        for w, p, n in zip(walls, points, NORMALS)
    ]


def box_of(face):
    """The box's edge lengths (x, y, z) between opposite faces."""
    return np.array([face[2 * k + 1][k] - face[2 * k][k] for k in range(3)])


def build(settings, positions, radii, points, servos):
    b = grains.WorldBuilder(settings)
    b.material(0.5)
    walls = [
        b.plane(tuple(p), n, servo=s) for p, n, s in zip(points, NORMALS, servos)
    ]
    b.add_spheres(positions, radii, density=RHO)
    return b.build(), walls


def loads(world, walls):
    f = world.wall_loads()["force"]
    return np.array([-f[w] @ np.array(n, float) for w, n in zip(walls, NORMALS)])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--grains", type=int, default=1000)
    p.add_argument("--pressure", type=float, default=5e3, help="sigma_0 on the initial faces (Pa)")
    p.add_argument("--rate", type=float, default=0.1, help="axial strain rate (1/s)")
    p.add_argument("--strain", type=float, default=0.15, help="axial strain to reach")
    p.add_argument("--h", type=float, default=1e-4)
    p.add_argument("--servo-speed", type=float, default=0.01, help="m/s")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", default="results/triaxial")
    a = p.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    settings = grains.Settings.granular(a.h)
    settings.gravity = (0.0, 0.0, 0.0)
    settings.threads = a.threads
    lo, hi = (-L / 2 + R_MAX,) * 3, (L / 2 - R_MAX,) * 3
    positions, radii = grains.random_fill(a.grains, radius=R_MIN, radius_max=R_MAX, box=(lo, hi), seed=7)
    points = [tuple(-L / 2 * np.array(n, float)) for n in NORMALS]

    # Consolidation: every wall holds sigma_0 on the cube's face.
    force = a.pressure * L * L
    # The servos' gain: a wall off its target by F* moves at --servo-speed (and at most 3 times
    # that), slow enough that gain k_eff h stays below 1 for the stiff contacts of a small h.
    v_tol = a.servo_speed
    servo = {"force": force, "gain": v_tol / force, "max_speed": 3 * v_tol}
    world, walls = build(settings, positions, radii, points, [servo] * 6)
    steps = 0
    while True:
        world.step(200)
        steps += 200
        face = faces(world, walls, points)
        box = box_of(face)
        area = [box[1] * box[2]] * 2 + [box[0] * box[2]] * 2 + [box[0] * box[1]] * 2
        stress = loads(world, walls) / np.array(area)
        ke = world.stats()["kinetic_energy"]
        if steps >= 1000 and np.all(np.abs(stress / a.pressure - L * L / np.array(area)) < 0.02) and ke < 1e-9 * a.grains:
            break
        if steps > 20000:
            raise SystemExit(f"consolidation did not settle: stresses {stress} Pa, KE {ke} J")
    volume_0 = box.prod()
    phi_0 = sum(4 / 3 * math.pi * r**3 for r in radii) / volume_0
    print(f"consolidated after {steps} steps: box {np.round(1000 * box, 2)} mm, packing fraction "
          f"{phi_0:.3f}, wall stresses {np.round(stress)} Pa")

    # Shearing: the side walls hold the consolidated loads (the confining stress sigma_c on
    # their faces as they are now); the ends close in. The walls start where the servos left
    # them, backed off by the grains' deepest overlap of each (compliant contacts under load
    # overlap them a little, and a new world refuses a grain inside a wall).
    pos = world.positions.copy()
    for k, n in enumerate(NORMALS):
        n = np.array(n, float)
        depth = float(np.max(radii - (pos - face[k]) @ n))
        face[k] = face[k] - max(depth, 0.0) * n
    sides = list(loads(world, walls)[:4])
    sigma_c = float(np.mean(stress[:4]))
    axial_speed = 0.5 * a.rate * box[2]
    # The sides must follow the bed's lateral bulging (about the axial speed): a gain 4 times
    # the consolidation's keeps the lag in sigma_3 small.
    side_servo = [{"force": f, "gain": 4 * v_tol / f, "max_speed": 3 * v_tol} for f in sides]
    end_servo = {"force": 1e12, "gain": 1.0, "max_speed": axial_speed}
    points2 = [tuple(f) for f in face]
    world, walls = build(settings, pos, radii, points2, side_servo + [end_servo] * 2)
    box = box_of(face)
    h0, volume_0 = box[2], box.prod()
    print(f"shearing at confining stress sigma_c = {sigma_c:.0f} Pa")
    d = 2 * float(np.mean(radii))
    rows = []
    print("axial strain  sigma_1 (Pa)  sigma_3 (Pa)  phi (deg)  volumetric strain  I")
    n_steps = int(round(a.strain * h0 / (2 * axial_speed) / a.h))
    every = max(1, n_steps // 30)
    for k in range(1, n_steps + 1):
        world.step(1)
        if k % every:
            continue
        face = faces(world, walls, points2)
        box = box_of(face)
        f = loads(world, walls)
        s1 = 0.5 * (f[4] + f[5]) / (box[0] * box[1])
        s3 = 0.25 * ((f[0] + f[1]) / (box[1] * box[2]) + (f[2] + f[3]) / (box[0] * box[2]))
        phi = math.degrees(math.asin((s1 - s3) / (s1 + s3)))
        strain = 1 - box[2] / h0
        vol = 1 - box.prod() / volume_0
        inertial = a.rate * d / math.sqrt(s3 / RHO)
        rows.append(dict(axial_strain=strain, sigma_1=s1, sigma_3=s3, phi_deg=phi, volumetric_strain=vol, inertial_number=inertial))
        print(f"{strain:12.4f}  {s1:12.0f}  {s3:12.0f}  {phi:9.2f}  {vol:17.4f}  {inertial:.1e}")
    with open(out / "triaxial.csv", "w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    peak = max(rows, key=lambda r: r["phi_deg"])
    late = [r["phi_deg"] for r in rows if r["axial_strain"] > 0.8 * a.strain]
    print(f"peak friction angle {peak['phi_deg']:.1f} deg at axial strain {peak['axial_strain']:.3f}; "
          f"over the last fifth {np.mean(late):.1f} deg (sin phi = {math.sin(math.radians(np.mean(late))):.3f})")


if __name__ == "__main__":
    main()
