#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Renders a frame field written by petsc-examples/frames (-o result.vtu) to a PNG.

The surface is drawn shaded, each face facing the camera gets its n directions as a glyph at its
centroid (the cell vector 'direction' rotated about the face normal by 2 pi k / n), and the
interior vertices with a nonzero point 'index' (the singularities) are marked: red for positive, blue for negative indices.
Needs numpy, matplotlib and meshio (scripts/render-python.sh finds or sets up a Python with them):

  python3 scripts/render-frames.py result.vtu result.png [--n 4] [--view 25 -60] [--title T]
"""
import argparse
import sys

import numpy as np


def read_field(path):
    import meshio

    try:
        m = meshio.vtu.read(path)  # meshio.read would end the process on a file it refuses
    except Exception as e:
        sys.exit(f"render-frames: {path}: meshio cannot read it ({e or 'malformed or truncated'})")
    if "triangle" not in m.cells_dict:
        sys.exit(f"render-frames: {path} has no triangles (not written by frames -o?)")
    pts, tri = m.points, m.cells_dict["triangle"].astype(np.int64)
    cdata = {k: v[0] for k, v in m.cell_data.items()}
    for name, d in (("direction", cdata), ("index", m.point_data)):
        if name not in d:
            sys.exit(f"render-frames: {path} has no field '{name}' (not written by frames -o?)")
    return pts, tri, cdata["direction"], m.point_data["index"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("vtu")
    ap.add_argument("png")
    ap.add_argument("--n", type=int, default=4, help="the RoSy order the field was computed with")
    ap.add_argument("--view", nargs=2, type=float, default=(25.0, -60.0), metavar=("ELEV", "AZIM"))
    ap.add_argument("--title", default=None)
    args = ap.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection

    pts, tri, direction, index = read_field(args.vtu)
    p = pts[tri]
    nrm = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    area = 0.5 * np.linalg.norm(nrm, axis=1)
    nrm /= np.maximum(2 * area[:, None], 1e-300)
    centre = p.mean(axis=1)
    elev, azim = np.radians(args.view)
    eye = np.array([np.cos(elev) * np.cos(azim), np.cos(elev) * np.sin(azim), np.sin(elev)])
    edges = np.sort(np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]]), axis=1)
    edges, count = np.unique(edges, axis=0, return_counts=True)
    closed = bool(np.all(count == 2))  # no boundary edge
    boundary = np.zeros(len(pts), bool)
    boundary[edges[count == 1].ravel()] = True
    front = (nrm @ eye > 0) if closed else np.ones(len(tri), bool)  # a disk shows both sides

    light = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
    shade = 0.55 + 0.45 * np.abs(nrm @ light)
    colour = np.tile([0.80, 0.84, 0.90, 1.0], (len(tri), 1))
    colour[:, :3] *= shade[:, None]

    # glyphs: n rays of length ~ 0.3 sqrt(face area) from each centroid, lifted off the surface
    size = 0.3 * np.sqrt(np.median(area))
    lift = centre + 0.02 * size * nrm * (1 if closed else np.sign(nrm @ eye)[:, None])
    segs = []
    for k in range(args.n):
        a = 2 * np.pi * k / args.n
        d = np.cos(a) * direction + np.sin(a) * np.cross(nrm, direction)
        segs.append(np.stack([lift, lift + size * d], axis=1)[front])
    segs = np.concatenate(segs)

    fig = plt.figure(figsize=(7, 6), dpi=120)
    ax = fig.add_subplot(111, projection="3d", computed_zorder=False)
    ax.add_collection3d(Poly3DCollection(p, facecolors=colour, edgecolors=(0, 0, 0, 0.15), linewidths=0.2, zorder=1))
    ax.add_collection3d(Line3DCollection(segs, colors="k", linewidths=0.6, zorder=2))
    sing = np.nonzero((np.abs(index) > 1e-9) & ~boundary)[0]  # interior singularities, as frames counts them
    if closed:  # only the singularities on the visible side: a vertex of a front face
        vis = np.zeros(len(pts), bool)
        vis[tri[front].ravel()] = True
        sing = sing[vis[sing]]
    for sign, col, lab in ((1, "red", "index > 0"), (-1, "blue", "index < 0")):
        s = sing[np.sign(index[sing]) == sign]
        if len(s):
            ax.scatter(*pts[s].T, s=40, c=col, depthshade=False, zorder=3, label=lab)
    if len(sing):
        ax.legend(loc="lower left")
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    mid, half = (lo + hi) / 2, (hi - lo).max() / 2
    for set_lim, c in zip((ax.set_xlim, ax.set_ylim, ax.set_zlim), mid):
        set_lim(c - half, c + half)
    ax.set_box_aspect((1, 1, 1))
    ax.view_init(*args.view)
    ax.set_axis_off()
    ax.set_title(args.title or args.vtu.rsplit("/", 1)[-1])
    fig.tight_layout()
    fig.savefig(args.png)
    print(f"render-frames: wrote {args.png} ({len(tri)} faces, {len(sing)} singularities shown)")


if __name__ == "__main__":
    main()
