// SPDX-License-Identifier: BSD-2-Clause
/* MfadEnergyWriteVTU: a term's cells at a point X as one VTK XML unstructured grid, gathered on
   rank 0 (PETSc's to-zero scatter for the vertex fields, a gather for the cells), written to a
   temporary file, synced and renamed, so an interrupted run never leaves a half-written result
   under the name, and (errors, signals) no temporary beside it either. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <mfadmesh.h>
#include "mfadimpl.h"

/* ---------------------------------------------------------------- the temporary under signals

   A signal that ends the process mid-write would leave "<path>.tmp.<pid>" (megabytes) forever.
   While the file is open, a guard removes it on the way out:
   - PETSc's handler chain (PetscPushSignalHandler(); src/sys/error/signal.c) for the signals PETSc
     traps: SEGV, BUS, FPE, ILL, HUP, QUIT, PIPE, SYS, TRAP, URG, and TERM where PETSc is not built
     with Open MPI. Our handler unlinks the temporary and hands on to PetscSignalHandlerDefault()
     (message, then abort), as the chain would have without us. It cannot call a handler pushed
     before ours (the chain is private to PETSc): for the duration of one write, PETSc's default
     stands in for it.
   - SIGINT, which PETSc never traps, SIGTERM, which it does not trap under Open MPI (its
     comment: Open MPI uses SIGTERM to end ranks), and SIGHUP where PETSc's handler is off (its
     action then the default): caught here only where their action is the default (nobody's handler is replaced; an ignored signal stays ignored),
   with SA_RESETHAND, the handler unlinking the temporary and raising the signal again, so the process ends as it would have; the previous action is
   restored after the write. Without PETSc's handler (-no_signal_handler, or a program that popped it), nothing is pushed: pushing would install
   PETSc's traps, which the user turned off, and popping would reset the error signals to SIG_DFL over any handler of the user's. An error signal
   (SEGV, ...) then leaves the temporary, as before; SIGINT, SIGTERM and SIGHUP are still covered as above. Only async-signal-safe calls (unlink,
   raise) run in the handlers; the path is prepared before the file is created. One write at a time per process (rank 0 writes; threads do not). */
typedef struct {
  char             tmp[PETSC_MAX_PATH_LEN];
  PetscBool        pushed;
  int              ncaught, sig[3];
  struct sigaction old[3];
} MfadVTUGuard;

static MfadVTUGuard *volatile MfadVTUGuardActive;

static void MfadVTUOnSignal_Private(int sig)
{
  MfadVTUGuard *g = MfadVTUGuardActive;

  if (g) (void)unlink(g->tmp);
  (void)raise(sig); /* SA_RESETHAND restored the default action: delivered when this returns */
}

static PetscErrorCode MfadVTUOnPetscSignal_Private(int sig, void *ctx)
{
  (void)unlink(((MfadVTUGuard *)ctx)->tmp);
  return PetscSignalHandlerDefault(sig, NULL);
}

