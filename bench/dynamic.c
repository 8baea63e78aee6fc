// SPDX-License-Identifier: BSD-2-Clause
/* The cost of changing a dynamic term's element set (src/dynamic.c) against one fused HVP: a
   Neo-Hookean tet box of -n^3 cubes (6 tets each) plus a term of -pairs springs (stand-ins for
   contact pairs), one time per update of
     - the new set (MfadEnergySetTermElements: local numbering, order, colouring; ghost rebuild if any),
     - the assembled matrix's pattern at its next fill: compared and kept (the same vertex pairs in
       another order) or re-preallocated (new pairs), from the MfadMatPattern log event,
   against one fused HVP of the whole energy and one assembly (MfadEnergyComputeHessian) at fixed
   elements. Medians over -reps updates. Run by hand (never timed in tests):
     bench_dynamic -n 26 -pairs 5000 -reps 7      (105,456 tets) */
#include <mfadpetsc.h>

static double Median(PetscInt n, double *t)
{
  for (PetscInt i = 1; i < n; i++) /* insertion sort: a handful of times */
    for (PetscInt j = i; j > 0 && t[j - 1] > t[j]; j--) {
      const double s = t[j];
      t[j]           = t[j - 1];
      t[j - 1]       = s;
    }
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static unsigned long long seed = 99;
static double             Rand(void)
{
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(seed >> 11) / 9007199254740992.0; /* [0, 1) */
}

/* this rank's share of `npairs` springs: mesh-edge pairs along x (already in the pattern) or
   random far pairs (new to it) */
static PetscErrorCode MakePairs(PetscInt n, PetscBool far, PetscBool reversed, PetscInt lo, PetscInt hi, PetscInt *m, PetscInt conn[],
                                PetscReal params[])
{
  const PetscInt nv = (n + 1) * (n + 1) * (n + 1);

  PetscFunctionBeginUser;
  *m = 0;
  for (PetscInt p = lo; p < hi; p++) {
    PetscInt a, b;
    if (far) {
      a = (PetscInt)(Rand() * nv);
      b = (PetscInt)(Rand() * nv);
      if (a == b) b = (a + 1) % nv;
    } else {
      a = (p * 7919) % nv;
      if (a % (n + 1) == n) a--; /* an x edge of the box: vertices (i, j, k), (i + 1, j, k) */
      b = a + 1;
    }
    conn[2 * *m]       = reversed ? b : a; /* reversed: vertices swapped here, order reversed below */
    conn[2 * *m + 1]   = reversed ? a : b;
    params[2 * *m]     = 0.4;
    params[2 * *m + 1] = 1.0;
    (*m)++;
  }
  if (reversed)
    for (PetscInt i = 0; i < *m / 2; i++)
      for (int c = 0; c < 2; c++) {
        PetscInt  tc                 = conn[2 * i + c];
        PetscReal tp                 = params[2 * i + c];
        conn[2 * i + c]              = conn[2 * (*m - 1 - i) + c];
        params[2 * i + c]            = params[2 * (*m - 1 - i) + c];
        conn[2 * (*m - 1 - i) + c]   = tc;
        params[2 * (*m - 1 - i) + c] = tp;
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt           n = 26, npairs = 5000, reps = 7, nc, cstart, cend, vstart, vend, nvl, dyn, *tets, m, *conn, updates, rebuilds, repre, kept;
  PetscReal         *coords, *rest, *params, lo3[3] = {0, 0, 0}, hi3[3] = {1, 1, 1}, mat[2] = {1.0, 4.0};
  MfadEnergy         E;
  MfadKernel         nh, spring;
  Vec                X, V, Y;
  Mat                A;
  PetscLogEvent      evpat, evset;
  PetscEventPerfInfo info;
  double            *thvp, *tasm, *tset[2], *tpat[2], t0;
  PetscMPIInt        rank, size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "bench_dynamic: cost of a dynamic term's element-set update against one fused HVP"));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-pairs", &npairs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscLogDefaultBegin());
  nc     = n * n * n;
  cstart = (nc * rank) / size;
  cend   = (nc * (rank + 1)) / size;
  PetscCall(MfadKernelFind("neohookean_tet", &nh));
  PetscCall(MfadKernelFind("mass_spring", &spring));
  PetscCall(PetscMalloc3(24 * (cend - cstart), &tets, 3 * (n + 1) * (n + 1) * (n + 1), &coords, 72 * (cend - cstart), &rest));
  PetscCall(MfadMeshBoxTets(n, n, n, cstart, cend, tets));
  PetscCall(MfadMeshBoxVertices(n, n, n, lo3, hi3, 0, (n + 1) * (n + 1) * (n + 1), coords));
  for (PetscInt i = 0; i < 24 * (cend - cstart); i++)
    for (int d = 0; d < 3; d++) rest[3 * i + d] = coords[3 * tets[i] + d];
  PetscCall(MfadEnergyCreate(PETSC_COMM_WORLD, 3, PETSC_DECIDE, (n + 1) * (n + 1) * (n + 1), &E));
  PetscCall(MfadEnergyAddTermFromRest(E, nh, 6 * (cend - cstart), tets, rest, mat, 1.0, NULL));
  PetscCall(MfadEnergyAddTerm(E, spring, 0, NULL, NULL, 1.0, &dyn));
  PetscCall(MfadEnergySetTermName(E, dyn, "contact"));
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadEnergyCreateVecs(E, &X, &V));
  PetscCall(VecDuplicate(X, &Y));
  PetscCall(MfadEnergyGetSizes(E, NULL, &nvl, NULL));
  PetscCall(VecGetOwnershipRange(X, &vstart, &vend));
  {
    PetscScalar *x, *v;
    PetscCall(VecGetArray(X, &x));
    PetscCall(VecGetArray(V, &v));
    for (PetscInt i = vstart; i < vend; i++) {
      x[i - vstart] = coords[i] + 0.002 * (Rand() - 0.5);
      v[i - vstart] = Rand() - 0.5;
    }
    PetscCall(VecRestoreArray(X, &x));
    PetscCall(VecRestoreArray(V, &v));
  }
  PetscCall(PetscMalloc2(2 * npairs, &conn, 2 * npairs, &params));
  PetscCall(MakePairs(n, PETSC_FALSE, PETSC_FALSE, (npairs * rank) / size, (npairs * (rank + 1)) / size, &m, conn, params));
  PetscCall(MfadEnergySetTermElements(E, dyn, m, conn, params));
  PetscCall(MfadEnergyCreateMatrix(E, &A));
  PetscCall(MfadEnergyComputeHessian(E, X, A));
  PetscCall(MfadEnergyComputeHessianProduct(E, X, V, Y)); /* warm */
  PetscCall(PetscLogEventGetId("MfadMatPattern", &evpat));
  PetscCall(PetscLogEventGetId("MfadElementSet", &evset));
  PetscCall(PetscMalloc6(reps, &thvp, reps, &tasm, reps, &tset[0], reps, &tset[1], reps, &tpat[0], reps, &tpat[1]));
  for (PetscInt r = 0; r < reps; r++) {
    PetscCall(PetscBarrier(NULL));
    t0 = MPI_Wtime();
    PetscCall(MfadEnergyComputeHessianProduct(E, X, V, Y));
    PetscCall(PetscBarrier(NULL));
    thvp[r] = MPI_Wtime() - t0;
    PetscCall(VecAXPY(X, 1e-9, V)); /* a new point: the assembly computes its element Hessians */
    t0 = MPI_Wtime();
    PetscCall(MfadEnergyComputeHessian(E, X, A));
    PetscCall(PetscBarrier(NULL));
    tasm[r] = MPI_Wtime() - t0;
    for (int kind = 0; kind < 2; kind++) { /* 0: the same pairs in another order, 1: new pairs */
      double s0, p0;
      PetscCall(MakePairs(n, kind ? PETSC_TRUE : PETSC_FALSE, kind ? PETSC_FALSE : (PetscBool)(r % 2 == 0), (npairs * rank) / size,
                          (npairs * (rank + 1)) / size, &m, conn, params));
      PetscCall(PetscLogEventGetPerfInfo(0, evset, &info));
      s0 = info.time;
      PetscCall(PetscLogEventGetPerfInfo(0, evpat, &info));
      p0 = info.time;
      PetscCall(MfadEnergySetTermElements(E, dyn, m, conn, params));
      PetscCall(MfadEnergyComputeHessian(E, X, A));
      PetscCall(PetscLogEventGetPerfInfo(0, evset, &info));
      tset[kind][r] = info.time - s0;
      PetscCall(PetscLogEventGetPerfInfo(0, evpat, &info));
      tpat[kind][r] = info.time - p0;
      if (kind == 1) { /* back to the mesh-edge pairs for the next round (not timed) */
        PetscCall(MakePairs(n, PETSC_FALSE, PETSC_FALSE, (npairs * rank) / size, (npairs * (rank + 1)) / size, &m, conn, params));
        PetscCall(MfadEnergySetTermElements(E, dyn, m, conn, params));
        PetscCall(MfadEnergyComputeHessian(E, X, A));
      }
    }
  }
  PetscCall(MfadEnergyGetElementsCounts(E, &updates, &rebuilds, &repre, &kept));
  {
    const double hvp = Median(reps, thvp), as = Median(reps, tasm), s0 = Median(reps, tset[0]), s1 = Median(reps, tset[1]),
                 p0 = Median(reps, tpat[0]), p1 = Median(reps, tpat[1]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "bench_dynamic: %" PetscInt_FMT " tets, %" PetscInt_FMT " vertices, %" PetscInt_FMT
                          " springs, %d ranks, medians of %" PetscInt_FMT " (rank 0's times)\n",
                          6 * nc, (n + 1) * (n + 1) * (n + 1), npairs, size, reps));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  fused HVP %.3f ms, assembly at fixed elements %.3f ms\n", 1e3 * hvp, 1e3 * as));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  update, same pairs: new set %.3f ms + pattern compared and kept %.3f ms = %.2f HVPs\n", 1e3 * s0,
                          1e3 * p0, (s0 + p0) / hvp));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  update, new pairs:  new set %.3f ms + re-preallocation %.3f ms = %.2f HVPs = %.2f assemblies\n",
                          1e3 * s1, 1e3 * p1, (s1 + p1) / hvp, (s1 + p1) / as));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "  counts: %" PetscInt_FMT " updates, %" PetscInt_FMT " ghost rebuilds, %" PetscInt_FMT " re-preallocations, %" PetscInt_FMT
                          " kept\n",
                          updates, rebuilds, repre, kept));
  }
  (void)nvl;
  PetscCall(PetscFree6(thvp, tasm, tset[0], tset[1], tpat[0], tpat[1]));
  PetscCall(PetscFree2(conn, params));
  PetscCall(PetscFree3(tets, coords, rest));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&V));
  PetscCall(VecDestroy(&Y));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(PetscFinalize());
  return 0;
}
