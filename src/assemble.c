// SPDX-License-Identifier: BSD-2-Clause
/* The assembled Hessian: a PETSc Mat preallocated once with MatSetPreallocationCOO() from the
   element connectivity, filled at each point with MatSetValuesCOO(). On the CPU the COO entries
   are the vertex-pair pattern's (src/pattern.c: one entry per nonzero, the element Hessians summed
   into it first), which makes the set-up several times cheaper than one entry per element entry;
   the CPU sums each block's element Hessians into the pairs as it computes them (the backend's
   hessianpairs: no nelem x N^2 array, 1.16 GB for 1M tets). -mfad_coo_merge 0, and the CUDA
   backend (whose values stay on the device), give PETSc the element entries in the order of the
   element-Hessian buffer, so that buffer is the values array. A host aij, baij or sbaij with merged entries
   skips COO altogether (-mfad_assemble_csr, src/assemble_csr.c): preallocated from CSR straight
   from the pair pattern on any number of ranks, aij filled in place and (s)baij by block rows,
   which makes a (re-)preallocation 2-5x cheaper and a (s)baij fill about 2x.
   Fixed dofs: every entry in a fixed row or column gets index -1, which COO ignores (PETSc 3.18:
   "entries with negative row or column indices are ignored", checked for aij and baij, 1 and 2
   ranks), and each owned fixed dof gets one diagonal entry of value 1: fixed rows and columns
   are the identity, as in the fused product. */
#include "mfadimpl.h"
#include <petsc/private/matimpl.h> /* the nonzero state of a Mat: MfadMatNewNonzeroState_Private() */

#define MFAD_MAX_ELEMENT_N 24 /* as mfad/impl/ad.h */

/* What a matrix was preallocated for: the energy, its set-up and its fixed dofs. */
typedef struct {
  MfadEnergy      E;
  PetscInt        setup_count;
  PetscInt        nfixloc;
  PetscInt       *fixloc;
  PetscCount      nelemcoo;                       /* MfadEnergyCOOSize_Private() when made: the energy's shape */
  PetscInt        elements_state, ghost_rebuilds; /* the element sets and local numbering the pattern is for */
  PetscBool       merge;                          /* COO entries per vertex pair (pat, vals) or per element entry */
  PetscBool       upper;                          /* sbaij: the upper triangle only */
  PetscBool       csr;                            /* host (s)(b)aij, merged: mfad's CSR preallocation and fill, no COO */
  MfadMatCSR      csrmat;                         /* csr: the layout the fills write */
  MfadPairPattern pat;
  double         *vals;         /* merged values: pat.npair dof^2, then 1 per owned fixed dof */
  PetscInt       *cover;        /* merged: element blocks in each pair, over all terms */
  PetscInt       *term_updates; /* each term's element sets given (MfadTerm nupdates) when pat was made */
} MfadMatCOO;

