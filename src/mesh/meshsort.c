// SPDX-License-Identifier: BSD-2-Clause
/* Ordering a mesh's sides (edges, faces) by their vertices in linear time: the checks that find
   an edge's or a face's other cells (MfadMeshCheckManifold, MfadMeshComputeBoundary) sort 3 (or
   4) sides a cell. qsort() with a comparison function took 27 and 41 ms of param's set-up on
   armadillo_cut_low (187,146 edges, twice); counting sorts by vertex, one pass per key, take a
   few ms and give the same order (stable: ties keep the order they came in). */
#include "mfadmeshimpl.h"

PetscErrorCode MfadMeshSortStableByKey_Private(PetscInt n, PetscInt range, const PetscInt key[], PetscInt stride, PetscInt shift, PetscInt perm[],
                                               PetscInt work[])
{
  PetscInt *count;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(range + 1, &count));
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt k = key[perm[i] * stride] + shift;
    if (PetscUnlikely(k < 0 || k >= range)) { /* a cell naming a vertex the mesh does not have */
      PetscCall(PetscFree(count));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "mesh: a cell's vertex %" PetscInt_FMT " is not in [0, %" PetscInt_FMT ")", k - shift,
              range - shift);
    }
    count[k + 1]++;
  }
  for (PetscInt k = 0; k < range; k++) count[k + 1] += count[k];
  for (PetscInt i = 0; i < n; i++) work[count[key[perm[i] * stride] + shift]++] = perm[i];
  PetscCall(PetscArraycpy(perm, work, n));
  PetscCall(PetscFree(count));
  PetscFunctionReturn(PETSC_SUCCESS);
}
