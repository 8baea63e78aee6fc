// SPDX-License-Identifier: BSD-2-Clause
/* Scaling of the fused HVP over MPI ranks, ghost exchange apart from element work.
   Rank 0 builds a box of n x n x m cubes (6 Neo-Hookean tets each; m x size cubes deep with
   -weak, so each rank keeps the same share), DMPlex distributes it (PTScotch unless
   -petscpartitioner_type), and -reps products y = H(x) v are timed. The library's log events
   split each product: MfadGhostExch (the VecScatters: v to the ghosts, y back to the owners),
   MfadElements (the element loops); the rest is bookkeeping. Times are the slowest rank's.
     mpiexec -n 2 ./bench_scaling -n 40 -m 40 [-weak] [-reps 20] [-mfad_view] [-assembled]
   -assembled: then the assembled Hessian in aij and in baij (block size 3) over the same ranks,
   in turn: its fill (element Hessians at one of two points + assembly) and MatMult, medians of
   -reps (slowest rank: barriers around each), which of the two mfad's operator should be. */
#include <mfadmesh.h>
#include <petsctime.h>
#include <stdlib.h>

/* this rank's time in event `name` during `stage`, and the messages it sent */
static int CompareDouble(const void *a, const void *b)
{
  return (*(const double *)a > *(const double *)b) - (*(const double *)a < *(const double *)b);
}

