// SPDX-License-Identifier: BSD-2-Clause
/* The serial-friendly way in: a whole mesh (libigl's V and F) given on every rank becomes an
   energy whose vertices are split in contiguous ranges, terms on its cells (each cell on one rank,
   rest parameters from the mesh) and the start point X. For meshes too big for one process, or
   read from files, DMPlex (dmplex*.c) does the same in parallel. */
#include "mfadimpl.h"
#include <mfadmesh.h>

/* this rank's contiguous range [start, end) of n items (PETSC_DECIDE split) */
static PetscErrorCode MfadSplitRange_Private(MPI_Comm comm, PetscInt N, PetscInt *start, PetscInt *end)
{
  PetscInt n = PETSC_DECIDE;

  PetscFunctionBegin;
  PetscCall(PetscSplitOwnership(comm, &n, &N));
  PetscCallMPI(MPI_Scan(&n, end, 1, MPIU_INT, MPI_SUM, comm));
  *start = *end - n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCreateFromMesh(MPI_Comm comm, MfadMesh mesh, PetscInt dof, MfadEnergy *E)
{
  PetscInt vstart, vend;

  PetscFunctionBegin;
  MfadValidPointer(mesh, 2);
  PetscCheck(mesh->nvert > 0 && mesh->ncell > 0, comm, PETSC_ERR_ARG_WRONG,
             "MfadEnergyCreateFromMesh: the mesh has %" PetscInt_FMT " vertices and %" PetscInt_FMT " cells", mesh->nvert, mesh->ncell);
  PetscCall(MfadSplitRange_Private(comm, mesh->nvert, &vstart, &vend));
  PetscCall(MfadEnergyCreate(comm, dof, vend - vstart, mesh->nvert, E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadMeshGetCellRange(MPI_Comm comm, MfadMesh mesh, PetscInt *cstart, PetscInt *cend)
{
  PetscFunctionBegin;
  MfadValidPointer(mesh, 2);
  PetscCall(MfadSplitRange_Private(comm, mesh->ncell, cstart, cend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyAddTermFromMesh(MfadEnergy E, MfadMesh mesh, MfadKernel k, const PetscReal material[], PetscReal weight, PetscInt *term)
{
  MPI_Comm   comm;
  PetscInt   cstart, cend, nc, N, dof, nv, rd;
  PetscInt  *conn;
  PetscReal *rest = NULL;

  PetscFunctionBegin;
  MfadValidPointer(mesh, 2);
  MfadValidPointer(k, 3);
  PetscCall(MfadEnergyGetComm(E, &comm));
  PetscCall(MfadEnergyGetSizes(E, &dof, NULL, &N));
  nv = k->nvert, rd = k->rest_dim;
  PetscCheck(N == mesh->nvert, comm, PETSC_ERR_ARG_INCOMP,
             "MfadEnergyAddTermFromMesh: the energy has %" PetscInt_FMT " vertices, the mesh %" PetscInt_FMT
             " (make the energy with MfadEnergyCreateFromMesh())",
             N, mesh->nvert);
  PetscCheck(nv == mesh->ncorner, comm, PETSC_ERR_ARG_INCOMP,
             "MfadEnergyAddTermFromMesh: kernel '%s' takes elements of %d vertices, the mesh's cells have %" PetscInt_FMT, k->name, nv,
             mesh->ncorner);
  PetscCheck(
      rd > 0 || k->nparam == 0, comm, PETSC_ERR_ARG_WRONG,
      "MfadEnergyAddTermFromMesh: kernel '%s' takes %d parameters per element and has no rest-shape set-up: give them with MfadEnergyAddTerm()",
      k->name, k->nparam);
  PetscCheck(rd <= mesh->dim, comm, PETSC_ERR_ARG_INCOMP,
             "MfadEnergyAddTermFromMesh: kernel '%s' needs rest shapes of %d coordinates per vertex, the mesh has %" PetscInt_FMT, k->name, rd,
             mesh->dim);
  PetscCall(MfadMeshGetCellRange(comm, mesh, &cstart, &cend));
  nc = cend - cstart;
  PetscCall(PetscMalloc1(nc * nv, &conn));
  if (rd > 0) PetscCall(PetscMalloc1(nc * nv * rd, &rest));
  for (PetscInt c = cstart; c < cend; c++)
    for (PetscInt a = 0; a < nv; a++) {
      const PetscInt v = mesh->cells[nv * c + a];
      PetscCheck(v >= 0 && v < mesh->nvert, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
                 "MfadEnergyAddTermFromMesh: cell %" PetscInt_FMT " has vertex %" PetscInt_FMT ", the mesh has %" PetscInt_FMT, c, v, mesh->nvert);
      conn[nv * (c - cstart) + a] = v;
      for (PetscInt d = 0; d < rd; d++) rest[(nv * (c - cstart) + a) * rd + d] = mesh->coords[mesh->dim * v + d];
    }
  if (rd > 0) PetscCall(MfadEnergyAddTermFromRest(E, k, nc, conn, rest, material, weight, term));
  else PetscCall(MfadEnergyAddTerm(E, k, nc, conn, NULL, weight, term));
  PetscCall(PetscFree(conn));
  PetscCall(PetscFree(rest));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCopyCoordinatesFromMesh(MfadEnergy E, MfadMesh mesh, Vec X)
{
  PetscInt     dof, n, N, rstart;
  PetscScalar *x;

  PetscFunctionBegin;
  MfadValidPointer(mesh, 2);
  PetscValidHeaderSpecific(X, VEC_CLASSID, 3);
  PetscCall(MfadEnergyGetSizes(E, &dof, &n, &N));
  PetscCheck(N == mesh->nvert, PetscObjectComm((PetscObject)X), PETSC_ERR_ARG_INCOMP,
             "MfadEnergyCopyCoordinatesFromMesh: the energy has %" PetscInt_FMT " vertices, the mesh %" PetscInt_FMT, N, mesh->nvert);
  PetscCall(VecGetOwnershipRange(X, &rstart, NULL));
  PetscCall(VecGetArray(X, &x));
  for (PetscInt l = 0; l < n * dof; l++) {
    const PetscInt v = (rstart + l) / dof, d = (rstart + l) % dof;
    x[l] = d < mesh->dim ? mesh->coords[mesh->dim * v + d] : 0;
  }
  PetscCall(VecRestoreArray(X, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadMeshCreateBox(PetscInt nx, PetscInt ny, PetscInt nz, const PetscReal lo[3], const PetscReal hi[3], MfadMesh *mesh)
{
  PetscInt64 nv = (PetscInt64)(nx + 1) * (ny + 1) * (nz + 1), nc = (PetscInt64)6 * nx * ny * nz;

  PetscFunctionBegin;
  PetscCheck(nx > 0 && ny > 0 && nz > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "MfadMeshCreateBox: %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cubes", nx, ny, nz);
  PetscCheck(nv < PETSC_MAX_INT && 4 * nc < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "MfadMeshCreateBox: mesh too large for 32-bit indices");
  for (int d = 0; d < 3; d++)
    PetscCheck(hi[d] > lo[d], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadMeshCreateBox: empty extent [%g, %g] along axis %d", (double)lo[d],
               (double)hi[d], d);
  PetscCall(MfadMeshCreate(3, (PetscInt)nv, 4, (PetscInt)nc, mesh));
  PetscCall(MfadMeshBoxTets(nx, ny, nz, 0, nx * ny * nz, (*mesh)->cells));
  PetscCall(MfadMeshBoxVertices(nx, ny, nz, lo, hi, 0, (PetscInt)nv, (*mesh)->coords));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetOwnershipRange(MfadEnergy E, PetscInt *vstart, PetscInt *vend)
{
  MPI_Comm comm;
  PetscInt n, end;

  PetscFunctionBegin;
  PetscCall(MfadEnergyGetComm(E, &comm));
  PetscCall(MfadEnergyGetSizes(E, NULL, &n, NULL));
  PetscCallMPI(MPI_Scan(&n, &end, 1, MPIU_INT, MPI_SUM, comm));
  if (vstart) *vstart = end - n;
  if (vend) *vend = end;
  PetscFunctionReturn(PETSC_SUCCESS);
}
