"""The rotating drums' free surface and flowing layer: the `surface_angle` observable against a
straight-line fit of the free surface, and the coarse-grained velocity field across the bed.

Runs scenes/drum.toml (four drums, R = 6 cm, 1,000 glass spheres each, at 1.5, 3, 6 and
9 rad/s) for --settle seconds, then over --window seconds samples every --every steps, for
each drum:

* the centroid angle the scene's `surface_angle` column gives (docs/method.md#surface-angle):
  the angle about the axis from straight down to the bed's centroid, the tilt of a flat chord;
* the free surface fitted by a straight line: the bed's grains seen along the chord of the
  centroid angle, the highest grain's top in each 1 cm bin over the middle 70 % of the chord, a
  least-squares line through them; its tilt;
* the velocity field (World.coarse_grain on a grid over the drum, Lucy kernel of two
  diameters, averaged across the drum's depth and over the samples) along the normal to the
  surface through the axis: the flowing layer is where the grains run down the slope against
  the drum's turn, its depth the distance from the surface to where the velocity along the
  slope changes sign (as in Orpe & Khakhar, J. Fluid Mech. 571, 2007).

Prints the means over the window and writes drum_flow.csv (per drum) and
drum_velocity_<k>.csv (the velocity along the slope against depth on the centre normal) into
--out.

    python python/examples/drum_flow.py --out results/drum_flow
"""

import argparse
import csv
import math
import pathlib

import numpy as np

import grains

ROOT = pathlib.Path(__file__).resolve().parents[2]
R_DRUM, R, DEPTH = 0.06, 0.0025, 0.04
CENTRES = [-0.21, -0.07, 0.07, 0.21]
SPEEDS = [1.5, 3.0, 6.0, 9.0]


def centroid_angle(xz):
    """The scene's surface_angle (degrees) from the grains' (x, z) about the axis: the angle
    right-handed about +y from straight down (0, -1) to the centroid."""
    c = xz.mean(axis=0)
    down = np.array([0.0, -1.0])
    # (g x c) . y for g, c in the x-z plane: g_z c_x - g_x c_z.
    return math.degrees(math.atan2(down[1] * c[0] - down[0] * c[1], down @ c))


def chord_frame(angle_deg):
    """Unit vectors (x, z) down the slope of a chord tilted by `angle_deg` (u) and out of the
    bed (n): the centroid lies along -n from the axis, down turned by the angle about +y (a
    drum turning about +y lifts its bed on the -x side)."""
    t = math.radians(angle_deg)
    n = np.array([math.sin(t), math.cos(t)])
    u = np.array([math.cos(t), -math.sin(t)])
    return u, n


