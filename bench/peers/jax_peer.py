# SPDX-License-Identifier: BSD-2-Clause
"""JAX on CPU (float64): the workload's element energy under jit(vmap), its gradient by grad and
its HVP by jvp(grad), each element's result scattered with segment_sum. Checks agreement with
mfad's gradient and HVP to 1e-10 relative, then times both (warm-up excluded).
Usage: python jax_peer.py <dump> [reps]"""
import sys

import jax

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")
import jax.numpy as jnp  # noqa: E402

import meshfile  # noqa: E402


def det3(F):
    return (F[0, 0] * (F[1, 1] * F[2, 2] - F[1, 2] * F[2, 1]) - F[0, 1] * (F[1, 0] * F[2, 2] - F[1, 2] * F[2, 0])
            + F[0, 2] * (F[1, 0] * F[2, 1] - F[1, 1] * F[2, 0]))


def neohookean(x, p):  # energies/neohookean_tet.h
    X = x.reshape(4, 3)
    F = (X[1:] - X[0]).T @ p[:9].reshape(3, 3)
    lj = jnp.log(det3(F))
    mu, lam = p[10], p[11]
    return p[9] * (0.5 * mu * (jnp.sum(F * F) - 3.0) - mu * lj + 0.5 * lam * lj * lj)


def spring(x, p):  # energies/mass_spring.c
    d = x[3:] - x[:3]
    s = jnp.sqrt(jnp.dot(d, d)) - p[0]
    return 0.5 * p[1] * s * s


def dirichlet(x, p):  # energies/symmetric_dirichlet.c
    Ds = jnp.array([[x[2] - x[0], x[4] - x[0]], [x[3] - x[1], x[5] - x[1]]])
    J = Ds @ p[:4].reshape(2, 2)
    d = J[0, 0] * J[1, 1] - J[0, 1] * J[1, 0]
    return p[4] * jnp.sum(J * J) * (1.0 + 1.0 / (d * d))


ENERGY = {"neohookean": neohookean, "cloth": spring, "dirichlet": dirichlet}


def main():
    M = meshfile.read(sys.argv[1])
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    f, conn, nvert, dof = ENERGY[M["workload"]], jnp.asarray(M["conn"]), M["nvert"], M["dof"]
    params, x, v = jnp.asarray(M["params"]), jnp.asarray(M["x"]), jnp.asarray(M["v"])
    ne, nv = conn.shape
    seg = conn.reshape(-1)

    def scatter(elem):  # (ne, nv * dof) element vectors -> global vector
        return jax.ops.segment_sum(elem.reshape(ne * nv, dof), seg, num_segments=nvert).reshape(-1)

    def gather(a):
        return a.reshape(nvert, dof)[conn].reshape(ne, nv * dof)

    @jax.jit
    def gradient(x):
        return scatter(jax.vmap(jax.grad(f))(gather(x), params))

    @jax.jit
    def hvp(x, v):
        hv = jax.vmap(lambda xe, ve, pe: jax.jvp(lambda y: jax.grad(f)(y, pe), (xe,), (ve,))[1])
        return scatter(hv(gather(x), gather(v), params))

    meshfile.check("jax", "gradient", gradient(x), M["g"])
    meshfile.check("jax", "hvp", hvp(x, v), M["hv"])
    meshfile.timeit("jax", "gradient", ne, lambda: gradient(x).block_until_ready(), reps)
    meshfile.timeit("jax", "hvp", ne, lambda: hvp(x, v).block_until_ready(), reps)


if __name__ == "__main__":
    main()
