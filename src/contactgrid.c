// SPDX-License-Identifier: BSD-2-Clause
/* Where contact candidates come from (src/contact.c does the rest).

   Broad phase: a uniform grid hashed into buckets. Every primitive's box (a point's box inflated
   by dhat, an edge's by dhat / 2, a triangle's as it is; for the step bound the boxes swept from
   x to x + dx) is entered into each grid cell it overlaps; cells go into 2^k buckets by a
   multiplicative hash and a counting sort (O(n), no comparison sort). Two boxes that overlap meet
   in at least one cell; a pair is reported only in the cell holding the lowest corner of the boxes'
   intersection, so once, without a global sort. The cell size is twice the mean extent of the
   triangle and edge boxes (at least dhat), doubled until the grid's entries are O(n): a few
   cells per primitive, a few primitives per cell.

   On several ranks each rank holds its own part of the surface (triangles, edges and points, each
   primitive on one rank, vertex ids global). Ranks exchange their surface bounding boxes
   (MPI_Allgather), then each sends every primitive whose (inflated or swept) box overlaps another
   rank's box to that rank, through a PetscSF built from the counts. */
#include <stdint.h>
#include <stdlib.h>
#include <petscsf.h>
#include "contactimpl.h"

/* ---------------------------------------------------------------- boxes */
static inline void MfadBoxOf_Private(const MfadContactWork *W, const PetscInt *vs, int n, PetscReal pad, PetscReal box[6])
{
  for (int d = 0; d < 3; d++) box[d] = PETSC_MAX_REAL, box[3 + d] = PETSC_MIN_REAL;
  for (int a = 0; a < n; a++)
    for (int d = 0; d < 3; d++) {
      const PetscReal c = W->x[3 * vs[a] + d], c1 = W->dx ? c + W->dx[3 * vs[a] + d] : c;
      box[d]     = PetscMin(box[d], PetscMin(c, c1));
      box[3 + d] = PetscMax(box[3 + d], PetscMax(c, c1));
    }
  for (int d = 0; d < 3; d++) box[d] -= pad, box[3 + d] += pad;
}

