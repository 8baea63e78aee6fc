# SPDX-License-Identifier: BSD-2-Clause
"""mfad from Python: exact gradients, Hessian-vector products and sparse Hessians of mesh energies
on numpy meshes, with petsc4py's solvers (SNES, TAO) and plain-C energies compiled on the fly.

    import mfad
    E = mfad.Energy(comm, V, F, dof=3)
    E.add_term(mfad.Kernel("neohookean_tet"), material=[mu, lam])
    E.add_term(mfad.Kernel.from_c("my_energy.c"))

PETSc is initialised from sys.argv (petsc4py.init) unless the program did it first, so PETSc's and
mfad's options (-snes_monitor, -mfad_view ...) work as in a C program.
"""
import sys

import petsc4py

if "petsc4py.PETSc" not in sys.modules:
    petsc4py.init(sys.argv)

from ._mfad import Energy, Kernel, box_mesh, read_mesh  # noqa: E402
from ._build import EnergyError, TranslationError, CompileError, cache_dir  # noqa: E402,F401

__all__ = ["Energy", "Kernel", "box_mesh", "read_mesh", "EnergyError", "TranslationError", "CompileError", "cache_dir"]


def __getattr__(name):
    # mfad.render (pictures: matplotlib, meshio) only when asked for, so that `import mfad` needs neither
    if name == "render":
        import importlib
        return importlib.import_module(".render", __name__)
    raise AttributeError("module 'mfad' has no attribute %r" % name)
