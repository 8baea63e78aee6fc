# SPDX-License-Identifier: BSD-2-Clause
"""mfad's Python API against itself, on 1 or more ranks: a Neo-Hookean box moved off its rest shape.
HVP (fused) = assembled Hessian x v = shell x v; gradient = central differences of the objective;
objective_gradient = both; fixed dofs give x - value in the gradient; an energy from a petsc4py
DMPlex of the same box has the same objective at the same uniform stretch; a least-squares term's
residual gives its objective and TAO brgn minimises it; a term whose elements a Python provider
gives equals the same term given once, under SNES too; a library error is a
petsc4py Error carrying PETSc's message; bad arguments are Python errors."""
import numpy as np
import mfad
from petsc4py import PETSc

comm = PETSc.COMM_WORLD
rng = np.random.default_rng(7)
V, F = mfad.box_mesh((3, 2, 2), lo=(0, 0, 0), hi=(1.5, 1, 1))
E = mfad.Energy(comm, V, F, dof=3)
k = mfad.Kernel("neohookean_tet")
assert E.add_term(k, material=[1.0, 10.0]) == 0
assert E.sizes[0] == 3 and E.sizes[2] == len(V), E.sizes
vstart, vend = E.ownership_range
X = E.coordinates()
# the same random motion on every rank: each takes its own rows
D = 0.05 * rng.standard_normal(V.shape)
X.getArray()[:] += D[vstart:vend].ravel()
W = E.create_vec()
W.getArray()[:] = rng.standard_normal((len(V), 3))[vstart:vend].ravel()


def close(a, b, tol, what):
    err = (a - b).norm() / max(b.norm(), 1e-300)
    PETSc.Sys.Print("python_api: %s: relative difference %.3e" % (what, err))
    assert err <= tol, "%s: relative difference %.3e > %g" % (what, err, tol)


Y = E.hessian_product(X, W)
A = E.hessian(X)
AW = E.create_vec()
A.mult(W, AW)
close(AW, Y, 1e-12, "assembled Hessian x v against the fused HVP")
H = E.hessian_shell(X)
HW = E.create_vec()
H.mult(W, HW)
close(HW, Y, 1e-12, "shell Hessian x v against the fused HVP")
G = E.gradient(X)
h = 1e-6
Xp, Xm = X.copy(), X.copy()
Xp.axpy(h, W)
Xm.axpy(-h, W)
fd = (E.objective(Xp) - E.objective(Xm)) / (2 * h)
dg = G.dot(W)
PETSc.Sys.Print("python_api: gradient . v %.12e, central differences %.12e" % (dg, fd))
assert abs(fd - dg) <= 1e-6 * abs(dg), (fd, dg)
f, G2 = E.objective_gradient(X)
assert f == E.objective(X)
close(G2, G, 0.0, "objective_gradient against gradient")
# numpy views of the results: getArray() is this rank's part
assert G.getArray().shape == (3 * (vend - vstart),)

# fixed dofs: vertex 0 held at its rest position, its gradient entries x - value
E.set_fixed([0, 1, 2], V[0])
G = E.gradient(X)
if vstart == 0:
    assert np.allclose(G.getArray()[:3], D[0], rtol=0, atol=1e-15), (G.getArray()[:3], D[0])

# a petsc4py DMPlex of the unit cube (its cells from rank 0, distributed by PETSc) at a uniform
# stretch: the same objective as from V, F
Vb, Fb = mfad.box_mesh((2, 2, 2))
mine = comm.getRank() == 0
dm = PETSc.DMPlex().createFromCellList(3, Fb if mine else np.zeros((0, 4), dtype=Fb.dtype), Vb if mine else np.zeros((0, 3)), comm=comm)
dm.distribute(overlap=1)
Ed = mfad.Energy.from_dmplex(dm, 3)
Ed.add_term(k, material=[1.0, 10.0], set="cells")
Eb = mfad.Energy(comm, Vb, Fb, dof=3)
Eb.add_term(k, material=[1.0, 10.0])
Xd, Xb = Ed.coordinates(), Eb.coordinates()
Xd.scale(1.1)
Xb.scale(1.1)
fd_, fb = Ed.objective(Xd), Eb.objective(Xb)
PETSc.Sys.Print("python_api: DMPlex energy %.15e, V, F energy %.15e" % (fd_, fb))
assert abs(fd_ - fb) <= 1e-12 * abs(fb), (fd_, fb)

# a residual term (least squares, ARAP of a bump mapped to the plane): objective = 1/2 |r|^2 for
# the stacked sqrt(w) r_e, and TAO brgn (set_tao_residual) lowers it from the Tutte start
n = 6
u, v = np.meshgrid(np.linspace(0, 1, n + 1), np.linspace(0, 1, n + 1), indexing="ij")
Vs = np.column_stack([u.ravel(), v.ravel(), 0.4 * (np.sin(np.pi * u) * np.sin(np.pi * v)).ravel()])
q = (np.arange(n)[:, None] * (n + 1) + np.arange(n)).ravel()
Fs = np.vstack([np.column_stack([q, q + n + 1, q + n + 2]), np.column_stack([q, q + n + 2, q + 1])])
Es = mfad.Energy(comm, Vs, Fs, dof=2)
Es.add_term(mfad.Kernel("arap_tri_lsq"), weight=2.0)
U = Es.tutte_start()
f0, r = Es.objective(U), Es.residual(U).norm()
PETSc.Sys.Print("python_api: least squares: objective %.15e, |r|^2 / 2 %.15e" % (f0, 0.5 * r * r))
assert abs(f0 - 0.5 * r * r) <= 1e-12 * f0, (f0, r)
tao = PETSc.TAO().create(comm)
tao.setType("brgn")
Es.set_tao_residual(tao)
tao.setSolution(U)
tao.solve()
f1 = Es.objective(U)
PETSc.Sys.Print("python_api: brgn: reason %d, objective %.6e -> %.6e" % (tao.getConvergedReason(), f0, f1))
assert tao.getConvergedReason() > 0 and f1 < 0.5 * f0, (tao.getConvergedReason(), f0, f1)