static PetscErrorCode MfadMatCOODestroy_Private(void *ptr)
{
  MfadMatCOO *c = (MfadMatCOO *)MfadCtxDestroyArg(ptr);

  PetscFunctionBegin;
  if (c->E && c->E->caches.pairs == c->vals) c->E->caches.pairs_key.valid = PETSC_FALSE; /* its address may come back */
  PetscCall(PetscFree(c->fixloc));
  PetscCall(MfadPairPatternDestroy_Private(&c->pat));
  PetscCall(PetscFree(c->vals));
  PetscCall(PetscFree(c->cover));
  PetscCall(PetscFree(c->term_updates));
  PetscCall(MfadMatCSRDestroy_Private(&c->csrmat));
  PetscCall(MfadEnergyDestroy(&c->E));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscCount MfadEnergyCOOSize_Private(MfadEnergy E)
{
  PetscCount n = E->local.nfixown;

  for (PetscInt t = 0; t < E->nterms; t++) {
    const PetscCount N = E->terms[t].k->nvert * E->terms[t].k->dof;
    n += E->terms[t].nelem * N * N;
  }
  return n;
}

/* Accepted matrix types: those with a COO path in PETSc 3.18 that this code was checked with */
static PetscErrorCode MfadMatCheckType_Private(MfadEnergy E, Mat A, PetscBool *upper)
{
  PetscBool ok, sbaij;
  MatType   type;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &sbaij, MATSEQSBAIJ, MATMPISBAIJ, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &ok, MATSEQAIJ, MATMPIAIJ, MATSEQBAIJ, MATMPIBAIJ, ""));
  PetscCall(MatGetType(A, &type));
  /* cuSPARSE matrices (a type only where PETSc has CUDA) take host values in MatSetValuesCOO() and
     copy them to the device; with host vectors, Newton with them diverged on an H100 (PETSc 3.26.1,
     docs/gpu.md), so they need CUDA vectors */
  if (!ok) {
    PetscBool cusparse, cudavec;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &cusparse, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)E->local.xglob, &cudavec, VECSEQCUDA, VECMPICUDA, ""));
    PetscCheck(
        !cusparse || cudavec, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_INCOMP,
        "MfadEnergyCreateMatrix: -mat_type %s needs CUDA vectors (-vec_type cuda): with host vectors its Newton steps were wrong (docs/gpu.md)",
        type);
    ok = cusparse;
  }
  PetscCheck(ok || sbaij, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP,
             "MfadEnergyCreateMatrix: -mat_type %s is not supported; use aij, baij or sbaij (or aijcusparse where PETSc has CUDA)", type);
  *upper = sbaij;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the global index of local dof d of local vertex lv, or -1 when it is fixed */
static inline PetscInt MfadGlobalDof(MfadEnergy E, const char *fixed, PetscInt lv, PetscInt d)
{
  const PetscInt gv = lv < E->n ? E->rstart + lv : E->local.ghosts[lv - E->n];
  return fixed[lv * E->dof + d] ? -1 : gv * E->dof + d;
}

