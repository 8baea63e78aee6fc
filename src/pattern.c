// SPDX-License-Identifier: BSD-2-Clause
/* The vertex-pair pattern of an energy's assembled Hessian: one entry per pair of local vertices
   that share an element of any term, and for each element the pair slot of each of its N x N
   blocks. MatSetPreallocationCOO() then sorts one COO entry per nonzero instead of one per element
   entry (a tet mesh: ~6x fewer, so the set-up no longer costs several assemblies), and a fill sums
   the element Hessians into the pair slots first, which is the summing PETSc's COO would otherwise
   do: on the CPU block by block as they are computed (MfadEnergyHessianPairs_CPU, below), else
   from the held element Hessians of a backend without that operation (MfadPairPatternSum_Private).
   Built here from the connectivity alone, in O(entries) plus a sort of each vertex's distinct
   neighbours. */
#include "mfadimpl.h"
#include <mfad/impl/psd.h> /* MFAD_PSD_MAX_N */
#ifdef _OPENMP
#include <omp.h>
#endif

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

/* v += one dof x dof block of an element Hessian of N columns; inlined with dof 2 and 3 (triangles,
   tets) the compiler unrolls it */
static inline void MfadBlockAdd(PetscInt dof, int N, const double *h, double *v)
{
  for (PetscInt i = 0; i < dof; i++)
    for (PetscInt j = 0; j < dof; j++) v[i * dof + j] += h[i * N + j];
}

/* vals[pair * dof^2 + i * dof + j] = the sum of the element Hessians' entries (a dof + i, b dof + j)
   over the elements whose block (a, b) falls in that pair; H holds the element Hessians term by
   term as E->caches.hess does. vals has npair * dof^2 entries. Serial: the built-in backends do not
   come here (the CPU's fused sum, below, is threaded; CUDA keeps its values in element order), only
   a registered backend with merged values and no hessianpairs. */
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
          if (dof == 3) MfadBlockAdd(3, N, h, v);
          else MfadBlockAdd(dof, N, h, v);
        }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ the fused sum */
/* The CPU's merged values without the element-Hessian array: each block's element Hessians are
   computed into a small buffer of its thread (or unpacked from the cache where it holds them for
   X) and added into their pairs at once, while in cache. Assembly from the held array was
   memory-bound: it wrote nelem N^2 doubles (110.7 MB for 100k tets, 1.16 GB for 1M) and read them
   back for the sum, which gained 1.4x on 2 threads (docs/threads.md). Blocks of one colour share
   no vertex, so no two threads add to one pair (a pair's row is one of its block's vertices); each
   pair gets its blocks term by term, colour by colour, in the colour's block order, element by
   element: an order independent of the thread count, so the sums are bitwise the same on any
   number of threads (not those of the element-order sum: round-off). */
#define MFAD_FUSED_BYTES (256 * 1024) /* a thread's buffer: within a 512 kB-1 MB L2 */

/* elements per piece of a block: a multiple of 16, so that SIMD lanes group them as the block's
   loop does (MfadTermElementHessiansSpan_Private) */
static int MfadFusedPiece_Private(int N)
{
  const int ne = MFAD_FUSED_BYTES / (int)(sizeof(double) * N * N);
  return PetscMax(16, ne - ne % 16);
}

/* vals += elements [e0, e1)'s Hessians H (N x N each) by their slots */
static inline void MfadFusedAdd(PetscInt dof, int nv, const PetscInt *slot, int e0, int e1, const double *H, double *vals)
{
  const int      N  = nv * (int)dof;
  const PetscInt bb = dof * dof;

  for (int e = e0; e < e1; e++, H += (size_t)N * N) {
    const PetscInt *s = slot + (size_t)e * nv * nv;
    for (int a = 0; a < nv; a++)
      for (int b = 0; b < nv; b++) MfadBlockAdd(dof, N, H + a * dof * N + b * dof, vals + (size_t)s[a * nv + b] * bb);
  }
}

/* block b of term t into vals, by pieces through the thread's buffer H; P: the term's packed
   Hessians (the cache), else computed at x */
