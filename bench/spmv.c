// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "The assembled Hessian's product (MatMult) in each PETSc storage format, against a\n"
    "STREAM triad of this run: the Neo-Hookean box's Hessian assembled once by mfad (aij),\n"
    "converted to baij (block size 3), sbaij (upper triangle) and sell, products timed in turn\n"
    "(the same load for every format), medians of -reps. For each: ms per product, ns per\n"
    "stored nonzero of the full matrix, bytes it must read (values, indices, x once, y once)\n"
    "and its time over the bandwidth bound (bytes / triad rate).\n"
    "  -n <20> -m <42>: an n x n x m box of cubes, 6 tets each (default ~100k tets)\n"
    "  -reps <21>: products timed per format\n";
/* Run: build/bench/bench_spmv -n 40 -m 40 (384k tets, the workload). The machine is shared:
   ratios within one run are what count. */
#include "benchsync.h"
#include "benchbox.h"
#include <petsctime.h>
#include <stdio.h>
#include <stdlib.h>

static int CompareDouble(const void *a, const void *b)
{
  return (*(const double *)a > *(const double *)b) - (*(const double *)a < *(const double *)b);
}

/* median seconds of a triad over arrays of n doubles: the bandwidth the products are held to */
static double TriadRate(size_t n, int reps)
{
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)), *c = malloc(n * sizeof(double)), t[64], t0, t1;

  if (!a || !b || !c) {
    free(a), free(b), free(c);
    return 0.0;
  }
  for (size_t i = 0; i < n; i++) a[i] = 0.0, b[i] = 1.0, c[i] = 2.0;
  for (int r = 0; r < reps; r++) {
    PetscTime(&t0);
    for (size_t i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    PetscTime(&t1);
    t[r] = t1 - t0;
  }
  qsort(t, reps, sizeof(double), CompareDouble);
  if (a[n / 2] != 7.0) t[reps / 2] = 1e300; /* keep the loop */
  free(a), free(b), free(c);
  return 24.0 * n / t[reps / 2];
}

int main(int argc, char **argv)
{
  static const char *const names[] = {"aij", "baij", "sbaij", "sell"};
  enum { NF = 4 };
  PetscInt   n = 20, m = 42, reps = 21, ntet = 0, nvert = 0;
  MfadEnergy E;
  Vec        X, V, Y[NF];
  Mat        A[NF];
  double     t[NF][64], bytes[NF], rate, la = 0, worst = 0, tconv[NF] = {0};
  MatInfo    info;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "mfad SpMV benchmark", NULL);
  PetscCall(PetscOptionsInt("-n", "cubes across", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-m", "cubes along", NULL, m, &m, NULL));
  PetscCall(PetscOptionsInt("-reps", "products timed per format", NULL, reps, &reps, NULL));
  PetscOptionsEnd();
  reps = PetscMax(1, PetscMin(reps, 64));
  PetscCall(BenchBoxCreate(n, m, &E, &X, &ntet, &nvert));
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadEnergyCreateMatrix(E, &A[0]));
  PetscCall(MfadEnergyComputeHessian(E, X, A[0]));
  PetscCall(MatSetOption(A[0], MAT_SYMMETRIC, PETSC_TRUE)); /* sbaij takes the upper triangle of a symmetric matrix */
  for (int f = 1; f < NF; f++) {                            /* timed: an aij assembly (fast COO) converted per Newton step is an option */
    double t0, t1;
    PetscCall(PetscTime(&t0));
    PetscCall(MatConvert(A[0], names[f], MAT_INITIAL_MATRIX, &A[f]));
    PetscCall(PetscTime(&t1));
    tconv[f] = t1 - t0;
  }
  PetscCall(VecDuplicate(X, &V));
  PetscCall(VecSetRandom(V, NULL));
  for (int f = 0; f < NF; f++) PetscCall(VecDuplicate(X, &Y[f]));
  PetscCall(MatGetInfo(A[0], MAT_LOCAL, &info));
  {
    const double nnz = info.nz_used, rows = 3.0 * nvert, nb = nnz / 9; /* blocks of 3 x 3 */
    bytes[0] = 12 * nnz + 4 * rows + 16 * rows;                        /* values + column index; row pointers; x, y */
    bytes[1] = 8 * nnz + 4 * nb + 4 * rows / 3 + 16 * rows;
    bytes[2] = 8 * (nnz + 3 * rows) / 2 + 4 * (nb + rows / 3) / 2 + 4 * rows / 3 + 24 * rows; /* upper blocks; x read twice-ish, y updated */
    bytes[3] = 12 * nnz + 4 * rows / 8 + 16 * rows;                                           /* padding not counted */
  }
  rate = TriadRate((size_t)1 << 24, 7);
  for (int r = -1; r < reps; r++) /* r = -1: warm-up; formats in turn */
    for (int f = 0; f < NF; f++) {
      double t0, t1;
      PetscCall(PetscTime(&t0));
      PetscCall(MatMult(A[f], V, Y[f]));
      BenchSync();
      PetscCall(PetscTime(&t1));
      if (r >= 0) t[f][r] = t1 - t0;
    }
  {
    FILE *fp = fopen("/proc/loadavg", "r");
    if (fp) {
      if (fscanf(fp, "%lf", &la) != 1) la = 0;
      fclose(fp);
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "Neo-Hookean tets: %" PetscInt_FMT " elements, %" PetscInt_FMT
                        " rows, %.0f stored nonzeros (aij); triad %.1f GB/s; median of %" PetscInt_FMT "; load %.2f\n",
                        ntet, 3 * nvert, info.nz_used, 1e-9 * rate, reps, la));
  PetscCall(
      PetscPrintf(PETSC_COMM_SELF, "format   product ms   ns/nonzero   MB read   bound ms   over bound   vs aij   |y - y_aij|/|y|   from aij ms\n"));
  for (int f = 0; f < NF; f++) qsort(t[f], reps, sizeof(double), CompareDouble);
  for (int f = 0; f < NF; f++) {
    PetscReal d = 0, ny;
    PetscCall(VecNorm(Y[0], NORM_2, &ny));
    if (f) { /* the same operator: round-off apart */
      PetscCall(VecAXPY(Y[f], -1.0, Y[0]));
      PetscCall(VecNorm(Y[f], NORM_2, &d));
      worst = PetscMax(worst, (double)(d / ny));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-6s %12.3f %12.3f %9.1f %10.3f %12.2f %8.2f   %.1e   %11.2f\n", names[f], 1e3 * t[f][reps / 2],
                          1e9 * t[f][reps / 2] / info.nz_used, 1e-6 * bytes[f], 1e3 * bytes[f] / rate, t[f][reps / 2] * rate / bytes[f],
                          t[0][reps / 2] / t[f][reps / 2], (double)(d / ny), 1e3 * tconv[f]));
  }
  for (int f = 0; f < NF; f++) {
    PetscCall(MatDestroy(&A[f]));
    PetscCall(VecDestroy(&Y[f]));
  }
  PetscCall(VecDestroy(&V));
  PetscCall(VecDestroy(&X));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(PetscFinalize());
  /* the formats hold the same operator: round-off apart (sums in another order, ~1e-16) */
  if (!(worst <= 1e-12)) fprintf(stderr, "bench_spmv: a format's product differs from aij's by %.1e relative\n", worst);
  return worst <= 1e-12 ? 0 : 1;
}
