// SPDX-License-Identifier: BSD-2-Clause
/* Fixtures of the explicit-Hessian tests: every built-in energy on a small mesh with fixed dofs,
   elements dealt round-robin over the ranks (element e to rank e % size), a deterministic point
   in global order (identical on any number of ranks), and the global data a dense reference
   needs (connectivity and per-element parameters). */
#ifndef MFAD_HESSIAN_FIXTURES_H
#define MFAD_HESSIAN_FIXTURES_H

#include "testutil.h"
#define MFAD_IMPL_ALLOWED 1 /* element parameters by the kernel's own rest set-up: the complete kernel (machinery) */
#include <mfad/impl/kernel.h>

static const char *const HFixNames[] = {"mass_spring", "neohookean_tet", "symmetric_dirichlet", "gravity", "inertia"};
#define HFIX_COUNT 5

typedef struct {
  MfadKernel k;
  PetscInt   dof, nvert, nelem, nfix;
  PetscInt  *conn;   /* nelem * k->nvert global vertex ids */
  double    *params; /* nelem * k->nparam */
  double    *rest;   /* nvert * dof rest positions */
  PetscInt  *fix;    /* fixed dofs */
  double    *fixval;
} HFix;

/* Box of 2 x 2 x 3 cubes (6 tets each) for the 3-D energies, 4 x 3 squares (2 triangles each) for
   the 2-D one; fixed: every dof of the vertices at z = 0 (3-D), of those at x = 0 (2-D). */
