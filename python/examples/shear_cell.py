"""The friction law mu(I) from a pressure-controlled simple shear cell: Lees-Edwards boundaries
and a servo lid, at inertial numbers from 1e-3 to 1e-1.

600 glass spheres (r = 2 to 2.5 mm, mu = 0.5, no gravity, granular preset at h = 0.1 ms) fill
a cell periodic along x and y (4 cm x 4 cm), sheared along x across y at a set rate
(Settings.periodic_shear_rate: Lees-Edwards boundaries, no walls in the shear), between a
frictionless floor and a frictionless servo lid that holds the pressure P on the cell's top face
(WorldBuilder.plane(servo=...)). The lid holds sigma_zz; the friction is read on the shear
plane: mu = -sigma_xy / sigma_yy, I = gamma_dot d / sqrt(sigma_yy / rho_p), both from the
cell's stress, the volume average of the grains' Love-Weber contact stress (World.grain_stress
times each grain's volume) plus the kinetic stress about the shear's streaming velocity.

The bed is first compressed to P without shear; then the rates run from slow to fast, each
starting from the state the last one left (velocities set to the shear profile; settle plus
window a whole strain, so that the images across y are back in line when the next world starts
them unshifted), sheared for --settle strain units and then averaged over --window more (one
sample every window/samples).
Each rate's steady state is shown by the two halves of its window (mu and the lid's height).
The points are fitted to mu(I) = mu_s + (mu_2 - mu_s)/(1 + I_0/I) (freely, and with Jop et al.'s
mu_2 held; mu_of_i.py's fit) and printed beside the law
of Jop, Forterre and Pouliquen (Nature 441, 727, 2006; glass beads: mu_s = 0.382,
mu_2 = 0.643, I_0 = 0.279). Writes shear_cell.csv into --out.

    python python/examples/shear_cell.py --out results/shear_cell
"""

import argparse
import csv
import math
import pathlib

import numpy as np

import grains
from mu_of_i import fit_jfp  # the fit of the chute study, beside this file

R_MIN, R_MAX, RHO = 0.002, 0.0025, 2500.0
LX = LY = 0.04
JOP = (0.382, 0.643, 0.279)


