// SPDX-License-Identifier: BSD-2-Clause
/* TAO glue: objective and gradient in one pass, Hessian = the forms of -mfad_hessian, -mfad_pmat. */
#include "shellimpl.h"
#include <petsc/private/taolinesearchimpl.h> /* the line search's apply, wrapped for the step bound */
#include <petsc/private/matimpl.h>           /* a Hessian without a point, not assembled */
#include <string.h>

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

static PetscErrorCode MfadTaoSetStepBound_Private(Tao tao, MfadEnergy E);

/* TAO's bounded quasi-Newton methods (bqnls, bqnktr, bqnktl) use no Hessian but look at the one they
   were given: they estimate their first active set from its diagonal where MatAssembled() says so,
   and the automatic Hessian, before its first point, answers with its "before the first point"
   error. Before that point it is marked not assembled for them, and they take their fallback (the
   gradient). */
static PetscErrorCode MfadTaoHideUnsetHessian_Private(Tao tao)
{
  Mat         H;
  PetscBool   isauto, qn;
  const char *form;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)tao, &qn, TAOBQNLS, TAOBQNKTR, TAOBQNKTL, ""));
  if (!qn) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(TaoGetHessian(tao, &H, NULL, NULL, NULL));
  if (!H) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadHessianIsAuto_Private(H, &isauto));
  if (!isauto) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadAutoGetFormName_Private(H, &form));
  if (!strcmp(form, "none")) H->assembled = PETSC_FALSE; /* MfadHessianSetPoint() assembles it */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadTaoObjectiveGradient_Private(Tao tao, Vec X, PetscReal *f, Vec G, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(MfadTaoSetStepBound_Private(tao, (MfadEnergy)ctx)); /* every method evaluates one before its first line search */
  PetscCall(MfadTaoHideUnsetHessian_Private(tao));
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

/* -mfad_step_bound for every TAO method with a line search (nls, bnls, lmvm, blmvm, cg, bncg, ...):
   TaoLineSearch has no pre-check, so its apply is wrapped. Before the line search along the
   direction S (the step being X + t S) its first trial step is cut to 0.8 of the first wall along
   it and to the contact bound (MfadEnergyComputeStepCut_Private()), and restored after, so that a
   method's own first step (blmvm's, bncg's) stands where nothing limits it. Its largest step has
   no setter that More-Thuente keeps: it may still extrapolate past the wall, where the energy's
   +inf backs it off. */
typedef struct {
  MfadEnergy E;                                                       /* borrowed: the Tao holds E */
  Tao        tao;                                                     /* borrowed: the line search is the Tao's */
  PetscErrorCode (*apply)(TaoLineSearch, Vec, PetscReal *, Vec, Vec); /* the line search's own */
  Vec              W;                                                 /* the nonmonotone trial point (nls) */
  MfadEnergyMemory mem;                                               /* E at the last points (nls) */
  PetscInt         last_it;                                           /* the Tao's iteration at the last search */
  PetscInt         dec_it;                                            /* the iteration of the last search that looked at the decrement */
  PetscBool        decrement; /* nls: this iteration's Newton step predicted a decrease below -mfad_decrement_rtol |E| */
} MfadTaoStepBound;

static PetscErrorCode MfadTaoStepBoundDestroy_Private(void *arg)
{
  MfadTaoStepBound *b = (MfadTaoStepBound *)MfadCtxDestroyArg(arg);

  PetscFunctionBegin;
  PetscCall(VecDestroy(&b->W));
  PetscCall(PetscFree(b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadTaoStepBoundGet_Private(TaoLineSearch ls, MfadTaoStepBound **b)
{
  PetscContainer holder;

  PetscFunctionBegin;
  *b = NULL;
  PetscCall(PetscObjectQuery((PetscObject)ls, "MfadTaoStepBound", (PetscObject *)&holder));
  if (holder) PetscCall(PetscContainerGetPointer(holder, (void **)b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadTaoLineSearchApply_Private(TaoLineSearch ls, Vec X, PetscReal *f, Vec G, Vec S)
{
  MfadTaoStepBound *b;
  PetscBool         bound;
  PetscReal         cut = 1, f0 = *f, initstep = ls->initstep;
  PetscScalar       gs = 0;
  PetscInt          M  = 1;
  PetscBool         nls;
  PetscReal         rtol = 0;

  PetscFunctionBegin;
  PetscCall(MfadTaoStepBoundGet_Private(ls, &b));
  PetscCall(MfadEnergyGetStepBound(b->E, &bound));
  if (bound) {
    PetscCall(VecScale(S, -1)); /* the step cut's convention: the step X - Y (exact: a sign) */
    PetscCall(MfadEnergyComputeStepCut_Private(b->E, (PetscObject)b->tao, X, S, &cut));
    PetscCall(VecScale(S, -1));
  }
  ls->initstep = PetscMin(initstep, cut);
  PetscCall(PetscObjectTypeCompare((PetscObject)b->tao, TAONLS, &nls));
  if (nls) PetscCall(MfadEnergyGetNonmonotoneMemory_Private(b->E, &M));
  if (nls) PetscCall(MfadEnergyGetDecrementTolerance(b->E, &rtol));
  if (cut < 1 || M > 1 || rtol > 0) PetscCall(VecDot(G, S, &gs)); /* for the tests below: only where they apply */
  b->decrement = PETSC_FALSE;
  if (rtol > 0) {
    /* -mfad_decrement_rtol: the first search of an iteration follows nls's Newton step, S = -H^-1 G
       when its linear solve converged; a later one is a fall-back direction's (BFGS, gradient) */
    PetscInt           it;
    KSP                ksp;
    KSPConvergedReason kr = KSP_DIVERGED_ITS;
    PetscCall(TaoGetIterationNumber(b->tao, &it));
    PetscCall(TaoGetKSP(b->tao, &ksp));
    if (ksp) PetscCall(KSPGetConvergedReason(ksp, &kr));
    b->decrement = (PetscBool)(it != b->dec_it && kr > 0 && PetscRealPart(gs) < 0 && -0.5 * PetscRealPart(gs) <= rtol * PetscAbsReal(f0));
    b->dec_it    = it;
  }
  if (M > 1) {
    PetscInt  it;
    PetscReal ref, fw;

    PetscCall(TaoGetIterationNumber(b->tao, &it));
    if (it <= b->last_it) b->mem.n = 0; /* a new solve */
    b->last_it = it;
    PetscCall(MfadEnergyMemoryPush_Private(&b->mem, M, f0, &ref));
    if (PetscRealPart(gs) < 0 && cut >= 1) { /* the full step: not one cut short of a wall */
      PetscReal t = ls->initstep;
      if (!b->W) PetscCall(VecDuplicate(X, &b->W));
      PetscCall(VecWAXPY(b->W, t, S, X));
      PetscCall(MfadEnergyComputeObjective(b->E, b->W, &fw));
      /* only a step the line search would refuse: where it would take it, it may also go beyond */
      if (!PetscIsInfOrNanReal(fw) && fw <= ref + ls->ftol * t * PetscRealPart(gs) && fw > f0 + ls->ftol * t * PetscRealPart(gs)) {
        PetscCall(PetscInfo(b->tao, "mfad: nonmonotone full step: E %g above %g, below the last %" PetscInt_FMT " points' %g\n", (double)fw,
                            (double)f0, M, (double)ref));
        PetscCall(VecCopy(b->W, X));
        PetscCall(TaoLineSearchComputeObjectiveAndGradient(ls, X, f, G));
        ls->step = t, ls->reason = TAOLINESEARCH_SUCCESS, ls->initstep = initstep;
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
  }
  PetscCall((*b->apply)(ls, X, f, G, S));
  ls->initstep = initstep;
  /* with a wall within the step, the point of More-Thuente's curvature condition may lie past it:
     its Armijo point is a step (as a backtracking search would take it), not a failure after
     which the method throws the decrease away (lmvm on param's Tutte start: DIVERGED_LS_FAILURE at
     step 13, the search having gone past the wall, met +inf and halted at 0.8 of the wall) */
  if (cut < 1 && ls->step > 0 && PetscRealPart(gs) < 0 && *f <= f0 + ls->ftol * ls->step * PetscRealPart(gs) &&
      (ls->reason == TAOLINESEARCH_HALTED_OTHER || ls->reason == TAOLINESEARCH_HALTED_UPPERBOUND || ls->reason == TAOLINESEARCH_HALTED_RTOL ||
       ls->reason == TAOLINESEARCH_HALTED_MAXFCN)) {
    PetscCall(PetscInfo(b->tao, "mfad: line search halted (%d) at a step %g with sufficient decrease short of a wall: taken\n", (int)ls->reason,
                        (double)ls->step));
    ls->reason = TAOLINESEARCH_SUCCESS;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Wraps the Tao's line search (again where TaoLineSearchSetType() replaced it since) */
static PetscErrorCode MfadTaoSetStepBound_Private(Tao tao, MfadEnergy E)
{
  TaoLineSearch     ls;
  PetscContainer    holder;
  MfadTaoStepBound *b;

  PetscBool bound, nls;
  PetscInt  M    = 1;
  PetscReal rtol = 0;

  PetscFunctionBegin;
  PetscCall(MfadEnergyGetStepBound(E, &bound));
  PetscCall(PetscObjectTypeCompare((PetscObject)tao, TAONLS, &nls));
  if (nls) PetscCall(MfadEnergyGetNonmonotoneMemory_Private(E, &M));
  if (nls) PetscCall(MfadEnergyGetDecrementTolerance(E, &rtol));
  PetscCall(TaoGetLineSearch(tao, &ls));
  if (!(bound || M > 1 || rtol > 0) || !ls || !ls->ops->apply || ls->ops->apply == MfadTaoLineSearchApply_Private) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadTaoStepBoundGet_Private(ls, &b));
  if (!b) {
    PetscCall(PetscNew(&b));
    b->last_it = PETSC_MAX_INT;
    b->dec_it  = -1;
    PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)ls), &holder));
    PetscCall(PetscContainerSetPointer(holder, b));
    PetscCall(MfadContainerSetCtxDestroy(holder, MfadTaoStepBoundDestroy_Private));
    PetscCall(PetscObjectCompose((PetscObject)ls, "MfadTaoStepBound", (PetscObject)holder));
    PetscCall(PetscContainerDestroy(&holder));
  }
  b->E = E, b->tao = tao, b->apply = ls->ops->apply;
  ls->ops->apply = MfadTaoLineSearchApply_Private;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* TAO's default convergence test, and -mfad_decrement_rtol (nls): converged after an iteration
   whose Newton step predicted a decrease below rtol |E| (MfadTaoLineSearchApply_Private()) and
   whose line search went through */
static PetscErrorCode MfadTaoConverged_Private(Tao tao, void *ctx)
{
  TaoConvergedReason reason;
  TaoLineSearch      ls;
  MfadTaoStepBound  *b = NULL;
  PetscInt           it;

  PetscFunctionBegin;
  (void)ctx;
  PetscCall(TaoDefaultConvergenceTest(tao, NULL));
  PetscCall(TaoGetConvergedReason(tao, &reason));
  PetscCall(TaoGetLineSearch(tao, &ls));
  if (ls) PetscCall(MfadTaoStepBoundGet_Private(ls, &b));
  if (!b) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(TaoGetIterationNumber(tao, &it));
  if (it == 0) b->dec_it = -1; /* a new solve */
  if (it > 0 && reason == TAO_CONTINUE_ITERATING && b->decrement &&
      (ls->reason == TAOLINESEARCH_SUCCESS || ls->reason == TAOLINESEARCH_SUCCESS_USER)) {
    PetscCall(PetscInfo(tao, "mfad: the Newton step predicted a decrease below -mfad_decrement_rtol |E|: converged\n"));
    PetscCall(TaoSetConvergedReason(tao, TAO_CONVERGED_USER));
  }
  b->decrement = PETSC_FALSE;
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
  PetscCall(TaoSetConvergenceTest(tao, MfadTaoConverged_Private, E)); /* TAO's own test, and -mfad_decrement_rtol */
  PetscCall(MfadEnergyAttach_Private(E, (PetscObject)tao));
  PetscCall(MfadMonitorSetFromOptions_Private(E, (PetscObject)tao));
  PetscCall(MfadWarnGaussNewtonTest_Private(E, (PetscObject)tao));
  PetscCall(MatDestroy(&H));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}
