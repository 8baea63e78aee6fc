# SPDX-License-Identifier: BSD-2-Clause
"""A surface parameterisation from numpy arrays (tests/user/param.c in Python): a flip-free map of
a disk-topology triangle surface to the plane minimising the symmetric Dirichlet energy (+inf on a
flipped triangle), from a Tutte start, solved by the library's default SNES; the map written as VTU.
  python3 param.py [-mesh surface.obj] [-n 24] [-use_tao] [-vtu param.vtu] [PETSc and mfad options]
Without -mesh the surface is a bump over the unit square: an n x n grid of triangles in numpy."""
import numpy as np
import mfad
from petsc4py import PETSc

opts = PETSc.Options()
path = opts.getString("mesh", "")
if path:
    V, F = mfad.read_mesh(path)  # every rank reads the whole mesh
else:
    n = opts.getInt("n", 24)
    u, v = np.meshgrid(np.linspace(0, 1, n + 1), np.linspace(0, 1, n + 1), indexing="ij")
    V = np.column_stack([u.ravel(), v.ravel(), 0.4 * (np.sin(np.pi * u) * np.sin(np.pi * v)).ravel()])
    q = (np.arange(n)[:, None] * (n + 1) + np.arange(n)).ravel()  # lower-left corner of each square
    F = np.vstack([np.column_stack([q, q + n + 1, q + n + 2]), np.column_stack([q, q + n + 2, q + 1])])

E = mfad.Energy(PETSc.COMM_WORLD, V, F, dof=2)
E.add_term(mfad.Kernel("symmetric_dirichlet"))
U = E.tutte_start()  # and pins the rigid motions
if opts.getBool("use_tao", False):  # TAO nls instead (tests/user/param_tao.c)
    tao = PETSc.TAO().create(PETSc.COMM_WORLD)
    tao.setType(PETSc.TAO.Type.NLS)
    E.set_tao(tao)
    tao.setSolution(U)
    tao.setFromOptions()
    tao.solve()
    reason, its = tao.getConvergedReason(), tao.getIterationNumber()
    reasons = vars(PETSc.TAO.Reason)
else:
    snes = PETSc.SNES().create(PETSc.COMM_WORLD)
    E.set_snes(snes)
    snes.setFromOptions()
    snes.solve(None, U)
    reason, its = snes.getConvergedReason(), snes.getIterationNumber()
    reasons = vars(PETSc.SNES.ConvergedReason)
name = {v: k for k, v in reasons.items() if k.isupper()}.get(reason, str(reason))
PETSc.Sys.Print("param: vertices %d energy %.15e iterations %d reason %s" % (len(V), E.objective(U), its, name))
vtu = opts.getString("vtu", "")
if vtu:
    E.write_vtu(vtu, U)  # the map (z = 0), with each vertex's gradient norm
    PETSc.Sys.Print("param: wrote %s" % vtu)
if reason <= 0:
    raise SystemExit(1)
