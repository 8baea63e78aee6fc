// SPDX-License-Identifier: BSD-2-Clause
/* The boundary of a triangle surface (MfadMeshComputeBoundary, described in mfadmesh.h): the
   edges used by one triangle only, as a successor map along the triangles' orientation. The
   boundary loop a map to the plane pins (MfadEnergyComputeTutteStart, src/meshtutte.c). */
#include <stdlib.h>
#include "mfadmeshimpl.h"

typedef struct {
  PetscInt lo, hi; /* the undirected edge */
  PetscInt side;   /* 3 * cell + corner: the directed edge from corner to corner + 1 */
} MfadEdge;

static int MfadEdgeCompare(const void *a, const void *b)
{
  const MfadEdge *x = (const MfadEdge *)a, *y = (const MfadEdge *)b;

  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
  return x->side < y->side ? -1 : x->side > y->side;
}

PetscErrorCode MfadMeshComputeBoundary(MfadMesh m, PetscInt next[])
{
  MfadEdge *edge;
  PetscInt  ne;

  PetscFunctionBegin;
  MfadValidPointer(m, 1);
  PetscCheck(m->ncorner == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "MfadMeshComputeBoundary: a triangle surface is needed (cells of %" PetscInt_FMT " corners)", m->ncorner);
  ne = 3 * m->ncell;
  PetscCall(PetscMalloc1(ne, &edge));
  for (PetscInt v = 0; v < m->nvert; v++) next[v] = -1;
  for (PetscInt e = 0; e < ne; e++) {
    const PetscInt a = m->cells[e], b = m->cells[3 * (e / 3) + (e % 3 + 1) % 3];
    edge[e].lo = PetscMin(a, b), edge[e].hi = PetscMax(a, b), edge[e].side = e;
  }
  qsort(edge, (size_t)ne, sizeof(*edge), MfadEdgeCompare);
  /* an edge of one triangle only is on the boundary */
  for (PetscInt e = 0; e < ne; e++) {
    const PetscBool twin = (PetscBool)((e > 0 && edge[e - 1].lo == edge[e].lo && edge[e - 1].hi == edge[e].hi) ||
                                       (e + 1 < ne && edge[e + 1].lo == edge[e].lo && edge[e + 1].hi == edge[e].hi));
    if (!twin) {
      const PetscInt f  = edge[e].side;
      next[m->cells[f]] = m->cells[3 * (f / 3) + (f % 3 + 1) % 3];
    }
  }
  PetscCall(PetscFree(edge));
  PetscFunctionReturn(PETSC_SUCCESS);
}
