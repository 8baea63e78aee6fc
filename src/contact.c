// SPDX-License-Identifier: BSD-2-Clause
/* Contact detection and the continuous-collision step bound for the IPC barrier energies
   (energies/ipc_point_triangle.c, energies/ipc_edge_edge.c; distances in include/mfad/contact.h).

   Broad phase: a uniform grid hashed into buckets. Every primitive's box (a point's box inflated
   by dhat, an edge's by dhat / 2, a triangle's as it is; for the step bound the boxes swept from
   x to x + dx) is entered into each grid cell it overlaps; cells go into 2^k buckets by a
   multiplicative hash and a counting sort (O(n), no comparison sort). Two boxes that overlap meet
   in at least one cell; a pair is reported only in the cell holding the lowest corner of the boxes'
   intersection, so once, without a global sort. The cell size is the mean largest extent of the
   triangle and edge boxes (at least dhat), doubled until the grid's entries are O(n): a few
   cells per primitive, a few primitives per cell.

   On several ranks each rank holds its own part of the surface (triangles, edges and points, each
   primitive on one rank, vertex ids global). Ranks exchange their surface bounding boxes
   (MPI_Allgather), then each sends every primitive whose (inflated or swept) box overlaps another
   rank's box to that rank, through a PetscSF built from the counts. A pair of a local primitive and
   one received from rank r is kept by the lower of the two ranks: found on both, owned by one. */
#include <stdint.h>
#include <stdlib.h>
#include <omp.h>
#include <petscsf.h>
#include <mfad/contact.h>
#include "mfadimpl.h"

/* a primitive sent to another rank: kind, global vertex ids, coordinates and step of its vertices,
   the rest |e|^2 of an edge */
#define MFAD_CONTACT_REC 23

/* -log_view events: the whole detection and step bound, the broad phase, the rank exchange */
static PetscLogEvent MFAD_ContactDetect, MFAD_ContactStepBound, MFAD_ContactBroad, MFAD_ContactExchange;
static PetscBool     MfadContactRegistered = PETSC_FALSE;

static PetscErrorCode MfadContactRegisterEvents_Private(void)
{
  PetscClassId id;

  PetscFunctionBegin;
  if (MfadContactRegistered) PetscFunctionReturn(PETSC_SUCCESS);
  MfadContactRegistered = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("MfadContact", &id));
  PetscCall(PetscLogEventRegister("MfadContactDetect", id, &MFAD_ContactDetect));
  PetscCall(PetscLogEventRegister("MfadContactStep", id, &MFAD_ContactStepBound));
  PetscCall(PetscLogEventRegister("MfadContactBroad", id, &MFAD_ContactBroad));
  PetscCall(PetscLogEventRegister("MfadContactExch", id, &MFAD_ContactExchange));
  PetscFunctionReturn(PETSC_SUCCESS);
}

struct _p_MfadContact {
  MPI_Comm   comm;
  PetscInt   nv;  /* this rank's vertices (coordinates x[3 nv]) */
  PetscInt  *gid; /* their global ids */
  PetscInt   ntri, nedge, npoint;
  PetscInt  *tri, *edge, *point; /* over local vertex numbers */
  PetscReal *edge_rest2;         /* rest |a1 - a0|^2 of each edge, or NULL: no mollifier */
  PetscReal  dhat, kappa;
  PetscBool  surface_set;
  /* the last detection's pairs */
  PetscInt   npt, nee, cappt, capee;
  PetscInt  *ptconn, *eeconn;
  PetscReal *ptpar, *eepar;
  PetscReal  dmin; /* their smallest squared distance (dhat^2 if none), this rank */
};

/* the primitives of one detection: this rank's, then those received (vertex copies appended) */
typedef struct {
  PetscInt     nv, np, nt, ne;
  PetscReal   *x, *dx;                /* 3 nv (dx NULL: detection) */
  PetscInt    *gid;                   /* nv */
  PetscInt    *p, *t, *e;             /* np, 3 nt, 2 ne vertex numbers */
  PetscReal   *erest2;                /* ne, or NULL */
  PetscMPIInt *prank, *trank, *erank; /* owning rank of each primitive */
  PetscBool    own;                   /* arrays owned (freed by WorkDestroy) */
} MfadContactWork;

