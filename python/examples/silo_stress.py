"""The stresses inside an as-filled silo, from the coarse-grained fields: how much of the wall
friction Janssen's model counts on is mobilised, and the lateral stress ratio K of the bed.

Runs scenes/silo.toml (four square silos 4 cm across, filled with 588 to 4,704 glass spheres
dropped from a lattice, 1.5 s) and, for the tallest fill, coarse-grains the grains and contacts
(World.coarse_grain, a Lucy kernel of two diameters) on a grid over the silo: the cross-section
averages of σ_zz and σ_xx, σ_yy in the core (a kernel's reach from the walls) against depth, and
σ_zz against the weight above (ρ_b g ∫ dz, from the same fields). From the wall loads of each
silo: the side walls' vertical (friction) force over their normal force, the wall friction
mobilised, against the material's μ = 0.5. Janssen's ceiling ρ_b g λ with λ = D / (4 K μ_w)
fits the fields' σ_zz plateau with the product K μ_w. Writes silo_stress.csv into --out.

    python python/examples/silo_stress.py --out results/silo_stress
"""

import argparse
import csv
import pathlib

import numpy as np

import grains

ROOT = pathlib.Path(__file__).resolve().parents[2]
G, D, R = 9.81, 0.04, 0.0025


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scene", default=str(ROOT / "scenes" / "silo.toml"))
    p.add_argument("--out", default="results/silo_stress")
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    world = grains.load_scene(a.scene, threads=a.threads)
    world.step(int(round(1.5 / world.h)))

    # The wall friction each silo mobilises: its side walls' vertical force over their normal
    # force (each container's five walls: floor, -x, +x, -y, +y).
    loads = world.wall_loads()["force"]
    print("silo  floor (N)  sides normal (N)  sides vertical (N)  mobilised mu_w")
    for s in range(4):
        f = loads[5 * s : 5 * s + 5]
        normal = abs(f[1, 0]) + abs(f[2, 0]) + abs(f[3, 1]) + abs(f[4, 1])
        vertical = -f[1:, 2].sum()
        print(f"{s + 1:4d}  {-f[0, 2]:9.3f}  {normal:16.3f}  {vertical:18.3f}  {vertical / normal:14.3f}")

    # The tallest fill (the fourth silo, floor centre x = 0.15 m).
    x0, half, c, h, dz = 0.15, D / 2, 4 * R, R, 0.005
    inside = np.abs(world.positions[:, 0] - x0) < half
    top = float((world.positions[inside, 2] + world.radii[inside]).max())
    nx, nz = int(round(D / h)) + 1, int(top / dz) + 1
    f = world.coarse_grain(c, grid=((x0 - half, -half, 0.0), (h, h, dz), (nx, nx, nz)))
    stress = (f["kinetic_stress"] + f["contact_stress"]).reshape(nz, nx, nx, 3, 3)
    rho = f["density"].reshape(nz, nx, nx)
    core = slice(int(c / h), nx - int(c / h))
    mean = lambda field: field[:, core, core].mean(axis=(1, 2))
    szz, sxx, syy, rb = mean(stress[..., 2, 2]), mean(stress[..., 0, 0]), mean(stress[..., 1, 1]), mean(rho)
    z = np.arange(nz) * dz
    weight_above = np.array([G * np.trapezoid(rb[k:], z[k:]) for k in range(nz)])
    rows = []
    print("\nz (m)  depth (m)  rho_b (kg/m3)  sigma_zz (Pa)  weight above (Pa)  sxx/szz  syy/szz")
    for k in range(nz):
        rows.append([z[k], top - z[k], rb[k], szz[k], weight_above[k], sxx[k] / szz[k], syy[k] / szz[k]])
        if k % 4 == 0:
            print("{:.3f}  {:9.3f}  {:13.0f}  {:13.0f}  {:17.0f}  {:7.2f}  {:7.2f}".format(*rows[-1]))
    # Between a kernel's reach above the floor and two silo widths below the surface.
    deep = (z > c) & (top - z > 2 * D)
    plateau, bulk = szz[deep].mean(), rb[deep].mean()
    k_core = 0.5 * (sxx[deep] + syy[deep]).mean() / plateau
    print(f"\nsigma_zz plateau {plateau:.0f} Pa, rho_b {bulk:.0f} kg/m3: lambda = {plateau / (bulk * G):.4f} m, "
          f"K mu_w = D / (4 lambda) = {D * bulk * G / (4 * plateau):.3f}; core sxx/szz, syy/szz: K = {k_core:.2f}")
    with open(out / "silo_stress.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["z_m", "depth_m", "rho_b", "sigma_zz_pa", "weight_above_pa", "sxx_over_szz", "syy_over_szz"])
        w.writerows(rows)


if __name__ == "__main__":
    main()