/* As HFixCreate, 3-D energies on a box of nx x ny x nz cubes (1 x 1 x 1.5) */
static inline PetscErrorCode HFixCreateBox(const char *name, PetscInt nx, PetscInt ny, PetscInt nz, HFix *f)
{
  const PetscInt nv3 = (nx + 1) * (ny + 1) * (nz + 1), ntet = 6 * nx * ny * nz;
  PetscReal      lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1.5}, *coords;
  PetscInt      *tets;
  double         mat[2] = {1.0, 4.0};

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(f, sizeof(*f)));
  PetscCall(MfadKernelFind(name, &f->k));
  f->dof = f->k->dof;
  PetscCall(PetscMalloc2(4 * ntet, &tets, 3 * nv3, &coords));
  PetscCall(MfadMeshBoxTets(nx, ny, nz, 0, nx * ny * nz, tets));
  PetscCall(MfadMeshBoxVertices(nx, ny, nz, lo, hi, 0, nv3, coords));
  if (f->dof == 2) { /* triangles of a 5 x 4 vertex grid, counter-clockwise */
    const PetscInt gx = 5, gy = 4;
    f->nvert = gx * gy;
    f->nelem = 2 * (gx - 1) * (gy - 1);
    PetscCall(PetscMalloc1(2 * f->nvert, &f->rest));
    PetscCall(PetscMalloc2(3 * f->nelem, &f->conn, f->nelem * f->k->nparam, &f->params));
    for (PetscInt j = 0; j < gy; j++)
      for (PetscInt i = 0; i < gx; i++) {
        f->rest[2 * (i + gx * j)]     = 0.5 * i;
        f->rest[2 * (i + gx * j) + 1] = 0.4 * j;
      }
    for (PetscInt j = 0, e = 0; j < gy - 1; j++)
      for (PetscInt i = 0; i < gx - 1; i++) {
        const PetscInt v00 = i + gx * j, v10 = v00 + 1, v01 = v00 + gx, v11 = v01 + 1;
        const PetscInt tri[2][3] = {{v00, v10, v11}, {v00, v11, v01}};
        for (int t = 0; t < 2; t++, e++) {
          double r[9];
          for (int a = 0; a < 3; a++) {
            f->conn[3 * e + a] = tri[t][a];
            r[3 * a]           = f->rest[2 * tri[t][a]];
            r[3 * a + 1]       = f->rest[2 * tri[t][a] + 1];
            r[3 * a + 2]       = 0;
          }
          PetscCheck(!f->k->rest(r, NULL, f->params + e * f->k->nparam), PETSC_COMM_SELF, PETSC_ERR_PLIB, "degenerate triangle %" PetscInt_FMT, e);
        }
      }
    PetscCall(PetscMalloc2(2 * gy, &f->fix, 2 * gy, &f->fixval));
    for (PetscInt j = 0; j < gy; j++)
      for (int d = 0; d < 2; d++) {
        f->fix[f->nfix]      = 2 * (gx * j) + d;
        f->fixval[f->nfix++] = f->rest[2 * (gx * j) + d];
      }
  } else {
    f->nvert = nv3;
    PetscCall(PetscMalloc1(3 * nv3, &f->rest));
    PetscCall(PetscArraycpy(f->rest, coords, 3 * nv3));
    if (f->k->nvert == 4 || f->k->nvert == 2) { /* tets, or the 6 edges of every tet */
      const int nv = f->k->nvert, per = nv == 4 ? 1 : 6, edge[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
      f->nelem = per * ntet;
      PetscCall(PetscMalloc2(nv * f->nelem, &f->conn, f->nelem * f->k->nparam, &f->params));
      for (PetscInt t = 0, e = 0; t < ntet; t++)
        for (int s = 0; s < per; s++, e++) {
          double r[12];
          for (int a = 0; a < nv; a++) {
            const PetscInt v = nv == 4 ? tets[4 * t + a] : tets[4 * t + edge[s][a]];
            f->conn[nv * e + a] = v;
            for (int d = 0; d < 3; d++) r[3 * a + d] = coords[3 * v + d];
          }
          PetscCheck(!f->k->rest(r, mat, f->params + e * f->k->nparam), PETSC_COMM_SELF, PETSC_ERR_PLIB, "degenerate element %" PetscInt_FMT, e);
        }
    } else { /* one vertex per element: a load, or inertia towards a shifted position */
      unsigned long long seed = 7;
      f->nelem                = nv3;
      PetscCall(PetscMalloc2(f->nelem, &f->conn, f->nelem * f->k->nparam, &f->params));
      for (PetscInt v = 0; v < nv3; v++) {
        f->conn[v] = v;
        for (int p = 0; p < f->k->nparam; p++) f->params[v * f->k->nparam + p] = p == 0 && f->k->nparam == 4 ? 2.0 + TestRand(&seed) : coords[3 * v + (p % 3)] + TestRand(&seed);
      }
    }
    PetscCall(PetscMalloc2(3 * (nx + 1) * (ny + 1), &f->fix, 3 * (nx + 1) * (ny + 1), &f->fixval));
    for (PetscInt v = 0; v < (nx + 1) * (ny + 1); v++)
      for (int d = 0; d < 3; d++) {
        f->fix[f->nfix]      = 3 * v + d;
        f->fixval[f->nfix++] = coords[3 * v + d];
      }
  }
  PetscCall(PetscFree2(tets, coords));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode HFixCreate(const char *name, HFix *f)
{
  PetscFunctionBeginUser;
  PetscCall(HFixCreateBox(name, 2, 2, 3, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode HFixDestroy(HFix *f)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(f->conn, f->params));
  PetscCall(PetscFree(f->rest));
  PetscCall(PetscFree2(f->fix, f->fixval));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The energy on comm (weight 1.5: weights must reach every form), this rank's elements e % size */
static inline PetscErrorCode HFixEnergy(MPI_Comm comm, const HFix *f, MfadEnergy *E)
{
  PetscMPIInt rank, size;
  PetscInt    n = 0, *conn;
  double     *params;
  const int   nv = f->k->nvert, np = f->k->nparam;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MfadEnergyCreate(comm, f->dof, PETSC_DECIDE, f->nvert, E));
  PetscCall(PetscMalloc2(nv * f->nelem, &conn, np * f->nelem, &params));
  for (PetscInt e = rank; e < f->nelem; e += size, n++) {
    for (int a = 0; a < nv; a++) conn[nv * n + a] = f->conn[nv * e + a];
    for (int p = 0; p < np; p++) params[np * n + p] = f->params[np * e + p];
  }
  PetscCall(MfadEnergyAddTerm(*E, f->k, n, n ? conn : NULL, params, 1.5, NULL));
  PetscCall(PetscFree2(conn, params));
  if (rank == 0) PetscCall(MfadEnergySetFixedDofs(*E, f->nfix, f->fix, f->fixval));
  else PetscCall(MfadEnergySetFixedDofs(*E, 0, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X = rest + amp * noise (global order): amp 0.03 keeps every tet and triangle positively oriented */
static inline PetscErrorCode HFixPoint(const HFix *f, double amp, unsigned long long seed, Vec X)
{
  PetscInt     lo, hi;
  PetscScalar *x;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(X, &lo, &hi));
  PetscCall(VecGetArray(X, &x));
  for (PetscInt i = 0; i < f->dof * f->nvert; i++) {
    const double r = TestRand(&seed);
    if (i >= lo && i < hi) x[i - lo] = f->rest[i] + amp * r;
  }
  PetscCall(VecRestoreArray(X, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* |A - B| / max(|B|, floor) */
static inline PetscErrorCode HFixRelDiff(Vec A, Vec B, PetscReal *rel)
{
  Vec       D;
  PetscReal nd, nb;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(A, &D));
  PetscCall(VecWAXPY(D, -1.0, B, A));
  PetscCall(VecNorm(D, NORM_2, &nd));
  PetscCall(VecNorm(B, NORM_2, &nb));
  *rel = nd / PetscMax(nb, 1e-300);
  PetscCall(VecDestroy(&D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#endif