def line_fit_angle(xz, angle_deg):
    """The tilt (degrees) of a straight line fitted to the free surface, and the surface's
    distance from the axis at the chord's middle."""
    u, n = chord_frame(angle_deg)
    s, h = xz @ u, xz @ n + R
    half = math.sqrt(max(R_DRUM**2 - np.median(np.sort(h)[-20:]) ** 2, 0.0))
    edges = np.arange(-0.7 * half, 0.7 * half + 1e-9, 0.01)
    tops, mids = [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        inside = (s >= lo) & (s < hi)
        if inside.any():
            tops.append(h[inside].max())
            mids.append(0.5 * (lo + hi))
    slope, offset = np.polyfit(mids, tops, 1)
    # The surface h = slope s + offset in the chord frame, s down the slope: a surface
    # steeper than the chord falls along u, slope = -tan(tilt - angle).
    return angle_deg - math.degrees(math.atan(slope)), offset


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scene", default=str(ROOT / "scenes" / "drum.toml"))
    p.add_argument("--settle", type=float, default=2.5)
    p.add_argument("--window", type=float, default=2.5)
    p.add_argument("--every", type=int, default=50)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", default="results/drum_flow")
    a = p.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    w = grains.load_scene(a.scene, threads=a.threads)
    groups = dict(w.groups)
    beds = [slice(*groups[f"bed{k + 1}"]) for k in range(4)]
    w.step(int(round(a.settle / w.h)))
    spacing, width = R, 4 * R
    nx, nz, ny = int(2 * R_DRUM / spacing) + 1, int(2 * R_DRUM / spacing) + 1, 5
    ys = np.linspace(-0.3 * DEPTH, 0.3 * DEPTH, ny)
    angles = [[] for _ in beds]
    fits = [[] for _ in beds]
    surfaces = [[] for _ in beds]
    fields = [np.zeros((nz, nx, 3)) for _ in beds]
    samples = int(round(a.window / w.h / a.every))
    for _ in range(samples):
        w.step(a.every)
        pos = w.positions
        for k, bed in enumerate(beds):
            xz = pos[bed][:, [0, 2]] - np.array([CENTRES[k], 0.0])
            ang = centroid_angle(xz)
            fit, surface = line_fit_angle(xz, ang)
            angles[k].append(ang)
            fits[k].append(fit)
            surfaces[k].append(surface)
            f = w.coarse_grain(
                width,
                grid=((CENTRES[k] - R_DRUM, ys[0], -R_DRUM), (spacing, ys[1] - ys[0], spacing), (nx, ny, nz)),
            )
            v = f["velocity"].reshape(nz, ny, nx, 3).mean(axis=1)
            fields[k] += v / samples
    rows = []
    print("drum  omega (rad/s)  surface_angle (deg)  line fit (deg)  difference  flowing layer (mm)  layer / d")
    for k in range(4):
        ang, fit = float(np.mean(angles[k])), float(np.mean(fits[k]))
        u, n = chord_frame(ang)
        surface = float(np.mean(surfaces[k]))
        # The velocity down the slope on the normal through the axis, from the surface (below
        # the axis: `surface` < 0) down to the drum's wall; the drum's solid turn moves the
        # grains there up the slope, at ω times their distance from the axis.
        depths = np.arange(0.0, surface + R_DRUM, R / 2)
        grid_x = np.arange(nx) * spacing - R_DRUM
        grid_z = np.arange(nz) * spacing - R_DRUM
        downslope = []
        for d in depths:
            x, z = (surface - d) * n
            i = int(np.clip(round((x - grid_x[0]) / spacing), 0, nx - 1))
            j = int(np.clip(round((z - grid_z[0]) / spacing), 0, nz - 1))
            vx, _, vz = fields[k][j, i]
            downslope.append(vx * u[0] + vz * u[1])
        downslope = np.array(downslope)
        # The flowing layer: from the surface (skipping the kernel's half-reach above it, where
        # the field fades) down to the first change of sign of the downslope velocity.
        start = int(np.argmax(np.abs(downslope) > 0)) if np.any(downslope != 0) else 0
        crossing = next((i for i in range(start + 1, len(depths)) if downslope[i] <= 0 < downslope[i - 1]), None)
        layer = float(depths[crossing]) if crossing is not None else float("nan")
        with open(out / f"drum_velocity_{k + 1}.csv", "w", newline="") as fh:
            wr = csv.writer(fh)
            wr.writerow(["depth_m", "distance_from_axis_m", "downslope_velocity_m_s", "solid_turn_m_s"])
            # The drum's solid turn moves a point at distance h from the axis (on the far side
            # of it from the surface) up the slope at omega h.
            for d, v in zip(depths, downslope):
                h = d - surface
                wr.writerow([d, h, v, -SPEEDS[k] * h])
        rows.append(dict(drum=k + 1, omega=SPEEDS[k], surface_angle_deg=ang, line_fit_deg=fit,
                         surface_below_axis_m=-surface,
                         difference_deg=ang - fit, angle_sd_deg=float(np.std(angles[k])),
                         flowing_layer_m=layer))
        print(f"{k + 1:4d}  {SPEEDS[k]:13.1f}  {ang:19.2f}  {fit:14.2f}  {ang - fit:10.2f}  "
              f"{1000 * layer:18.1f}  {layer / (2 * R):9.1f}")
    with open(out / "drum_flow.csv", "w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)


if __name__ == "__main__":
    main()
