// SPDX-License-Identifier: BSD-2-Clause
/* Contact detection and the continuous-collision step bound for the IPC barrier energies
   (energies/ipc_point_triangle.c, energies/ipc_edge_edge.c; distances in include/mfad/contact.h):
   the API, the narrow phase (each candidate's distance type and distance) and the additive CCD.
   Candidates come from src/contactgrid.c (hashed grid; on several ranks, with copies of the other
   ranks' primitives near this rank's part). A pair of a local primitive and one received from
   rank r is found on both ranks and kept by one, chosen from the pair's vertex ids. */
#include <stdlib.h>
#include "contactimpl.h"

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

/* ---------------------------------------------------------------- set-up */
PetscErrorCode MfadContactCreate(MPI_Comm comm, MfadContact *C)
{
  PetscFunctionBegin;
  MfadValidPointer(C, 2);
  PetscCall(MfadContactRegisterEvents_Private());
  PetscCall(PetscNew(C));
  (*C)->comm  = comm;
  (*C)->refct = 1;
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
  if (--(*C)->refct > 0) { /* an energy still holds it */
    *C = NULL;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MfadContactClearSurface_Private(*C));
  PetscCall(PetscFree((*C)->ptconn));
  PetscCall(PetscFree((*C)->eeconn));
  PetscCall(PetscFree((*C)->ptpar));
  PetscCall(PetscFree((*C)->eepar));
  PetscCall(MfadBroadScratchDestroy_Private(&(*C)->broad));
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

/* a pair of primitives owned by ranks ra and rb is this rank's if it is the one of the two that
   the parity of the pair's global vertex ids picks (both ranks compute the same choice; the lower
   rank always would pile the cross-rank pairs of a round-robin partition on rank 0) */
static inline PetscBool MfadPairMine_Private(const MfadContactWork *W, const PetscMPIInt *ra, PetscInt i, const PetscMPIInt *rb, PetscInt j,
                                             const PetscInt v[4], PetscMPIInt rank)
{
  if (!ra) return PETSC_TRUE; /* one rank */
  if (ra[i] == rb[j]) return (PetscBool)(ra[i] == rank);
  return (PetscBool)(((W->gid[v[0]] + W->gid[v[1]] + W->gid[v[2]] + W->gid[v[3]]) & 1 ? PetscMax(ra[i], rb[j]) : PetscMin(ra[i], rb[j])) == rank);
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
  MfadPairList    PT, EE;
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
  PetscCall(MfadContactBoxes_Private(&C->broad, &W, C->dhat, 0.5 * C->dhat, &pbox, &tbox, &ebox));
  PetscCall(PetscLogEventBegin(MFAD_ContactBroad, 0, 0, 0, 0));
  PetscCall(MfadBroadPhase_Private(&C->broad, W.np, pbox, W.nt, tbox, W.ne, ebox, C->dhat));
  PetscCall(PetscLogEventEnd(MFAD_ContactBroad, 0, 0, 0, 0));
  PT = C->broad.PT, EE = C->broad.EE; /* borrowed */
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
      if (!(pt ? MfadPairMine_Private(&W, W.prank, i, W.trank, j, v, rank) : MfadPairMine_Private(&W, W.erank, i, W.erank, j, v, rank)) ||
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
      par[0] = type[k], par[1] = dhat2, par[2] = C->kappa, par[3] = (!pt && W.erest2) ? 1e-3 * (W.erest2[i] * W.erest2[j]) : 0.0;
      PetscCall(MfadContactPush_Private(C, pt, gv, par));
    }
    PetscCall(PetscFree(type));
  }
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
  MfadPairList    PT, EE;
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
  PetscCall(MfadContactBoxes_Private(&C->broad, &W, 0.0, 0.0, &pbox, &tbox, &ebox));
  PetscCall(PetscLogEventBegin(MFAD_ContactBroad, 0, 0, 0, 0));
  PetscCall(MfadBroadPhase_Private(&C->broad, W.np, pbox, W.nt, tbox, W.ne, ebox, 0.0));
  PetscCall(PetscLogEventEnd(MFAD_ContactBroad, 0, 0, 0, 0));
  PT = C->broad.PT, EE = C->broad.EE; /* borrowed */
  {                                   /* each candidate's additive CCD, in threads; the minimum does not depend on their order */
    const PetscInt n = PT.n + EE.n;
#pragma omp parallel for num_threads(MfadContactThreads_Private(n)) schedule(dynamic, 1024) reduction(min : a)
    for (PetscInt k = 0; k < n; k++) {
      const PetscBool pt = (PetscBool)(k < PT.n);
      const PetscInt  i = pt ? PT.ij[2 * k] : EE.ij[2 * (k - PT.n)], j = pt ? PT.ij[2 * k + 1] : EE.ij[2 * (k - PT.n) + 1];
      PetscInt        v[4];
      PetscReal       x12[12], dx12[12];
      if (pt) v[0] = W.p[i], v[1] = W.t[3 * j], v[2] = W.t[3 * j + 1], v[3] = W.t[3 * j + 2];
      else v[0] = W.e[2 * i], v[1] = W.e[2 * i + 1], v[2] = W.e[2 * j], v[3] = W.e[2 * j + 1];
      if (!(pt ? MfadPairMine_Private(&W, W.prank, i, W.trank, j, v, rank) : MfadPairMine_Private(&W, W.erank, i, W.erank, j, v, rank)) ||
          MfadShareVertex_Private(&W, v, pt ? 1 : 2))
        continue;
      MfadGather_Private(&W, v, x12, dx12);
      a = PetscMin(a, MfadAdditiveCCD_Private(pt, x12, dx12));
    }
  }
  PetscCall(MfadContactWorkDestroy_Private(&W));
  PetscCall(PetscLogEventEnd(MFAD_ContactStepBound, 0, 0, 0, 0));
  PetscCall(MPIU_Allreduce(&a, alpha, 1, MPIU_REAL, MPIU_MIN, C->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
