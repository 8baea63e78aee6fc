// SPDX-License-Identifier: BSD-2-Clause
/* Explicit element Hessians, shared by assembly (src/assemble.c) and the cache (src/cached.c):
   the kernels' Hessian loop over a range of blocks, the optional PSD projection, and the key
   that says for which point and settings stored Hessians were computed. */
#include "mfadimpl.h"
#include <mfad/impl/psd.h>

_Static_assert(MFAD_PSD_MODE_NONE == (int)MFAD_PSD_NONE && MFAD_PSD_MODE_CLAMP == (int)MFAD_PSD_CLAMP && MFAD_PSD_MODE_ABS == (int)MFAD_PSD_ABS,
               "mfad/impl/psd.h modes must equal MfadPSDProjection");

PetscCount MfadPackedSize_Private(int N) { return (PetscCount)N * (N + 1) / 2; }

/* Block offsets and energies of one sub-range loop, sized for a whole term: allocated once. */
PetscErrorCode MfadEnergyHessianWork_Private(MfadEnergy E)
{
  PetscInt maxb = 1;

  PetscFunctionBegin;
  if (E->caches.chunk_start) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt t = 0; t < E->nterms; t++) maxb = PetscMax(maxb, E->terms[t].nblocks);
  PetscCall(PetscMalloc2(maxb + 1, &E->caches.chunk_start, maxb, &E->caches.chunk_value));
  E->caches.nchunk_blocks = maxb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyHessianKey_Private(MfadEnergy E, Vec X, MfadHessianKey *key)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)X, &key->id));
  PetscCall(PetscObjectStateGet((PetscObject)X, &key->state));
  key->fixed_count = E->local.fixed_count;
  key->setup_count = E->local.count;
  key->elements_state = E->dyn.elements_state;
  if (E->solve.psd != MFAD_PSD_NONE) PetscCall(MfadEnergyCheckSymmetric_Private(E, "PSD projection (-mfad_psd_project)"));
  key->psd         = E->solve.psd;
  key->psd_eps     = E->opt.psd_eps;
  key->valid       = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool MfadHessianKeyEqual_Private(const MfadHessianKey *a, const MfadHessianKey *b)
{
  return a->valid && b->valid && a->id == b->id && a->state == b->state && a->fixed_count == b->fixed_count && a->setup_count == b->setup_count && a->elements_state == b->elements_state && a->psd == b->psd &&
                 a->psd_eps == b->psd_eps
           ? PETSC_TRUE
           : PETSC_FALSE;
}

static void MfadTermElementHessiansLoop_Private(MfadEnergy, const MfadTerm *, int, int, int *, double *, const double *, double *, int);

/* H <- the weighted (and projected) N x N Hessians of the elements of blocks [b0, b1) of `term`,
   element by element from the first element of block b0; x is the local point; nt threads
   (1: the calling thread, also inside a parallel region); start and value hold b1 - b0 + 1 block
   offsets and b1 - b0 block energies. Checked by the caller: N <= MFAD_PSD_MAX_N if projecting. */
void MfadTermElementHessiansRange_Private(MfadEnergy E, const MfadTerm *term, int b0, int b1, const double *x, double *H, int nt, int *start, double *value)
{
  const int e0 = term->block_start[b0];

  /* a loop over the blocks [b0, b1) alone: block offsets rebased to e0 */
  for (int b = b0; b <= b1; b++) start[b - b0] = term->block_start[b] - e0;
  MfadTermElementHessiansLoop_Private(E, term, e0, b1 - b0, start, value, x, H, nt);
}

/* H <- the weighted (and projected) Hessians of elements [e0, e1) of `term`, on the calling thread:
   a part of one block, as the fused assembly takes it (src/pattern.c). Each element's Hessian is
   the one the block's loop computes: on SIMD lanes, groups of lanes start at e0, so e0 is the
   block's first element or that plus a multiple of the lane count. */
void MfadTermElementHessiansSpan_Private(MfadEnergy E, const MfadTerm *term, int e0, int e1, const double *x, double *H)
{
  int    start[2] = {0, e1 - e0};
  double value;

  MfadTermElementHessiansLoop_Private(E, term, e0, 1, start, &value, x, H, 1);
}

