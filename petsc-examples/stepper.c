// SPDX-License-Identifier: BSD-2-Clause
/* The bodies of stepper.h (declared and described there): part of the examples' compiled helper
   library (petsc-examples/CMakeLists.txt). */
#include "stepper.h"

PetscErrorCode SolverCreate(MfadEnergy E, PetscBool use_tao, PetscReal atol, SolverDefaultsFn defaults, Vec X, Solver *S)
{
  MPI_Comm comm;

  PetscFunctionBeginUser;
  PetscCall(MfadEnergyGetComm(E, &comm));
  S->snes = NULL;
  S->tao  = NULL;
  if (use_tao) {
    PetscCall(TaoCreate(comm, &S->tao));
    PetscCall(TaoSetType(S->tao, TAONLS)); /* default: Newton line search, the method exact HVPs are for */
    PetscCall(MfadEnergySetTao(E, S->tao));
    if (defaults) PetscCall(defaults(NULL, S->tao));
    PetscCall(TaoSetSolution(S->tao, X));
    PetscCall(TaoSetFromOptions(S->tao));
  } else {
    KSP     ksp;
    KSPType type;

    PetscCall(SNESCreate(comm, &S->snes));
    PetscCall(MfadEnergySetSNES(E, S->snes));
    /* where mfad's default solver did not apply (a Hessian form chosen, as dynamics does): CG,
       overridden by -ksp_type; the Hessian is symmetric, and positive definite along the path for
       these loads (the mass term helps in dynamics); mfad's Jacobi uses each form's exact diagonal */
    PetscCall(SNESGetKSP(S->snes, &ksp));
    PetscCall(KSPGetType(ksp, &type));
    if (!type) PetscCall(KSPSetType(ksp, KSPCG));
    if (atol > 0) PetscCall(SNESSetTolerances(S->snes, atol, PETSC_DEFAULT, 1e-14, PETSC_DEFAULT, PETSC_DEFAULT));
    if (defaults) PetscCall(defaults(S->snes, NULL));
    PetscCall(SNESSetFromOptions(S->snes));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SolverSolve(Solver *S, Vec X, PetscInt *its, PetscInt *reason, const char **reason_name)
{
  PetscFunctionBeginUser;
  if (S->tao) {
    TaoConvergedReason r;
    PetscCall(TaoSolve(S->tao));
    PetscCall(TaoGetIterationNumber(S->tao, its));
    PetscCall(TaoGetConvergedReason(S->tao, &r));
    *reason      = r;
    *reason_name = TaoConvergedReasons[r];
  } else {
    SNESConvergedReason r;
    PetscCall(SNESSolve(S->snes, NULL, X));
    PetscCall(SNESGetIterationNumber(S->snes, its));
    PetscCall(SNESGetConvergedReason(S->snes, &r));
    *reason      = r;
    *reason_name = SNESConvergedReasons[r];
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SolverGradientFell(Solver *S, PetscReal g0, PetscReal g, PetscBool *fell, char tol[], size_t len)
{
  PetscFunctionBeginUser;
  if (S->tao) {
    PetscReal          gatol, grtol, gttol, f, gn, cn, xd;
    PetscInt           its;
    TaoConvergedReason r;
    PetscCall(TaoGetTolerances(S->tao, &gatol, &grtol, &gttol));
    PetscCall(TaoGetSolutionStatus(S->tao, &its, &f, &gn, &cn, &xd, &r));
    *fell = (PetscBool)(g <= gatol || g <= PetscSqrtReal(gttol) * g0 || g <= PetscSqrtReal(grtol) * PetscAbsReal(f));
    PetscCall(PetscSNPrintf(
        tol, len, "|grad E| <= %.3e (sqrt of -tao_gttol %g of the start's), <= %g (-tao_gatol) or <= %.3e (sqrt of -tao_grtol %g of |E|)",
        (double)(PetscSqrtReal(gttol) * g0), (double)gttol, (double)gatol, (double)(PetscSqrtReal(grtol) * PetscAbsReal(f)), (double)grtol));
  } else {
    PetscReal atol, rtol, stol;
    PetscInt  maxit, maxf;
    PetscCall(SNESGetTolerances(S->snes, &atol, &rtol, &stol, &maxit, &maxf));
    *fell = (PetscBool)(g <= atol || g <= PetscSqrtReal(rtol) * g0);
    PetscCall(PetscSNPrintf(tol, len, "|grad E| <= %.3e (sqrt of -snes_rtol %g of the start's) or <= %g (-snes_atol)",
                            (double)(PetscSqrtReal(rtol) * g0), (double)rtol, (double)atol));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolverDestroy(Solver *S)
{
  PetscFunctionBeginUser;
  PetscCall(SNESDestroy(&S->snes));
  PetscCall(TaoDestroy(&S->tao));
  PetscFunctionReturn(0);
}

PetscErrorCode ImplicitEulerPredict(MfadEnergy E, PetscInt inertia, PetscInt n, const PetscReal mass[], PetscReal dt, const PetscReal vel[], Vec X,
                                    PetscReal xold[], PetscReal xpred[], PetscReal iparam[])
{
  PetscScalar *x;

  PetscFunctionBeginUser;
  PetscCall(VecGetArray(X, &x));
  for (PetscInt l = 0; l < n; l++) {
    iparam[4 * l] = mass[l] / (dt * dt);
    for (int d = 0; d < 3; d++) {
      xold[3 * l + d]       = PetscRealPart(x[3 * l + d]);
      xpred[3 * l + d]      = xold[3 * l + d] + dt * vel[3 * l + d];
      iparam[4 * l + 1 + d] = xpred[3 * l + d];
      x[3 * l + d]          = xpred[3 * l + d];
    }
  }
  PetscCall(VecRestoreArray(X, &x));
  PetscCall(MfadEnergySetTermParams(E, inertia, iparam));
  PetscCall(MfadEnergyApplyFixedValues(E, X));
  PetscFunctionReturn(0);
}

PetscErrorCode ImplicitEulerVelocity(PetscInt n, PetscReal dt, Vec X, const PetscReal xold[], PetscReal vel[])
{
  const PetscScalar *x;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt i = 0; i < 3 * n; i++) vel[i] = (PetscRealPart(x[i]) - xold[i]) / dt;
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscFunctionReturn(0);
}