static PetscErrorCode MfadVTUGuardArm_Private(MfadVTUGuard *g)
{
  static const int sigs[3]   = {SIGINT, SIGTERM, SIGHUP};
  PetscBool        nohandler = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-no_signal_handler", &nohandler, NULL));
  if (!nohandler) {
    PetscCall(PetscPushSignalHandler(MfadVTUOnPetscSignal_Private, g));
    g->pushed = PETSC_TRUE;
  }
  MfadVTUGuardActive = g;
  for (int i = 0; i < 3; i++) {
    struct sigaction cur, act;
    if (sigaction(sigs[i], NULL, &cur) || (cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL) continue;
    memset(&act, 0, sizeof act);
    act.sa_handler = MfadVTUOnSignal_Private;
    act.sa_flags   = SA_RESETHAND;
    sigemptyset(&act.sa_mask);
    if (sigaction(sigs[i], &act, NULL)) continue;
    g->sig[g->ncaught]   = sigs[i];
    g->old[g->ncaught++] = cur;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadVTUGuardDisarm_Private(MfadVTUGuard *g)
{
  PetscFunctionBegin;
  for (int i = 0; i < g->ncaught; i++) (void)sigaction(g->sig[i], &g->old[i], NULL);
  g->ncaught         = 0;
  MfadVTUGuardActive = NULL;
  if (g->pushed) PetscCall(PetscPopSignalHandler());
  g->pushed = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- base64 (VTK "binary" arrays) */
static void MfadBase64Write_Private(FILE *fp, const unsigned char *b, size_t n)
{
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    const unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
    const char     q[4] = {tab[v >> 18 & 63], tab[v >> 12 & 63], i + 1 < n ? tab[v >> 6 & 63] : '=', i + 2 < n ? tab[v & 63] : '='};
    fwrite(q, 1, 4, fp);
  }
}

/* One DataArray. VTK's inline binary is base64(UInt32 byte count) followed by base64(data),
   encoded separately as VTK's own writer does. */
typedef enum { MFAD_VTU_F64, MFAD_VTU_I64, MFAD_VTU_U8 } MfadVTUType;

static void MfadVTUArray_Private(FILE *fp, PetscBool binary, const char *name, MfadVTUType type, int ncomp, size_t n, const void *data)
{
  static const char *const names[] = {"Float64", "Int64", "UInt8"};
  static const size_t      size[]  = {8, 8, 1};

  fprintf(fp, "      <DataArray type=\"%s\"%s%s%s", names[type], name ? " Name=\"" : "", name ? name : "", name ? "\"" : "");
  if (ncomp > 1) fprintf(fp, " NumberOfComponents=\"%d\"", ncomp);
  fprintf(fp, " format=\"%s\">\n", binary ? "binary" : "ascii");
  if (binary) {
    const uint32_t nbytes = (uint32_t)(n * (size_t)ncomp * size[type]);
    MfadBase64Write_Private(fp, (const unsigned char *)&nbytes, sizeof nbytes);
    MfadBase64Write_Private(fp, (const unsigned char *)data, nbytes);
    fputc('\n', fp);
  } else {
    for (size_t i = 0; i < n * (size_t)ncomp; i++) {
      switch (type) {
      case MFAD_VTU_F64:
        fprintf(fp, "%.17g", ((const double *)data)[i]);
        break;
      case MFAD_VTU_I64:
        fprintf(fp, "%lld", (long long)((const int64_t *)data)[i]);
        break;
      case MFAD_VTU_U8:
        fprintf(fp, "%u", (unsigned)((const unsigned char *)data)[i]);
        break;
      }
      fputc((i + 1) % 12 && i + 1 < n * (size_t)ncomp ? ' ' : '\n', fp);
    }
  }
  fprintf(fp, "      </DataArray>\n");
}

/* The file's contents; the caller opens, syncs, closes and renames. */
static PetscErrorCode MfadVTUWriteBody_Private(FILE *fp, PetscBool binary, PetscInt N, const double *pts, PetscInt ncell, int nv,
                                               const int64_t *cells, const double *disp, const double *gnorm)
{
  /* VTK cell types by vertices per element: vertex, line, triangle, tetra */
  static const unsigned char vtktype[5] = {0, 1, 3, 5, 10};
  int64_t                   *offsets;
  unsigned char             *types;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(ncell, &offsets, ncell, &types));
  for (PetscInt c = 0; c < ncell; c++) {
    offsets[c] = (int64_t)(c + 1) * nv;
    types[c]   = vtktype[nv];
  }
  fprintf(fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt32\">\n",
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
          "BigEndian"
#else
          "LittleEndian"
#endif
  );
  fprintf(fp, "  <UnstructuredGrid>\n  <Piece NumberOfPoints=\"%" PetscInt_FMT "\" NumberOfCells=\"%" PetscInt_FMT "\">\n", N, ncell);
  fprintf(fp, "    <Points>\n");
  MfadVTUArray_Private(fp, binary, NULL, MFAD_VTU_F64, 3, (size_t)N, pts);
  fprintf(fp, "    </Points>\n    <Cells>\n");
  MfadVTUArray_Private(fp, binary, "connectivity", MFAD_VTU_I64, 1, (size_t)ncell * nv, cells);
  MfadVTUArray_Private(fp, binary, "offsets", MFAD_VTU_I64, 1, (size_t)ncell, offsets);
  MfadVTUArray_Private(fp, binary, "types", MFAD_VTU_U8, 1, (size_t)ncell, types);
  fprintf(fp, "    </Cells>\n    <PointData%s>\n", disp ? " Vectors=\"displacement\"" : "");
  if (disp) MfadVTUArray_Private(fp, binary, "displacement", MFAD_VTU_F64, 3, (size_t)N, disp);
  MfadVTUArray_Private(fp, binary, "gradient_norm", MFAD_VTU_F64, 1, (size_t)N, gnorm);
  fprintf(fp, "    </PointData>\n  </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
  PetscCall(PetscFree2(offsets, types));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Writes the gathered data on rank 0: points (N x 3), cells (ncell x nv), point fields. Every
   way out after the temporary is created (an error of the body, of a write, the sync, the close
   or the rename; a signal) removes it; `path` is touched only by the rename. */
static PetscErrorCode MfadVTUWriteFile_Private(const char path[], PetscBool binary, PetscInt N, const double *pts, PetscInt ncell, int nv,
                                               const int64_t *cells, const double *disp, const double *gnorm)
{
  MfadVTUGuard   g;
  FILE          *fp;
  PetscErrorCode ierr;
  const char    *failed = NULL;
  int            err    = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&g, sizeof g));
  PetscCall(PetscSNPrintf(g.tmp, sizeof g.tmp, "%s.tmp.%d", path, (int)getpid()));
  PetscCall(MfadVTUGuardArm_Private(&g));
  fp = fopen(g.tmp, "w");
  if (!fp) {
    err = errno;
    PetscCall(MfadVTUGuardDisarm_Private(&g));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "MfadEnergyWriteVTU: cannot open %s for writing: %s", g.tmp, strerror(err));
  }
  ierr = MfadVTUWriteBody_Private(fp, binary, N, pts, ncell, nv, cells, disp, gnorm);
  /* a full disk shows up as a write, flush or sync error; the data reach the disk before the
     rename (a crash after it finds the new file whole or the old one). fsync's EINVAL: a special
     file that cannot be synced (nothing to lose) */
  if (!ierr) {
    if (ferror(fp) || fflush(fp)) failed = "writing", err = errno;
    else if (fsync(fileno(fp)) && errno != EINVAL) failed = "syncing", err = errno;
  }
  if (fclose(fp) && !failed) failed = "closing", err = errno;
  if (!ierr && !failed && rename(g.tmp, path)) failed = "renaming", err = errno;
  if (ierr || failed) (void)unlink(g.tmp);
  PetscCall(MfadVTUGuardDisarm_Private(&g));
  PetscCall(ierr);
  PetscCheck(!failed || strcmp(failed, "renaming"), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "MfadEnergyWriteVTU: cannot rename %s to %s: %s", g.tmp,
             path, strerror(err));
  PetscCheck(!failed, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "MfadEnergyWriteVTU: %s %s failed (%s; disk full?); %s is unchanged", failed, g.tmp,
             err ? strerror(err) : "no error code", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyWriteVTU(MfadEnergy E, PetscInt term, Vec X, Vec X0, const char path[])
{
  PetscMPIInt        rank, size, nloc, *counts = NULL, *displs = NULL;
  PetscInt           nv, ncell = 0, dof;
  PetscBool          binary = PETSC_FALSE;
  Vec                G, Xz, Gz, X0z = NULL;
  VecScatter         toz;
  int64_t           *mine, *cells = NULL;
  PetscErrorCode     ierr = PETSC_SUCCESS;
  const MfadTerm    *t;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  MfadValidPointer(path, 5);
  PetscCheck(term >= 0 && term < E->nterms, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergyWriteVTU: term %" PetscInt_FMT " does not exist (the energy has %" PetscInt_FMT " terms)", term, E->nterms);
  t   = &E->terms[term];
  nv  = t->k->ncellvert; /* the cell; further element vertices (rotation nodes) are not geometry */
  dof = E->dof;
  PetscCheck(nv >= 1 && nv <= 4, PetscObjectComm((PetscObject)E), PETSC_ERR_SUP, "MfadEnergyWriteVTU: term '%s' has %" PetscInt_FMT "-vertex elements; VTK cells are written for 1 to 4 vertices (points, lines, triangles, tets)", t->name, nv);
  PetscCheck(dof == 2 || dof == 3, PetscObjectComm((PetscObject)E), PETSC_ERR_SUP, "MfadEnergyWriteVTU: %" PetscInt_FMT " dofs per vertex are not positions (2 or 3 needed)", dof);
  PetscCall(MfadEnergySetUp(E)); /* the options read, -mfad_vtu_binary among them */
  binary = E->vtu_binary;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)E), &rank));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)E), &size));

  /* vertex fields on rank 0: positions, displacement, gradient (fixed dofs zeroed: their
     "gradient" is the constraint residual, not a force) */
  PetscCall(MfadEnergyCreateVecs(E, NULL, &G));
  PetscCall(MfadEnergyComputeGradient(E, X, G));
  if (E->nfixown) {
    PetscScalar *g;
    PetscCall(VecGetArray(G, &g));
    for (PetscInt i = 0; i < E->nfixown; i++) g[E->fixloc[i]] = 0;
    PetscCall(VecRestoreArray(G, &g));
  }
  PetscCall(VecScatterCreateToZero(X, &toz, &Xz));
  PetscCall(VecDuplicate(Xz, &Gz));
  PetscCall(VecScatterBegin(toz, X, Xz, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(toz, X, Xz, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterBegin(toz, G, Gz, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(toz, G, Gz, INSERT_VALUES, SCATTER_FORWARD));
  if (X0) {
    PetscCall(MfadEnergyCheckVec_Private(E, X0, 4, "MfadEnergyWriteVTU"));
    PetscCall(VecDuplicate(Xz, &X0z));
    PetscCall(VecScatterBegin(toz, X0, X0z, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(toz, X0, X0z, INSERT_VALUES, SCATTER_FORWARD));
  }
  PetscCall(VecScatterDestroy(&toz));

  /* cells on rank 0, in each rank's order */
  PetscCheck((PetscInt64)t->nelem * nv < PETSC_MPI_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergyWriteVTU: too many cells on one rank to gather");
  PetscCall(PetscMPIIntCast(t->nelem * nv, &nloc));
  PetscCall(PetscMalloc1(t->nelem * nv, &mine));
  for (PetscInt e = 0; e < t->nelem; e++)
    for (PetscInt a = 0; a < nv; a++) mine[e * nv + a] = t->conn_global[e * t->k->nvert + a];
  if (rank == 0) PetscCall(PetscMalloc2(size, &counts, size + 1, &displs));
  PetscCallMPI(MPI_Gather(&nloc, 1, MPI_INT, counts, 1, MPI_INT, 0, PetscObjectComm((PetscObject)E)));
  if (rank == 0) {
    PetscInt64 total = 0;
    displs[0]        = 0;
    for (PetscMPIInt r = 0; r < size; r++) total += counts[r];
    PetscCheck(total < PETSC_MPI_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergyWriteVTU: %" PetscInt64_FMT " cell entries are too many to gather on one rank", total);
    for (PetscMPIInt r = 0; r < size; r++) displs[r + 1] = displs[r] + counts[r];
    ncell = (PetscInt)(total / nv);
    PetscCall(PetscMalloc1(total, &cells));
  }
  PetscCallMPI(MPI_Gatherv(mine, nloc, MPI_INT64_T, cells, counts, displs, MPI_INT64_T, 0, PetscObjectComm((PetscObject)E)));
  PetscCall(PetscFree(mine));

  if (rank == 0) {
    const PetscScalar *x, *g, *x0 = NULL;
    double            *pts, *disp = NULL, *gnorm;
    PetscCall(VecGetArrayRead(Xz, &x));
    PetscCall(VecGetArrayRead(Gz, &g));
    if (X0z) PetscCall(VecGetArrayRead(X0z, &x0));
    PetscInt *id, npts = 0;
    /* points: the vertices the cells use, in vertex order (an energy's other vertices, e.g.
       rotation nodes, are unknowns but not points); cells renumbered to them */
    PetscCall(PetscMalloc1(E->N, &id));
    for (PetscInt v = 0; v < E->N; v++) id[v] = -1;
    for (PetscInt i = 0; i < ncell * nv; i++) id[cells[i]] = 0;
    for (PetscInt v = 0; v < E->N; v++)
      if (!id[v]) id[v] = npts++;
    for (PetscInt i = 0; i < ncell * nv; i++) cells[i] = id[cells[i]];
    PetscCall(PetscCalloc2(3 * npts, &pts, npts, &gnorm));
    if (x0) PetscCall(PetscCalloc1(3 * npts, &disp));
    for (PetscInt v = 0; v < E->N; v++) {
      const PetscInt q = id[v];
      double         s = 0;
      if (q < 0) continue;
      for (PetscInt d = 0; d < dof; d++) {
        pts[3 * q + d] = PetscRealPart(x[v * dof + d]);
        if (disp) disp[3 * q + d] = PetscRealPart(x[v * dof + d] - x0[v * dof + d]);
        s += PetscRealPart(g[v * dof + d] * g[v * dof + d]);
      }
      gnorm[q] = sqrt(s);
    }
    PetscCall(PetscFree(id));
    PetscCall(VecRestoreArrayRead(Xz, &x));
    PetscCall(VecRestoreArrayRead(Gz, &g));
    if (X0z) PetscCall(VecRestoreArrayRead(X0z, &x0));
    /* the error (a write failure) must reach every rank: broadcast it instead of returning alone */
    ierr = MfadVTUWriteFile_Private(path, binary, npts, pts, ncell, (int)nv, cells, disp, gnorm);
    PetscCall(PetscFree2(pts, gnorm));
    PetscCall(PetscFree(disp));
    PetscCall(PetscFree(cells));
    PetscCall(PetscFree2(counts, displs));
  }
  PetscCallMPI(MPI_Bcast(&ierr, 1, MPI_INT, 0, PetscObjectComm((PetscObject)E)));
  PetscCall(VecDestroy(&Xz));
  PetscCall(VecDestroy(&Gz));
  PetscCall(VecDestroy(&X0z));
  PetscCall(VecDestroy(&G));
  PetscCheck(!ierr, PetscObjectComm((PetscObject)E), PETSC_ERR_FILE_WRITE, "MfadEnergyWriteVTU: could not write %s (see the message above)", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}
