# SPDX-License-Identifier: BSD-2-Clause
"""mfad from Python: exact gradients, Hessian-vector products and sparse Hessians of mesh energies
on numpy meshes, with petsc4py's solvers (SNES, TAO) and plain-C energies compiled on the fly.

    import mfad
    E = mfad.Energy(comm, V, F, dof=3)
    E.add_term(mfad.Kernel("neohookean_tet"), material=[mu, lam])
    E.add_term(mfad.Kernel.from_c("my_energy.c"))

PETSc is initialised from sys.argv (petsc4py.init) unless the program did it first, so PETSc's and
mfad's options (-snes_monitor, -mfad_view ...) work as in a C program.

mfad.render (pictures: meshio, matplotlib) needs neither the extension nor petsc4py: it imports
where they are missing (the source tree's python/, a venv of PyPI's numpy, matplotlib and meshio),
and the names below then raise the ImportError that kept them out.
"""
import sys

__all__ = ["Energy", "Kernel", "box_mesh", "read_mesh", "EnergyError", "TranslationError", "CompileError", "cache_dir"]

try:
    import petsc4py

    if "petsc4py.PETSc" not in sys.modules:
        petsc4py.init(sys.argv)
    from ._mfad import Energy, Kernel, box_mesh, read_mesh  # noqa: F401
    from ._build import EnergyError, TranslationError, CompileError, cache_dir  # noqa: F401
    _missing = None
except ImportError as e:
    _missing = e


def __getattr__(name):
    # mfad.render only when asked for, so that `import mfad` needs neither matplotlib nor meshio
    if name == "render":
        import importlib
        return importlib.import_module(".render", __name__)
    if name in __all__ and _missing is not None:
        raise ImportError("mfad.%s: mfad's extension did not import (%s): build mfad with its Python package (MFAD_PYTHON, "
                          "PYTHONPATH=<build>/python) or pip install ./python" % (name, _missing)) from _missing
    raise AttributeError("module 'mfad' has no attribute %r" % name)
