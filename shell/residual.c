// SPDX-License-Identifier: BSD-2-Clause
/* The least-squares residual's Jacobian for PETSc: a MATSHELL whose MatMult is the JVP (one
   dual-number pass per element) and MatMultTranspose the VJP, or the assembled AIJ; and TAO's
   nonlinear least-squares callbacks (TaoSetResidualRoutine, TaoSetJacobianResidualRoutine: brgn). */
#include "shellimpl.h"

#define MFAD_JSHELL_COOKIE 0x6d666a73 /* "mfjs" */

typedef struct {
  int        cookie;
  MfadEnergy E;
  Vec        X;
} MfadJacobianShell;

static PetscErrorCode MfadJShellMult_Private(Mat J, Vec V, Vec Y)
{
  MfadJacobianShell *s;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(J, &s));
  PetscCall(MfadEnergyComputeResidualJacobianProduct(s->E, s->X, V, Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadJShellMultTranspose_Private(Mat J, Vec W, Vec Y)
{
  MfadJacobianShell *s;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(J, &s));
  PetscCall(MfadEnergyComputeResidualJacobianTransposeProduct(s->E, s->X, W, Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadJShellDestroy_Private(void *ctx)
{
  MfadJacobianShell *s = (MfadJacobianShell *)MfadCtxDestroyArg(ctx);

  PetscFunctionBegin;
  PetscCall(VecDestroy(&s->X));
  PetscCall(MfadEnergyDestroy(&s->E));
  PetscCall(PetscFree(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCreateResidualJacobianShell(MfadEnergy E, Mat *J)
{
  MfadJacobianShell *s;
  MPI_Comm           comm;
  PetscInt           dof, n, N, m, M;

  PetscFunctionBegin;
  MfadValidPointer(J, 2);
  PetscCall(MfadEnergyGetResidualSizes(E, &m, &M));
  PetscCall(MfadEnergyGetComm(E, &comm));
  PetscCheck(M > 0, comm, PETSC_ERR_ARG_WRONGSTATE, "MfadEnergyCreateResidualJacobianShell: the energy has no least-squares residual term");
  PetscCall(MfadEnergyGetSizes(E, &dof, &n, &N));
  PetscCall(PetscNew(&s));
  PetscCall(MfadEnergyReference(E));
  s->cookie = MFAD_JSHELL_COOKIE;
  s->E      = E;
  PetscCall(MfadEnergyCreateVecs(E, &s->X, NULL));
  PetscCall(VecZeroEntries(s->X));
  PetscCall(MatCreateShell(comm, m, n * dof, M, N * dof, s, J));
  PetscCall(MatShellSetContextDestroy(*J, MfadJShellDestroy_Private));
  PetscCall(MatShellSetOperation(*J, MATOP_MULT, (void (*)(void))MfadJShellMult_Private));
  PetscCall(MatShellSetOperation(*J, MATOP_MULT_TRANSPOSE, (void (*)(void))MfadJShellMultTranspose_Private));
  PetscCall(MatSetUp(*J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadResidualJacobianSetPoint(Mat J, MfadEnergy E, Vec X)
{
  PetscBool shell;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(J, MAT_CLASSID, 1);
  PetscValidHeaderSpecific(X, VEC_CLASSID, 3);
  PetscCall(PetscObjectTypeCompare((PetscObject)J, MATSHELL, &shell));
  if (shell) {
    MfadJacobianShell *s;
    PetscCall(MatShellGetContext(J, &s));
    PetscCheck(s && s->cookie == MFAD_JSHELL_COOKIE && s->E == E, PetscObjectComm((PetscObject)J), PETSC_ERR_ARG_WRONG,
               "MfadResidualJacobianSetPoint: not a residual Jacobian shell of this energy (MfadEnergyCreateResidualJacobianShell())");
    PetscCall(VecCopy(X, s->X));
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  } else PetscCall(MfadEnergyComputeResidualJacobian(E, X, J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The fixed dofs as TAO variable bounds, lower = upper = the value (-inf, +inf elsewhere): the
   residual reads fixed dofs at their values whatever X holds, so nothing in it holds them, and
   brgn's regulariser (l2prox, first centred at 0) moved them (a user's program got them at ~0 and
   an objective of 1.54 for 0.0389); bounded Newton (brgn's subsolver, bnls) keeps them at their
   values. Refreshed at each residual, so that fixed values moved between solves are seen. */
static PetscErrorCode MfadTaoFixedBounds_Private(Tao tao, MfadEnergy E, PetscBool create)
{
  Vec       XL = NULL, XU = NULL;
  PetscReal lmax;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)tao, "MfadFixedLower", (PetscObject *)&XL));
  PetscCall(PetscObjectQuery((PetscObject)tao, "MfadFixedUpper", (PetscObject *)&XU));
  if (!XL && !create) PetscFunctionReturn(PETSC_SUCCESS);
  if (!XL) {
    PetscCall(MfadEnergyCreateVecs(E, &XL, &XU));
    PetscCall(VecSet(XL, PETSC_NINFINITY));
    PetscCall(MfadEnergyApplyFixedValues(E, XL));
    PetscCall(VecMax(XL, NULL, &lmax));
    if (lmax > PETSC_NINFINITY) { /* some dof is fixed */
      PetscCall(PetscObjectCompose((PetscObject)tao, "MfadFixedLower", (PetscObject)XL));
      PetscCall(PetscObjectCompose((PetscObject)tao, "MfadFixedUpper", (PetscObject)XU));
      PetscCall(TaoSetVariableBounds(tao, XL, XU));
    }
    PetscCall(VecDestroy(&XL));
    PetscCall(VecDestroy(&XU));
    PetscCall(PetscObjectQuery((PetscObject)tao, "MfadFixedLower", (PetscObject *)&XL));
    PetscCall(PetscObjectQuery((PetscObject)tao, "MfadFixedUpper", (PetscObject *)&XU));
    if (!XL) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecSet(XL, PETSC_NINFINITY));
  PetscCall(VecSet(XU, PETSC_INFINITY));
  PetscCall(MfadEnergyApplyFixedValues(E, XL));
  PetscCall(MfadEnergyApplyFixedValues(E, XU));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadTaoResidual_Private(Tao tao, Vec X, Vec R, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(MfadTaoFixedBounds_Private(tao, (MfadEnergy)ctx, PETSC_FALSE));
  PetscCall(MfadEnergyComputeResidual((MfadEnergy)ctx, X, R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadTaoResidualJacobian_Private(Tao tao, Vec X, Mat J, Mat P, void *ctx)
{
  PetscFunctionBegin;
  (void)tao;
  PetscCall(MfadResidualJacobianSetPoint(J, (MfadEnergy)ctx, X));
  if (P && P != J) PetscCall(MfadResidualJacobianSetPoint(P, (MfadEnergy)ctx, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetTaoResidual(MfadEnergy E, Tao tao)
{
  Vec             R;
  Mat             J;
  PetscBool       shell, aij_default, set[MFAD_SOLVER_OPTIONS];
  MfadOptionValue v[MFAD_SOLVER_OPTIONS] = {{0}};

  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 2);
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadTaoResidualSetDefaults_Private(E, tao, &aij_default));
  v[MFAD_SOLVER_OPTION_JACOBIAN].i = aij_default ? 1 : 0; /* shell, aij */
  PetscCall(MfadSolverOptionsRead_Private(E, v, set));
  shell = (PetscBool)(v[MFAD_SOLVER_OPTION_JACOBIAN].i == 0);
  PetscCall(MfadEnergyCreateResidualVec(E, &R));
  if (shell) PetscCall(MfadEnergyCreateResidualJacobianShell(E, &J));
  else PetscCall(MfadEnergyCreateResidualJacobian(E, &J));
  PetscCall(TaoSetResidualRoutine(tao, R, MfadTaoResidual_Private, E));
  PetscCall(TaoSetJacobianResidualRoutine(tao, J, J, MfadTaoResidualJacobian_Private, E));
  PetscCall(MfadTaoFixedBounds_Private(tao, E, PETSC_TRUE));
  PetscCall(MfadEnergyAttach_Private(E, (PetscObject)tao));
  PetscCall(MfadMonitorSetFromOptions_Private(E, (PetscObject)tao));
  PetscCall(VecDestroy(&R));
  PetscCall(MatDestroy(&J));
  PetscFunctionReturn(PETSC_SUCCESS);
}