static void MfadFusedBlock_Private(MfadEnergy E, const MfadTerm *term, const PetscInt *slot, int b, const double *x, const double *P, double *H,
                                   double *vals)
{
  const int nv = term->k->nvert, dof = term->k->dof, N = nv * dof, piece = MfadFusedPiece_Private(N);

  for (int e0 = term->block_start[b], e1; e0 < term->block_start[b + 1]; e0 = e1) {
    e1 = PetscMin(e0 + piece, term->block_start[b + 1]);
    if (P) {
      const PetscCount PN = MfadPackedSize_Private(N);
      for (int e = e0; e < e1; e++) {
        const double *Pe = P + (size_t)e * PN;
        double       *He = H + (size_t)(e - e0) * N * N;
        for (int i = 0, k = 0; i < N; i++)
          for (int j = i; j < N; j++, k++) He[i * N + j] = He[j * N + i] = Pe[k];
      }
    } else MfadTermElementHessiansSpan_Private(E, term, e0, e1, x, H);
    if (dof == 3 && nv == 4) MfadFusedAdd(3, 4, slot, e0, e1, H, vals); /* tets: the block add unrolled */
    else if (dof == 3) MfadFusedAdd(3, nv, slot, e0, e1, H, vals);
    else if (dof == 2) MfadFusedAdd(2, nv, slot, e0, e1, H, vals);
    else MfadFusedAdd(dof, nv, slot, e0, e1, H, vals);
  }
}

PetscErrorCode MfadEnergyHessianPairs_CPU(MfadEnergy E, Vec X, const MfadPairPattern *pat, double *vals)
{
  const PetscCount   nvals = (PetscCount)pat->npair * E->dof * E->dof;
  MfadHessianKey     key;
  const PetscScalar *x     = NULL;
  const double      *P     = NULL;
  PetscCount         nelem = 0, piece = 1, *poff;
  double            *work, t0;
  int                nt;

  PetscFunctionBegin;
  PetscCall(MfadEnergyHessianKey_Private(E, X, &key));
  PetscCall(PetscMalloc1(E->nterms + 1, &poff));
  poff[0] = 0;
  for (PetscInt t = 0; t < E->nterms; t++) {
    const MfadTerm *term = &E->terms[t];
    const int       N    = term->k->nvert * term->k->dof;
    PetscCheck(E->solve.psd == MFAD_PSD_NONE || N <= MFAD_PSD_MAX_N, PETSC_COMM_SELF, PETSC_ERR_SUP,
               "term '%s': PSD projection supports elements of at most %d unknowns, not %d", term->name, MFAD_PSD_MAX_N, N);
    PetscCheck(term->nelem == 0 || term->ncolors > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "term '%s': no block colouring", term->name);
    nelem += term->nelem;
    piece       = PetscMax(piece, (PetscCount)MfadFusedPiece_Private(N) * N * N);
    poff[t + 1] = poff[t] + term->nelem * MfadPackedSize_Private(N);
  }
  PetscCall(PetscLogEventBegin(MFAD_ElementHessianEvent, 0, 0, 0, 0));
  /* the cache holds them for X (the operator of -mfad_hessian auto, say): unpacked, not computed */
  if (MfadHessianKeyEqual_Private(&key, &E->caches.cache_key)) P = E->caches.cache;
  else {
    PetscCall(MfadEnergyGlobalToLocal_Private(E, X));
    PetscCall(VecGetArrayRead(E->local.xloc, &x));
  }
  nt = MfadThreadsBegin_Private(E, MFAD_SITE_FUSEDSUM, nelem, &t0);
  PetscCall(PetscMalloc1((size_t)nt * piece, &work));
  /* one region: the zeroing and each colour end at the implicit barrier of their `omp for`; a term
     whose colours hold one block each (no `parallel`) runs them on one thread at a time, in order */
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
#ifdef _OPENMP
    double *H = work + (size_t)omp_get_thread_num() * piece;
#else
    double *H = work;
#endif
#pragma omp for schedule(static)
    for (PetscCount i = 0; i < nvals; i++) vals[i] = 0.0;
    for (PetscInt t = 0; t < E->nterms; t++) {
      const MfadTerm *term = &E->terms[t];
      const PetscInt *slot = pat->slot + pat->slot_start[t];
      const double   *Pt   = P ? P + poff[t] : NULL;
      for (int col = 0; col < term->ncolors; col++) {
#pragma omp for schedule(dynamic, 1)
        for (int bi = term->color_start[col]; bi < term->color_start[col + 1]; bi++)
          MfadFusedBlock_Private(E, term, slot, term->color_blocks[bi], x, Pt, H, vals);
      }
    }
  }
  MfadThreadsEnd_Private(E, MFAD_SITE_FUSEDSUM, nt, nelem, t0);
  PetscCall(PetscFree(work));
  PetscCall(PetscFree(poff));
  if (!P) {
    PetscCall(VecRestoreArrayRead(E->local.xloc, &x));
    for (PetscInt t = 0; t < E->nterms; t++)
      if (E->terms[t].flops_known) PetscCall(PetscLogFlops(E->terms[t].flops[MFAD_MODE_HESSIAN] * E->terms[t].nelem));
  }
  PetscCall(PetscLogEventEnd(MFAD_ElementHessianEvent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