# a dynamic term: springs on the box's edges given by a Python element provider, called before each
# Newton step; the same energy as the springs added once; an exception in the provider leaves
# snes.solve as itself
edges = np.unique(np.sort(np.vstack([F[:, [a, b]] for a in range(4) for b in range(a + 1, 4)]), axis=1), axis=0)
ms = mfad.Kernel("mass_spring")
Es = mfad.Energy(comm, V, F, dof=3)
Es.add_term(k, material=[1.0, 10.0])
Es.add_term(ms, material=[5.0], elements=edges)
Ed = mfad.Energy(comm, V, F, dof=3)
Ed.add_term(k, material=[1.0, 10.0])
term = Ed.add_term(ms, elements=np.zeros((0, 2)), params=np.zeros((0, 2)))
mine = edges[(len(edges) * comm.getRank()) // comm.getSize():(len(edges) * (comm.getRank() + 1)) // comm.getSize()]
calls = []


def springs(energy, t, x):
    calls.append(x.norm())
    if len(calls) > 100:
        raise ValueError("provider: too many calls")
    energy.set_term_elements(t, mine, np.column_stack([np.linalg.norm(V[mine[:, 1]] - V[mine[:, 0]], axis=1), np.full(len(mine), 5.0)]))


Ed.set_elements_function(term, springs)
Ed.update_elements(X)
fs, fdyn = Es.objective(X), Ed.objective(X)
PETSc.Sys.Print("python_api: springs given once %.15e, by the provider %.15e" % (fs, fdyn))
assert abs(fs - fdyn) <= 1e-12 * abs(fs), (fs, fdyn)
Ed.set_fixed(3 * np.arange(4)[:, None] + np.arange(3), V[:4] * 1.2)
snes = PETSc.SNES().create(comm)
Ed.set_snes(snes)
Xs = Ed.coordinates()
Ed.apply_fixed_values(Xs)
n0 = len(calls)
snes.solve(None, Xs)
PETSc.Sys.Print("python_api: SNES with the provider: %d Newton steps, %d provider calls" % (snes.getIterationNumber(), len(calls) - n0))
assert snes.getConvergedReason() > 0 and len(calls) - n0 >= snes.getIterationNumber() >= 1
calls.extend([0] * 100)  # the next call raises
try:
    snes.solve(None, Ed.coordinates())
except ValueError as e:
    assert "too many calls" in str(e), str(e)
else:
    raise AssertionError("the provider's exception did not leave snes.solve")

# contact (tests/test_contactterms.c in Python): a point pulled by a spring towards a target beyond
# a fixed triangle stops above it, within dhat, the collision bound having cut a step
xyz = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0.25, 0.25, 0.5]])
Ec = mfad.Energy.create(comm, 4, 3)
Ec.add_term(mfad.Kernel("pin_spring"), elements=[[3]], params=[[0.25, 0.25, -1, 1]])  # every rank the same: each adds its share
Ec.set_fixed(np.arange(9), xyz[:3].ravel())
Ec.add_contact([[0, 1, 2]], dhat=0.1, kappa=1.0, points=[3])
Xc = Ec.create_vec()
a, b = Xc.getOwnershipRange()
Xc.getArray()[:] = xyz.ravel()[a:b]
snes = PETSc.SNES().create(comm)
Ec.set_snes(snes)
snes.solve(None, Xc)
z = comm.tompi4py().allreduce(Xc.getArray()[11 - a] if a <= 11 < b else -np.inf, op=__import__("mpi4py.MPI").MPI.MAX)
PETSc.Sys.Print("python_api: contact: z %.6f, %d detections, %d steps cut, reason %d" % (z, Ec.contact_detections, Ec.step_cuts, snes.getConvergedReason()))
assert snes.getConvergedReason() > 0 and 0 < z < 0.1 and Ec.contact_detections >= 1 and Ec.step_cuts >= 1

# errors: the library's, with PETSc's message; Python's for bad shapes
try:
    E.add_term(k, material=[1.0])
except PETSc.Error as e:
    msg = str(e)
    assert "reads 2 material constants, 1 given" in msg, msg
else:
    raise AssertionError("a wrong material count raised nothing")
try:
    mfad.Kernel("no_such_energy")
except PETSc.Error as e:
    assert "Unknown mfad kernel 'no_such_energy'" in str(e), str(e)
else:
    raise AssertionError("an unknown kernel raised nothing")
try:
    mfad.Energy(comm, V, F + len(V))
except ValueError as e:
    assert "outside" in str(e), str(e)
else:
    raise AssertionError("out-of-range F raised nothing")
PETSc.Sys.Print("python_api: passed on %d ranks" % comm.getSize())
