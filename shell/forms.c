// SPDX-License-Identifier: BSD-2-Clause
/* The Hessian forms a solver can get: shell (fused HVP), cached (stored element Hessians) and aij
   (assembled by COO), chosen separately for the operator (-mfad_hessian) and the preconditioning
   matrix (-mfad_pmat), and brought to a new point together. */
#include "shellimpl.h"

const char *const MfadHessianTypes[] = {"shell", "cached", "aij", "auto", "MfadHessianType", "MFAD_HESSIAN_", NULL};

PetscErrorCode MfadEnergyCreateHessianMat(MfadEnergy E, MfadHessianType type, Mat *H)
{
  PetscFunctionBegin;
  MfadValidPointer(H, 3);
  switch (type) {
  case MFAD_HESSIAN_SHELL:
    PetscCall(MfadEnergyCreateHessianShell(E, H));
    break;
  case MFAD_HESSIAN_CACHED:
    PetscCall(MfadEnergyCreateHessianCached(E, H));
    break;
  case MFAD_HESSIAN_AIJ:
    PetscCall(MfadEnergyCreateMatrix(E, H));
    PetscCall(MfadEnergyAttach_Private(E, (PetscObject)*H)); /* MfadHessianSetPoint() finds E */
    break;
  case MFAD_HESSIAN_AUTO:
    PetscCall(MfadEnergyCreateHessianAuto(E, H));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergyCreateHessianMat: unknown Hessian type %d", (int)type);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The assembled form of a Hessian that only a Krylov method applies: in the format with the faster
   product (MfadEnergyGetOperatorMatType_Private(): for several unknowns per vertex sbaij on one rank, baij
   on several; -mat_type still decides) */
PetscErrorCode MfadEnergyCreateOperatorMat_Private(MfadEnergy E, Mat *H)
{
  MatType type;

  PetscFunctionBegin;
  PetscCall(MfadEnergyGetOperatorMatType_Private(E, &type));
  PetscCall(MfadEnergyCreateMatrixOfType_Private(E, type, H));
  PetscCall(MfadEnergyAttach_Private(E, (PetscObject)*H)); /* MfadHessianSetPoint() finds E */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetHessianType(MfadEnergy E, MfadHessianType jac, MfadHessianType pmat)
{
  PetscFunctionBegin;
  PetscCheck(jac >= MFAD_HESSIAN_SHELL && jac <= MFAD_HESSIAN_AUTO && pmat >= MFAD_HESSIAN_SHELL && pmat <= MFAD_HESSIAN_AUTO, PETSC_COMM_SELF,
             PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergySetHessianType: unknown form %d or %d", (int)jac, (int)pmat);
  PetscCall(MfadEnergySetHessianTypes_Private(E, (PetscInt)jac, (PetscInt)pmat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetHessianType(MfadEnergy E, MfadHessianType *jac, MfadHessianType *pmat, PetscBool *set)
{
  PetscInt j, p;

  PetscFunctionBegin;
  PetscCall(MfadEnergyGetHessianTypes_Private(E, &j, &p));
  if (jac) *jac = j >= 0 ? (MfadHessianType)j : MFAD_HESSIAN_SHELL;
  if (pmat) *pmat = p >= 0 ? (MfadHessianType)p : MFAD_HESSIAN_SHELL;
  if (set) *set = (PetscBool)(j >= 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadHessianSetPoint(Mat H, Vec X)
{
  PetscBool      shell, isauto;
  MfadEnergy     E;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(H, MAT_CLASSID, 1);
  PetscValidHeaderSpecific(X, VEC_CLASSID, 2);
  PetscCall(MfadHessianIsAuto_Private(H, &isauto));
  if (isauto) {
    PetscCall(MfadAutoSetPoint_Private(H, X));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)H, MATSHELL, &shell));
  if (shell) {
    PetscCall(MfadHessianShellSetPoint(H, X));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MfadEnergyQueryAttached_Private((PetscObject)H, &E));
  PetscCheck(E, PetscObjectComm((PetscObject)H), PETSC_ERR_ARG_WRONG, "MfadHessianSetPoint: not a Hessian made by MfadEnergyCreateHessianMat()");
  PetscCall(MfadEnergyComputeHessian(E, X, H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads -mfad_hessian (default: jdefault) and -mfad_pmat (default: pdefault where that is >= 0
   and no form was set in code, else the operator's form) and makes the matrices; P is J when the
   forms agree. A PSD projection needs an explicit form to act on. */
PetscErrorCode MfadEnergyCreateJacobians_Private(MfadEnergy E, MfadHessianType jdefault, PetscInt pdefault, Mat *J, Mat *P)
{
  MfadHessianType   jtype = jdefault, ptype;
  MfadPSDProjection psd;
  MPI_Comm          comm;
  PetscInt          jcode, pcode;
  MfadOptionValue   v[MFAD_SOLVER_OPTIONS] = {{0}};
  PetscBool         set[MFAD_SOLVER_OPTIONS];

  PetscFunctionBegin;
  PetscCall(MfadEnergyGetHessianTypes_Private(E, &jcode, &pcode));
  if (jcode >= 0) jtype = (MfadHessianType)jcode;
  PetscCall(MfadEnergyGetComm(E, &comm));
  /* one form set in code for both (pcode == jcode) follows -mfad_hessian; a different one stays */
  v[MFAD_SOLVER_OPTION_HESSIAN].i = (PetscInt)jtype;
  v[MFAD_SOLVER_OPTION_PMAT].i    = (pcode >= 0 && pcode != jcode) ? pcode : (pdefault >= 0 && jcode < 0) ? pdefault : (PetscInt)jtype;
  PetscCall(MfadSolverOptionsRead_Private(E, v, set));
  jtype = (MfadHessianType)v[MFAD_SOLVER_OPTION_HESSIAN].i;
  ptype = (MfadHessianType)v[MFAD_SOLVER_OPTION_PMAT].i;
  if (!set[MFAD_SOLVER_OPTION_PMAT] && !(pcode >= 0 && pcode != jcode) && !(pdefault >= 0 && jcode < 0)) ptype = jtype; /* the operator's, as given */
  PetscCall(MfadEnergyGetPSDProjection(E, &psd, NULL));
  PetscCheck(psd == MFAD_PSD_NONE || jtype != MFAD_HESSIAN_SHELL || ptype != MFAD_HESSIAN_SHELL, comm, PETSC_ERR_ARG_INCOMP,
             "-mfad_psd_project %s with -mfad_hessian shell and -mfad_pmat shell: the shell applies the fused HVP and never forms element Hessians, so there is nothing to project; "
             "use -mfad_hessian cached|aij or -mfad_pmat cached|aij",
             MfadPSDProjections[psd]);
  /* an assembled operator beside another preconditioning matrix is only applied: the faster product */
  if (jtype == MFAD_HESSIAN_AIJ && ptype != jtype) PetscCall(MfadEnergyCreateOperatorMat_Private(E, J));
  else PetscCall(MfadEnergyCreateHessianMat(E, jtype, J));
  if (ptype == jtype) {
    PetscCall(PetscObjectReference((PetscObject)*J));
    *P = *J;
  } else PetscCall(MfadEnergyCreateHessianMat(E, ptype, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Both matrices at X. After a cached J, P is brought to J's stored copy of X: an assembled P then
   takes the element Hessians from the cache instead of computing them again. */
PetscErrorCode MfadJacobiansSetPoint_Private(Mat J, Mat P, Vec X)
{
  PetscBool shell, mffd, isauto;

  PetscFunctionBegin;
  /* -snes_mf_operator: J is PETSc's finite-difference operator, P is ours; assembling J is what
     moves its base point to the current solution (PETSc's own contract for such callbacks) */
  PetscCall(PetscObjectTypeCompare((PetscObject)J, MATMFFD, &mffd));
  if (mffd) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
    if (P != J) PetscCall(MfadHessianSetPoint(P, X));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MfadHessianSetPoint(J, X));
  if (P == J) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)J, MATSHELL, &shell));
  PetscCall(MfadHessianIsAuto_Private(J, &isauto));
  if (isauto) PetscCall(MfadAutoGetPoint_Private(J, &X));
  else if (shell) PetscCall(MfadHessianShellGetPoint(J, &X));
  PetscCall(MfadHessianSetPoint(P, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}
