# SPDX-License-Identifier: BSD-2-Clause
"""Pictures of mfad's results: a VTU file (MfadEnergyWriteVTU, the examples' -o) or a mesh's current
state as numpy arrays, drawn to a PNG.

meshio reads the file (ASCII or base64 binary VTU, and the other formats meshio knows); matplotlib
draws it on its Agg canvas, without pyplot, so that it needs no display and leaves a notebook's
pyplot backend as it was. Triangles are drawn as a shaded surface, tets by their boundary faces,
lines as segments; a mesh flat in one coordinate (a UV parameterisation: z = 0) is drawn in its
plane with its edges. A field colours the picture: a point field (interpolated over planar
triangles, the mean of its vertices on a face in 3-D) or a cell field, by its magnitude when it has
components (displacement); without one, 3-D faces are shaded by their normal.

    from mfad.render import render, render_arrays
    render("bar.vtu", "bar.png", field="displacement")
    render_arrays(V, F, "state.png", values=g)   # V: n x 2|3; F: m x 2 (lines), 3 (triangles), 4 (tets)

    PYTHONPATH=python python3 -m mfad.render bar.vtu bar.png [--field displacement|none]
        [--view 25 -60] [--size 840x660] [--title T] [--edges] [--no-colorbar]
"""
import argparse
import os
import sys

import numpy as np

__all__ = ["render", "render_arrays", "main"]

# a face's shade: ambient plus diffuse from one light, two-sided (boundary faces of tets and open
# surfaces are not consistently oriented)
_LIGHT = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
_PLAIN = (0.6, 0.7, 0.85, 1.0)  # the surface's colour without a field

# meshio's cell types mfad writes or reads, by dimension; quads become two triangles
_TYPES = {"line": 1, "triangle": 2, "quad": 2, "tetra": 3}


def _boundary_faces(tets):
    """Faces of a tet mesh that belong to one tet only, and that tet's index."""
    faces = np.concatenate([tets[:, [0, 2, 1]], tets[:, [0, 1, 3]], tets[:, [0, 3, 2]], tets[:, [1, 2, 3]]])
    owner = np.tile(np.arange(len(tets)), 4)
    _, inverse, counts = np.unique(np.sort(faces, axis=1), axis=0, return_inverse=True, return_counts=True)
    once = counts[inverse.ravel()] == 1
    return faces[once], owner[once]


def _magnitude(a, what):
    a = np.asarray(a, dtype=float)
    if a.ndim == 2:
        return np.linalg.norm(a, axis=1)
    if a.ndim != 1:
        raise ValueError(f"{what}: a field of shape {a.shape}: expected one value or one vector per point or cell")
    return a


class _Scene:
    """What is drawn: points (n x 3), the primitives (triangles or segments, k x 3 or k x 2), and
    at most one of point values (n) and primitive values (k)."""

    def __init__(self, points, prims, point_values=None, prim_values=None, label=None):
        self.points, self.prims = points, prims
        self.point_values, self.prim_values, self.label = point_values, prim_values, label


def _scene(points, blocks, point_data, cell_data, field, source):
    """A _Scene from cell blocks [(type, conn)] and fields as meshio holds them: the blocks of the
    highest dimension present, tets by their boundary faces, and the field named (or None)."""
    points = np.asarray(points, dtype=float)
    if points.ndim != 2 or points.shape[1] not in (2, 3) or len(points) == 0:
        raise ValueError(f"{source}: points of shape {points.shape}: expected n x 2 or n x 3 with n > 0")
    if points.shape[1] == 2:
        points = np.column_stack([points, np.zeros(len(points))])
    known = [(i, t, np.asarray(c, dtype=np.int64)) for i, (t, c) in enumerate(blocks) if t in _TYPES and len(c)]
    if not known:
        raise ValueError(f"{source}: no cells to draw (cell types: {', '.join(t for t, _ in blocks) or 'none'}; "
                         f"drawn: {', '.join(_TYPES)})")
    dim = max(_TYPES[t] for _, t, _ in known)
    cell_field = field is not None and field not in point_data and field in cell_data
    if field is not None and not cell_field and field not in point_data:
        pf, cf = ", ".join(point_data) or "none", ", ".join(cell_data) or "none"
        raise ValueError(f"{source} has no field '{field}' (point fields: {pf}; cell fields: {cf})")
    prims, values = [], []
    for i, t, conn in known:
        if _TYPES[t] != dim:
            continue
        if conn.min() < 0 or conn.max() >= len(points):
            bad = conn.max() if conn.max() >= len(points) else conn.min()
            raise ValueError(f"{source}: a {t} cell names vertex {bad}, of {len(points)} vertices numbered from 0")
        cv = _magnitude(cell_data[field][i], f"{source}: cell field '{field}'") if cell_field else None
        if cv is not None and len(cv) != len(conn):
            raise ValueError(f"{source}: cell field '{field}' has {len(cv)} values for {len(conn)} {t} cells")
        if t == "tetra":
            conn, owner = _boundary_faces(conn)
            cv = cv[owner] if cv is not None else None
        elif t == "quad":
            conn = np.concatenate([conn[:, [0, 1, 2]], conn[:, [0, 2, 3]]])
            cv = np.concatenate([cv, cv]) if cv is not None else None
        prims.append(conn)
        values.append(cv)
    prims = np.concatenate(prims)
    if field is None:
        return _Scene(points, prims)
    if cell_field:
        vector = any(np.ndim(v) == 2 and np.shape(v)[1] > 1 for v in cell_data[field])
        return _Scene(points, prims, prim_values=np.concatenate(values), label=f"|{field}|" if vector else field)
    pv = np.asarray(point_data[field])
    label = f"|{field}|" if pv.ndim == 2 and pv.shape[1] > 1 else field
    pv = _magnitude(pv, f"{source}: point field '{field}'")
    if len(pv) != len(points):
        raise ValueError(f"{source}: point field '{field}' has {len(pv)} values for {len(points)} points")
    return _Scene(points, prims, point_values=pv, label=label)


