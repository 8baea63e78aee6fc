# SPDX-License-Identifier: BSD-2-Clause
"""JAX on CPU (float64) against mfad's fused Gauss-Newton product on ARAP as least squares
(energies/arap_tri_lsq.c, weight 2: rows sqrt(2) r_e): the stacked residual R(x) under jit(vmap),
and J^T (J v) two ways: jax.jvp then jax.vjp of the whole R (the composition a JAX user writes),
and the same per element under vmap with segment_sum (what mfad fuses). Checks both against mfad's
product to 1e-10 relative, then times them (warm-up excluded).
Usage: python jax_lsq_peer.py <bench_lsq -dump file> [reps]"""
import sys

import numpy as np
import jax

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")
import jax.numpy as jnp  # noqa: E402

import meshfile  # noqa: E402


def read(path):
    hdr = np.fromfile(path, dtype=np.int64, count=3)
    if hdr[0] != 2:
        sys.exit(f"{path}: not a bench_lsq dump (version {hdr[0]})")
    _, nelem, nvert = (int(h) for h in hdr)
    off = 3 * 8
    conn = np.fromfile(path, dtype=np.int64, count=3 * nelem, offset=off).reshape(nelem, 3)
    off += 8 * 3 * nelem
    rest = np.fromfile(path, dtype=np.float64, offset=off)
    params = rest[: 5 * nelem].reshape(nelem, 5)
    vecs = rest[5 * nelem :].reshape(3, 2 * nvert)
    return nelem, nvert, conn, params, vecs[0].copy(), vecs[1].copy(), vecs[2].copy()


def arap_tri_lsq(x, p):  # energies/arap_tri_lsq.c
    Ds = jnp.array([[x[2] - x[0], x[4] - x[0]], [x[3] - x[1], x[5] - x[1]]])
    J = Ds @ p[:4].reshape(2, 2)
    a, b = J[0, 0] + J[1, 1], J[1, 0] - J[0, 1]
    n = jnp.sqrt(a * a + b * b)
    c, s = a / n, b / n
    return jnp.sqrt(p[4]) * jnp.array([J[0, 0] - c, J[0, 1] + s, J[1, 0] - s, J[1, 1] - c])


def main():
    nelem, nvert, conn, params, x, v, want = read(sys.argv[1])
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    conn, params, x, v = jnp.asarray(conn), jnp.asarray(params), jnp.asarray(x), jnp.asarray(v)
    seg = conn.reshape(-1)
    w = np.sqrt(2.0)

    def gather(a):
        return a.reshape(nvert, 2)[conn].reshape(nelem, 6)

    def scatter(elem):
        return jax.ops.segment_sum(elem.reshape(nelem * 3, 2), seg, num_segments=nvert).reshape(-1)

    def R(x):  # the stacked residual
        return w * jax.vmap(arap_tri_lsq)(gather(x), params).reshape(-1)

    @jax.jit
    def gn_global(x, v):  # J v by jvp, then J^T (J v) by vjp, of the whole residual
        jv = jax.jvp(R, (x,), (v,))[1]
        return jax.vjp(R, x)[1](jv)[0]

    def elem_gn(xe, ve, pe):
        f = lambda y: w * arap_tri_lsq(y, pe)  # noqa: E731
        jv = jax.jvp(f, (xe,), (ve,))[1]
        return jax.vjp(f, xe)[1](jv)[0]

    @jax.jit
    def gn_elem(x, v):  # per element under vmap, scattered
        return scatter(jax.vmap(elem_gn)(gather(x), gather(v), params))

    meshfile.check("jax", "gn_jvp_vjp", gn_global(x, v), want)
    meshfile.check("jax", "gn_elem_vmap", gn_elem(x, v), want)
    meshfile.timeit("jax", "gn_jvp_vjp", nelem, lambda: gn_global(x, v).block_until_ready(), reps)
    meshfile.timeit("jax", "gn_elem_vmap", nelem, lambda: gn_elem(x, v).block_until_ready(), reps)


if __name__ == "__main__":
    main()
