#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Renders a .vtu written by MfadEnergyWriteVTU (ASCII or base64 binary) to a PNG.

Triangles are drawn as a shaded surface, tets by their boundary faces, lines as segments; a
planar mesh (all z = 0) is drawn flat with its edges (e.g. a UV parameterisation). Faces are
coloured by a point field (mean of their vertices): --field displacement (its magnitude),
gradient_norm, or none. Needs numpy and matplotlib: scripts/render.sh sets up .venv for them.

  python3 scripts/render.py result.vtu result.png [--field displacement] [--view 25 -60] [--title T]
"""
import argparse
import base64
import struct
import sys
import xml.etree.ElementTree as ET

import numpy as np

DTYPES = {"Float64": "<f8", "Float32": "<f4", "Int64": "<i8", "Int32": "<i4", "UInt8": "u1"}


def read_array(da, header):
    """One DataArray as a numpy array (ascii, or inline base64 'binary' with a UInt32/UInt64 header)."""
    dtype = np.dtype(DTYPES[da.get("type")])
    ncomp = int(da.get("NumberOfComponents", "1"))
    text = (da.text or "").strip()
    if da.get("format") == "binary":
        hsize = 8 if header == "UInt64" else 4
        # the header and the data are separate base64 runs (VTK's own layout); decode the header's
        hlen = 4 * ((hsize + 2) // 3)
        nbytes = struct.unpack("<Q" if hsize == 8 else "<I", base64.b64decode(text[:hlen]))[0]
        data = np.frombuffer(base64.b64decode(text[hlen:])[:nbytes], dtype=dtype)
    else:
        data = np.array(text.split(), dtype=dtype)
    return data.reshape(-1, ncomp) if ncomp > 1 else data


def read_vtu(path):
    root = ET.parse(path).getroot()
    if root.get("type") != "UnstructuredGrid":
        sys.exit(f"render: {path}: not a VTK unstructured grid")
    header = root.get("header_type", "UInt32")
    piece = root.find("UnstructuredGrid/Piece")
    points = read_array(piece.find("Points/DataArray"), header)
    cells = {da.get("Name"): read_array(da, header) for da in piece.find("Cells")}
    fields = {da.get("Name"): read_array(da, header) for da in piece.findall("PointData/DataArray")}
    offsets = cells["offsets"].astype(np.int64)
    nv = np.diff(np.concatenate(([0], offsets)))
    if len(nv) and not np.all(nv == nv[0]):
        sys.exit(f"render: {path}: mixed cell sizes are not supported")
    conn = cells["connectivity"].astype(np.int64).reshape(len(offsets), int(nv[0]) if len(nv) else 0)
    return points, conn, fields


def boundary_faces(tets):
    """Faces of a tet mesh that belong to one tet only, oriented outwards for positive tets."""
    faces = np.concatenate([tets[:, [0, 2, 1]], tets[:, [0, 1, 3]], tets[:, [0, 3, 2]], tets[:, [1, 2, 3]]])
    key = np.sort(faces, axis=1)
    _, inverse, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    return faces[counts[inverse.ravel()] == 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("vtu")
    ap.add_argument("png")
    ap.add_argument("--field", default="displacement", help="point field to colour by, or none")
    ap.add_argument("--view", nargs=2, type=float, default=(25.0, -60.0), metavar=("ELEV", "AZIM"))
    ap.add_argument("--title", default=None)
    ap.add_argument("--edges", action="store_true", help="draw cell edges on 3-D surfaces too")
    args = ap.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import cm
    from matplotlib.colors import Normalize
    from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection

    pts, conn, fields = read_vtu(args.vtu)
    value = None
    if args.field != "none":
        if args.field not in fields:
            sys.exit(f"render: {args.vtu} has no point field '{args.field}' (it has: {', '.join(fields) or 'none'})")
        f = fields[args.field]
        value = np.linalg.norm(f, axis=1) if f.ndim == 2 else f
    norm = Normalize(*(np.percentile(value, [0, 100]) if value is not None else (0, 1)))
    cmap = matplotlib.colormaps["viridis"]
    nv = conn.shape[1]
    faces = boundary_faces(conn) if nv == 4 else conn
    planar = np.ptp(pts[:, 2]) <= 1e-12 * max(1.0, np.ptp(pts[:, :2]))

    fig = plt.figure(figsize=(7, 5.5), dpi=120)
    if planar and nv == 3:
        ax = fig.add_subplot(111)
        ax.set_aspect("equal")
        if value is not None:
            tpc = ax.tripcolor(pts[:, 0], pts[:, 1], faces, value, shading="gouraud", cmap=cmap, norm=norm)
            fig.colorbar(tpc, ax=ax, shrink=0.8, label=args.field)
        ax.triplot(pts[:, 0], pts[:, 1], faces, color="k", lw=0.3)
        ax.set_axis_off()
    else:
        ax = fig.add_subplot(111, projection="3d")
        if nv == 2:
            coll = Line3DCollection(pts[faces], colors=cmap(norm(value[faces].mean(axis=1))) if value is not None else "k", lw=0.8)
        else:
            tri = pts[faces]
            n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
            n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-300)
            light = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
            shade = 0.55 + 0.45 * np.abs(n @ light)
            base = cmap(norm(value[faces].mean(axis=1))) if value is not None else np.tile([0.6, 0.7, 0.85, 1.0], (len(faces), 1))
            base[:, :3] *= shade[:, None]
            coll = Poly3DCollection(tri, facecolors=base, edgecolors="k" if args.edges else base, linewidths=0.15 if args.edges else 0.0)
        ax.add_collection3d(coll)
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        mid, half = (lo + hi) / 2, (hi - lo).max() / 2
        for set_lim, c in zip((ax.set_xlim, ax.set_ylim, ax.set_zlim), mid):
            set_lim(c - half, c + half)
        ax.set_box_aspect((1, 1, 1))
        ax.view_init(*args.view)
        ax.set_axis_off()
        if value is not None:
            fig.colorbar(cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.7, label=args.field)
    ax.set_title(args.title or args.vtu.rsplit("/", 1)[-1])
    fig.tight_layout()
    fig.savefig(args.png)
    print(f"render: wrote {args.png} ({len(faces)} faces, {len(pts)} points)")


if __name__ == "__main__":
    main()
