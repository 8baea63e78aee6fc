# SPDX-License-Identifier: BSD-2-Clause
"""The C side's dump (bench_ops -dump, see bench/ops.c): mesh, parameters, point, direction and
mfad's gradient and HVP, plus what every peer shares: agreement check, timing, result lines."""
import sys
import time

import numpy as np

WORKLOADS = ["neohookean", "cloth", "dirichlet"]


def read(path):
    hdr = np.fromfile(path, dtype=np.int64, count=8)
    if hdr[0] != 1:
        sys.exit(f"{path}: not a bench_ops dump (version {hdr[0]})")
    _, wl, nelem, nv, dof, npar, nvert, _ = (int(h) for h in hdr)
    off = 8 * 8
    conn = np.fromfile(path, dtype=np.int64, count=nelem * nv, offset=off).reshape(nelem, nv)
    off += 8 * nelem * nv
    rest = np.fromfile(path, dtype=np.float64, offset=off)
    params = rest[: nelem * npar].reshape(nelem, npar)
    vecs = rest[nelem * npar :].reshape(4, nvert * dof)
    return dict(workload=WORKLOADS[wl], nelem=nelem, nv=nv, dof=dof, nvert=nvert, conn=conn, params=params,
                x=vecs[0].copy(), v=vecs[1].copy(), g=vecs[2].copy(), hv=vecs[3].copy())


def check(peer, what, got, want, tol=1e-10):
    """Relative 2-norm agreement with mfad's result, or exit non-zero: a peer that computes another
    energy is never timed."""
    err = np.linalg.norm(np.asarray(got) - want) / np.linalg.norm(want)
    print(f"ERROR {peer}_{what} {err:.3e}", flush=True)
    if not err < tol:
        sys.exit(f"{peer}: {what} differs from mfad's by {err:.3e} relative (bound {tol:g})")


def timeit(peer, what, nelem, fn, reps):
    """One warm-up (compilation included), then the median, min and max of reps calls."""
    fn()
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    t.sort()
    print(f"RESULT {peer}_{what} {nelem} {t[len(t) // 2]:.6e} {t[0]:.6e} {t[-1]:.6e}", flush=True)
