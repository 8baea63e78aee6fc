# SPDX-License-Identifier: BSD-2-Clause
"""The README's tutorial (docs/tutorial/stretch.c) in Python: a 4 x 1 x 1 bar of tets made of the
plain-C energy docs/tutorial/sym_dirichlet.c, stretched to 1.5 times its length with its end faces
held; Newton from PETSc's options. Run: mpiexec -n 2 python3 tutorial.py -snes_monitor"""
import os
import numpy as np
import mfad
from petsc4py import PETSc

here = os.path.dirname(os.path.abspath(__file__))
V, F = mfad.box_mesh((16, 4, 4), lo=(0, 0, 0), hi=(4, 1, 1))
E = mfad.Energy(PETSc.COMM_WORLD, V, F, dof=3)
E.add_term(mfad.Kernel.from_c(os.path.join(here, "../../docs/tutorial/sym_dirichlet.c")))
X = E.coordinates()

# the end faces: x = 0 stays, x = 4 moves to x = 6 (each rank fixes its own vertices)
vstart, vend = E.ownership_range
ends = vstart + np.flatnonzero((V[vstart:vend, 0] <= 0) | (V[vstart:vend, 0] >= 4))
E.set_fixed(3 * ends[:, None] + np.arange(3), V[ends] * [1.5, 1, 1])
E.set_from_options()
E.apply_fixed_values(X)

snes = PETSc.SNES().create(PETSc.COMM_WORLD)
E.set_snes(snes)
snes.setFromOptions()
snes.solve(None, X)
reasons = {v: k for k, v in vars(PETSc.SNES.ConvergedReason).items() if k.isupper()}
PETSc.Sys.Print("stretch: energy %.10e, %s" % (E.objective(X), reasons[snes.getConvergedReason()]))
