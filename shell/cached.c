// SPDX-License-Identifier: BSD-2-Clause
/* The cached Hessian as a MATSHELL: element Hessians computed once per point (at
   MfadHessianShellSetPoint()), each MatMult a small dense symmetric product per element; the
   diagonal and the inverted vertex blocks come from the same stored element Hessians, so Jacobi
   and point-block Jacobi precondition exactly this operator (PSD-projected or not). */
#include "shellimpl.h"

static PetscErrorCode MfadCachedMult_Private(Mat H, Vec V, Vec Y)
{
  MfadShell *s;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(H, &s));
  PetscCall(MfadShellCheckElements_Private(s, "MatMult of the mfad cached Hessian"));
  PetscCall(MfadEnergyCachedHessianProduct(s->E, s->X, V, Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadCachedGetDiagonal_Private(Mat H, Vec D)
{
  MfadShell *s;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(H, &s));
  PetscCall(MfadEnergyCachedHessianDiagonal(s->E, s->X, D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadCachedInvertBlockDiagonal_Private(Mat H, const PetscScalar **values)
{
  MfadShell *s;
  PetscInt   dof, n;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(H, &s));
  PetscCall(MfadEnergyGetSizes(s->E, &dof, &n, NULL));
  if (!s->invblocks) PetscCall(PetscMalloc1((size_t)n * dof * dof, &s->invblocks));
  PetscCall(MfadEnergyCachedHessianBlockDiagonal(s->E, s->X, s->invblocks));
  PetscCall(MfadInvertBlocks_Private(H, n, dof, s->invblocks));
  *values = s->invblocks;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCreateHessianCached(MfadEnergy E, Mat *H)
{
  PetscFunctionBegin;
  PetscCall(MfadShellCreate_Private(E, PETSC_TRUE, H));
  PetscCall(MatShellSetOperation(*H, MATOP_MULT, (void (*)(void))MfadCachedMult_Private));
  PetscCall(MatShellSetOperation(*H, MATOP_MULT_TRANSPOSE, (void (*)(void))MfadCachedMult_Private));
  PetscCall(MatShellSetOperation(*H, MATOP_GET_DIAGONAL, (void (*)(void))MfadCachedGetDiagonal_Private));
  PetscCall(MatShellSetOperation(*H, MATOP_INVERT_BLOCK_DIAGONAL, (void (*)(void))MfadCachedInvertBlockDiagonal_Private));
  PetscCall(MatShellSetOperation(*H, MATOP_VIEW, (void (*)(void))MfadShellView_Private));
  PetscCall(MatSetUp(*H));
  PetscFunctionReturn(PETSC_SUCCESS);
}
