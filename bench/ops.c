// SPDX-License-Identifier: BSD-2-Clause
static const char help[] = "mfad operations benchmark on one workload (bench/run.py drives it): gradient, fused HVP\n"
                           "(MATSHELL MatMult), cached HVP (+ cache build), assembled SpMV (+ assembly), the hand-written\n"
                           "gradient and HVP through the same loops, and PETSc's MatMFFD product with mfad's gradient as\n"
                           "its function (time and error against the exact HVP). Medians, min and max of -reps after a\n"
                           "warm-up, printed as 'RESULT <op> <elements> <median s> <min s> <max s>' lines.\n"
                           "  -workload neohookean|cloth|dirichlet  -n <20> -m <42> (see workloads.h)\n"
                           "  -reps <7>  -threads <1> (mfad's OpenMP threads; ranks from mpiexec)\n"
                           "  -check: verify only (hand-written vs mfad and cached/assembled vs fused to 1e-10 relative,\n"
                           "          MatMFFD error below 1e-4), no timing; exits with an error otherwise\n"
                           "  -dump <file>: (1 rank) write mesh, parameters, x, v, mfad's gradient and HVP for bench/peers\n"
                           "  -skip_forms, -skip_mffd: leave those operations out\n"
                           "  -count: one gradient and one HVP each of mfad and the hand-written kernel, in the functions\n"
                           "          CountMfadGradient, CountMfadHVP, CountHandGradient, CountHandHVP (for callgrind), then exit\n";
#include "hand.h"
#include "workloads.h"
#include <mfadpetsc.h>
#include <petsctime.h>
#include <stdio.h>

typedef enum { OP_GRAD, OP_HVP_SHELL, OP_CACHE_BUILD, OP_HVP_CACHED, OP_ASSEMBLE, OP_SPMV, OP_MFFD } Op;

typedef struct {
  MfadEnergy E;
  Vec        X[2], V, Y; /* two copies of the point: builds alternate, so each recomputes */
  Mat        H, A, J;    /* shell, assembled, MatMFFD */
} Bench;

static int CompareDouble(const void *a, const void *b) { return (*(const double *)a > *(const double *)b) - (*(const double *)a < *(const double *)b); }

