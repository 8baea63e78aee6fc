// SPDX-License-Identifier: BSD-2-Clause
/* The element-Hessian cache: element Hessians computed once per point and stored packed (upper
   triangle by rows, N(N+1)/2 doubles: 78 instead of 144 for a tet, and a product from the cache
   is memory-bound, so symmetric storage is ~1.8x less traffic), then each product is a gather,
   a small dense symmetric mat-vec and a scatter, with the core's block colouring (race-free and
   bitwise deterministic for any thread count). Kernel-independent: N is known at run time, and
   the common element shapes get compile-time sizes so that the small loops unroll. */
#include "mfadimpl.h"
#include "cuda/mfadcuda.h"
#include <mfad/impl/psd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define MFAD_CHUNK_ELEMENTS 1024 /* full Hessians of a chunk: 1.2 MB at N = 12 per thread, cache-sized */
#define MFAD_MAX_N          24

#define MFAD_ALWAYS_INLINE static inline __attribute__((always_inline))

static PetscCount MfadTermCacheSize_Private(const MfadTerm *t) { return t->nelem * MfadPackedSize_Private(t->k->nvert * t->k->dof); }

/* last block (exclusive) of the chunk starting at block b0: whole blocks, about MFAD_CHUNK_ELEMENTS */
static int MfadChunkEnd_Private(const MfadTerm *t, int b0)
{
  int b1 = b0 + 1;
  while (b1 < t->nblocks && t->block_start[b1 + 1] - t->block_start[b0] <= MFAD_CHUNK_ELEMENTS) b1++;
  return b1;
}

static PetscErrorCode MfadEnergyCacheAlloc_Private(MfadEnergy E)
{
  PetscCount n = 0, nchunk = 0;

  PetscFunctionBegin;
  if (E->caches.ncache >= 0) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt t = 0; t < E->nterms; t++) {
    const MfadTerm *term = &E->terms[t];
    const int       N    = term->k->nvert * term->k->dof;
    PetscCheck(N <= MFAD_MAX_N, PETSC_COMM_SELF, PETSC_ERR_SUP, "term '%s': elements of %d unknowns (at most %d)", term->name, N, MFAD_MAX_N);
    n += MfadTermCacheSize_Private(term);
    for (int b0 = 0, b1; b0 < term->nblocks; b0 = b1) {
      b1     = MfadChunkEnd_Private(term, b0);
      nchunk = PetscMax(nchunk, (PetscCount)(term->block_start[b1] - term->block_start[b0]) * N * N);
    }
  }
  if (n > E->caches.cache_cap) {
    PetscCall(PetscFree(E->caches.cache));
    PetscCall(PetscMalloc1(n, &E->caches.cache));
    E->caches.cache_cap = n;
  }
  E->caches.ncache = n;
  E->caches.nchunk = (PetscInt)nchunk;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* room for the chunks of nt threads */
static PetscErrorCode MfadEnergyChunkAlloc_Private(MfadEnergy E, int nt)
{
  PetscFunctionBegin;
  if (E->caches.chunk && E->caches.chunk_threads >= nt) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(E->caches.chunk));
  PetscCall(PetscMalloc1((size_t)E->caches.nchunk * nt, &E->caches.chunk));
  E->caches.chunk_threads = nt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* packed <- the upper triangle of ne full N x N Hessians, symmetrised (AD gives H_ij and H_ji by
   different operation orders: equal to round-off, not bitwise) */
static void MfadPack_Private(int N, PetscInt ne, const double *H, double *P)
{
  const PetscCount PN = MfadPackedSize_Private(N);

  for (PetscInt e = 0; e < ne; e++) {
    const double *He = H + (size_t)e * N * N;
    double       *Pe = P + (size_t)e * PN;
    int           k  = 0;
    for (int i = 0; i < N; i++) {
      Pe[k++] = He[i * N + i];
      for (int j = i + 1; j < N; j++) Pe[k++] = 0.5 * (He[i * N + j] + He[j * N + i]);
    }
  }
}

