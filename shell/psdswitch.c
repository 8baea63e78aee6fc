// SPDX-License-Identifier: BSD-2-Clause
/* -mfad_psd_switch: each Newton step's Hessian, PSD-projected or exact, for SNES and TAO (steps is
   src/energy.c's MfadEnergyChooseProjection_Private()). inertia, and auto where the solver factors
   with inertia: exact Newton where the exact Hessian is positive definite, projected elsewhere.
   Projected Newton alone converges linearly near the minimum (the per-element projection changes
   the Hessian there too: |g| falls by ~0.88 a step on param's spot_patch) and stalls where the
   energy's decrease sinks below its round-off; exact steps without a test (steps with a direct
   solver, which reports no failure on an indefinite matrix) give ascent directions on which the
   line search fails (elastic on Spot). An exact step is tried when the last step reduced |g| by
   less than a factor 4 (slower than quadratic), or the last exact step went through; the
   factorisation's inertia says whether the exact Hessian is positive definite, and if not the
   projected one is assembled and factored instead for this step, so every step is a descent
   direction. A failed try waits 1, 2, 4, 4 ... steps before the next, or log2(n + 1) after one
   with n negative eigenvalues (at most 4: on a 30k-vertex scan, unbounded doubling left 15
   projected steps at |g| ratio 0.42 before the exact ones that finished it). */
#include "shellimpl.h"
#include <petsc/private/kspimpl.h>        /* the pre-solve set before ours: KSPSetPreSolve() has no getter */
#include <petsc/private/linesearchimpl.h> /* the line search's apply, wrapped for the nonmonotone first trial */
#include <string.h>

/* E's round-off, in units of eps |E|: param's measured floor (a 30k-vertex scan, E = 2.2e6, the
   exact step's decrease hid below it at |g| = 1.2e-7 sqrt(area)) */
#define MFAD_ROUNDOFF_EPS 1e3
/* |g| stagnates when a step lowers it by less than 0.1%: projected Newton's linear convergence is
   progress (|g| falls by ~0.88 a step on spot_jitter, by 0.99 for hundreds of steps for arap on
   sock.obj, their decrease below E's round-off), the tutorial bar's 2.78e-7, 2.78e-7 at its
   gradient's floor is not */
#define MFAD_ROUNDOFF_STAGNANT 0.999

typedef struct {
  MfadEnergy E;        /* borrowed: the solver holds E (MfadEnergyAttach_Private()) */
  KSP        ksp;      /* this step's linear solver, */
  Mat        P;        /* the assembled Hessian it factors, */
  Vec        X;        /* and the point (borrowed from the solver for the step) */
  PetscBool  resolved; /* the solve's first linear solve looked at the factorisation */
  PetscBool  inertia;  /* it reports the inertia: exact steps are tried */
  PetscBool  exact;    /* this step uses the exact Hessian */
  PetscReal  gprev;    /* |g| at the start of the previous step */
  PetscInt   skip, backoff;
  PetscInt   last_it; /* the iteration number of the last step seen (-1: none yet) */
  /* SNES's stop at the energy's round-off (MfadSNESConverged_Private()) */
  PetscBool at_roundoff;   /* the step being taken predicts a decrease below E's round-off */
  PetscReal fprev;         /* |g| after the previous step (-1: none) */
  PetscReal fnorm0;        /* |g| at the solve's start */
  PetscBool roundoff_stop; /* the solve stopped there */
  PetscBool curvature;     /* Newton-CG met negative curvature in this step: no round-off stop */
  PetscBool escape;        /* Newton-CG's step walks along negative curvature */
  PetscBool decrement;     /* the step being taken predicts a decrease below -mfad_decrement_rtol |E| */
  PetscReal cut;           /* SNES: the last step's cut by the walls (1: none) */
  /* SNES's nonmonotone full step (shell/nonmonotone.c) */
  PetscReal        e;                      /* E at the point of the step's pre-check */
  PetscBool        prechecked;             /* the pre-check ran for this step already */
  MfadEnergyMemory mem;                    /* E at the last steps' points */
  PetscErrorCode (*apply)(SNESLineSearch); /* bt's own apply */
  PetscErrorCode (*basic)(SNESLineSearch); /* PETSc's full step */
  /* SNES: the line search's pre-check that was there before ours, run after it */
  PetscErrorCode (*precheck)(SNESLineSearch, Vec, Vec, PetscBool *, void *);
  void *precheck_ctx;
  /* the KSP's pre-solve that was there before ours (PETSc 3.18's Eisenstat-Walker), run first */
  PetscErrorCode (*presolve)(KSP, Vec, Vec, void *);
  void *presolve_ctx;
} MfadPSDSwitchCtx;

