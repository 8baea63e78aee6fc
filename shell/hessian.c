// SPDX-License-Identifier: BSD-2-Clause
/* The Hessian as a MATSHELL: MatMult is the fused forward-over-forward HVP at a stored point;
   the diagonal (Jacobi) and the inverted vertex blocks (point-block Jacobi) come from element
   Hessians. MatMultTranspose is MatMult, except for a system's Jacobian (src/residual.c). The cached form (shell/cached.c) is the same
   MATSHELL with products from stored element Hessians; both share the point and the block
   inversion. */
#include "shellimpl.h"

PetscErrorCode MfadShellGetContext_Private(Mat H, MfadShell **s)
{
  PetscBool shell;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(H, MAT_CLASSID, 1);
  PetscCall(PetscObjectTypeCompare((PetscObject)H, MATSHELL, &shell));
  *s = NULL;
  if (shell) PetscCall(MatShellGetContext(H, s));
  PetscCheck(*s && (*s)->cookie == MFAD_SHELL_COOKIE, PetscObjectComm((PetscObject)H), PETSC_ERR_ARG_WRONG, "not an mfad Hessian shell (use MfadEnergyCreateHessianShell() or MfadEnergyCreateHessianCached())");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A product at the stored point with other elements than the point's (an element set changed
   inside a linear solve) would be the Hessian of no function the solver sees: an error. */