PetscErrorCode MfadEnergyUnpackCache_Private(MfadEnergy E, double *H)
{
  const double *P = E->caches.cache;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < E->nterms; t++) {
    const MfadTerm  *term = &E->terms[t];
    const int        N    = term->k->nvert * term->k->dof;
    const PetscCount PN   = MfadPackedSize_Private(N);
    for (PetscInt e = 0; e < term->nelem; e++, P += PN, H += N * N) {
      int k = 0;
      for (int i = 0; i < N; i++)
        for (int j = i; j < N; j++, k++) H[i * N + j] = H[j * N + i] = P[k];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyComputeHessianCache(MfadEnergy E, Vec X)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCall(MfadEnergyCheckVec_Private(E, X, 2, "MfadEnergyComputeHessianCache"));
  PetscCall(MfadEnergySetUp(E));
  PetscCall(MfadEnergyCheckSymmetric_Private(E, "the element-Hessian cache (-mfad_hessian cached: packed symmetric)"));
  MfadBackendCall(E, cache, "element-Hessian cache", (E, X)); /* the CPU's below; the device's in src/cuda/cached.cu */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyHessianCache_CPU(MfadEnergy E, Vec X)
{
  MfadHessianKey key;
  PetscCount     nelem = 0;
  double        *P, t0;
  int            nt;

  PetscFunctionBegin;
  PetscCall(MfadEnergyHessianKey_Private(E, X, &key));
  if (MfadHessianKeyEqual_Private(&key, &E->caches.cache_key)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadEnergyCacheAlloc_Private(E));
  E->caches.cache_key.valid = PETSC_FALSE;
  PetscCall(PetscLogEventBegin(MFAD_ElementHessianEvent, 0, 0, 0, 0));
  for (PetscInt t = 0; t < E->nterms; t++) nelem += E->terms[t].nelem;
  P = E->caches.cache;
  if (MfadHessianKeyEqual_Private(&key, &E->caches.hess_key)) { /* assembled at this point already */
    const double *H = E->caches.hess;
    for (PetscInt t = 0; t < E->nterms; t++) { /* a copy, memory-bound: one thread */
      const int N = E->terms[t].k->nvert * E->terms[t].k->dof;
      MfadPack_Private(N, E->terms[t].nelem, H, P);
      H += E->terms[t].nelem * N * N;
      P += MfadTermCacheSize_Private(&E->terms[t]);
    }
  } else {
    /* Chunks of whole blocks (every term's, in order), each computed and packed by one thread
       into its own part of the cache: one parallel region per build, chunks handed out
       dynamically so that a thread slowed by another process does not hold the others up */
    const PetscScalar *x;
    PetscInt           nc = 0, c = 0;
    PetscCount        *poff; /* where each term's packed Hessians start */
    int               *ct, *cb, *start, maxb = 1;
    double            *value;

    for (PetscInt t = 0; t < E->nterms; t++)
      for (int b0 = 0, b1; b0 < E->terms[t].nblocks; b0 = b1, nc++) {
        b1   = MfadChunkEnd_Private(&E->terms[t], b0);
        maxb = PetscMax(maxb, b1 - b0);
      }
    for (PetscInt t = 0; t < E->nterms; t++) {
      const int N = E->terms[t].k->nvert * E->terms[t].k->dof;
      PetscCheck(E->solve.psd == MFAD_PSD_NONE || N <= MFAD_PSD_MAX_N, PETSC_COMM_SELF, PETSC_ERR_SUP, "term '%s': PSD projection supports elements of at most %d unknowns, not %d", E->terms[t].name, MFAD_PSD_MAX_N, N);
    }
    nt = MfadThreadsBegin_Private(E, MFAD_SITE_HESSIANS, nelem, &t0);
    nt = (int)PetscMin((PetscInt)nt, PetscMax(nc, 1));
    PetscCall(MfadEnergyChunkAlloc_Private(E, nt));
    PetscCall(PetscMalloc3(nc + 1, &ct, nc + 1, &cb, E->nterms + 1, &poff));
    PetscCall(PetscMalloc2((size_t)nt * (maxb + 1), &start, (size_t)nt * maxb, &value));
    poff[0] = 0;
    for (PetscInt t = 0; t < E->nterms; t++) {
      poff[t + 1] = poff[t] + MfadTermCacheSize_Private(&E->terms[t]);
      for (int b0 = 0; b0 < E->terms[t].nblocks; b0 = MfadChunkEnd_Private(&E->terms[t], b0), c++) {
        ct[c] = (int)t;
        cb[c] = b0;
      }
    }
    PetscCall(MfadEnergyGlobalToLocal_Private(E, X));
    PetscCall(VecGetArrayRead(E->local.xloc, &x));
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
    for (PetscInt i = 0; i < nc; i++) {
#ifdef _OPENMP
      const int tid = omp_get_thread_num();
#else
      const int tid = 0;
#endif
      const MfadTerm  *term = &E->terms[ct[i]];
      const int        N    = term->k->nvert * term->k->dof, b0 = cb[i];
      const int        b1   = i + 1 < nc && ct[i + 1] == ct[i] ? cb[i + 1] : term->nblocks;
      const PetscCount PN   = MfadPackedSize_Private(N);
      double          *H    = E->caches.chunk + (size_t)tid * E->caches.nchunk;

      MfadTermElementHessiansRange_Private(E, term, b0, b1, x, H, 1, start + (size_t)tid * (maxb + 1), value + (size_t)tid * maxb);
      MfadPack_Private(N, term->block_start[b1] - term->block_start[b0], H, P + poff[ct[i]] + term->block_start[b0] * PN);
    }
    MfadThreadsEnd_Private(E, MFAD_SITE_HESSIANS, nt, nelem, t0);
    PetscCall(VecRestoreArrayRead(E->local.xloc, &x));
    for (PetscInt t = 0; t < E->nterms; t++)
      if (E->terms[t].flops_known) PetscCall(PetscLogFlops(E->terms[t].flops[MFAD_MODE_HESSIAN] * E->terms[t].nelem));
    PetscCall(PetscFree2(start, value));
    PetscCall(PetscFree3(ct, cb, poff));
  }
  PetscCall(PetscLogEventEnd(MFAD_ElementHessianEvent, 0, 0, 0, 0));
  E->caches.cache_key = key;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ products from the cache */
/* Runs STMT (which sees element `e`) over a term's elements, colour by colour: blocks of one
   colour share no vertex and run in parallel, handed out one at a time (a descheduled thread
   holds the others up by one block); the implicit barrier of `omp for` ends a colour. */
#define MFAD_CSTR_(a)   #a
#define MFAD_CSTR(a)    MFAD_CSTR_(a)
#define MFAD_CPRAGMA(x) _Pragma(MFAD_CSTR(omp x))
#define MFAD_CACHED_COLOURED(term, nt, ...) \
  do { \
    (void)(nt); \
    MFAD_CPRAGMA(parallel num_threads(nt) if ((term)->parallel && (nt) > 1)) for (int col_ = 0; col_ < (term)->ncolors; col_++) \
    { \
      MFAD_CPRAGMA(for schedule(dynamic, 1)) for (int bi_ = (term)->color_start[col_]; bi_ < (term)->color_start[col_ + 1]; bi_++) \
      { \
        const int b_ = (term)->color_blocks[bi_]; \
        for (int e = (term)->block_start[b_]; e < (term)->block_start[b_ + 1]; e++) { __VA_ARGS__; } \
      } \
    } \
  } while (0)

/* y += H_e v_e for one element, H_e packed; nv and dof are compile-time constants at the call
   sites below, so gcc unrolls every loop and keeps v_e and y_e in registers */
MFAD_ALWAYS_INLINE void MfadCachedElementMult(const int nv, const int dof, const int *c, const double *P, const double *v, double *y)
{
  const int N = nv * dof;
  double    xe[MFAD_MAX_N], ye[MFAD_MAX_N];
  int       k = 0;

  if (N > MFAD_MAX_N) __builtin_unreachable(); /* checked when the cache is allocated */

#pragma GCC unroll 16
  for (int a = 0; a < nv; a++)
#pragma GCC unroll 3
    for (int d = 0; d < dof; d++) xe[a * dof + d] = v[(size_t)c[a] * dof + d];
#pragma GCC unroll 16
  for (int i = 0; i < N; i++) ye[i] = 0.0;
#pragma GCC unroll 16
  for (int i = 0; i < N; i++) {
    double s = P[k++] * xe[i];
#pragma GCC unroll 16
    for (int j = i + 1; j < N; j++, k++) {
      s += P[k] * xe[j];
      ye[j] += P[k] * xe[i];
    }
    ye[i] += s;
  }
#pragma GCC unroll 16
  for (int a = 0; a < nv; a++)
#pragma GCC unroll 3
    for (int d = 0; d < dof; d++) y[(size_t)c[a] * dof + d] += ye[a * dof + d];
}

/* One function per element shape, its parallel loop written out with literal sizes: OpenMP
   outlines a parallel region before inlining, so a region in a shared inline function would see
   run-time sizes (measured: 2x slower) */
#define MFAD_CACHED_MULT_SIZE(NV, ND) \
  static void MfadCachedMult_##NV##_##ND(const MfadTerm *term, int nt, const double *P, const double *v, double *y) \
  { \
    const size_t PN = (size_t)((NV) * (ND) * ((NV) * (ND) + 1) / 2); \
    MFAD_CACHED_COLOURED(term, nt, MfadCachedElementMult(NV, ND, term->conn + (size_t)e * (NV), P + (size_t)e * PN, v, y)); \
  }
MFAD_CACHED_MULT_SIZE(1, 3)
MFAD_CACHED_MULT_SIZE(2, 3)
MFAD_CACHED_MULT_SIZE(3, 2)
MFAD_CACHED_MULT_SIZE(3, 3)
MFAD_CACHED_MULT_SIZE(4, 3)

static void MfadCachedMultTerm(const int nv, const int dof, const MfadTerm *term, int nt, const double *P, const double *v, double *y)
{
  const size_t PN = (size_t)MfadPackedSize_Private(nv * dof);
  MFAD_CACHED_COLOURED(term, nt, MfadCachedElementMult(nv, dof, term->conn + (size_t)e * nv, P + (size_t)e * PN, v, y));
}

static void MfadCachedMultAny_Private(const MfadTerm *term, int nt, const double *P, const double *v, double *y)
{
  const int nv = term->k->nvert, dof = term->k->dof;

  if (nv == 1 && dof == 3) MfadCachedMult_1_3(term, nt, P, v, y);
  else if (nv == 2 && dof == 3) MfadCachedMult_2_3(term, nt, P, v, y);
  else if (nv == 3 && dof == 2) MfadCachedMult_3_2(term, nt, P, v, y);
  else if (nv == 3 && dof == 3) MfadCachedMult_3_3(term, nt, P, v, y);
  else if (nv == 4 && dof == 3) MfadCachedMult_4_3(term, nt, P, v, y);
  else MfadCachedMultTerm(nv, dof, term, nt, P, v, y); /* run-time sizes */
}

/* The CPU's products from the cache on the energy's local vectors: y (yloc) <- H v (vloc, whose
   fixed entries it zeroes), diag(H), or its vertex blocks (blockloc) */
static PetscErrorCode MfadEnergyCachedMult_CPU(MfadEnergy E)
{
  const double *P;
  PetscScalar  *y, *v;
  PetscCount    nelem = 0;
  double        t0;
  int           nt;

  PetscFunctionBegin;
  PetscCall(VecGetArray(E->local.vloc, &v));
  for (PetscInt i = 0; i < E->local.nfixloc; i++) v[E->local.fixloc[i]] = 0.0; /* fixed columns of H are zero */
  PetscCall(VecZeroEntries(E->local.yloc));
  PetscCall(VecGetArray(E->local.yloc, &y));
  P = E->caches.cache;
  for (PetscInt t = 0; t < E->nterms; t++) nelem += E->terms[t].nelem;
  nt = MfadThreadsBegin_Private(E, MFAD_SITE_CACHED_HVP, nelem, &t0);
  for (PetscInt t = 0; t < E->nterms; t++) {
    const MfadTerm *term = &E->terms[t];
    const int       N    = term->k->nvert * term->k->dof;
    if (term->nelem) MfadCachedMultAny_Private(term, nt, P, v, y);
    PetscCall(PetscLogFlops(2.0 * N * N * term->nelem));
    P += MfadTermCacheSize_Private(term);
  }
  MfadThreadsEnd_Private(E, MFAD_SITE_CACHED_HVP, nt, nelem, t0);
  PetscCall(VecRestoreArray(E->local.yloc, &y));
  PetscCall(VecRestoreArray(E->local.vloc, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* packed index of (i, i) */
static inline int MfadPackedDiag(int N, int i) { return i * N - i * (i - 1) / 2; }

static PetscErrorCode MfadEnergyCachedDiagonal_CPU(MfadEnergy E)
{
  const double *P;
  PetscScalar  *y;
  PetscCount    nelem = 0;
  double        t0;
  int           nt;

  PetscFunctionBegin;
  PetscCall(VecZeroEntries(E->local.yloc));
  PetscCall(VecGetArray(E->local.yloc, &y));
  P = E->caches.cache;
  for (PetscInt t = 0; t < E->nterms; t++) nelem += E->terms[t].nelem;
  nt = MfadThreadsBegin_Private(E, MFAD_SITE_CACHED_DIAGONAL, nelem, &t0);
  for (PetscInt t = 0; t < E->nterms; t++) {
    const MfadTerm *term = &E->terms[t];
    const int       nv = term->k->nvert, dof = term->k->dof, N = nv * dof;
    const size_t    PN = (size_t)MfadPackedSize_Private(N);
    MFAD_CACHED_COLOURED(term, nt, const int *c = term->conn + (size_t)e * nv; const double *Pe = P + e * PN;
                         for (int a = 0; a < nv; a++) for (int d = 0; d < dof; d++) y[(size_t)c[a] * dof + d] += Pe[MfadPackedDiag(N, a * dof + d)]);
    P += MfadTermCacheSize_Private(term);
  }
  MfadThreadsEnd_Private(E, MFAD_SITE_CACHED_DIAGONAL, nt, nelem, t0);
  PetscCall(VecRestoreArray(E->local.yloc, &y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadEnergyCachedBlockDiagonal_CPU(MfadEnergy E)
{
  const double *P;
  double       *B;
  PetscCount    nelem = 0;
  double        t0;
  int           nt;

  PetscFunctionBegin;
  B = E->local.blockloc;
  PetscCall(PetscArrayzero(B, (size_t)E->local.nlocal * E->dof * E->dof));
  P = E->caches.cache;
  for (PetscInt t = 0; t < E->nterms; t++) nelem += E->terms[t].nelem;
  nt = MfadThreadsBegin_Private(E, MFAD_SITE_CACHED_BLOCKDIAG, nelem, &t0);
  for (PetscInt t = 0; t < E->nterms; t++) {
    const MfadTerm *term = &E->terms[t];
    const int       nv = term->k->nvert, dof = term->k->dof, N = nv * dof;
    const size_t    PN = (size_t)MfadPackedSize_Private(N);
    /* vertex block (d, f) of vertex a is H(a dof + min(d, f), a dof + max(d, f)): upper triangle */
    MFAD_CACHED_COLOURED(term, nt, const int *c = term->conn + (size_t)e * nv; const double *Pe = P + e * PN;
                         for (int a = 0; a < nv; a++) for (int d = 0; d < dof; d++) for (int f = 0; f < dof; f++) {
                           const int i = a * dof + PetscMin(d, f), j = a * dof + PetscMax(d, f);
                           B[((size_t)c[a] * dof + d) * dof + f] += Pe[MfadPackedDiag(N, i) + j - i];
                         });
    P += MfadTermCacheSize_Private(term);
  }
  MfadThreadsEnd_Private(E, MFAD_SITE_CACHED_BLOCKDIAG, nt, nelem, t0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCachedRun_CPU(MfadEnergy E, MfadOp op)
{
  PetscFunctionBegin;
  switch (op) {
  case MFAD_OP_HVP:
    PetscCall(MfadEnergyCachedMult_CPU(E));
    break;
  case MFAD_OP_DIAGONAL:
    PetscCall(MfadEnergyCachedDiagonal_CPU(E));
    break;
  case MFAD_OP_BLOCKDIAG:
    PetscCall(MfadEnergyCachedBlockDiagonal_CPU(E));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "no cached operation %d", (int)op);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCachedHessianProduct(MfadEnergy E, Vec X, Vec V, Vec Y)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyComputeHessianCache(E, X));
  PetscCall(MfadEnergyCheckVec_Private(E, V, 3, "MfadEnergyCachedHessianProduct"));
  PetscCall(MfadEnergyCheckVec_Private(E, Y, 4, "MfadEnergyCachedHessianProduct"));
  PetscCheck(V != Y, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_IDN, "MfadEnergyCachedHessianProduct: V and Y must be different vectors");
  PetscCall(PetscLogEventBegin(MFAD_CachedMultEvent, 0, 0, 0, 0));
  PetscCall(MfadEnergyLocalBegin_Private(E, V, Y));
  MfadBackendCall(E, cachedrun, "cached Hessian product", (E, MFAD_OP_HVP));
  PetscCall(MfadEnergyLocalToGlobal_Private(E, Y, MFAD_FIXED_IDENTITY, V));
  PetscCall(PetscLogEventEnd(MFAD_CachedMultEvent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCachedHessianDiagonal(MfadEnergy E, Vec X, Vec D)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyComputeHessianCache(E, X));
  PetscCall(MfadEnergyCheckVec_Private(E, D, 3, "MfadEnergyCachedHessianDiagonal"));
  PetscCall(MfadEnergyLocalBegin_Private(E, NULL, D));
  MfadBackendCall(E, cachedrun, "cached Hessian diagonal", (E, MFAD_OP_DIAGONAL));
  PetscCall(MfadEnergyLocalToGlobal_Private(E, D, MFAD_FIXED_ONE, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCachedHessianBlockDiagonal(MfadEnergy E, Vec X, PetscScalar blocks[])
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyComputeHessianCache(E, X));
  MfadValidPointer(blocks, 3);
  MfadBackendCall(E, cachedrun, "cached Hessian block diagonal", (E, MFAD_OP_BLOCKDIAG));
  PetscCall(MfadEnergyBlocksLocalToGlobal_Private(E, blocks));
  PetscFunctionReturn(PETSC_SUCCESS);
}
