// SPDX-License-Identifier: BSD-2-Clause
/* The mesh library's (libmfadmesh's) private header: what its sources share, and the few helpers
   libmfad's glue (src/dmplexenergy.c) takes from it. Below the AD core: nothing here, nor in any
   file of src/mesh/, includes src/mfadimpl.h or names an MfadEnergy (CMake builds libmfadmesh with
   MFADMESH_ONLY and -Wl,--no-undefined; the test mfadmesh_standalone checks its symbols). */
#ifndef MFADMESHIMPL_H
#define MFADMESHIMPL_H

#include <mfadmesh.h>
#include "../mfadcompat.h"

/* Vertex range of the DM, its vertex numbering (owned: global id; not owned: -(id + 1); restore
   *num with ISRestoreIndices(*is, num)) and the count owned here. Exported for libmfad: an
   energy's layout on a DM is this numbering. */
PETSC_EXTERN PetscErrorCode MfadDMPlexVertices_Private(DM dm, PetscInt *vStart, PetscInt *vEnd, const PetscInt **num, IS *is, PetscInt *nowned);

/* perm (n records, perm[i] < n) reordered by key[perm[i] * stride] + shift, which must lie in
   [0, range), ascending and stable: called once per key, the least significant first, it sorts
   by several (src/mesh/meshsort.c). work: n entries. */
PETSC_INTERN PetscErrorCode MfadMeshSortStableByKey_Private(PetscInt n, PetscInt range, const PetscInt key[], PetscInt stride, PetscInt shift,
                                                            PetscInt perm[], PetscInt work[]);

#endif /* MFADMESHIMPL_H */
