# SPDX-License-Identifier: BSD-2-Clause
"""python3 -m mfad.render: a picture and a line saying so, or a one-line message and exit status 1."""
import subprocess
import sys

from pngcheck import png_size


def cli(*args):
    return subprocess.run([sys.executable, "-m", "mfad.render", *map(str, args)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)


def test_writes_the_picture(bar_vtu, tmp_path):
    r = cli(bar_vtu, tmp_path / "bar.png")
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"render: wrote {tmp_path / 'bar.png'}\n"
    assert png_size(tmp_path / "bar.png") == (840, 660)  # the default
    r = cli(bar_vtu, tmp_path / "small.png", "--size", "200x150", "--field", "none", "--view", "10", "30")
    assert r.returncode == 0, r.stderr
    assert png_size(tmp_path / "small.png") == (200, 150)


def test_missing_file(tmp_path):
    r = cli(tmp_path / "nope.vtu", tmp_path / "out.png")
    assert r.returncode == 1
    assert r.stderr == f"render: {tmp_path / 'nope.vtu'}: no such file\n"
    assert not (tmp_path / "out.png").exists()


def test_unknown_field_names_those_there_are(bar_vtu, tmp_path):
    r = cli(bar_vtu, tmp_path / "out.png", "--field", "stress")
    assert r.returncode == 1
    assert r.stderr == (f"render: {bar_vtu} has no field 'stress' (point fields: displacement, gradient_norm; "
                        "cell fields: none)\n")
    assert not (tmp_path / "out.png").exists()


def test_unreadable_file(tmp_path):
    bad = tmp_path / "bad.vtu"
    bad.write_text("<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\"><Unstr")
    r = cli(bad, tmp_path / "out.png")
    assert r.returncode == 1
    assert r.stderr.startswith(f"render: {bad}: meshio cannot read it") and "Traceback" not in r.stderr, r.stderr
