// SPDX-License-Identifier: BSD-2-Clause
/* The vertex-pair pattern of an energy's assembled Hessian: one entry per pair of local vertices
   that share an element of any term, and for each element the pair slot of each of its N x N
   blocks. MatSetPreallocationCOO() then sorts one COO entry per nonzero instead of one per element
   entry (a tet mesh: ~6x fewer, so the set-up no longer costs several assemblies), and a fill sums
   the element Hessians into the pair slots first (MfadPairPatternSum_Private), which is the summing
   PETSc's COO would otherwise do. Built here from the connectivity alone, in O(entries) plus a
   sort of each vertex's distinct neighbours. */
#include "mfadimpl.h"

PetscErrorCode MfadPairPatternCreate_Private(MfadEnergy E, MfadPairPattern *pat)
{
  PetscInt   *count, *dup, *mark, *where, *uniq, maxrow = 0;
  PetscCount *dest, npair_dup;

  PetscFunctionBegin;
  pat->nrow = E->local.nlocal;
  PetscCall(PetscCalloc1(E->local.nlocal + 1, &count));
  PetscCall(PetscMalloc1(E->nterms + 1, &pat->slot_start)); /* PetscCount: nelem N^2 over all terms may pass 2^31 */
  pat->slot_start[0] = 0;
  for (PetscInt t = 0; t < E->nterms; t++) {
    const MfadTerm *term = &E->terms[t];
    const int       nv   = term->k->nvert;
    for (PetscInt e = 0; e < term->nelem; e++)
      for (int a = 0; a < nv; a++) count[term->conn[e * nv + a] + 1] += nv;
    pat->slot_start[t + 1] = pat->slot_start[t] + term->nelem * nv * nv;
  }
  for (PetscInt v = 0; v < E->local.nlocal; v++) maxrow = PetscMax(maxrow, count[v + 1]), count[v + 1] += count[v];
  npair_dup = count[E->local.nlocal];
  /* every (row vertex, column vertex) occurrence, by row, with the slot it is for */
  PetscCall(PetscMalloc2(npair_dup, &dup, npair_dup, &dest));
  {
    PetscInt *fill;
    PetscCall(PetscMalloc1(E->local.nlocal, &fill));
    PetscCall(PetscArraycpy(fill, count, E->local.nlocal));
    for (PetscInt t = 0; t < E->nterms; t++) {
      const MfadTerm *term = &E->terms[t];
      const int       nv   = term->k->nvert;
      for (PetscInt e = 0; e < term->nelem; e++)
        for (int a = 0; a < nv; a++)
          for (int b = 0; b < nv; b++) {
            const PetscInt k = fill[term->conn[e * nv + a]]++;
            dup[k]           = term->conn[e * nv + b];
            dest[k]          = pat->slot_start[t] + ((PetscCount)e * nv + a) * nv + b;
          }
    }
    PetscCall(PetscFree(fill));
  }
  /* each row's distinct columns by a mark per vertex (no sort of the duplicates), sorted; then each
     occurrence's slot from the column's place in its row (no search) */
  PetscCall(PetscMalloc1(E->local.nlocal + 1, &pat->row_start));
  PetscCall(PetscMalloc1(npair_dup, &pat->col)); /* at most; shrunk below */
  PetscCall(PetscMalloc1(pat->slot_start[E->nterms], &pat->slot));
  pat->slot_cap = pat->slot_start[E->nterms];
  PetscCall(PetscMalloc3(E->local.nlocal, &mark, E->local.nlocal, &where, maxrow, &uniq));
  for (PetscInt v = 0; v < E->local.nlocal; v++) mark[v] = -1;
  pat->row_start[0] = 0;
  for (PetscInt v = 0; v < E->local.nlocal; v++) {
    const PetscInt r0 = pat->row_start[v];
    PetscInt       nu = 0;
    for (PetscInt k = count[v]; k < count[v + 1]; k++)
      if (mark[dup[k]] != v) mark[dup[k]] = v, uniq[nu++] = dup[k];
    PetscCall(PetscSortInt(nu, uniq));
    for (PetscInt u = 0; u < nu; u++) where[uniq[u]] = u, pat->col[r0 + u] = uniq[u];
    for (PetscInt k = count[v]; k < count[v + 1]; k++) pat->slot[dest[k]] = r0 + where[dup[k]];
    pat->row_start[v + 1] = r0 + nu;
  }
  pat->npair = pat->row_start[E->local.nlocal];
  PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)PetscMax(pat->npair, 1), &pat->col));
  PetscCall(PetscFree3(mark, where, uniq));
  PetscCall(PetscFree2(dup, dest));
  PetscCall(PetscFree(count));
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
  pat->slot_cap          = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* vals[pair * dof^2 + i * dof + j] = the sum of the element Hessians' entries (a dof + i, b dof + j)
   over the elements whose block (a, b) falls in that pair; H holds the element Hessians term by
   term as E->caches.hess does. vals has npair * dof^2 entries. */
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
