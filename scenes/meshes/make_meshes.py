#!/usr/bin/env python3
"""Writes the shipped STL meshes of scenes/meshes/ (ASCII STL, metres):

* floor_288.stl: the square [-0.5, 0.5]^2 at z = 0 as 12 x 12 squares, 288 triangles (the
  tests' mesh floor; scale and place it from the scene).
* mixer_blade.stl: a four-paddle pitched blade about the z axis through the origin: a hub
  (octagonal prism, radius 0.01, height 0.04, z in [0, 0.04]) and four flat paddles from radius
  0.008 to 0.06, 0.02 high, 0.004 thick, pitched 45 degrees about their radial axis, centred at
  z = 0.02; each paddle face split into 4 x 2 quads so the triangles stay small.

Run it from this folder: python3 make_meshes.py
"""
import math


def facet(out, a, b, c):
    ux, uy, uz = (b[i] - a[i] for i in range(3))
    vx, vy, vz = (c[i] - a[i] for i in range(3))
    n = (uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx)
    length = math.sqrt(sum(x * x for x in n)) or 1.0
    out.append("  facet normal %.6g %.6g %.6g\n    outer loop\n" % tuple(x / length for x in n))
    for p in (a, b, c):
        out.append("      vertex %.9g %.9g %.9g\n" % p)
    out.append("    endloop\n  endfacet\n")


def quad(out, p00, p10, p11, p01):
    facet(out, p00, p10, p11)
    facet(out, p00, p11, p01)


def grid_quad(out, origin, u, v, nu, nv):
    """The parallelogram origin + s u + t v, s, t in [0, 1], as nu x nv quads."""
    def at(s, t):
        return tuple(origin[i] + s * u[i] + t * v[i] for i in range(3))
    for i in range(nu):
        for j in range(nv):
            s0, s1, t0, t1 = i / nu, (i + 1) / nu, j / nv, (j + 1) / nv
            quad(out, at(s0, t0), at(s1, t0), at(s1, t1), at(s0, t1))


def write(name, out):
    with open(name, "w") as f:
        f.write("solid %s\n" % name[:-4])
        f.writelines(out)
        f.write("endsolid %s\n" % name[:-4])


def floor():
    out = []
    grid_quad(out, (-0.5, -0.5, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), 12, 12)
    write("floor_288.stl", out)


def blade():
    out = []
    # Hub: an octagonal prism with its caps.
    r, h, k = 0.01, 0.04, 8
    ring = [(r * math.cos(2 * math.pi * i / k), r * math.sin(2 * math.pi * i / k)) for i in range(k)]
    for i in range(k):
        (x0, y0), (x1, y1) = ring[i], ring[(i + 1) % k]
        quad(out, (x0, y0, 0.0), (x1, y1, 0.0), (x1, y1, h), (x0, y0, h))
        facet(out, (0.0, 0.0, 0.0), (x1, y1, 0.0), (x0, y0, 0.0))
        facet(out, (0.0, 0.0, h), (x0, y0, h), (x1, y1, h))
    # Paddles: a thin box along the radial direction e, pitched 45 degrees about it.
    r0, r1, height, thick, zc = 0.008, 0.06, 0.02, 0.004, 0.02
    pitch = math.radians(45.0)
    for p in range(4):
        a = p * math.pi / 2
        e = (math.cos(a), math.sin(a), 0.0)
        t = (-math.sin(a), math.cos(a), 0.0)
        # In-plane "up" of the paddle: z turned by the pitch towards t; its normal w.
        up = tuple(math.cos(pitch) * z + math.sin(pitch) * ti for z, ti in zip((0, 0, 1), t))
        w = tuple(-math.sin(pitch) * z + math.cos(pitch) * ti for z, ti in zip((0, 0, 1), t))
        def corner(s, u, n):
            return tuple(
                (r0 + s * (r1 - r0)) * e[i] + (u - 0.5) * height * up[i] + (n - 0.5) * thick * w[i]
                + (zc if i == 2 else 0.0)
                for i in range(3)
            )
        length = tuple((r1 - r0) * x for x in e)
        upv = tuple(height * x for x in up)
        wv = tuple(thick * x for x in w)
        grid_quad(out, corner(0, 0, 0), upv, length, 2, 4)   # back face
        grid_quad(out, corner(0, 0, 1), length, upv, 4, 2)   # front face
        quad(out, corner(1, 0, 0), corner(1, 1, 0), corner(1, 1, 1), corner(1, 0, 1))  # tip
        quad(out, corner(0, 0, 0), corner(0, 0, 1), corner(0, 1, 1), corner(0, 1, 0))  # root
        grid_quad(out, corner(0, 0, 0), length, wv, 4, 1)     # lower edge
        grid_quad(out, corner(0, 1, 0), wv, length, 1, 4)     # upper edge
    write("mixer_blade.stl", out)


floor()
blade()
