// SPDX-License-Identifier: BSD-2-Clause
/* The serial-friendly way in: a whole mesh (libigl's V and F) given on every rank becomes an
   energy whose vertices are split in contiguous ranges, terms on its cells (each cell on one rank,
   rest parameters from the mesh) and the start point X. For meshes too big for one process, or
   read from files, DMPlex (dmplex*.c) does the same in parallel. */
#include "mfadimpl.h"
#include <mfadmesh.h>
#include <stdint.h>
#include <string.h>

/* a checksum of n 64-bit words (a multiply-xorshift per word: a word at a time, not FNV's byte at a
   time, as a mesh of millions of cells is hashed once per call), kept to 62 bits so that its
   negation fits (the min-max reduction) */
static PetscInt64 MfadHash_Private(PetscInt64 h, const uint64_t *w, size_t n)
{
  uint64_t x = (uint64_t)h;

  for (size_t i = 0; i < n; i++) {
    x = (x ^ w[i]) * 0x9E3779B97F4A7C15ULL;
    x ^= x >> 32;
  }
  return (PetscInt64)(x & (((uint64_t)1 << 62) - 1));
}

/* Collective: the mesh each rank passes is the same (the whole-mesh API's contract). Ranks that
   read different copies of one path, or built their own parts, gave each its own vertex count as
   the global size: inf and NaN energies, then heap corruption. The sizes, and hashes of the cells
   and the coordinates, are compared with one reduction of their minima and maxima; on a mismatch
   every rank raises the same error, naming each rank's values. */
