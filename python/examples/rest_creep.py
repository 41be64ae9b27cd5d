"""Creep of a rigid bed at rest: what the contacts' stabilising term Phi/h does at h = 5 ms.

Spheres (r = 5 mm, mu = 0.5, 2500 kg/m3) are poured into an 8 cm square box and settled with
the granular preset (h = 1 ms); each variant then steps the settled bed with rigid contact and
APGD at h = 5 ms for 400 steps (to rest) and measures how far each grain moves over 2,000 more
(10 s): the median, 90th percentile and largest displacement in radii, the kinetic energy, the
deepest overlap and the last residual, and the median over the last 1,000 steps alone. The
variants: 100 and 200 sweeps with the stabilising term (Settings.stabilise_contacts,
hart-anitescu eq. 2.9: the normal row n.v + Phi/h >= 0), 100 sweeps without it (n.v >= 0), and
100 and 200 sweeps with the position correction of as many sweeps (Settings.position_correction:
the rows keep max(Phi, 0)/h and a second solve moves the grains out of their overlaps).

    python python/examples/rest_creep.py --grains 4000 [--variants 0,3]
"""

import argparse
import math
import time

import numpy as np

import grains

R, RHO, L = 0.005, 2500.0, 0.08


def build(settings, positions, height):
    b = grains.WorldBuilder(settings)
    glass = b.material(0.5, name="glass")
    b.box_container(L, L, height, material=glass)
    n = len(positions)
    b.add_spheres(positions, np.full(n, R), density=np.full(n, RHO), material=glass)
    return b.build()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--grains", type=int, default=4000)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--variants", default="0,1,2,3,4", help="which variants to run (comma-separated)")
    a = p.parse_args()
    height = 0.4 * a.grains / 1000
    lo, hi = (-L / 2 + R, -L / 2 + R, R), (L / 2 - R, L / 2 - R, 0.3 * a.grains / 1000)
    positions, _ = grains.random_fill(a.grains, radius=R, box=(lo, hi), seed=3)
    s = grains.Settings.granular(1e-3)
    s.threads = a.threads
    w = build(s, positions, height)
    w.step(1500 if a.grains <= 1000 else 3000)
    settled = w.positions.copy()
    print(f"settled with the granular preset: KE {w.stats()['kinetic_energy']:.2e} J")
    print("variant                     median    p90       max     KE (J)    overlap  residual (m/s)"
          "  last 1,000  time")
    variants = [("100 sweeps", 100, True, 0), ("200 sweeps", 200, True, 0),
                ("100 sweeps, no Phi/h", 100, False, 0),
                ("100 sweeps, correction 100", 100, True, 100),
                ("200 sweeps, correction 200", 200, True, 200)]
    for k in map(int, a.variants.split(",")):
        name, sweeps, stabilise, correction = variants[k]
        s = grains.Settings()
        s.h, s.contact_frequency, s.solver = 5e-3, math.inf, "apgd"
        s.sweeps, s.tolerance, s.warm_start = sweeps, 0.0, 1.0
        s.stabilise_contacts = stabilise
        s.position_correction = correction
        s.threads = a.threads
        w = build(s, settled, height)
        t = time.time()
        w.step(400)
        start = w.positions.copy()
        w.step(1000)
        half = w.positions.copy()
        w.step(1000)
        st = w.stats()
        moved = np.linalg.norm(w.positions - start, axis=1) / R
        late = np.linalg.norm(w.positions - half, axis=1) / R
        print(f"{name:26s}  {np.median(moved):.4f} r  {np.percentile(moved, 90):.4f} r  {moved.max():.3f} r  "
              f"{st['kinetic_energy']:.2e}  {st['max_penetration'] / R:.4f} r  {st['residual']:.2e}  "
              f"{np.median(late):.4f} r  {time.time() - t:.0f} s", flush=True)


if __name__ == "__main__":
    main()
