// SPDX-License-Identifier: BSD-2-Clause
/* The driver's three workloads, generated whole on every rank (each rank then adds its own
   contiguous share of the elements): the element parameters come from the AD kernel's own rest
   set-up, so that mfad, the hand-written kernels and the Python peers all read the same numbers.
     neohookean: n x n x m box of cubes, 6 tets each (MfadMeshBoxTets), E = 1e5, nu = 0.3, at a
                 stretched state with a deterministic wiggle (as benchbox.h), every J > 0;
     cloth:      n x n vertex grid in the plane, springs along rows, columns and both diagonals
                 of every square (k = 1e3), stretched 5% with an out-of-plane wiggle;
     dirichlet:  n x n squares, 2 triangles each, symmetric Dirichlet from the flat grid to a
                 sheared and wiggled 2-D map (every det J > 0). */
#ifndef BENCH_WORKLOADS_H
#define BENCH_WORKLOADS_H

#include <mfad.h>
#define MFAD_IMPL_ALLOWED 1 /* element parameters by the kernel's rest set-up: the complete kernel (machinery) */
#include <mfad/impl/kernel.h>

typedef enum { WL_NEOHOOKEAN = 0, WL_CLOTH = 1, WL_DIRICHLET = 2 } Workload;
static const char *const WorkloadNames[] = {"neohookean", "cloth", "dirichlet", "Workload", "WL_", NULL};
static const char *const WorkloadKernels[] = {"neohookean_tet", "mass_spring", "symmetric_dirichlet"};

typedef struct {
  Workload    wl;
  MfadKernel  k;
  PetscInt    nelem, nvert, nv, dof, np; /* global elements and vertices; per element: vertices, params */
  PetscInt   *conn;                      /* nelem * nv */
  PetscReal  *params;                    /* nelem * np */
  PetscScalar *x;                        /* nvert * dof: the point */
} Mesh;

static PetscErrorCode MeshRestParams(Mesh *M, const PetscReal *coords, const PetscReal *material)
{
  PetscReal r[12];

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < M->nelem; e++) {
    for (PetscInt a = 0; a < M->nv; a++)
      for (int d = 0; d < 3; d++) r[3 * a + d] = coords[3 * M->conn[M->nv * e + a] + d];
    PetscCheck(M->k->rest(r, material, M->params + M->np * e) == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "workload %s: element %" PetscInt_FMT " is degenerate", WorkloadNames[M->wl], e);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n: cubes across (neohookean, with m along), vertices per side (cloth), squares per side (dirichlet) */
static PetscErrorCode MeshCreate(Workload wl, PetscInt n, PetscInt m, Mesh *M)
{
  PetscReal *coords;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(M, sizeof(*M)));
  M->wl = wl;
  PetscCall(MfadKernelFind(WorkloadKernels[wl], &M->k));
  M->nv  = M->k->nvert;
  M->dof = M->k->dof;
  M->np  = M->k->nparam;
  if (wl == WL_NEOHOOKEAN) {
    const PetscInt nc = n * n * m;
    PetscReal      lo[3] = {0, 0, 0}, hi[3] = {1.0, 1.0, (PetscReal)m / n}, mat[2] = {1e5 / (2 * 1.3), 1e5 * 0.3 / (1.3 * 0.4)};
    M->nelem = 6 * nc;
    M->nvert = (n + 1) * (n + 1) * (m + 1);
    PetscCall(PetscMalloc3(M->nv * M->nelem, &M->conn, M->np * M->nelem, &M->params, 3 * M->nvert, &M->x));
    PetscCall(PetscMalloc1(3 * M->nvert, &coords));
    PetscCall(MfadMeshBoxTets(n, n, m, 0, nc, M->conn));
    PetscCall(MfadMeshBoxVertices(n, n, m, lo, hi, 0, M->nvert, coords));
    PetscCall(MeshRestParams(M, coords, mat));
    for (PetscInt i = 0; i < 3 * M->nvert; i++) M->x[i] = coords[i] * (i % 3 == 2 ? 1.1 : 0.97) + 0.01 / n * PetscSinReal(1.7 * i);
  } else if (wl == WL_CLOTH) {
    const PetscReal h = 1.0 / (n - 1), k = 1e3;
    PetscInt        e = 0;
    PetscCheck(n >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "cloth: -n %" PetscInt_FMT " must be at least 2", n);
    M->nvert = n * n;
    M->nelem = 2 * n * (n - 1) + 2 * (n - 1) * (n - 1);
    PetscCall(PetscMalloc3(M->nv * M->nelem, &M->conn, M->np * M->nelem, &M->params, 3 * M->nvert, &M->x));
    PetscCall(PetscMalloc1(3 * M->nvert, &coords));
    for (PetscInt j = 0; j < n; j++) /* row by row: a contiguous range of springs touches a band of rows */
      for (PetscInt i = 0; i < n; i++) {
        const PetscInt v = j * n + i;
        if (i + 1 < n) { M->conn[2 * e] = v; M->conn[2 * e + 1] = v + 1; e++; }
        if (j + 1 < n) { M->conn[2 * e] = v; M->conn[2 * e + 1] = v + n; e++; }
        if (i + 1 < n && j + 1 < n) {
          M->conn[2 * e] = v; M->conn[2 * e + 1] = v + n + 1; e++;
          M->conn[2 * e] = v + 1; M->conn[2 * e + 1] = v + n; e++;
        }
      }
    for (PetscInt v = 0; v < M->nvert; v++) {
      coords[3 * v] = h * (v % n);
      coords[3 * v + 1] = h * (v / n);
      coords[3 * v + 2] = 0;
      M->x[3 * v]       = 1.05 * coords[3 * v];
      M->x[3 * v + 1]   = 1.05 * coords[3 * v + 1];
      M->x[3 * v + 2]   = 0.2 * h * PetscSinReal(1.7 * v);
    }
    PetscCall(MeshRestParams(M, coords, &k));
  } else {
    const PetscReal h = 1.0 / n;
    M->nvert = (n + 1) * (n + 1);
    M->nelem = 2 * n * n;
    PetscCall(PetscMalloc3(M->nv * M->nelem, &M->conn, M->np * M->nelem, &M->params, 2 * M->nvert, &M->x));
    PetscCall(PetscMalloc1(3 * M->nvert, &coords));
    for (PetscInt j = 0, e = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++, e += 2) {
        const PetscInt v = j * (n + 1) + i; /* counter-clockwise triangles */
        M->conn[3 * e] = v; M->conn[3 * e + 1] = v + 1; M->conn[3 * e + 2] = v + n + 2;
        M->conn[3 * e + 3] = v; M->conn[3 * e + 4] = v + n + 2; M->conn[3 * e + 5] = v + n + 1;
      }
    for (PetscInt v = 0; v < M->nvert; v++) {
      const PetscReal X = h * (v % (n + 1)), Y = h * (v / (n + 1));
      coords[3 * v] = X;
      coords[3 * v + 1] = Y;
      coords[3 * v + 2] = 0;
      /* shear and stretch (det 1.1 * 0.95) plus a wiggle of 2% of an edge: every det J stays > 0 */
      M->x[2 * v]     = 1.1 * X + 0.3 * Y + 0.02 * h * PetscSinReal(1.7 * v);
      M->x[2 * v + 1] = 0.95 * Y + 0.02 * h * PetscCosReal(2.3 * v);
    }
    PetscCall(MeshRestParams(M, coords, NULL));
  }
  PetscCall(PetscFree(coords));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MeshDestroy(Mesh *M)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(M->conn, M->params, M->x));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
