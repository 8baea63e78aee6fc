// SPDX-License-Identifier: BSD-2-Clause
/* MfadVTUWrite: points, cells and point data as one VTK XML unstructured grid, written to a
   temporary file, synced and renamed, so an interrupted run never leaves a half-written result
   under the name, and (errors, signals) no temporary beside it either. The arrays are one
   process's (MfadEnergyWriteVTU, src/vtu.c, gathers an energy's term on rank 0 and calls it). */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "mfadmeshimpl.h"

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
    const unsigned v    = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
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
                                               const int64_t *cells, PetscInt nfield, const MfadVTUField fields[], const double *const fdata[])
{
  /* VTK cell types by vertices per element: vertex, line, triangle, tetra */
  static const unsigned char vtktype[5] = {0, 1, 3, 5, 10};
  int64_t                   *offsets;
  unsigned char             *types;
  const char                *vectors = NULL;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(ncell, &offsets, ncell, &types));
  for (PetscInt c = 0; c < ncell; c++) {
    offsets[c] = (int64_t)(c + 1) * nv;
    types[c]   = vtktype[nv];
  }
  for (PetscInt f = 0; f < nfield && !vectors; f++)
    if (fields[f].ncomp == 3) vectors = fields[f].name;
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
  fprintf(fp, "    </Cells>\n    <PointData%s%s%s>\n", vectors ? " Vectors=\"" : "", vectors ? vectors : "", vectors ? "\"" : "");
  for (PetscInt f = 0; f < nfield; f++) MfadVTUArray_Private(fp, binary, fields[f].name, MFAD_VTU_F64, (int)fields[f].ncomp, (size_t)N, fdata[f]);
  fprintf(fp, "    </PointData>\n  </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
  PetscCall(PetscFree2(offsets, types));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Writes points (N x 3), cells (ncell x nv) and point fields. Every
   way out after the temporary is created (an error of the body, of a write, the sync, the close
   or the rename; a signal) removes it; `path` is touched only by the rename. */
static PetscErrorCode MfadVTUWriteFile_Private(const char path[], PetscBool binary, PetscInt N, const double *pts, PetscInt ncell, int nv,
                                               const int64_t *cells, PetscInt nfield, const MfadVTUField fields[], const double *const fdata[])
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
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "MfadVTUWrite: cannot open %s for writing: %s", g.tmp, strerror(err));
  }
  ierr = MfadVTUWriteBody_Private(fp, binary, N, pts, ncell, nv, cells, nfield, fields, fdata);
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
  PetscCheck(!failed || strcmp(failed, "renaming"), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "MfadVTUWrite: cannot rename %s to %s: %s", g.tmp, path,
             strerror(err));
  PetscCheck(!failed, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "MfadVTUWrite: %s %s failed (%s; disk full?); %s is unchanged", failed, g.tmp,
             err ? strerror(err) : "no error code", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x as doubles, VTK's Float64: x itself where PetscReal is double, else a converted copy (*copy, to free) */
static PetscErrorCode MfadVTUDoubles_Private(size_t n, const PetscReal *x, const double **d, double **copy)
{
  PetscFunctionBegin;
  *copy = NULL;
#if defined(PETSC_USE_REAL_DOUBLE)
  (void)n;
  *d = x;
#else
  PetscCall(PetscMalloc1(n, copy));
  for (size_t i = 0; i < n; i++) (*copy)[i] = (double)x[i];
  *d = *copy;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadVTUWrite(const char path[], PetscInt npoints, const PetscReal points[], PetscInt ncell, PetscInt nv, const PetscInt cells[],
                            PetscInt nfield, const MfadVTUField fields[], PetscBool binary)
{
  const double  *pts, **fdata;
  double        *ptscopy, **fcopy;
  int64_t       *cells64;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  MfadValidPointer(path, 1);
  PetscCheck(npoints >= 0 && ncell >= 0 && nfield >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "MfadVTUWrite %s: negative size (%" PetscInt_FMT " points, %" PetscInt_FMT " cells, %" PetscInt_FMT " fields)", path, npoints, ncell,
             nfield);
  PetscCheck(nv >= 1 && nv <= 4, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "MfadVTUWrite %s: cells of %" PetscInt_FMT " vertices; VTK cells are written for 1 to 4 vertices (points, lines, triangles, tets)", path,
             nv);
  PetscCheck((PetscInt64)ncell * nv < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadVTUWrite %s: too many cells", path);
  if (npoints) MfadValidPointer(points, 3);
  if (ncell) MfadValidPointer(cells, 6);
  if (nfield) MfadValidPointer(fields, 8);
  for (PetscInt f = 0; f < nfield; f++) {
    PetscCheck(fields[f].name && fields[f].name[0], PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadVTUWrite %s: field %" PetscInt_FMT " has no name", path,
               f);
    PetscCheck(fields[f].ncomp >= 1 && fields[f].ncomp <= 9, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "MfadVTUWrite %s: field '%s' has %" PetscInt_FMT " components (1 to 9)", path, fields[f].name, fields[f].ncomp);
    PetscCheck(!npoints || fields[f].data, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadVTUWrite %s: field '%s' has no data", path, fields[f].name);
  }
  /* a cell naming a point that is not there would make a file no reader can load */
  PetscCall(PetscMalloc1(ncell * nv, &cells64));
  for (PetscInt i = 0; i < ncell * nv; i++) {
    if (cells[i] < 0 || cells[i] >= npoints) {
      PetscCall(PetscFree(cells64));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
              "MfadVTUWrite %s: cell %" PetscInt_FMT " has point %" PetscInt_FMT ", outside [0, %" PetscInt_FMT ")", path, i / nv, cells[i], npoints);
    }
    cells64[i] = cells[i];
  }
  PetscCall(MfadVTUDoubles_Private((size_t)npoints * 3, points, &pts, &ptscopy));
  PetscCall(PetscCalloc2(nfield, &fdata, nfield, &fcopy));
  for (PetscInt f = 0; f < nfield; f++)
    PetscCall(MfadVTUDoubles_Private((size_t)npoints * (size_t)fields[f].ncomp, fields[f].data, &fdata[f], &fcopy[f]));
  ierr = MfadVTUWriteFile_Private(path, binary, npoints, pts, ncell, (int)nv, cells64, nfield, fields, fdata);
  for (PetscInt f = 0; f < nfield; f++) PetscCall(PetscFree(fcopy[f]));
  PetscCall(PetscFree2(fdata, fcopy));
  PetscCall(PetscFree(ptscopy));
  PetscCall(PetscFree(cells64));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadMeshWriteVTU(MfadMesh mesh, PetscInt nfield, const MfadVTUField fields[], PetscBool binary, const char path[])
{
  PetscReal *pts;

  PetscFunctionBegin;
  MfadValidPointer(mesh, 1);
  PetscCall(PetscCalloc1(3 * mesh->nvert, &pts));
  for (PetscInt v = 0; v < mesh->nvert; v++)
    for (PetscInt d = 0; d < PetscMin(mesh->dim, 3); d++) pts[3 * v + d] = mesh->coords[mesh->dim * v + d];
  PetscCall(MfadVTUWrite(path, mesh->nvert, pts, mesh->ncell, mesh->ncorner, mesh->cells, nfield, fields, binary));
  PetscCall(PetscFree(pts));
  PetscFunctionReturn(PETSC_SUCCESS);
}
