// SPDX-License-Identifier: BSD-2-Clause
/* Contact detection and step bound on several ranks agree with one rank: each rank holds a part
   of the surface (its triangles, edges and points, vertices numbered locally with global ids);
   the pairs all ranks find together are exactly the pairs one rank finds over the whole surface
   (same vertices, same distance type, bitwise the same mollifier threshold eps_x), each on one rank
   only; the step bound and the minimum
   distance are the same. Surfaces: a random triangle soup dealt round-robin (nearly every pair
   crosses ranks) and Spot (tests/meshes/spot.obj) cut into slabs along x (pairs cross at the cuts).
   A NaN coordinate on one rank is an error on every rank. Exits non-zero with a message on the first disagreement. */
#include <mfadmesh.h>
#include <mfad/contact.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  PetscInt v[4], type;
  PetscInt e[2]; /* the bits of an edge-edge pair's eps_x (0 for point-triangle) */
} Pair;

static int PairCompare(const void *a, const void *b)
{
  const Pair *x = (const Pair *)a, *y = (const Pair *)b;
  for (int i = 0; i < 4; i++)
    if (x->v[i] != y->v[i]) return x->v[i] < y->v[i] ? -1 : 1;
  if (x->type != y->type) return x->type < y->type ? -1 : 1;
  for (int i = 0; i < 2; i++)
    if (x->e[i] != y->e[i]) return x->e[i] < y->e[i] ? -1 : 1;
  return 0;
}

/* an edge-edge pair with its edges in a canonical order (the types named for a and b swap too) */
static void CanonicalEdgeEdge(Pair *p)
{
  static const PetscInt swap[MFAD_EE_NTYPES] = {MFAD_EE_A0_B0, MFAD_EE_A1_B0, MFAD_EE_A0_B1, MFAD_EE_A1_B1, MFAD_EE_A0_B,
                                                MFAD_EE_A1_B,  MFAD_EE_A_B0,  MFAD_EE_A_B1,  MFAD_EE_A_B};
  if (p->v[0] < p->v[2] || (p->v[0] == p->v[2] && p->v[1] < p->v[3])) return;
  for (int i = 0; i < 2; i++) {
    PetscInt t  = p->v[i];
    p->v[i]     = p->v[2 + i];
    p->v[2 + i] = t;
  }
  p->type = 100 + swap[p->type - 100];
}

