// SPDX-License-Identifier: BSD-2-Clause
/* TAO glue: objective and gradient in one pass, Hessian = the forms of -mfad_hessian, -mfad_pmat. */
#include "shellimpl.h"

/* An invalid point: an error at the first evaluation of a solve, -info lines later
   (MfadReportInvalid_Private()); TAO itself would stop with "Inf or NaN" and no element named */
static PetscErrorCode MfadTaoCheckValid_Private(Tao tao, MfadEnergy E, Vec X, PetscReal f)
{
  PetscInt it, nfuncs;
  Vec      sol;

  PetscFunctionBegin;
  if (!PetscIsInfOrNanReal(f)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(TaoGetIterationNumber(tao, &it));
  PetscCall(TaoGetCurrentFunctionEvaluations(tao, &nfuncs));
  PetscCall(TaoGetSolution(tao, &sol));
  PetscCall(MfadReportInvalid_Private((PetscObject)tao, E, X, (PetscBool)(it == 0 && nfuncs == 0 && X == sol)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadTaoObjective_Private(Tao tao, Vec X, PetscReal *f, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyComputeObjective((MfadEnergy)ctx, X, f));
  PetscCall(MfadTaoCheckValid_Private(tao, (MfadEnergy)ctx, X, *f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadTaoObjectiveGradient_Private(Tao tao, Vec X, PetscReal *f, Vec G, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyComputeObjectiveGradient((MfadEnergy)ctx, X, f, G));
  PetscCall(MfadTaoCheckValid_Private(tao, (MfadEnergy)ctx, X, *f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* TAO's Newton methods create their KSP in TaoSetFromOptions(), whose PC gets PETSc's placeholder
   type (ILU or block Jacobi) before the Hessian exists: neither can factor a shell, so Jacobi
   instead, unless the user chose a preconditioner (by option or in code); a choice that needs
   matrix entries on a shell is an error that says so. */
static PetscErrorCode MfadTaoDefaultPC_Private(Tao tao, Mat P)
{
  KSP ksp;
  PC  pc;

  PetscFunctionBegin;
  PetscCall(TaoGetKSP(tao, &ksp));
  if (!ksp) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(MfadPCSetDefault_Private(pc, P, PETSC_TRUE));
  PetscCall(MfadPCCheckShell_Private(pc, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mfad_psd_switch: this Newton step's projection, as for SNES (TAO's Newton methods ask for one
   Hessian per iteration; shell/psdswitch.c) */
static PetscErrorCode MfadTaoChooseProjection_Private(Tao tao, MfadEnergy E, Mat P, Vec X)
{
  KSP                ksp;
  KSPConvergedReason kr = KSP_CONVERGED_ITERATING;
  PetscInt           it;
  PetscReal          gnorm;

  PetscFunctionBegin;
  PetscCall(TaoGetIterationNumber(tao, &it));
  PetscCall(TaoGetKSP(tao, &ksp));
  if (ksp) PetscCall(KSPGetConvergedReason(ksp, &kr));
  PetscCall(TaoGetSolutionStatus(tao, NULL, NULL, &gnorm, NULL, NULL, NULL));
  PetscCall(MfadPSDSwitchStep_Private((PetscObject)tao, E, ksp, P, X, it, gnorm, (PetscBool)(it > 0 && kr < 0)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mfad_step_bound for TAO's nls: after the Newton step's linear solve (a KSP post-solve, the step
   being X - t Y), the line search's first trial step is cut to 0.8 of the first wall along it and to
   the contact bound (TaoLineSearchSetInitialStepLength(); nls keeps no initial step of its own, so
   it is set at every step, 1 where nothing limits it). TAO's line search has no pre-check, and its
   largest step has no setter: More-Thuente may still extrapolate past the wall, where the energy's
   +inf backs it off. Where nls takes another direction than the Newton step (a gradient step),
   the cut applies to it too: a shorter first trial, never a longer one. */
static PetscErrorCode MfadTaoStepBoundPostSolve_Private(KSP ksp, Vec b, Vec Y, void *ctx)
{
  Tao            tao = (Tao)ctx;
  MfadEnergy     E;
  TaoLineSearch  ls;
  Vec            X;
  PetscReal      cut;

  PetscFunctionBegin;
  (void)ksp, (void)b;
  PetscCall(MfadEnergyQueryAttached_Private((PetscObject)tao, &E));
  PetscCall(TaoGetSolution(tao, &X));
  PetscCall(MfadEnergyComputeStepCut_Private(E, (PetscObject)tao, X, Y, &cut));
  PetscCall(TaoGetLineSearch(tao, &ls));
  PetscCall(TaoLineSearchSetInitialStepLength(ls, cut));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadTaoSetStepBound_Private(Tao tao, MfadEnergy E)
{
  PetscBool bound, nls;
  KSP       ksp;

  PetscFunctionBegin;
  PetscCall(MfadEnergyGetStepBound(E, &bound));
  PetscCall(PetscObjectTypeCompare((PetscObject)tao, TAONLS, &nls));
  PetscCall(TaoGetKSP(tao, &ksp));
  if (bound && nls && ksp) PetscCall(KSPSetPostSolve(ksp, MfadTaoStepBoundPostSolve_Private, tao));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadTaoHessian_Private(Tao tao, Vec X, Mat H, Mat P, void *ctx)
{
  Vec      G;
  PetscInt it;

  PetscFunctionBegin;
  PetscCall(TaoGetGradient(tao, &G, NULL, NULL));
  PetscCall(MfadEnergyUpdateElementsAtStep_Private((MfadEnergy)ctx, X, G));
  PetscCall(TaoGetIterationNumber(tao, &it));
  if (it == 0) PetscCall(MfadEnergyCheckUntouched_Private((MfadEnergy)ctx)); /* an empty row fails the first linear solve, naming nothing */
  PetscCall(MfadTaoDefaultPC_Private(tao, P));
  PetscCall(MfadTaoChooseProjection_Private(tao, (MfadEnergy)ctx, P, X));
  PetscCall(MfadTaoSetStepBound_Private(tao, (MfadEnergy)ctx));
  PetscCall(MfadJacobiansSetPoint_Private(H, P, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetTao(MfadEnergy E, Tao tao)
{
  Mat             H, P;
  MfadHessianType form;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 2);
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadTaoSetDefaults_Private(E, tao, &form));
  PetscCall(MfadEnergyCreateJacobians_Private(E, form, -1, &H, &P));
  PetscCall(TaoSetObjective(tao, MfadTaoObjective_Private, E));
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, MfadTaoObjectiveGradient_Private, E));
  PetscCall(TaoSetHessian(tao, H, P, MfadTaoHessian_Private, E));
  PetscCall(MfadEnergyAttach_Private(E, (PetscObject)tao));
  PetscCall(MfadMonitorSetFromOptions_Private(E, (PetscObject)tao));
  PetscCall(MfadWarnGaussNewtonTest_Private(E, (PetscObject)tao));
  PetscCall(MatDestroy(&H));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}