/* COO entries, one per vertex pair and dof pair, in the order of c->vals */
static PetscErrorCode MfadMatCOOPairs_Private(MfadEnergy E, const MfadPairPattern *pat, const char *fixed, PetscBool upper, PetscInt *ci,
                                              PetscInt *cj)
{
  const PetscInt dof = E->dof;
  PetscCount     k   = 0;

  PetscFunctionBegin;
  PetscCheck(dof <= MFAD_MAX_ELEMENT_N, PETSC_COMM_SELF, PETSC_ERR_SUP, "%" PetscInt_FMT " dofs per vertex (at most %d)", dof, MFAD_MAX_ELEMENT_N);
  for (PetscInt a = 0; a < pat->nrow; a++) {
    PetscInt gi[MFAD_MAX_ELEMENT_N], gj[MFAD_MAX_ELEMENT_N];
    for (PetscInt i = 0; i < dof; i++) gi[i] = MfadGlobalDof(E, fixed, a, i);
    for (PetscInt p = pat->row_start[a]; p < pat->row_start[a + 1]; p++) {
      for (PetscInt j = 0; j < dof; j++) gj[j] = MfadGlobalDof(E, fixed, pat->col[p], j);
      for (PetscInt i = 0; i < dof; i++)
        for (PetscInt j = 0; j < dof; j++, k++) {
          const PetscBool drop = gi[i] < 0 || gj[j] < 0 || (upper && gi[i] > gj[j]);
          ci[k]                = drop ? -1 : gi[i];
          cj[k]                = drop ? -1 : gj[j];
        }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* COO entries, one per element entry, in the order of E->caches.hess: term by term, element by element
   (loop order), N x N row-major */
static PetscErrorCode MfadMatCOOElements_Private(MfadEnergy E, const char *fixed, PetscBool upper, PetscInt *ci, PetscInt *cj)
{
  const PetscInt dof = E->dof;
  PetscCount     k   = 0;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < E->nterms; t++) {
    const MfadTerm *term = &E->terms[t];
    const int       nv = term->k->nvert, N = nv * (int)dof;
    PetscInt        g[MFAD_MAX_ELEMENT_N];
    PetscCheck(N <= MFAD_MAX_ELEMENT_N, PETSC_COMM_SELF, PETSC_ERR_SUP, "term '%s': elements of %d unknowns (at most %d)", term->name, N,
               MFAD_MAX_ELEMENT_N);
    for (PetscInt e = 0; e < term->nelem; e++) {
      const int *conn = term->conn + e * nv;
      for (int a = 0; a < nv; a++)
        for (int d = 0; d < dof; d++) g[a * dof + d] = MfadGlobalDof(E, fixed, conn[a], d);
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++, k++) {
          const PetscBool drop = g[i] < 0 || g[j] < 0 || (upper && g[i] > g[j]);
          ci[k]                = drop ? -1 : g[i];
          cj[k]                = drop ? -1 : g[j];
        }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A matrix preallocated again for a new pattern (dynamic element sets: contact) gets a new nonzero
   state, before + 1, on every rank. PCs rebuild a symbolic factorisation only on a new state, and
   PETSc 3.26 finds a seq(s)baij's diagonal blocks again only then (MatGetDiagonalMarkers_SeqBAIJ(),
   read by MatGetDiagonal(), MatInvertBlockDiagonal() and MatSOR(); 3.18 found them at each
   assembly). Seq(S)BAIJ preallocation keeps the old state (3.18 and 3.26; SeqAIJ's raises it), as
   does PETSc 3.18's COO preallocation on several ranks: with the old diagonal positions read in the
   new arrays, point-block Jacobi on the assembled form of -mfad_hessian auto (seqbaij) inverted the
   wrong blocks and example_drop_contact's Newton steps stalled at a residual of 19.7 of the load
   on PETSc 3.26 (1.2e-6 with aij). On several ranks assembly sets the state to the sum of the
   ranks' diagonal and off-diagonal blocks' (again at each one where new locations are allowed),
   so the difference goes into rank 0's diagonal block: the sum stays before + 1. Collective. */
static PetscErrorCode MfadMatNewNonzeroState_Private(Mat A, PetscObjectState before)
{
  PetscMPIInt size, rank;
  Mat         Ad;

  PetscFunctionBegin;
  if (A->nonzerostate > before) PetscFunctionReturn(PETSC_SUCCESS); /* the same on every rank: summed, or one rank */
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  if (size > 1 && rank == 0) {
    PetscCall(MatGetDiagonalBlock(A, &Ad));
    Ad->nonzerostate += before + 1 - A->nonzerostate;
  }
  A->nonzerostate = before + 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSetPreallocationCOO() for the energy's current elements and fixed dofs, on a new matrix or
   again on one whose pattern changed (dynamic element sets); pat: the merged pattern, taken (NULL:
   built here). Collective. */
static PetscErrorCode MfadMatPreallocate_Private(MfadEnergy E, Mat A, MfadMatCOO *c, MfadPairPattern *pat)
{
  const PetscInt dof = E->dof;
  PetscCount     ncoo, nfix0;
  PetscInt      *ci, *cj;
  char          *fixed;
  PetscObjectState before;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MFAD_PatternEvent, 0, 0, 0, 0));
  PetscCall(MatGetNonzeroState(A, &before));
  PetscCall(MfadPairPatternDestroy_Private(&c->pat));
  if (E->caches.pairs == c->vals) E->caches.pairs_key.valid = PETSC_FALSE;
  PetscCall(PetscFree(c->vals));
  PetscCall(PetscFree(c->fixloc));
  PetscCall(PetscFree(c->cover));
  PetscCall(PetscFree(c->term_updates));
  PetscCall(PetscCalloc1(E->local.nlocal * dof, &fixed));
  for (PetscInt i = 0; i < E->local.nfixloc; i++) fixed[E->local.fixloc[i]] = 1;
  if (c->merge) {
    if (pat) c->pat = *pat;
    else PetscCall(MfadPairPatternCreate_Private(E, &c->pat));
    nfix0 = (PetscCount)c->pat.npair * dof * dof;
  } else nfix0 = MfadEnergyCOOSize_Private(E) - E->local.nfixown;
  ncoo = nfix0 + E->local.nfixown; /* then the owned fixed dofs' diagonal */
  if (c->csr) PetscCall(MfadMatCSRCreate_Private(E, A, c->upper, &c->pat, fixed, &c->csrmat));
  else {
    PetscCall(PetscMalloc2(ncoo, &ci, ncoo, &cj));
    if (c->merge) PetscCall(MfadMatCOOPairs_Private(E, &c->pat, fixed, c->upper, ci, cj));
    else PetscCall(MfadMatCOOElements_Private(E, fixed, c->upper, ci, cj));
    for (PetscInt i = 0; i < E->local.nfixown; i++) ci[nfix0 + i] = cj[nfix0 + i] = E->rstart * dof + E->local.fixloc[i];
    PetscCall(MatSetPreallocationCOO(A, ncoo, ci, cj));
    PetscCall(PetscFree2(ci, cj));
  }
  PetscCall(PetscFree(fixed));
  {
    /* PETSc 3.18's MPIAIJ COO preallocation makes its diagonal block with block size 1, so
       MatInvertBlockDiagonal() (point-block Jacobi) inverted 1 x 1 blocks on several ranks */
    PetscBool mpiaij;
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpiaij));
    if (mpiaij) {
      Mat      Ad;
      PetscInt bs;
      PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
      PetscCall(MatGetBlockSize(Ad, &bs));
      if (bs != dof) PetscCall(MatSetBlockSizes(Ad, dof, dof));
    }
  }
  /* assembled (all zero) from the start: PETSc's coloured finite differences (-snes_fd_color,
     MatFDColoringCreate()) need an assembled matrix before the first MfadEnergyComputeHessian();
     the CSR path's preallocation already assembled it */
  if (!c->csr) {
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(MfadMatNewNonzeroState_Private(A, before));
  {
    PetscBool sym;
    PetscCall(MfadEnergyIsSymmetric(E, &sym));
    PetscCall(MatSetOption(A, MAT_SYMMETRIC, sym));
    PetscCall(MatSetOption(A, MAT_SYMMETRY_ETERNAL, PETSC_TRUE)); /* symmetric or not, for good */
  }
  c->setup_count    = E->local.count;
  c->elements_state = E->dyn.elements_state;
  c->ghost_rebuilds = E->dyn.nghost_rebuilds;
  c->nfixloc        = E->local.nfixloc;
  c->nelemcoo       = MfadEnergyCOOSize_Private(E);
  if (c->merge) {
    const PetscCount nvals = c->csr ? nfix0 : ncoo; /* the CSR fill writes the fixed diagonal itself */
    PetscCall(PetscMalloc1(nvals, &c->vals));
    for (PetscCount i = nfix0; i < nvals; i++) c->vals[i] = 1.0;
    PetscCall(PetscCalloc1(c->pat.npair, &c->cover));
    for (PetscCount i = 0; i < c->pat.slot_start[E->nterms]; i++) c->cover[c->pat.slot[i]]++;
  }
  PetscCall(PetscMalloc1(E->nterms, &c->term_updates));
  for (PetscInt t = 0; t < E->nterms; t++) c->term_updates[t] = E->terms[t].nupdates;
  PetscCall(PetscMalloc1(E->local.nfixloc, &c->fixloc));
  PetscCall(PetscArraycpy(c->fixloc, E->local.fixloc, E->local.nfixloc));
  PetscCall(PetscLogEventEnd(MFAD_PatternEvent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the changed terms' new elements keep the pair pattern (merged COO, local numbering
   unchanged): their old blocks leave each pair's count of covering blocks, their new blocks must
   each find their pair and enter its count, and no pair may be left uncovered. The slots are
   rewritten as it goes: in place where the unchanged terms keep their offsets (the usual case:
   the changing terms, contact, come last), so an update touches only the changed terms' slots and
   reuses the memory. When *same comes back false the pattern is left inconsistent: the caller
   builds it again. O(the changed terms' elements), whatever the size of the other terms. */
static PetscErrorCode MfadMatSamePairs_Private(MfadEnergy E, MfadMatCOO *c, PetscBool *same)
{
  MfadPairPattern *pat  = &c->pat;
  PetscInt        *zero = NULL, *slot = pat->slot, nzero = 0, maxzero = 0;
  PetscCount      *start;
  PetscBool        inplace = PETSC_TRUE;

  PetscFunctionBegin;
  *same = PETSC_TRUE;
  PetscCall(PetscMalloc1(E->nterms + 1, &start));
  start[0] = 0;
  for (PetscInt t = 0; t < E->nterms; t++) {
    const int nv = E->terms[t].k->nvert;
    start[t + 1] = start[t] + E->terms[t].nelem * nv * nv;
    if (c->term_updates[t] != E->terms[t].nupdates) maxzero += (PetscInt)(pat->slot_start[t + 1] - pat->slot_start[t]);
    else if (start[t] != pat->slot_start[t]) inplace = PETSC_FALSE;
  }
  /* every changed term's old blocks leave their pairs before any new slot is written */
  PetscCall(PetscMalloc1(maxzero, &zero));
  for (PetscInt t = 0; t < E->nterms; t++)
    if (c->term_updates[t] != E->terms[t].nupdates)
      for (PetscCount i = pat->slot_start[t]; i < pat->slot_start[t + 1]; i++)
        if (--c->cover[pat->slot[i]] == 0) zero[nzero++] = pat->slot[i];
  if (!inplace) { /* a new array, the unchanged terms' slots moved into it */
    PetscCall(PetscMalloc1(start[E->nterms], &slot));
    for (PetscInt t = 0; t < E->nterms; t++)
      if (c->term_updates[t] == E->terms[t].nupdates) PetscCall(PetscArraycpy(slot + start[t], pat->slot + pat->slot_start[t], start[t + 1] - start[t]));
    PetscCall(PetscFree(pat->slot));
    pat->slot_cap = start[E->nterms];
  } else if (start[E->nterms] > pat->slot_cap) {
    PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)start[E->nterms], &pat->slot));
    slot          = pat->slot;
    pat->slot_cap = start[E->nterms];
  }
  pat->slot = slot;
  PetscCall(PetscFree(pat->slot_start));
  pat->slot_start = start;
  for (PetscInt t = 0; t < E->nterms && *same; t++) {
    const MfadTerm *term = &E->terms[t];
    const int       nv   = term->k->nvert;
    PetscInt       *ns   = slot + start[t];
    if (c->term_updates[t] == term->nupdates) continue; /* unchanged: its slots stand */
    for (PetscInt e = 0; e < term->nelem && *same; e++)
      for (int a = 0; a < nv && *same; a++) {
        const PetscInt r = term->conn[e * nv + a], r0 = pat->row_start[r], len = pat->row_start[r + 1] - r0;
        for (int b = 0; b < nv; b++) {
          PetscInt pos;
          PetscCall(PetscFindInt(term->conn[e * nv + b], len, pat->col + r0, &pos));
          if (pos < 0) {
            *same = PETSC_FALSE;
            break;
          }
          ns[((size_t)e * nv + a) * nv + b] = r0 + pos;
          c->cover[r0 + pos]++;
        }
      }
  }
  for (PetscInt i = 0; i < nzero && *same; i++)
    if (!c->cover[zero[i]]) *same = PETSC_FALSE; /* a pair only the old elements had */
  PetscCall(PetscFree(zero));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After an element-set change: the same vertex pairs (in any element order) keep the matrix's
   preallocation, with the new elements' slots; other pairs re-preallocate it. Pairs are compared
   in local numbering, which is the same exactly when no ghost rebuild happened (a changed ghost
   set is a changed pair set: every used vertex pairs with itself). Collective. */
static PetscErrorCode MfadMatUpdatePattern_Private(MfadEnergy E, Mat A, MfadMatCOO *c)
{
  PetscInt  changed = 1, anychanged;
  PetscBool same    = PETSC_FALSE;

  PetscFunctionBegin;
  if (c->merge && c->ghost_rebuilds == E->dyn.nghost_rebuilds) {
    PetscCall(PetscLogEventBegin(MFAD_PatternEvent, 0, 0, 0, 0));
    PetscCall(MfadMatSamePairs_Private(E, c, &same));
    changed = same ? 0 : 1;
    PetscCall(PetscLogEventEnd(MFAD_PatternEvent, 0, 0, 0, 0));
  }
  PetscCall(MPIU_Allreduce(&changed, &anychanged, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)E))); /* preallocation is collective */
  if (anychanged) {
    PetscCall(PetscInfo(A, "mfad: the element sets changed the vertex-pair pattern: re-preallocating\n"));
    PetscCall(MfadMatPreallocate_Private(E, A, c, NULL));
    E->dyn.npattern_builds++;
  } else { /* the same pairs, the new elements' slots */
    if (E->caches.pairs == c->vals) E->caches.pairs_key.valid = PETSC_FALSE;
    for (PetscInt t = 0; t < E->nterms; t++) c->term_updates[t] = E->terms[t].nupdates;
    c->elements_state = E->dyn.elements_state;
    c->nelemcoo       = MfadEnergyCOOSize_Private(E);
    E->dyn.npattern_kept++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCreateMatrix(MfadEnergy E, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyCreateMatrixOfType_Private(E, MATAIJ, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An assembled Hessian that only a Krylov method applies (the operator of -mfad_hessian auto, or of
   -mfad_hessian aij beside another -mfad_pmat): never factored (a preconditioner reads at most its
   diagonal or diagonal blocks, through auto's shell), so its format is the one with the faster
   product. With more than one unknown per vertex that is baij (block size dof), filled in place
   as fast as aij (src/assemble_csr.c), on several ranks: bench_spmv_eigen, 100k tets: 1.14 against
   1.77 ms (Eigen 1.90), 384k: 3.66 against 7.67 ms (Eigen 5.00); on 2 ranks (bench_scaling
   -assembled, 100k tets, 3 runs on 2 busy cores) MatMult 1.2-2.8x aij's, the fill within the noise
   of aij's (0.64-1.3x; by MatSetValuesBlocked() it was 1.1-1.4x). On one rank, where the Hessian is
   symmetric (no residual term), sbaij: the upper triangle, half of baij's memory, filled in place
   as baij is; bench_spmv, 100,800 tets: 2.10 against baij's 3.08 and aij's 3.32 ms on an Intel
   core, where baij was 0.83-1.01x Eigen's faster product (bench/README.md), 2.13x aij's speed
   against baij's 1.67x on an AMD Zen 4 (bench/RESULTS.md). Its products differ from baij's in the
   last bits (each pair of mirrored entries is the upper one twice).
   A changed pattern (contact) preallocates it again with a new nonzero state
   (MfadMatNewNonzeroState_Private(): without it PETSc 3.26 read its diagonal blocks at the old
   positions and example_drop_contact stalled). For a backend that keeps its values unmerged
   (COO, no in-place fill), aij. */
PetscErrorCode MfadEnergyGetOperatorMatType_Private(MfadEnergy E, MatType *type)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)E), &size));
  if (!(E->dof > 1 && MfadEnergyCOOMerge_Private(E) && E->opt.assemble_csr)) *type = MATAIJ;
  else *type = size == 1 && MfadEnergyFirstSystemTerm_Private(E) < 0 ? MATSBAIJ : MATBAIJ;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCreateMatrixOfType_Private(MfadEnergy E, MatType type, Mat *A)
{
  PetscBool      upper = PETSC_FALSE, merge;
  MfadMatCOO    *c;
  PetscContainer holder;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  MfadValidPointer(A, 3);
  PetscCall(MfadEnergySetUp(E));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)E), A));
  PetscCall(MatSetSizes(*A, E->n * E->dof, E->n * E->dof, E->N * E->dof, E->N * E->dof));
  PetscCall(MatSetBlockSize(*A, E->dof));
  PetscCall(MatSetOptionsPrefix(*A, ((PetscObject)E)->prefix));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MfadMatCheckType_Private(E, *A, &upper));
  if (upper) PetscCall(MfadEnergyCheckSymmetric_Private(E, "MfadEnergyCreateMatrix with -mat_type sbaij (upper triangle only)"));
  merge = MfadEnergyCOOMerge_Private(E);
  PetscCheck(!(E->opt.coo_merge_set && merge && !E->backend_defaults.coo_merge), PetscObjectComm((PetscObject)E), PETSC_ERR_SUP,
             "MfadEnergyCreateMatrix: -mfad_coo_merge needs the CPU backend (backend '%s' keeps its values where it computes them, in element order)",
             ((PetscObject)E)->type_name);

  PetscCall(PetscNew(&c));
  c->merge = merge;
  c->upper = upper;
  { /* a host matrix (not cuSPARSE) with merged entries: CSR preallocation, and a fill in place (aij) or by block rows */
    PetscBool aij;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)*A, &aij, MATSEQAIJ, MATMPIAIJ, MATSEQBAIJ, MATMPIBAIJ, MATSEQSBAIJ, MATMPISBAIJ, ""));
    c->csr = (PetscBool)(E->opt.assemble_csr && merge && aij);
  }
  PetscCall(MfadMatPreallocate_Private(E, *A, c, NULL));
  PetscCall(MfadEnergyReference(E));
  c->E = E;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &holder));
  PetscCall(PetscContainerSetPointer(holder, c));
  PetscCall(MfadContainerSetCtxDestroy(holder, MfadMatCOODestroy_Private));
  PetscCall(PetscObjectCompose((PetscObject)*A, "MfadEnergyCOO", (PetscObject)holder));
  PetscCall(PetscContainerDestroy(&holder));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* E->caches.hess <- element Hessians at X (from the cache when it holds them for X) */