def _read(path):
    """The meshio.Mesh of a file; errors name the file and what is wrong with it."""
    import meshio

    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such file")
    # meshio.read ends the process (sys.exit) on a file its readers refuse: a VTU goes to the VTU
    # reader itself, which raises; another format's refusal is caught as the SystemExit it is
    reader = meshio.vtu.read if path.lower().endswith(".vtu") else meshio.read
    try:
        return reader(path)
    except (Exception, SystemExit) as e:
        why = str(e) if str(e) and not isinstance(e, SystemExit) else "malformed or truncated"
        raise ValueError(f"{path}: meshio cannot read it ({why})") from None


def _mesh_scene(mesh, field, source):
    cell_data = {k: list(v) for k, v in mesh.cell_data.items()}
    return _scene(mesh.points, [(c.type, c.data) for c in mesh.cells], dict(mesh.point_data), cell_data, field, source)


def _norm(values):
    from matplotlib.colors import Normalize

    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 1.0)
    if hi <= lo:  # a constant field: its colour in the middle of the map
        pad = max(abs(lo), 1.0) * 0.5
        lo, hi = lo - pad, hi + pad
    return Normalize(lo, hi)


def _draw(scene, png, view, size, dpi, title, edges, colorbar, cmap):
    from matplotlib import colormaps
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.cm import ScalarMappable
    from matplotlib.figure import Figure

    pts, prims = scene.points, scene.prims
    w, h = size
    if w < 16 or h < 16:
        raise ValueError(f"size {w}x{h}: at least 16 x 16 pixels")
    fig = Figure(figsize=(w / dpi, h / dpi), dpi=dpi)
    FigureCanvasAgg(fig)
    cmap = colormaps[cmap]
    values = scene.point_values if scene.point_values is not None else scene.prim_values
    norm = _norm(values) if values is not None else None
    # per primitive: its own value, or the mean of its vertices'
    prim_value = scene.prim_values if scene.prim_values is not None else (
        scene.point_values[prims].mean(axis=1) if scene.point_values is not None else None)

    extent = np.ptp(pts, axis=0)
    flat = extent <= 1e-12 * max(extent.max(), 1e-300)
    if flat.sum() == 1:  # drawn in its plane, the two other coordinates as x and y
        x, y = pts[:, ~flat].T
        ax = fig.add_subplot(111)
        ax.set_aspect("equal")
        if prims.shape[1] == 3:
            if scene.point_values is not None:
                ax.tripcolor(x, y, prims, scene.point_values, shading="gouraud", cmap=cmap, norm=norm)
            elif prim_value is not None:
                ax.tripcolor(x, y, prims, facecolors=prim_value, cmap=cmap, norm=norm)
            else:
                from matplotlib.colors import ListedColormap

                ax.tripcolor(x, y, prims, facecolors=np.zeros(len(prims)), cmap=ListedColormap([_PLAIN]))
            if edges is not False:
                ax.triplot(x, y, prims, color="k", lw=0.3)
        else:
            from matplotlib.collections import LineCollection

            xy = np.column_stack([x, y])[prims]
            colours = cmap(norm(prim_value)) if prim_value is not None else "k"
            ax.add_collection(LineCollection(xy, colors=colours, linewidths=0.8))
            ax.autoscale_view()
        ax.set_axis_off()
    else:
        from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection

        ax = fig.add_subplot(111, projection="3d")
        seg = pts[prims]
        if prims.shape[1] == 2:
            colours = cmap(norm(prim_value)) if prim_value is not None else "k"
            ax.add_collection3d(Line3DCollection(seg, colors=colours, linewidths=0.8))
        else:
            n = np.cross(seg[:, 1] - seg[:, 0], seg[:, 2] - seg[:, 0])
            n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-300)
            shade = 0.55 + 0.45 * np.abs(n @ _LIGHT)
            colours = cmap(norm(prim_value)) if prim_value is not None else np.tile(_PLAIN, (len(prims), 1))
            colours[:, :3] *= shade[:, None]
            ax.add_collection3d(Poly3DCollection(seg, facecolors=colours, edgecolors="k" if edges else colours,
                                                 linewidths=0.15 if edges else 0.0))
        # equal scale on the three axes, the box fitted to the mesh (a thin direction kept visible)
        mid = (pts.min(axis=0) + pts.max(axis=0)) / 2
        half = np.maximum(extent, 0.05 * extent.max()) / 2
        for set_lim, c, r in zip((ax.set_xlim, ax.set_ylim, ax.set_zlim), mid, half):
            set_lim(c - r, c + r)
        ax.set_box_aspect(tuple(2 * half))
        ax.view_init(*view)
        ax.set_axis_off()
    if norm is not None and colorbar:
        fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.7, label=scene.label)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(os.fspath(png), dpi=dpi)
    return os.fspath(png)


