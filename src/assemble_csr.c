// SPDX-License-Identifier: BSD-2-Clause
/* The assembled Hessian without COO (-mfad_assemble_csr; host aij, baij and sbaij with merged
   entries): preallocated from mfad's vertex-pair pattern. PETSc's COO preallocation sorts every
   entry globally: 2-5x the time of this (bench/pattern.sh, bench/RESULTS.md).
   On several ranks the pattern's rows of ghost vertices belong to their owners: at set-up their
   columns, and at each fill their summed blocks, go to the owner through a PetscSF (leaves: the
   ghost rows' pairs; roots: the owner's received entries), which merges them into its own rows.
   aij: each row is written once into the diagonal and off-diagonal blocks (MatMPIAIJGetSeqAIJ()),
   and the fills write their value arrays in place, in the order MatMPIAIJSetPreallocationCSR()
   leaves them: each block's columns ascending by global index (the off-diagonal block's are
   compressed in that order; the entry counts are checked against PETSc's at set-up).
   baij, sbaij: PETSc's block CSR preallocation; baij's blocks are written in place as aij's
   values are (into both blocks on several ranks), and one rank's sbaij's (the diagonal block and
   those above it, each stored as baij stores it); sbaij's on several ranks by one
   MatSetValuesBlocked() per block row.
   Fixed dofs as in COO: a fixed row is its diagonal 1 alone, a fixed column is not stored (in a
   block format: stored as 0). */
#include "mfadimpl.h"
#include <petscsf.h>
#ifdef _OPENMP
#include <omp.h>
#endif

struct _n_MfadMatCSR {
  PetscInt     n, dof, rstart;   /* owned vertices [rstart, rstart + n) */
  PetscInt    *mstart, *mcol;    /* the merged rows of the owned vertices: global column vertices, ascending */
  PetscInt    *mfix;             /* each merged column's fixed dofs (bit d: dof d), and the row's own in rfix */
  PetscInt    *rfix;             /* each owned vertex's fixed dofs */
  PetscInt    *src;              /* merged entry -> the own pattern's pair holding it, or -1 */
  PetscInt    *rstart_recv;      /* received entries of owned vertex a: [rstart_recv[a], rstart_recv[a + 1]) */
  PetscInt    *recv;             /* received entry -> merged entry */
  PetscInt     maxrow;           /* the longest merged row */
  PetscSF      sf;               /* ghost-row pairs -> received entries; NULL without ghost rows anywhere */
  MPI_Datatype block;            /* dof^2 scalars */
  double      *rvals, *mvals;    /* received blocks; one merged row's blocks */
  const double **row;            /* one merged row's block pointers */
  PetscCount   nzd, nzo;         /* entries written into the diagonal and off-diagonal blocks */
  PetscCount    *qd, *qo;          /* owned vertex a's rows start at entry (aij; baij: block) qd[a] of the diagonal block, qo[a] of the other */
  PetscBool    mpi;              /* mpiaij: the two blocks; else seqaij */
  PetscBool    blocked, upper;   /* (s)baij: block rows through MatSetValuesBlocked(); sbaij: the upper triangle */
  PetscBool      inplace, mpibaij; /* (seq|mpi)baij, seqsbaij: the blocks written in place instead; mpibaij: into its two blocks */
  PetscBool      seqsbaij;         /* in place into one rank's sbaij (its upper triangle's blocks, stored as baij's) */
  PetscCount     nbd, nbo;         /* blocked: the blocks stored in the diagonal and off-diagonal blocks */
  char        *keep;             /* blocked: each merged entry stored or not (rows and columns all fixed, or below the diagonal) */
  PetscInt    *bcol;             /* blocked: one block row's columns */
  PetscScalar *bval;             /* blocked: one block row's values, row-major */
};

PetscErrorCode MfadMatCSRDestroy_Private(MfadMatCSR *csr)
{
  MfadMatCSR c = *csr;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree4(c->mstart, c->mcol, c->mfix, c->src));
  PetscCall(PetscFree2(c->rfix, c->rstart_recv));
  PetscCall(PetscFree(c->recv));
  PetscCall(PetscFree3(c->rvals, c->mvals, c->row));
  PetscCall(PetscFree3(c->keep, c->bcol, c->bval));
  PetscCall(PetscFree2(c->qd, c->qo));
  PetscCall(PetscSFDestroy(&c->sf));
  if (c->block != MPI_DATATYPE_NULL) PetscCallMPI(MPI_Type_free(&c->block));
  PetscCall(PetscFree(c));
  *csr = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscInt FreeCount(PetscInt bits, PetscInt dof)
{
  PetscInt k = dof;
  for (PetscInt d = 0; d < dof; d++) k -= bits >> d & 1;
  return k;
}

