// SPDX-License-Identifier: BSD-2-Clause
/* One fuzz input along the whole path from a file to the energy's evaluation, shared by the
   libFuzzer target (fuzz_path.c: one process, PETSC_COMM_SELF) and its replay on any number of
   ranks (fuzz_path_replay.c: scripts/fuzz.sh runs it on 2 ranks over the corpus; the ctest
   test_fuzz_path_2 over tests/fuzz/regressions/). Input layout: fuzz_readers.h's. Each rank writes
   the input into its own folder and reads it (every rank passes the whole mesh, as the API asks),
   then, collectively: MfadEnergyCreateFromMesh() with 3 dofs, a term of the kernel that fits the
   cells (neohookean_tet on tets, membrane_tri on triangles, rest shape from the coordinates), set-up,
   and at a point near the rest shape the energy, its gradient and one Hessian-vector product.
   A PETSc error anywhere is a clean outcome (bad input); a crash, a sanitizer report, an abort or
   a hang is a bug. Every object is destroyed on every path, so that LeakSanitizer sees the
   library's leaks only. */
#ifndef MFAD_FUZZ_PATH_H
#define MFAD_FUZZ_PATH_H

#include "fuzz_readers.h"
#include <mfad.h>

/* The energy of `mesh` on comm, evaluated once: errors returned, objects destroyed on every path */
static inline PetscErrorCode FuzzPathEnergy(MPI_Comm comm, MfadMesh mesh)
{
  /* Lame constants of order 1: any positive pair reaches the same code */
  const PetscReal material[2] = {1.0, 1.0};
  MfadKernel      k;
  MfadEnergy      E = NULL;
  Vec             X = NULL, G = NULL, V = NULL, Y = NULL;
  PetscReal       f, lo = PETSC_MAX_REAL, hi = -PETSC_MAX_REAL, h;
  PetscErrorCode  ierr;

  ierr = MfadKernelFind(mesh->ncorner == 4 ? "neohookean_tet" : "membrane_tri", &k);
  if (!ierr) ierr = MfadEnergyCreateFromMesh(comm, mesh, 3, &E);
  if (!ierr) ierr = MfadEnergyAddTermFromMesh(E, mesh, k, material, 1.0, NULL);
  if (!ierr) ierr = MfadEnergySetUp(E);
  if (!ierr) ierr = MfadEnergyCreateVecs(E, &X, &G);
  if (!ierr) ierr = VecDuplicate(X, &V);
  if (!ierr) ierr = VecDuplicate(X, &Y);
  if (!ierr) ierr = MfadEnergyCopyCoordinatesFromMesh(E, mesh, X);
  if (!ierr) {
    /* the rest shape moved by 1e-3 of the mesh's extent (a deterministic pattern of the global
       index), so that the gradient and the Hessian are not those of the minimum */
    PetscScalar *x;
    PetscInt     n, start;

    for (PetscInt i = 0; i < 3 * mesh->nvert; i++) lo = PetscMin(lo, mesh->coords[i]), hi = PetscMax(hi, mesh->coords[i]);
    h    = 1e-3 * (hi - lo);
    ierr = VecGetOwnershipRange(X, &start, NULL);
    if (!ierr) ierr = VecGetLocalSize(X, &n);
    if (!ierr) ierr = VecGetArray(X, &x);
    if (!ierr) {
      for (PetscInt i = 0; i < n; i++) x[i] += h * PetscSinReal((PetscReal)(start + i));
      ierr = VecRestoreArray(X, &x);
    }
  }
  if (!ierr) ierr = VecSet(V, 1.0);
  if (!ierr) ierr = MfadEnergyComputeObjective(E, X, &f);
  if (!ierr) ierr = MfadEnergyComputeGradient(E, X, G);
  if (!ierr) ierr = MfadEnergyComputeHessianProduct(E, X, V, Y);
  (void)VecDestroy(&Y);
  (void)VecDestroy(&V);
  (void)VecDestroy(&G);
  (void)VecDestroy(&X);
  (void)MfadEnergyDestroy(&E);
  return ierr;
}

/* One input, read on every rank of comm into dir (this rank's own folder), through the energy */
static inline PetscErrorCode FuzzPathRun(MPI_Comm comm, const char dir[], const uint8_t *data, size_t size)
{
  char           path[PETSC_MAX_PATH_LEN];
  MfadMesh       mesh = NULL;
  PetscErrorCode ierr;

  if (size < 1) return 0;
  /* every rank reads the same bytes: the same mesh or the same error everywhere */
  if ((ierr = FuzzReadersRead(dir, data, size, &mesh, path))) return ierr;
  ierr = FuzzPathEnergy(comm, mesh);
  (void)MfadMeshDestroy(&mesh);
  return ierr;
}

#endif
