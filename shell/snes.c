// SPDX-License-Identifier: BSD-2-Clause
/* SNES glue: function = gradient, objective = energy (line searches), Jacobian = the Hessian forms
   chosen by -mfad_hessian and -mfad_pmat. */
#include "shellimpl.h"

/* An invalid state (an inverted element, E = +inf) stands as a huge finite energy for SNES:
   PETSc's backtracking then fits its polynomial through it and cuts the step by 10 at once,
   where +inf makes it halve the step until finite and then often fail (seen with 3.18 on the
   elastic bar at 200 g: 24 Newton steps to convergence against a line search failure). */
#define MFAD_SNES_INVALID_OBJECTIVE 1e100

/* The last invalid trial point of a SNES solve and its Newton step, kept on the SNES for the word
   at the end of the solve should it fail there: a line search that fails at such a point says only
   DIVERGED_LINE_SEARCH (issue 46: an energy NaN at the first trial point of a basic line search). */
typedef struct {
  Vec      X;
  PetscInt it; /* -1: none in this solve */
} MfadInvalidPoint;

static PetscErrorCode MfadInvalidPointDestroy_Private(void *arg)
{
  MfadInvalidPoint *p = (MfadInvalidPoint *)MfadCtxDestroyArg(arg);

  PetscFunctionBegin;
  PetscCall(VecDestroy(&p->X));
  PetscCall(PetscFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadInvalidPointGet_Private(SNES snes, MfadInvalidPoint **p)
{
  PetscContainer holder;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)snes, "MfadInvalidPoint", (PetscObject *)&holder));
  if (!holder) {
    PetscCall(PetscNew(p));
    (*p)->it = -1;
    PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)snes), &holder));
    PetscCall(PetscContainerSetPointer(holder, *p));
    PetscCall(MfadContainerSetCtxDestroy(holder, MfadInvalidPointDestroy_Private));
    PetscCall(PetscObjectCompose((PetscObject)snes, "MfadInvalidPoint", (PetscObject)holder));
    PetscCall(PetscContainerDestroy(&holder));
  } else PetscCall(PetscContainerGetPointer(holder, (void **)p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadRememberInvalid_Private(PetscObject solver, Vec X)
{
  PetscClassId      id;
  MfadInvalidPoint *p;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetClassId(solver, &id));
  if (id != SNES_CLASSID) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadInvalidPointGet_Private((SNES)solver, &p));
  if (!p->X) PetscCall(VecDuplicate(X, &p->X));
  PetscCall(VecCopy(X, p->X));
  PetscCall(SNESGetIterationNumber((SNES)solver, &p->it));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The end of every SNES solve (a converged-reason view: SNESSolve() calls it before
   -snes_error_if_not_converged's error): a solve that failed in a Newton step that met an invalid
   trial point names the element, which PETSc's reason does not; on stdout whatever the options, as
   -snes_converged_reason is (a failed solve is the user's to read). Then forgotten, so each solve
   starts clean. */
static PetscErrorCode MfadSNESReasonView_Private(SNES snes, void *ctx)
{
  MfadEnergy          E = (MfadEnergy)ctx;
  MfadInvalidPoint   *p;
  SNESConvergedReason reason;
  PetscInt            it;
  char                msg[512];
  const char         *prefix;

  PetscFunctionBegin;
  PetscCall(MfadInvalidPointGet_Private(snes, &p));
  PetscCall(SNESGetConvergedReason(snes, &reason));
  PetscCall(SNESGetIterationNumber(snes, &it));
  if (reason < 0 && p->X && p->it >= 0 &&
      p->it >= it - 1) { /* the failed step's, or the last one's (a step that failed in the line search may count) */
    PetscCall(MfadEnergyDescribeInvalid_Private(E, p->X, msg, sizeof(msg)));
    if (!msg[0]) PetscCall(PetscStrncpy(msg, "every element is finite, but their sum is not (overflow)", sizeof(msg)));
    PetscCall(SNESGetOptionsPrefix(snes, &prefix));
    PetscCall(PetscPrintf(PetscObjectComm((PetscObject)snes),
                          "mfad: %sSNES stopped with %s at Newton step %" PetscInt_FMT ", whose line search met an invalid point: %s\n",
                          prefix ? prefix : "", SNESConvergedReasons[reason], p->it, msg));
  }
  p->it = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An invalid point (an element's energy +inf or NaN). The start of a solve is an error naming the
   term, the element, its vertices and the reason: no step can leave it, and PETSc would say only
   DIVERGED_FUNCTION_DOMAIN at iteration 0. A later one (a line search's trial point) is
   legitimate and backed off from: reported under -info. Collective. */
PetscErrorCode MfadReportInvalid_Private(PetscObject solver, MfadEnergy E, Vec X, PetscBool start)
{
  PetscBool    info = PETSC_FALSE;
  PetscClassId id;
  char         msg[512];

  PetscFunctionBegin;
  PetscCall(PetscObjectGetClassId(solver, &id));
  if (!start) PetscCall(MfadRememberInvalid_Private(solver, X));
  if (!start) PetscCall(PetscInfoEnabled(id, &info));
  if (!start && !info) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadEnergyDescribeInvalid_Private(E, X, msg, sizeof(msg)));
  if (!msg[0]) PetscCall(PetscStrncpy(msg, "every element is finite, but their sum is not (overflow)", sizeof(msg)));
  PetscCheck(!start, PetscObjectComm(solver), PETSC_ERR_ARG_OUTOFRANGE, "mfad: the start point is invalid: %s", msg);
  PetscCall(PetscInfo(solver, "mfad: invalid element at the trial point: %s\n", msg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first evaluation of a SNES solve, at its solution vector (not a direct SNESComputeFunction()) */
static PetscErrorCode MfadSNESAtStart_Private(SNES snes, Vec X, PetscBool *start)
{
  PetscInt it, nfuncs;
  Vec      sol;

  PetscFunctionBegin;
  PetscCall(SNESGetIterationNumber(snes, &it));
  PetscCall(SNESGetNumberFunctionEvals(snes, &nfuncs));
  PetscCall(SNESGetSolution(snes, &sol));
  *start = (PetscBool)(it == 0 && nfuncs == 0 && X == sol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadSNESObjective_Private(SNES snes, Vec X, PetscReal *f, void *ctx)
{
  PetscBool start;

  PetscFunctionBegin;
  PetscCall(MfadEnergyComputeObjective((MfadEnergy)ctx, X, f));
  if (PetscIsInfOrNanReal(*f)) {
    PetscCall(MfadSNESAtStart_Private(snes, X, &start));
    PetscCall(MfadReportInvalid_Private((PetscObject)snes, (MfadEnergy)ctx, X, start));
    PetscCall(PetscInfo(snes, "mfad: objective %g stands for it\n", (double)MFAD_SNES_INVALID_OBJECTIVE));
    *f = MFAD_SNES_INVALID_OBJECTIVE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadSNESFunction_Private(SNES snes, Vec X, Vec F, void *ctx)
{
  MfadEnergy E = (MfadEnergy)ctx;
  PetscBool  bad, start;

  PetscFunctionBegin;
  PetscCall(MfadEnergyComputeGradient(E, X, F));
  PetscCall(MfadEnergyGetDomainError(E, &bad));
  if (bad) {
    PetscCall(MfadSNESAtStart_Private(snes, X, &start));
    PetscCall(MfadReportInvalid_Private((PetscObject)snes, E, X, start));
    PetscCall(SNESSetFunctionDomainError(snes));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mfad_psd_switch: this Newton step's projection (shell/psdswitch.c) */
static PetscErrorCode MfadSNESChooseProjection_Private(SNES snes, MfadEnergy E, Mat P, Vec X)
{
  KSP                ksp;
  KSPConvergedReason kr;
  PetscInt           it;
  PetscReal          gnorm;

  PetscFunctionBegin;
  PetscCall(SNESGetIterationNumber(snes, &it));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPGetConvergedReason(ksp, &kr));
  PetscCall(SNESGetFunctionNorm(snes, &gnorm));
  PetscCall(MfadPSDSwitchStep_Private((PetscObject)snes, E, ksp, P, X, it, gnorm, (PetscBool)(it > 0 && kr < 0)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Dynamic element sets: each term's provider at the point of a Newton step, before its Hessian.
   The step's right-hand side G (SNES's function, TAO's gradient) was computed with the previous
   elements: when they changed it is computed again, so the step is the Newton step of one
   function. (A provider whose elements enter and leave at zero energy, like a barrier at its
   distance d-hat, changes neither.) */
PetscErrorCode MfadEnergyUpdateElementsAtStep_Private(MfadEnergy E, Vec X, Vec G)
{
  PetscBool dynamic;
  PetscInt  before, after;

  PetscFunctionBegin;
  PetscCall(MfadEnergyHasElementsFunction(E, &dynamic));
  if (!dynamic) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadEnergyGetElementsState(E, &before));
  PetscCall(MfadEnergyUpdateElements(E, X));
  PetscCall(MfadEnergyGetElementsState(E, &after));
  if (after != before && G) PetscCall(MfadEnergyComputeGradient(E, X, G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadSNESJacobian_Private(SNES snes, Vec X, Mat J, Mat P, void *ctx)
{
  KSP      ksp;
  PC       pc;
  Vec      F;
  PetscInt it;

  PetscFunctionBegin;
  PetscCall(SNESGetFunction(snes, &F, NULL, NULL));
  PetscCall(MfadEnergyUpdateElementsAtStep_Private((MfadEnergy)ctx, X, F));
  PetscCall(SNESGetIterationNumber(snes, &it));
  if (it == 0) PetscCall(MfadEnergyCheckUntouched_Private((MfadEnergy)ctx)); /* an empty row fails the first linear solve, naming nothing */
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(MfadPCCheckShell_Private(pc, P));
  PetscCall(MfadSNESChooseProjection_Private(snes, (MfadEnergy)ctx, P, X));
  PetscCall(MfadNewtonCGStep_Private(snes, (MfadEnergy)ctx, J, P));
  PetscCall(MfadJacobiansSetPoint_Private(J, P, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetSNES(MfadEnergy E, SNES snes)
{
  Mat             J, P;
  Vec             F;
  MfadHessianType form;
  PetscInt        pform;
  PetscBool       has_objective;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(snes, SNES_CLASSID, 2);
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadSNESSetDefaults_Private(E, snes, &form, &pform));
  PetscCall(MfadEnergyCreateJacobians_Private(E, form, pform, &J, &P));
  PetscCall(MfadEnergyCreateVecs(E, NULL, &F));
  PetscCall(SNESSetFunction(snes, F, MfadSNESFunction_Private, E));
  /* a system (F(x) = 0) has no objective: line searches use |F| */
  PetscCall(MfadEnergyHasObjective(E, &has_objective));
  if (has_objective) PetscCall(SNESSetObjective(snes, MfadSNESObjective_Private, E));
  PetscCall(SNESSetJacobian(snes, J, P, MfadSNESJacobian_Private, E));
  PetscCall(MfadEnergyAttach_Private(E, (PetscObject)snes));
  PetscCall(MfadMonitorSetFromOptions_Private(E, (PetscObject)snes));
  if (has_objective) PetscCall(MfadSNESSetRoundoffTest_Private(snes, E));
  PetscCall(SNESConvergedReasonViewSet(snes, MfadSNESReasonView_Private, E, NULL));
  PetscCall(MfadWarnGaussNewtonTest_Private(E, (PetscObject)snes));
  /* projected, then exact Newton: a failed exact solve sends the next steps back to the projection
     instead of ending the solve */
  {
    MfadPSDProjection psd;
    PetscInt          steps;
    PetscCall(MfadEnergyGetPSDProjection(E, &psd, NULL));
    PetscCall(MfadEnergyGetPSDProjectionSteps(E, &steps));
    if (steps >= 0 && psd != MFAD_PSD_NONE) PetscCall(SNESSetMaxLinearSolveFailures(snes, PETSC_MAX_INT));
  }
  {
    /* every form has its diagonal; a shell has no factorisation: Jacobi unless the user chose a
       preconditioner, by option or in code, before or after SNESSetFromOptions() */
    KSP ksp;
    PC  pc;
    PetscCall(SNESGetKSP(snes, &ksp));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(MfadPCSetDefault_Private(pc, P, PETSC_FALSE));
  }
  PetscCall(VecDestroy(&F));
  PetscCall(MatDestroy(&J));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}