/* -assembled: aij and baij filled and applied in turn (the same load for each), medians */
static PetscErrorCode TimeAssembled(MfadEnergy E, Vec X, Vec V, Vec Y, PetscInt reps, PetscInt ntet)
{
  const char *types[2] = {"aij", "baij"};
  Mat         A[2];
  Vec         X2;
  double     *t[2][2];

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(X, &X2)); /* a second point: every fill computes the element Hessians again */
  PetscCall(VecCopy(X, X2));
  PetscCall(VecScale(X2, 1.0 + 1e-9));
  for (int f = 0; f < 2; f++) {
    PetscCall(PetscOptionsSetValue(NULL, "-mat_type", types[f]));
    PetscCall(MfadEnergyCreateMatrix(E, &A[f]));
    PetscCall(MfadEnergyComputeHessian(E, X, A[f]));
    PetscCall(PetscMalloc2(reps, &t[f][0], reps, &t[f][1]));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_type"));
  for (PetscInt r = -2; r < reps; r++) /* r < 0: warm-up; the first format rotating */
    for (int g = 0; g < 2; g++) {
      const int      f = (int)((g + PetscMax(r, 0)) % 2);
      PetscLogDouble t0, t1, t2;
      PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
      PetscCall(PetscTime(&t0));
      PetscCall(MfadEnergyComputeHessian(E, (r & 1) ? X : X2, A[f]));
      PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
      PetscCall(PetscTime(&t1));
      for (int q = 0; q < 10; q++) PetscCall(MatMult(A[f], V, Y));
      PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
      PetscCall(PetscTime(&t2));
      if (r >= 0) t[f][0][r] = t1 - t0, t[f][1][r] = (t2 - t1) / 10;
    }
  for (int f = 0; f < 2; f++) {
    MatType type;
    qsort(t[f][0], (size_t)reps, sizeof(double), CompareDouble);
    qsort(t[f][1], (size_t)reps, sizeof(double), CompareDouble);
    PetscCall(MatGetType(A[f], &type));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "  assembled %-8s %" PetscInt_FMT " tets: fill (element Hessians + assembly) %8.2f ms, MatMult %7.3f ms\n", type, ntet,
                          1e3 * t[f][0][reps / 2], 1e3 * t[f][1][reps / 2]));
    PetscCall(PetscFree2(t[f][0], t[f][1]));
    PetscCall(MatDestroy(&A[f]));
  }
  PetscCall(VecDestroy(&X2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EventTime(PetscLogStage stage, const char *name, PetscReal *t, PetscReal *bytes, PetscReal *msgs)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventGetId(name, &ev));
  PetscCall(PetscLogEventGetPerfInfo(stage, ev, &info));
  *t = info.time;
  if (bytes) *bytes = info.messageLength;
  if (msgs) *msgs = info.numMessages;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt      n = 40, m = 40, reps = 20, ntet, nv, mz, nghost = 0, ghost_max;
  PetscBool       weak = PETSC_FALSE, assembled = PETSC_FALSE;
  PetscMPIInt   rank, size;
  MfadMesh      mesh = NULL;
  MfadEnergy    E;
  MfadKernel    k;
  DM            dm;
  Vec           X, V, Y;
  PetscScalar  *x, *v;
  PetscLogStage stage;
  PetscLogDouble t0, t1;
  PetscReal     tall, tghost, telem, tother, bytes, msgs, tsetup, tdist;
  const PetscReal mat[2] = {1e5 / (2 * 1.3), 1e5 * 0.3 / (1.3 * 0.4)}; /* E = 1e5, nu = 0.3 */
  PetscInt      lo, hi;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscLogDefaultBegin());
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-weak", &weak, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-assembled", &assembled, NULL));
  mz   = weak ? m * size : m;
  ntet = 6 * n * n * mz;
  nv   = (n + 1) * (n + 1) * (mz + 1);
  PetscCall(PetscTime(&t0));
  if (rank == 0) {
    const PetscReal blo[3] = {0, 0, 0}, bhi[3] = {1.0, 1.0, (PetscReal)mz / n};
    PetscCall(MfadMeshCreate(3, nv, 4, ntet, &mesh));
    PetscCall(MfadMeshBoxTets(n, n, mz, 0, n * n * mz, mesh->cells));
    PetscCall(MfadMeshBoxVertices(n, n, mz, blo, bhi, 0, nv, mesh->coords));
  }
  PetscCall(MfadDMPlexCreateFromMesh(PETSC_COMM_WORLD, mesh, &dm));
  PetscCall(MfadMeshDestroy(&mesh));
  PetscCall(MfadDMPlexDistribute(&dm, 0)); /* cells need no overlap */
  PetscCall(PetscTime(&t1));
  tdist = t1 - t0;
  PetscCall(MfadEnergyCreateFromDMPlex(dm, 3, &E));
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadKernelFind("neohookean_tet", &k));
  PetscCall(MfadEnergyAddTermFromDMPlex(E, dm, k, MFAD_DMPLEX_CELLS, mat, 1.0, NULL));
  PetscCall(MfadEnergyCreateVecs(E, &X, &Y));
  PetscCall(VecDuplicate(X, &V));
  PetscCall(MfadEnergyCopyCoordinatesFromDMPlex(E, dm, X));
  /* the deformed state of bench/benchbox.h, as a function of the rest position (any numbering) */
  PetscCall(VecGetOwnershipRange(X, &lo, &hi));
  PetscCall(VecGetArray(X, &x));
  PetscCall(VecGetArray(V, &v));
  for (PetscInt i = 0; i < hi - lo; i++) {
    const PetscReal p = PetscRealPart(x[i]);
    x[i]              = p * (i % 3 == 2 ? 1.1 : 0.97) + 0.01 / n * PetscSinReal(17.0 * p + i % 3);
    v[i]              = PetscCosReal(3.0 * p + i % 3);
  }
  PetscCall(VecRestoreArray(V, &v));
  PetscCall(VecRestoreArray(X, &x));
  PetscCall(PetscTime(&t0));
  PetscCall(MfadEnergySetUp(E));
  PetscCall(MfadEnergyComputeHessianProduct(E, X, V, Y)); /* warm-up: first touch, X's ghosts */
  PetscCall(PetscTime(&t1));
  tsetup = t1 - t0;
  PetscCall(MfadEnergyViewFromOptions(E, "-mfad_view"));
  PetscCall(PetscLogStageRegister("HVP timed", &stage));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscLogStagePush(stage));
  for (PetscInt r = 0; r < reps; r++) PetscCall(MfadEnergyComputeHessianProduct(E, X, V, Y));
  PetscCall(PetscLogStagePop());
  {
    /* the slowest rank of each part (each max over the ranks; "other" too); message totals */
    PetscReal mine[4], most[4], sent[2], sum[2];
    PetscCall(EventTime(stage, "MfadHessianProd", &mine[0], NULL, NULL));
    PetscCall(EventTime(stage, "MfadElements", &mine[1], NULL, NULL));
    PetscCall(EventTime(stage, "MfadGhostExch", &mine[2], &sent[0], &sent[1]));
    mine[3] = mine[0] - mine[1] - mine[2];
    PetscCall(MPIU_Allreduce(mine, most, 4, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCall(MPIU_Allreduce(sent, sum, 2, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
    tall   = most[0];
    telem  = most[1];
    tghost = most[2];
    tother = most[3];
    bytes  = 0.5 * sum[0]; /* PETSc's log counts a message at its sender and at its receiver */
    msgs   = 0.5 * sum[1];
  }
  {
    /* ghost vertices per rank: the elements' vertices this rank does not own */
    PetscInt  nel;
    PetscInt *conn;
    PetscCall(MfadDMPlexGetElements(dm, MFAD_DMPLEX_CELLS, &nel, NULL, &conn, NULL));
    for (PetscInt i = 0; i < 4 * nel; i++)
      if (conn[i] < lo / 3 || conn[i] >= hi / 3) conn[nghost++] = conn[i];
    PetscCall(PetscSortRemoveDupsInt(&nghost, conn));
    PetscCall(PetscFree(conn));
    PetscCall(MPIU_Allreduce(&nghost, &ghost_max, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s ranks %d: %" PetscInt_FMT " tets (%.0f per rank), %" PetscInt_FMT " vertices; build+distribute %.2f s, set-up+first HVP %.3f s\n"
                        "  per HVP (slowest rank, %" PetscInt_FMT " reps): total %.3f ms: elements %.3f ms, ghost exchange %.3f ms, other %.3f ms; "
                        "%.0f ghost messages, %.1f kB sent per HVP (all ranks); ghost vertices max %" PetscInt_FMT " per rank; %.2f M tets/s\n",
                        weak ? "weak" : "strong", size, ntet, (double)ntet / size, nv, (double)tdist, (double)tsetup, reps, 1e3 * (double)tall / reps, 1e3 * (double)telem / reps, 1e3 * (double)tghost / reps,
                        1e3 * (double)tother / reps, (double)msgs / reps, (double)bytes / reps / 1e3, ghost_max, 1e-6 * ntet * reps / (double)tall));
  if (assembled) PetscCall(TimeAssembled(E, X, V, Y, PetscMax(reps, 1), ntet));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&V));
  PetscCall(VecDestroy(&Y));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
