// SPDX-License-Identifier: BSD-2-Clause
/* Kernel registry: built-in energies and user registrations. */
#include "mfadimpl.h"

#define MFAD_BUILTIN(name) MFAD_KERNEL_DECLARE(name);
#include "mfadbuiltin.h"
#undef MFAD_BUILTIN

#define MFAD_BUILTIN(name) MFAD_KERNEL(name),
static MfadKernel MfadBuiltinKernels[] = {
#include "mfadbuiltin.h"
  NULL};
#undef MFAD_BUILTIN

#define MFAD_MAX_USER_KERNELS 64
static MfadKernel MfadUserKernels[MFAD_MAX_USER_KERNELS];
static int        MfadNumUserKernels;

PetscErrorCode MfadKernelRegister(MfadKernel k)
{
  PetscFunctionBegin;
  PetscCheck(k && k->name, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadKernelRegister: NULL kernel");
  for (int i = 0; i < MfadNumUserKernels; i++)
    if (MfadUserKernels[i] == k) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(MfadNumUserKernels < MFAD_MAX_USER_KERNELS, PETSC_COMM_SELF, PETSC_ERR_SUP, "MfadKernelRegister: at most %d user kernels", MFAD_MAX_USER_KERNELS);
  MfadUserKernels[MfadNumUserKernels++] = k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadKernelFind(const char name[], MfadKernel *k)
{
  PetscBool match;

  PetscFunctionBegin;
  MfadValidPointer(name, 1);
  MfadValidPointer(k, 2);
  *k = NULL;
  for (int i = MfadNumUserKernels - 1; i >= 0; i--) {
    PetscCall(PetscStrcmp(name, MfadUserKernels[i]->name, &match));
    if (match) {
      *k = MfadUserKernels[i];
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  for (int i = 0; MfadBuiltinKernels[i]; i++) {
    PetscCall(PetscStrcmp(name, MfadBuiltinKernels[i]->name, &match));
    if (match) {
      *k = MfadBuiltinKernels[i];
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown mfad kernel '%s' (MfadKernelList() prints the known ones; a user energy needs MfadKernelRegister())", name);
}

PetscErrorCode MfadKernelGetMaterialCount(MfadKernel k, PetscInt *nmaterial)
{
  PetscFunctionBegin;
  PetscCheck(k && k->name, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadKernelGetMaterialCount: NULL kernel");
  MfadValidPointer(nmaterial, 2);
  *nmaterial = k->nmaterial;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadKernelGetName(MfadKernel k, const char *name[])
{
  PetscFunctionBegin;
  PetscCheck(k && k->name, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadKernelGetName: NULL kernel");
  MfadValidPointer(name, 2);
  *name = k->name;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadKernelGetSizes(MfadKernel k, PetscInt *nvert, PetscInt *dof, PetscInt *nparam)
{
  PetscFunctionBegin;
  PetscCheck(k && k->name, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadKernelGetSizes: NULL kernel");
  if (nvert) *nvert = k->nvert;
  if (dof) *dof = k->dof;
  if (nparam) *nparam = k->nparam;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadKernelGetRestDimension(MfadKernel k, PetscInt *rest_dim)
{
  PetscFunctionBegin;
  PetscCheck(k && k->name, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadKernelGetRestDimension: NULL kernel");
  MfadValidPointer(rest_dim, 2);
  *rest_dim = k->rest_dim;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadKernelList(PetscViewer viewer)
{
  PetscFunctionBegin;
  if (!viewer) viewer = PETSC_VIEWER_STDOUT_WORLD;
  for (int i = 0; MfadBuiltinKernels[i]; i++) {
    MfadKernel k = MfadBuiltinKernels[i];
    PetscCall(PetscViewerASCIIPrintf(viewer, "%-22s %d vertices x %d dofs, %d params: %s\n", k->name, k->nvert, k->dof, k->nparam, k->description));
  }
  for (int i = 0; i < MfadNumUserKernels; i++) {
    MfadKernel k = MfadUserKernels[i];
    PetscCall(PetscViewerASCIIPrintf(viewer, "%-22s %d vertices x %d dofs, %d params (user): %s\n", k->name, k->nvert, k->dof, k->nparam, k->description));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
