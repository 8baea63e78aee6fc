// SPDX-License-Identifier: BSD-2-Clause
/* The boundary of a triangle surface (MfadMeshComputeBoundary, described in mfadmesh.h): the
   edges used by one triangle only, as a successor map along the triangles' orientation. The
   boundary loop a map to the plane pins (MfadEnergyComputeTutteStart, src/meshtutte.c). */
#include "mfadmeshimpl.h"

typedef struct {
  PetscInt lo, hi; /* the undirected edge */
  PetscInt side;   /* 3 * cell + corner: the directed edge from corner to corner + 1 */
} MfadEdge;

PetscErrorCode MfadMeshComputeBoundary(MfadMesh m, PetscInt next[])
{
  MfadEdge *edge;
  PetscInt  ne, *perm, *work;

  PetscFunctionBegin;
  MfadValidPointer(m, 1);
  PetscCheck(m->ncorner == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "MfadMeshComputeBoundary: a triangle surface is needed (cells of %" PetscInt_FMT " corners)", m->ncorner);
  ne = 3 * m->ncell;
  PetscCall(PetscMalloc3(ne, &edge, ne, &perm, ne, &work));
  for (PetscInt v = 0; v < m->nvert; v++) next[v] = -1;
  for (PetscInt e = 0; e < ne; e++) {
    const PetscInt a = m->cells[e], b = m->cells[3 * (e / 3) + (e % 3 + 1) % 3];
    edge[e].lo = PetscMin(a, b), edge[e].hi = PetscMax(a, b), edge[e].side = e;
    perm[e] = e;
  }
  /* by (lo, hi, side): hi, then lo, stably, from side's order */
  if (ne > 0) { /* else edge may be NULL */
    PetscCall(MfadMeshSortStableByKey_Private(ne, m->nvert, &edge[0].hi, sizeof(MfadEdge) / sizeof(PetscInt), 0, perm, work));
    PetscCall(MfadMeshSortStableByKey_Private(ne, m->nvert, &edge[0].lo, sizeof(MfadEdge) / sizeof(PetscInt), 0, perm, work));
  }
  /* an edge of one triangle only is on the boundary */
  for (PetscInt i = 0; i < ne; i++) {
    const MfadEdge *e = &edge[perm[i]], *p = i > 0 ? &edge[perm[i - 1]] : NULL, *q = i + 1 < ne ? &edge[perm[i + 1]] : NULL;
    const PetscBool twin = (PetscBool)((p && p->lo == e->lo && p->hi == e->hi) || (q && q->lo == e->lo && q->hi == e->hi));
    if (!twin) {
      const PetscInt f  = e->side;
      next[m->cells[f]] = m->cells[3 * (f / 3) + (f % 3 + 1) % 3];
    }
  }
  PetscCall(PetscFree3(edge, perm, work));
  PetscFunctionReturn(PETSC_SUCCESS);
}