PetscErrorCode MfadShellCheckElements_Private(MfadShell *s, const char *what)
{
  PetscInt state;

  PetscFunctionBegin;
  PetscCall(MfadEnergyGetElementsState(s->E, &state));
  PetscCheck(state == s->elements_state, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "%s: an element set changed (MfadEnergySetTermElements()) after the Hessian's point was set, e.g. during a linear solve; set the point again (MfadHessianSetPoint()) after changing elements", what);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadShellMult_Private(Mat H, Vec V, Vec Y)
{
  MfadShell *s;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(H, &s));
  PetscCall(MfadShellCheckElements_Private(s, "MatMult of the mfad Hessian shell"));
  PetscCall(MfadEnergyComputeHessianProduct(s->E, s->X, V, Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadShellMultTranspose_Private(Mat H, Vec V, Vec Y)
{
  MfadShell *s;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(H, &s));
  PetscCall(MfadEnergyComputeHessianTransposeProduct(s->E, s->X, V, Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadShellGetDiagonal_Private(Mat H, Vec D)
{
  MfadShell *s;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(H, &s));
  PetscCall(MfadEnergyComputeHessianDiagonal(s->E, s->X, D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* In-place inverse of a dense bs x bs block by Gauss-Jordan with partial pivoting (bs <= 3). */
static PetscErrorCode MfadInvertBlock_Private(PetscInt bs, PetscScalar *A, PetscInt vertex)
{
  PetscInt    perm[3] = {0, 1, 2};
  PetscScalar a[9];
  PetscReal   scale = 0.0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < bs * bs; i++) {
    a[i]  = A[i];
    scale = PetscMax(scale, PetscAbsScalar(A[i]));
  }
  for (PetscInt k = 0; k < bs; k++) {
    PetscInt  p = k;
    PetscReal piv;
    for (PetscInt i = k + 1; i < bs; i++)
      if (PetscAbsScalar(a[i * bs + k]) > PetscAbsScalar(a[p * bs + k])) p = i;
    piv = PetscAbsScalar(a[p * bs + k]);
    PetscCheck(piv > 1e3 * PETSC_MACHINE_EPSILON * scale && piv > 0.0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT,
               "point-block Jacobi: the Hessian block of vertex %" PetscInt_FMT " is singular (pivot %g, block scale %g)", vertex, (double)piv, (double)scale);
    if (p != k) {
      PetscInt t = perm[k];
      perm[k]    = perm[p];
      perm[p]    = t;
      for (PetscInt j = 0; j < bs; j++) {
        PetscScalar s    = a[k * bs + j];
        a[k * bs + j]    = a[p * bs + j];
        a[p * bs + j]    = s;
      }
    }
    {
      const PetscScalar d = 1.0 / a[k * bs + k];
      a[k * bs + k]       = 1.0;
      for (PetscInt j = 0; j < bs; j++) a[k * bs + j] *= d;
      for (PetscInt i = 0; i < bs; i++) {
        if (i == k) continue;
        const PetscScalar f = a[i * bs + k];
        a[i * bs + k]       = 0.0;
        for (PetscInt j = 0; j < bs; j++) a[i * bs + j] -= f * a[k * bs + j];
      }
    }
  }
  /* undo the row permutation as a column permutation of the inverse */
  for (PetscInt i = 0; i < bs; i++)
    for (PetscInt j = 0; j < bs; j++) A[i * bs + perm[j]] = a[i * bs + j];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Inverts the n vertex blocks of H in place (point-block Jacobi), naming a singular one */
PetscErrorCode MfadInvertBlocks_Private(Mat H, PetscInt n, PetscInt dof, PetscScalar blocks[])
{
  PetscInt rstart;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(H, &rstart, NULL));
  for (PetscInt i = 0; i < n; i++) PetscCall(MfadInvertBlock_Private(dof, blocks + (size_t)i * dof * dof, rstart / dof + i));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadShellInvertBlockDiagonal_Private(Mat H, const PetscScalar **values)
{
  MfadShell *s;
  PetscInt   dof, n;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(H, &s));
  PetscCall(MfadEnergyGetSizes(s->E, &dof, &n, NULL));
  if (!s->invblocks) PetscCall(PetscMalloc1((size_t)n * dof * dof, &s->invblocks));
  PetscCall(MfadEnergyComputeHessianBlockDiagonal(s->E, s->X, s->invblocks));
  PetscCall(MfadInvertBlocks_Private(H, n, dof, s->invblocks));
  *values = s->invblocks;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadShellDestroy_Private(void *ctx)
{
  MfadShell *s = (MfadShell *)MfadCtxDestroyArg(ctx);

  PetscFunctionBegin;
  PetscCall(VecDestroy(&s->X));
  PetscCall(PetscFree(s->invblocks));
  PetscCall(MfadEnergyDestroy(&s->E));
  PetscCall(PetscFree(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadShellView_Private(Mat H, PetscViewer viewer)
{
  MfadShell *s;
  PetscBool  ascii;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(H, &s));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (ascii) {
    PetscCall(PetscViewerASCIIPrintf(viewer, s->cached ? "mfad Hessian: products from cached element Hessians\n" : "mfad Hessian: fused forward-over-forward HVP (matrix-free)\n"));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(MfadEnergyView(s->E, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The MATSHELL of either form: context, sizes, symmetry; the caller sets the operations */
PetscErrorCode MfadShellCreate_Private(MfadEnergy E, PetscBool cached, Mat *H)
{
  MfadShell *s;
  MPI_Comm   comm;
  PetscInt   dof, n, N;

  PetscFunctionBegin;
  MfadValidPointer(H, 3);
  PetscCall(MfadEnergyGetComm(E, &comm));
  PetscCall(MfadEnergyGetSizes(E, &dof, &n, &N));
  PetscCall(PetscNew(&s));
  PetscCall(MfadEnergyReference(E));
  s->cookie = MFAD_SHELL_COOKIE;
  s->E      = E;
  s->cached = cached;
  PetscCall(MfadEnergyGetElementsState(E, &s->elements_state));
  PetscCall(MfadEnergyCreateVecs(E, &s->X, NULL));
  PetscCall(VecZeroEntries(s->X));
  PetscCall(MatCreateShell(comm, n * dof, n * dof, N * dof, N * dof, s, H));
  PetscCall(MatShellSetContextDestroy(*H, MfadShellDestroy_Private));
  PetscCall(MatSetBlockSize(*H, dof));
  {
    PetscBool sym;
    PetscCall(MfadEnergyIsSymmetric(E, &sym));
    PetscCall(MatSetOption(*H, MAT_SYMMETRIC, sym));
    PetscCall(MatSetOption(*H, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCreateHessianShell(MfadEnergy E, Mat *H)
{
  PetscFunctionBegin;
  PetscCall(MfadShellCreate_Private(E, PETSC_FALSE, H));
  PetscCall(MatShellSetOperation(*H, MATOP_MULT, (void (*)(void))MfadShellMult_Private));
  PetscCall(MatShellSetOperation(*H, MATOP_MULT_TRANSPOSE, (void (*)(void))MfadShellMultTranspose_Private));
  PetscCall(MatShellSetOperation(*H, MATOP_GET_DIAGONAL, (void (*)(void))MfadShellGetDiagonal_Private));
  PetscCall(MatShellSetOperation(*H, MATOP_INVERT_BLOCK_DIAGONAL, (void (*)(void))MfadShellInvertBlockDiagonal_Private));
  PetscCall(MatShellSetOperation(*H, MATOP_VIEW, (void (*)(void))MfadShellView_Private));
  PetscCall(MatSetUp(*H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadHessianShellSetPoint(Mat H, Vec X)
{
  MfadShell *s;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(H, MAT_CLASSID, 1);
  PetscValidHeaderSpecific(X, VEC_CLASSID, 2);
  PetscCall(MfadShellGetContext_Private(H, &s));
  PetscCall(VecCopy(X, s->X));
  PetscCall(MfadEnergyGetElementsState(s->E, &s->elements_state));
  /* the cached form computes its element Hessians now: once per point, timed with the Jacobian */
  if (s->cached) PetscCall(MfadEnergyComputeHessianCache(s->E, s->X));
  PetscCall(MatAssemblyBegin(H, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(H, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadHessianShellGetPoint(Mat H, Vec *X)
{
  MfadShell *s;

  PetscFunctionBegin;
  PetscCall(MfadShellGetContext_Private(H, &s));
  *X = s->X;
  PetscFunctionReturn(PETSC_SUCCESS);
}
