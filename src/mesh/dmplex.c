// SPDX-License-Identifier: BSD-2-Clause
/* DMPlex meshes for mfad: an MfadMesh or a file becomes a DMPlex and PETSc's partitioner
   distributes it. What mfad takes from the distributed DM is in src/mesh/dmplexsets.c. */
#include "mfadmeshimpl.h"

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

/* Vertex degree against PETSc's DMPlex (issue 46, item 7). DMPlex sizes work arrays by the largest
   cone size maxC and support size maxS of a DM's points (DMPlexGetMaxSizes()) raised to the power
   depth + 1, in PetscInt, unchecked; the largest support is a vertex's (its edges in an
   interpolated DM: an edge's triangles are fewer than its end's edges, a face has 2 cells), so the
   largest vertex degree a DM can have is where those powers overflow:
   - DMPlexGetTransitiveClosure() (v3.18.5 to v3.26.1, src/dm/impls/plex/plex.c): work arrays of
     2 and 3 max((maxC^(d+1) - 1) / (maxC - 1), (maxS^(d+1) - 1) / (maxS - 1)) entries (d the depth;
     depth 1, an uninterpolated DM, has its own path sized by maxS + 1). Past maxS^(d+1) >
     PETSC_MAX_INT the size wraps, mostly negative, and the cone term wins: the star of the vertex
     (useCone = PETSC_FALSE, which DMPlexDistribute()'s overlap takes of every shared point) runs
     past an array of 13 (triangles) or 85 (tets) points.
   - DMPlexGetAdjacency() in PETSc < 3.21 (src/dm/impls/plex/plexdistribute.c): an array of
     max(maxS^d (maxC^(d+1) - 1) / (maxC - 1), maxC^d (maxS^(d+1) - 1) / (maxS - 1)) entries, at
     most the chart; wrapped, a negative malloc or one entry written past a short array. 3.21 on
     take the chart once maxS maxC > 200 (depth 3) or 580 (depth 2), else (maxS maxC)^(d+1) / ...
   With 32-bit PetscInt (Debian's 3.18.5; CI's 3.26.1, configured without 64-bit indices) that is a
   vertex degree of at most 215 in a tet mesh (215^4 < 2^31 <= 216^4) and 1290 in a triangle mesh
   (1290^3 < 2^31 <= 1291^3). Measured on 3.18.5 with generated meshes, each read by rank 0 and
   distributed with overlap 1 (the bisection's last good and first bad N):
   - N tets round one edge (its ends have degree N + 1), every vertex's star taken on 1 rank: 214
     tets work, 215 crash (SEGV, "malloc(): mismatching next->prev_size"); on 2 ranks with a shell
     partition leaving rank 0 the whole star, the same in DMPlexDistribute(); on 2 ranks with the
     default partition each rank held half the star until 293 tets, where DMPlexGetAdjacency()'s
     wrapped size failed a malloc in the partitioner's graph (the "malloc errors"; 1000
     too), while 400 and 5000 tets went through by luck of the wrap.
   - n triangles round one vertex: every vertex's star on 1 rank, degree 1290 works, 1291 crashes;
     on 2 ranks a rank holding degree 1291 crashes in DMPlexDistribute() (shell partition); with
     the default partition degree 12854 goes through, 12855 fails a malloc (3.18's adjacency
     size), and 199,999 (the OBJ face, fanned) is a SEGV.
   PETSc 3.26.1's sources have the same closure sizing (plex.c) and the capped adjacency size, so
   the limit is the closure's. Measured on 3.26.1 (CI's build, scripts/petsc-cuda.sh) with the same
   PETSc-only program: 214 tets round an edge work, 215 crash (SEGV; 1 rank, and 2 ranks with the
   whole star on one); 1290 triangles round a vertex work, 1291 crash; with the default partition
   the wrap still corrupts the heap past the limit (293 tets SEGV, 1000 "malloc(): mismatching
   next->prev_size", 400 by luck fine; 12854 triangles SEGV). The limit is computed from those
   formulas, so 64-bit PetscInt gets its own. */
static PetscBool MfadMulFits_Private(PetscInt64 *acc, PetscInt64 b)
{
  if (b != 0 && *acc > (PetscInt64)PETSC_MAX_INT / b) return PETSC_FALSE;
  *acc *= b;
  return PETSC_TRUE;
}

/* (m^(d+1) - 1) / (m - 1) = 1 + m + ... + m^d, and m^e, in *series and *pow; false when PETSc's
   PetscInt evaluation of m^(d+1) would overflow */
static PetscBool MfadPowFits_Private(PetscInt64 m, PetscInt d, PetscInt64 *series, PetscInt64 *pow)
{
  PetscInt64 p = 1, s = 0;

  for (PetscInt e = 0; e <= d; e++) {
    s += p, *pow = p;
    if (!MfadMulFits_Private(&p, m)) return PETSC_FALSE; /* p = m^(e+1) */
  }
  *series = m > 1 ? s : d + 1;
  return PETSC_TRUE;
}

/* whether PETSc's sizes for a DM of depth d with largest cone maxC and support maxS fit PetscInt */
static PetscBool MfadDMPlexSizesFit_Private(PetscInt d, PetscInt64 maxC, PetscInt64 maxS)
{
  PetscInt64 cs, ss, cp, sp, work;

  if (d <= 1) return PETSC_TRUE; /* the depth-1 closure and its adjacency are linear in maxS */
  if (!MfadPowFits_Private(maxC, d, &cs, &cp) || !MfadPowFits_Private(maxS, d, &ss, &sp)) return PETSC_FALSE;
  work = PetscMax(cs, ss);
  if (!MfadMulFits_Private(&work, 3)) return PETSC_FALSE; /* the closure's fifo */
#if PETSC_VERSION_LT(3, 21, 0)
  if (!MfadMulFits_Private(&sp, cs) || !MfadMulFits_Private(&cp, ss)) return PETSC_FALSE;
#else
  {
    PetscInt64 p = maxS, ps, pp;
    if (!MfadMulFits_Private(&p, maxC)) return PETSC_FALSE;
    if (!((d == 3 && p > 200) || (d == 2 && p > 580)) && !MfadPowFits_Private(p, d, &ps, &pp)) return PETSC_FALSE;
  }
#endif
  return PETSC_TRUE;
}

