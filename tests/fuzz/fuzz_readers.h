// SPDX-License-Identifier: BSD-2-Clause
/* One fuzz input through the mesh readers, shared by the libFuzzer target (fuzz_readers.c,
   scripts/fuzz.sh) and the regression test that replays saved inputs (test_fuzz_regressions.c).
   Input layout: byte 0 picks the reader (bits 0-1: OBJ, OFF, TetGen named by its .node, TetGen
   named by its .ele; with bit 3 set instead Gmsh, Medit, Gmsh, Medit) and, with bit 2, the
   -mfad_mesh_check_manifold option; the rest is the file. For TetGen the part before the first
   NUL byte is the .node file, the part after it the .ele file. */
#ifndef MFAD_FUZZ_READERS_H
#define MFAD_FUZZ_READERS_H

#include <mfadmesh.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const FuzzFiles[6] = {"in.obj", "in.off", "in.node", "in.ele", "in.msh", "in.mesh"};

/* the reader byte 0 picks: 0-3 as above, 4 Gmsh, 5 Medit */
static int FuzzReader(uint8_t first) { return (first & 8) ? 4 + (first & 1) : first & 3; }

/* removes the files FuzzReadersRun() wrote into dir, and dir */
static void FuzzCleanup(const char dir[])
{
  char path[4096];

  for (int i = 0; i < 6; i++) {
    snprintf(path, sizeof(path), "%s/%s", dir, FuzzFiles[i]);
    unlink(path);
  }
  rmdir(dir);
}

static int FuzzWrite(const char dir[], const char name[], const uint8_t *data, size_t size, char path[], size_t len)
{
  FILE *fp;

  snprintf(path, len, "%s/%s", dir, name);
  if (!(fp = fopen(path, "wb"))) return 1;
  if (size && fwrite(data, 1, size, fp) != size) {
    fclose(fp);
    return 1;
  }
  return fclose(fp) != 0;
}

/* What a successful read promises, checked on every mesh a reader returns: a failed check is a
   reader bug, and aborts (a crash for the fuzzer, a failure for ctest). */
static void FuzzCheckMesh(MfadMesh m)
{
  if (!m || m->dim != 3 || m->nvert <= 0 || m->ncell <= 0 || (m->ncorner != 3 && m->ncorner != 4)) abort();
  for (PetscInt i = 0; i < m->nvert * m->dim; i++)
    if (!isfinite(m->coords[i])) abort();
  for (PetscInt c = 0; c < m->ncell; c++)
    for (PetscInt k = 0; k < m->ncorner; k++) {
      const PetscInt v = m->cells[c * m->ncorner + k];
      if (v < 0 || v >= m->nvert) abort();
      for (PetscInt j = 0; j < k; j++)
        if (m->cells[c * m->ncorner + j] == v) abort();
    }
}

/* Writes the input into dir as the reader's file(s) and reads it with MfadMeshRead() into *mesh
   (checked: FuzzCheckMesh()); path (PETSC_MAX_PATH_LEN) gets the file read. Returns 0 or the
   reader's PETSc error (then *mesh is NULL): both are clean outcomes. */
static PetscErrorCode FuzzReadersRead(const char dir[], const uint8_t *data, size_t size, MfadMesh *mesh, char path[])
{
  char           ele[4096];
  int            which;
  PetscErrorCode ierr;

  *mesh = NULL;
  if (size < 1) return PETSC_ERR_ARG_SIZ;
  which = FuzzReader(data[0]);
  data++, size--;
  if (which == 2 || which == 3) {
    const uint8_t *nul = (const uint8_t *)memchr(data, 0, size);
    size_t         n   = nul ? (size_t)(nul - data) : size;

    if (FuzzWrite(dir, "in.ele", nul ? nul + 1 : data + size, nul ? size - n - 1 : 0, ele, sizeof(ele))) abort();
    size = n;
  }
  if (FuzzWrite(dir, FuzzFiles[which == 3 ? 2 : which], data, size, path, PETSC_MAX_PATH_LEN)) abort();
  if (which == 3) snprintf(path, PETSC_MAX_PATH_LEN, "%s", ele);
  if (data[-1] & 4) PetscCall(PetscOptionsSetValue(NULL, "-mfad_mesh_check_manifold", "1"));
  ierr = MfadMeshRead(path, mesh);
  if (data[-1] & 4) PetscCall(PetscOptionsClearValue(NULL, "-mfad_mesh_check_manifold"));
  if (ierr) {
    if (*mesh) abort(); /* a failed read returns no mesh */
    return ierr;
  }
  FuzzCheckMesh(*mesh);
  return 0;
}

/* One input through its reader (FuzzReadersRead()), then the manifold check on the mesh read,
   error or not. Returns 0 or the PETSc error: both are clean outcomes. */
static inline PetscErrorCode FuzzReadersRun(const char dir[], const uint8_t *data, size_t size)
{
  char           path[PETSC_MAX_PATH_LEN];
  PetscErrorCode ierr;
  MfadMesh       mesh = NULL;

  if (size < 1) return 0;
  if ((ierr = FuzzReadersRead(dir, data, size, &mesh, path))) return ierr;
  ierr = MfadMeshCheckManifold(mesh, path);
  PetscCall(MfadMeshDestroy(&mesh));
  return ierr;
}

/* libFuzzer's one-time set-up of both targets: PETSc without its signal handlers (the sanitizers
   catch the crashes) and with its errors silenced (an error is a clean outcome), and a scratch
   directory "<TMPDIR>/<name>_XXXXXX" for the inputs' files, removed at exit by `atexit_fn` */
static inline void FuzzInitialize(char dir[], size_t len, const char *name, void (*atexit_fn)(void))
{
  setenv("PETSC_OPTIONS", "-no_signal_handler", 1);
  if (PetscInitializeNoArguments()) abort();
  if (PetscPushErrorHandler(PetscReturnErrorHandler, NULL)) abort();
  snprintf(dir, len, "%s/%s_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
  if (!mkdtemp(dir)) abort();
  atexit(atexit_fn);
}

#endif
