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

#endif
