// SPDX-License-Identifier: BSD-2-Clause
static const char help[] = "mfad Hessian-form benchmark on Neo-Hookean tets: one fused HVP, one product from cached\n"
                           "element Hessians (+ the cache build), one assembled SpMV (+ the assembly), and the CG\n"
                           "iterations per Newton step above which each form beats the others. Medians of -reps.\n"
                           "  -n <20> -m <42>: an n x n x m box of cubes, 6 tets each (default ~100k tets)\n"
                           "  -reps <7>: timed repetitions; -threads <1,2>: OpenMP threads of mfad's loops\n"
                           "  -mat_type aij|baij|sbaij: the assembled matrix (PETSc's SpMV is single-threaded)\n"
                           "  -psd_epsilon <0>: epsilon of the projected columns (0: Neo-Hookean, an energy at features,\n"
                           "   projects its 9 x 9 feature Hessian; > 0, e.g. 1e-300: the 12 x 12 element Hessian)\n";
/* Run: build/bench/bench_hessian_forms -n 20 -m 42. The machine is shared: report the load average
   with the figures; ratios within one run are what count. */
#include "benchsync.h"
#include "benchbox.h"
#include <petsctime.h>
#include <stdio.h>

static int CompareDouble(const void *a, const void *b) { return (*(const double *)a > *(const double *)b) - (*(const double *)a < *(const double *)b); }

typedef enum { OP_HVP, OP_CACHE_BUILD, OP_CACHED_HVP, OP_ASSEMBLE, OP_COO_ONLY, OP_SPMV } Op;

/* median seconds of `reps` runs of op; builds and assemblies alternate between two copies of the
   point, so that every run computes the element Hessians again */
