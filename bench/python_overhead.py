# SPDX-License-Identifier: BSD-2-Clause
"""The cost of driving mfad from Python: gradient and Hessian-vector product of a Neo-Hookean box
called from a Python loop (mfad.Energy.gradient / hessian_product, a petsc4py Vec per call or one
reused) against the same C functions called in a C loop inside the extension (no Python between
calls), at 6 tets (the fixed cost alone) and about 1k, 10k and 1M tets. Prints the time per call and Python's overhead per call.
Where JAX imports (1 rank), the same gradient and HVP by JAX from the same script (jit(vmap(grad)),
jvp(grad), segment_sum; float64, one thread), checked against mfad's to 1e-10 first. JAX beside
Debian's petsc4py: a venv with --system-site-packages and jax[cpu]==0.4.30 (numpy 1.24).
  PYTHONPATH=<build>/python python3 bench/python_overhead.py [-sizes 1,6,12,55] [-seconds 1] [-jax 0]"""
import os
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
jax_rows = []
use_jax = opts.getBool("jax", True) and comm.getSize() == 1
if use_jax:
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        jax.config.update("jax_platforms", "cpu")
        import jax.numpy as jnp
    except ImportError:
        use_jax = False


def jax_neohookean(V, F, mu, lam):
    """JAX's gradient and HVP of energies/neohookean_tet.c on (V, F) with Lame constants (mu, lam)"""
    Dm = (V[F[:, 1:]] - V[F[:, :1]]).transpose(0, 2, 1)  # columns: the rest edges (tet_rest.h)
    det = np.linalg.det(Dm)
    params = jnp.asarray(np.concatenate([np.linalg.inv(Dm).reshape(-1, 9), (det / 6)[:, None], np.full((len(F), 1), mu), np.full((len(F), 1), lam)], axis=1))
    conn, ne, nvert = jnp.asarray(F), len(F), len(V)

    def psi(x, p):
        X = x.reshape(4, 3)
        G = (X[1:] - X[0]).T @ p[:9].reshape(3, 3)
        d = G[0, 0] * (G[1, 1] * G[2, 2] - G[1, 2] * G[2, 1]) - G[0, 1] * (G[1, 0] * G[2, 2] - G[1, 2] * G[2, 0]) + G[0, 2] * (G[1, 0] * G[2, 1] - G[1, 1] * G[2, 0])
        lj = jnp.log(d)
        return p[9] * (0.5 * p[10] * (jnp.sum(G * G) - 3.0) - p[10] * lj + 0.5 * p[11] * lj * lj)

    def scatter(e):
        return jax.ops.segment_sum(e.reshape(ne * 4, 3), conn.reshape(-1), num_segments=nvert).reshape(-1)

    def gather(a):
        return a.reshape(nvert, 3)[conn].reshape(ne, 12)

    grad = jax.jit(lambda x: scatter(jax.vmap(jax.grad(psi))(gather(x), params)))
    hvp = jax.jit(lambda x, v: scatter(jax.vmap(lambda xe, ve, pe: jax.jvp(lambda y: jax.grad(psi)(y, pe), (xe,), (ve,))[1])(gather(x), gather(v), params)))
    return grad, hvp


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
        if use_jax:
            grad, hvp = jax_neohookean(V, F, 1.0, 10.0)
            x, w = jnp.asarray(X.getArray().copy()), jnp.asarray(W.getArray().copy())
            fn = (lambda: grad(x).block_until_ready()) if op == "gradient" else (lambda: hvp(x, w).block_until_ready())
            ref = E.gradient(X) if op == "gradient" else E.hessian_product(X, W)
            err = float(np.max(np.abs(np.asarray(fn()) - ref.getArray())) / np.max(np.abs(ref.getArray())))
            if not err <= 1e-10:
                raise SystemExit(f"python_overhead: JAX's {op} differs from mfad's by {err:.2e} (relative): not timed")
            tj = float("inf")
            for _ in range(5):
                t0 = time.perf_counter()
                for _ in range(max(3, reps // 4)):
                    fn()
                tj = min(tj, (time.perf_counter() - t0) / max(3, reps // 4))
            jax_rows.append((len(F), op, tr, tj, err))
PETSc.Sys.Print("%10s %-9s %12s %12s %17s %12s %17s" % ("tets", "operation", "C call (us)", "Python, out=", "overhead (us, %)", "Python, new", "overhead (us, %)"))
for nt, op, tc, tr, tn in rows:
    PETSc.Sys.Print("%10d %-9s %12.2f %12.2f %8.2f %7.2f%% %12.2f %8.2f %7.2f%%" % (nt, op, 1e6 * tc, 1e6 * tr, 1e6 * (tr - tc), 100 * (tr - tc) / tc, 1e6 * tn,
                                                                        1e6 * (tn - tc), 100 * (tn - tc) / tc))
PETSc.Sys.Print("(per call: the C loop in the extension, Python with a Vec reused (out=) and with a new Vec per call; %d rank(s), OMP_NUM_THREADS as set)" % comm.getSize())
if jax_rows:
    PETSc.Sys.Print("\n%10s %-9s %18s %12s %10s %14s" % ("tets", "operation", "mfad, Python (us)", "JAX (us)", "JAX/mfad", "JAX vs mfad"))
    for nt, op, tr, tj, err in jax_rows:
        PETSc.Sys.Print("%10d %-9s %18.2f %12.2f %10.2f %14.1e" % (nt, op, 1e6 * tr, 1e6 * tj, tj / tr, err))
    PETSc.Sys.Print("(JAX %s, float64, one thread: jit(vmap(grad)), jvp(grad), segment_sum; its results against mfad's: largest difference / largest entry)" % jax.__version__)
