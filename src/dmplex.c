// SPDX-License-Identifier: BSD-2-Clause
/* DMPlex meshes for mfad: an MfadMesh or a file becomes a DMPlex and PETSc's partitioner
   distributes it. What mfad takes from the distributed DM is in src/dmplexsets.c. */
#include "mfadimpl.h"
#include <mfadmesh.h>
#include <petscdmplex.h>

PetscErrorCode MfadDMPlexCreateFromMesh(MPI_Comm comm, MfadMesh mesh, DM *dm)
{
  PetscMPIInt rank;
  PetscInt    dims[2] = {0, 0}; /* topological dimension, coordinates per vertex */
  PetscBool   root;

  PetscFunctionBegin;
  MfadValidPointer(dm, 3);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  root = rank == 0 ? PETSC_TRUE : PETSC_FALSE;
  if (root) {
    PetscCheck(mesh, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadDMPlexCreateFromMesh: rank 0 has no mesh");
    PetscCheck(mesh->ncorner == 3 || mesh->ncorner == 4, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadDMPlexCreateFromMesh: cells of %" PetscInt_FMT " vertices (3: triangles, 4: tets)", mesh->ncorner);
    PetscCheck(mesh->dim == 2 || mesh->dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadDMPlexCreateFromMesh: %" PetscInt_FMT " coordinates per vertex (2 or 3)", mesh->dim);
    PetscCheck(mesh->ncorner - 1 <= mesh->dim, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MfadDMPlexCreateFromMesh: tets need 3 coordinates per vertex");
    for (PetscInt i = 0; i < mesh->ncell * mesh->ncorner; i++)
      PetscCheck(mesh->cells[i] >= 0 && mesh->cells[i] < mesh->nvert, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadDMPlexCreateFromMesh: cell %" PetscInt_FMT " refers to vertex %" PetscInt_FMT ", outside [0, %" PetscInt_FMT ")",
                 i / mesh->ncorner, mesh->cells[i], mesh->nvert);
    for (PetscInt i = 0; i < mesh->nvert * mesh->dim; i++)
      PetscCheck(!PetscIsInfOrNanReal(mesh->coords[i]), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadDMPlexCreateFromMesh: vertex %" PetscInt_FMT " has coordinate %g", i / mesh->dim, (double)mesh->coords[i]);
    dims[0] = mesh->ncorner - 1;
    dims[1] = mesh->dim;
  }
  /* the other ranks take part with no cells but must agree on the dimensions */
  PetscCallMPI(MPI_Bcast(dims, 2, MPIU_INT, 0, comm));
  PetscCall(DMPlexCreateFromCellListPetsc(comm, dims[0], root ? mesh->ncell : 0, root ? mesh->nvert : 0, dims[0] + 1, PETSC_TRUE, root ? mesh->cells : NULL, dims[1], root ? mesh->coords : NULL, dm));
  PetscCall(PetscObjectSetName((PetscObject)*dm, "mfad mesh"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadDMPlexDistribute(DM *dm, PetscInt overlap)
{
  PetscPartitioner part;
  DM               dist = NULL;

  PetscFunctionBegin;
  MfadValidPointer(dm, 1);
  PetscValidHeaderSpecific(*dm, DM_CLASSID, 1);
  PetscCheck(overlap >= 0, PetscObjectComm((PetscObject)*dm), PETSC_ERR_ARG_OUTOFRANGE, "MfadDMPlexDistribute: overlap %" PetscInt_FMT " < 0", overlap);
  PetscCall(DMPlexGetPartitioner(*dm, &part));
#if defined(PETSC_HAVE_PTSCOTCH)
  PetscCall(PetscPartitionerSetType(part, PETSCPARTITIONERPTSCOTCH)); /* the default; -petscpartitioner_type overrides */
#endif
  PetscCall(PetscPartitionerSetFromOptions(part));
  PetscCall(DMPlexDistribute(*dm, overlap, NULL, &dist));
  if (dist) { /* NULL on one rank: nothing to move */
    PetscCall(DMDestroy(dm));
    *dm = dist;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's PLY reader (3.18) opens its file on rank 0 only while the others go on to create the DM:
   on more than one rank it hangs. So rank 0 reads it alone, and its cells go through an MfadMesh. */
static PetscErrorCode MfadMeshReadDMPlex_Private(const char path[], MfadMesh *mesh)
{
  DM                 serial;
  PetscInt           cStart, cEnd, vStart, vEnd, cdim, nc;
  PetscSection       cs;
  Vec                coords;
  const PetscScalar *c;

  PetscFunctionBegin;
  PetscCall(DMPlexCreateFromFile(PETSC_COMM_SELF, path, "mfad mesh", PETSC_FALSE, &serial));
  PetscCall(DMPlexGetHeightStratum(serial, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(serial, 0, &vStart, &vEnd));
  PetscCall(DMGetCoordinateDim(serial, &cdim));
  PetscCheck(cEnd > cStart, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "'%s' has no cells", path);
  PetscCall(DMPlexGetConeSize(serial, cStart, &nc)); /* not interpolated: cones are vertices */
  PetscCall(MfadMeshCreate(cdim, vEnd - vStart, nc, cEnd - cStart, mesh));
  for (PetscInt cell = cStart; cell < cEnd; cell++) {
    const PetscInt *cone;
    PetscInt        n;
    PetscCall(DMPlexGetConeSize(serial, cell, &n));
    PetscCheck(n == nc, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "'%s': cell %" PetscInt_FMT " has %" PetscInt_FMT " vertices, the first %" PetscInt_FMT, path, cell - cStart, n, nc);
    PetscCall(DMPlexGetCone(serial, cell, &cone));
    for (PetscInt a = 0; a < nc; a++) (*mesh)->cells[(cell - cStart) * nc + a] = cone[a] - vStart;
  }
  PetscCall(DMGetCoordinateSection(serial, &cs));
  PetscCall(DMGetCoordinatesLocal(serial, &coords));
  PetscCall(VecGetArrayRead(coords, &c));
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt off;
    PetscCall(PetscSectionGetOffset(cs, v, &off));
    for (PetscInt d = 0; d < cdim; d++) (*mesh)->coords[(v - vStart) * cdim + d] = PetscRealPart(c[off + d]);
  }
  PetscCall(VecRestoreArrayRead(coords, &c));
  PetscCall(DMDestroy(&serial));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 reads the file into an MfadMesh (MfadMeshRead() or, for PLY, DMPlex on PETSC_COMM_SELF).
   A bad file stops every rank (the others would wait for rank 0 forever) with rank 0's error code
   and message, so that "<path>:<line>: ..." reaches whoever reads any rank's error. */
static PetscErrorCode MfadDMPlexCreateOnRank0_Private(MPI_Comm comm, const char path[], PetscBool ours, DM *dm)
{
  PetscMPIInt    rank;
  MfadMesh       mesh = NULL;
  PetscErrorCode rerr = PETSC_SUCCESS;
  int            code;
  char           msg[1024] = "";

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    rerr = ours ? MfadMeshRead(path, &mesh) : MfadMeshReadDMPlex_Private(path, &mesh); /* the error handler has reported it */
    if (rerr) {
      MfadErrorText specific = NULL;

      if (!PetscErrorMessage(rerr, NULL, &specific) && specific) PetscCall(PetscStrncpy(msg, specific, sizeof(msg)));
    }
  }
  code = (int)rerr;
  PetscCallMPI(MPI_Bcast(&code, 1, MPI_INT, 0, comm));
  if (code) {
    PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, comm));
    msg[sizeof(msg) - 1] = '\0';
    SETERRQ(comm, (PetscErrorCode)code, "MfadDMPlexCreateFromFile: rank 0 could not read '%s': %s", path, msg);
  }
  PetscCall(MfadDMPlexCreateFromMesh(comm, mesh, dm));
  PetscCall(MfadMeshDestroy(&mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadDMPlexCreateFromFile(MPI_Comm comm, const char path[], DM *dm)
{
  /* mfad's own readers check every index and count (DMPlexCreateGmsh() in PETSc 3.18 crashes on
     a node index out of range): Gmsh and Medit files are read by them too */
  const char *ours[] = {".obj", ".off", ".node", ".ele", ".msh", ".msh2", ".msh4", ".mesh"};
  PetscBool   here, exists, mine = PETSC_FALSE, ply = PETSC_FALSE;
  PetscMPIInt size;
  size_t      len;

  PetscFunctionBegin;
  MfadValidPointer(path, 2);
  MfadValidPointer(dm, 3);
  /* collective: a rank that alone did not see the file would leave the others' broadcasts below
     unmatched (seen when rank 0, done with a file, removed it before a busy rank 1 looked) */
  PetscCall(PetscTestFile(path, 'r', &here));
  {
    int seen = here ? 1 : 0, all; /* int: PetscBool's MPI type changed with PETSc 3.24 */
    PetscCall(MPIU_Allreduce(&seen, &all, 1, MPI_INT, MPI_LAND, comm));
    exists = all ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCheck(exists, comm, PETSC_ERR_FILE_OPEN, "MfadDMPlexCreateFromFile: cannot read '%s' (on every rank)", path);
  PetscCall(PetscStrlen(path, &len));
  for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++) {
    size_t    l;
    PetscBool eq = PETSC_FALSE;
    PetscCall(PetscStrlen(ours[i], &l));
    if (len >= l) PetscCall(PetscStrcasecmp(path + len - l, ours[i], &eq));
    mine = (PetscBool)(mine || eq);
  }
  if (len >= 4) PetscCall(PetscStrcasecmp(path + len - 4, ".ply", &ply));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (mine) PetscCall(MfadDMPlexCreateOnRank0_Private(comm, path, PETSC_TRUE, dm));
  else if (ply && size > 1) PetscCall(MfadDMPlexCreateOnRank0_Private(comm, path, PETSC_FALSE, dm));
  else PetscCall(DMPlexCreateFromFile(comm, path, "mfad mesh", PETSC_TRUE, dm)); /* PLY, ExodusII ... */
  PetscCall(MfadDMPlexDistribute(dm, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}
