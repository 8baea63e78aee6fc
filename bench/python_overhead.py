# SPDX-License-Identifier: BSD-2-Clause
"""The cost of driving mfad from Python: gradient and Hessian-vector product of a Neo-Hookean box
called from a Python loop (mfad.Energy.gradient / hessian_product, a petsc4py Vec per call or one
reused) against the same C functions called in a C loop inside the extension (no Python between
calls), at 6 tets (the fixed cost alone) and about 1k, 10k and 1M tets. Prints the time per call and Python's overhead per call.
  PYTHONPATH=<build>/python python3 bench/python_overhead.py [-sizes 1,6,12,55] [-seconds 1]"""
import time
import numpy as np
import mfad
from petsc4py import PETSc

opts = PETSc.Options()
sizes = [int(s) for s in opts.getString("sizes", "1,6,12,55").split(",")]
budget = opts.getReal("seconds", 1.0)
comm = PETSc.COMM_WORLD
k = mfad.Kernel("neohookean_tet")
rows = []
for n in sizes:
    V, F = mfad.box_mesh((n, n, n))
    E = mfad.Energy(comm, V, F, dof=3)
    E.add_term(k, material=[1.0, 10.0])
    X = E.coordinates()
    X.getArray()[:] *= 1.05
    W = E.create_vec()
    W.getArray()[:] = np.random.default_rng(0).standard_normal(W.getLocalSize())
    Y = E.create_vec()
    E.gradient(X, out=Y)  # set-up, first-touch, thread choice
    E.hessian_product(X, W, out=Y)
    for op in ("gradient", "hvp"):
        # calls per measurement: about `budget` seconds of the C loop, at least 3
        t = E._time_c_loop(op, X, W, Y, 3) / 3
        reps = max(3, int(budget / max(t, 1e-9)))
        if op == "gradient":
            def py_reuse():
                for _ in range(reps):
                    E.gradient(X, out=Y)

            def py_new():
                for _ in range(reps):
                    E.gradient(X)
        else:
            def py_reuse():
                for _ in range(reps):
                    E.hessian_product(X, W, out=Y)

            def py_new():
                for _ in range(reps):
                    E.hessian_product(X, W)
        # the three interleaved, best of 5 each: the machine's other load hits them alike
        tc, tr, tn = float("inf"), float("inf"), float("inf")
        for _ in range(5):
            tc = min(tc, E._time_c_loop(op, X, W, Y, reps) / reps)
            for fn in (py_reuse, py_new):
                t0 = time.perf_counter()
                fn()
                t1 = (time.perf_counter() - t0) / reps
                if fn is py_reuse:
                    tr = min(tr, t1)
                else:
                    tn = min(tn, t1)
        rows.append((len(F), op, tc, tr, tn))
PETSc.Sys.Print("%10s %-9s %12s %12s %17s %12s %17s" % ("tets", "operation", "C call (us)", "Python, out=", "overhead (us, %)", "Python, new", "overhead (us, %)"))
for nt, op, tc, tr, tn in rows:
    PETSc.Sys.Print("%10d %-9s %12.2f %12.2f %8.2f %7.2f%% %12.2f %8.2f %7.2f%%" % (nt, op, 1e6 * tc, 1e6 * tr, 1e6 * (tr - tc), 100 * (tr - tc) / tc, 1e6 * tn,
                                                                        1e6 * (tn - tc), 100 * (tn - tc) / tc))
PETSc.Sys.Print("(per call: the C loop in the extension, Python with a Vec reused (out=) and with a new Vec per call; %d rank(s), OMP_NUM_THREADS as set)" % comm.getSize())
