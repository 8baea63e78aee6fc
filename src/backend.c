// SPDX-License-Identifier: BSD-2-Clause
/* The backend registry (PETSc's MatRegister()/MatSetType(), libCEED's CeedRegister()): a backend is
   a name and a create function that fills the energy's operations (MfadBackendOps), its state
   (E->data) and its defaults. The core calls backends only through that table, so a new backend
   is its own files, a line in src/backends.h (or a MfadEnergyRegister() call) and nothing else. */
#include "mfadimpl.h"

PetscFunctionList MfadEnergyList = NULL;
static char       MfadEnergyNames[256]; /* the registered names, for the message naming them */
static PetscBool  MfadEnergyRegisterAllCalled = PETSC_FALSE;

PetscErrorCode MfadEnergyRegister(const char name[], PetscErrorCode (*create)(MfadEnergy))
{
  PetscErrorCode (*old)(MfadEnergy) = NULL;

  PetscFunctionBegin;
  PetscCheck(name && name[0], PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadEnergyRegister: no name given");
  PetscCheck(create, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadEnergyRegister: backend '%s' has no create function", name);
  PetscCall(MfadInitializePackage());
  PetscCall(PetscFunctionListFind(MfadEnergyList, name, &old));
  if (!old) { /* a new name (registering one again replaces its create function) */
    if (MfadEnergyNames[0]) PetscCall(PetscStrlcat(MfadEnergyNames, ", ", sizeof(MfadEnergyNames)));
    PetscCall(PetscStrlcat(MfadEnergyNames, name, sizeof(MfadEnergyNames)));
  }
  PetscCall(PetscFunctionListAdd(&MfadEnergyList, name, create));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MfadInitializePackage(): the built-in backends (src/backends.h) */
PetscErrorCode MfadEnergyRegisterAll_Private(void)
{
  PetscFunctionBegin;
  if (MfadEnergyRegisterAllCalled) PetscFunctionReturn(PETSC_SUCCESS);
  MfadEnergyRegisterAllCalled = PETSC_TRUE;
#define MFAD_BACKEND(name, create) PetscCall(MfadEnergyRegister(name, create));
#include "backends.h"
#undef MFAD_BACKEND
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetTypeNames_Private(const char **names)
{
  PetscFunctionBegin;
  PetscCall(MfadInitializePackage());
  *names = MfadEnergyNames;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MfadFinalizePackage(): a later PetscInitialize() registers them again */
PetscErrorCode MfadEnergyRegisterDestroy_Private(void)
{
  PetscFunctionBegin;
  PetscCall(PetscFunctionListDestroy(&MfadEnergyList));
  MfadEnergyNames[0]          = 0;
  MfadEnergyRegisterAllCalled = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Exchanges the energy's backend (table, state, defaults) with the one held in the arguments */
static void MfadEnergySwapBackend_Private(MfadEnergy E, MfadBackendOps *ops, void **data, MfadBackendDefaults *defaults)
{
  const MfadBackendOps      o = *E->ops;
  void                     *d = E->data;
  const MfadBackendDefaults f = E->backend_defaults;

  *E->ops             = *ops;
  E->data             = *data;
  E->backend_defaults = *defaults;
  *ops                = o;
  *data               = d;
  *defaults           = f;
}

PetscErrorCode MfadEnergySetType(MfadEnergy E, MfadEnergyType type)
{
  PetscErrorCode (*create)(MfadEnergy) = NULL;
  PetscBool           same;
  MfadBackendOps      ops      = {0};
  MfadBackendDefaults defaults = {PETSC_FALSE, PETSC_FALSE};
  void               *data     = NULL;
  PetscErrorCode      ierr;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(type && type[0], PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_NULL, "MfadEnergySetType: no backend given");
  PetscCall(PetscObjectTypeCompare((PetscObject)E, type, &same));
  if (same) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadInitializePackage());
  PetscCall(PetscFunctionListFind(MfadEnergyList, type, &create));
  PetscCheck(create, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_UNKNOWN_TYPE,
             "unknown backend '%s' (-mfad_backend, MfadEnergySetType()): the registered ones are %s", type, MfadEnergyNames);
  /* the new backend's table is filled first, in a blank one: a create that fails (CUDA not
     compiled, no device) leaves the energy on its backend, never on a run it did not ask for */
  MfadEnergySwapBackend_Private(E, &ops, &data, &defaults);
  ierr = (*create)(E);
  MfadEnergySwapBackend_Private(E, &ops, &data, &defaults); /* the old one back, the new one held */
  PetscCall(ierr);
  /* the old backend lets go of the set-up (local vectors differ: host or device) and its state */
  PetscCall(MfadEnergyReset_Private(E));
  if (E->ops->destroy) PetscCall(E->ops->destroy(E));
  MfadEnergySwapBackend_Private(E, &ops, &data, &defaults);
  PetscCall(PetscObjectChangeTypeName((PetscObject)E, type)); /* the object's type is its backend */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetType(MfadEnergy E, MfadEnergyType *type)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  MfadValidPointer(type, 2);
  *type = ((PetscObject)E)->type_name;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The enum API of the built-in backends: MfadBackends[] names their types (then the enum's name,
   its prefix and NULL, as PetscOptionsEnum() reads it) */
static int MfadBackendCount_Private(void)
{
  int n = 0;
  while (MfadBackends[n]) n++;
  return n - 2;
}

PetscErrorCode MfadEnergySetBackend(MfadEnergy E, MfadBackend backend)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck((int)backend >= 0 && (int)backend < MfadBackendCount_Private(), PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_OUTOFRANGE,
             "MfadEnergySetBackend: unknown backend %d", (int)backend);
  PetscCall(MfadEnergySetType(E, MfadBackends[backend]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetBackend(MfadEnergy E, MfadBackend *backend)
{
  PetscBool match = PETSC_FALSE;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  MfadValidPointer(backend, 2);
  for (int b = 0; b < MfadBackendCount_Private() && !match; b++) {
    PetscCall(PetscObjectTypeCompare((PetscObject)E, MfadBackends[b], &match));
    if (match) *backend = (MfadBackend)b;
  }
  PetscCheck(match, PetscObjectComm((PetscObject)E), PETSC_ERR_SUP,
             "MfadEnergyGetBackend: backend '%s' has no MfadBackend value; MfadEnergyGetType() names it", ((PetscObject)E)->type_name);
  PetscFunctionReturn(PETSC_SUCCESS);
}
