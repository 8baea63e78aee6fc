// SPDX-License-Identifier: BSD-2-Clause
/* SNES glue: function = gradient, objective = energy (line searches), Jacobian = the Hessian forms
   chosen by -mfad_hessian and -mfad_pmat. */
#include "shellimpl.h"

/* An invalid state (an inverted element, E = +inf) stands as a huge finite energy for SNES:
   PETSc's backtracking then fits its polynomial through it and cuts the step by 10 at once,
   where +inf makes it halve the step until finite and then often fail (seen with 3.18 on the
   elastic bar at 200 g: 24 Newton steps to convergence against a line search failure). */
#define MFAD_SNES_INVALID_OBJECTIVE 1e100

static PetscErrorCode MfadSNESObjective_Private(SNES snes, Vec X, PetscReal *f, void *ctx)
{
  PetscFunctionBegin;
  (void)snes;
  PetscCall(MfadEnergyComputeObjective((MfadEnergy)ctx, X, f));
  if (PetscIsInfOrNanReal(*f)) {
    PetscCall(PetscInfo(snes, "mfad: invalid element at the trial point, objective %g\n", (double)MFAD_SNES_INVALID_OBJECTIVE));
    *f = MFAD_SNES_INVALID_OBJECTIVE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadSNESFunction_Private(SNES snes, Vec X, Vec F, void *ctx)
{
  MfadEnergy E = (MfadEnergy)ctx;
  PetscBool  bad;

  PetscFunctionBegin;
  PetscCall(MfadEnergyComputeGradient(E, X, F));
  PetscCall(MfadEnergyGetDomainError(E, &bad));
  if (bad) PetscCall(SNESSetFunctionDomainError(snes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mfad_psd_project_steps: this Newton step's projection (MfadEnergySetPSDProjectionSteps()) */
static PetscErrorCode MfadSNESChooseProjection_Private(SNES snes, MfadEnergy E)
{
  KSP                ksp;
  KSPConvergedReason kr;
  PetscInt           it;

  PetscFunctionBegin;
  PetscCall(SNESGetIterationNumber(snes, &it));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPGetConvergedReason(ksp, &kr));
  PetscCall(MfadEnergyChooseProjection_Private(E, it, (PetscBool)(it > 0 && kr < 0)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadSNESJacobian_Private(SNES snes, Vec X, Mat J, Mat P, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(MfadSNESChooseProjection_Private(snes, (MfadEnergy)ctx));
  PetscCall(MfadJacobiansSetPoint_Private(J, P, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadEnergyContainerDestroy_Private(void *arg)
{
  MfadEnergy E = (MfadEnergy)MfadCtxDestroyArg(arg);

  PetscFunctionBegin;
  PetscCall(MfadEnergyDestroy(&E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Keeps a reference to E on `obj` (a SNES or Tao), dropped when obj is destroyed. */
PETSC_INTERN PetscErrorCode MfadEnergyAttach_Private(MfadEnergy E, PetscObject obj)
{
  PetscContainer holder;

  PetscFunctionBegin;
  PetscCall(MfadEnergyReference(E));
  PetscCall(PetscContainerCreate(PetscObjectComm(obj), &holder));
  PetscCall(PetscContainerSetPointer(holder, E));
  PetscCall(MfadContainerSetCtxDestroy(holder, MfadEnergyContainerDestroy_Private));
  PetscCall(PetscObjectCompose(obj, "MfadEnergy", (PetscObject)holder));
  PetscCall(PetscContainerDestroy(&holder));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetSNES(MfadEnergy E, SNES snes)
{
  Mat J, P;
  Vec F;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(snes, SNES_CLASSID, 2);
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadEnergyCreateJacobians_Private(E, &J, &P));
  PetscCall(MfadEnergyCreateVecs(E, NULL, &F));
  PetscCall(SNESSetFunction(snes, F, MfadSNESFunction_Private, E));
  PetscCall(SNESSetObjective(snes, MfadSNESObjective_Private, E));
  PetscCall(SNESSetJacobian(snes, J, P, MfadSNESJacobian_Private, E));
  PetscCall(MfadEnergyAttach_Private(E, (PetscObject)snes));
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
    /* every form has its diagonal; a shell has no factorisation: Jacobi unless the user says otherwise */
    KSP ksp;
    PC  pc;
    PetscCall(SNESGetKSP(snes, &ksp));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
  }
  PetscCall(VecDestroy(&F));
  PetscCall(MatDestroy(&J));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}