def mu_of_i(inertial, mu_s, mu_2, i_0):
    """The law mu(I) = mu_s + (mu_2 - mu_s) / (1 + I_0 / I)."""
    return mu_s + (mu_2 - mu_s) / (1.0 + i_0 / np.asarray(inertial))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--inertial", default="1e-3,3e-3,1e-2,3e-2,1e-1",
                   help="the inertial numbers aimed at (each sets a rate from P and d)")
    p.add_argument("--pressure", type=float, default=2e4, help="P on the lid (Pa)")
    p.add_argument("--grains", type=int, default=600)
    p.add_argument("--settle", type=float, default=2.0, help="strain before averaging")
    p.add_argument("--window", type=float, default=4.0,
                   help="strain averaged over (settle + window a whole number)")
    p.add_argument("--samples", type=int, default=80)
    p.add_argument("--h", type=float, default=1e-4)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", default="results/shear_cell")
    a = p.parse_args()
    if abs(a.settle + a.window - round(a.settle + a.window)) > 1e-9:
        p.error(f"--settle + --window must be a whole strain, got {a.settle + a.window}")
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    # A loose fill clear of the periodic seams (no grain overlaps another one's image).
    height = 0.06
    lo, hi = (R_MAX, R_MAX, R_MAX), (LX - R_MAX, LY - R_MAX, height - R_MAX)
    positions, radii = grains.random_fill(a.grains, radius=R_MIN, radius_max=R_MAX, box=(lo, hi), seed=5)
    d = 2.0 * float(np.mean(radii))
    volumes = 4.0 / 3.0 * math.pi * radii**3
    masses = RHO * volumes
    force = a.pressure * LX * LY
    # The servo's gain: the lid moves at 2 cm/s when its load is off by P (gain x bed stiffness
    # x h about 0.3 for this bed, from the contacts' stiffness m (2 pi f)^2 in series over some
    # eight layers: no oscillation); the approach to the loose fill, at 5 cm/s, uses 2.5 times
    # that.
    hold, approach = 0.02 / force, 0.05 / force

    def world(rate, pos, lid_at, gain, vel=None):
        s = grains.Settings.granular(a.h)
        s.gravity = (0.0, 0.0, 0.0)
        s.threads = a.threads
        s.periodic_x, s.periodic_y = (0.0, LX), (0.0, LY)
        s.periodic_shear_rate = rate
        b = grains.WorldBuilder(s)
        b.material(0.0, name="smooth")
        glass = b.material(0.5, name="glass")
        b.pair_friction("smooth", "glass", 0.0)
        b.plane((0.0, 0.0, 0.0), (0.0, 0.0, 1.0), material="smooth")
        lid = b.plane((0.0, 0.0, lid_at), (0.0, 0.0, -1.0), material="smooth",
                      servo={"force": force, "gain": gain, "max_speed": 0.1})
        b.add_spheres(pos, radii, masses=masses, velocities=vel, material=glass)
        return b.build(), lid

    def lid_height(w, lid, origin):
        return origin - w.servo_state(lid)["advance"]

    # Compression without shear: the lid comes down until its load first passes P / 2, then
    # holds P with the slow gain until the load over the last 1,000 steps is within 1 %.
    w, lid = world(0.0, positions, height, approach)
    while w.servo_state(lid)["load"] < force / 2:
        w.step(100)
    top = lid_height(w, lid, height)
    w, lid = world(0.0, w.positions.copy(), top, hold)
    for _ in range(100):
        loads = []
        for _ in range(100):
            w.step(10)
            loads.append(w.servo_state(lid)["load"])
        if abs(np.mean(loads) / force - 1.0) < 0.01:
            break
    top = lid_height(w, lid, top)
    pos = w.positions.copy()
    print(f"compressed: lid at {1000 * top:.2f} mm, volume fraction "
          f"{volumes.sum() / (LX * LY * top):.3f}, {w.steps} steps")
    print("I aimed  gamma_dot (1/s)  P lid (Pa)  sigma_zz  sigma_yy (Pa)  mu     halves         I        phi    "
          "lid drift (d)  Jop et al.")
    rows = []
    for target in [float(x) for x in a.inertial.split(",")]:
        rate = target * math.sqrt(a.pressure / RHO) / d
        vel = np.zeros_like(pos)
        vel[:, 0] = rate * (pos[:, 1] - LY / 2)
        w, lid = world(rate, pos, top, hold, vel)
        steps = lambda strain: max(1, int(round(strain / rate / a.h)))
        w.step(steps(a.settle))
        every = max(1, steps(a.window) // a.samples)
        samples = []
        for _ in range(a.samples):
            w.step(every)
            gap = lid_height(w, lid, top)
            contact = np.einsum("i,ijk->jk", volumes, w.grain_stress())
            v = w.velocities.astype(np.float64)
            v[:, 0] -= rate * (w.positions[:, 1] - LY / 2)
            kinetic = np.einsum("i,ij,ik->jk", masses, v, v)
            samples.append(((contact + kinetic) / (LX * LY * gap), w.servo_state(lid)["load"], gap))
        sigma = np.mean([s[0] for s in samples], axis=0)
        half = len(samples) // 2
        halves = [np.mean([s[0] for s in part], axis=0) for part in (samples[:half], samples[half:])]
        mu_halves = [-s[0, 1] / s[1, 1] for s in halves]
        gaps = [np.mean([s[2] for s in part]) for part in (samples[:half], samples[half:])]
        gap = float(np.mean([s[2] for s in samples]))
        mu = -sigma[0, 1] / sigma[1, 1]
        inertial = rate * d / math.sqrt(sigma[1, 1] / RHO)
        phi = volumes.sum() / (LX * LY * gap)
        jfp = float(mu_of_i(inertial, *JOP))
        row = dict(inertial_aimed=target, shear_rate=rate,
                   lid_pressure=np.mean([s[1] for s in samples]) / (LX * LY),
                   sigma_xx=sigma[0, 0], sigma_yy=sigma[1, 1], sigma_zz=sigma[2, 2],
                   sigma_xy=sigma[0, 1], mu=mu, mu_first_half=mu_halves[0],
                   mu_second_half=mu_halves[1], inertial_number=inertial, volume_fraction=phi,
                   lid_drift_diameters=(gaps[1] - gaps[0]) / d, jop_mu=jfp)
        rows.append(row)
        print(f"{target:7.0e}  {rate:15.3f}  {row['lid_pressure']:10.0f}  {sigma[2, 2]:8.0f}  "
              f"{sigma[1, 1]:13.0f}  {mu:.4f} {mu_halves[0]:.3f}/{mu_halves[1]:.3f}  {inertial:.2e}  "
              f"{phi:.3f}  {row['lid_drift_diameters']:+13.3f}  {jfp:.4f}")
        # The next rate starts from this state in a world whose images across y start unshifted:
        # shear on to a whole strain (the offset back at 0 mod L_x, L_x = L_y) before handing
        # over, else the grains across the seam would overlap their new neighbours.
        w.step(max(0, steps(a.settle + a.window) - w.steps))
        pos = w.positions.copy()
        top = lid_height(w, lid, top)
    inertial = np.array([r["inertial_number"] for r in rows])
    mu = np.array([r["mu"] for r in rows])
    err, mu_s, mu_2, i_0 = fit_jfp(inertial, mu)
    print(f"fit: mu_s = {mu_s:.3f}, mu_2 = {mu_2:.3f}, I_0 = {i_0:.3f} (rms {math.sqrt(err / len(mu)):.4f})")
    err, mu_s, _, i_0 = fit_jfp(inertial, mu, mu_2=JOP[1])
    print(f"with mu_2 = {JOP[1]} held: mu_s = {mu_s:.3f}, I_0 = {i_0:.3f} (rms {math.sqrt(err / len(mu)):.4f}); "
          f"Jop et al.: mu_s = {JOP[0]}, mu_2 = {JOP[1]}, I_0 = {JOP[2]}")
    with open(out / "shear_cell.csv", "w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)


if __name__ == "__main__":
    main()
