// SPDX-License-Identifier: BSD-2-Clause
/* The bodies of bilaplacian.h (declared and described there): part of the examples' compiled helper
   library (petsc-examples/CMakeLists.txt). */
#include "bilaplacian.h"

PetscErrorCode BilapProduct_Private(Bilap b, Vec v, Vec u)
{
  PetscFunctionBeginUser;
  PetscCall(VecPointwiseMult(b->t, b->mask, v));
  PetscCall(MfadEnergyComputeHessianProduct(b->D, b->xp, b->t, u));
  PetscCall(VecPointwiseMult(u, u, b->w));
  PetscCall(MfadEnergyComputeHessianProduct(b->D, b->xp, u, b->t));
  PetscCall(VecPointwiseMult(u, b->t, b->mask));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapMatMult_Private(Mat H, Vec v, Vec y)
{
  Bilap b;

  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(H, &b));
  PetscCall(BilapProduct_Private(b, v, b->u));
  PetscCall(MfadEnergyComputeHessianProduct(b->E, b->xp, v, y));
  PetscCall(VecAXPY(y, b->lambda, b->u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapMatGetDiagonal_Private(Mat H, Vec d)
{
  Bilap b;

  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(H, &b));
  PetscCall(MfadEnergyComputeHessianDiagonal(b->E, b->xp, d));
  PetscCall(VecAXPY(d, 1.0, b->diag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapSetUp_Private(Bilap b)
{
  Mat                L, HE;
  Vec                sw;
  PetscReal         *norms;
  PetscScalar       *d;
  const PetscScalar *mask;
  PetscInt           rstart, rend, N, nfix = 0, *fix;

  PetscFunctionBeginUser;
  PetscCall(VecZeroEntries(b->xp));
  PetscCall(MfadEnergyCreateMatrix(b->D, &HE));
  PetscCall(MfadEnergyComputeHessian(b->D, b->xp, HE));
  PetscCall(MatConvert(HE, MATAIJ, MAT_INITIAL_MATRIX, &L));
  PetscCall(MatDestroy(&HE));
  PetscCall(VecDuplicate(b->w, &sw));
  PetscCall(VecCopy(b->w, sw));
  PetscCall(VecSqrtAbs(sw));
  PetscCall(MatDiagonalScale(L, sw, NULL)); /* L <- W^1/2 L */
  PetscCall(VecDestroy(&sw));
  /* diag(L W L)_i = sum_k w_k L_ki^2, the squared 2-norm of column i of W^1/2 L (PETSc returns all N
     columns on every rank: fine for the example's meshes) */
  PetscCall(MatGetSize(L, NULL, &N));
  PetscCall(MatGetOwnershipRange(L, &rstart, &rend));
  PetscCall(PetscMalloc2(N, &norms, rend - rstart, &fix));
  PetscCall(MatGetColumnNorms(L, NORM_2, norms));
  PetscCall(VecGetArray(b->diag, &d));
  PetscCall(VecGetArrayRead(b->mask, &mask));
  for (PetscInt i = rstart; i < rend; i++) {
    d[i - rstart] = b->lambda * PetscRealPart(mask[i - rstart]) * norms[i] * norms[i];
    if (PetscRealPart(mask[i - rstart]) == 0) fix[nfix++] = i;
  }
  PetscCall(VecRestoreArrayRead(b->mask, &mask));
  PetscCall(VecRestoreArray(b->diag, &d));
  if (b->hessian == BILAP_HESSIAN_AIJ || b->pmat == BILAP_HESSIAN_AIJ) {
    PetscCall(MatTransposeMatMult(L, L, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &b->A)); /* L W L */
    PetscCall(MatZeroRowsColumns(b->A, nfix, fix, 0.0, NULL, NULL));
    PetscCall(MatScale(b->A, b->lambda));
    PetscCall(MfadEnergyCreateMatrix(b->E, &HE));
    PetscCall(MfadEnergyComputeHessian(b->E, b->xp, HE));
    PetscCall(MatAXPY(b->A, 1.0, HE, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatDestroy(&HE));
    PetscCall(MatSetOption(b->A, MAT_SYMMETRIC, PETSC_TRUE));
  }
  PetscCall(PetscFree2(norms, fix));
  PetscCall(MatDestroy(&L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapCreate(MfadEnergy D, MfadEnergy E, PetscReal lambda, Vec w, PetscInt nfix, const PetscInt fixdofs[], Bilap *bilap)
{
  Bilap    b;
  MPI_Comm comm;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&b));
  PetscCall(MfadEnergyReference(D));
  PetscCall(MfadEnergyReference(E));
  b->D = D, b->E = E, b->lambda = lambda;
  PetscCall(MfadEnergyGetComm(E, &comm));
  PetscOptionsBegin(comm, NULL, "Bilaplacian smoothing", NULL);
  PetscCall(
      PetscOptionsEnum("-bilap_hessian", "the Hessian operator", NULL, BilapHessianTypes, (PetscEnum)b->hessian, (PetscEnum *)&b->hessian, NULL));
  b->pmat = b->hessian;
  PetscCall(PetscOptionsEnum("-bilap_pmat", "the preconditioning matrix", NULL, BilapHessianTypes, (PetscEnum)b->pmat, (PetscEnum *)&b->pmat, NULL));
  PetscOptionsEnd();
  PetscCall(VecDuplicate(w, &b->w));
  PetscCall(VecCopy(w, b->w));
  PetscCall(VecDuplicate(w, &b->mask));
  PetscCall(VecSet(b->mask, 1.0));
  for (PetscInt i = 0; i < nfix; i++) PetscCall(VecSetValue(b->mask, fixdofs[i], 0.0, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(b->mask));
  PetscCall(VecAssemblyEnd(b->mask));
  PetscCall(VecDuplicate(w, &b->xt));
  PetscCall(VecDuplicate(w, &b->g));
  PetscCall(VecDuplicate(w, &b->t));
  PetscCall(VecDuplicate(w, &b->u));
  PetscCall(VecDuplicate(w, &b->xp));
  PetscCall(VecDuplicate(w, &b->diag));
  PetscCall(BilapSetUp_Private(b));
  *bilap = b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapDestroy(Bilap *bilap)
{
  Bilap b = *bilap;

  PetscFunctionBeginUser;
  if (!b) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadEnergyDestroy(&b->D));
  PetscCall(MfadEnergyDestroy(&b->E));
  PetscCall(VecDestroy(&b->w));
  PetscCall(VecDestroy(&b->mask));
  PetscCall(VecDestroy(&b->xt));
  PetscCall(VecDestroy(&b->g));
  PetscCall(VecDestroy(&b->t));
  PetscCall(VecDestroy(&b->u));
  PetscCall(VecDestroy(&b->xp));
  PetscCall(VecDestroy(&b->diag));
  PetscCall(MatDestroy(&b->A));
  PetscCall(PetscFree(b));
  *bilap = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapEnergy_Private(Bilap b, Vec X, PetscReal *B)
{
  PetscScalar gtg;

  PetscFunctionBeginUser;
  PetscCall(VecCopy(X, b->xt));
  PetscCall(MfadEnergyApplyFixedValues(b->E, b->xt));
  PetscCall(MfadEnergyComputeGradient(b->D, b->xt, b->g));
  PetscCall(VecPointwiseMult(b->t, b->w, b->g));
  PetscCall(VecDot(b->g, b->t, &gtg));
  *B = 0.5 * PetscRealPart(gtg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapComputeObjective(Bilap b, Vec X, PetscReal *f, PetscReal *Bpart)
{
  PetscReal B = 0, e = 0;

  PetscFunctionBeginUser;
  PetscCall(BilapEnergy_Private(b, X, &B));
  PetscCall(MfadEnergyComputeObjective(b->E, X, &e));
  *f = e + b->lambda * B;
  if (Bpart) *Bpart = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapComputeObjectiveGradient(Bilap b, Vec X, PetscReal *f, Vec G)
{
  PetscReal B = 0, e = 0;

  PetscFunctionBeginUser;
  PetscCall(BilapEnergy_Private(b, X, &B));
  PetscCall(MfadEnergyComputeHessianProduct(b->D, b->xt, b->t, b->u));
  PetscCall(VecPointwiseMult(b->u, b->u, b->mask));
  PetscCall(MfadEnergyComputeObjectiveGradient(b->E, X, &e, G));
  PetscCall(VecAXPY(G, b->lambda, b->u));
  if (f) *f = e + b->lambda * B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapCreateJacobians_Private(Bilap b, Mat *J, Mat *P)
{
  Mat      S = NULL;
  MPI_Comm comm;
  PetscInt dof, n, N;

  PetscFunctionBeginUser;
  PetscCall(MfadEnergyGetComm(b->E, &comm));
  PetscCall(MfadEnergyGetSizes(b->E, &dof, &n, &N));
  if (b->hessian == BILAP_HESSIAN_SHELL || b->pmat == BILAP_HESSIAN_SHELL) {
    PetscCall(MatCreateShell(comm, dof * n, dof * n, dof * N, dof * N, b, &S));
    PetscCall(MatShellSetOperation(S, MATOP_MULT, (void (*)(void))BilapMatMult_Private));
    PetscCall(MatShellSetOperation(S, MATOP_MULT_TRANSPOSE, (void (*)(void))BilapMatMult_Private));
    PetscCall(MatShellSetOperation(S, MATOP_GET_DIAGONAL, (void (*)(void))BilapMatGetDiagonal_Private));
    PetscCall(MatSetOption(S, MAT_SYMMETRIC, PETSC_TRUE));
  }
  *J = b->hessian == BILAP_HESSIAN_SHELL ? S : b->A;
  *P = b->pmat == BILAP_HESSIAN_SHELL ? S : b->A;
  PetscCall(PetscObjectReference((PetscObject)*J));
  PetscCall(PetscObjectReference((PetscObject)*P));
  PetscCall(MatDestroy(&S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapSNESObjective_Private(SNES snes, Vec X, PetscReal *f, void *ctx)
{
  PetscFunctionBeginUser;
  (void)snes;
  PetscCall(BilapComputeObjective((Bilap)ctx, X, f, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapSNESFunction_Private(SNES snes, Vec X, Vec G, void *ctx)
{
  PetscFunctionBeginUser;
  (void)snes;
  PetscCall(BilapComputeObjectiveGradient((Bilap)ctx, X, NULL, G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapSNESJacobian_Private(SNES snes, Vec X, Mat J, Mat P, void *ctx)
{
  PetscFunctionBeginUser;
  (void)snes, (void)J, (void)P;
  PetscCall(VecCopy(X, ((Bilap)ctx)->xp)); /* the assembled form is constant: F is quadratic */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapTaoObjective_Private(Tao tao, Vec X, PetscReal *f, void *ctx)
{
  PetscFunctionBeginUser;
  (void)tao;
  PetscCall(BilapComputeObjective((Bilap)ctx, X, f, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapTaoObjectiveGradient_Private(Tao tao, Vec X, PetscReal *f, Vec G, void *ctx)
{
  PetscFunctionBeginUser;
  (void)tao;
  PetscCall(BilapComputeObjectiveGradient((Bilap)ctx, X, f, G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapTaoHessian_Private(Tao tao, Vec X, Mat J, Mat P, void *ctx)
{
  Bilap       b = (Bilap)ctx;
  KSP         ksp;
  PC          pc;
  const char *prefix;
  PetscBool   set, factor;

  PetscFunctionBeginUser;
  (void)J, (void)P;
  PetscCall(VecCopy(X, b->xp));
  PetscCall(TaoGetKSP(tao, &ksp));
  if (!ksp || b->pmat != BILAP_HESSIAN_SHELL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  PetscCall(PetscOptionsHasName(NULL, prefix, "-pc_type", &set));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)pc, &factor, PCILU, PCICC, PCBJACOBI, PCLU, PCCHOLESKY, ""));
  if (!set && factor) PetscCall(PCSetType(pc, PCJACOBI));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapSetSNES(void *ctx, SNES snes)
{
  Bilap b = (Bilap)ctx;
  Mat   J, P;
  Vec   F;

  PetscFunctionBeginUser;
  PetscCall(BilapCreateJacobians_Private(b, &J, &P));
  PetscCall(VecDuplicate(b->w, &F));
  PetscCall(SNESSetFunction(snes, F, BilapSNESFunction_Private, b));
  PetscCall(SNESSetObjective(snes, BilapSNESObjective_Private, b));
  PetscCall(SNESSetJacobian(snes, J, P, BilapSNESJacobian_Private, b));
  PetscCall(VecDestroy(&F));
  PetscCall(MatDestroy(&J));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BilapSetTao(void *ctx, Tao tao)
{
  Bilap b = (Bilap)ctx;
  Mat   J, P;

  PetscFunctionBeginUser;
  PetscCall(BilapCreateJacobians_Private(b, &J, &P));
  PetscCall(TaoSetObjective(tao, BilapTaoObjective_Private, b));
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, BilapTaoObjectiveGradient_Private, b));
  PetscCall(TaoSetHessian(tao, J, P, BilapTaoHessian_Private, b));
  PetscCall(MatDestroy(&J));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}