static PetscErrorCode MfadPSDSwitchCtxDestroy_Private(void *arg)
{
  void *c = MfadCtxDestroyArg(arg);

  PetscFunctionBegin;
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The switch's state, composed on the SNES or Tao (created at its first step) */
static PetscErrorCode MfadPSDSwitchGetContext_Private(PetscObject solver, MfadEnergy E, MfadPSDSwitchCtx **c)
{
  PetscContainer holder;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery(solver, "MfadPSDSwitch", (PetscObject *)&holder));
  if (holder) {
    PetscCall(PetscContainerGetPointer(holder, (void **)c));
  } else {
    PetscCall(PetscNew(c));
    (*c)->last_it = -1;
    (*c)->fprev   = -1;
    PetscCall(PetscContainerCreate(PetscObjectComm(solver), &holder));
    PetscCall(PetscContainerSetPointer(holder, *c));
    PetscCall(MfadContainerSetCtxDestroy(holder, MfadPSDSwitchCtxDestroy_Private));
    PetscCall(PetscObjectCompose(solver, "MfadPSDSwitch", (PetscObject)holder));
    PetscCall(PetscContainerDestroy(&holder));
  }
  (*c)->E = E;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The PC that factors: ksp's, or the one inside PCREDUNDANT (every rank factors the whole matrix:
   a parallel Cholesky where PETSc has no MUMPS) */
static PetscErrorCode MfadPSDSwitchGetFactorPC_Private(KSP ksp, PC *pc)
{
  PetscBool redundant;

  PetscFunctionBegin;
  PetscCall(KSPGetPC(ksp, pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)*pc, PCREDUNDANT, &redundant));
  if (redundant) {
    KSP inner;
    PetscCall(PCRedundantGetKSP(*pc, &inner));
    PetscCall(KSPGetPC(inner, pc));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ICNTL(icntl) = value on the MUMPS factor of ksp's Cholesky PC (nothing for another PC or solver),
   unless -mat_mumps_icntl_<icntl> is given; before MUMPS's analysis, i.e. the first factorisation */
PetscErrorCode MfadKSPSetMUMPSIcntl_Private(KSP ksp, PetscInt icntl, PetscInt value)
{
#if defined(PETSC_HAVE_MUMPS)
  PC            pc;
  Mat           F;
  PetscBool     chol, set;
  MatSolverType type = NULL;
  const char   *prefix;
  char          opt[64];

  PetscFunctionBegin;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCCHOLESKY, &chol));
  if (!chol) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCFactorSetUpMatSolverType(pc));
  PetscCall(PCFactorGetMatrix(pc, &F));
  PetscCall(MatFactorGetSolverType(F, &type));
  if (!type || strcmp(type, MATSOLVERMUMPS)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetOptionsPrefix(F, &prefix));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-mat_mumps_icntl_%" PetscInt_FMT, icntl));
  PetscCall(PetscOptionsHasName(NULL, prefix, opt, &set));
  if (!set) PetscCall(MatMumpsSetIcntl(F, icntl, value));
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  PetscFunctionBegin;
  (void)ksp, (void)icntl, (void)value;
  PetscFunctionReturn(PETSC_SUCCESS);
#endif
}

/* KSPSetUp() keeping MUMPS's inertia: a Hessian whose pattern changed (dynamic element sets:
   contact pairs) gets a new factor matrix from PETSc, with ICNTL(13) back at MUMPS's 0, without
   which MatGetInertia() refuses on several ranks; then the PC is set up afresh with ICNTL(13) = 1
   (one more symbolic factorisation, at pattern changes only). Found by test_contactterms_2. */
