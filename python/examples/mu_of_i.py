"""The friction law mu(I) of the engine's grains, from steady flows down a rough incline.

A layer of glass spheres (d = 8 mm, mu = 0.5, granular preset) flows down a rough incline
(scenes/chute.toml's geometry: periodic along the flow and across it, the floor roughened by fixed
spheres) at several angles theta. In a steady, uniform flow the momentum balance fixes the
stress ratio: sigma_xz / sigma_zz = tan(theta) at every depth, whatever the rheology; the
inertial number I = gamma_dot d / sqrt(P / rho_p) (GDR MiDi 2004) is what the grains choose. So
a steady flow gives one point (I, mu = tan theta) of the friction law. A flow still speeding
up slowly gives its point too, as a shear cell would: the stress ratio and I measured in its
bulk (the law is local), though the ratio is then below tan theta. The law of Jop, Forterre and
Pouliquen (Nature 441, 727, 2006), mu(I) = mu_s + (mu_2 - mu_s) / (1 + I_0 / I), is fitted to
the points (freely, and with their mu_2) and compared with their fit for glass beads (mu_s =
tan 20.9 deg = 0.382, mu_2 = tan 32.76 deg = 0.643, I_0 = 0.279).

For each angle the bed flows for --settle seconds, then the depth profiles of the coarse-grained
fields (World.coarse_grain along z, Lucy kernel of one diameter, over the cell's whole
cross-section) are averaged over --window seconds, one sample every --every steps
(grains.FieldsAverage: the kinetic stress about the window's mean velocity). In the bulk
(4 d above the base to 4 d below the surface) it reports the measured stress ratio (which checks
the flow is steady and uniform: it must be tan theta), the shear rate (the slope of v_x(z)), P =
sigma_zz and I; and whether the flow was steady: the mean velocity of the window's two halves.
Writes mu_of_i.csv into --out.

    python python/examples/mu_of_i.py --out results/mu_of_i
"""

import argparse
import csv
import math
import pathlib

import numpy as np

import grains

G, R, RHO = 9.81, 0.004, 2500.0
D = 2 * R
LX, LY = 0.2, 0.06


def chute(theta_deg, layers):
    t = math.radians(theta_deg)
    return f"""[scene]
name = "mu_of_i_{theta_deg:g}"
duration = 10.0

[settings]
preset = "granular"
h = 0.001
gravity = [{G * math.sin(t)}, 0.0, {-G * math.cos(t)}]

[[materials]]
name = "glass"
friction = 0.5

[[materials]]
name = "rough"
friction = 0.9

[[containers]]
kind = "floor"
name = "incline"
material = "rough"

[[bodies]]
generator = "lattice"
name = "base"
kind = "fixed"
material = "rough"
radius = {R}
density = {RHO}
origin = [0.005, 0.005, 0.0]
spacing = 0.01
counts = [20, 6, 1]

[[bodies]]
generator = "lattice"
name = "grains"
material = "glass"
radius = {R}
density = {RHO}
origin = [0.005, 0.005, 0.0095]
spacing = 0.01
counts = [20, 6, {layers}]
jitter = 0.1
seed = 3

[periodic]
x = [0.0, {LX}]
y = [0.0, {LY}]
"""


