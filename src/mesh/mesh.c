// SPDX-License-Identifier: BSD-2-Clause
/* MfadMesh: a mesh as read from a file, the common output of every reader (src/mesh/read_*.c). */
#include "mfadmeshimpl.h"

PetscErrorCode MfadMeshCreate(PetscInt dim, PetscInt nvert, PetscInt ncorner, PetscInt ncell, MfadMesh *mesh)
{
  MfadMesh m;

  PetscFunctionBegin;
  MfadValidPointer(mesh, 5);
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadMeshCreate: %" PetscInt_FMT " coordinates per vertex (2 or 3)", dim);
  PetscCheck(ncorner == 3 || ncorner == 4, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadMeshCreate: %" PetscInt_FMT " vertices per cell (3: triangles, 4: tets)", ncorner);
  PetscCheck(nvert >= 0 && ncell >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadMeshCreate: negative size (%" PetscInt_FMT " vertices, %" PetscInt_FMT " cells)", nvert, ncell);
  PetscCheck((PetscInt64)nvert * dim < PETSC_MAX_INT && (PetscInt64)ncell * ncorner < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadMeshCreate: %" PetscInt_FMT " vertices, %" PetscInt_FMT " cells: too large for 32-bit indices", nvert, ncell);
  PetscCall(PetscNew(&m));
  m->dim     = dim;
  m->nvert   = nvert;
  m->ncorner = ncorner;
  m->ncell   = ncell;
  PetscCall(PetscMalloc2(nvert * dim, &m->coords, ncell * ncorner, &m->cells));
  *mesh = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadMeshDestroy(MfadMesh *mesh)
{
  PetscFunctionBegin;
  if (!mesh || !*mesh) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree2((*mesh)->coords, (*mesh)->cells));
  PetscCall(PetscFree((*mesh)->cell_tags));
  PetscCall(PetscFree((*mesh)->vertex_tags));
  PetscCall(PetscFree(*mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}
