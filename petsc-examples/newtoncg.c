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

/* Where CG meets negative curvature, PETSc's stcg without a radius returns its iterate before
   that direction, a partial Newton step, or nothing at all where the very first direction has
   negative curvature (DIVERGED_LINE_SEARCH on a zero step, seen on sphere -shape fingers); on an
   indefinite H CG may also diverge (DIVERGED_DTOL). The projected Newton step z = P^{-1} g (P the
   preconditioner) replaces a failed CG's step, and CG's partial step where its quadratic model
   m(y) = -g.y + y.H y / 2 (the SNES step is X - y) is lower (always lower than a zero step). */
static PetscErrorCode NewtonCGPostSolve(KSP ksp, Vec g, Vec y, void *ctx)
{
  KSPConvergedReason reason;
  PC                 pc;
  Mat                H;
  Vec                z, w;
  PetscScalar        gy, gz, yhy, zhz;
  NewtonCG          *ncg = (NewtonCG *)ctx;

  PetscFunctionBeginUser;
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  if (reason != NEWTONCG_KSP_NEG_CURVE && reason >= 0) {
    PetscCall(VecDot(g, y, &gy));
    ncg->slope = PetscAbsScalar(gy);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(KSPGetOperators(ksp, &H, NULL));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(PCApply(pc, g, z));
  if (reason > 0) {
    PetscCall(VecDuplicate(y, &w));
    PetscCall(MatMult(H, y, w));
    PetscCall(VecDot(y, w, &yhy));
    PetscCall(MatMult(H, z, w));
    PetscCall(VecDot(z, w, &zhz));
    PetscCall(VecDot(g, y, &gy));
    PetscCall(VecDot(g, z, &gz));
    PetscCall(VecDestroy(&w));
  }
  if (reason < 0 || PetscRealPart(-gz + zhz / 2) < PetscRealPart(-gy + yhy / 2)) {
    PetscCall(VecCopy(z, y));
    ncg->nfallback++;
  }
  PetscCall(VecDot(g, y, &gy));
  ncg->slope = PetscAbsScalar(gy);
  PetscCall(VecDestroy(&z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode NewtonCGSetSNES(NewtonCG *ncg, SNES snes)
{
  KSP         ksp;
  PC          pc;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  ncg->nfallback = 0;
  ncg->slope     = PETSC_MAX_REAL;
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
     35k-vertex bunny: 47 s symbolic and 31 s numeric, against MUMPS's 0.4 s and 7 s). Energies
     with a null direction everywhere (arap_surface: the turn of a cell about its only positive-
     weight edge, 2 cells of the bunny) make the projected Hessian singular: MUMPS's null pivot
     detection, PETSc's shift of a zero pivot (without: NaN at the first step) */
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
