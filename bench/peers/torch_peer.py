# SPDX-License-Identifier: BSD-2-Clause
"""PyTorch on CPU (float64): the workload's element energy under torch.func.vmap, its gradient by
torch.func.grad and its HVP by torch.func.jvp(grad), each element's result scattered with
index_add_. Checks agreement with mfad's gradient and HVP to 1e-10 relative, then times both
(warm-up excluded). Usage: python torch_peer.py <dump> [reps] [threads]"""
import sys

import torch
from torch.func import grad, jvp, vmap

import meshfile


def det3(F):
    return (F[0, 0] * (F[1, 1] * F[2, 2] - F[1, 2] * F[2, 1]) - F[0, 1] * (F[1, 0] * F[2, 2] - F[1, 2] * F[2, 0])
            + F[0, 2] * (F[1, 0] * F[2, 1] - F[1, 1] * F[2, 0]))


def neohookean(x, p):  # energies/neohookean_tet.h
    X = x.reshape(4, 3)
    F = (X[1:] - X[0]).T @ p[:9].reshape(3, 3)
    lj = torch.log(det3(F))
    mu, lam = p[10], p[11]
    return p[9] * (0.5 * mu * ((F * F).sum() - 3.0) - mu * lj + 0.5 * lam * lj * lj)


def spring(x, p):  # energies/mass_spring.c
    d = x[3:] - x[:3]
    s = torch.sqrt(torch.dot(d, d)) - p[0]
    return 0.5 * p[1] * s * s


def dirichlet(x, p):  # energies/symmetric_dirichlet.c
    Ds = torch.stack([torch.stack([x[2] - x[0], x[4] - x[0]]), torch.stack([x[3] - x[1], x[5] - x[1]])])
    J = Ds @ p[:4].reshape(2, 2)
    d = J[0, 0] * J[1, 1] - J[0, 1] * J[1, 0]
    return p[4] * (J * J).sum() * (1.0 + 1.0 / (d * d))


ENERGY = {"neohookean": neohookean, "cloth": spring, "dirichlet": dirichlet}


def main():
    M = meshfile.read(sys.argv[1])
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    if len(sys.argv) > 3:
        torch.set_num_threads(int(sys.argv[3]))
    f, nvert, dof = ENERGY[M["workload"]], M["nvert"], M["dof"]
    conn = torch.from_numpy(M["conn"])
    params, x, v = (torch.from_numpy(M[k]) for k in ("params", "x", "v"))
    ne, nv = conn.shape
    seg = conn.reshape(-1)
    egrad = vmap(grad(f))
    ehvp = vmap(lambda xe, ve, pe: jvp(lambda y: grad(f)(y, pe), (xe,), (ve,))[1])

    def scatter(elem):
        out = torch.zeros(nvert, dof, dtype=torch.float64)
        return out.index_add_(0, seg, elem.reshape(ne * nv, dof)).reshape(-1)

    def gather(a):
        return a.reshape(nvert, dof)[conn].reshape(ne, nv * dof)

    def gradient():
        return scatter(egrad(gather(x), params))

    def hvp():
        return scatter(ehvp(gather(x), gather(v), params))

    with torch.no_grad():
        meshfile.check("torch", "gradient", gradient().numpy(), M["g"])
        meshfile.check("torch", "hvp", hvp().numpy(), M["hv"])
        meshfile.timeit("torch", "gradient", ne, gradient, reps)
        meshfile.timeit("torch", "hvp", ne, hvp, reps)


if __name__ == "__main__":
    main()
