# SPDX-License-Identifier: BSD-2-Clause
"""What the render tests look at in a PNG: its header (read here, not by the library that wrote
it), its pixels, and which colours of a colormap they hold."""
import struct

import numpy as np


def png_size(path):
    """(width, height) from the PNG's signature and IHDR chunk; fails on anything else."""
    with open(path, "rb") as fh:
        head = fh.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG (starts {head[:8]!r})"
    assert head[12:16] == b"IHDR", f"{path}: no IHDR chunk first"
    return struct.unpack(">II", head[16:24])


def pixels(path):
    """The RGB pixels, floats in [0, 1], height x width x 3."""
    from matplotlib.image import imread

    return np.asarray(imread(path))[..., :3].astype(float)


def drawn(img):
    """Mask of the pixels that are not the white background."""
    return np.any(img < 0.98, axis=2)


def colormap_ends(img, cmap="viridis", shaded=False, tol=0.03):
    """(lowest, highest) position in [0, 1] on cmap of the image's colours that lie within tol
    (RGB, max norm) of a colour of the map, or None when none does. shaded: the image's colours are
    the map's scaled by a shade (3-D lighting), so colours are compared scaled to a maximum of 1
    (a scaling leaves that unchanged); dark pixels (text, edges) are left out there."""
    from matplotlib import colormaps

    lut = colormaps[cmap](np.linspace(0, 1, 512))[:, :3]
    cols = np.unique(np.round(img.reshape(-1, 3) * 255).astype(np.uint8), axis=0).astype(float) / 255
    if shaded:
        top = cols.max(axis=1)
        cols = cols[top > 0.2] / top[top > 0.2, None]
        lut = lut / lut.max(axis=1, keepdims=True)
    d = np.abs(cols[:, None, :] - lut[None, :, :]).max(axis=2)  # colours x map entries
    near = d.min(axis=1) <= tol
    if not near.any():
        return None
    t = d[near].argmin(axis=1) / (len(lut) - 1)
    return float(t.min()), float(t.max())