static PetscErrorCode Pairs(MfadContact C, PetscInt *n, Pair **P)
{
  PetscInt         npt, nee;
  const PetscInt  *cpt, *cee;
  const PetscReal *ppt, *pee;

  PetscFunctionBeginUser;
  PetscCall(MfadContactGetPairs(C, MFAD_CONTACT_POINT_TRIANGLE, &npt, &cpt, &ppt));
  PetscCall(MfadContactGetPairs(C, MFAD_CONTACT_EDGE_EDGE, &nee, &cee, &pee));
  *n = npt + nee;
  PetscCall(PetscMalloc1(*n + 1, P));
  for (PetscInt i = 0; i < npt; i++) {
    PetscCall(PetscArraycpy((*P)[i].v, &cpt[4 * i], 4));
    (*P)[i].type = (PetscInt)ppt[MFAD_IPC_PT_PARAMS * i];
    (*P)[i].e[0] = (*P)[i].e[1] = 0;
  }
  for (PetscInt i = 0; i < nee; i++) {
    Pair *p = &(*P)[npt + i];
    PetscCall(PetscArraycpy(p->v, &cee[4 * i], 4));
    p->type = 100 + (PetscInt)pee[MFAD_IPC_EE_PARAMS * i];
    p->e[0] = p->e[1] = 0;
    memcpy(p->e, &pee[MFAD_IPC_EE_PARAMS * i + 3], sizeof(PetscReal));
    CanonicalEdgeEdge(p);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The surface (nv vertices X, triangles, edges, points; each primitive given an owner rank) on
   comm against one rank; dhat the detection distance, dX a step for the step bound. */
static PetscErrorCode Compare(MPI_Comm comm, const char *what, PetscInt nv, const PetscReal *X, const PetscReal *dX, PetscInt ntri,
                              const PetscInt *tri, const int *trank, PetscInt nedge, const PetscInt *edge, const int *erank, const int *prank,
                              PetscReal dhat)
{
  PetscMPIInt  rank, size;
  PetscInt    *l2g, *g2l, nl = 0, nt = 0, ne = 0, np = 0, *lt, *le, *lp, n, *counts = NULL, *displs = NULL, nall = 0;
  PetscReal   *lx, *ldx, alpha, alpha1 = 0, dmin, dmin1 = 0;
  MfadContact  C;
  Pair        *P, *all = NULL;
  MPI_Datatype pairtype;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  /* this rank's primitives over its own vertex numbering */
  PetscCall(PetscMalloc2(nv, &g2l, nv, &l2g));
  for (PetscInt v = 0; v < nv; v++) g2l[v] = -1;
#define LOCAL(g) (g2l[g] < 0 ? (l2g[nl] = (g), g2l[g] = nl++) : g2l[g])
  PetscCall(PetscMalloc3(3 * ntri, &lt, 2 * nedge, &le, nv, &lp));
  for (PetscInt t = 0; t < ntri; t++)
    if (trank[t] == rank) {
      for (int a = 0; a < 3; a++) lt[3 * nt + a] = LOCAL(tri[3 * t + a]);
      nt++;
    }
  for (PetscInt e = 0; e < nedge; e++)
    if (erank[e] == rank) {
      for (int a = 0; a < 2; a++) le[2 * ne + a] = LOCAL(edge[2 * e + a]);
      ne++;
    }
  for (PetscInt v = 0; v < nv; v++)
    if (prank[v] == rank) lp[np++] = LOCAL(v);
#undef LOCAL
  PetscCall(PetscMalloc2(3 * nl, &lx, 3 * nl, &ldx));
  for (PetscInt i = 0; i < nl; i++)
    for (int d = 0; d < 3; d++) lx[3 * i + d] = X[3 * l2g[i] + d], ldx[3 * i + d] = dX[3 * l2g[i] + d];

  PetscCall(MfadContactCreate(comm, &C));
  PetscCall(MfadContactSetSurface(C, nl, l2g, nt, lt, ne, le, np, lp));
  PetscCall(MfadContactSetBarrier(C, dhat, 1.0));
  PetscCall(MfadContactSetRestCoordinates(C, lx)); /* eps_x of the pairs compared too */
  PetscCall(MfadContactDetect(C, lx));
  PetscCall(MfadContactGetMinimumDistance(C, &dmin));
  PetscCall(MfadContactStepBound(C, lx, ldx, &alpha));
  PetscCall(Pairs(C, &n, &P));
  PetscCall(MfadContactDestroy(&C));

  /* all pairs on rank 0 */
  PetscCallMPI(MPI_Type_contiguous(7, MPIU_INT, &pairtype));
  PetscCallMPI(MPI_Type_commit(&pairtype));
  if (!rank) PetscCall(PetscMalloc2(size, &counts, size, &displs));
  {
    PetscMPIInt nn = (PetscMPIInt)n, *cnt = NULL, *dsp = NULL;
    if (!rank) PetscCall(PetscMalloc2(size, &cnt, size, &dsp));
    PetscCallMPI(MPI_Gather(&nn, 1, MPI_INT, cnt, 1, MPI_INT, 0, comm));
    if (!rank) {
      for (PetscMPIInt q = 0; q < size; q++) dsp[q] = (PetscMPIInt)nall, nall += cnt[q];
      PetscCall(PetscMalloc1(nall + 1, &all));
    }
    PetscCallMPI(MPI_Gatherv(P, nn, pairtype, all, cnt, dsp, pairtype, 0, comm));
    if (!rank) PetscCall(PetscFree2(cnt, dsp));
  }
  PetscCallMPI(MPI_Type_free(&pairtype));

  if (!rank) { /* the whole surface on one rank, the same primitives */
    PetscInt *pts, n1;
    Pair     *P1;
    PetscCall(PetscMalloc1(nv, &pts));
    for (PetscInt v = 0; v < nv; v++) pts[v] = v;
    PetscCall(MfadContactCreate(PETSC_COMM_SELF, &C));
    PetscCall(MfadContactSetSurface(C, nv, NULL, ntri, tri, nedge, edge, nv, pts));
    PetscCall(MfadContactSetBarrier(C, dhat, 1.0));
    PetscCall(MfadContactSetRestCoordinates(C, X));
    PetscCall(MfadContactDetect(C, X));
    PetscCall(MfadContactGetMinimumDistance(C, &dmin1));
    PetscCall(MfadContactStepBound(C, X, dX, &alpha1));
    PetscCall(Pairs(C, &n1, &P1));
    PetscCall(MfadContactDestroy(&C));
    qsort(all, nall, sizeof(Pair), PairCompare);
    qsort(P1, n1, sizeof(Pair), PairCompare);
    PetscCheck(nall == n1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %d ranks find %" PetscInt_FMT " pairs, one rank %" PetscInt_FMT, what, (int)size,
               nall, n1);
    for (PetscInt i = 0; i < n1; i++)
      PetscCheck(!PairCompare(&all[i], &P1[i]), PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "%s: pair %" PetscInt_FMT " on %d ranks is (%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT
                 ") type %" PetscInt_FMT ", on one (%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT ") type %" PetscInt_FMT,
                 what, i, (int)size, all[i].v[0], all[i].v[1], all[i].v[2], all[i].v[3], all[i].type, P1[i].v[0], P1[i].v[1], P1[i].v[2], P1[i].v[3],
                 P1[i].type);
    PetscCheck(n1 > 100, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: only %" PetscInt_FMT " pairs: too easy a test", what, n1);
    PetscCheck(PetscAbsReal(dmin - dmin1) <= 1e-12 * dmin1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: minimum distance %.17g on %d ranks, %.17g on one",
               what, (double)dmin, (int)size, (double)dmin1);
    /* each pair's additive CCD is the same arithmetic whichever rank runs it, up to the order of an
       edge-edge pair's edges (its distance's round-off): 1e-12 relative */
    PetscCheck(PetscAbsReal(alpha - alpha1) <= 1e-12 * alpha1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: step bound %.17g on %d ranks, %.17g on one",
               what, (double)alpha, (int)size, (double)alpha1);
    PetscCheck(alpha1 > 0.0 && alpha1 < 1.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: step bound %g: expected a step that some pair limits", what,
               (double)alpha1);
    PetscCall(PetscFree(pts));
    PetscCall(PetscFree(P1));
    PetscCall(PetscFree(all));
    PetscCall(PetscFree2(counts, displs));
  }
  PetscCall(PetscFree(P));
  PetscCall(PetscFree2(lx, ldx));
  PetscCall(PetscFree3(lt, le, lp));
  PetscCall(PetscFree2(g2l, l2g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int EdgeCompare(const void *a, const void *b)
{
  const PetscInt *x = (const PetscInt *)a, *y = (const PetscInt *)b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

/* the triangles' edges, each once, as (lo, hi) */
static PetscErrorCode Edges(PetscInt ntri, const PetscInt *tri, PetscInt *nedge, PetscInt **edge)
{
  PetscInt *e, n = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(6 * ntri, &e));
  for (PetscInt t = 0; t < ntri; t++)
    for (int a = 0; a < 3; a++) {
      const PetscInt u = tri[3 * t + a], w = tri[3 * t + (a + 1) % 3];
      e[2 * n] = PetscMin(u, w), e[2 * n + 1] = PetscMax(u, w), n++;
    }
  qsort(e, n, 2 * sizeof(PetscInt), EdgeCompare);
  *nedge = 0;
  for (PetscInt i = 0; i < n; i++)
    if (!*nedge || EdgeCompare(&e[2 * i], &e[2 * (*nedge - 1)])) e[2 * *nedge] = e[2 * i], e[2 * *nedge + 1] = e[2 * i + 1], (*nedge)++;
  *edge = e;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static unsigned long long Rng = 777;
static PetscReal          Uniform(PetscReal a, PetscReal b)
{
  Rng = Rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return a + (b - a) * ((PetscReal)(Rng >> 11) / 9007199254740992.0);
}

int main(int argc, char **argv)
{
  PetscMPIInt size;
  char        path[PETSC_MAX_PATH_LEN] = MFAD_TEST_MESHES "/spot.obj";

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  { /* random soup, everything dealt round-robin */
    const PetscInt ntri = 400, nv = 1200;
    PetscReal     *X, *dX;
    PetscInt      *tri, nedge, *edge;
    int           *tr, *er, *pr;
    PetscCall(PetscMalloc5(3 * nv, &X, 3 * nv, &dX, 3 * ntri, &tri, ntri, &tr, nv, &pr));
    for (PetscInt t = 0; t < ntri; t++) {
      PetscReal c[3];
      for (int d = 0; d < 3; d++) c[d] = Uniform(0, 1);
      for (int a = 0; a < 3; a++) {
        tri[3 * t + a] = 3 * t + a;
        for (int d = 0; d < 3; d++) X[9 * t + 3 * a + d] = c[d] + Uniform(-0.06, 0.06);
      }
      tr[t] = (int)(t % size);
    }
    for (PetscInt i = 0; i < 3 * nv; i++) dX[i] = Uniform(-0.1, 0.1);
    for (PetscInt v = 0; v < nv; v++) pr[v] = (int)((v / 2) % size);
    PetscCall(Edges(ntri, tri, &nedge, &edge));
    PetscCall(PetscMalloc1(nedge, &er));
    for (PetscInt e = 0; e < nedge; e++) er[e] = (int)((e * 7) % size);
    PetscCall(Compare(PETSC_COMM_WORLD, "random soup", nv, X, dX, ntri, tri, tr, nedge, edge, er, pr, 0.04));
    PetscCall(PetscFree5(X, dX, tri, tr, pr));
    PetscCall(PetscFree(edge));
    PetscCall(PetscFree(er));
  }
  { /* Spot in slabs along x: a primitive goes to the slab of its first vertex */
    MfadMesh   m;
    PetscInt   nedge, *edge;
    int       *tr, *er, *pr;
    PetscReal *dX, lo = PETSC_MAX_REAL, hi = PETSC_MIN_REAL, l = 0;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-mesh", path, sizeof(path), NULL));
    PetscCall(MfadMeshReadOBJ(path, &m));
    for (PetscInt v = 0; v < m->nvert; v++) lo = PetscMin(lo, m->coords[3 * v]), hi = PetscMax(hi, m->coords[3 * v]);
    for (PetscInt t = 0; t < m->ncell; t++) l += PetscSqrtReal(mfad_ipc_pp2(&m->coords[3 * m->cells[3 * t]], &m->coords[3 * m->cells[3 * t + 1]]));
    l /= m->ncell;
    PetscCall(Edges(m->ncell, m->cells, &nedge, &edge));
    PetscCall(PetscMalloc4(m->ncell, &tr, nedge, &er, m->nvert, &pr, 3 * m->nvert, &dX));
#define SLAB(v) PetscMin(size - 1, (int)(size * (m->coords[3 * (v)] - lo) / (hi - lo)))
    for (PetscInt t = 0; t < m->ncell; t++) tr[t] = SLAB(m->cells[3 * t]);
    for (PetscInt e = 0; e < nedge; e++) er[e] = SLAB(edge[2 * e]);
    for (PetscInt v = 0; v < m->nvert; v++) pr[v] = SLAB(v);
#undef SLAB
    /* each vertex moves by up to 2 mean edge lengths: some pairs meet within the step */
    for (PetscInt i = 0; i < 3 * m->nvert; i++) dX[i] = Uniform(-2 * l, 2 * l);
    PetscCall(Compare(PETSC_COMM_WORLD, "spot.obj", m->nvert, m->coords, dX, m->ncell, m->cells, tr, nedge, edge, er, pr, l));
    PetscCall(PetscFree4(tr, er, pr, dX));
    PetscCall(PetscFree(edge));
    PetscCall(MfadMeshDestroy(&m));
  }
  { /* a NaN on the last rank only: every rank returns the error (none waits in the exchange) */
    PetscMPIInt    rank;
    PetscReal      x[9]   = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const PetscInt tri[3] = {0, 1, 2}, edge[2] = {0, 1}, pt[1] = {2};
    PetscInt       gid[3];
    PetscErrorCode ierr;
    MfadContact    C;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    for (int a = 0; a < 3; a++) gid[a] = 3 * rank + a, x[3 * a + 2] = 0.1 * rank;
    if (rank == size - 1) x[4] = NAN;
    PetscCall(MfadContactCreate(PETSC_COMM_WORLD, &C));
    PetscCall(MfadContactSetSurface(C, 3, gid, 1, tri, 1, edge, 1, pt));
    PetscCall(MfadContactSetBarrier(C, 0.5, 1.0));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MfadContactDetect(C, x);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_FP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "rank %d: detection with a NaN on rank %d returned %d, expected PETSC_ERR_FP",
               (int)rank, (int)(size - 1), (int)ierr);
    PetscCall(MfadContactDestroy(&C));
  }
  PetscCall(PetscFinalize());
  return 0;
}
