// SPDX-License-Identifier: BSD-2-Clause
/* MfadMeshCheckManifold: no edge of a triangle surface in more than 2 triangles, no face of a
   tet mesh in more than 2 tets. Found by sorting the cells' sides (a cell minus one corner). */
#include "mfadread.h"

typedef struct {
  PetscInt v[3]; /* the side's vertices, ascending (v[2] = -1 for an edge) */
  PetscInt cell;
} MfadSide;

static PetscBool MfadSideSame(const MfadSide *x, const MfadSide *y) { return (PetscBool)(x->v[0] == y->v[0] && x->v[1] == y->v[1] && x->v[2] == y->v[2]); }

PetscErrorCode MfadMeshCheckManifold_Private(MfadMesh mesh, const char path[], const PetscInt cell_line[], PetscInt base, const PetscInt vertex_id[])
{
  const PetscInt nc = mesh->ncorner, ns = nc - 1; /* corners per cell, vertices per side */
  MfadSide      *side;
  PetscInt       n = mesh->ncell * nc, bad = -1, run = 0, *perm, *work;
  MfadSide       first;
  PetscInt       cells[3];

  PetscFunctionBegin;
  if (!path) path = "mesh";
  PetscCall(PetscMalloc3(n, &side, n, &perm, n, &work));
  for (PetscInt c = 0; c < mesh->ncell; c++)
    for (PetscInt k = 0; k < nc; k++) {
      MfadSide *s = &side[c * nc + k];
      PetscInt  m = 0;

      for (PetscInt j = 0; j < nc; j++)
        if (j != k) s->v[m++] = mesh->cells[c * nc + j];
      if (m < 3) s->v[m] = -1;
      /* sort ns <= 3 entries */
      for (PetscInt i = 1; i < ns; i++)
        for (PetscInt j = i; j > 0 && s->v[j - 1] > s->v[j]; j--) {
          PetscInt t  = s->v[j];
          s->v[j]     = s->v[j - 1];
          s->v[j - 1] = t;
        }
      s->cell = c;
      perm[c * nc + k] = c * nc + k;
    }
  /* by (v[0], v[1], v[2], cell): v[2] (a face's; an edge has none), v[1], v[0], stably, from the cells' order */
  for (PetscInt i = ns - 1; i >= 0 && n > 0; i--) /* n > 0: side may be NULL */
    PetscCall(MfadMeshSortStableByKey_Private(n, mesh->nvert + 1, &side[0].v[i], sizeof(MfadSide) / sizeof(PetscInt), 1, perm, work));
  for (PetscInt i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && MfadSideSame(&side[perm[i]], &side[perm[j]]); j++) {}
    if (j - i > 2) {
      bad   = i;
      run   = j - i;
      first = side[perm[i]];
      for (PetscInt k = 0; k < 3; k++) cells[k] = side[perm[i + k]].cell;
      break;
    }
  }
  PetscCall(PetscFree3(side, perm, work));
  if (bad < 0) PetscFunctionReturn(PETSC_SUCCESS);
  {
    const char *what = nc == 3 ? "edge" : "face", *cellname = nc == 3 ? "triangles" : "tetrahedra";
    char        name[96];
    PetscInt    id[3];

    for (int k = 0; k < 3; k++) id[k] = first.v[k] < 0 ? -1 : vertex_id ? vertex_id[first.v[k]] : first.v[k] + base;
    if (nc == 3) PetscCall(PetscSNPrintf(name, sizeof(name), "%" PetscInt_FMT "-%" PetscInt_FMT, id[0], id[1]));
    else PetscCall(PetscSNPrintf(name, sizeof(name), "%" PetscInt_FMT "-%" PetscInt_FMT "-%" PetscInt_FMT, id[0], id[1], id[2]));
    if (cell_line)
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt_FMT ": %s %s is shared by %" PetscInt_FMT " %s (lines %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "%s): not a manifold (at most 2)", path, cell_line[cells[2]], what, name, run, cellname,
              cell_line[cells[0]], cell_line[cells[1]], cell_line[cells[2]], run > 3 ? ", ..." : "");
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: %s %s is shared by %" PetscInt_FMT " %s (cells %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "%s): not a manifold (at most 2)", path, what, name, run, cellname, cells[0], cells[1], cells[2], run > 3 ? ", ..." : "");
  }
}

PetscErrorCode MfadMeshCheckManifold(MfadMesh mesh, const char path[])
{
  PetscFunctionBegin;
  MfadValidPointer(mesh, 1);
  PetscCheck(mesh->ncorner == 3 || mesh->ncorner == 4, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadMeshCheckManifold: %" PetscInt_FMT " vertices per cell (3: triangles, 4: tets)", mesh->ncorner);
  PetscCall(MfadMeshCheckManifold_Private(mesh, path, NULL, 0, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
