// SPDX-License-Identifier: BSD-2-Clause
/* PETSc version shim: the library's sources build against PETSc 3.18 (Debian 12) and newer. */
#ifndef MFADCOMPAT_H
#define MFADCOMPAT_H

#include <petscversion.h>
#if PETSC_VERSION_LT(3, 18, 0)
#error "mfad needs PETSc 3.18 or newer"
#endif
#include <petsc/private/petscimpl.h> /* PetscValidHeaderSpecific, PetscObjectStateGet */

#ifndef PETSC_SUCCESS
#define PETSC_SUCCESS 0
#endif

/* argument checks (PetscValidPointer and friends were renamed PetscAssertPointer in 3.20) */
#define MfadValidPointer(p, arg) PetscCheck((p) != NULL, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "Null pointer: argument # %d", (int)(arg))

#endif
