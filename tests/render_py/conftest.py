# SPDX-License-Identifier: BSD-2-Clause
"""The render tests' inputs: VTU files written by the library (petsc-examples' -o), paths given by
ctest (tests/render.cmake)."""
import os
import subprocess

import pytest


def pytest_addoption(parser):
    parser.addoption("--elastic", help="petsc-examples/elastic, whose -o writes a tet mesh's VTU")
    parser.addoption("--param", help="petsc-examples/param, whose -o writes a planar triangle mesh's VTU")


def _run(request, tmp_path_factory, program, name, *options):
    exe = request.config.getoption(program)
    if not exe:
        pytest.fail(f"--{program} PATH not given (tests/render.cmake passes the example program)")
    path = tmp_path_factory.mktemp(program) / name
    env = dict(os.environ, OMP_NUM_THREADS="1")
    subprocess.run([exe, *options, "-o", str(path)], check=True, env=env, stdout=subprocess.DEVNULL,
                   stdin=subprocess.DEVNULL)
    return path


@pytest.fixture(scope="session")
def bar_vtu(request, tmp_path_factory):
    """The elastic bar (2 x 2 x 4 cubes, 96 tets) sagged; point fields displacement, gradient_norm."""
    return _run(request, tmp_path_factory, "elastic", "bar.vtu", "-n", "2", "-m", "4")


@pytest.fixture(scope="session")
def bar_vtu_binary(request, tmp_path_factory):
    """The same bar written with base64 binary arrays."""
    return _run(request, tmp_path_factory, "elastic", "bar.vtu", "-n", "2", "-m", "4", "-mfad_vtu_binary")


@pytest.fixture(scope="session")
def param_vtu(request, tmp_path_factory):
    """param's UV map of a spherical cap (z = 0, 512 triangles); point field gradient_norm."""
    return _run(request, tmp_path_factory, "param", "param.vtu")
