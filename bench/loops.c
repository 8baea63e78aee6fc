// SPDX-License-Identifier: BSD-2-Clause
static const char help[] = "mfad element-loop benchmark: fused HVP against the gradient on Neo-Hookean tets,\n"
                           "1 vs 2 OpenMP threads, and the race-free scatter strategies (coloured blocks,\n"
                           "atomics, single-element colouring, the GPU's gather); the Hessian diagonal (diagonal mode)\n"
                           "against the vertex blocks (Hessian mode). Medians of -reps products after a warm-up.\n"
                           "  -n <20> -m <42>: an n x n x m box of cubes, 6 tets each (default ~100k tets)\n"
                           "  -reps <7>: timed repetitions per configuration\n";
/* Run: build/bench/bench_loops -n 40 -m 105 (1M tets). Ratios within one run are what count:
   the machine is shared and absolute times drift. */
#include "benchsync.h"
#include "benchbox.h"
#include <petsctime.h>

static int CompareDouble(const void *a, const void *b) { return (*(const double *)a > *(const double *)b) - (*(const double *)a < *(const double *)b); }

/* median seconds of `reps` calls of op (0 gradient, 1 HVP, 2 objective, 3 diagonal, 4 vertex blocks) */
static PetscErrorCode TimeOp(MfadEnergy E, int op, Vec X, Vec V, Vec Y, PetscInt reps, double *median)
{
  double       t[64], t0, t1;
  PetscReal    f;
  PetscScalar *blocks;
  PetscInt     n;

  PetscFunctionBeginUser;
  reps = PetscMin(reps, 64);
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(PetscMalloc1(3 * n, &blocks)); /* dof x dof per vertex, dof = 3 */
  for (PetscInt r = -1; r < reps; r++) { /* r = -1: warm-up */
    PetscCall(PetscTime(&t0));
    if (op == 0) PetscCall(MfadEnergyComputeGradient(E, X, Y));
    else if (op == 1) PetscCall(MfadEnergyComputeHessianProduct(E, X, V, Y));
    else if (op == 2) PetscCall(MfadEnergyComputeObjective(E, X, &f));
    else if (op == 3) PetscCall(MfadEnergyComputeHessianDiagonal(E, X, Y));
    else PetscCall(MfadEnergyComputeHessianBlockDiagonal(E, X, blocks));
    BenchSync();
    PetscCall(PetscTime(&t1));
    if (r >= 0) t[r] = t1 - t0;
  }
  PetscCall(PetscFree(blocks));
  qsort(t, reps, sizeof(double), CompareDouble);
  *median = t[reps / 2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    n = 20, m = 42, reps = 7, nvert = 0, ntet = 0;
  MfadEnergy  E;
  Vec         X, V, Y;
  const struct {
    const char *name;
    PetscInt    threads, block;
    const char *scatter;
  } cfg[] = {
    {"colour blocks 1024, 1 thread", 1, 1024, "colour"},
    {"colour blocks 1024, 2 threads", 2, 1024, "colour"},
    {"atomic scatter, 1 thread", 1, 1024, "atomic"},
    {"atomic scatter, 2 threads", 2, 1024, "atomic"},
    {"single-element colours, 1 thread", 1, 1, "colour"},
    {"single-element colours, 2 threads", 2, 1, "colour"},
    {"gather (GPU; CPU: colours), 1 thread", 1, 1024, "gather"},
  };
  double tg[7], th[7], tv[7], td = 0.0, tb = 0.0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "mfad loop benchmark", NULL);
  PetscCall(PetscOptionsInt("-n", "cubes across", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-m", "cubes along", NULL, m, &m, NULL));
  PetscCall(PetscOptionsInt("-reps", "timed repetitions", NULL, reps, &reps, NULL));
  PetscOptionsEnd();
  PetscCall(BenchBoxCreate(n, m, &E, &X, &ntet, &nvert));
  PetscCall(VecDuplicate(X, &Y));
  PetscCall(VecDuplicate(X, &V));
  PetscCall(VecSetRandom(V, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Neo-Hookean tets: %" PetscInt_FMT " elements, %" PetscInt_FMT " vertices, median of %" PetscInt_FMT " products\n", ntet, nvert, reps));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-38s %10s %10s %10s %9s %12s\n", "configuration", "value ms", "grad ms", "HVP ms", "HVP/grad", "HVP Melem/s"));
  for (int c = 0; c < 7; c++) {
    char buf[32];
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%d", (int)cfg[c].block));
    PetscCall(PetscOptionsSetValue(NULL, "-mfad_block_size", buf));
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%d", (int)cfg[c].threads));
    PetscCall(PetscOptionsSetValue(NULL, "-mfad_num_threads", buf));
    PetscCall(PetscOptionsSetValue(NULL, "-mfad_scatter", cfg[c].scatter));
    PetscCall(MfadEnergySetFromOptions(E));
    PetscCall(MfadEnergySetUp(E));
    PetscCall(TimeOp(E, 2, X, V, Y, reps, &tv[c]));
    PetscCall(TimeOp(E, 0, X, V, Y, reps, &tg[c]));
    PetscCall(TimeOp(E, 1, X, V, Y, reps, &th[c]));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-38s %10.2f %10.2f %10.2f %9.2f %12.2f\n", cfg[c].name, 1e3 * tv[c], 1e3 * tg[c], 1e3 * th[c], th[c] / tg[c], 1e-6 * ntet / th[c]));
    if (c == 0) { /* the second derivatives' own passes, coloured blocks, 1 thread */
      PetscCall(TimeOp(E, 3, X, V, Y, reps, &td));
      PetscCall(TimeOp(E, 4, X, V, Y, reps, &tb));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Hessian diagonal (diagonal mode) %.2f ms = %.2f HVPs; vertex blocks (Hessian mode) %.2f ms = %.2f diagonals (1 thread)\n", 1e3 * td, td / th[0], 1e3 * tb, tb / td));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "2-thread speed-up of the HVP: coloured blocks %.2f, atomics %.2f, element colours %.2f\n", th[0] / th[1], th[2] / th[3], th[4] / th[5]));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "coloured blocks vs atomics (2 threads) %.2f, vs element colours (1 thread) %.2f\n", th[3] / th[1], th[4] / th[0]));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "gather vs atomics (1 thread): HVP %.2f, gradient %.2f\n", th[2] / th[6], tg[2] / tg[6]));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&V));
  PetscCall(VecDestroy(&Y));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(PetscFinalize());
  return 0;
}
