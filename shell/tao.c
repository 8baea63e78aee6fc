// SPDX-License-Identifier: BSD-2-Clause
/* TAO glue: objective and gradient in one pass, Hessian = the forms of -mfad_hessian, -mfad_pmat. */
#include "shellimpl.h"

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

/* TAO's Newton methods pick their preconditioner before the Hessian exists (ILU or block
   Jacobi, neither of which can factor a shell): Jacobi instead, unless the user chose one or the
   preconditioning matrix is assembled. */
static PetscErrorCode MfadTaoDefaultPC_Private(Tao tao, Mat P)
{
  KSP         ksp;
  PC          pc;
  PetscBool   set, factor;
  const char *prefix;
  char        opt[256];

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSHELL, &factor));
  if (!factor) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(TaoGetKSP(tao, &ksp));
  if (!ksp) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%spc_type", prefix ? prefix : ""));
  PetscCall(PetscOptionsHasName(NULL, NULL, opt, &set));
  if (set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)pc, &factor, PCILU, PCICC, PCBJACOBI, PCLU, PCCHOLESKY, ""));
  if (factor) PetscCall(PCSetType(pc, PCJACOBI));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadTaoHessian_Private(Tao tao, Vec X, Mat H, Mat P, void *ctx)
{
  PetscFunctionBegin;
  (void)ctx;
  PetscCall(MfadTaoDefaultPC_Private(tao, P));
  PetscCall(MfadJacobiansSetPoint_Private(H, P, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetTao(MfadEnergy E, Tao tao)
{
  Mat H, P;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 2);
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadEnergyCreateJacobians_Private(E, &H, &P));
  PetscCall(TaoSetObjective(tao, MfadTaoObjective_Private, E));
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, MfadTaoObjectiveGradient_Private, E));
  PetscCall(TaoSetHessian(tao, H, P, MfadTaoHessian_Private, E));
  PetscCall(MfadEnergyAttach_Private(E, (PetscObject)tao));
  PetscCall(MatDestroy(&H));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}