/* ---------------------------------------------------------------- set-up */
PetscErrorCode MfadContactCreate(MPI_Comm comm, MfadContact *C)
{
  PetscFunctionBegin;
  MfadValidPointer(C, 2);
  PetscCall(MfadContactRegisterEvents_Private());
  PetscCall(PetscNew(C));
  (*C)->comm  = comm;
  (*C)->dhat  = -1.0;
  (*C)->kappa = 1.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadContactClearSurface_Private(MfadContact C)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(C->gid));
  PetscCall(PetscFree(C->tri));
  PetscCall(PetscFree(C->edge));
  PetscCall(PetscFree(C->point));
  PetscCall(PetscFree(C->edge_rest2));
  C->surface_set = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadContactDestroy(MfadContact *C)
{
  PetscFunctionBegin;
  if (!C || !*C) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadContactClearSurface_Private(*C));
  PetscCall(PetscFree((*C)->ptconn));
  PetscCall(PetscFree((*C)->eeconn));
  PetscCall(PetscFree((*C)->ptpar));
  PetscCall(PetscFree((*C)->eepar));
  PetscCall(PetscFree(*C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int MfadEdgeCompare_Private(const void *a, const void *b)
{
  const PetscInt *x = (const PetscInt *)a, *y = (const PetscInt *)b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

PetscErrorCode MfadContactSetSurface(MfadContact C, PetscInt nv, const PetscInt gid[], PetscInt ntri, const PetscInt tri[], PetscInt nedge,
                                     const PetscInt edge[], PetscInt npoint, const PetscInt point[])
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCheck(C, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadContactSetSurface: NULL contact");
  PetscCallMPI(MPI_Comm_size(C->comm, &size));
  PetscCheck(nv >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadContactSetSurface: vertex count %" PetscInt_FMT " < 0", nv);
  PetscCheck(ntri >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadContactSetSurface: triangle count %" PetscInt_FMT " < 0", ntri);
  PetscCheck(nedge >= 0 || nedge == PETSC_DETERMINE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "MfadContactSetSurface: edge count %" PetscInt_FMT " < 0 (PETSC_DETERMINE: the triangles' edges)", nedge);
  PetscCheck(npoint >= 0 || npoint == PETSC_DETERMINE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "MfadContactSetSurface: point count %" PetscInt_FMT " < 0 (PETSC_DETERMINE: every vertex of a triangle or edge)", npoint);
  PetscCheck(size == 1 || (nedge != PETSC_DETERMINE && npoint != PETSC_DETERMINE), C->comm, PETSC_ERR_ARG_WRONG,
             "MfadContactSetSurface: on %d ranks give each rank's edges and points explicitly (each primitive on one rank)", (int)size);
  PetscCheck(!ntri || tri, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadContactSetSurface: %" PetscInt_FMT " triangles but tri is NULL", ntri);
  PetscCheck(nedge <= 0 || edge, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadContactSetSurface: %" PetscInt_FMT " edges but edge is NULL", nedge);
  PetscCheck(npoint <= 0 || point, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadContactSetSurface: %" PetscInt_FMT " points but point is NULL", npoint);
  for (PetscInt t = 0; t < ntri; t++) {
    for (int a = 0; a < 3; a++)
      PetscCheck(tri[3 * t + a] >= 0 && tri[3 * t + a] < nv, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
                 "MfadContactSetSurface: triangle %" PetscInt_FMT " has vertex %" PetscInt_FMT ", not in [0, %" PetscInt_FMT ")", t, tri[3 * t + a],
                 nv);
    PetscCheck(tri[3 * t] != tri[3 * t + 1] && tri[3 * t + 1] != tri[3 * t + 2] && tri[3 * t] != tri[3 * t + 2], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "MfadContactSetSurface: triangle %" PetscInt_FMT " repeats a vertex (%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT ")", t,
               tri[3 * t], tri[3 * t + 1], tri[3 * t + 2]);
  }
  for (PetscInt e = 0; e < nedge; e++) {
    for (int a = 0; a < 2; a++)
      PetscCheck(edge[2 * e + a] >= 0 && edge[2 * e + a] < nv, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
                 "MfadContactSetSurface: edge %" PetscInt_FMT " has vertex %" PetscInt_FMT ", not in [0, %" PetscInt_FMT ")", e, edge[2 * e + a], nv);
    PetscCheck(edge[2 * e] != edge[2 * e + 1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "MfadContactSetSurface: edge %" PetscInt_FMT " joins vertex %" PetscInt_FMT " to itself", e, edge[2 * e]);
  }
  for (PetscInt i = 0; i < npoint; i++)
    PetscCheck(point[i] >= 0 && point[i] < nv, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "MfadContactSetSurface: point %" PetscInt_FMT " is vertex %" PetscInt_FMT ", not in [0, %" PetscInt_FMT ")", i, point[i], nv);
  if (gid)
    for (PetscInt v = 0; v < nv; v++)
      PetscCheck(gid[v] >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
                 "MfadContactSetSurface: vertex %" PetscInt_FMT " has global id %" PetscInt_FMT " < 0", v, gid[v]);

  PetscCall(MfadContactClearSurface_Private(C));
  C->nv   = nv;
  C->ntri = ntri;
  PetscCall(PetscMalloc1(nv, &C->gid));
  for (PetscInt v = 0; v < nv; v++) C->gid[v] = gid ? gid[v] : v;
  PetscCall(PetscMalloc1(3 * ntri, &C->tri));
  PetscCall(PetscArraycpy(C->tri, tri, 3 * ntri));
  if (nedge == PETSC_DETERMINE) { /* the triangles' edges, each once */
    PetscInt *all, n = 0;
    PetscCall(PetscMalloc1(6 * ntri, &all));
    for (PetscInt t = 0; t < ntri; t++)
      for (int a = 0; a < 3; a++) {
        const PetscInt u = tri[3 * t + a], w = tri[3 * t + (a + 1) % 3];
        all[2 * n] = PetscMin(u, w), all[2 * n + 1] = PetscMax(u, w), n++;
      }
    if (n) qsort(all, (size_t)n, 2 * sizeof(PetscInt), MfadEdgeCompare_Private);
    C->nedge = 0;
    for (PetscInt i = 0; i < n; i++)
      if (!C->nedge || all[2 * i] != all[2 * (C->nedge - 1)] || all[2 * i + 1] != all[2 * (C->nedge - 1) + 1]) {
        all[2 * C->nedge] = all[2 * i], all[2 * C->nedge + 1] = all[2 * i + 1];
        C->nedge++;
      }
    C->edge = all;
  } else {
    C->nedge = nedge;
    PetscCall(PetscMalloc1(2 * nedge, &C->edge));
    PetscCall(PetscArraycpy(C->edge, edge, 2 * nedge));
  }
  if (npoint == PETSC_DETERMINE) { /* every vertex of a triangle or an edge */
    PetscBool *used;
    PetscCall(PetscCalloc1(nv, &used));
    for (PetscInt i = 0; i < 3 * ntri; i++) used[tri[i]] = PETSC_TRUE;
    for (PetscInt i = 0; i < 2 * C->nedge; i++) used[C->edge[i]] = PETSC_TRUE;
    C->npoint = 0;
    for (PetscInt v = 0; v < nv; v++) C->npoint += used[v];
    PetscCall(PetscMalloc1(C->npoint, &C->point));
    C->npoint = 0;
    for (PetscInt v = 0; v < nv; v++)
      if (used[v]) C->point[C->npoint++] = v;
    PetscCall(PetscFree(used));
  } else {
    C->npoint = npoint;
    PetscCall(PetscMalloc1(npoint, &C->point));
    PetscCall(PetscArraycpy(C->point, point, npoint));
  }
  C->surface_set = PETSC_TRUE;
  C->npt = C->nee = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadContactSetBarrier(MfadContact C, PetscReal dhat, PetscReal kappa)
{
  PetscFunctionBegin;
  PetscCheck(C, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadContactSetBarrier: NULL contact");
  PetscCheck(dhat > 0.0 && PetscIsNormalReal(dhat), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "MfadContactSetBarrier: dhat %g must be positive and finite", (double)dhat);
  PetscCheck(kappa > 0.0 && PetscIsNormalReal(kappa), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "MfadContactSetBarrier: kappa %g must be positive and finite", (double)kappa);
  C->dhat  = dhat;
  C->kappa = kappa;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadContactSetRestCoordinates(MfadContact C, const PetscReal rest[])
{
  PetscFunctionBegin;
  PetscCheck(C && C->surface_set, PETSC_COMM_SELF, PETSC_ERR_ORDER, "MfadContactSetRestCoordinates: call MfadContactSetSurface() first");
  PetscCall(PetscFree(C->edge_rest2));
  if (!rest) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(C->nedge, &C->edge_rest2));
  for (PetscInt e = 0; e < C->nedge; e++) {
    const PetscReal l2 = mfad_ipc_pp2(&rest[3 * C->edge[2 * e]], &rest[3 * C->edge[2 * e + 1]]);
    PetscCheck(PetscIsNormalReal(l2) && l2 > 0.0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "MfadContactSetRestCoordinates: edge %" PetscInt_FMT " (vertices %" PetscInt_FMT " %" PetscInt_FMT ") has rest length^2 %g", e,
               C->gid[C->edge[2 * e]], C->gid[C->edge[2 * e + 1]], (double)l2);
    C->edge_rest2[e] = l2;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* collective: every rank stops with an error when any rank has a non-finite entry (a rank that
   stopped alone would leave the others waiting in the exchange) */
static PetscErrorCode MfadContactCheckCoordinates_Private(MfadContact C, const PetscReal x[], const char *what)
{
  PetscInt bad = -1, anybad;

  PetscFunctionBegin;
  PetscCheck(!C->nv || x, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadContact: %s is NULL", what);
  for (PetscInt i = 0; i < 3 * C->nv && bad < 0; i++)
    if (!(PetscIsNormalReal(x[i]) || x[i] == 0.0)) bad = i;
  PetscCall(MPIU_Allreduce(&bad, &anybad, 1, MPIU_INT, MPI_MAX, C->comm));
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_FP, "MfadContact: %s of vertex %" PetscInt_FMT " (global %" PetscInt_FMT "), component %d, is %g",
             what, bad / 3, C->gid[bad / 3], (int)(bad % 3), (double)x[bad]);
  PetscCheck(anybad < 0, PETSC_COMM_SELF, PETSC_ERR_FP, "MfadContact: a %s on another rank is not finite", what);
  PetscFunctionReturn(PETSC_SUCCESS);
}

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

/* the primitives' boxes: points padded by ppad, edges by epad, triangles by none */
static PetscErrorCode MfadContactBoxes_Private(const MfadContactWork *W, PetscReal ppad, PetscReal epad, PetscReal **pbox, PetscReal **tbox,
                                               PetscReal **ebox)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc3(6 * W->np, pbox, 6 * W->nt, tbox, 6 * W->ne, ebox));
  for (PetscInt i = 0; i < W->np; i++) MfadBoxOf_Private(W, &W->p[i], 1, ppad, &(*pbox)[6 * i]);
  for (PetscInt i = 0; i < W->nt; i++) MfadBoxOf_Private(W, &W->t[3 * i], 3, 0.0, &(*tbox)[6 * i]);
  for (PetscInt i = 0; i < W->ne; i++) MfadBoxOf_Private(W, &W->e[2 * i], 2, epad, &(*ebox)[6 * i]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- broad phase: hashed grid */
typedef struct {
  PetscInt  n, cap;
  PetscInt *ij; /* pairs (i, j) */
} MfadPairList;

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

/* threads for a loop of n items: OpenMP's count from 16,384 items on (as the element loops) */
static inline int MfadContactThreads_Private(PetscInt64 n) { return n >= 16384 ? omp_get_max_threads() : 1; }

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
static PetscErrorCode MfadBroadPhase_Private(PetscInt np, const PetscReal *pbox, PetscInt nt, const PetscReal *tbox, PetscInt ne,
                                             const PetscReal *ebox, PetscReal hmin, MfadPairList *PT, MfadPairList *EE)
{
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
  PetscCall(PetscMalloc3(6 * np, &fb[0], 6 * nt, &fb[1], 6 * ne, &fb[2]));
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
  PetscCall(PetscCalloc1(nbucket + 1, &start));
  PetscCall(PetscMalloc4(nent, &key, nent, &id, nbucket, &fill, 6 * nent, &ebx));
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
    PetscCall(PetscCalloc2(nth, &lpt, nth, &lee));
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
    for (int t = 0; t < nth; t++) free(lpt[t].ij), free(lee[t].ij);
    PetscCall(PetscFree2(lpt, lee));
    PetscCheck(!failed, PETSC_COMM_SELF, PETSC_ERR_MEM, "MfadContact: out of memory for candidate pairs");
  }
  PetscCall(PetscFree(start));
  PetscCall(PetscFree4(key, id, fill, ebx));
  PetscCall(PetscFree3(fb[0], fb[1], fb[2]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- primitives of other ranks */
static PetscErrorCode MfadContactWorkDestroy_Private(MfadContactWork *W)
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
static PetscErrorCode MfadContactWorkCreate_Private(MfadContact C, const PetscReal x[], const PetscReal dx[], PetscReal ppad, PetscReal epad,
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
  PetscCall(MfadContactBoxes_Private(&L, ppad, epad, &pbox, &tbox, &ebox));
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
  PetscCall(PetscFree3(pbox, tbox, ebox));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a pair of primitives owned by ranks ra and rb is this rank's if the lower of them is */
static inline PetscBool MfadPairMine_Private(const PetscMPIInt *ra, PetscInt i, const PetscMPIInt *rb, PetscInt j, PetscMPIInt rank)
{
  if (!ra) return PETSC_TRUE; /* one rank */
  return (PetscBool)(PetscMin(ra[i], rb[j]) == rank);
}

static inline void MfadGather_Private(const MfadContactWork *W, const PetscInt v[4], PetscReal x12[12], PetscReal dx12[12])
{
  for (int a = 0; a < 4; a++)
    for (int d = 0; d < 3; d++) {
      x12[3 * a + d] = W->x[3 * v[a] + d];
      if (dx12) dx12[3 * a + d] = W->dx[3 * v[a] + d];
    }
}

static inline PetscBool MfadShareVertex_Private(const MfadContactWork *W, const PetscInt v[4], int nfirst)
{
  for (int a = 0; a < nfirst; a++)
    for (int b = nfirst; b < 4; b++)
      if (W->gid[v[a]] == W->gid[v[b]]) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* ---------------------------------------------------------------- detection */
static PetscErrorCode MfadContactPush_Private(MfadContact C, PetscBool pt, const PetscInt gv[4], const PetscReal *par)
{
  PetscInt   *n = pt ? &C->npt : &C->nee, *cap = pt ? &C->cappt : &C->capee, np = pt ? MFAD_IPC_PT_PARAMS : MFAD_IPC_EE_PARAMS;
  PetscInt  **conn = pt ? &C->ptconn : &C->eeconn;
  PetscReal **par0 = pt ? &C->ptpar : &C->eepar;

  PetscFunctionBegin;
  if (*n == *cap) {
    *cap = PetscMax(256, 2 * *cap);
    PetscCall(PetscRealloc(4 * (size_t)*cap * sizeof(PetscInt), conn));
    PetscCall(PetscRealloc((size_t)np * *cap * sizeof(PetscReal), par0));
  }
  PetscCall(PetscArraycpy(&(*conn)[4 * *n], gv, 4));
  PetscCall(PetscArraycpy(&(*par0)[np * *n], par, np));
  (*n)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadContactDetect(MfadContact C, const PetscReal x[])
{
  MfadContactWork W;
  MfadPairList    PT = {0, 0, NULL}, EE = {0, 0, NULL};
  PetscReal      *pbox, *tbox, *ebox, dhat2;
  PetscMPIInt     rank;

  PetscFunctionBegin;
  PetscCheck(C && C->surface_set, PETSC_COMM_SELF, PETSC_ERR_ORDER, "MfadContactDetect: call MfadContactSetSurface() first");
  PetscCheck(C->dhat > 0.0, PETSC_COMM_SELF, PETSC_ERR_ORDER, "MfadContactDetect: call MfadContactSetBarrier() first (dhat)");
  PetscCall(MfadContactCheckCoordinates_Private(C, x, "coordinate"));
  PetscCallMPI(MPI_Comm_rank(C->comm, &rank));
  dhat2 = C->dhat * C->dhat;
  /* a point within dhat of a triangle: the point's box padded by dhat meets the triangle's;
     two edges within dhat: their boxes padded by dhat / 2 meet */
  PetscCall(PetscLogEventBegin(MFAD_ContactDetect, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(MFAD_ContactExchange, 0, 0, 0, 0));
  PetscCall(MfadContactWorkCreate_Private(C, x, NULL, C->dhat, 0.5 * C->dhat, &W));
  PetscCall(PetscLogEventEnd(MFAD_ContactExchange, 0, 0, 0, 0));
  PetscCall(MfadContactBoxes_Private(&W, C->dhat, 0.5 * C->dhat, &pbox, &tbox, &ebox));
  PetscCall(PetscLogEventBegin(MFAD_ContactBroad, 0, 0, 0, 0));
  PetscCall(MfadBroadPhase_Private(W.np, pbox, W.nt, tbox, W.ne, ebox, C->dhat, &PT, &EE));
  PetscCall(PetscLogEventEnd(MFAD_ContactBroad, 0, 0, 0, 0));
  PetscCall(PetscFree3(pbox, tbox, ebox));
  /* narrow phase: the distance type and distance of every candidate, in threads (into type[], -1:
     not this rank's, sharing a vertex or beyond dhat); then the pairs in candidate order */
  C->npt = C->nee = 0;
  C->dmin         = dhat2;
  {
    const PetscInt n   = PT.n + EE.n;
    const int      nth = MfadContactThreads_Private(n);
    signed char   *type;
    PetscInt       bad  = PETSC_MAX_INT;
    PetscReal      dmin = dhat2;
    PetscCall(PetscMalloc1(n, &type));
#pragma omp parallel for num_threads(nth) schedule(static) reduction(min : bad, dmin)
    for (PetscInt k = 0; k < n; k++) {
      const PetscBool pt = (PetscBool)(k < PT.n);
      const PetscInt  i = pt ? PT.ij[2 * k] : EE.ij[2 * (k - PT.n)], j = pt ? PT.ij[2 * k + 1] : EE.ij[2 * (k - PT.n) + 1];
      PetscInt        v[4];
      PetscReal       x12[12], d2;
      int             t;
      type[k] = -1;
      if (pt) v[0] = W.p[i], v[1] = W.t[3 * j], v[2] = W.t[3 * j + 1], v[3] = W.t[3 * j + 2];
      else v[0] = W.e[2 * i], v[1] = W.e[2 * i + 1], v[2] = W.e[2 * j], v[3] = W.e[2 * j + 1];
      if (!(pt ? MfadPairMine_Private(W.prank, i, W.trank, j, rank) : MfadPairMine_Private(W.erank, i, W.erank, j, rank)) ||
          MfadShareVertex_Private(&W, v, pt ? 1 : 2))
        continue;
      MfadGather_Private(&W, v, x12, NULL);
      t  = pt ? mfad_ipc_pt_type(x12) : mfad_ipc_ee_type(x12);
      d2 = pt ? mfad_ipc_pt_distance2(t, x12) : mfad_ipc_ee_distance2(t, x12);
      if (!(d2 >= 0.0)) bad = PetscMin(bad, k); /* NaN: a degenerate triangle or edge */
      else if (d2 < dhat2) type[k] = (signed char)t, dmin = PetscMin(dmin, d2);
    }
    if (bad != PETSC_MAX_INT) {
      const PetscBool pt = (PetscBool)(bad < PT.n);
      const PetscInt  i = pt ? PT.ij[2 * bad] : EE.ij[2 * (bad - PT.n)], j = pt ? PT.ij[2 * bad + 1] : EE.ij[2 * (bad - PT.n) + 1];
      PetscCall(PetscFree(type));
      if (pt)
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                "MfadContactDetect: point %" PetscInt_FMT " and triangle (%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT
                ") have no distance: a degenerate triangle?",
                W.gid[W.p[i]], W.gid[W.t[3 * j]], W.gid[W.t[3 * j + 1]], W.gid[W.t[3 * j + 2]]);
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
              "MfadContactDetect: edges (%" PetscInt_FMT " %" PetscInt_FMT ") and (%" PetscInt_FMT " %" PetscInt_FMT
              ") have no distance: a zero-length edge?",
              W.gid[W.e[2 * i]], W.gid[W.e[2 * i + 1]], W.gid[W.e[2 * j]], W.gid[W.e[2 * j + 1]]);
    }
    C->dmin = dmin;
    for (PetscInt k = 0; k < n; k++) {
      const PetscBool pt = (PetscBool)(k < PT.n);
      const PetscInt  i = pt ? PT.ij[2 * k] : EE.ij[2 * (k - PT.n)], j = pt ? PT.ij[2 * k + 1] : EE.ij[2 * (k - PT.n) + 1];
      PetscInt        gv[4];
      PetscReal       par[MFAD_IPC_EE_PARAMS];
      if (type[k] < 0) continue;
      if (pt) gv[0] = W.gid[W.p[i]], gv[1] = W.gid[W.t[3 * j]], gv[2] = W.gid[W.t[3 * j + 1]], gv[3] = W.gid[W.t[3 * j + 2]];
      else gv[0] = W.gid[W.e[2 * i]], gv[1] = W.gid[W.e[2 * i + 1]], gv[2] = W.gid[W.e[2 * j]], gv[3] = W.gid[W.e[2 * j + 1]];
      /* IPC's mollifier threshold from the rest lengths: eps_x = 1e-3 |a|^2 |b|^2 */
      par[0] = type[k], par[1] = dhat2, par[2] = C->kappa, par[3] = (!pt && W.erest2) ? 1e-3 * W.erest2[i] * W.erest2[j] : 0.0;
      PetscCall(MfadContactPush_Private(C, pt, gv, par));
    }
    PetscCall(PetscFree(type));
  }
  PetscCall(PetscFree(PT.ij));
  PetscCall(PetscFree(EE.ij));
  PetscCall(MfadContactWorkDestroy_Private(&W));
  PetscCall(PetscLogEventEnd(MFAD_ContactDetect, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadContactGetPairs(MfadContact C, MfadContactKind kind, PetscInt *n, const PetscInt *conn[], const PetscReal *params[])
{
  PetscFunctionBegin;
  PetscCheck(C, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadContactGetPairs: NULL contact");
  PetscCheck(kind == MFAD_CONTACT_POINT_TRIANGLE || kind == MFAD_CONTACT_EDGE_EDGE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "MfadContactGetPairs: unknown kind %d", (int)kind);
  if (n) *n = kind == MFAD_CONTACT_POINT_TRIANGLE ? C->npt : C->nee;
  if (conn) *conn = kind == MFAD_CONTACT_POINT_TRIANGLE ? C->ptconn : C->eeconn;
  if (params) *params = kind == MFAD_CONTACT_POINT_TRIANGLE ? C->ptpar : C->eepar;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadContactGetMinimumDistance(MfadContact C, PetscReal *d)
{
  PetscReal m;

  PetscFunctionBegin;
  PetscCheck(C && d, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadContactGetMinimumDistance: NULL argument");
  PetscCall(MPIU_Allreduce(&C->dmin, &m, 1, MPIU_REAL, MPIU_MIN, C->comm));
  *d = PetscSqrtReal(m);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- step bound */
/* Additive CCD (Li, Kaufman & Jiang 2021, "Codimensional Incremental Potential Contact", ACM TOG
   40(4), Algorithm 1), thickness 0: with the relative motion bounded by lp (the largest
   displacement on each side, relative to the pair's mean displacement), advancing t by
   0.9 d(t) / lp can never close the gap d(t); the advance stops once the distance has fallen below
   0.1 d(0). Returns the time reached (1: no contact within the step). Conservative by
   construction whatever the iteration count, so a cap only makes it more so. */
static PetscReal MfadAdditiveCCD_Private(PetscBool pt, const PetscReal x0[12], const PetscReal dx[12])
{
  const PetscReal s = 0.1;
  PetscReal       p[12], mean[3] = {0, 0, 0}, len[4], lp, x[12], d, g, t = 0.0, tl;

  for (int a = 0; a < 4; a++)
    for (int k = 0; k < 3; k++) mean[k] += 0.25 * dx[3 * a + k];
  for (int a = 0; a < 4; a++) {
    for (int k = 0; k < 3; k++) p[3 * a + k] = dx[3 * a + k] - mean[k];
    len[a] = PetscSqrtReal(p[3 * a] * p[3 * a] + p[3 * a + 1] * p[3 * a + 1] + p[3 * a + 2] * p[3 * a + 2]);
  }
  lp = pt ? len[0] + PetscMax(len[1], PetscMax(len[2], len[3])) : PetscMax(len[0], len[1]) + PetscMax(len[2], len[3]);
  if (!(lp > 0.0)) return 1.0; /* no relative motion */
  for (int i = 0; i < 12; i++) x[i] = x0[i];
  d = PetscSqrtReal(pt ? mfad_ipc_pt_distance2(mfad_ipc_pt_type(x), x) : mfad_ipc_ee_distance2(mfad_ipc_ee_type(x), x));
  if (!(d > 0.0)) return 0.0; /* touching already */
  g  = s * d;
  tl = (1.0 - s) * d / lp;
  for (int it = 0; it < 1000000; it++) {
    for (int i = 0; i < 12; i++) x[i] += tl * p[i];
    d = PetscSqrtReal(pt ? mfad_ipc_pt_distance2(mfad_ipc_pt_type(x), x) : mfad_ipc_ee_distance2(mfad_ipc_ee_type(x), x));
    if (t > 0.0 && d < g) break;
    t += tl;
    if (t >= 1.0) return 1.0;
    tl = 0.9 * d / lp;
  }
  return t;
}

PetscErrorCode MfadContactStepBound(MfadContact C, const PetscReal x[], const PetscReal dx[], PetscReal *alpha)
{
  MfadContactWork W;
  MfadPairList    PT = {0, 0, NULL}, EE = {0, 0, NULL};
  PetscReal      *pbox, *tbox, *ebox, a = 1.0;
  PetscMPIInt     rank;

  PetscFunctionBegin;
  PetscCheck(C && C->surface_set, PETSC_COMM_SELF, PETSC_ERR_ORDER, "MfadContactStepBound: call MfadContactSetSurface() first");
  PetscCheck(alpha, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadContactStepBound: alpha is NULL");
  PetscCall(MfadContactCheckCoordinates_Private(C, x, "coordinate"));
  PetscCall(MfadContactCheckCoordinates_Private(C, dx, "step"));
  PetscCallMPI(MPI_Comm_rank(C->comm, &rank));
  /* pairs that can meet during the step: their boxes swept from x to x + dx overlap */
  PetscCall(PetscLogEventBegin(MFAD_ContactStepBound, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(MFAD_ContactExchange, 0, 0, 0, 0));
  PetscCall(MfadContactWorkCreate_Private(C, x, dx, 0.0, 0.0, &W));
  PetscCall(PetscLogEventEnd(MFAD_ContactExchange, 0, 0, 0, 0));
  PetscCall(MfadContactBoxes_Private(&W, 0.0, 0.0, &pbox, &tbox, &ebox));
  PetscCall(PetscLogEventBegin(MFAD_ContactBroad, 0, 0, 0, 0));
  PetscCall(MfadBroadPhase_Private(W.np, pbox, W.nt, tbox, W.ne, ebox, 0.0, &PT, &EE));
  PetscCall(PetscLogEventEnd(MFAD_ContactBroad, 0, 0, 0, 0));
  PetscCall(PetscFree3(pbox, tbox, ebox));
  { /* each candidate's additive CCD, in threads; the minimum does not depend on their order */
    const PetscInt n = PT.n + EE.n;
#pragma omp parallel for num_threads(MfadContactThreads_Private(n)) schedule(dynamic, 1024) reduction(min : a)
    for (PetscInt k = 0; k < n; k++) {
      const PetscBool pt = (PetscBool)(k < PT.n);
      const PetscInt  i = pt ? PT.ij[2 * k] : EE.ij[2 * (k - PT.n)], j = pt ? PT.ij[2 * k + 1] : EE.ij[2 * (k - PT.n) + 1];
      PetscInt        v[4];
      PetscReal       x12[12], dx12[12];
      if (pt) v[0] = W.p[i], v[1] = W.t[3 * j], v[2] = W.t[3 * j + 1], v[3] = W.t[3 * j + 2];
      else v[0] = W.e[2 * i], v[1] = W.e[2 * i + 1], v[2] = W.e[2 * j], v[3] = W.e[2 * j + 1];
      if (!(pt ? MfadPairMine_Private(W.prank, i, W.trank, j, rank) : MfadPairMine_Private(W.erank, i, W.erank, j, rank)) ||
          MfadShareVertex_Private(&W, v, pt ? 1 : 2))
        continue;
      MfadGather_Private(&W, v, x12, dx12);
      a = PetscMin(a, MfadAdditiveCCD_Private(pt, x12, dx12));
    }
  }
  PetscCall(PetscFree(PT.ij));
  PetscCall(PetscFree(EE.ij));
  PetscCall(MfadContactWorkDestroy_Private(&W));
  PetscCall(PetscLogEventEnd(MFAD_ContactStepBound, 0, 0, 0, 0));
  PetscCall(MPIU_Allreduce(&a, alpha, 1, MPIU_REAL, MPIU_MIN, C->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