PetscErrorCode MfadMeshCheckSameOnRanks_Private(MPI_Comm comm, MfadMesh mesh, const char caller[])
{
  enum { NV = 6 };
  static const char *what[NV] = {"whether a mesh is given", "dim", "vertices", "cells", "corners", "cell/coordinate hashes"};
  PetscInt64         v[NV]    = {1, -1, -1, -1, -1, -1}, mm[2 * NV], *all;
  PetscMPIInt        size;
  PetscBool          same = PETSC_TRUE;
  char               msg[1024];
  size_t             len;

  PetscFunctionBegin;
  if (mesh) {
    const uint64_t seed = 1469598103934665603ULL & (((uint64_t)1 << 62) - 1); /* any nonzero start */
    v[0]                = 0;
    v[1]                = mesh->dim;
    v[2]                = mesh->nvert;
    v[3]                = mesh->ncell;
    v[4]                = mesh->ncorner;
    v[5]                = (PetscInt64)seed;
    if (mesh->cells && mesh->ncell > 0 && mesh->ncorner > 0)
      for (PetscInt64 i = 0; i < (PetscInt64)mesh->ncell * mesh->ncorner; i++) {
        const uint64_t c = (uint64_t)(PetscInt64)mesh->cells[i];
        v[5]             = MfadHash_Private(v[5], &c, 1);
      }
    if (mesh->coords && mesh->nvert > 0 && mesh->dim > 0)
      for (PetscInt64 i = 0; i < (PetscInt64)mesh->nvert * mesh->dim; i++) {
        const double x = mesh->coords[i] == 0 ? 0.0 : (double)mesh->coords[i]; /* -0 is 0 */
        uint64_t     u;
        memcpy(&u, &x, sizeof u);
        v[5] = MfadHash_Private(v[5], &u, 1);
      }
  }
  for (int i = 0; i < NV; i++) {
    mm[i]      = v[i];
    mm[NV + i] = -v[i];
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, mm, 2 * NV, MPIU_INT64, MPI_MAX, comm));
  for (int i = 0; i < NV; i++) same = (PetscBool)(same && mm[i] == -mm[NV + i]);
  if (same) PetscFunctionReturn(PETSC_SUCCESS);
  /* an error path: every rank's values, to name them */
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMalloc1((size_t)size * NV, &all));
  PetscCallMPI(MPI_Allgather(v, NV, MPIU_INT64, all, NV, MPIU_INT64, comm));
  PetscCall(PetscSNPrintf(msg, sizeof msg, "%s: every rank must pass the same, whole mesh; the ranks' meshes differ in", caller));
  for (int i = 0, n = 0; i < NV; i++)
    if (mm[i] != -mm[NV + i]) {
      PetscCall(PetscStrlen(msg, &len));
      PetscCall(PetscSNPrintf(msg + len, sizeof msg - len, "%s %s", n++ ? "," : "", what[i]));
    }
  for (PetscMPIInt r = 0; r < size && r < 8; r++) {
    const PetscInt64 *w = all + (size_t)r * NV;
    PetscCall(PetscStrlen(msg, &len));
    if (w[0]) PetscCall(PetscSNPrintf(msg + len, sizeof msg - len, "; rank %d: no mesh", r));
    else
      PetscCall(PetscSNPrintf(msg + len, sizeof msg - len,
                              "; rank %d: %" PetscInt64_FMT " vertices, %" PetscInt64_FMT " cells of %" PetscInt64_FMT
                              " corners, dim %" PetscInt64_FMT ", hash %" PetscInt64_FMT,
                              r, w[2], w[3], w[4], w[1], w[5]));
  }
  if (size > 8) {
    PetscCall(PetscStrlen(msg, &len));
    PetscCall(PetscSNPrintf(msg + len, sizeof msg - len, "; ... (%d ranks)", size));
  }
  PetscCall(PetscFree(all));
  SETERRQ(comm, PETSC_ERR_ARG_INCOMP, "%s", msg);
}

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
  PetscCall(MfadMeshCheckSameOnRanks_Private(comm, mesh, "MfadEnergyCreateFromMesh"));
  MfadValidPointer(mesh, 2); /* NULL on every rank (one rank's NULL is the error above) */
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
  PetscFunctionBegin;
  MfadValidPointer(k, 3);
  /* reads exactly the kernel's count */
  PetscCall(MfadEnergyAddTermFromMeshWithMaterial(E, mesh, k, k->nmaterial, material, weight, term));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyAddTermFromMeshWithMaterial(MfadEnergy E, MfadMesh mesh, MfadKernel k, PetscInt nmaterial, const PetscReal material[],
                                                     PetscReal weight, PetscInt *term)
{
  MPI_Comm   comm;
  PetscInt   cstart, cend, nc, N, dof, nv, rd;
  PetscInt  *conn;
  PetscReal     *rest = NULL;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  MfadValidPointer(k, 3);
  PetscCall(MfadEnergyGetComm(E, &comm));
  PetscCall(MfadMeshCheckSameOnRanks_Private(comm, mesh, "MfadEnergyAddTermFromMesh"));
  MfadValidPointer(mesh, 2); /* NULL on every rank (one rank's NULL is the error above) */
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
  PetscCall(MfadEnergyCheckMaterialCount_Private(E, k, "MfadEnergyAddTermFromMeshWithMaterial", nmaterial, material));
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
  /* cstart: messages name the mesh's cell numbers, not this rank's; a refused cell's error is
     returned after the copies are freed */
  if (rd > 0) ierr = MfadEnergyAddTermFromRest_Private(E, k, nc, conn, rest, material, weight, cstart, term);
  else ierr = MfadEnergyAddTerm_Private(E, k, nc, conn, NULL, weight, cstart, term);
  PetscCall(PetscFree(conn));
  PetscCall(PetscFree(rest));
  { /* a cell refused on one rank stops every rank (the others went on into the collective set-up
       and waited there forever: found on 2 ranks by tests/fuzz/fuzz_path_replay.c): a rank that
       refused one returns its error, the others the first such rank's code and message */
    PetscMPIInt rank, size, first;
    int         code      = (int)ierr;
    char        msg[1024] = "";

    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    PetscCallMPI(MPI_Comm_size(comm, &size));
    first = ierr ? rank : size;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm));
    if (first < size) {
      if (rank == first) {
        MfadErrorText specific = NULL;

        if (!PetscErrorMessage(ierr, NULL, &specific) && specific) PetscCall(PetscStrncpy(msg, specific, sizeof(msg)));
      }
      PetscCallMPI(MPI_Bcast(&code, 1, MPI_INT, first, comm));
      PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, first, comm));
      msg[sizeof(msg) - 1] = '\0';
      PetscCall(ierr);
      SETERRQ(PETSC_COMM_SELF, (PetscErrorCode)code, "MfadEnergyAddTermFromMesh: rank %d refused a cell: %s", (int)first, msg);
    }
  }
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