static PetscErrorCode MfadPSDSwitchSetUp_Private(KSP ksp, PetscBool assembled)
{
#if defined(PETSC_HAVE_MUMPS)
  PC            pc;
  Mat           F, A, B;
  PetscBool     chol;
  MatSolverType type = NULL;
  PetscInt      icntl;
  PetscMPIInt   size;

  PetscFunctionBegin;
  PetscCall(KSPSetUp(ksp));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCCHOLESKY, &chol));
  if (!assembled || !chol || size == 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCFactorGetMatrix(pc, &F));
  PetscCall(MatFactorGetSolverType(F, &type));
  if (!type || strcmp(type, MATSOLVERMUMPS)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMumpsGetIcntl(F, 13, &icntl));
  if (icntl == 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscInfo(ksp, "mfad: a new MUMPS factor (the Hessian's pattern changed): set up again with ICNTL(13) = 1 for its inertia\n"));
  PetscCall(KSPGetOperators(ksp, &A, &B));
  PetscCall(PetscObjectReference((PetscObject)A));
  PetscCall(PetscObjectReference((PetscObject)B));
  PetscCall(PCReset(pc));
  PetscCall(KSPSetOperators(ksp, A, B));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(MfadKSPSetMUMPSIcntl_Private(ksp, 13, 1)); /* MUMPS's inertia on several ranks: no ScaLAPACK on the root front */
  PetscCall(KSPSetUp(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  PetscFunctionBegin;
  (void)assembled;
  PetscCall(KSPSetUp(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
#endif
}

/* Whether the solver factors the assembled exact-or-projected Hessian by a Cholesky whose inertia
   PETSc knows: MUMPS's (it pivots) or PETSc's own LDL^T (alone or inside PCREDUNDANT). CHOLMOD stops
   with an error on a matrix that is not positive definite; an iterative method factors nothing. */
static PetscErrorCode MfadPSDSwitchResolve_Private(KSP ksp, PetscBool assembled, PetscBool *capable, char why[], size_t len)
{
  PC            pc;
  Mat           F;
  PetscBool     chol;
  MatSolverType type = NULL;

  PetscFunctionBegin;
  *capable = PETSC_FALSE;
  if (!assembled) {
    PetscCall(PetscSNPrintf(why, len, "the Hessian is not assembled (-mfad_hessian aij)"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MfadPSDSwitchGetFactorPC_Private(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCCHOLESKY, &chol));
  if (!chol) {
    PetscCall(PetscSNPrintf(why, len,
                            "the preconditioner is not a Cholesky factorisation (-pc_type cholesky, or redundant with -redundant_pc_type cholesky)"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCFactorGetMatrix(pc, &F));
  PetscCall(MatFactorGetSolverType(F, &type));
  *capable = (PetscBool)(type && (!strcmp(type, MATSOLVERMUMPS) || !strcmp(type, MATSOLVERPETSC)));
  if (!*capable)
    PetscCall(PetscSNPrintf(
        why, len, "the Cholesky factorisation (%s) does not report the inertia: use MUMPS or PETSc's (-pc_factor_mat_solver_type mumps|petsc)",
        type ? type : "none"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* This step projected after all (the exact Hessian had nneg negative eigenvalues; 0: not known):
   the projected Hessian at the point, and the next exact try waits 1, 2, 4, 4 ... steps */
static PetscErrorCode MfadPSDSwitchFallBack_Private(MfadPSDSwitchCtx *c, PetscInt nneg)
{
  MfadPSDProjection psd;

  PetscFunctionBegin;
  c->exact = PETSC_FALSE, c->skip = c->backoff, c->backoff = PetscMin(2 * c->backoff, 4);
  /* and at least log2(nneg + 1) (at most 4): the count falls by about half a projected step (param
     on bunny_cut: 275, 152, 55, 11, 4, 1 at its tries), so a try with many fails again soon; one
     factorisation fewer on spot_jitter, sock.obj, bunny_cut and armadillo_cut_low, steps unchanged */
  for (PetscInt w = 0; w < 4 && (PetscInt)1 << w <= nneg; w++) c->skip = PetscMax(c->skip, w + 1);
  PetscCall(MfadEnergyGetPSDProjection(c->E, &psd, NULL));
  PetscCall(MfadEnergySetPSDProjectionInUse_Private(c->E, psd));
  PetscCall(MfadEnergyComputeHessian(c->E, c->X, c->P));
  PetscCall(MfadEnergyCountPSDSwitch_Private(c->E, PETSC_FALSE, 0, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before each linear solve: at the solve's first, whether the factorisation has the inertia; in an
   exact step, factor, and if the exact Hessian has a negative pivot, project, re-assemble and
   re-factor */
static PetscErrorCode MfadPSDSwitchPreSolve_Private(KSP ksp, Vec b, Vec x, void *ctx)
{
  MfadPSDSwitchCtx *c = (MfadPSDSwitchCtx *)ctx;
  PC                pc;
  Mat               F;
  PetscInt          nneg;

  PetscFunctionBegin;
  if (c->presolve) PetscCall((*c->presolve)(ksp, b, x, c->presolve_ctx));
  if (!c->resolved) {
    MfadPSDSwitch sw;
    Mat           A;
    PetscBool     shell, assembled;
    char          why[256] = "";

    /* the operator is the assembled Hessian the switch re-assembles (not a shell with P beside it) */
    PetscCall(KSPGetOperators(ksp, &A, NULL));
    PetscCall(PetscObjectTypeCompare((PetscObject)c->P, MATSHELL, &shell));
    assembled = (PetscBool)(A == c->P && !shell);
    if (assembled) PetscCall(MfadKSPSetMUMPSIcntl_Private(ksp, 13, 1));         /* MUMPS's inertia on several ranks: no ScaLAPACK on the root front */
    PetscCall(KSPSetUp(ksp));                                                   /* the first step is projected: its factor is needed anyway */
    PetscCall(MfadPSDSwitchResolve_Private(ksp, assembled, &c->inertia, why, sizeof(why)));
    PetscCall(MfadEnergyGetPSDSwitch(c->E, &sw));
    PetscCheck(c->inertia || sw != MFAD_PSD_SWITCH_INERTIA, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_INCOMP,
               "mfad: -mfad_psd_switch inertia needs the solver to factor the assembled Hessian by a Cholesky that reports the inertia, but %s; or "
               "-mfad_psd_switch steps|never",
               why);
    if (!c->inertia) PetscCall(PetscInfo(ksp, "mfad: -mfad_psd_switch auto: projected in every step, as %s\n", why));
    c->resolved = PETSC_TRUE;
  }
  if (!c->inertia || !c->exact) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadPSDSwitchSetUp_Private(ksp, PETSC_TRUE));
  PetscCall(MfadPSDSwitchGetFactorPC_Private(ksp, &pc));
  PetscCall(PCFactorGetMatrix(pc, &F));
  PetscCall(MatGetInertia(F, &nneg, NULL, NULL)); /* negative pivots of LDL^T: negative eigenvalues */
  if (nneg == 0) {
    PetscCall(MfadEnergyCountPSDSwitch_Private(c->E, PETSC_FALSE, 1, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscInfo(ksp, "mfad: the exact Hessian has %" PetscInt_FMT " negative eigenvalues: projected\n", nneg));
  PetscCall(MfadPSDSwitchFallBack_Private(c, nneg));
  PetscCall(KSPSetUp(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The fraction of the Newton step X - Y to start the line search with, shared by SNES's pre-check and
   TAO nls's first trial step: 0.8 of the first wall along the motion -Y (Smith & Schaefer's 2015,
   sec. 4.1, factor: 0.9 took 372 Newton steps on sock.obj (param) and 71 on Spot (sphere) where 0.8
   takes 305 and 49; spot_jitter 16 against 15), and the contact bound (conservative already); 1
   where nothing limits it. A cut is counted and said under -info on `solver`. Y is unchanged. */
PetscErrorCode MfadEnergyComputeStepCut_Private(MfadEnergy E, PetscObject solver, Vec X, Vec Y, PetscReal *cut)
{
  PetscReal t, alpha;

  PetscFunctionBegin;
  PetscCall(VecScale(Y, -1)); /* the motion (exact: a sign) */
  PetscCall(MfadEnergyComputeStepBound(E, X, Y, &t));
  PetscCall(MfadEnergyComputeContactBound_Private(E, X, Y, &alpha));
  PetscCall(VecScale(Y, -1));
  *cut = PetscMin(t < 1 ? 0.8 * t : 1, alpha);
  if (*cut < 1) {
    PetscCall(PetscInfo(solver, "mfad: step cut to %g (an element's wall at %g of it, contact bound %g)\n", (double)*cut, (double)t, (double)alpha));
    PetscCall(MfadEnergyCountStepCut_Private(E));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SNES, before the line search: an exact step that does not descend (F . Y <= 0, the update being
   X - lambda Y) is replaced by the projected one; then the step is cut to 0.8 of the first wall
   (-mfad_step_bound: MfadEnergyComputeStepBound() along -Y); then the pre-check that was set
   before, if any. The factor's inertia said definite, but PETSc's LDL^T does not pivot and can miss
   a negative eigenvalue near zero (Spot on 2 ranks, PETSc 3.26: 0 negative pivots in the redundant
   factor where 1 rank's ordering found 1). */
static PetscErrorCode MfadPSDSwitchPreCheck_Private(SNESLineSearch ls, Vec X, Vec Y, PetscBool *changed, void *ctx)
{
  MfadPSDSwitchCtx *c = (MfadPSDSwitchCtx *)ctx;
  SNES              snes;
  Vec               F;
  PetscScalar       d;
  PetscBool         bound;

  PetscFunctionBegin;
  *changed = PETSC_FALSE;
  if (c->prechecked) PetscFunctionReturn(PETSC_SUCCESS); /* the nonmonotone trial ran it for this step */
  PetscCall(SNESLineSearchGetSNES(ls, &snes));
  PetscCall(SNESGetFunction(snes, &F, NULL, NULL));
  PetscCall(VecDot(F, Y, &d));
  {
    /* the Newton step's predicted decrease, F . Y / 2 for the quadratic model, against E's round-off
       (a system F(x) = 0 has no energy) */
    PetscReal e;
    PetscBool has;
    PetscCall(MfadEnergyHasObjective(c->E, &has));
    if (has) PetscCall(MfadEnergyComputeObjective(c->E, X, &e));
    c->e           = has ? e : PETSC_MAX_REAL;
    c->at_roundoff = (PetscBool)(has && !c->curvature && PetscRealPart(d) > 0 &&
                                 0.5 * PetscRealPart(d) <= MFAD_ROUNDOFF_EPS * PETSC_MACHINE_EPSILON * PetscAbsReal(e));
  }
  if (c->inertia && c->exact) {
    if (PetscRealPart(d) <= 0) {
      PetscCall(PetscInfo(ls, "mfad: the exact step does not descend (F . Y = %g): projected\n", (double)PetscRealPart(d)));
      PetscCall(MfadEnergyCountPSDSwitch_Private(c->E, PETSC_FALSE, -1, 0));
      PetscCall(MfadPSDSwitchFallBack_Private(c, 0));
      PetscCall(KSPSolve(c->ksp, F, Y));
      *changed = PETSC_TRUE;
    }
  }
  {
    /* -mfad_decrement_rtol: the step's predicted decrease, after any fall-back and before a wall
       cuts it, with the Hessian it was solved with; a failed linear solve predicts nothing */
    PetscReal rtol;
    PetscCall(MfadEnergyGetDecrementTolerance(c->E, &rtol));
    c->decrement = PETSC_FALSE;
    if (rtol > 0 && c->e < PETSC_MAX_REAL && !c->curvature) {
      KSP                ksp;
      KSPConvergedReason kr;
      PetscCall(SNESGetKSP(snes, &ksp));
      PetscCall(KSPGetConvergedReason(ksp, &kr));
      if (*changed) PetscCall(VecDot(F, Y, &d));
      c->decrement = (PetscBool)(kr > 0 && PetscRealPart(d) > 0 && 0.5 * PetscRealPart(d) <= rtol * PetscAbsReal(c->e));
    }
  }
  PetscCall(MfadEnergyGetStepBound(c->E, &bound));
  if (bound) {
    PetscReal cut;
    PetscCall(MfadEnergyComputeStepCut_Private(c->E, (PetscObject)ls, X, Y, &cut));
    c->cut = cut;
    if (cut < 1) {
      PetscCall(VecScale(Y, cut));
      *changed = PETSC_TRUE;
    }
  }
  if (c->precheck) {
    PetscBool d2 = PETSC_FALSE;
    PetscCall(c->precheck(ls, X, Y, &d2, c->precheck_ctx));
    *changed = (PetscBool)(*changed || d2);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SNES bt's apply with the nonmonotone first trial (shell/nonmonotone.c): the pre-check (descent,
   walls, the user's) runs once, here; where the full step passes the nonmonotone test, PETSc's
   full-step line search takes it, else bt runs on the pre-checked step */
static PetscErrorCode MfadPSDSwitchLineSearchApply_Private(SNESLineSearch ls)
{
  MfadPSDSwitchCtx *c;
  PetscContainer    holder;
  SNES              snes;
  Vec               X, F, Y, W;
  PetscBool         changed, accept = PETSC_FALSE;
  PetscScalar       d;
  PetscReal         ref, ew;
  PetscInt          M;

  PetscFunctionBegin;
  PetscCall(SNESLineSearchGetSNES(ls, &snes));
  PetscCall(PetscObjectQuery((PetscObject)snes, "MfadPSDSwitch", (PetscObject *)&holder));
  PetscCall(PetscContainerGetPointer(holder, (void **)&c));
  PetscCall(MfadEnergyGetNonmonotoneMemory_Private(c->E, &M));
  if (M <= 1) {
    PetscCall((*c->apply)(ls));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SNESLineSearchGetVecs(ls, &X, &F, &Y, &W, NULL));
  PetscCall(SNESLineSearchPreCheck(ls, X, Y, &changed));
  c->prechecked = PETSC_TRUE;
  if (c->e < PETSC_MAX_REAL) {
    PetscCall(MfadEnergyMemoryPush_Private(&c->mem, M, c->e, &ref));
    PetscCall(VecDot(F, Y, &d));
    if (PetscRealPart(d) > 0 && c->cut >= 1) { /* the full step: not one cut short of a wall */
      PetscCall(VecWAXPY(W, -ls->lambda, Y, X));
      PetscCall(MfadEnergyComputeObjective(c->E, W, &ew));
      /* bt takes a full step that passes the monotone test as it is (it never goes beyond 1):
         taken here too, so that bt does not evaluate E at it a second time */
      accept = (PetscBool)(!PetscIsInfOrNanReal(ew) && ew <= ref - 1e-4 * ls->lambda * PetscRealPart(d));
      if (accept && ew > c->e - 1e-4 * ls->lambda * PetscRealPart(d))
        PetscCall(PetscInfo(ls, "mfad: nonmonotone full step: E %g above %g, below the last %" PetscInt_FMT " points' %g\n", (double)ew, (double)c->e,
                            M, (double)ref));
    }
  }
  PetscCall(accept ? (*c->basic)(ls) : (*c->apply)(ls));
  c->prechecked = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Newton step `it` of `solver` (a SNES or Tao, whose Jacobian/Hessian callback calls this before
   the step's matrices are formed at X): sets E's projection for the step. ksp is the step's linear
   solver (NULL: none), J and P its matrices, gnorm |g| at X; `failed`: the last step's linear solve
   failed. */
PetscErrorCode MfadPSDSwitchStep_Private(PetscObject solver, MfadEnergy E, KSP ksp, Mat P, Vec X, PetscInt it, PetscReal gnorm, PetscBool failed)
{
  MfadPSDSwitch     sw;
  MfadPSDProjection psd;
  MfadPSDSwitchCtx *c;
  PetscBool         issnes, start;

  PetscFunctionBegin;
  PetscCall(MfadEnergyGetPSDSwitch(E, &sw));
  PetscCall(MfadEnergyGetPSDProjection(E, &psd, NULL));
  /* a solve's first step: SNES numbers it 0, TAO's Newton methods 1 (they count before the step's
     Hessian); within a solve the numbers grow, and a new solve starts again at or below the last */
  PetscCall(MfadPSDSwitchGetContext_Private(solver, E, &c));
  PetscCall(PetscObjectTypeCompare(solver, SNESNEWTONLS, &issnes));
  if (issnes) {
    SNESLineSearch ls;
    PetscErrorCode (*f)(SNESLineSearch, Vec, Vec, PetscBool *, void *);
    void *fctx;

    /* ours first (descent, step bound), then whatever was set, before or after MfadEnergySetSNES() */
    PetscCall(SNESGetLineSearch((SNES)solver, &ls));
    PetscCall(SNESLineSearchGetPreCheck(ls, &f, &fctx));
    if (f != MfadPSDSwitchPreCheck_Private) {
      c->precheck = f, c->precheck_ctx = fctx;
      PetscCall(SNESLineSearchSetPreCheck(ls, MfadPSDSwitchPreCheck_Private, c));
    }
    {
      PetscBool bt;
      PetscCall(PetscObjectTypeCompare((PetscObject)ls, SNESLINESEARCHBT, &bt));
      if (bt && ls->ops->apply != MfadPSDSwitchLineSearchApply_Private) {
        if (!c->basic) {
          SNESLineSearch full;
          PetscCall(SNESLineSearchCreate(PETSC_COMM_SELF, &full));
          PetscCall(SNESLineSearchSetType(full, "basic"));
          c->basic = full->ops->apply;
          PetscCall(SNESLineSearchDestroy(&full));
        }
        c->apply       = ls->ops->apply;
        ls->ops->apply = MfadPSDSwitchLineSearchApply_Private;
      }
    }
  }
  start      = (PetscBool)(it <= c->last_it || c->last_it < 0);
  c->last_it = it;
  if (start) PetscCall(MfadEnergyCountPSDSwitch_Private(E, PETSC_TRUE, 0, 0));
  if (start) c->mem.n = 0;
  c->prechecked = PETSC_FALSE; /* after an error out of the last line search, too */
  if (psd == MFAD_PSD_NONE || sw == MFAD_PSD_SWITCH_NEVER || !ksp) {
    PetscCall(MfadEnergySetPSDProjectionInUse_Private(E, psd));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (sw == MFAD_PSD_SWITCH_STEPS) {
    PetscCall(MfadEnergyChooseProjection_Private(E, start ? 0 : it, failed));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (start) c->resolved = PETSC_FALSE, c->inertia = PETSC_FALSE, c->exact = PETSC_FALSE, c->skip = 0, c->backoff = 1;
  else if (c->inertia) {
    if (c->exact) c->backoff = 1; /* the last exact step went through: stay exact */
    else if (c->skip > 0) c->skip--;
    else {
      /* the last step's length along the Newton step: the line search's times the walls' cut (TAO's
         includes it: its first trial step is the cut) */
      PetscReal lambda = 1;
      if (issnes) {
        SNESLineSearch ls;
        PetscCall(SNESGetLineSearch((SNES)solver, &ls));
        PetscCall(SNESLineSearchGetLambda(ls, &lambda));
        lambda *= c->cut;
      } else if (solver->classid == TAO_CLASSID) { /* SNES newtontr: no line search, 1 */
        TaoLineSearch ls;
        PetscCall(TaoGetLineSearch((Tao)solver, &ls));
        if (ls) PetscCall(TaoLineSearchGetStepLength(ls, &lambda));
      }
      /* slower than quadratic, and the last step went the whole Newton step (near a minimum, where
         an exact step may go through): try exact. A step cut by a wall or backtracked is far from
         it, where the exact Hessian is seldom definite and a try costs a second factorisation:
         param's Newton steps/factorisations without this test, with it (MUMPS): spot_jitter 15/18, 14/16; spot_patch
         14/17, 11/13; sock.obj 129/155, 114/136; bunny_cut 52/61, 48/56; elastic's Spot tets
         69/71, 70/72 (TAO nls 67/68, 65/66), its bar at -g -2000 12/14, 13/15 */
      c->exact = (PetscBool)(gnorm > 0.25 * c->gprev && lambda >= 0.999);
    }
  }
  c->cut   = 1;
  c->gprev = gnorm;
  c->ksp = ksp, c->P = P, c->X = X;
  PetscCall(MfadEnergySetPSDProjectionInUse_Private(E, c->exact ? MFAD_PSD_NONE : psd));
  if (ksp->presolve != MfadPSDSwitchPreSolve_Private) c->presolve = ksp->presolve, c->presolve_ctx = ksp->prectx;
  PetscCall(KSPSetPreSolve(ksp, MfadPSDSwitchPreSolve_Private, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SNES's convergence test: PETSc's default, and the stop at the energy's round-off: when the step
   just taken predicted a decrease (F . Y / 2) below E's round-off (1e3 eps |E|) and |g| stagnates
   (fell by less than 0.1% in it), no line search can tell a better point from a worse
   one: converged, with PETSc's reason for a step that changes nothing (CONVERGED_SNORM_RELATIVE),
   said under -info. (The tutorial's bar on PETSc 3.26 without MUMPS: |g|
   2.8e-7 for ever at its gradient's round-off floor, above rtol |g0| = 3.9e-8, and DIVERGED_MAX_IT
   after 200 steps at the minimum's energy to 11 digits.) A decrease of |g| is progress E cannot
   see: Newton goes on (elastic on Spot: |g| 1.7e-2, 1.2e-3, 1.5e-6 at one energy; a stop at a
   factor 0.5 ended projected Newton on spot_jitter at |g| 3.7e-6 and arap on sock.obj at 1.3e-7). */
static PetscErrorCode MfadSNESConverged_Private(SNES snes, PetscInt it, PetscReal xnorm, PetscReal snorm, PetscReal fnorm,
                                                SNESConvergedReason *reason, void *ctx)
{
  MfadPSDSwitchCtx *c = (MfadPSDSwitchCtx *)ctx;

  PetscFunctionBegin;
  PetscCall(SNESConvergedDefault(snes, it, xnorm, snorm, fnorm, reason, NULL));
  if (it > 0 && *reason == SNES_CONVERGED_ITERATING) {
    /* a line search whose point was outside the energy's domain (the basic one takes the full step)
       left X where it was but F holding the gradient there, NaN or inf: the failure let through
       for the round-off (-snes_max_fail 2) would solve with it and step to an infinite point */
    SNESLineSearch       ls;
    SNESLineSearchReason lsr;
    PetscCall(SNESGetLineSearch(snes, &ls));
    PetscCall(SNESLineSearchGetReason(ls, &lsr));
    if (MfadLineSearchFailedDomain(lsr)) *reason = SNES_DIVERGED_FUNCTION_DOMAIN;
  }
  if (it > 0 && *reason == SNES_CONVERGED_ITERATING && c->escape) {
    SNESLineSearch       ls;
    SNESLineSearchReason lsr;
    PetscCall(SNESGetLineSearch(snes, &ls));
    PetscCall(SNESLineSearchGetReason(ls, &lsr));
    if (lsr != SNES_LINESEARCH_SUCCEEDED) { /* along negative curvature from |X| down: no decrease E can see */
      PetscCall(PetscInfo(snes, "mfad: Newton-CG's escape along negative curvature found no decrease: converged at the energy's round-off\n"));
      c->roundoff_stop = PETSC_TRUE;
      *reason          = SNES_CONVERGED_SNORM_RELATIVE;
    }
  }
  if (it == 0) c->at_roundoff = PETSC_FALSE;
  else if ((*reason == SNES_CONVERGED_ITERATING || *reason == SNES_CONVERGED_SNORM_RELATIVE) && c->at_roundoff && c->fprev >= 0 &&
           fnorm > MFAD_ROUNDOFF_STAGNANT * c->fprev) {
    PetscCall(PetscInfo(
        snes, "mfad: at the energy's round-off: the step predicted a decrease below 1e3 eps |E| and |g| = %g stagnates (%g before): converged\n",
        (double)fnorm, (double)c->fprev));
    c->roundoff_stop = PETSC_TRUE;
    *reason          = SNES_CONVERGED_SNORM_RELATIVE;
  } else if (*reason == SNES_CONVERGED_SNORM_RELATIVE && !c->roundoff_stop) {
    /* PETSc's step test (|Y| < stol |X|) where the solve has not lowered |g| at all, or right after
       a failed line search: X did not move, Newton did not converge (issue 46: elastic on a mesh
       scaled by 1e-8 stopped at step 1 with |g| = |g0|, "converged"; its |X| ~ 1e-7 made any step
       "small"). Newton goes on: to convergence, the round-off stop, a second line-search failure
       (-snes_max_fail 2) or -snes_max_it, each an honest reason */
    SNESLineSearch       ls;
    SNESLineSearchReason lsr;
    PetscCall(SNESGetLineSearch(snes, &ls));
    PetscCall(SNESLineSearchGetReason(ls, &lsr));
    if (lsr != SNES_LINESEARCH_SUCCEEDED || fnorm >= MFAD_ROUNDOFF_STAGNANT * c->fnorm0) {
      PetscCall(PetscInfo(snes, "mfad: a short step is not convergence here (|g| = %g, at the start %g, line search %s): going on\n", (double)fnorm,
                          (double)c->fnorm0, lsr == SNES_LINESEARCH_SUCCEEDED ? "succeeded" : "failed"));
      *reason = SNES_CONVERGED_ITERATING;
    }
  }
  if (it > 0 && *reason == SNES_CONVERGED_ITERATING && c->decrement) {
    /* -mfad_decrement_rtol: the step just taken predicted a decrease below rtol |E| and its line
       search went through */
    SNESLineSearch       ls;
    SNESLineSearchReason lsr;
    PetscCall(SNESGetLineSearch(snes, &ls));
    PetscCall(SNESLineSearchGetReason(ls, &lsr));
    if (lsr == SNES_LINESEARCH_SUCCEEDED) {
      PetscCall(PetscInfo(snes, "mfad: the Newton step predicted a decrease below -mfad_decrement_rtol |E|: converged\n"));
      *reason = MFAD_SNES_CONVERGED_DECREMENT;
    }
  }
  c->decrement = PETSC_FALSE;
  if (it == 0) c->fnorm0 = fnorm;
  c->fprev       = fnorm;
  c->at_roundoff = PETSC_FALSE;
  c->curvature = c->escape = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadSNESRoundoffNoteStep_Private(SNES snes, PetscBool curvature, PetscBool escape)
{
  PetscContainer    holder;
  MfadPSDSwitchCtx *c;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)snes, "MfadPSDSwitch", (PetscObject *)&holder));
  if (!holder) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscContainerGetPointer(holder, (void **)&c));
  c->curvature = curvature, c->escape = escape;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MfadEnergySetSNES(): the round-off stop as SNES's convergence test (a test set after it replaces it) */
PetscErrorCode MfadSNESSetRoundoffTest_Private(SNES snes, MfadEnergy E)
{
  MfadPSDSwitchCtx *c;

  PetscFunctionBegin;
  PetscCall(MfadPSDSwitchGetContext_Private((PetscObject)snes, E, &c));
  PetscCall(SNESSetConvergenceTest(snes, MfadSNESConverged_Private, c, NULL));
  {
    /* a line search that fails at the round-off (PETSc 3.18's bt: no step shows a decrease) would
       end the solve before the test sees it: one failure is let through, a second ends the solve
       (one Newton step more on a real failure), unless -snes_max_fail says otherwise */
    const char *prefix;
    char        opt[256];
    PetscBool   set;
    PetscCall(SNESGetOptionsPrefix(snes, &prefix));
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%ssnes_max_fail", prefix ? prefix : ""));
    PetscCall(PetscOptionsHasName(NULL, NULL, opt, &set));
    if (!set) PetscCall(SNESSetMaxNonlinearStepFailures(snes, 2));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
