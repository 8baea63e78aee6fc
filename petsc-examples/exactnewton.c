// SPDX-License-Identifier: BSD-2-Clause
/* Exact Newton where the exact Hessian is positive definite, projected Newton elsewhere. Projected
   Newton alone converges linearly near the minimum (the per-element projection changes the Hessian
   there too: |g| falls by ~0.88 a step on param's spot_patch) and stalls where the energy's decrease
   sinks below its round-off; exact steps without a test (e.g. -mfad_psd_project_steps with a direct
   solver, which reports no failure on an indefinite matrix) give ascent directions on which the
   line search fails (elastic on Spot). An exact step is tried when the last step reduced |g| by less
   than a factor 4 (slower than quadratic), or the last exact step went through; the factorisation's
   inertia says whether the exact Hessian is positive definite, and if not the projected one is
   assembled and factored instead for this step, so every step is a descent direction. A failed try
   waits 1, 2, 4, 4 ... steps before the next (at most 4: on a 30k-vertex scan, unbounded doubling
   left 15 projected steps at |g| ratio 0.42 before the exact ones that finished it). */
#include "exactnewton.h"
#include "defaultoption.h"
#include <string.h>

static PetscErrorCode ExactNewtonStep(ExactNewton *a, PetscInt step, PetscReal gnorm)
{
  PetscFunctionBegin;
  if (!a->active) PetscFunctionReturn(PETSC_SUCCESS);
  if (step == 0) a->exact = PETSC_FALSE, a->skip = 0, a->backoff = 1;
  else if (a->exact) a->backoff = 1; /* the last exact step went through: stay exact */
  else if (a->skip > 0) a->skip--;
  else a->exact = (PetscBool)(gnorm > 0.25 * a->gprev); /* slower than quadratic: try exact */
  a->gprev = gnorm;
  PetscCall(MfadEnergySetPSDProjection(a->E, a->exact ? MFAD_PSD_NONE : a->psd, a->eps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ExactNewtonUpdateSNES(SNES snes, PetscInt step)
{
  ExactNewton *a;
  PetscReal    gnorm;

  PetscFunctionBegin;
  PetscCall(SNESGetApplicationContext(snes, &a));
  PetscCall(SNESGetFunctionNorm(snes, &gnorm));
  PetscCall(ExactNewtonStep(a, step, gnorm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ExactNewtonUpdateTao(Tao tao, PetscInt step, void *ctx)
{
  PetscReal gnorm;

  PetscFunctionBegin;
  PetscCall(TaoGetSolutionStatus(tao, NULL, NULL, &gnorm, NULL, NULL, NULL));
  PetscCall(ExactNewtonStep((ExactNewton *)ctx, step, gnorm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The PC that factors: ksp's, or the one inside PCREDUNDANT (every rank factors the whole matrix:
   a parallel Cholesky where PETSc has no MUMPS), whose type comes from the options at its set-up:
   read them first if asked */
static PetscErrorCode ExactNewtonGetFactorPC(KSP ksp, PetscBool setfromoptions, PC *pc)
{
  PetscBool redundant;

  PetscFunctionBegin;
  PetscCall(KSPGetPC(ksp, pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)*pc, PCREDUNDANT, &redundant));
  if (redundant) {
    KSP inner;
    PetscCall(PCRedundantGetKSP(*pc, &inner));
    if (setfromoptions) PetscCall(KSPSetFromOptions(inner));
    PetscCall(KSPGetPC(inner, pc));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* This step projected after all: the projected Hessian at the iterate, and the next exact try
   waits 1, 2, 4, 4 ... steps */
static PetscErrorCode ExactNewtonFallBack(ExactNewton *a)
{
  PetscFunctionBegin;
  a->exact = PETSC_FALSE, a->skip = a->backoff, a->backoff = PetscMin(2 * a->backoff, 4);
  PetscCall(MfadEnergySetPSDProjection(a->E, a->psd, a->eps));
  PetscCall(MfadEnergyComputeHessian(a->E, a->X, a->H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before each linear solve: factor, and if the exact Hessian has a negative pivot, project,
   re-assemble and re-factor */
static PetscErrorCode ExactNewtonPreSolve(KSP ksp, Vec b, Vec x, void *ctx)
{
  ExactNewton *a = (ExactNewton *)ctx;
  PC           pc;
  Mat          F;
  PetscInt     nneg;

  PetscFunctionBegin;
  (void)b, (void)x;
  if (!a->active || !a->exact) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPSetUp(ksp));
  PetscCall(ExactNewtonGetFactorPC(ksp, PETSC_FALSE, &pc));
  PetscCall(PCFactorGetMatrix(pc, &F));
  PetscCall(MatGetInertia(F, &nneg, NULL, NULL)); /* negative pivots of LDL^T: negative eigenvalues */
  if (nneg == 0) {
    a->nexact++;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscInfo(ksp, "the exact Hessian has %" PetscInt_FMT " negative eigenvalues: projected\n", nneg));
  PetscCall(ExactNewtonFallBack(a));
  PetscCall(KSPSetUp(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SNES: before the line search, an exact step that does not descend (F . Y <= 0, the update being
   X - lambda Y) is replaced by the projected one; then the precheck that was there before, if any.
   The factor's inertia said definite, but PETSc's LDL^T does not pivot and can miss a negative
   eigenvalue near zero. */
static PetscErrorCode ExactNewtonPreCheck(SNESLineSearch ls, Vec X, Vec Y, PetscBool *changed, void *ctx)
{
  ExactNewton *a = (ExactNewton *)ctx;
  SNES         snes;
  Vec          F;
  KSP          ksp;
  PetscScalar  d;

  PetscFunctionBegin;
  *changed = PETSC_FALSE;
  if (a->exact) {
    PetscCall(SNESLineSearchGetSNES(ls, &snes));
    PetscCall(SNESGetFunction(snes, &F, NULL, NULL));
    PetscCall(VecDot(F, Y, &d));
    if (PetscRealPart(d) <= 0) {
      PetscCall(PetscInfo(ls, "the exact step does not descend (F . Y = %g): projected\n", (double)PetscRealPart(d)));
      a->nexact--;
      PetscCall(ExactNewtonFallBack(a));
      PetscCall(SNESGetKSP(snes, &ksp));
      PetscCall(KSPSolve(ksp, F, Y));
      *changed = PETSC_TRUE;
    }
  }
  if (a->precheck) {
    PetscBool c = PETSC_FALSE;
    PetscCall(a->precheck(ls, X, Y, &c, a->precheck_ctx));
    *changed = (PetscBool)(*changed || c);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Active when ksp factors the assembled, projected H with MUMPS's or PETSc's Cholesky, alone or
   inside PCREDUNDANT (whose inertia is known; CHOLMOD stops with an error on a matrix that is not
   positive definite). MUMPS pivots; PETSc's LDL^T does not, and its inertia can miss a negative
   eigenvalue near zero (Spot on 2 ranks, PETSc 3.26: 0 negative pivots in the redundant factor where
   1 rank's ordering found 1): an exact step then may not descend */
PetscErrorCode ExactNewtonSetUp(ExactNewton *a, MfadEnergy E, KSP ksp, Mat H, Vec X)
{
  PC            pc;
  PetscBool     chol, shell;
  MatSolverType type = NULL;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(a, sizeof *a));
  a->E = E, a->H = H, a->X = X;
  PetscCall(MfadEnergyGetPSDProjection(E, &a->psd, &a->eps));
  if (!ksp || !H || a->psd == MFAD_PSD_NONE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ExactNewtonGetFactorPC(ksp, PETSC_TRUE, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCCHOLESKY, &chol));
  PetscCall(PetscObjectTypeCompare((PetscObject)H, MATSHELL, &shell));
  if (chol) PetscCall(PCFactorGetMatSolverType(pc, &type));
  a->active = (PetscBool)(chol && !shell && type && (!strcmp(type, MATSOLVERMUMPS) || !strcmp(type, MATSOLVERPETSC)));
  if (a->active) PetscCall(KSPSetPreSolve(ksp, ExactNewtonPreSolve, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExactNewtonSetSNES(ExactNewton *a, SNES snes)
{
  SNESLineSearch ls;

  PetscFunctionBegin;
  if (!a->active) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SNESSetApplicationContext(snes, a));
  PetscCall(SNESSetUpdate(snes, ExactNewtonUpdateSNES));
  PetscCall(SNESGetLineSearch(snes, &ls));
  PetscCall(SNESLineSearchGetPreCheck(ls, &a->precheck, &a->precheck_ctx));
  PetscCall(SNESLineSearchSetPreCheck(ls, ExactNewtonPreCheck, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExactNewtonSetTao(ExactNewton *a, Tao tao)
{
  PetscFunctionBegin;
  if (a->active) PetscCall(TaoSetUpdate(tao, ExactNewtonUpdateTao, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExactNewtonFinish(ExactNewton *a)
{
  PetscFunctionBegin;
  if (a->active) PetscCall(MfadEnergySetPSDProjection(a->E, a->psd, a->eps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExactNewtonSetFactorDefaults(MPI_Comm comm, const char pre[])
{
  /* PETSc's own Cholesky has the inertia too (CHOLMOD stops on an indefinite matrix) */
  const char *solver = MATSOLVERPETSC, *factor = "";
  char        name[64];
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
#if defined(PETSC_HAVE_MUMPS)
  solver = MATSOLVERMUMPS; /* LDL^T with pivoting: its inertia tells an indefinite exact Hessian */
  (void)size;
#else
  /* no parallel Cholesky in this PETSc: on several ranks every rank factors the whole matrix
     (PCREDUNDANT). CG + GAMG on the projected Hessian did not finish tests/meshes/spot_jitter.obj
     (param), and projected Newton-CG was linear on elastic's Spot (not finished in 200 s) */
  if (size > 1) factor = "redundant_";
#endif
  PetscCall(PetscSNPrintf(name, sizeof name, "%sksp_type", pre));
  PetscCall(DefaultOption(name, "preonly"));
  PetscCall(PetscSNPrintf(name, sizeof name, "%spc_type", pre));
  PetscCall(DefaultOption(name, factor[0] ? "redundant" : "cholesky"));
  if (factor[0]) {
    PetscCall(PetscSNPrintf(name, sizeof name, "%s%spc_type", pre, factor));
    PetscCall(DefaultOption(name, "cholesky"));
  }
  PetscCall(PetscSNPrintf(name, sizeof name, "%s%spc_factor_mat_solver_type", pre, factor));
  PetscCall(DefaultOption(name, solver));
  if (!strcmp(solver, MATSOLVERMUMPS)) { /* the inertia on several ranks needs it */
    PetscCall(PetscSNPrintf(name, sizeof name, "%smat_mumps_icntl_13", pre));
    PetscCall(DefaultOption(name, "1"));
  } else { /* nested dissection: the natural order fills in */
    PetscCall(PetscSNPrintf(name, sizeof name, "%s%spc_factor_mat_ordering_type", pre, factor));
    PetscCall(DefaultOption(name, MATORDERINGND));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
