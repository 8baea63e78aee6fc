// SPDX-License-Identifier: BSD-2-Clause
/* The bodies of elasticmesh.h (declared and described there): part of the examples' compiled helper
   library (petsc-examples/CMakeLists.txt). */
#include "elasticmesh.h"

PetscErrorCode MeshEnergyCreate(MPI_Comm comm, const char path[], PetscReal scale, const char kname[], const PetscReal material[], PetscReal rho,
                                PetscInt axis, PetscReal band, MfadEnergy *E, PetscInt *N, PetscInt *n, PetscInt *vstart, PetscInt *ncell,
                                PetscReal **rest, PetscReal **mass, PetscBool **clamp, PetscBool **tip, PetscReal *size)
{
  DM                 dm;
  MfadKernel         solid;
  Vec                X, M;
  PetscInt           nelem, nv, *conn, lcell;
  PetscReal         *coords, lo[3], hi[3], xmin, xmax, tol;
  const PetscScalar *x, *m;

  PetscFunctionBeginUser;
  PetscCall(MfadDMPlexCreateFromFile(comm, path, &dm));
  if (scale != 1) { /* the file's units to metres, before the rest shapes and masses are taken */
    Vec c;
    PetscCall(DMGetCoordinates(dm, &c));
    PetscCall(VecScale(c, scale));
    PetscCall(DMSetCoordinates(dm, c)); /* the local coordinates follow */
  }
  PetscCall(MfadEnergyCreateFromDMPlex(dm, 3, E));
  PetscCall(MfadKernelFind(kname, &solid));
  PetscCall(MfadEnergyAddTermFromDMPlex(*E, dm, solid, MFAD_DMPLEX_CELLS, material, 1.0, NULL));
  PetscCall(MfadEnergyCreateVecs(*E, &X, NULL));
  PetscCall(MfadEnergyCopyCoordinatesFromDMPlex(*E, dm, X));
  PetscCall(VecGetSize(X, N));
  PetscCall(VecGetLocalSize(X, n));
  PetscCall(VecGetOwnershipRange(X, vstart, NULL));
  *N /= 3, *n /= 3, *vstart /= 3;

  /* lumped masses: each cell is on exactly one rank; ADD_VALUES sums the shared vertices */
  PetscCall(MfadDMPlexGetElements(dm, MFAD_DMPLEX_CELLS, &nelem, &nv, &conn, &coords));
  PetscCheck(nv == 4, comm, PETSC_ERR_ARG_WRONG, "%s: cells with %" PetscInt_FMT " vertices; elastic needs a tet mesh", path, nv);
  PetscCall(VecCreateMPI(comm, *n, *N, &M));
  for (PetscInt e = 0; e < nelem; e++) {
    const PetscReal *r = &coords[12 * e];
    PetscReal        d[3][3], vol;
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) d[a][b] = r[3 * (a + 1) + b] - r[b];
    vol = PetscAbsReal(d[0][0] * (d[1][1] * d[2][2] - d[1][2] * d[2][1]) - d[0][1] * (d[1][0] * d[2][2] - d[1][2] * d[2][0]) +
                       d[0][2] * (d[1][0] * d[2][1] - d[1][1] * d[2][0])) /
          6;
    for (int a = 0; a < 4; a++) PetscCall(VecSetValue(M, conn[4 * e + a], rho * vol / 4, ADD_VALUES));
  }
  PetscCall(VecAssemblyBegin(M));
  PetscCall(VecAssemblyEnd(M));
  lcell = nelem;
  PetscCall(MPIU_Allreduce(&lcell, ncell, 1, MPIU_INT, MPI_SUM, comm));
  PetscCall(PetscFree(conn));
  PetscCall(PetscFree(coords));

  PetscCall(VecStrideMinAll(X, NULL, lo));
  PetscCall(VecStrideMaxAll(X, NULL, hi));
  *size = PetscMax(PetscMax(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]);
  /* clamp and tip: the bands of smallest and largest x, their thickness relative to the extent */
  xmin = lo[axis];
  xmax = hi[axis];
  tol = band * (xmax - xmin);
  PetscCall(PetscMalloc4(3 * *n, rest, *n, mass, *n, clamp, *n, tip));
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArrayRead(M, &m));
  for (PetscInt v = 0; v < *n; v++) {
    for (int d = 0; d < 3; d++) (*rest)[3 * v + d] = PetscRealPart(x[3 * v + d]);
    (*mass)[v]  = PetscRealPart(m[v]);
    (*clamp)[v] = (*rest)[3 * v + axis] <= xmin + tol ? PETSC_TRUE : PETSC_FALSE;
    (*tip)[v]   = (*rest)[3 * v + axis] >= xmax - tol ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCall(VecRestoreArrayRead(M, &m));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(VecDestroy(&M));
  PetscCall(VecDestroy(&X));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(0);
}