/* the loop of the two above: nb blocks of elements from e0, their offsets (from e0) in start */
static void MfadTermElementHessiansLoop_Private(MfadEnergy E, const MfadTerm *term, int e0, int nb, int *start, double *value, const double *x,
                                                double *H, int nt)
{
  MfadLoop     L;
  const int    N = term->k->nvert * term->k->dof, ne = start[nb];
  const int    psd = (int)E->solve.psd;
  const double eps = E->opt.psd_eps;

  MfadTermLoop_Private(E, term, x, NULL, H, &L);
  /* element arrays shifted to e0 */
  L.nelem       = ne;
  L.conn        = term->conn + (size_t)e0 * term->k->nvert;
  L.voff        = term->voff ? term->voff + (size_t)e0 * term->k->nvert : NULL;
  L.params      = term->k->nparam ? term->params + (size_t)e0 * term->k->nparam : NULL;
  L.nblocks     = nb;
  L.block_start = start;
  L.block_value = value;
  L.nthreads    = nt;
  L.parallel    = nt > 1;
  /* an energy at features clamps its feature Hessian H_F (9 x 9 for a tet instead of 12 x 12):
     a PSD H_F gives a PSD B^T H_F B. With eps > 0 the element's smallest eigenvalue is asked for:
     that is the element Hessian's, projected below. `abs` stays on the element Hessian for now:
     B^T |H_F| B changed the path of elastic's default solve on Spot (abs), which then stopped on a
     small step at |grad| 2.7e-7 of its initial value (test example_elastic_spot_default) */
  const int feat = term->k->nfeat > 0 && term->k->nfeat <= MFAD_PSD_MAX_N && psd == MFAD_PSD_CLAMP && eps == 0.0;
  L.psd          = feat ? psd : 0;
  L.psd_eps      = 0.0;
  term->k->cpu_hessian(&L);
  if (psd != MFAD_PSD_NONE && term->k->nout == 0 && !feat) /* a least-squares term's J^T J is PSD already */
    MfadPSDProjectElements_Private(N, ne, H, psd, eps, nt, !L.scalar);
}

/* The same for assembly, threads chosen by MfadThreadsBegin_Private */
PetscErrorCode MfadTermElementHessians_Private(MfadEnergy E, const MfadTerm *term, int b0, int b1, const double *x, double *H)
{
  const int N  = term->k->nvert * term->k->dof;
  const int ne = term->block_start[b1] - term->block_start[b0];
  double    t0;
  int       nt;

  PetscFunctionBegin;
  PetscCheck(b1 - b0 <= E->caches.nchunk_blocks, PETSC_COMM_SELF, PETSC_ERR_PLIB, "chunk of %d blocks exceeds the %" PetscInt_FMT " prepared", b1 - b0, E->caches.nchunk_blocks);
  PetscCheck(E->solve.psd == MFAD_PSD_NONE || N <= MFAD_PSD_MAX_N, PETSC_COMM_SELF, PETSC_ERR_SUP, "term '%s': PSD projection supports elements of at most %d unknowns, not %d", term->name, MFAD_PSD_MAX_N, N);
  nt = MfadThreadsBegin_Private(E, MFAD_SITE_HESSIANS, ne, &t0);
  MfadTermElementHessiansRange_Private(E, term, b0, b1, x, H, nt, E->caches.chunk_start, E->caches.chunk_value);
  MfadThreadsEnd_Private(E, MFAD_SITE_HESSIANS, nt, ne, t0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* keep: the element Hessians' and the cache's memory stays for the next layout (a new element
   set): freed and allocated again, 100+ MB come back as fresh pages, whose first touch cost a
   10^6 page faults per bench_dynamic run where the allocator returns them to the system */
PetscErrorCode MfadEnergyResetHessians_Private(MfadEnergy E, PetscBool keep)
{
  PetscFunctionBegin;
  if (!keep) {
    PetscCall(PetscFree(E->caches.hess));
    PetscCall(PetscFree(E->caches.cache));
    E->caches.hess_cap = E->caches.cache_cap = 0;
  }
  PetscCall(PetscFree(E->caches.chunk));
  PetscCall(PetscFree2(E->caches.chunk_start, E->caches.chunk_value));
  E->caches.nhess          = 0;
  E->caches.ncache         = -1;
  E->caches.nchunk         = 0;
  E->caches.nchunk_blocks  = 0;
  E->caches.hess_key.valid = PETSC_FALSE;
  E->caches.cache_key.valid = PETSC_FALSE;
  E->caches.pairs_key.valid = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
