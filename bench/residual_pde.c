// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "mfad on a nonlinear system: the P1 advection-diffusion-reaction residual of petsc-examples/advdiff\n"
    "(-div((1 + k u^2) grad u) + b . grad u + c u^3 = f on an n x n grid of squares, 2 triangles each)\n"
    "against PETSc's finite-difference Jacobians of the same F:\n"
    "  (a) the exact assembled Jacobian (MfadEnergyComputeHessian) against the coloured finite-difference\n"
    "      Jacobian on the same pattern (SNESComputeJacobianDefaultColor, as -snes_fd_color): time\n"
    "      and ||J_fd - J||_F / ||J||_F;\n"
    "  (b) the exact JVP (MfadEnergyComputeHessianProduct, dual numbers) against a MatMFFD product (as\n"
    "      -snes_mf): time and the relative error against the assembled J v;\n"
    "  (c) full Newton solves from u = 0 to the same tolerance: the exact assembled Jacobian,\n"
    "      -snes_fd_color, and the two matrix-free operators, exact J v (mfad shell) and -snes_mf_operator,\n"
    "      both preconditioned from the exact assembled J: Newton and linear iterations and time.\n"
    "The point of (a) and (b) is the interpolant of u* plus a seeded perturbation inside.\n"
    "Options:\n"
    "  -n <720>       squares per side (720: 1,036,800 triangles, 519,841 unknowns)\n"
    "  -reps <5>      timed repetitions of (a) and (b) (median; one warm-up first)\n"
    "  -solve <true>  run (c)\n"
    "  -b, -k, -c     the equation's coefficients (defaults 2,1 / 1 / 1, as advdiff)\n"
    "Solves: GMRES + GAMG (built and applied from the exact assembled J, or J_fd: -pc_use_amat false),\n"
    "-ksp_rtol 1e-6 (an FD operator is accurate to ~1e-8: GMRES cannot reduce its residual much\n"
    "further) and SNES's default tolerances unless given; every SNES/KSP/PC option applies to all of\n"
    "them alike. mfad's loops use -mfad_num_threads.\n";
/* Run: build/bench/bench_residual_pde (1 rank; timings of a shared machine: ratios within one run
   are what count). CI runs it small (tests/examples_residual.cmake) as a smoke test. */
#include <petsctime.h>
#include <stdio.h>
#include "advdiffproblem.h" /* problems/: the problem petsc-examples/advdiff solves */

static int CompareDouble(const void *a, const void *b) { return (*(const double *)a > *(const double *)b) - (*(const double *)a < *(const double *)b); }

typedef enum { OP_ASSEMBLE, OP_FD_COLOR, OP_JVP, OP_MFFD, OP_SPMV, OP_FUNCTION } Op;
static const char *const OpNames[] = {"exact Jacobian (assembled)", "FD-coloured Jacobian", "exact JVP", "MatMFFD product", "SpMV with J", "F(u)"};

typedef struct {
  MfadEnergy E;
  SNES       snes; /* carries F for the coloured FD Jacobian */
  Mat        A, Afd, Jmf;
  Vec        X, Xcopy, V, Y, F;
  PetscBool  flip;
} Bench;

