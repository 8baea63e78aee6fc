// SPDX-License-Identifier: BSD-2-Clause
/* What an energy is, from its terms: whether it has an objective (no nonlinear-system term),
   whether its Hessian is symmetric, which term makes its forms Gauss-Newton; the checks that
   refuse an operation the energy does not have. */
#include "mfadimpl.h"

PetscErrorCode MfadEnergyCheckObjective_Private(MfadEnergy E, const char *what)
{
  const PetscInt t = MfadEnergyFirstSystemTerm_Private(E);

  PetscFunctionBegin;
  PetscCheck(t < 0, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_WRONGSTATE,
             "%s: term '%s' is a nonlinear-system residual (F(x) = 0): the energy has no objective; solve it with SNES on the function and Jacobian "
             "(MfadEnergySetSNES() sets no objective then)",
             what, E->terms[t].name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCheckSymmetric_Private(MfadEnergy E, const char *what)
{
  const PetscInt t = MfadEnergyFirstSystemTerm_Private(E);

  PetscFunctionBegin;
  PetscCheck(t < 0, PetscObjectComm((PetscObject)E), PETSC_ERR_SUP,
             "%s: term '%s' is a nonlinear-system residual: its Jacobian is not symmetric (use -mfad_hessian shell or aij/baij, no PSD projection)",
             what, E->terms[t].name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyHasObjective(MfadEnergy E, PetscBool *flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  MfadValidPointer(flg, 2);
  *flg = MfadEnergyFirstSystemTerm_Private(E) < 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyIsSymmetric(MfadEnergy E, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyHasObjective(E, flg)); /* only system terms are not symmetric */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* shell/: the first least-squares term's name, or NULL (its Hessian forms are Gauss-Newton) */
PetscErrorCode MfadEnergyGetLeastSquaresTerm_Private(MfadEnergy E, const char **name)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *name = NULL;
  for (PetscInt t = 0; t < E->nterms && !*name; t++)
    if (MfadTermIsLeastSquares_Private(&E->terms[t])) *name = E->terms[t].name;
  PetscFunctionReturn(PETSC_SUCCESS);
}