static inline PetscInt FixedBits(const char *fixed, PetscInt dof, PetscInt v)
{
  PetscInt bits = 0;
  for (PetscInt d = 0; d < dof; d++)
    if (fixed[v * dof + d]) bits |= (PetscInt)1 << d;
  return bits;
}

/* The ghost rows' pairs sent to the owners: the graph (leaf q: the q-th pair of the ghost rows,
   root: the owner's received entry) and, per owned vertex, the range of its received entries;
   rcol and rfixed: the received columns (global vertex) and their fixed dofs */
static PetscErrorCode MfadMatCSRGhostRows_Private(MfadEnergy E, const MfadPairPattern *pat, const PetscInt *bits, MfadMatCSR c, PetscInt **rcol,
                                                  PetscInt **rfixed)
{
  MPI_Comm     comm   = PetscObjectComm((PetscObject)E);
  const PetscInt n    = E->n, nghost = E->local.nlocal - E->n;
  const PetscInt nleaf = pat->row_start[E->local.nlocal] - pat->row_start[E->n];
  PetscLayout    layout;
  PetscSF        vsf;
  PetscInt      *lcount, *loffset, *lstart, *rcount, *lcol, *lfix;
  PetscSFNode   *remote;
  const PetscSFNode *vremote;

  PetscFunctionBegin;
  PetscCall(PetscLayoutCreate(comm, &layout));
  PetscCall(PetscLayoutSetLocalSize(layout, n));
  PetscCall(PetscLayoutSetUp(layout));
  PetscCall(PetscSFCreate(comm, &vsf));
  PetscCall(PetscSFSetGraphLayout(vsf, layout, nghost, NULL, PETSC_COPY_VALUES, E->local.ghosts));
  PetscCall(PetscLayoutDestroy(&layout));
  PetscCall(PetscMalloc3(nghost, &lcount, nghost, &loffset, nghost, &lstart));
  PetscCall(PetscCalloc1(n, &rcount));
  for (PetscInt k = 0; k < nghost; k++) lcount[k] = pat->row_start[n + k + 1] - pat->row_start[n + k];
  /* each ghost row's place among its owner's received entries: the owner's count before it */
  PetscCall(PetscSFFetchAndOpBegin(vsf, MPIU_INT, rcount, lcount, loffset, MPI_SUM));
  PetscCall(PetscSFFetchAndOpEnd(vsf, MPIU_INT, rcount, lcount, loffset, MPI_SUM));
  c->rstart_recv[0] = 0;
  for (PetscInt a = 0; a < n; a++) c->rstart_recv[a + 1] = c->rstart_recv[a] + rcount[a];
  PetscCall(PetscSFBcastBegin(vsf, MPIU_INT, c->rstart_recv, lstart, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(vsf, MPIU_INT, c->rstart_recv, lstart, MPI_REPLACE));
  PetscCall(PetscSFGetGraph(vsf, NULL, NULL, NULL, &vremote));
  PetscCall(PetscMalloc1(nleaf, &remote));
  PetscCall(PetscMalloc2(nleaf, &lcol, nleaf, &lfix));
  for (PetscInt k = 0, q = 0; k < nghost; k++)
    for (PetscInt p = pat->row_start[n + k]; p < pat->row_start[n + k + 1]; p++, q++) {
      const PetscInt lv = pat->col[p];
      remote[q].rank    = vremote[k].rank;
      remote[q].index   = lstart[k] + loffset[k] + (p - pat->row_start[n + k]);
      lcol[q]           = lv < n ? E->rstart + lv : E->local.ghosts[lv - n];
      lfix[q]           = bits[lv];
    }
  PetscCall(PetscSFDestroy(&vsf));
  PetscCall(PetscSFCreate(comm, &c->sf));
  PetscCall(PetscSFSetGraph(c->sf, c->rstart_recv[n], nleaf, NULL, PETSC_OWN_POINTER, remote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(c->sf));
  PetscCall(PetscMalloc2(c->rstart_recv[n], rcol, c->rstart_recv[n], rfixed));
  PetscCall(PetscSFReduceBegin(c->sf, MPIU_INT, lcol, *rcol, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(c->sf, MPIU_INT, lcol, *rcol, MPI_REPLACE));
  PetscCall(PetscSFReduceBegin(c->sf, MPIU_INT, lfix, *rfixed, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(c->sf, MPIU_INT, lfix, *rfixed, MPI_REPLACE));
  PetscCall(PetscFree2(lcol, lfix));
  PetscCall(PetscFree3(lcount, loffset, lstart));
  PetscCall(PetscFree(rcount));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aij: each dof row's entries in the diagonal and off-diagonal blocks, then the rows themselves,
   sorted and complete, written once into the blocks (MAT_SORTED_FULL: a copy per row, where
   Mat(MPI)SeqAIJSetPreallocationCSR() inserts entry by entry, at 6x the cost here) */
static PetscErrorCode MfadMatCSRPreallocateAIJ_Private(MfadMatCSR c, Mat A)
{
  const PetscInt dof = c->dof, n = c->n, nrow = n * dof;
  PetscInt      *dnz, *onz, *dcol, *ocol, maxlen = 0;
  PetscScalar   *zeros;
  Mat            Ad = A, Ao = NULL;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(nrow, &dnz, nrow, &onz));
  PetscCall(PetscMalloc2(n + 1, &c->qd, n + 1, &c->qo));
  for (PetscInt a = 0; a < n; a++) {
    c->qd[a] = c->nzd, c->qo[a] = c->nzo;
    for (PetscInt i = 0; i < dof; i++) {
      PetscInt d = 0, o = 0;
      if (c->rfix[a] >> i & 1) d = 1;
      else
        for (PetscInt m = c->mstart[a]; m < c->mstart[a + 1]; m++) {
          const PetscInt k = FreeCount(c->mfix[m], dof);
          if (c->mcol[m] >= c->rstart && c->mcol[m] < c->rstart + n) d += k;
          else o += k;
        }
      dnz[a * dof + i] = d, onz[a * dof + i] = o;
      c->nzd += d, c->nzo += o, maxlen = PetscMax(maxlen, d + o);
    }
  }
  c->qd[n] = c->nzd, c->qo[n] = c->nzo;
  if (c->mpi) {
    PetscCall(MatMPIAIJSetPreallocation(A, 0, dnz, 0, onz));
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  } else PetscCall(MatSeqAIJSetPreallocation(A, 0, dnz));
  PetscCall(PetscFree2(dnz, onz));
  PetscCall(PetscCalloc3(maxlen, &zeros, maxlen, &dcol, maxlen, &ocol));
  PetscCall(MatSetOption(Ad, MAT_SORTED_FULL, PETSC_TRUE));
  if (Ao) PetscCall(MatSetOption(Ao, MAT_SORTED_FULL, PETSC_TRUE));
  for (PetscInt a = 0; a < n; a++)
    for (PetscInt i = 0; i < dof; i++) {
      const PetscInt row = a * dof + i; /* local rows of both blocks */
      PetscInt       d = 0, o = 0;
      if (c->rfix[a] >> i & 1) dcol[d++] = row;
      else
        for (PetscInt m = c->mstart[a]; m < c->mstart[a + 1]; m++) {
          const PetscBool owned = (PetscBool)(c->mcol[m] >= c->rstart && c->mcol[m] < c->rstart + n);
          for (PetscInt j = 0; j < dof; j++)
            if (!(c->mfix[m] >> j & 1)) {
              if (owned) dcol[d++] = (c->mcol[m] - c->rstart) * dof + j; /* the diagonal block's local columns */
              else ocol[o++] = c->mcol[m] * dof + j;                     /* the other's global ones, compressed at assembly */
            }
        }
      PetscCall(MatSetValues(Ad, 1, &row, d, dcol, zeros, INSERT_VALUES));
      if (Ao) PetscCall(MatSetValues(Ao, 1, &row, o, ocol, zeros, INSERT_VALUES));
    }
  PetscCall(MatSetOption(Ad, MAT_SORTED_FULL, PETSC_FALSE));
  if (Ao) PetscCall(MatSetOption(Ao, MAT_SORTED_FULL, PETSC_FALSE));
  PetscCall(PetscFree3(zeros, dcol, ocol));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  { /* the layout the fills write into is PETSc's */
    MatInfo id, io;
    if (c->mpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL)); /* assembly made new ones */
    PetscCall(MatGetInfo(Ad, MAT_LOCAL, &id));
    if (Ao) PetscCall(MatGetInfo(Ao, MAT_LOCAL, &io));
    else io.nz_used = 0;
    PetscCheck((PetscCount)id.nz_used == c->nzd && (PetscCount)io.nz_used == c->nzo, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "CSR assembly: PETSc stored %g + %g entries, %" PetscCount_FMT " + %" PetscCount_FMT " expected", id.nz_used, io.nz_used, c->nzd, c->nzo);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* baij, sbaij: block rows from the merged rows, through PETSc's block CSR preallocation. A block
   is stored where COO would store one: the diagonal, and each pair whose two vertices both have a
   free dof (sbaij: above the diagonal) */
static PetscErrorCode MfadMatCSRPreallocateBlocks_Private(MfadMatCSR c, Mat A)
{
  const PetscInt dof = c->dof, n = c->n, all = ((PetscInt)1 << dof) - 1, nm = c->mstart[n];
  PetscInt      *ii, *jj, q = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(nm, &c->keep, c->maxrow, &c->bcol, (size_t)c->maxrow * dof * dof, &c->bval));
  PetscCall(PetscMalloc2(n + 1, &ii, nm, &jj));
  PetscCall(PetscMalloc2(n + 1, &c->qd, n + 1, &c->qo));
  ii[0] = 0;
  for (PetscInt a = 0; a < n; a++) {
    const PetscInt g = c->rstart + a;
    c->qd[a] = c->nbd, c->qo[a] = c->nbo;
    for (PetscInt m = c->mstart[a]; m < c->mstart[a + 1]; m++) {
      c->keep[m] = (char)(c->mcol[m] == g || (c->rfix[a] != all && c->mfix[m] != all && (!c->upper || c->mcol[m] > g)));
      if (c->keep[m]) {
        jj[q++] = c->mcol[m];
        if (c->mcol[m] >= c->rstart && c->mcol[m] < c->rstart + n) c->nbd++;
        else c->nbo++;
      }
    }
    ii[a + 1] = q;
  }
  c->qd[n] = c->nbd, c->qo[n] = c->nbo;
  /* each call acts only on its own type (PetscTryMethod), as in MatXAIJSetPreallocation() */
  if (c->upper) {
    PetscCall(MatSeqSBAIJSetPreallocationCSR(A, dof, ii, jj, NULL));
    PetscCall(MatMPISBAIJSetPreallocationCSR(A, dof, ii, jj, NULL));
  } else {
    PetscCall(MatSeqBAIJSetPreallocationCSR(A, dof, ii, jj, NULL));
    PetscCall(MatMPIBAIJSetPreallocationCSR(A, dof, ii, jj, NULL));
  }
  PetscCall(PetscFree2(ii, jj));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJ, &c->inplace));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBAIJ, &c->mpibaij));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQSBAIJ, &c->seqsbaij));
  c->inplace = (PetscBool)(c->inplace || c->mpibaij || c->seqsbaij);
  if (c->inplace) { /* written in place in this order: PETSc must have stored exactly these blocks */
    Mat     Ad = A, Ao = NULL;
    MatInfo id, io;
    if (c->mpibaij) PetscCall(MatMPIBAIJGetSeqBAIJ(A, &Ad, &Ao, NULL));
    PetscCall(MatGetInfo(Ad, MAT_LOCAL, &id));
    if (Ao) PetscCall(MatGetInfo(Ao, MAT_LOCAL, &io));
    else io.nz_used = 0;
    PetscCheck((PetscCount)id.nz_used == c->nbd * dof * dof && (PetscCount)io.nz_used == c->nbo * dof * dof, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "CSR assembly: PETSc stored %g + %g baij entries, %" PetscCount_FMT " + %" PetscCount_FMT " expected", id.nz_used, io.nz_used,
               c->nbd * dof * dof, c->nbo * dof * dof);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadMatCSRCreate_Private(MfadEnergy E, Mat A, PetscBool upper, const MfadPairPattern *pat, const char *fixed, MfadMatCSR *csr)
{
  const PetscInt dof = E->dof, n = E->n;
  PetscMPIInt    size;
  PetscInt       ghostrows = E->local.nlocal > E->n, anyghost, *bits, *rcol = NULL, *rfixed = NULL, *key, *from;
  MfadMatCSR     c;

  PetscFunctionBegin;
  PetscCheck(dof < 31, PETSC_COMM_SELF, PETSC_ERR_SUP, "CSR assembly: %" PetscInt_FMT " dofs per vertex (at most 30)", dof);
  PetscCheck(pat->nrow == E->local.nlocal, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the pattern is not over the local vertices");
  PetscCall(MfadMatCSRDestroy_Private(csr));
  PetscCall(PetscNew(&c));
  c->n      = n;
  c->dof    = dof;
  c->rstart = E->rstart;
  c->block  = MPI_DATATYPE_NULL;
  PetscCall(PetscMalloc1(E->local.nlocal, &bits));
  for (PetscInt v = 0; v < E->local.nlocal; v++) bits[v] = FixedBits(fixed, dof, v);
  PetscCall(PetscMalloc2(n, &c->rfix, n + 1, &c->rstart_recv));
  PetscCall(PetscArraycpy(c->rfix, bits, n));
  PetscCall(PetscArrayzero(c->rstart_recv, n + 1));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJ, &c->mpi));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &c->blocked, MATSEQBAIJ, MATMPIBAIJ, MATSEQSBAIJ, MATMPISBAIJ, ""));
  c->upper = upper;
  PetscCall(MPIU_Allreduce(&ghostrows, &anyghost, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
  if (size > 1 && anyghost) { /* collective: every rank builds the graph, with or without ghost rows */
    PetscCall(MfadMatCSRGhostRows_Private(E, pat, bits, c, &rcol, &rfixed));
    PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)(dof * dof), MPIU_SCALAR, &c->block));
    PetscCallMPI(MPI_Type_commit(&c->block));
  }

  PetscCall(PetscMalloc1(c->rstart_recv[n], &c->recv));
  /* merged rows: the own row's pairs and the received ones, by global column, duplicates merged */
  {
    const PetscInt nown = pat->row_start[n], nin = c->rstart_recv[n];
    PetscInt       maxin = 0, m = 0;
    for (PetscInt a = 0; a < n; a++) maxin = PetscMax(maxin, pat->row_start[a + 1] - pat->row_start[a] + c->rstart_recv[a + 1] - c->rstart_recv[a]);
    PetscCall(PetscMalloc4(n + 1, &c->mstart, nown + nin, &c->mcol, nown + nin, &c->mfix, nown + nin, &c->src));
    PetscCall(PetscMalloc2(maxin, &key, maxin, &from));
    c->mstart[0] = 0;
    for (PetscInt a = 0; a < n; a++) {
      PetscInt len = 0;
      for (PetscInt p = pat->row_start[a]; p < pat->row_start[a + 1]; p++) {
        const PetscInt lv = pat->col[p];
        key[len]          = lv < n ? E->rstart + lv : E->local.ghosts[lv - n];
        from[len++]       = p;
      }
      for (PetscInt r = c->rstart_recv[a]; r < c->rstart_recv[a + 1]; r++) {
        key[len]    = rcol[r];
        from[len++] = -1 - r;
      }
      if (E->local.nlocal > n || c->rstart_recv[a + 1] > c->rstart_recv[a]) PetscCall(PetscSortIntWithArray(len, key, from));
      for (PetscInt k = 0; k < len; k++) {
        if (k == 0 || key[k] != key[k - 1]) {
          c->mcol[m]   = key[k];
          c->src[m]    = -1;
          c->mfix[m++] = from[k] >= 0 ? bits[pat->col[from[k]]] : rfixed[-1 - from[k]];
        }
        if (from[k] >= 0) c->src[m - 1] = from[k];
        else c->recv[-1 - from[k]] = m - 1;
      }
      c->mstart[a + 1] = m;
      c->maxrow        = PetscMax(c->maxrow, m - c->mstart[a]);
    }
    PetscCall(PetscFree2(key, from));
  }
  PetscCall(PetscFree2(rcol, rfixed));
  PetscCall(PetscFree(bits));

  if (c->blocked) PetscCall(MfadMatCSRPreallocateBlocks_Private(c, A));
  else PetscCall(MfadMatCSRPreallocateAIJ_Private(c, A));
  PetscCall(PetscMalloc3((size_t)c->rstart_recv[n] * dof * dof, &c->rvals, (size_t)c->maxrow * dof * dof, &c->mvals, c->maxrow, &c->row));
  *csr = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the blocks of owned vertex a's merged row (row[k]: block k): its own pairs' sums in place, or
   those plus the other ranks' blocks for it, summed in mvals (maxrow blocks). No PETSc call: it
   runs in the threads of the aij and baij fills */