static PetscErrorCode Function(SNES snes, Vec X, Vec F, void *ctx)
{
  PetscFunctionBeginUser;
  (void)snes;
  PetscCall(MfadEnergyComputeGradient((MfadEnergy)ctx, X, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MFFDFunction(void *ctx, Vec X, Vec F)
{
  PetscFunctionBeginUser;
  PetscCall(MfadEnergyComputeGradient((MfadEnergy)ctx, X, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunOp(Bench *b, Op op)
{
  PetscFunctionBeginUser;
  switch (op) {
  case OP_ASSEMBLE: /* two copies of the point in turn: mfad keeps the element matrices of an unchanged point */
    b->flip = !b->flip;
    PetscCall(MfadEnergyComputeHessian(b->E, b->flip ? b->Xcopy : b->X, b->A));
    break;
  case OP_FD_COLOR:
    PetscCall(SNESComputeJacobianDefaultColor(b->snes, b->X, b->Afd, b->Afd, NULL));
    break;
  case OP_JVP:
    PetscCall(MfadEnergyComputeHessianProduct(b->E, b->X, b->V, b->Y));
    break;
  case OP_MFFD:
    PetscCall(MatMult(b->Jmf, b->V, b->Y));
    break;
  case OP_SPMV:
    PetscCall(MatMult(b->A, b->V, b->Y));
    break;
  case OP_FUNCTION:
    PetscCall(MfadEnergyComputeGradient(b->E, b->X, b->F));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* median seconds of reps runs after one warm-up */
static PetscErrorCode TimeOp(Bench *b, Op op, PetscInt reps, double *median)
{
  double t[64], t0, t1;

  PetscFunctionBeginUser;
  reps = PetscMax(1, PetscMin(reps, 64));
  for (PetscInt r = -1; r < reps; r++) {
    PetscCall(PetscTime(&t0));
    PetscCall(RunOp(b, op));
    PetscCall(PetscTime(&t1));
    if (r >= 0) t[r] = t1 - t0;
  }
  qsort(t, reps, sizeof(double), CompareDouble);
  *median = t[reps / 2];
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-28s %10.3f ms\n", OpNames[op], 1e3 * *median));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* |A - B|_F / |B|_F; A and B on the same pattern (both from MfadEnergyCreateMatrix()) */
static PetscErrorCode MatRelErr(Mat A, Mat B, PetscReal *err)
{
  Mat       D;
  PetscReal nd, nb;

  PetscFunctionBeginUser;
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
  PetscCall(MatAXPY(D, -1.0, B, SAME_NONZERO_PATTERN));
  PetscCall(MatNorm(D, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(B, NORM_FROBENIUS, &nb));
  *err = nd / nb;
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecRelErr(Vec Y, Vec Yref, PetscReal *err)
{
  Vec       D;
  PetscReal nd, nr;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(Y, &D));
  PetscCall(VecWAXPY(D, -1.0, Yref, Y));
  PetscCall(VecNorm(D, NORM_2, &nd));
  PetscCall(VecNorm(Yref, NORM_2, &nr));
  *err = nd / nr;
  PetscCall(VecDestroy(&D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- (c) Newton solves */
typedef enum { SOLVE_EXACT, SOLVE_FD_COLOR, SOLVE_SHELL, SOLVE_MF_OPERATOR } SolveKind;
static const char *const SolveNames[] = {"exact J (mfad, assembled)", "-snes_fd_color", "exact J v (mfad shell), P = exact J", "-snes_mf_operator, P = exact J"};

typedef struct {
  MfadEnergy E;
  Mat        shell; /* SOLVE_SHELL's operator */
} SolveCtx;

/* J (and P) at X: the exact assembled P; the operator, when another, brought to X */
static PetscErrorCode Jacobian(SNES snes, Vec X, Mat J, Mat P, void *ctx)
{
  SolveCtx *s = (SolveCtx *)ctx;
  PetscBool mffd;

  PetscFunctionBeginUser;
  (void)snes;
  PetscCall(MfadEnergyComputeHessian(s->E, X, P));
  if (J == P) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)J, MATMFFD, &mffd));
  if (mffd) { /* MatAssemblyEnd moves the FD operator's base point to the SNES's current solution */
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  } else PetscCall(MfadHessianShellSetPoint(J, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(AdvDiff *ad, SolveKind kind, double *seconds, PetscInt *its, PetscInt *lits, SNESConvergedReason *reason, PetscReal *l2)
{
  SNES      snes;
  KSP       ksp;
  PC        pc;
  Mat       A, J = NULL;
  Vec       U, F;
  SolveCtx  s = {ad->E, NULL};
  PetscReal linf, unorm;
  double    t0, t1;

  PetscFunctionBeginUser;
  PetscCall(MfadEnergyCreateVecs(ad->E, &U, &F));
  PetscCall(AdvDiffInitialGuess(ad, U));
  PetscCall(MfadEnergyCreateMatrix(ad->E, &A));
  PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  PetscCall(SNESSetFunction(snes, F, Function, ad->E));
  switch (kind) {
  case SOLVE_EXACT:
    PetscCall(SNESSetJacobian(snes, A, A, Jacobian, &s));
    break;
  case SOLVE_FD_COLOR: /* the colouring fills the (zero) pattern of MfadEnergyCreateMatrix() */
    PetscCall(SNESSetJacobian(snes, A, A, SNESComputeJacobianDefaultColor, NULL));
    break;
  case SOLVE_SHELL:
    PetscCall(MfadEnergyCreateHessianShell(ad->E, &J));
    s.shell = J;
    PetscCall(SNESSetJacobian(snes, J, A, Jacobian, &s));
    break;
  case SOLVE_MF_OPERATOR:
    PetscCall(MatCreateSNESMF(snes, &J));
    PetscCall(SNESSetJacobian(snes, J, A, Jacobian, &s));
    break;
  }
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPSetTolerances(ksp, 1e-6, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG)); /* ILU(0) needs ~2,400 GMRES iterations per Newton step at 1M triangles */
  /* the preconditioner from P alone (GAMG's finest-level smoother would otherwise apply the
     operator): each form's operator is applied once per GMRES iteration */
  PetscCall(PCSetUseAmat(pc, PETSC_FALSE));
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(PetscTime(&t0));
  PetscCall(SNESSolve(snes, NULL, U));
  PetscCall(PetscTime(&t1));
  *seconds = t1 - t0;
  PetscCall(SNESGetIterationNumber(snes, its));
  PetscCall(SNESGetLinearSolveIterations(snes, lits));
  PetscCall(SNESGetConvergedReason(snes, reason));
  PetscCall(AdvDiffErrors(ad, U, l2, &linf, &unorm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-36s %9.3f s  newton %2" PetscInt_FMT "  linear %5" PetscInt_FMT "  l2_error %.6e  %s\n", SolveNames[kind], *seconds, *its,
                        *lits, (double)*l2, SNESConvergedReasons[*reason]));
  PetscCall(SNESDestroy(&snes));
  PetscCall(MatDestroy(&J));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&U));
  PetscCall(VecDestroy(&F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm            comm;
  PetscInt            n = 720, reps = 5, ncolors, N;
  PetscBool           solve = PETSC_TRUE;
  AdvDiffCoefficients coef = {{2, 1}, 1, 1};
  AdvDiff             ad;
  Bench               b = {0};
  Vec                 Yref;
  PetscRandom         rnd;
  MatColoring         mc;
  ISColoring          isc;
  double              t_asm, t_fd, t_fd_first, t0, t1, t_jvp, t_mffd, t_spmv, t_f;
  PetscReal           err_fd = 0, err_jvp = 0, err_mffd = 0;
  int                 failed = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "residual_pde options", NULL);
  PetscCall(PetscOptionsInt("-n", "squares per side", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-reps", "timed repetitions", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsBool("-solve", "run the Newton solves", NULL, solve, &solve, NULL));
  PetscOptionsEnd();
  PetscCall(AdvDiffCoefficientsFromOptions(comm, &coef));
  PetscCall(AdvDiffCreate(comm, n, &coef, &ad));
  b.E = ad.E;
  PetscCall(MfadEnergyCreateVecs(b.E, &b.X, &b.F));
  PetscCall(VecGetSize(b.X, &N));
  PetscCall(PetscPrintf(comm, "residual_pde: n %" PetscInt_FMT " triangles %" PetscInt_FMT " unknowns %" PetscInt_FMT " b %g,%g k %g c %g reps %" PetscInt_FMT "\n", n,
                        ad.mesh->ncell, N, (double)coef.b[0], (double)coef.b[1], (double)coef.k, (double)coef.c, reps));

  /* the point: u* inside plus a seeded perturbation (boundary at u*), and a random direction */
  PetscCall(PetscRandomCreate(comm, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -0.1, 0.1));
  PetscCall(PetscRandomSetSeed(rnd, 42));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecDuplicate(b.X, &b.V));
  PetscCall(VecDuplicate(b.X, &b.Y));
  PetscCall(VecDuplicate(b.X, &Yref));
  PetscCall(VecSetRandom(b.X, rnd));
  {
    Vec Ue;
    PetscCall(VecDuplicate(b.X, &Ue));
    PetscCall(AdvDiffInterpolateExact(&ad, Ue));
    PetscCall(VecAXPY(b.X, 1.0, Ue));
    PetscCall(VecDestroy(&Ue));
  }
  PetscCall(MfadEnergyApplyFixedValues(b.E, b.X));
  PetscCall(VecDuplicate(b.X, &b.Xcopy));
  PetscCall(VecCopy(b.X, b.Xcopy));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  PetscCall(VecSetRandom(b.V, rnd));
  PetscCall(PetscRandomDestroy(&rnd));

  /* (a) the Jacobian: exact, assembled; coloured FD on the same pattern */
  PetscCall(PetscPrintf(comm, "(a) Jacobian, median of %" PetscInt_FMT ":\n", reps));
  PetscCall(MfadEnergyCreateMatrix(b.E, &b.A));
  PetscCall(MfadEnergyCreateMatrix(b.E, &b.Afd));
  PetscCall(TimeOp(&b, OP_ASSEMBLE, reps, &t_asm));
  PetscCall(SNESCreate(comm, &b.snes));
  PetscCall(SNESSetFunction(b.snes, b.F, Function, b.E));
  /* as in a Newton step, F at the point is known: the coloured FD reuses the SNES's function
     vector when X is its solution */
  PetscCall(SNESSetSolution(b.snes, b.X));
  PetscCall(MfadEnergyComputeGradient(b.E, b.X, b.F));
  PetscCall(SNESSetFromOptions(b.snes));
  PetscCall(PetscTime(&t0));
  PetscCall(RunOp(&b, OP_FD_COLOR)); /* the first call colours the graph and sets up */
  PetscCall(PetscTime(&t1));
  t_fd_first = t1 - t0;
  PetscCall(TimeOp(&b, OP_FD_COLOR, reps, &t_fd));
  /* the colours SNESComputeJacobianDefaultColor finds: distance-2 smallest-last, as it does */
  PetscCall(MatColoringCreate(b.A, &mc));
  PetscCall(MatColoringSetDistance(mc, 2));
  PetscCall(MatColoringSetType(mc, MATCOLORINGSL));
  PetscCall(MatColoringApply(mc, &isc));
  PetscCall(ISColoringGetColors(isc, NULL, &ncolors, NULL));
  PetscCall(ISColoringDestroy(&isc));
  PetscCall(MatColoringDestroy(&mc));
  PetscCall(MatRelErr(b.Afd, b.A, &err_fd));
  PetscCall(PetscPrintf(comm, "  FD colouring + set-up (first call) %.3f ms, %" PetscInt_FMT " colours: %" PetscInt_FMT " evaluations of F per Jacobian\n", 1e3 * t_fd_first, ncolors,
                        ncolors));
  PetscCall(PetscPrintf(comm, "  ||J_fd - J||_F / ||J||_F = %.3e\n", (double)err_fd));
  PetscCall(TimeOp(&b, OP_FUNCTION, reps, &t_f));

  /* (b) products: the exact JVP and a MatMFFD product, against the assembled J v */
  PetscCall(PetscPrintf(comm, "(b) Jacobian-vector product, median of %" PetscInt_FMT ":\n", reps));
  PetscCall(MatMult(b.A, b.V, Yref));
  PetscCall(TimeOp(&b, OP_SPMV, reps, &t_spmv));
  PetscCall(TimeOp(&b, OP_JVP, reps, &t_jvp));
  PetscCall(VecRelErr(b.Y, Yref, &err_jvp));
  {
    PetscInt n_loc;
    PetscCall(VecGetLocalSize(b.X, &n_loc));
    PetscCall(MatCreateMFFD(comm, n_loc, n_loc, N, N, &b.Jmf));
    PetscCall(MatMFFDSetFunction(b.Jmf, MFFDFunction, b.E));
    PetscCall(MatSetFromOptions(b.Jmf));
    PetscCall(MfadEnergyComputeGradient(b.E, b.X, b.F));
    PetscCall(MatMFFDSetBase(b.Jmf, b.X, b.F)); /* as -snes_mf: F at the point is known */
  }
  PetscCall(TimeOp(&b, OP_MFFD, reps, &t_mffd));
  PetscCall(VecRelErr(b.Y, Yref, &err_mffd));
  PetscCall(PetscPrintf(comm, "  |Jv - J v|/|J v|: exact JVP %.3e, MatMFFD %.3e\n", (double)err_jvp, (double)err_mffd));
  PetscCall(PetscPrintf(comm, "ratios: FD-coloured / exact Jacobian %.2f (first call %.2f); MatMFFD / exact JVP %.2f; exact JVP / SpMV %.2f\n", t_fd / t_asm, t_fd_first / t_asm,
                        t_mffd / t_jvp, t_jvp / t_spmv));
  /* the FD errors are ~sqrt(eps) relative; the exact ones round-off. A bound that fails a wrong
     Jacobian or product (O(1) relative) but not FD noise on a poorly scaled row: 1e-4 */
  if (err_fd > 1e-4 || err_jvp > 1e-12 || err_mffd > 1e-4) {
    PetscCall(PetscFPrintf(comm, PETSC_STDERR, "residual_pde: the exact and FD Jacobians disagree (%g, %g, %g)\n", (double)err_fd, (double)err_jvp, (double)err_mffd));
    failed = 1;
  }

  if (solve) {
    double              ts[4];
    PetscInt            its[4], lits[4];
    SNESConvergedReason reason[4];
    PetscReal           l2[4];
    PetscCall(PetscPrintf(comm, "(c) Newton solves from u = 0 (GMRES, same tolerances):\n"));
    for (int k = 0; k < 4; k++) {
      PetscCall(Solve(&ad, (SolveKind)k, &ts[k], &its[k], &lits[k], &reason[k], &l2[k]));
      if (reason[k] <= 0) failed = 1;
    }
    PetscCall(PetscPrintf(comm, "ratios: time / exact-J solve: fd_color %.2f, mfad shell %.2f, mf_operator %.2f; mf_operator / mfad shell %.2f\n", ts[1] / ts[0], ts[2] / ts[0],
                          ts[3] / ts[0], ts[3] / ts[2]));
    if (failed) PetscCall(PetscFPrintf(comm, PETSC_STDERR, "residual_pde: a solve did not converge\n"));
  }

  PetscCall(SNESDestroy(&b.snes));
  PetscCall(MatDestroy(&b.A));
  PetscCall(MatDestroy(&b.Afd));
  PetscCall(MatDestroy(&b.Jmf));
  PetscCall(VecDestroy(&b.X));
  PetscCall(VecDestroy(&b.Xcopy));
  PetscCall(VecDestroy(&b.V));
  PetscCall(VecDestroy(&b.Y));
  PetscCall(VecDestroy(&b.F));
  PetscCall(VecDestroy(&Yref));
  PetscCall(AdvDiffDestroy(&ad));
  PetscCall(PetscFinalize());
  return failed;
}