/* The largest vertex degree (support size) a DM of depth d and largest cone maxC can have in the
   PETSc in use: bisection, the sizes growing with maxS */
static PetscInt MfadDMPlexMaxDegree_Private(PetscInt d, PetscInt maxC)
{
  PetscInt64 lo = 1, hi = PETSC_MAX_INT;

  if (MfadDMPlexSizesFit_Private(d, maxC, hi)) return PETSC_MAX_INT;
  while (hi - lo > 1) { /* fits at lo, not at hi */
    const PetscInt64 mid = lo + (hi - lo) / 2;
    if (MfadDMPlexSizesFit_Private(d, maxC, mid)) lo = mid;
    else hi = mid;
  }
  return (PetscInt)lo;
}

/* Collective: every rank's largest support against the limit (PETSc's above, or a lower one from
   -mfad_dmplex_max_degree), before PETSc sizes anything by it; an error on every rank names the
   worst rank's point, its degree and the limit */
static PetscErrorCode MfadDMPlexCheckDegree_Private(DM dm)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)dm);
  PetscInt    depth, maxC, maxS, pStart, pEnd, vStart, vEnd, limit, opt = 0, worst = -1;
  PetscInt64  info[5] = {0, 0, 0, 0, 0}; /* degree, point, vertex (-1: not a vertex), limit, the limit's origin (1: option) */
  PetscBool   set;
  PetscMPIInt rank;
  char        why[256];
  struct {
    int over, rank;
  } mine, top;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(DMPlexGetDepth(dm, &depth));
  PetscCall(DMPlexGetMaxSizes(dm, &maxC, &maxS));
  limit = MfadDMPlexMaxDegree_Private(PetscAbsInt(depth), maxC);
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mfad_dmplex_max_degree", &opt, &set));
  PetscCheck(!set || opt >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-mfad_dmplex_max_degree %" PetscInt_FMT " must be >= 1", opt);
  set       = (PetscBool)(set && opt < limit); /* lowers PETSc's limit, never raises it */
  limit     = set ? opt : limit;
  mine.over = maxS > limit ? 1 : 0, mine.rank = (int)rank;
  PetscCallMPI(MPI_Allreduce(&mine, &top, 1, MPI_2INT, MPI_MAXLOC, comm));
  if (!top.over) PetscFunctionReturn(PETSC_SUCCESS);
  if (mine.over && top.rank == (int)rank) { /* the point: the first of largest support */
    PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
    PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
    for (PetscInt p = pStart; p < pEnd && worst < 0; p++) {
      PetscInt s;
      PetscCall(DMPlexGetSupportSize(dm, p, &s));
      if (s == maxS) worst = p;
    }
    info[0] = maxS, info[1] = worst, info[2] = worst >= vStart && worst < vEnd ? worst - vStart : -1, info[3] = limit, info[4] = set;
  }
  PetscCallMPI(MPI_Bcast(info, 5, MPIU_INT64, top.rank, comm));
  if (info[4]) PetscCall(PetscSNPrintf(why, sizeof why, " (-mfad_dmplex_max_degree)"));
  else
    PetscCall(PetscSNPrintf(
        why, sizeof why,
        ", the most that PETSc %d.%d.%d with %d-bit PetscInt can distribute (DMPlex sizes work arrays by the degree to the power depth + 1: "
        "they would overflow, heap corruption; -mfad_dmplex_max_degree)",
        PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, (int)(8 * sizeof(PetscInt))));
  PetscCheck(info[2] < 0, comm, PETSC_ERR_SUP,
             "MfadDMPlexDistribute: vertex %" PetscInt64_FMT
             " (from 0 on rank %d; in the file's order when rank 0 read the mesh) has degree %" PetscInt64_FMT
             " (edges; cells if the DM is not interpolated), more than %" PetscInt64_FMT "%s; split the cells around it",
             info[2], top.rank, info[0], info[3], why);
  SETERRQ(comm, PETSC_ERR_SUP,
          "MfadDMPlexDistribute: point %" PetscInt64_FMT " of rank %d (not a vertex) has %" PetscInt64_FMT
          " points in its support, more than %" PetscInt64_FMT "%s",
          info[1], top.rank, info[0], info[3], why);
}

PetscErrorCode MfadDMPlexDistribute(DM *dm, PetscInt overlap)
{
  PetscPartitioner part;
  DM               dist = NULL;

  PetscFunctionBegin;
  MfadValidPointer(dm, 1);
  PetscValidHeaderSpecific(*dm, DM_CLASSID, 1);
  PetscCheck(overlap >= 0, PetscObjectComm((PetscObject)*dm), PETSC_ERR_ARG_OUTOFRANGE, "MfadDMPlexDistribute: overlap %" PetscInt_FMT " < 0", overlap);
  PetscCall(MfadDMPlexCheckDegree_Private(*dm));
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
  /* a refused mesh (its vertex degree) is not left to the caller */
  {
    PetscErrorCode ierr = MfadDMPlexDistribute(dm, 1);

    if (ierr) PetscCall(DMDestroy(dm));
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
