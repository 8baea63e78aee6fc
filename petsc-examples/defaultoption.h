// SPDX-License-Identifier: BSD-2-Clause
/* An example's default for a PETSc option: set in the options database unless the command line (or
   an earlier default) gave it, so that every default stays overridable from the command line. */
#ifndef DEFAULTOPTION_H
#define DEFAULTOPTION_H

#include <mfadpetsc.h> /* PETSC_SUCCESS on PETSc 3.18 too */

static inline PetscErrorCode DefaultOption(const char name[], const char value[])
{
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsHasName(NULL, NULL, name, &set));
  if (!set) PetscCall(PetscOptionsSetValue(NULL, name, value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the command line gave any of the n options: an example keeps a whole default solver only
   where the user chose none of its parts */
static inline PetscErrorCode OptionsAnyGiven(PetscInt n, const char *const names[], PetscBool *any)
{
  PetscBool set;

  PetscFunctionBegin;
  *any = PETSC_FALSE;
  for (PetscInt i = 0; i < n && !*any; i++) {
    PetscCall(PetscOptionsHasName(NULL, NULL, names[i], &set));
    *any = set;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#endif