static void MfadMatCSRRowBlocks_Private(MfadMatCSR c, PetscInt a, const double *vals, const double **row, double *mvals)
{
  const PetscInt bb = c->dof * c->dof, m0 = c->mstart[a], len = c->mstart[a + 1] - m0;

  if (c->rstart_recv[a + 1] == c->rstart_recv[a]) {
    for (PetscInt k = 0; k < len; k++) row[k] = vals + (size_t)c->src[m0 + k] * bb; /* every entry is the row's own */
    return;
  }
  for (PetscInt k = 0; k < len; k++) {
    double *mv = mvals + (size_t)k * bb;
    if (c->src[m0 + k] >= 0) memcpy(mv, vals + (size_t)c->src[m0 + k] * bb, (size_t)bb * sizeof(double));
    else memset(mv, 0, (size_t)bb * sizeof(double));
    row[k] = mv;
  }
  for (PetscInt r = c->rstart_recv[a]; r < c->rstart_recv[a + 1]; r++) {
    double       *mv = mvals + (size_t)(c->recv[r] - m0) * bb;
    const double *rv = c->rvals + (size_t)r * bb;
    for (PetscInt k = 0; k < bb; k++) mv[k] += rv[k];
  }
}

/* owned vertices' rows (or block rows) [a0, a1) into va, vb; 1 where a row's count differs from its offsets' */
typedef int (*MfadMatCSRRowsFn)(MfadMatCSR, const double *, PetscScalar *, PetscScalar *, PetscInt, PetscInt, const double **, double *);