def fit_jfp(i, mu, mu_2=None):
    """Least squares of mu_s + (mu_2 - mu_s) / (1 + I_0 / I) (mu_2 given or fitted): linear in
    mu_s and mu_2 for each I_0, I_0 searched on a fine log grid. Returns (squared error, mu_s,
    mu_2, I_0)."""
    best = None
    for i0 in np.geomspace(1e-3, 10.0, 4001):
        w = 1.0 / (1.0 + i0 / i)
        if mu_2 is None:
            a = np.column_stack([1.0 - w, w])
            (ms, m2), *_ = np.linalg.lstsq(a, mu, rcond=None)
        else:
            m2 = mu_2
            ms = float(((1.0 - w) * (mu - m2 * w)).sum() / ((1.0 - w) ** 2).sum())
        err = float(((ms * (1.0 - w) + m2 * w - mu) ** 2).sum())
        if best is None or err < best[0]:
            best = (err, ms, m2, i0)
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--angles", default="22,23,24,26,28")
    p.add_argument("--layers", type=int, default=40)
    p.add_argument("--settle", type=float, default=1.5)
    p.add_argument("--window", type=float, default=1.0)
    p.add_argument("--every", type=int, default=20)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", default="results/mu_of_i")
    a = p.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    print("theta  tan(theta)  sxz/szz (bulk)  gamma_dot (1/s)  P (Pa)  I       phi    v1/v2 (steady)")
    for theta in [float(x) for x in a.angles.split(",")]:
        path = out / f"chute_{theta:g}.toml"
        path.write_text(chute(theta, a.layers))
        w = grains.load_scene(str(path), threads=a.threads)
        grains_range = dict(w.groups)["grains"]
        dynamic = slice(*grains_range)
        w.step(int(round(a.settle / w.h)))
        dz = D / 4
        top = float((w.positions[dynamic, 2]).max()) + R
        n = int(top / dz) + 4
        average, vmeans = grains.FieldsAverage(), []
        for _ in range(int(round(a.window / w.h / a.every))):
            w.step(a.every)
            w.coarse_grain(D, profile=("z", 0.0, dz, n, LX * LY), average=average)
            vmeans.append(float(w.velocities[dynamic, 0].mean()))
        f = average.mean()
        stress = f["kinetic_stress"] + f["contact_stress"]
        rho, phi, v = f["density"], f["volume_fraction"], f["velocity"][:, 0]
        z = np.arange(n) * dz
        surface = z[rho > 0.5 * rho.max()].max()
        bulk = (z > 4 * D + R) & (z < surface - 4 * D)
        szz, sxz = stress[bulk, 2, 2], stress[bulk, 0, 2]
        ratio = float(np.abs(sxz).sum() / szz.sum())
        gamma = np.gradient(v, dz)[bulk]
        i_local = gamma * D / np.sqrt(szz / RHO)
        i_bulk = float(np.median(i_local))
        half = len(vmeans) // 2
        steady = np.mean(vmeans[:half]) / np.mean(vmeans[half:])
        row = dict(
            theta_deg=theta,
            mu=math.tan(math.radians(theta)),
            stress_ratio=ratio,
            shear_rate=float(np.median(gamma)),
            pressure=float(np.median(szz)),
            inertial_number=i_bulk,
            inertial_number_spread=float(np.percentile(i_local, 75) - np.percentile(i_local, 25)),
            volume_fraction=float(np.median(phi[bulk])),
            steady_ratio=float(steady),
            bulk_layers=int(bulk.sum()),
            depth_d=float(surface / D),
        )
        rows.append(row)
        print(
            f"{theta:5.1f}  {row['mu']:10.4f}  {ratio:14.4f}  {row['shear_rate']:15.2f}  "
            f"{row['pressure']:6.1f}  {i_bulk:.4f}  {row['volume_fraction']:.3f}  {steady:.3f}"
        )
    with open(out / "mu_of_i.csv", "w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    # Each flow's bulk gives one point (I, sigma_xz / sigma_zz) of the local law, steady or
    # still accelerating slowly; in a steady flow the ratio is also tan(theta).
    flowing = [r for r in rows if r["inertial_number"] > 0]
    if len(flowing) < 3:
        print(f"{len(flowing)} flows: too few to fit mu(I)")
        return
    i = np.array([r["inertial_number"] for r in flowing])
    mu = np.array([r["stress_ratio"] for r in flowing])
    err, ms, m2, i0 = fit_jfp(i, mu)
    print(f"fit of mu(I) to {len(flowing)} flows, I = {i.min():.3f} to {i.max():.3f}: "
          f"mu_s = {ms:.3f}, mu_2 = {m2:.3f}, I_0 = {i0:.3f} (rms {math.sqrt(err / len(i)):.4f})")
    err, ms, _, i0 = fit_jfp(i, mu, mu_2=0.643)
    print(f"the same with mu_2 = 0.643 (Jop et al.'s): mu_s = {ms:.3f}, I_0 = {i0:.3f} "
          f"(rms {math.sqrt(err / len(i)):.4f})")
    jfp = 0.382 + (0.643 - 0.382) / (1 + 0.279 / i)
    print("Jop, Forterre and Pouliquen (2006), glass beads: mu_s = 0.382, mu_2 = 0.643, I_0 = 0.279")
    for r, want in zip(flowing, jfp):
        print(f"  theta {r['theta_deg']:4.1f}: I = {r['inertial_number']:.4f}, "
              f"sigma_xz/sigma_zz = {r['stress_ratio']:.4f}, their law {want:.4f} ({r['stress_ratio'] - want:+.4f})")


if __name__ == "__main__":
    main()