static PetscErrorCode MfadEnergyFillHessians_Private(MfadEnergy E, Vec X)
{
  MfadHessianKey key;
  PetscCount     off = 0;

  PetscFunctionBegin;
  PetscCall(MfadEnergyHessianKey_Private(E, X, &key));
  if (MfadHessianKeyEqual_Private(&key, &E->caches.hess_key)) PetscFunctionReturn(PETSC_SUCCESS);
  E->caches.hess_key.valid = PETSC_FALSE;
  PetscCall(PetscLogEventBegin(MFAD_ElementHessianEvent, 0, 0, 0, 0));
  if (MfadHessianKeyEqual_Private(&key, &E->caches.cache_key)) PetscCall(MfadEnergyUnpackCache_Private(E, E->caches.hess));
  else {
    const PetscScalar *x;
    PetscCall(MfadEnergyGlobalToLocal_Private(E, X));
    PetscCall(MfadEnergyHessianWork_Private(E));
    PetscCall(VecGetArrayRead(E->local.xloc, &x));
    for (PetscInt t = 0; t < E->nterms; t++) {
      const MfadTerm *term = &E->terms[t];
      const int       N    = term->k->nvert * term->k->dof;
      if (term->nelem) PetscCall(MfadTermElementHessians_Private(E, term, 0, term->nblocks, x, E->caches.hess + off));
      if (term->flops_known) PetscCall(PetscLogFlops(term->flops[MFAD_MODE_HESSIAN] * term->nelem));
      off += term->nelem * N * N;
    }
    PetscCall(VecRestoreArrayRead(E->local.xloc, &x));
  }
  PetscCall(PetscLogEventEnd(MFAD_ElementHessianEvent, 0, 0, 0, 0));
  E->caches.hess_key = key;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CPU's COO values at X (the layout of MfadEnergyCreateMatrix()), in E->caches.hess */
PetscErrorCode MfadEnergyHessianValues_CPU(MfadEnergy E, Vec X, PetscBool device, const PetscScalar **values)
{
  const PetscCount ncoo = MfadEnergyCOOSize_Private(E);

  PetscFunctionBegin;
  (void)device; /* host values: PETSc copies them to a device matrix */
  if (E->caches.nhess != ncoo) { /* first fill (or new fixed values set on an identical pattern, or new elements) */
    if (ncoo > E->caches.hess_cap) {
      PetscCall(PetscFree(E->caches.hess));
      PetscCall(PetscMalloc1(ncoo, &E->caches.hess));
      E->caches.hess_cap = ncoo;
    }
    E->caches.nhess          = ncoo;
    E->caches.hess_key.valid = PETSC_FALSE;
    for (PetscCount i = ncoo - E->local.nfixown; i < ncoo; i++) E->caches.hess[i] = 1.0;
  }
  PetscCall(MfadEnergyFillHessians_Private(E, X));
  *values = E->caches.hess;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyComputeHessian(MfadEnergy E, Vec X, Mat A)
{
  PetscContainer     holder = NULL;
  MfadMatCOO        *c      = NULL;
  PetscCount         ncoo;
  const PetscScalar *vals = NULL;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCall(MfadEnergyCheckVec_Private(E, X, 2, "MfadEnergyComputeHessian"));
  PetscValidHeaderSpecific(A, MAT_CLASSID, 3);
  PetscCall(MfadEnergySetUp(E));
  PetscCall(PetscObjectQuery((PetscObject)A, "MfadEnergyCOO", (PetscObject *)&holder));
  PetscCheck(holder, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG,
             "MfadEnergyComputeHessian: the matrix was not made by MfadEnergyCreateMatrix()");
  PetscCall(PetscContainerGetPointer(holder, (void **)&c));
  PetscCheck(c->E == E, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MfadEnergyComputeHessian: the matrix was made for another energy");
  /* dynamic element sets: the same pairs keep the preallocation, others renew it */
  if (c->setup_count == E->local.count && c->elements_state != E->dyn.elements_state) PetscCall(MfadMatUpdatePattern_Private(E, A, c));
  ncoo = MfadEnergyCOOSize_Private(E);
  PetscCheck(c->setup_count == E->local.count && c->nelemcoo == ncoo && c->nfixloc == E->local.nfixloc, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "MfadEnergyComputeHessian: the energy's terms, options or fixed dofs changed since MfadEnergyCreateMatrix(); create the matrix again");
  for (PetscInt i = 0; i < E->local.nfixloc; i++)
    PetscCheck(c->fixloc[i] == E->local.fixloc[i], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "MfadEnergyComputeHessian: the set of fixed dofs changed since MfadEnergyCreateMatrix(); create the matrix again");
  if (c->merge && E->ops->hessianpairs) {
    /* the CPU's: pair sums with no element-Hessian array (src/pattern.c), kept for this matrix
       while the point and settings hold (a second call at X: the fill alone) */
    MfadHessianKey key;
    PetscCall(MfadEnergyHessianKey_Private(E, X, &key));
    if (!(E->caches.pairs == c->vals && MfadHessianKeyEqual_Private(&key, &E->caches.pairs_key))) {
      E->caches.pairs_key.valid = PETSC_FALSE;
      PetscCall(E->ops->hessianpairs(E, X, &c->pat, c->vals));
      E->caches.pairs     = c->vals;
      E->caches.pairs_key = key;
    }
    PetscCall(PetscLogEventBegin(MFAD_AssembleEvent, 0, 0, 0, 0));
  } else {
    { /* the backend's values: the CPU's in E->caches.hess, the device's on the device, which a cuSPARSE matrix takes there */
      MatType     type;
      const char *cusparse;
      PetscCall(MatGetType(A, &type));
      PetscCall(PetscStrstr(type, "cusparse", (char **)&cusparse));
      MfadBackendCall(E, hessianvalues, "assembled Hessian values", (E, X, cusparse ? PETSC_TRUE : PETSC_FALSE, &vals));
    }
    PetscCall(PetscLogEventBegin(MFAD_AssembleEvent, 0, 0, 0, 0));
    if (c->merge) PetscCall(MfadPairPatternSum_Private(E, &c->pat, vals, c->vals));
  }
  if (c->csr) { /* a copy of every stored entry: threads where they pay, timed as an element loop's */
    const PetscCount nblk = c->pat.row_start[c->pat.nrow];
    double           t0;
    const int        nt = MfadThreadsBegin_Private(E, MFAD_SITE_CSRFILL, nblk, &t0);
    PetscCall(MfadMatCSRFill_Private(c->csrmat, A, &c->pat, c->vals, nt));
    MfadThreadsEnd_Private(E, MFAD_SITE_CSRFILL, nt, nblk, t0);
  } else PetscCall(MatSetValuesCOO(A, c->merge ? c->vals : vals, INSERT_VALUES));
  PetscCall(MfadEnergyDampMatrix_Private(E, A));
  PetscCall(PetscLogEventEnd(MFAD_AssembleEvent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