static PetscErrorCode TimeOp(MfadEnergy E, Op op, Vec X[2], Vec V, Vec Y, Mat A, PetscInt reps, double *median)
{
  double t[64], t0, t1;

  PetscFunctionBeginUser;
  reps = PetscMin(reps, 64);
  for (PetscInt r = -1; r < reps; r++) { /* r = -1: warm-up */
    Vec Xr = X[(r + 2) % 2];
    PetscCall(PetscTime(&t0));
    switch (op) {
    case OP_HVP:
      PetscCall(MfadEnergyComputeHessianProduct(E, X[0], V, Y));
      break;
    case OP_CACHE_BUILD:
      PetscCall(MfadEnergyComputeHessianCache(E, Xr));
      break;
    case OP_CACHED_HVP:
      PetscCall(MfadEnergyCachedHessianProduct(E, X[0], V, Y));
      break;
    case OP_ASSEMBLE:
      PetscCall(MfadEnergyComputeHessian(E, Xr, A));
      break;
    case OP_COO_ONLY: /* element Hessians held for X[0]: MatSetValuesCOO alone */
      PetscCall(MfadEnergyComputeHessian(E, X[0], A));
      break;
    case OP_SPMV:
      PetscCall(MatMult(A, V, Y));
      break;
    }
    BenchSync();
    PetscCall(PetscTime(&t1));
    if (r >= 0) t[r] = t1 - t0;
  }
  qsort(t, reps, sizeof(double), CompareDouble);
  *median = t[reps / 2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* new object states of both points (same values): stored element Hessians no longer match them */
static PetscErrorCode Touch(Vec X[2])
{
  PetscFunctionBeginUser;
  PetscCall(VecCopy(X[1], X[0]));
  PetscCall(VecCopy(X[0], X[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* k above which a form with set-up s1 and product p1 beats one with s0, p0: s1 + k p1 < s0 + k p0 */
static const char *BreakEven(double s0, double p0, double s1, double p1, char buf[32])
{
  const double k = (s1 - s0) / (p0 - p1);
  if (p1 >= p0) return s1 <= s0 ? "always" : "never";
  if (k <= 0) return "always";
  snprintf(buf, 32, "k > %.1f", k);
  return buf;
}

int main(int argc, char **argv)
{
  PetscInt    n = 20, m = 42, reps = 7, nvert = 0, ntet = 0, threads[2] = {1, 2}, nthr = 2;
  MfadEnergy  E;
  Vec         X[2], V, Y;
  Mat         A;
  double      tpre0, tpre1, la[3] = {0, 0, 0};
  PetscReal   psd_eps = 0.0;
  const char *mtype;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "mfad Hessian-form benchmark", NULL);
  PetscCall(PetscOptionsInt("-n", "cubes across", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-m", "cubes along", NULL, m, &m, NULL));
  PetscCall(PetscOptionsInt("-reps", "timed repetitions", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsReal("-psd_epsilon", "epsilon of the projected columns (> 0: the element Hessian's projection)", NULL, psd_eps, &psd_eps, NULL));
  {
    PetscBool set;
    PetscCall(PetscOptionsIntArray("-threads", "OpenMP thread counts to run", NULL, threads, &nthr, &set));
    if (!set) nthr = 2; /* PETSc zeroes the count when the option is absent */
  }
  PetscOptionsEnd();
  PetscCall(BenchBoxCreate(n, m, &E, &X[0], &ntet, &nvert));
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(VecDuplicate(X[0], &Y));
  PetscCall(VecDuplicate(X[0], &X[1]));
  PetscCall(VecDuplicate(X[0], &V));
  PetscCall(VecCopy(X[0], X[1]));
  PetscCall(VecSetRandom(V, NULL));
  PetscCall(MfadEnergySetUp(E));
  PetscCall(PetscTime(&tpre0));
  PetscCall(MfadEnergyCreateMatrix(E, &A)); /* COO preallocation: once per mesh */
  BenchSync();
  PetscCall(PetscTime(&tpre1));
  PetscCall(MatGetType(A, &mtype));
  {
    FILE *fp = fopen("/proc/loadavg", "r");
    if (fp) {
      if (fscanf(fp, "%lf %lf %lf", &la[0], &la[1], &la[2]) != 3) la[0] = la[1] = la[2] = 0;
      fclose(fp);
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Neo-Hookean tets: %" PetscInt_FMT " elements, %" PetscInt_FMT " vertices; median of %" PetscInt_FMT "; load average %.2f %.2f %.2f\n", ntet, nvert, reps, la[0], la[1],
                        la[2]));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "matrix %s, COO preallocation (once per mesh) %.1f ms; cache %.1f MB (packed symmetric), assembly values %.1f MB\n", mtype, 1e3 * (tpre1 - tpre0),
                        8.0 * ntet * 78 / 1048576, 8.0 * ntet * 144 / 1048576));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-8s %9s %11s %10s %11s %10s %10s %10s %10s | %s\n", "threads", "HVP ms", "cache+ ms", "cached ms", "assemble ms", "(COO ms)", "SpMV ms", "PSD+ ms", "PSDasm ms",
                        "CG iterations k per Newton step where: cached beats fused, aij beats fused, aij beats cached"));
  for (PetscInt c = 0; c < nthr; c++) {
    double th = 0, tc = 0, tcm = 0, ta = 0, tcoo = 0, ts = 0, tpsd = 0, tpsda = 0;
    char   b[3][32];
    PetscCall(MfadEnergySetNumThreads(E, threads[c]));
    PetscCall(Touch(X)); /* new states: nothing stored from the previous configuration is reused */
    PetscCall(TimeOp(E, OP_HVP, X, V, Y, A, reps, &th));
    PetscCall(TimeOp(E, OP_CACHE_BUILD, X, V, Y, A, reps, &tc));
    PetscCall(MfadEnergyComputeHessianCache(E, X[0]));
    PetscCall(TimeOp(E, OP_CACHED_HVP, X, V, Y, A, reps, &tcm));
    PetscCall(Touch(X)); /* assembly must not take its element Hessians from the cache */
    PetscCall(TimeOp(E, OP_ASSEMBLE, X, V, Y, A, reps, &ta));
    PetscCall(TimeOp(E, OP_COO_ONLY, X, V, Y, A, reps, &tcoo));
    PetscCall(TimeOp(E, OP_SPMV, X, V, Y, A, reps, &ts));
    PetscCall(Touch(X));
    PetscCall(MfadEnergySetPSDProjection(E, MFAD_PSD_CLAMP, psd_eps));
    PetscCall(TimeOp(E, OP_CACHE_BUILD, X, V, Y, A, PetscMax(1, reps / 2), &tpsd));
    PetscCall(Touch(X));
    PetscCall(MfadEnergySetPSDProjection(E, MFAD_PSD_CLAMP, psd_eps));
    PetscCall(TimeOp(E, OP_ASSEMBLE, X, V, Y, A, PetscMax(1, reps / 2), &tpsda));
    PetscCall(MfadEnergySetPSDProjection(E, MFAD_PSD_NONE, 0.0));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-8" PetscInt_FMT " %9.2f %11.2f %10.2f %11.2f %10.2f %10.2f %10.2f %10.2f | %s, %s, %s\n", threads[c], 1e3 * th, 1e3 * tc, 1e3 * tcm, 1e3 * ta, 1e3 * tcoo, 1e3 * ts,
                          1e3 * tpsd, 1e3 * tpsda, BreakEven(0, th, tc, tcm, b[0]), BreakEven(0, th, ta, ts, b[1]), BreakEven(tc, tcm, ta, ts, b[2])));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "cache+: element Hessians computed and packed; assemble: element Hessians + MatSetValuesCOO (COO alone in parentheses);\n"
                                         "PSD+: cache build with -mfad_psd_project clamp; PSDasm: assembly with -mfad_psd_project clamp. A Newton step of k CG iterations costs k HVP (fused), cache+ + k cached, assemble + k SpMV.\n"));
  PetscCall(VecDestroy(&X[0]));
  PetscCall(VecDestroy(&X[1]));
  PetscCall(VecDestroy(&V));
  PetscCall(VecDestroy(&Y));
  PetscCall(MatDestroy(&A));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(PetscFinalize());
  return 0;
}
