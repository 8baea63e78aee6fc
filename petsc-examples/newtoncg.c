// SPDX-License-Identifier: BSD-2-Clause
/* Newton-CG with a projected-Newton preconditioner (newtoncg.h). The first CG step is the
   projected Newton step P^{-1} g, a descent direction however indefinite the exact Hessian H is far
   from the minimiser, and near it CG reaches the exact Newton step (quadratic convergence, where
   projected Newton alone is linear). Measured: sphere on Spot, 48 steps against 118 preferring the
   projected step at every negative curvature; arap_surface's bend of Spot, 16 steps and 8 s (MUMPS;
   15 s with PETSc's own Cholesky) against 26 steps and 55 s for the cached projected-then-exact
   Hessian with CG + Jacobi. */
#include "newtoncg.h"
#include "defaultoption.h"

PetscErrorCode NewtonCGSetDefaults(void)
{
  PetscFunctionBeginUser;
  PetscCall(DefaultOption("-mfad_hessian", "shell"));
  PetscCall(DefaultOption("-mfad_pmat", "aij"));
  PetscCall(DefaultOption("-mfad_psd_project", "abs"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CG's stop at negative curvature, renamed in PETSc 3.19 */
#if PETSC_VERSION_GE(3, 19, 0)
  #define NEWTONCG_KSP_NEG_CURVE KSP_CONVERGED_NEG_CURVE
#else
  #define NEWTONCG_KSP_NEG_CURVE KSP_CONVERGED_CG_NEG_CURVE
#endif

/* At a saddle (g at round-off, H indefinite) no step above predicts a measurable decrease, and
   Newton converges to saddles as to minima (measured: spike_strip.obj, E 0.0761 with a Hessian
   eigenvalue -0.011, against the minimum's 0.0729). Steihaug's CG (stcg with a radius, sharing the
   preconditioner) walks along the negative curvature it meets to the radius |X|, and the line
   search backs off from there: a decrease of order |lambda_min| |y|^2 where one exists. */
static PetscErrorCode NewtonCGEscape(KSP ksp, Vec g, Vec y, NewtonCG *ncg)
{
  KSP         esc = NULL;
  PC          pc;
  Mat         H, P;
  PetscReal   rtol;
  PetscScalar gy;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectQuery((PetscObject)ksp, "NewtonCGEscape", (PetscObject *)&esc));
  if (!esc) {
    PetscCall(KSPCreate(PetscObjectComm((PetscObject)ksp), &esc));
    PetscCall(KSPSetType(esc, KSPSTCG));
#if PETSC_VERSION_GE(3, 19, 0)
    PetscCall(KSPSetConvergedNegativeCurvature(esc, PETSC_TRUE));
#endif
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(KSPSetPC(esc, pc)); /* the factor made for this step */
    PetscCall(PetscObjectCompose((PetscObject)ksp, "NewtonCGEscape", (PetscObject)esc));
    PetscCall(KSPDestroy(&esc));
    PetscCall(PetscObjectQuery((PetscObject)ksp, "NewtonCGEscape", (PetscObject *)&esc));
  }
  PetscCall(KSPGetOperators(ksp, &H, &P));
  PetscCall(KSPSetOperators(esc, H, P));
  PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
  PetscCall(KSPSetTolerances(esc, rtol, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPCGSetRadius(esc, ncg->xnorm > 0 ? ncg->xnorm : 1));
  PetscCall(KSPSolve(esc, g, y));
  PetscCall(VecDot(g, y, &gy));
  if (PetscRealPart(gy) < 0) PetscCall(VecScale(y, -1)); /* a descent direction: the step is X - y */
  ncg->nescape++;
  ncg->escaped = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Where CG meets negative curvature, PETSc's stcg without a radius returns its iterate before
   that direction, a partial Newton step, or nothing at all where the very first direction has
   negative curvature (DIVERGED_LINE_SEARCH on a zero step, seen on sphere -shape fingers); on an
   indefinite H CG may also diverge (DIVERGED_DTOL). The projected Newton step z = P^{-1} g (P the
   preconditioner) replaces a failed CG's step, and CG's partial step where its quadratic model
   m(y) = -g.y + y.H y / 2 (the SNES step is X - y) is lower (always lower than a zero step). Where
   the step taken predicts no decrease above the energy's round-off, NewtonCGEscape(). */
static PetscErrorCode NewtonCGPostSolve(KSP ksp, Vec g, Vec y, void *ctx)
{
  KSPConvergedReason reason;
  PC                 pc;
  Mat                H;
  Vec                z, w;
  PetscScalar        gy, gz, yhy, zhz;
  NewtonCG          *ncg = (NewtonCG *)ctx;

  PetscFunctionBeginUser;
  ncg->escaped = PETSC_FALSE;
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(VecDot(g, y, &gy));
  ncg->slope = PetscAbsScalar(gy);
  if (reason != NEWTONCG_KSP_NEG_CURVE && reason >= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(KSPGetOperators(ksp, &H, NULL));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecDuplicate(y, &w));
  PetscCall(PCApply(pc, g, z));
  PetscCall(MatMult(H, y, w));
  PetscCall(VecDot(y, w, &yhy));
  PetscCall(MatMult(H, z, w));
  PetscCall(VecDot(z, w, &zhz));
  PetscCall(VecDot(g, z, &gz));
  if (reason < 0 || PetscRealPart(-gz + zhz / 2) < PetscRealPart(-gy + yhy / 2)) {
    PetscCall(VecCopy(z, y));
    gy = gz, yhy = zhz;
    ncg->nfallback++;
  }
  /* no round-off stop after negative curvature: the point may be a saddle, whatever g is */
  ncg->slope = PETSC_MAX_REAL;
  if (-PetscRealPart(-gy + yhy / 2) <= 100 * PETSC_MACHINE_EPSILON * PetscAbsReal(ncg->f)) PetscCall(NewtonCGEscape(ksp, g, y, ncg));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the last step predicted a decrease |g.y| below the energy's round-off, 100 eps |f|: then
   no step can be measured to gain anything, a minimiser to working precision (the Newton decrement
   test of TinyAD's and Boyd's Newton). Seen where |g| stays at round-off above -snes_atol: sphere
   -shape fingers (|g| 1.7e-5 against 3.5e-6), where PETSc 3.18's line search fails and 3.26's
   takes steps that change nothing until -snes_max_it. */
static PetscBool NewtonCGAtRoundoff(const NewtonCG *ncg, PetscReal f)
{
  return (PetscBool)(ncg->slope <= 100 * PETSC_MACHINE_EPSILON * PetscAbsReal(f));
}

/* SNES's test, and NewtonCGAtRoundoff() */
static PetscErrorCode NewtonCGConverged(SNES snes, PetscInt it, PetscReal xnorm, PetscReal snorm, PetscReal fnorm, SNESConvergedReason *reason, void *ctx)
{
  NewtonCG *ncg = (NewtonCG *)ctx;
  Vec       X;

  PetscFunctionBeginUser;
  PetscCall(SNESConvergedDefault(snes, it, xnorm, snorm, fnorm, reason, NULL));
  PetscCall(SNESGetSolution(snes, &X));
  PetscCall(SNESComputeObjective(snes, X, &ncg->f));
  ncg->xnorm = xnorm; /* SNES gives |X| from the first step on */
  if (it == 0) PetscCall(VecNorm(X, NORM_2, &ncg->xnorm));
  if (*reason == SNES_CONVERGED_ITERATING && it > 0) {
    ncg->roundoff = NewtonCGAtRoundoff(ncg, ncg->f);
    if (ncg->roundoff) *reason = SNES_CONVERGED_FNORM_ABS; /* named CONVERGED_ROUNDOFF by NewtonCGConvergedReason() */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode NewtonCGConvergedReason(NewtonCG *ncg, PetscReal f, PetscInt *reason, const char **name)
{
  PetscFunctionBeginUser;
  /* a line search that failed after a step predicting less than round-off (PETSc 3.18), or along
     the negative curvature of an escape, from |X| down to 1e-12 |X|: no measurable decrease there
     either, a minimiser to working precision */
  if (!ncg->roundoff && *reason == SNES_DIVERGED_LINE_SEARCH) ncg->roundoff = (PetscBool)(ncg->escaped || NewtonCGAtRoundoff(ncg, f));
  if (ncg->roundoff) {
    *reason = NEWTONCG_CONVERGED_ROUNDOFF;
    *name   = "CONVERGED_ROUNDOFF";
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode NewtonCGSetSNES(NewtonCG *ncg, SNES snes)
{
  KSP         ksp;
  PC          pc;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  ncg->nfallback = 0;
  ncg->nescape   = 0;
  ncg->slope     = PETSC_MAX_REAL;
  ncg->roundoff  = PETSC_FALSE;
  ncg->escaped   = PETSC_FALSE;
  ncg->f         = 0;
  ncg->xnorm     = 0;
  PetscCall(SNESSetConvergenceTest(snes, NewtonCGConverged, ncg, NULL));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPSetType(ksp, KSPSTCG)); /* no radius: CG stopped at negative curvature (Newton-CG) */
#if PETSC_VERSION_GE(3, 19, 0)
  PetscCall(KSPSetConvergedNegativeCurvature(ksp, PETSC_TRUE)); /* a stop there is a step, not a failure */
#endif
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCCHOLESKY));
  PetscCall(KSPSetPostSolve(ksp, NewtonCGPostSolve, ncg));
  PetscCall(SNESSetMaxLinearSolveFailures(snes, PETSC_MAX_INT)); /* a failed CG has its step replaced, above */
  /* MUMPS where PETSc has it: PETSc's own Cholesky is sequential, and fills in (arap_surface on the
     35k-vertex bunny: 47 s symbolic and 31 s numeric, against MUMPS's 0.4 s and 7 s). An energy
     with a null direction everywhere makes the projected Hessian singular (arap_surface had one,
     a cell's turn about its only positive-weight edge, before its weights were floored there):
     MUMPS's null pivot detection, PETSc's shift of a zero pivot (without: NaN at the first step) */
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)snes), &size));
  PetscCall(PCFactorSetShiftType(pc, MAT_SHIFT_NONZERO));
#if defined(PETSC_HAVE_MUMPS)
  (void)size;
  PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
  PetscCall(DefaultOption("-mat_mumps_icntl_24", "1"));
#else
  if (size > 1) {
    PetscCall(PCSetType(pc, PCREDUNDANT));
    PetscCall(DefaultOption("-redundant_pc_factor_shift_type", "nonzero"));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
