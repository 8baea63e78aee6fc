# SPDX-License-Identifier: BSD-2-Clause
"""python/mfad/render.py on VTU files the library writes (petsc-examples' -o): the picture has the
size asked, is not blank, and shows the field, both ends of its colormap, where the mesh is."""
import os
import subprocess

import numpy as np
from mfad.render import render
from pngcheck import colormap_ends, drawn, pixels, png_size

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def boundary_face_means(vtu, field):
    """The mean of |field| over each boundary face's vertices, over the field's maximum: what the
    3-D faces are coloured by."""
    import meshio

    m = meshio.read(vtu)
    T = m.cells_dict["tetra"]
    faces = np.sort(np.concatenate([T[:, [0, 1, 2]], T[:, [0, 1, 3]], T[:, [0, 2, 3]], T[:, [1, 2, 3]]]), axis=1)
    keys, counts = np.unique(faces, axis=0, return_counts=True)
    v = np.linalg.norm(m.point_data[field], axis=1)
    return v[keys[counts == 1]].mean(axis=1) / v.max()


def test_tets_coloured_by_displacement_show_both_ends(bar_vtu, tmp_path):
    # default camera: the tip's end face, the faces of largest mean displacement
    png = render(bar_vtu, tmp_path / "tip.png", field="displacement", size=(400, 300), colorbar=False)
    assert png_size(png) == (400, 300)
    img = pixels(png)
    assert drawn(img).mean() > 0.1, "the bar covers less than a tenth of the picture"
    # lighting scales a face's colour, so colours are compared scaled; 0.01: 1/512 steps of the
    # map compared and 8-bit colours scaled by up to 1/0.2
    top = boundary_face_means(bar_vtu, "displacement").max()
    ends = colormap_ends(img, shaded=True)
    assert ends is not None and ends[1] >= top - 0.01, f"colormap positions drawn {ends}, largest face mean {top:.4f}"
    # from the clamped end: its face is at displacement 0, the map's first colour
    img = pixels(render(bar_vtu, tmp_path / "clamp.png", field="displacement", size=(400, 300), colorbar=False,
                        view=(25, -120)))
    ends = colormap_ends(img, shaded=True)
    assert ends is not None and ends[0] <= 0.01, f"colormap positions drawn {ends}"


def test_tets_without_field_hold_no_colormap_colour(bar_vtu, tmp_path):
    # the control of the test above: the plain surface is not mistaken for the field's colours
    png = render(bar_vtu, tmp_path / "plain.png", size=(400, 300))
    img = pixels(png)
    assert drawn(img).mean() > 0.1 and img.std() > 0.05
    assert colormap_ends(img, shaded=True) is None


def test_binary_and_ascii_vtu_draw_the_same_picture(bar_vtu, bar_vtu_binary, tmp_path):
    a = pixels(render(bar_vtu, tmp_path / "a.png", field="gradient_norm", size=(320, 240), title=""))
    b = pixels(render(bar_vtu_binary, tmp_path / "b.png", field="gradient_norm", size=(320, 240), title=""))
    assert np.array_equal(a, b)


def test_planar_triangles_drawn_in_their_plane_with_the_field(param_vtu, tmp_path):
    import meshio

    png = render(param_vtu, tmp_path / "param.png", field="gradient_norm", size=(500, 400), edges=False,
                 colorbar=False, title="")
    assert png_size(png) == (500, 400)
    img = pixels(png)
    # interpolated vertex colours: the field's minimum and maximum vertices in the map's end colours;
    # the maxima are single vertices whose neighbours (about 20 px away) are up to half the range
    # lower, and the nearest pixel centre lies up to 0.7 px off the vertex, mixing in up to 0.02 of
    # the range, which RGB interpolation moves off the map's curve: tolerance 0.08
    ends = colormap_ends(img, tol=0.08)
    assert ends is not None and ends[0] <= 0.02 and ends[1] >= 0.98, f"colormap positions drawn: {ends}"
    # in the plane at equal scale: the drawn box has the mesh's width / height
    ys, xs = np.nonzero(drawn(img))
    pts = meshio.read(param_vtu).points
    want = np.ptp(pts[:, 0]) / np.ptp(pts[:, 1])
    got = (np.ptp(xs) + 1) / (np.ptp(ys) + 1)
    assert abs(got / want - 1) < 0.03, f"drawn width/height {got:.4f}, the mesh's {want:.4f}"


def test_render_sh_draws_with_the_module(bar_vtu, tmp_path):
    out = tmp_path / "sh.png"
    r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "render.sh"), str(bar_vtu), str(out), "--size", "320x240"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert r.returncode == 0, r.stderr
    assert png_size(out) == (320, 240)