def render(source, png, field=None, *, view=(25.0, -60.0), size=(840, 660), dpi=120, title=None, edges=None,
           colorbar=True, cmap="viridis"):
    """Draws a mesh file (or a (V, F) pair of arrays, as render_arrays) to the PNG png.

    field: the point or cell field that colours it (its magnitude if it has components; the point
    field where both kinds have the name), or None for the plain shaded surface. view: the 3-D camera's (elevation, azimuth) in degrees. size: the
    PNG's (width, height) in pixels. title: None for the file's name. edges: the cells' edges
    (default: in the plane yes, in 3-D no). Returns png's path; raises FileNotFoundError for a
    missing file and ValueError for one meshio cannot read, an unknown field or nothing to draw."""
    if isinstance(source, (tuple, list)) and len(source) == 2:
        return render_arrays(source[0], source[1], png, view=view, size=size, dpi=dpi, title=title, edges=edges,
                             colorbar=colorbar, cmap=cmap)
    scene = _mesh_scene(_read(source), field, os.fspath(source))
    if title is None:
        title = os.path.basename(os.fspath(source))
    return _draw(scene, png, view, tuple(size), dpi, title, edges, colorbar, cmap)


def render_arrays(V, F, png, values=None, *, label=None, view=(25.0, -60.0), size=(840, 660), dpi=120, title=None,
                  edges=None, colorbar=True, cmap="viridis"):
    """Draws vertices V (n x 2 or n x 3) and cells F (m x 2 segments, m x 3 triangles or m x 4
    tets: libigl's V/F and V/T) to the PNG png: an energy's current state, say.

    values: one value (or vector: its magnitude) per vertex or per cell, or None (a vertex field
    when the lengths match both); label names it on the colour bar. The other arguments are
    render's. Returns png's path."""
    F = np.asarray(F)
    if F.ndim != 2 or F.shape[1] not in (2, 3, 4) or not np.issubdtype(F.dtype, np.integer):
        raise ValueError(f"F of shape {F.shape} and type {F.dtype}: expected integer m x 2, 3 or 4")
    kind = {2: "line", 3: "triangle", 4: "tetra"}[F.shape[1]]
    point_data, cell_data, field = {}, {}, None
    if values is not None:
        values = np.asarray(values, dtype=float)
        field = label or "value"
        if len(values) == len(V):
            point_data[field] = values
        elif len(values) == len(F):
            cell_data[field] = [values]
        else:
            raise ValueError(f"values: {len(values)} of them for {len(V)} vertices and {len(F)} cells")
    scene = _scene(V, [(kind, F)], point_data, cell_data, field, "render_arrays")
    return _draw(scene, png, view, tuple(size), dpi, title, edges, colorbar, cmap)


def _size(text):
    try:
        w, h = (int(s) for s in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': expected WIDTHxHEIGHT in pixels, e.g. 840x660")
    return w, h


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m mfad.render", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mesh", help="the file to draw (VTU, or another format meshio reads)")
    ap.add_argument("png", help="the picture to write")
    ap.add_argument("--field", default=None,
                    help="point or cell field that colours it, or none (default: displacement where the file has it)")
    ap.add_argument("--view", nargs=2, type=float, default=(25.0, -60.0), metavar=("ELEV", "AZIM"))
    ap.add_argument("--size", type=_size, default=(840, 660), metavar="WxH", help="in pixels (default 840x660)")
    ap.add_argument("--title", default=None, help="default: the file's name")
    ap.add_argument("--edges", action="store_true", help="draw cell edges on 3-D surfaces too")
    ap.add_argument("--no-colorbar", dest="colorbar", action="store_false")
    args = ap.parse_args(argv)
    try:
        mesh = _read(args.mesh)
        field = args.field
        if field is None:  # the examples' deformations: their displacement, where written
            field = "displacement" if "displacement" in mesh.point_data else "none"
        scene = _mesh_scene(mesh, None if field == "none" else field, args.mesh)
        title = os.path.basename(args.mesh) if args.title is None else args.title
        png = _draw(scene, args.png, tuple(args.view), args.size, 120, title, True if args.edges else None, args.colorbar,
                    "viridis")
    except (OSError, ValueError) as e:
        print(f"render: {e}", file=sys.stderr)
        return 1
    print(f"render: wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
