# SPDX-License-Identifier: BSD-2-Clause
"""python/mfad/render.py's render_arrays: a mesh's state from numpy arrays (libigl's V/F, V/T)."""
import numpy as np
import pytest
from mfad.render import render_arrays
from pngcheck import colormap_ends, drawn, pixels, png_size


def grid(n):
    """The unit square as n x n squares, two triangles each."""
    x, y = np.meshgrid(np.linspace(0, 1, n + 1), np.linspace(0, 1, n + 1))
    V = np.column_stack([x.ravel(), y.ravel()])
    i = np.arange(n)[:, None] * (n + 1) + np.arange(n)[None, :]
    i = i.ravel()
    F = np.concatenate([np.column_stack([i, i + 1, i + n + 2]), np.column_stack([i, i + n + 2, i + n + 1])])
    return V, F


def test_point_values_coloured_where_they_are(tmp_path):
    # value = x: the left edge in the map's first colour, the right edge in its last
    V, F = grid(8)
    png = render_arrays(V, F, tmp_path / "x.png", values=V[:, 0], size=(333, 257), edges=False, colorbar=False)
    assert png_size(png) == (333, 257)
    img = pixels(png)
    ys, xs = np.nonzero(drawn(img))
    row = img[(ys.min() + ys.max()) // 2]
    l_ends, r_ends = colormap_ends(row[xs.min() + 2][None, None]), colormap_ends(row[xs.max() - 2][None, None])
    assert l_ends is not None and l_ends[1] <= 0.03, f"left edge at {l_ends}"
    assert r_ends is not None and r_ends[0] >= 0.97, f"right edge at {r_ends}"


def test_cell_values_on_tets(tmp_path):
    # a cube as 6 tets (Kuhn), value = the tet's index: every tet has boundary faces
    V = np.array([[i & 1, (i >> 1) & 1, (i >> 2) & 1] for i in range(8)], dtype=float)
    T = np.array([[0, 1, 3, 7], [0, 1, 5, 7], [0, 2, 3, 7], [0, 2, 6, 7], [0, 4, 5, 7], [0, 4, 6, 7]])
    png = render_arrays(V, T, tmp_path / "t.png", values=np.arange(6.0), size=(300, 300), colorbar=False)
    img = pixels(png)
    assert drawn(img).mean() > 0.1
    # tets 0 and 5 (values 0, 5: the map's ends) have faces on the three faces of the cube seen from
    # the default camera (+x, -y, +z): x = 1 holds tets 0 and 1, y = 0 tets 1 and 4, z = 1 tets 3 and 5
    ends = colormap_ends(img, shaded=True)
    assert ends is not None and ends[0] <= 0.01 and ends[1] >= 0.99, f"colormap positions drawn: {ends}"


def test_cell_values_on_planar_triangles(tmp_path):
    # one value per triangle (the grid has 81 vertices, 128 triangles): its centroid's x, flat colours
    V, F = grid(8)
    c = V[F].mean(axis=1)[:, 0]
    img = pixels(render_arrays(V, F, tmp_path / "c.png", values=c, size=(300, 300), edges=False, colorbar=False))
    # the left column of squares: triangles of centroid x = 1/24 (the minimum) and 1/12, at
    # (1/12 - 1/24) / (22/24) = 1/22 of the range; the right column likewise at 1 - 1/22 and 1
    _, xs = np.nonzero(drawn(img))
    lo, hi = colormap_ends(img[:, xs.min() + 2][None]), colormap_ends(img[:, xs.max() - 2][None])
    assert lo is not None and lo[0] <= 0.01 and lo[1] <= 1 / 22 + 0.01, f"left column at {lo}"
    assert hi is not None and hi[1] >= 0.99 and hi[0] >= 1 - 1 / 22 - 0.01, f"right column at {hi}"


def test_segments_in_3d(tmp_path):
    t = np.linspace(0, 4 * np.pi, 201)
    V = np.column_stack([np.cos(t), np.sin(t), t / 4])
    E = np.column_stack([np.arange(200), np.arange(1, 201)])
    img = pixels(render_arrays(V, E, tmp_path / "h.png", values=t, size=(300, 300), colorbar=False))
    ends = colormap_ends(img)
    assert ends is not None and ends[0] <= 0.02 and ends[1] >= 0.98, f"colormap positions drawn: {ends}"


def test_wrong_arrays_are_refused_with_their_shapes(tmp_path):
    V, F = grid(2)
    with pytest.raises(ValueError, match="5 of them for 9 vertices and 8 cells"):
        render_arrays(V, F, tmp_path / "bad.png", values=np.zeros(5))
    with pytest.raises(ValueError, match="expected integer m x 2, 3 or 4"):
        render_arrays(V, np.zeros((3, 5), int), tmp_path / "bad.png")
    with pytest.raises(ValueError, match="a triangle cell names vertex 9, of 9 vertices"):
        render_arrays(V, F + 1, tmp_path / "bad.png")
    assert not (tmp_path / "bad.png").exists()