/* rows(c, ...) over the owned vertices on nt threads, each its share (its rows start at their own
   offsets, qd and qo), with its own scratch for a merged row; *bad: any row's count was off. Each
   thread's scratch starts a cache line (8 entries) past the end of the one before: the row's block
   pointers are written at every row, and two threads writing one line (a row of ~20 pointers
   each, back to back) made the fill on 2 threads slower than on 1 (100,800 tets, aij, the fill
   alone: 1.75-1.80 ms on 1 thread, 1.89-1.99 on 2; docs/threads.md) */
static PetscErrorCode MfadMatCSRFillOnThreads_Private(MfadMatCSR c, MfadMatCSRRowsFn rows, const double *vals, PetscScalar *va, PetscScalar *vb,
                                                      int nt, int *bad)
{
  const PetscInt bb = c->dof * c->dof;
  const size_t   rs = ((size_t)c->maxrow + 15) / 8 * 8, ms = ((size_t)c->maxrow * bb + 15) / 8 * 8; /* at least one line apart */
  const double **row;
  double        *mvals;
  int            b = 0;

  PetscFunctionBegin;
  nt = PetscMax(nt, 1);
  PetscCall(PetscMalloc2((size_t)nt * rs, &row, (size_t)nt * ms, &mvals));
  if (nt == 1) b = rows(c, vals, va, vb, 0, c->n, row, mvals);
  else {
#pragma omp parallel num_threads(nt) reduction(| : b)
    {
#ifdef _OPENMP
      const int t = omp_get_thread_num(), m = omp_get_num_threads();
#else
      const int t = 0, m = 1;
#endif
      const PetscInt a0 = (PetscInt)((PetscInt64)c->n * t / m), a1 = (PetscInt)((PetscInt64)c->n * (t + 1) / m);
      b |= rows(c, vals, va, vb, a0, a1, row + (size_t)t * rs, mvals + (size_t)t * ms);
    }
  }
  PetscCall(PetscFree2(row, mvals));
  *bad = b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aij: owned vertices [a0, a1)'s rows written in place into the diagonal and off-diagonal blocks'
   arrays va, vb from their own offsets qd, qo (row, mvals: maxrow blocks of scratch), dof as
   given (a constant where the caller's is: the copies of 2 or 3 entries unrolled); 1 where a row's
   count differs from its offsets' */
static inline __attribute__((always_inline)) int MfadMatCSRFillAIJRowsDof_Private(MfadMatCSR c, const PetscInt dof, const double *vals,
                                                                                  PetscScalar *va, PetscScalar *vb, PetscInt a0, PetscInt a1,
                                                                                  const double **row, double *mvals)
{
  const PetscInt  rstart = c->rstart, rend = c->rstart + c->n;
  const PetscInt *mstart = c->mstart, *mcol = c->mcol, *mfix = c->mfix, *rfix = c->rfix;
  int             bad = 0;

  for (PetscInt a = a0; a < a1; a++) {
    const PetscInt m0 = mstart[a], len = mstart[a + 1] - m0;
    PetscCount     qa = c->qd[a], qb = c->qo[a];
    MfadMatCSRRowBlocks_Private(c, a, vals, row, mvals);
    for (PetscInt i = 0; i < dof; i++) {
      if (rfix[a] >> i & 1) {
        va[qa++] = 1.0; /* fixed rows and columns: the identity */
        continue;
      }
      for (PetscInt k = 0; k < len; k++) {
        const double   *b     = row[k] + i * dof;
        const PetscInt  fix   = mfix[m0 + k];
        const PetscBool owned = (PetscBool)(mcol[m0 + k] >= rstart && mcol[m0 + k] < rend);
        PetscScalar    *v     = owned ? va + qa : vb + qb;
        PetscInt        w     = 0;
        if (!fix) {
          for (PetscInt j = 0; j < dof; j++) v[j] = b[j];
          w = dof;
        } else
          for (PetscInt j = 0; j < dof; j++)
            if (!(fix >> j & 1)) v[w++] = b[j];
        if (owned) qa += w;
        else qb += w;
      }
    }
    bad |= qa != c->qd[a + 1] || qb != c->qo[a + 1];
  }
  return bad;
}

/* a MfadMatCSRRowsFn `name` calling `bydof` with the dof a constant for 2 and 3 */
#define MFAD_CSR_ROWS_BY_DOF(name, bydof) \
  static int name(MfadMatCSR c, const double *vals, PetscScalar *va, PetscScalar *vb, PetscInt a0, PetscInt a1, const double **row, double *mvals) \
  { \
    switch (c->dof) { \
    case 3: \
      return bydof(c, 3, vals, va, vb, a0, a1, row, mvals); \
    case 2: \
      return bydof(c, 2, vals, va, vb, a0, a1, row, mvals); \
    default: \
      return bydof(c, c->dof, vals, va, vb, a0, a1, row, mvals); \
    } \
  }
MFAD_CSR_ROWS_BY_DOF(MfadMatCSRFillAIJRows_Private, MfadMatCSRFillAIJRowsDof_Private)

/* aij: the values written in place, on nt threads (each its share of the owned vertices, their
   rows from their own offsets): a copy of every stored entry (20 MB for 100,800 tets), 11% of an
   assembly's time on one thread and, left serial, 20% on two */
static PetscErrorCode MfadMatCSRFillAIJ_Private(MfadMatCSR c, Mat A, const double *vals, int nt)
{
  Mat          Ad = A, Ao = NULL;
  PetscScalar *va, *vb    = NULL;
  int          bad = 0;

  PetscFunctionBegin;
  if (c->mpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(MatSeqAIJGetArrayWrite(Ad, &va));
  if (Ao) PetscCall(MatSeqAIJGetArrayWrite(Ao, &vb));
  PetscCall(MfadMatCSRFillOnThreads_Private(c, MfadMatCSRFillAIJRows_Private, vals, va, vb, nt, &bad));
  PetscCall(MatSeqAIJRestoreArrayWrite(Ad, &va));
  if (Ao) PetscCall(MatSeqAIJRestoreArrayWrite(Ao, &vb));
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CSR fill: a row's entries differ from the %" PetscCount_FMT " + %" PetscCount_FMT " stored",
             c->nzd, c->nzo);
  if (Ao) PetscCall(PetscObjectStateIncrease((PetscObject)A)); /* the blocks' states moved, not the parallel matrix's */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* baij, sbaij: one MatSetValuesBlocked() per block row of the stored blocks; in fixed rows and
   columns the identity */
static PetscErrorCode MfadMatCSRFillBlocks_Private(MfadMatCSR c, Mat A, const double *vals)
{
  const PetscInt dof = c->dof;

  PetscFunctionBegin;
  for (PetscInt a = 0; a < c->n; a++) {
    const PetscInt m0 = c->mstart[a], len = c->mstart[a + 1] - m0, g = c->rstart + a;
    PetscInt       nb = 0, w;
    MfadMatCSRRowBlocks_Private(c, a, vals, c->row, c->mvals);
    for (PetscInt k = 0; k < len; k++) nb += c->keep[m0 + k];
    w = nb * dof;
    nb = 0;
    for (PetscInt k = 0; k < len; k++) {
      const PetscInt m = m0 + k, fix = c->rfix[a], cfix = c->mfix[m];
      if (!c->keep[m]) continue;
      for (PetscInt i = 0; i < dof; i++)
        for (PetscInt j = 0; j < dof; j++) {
          const PetscBool   out = (PetscBool)((fix >> i & 1) || (cfix >> j & 1));
          const PetscScalar one = (c->mcol[m] == g && i == j) ? 1.0 : 0.0;
          c->bval[i * w + nb * dof + j] = out ? one : c->row[k][i * dof + j];
        }
      c->bcol[nb++] = c->mcol[m];
    }
    PetscCall(MatSetValuesBlocked(A, 1, &g, nb, c->bcol, c->bval, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (seq|mpi)baij, seqsbaij: the blocks written in place, in the order of the preallocation (each
   block row's kept columns ascending, sbaij's from the diagonal; on several ranks the owned ones into the diagonal block, the others into
   the off-diagonal block, whose columns PETSc numbers in ascending global order), each block
   column-major as PETSc stores it; MatSetValuesBlocked() per row searched every column and made
   the baij fill ~1.5x aij's (bench_hessian_forms -mat_type baij; on 2 ranks 1.1-1.4x) */
static inline __attribute__((always_inline)) int MfadMatCSRFillBAIJRowsDof_Private(MfadMatCSR c, const PetscInt dof, const double *vals,
                                                                                   PetscScalar *va, PetscScalar *vb, PetscInt a0, PetscInt a1,
                                                                                   const double **row, double *mvals)
{
  const PetscInt  bb = dof * dof, rstart = c->rstart, rend = c->rstart + c->n;
  const PetscInt *mstart = c->mstart, *mcol = c->mcol, *mfix = c->mfix, *rfix = c->rfix;
  int             bad = 0;

  for (PetscInt a = a0; a < a1; a++) {
    const PetscInt m0 = mstart[a], len = mstart[a + 1] - m0, g = rstart + a, fix = rfix[a];
    PetscCount     qa = c->qd[a], qb = c->qo[a];
    MfadMatCSRRowBlocks_Private(c, a, vals, row, mvals);
    for (PetscInt k = 0; k < len; k++) {
      const PetscInt  m = m0 + k, cfix = mfix[m];
      const PetscBool owned = (PetscBool)(mcol[m] >= rstart && mcol[m] < rend);
      PetscScalar    *blk;
      if (!c->keep[m]) continue;
      blk = owned ? va + (size_t)qa++ * bb : vb + (size_t)qb++ * bb;
      if (!fix && !cfix)
        for (PetscInt i = 0; i < dof; i++)
          for (PetscInt j = 0; j < dof; j++) blk[j * dof + i] = row[k][i * dof + j];
      else
        for (PetscInt i = 0; i < dof; i++)
          for (PetscInt j = 0; j < dof; j++) {
            const PetscBool out = (PetscBool)((fix >> i & 1) || (cfix >> j & 1));
            blk[j * dof + i]    = out ? ((mcol[m] == g && i == j) ? 1.0 : 0.0) : row[k][i * dof + j];
          }
    }
    bad |= qa != c->qd[a + 1] || qb != c->qo[a + 1];
  }
  return bad;
}

MFAD_CSR_ROWS_BY_DOF(MfadMatCSRFillBAIJRows_Private, MfadMatCSRFillBAIJRowsDof_Private)

/* on nt threads as aij's: each thread its share of the owned vertices, their blocks from their own
   offsets (qd, qo) */
static PetscErrorCode MfadMatCSRFillBAIJ_Private(MfadMatCSR c, Mat A, const double *vals, int nt)
{
  Mat          Ad = A, Ao = NULL;
  PetscScalar *va, *vb    = NULL;
  int          bad = 0;

  PetscFunctionBegin;
  if (c->mpibaij) PetscCall(MatMPIBAIJGetSeqBAIJ(A, &Ad, &Ao, NULL));
  if (c->seqsbaij) PetscCall(MatSeqSBAIJGetArray(Ad, &va));
  else PetscCall(MatSeqBAIJGetArray(Ad, &va));
  if (Ao) PetscCall(MatSeqBAIJGetArray(Ao, &vb));
  PetscCall(MfadMatCSRFillOnThreads_Private(c, MfadMatCSRFillBAIJRows_Private, vals, va, vb, nt, &bad));
  if (c->seqsbaij) PetscCall(MatSeqSBAIJRestoreArray(Ad, &va));
  else PetscCall(MatSeqBAIJRestoreArray(Ad, &va));
  if (Ao) PetscCall(MatSeqBAIJRestoreArray(Ao, &vb));
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CSR fill: a block row's blocks differ from the %" PetscCount_FMT " + %" PetscCount_FMT " stored",
             c->nbd, c->nbo);
  /* a new state, and PETSc's cached inverse diagonal blocks (SOR) marked stale */
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadMatCSRFill_Private(MfadMatCSR c, Mat A, const MfadPairPattern *pat, const double *vals, int nt)
{
  PetscFunctionBegin;
  if (c->sf) { /* the ghost rows' summed blocks to their owners */
    const double *leaf = vals + (size_t)pat->row_start[c->n] * c->dof * c->dof;
    PetscCall(PetscSFReduceBegin(c->sf, c->block, leaf, c->rvals, MPI_REPLACE));
    PetscCall(PetscSFReduceEnd(c->sf, c->block, leaf, c->rvals, MPI_REPLACE));
  }
  if (c->inplace) PetscCall(MfadMatCSRFillBAIJ_Private(c, A, vals, nt));
  else if (c->blocked) PetscCall(MfadMatCSRFillBlocks_Private(c, A, vals));
  else PetscCall(MfadMatCSRFillAIJ_Private(c, A, vals, nt));
  PetscFunctionReturn(PETSC_SUCCESS);
}
