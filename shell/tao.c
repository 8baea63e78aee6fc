// SPDX-License-Identifier: BSD-2-Clause
/* TAO glue: objective and gradient in one pass, Hessian = the shell. */
#include <mfadpetsc.h>
#include "mfadcompat.h"

PETSC_INTERN PetscErrorCode MfadEnergyAttach_Private(MfadEnergy, PetscObject);
PETSC_INTERN PetscErrorCode MfadEnergyCheckHessianType_Private(MfadEnergy);

static PetscErrorCode MfadTaoObjective_Private(Tao tao, Vec X, PetscReal *f, void *ctx)
{
  PetscFunctionBegin;
  (void)tao;
  PetscCall(MfadEnergyComputeObjective((MfadEnergy)ctx, X, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadTaoObjectiveGradient_Private(Tao tao, Vec X, PetscReal *f, Vec G, void *ctx)
{
  PetscFunctionBegin;
  (void)tao;
  PetscCall(MfadEnergyComputeObjectiveGradient((MfadEnergy)ctx, X, f, G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadTaoHessian_Private(Tao tao, Vec X, Mat H, Mat P, void *ctx)
{
  PetscFunctionBegin;
  (void)tao;
  (void)ctx;
  PetscCall(MfadHessianShellSetPoint(H, X));
  if (P != H) PetscCall(MfadHessianShellSetPoint(P, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetTao(MfadEnergy E, Tao tao)
{
  Mat H;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 2);
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadEnergyCheckHessianType_Private(E));
  PetscCall(MfadEnergyCreateHessianShell(E, &H));
  PetscCall(TaoSetObjective(tao, MfadTaoObjective_Private, E));
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, MfadTaoObjectiveGradient_Private, E));
  PetscCall(TaoSetHessian(tao, H, H, MfadTaoHessian_Private, E));
  PetscCall(MfadEnergyAttach_Private(E, (PetscObject)tao));
  PetscCall(MatDestroy(&H));
  PetscFunctionReturn(PETSC_SUCCESS);
}
