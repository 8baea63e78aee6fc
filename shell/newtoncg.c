// SPDX-License-Identifier: BSD-2-Clause
/* -mfad_newton_cg: Newton-CG on the exact Hessian H (the fused shell product) preconditioned by the
   Cholesky factor of the PSD-projected Hessian P (MfadEnergySetNewtonCG()). CG's first iterate is
   the projected Newton step P^{-1} g, a descent direction however indefinite H is far from the
   minimiser, and near it CG reaches the exact Newton step (quadratic, where projected Newton alone
   is linear). Measured against PETSc's trust regions with the same operator and preconditioner
   (docs/guide.md), Newton steps: sphere on Spot 49 (SNES newtontr: DIVERGED_FUNCTION_DOMAIN, TAO
   ntr 54), -shape fingers 48 with the forcing term below, 63 before (DIVERGED, 49), arap_surface's
   bend of Spot 16 (19, 19), its rigid motion 16 (31, 31). Was petsc-examples/newtoncg.c. */
#include "shellimpl.h"
#include <petsc/private/kspimpl.h> /* the post-solve set before ours: KSPSetPostSolve() has no getter */

/* CG's stop at negative curvature, renamed in PETSc 3.19 */
#if PETSC_VERSION_GE(3, 19, 0)
#define MFAD_KSP_NEG_CURVE KSP_CONVERGED_NEG_CURVE
#else
#define MFAD_KSP_NEG_CURVE KSP_CONVERGED_CG_NEG_CURVE
#endif

typedef struct {
  MfadEnergy E;    /* borrowed: the SNES holds E */
  SNES       snes; /* borrowed: this context is composed on it */
  KSP        esc;  /* Steihaug's CG of the escapes (made at the first) */
  PetscBool  forcing; /* CG's tolerance is the forcing term below (none chosen) */
  PetscReal  fnorm0;  /* |g| at the solve's start */
  /* the KSP's post-solve that was there before ours (PETSc 3.18's Eisenstat-Walker), run first */
  PetscErrorCode (*postsolve)(KSP, Vec, Vec, void *);
  void *postsolve_ctx;
} MfadNewtonCGCtx;

static PetscErrorCode MfadNewtonCGCtxDestroy_Private(void *arg)
{
  MfadNewtonCGCtx *c = (MfadNewtonCGCtx *)MfadCtxDestroyArg(arg);

  PetscFunctionBegin;
  PetscCall(KSPDestroy(&c->esc));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MfadEnergySetSNES(): stcg without a radius (CG stopped at negative curvature) unless a Krylov
   method was chosen, a Cholesky preconditioner (shell/defaults.c: MUMPS, else PETSc's own, in
   PCREDUNDANT on several ranks) unless a preconditioner was chosen, with a nonzero shift of a zero
   pivot for PETSc's (a null direction of the projected Hessian everywhere, as arap_surface had
   before its weights were floored, gave NaN at the first step without it; MUMPS's null-pivot
   detection is set at the first step) */
