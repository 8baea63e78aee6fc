// SPDX-License-Identifier: BSD-2-Clause
/* The benchmarks' workload: Neo-Hookean tets on an n x n x m box of cubes (6 tets each), on one
   rank, at a deformed state (stretched along the bar plus a deterministic wiggle, every J > 0). */
#ifndef MFAD_BENCHBOX_H
#define MFAD_BENCHBOX_H

#include <mfadpetsc.h>

/* Creates E (options not yet read) and X at the deformed state; ntet and nvert may be NULL. */
static PetscErrorCode BenchBoxCreate(PetscInt n, PetscInt m, MfadEnergy *E, Vec *X, PetscInt *ntet, PetscInt *nvert)
{
  const PetscInt ncubes = n * n * m, nt = 6 * ncubes, nv = (n + 1) * (n + 1) * (m + 1);
  PetscInt      *conn;
  PetscReal     *coords, *rest, lo[3] = {0, 0, 0}, hi[3] = {1.0, 1.0, (PetscReal)m / n};
  PetscReal      mat[2] = {1e5 / (2 * 1.3), 1e5 * 0.3 / (1.3 * 0.4)}; /* mu, lambda of E = 1e5, nu = 0.3 */
  MfadKernel     k;
  PetscScalar   *x;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(4 * nt, &conn, 3 * nv, &coords, 12 * nt, &rest));
  PetscCall(MfadMeshBoxTets(n, n, m, 0, ncubes, conn));
  PetscCall(MfadMeshBoxVertices(n, n, m, lo, hi, 0, nv, coords));
  for (PetscInt e = 0; e < nt; e++)
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) rest[12 * e + 3 * a + d] = coords[3 * conn[4 * e + a] + d];
  PetscCall(MfadKernelFind("neohookean_tet", &k));
  PetscCall(MfadEnergyCreate(PETSC_COMM_SELF, 3, nv, nv, E));
  PetscCall(MfadEnergyAddTermFromRest(*E, k, nt, conn, rest, mat, 1.0, NULL));
  PetscCall(MfadEnergyCreateVecs(*E, X, NULL));
  PetscCall(VecGetArray(*X, &x));
  for (PetscInt i = 0; i < 3 * nv; i++) x[i] = coords[i] * (i % 3 == 2 ? 1.1 : 0.97) + 0.01 / n * PetscSinReal(1.7 * i);
  PetscCall(VecRestoreArray(*X, &x));
  PetscCall(PetscFree3(conn, coords, rest));
  if (ntet) *ntet = nt;
  if (nvert) *nvert = nv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#endif
