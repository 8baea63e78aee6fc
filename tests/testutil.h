// SPDX-License-Identifier: BSD-2-Clause
/* Test fixtures: a perturbed grid of springs (edges and face diagonals of an nx x ny x nz
   vertex grid), deterministic, distributable (element e goes to rank e % size). */
#ifndef MFAD_TESTUTIL_H
#define MFAD_TESTUTIL_H

#include <mfadpetsc.h>
#include <check.h>
#include <math.h>
#include <string.h>

/* deterministic uniform numbers in [-1, 1) */
static inline double TestRand(unsigned long long *s)
{
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

typedef struct {
  PetscInt  nx, ny, nz, nvert, nelem; /* all springs, globally */
  PetscInt *conn;                     /* 2 per spring */
  double   *rest;                     /* 3 per vertex */
} TestGrid;

static inline PetscInt TestGridId(const TestGrid *g, PetscInt i, PetscInt j, PetscInt k) { return i + g->nx * (j + g->ny * k); }

static inline PetscErrorCode TestGridCreate(PetscInt nx, PetscInt ny, PetscInt nz, TestGrid *g)
{
  const int off[7][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {0, 1, 1}, {1, 0, 1}, {1, 1, 1}};
  PetscInt  e         = 0;

  PetscFunctionBeginUser;
  g->nx    = nx;
  g->ny    = ny;
  g->nz    = nz;
  g->nvert = nx * ny * nz;
  PetscCall(PetscMalloc1(2 * 7 * g->nvert, &g->conn));
  PetscCall(PetscMalloc1(3 * g->nvert, &g->rest));
  for (PetscInt k = 0; k < nz; k++)
    for (PetscInt j = 0; j < ny; j++)
      for (PetscInt i = 0; i < nx; i++) {
        const PetscInt v = TestGridId(g, i, j, k);
        g->rest[3 * v]     = 0.5 * i;
        g->rest[3 * v + 1] = 0.5 * j;
        g->rest[3 * v + 2] = 0.5 * k;
        for (int o = 0; o < 7; o++) {
          if (i + off[o][0] >= nx || j + off[o][1] >= ny || k + off[o][2] >= nz) continue;
          g->conn[2 * e]     = v;
          g->conn[2 * e + 1] = TestGridId(g, i + off[o][0], j + off[o][1], k + off[o][2]);
          e++;
        }
      }
  g->nelem = e;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode TestGridDestroy(TestGrid *g)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(g->conn));
  PetscCall(PetscFree(g->rest));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An energy on comm: springs (stiffness 3) distributed round-robin, a gravity-like linear
   load if the kernel exists, and the vertices with i = 0 fixed at their rest positions. */
static inline PetscErrorCode TestGridEnergy(MPI_Comm comm, const TestGrid *g, MfadEnergy *E)
{
  PetscMPIInt rank, size;
  MfadKernel  spring;
  PetscInt    n = 0, *conn, *fix, nfix = 0;
  double     *rest, *fixval, k = 3.0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MfadEnergyCreate(comm, 3, PETSC_DECIDE, g->nvert, E));
  PetscCall(MfadKernelFind("mass_spring", &spring));
  PetscCall(PetscMalloc2(2 * g->nelem, &conn, 6 * g->nelem, &rest));
  for (PetscInt e = rank; e < g->nelem; e += size, n++)
    for (int a = 0; a < 2; a++) {
      conn[2 * n + a] = g->conn[2 * e + a];
      for (int d = 0; d < 3; d++) rest[6 * n + 3 * a + d] = g->rest[3 * g->conn[2 * e + a] + d];
    }
  PetscCall(MfadEnergyAddTermFromRest(*E, spring, n, n ? conn : NULL, rest, &k, 1.0, NULL));
  PetscCall(PetscFree2(conn, rest));
  if (rank == 0) {
    PetscCall(PetscMalloc2(3 * g->nvert, &fix, 3 * g->nvert, &fixval));
    for (PetscInt v = 0; v < g->nvert; v++)
      if (v % g->nx == 0)
        for (int d = 0; d < 3; d++) {
          fix[nfix]      = 3 * v + d;
          fixval[nfix++] = g->rest[3 * v + d];
        }
    PetscCall(MfadEnergySetFixedDofs(*E, nfix, fix, fixval));
    PetscCall(PetscFree2(fix, fixval));
  } else PetscCall(MfadEnergySetFixedDofs(*E, 0, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X = rest + amp * noise (global vertex order, so identical on any number of ranks) */
static inline PetscErrorCode TestGridPoint(const TestGrid *g, double amp, unsigned long long seed, Vec X)
{
  PetscInt     lo, hi;
  PetscScalar *x;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(X, &lo, &hi));
  PetscCall(VecGetArray(X, &x));
  for (PetscInt i = 0; i < 3 * g->nvert; i++) {
    const double r = TestRand(&seed);
    if (i >= lo && i < hi) x[i - lo] = g->rest[i] + amp * r;
  }
  PetscCall(VecRestoreArray(X, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc versions (the library's own differences are in src/mfadcompat.h):
   PetscErrorMessage()'s message is a char * up to 3.24, a const char * since 3.25 */
#if PETSC_VERSION_LT(3, 25, 0)
typedef char *TestErrorText;
#else
typedef const char *TestErrorText;
#endif

/* 3.21: TaoSetMonitor() became TaoMonitorSet() */
#if PETSC_VERSION_LT(3, 21, 0)
#define TestTaoMonitorSet(t, f, c, d) TaoSetMonitor((t), (f), (c), (d))
#else
#define TestTaoMonitorSet(t, f, c, d) TaoMonitorSet((t), (f), (c), (d))
#endif

/* Whether SNES's function callback flagged a domain error at the last SNESComputeFunction():
   3.25 removed SNESGetFunctionDomainError() (the flag now marks F with Inf), so read the flag */
#if PETSC_VERSION_LT(3, 25, 0)
#define TestSNESGetFunctionDomainError(snes, flg) SNESGetFunctionDomainError((snes), (flg))
#else
#include <petsc/private/snesimpl.h>
static inline PetscErrorCode TestSNESGetFunctionDomainError(SNES snes, PetscBool *flg)
{
  PetscFunctionBeginUser;
  *flg = snes->functiondomainerror;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* check's assertions inside PETSc-returning helpers */
#define TestCall(call) ck_assert_msg((call) == 0, "PETSc error in %s", #call)

/* `ierr` is an error whose message holds frag1 (and frag2 when not NULL) */
static inline void TestExpectError(PetscErrorCode ierr, const char *what, const char *frag1, const char *frag2)
{
  const char   *text;
  TestErrorText msg = NULL;
  ck_assert_msg(ierr != 0, "%s: expected an error, got success", what);
  PetscErrorMessage(ierr, &text, &msg);
  ck_assert_msg(msg && strstr(msg, frag1), "%s: message '%s' lacks '%s'", what, msg ? msg : "", frag1);
  if (frag2) ck_assert_msg(strstr(msg, frag2), "%s: message '%s' lacks '%s'", what, msg, frag2);
}

#endif