PetscErrorCode MfadNewtonCGSetDefaults_Private(MfadEnergy E, KSP ksp, PetscBool ksp_chosen, PetscBool pc_chosen)
{
  PC pc;

  PetscFunctionBegin;
  (void)E;
  if (!pc_chosen) {
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(MfadPCSetCholesky_Private(pc, &pc));
    PetscCall(PCFactorSetShiftType(pc, MAT_SHIFT_NONZERO));
  }
  if (!ksp_chosen) {
    PetscCall(KSPSetType(ksp, KSPSTCG));
#if PETSC_VERSION_GE(3, 19, 0)
    PetscCall(KSPSetConvergedNegativeCurvature(ksp, PETSC_TRUE)); /* a stop there is a step, not a failure */
#endif
  }
  PetscCall(PetscInfo(ksp, "mfad: Newton-CG: %s preconditioned by %s\n", ksp_chosen ? "the Krylov method chosen" : "stcg",
                      pc_chosen ? "the preconditioner chosen" : "the projected Hessian's Cholesky factor"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* At a saddle (g at round-off, H indefinite) no step predicts a measurable decrease, and Newton
   converges to saddles as to minima (measured: spike_strip.obj, E 0.0761 with a Hessian eigenvalue
   -0.011, against the minimum's 0.0729). Steihaug's CG (stcg with a radius, sharing the
   preconditioner) walks along the negative curvature it meets to the radius |X|, and the line
   search backs off from there: a decrease of order |lambda_min| |y|^2 where one exists. */
static PetscErrorCode MfadNewtonCGEscape_Private(MfadNewtonCGCtx *c, KSP ksp, Vec g, Vec y, PetscReal xnorm)
{
  PC          pc;
  Mat         H, P;
  PetscReal   rtol;
  PetscScalar gy;

  PetscFunctionBegin;
  if (!c->esc) {
    PetscCall(KSPCreate(PetscObjectComm((PetscObject)ksp), &c->esc));
    PetscCall(KSPSetType(c->esc, KSPSTCG));
#if PETSC_VERSION_GE(3, 19, 0)
    PetscCall(KSPSetConvergedNegativeCurvature(c->esc, PETSC_TRUE));
#endif
  }
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(KSPSetPC(c->esc, pc)); /* the factor made for this step */
  PetscCall(KSPGetOperators(ksp, &H, &P));
  PetscCall(KSPSetOperators(c->esc, H, P));
  PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
  PetscCall(KSPSetTolerances(c->esc, rtol, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPCGSetRadius(c->esc, xnorm > 0 ? xnorm : 1));
  PetscCall(KSPSolve(c->esc, g, y));
  PetscCall(VecDot(g, y, &gy));
  if (PetscRealPart(gy) < 0) PetscCall(VecScale(y, -1)); /* a descent direction: the step is X - y */
  PetscCall(
      PetscInfo(ksp, "mfad: Newton-CG: no measurable decrease after negative curvature: escape along it to the radius |X| = %g\n", (double)xnorm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Where CG meets negative curvature, stcg without a radius returns its iterate before that
   direction, a partial Newton step, or nothing where the very first direction has negative
   curvature (DIVERGED_LINE_SEARCH on a zero step, seen on sphere -shape fingers); on an indefinite H
   CG may also diverge. The projected Newton step z = P^{-1} g replaces a failed CG's step, and CG's
   partial step where its quadratic model m(y) = -g.y + y.H y / 2 (the SNES step is X - y) is
   lower. Where the step taken predicts no decrease above the energy's round-off, an escape. */
static PetscErrorCode MfadNewtonCGPostSolve_Private(KSP ksp, Vec g, Vec y, void *ctx)
{
  MfadNewtonCGCtx   *c = (MfadNewtonCGCtx *)ctx;
  KSPConvergedReason reason;
  PC                 pc;
  Mat                H;
  Vec                z, w, X;
  PetscScalar        gy, gz, yhy, zhz;
  PetscReal          f, xnorm;
  PetscBool          escape = PETSC_FALSE;

  PetscFunctionBegin;
  if (c->postsolve) PetscCall((*c->postsolve)(ksp, g, y, c->postsolve_ctx));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  if (reason != MFAD_KSP_NEG_CURVE && reason >= 0) {
    PetscCall(MfadSNESRoundoffNoteStep_Private(c->snes, PETSC_FALSE, PETSC_FALSE));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(KSPGetOperators(ksp, &H, NULL));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecDuplicate(y, &w));
  PetscCall(PCApply(pc, g, z));
  PetscCall(VecDot(g, y, &gy));
  PetscCall(MatMult(H, y, w));
  PetscCall(VecDot(y, w, &yhy));
  PetscCall(MatMult(H, z, w));
  PetscCall(VecDot(z, w, &zhz));
  PetscCall(VecDot(g, z, &gz));
  if (reason < 0 || PetscRealPart(-gz + zhz / 2) < PetscRealPart(-gy + yhy / 2)) {
    PetscCall(VecCopy(z, y));
    gy = gz, yhy = zhz;
    PetscCall(MfadEnergyCountNewtonCG_Private(c->E, PETSC_FALSE, 1, 0));
  }
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&z));
  PetscCall(SNESGetSolution(c->snes, &X));
  PetscCall(MfadEnergyComputeObjective(c->E, X, &f));
  if (-PetscRealPart(-gy + yhy / 2) <= 100 * PETSC_MACHINE_EPSILON * PetscAbsReal(f)) {
    PetscCall(VecNorm(X, NORM_2, &xnorm));
    PetscCall(MfadNewtonCGEscape_Private(c, ksp, g, y, xnorm));
    PetscCall(MfadEnergyCountNewtonCG_Private(c->E, PETSC_FALSE, 0, 1));
    escape = PETSC_TRUE;
  }
  PetscCall(MfadSNESRoundoffNoteStep_Private(c->snes, PETSC_TRUE, escape));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Inexact Newton (Dembo, Eisenstat and Steihaug 1982): CG stops at the relative residual
   eta = min(0.5, |g| / |g0|), loose far from the minimiser, where a step is only a descent direction
   and CG's first iterate is already projected Newton's, and tight near it: the quadratic forcing
   term, scaled by the solve's start so that it does not depend on the energy's units. Where
   -ksp_rtol or KSPSetTolerances() chose a tolerance, or -snes_ksp_ew (its own, set after this), CG
   keeps it. Measured against PETSc's default 1e-5, Newton steps and CG iterations (docs/guide.md):
   sphere on Spot 49/817 against 49/451, -shape fingers 65/866 against 48/485, arap_surface's
   default 15/280 against 14/105, arap on spot_jitter twisted 21/381 against 22/158, Spot's rigid
   motion 16/75 against 19/42. */
static PetscErrorCode MfadNewtonCGSetForcing_Private(MfadNewtonCGCtx *c, SNES snes, KSP ksp, PetscInt it)
{
  PetscReal fnorm, rtol, abstol, dtol;
  PetscInt  maxit;

  PetscFunctionBegin;
  PetscCall(SNESGetFunctionNorm(snes, &fnorm));
  PetscCall(KSPGetTolerances(ksp, &rtol, &abstol, &dtol, &maxit));
  if (it == 0) {
    const char *prefix;
    PetscBool   set;

    PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
    PetscCall(MfadOptionGiven_Private(prefix, "ksp_rtol", &set));
    c->forcing = (PetscBool)(!set && (c->forcing || rtol == 1e-5)); /* 1e-5: PETSc's default; or ours from a solve before */
    c->fnorm0  = fnorm;
  }
  if (!c->forcing || !(c->fnorm0 > 0)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPSetTolerances(ksp, PetscMin(0.5, fnorm / c->fnorm0), abstol, dtol, maxit));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadNewtonCGStep_Private(SNES snes, MfadEnergy E, Mat J, Mat P)
{
  PetscBool        ncg, ls, has;
  PetscContainer   holder;
  MfadNewtonCGCtx *c;
  KSP              ksp;
  PetscInt         it;

  PetscFunctionBegin;
  PetscCall(MfadEnergyGetNewtonCG(E, &ncg));
  PetscCall(PetscObjectTypeCompare((PetscObject)snes, SNESNEWTONLS, &ls));
  PetscCall(MfadEnergyHasObjective(E, &has));
  if (!ncg || !ls || !has) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SNESGetIterationNumber(snes, &it));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(PetscObjectQuery((PetscObject)snes, "MfadNewtonCG", (PetscObject *)&holder));
  if (!holder) {
    PetscCall(PetscNew(&c));
    c->E = E, c->snes = snes;
    PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)snes), &holder));
    PetscCall(PetscContainerSetPointer(holder, c));
    PetscCall(MfadContainerSetCtxDestroy(holder, MfadNewtonCGCtxDestroy_Private));
    PetscCall(PetscObjectCompose((PetscObject)snes, "MfadNewtonCG", (PetscObject)holder));
    PetscCall(PetscContainerDestroy(&holder));
  } else PetscCall(PetscContainerGetPointer(holder, (void **)&c));
  if (it == 0) {
    PetscCall(MfadEnergyCountNewtonCG_Private(E, PETSC_TRUE, 0, 0));
    /* MUMPS's null-pivot detection on the preconditioner's factor, once its solver type is known
       (all options read) and before its first factorisation */
    PetscCall(KSPSetOperators(ksp, J, P)); /* SNES sets these after this callback too */
    PetscCall(MfadKSPSetMUMPSIcntl_Private(ksp, 24, 1));
  }
  if (ksp->postsolve != MfadNewtonCGPostSolve_Private) c->postsolve = ksp->postsolve, c->postsolve_ctx = ksp->postctx;
  PetscCall(KSPSetPostSolve(ksp, MfadNewtonCGPostSolve_Private, c));
  PetscCall(MfadNewtonCGSetForcing_Private(c, snes, ksp, it));
  PetscFunctionReturn(PETSC_SUCCESS);
}