/* a scratch buffer of at least n elements of size sz (contents not kept) */
static PetscErrorCode MfadScratchGrow_Private(size_t n, size_t sz, size_t *cap, void **p)
{
  PetscFunctionBegin;
  if (n > *cap || !*p) {
    PetscCall(PetscFree(*p));
    *cap = PetscMax(n + n / 4, 16);
    PetscCall(PetscMalloc(*cap * sz, p));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadBroadScratchDestroy_Private(MfadBroadScratch *S)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(S->key));
  PetscCall(PetscFree(S->id));
  PetscCall(PetscFree(S->fill));
  PetscCall(PetscFree(S->start));
  PetscCall(PetscFree(S->ebx));
  PetscCall(PetscFree(S->fb));
  PetscCall(PetscFree(S->box));
  for (int t = 0; t < S->nth; t++) free(S->lpt[t].ij), free(S->lee[t].ij);
  PetscCall(PetscFree2(S->lpt, S->lee));
  PetscCall(PetscFree(S->PT.ij));
  PetscCall(PetscFree(S->EE.ij));
  PetscCall(PetscMemzero(S, sizeof(*S)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the primitives' boxes: points padded by ppad, edges by epad, triangles by none */
PetscErrorCode MfadContactBoxes_Private(MfadBroadScratch *S, const MfadContactWork *W, PetscReal ppad, PetscReal epad, PetscReal **pbox,
                                        PetscReal **tbox, PetscReal **ebox)
{
  PetscFunctionBegin;
  PetscCall(MfadScratchGrow_Private(6 * (size_t)(W->np + W->nt + W->ne), sizeof(PetscReal), &S->cbox, (void **)&S->box));
  *pbox = S->box, *tbox = S->box + 6 * W->np, *ebox = S->box + 6 * (W->np + W->nt);
  for (PetscInt i = 0; i < W->np; i++) MfadBoxOf_Private(W, &W->p[i], 1, ppad, &(*pbox)[6 * i]);
  for (PetscInt i = 0; i < W->nt; i++) MfadBoxOf_Private(W, &W->t[3 * i], 3, 0.0, &(*tbox)[6 * i]);
  for (PetscInt i = 0; i < W->ne; i++) MfadBoxOf_Private(W, &W->e[2 * i], 2, epad, &(*ebox)[6 * i]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- broad phase: hashed grid */

/* the same from inside a parallel region (plain realloc: no PETSc calls in threads); 1 on failure */
static int MfadPairPushRaw_Private(MfadPairList *L, PetscInt i, PetscInt j)
{
  if (L->n == L->cap) {
    PetscInt *ij = (PetscInt *)realloc(L->ij, 2 * (size_t)PetscMax(1024, 2 * L->cap) * sizeof(PetscInt));
    if (!ij) return 1;
    L->ij = ij, L->cap = PetscMax(1024, 2 * L->cap);
  }
  L->ij[2 * L->n] = i, L->ij[2 * L->n + 1] = j, L->n++;
  return 0;
}

typedef struct {
  PetscReal lo[3], h[3]; /* cell size per axis */
  PetscInt  dim[3];
} MfadGrid;

static inline PetscInt MfadCell_Private(const MfadGrid *G, PetscReal c, int d)
{
  PetscInt i = (PetscInt)PetscFloorReal((c - G->lo[d]) / G->h[d]);
  return i < 0 ? 0 : (i >= G->dim[d] ? G->dim[d] - 1 : i);
}

static inline PetscBool MfadBoxesOverlapF_Private(const float *a, const float *b)
{
  for (int d = 0; d < 3; d++)
    if (a[d] > b[3 + d] || b[d] > a[3 + d]) return PETSC_FALSE;
  return PETSC_TRUE;
}

static inline PetscBool MfadBoxesOverlap_Private(const PetscReal *a, const PetscReal *b)
{
  for (int d = 0; d < 3; d++)
    if (a[d] > b[3 + d] || b[d] > a[3 + d]) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* the cell of the lowest corner of two overlapping boxes' intersection is (cx, cy, cz) */
static inline PetscBool MfadPairHere_Private(const MfadGrid *G, const float *a, const float *b, const PetscInt c[3])
{
  for (int d = 0; d < 3; d++)
    if (MfadCell_Private(G, PetscMax(a[d], b[d]), d) != c[d]) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* Candidate point-triangle pairs (boxes overlap) and edge-edge pairs (i < j) */
PetscErrorCode MfadBroadPhase_Private(MfadBroadScratch *S, PetscInt np, const PetscReal *pbox, PetscInt nt, const PetscReal *tbox, PetscInt ne,
                                      const PetscReal *ebox, PetscReal hmin)
{
  MfadPairList    *PT = &S->PT, *EE = &S->EE;
  const PetscInt   nset[3] = {np, nt, ne};
  const PetscReal *box[3]  = {pbox, tbox, ebox};
  MfadGrid         G;
  PetscReal        hi[3], ext[3] = {0.0, 0.0, 0.0};
  PetscInt         nbig = 0, nent = 0, nbucket, bits = 4, *start, *id, *fill;
  uint64_t        *key;
  float           *fb[3], *ebx; /* the boxes rounded outwards to float, and a copy per entry */

  PetscFunctionBegin;
  PT->n = EE->n = 0;
  if (!(np && nt) && ne < 2) PetscFunctionReturn(PETSC_SUCCESS);
  /* float boxes, rounded outwards: half the bytes of the pair loops' reads, which are what costs */
  PetscCall(MfadScratchGrow_Private(6 * (size_t)(np + nt + ne), sizeof(float), &S->cfb, (void **)&S->fb));
  fb[0] = S->fb, fb[1] = S->fb + 6 * np, fb[2] = S->fb + 6 * (np + nt);
  for (int s = 0; s < 3; s++)
    for (PetscInt i = 0; i < 6 * nset[s]; i++) {
      const PetscReal v = box[s][i];
      float           f = (float)v;
      if (i % 6 < 3 && (PetscReal)f > v) f = nextafterf(f, -INFINITY);
      if (i % 6 >= 3 && (PetscReal)f < v) f = nextafterf(f, INFINITY);
      fb[s][i] = f;
    }
  for (int d = 0; d < 3; d++) G.lo[d] = PETSC_MAX_REAL, hi[d] = PETSC_MIN_REAL;
  for (int s = 0; s < 3; s++)
    for (PetscInt i = 0; i < nset[s]; i++) {
      const float *b = &fb[s][6 * i];
      for (int d = 0; d < 3; d++) {
        G.lo[d] = PetscMin(G.lo[d], b[d]), hi[d] = PetscMax(hi[d], b[3 + d]);
        if (s) ext[d] += b[3 + d] - b[d];
      }
      if (s) nbig++;
    }
  /* cell size (cubic): twice the mean extent of the triangle and edge boxes, so that a box covers
     one or two cells along each axis (measured here on stacked sheets: 1.5 to 2 times less CPU than
     one mean extent, or than a cell size per axis); at least hmin, and never so small that an axis
     has more than 2^20 cells (keys pack 21 bits per axis) */
  {
    PetscReal h = nbig ? 2.0 * (ext[0] + ext[1] + ext[2]) / (3.0 * nbig) : 0.0;
    h           = PetscMax(h, hmin);
    for (int d = 0; d < 3; d++) h = PetscMax(h, (hi[d] - G.lo[d]) / (PetscReal)(1 << 20));
    if (!(h > 0.0)) h = 1.0; /* every box a single point */
    for (int d = 0; d < 3; d++) G.h[d] = h;
  }
  for (;;) { /* entries O(n): double h while the boxes cover too many cells */
    PetscInt64 cnt = 0;
    for (int d = 0; d < 3; d++) G.dim[d] = (PetscInt)((hi[d] - G.lo[d]) / G.h[d]) + 1;
    for (int s = 0; s < 3; s++)
      for (PetscInt i = 0; i < nset[s]; i++) {
        const float *b = &fb[s][6 * i];
        PetscInt64   c = 1;
        for (int d = 0; d < 3; d++) c *= MfadCell_Private(&G, b[3 + d], d) - MfadCell_Private(&G, b[d], d) + 1;
        cnt += c;
      }
    if (cnt <= 16 * (PetscInt64)(np + nt + ne) + 64) {
      nent = (PetscInt)cnt;
      break;
    }
    for (int d = 0; d < 3; d++) G.h[d] *= 2.0;
  }
  while (((PetscInt)1 << bits) < nent) bits++;
  nbucket = (PetscInt)1 << bits;
  PetscCall(MfadScratchGrow_Private((size_t)nbucket + 1, sizeof(PetscInt), &S->cstart, (void **)&S->start));
  PetscCall(MfadScratchGrow_Private((size_t)nbucket, sizeof(PetscInt), &S->cfill, (void **)&S->fill));
  PetscCall(MfadScratchGrow_Private((size_t)nent, sizeof(uint64_t), &S->ckey, (void **)&S->key));
  PetscCall(MfadScratchGrow_Private((size_t)nent, sizeof(PetscInt), &S->cid, (void **)&S->id));
  PetscCall(MfadScratchGrow_Private(6 * (size_t)nent, sizeof(float), &S->cebx, (void **)&S->ebx));
  start = S->start, fill = S->fill, key = S->key, id = S->id, ebx = S->ebx;
  PetscCall(PetscArrayzero(start, nbucket + 1));
  /* two passes of a counting sort by bucket: count, then place */
  for (int pass = 0; pass < 2; pass++) {
    for (int s = 0; s < 3; s++)
      for (PetscInt i = 0; i < nset[s]; i++) {
        const float *b = &fb[s][6 * i];
        PetscInt     c0[3], c1[3];
        for (int d = 0; d < 3; d++) c0[d] = MfadCell_Private(&G, b[d], d), c1[d] = MfadCell_Private(&G, b[3 + d], d);
        for (PetscInt cz = c0[2]; cz <= c1[2]; cz++)
          for (PetscInt cy = c0[1]; cy <= c1[1]; cy++)
            for (PetscInt cx = c0[0]; cx <= c1[0]; cx++) {
              const uint64_t k  = (uint64_t)cx | ((uint64_t)cy << 21) | ((uint64_t)cz << 42);
              const PetscInt bk = (PetscInt)((k * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits));
              if (!pass) start[bk + 1]++;
              else {
                const PetscInt at = fill[bk]++;
                key[at] = k, id[at] = 4 * i + s;
                for (int d = 0; d < 6; d++) ebx[6 * at + d] = b[d];
              }
            }
      }
    if (!pass) {
      for (PetscInt bk = 0; bk < nbucket; bk++) start[bk + 1] += start[bk];
      for (PetscInt bk = 0; bk < nbucket; bk++) fill[bk] = start[bk];
    }
  }
  /* pairs within each bucket, of entries of the same cell: entries were placed set by set, so a
     bucket holds its points, then its triangles, then its edges. Threads take contiguous bucket
     ranges into their own lists, concatenated in bucket order: the same pairs in the same order
     for any thread count. */
  {
    const int     nth = MfadContactThreads_Private(nent);
    MfadPairList *lpt, *lee;
    int           failed = 0;
    if (nth > S->nth) {
      for (int t = 0; t < S->nth; t++) free(S->lpt[t].ij), free(S->lee[t].ij);
      PetscCall(PetscFree2(S->lpt, S->lee));
      PetscCall(PetscCalloc2(nth, &S->lpt, nth, &S->lee));
      S->nth = nth;
    }
    lpt = S->lpt, lee = S->lee;
    for (int t = 0; t < nth; t++) lpt[t].n = lee[t].n = 0;
#pragma omp parallel num_threads(nth) reduction(|| : failed)
    {
      const int      tid = omp_get_thread_num(), nthr = omp_get_num_threads();
      const PetscInt b0 = (PetscInt)((PetscInt64)nbucket * tid / nthr), b1 = (PetscInt)((PetscInt64)nbucket * (tid + 1) / nthr);
      for (PetscInt bk = b0; bk < b1 && !failed; bk++) {
        PetscInt tb = start[bk], eb, end = start[bk + 1];
        while (tb < end && (id[tb] & 3) == 0) tb++;
        eb = tb;
        while (eb < end && (id[eb] & 3) == 1) eb++;
        for (PetscInt a = start[bk]; a < tb; a++) {
          const PetscInt ia = id[a] >> 2;
          const uint64_t k  = key[a];
          const float   *ba = &ebx[6 * a];
          PetscInt       c[3];
          for (PetscInt b = tb; b < eb; b++) {
            const float *bb = &ebx[6 * b];
            if (key[b] != k || !MfadBoxesOverlapF_Private(ba, bb)) continue;
            c[0] = (PetscInt)(k & 0x1FFFFF), c[1] = (PetscInt)((k >> 21) & 0x1FFFFF), c[2] = (PetscInt)(k >> 42);
            if (MfadPairHere_Private(&G, ba, bb, c)) failed = failed || MfadPairPushRaw_Private(&lpt[tid], ia, id[b] >> 2);
          }
        }
        for (PetscInt a = eb; a < end; a++) {
          const PetscInt ia = id[a] >> 2;
          const uint64_t k  = key[a];
          const float   *ba = &ebx[6 * a];
          PetscInt       c[3];
          for (PetscInt b = a + 1; b < end; b++) {
            const PetscInt ib = id[b] >> 2;
            const float   *bb = &ebx[6 * b];
            if (key[b] != k || !MfadBoxesOverlapF_Private(ba, bb)) continue;
            c[0] = (PetscInt)(k & 0x1FFFFF), c[1] = (PetscInt)((k >> 21) & 0x1FFFFF), c[2] = (PetscInt)(k >> 42);
            if (MfadPairHere_Private(&G, ba, bb, c)) failed = failed || MfadPairPushRaw_Private(&lee[tid], PetscMin(ia, ib), PetscMax(ia, ib));
          }
        }
      }
    }
    if (!failed) { /* concatenate */
      MfadPairList *L[2] = {lpt, lee}, *O[2] = {PT, EE};
      for (int l = 0; l < 2; l++) {
        PetscInt n = 0;
        for (int t = 0; t < nth; t++) n += L[l][t].n;
        if (n > O[l]->cap) {
          PetscCall(PetscFree(O[l]->ij));
          PetscCall(PetscMalloc1(2 * n, &O[l]->ij));
          O[l]->cap = n;
        }
        O[l]->n = 0;
        for (int t = 0; t < nth; t++) {
          PetscCall(PetscArraycpy(&O[l]->ij[2 * O[l]->n], L[l][t].ij, 2 * L[l][t].n));
          O[l]->n += L[l][t].n;
        }
      }
    }
    PetscCheck(!failed, PETSC_COMM_SELF, PETSC_ERR_MEM, "MfadContact: out of memory for candidate pairs");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- primitives of other ranks */
PetscErrorCode MfadContactWorkDestroy_Private(MfadContactWork *W)
{
  PetscFunctionBegin;
  if (W->own) {
    PetscCall(PetscFree2(W->x, W->gid));
    PetscCall(PetscFree(W->dx));
    PetscCall(PetscFree3(W->p, W->t, W->e));
    PetscCall(PetscFree(W->erest2));
    PetscCall(PetscFree3(W->prank, W->trank, W->erank));
  }
  PetscCall(PetscMemzero(W, sizeof(*W)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* W: this rank's primitives at x (swept by dx if not NULL), then, on several ranks, copies of the
   other ranks' primitives whose boxes (points padded by ppad, edges by epad) overlap this rank's
   region (the union box of its own primitives' boxes) */
PetscErrorCode MfadContactWorkCreate_Private(MfadContact C, const PetscReal x[], const PetscReal dx[], PetscReal ppad, PetscReal epad,
                                             MfadContactWork *W)
{
  PetscMPIInt     size, rank, *nsend, *nrecv, *soff, *roff;
  MfadContactWork L;
  PetscReal      *pbox, *tbox, *ebox, mine[6], *regions, *sbuf, *rbuf;
  PetscInt        nsendtot = 0, nrecvtot = 0, *dest;
  PetscSF         sf;
  PetscSFNode    *remote;
  MPI_Datatype    rec;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(W, sizeof(*W)));
  L.nv = C->nv, L.np = C->npoint, L.nt = C->ntri, L.ne = C->nedge;
  L.x = (PetscReal *)x, L.dx = (PetscReal *)dx, L.gid = C->gid, L.p = C->point, L.t = C->tri, L.e = C->edge, L.erest2 = C->edge_rest2;
  L.prank = L.trank = L.erank = NULL, L.own = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_size(C->comm, &size));
  PetscCallMPI(MPI_Comm_rank(C->comm, &rank));
  if (size == 1) {
    *W = L;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* regions of all ranks */
  PetscCall(MfadContactBoxes_Private(&C->broad, &L, ppad, epad, &pbox, &tbox, &ebox)); /* the scratch's: used up before the caller's boxes */
  for (int d = 0; d < 3; d++) mine[d] = PETSC_MAX_REAL, mine[3 + d] = PETSC_MIN_REAL;
  {
    const PetscInt   n[3] = {L.np, L.nt, L.ne};
    const PetscReal *b[3] = {pbox, tbox, ebox};
    for (int s = 0; s < 3; s++)
      for (PetscInt i = 0; i < n[s]; i++)
        for (int d = 0; d < 3; d++) mine[d] = PetscMin(mine[d], b[s][6 * i + d]), mine[3 + d] = PetscMax(mine[3 + d], b[s][6 * i + 3 + d]);
  }
  PetscCall(PetscMalloc1(6 * size, &regions));
  PetscCallMPI(MPI_Allgather(mine, 6, MPIU_REAL, regions, 6, MPIU_REAL, C->comm));
  /* what goes where: (destination, kind, index) for every overlap with another rank's region */
  PetscCall(PetscCalloc4(size, &nsend, size, &nrecv, size, &soff, size, &roff));
  for (int pass = 0; pass < 2; pass++) {
    const PetscInt   n[3] = {L.np, L.nt, L.ne};
    const PetscReal *b[3] = {pbox, tbox, ebox};
    PetscInt         at   = 0;
    for (PetscMPIInt q = 0; q < size; q++) {
      if (pass) soff[q] = (PetscMPIInt)at;
      if (q == rank) continue;
      for (int s = 0; s < 3; s++)
        for (PetscInt i = 0; i < n[s]; i++)
          if (MfadBoxesOverlap_Private(&b[s][6 * i], &regions[6 * q])) {
            if (pass) dest[at] = 3 * i + s;
            else nsend[q]++;
            at++;
          }
    }
    if (!pass) {
      nsendtot = at;
      PetscCall(PetscMalloc1(nsendtot, &dest));
    }
  }
  /* pack: kind, global ids, coordinates, steps, rest |e|^2 */
  PetscCall(PetscCalloc1((size_t)MFAD_CONTACT_REC * nsendtot, &sbuf));
  for (PetscInt r = 0; r < nsendtot; r++) {
    const int       s = (int)(dest[r] % 3);
    const PetscInt  i = dest[r] / 3, nvert = s == 0 ? 1 : (s == 1 ? 3 : 2);
    const PetscInt *vs = s == 0 ? &L.p[i] : (s == 1 ? &L.t[3 * i] : &L.e[2 * i]);
    PetscReal      *o  = &sbuf[MFAD_CONTACT_REC * r];
    o[0]               = s;
    for (PetscInt a = 0; a < nvert; a++) {
      o[1 + a] = (PetscReal)L.gid[vs[a]];
      for (int d = 0; d < 3; d++) {
        o[4 + 3 * a + d]  = x[3 * vs[a] + d];
        o[13 + 3 * a + d] = dx ? dx[3 * vs[a] + d] : 0.0;
      }
    }
    o[22] = (s == 2 && L.erest2) ? L.erest2[i] : 0.0;
  }
  /* counts and the senders' offsets to every receiver, then one PetscSF broadcast of the records */
  PetscCallMPI(MPI_Alltoall(nsend, 1, MPI_INT, nrecv, 1, MPI_INT, C->comm));
  PetscCallMPI(MPI_Alltoall(soff, 1, MPI_INT, roff, 1, MPI_INT, C->comm));
  for (PetscMPIInt q = 0; q < size; q++) nrecvtot += nrecv[q];
  PetscCall(PetscMalloc1(nrecvtot, &remote));
  {
    PetscInt at = 0;
    for (PetscMPIInt q = 0; q < size; q++)
      for (PetscMPIInt k = 0; k < nrecv[q]; k++) remote[at].rank = q, remote[at].index = roff[q] + k, at++;
  }
  PetscCall(PetscMalloc1((size_t)MFAD_CONTACT_REC * nrecvtot, &rbuf));
  PetscCall(PetscSFCreate(C->comm, &sf));
  PetscCall(PetscSFSetGraph(sf, nsendtot, nrecvtot, NULL, PETSC_OWN_POINTER, remote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(sf));
  PetscCallMPI(MPI_Type_contiguous(MFAD_CONTACT_REC, MPIU_REAL, &rec));
  PetscCallMPI(MPI_Type_commit(&rec));
  PetscCall(PetscSFBcastBegin(sf, rec, sbuf, rbuf, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, rec, sbuf, rbuf, MPI_REPLACE));
  PetscCallMPI(MPI_Type_free(&rec));
  PetscCall(PetscSFDestroy(&sf));
  /* W: local primitives, then the received ones with their own vertex copies */
  {
    PetscInt rp = 0, rt = 0, re = 0, rv = 0, src = 0, left;
    for (PetscInt r = 0; r < nrecvtot; r++) {
      const int s = (int)rbuf[MFAD_CONTACT_REC * r];
      rp += s == 0, rt += s == 1, re += s == 2, rv += s == 0 ? 1 : (s == 1 ? 3 : 2);
    }
    W->own = PETSC_TRUE;
    W->nv = L.nv + rv, W->np = L.np + rp, W->nt = L.nt + rt, W->ne = L.ne + re;
    PetscCall(PetscMalloc2(3 * W->nv, &W->x, W->nv, &W->gid));
    if (dx) PetscCall(PetscMalloc1(3 * W->nv, &W->dx));
    PetscCall(PetscMalloc3(W->np, &W->p, 3 * W->nt, &W->t, 2 * W->ne, &W->e));
    PetscCall(PetscMalloc3(W->np, &W->prank, W->nt, &W->trank, W->ne, &W->erank));
    if (L.erest2 || re) PetscCall(PetscCalloc1(W->ne, &W->erest2));
    PetscCall(PetscArraycpy(W->x, x, 3 * L.nv));
    if (dx) PetscCall(PetscArraycpy(W->dx, dx, 3 * L.nv));
    PetscCall(PetscArraycpy(W->gid, L.gid, L.nv));
    PetscCall(PetscArraycpy(W->p, L.p, L.np));
    PetscCall(PetscArraycpy(W->t, L.t, 3 * L.nt));
    PetscCall(PetscArraycpy(W->e, L.e, 2 * L.ne));
    if (L.erest2) PetscCall(PetscArraycpy(W->erest2, L.erest2, L.ne));
    for (PetscInt i = 0; i < L.np; i++) W->prank[i] = rank;
    for (PetscInt i = 0; i < L.nt; i++) W->trank[i] = rank;
    for (PetscInt i = 0; i < L.ne; i++) W->erank[i] = rank;
    rv = L.nv, rp = L.np, rt = L.nt, re = L.ne;
    left = nrecv[0];
    for (PetscInt r = 0; r < nrecvtot; r++) {
      const PetscReal *o     = &rbuf[MFAD_CONTACT_REC * r];
      const int        s     = (int)o[0];
      const PetscInt   nvert = s == 0 ? 1 : (s == 1 ? 3 : 2);
      PetscInt        *vs;
      while (!left) left = nrecv[++src]; /* records arrive grouped by sender */
      left--;
      vs = s == 0 ? &W->p[rp] : (s == 1 ? &W->t[3 * rt] : &W->e[2 * re]);
      if (s == 0) W->prank[rp++] = src;
      else if (s == 1) W->trank[rt++] = src;
      else W->erest2[re] = o[22], W->erank[re++] = src;
      for (PetscInt a = 0; a < nvert; a++, rv++) {
        vs[a]      = rv;
        W->gid[rv] = (PetscInt)o[1 + a];
        for (int d = 0; d < 3; d++) {
          W->x[3 * rv + d] = o[4 + 3 * a + d];
          if (dx) W->dx[3 * rv + d] = o[13 + 3 * a + d];
        }
      }
    }
  }
  PetscCall(PetscFree(rbuf));
  PetscCall(PetscFree(sbuf));
  PetscCall(PetscFree(dest));
  PetscCall(PetscFree4(nsend, nrecv, soff, roff));
  PetscCall(PetscFree(regions));
  PetscFunctionReturn(PETSC_SUCCESS);
}
