// SPDX-License-Identifier: BSD-2-Clause
/* The energy a solver object (SNES, Tao, an assembled Hessian) was handed: kept on the object by
   PETSc's composition, found again by the forms, the monitor and the projection switch. */
#include "shellimpl.h"

/* Keeps a reference to E on `obj` (a SNES, Tao or assembled Hessian), dropped when obj is
   destroyed: the energy is a PetscObject, composed as any other */
PetscErrorCode MfadEnergyAttach_Private(MfadEnergy E, PetscObject obj)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectCompose(obj, "MfadEnergy", (PetscObject)E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The energy attached to obj, or NULL */
PetscErrorCode MfadEnergyQueryAttached_Private(PetscObject obj, MfadEnergy *E)
{
  PetscObject  o;
  PetscClassId id = MFAD_CLASSID;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery(obj, "MfadEnergy", &o));
  if (o) PetscCall(PetscObjectGetClassId(o, &id));
  PetscCheck(id == MFAD_CLASSID, PetscObjectComm(obj), PETSC_ERR_PLIB, "the object composed as \"MfadEnergy\" is not an MfadEnergy");
  *E = (MfadEnergy)o;
  PetscFunctionReturn(PETSC_SUCCESS);
}
