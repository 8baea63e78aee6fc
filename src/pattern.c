// SPDX-License-Identifier: BSD-2-Clause
/* The vertex-pair pattern of an energy's assembled Hessian: one entry per pair of local vertices
   that share an element of any term, and for each element the pair slot of each of its N x N
   blocks. MatSetPreallocationCOO() then sorts one COO entry per nonzero instead of one per element
   entry (a tet mesh: ~6x fewer, so the set-up no longer costs several assemblies), and a fill sums
   the element Hessians into the pair slots first (MfadPairPatternSum_Private), which is the summing
   PETSc's COO would otherwise do. Built here from the connectivity alone, in O(entries) plus a
   sort of each vertex's short neighbour list. */
#include "mfadimpl.h"

PetscErrorCode MfadPairPatternCreate_Private(MfadEnergy E, MfadPairPattern *pat)
{
  PetscInt *count, *dup, npair_dup = 0;

  PetscFunctionBegin;
  pat->nrow = E->nlocal;
  PetscCall(PetscCalloc1(E->nlocal + 1, &count));
  PetscCall(PetscMalloc1(E->nterms + 1, &pat->slot_start)); /* PetscCount: nelem N^2 over all terms may pass 2^31 */
  pat->slot_start[0] = 0;
  for (PetscInt t = 0; t < E->nterms; t++) {
    const MfadTerm *term = &E->terms[t];
    const int       nv   = term->k->nvert;
    for (PetscInt e = 0; e < term->nelem; e++)
      for (int a = 0; a < nv; a++) count[term->conn[e * nv + a] + 1] += nv;
    pat->slot_start[t + 1] = pat->slot_start[t] + term->nelem * nv * nv;
  }
  for (PetscInt v = 0; v < E->nlocal; v++) count[v + 1] += count[v];
  npair_dup = count[E->nlocal];
  /* every (row vertex, column vertex) occurrence, by row; then each row sorted and made unique */
  PetscCall(PetscMalloc1(npair_dup, &dup));
  {
    PetscInt *fill;
    PetscCall(PetscMalloc1(E->nlocal, &fill));
    PetscCall(PetscArraycpy(fill, count, E->nlocal));
    for (PetscInt t = 0; t < E->nterms; t++) {
      const MfadTerm *term = &E->terms[t];
      const int       nv   = term->k->nvert;
      for (PetscInt e = 0; e < term->nelem; e++)
        for (int a = 0; a < nv; a++)
          for (int b = 0; b < nv; b++) dup[fill[term->conn[e * nv + a]]++] = term->conn[e * nv + b];
    }
    PetscCall(PetscFree(fill));
  }
  PetscCall(PetscMalloc1(E->nlocal + 1, &pat->row_start));
  pat->row_start[0] = 0;
  for (PetscInt v = 0; v < E->nlocal; v++) {
    PetscInt n = count[v + 1] - count[v];
    PetscCall(PetscSortRemoveDupsInt(&n, dup + count[v]));
    pat->row_start[v + 1] = pat->row_start[v] + n;
  }
  pat->npair = pat->row_start[E->nlocal];
  PetscCall(PetscMalloc1(pat->npair, &pat->col));
  for (PetscInt v = 0; v < E->nlocal; v++)
    PetscCall(PetscArraycpy(pat->col + pat->row_start[v], dup + count[v], pat->row_start[v + 1] - pat->row_start[v]));
  PetscCall(PetscFree(dup));
  PetscCall(PetscFree(count));
  /* each element block's slot: its column's place in its row */
  PetscCall(PetscMalloc1(pat->slot_start[E->nterms], &pat->slot));
  for (PetscInt t = 0; t < E->nterms; t++) {
    const MfadTerm *term = &E->terms[t];
    const int       nv   = term->k->nvert;
    PetscInt       *slot = pat->slot + pat->slot_start[t];
    for (PetscInt e = 0; e < term->nelem; e++)
      for (int a = 0; a < nv; a++) {
        const PetscInt r = term->conn[e * nv + a], r0 = pat->row_start[r], len = pat->row_start[r + 1] - r0;
        for (int b = 0; b < nv; b++) {
          PetscInt pos;
          PetscCall(PetscFindInt(term->conn[e * nv + b], len, pat->col + r0, &pos));
          PetscCheck(pos >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "term '%s', element %" PetscInt_FMT ": vertex pair missing from the pattern",
                     term->name, e);
          slot[((size_t)e * nv + a) * nv + b] = r0 + pos;
        }
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadPairPatternDestroy_Private(MfadPairPattern *pat)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(pat->row_start));
  PetscCall(PetscFree(pat->col));
  PetscCall(PetscFree(pat->slot));
  PetscCall(PetscFree(pat->slot_start));
  pat->nrow = pat->npair = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* vals[pair * dof^2 + i * dof + j] = the sum of the element Hessians' entries (a dof + i, b dof + j)
   over the elements whose block (a, b) falls in that pair; H holds the element Hessians term by
   term as E->hess does. vals has npair * dof^2 entries. */
PetscErrorCode MfadPairPatternSum_Private(MfadEnergy E, const MfadPairPattern *pat, const double *H, double *vals)
{
  const PetscInt dof = E->dof, bb = dof * dof;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(vals, (size_t)pat->npair * bb));
  for (PetscInt t = 0; t < E->nterms; t++) {
    const MfadTerm *term = &E->terms[t];
    const int       nv = term->k->nvert, N = nv * (int)dof;
    const PetscInt *slot = pat->slot + pat->slot_start[t];
    for (PetscInt e = 0; e < term->nelem; e++, H += (size_t)N * N)
      for (int a = 0; a < nv; a++)
        for (int b = 0; b < nv; b++) {
          double       *v = vals + (size_t)slot[((size_t)e * nv + a) * nv + b] * bb;
          const double *h = H + a * dof * N + b * dof;
          for (PetscInt i = 0; i < dof; i++)
            for (PetscInt j = 0; j < dof; j++) v[i * dof + j] += h[i * N + j];
        }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