static PetscErrorCode RunOp(Bench *b, Op op, PetscInt r)
{
  Vec Xr = b->X[(r + 2) % 2];

  PetscFunctionBeginUser;
  switch (op) {
  case OP_GRAD:
    PetscCall(MfadEnergyComputeGradient(b->E, b->X[0], b->Y));
    break;
  case OP_HVP_SHELL:
    PetscCall(MatMult(b->H, b->V, b->Y));
    break;
  case OP_CACHE_BUILD:
    PetscCall(MfadEnergyComputeHessianCache(b->E, Xr));
    break;
  case OP_HVP_CACHED:
    PetscCall(MfadEnergyCachedHessianProduct(b->E, b->X[0], b->V, b->Y));
    break;
  case OP_ASSEMBLE:
    PetscCall(MfadEnergyComputeHessian(b->E, Xr, b->A));
    break;
  case OP_SPMV:
    PetscCall(MatMult(b->A, b->V, b->Y));
    break;
  case OP_MFFD:
    PetscCall(MatMult(b->J, b->V, b->Y));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one warm-up, then reps timed runs between barriers (the slowest rank's time) */
static PetscErrorCode TimeOp(Bench *b, Op op, PetscInt reps, const char *name, PetscInt nelem)
{
  double   t[64], t0, t1;
  MPI_Comm comm = PetscObjectComm((PetscObject)b->Y);

  PetscFunctionBeginUser;
  reps = PetscMin(reps, 64);
  for (PetscInt r = -1; r < reps; r++) {
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t0));
    PetscCall(RunOp(b, op, r));
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t1));
    if (r >= 0) t[r] = t1 - t0;
  }
  qsort(t, reps, sizeof(double), CompareDouble);
  PetscCall(PetscPrintf(comm, "RESULT %s %" PetscInt_FMT " %.6e %.6e %.6e\n", name, nelem, t[reps / 2], t[0], t[reps - 1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* |a - b| / |b| (2-norms) */
static PetscErrorCode RelErr(Vec a, Vec b, PetscReal *err)
{
  Vec       d;
  PetscReal nd, nb;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, b, a));
  PetscCall(VecNorm(d, NORM_2, &nd));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *err = nd / nb;
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* this rank's share of the mesh as an energy with kernel k; X gets the mesh's point */
static PetscErrorCode BenchCreateEnergy(MPI_Comm comm, const Mesh *M, MfadKernel k, PetscInt threads, MfadEnergy *E, Vec *X)
{
  PetscMPIInt rank, size;
  PetscInt    e0, e1, lo, hi;
  PetscScalar *x;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  e0 = M->nelem * rank / size;
  e1 = M->nelem * (rank + 1) / size;
  PetscCall(MfadEnergyCreate(comm, M->dof, PETSC_DECIDE, M->nvert, E));
  PetscCall(MfadEnergyAddTerm(*E, k, e1 - e0, M->conn + M->nv * e0, M->params + M->np * e0, 1.0, NULL));
  PetscCall(MfadEnergySetFromOptions(*E));
  PetscCall(MfadEnergySetNumThreads(*E, threads));
  PetscCall(MfadEnergySetUp(*E));
  if (X) {
    PetscCall(MfadEnergyCreateVecs(*E, X, NULL));
    PetscCall(VecGetOwnershipRange(*X, &lo, &hi));
    PetscCall(VecGetArray(*X, &x));
    for (PetscInt i = lo; i < hi; i++) x[i - lo] = M->x[i];
    PetscCall(VecRestoreArray(*X, &x));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MFFDGradient(void *ctx, Vec X, Vec G)
{
  PetscFunctionBeginUser;
  PetscCall(MfadEnergyComputeGradient((MfadEnergy)ctx, X, G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the peers' input: int64 header {1, workload, nelem, nv, dof, np, nvert, 0}, int64 conn, then
   doubles: params, x, v, mfad's gradient, mfad's HVP */
static PetscErrorCode Dump(const char *file, const Mesh *M, Vec V, Vec G, Vec HV)
{
  FILE              *fp;
  const PetscScalar *a;
  int64_t            hdr[8] = {1, M->wl, M->nelem, M->nv, M->dof, M->np, M->nvert, 0}, *conn;
  Vec                vs[3]  = {V, G, HV};
  size_t             nw     = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(M->nelem * M->nv, &conn));
  for (PetscInt i = 0; i < M->nelem * M->nv; i++) conn[i] = M->conn[i];
  fp = fopen(file, "wb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open %s for writing", file);
  nw += fwrite(hdr, sizeof(int64_t), 8, fp);
  nw += fwrite(conn, sizeof(int64_t), M->nelem * M->nv, fp);
  nw += fwrite(M->params, sizeof(double), M->nelem * M->np, fp);
  nw += fwrite(M->x, sizeof(double), M->nvert * M->dof, fp);
  for (int i = 0; i < 3; i++) {
    PetscCall(VecGetArrayRead(vs[i], &a));
    nw += fwrite(a, sizeof(double), M->nvert * M->dof, fp);
    PetscCall(VecRestoreArrayRead(vs[i], &a));
  }
  PetscCheck(fclose(fp) == 0 && nw == (size_t)(8 + M->nelem * (M->nv + M->np) + 4 * M->nvert * M->dof), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "short write to %s", file);
  PetscCall(PetscFree(conn));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one operation each, never inlined nor merged (identical bodies would be folded into one name): callgrind's --toggle-collect names them (bench/run.py) */
static __attribute__((noinline, noipa)) PetscErrorCode CountMfadGradient(MfadEnergy E, Vec X, Vec Y) { return MfadEnergyComputeGradient(E, X, Y); }
static __attribute__((noinline, noipa)) PetscErrorCode CountMfadHVP(MfadEnergy E, Vec X, Vec V, Vec Y) { return MfadEnergyComputeHessianProduct(E, X, V, Y); }
static __attribute__((noinline, noipa)) PetscErrorCode CountHandGradient(MfadEnergy E, Vec X, Vec Y) { return MfadEnergyComputeGradient(E, X, Y); }
static __attribute__((noinline, noipa)) PetscErrorCode CountHandHVP(MfadEnergy E, Vec X, Vec V, Vec Y) { return MfadEnergyComputeHessianProduct(E, X, V, Y); }

int main(int argc, char **argv)
{
  PetscInt    n = 20, m = 42, reps = 7, threads = 1, wl = WL_NEOHOOKEAN;
  PetscBool   count = PETSC_FALSE, check = PETSC_FALSE, skip_forms = PETSC_FALSE, skip_mffd = PETSC_FALSE, dump;
  char        dumpfile[PETSC_MAX_PATH_LEN];
  const PetscReal tol = 1e-10, mffd_errs[3] = {0, 1e-6, 1e-10}; /* 0: PETSc's default (sqrt of eps) */
  Mesh        M;
  Bench       b;
  MfadKernel  hand = NULL;
  Vec         Yexact, Gexact, Yc;
  PetscReal   err;
  MPI_Comm    comm;
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscOptionsBegin(comm, NULL, "mfad operations benchmark", NULL);
  PetscCall(PetscOptionsEList("-workload", "neohookean, cloth or dirichlet", NULL, WorkloadNames, 3, WorkloadNames[wl], &wl, NULL));
  PetscCall(PetscOptionsInt("-n", "size (see workloads.h)", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-m", "cubes along (neohookean)", NULL, m, &m, NULL));
  PetscCall(PetscOptionsInt("-reps", "timed repetitions", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsInt("-threads", "mfad's OpenMP threads", NULL, threads, &threads, NULL));
  PetscCall(PetscOptionsBool("-check", "verify, do not time", NULL, check, &check, NULL));
  PetscCall(PetscOptionsBool("-count", "one of each operation for callgrind", NULL, count, &count, NULL));
  PetscCall(PetscOptionsBool("-skip_forms", "no cached or assembled Hessian", NULL, skip_forms, &skip_forms, NULL));
  PetscCall(PetscOptionsBool("-skip_mffd", "no MatMFFD", NULL, skip_mffd, &skip_mffd, NULL));
  PetscCall(PetscOptionsString("-dump", "file for the Python peers", NULL, dumpfile, dumpfile, sizeof(dumpfile), &dump));
  PetscOptionsEnd();
  PetscCheck(!dump || size == 1, comm, PETSC_ERR_SUP, "-dump needs one rank");
  PetscCall(PetscMemzero(&b, sizeof(b)));
  PetscCall(MeshCreate((Workload)wl, n, m, &M));
  if (wl == WL_NEOHOOKEAN) hand = &BenchKernel_neohookean_tet_hand;
  if (wl == WL_CLOTH) hand = &BenchKernel_mass_spring_hand;

  PetscCall(BenchCreateEnergy(comm, &M, M.k, threads, &b.E, &b.X[0]));
  PetscCall(VecDuplicate(b.X[0], &b.X[1]));
  PetscCall(VecCopy(b.X[0], b.X[1]));
  PetscCall(VecDuplicate(b.X[0], &b.V));
  PetscCall(VecDuplicate(b.X[0], &b.Y));
  PetscCall(VecDuplicate(b.X[0], &Yexact));
  PetscCall(VecDuplicate(b.X[0], &Gexact));
  PetscCall(VecDuplicate(b.X[0], &Yc));
  { /* a deterministic direction, the same for any number of ranks */
    PetscInt     lo, hi;
    PetscScalar *v;
    PetscCall(VecGetOwnershipRange(b.V, &lo, &hi));
    PetscCall(VecGetArray(b.V, &v));
    for (PetscInt i = lo; i < hi; i++) v[i - lo] = PetscSinReal(0.37 * i + 1.0);
    PetscCall(VecRestoreArray(b.V, &v));
  }
  PetscCall(MfadEnergyCreateHessianShell(b.E, &b.H));
  PetscCall(MfadHessianShellSetPoint(b.H, b.X[0]));
  PetscCall(MatMult(b.H, b.V, Yexact));
  PetscCall(MfadEnergyComputeGradient(b.E, b.X[0], Gexact));
  PetscCall(PetscPrintf(comm, "INFO workload %s elements %" PetscInt_FMT " vertices %" PetscInt_FMT " ranks %d threads %" PetscInt_FMT "\n", WorkloadNames[wl], M.nelem, M.nvert, size, threads));
  if (dump) PetscCall(Dump(dumpfile, &M, b.V, Gexact, Yexact));
  if (count) { /* the energies are set up and warm: only the operations are counted */
    MfadEnergy Eh = NULL;
    PetscCall(CountMfadGradient(b.E, b.X[0], b.Y));
    PetscCall(CountMfadHVP(b.E, b.X[0], b.V, b.Y));
    if (hand) {
      PetscCall(BenchCreateEnergy(comm, &M, hand, threads, &Eh, NULL));
      PetscCall(MfadEnergyComputeGradient(Eh, b.X[0], b.Y)); /* warm, as the mfad energy is */
      PetscCall(CountHandGradient(Eh, b.X[0], b.Y));
      PetscCall(CountHandHVP(Eh, b.X[0], b.V, b.Y));
      PetscCall(MfadEnergyDestroy(&Eh));
    }
    skip_forms = skip_mffd = check = PETSC_TRUE;
    hand       = NULL;
  }

  if (!check) {
    PetscCall(TimeOp(&b, OP_GRAD, reps, "gradient", M.nelem));
    PetscCall(TimeOp(&b, OP_HVP_SHELL, reps, "hvp_shell", M.nelem));
  }
  if (!skip_forms) {
    MatInfo info;
    PetscCall(MfadEnergyCreateMatrix(b.E, &b.A));
    PetscCall(MfadEnergyComputeHessian(b.E, b.X[0], b.A));
    PetscCall(MatMult(b.A, b.V, Yc));
    PetscCall(RelErr(Yc, Yexact, &err));
    PetscCall(PetscPrintf(comm, "ERROR hvp_assembled %.3e\n", err));
    PetscCheck(err < tol, comm, PETSC_ERR_PLIB, "assembled SpMV differs from the fused HVP: %g relative (bound %g)", err, tol);
    PetscCall(MfadEnergyCachedHessianProduct(b.E, b.X[0], b.V, Yc));
    PetscCall(RelErr(Yc, Yexact, &err));
    PetscCall(PetscPrintf(comm, "ERROR hvp_cached %.3e\n", err));
    PetscCheck(err < tol, comm, PETSC_ERR_PLIB, "cached HVP differs from the fused HVP: %g relative (bound %g)", err, tol);
    PetscCall(MatGetInfo(b.A, MAT_GLOBAL_SUM, &info));
    PetscCall(PetscPrintf(comm, "INFO nonzeros %.0f\n", info.nz_used));
    if (!check) {
      PetscCall(VecCopy(b.X[1], b.X[0])); /* new object states: nothing stored is reused */
      PetscCall(VecCopy(b.X[0], b.X[1]));
      PetscCall(TimeOp(&b, OP_CACHE_BUILD, reps, "cache_build", M.nelem));
      PetscCall(MfadEnergyComputeHessianCache(b.E, b.X[0]));
      PetscCall(TimeOp(&b, OP_HVP_CACHED, reps, "hvp_cached", M.nelem));
      PetscCall(VecCopy(b.X[1], b.X[0]));
      PetscCall(VecCopy(b.X[0], b.X[1]));
      PetscCall(TimeOp(&b, OP_ASSEMBLE, reps, "assemble", M.nelem));
      PetscCall(TimeOp(&b, OP_SPMV, reps, "spmv", M.nelem));
    }
  }
  if (hand) {
    MfadEnergy Eh = b.E;
    PetscCall(BenchCreateEnergy(comm, &M, hand, threads, &b.E, NULL));
    PetscCall(MfadEnergyComputeGradient(b.E, b.X[0], Yc));
    PetscCall(RelErr(Yc, Gexact, &err));
    PetscCall(PetscPrintf(comm, "ERROR hand_gradient %.3e\n", err));
    PetscCheck(err < tol, comm, PETSC_ERR_PLIB, "hand-written gradient differs from mfad's: %g relative (bound %g)", err, tol);
    PetscCall(MfadEnergyComputeHessianProduct(b.E, b.X[0], b.V, Yc));
    PetscCall(RelErr(Yc, Yexact, &err));
    PetscCall(PetscPrintf(comm, "ERROR hand_hvp %.3e\n", err));
    PetscCheck(err < tol, comm, PETSC_ERR_PLIB, "hand-written HVP differs from mfad's: %g relative (bound %g)", err, tol);
    if (!check) {
      Mat Hm = b.H;
      PetscCall(MfadEnergyCreateHessianShell(b.E, &b.H));
      PetscCall(MfadHessianShellSetPoint(b.H, b.X[0]));
      PetscCall(TimeOp(&b, OP_GRAD, reps, "hand_gradient", M.nelem));
      PetscCall(TimeOp(&b, OP_HVP_SHELL, reps, "hand_hvp", M.nelem));
      PetscCall(MatDestroy(&b.H));
      b.H = Hm;
    }
    PetscCall(MfadEnergyDestroy(&b.E));
    b.E = Eh;
  }
  if (!skip_mffd) {
    PetscInt lo, hi;
    PetscCall(VecGetOwnershipRange(b.X[0], &lo, &hi));
    for (int i = 0; i < 3; i++) {
      char name[32];
      PetscCall(MatCreateMFFD(comm, hi - lo, hi - lo, M.nvert * M.dof, M.nvert * M.dof, &b.J));
      PetscCall(MatMFFDSetFunction(b.J, MFFDGradient, b.E));
      if (mffd_errs[i] > 0) PetscCall(MatMFFDSetFunctionError(b.J, mffd_errs[i]));
      PetscCall(MatSetFromOptions(b.J));
      PetscCall(MatMFFDSetBase(b.J, b.X[0], Gexact)); /* as -snes_mf: the residual at the point is known */
      PetscCall(MatMult(b.J, b.V, Yc));
      PetscCall(RelErr(Yc, Yexact, &err));
      PetscCall(PetscSNPrintf(name, sizeof(name), "mffd_err_%s", i ? (i == 1 ? "1e-6" : "1e-10") : "default"));
      PetscCall(PetscPrintf(comm, "ERROR %s %.3e\n", name, err));
      /* the default step's truncation plus cancellation error is ~sqrt(eps) ~ 1e-8 relative to the
         Hessian's scale; 1e-4 allows for its conditioning on these meshes and still fails a wrong product */
      PetscCheck(i || err < 1e-4, comm, PETSC_ERR_PLIB, "MatMFFD product differs from the exact HVP by %g relative (bound 1e-4)", err);
      if (!check) PetscCall(TimeOp(&b, OP_MFFD, reps, name, M.nelem));
      PetscCall(MatDestroy(&b.J));
    }
  }
  PetscCall(MatDestroy(&b.H));
  PetscCall(MatDestroy(&b.A));
  PetscCall(VecDestroy(&b.X[0]));
  PetscCall(VecDestroy(&b.X[1]));
  PetscCall(VecDestroy(&b.V));
  PetscCall(VecDestroy(&b.Y));
  PetscCall(VecDestroy(&Yexact));
  PetscCall(VecDestroy(&Gexact));
  PetscCall(VecDestroy(&Yc));
  PetscCall(MfadEnergyDestroy(&b.E));
  PetscCall(MeshDestroy(&M));
  PetscCall(PetscFinalize());
  return 0;
}
