// SPDX-License-Identifier: BSD-2-Clause
/* What mfad takes from a distributed DMPlex: vertices numbered as the partition owns them (the
   energy's layout: src/dmplexenergy.c), their coordinates, and element sets (cells, edges,
   interior edge pairs of triangles, one-rings) with every element on exactly one rank: the owner
   of its cell or edge. */
#include <petscsf.h>
#include "mfadmeshimpl.h"

const char *const MfadDMPlexSets[] = {"cells", "edges", "edge_pairs", "MfadDMPlexSet", "MFAD_DMPLEX_", NULL};

/* ---------------------------------------------------------------- numbering and ownership */

/* Vertex range, the DM's vertex numbering (owned: global id; not owned: -(id + 1)), owned count */
PetscErrorCode MfadDMPlexVertices_Private(DM dm, PetscInt *vStart, PetscInt *vEnd, const PetscInt **num, IS *is, PetscInt *nowned)
{
  PetscFunctionBegin;
  PetscCall(DMPlexGetDepthStratum(dm, 0, vStart, vEnd));
  PetscCall(DMPlexGetVertexNumbering(dm, is)); /* kept by the DM */
  PetscCall(ISGetIndices(*is, num));
  *nowned = 0;
  for (PetscInt v = 0; v < *vEnd - *vStart; v++) *nowned += (*num)[v] >= 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscInt MfadGlobalId_Private(PetscInt n) { return n >= 0 ? n : -(n + 1); }

/* owned[p - pStart]: whether this rank owns point p (it is not a leaf of the point SF) */
static PetscErrorCode MfadDMPlexOwned_Private(DM dm, PetscInt pStart, PetscInt pEnd, PetscBool **owned)
{
  PetscSF         sf;
  PetscInt        nroots, nleaves;
  const PetscInt *ilocal;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(pEnd - pStart, owned));
  for (PetscInt p = pStart; p < pEnd; p++) (*owned)[p - pStart] = PETSC_TRUE;
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, &nroots, &nleaves, &ilocal, NULL));
  for (PetscInt l = 0; l < PetscMax(nleaves, 0); l++) {
    const PetscInt p = ilocal ? ilocal[l] : l;
    if (p >= pStart && p < pEnd) (*owned)[p - pStart] = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* For each point p in [qStart, qEnd): glob[p - qStart] = how many points of its support are owned
   by some rank, summed over all ranks (each support point is owned once, so this is the global
   support size), valid where p is owned. A rank that sees fewer is missing part of the star. */
static PetscErrorCode MfadDMPlexGlobalSupportSize_Private(DM dm, PetscInt qStart, PetscInt qEnd, const PetscBool owned_all[], PetscInt pStart, PetscInt **glob)
{
  PetscSF  sf;
  PetscInt nroots, nleaves, chart0, chart1, *leaf, *root;

  PetscFunctionBegin;
  PetscCall(DMPlexGetChart(dm, &chart0, &chart1));
  PetscCall(PetscCalloc2(chart1 - chart0, &leaf, chart1 - chart0, &root));
  for (PetscInt q = qStart; q < qEnd; q++) {
    const PetscInt *supp;
    PetscInt        ns;
    PetscCall(DMPlexGetSupportSize(dm, q, &ns));
    PetscCall(DMPlexGetSupport(dm, q, &supp));
    for (PetscInt s = 0; s < ns; s++) leaf[q - chart0] += owned_all[supp[s] - pStart];
    root[q - chart0] = leaf[q - chart0];
  }
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, &nroots, &nleaves, NULL, NULL));
  if (nroots >= 0) { /* a graph is set (always when distributed) */
    PetscCall(PetscSFReduceBegin(sf, MPIU_INT, leaf, root, MPI_SUM));
    PetscCall(PetscSFReduceEnd(sf, MPIU_INT, leaf, root, MPI_SUM));
  }
  PetscCall(PetscMalloc1(qEnd - qStart, glob));
  for (PetscInt q = qStart; q < qEnd; q++) (*glob)[q - qStart] = root[q - chart0];
  PetscCall(PetscFree2(leaf, root));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- element sets */

typedef struct {
  DM                 dm;
  PetscInt           vStart, vEnd, cdim, nowned;
  const PetscInt    *num;
  IS                 is;
  PetscSection       cs;
  Vec                coords;
  const PetscScalar *c;
} MfadPlexCtx;

static PetscErrorCode MfadPlexCtxBegin_Private(DM dm, MfadPlexCtx *P)
{
  PetscFunctionBegin;
  P->dm = dm;
  PetscCall(MfadDMPlexVertices_Private(dm, &P->vStart, &P->vEnd, &P->num, &P->is, &P->nowned));
  PetscCall(DMGetCoordinateDim(dm, &P->cdim));
  PetscCall(DMGetCoordinateSection(dm, &P->cs));
  PetscCall(DMGetCoordinatesLocal(dm, &P->coords));
  PetscCall(VecGetArrayRead(P->coords, &P->c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadPlexCtxEnd_Private(MfadPlexCtx *P)
{
  PetscFunctionBegin;
  PetscCall(VecRestoreArrayRead(P->coords, &P->c));
  PetscCall(ISRestoreIndices(P->is, &P->num));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Writes element e's vertices (local points) as global ids and their coordinates */
static PetscErrorCode MfadPlexCtxPut_Private(const MfadPlexCtx *P, PetscInt e, PetscInt nv, const PetscInt pts[], PetscInt conn[], PetscReal rest[])
{
  PetscFunctionBegin;
  for (PetscInt a = 0; a < nv; a++) {
    PetscInt off;
    conn[e * nv + a] = MfadGlobalId_Private(P->num[pts[a] - P->vStart]);
    PetscCall(PetscSectionGetOffset(P->cs, pts[a], &off));
    for (PetscInt d = 0; d < P->cdim; d++) rest[(e * nv + a) * P->cdim + d] = PetscRealPart(P->c[off + d]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The vertices of cell c in its closure order (a triangle's orientation); at most 4 */
static PetscErrorCode MfadPlexCellVertices_Private(const MfadPlexCtx *P, PetscInt c, PetscInt *nv, PetscInt verts[4])
{
  PetscInt *pts = NULL, np;

  PetscFunctionBegin;
  *nv = 0;
  PetscCall(DMPlexGetTransitiveClosure(P->dm, c, PETSC_TRUE, &np, &pts));
  for (PetscInt i = 0; i < np; i++) {
    const PetscInt p = pts[2 * i];
    if (p < P->vStart || p >= P->vEnd) continue;
    if (*nv < 4) verts[*nv] = p;
    (*nv)++;
  }
  PetscCall(DMPlexRestoreTransitiveClosure(P->dm, c, PETSC_TRUE, &np, &pts));
  PetscCheck(*nv == 3 || *nv == 4, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMPlex cell %" PetscInt_FMT " has %" PetscInt_FMT " vertices: mfad takes triangles and tets", c, *nv);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadPlexCells_Private(const MfadPlexCtx *P, PetscInt *nelem, PetscInt *nvert, PetscInt **conn, PetscReal **rest)
{
  PetscInt   cStart, cEnd, n = 0, nv0 = 0;
  PetscBool *owned;

  PetscFunctionBegin;
  PetscCall(DMPlexGetHeightStratum(P->dm, 0, &cStart, &cEnd));
  PetscCall(MfadDMPlexOwned_Private(P->dm, cStart, cEnd, &owned));
  for (PetscInt c = cStart; c < cEnd; c++) n += owned[c - cStart];
  if (cEnd > cStart) {
    PetscInt verts[4];
    PetscCall(MfadPlexCellVertices_Private(P, cStart, &nv0, verts));
  }
  {
    /* ranks without cells still need the element size: the largest over the ranks */
    PetscInt nvg;
    PetscCall(MPIU_Allreduce(&nv0, &nvg, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)P->dm)));
    nv0 = nvg;
  }
  PetscCall(PetscMalloc1(n * nv0, conn));
  PetscCall(PetscMalloc1(n * nv0 * P->cdim, rest));
  n = 0;
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt verts[4], nv;
    if (!owned[c - cStart]) continue;
    PetscCall(MfadPlexCellVertices_Private(P, c, &nv, verts));
    PetscCheck(nv == nv0, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMPlex cell %" PetscInt_FMT " has %" PetscInt_FMT " vertices, others %" PetscInt_FMT ": mfad takes meshes of one cell kind", c, nv, nv0);
    PetscCall(MfadPlexCtxPut_Private(P, n, nv, verts, *conn, *rest));
    if (nv == 4 && P->cdim == 3) {
      /* positive orientation (the solid energies' convention): swap the last two if inverted */
      PetscReal *r = *rest + n * 12, d[3][3], vol;
      for (int a = 0; a < 3; a++)
        for (int i = 0; i < 3; i++) d[a][i] = r[3 * (a + 1) + i] - r[i];
      vol = d[0][0] * (d[1][1] * d[2][2] - d[1][2] * d[2][1]) - d[0][1] * (d[1][0] * d[2][2] - d[1][2] * d[2][0]) + d[0][2] * (d[1][0] * d[2][1] - d[1][1] * d[2][0]);
      if (vol < 0) {
        PetscInt t = verts[2];
        verts[2]   = verts[3];
        verts[3]   = t;
        PetscCall(MfadPlexCtxPut_Private(P, n, nv, verts, *conn, *rest));
      }
    }
    n++;
  }
  PetscCall(PetscFree(owned));
  *nelem = n;
  *nvert = nv0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadPlexEdges_Private(const MfadPlexCtx *P, PetscInt *nelem, PetscInt **conn, PetscReal **rest)
{
  PetscInt   eStart, eEnd, n = 0;
  PetscBool *owned;

  PetscFunctionBegin;
  PetscCall(DMPlexGetDepthStratum(P->dm, 1, &eStart, &eEnd));
  PetscCall(MfadDMPlexOwned_Private(P->dm, eStart, eEnd, &owned));
  for (PetscInt e = eStart; e < eEnd; e++) n += owned[e - eStart];
  PetscCall(PetscMalloc1(2 * n, conn));
  PetscCall(PetscMalloc1(2 * n * P->cdim, rest));
  n = 0;
  for (PetscInt e = eStart; e < eEnd; e++) {
    const PetscInt *cone;
    PetscInt        nc;
    if (!owned[e - eStart]) continue;
    PetscCall(DMPlexGetConeSize(P->dm, e, &nc));
    PetscCheck(nc == 2, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "DMPlex point %" PetscInt_FMT " of depth 1 has %" PetscInt_FMT " cone points, not an edge: interpolate the DM (DMPlexInterpolate)", e, nc);
    PetscCall(DMPlexGetCone(P->dm, e, &cone));
    PetscCall(MfadPlexCtxPut_Private(P, n++, 2, cone, *conn, *rest));
  }
  PetscCall(PetscFree(owned));
  *nelem = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Face f's vertex opposite edge {a, b}, with (e0, e1, o) a rotation of f's vertex order */
static PetscErrorCode MfadPlexHinge_Private(const MfadPlexCtx *P, PetscInt f, PetscInt a, PetscInt b, PetscInt h[3])
{
  PetscInt v[4], nv, k = -1;

  PetscFunctionBegin;
  PetscCall(MfadPlexCellVertices_Private(P, f, &nv, v));
  PetscCheck(nv == 3, PETSC_COMM_SELF, PETSC_ERR_SUP, "edge pairs: cell %" PetscInt_FMT " is not a triangle", f);
  for (PetscInt i = 0; i < 3; i++)
    if (v[i] != a && v[i] != b) k = i;
  PetscCheck(k >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "edge pairs: triangle %" PetscInt_FMT " does not contain its edge", f);
  h[0] = v[(k + 1) % 3];
  h[1] = v[(k + 2) % 3];
  h[2] = v[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadPlexEdgePairs_Private(const MfadPlexCtx *P, PetscInt *nelem, PetscInt **conn, PetscReal **rest)
{
  PetscInt   eStart, eEnd, cStart, cEnd, pStart, pEnd, dim, n = 0, *glob, bad[5] = {0, 0, 0, 0, 0};
  PetscBool *owned;

  PetscFunctionBegin;
  PetscCall(DMGetDimension(P->dm, &dim));
  PetscCheck(dim == 2, PetscObjectComm((PetscObject)P->dm), PETSC_ERR_ARG_WRONG, "edge pairs need a triangle surface (a DM of dimension 2), not dimension %" PetscInt_FMT, dim);
  PetscCall(DMPlexGetDepthStratum(P->dm, 1, &eStart, &eEnd));
  PetscCall(DMPlexGetHeightStratum(P->dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetChart(P->dm, &pStart, &pEnd));
  PetscCall(MfadDMPlexOwned_Private(P->dm, pStart, pEnd, &owned));
  PetscCall(MfadDMPlexGlobalSupportSize_Private(P->dm, eStart, eEnd, owned, pStart, &glob));
  /* a split star (no overlap) or an edge in 3+ triangles stops every rank, not only the one that
     holds it (the others would wait in the next collective call): the lowest such rank's finding
     is every rank's message */
  for (PetscInt e = eStart; e < eEnd; e++) {
    PetscInt ns;
    if (!owned[e - pStart]) continue;
    PetscCall(DMPlexGetSupportSize(P->dm, e, &ns));
    if ((glob[e - eStart] != ns || ns > 2) && !bad[0]) {
      const PetscInt *cone;
      PetscCall(DMPlexGetCone(P->dm, e, &cone));
      bad[0] = glob[e - eStart] != ns ? 1 : 2;
      bad[1] = MfadGlobalId_Private(P->num[cone[0] - P->vStart]);
      bad[2] = MfadGlobalId_Private(P->num[cone[1] - P->vStart]);
      bad[3] = glob[e - eStart];
      bad[4] = ns;
    }
    n += ns == 2;
  }
  {
    MPI_Comm    comm = PetscObjectComm((PetscObject)P->dm);
    PetscMPIInt rank, size, mine, first;

    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    PetscCallMPI(MPI_Comm_size(comm, &size));
    mine = bad[0] ? rank : size;
    PetscCall(MPIU_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
    if (first < size) {
      PetscCallMPI(MPI_Bcast(bad, 5, MPIU_INT, first, comm));
      PetscCall(PetscFree(glob));
      PetscCall(PetscFree(owned));
      PetscCheck(bad[0] != 1, comm, PETSC_ERR_ARG_WRONG,
                 "edge pairs: edge (vertices %" PetscInt_FMT " %" PetscInt_FMT ") has %" PetscInt_FMT " triangles but rank %d holds %" PetscInt_FMT ": distribute with overlap 1 (MfadDMPlexDistribute(&dm, 1))", bad[1], bad[2], bad[3], (int)first, bad[4]);
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "edge pairs: edge (vertices %" PetscInt_FMT " %" PetscInt_FMT ") is shared by %" PetscInt_FMT " triangles: the surface is not a manifold", bad[1], bad[2], bad[4]);
    }
  }
  PetscCall(PetscMalloc1(4 * n, conn));
  PetscCall(PetscMalloc1(4 * n * P->cdim, rest));
  n = 0;
  for (PetscInt e = eStart; e < eEnd; e++) {
    const PetscInt *cone, *supp;
    PetscInt        ns, h0[3], h1[3], st[4];
    if (!owned[e - pStart]) continue;
    PetscCall(DMPlexGetSupportSize(P->dm, e, &ns));
    if (ns != 2) continue; /* a boundary edge has no pair */
    PetscCall(DMPlexGetCone(P->dm, e, &cone));
    PetscCall(DMPlexGetSupport(P->dm, e, &supp));
    PetscCall(MfadPlexHinge_Private(P, supp[0], cone[0], cone[1], h0));
    PetscCall(MfadPlexHinge_Private(P, supp[1], cone[0], cone[1], h1));
    /* the first face is the one whose opposite vertex has the smaller global id, so that the
       stencil is the same whatever the local support order (any number of ranks) */
    if (MfadGlobalId_Private(P->num[h1[2] - P->vStart]) < MfadGlobalId_Private(P->num[h0[2] - P->vStart])) {
      PetscInt t[3] = {h0[0], h0[1], h0[2]};
      for (int i = 0; i < 3; i++) h0[i] = h1[i], h1[i] = t[i];
    }
    st[0] = h0[0];
    st[1] = h0[1];
    st[2] = h0[2];
    st[3] = h1[2];
    PetscCall(MfadPlexCtxPut_Private(P, n++, 4, st, *conn, *rest));
  }
  PetscCall(PetscFree(glob));
  PetscCall(PetscFree(owned));
  *nelem = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadDMPlexGetElements(DM dm, MfadDMPlexSet set, PetscInt *nelem, PetscInt *nvert, PetscInt **conn, PetscReal **rest)
{
  MfadPlexCtx P;
  PetscInt    nv = 0, n = 0, *cn = NULL;
  PetscReal  *r  = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscCall(MfadPlexCtxBegin_Private(dm, &P));
  switch (set) {
  case MFAD_DMPLEX_CELLS:
    PetscCall(MfadPlexCells_Private(&P, &n, &nv, &cn, &r));
    break;
  case MFAD_DMPLEX_EDGES:
    nv = 2;
    PetscCall(MfadPlexEdges_Private(&P, &n, &cn, &r));
    break;
  case MFAD_DMPLEX_EDGE_PAIRS:
    nv = 4;
    PetscCall(MfadPlexEdgePairs_Private(&P, &n, &cn, &r));
    break;
  default:
    SETERRQ(PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "MfadDMPlexGetElements: unknown element set %d", (int)set);
  }
  PetscCall(MfadPlexCtxEnd_Private(&P));
  if (nelem) *nelem = n;
  if (nvert) *nvert = nv;
  if (conn) *conn = cn;
  else PetscCall(PetscFree(cn));
  if (rest) *rest = r;
  else PetscCall(PetscFree(r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadDMPlexGetVertexNeighbors(DM dm, PetscInt *n, PetscInt **offsets, PetscInt **neighbors)
{
  MfadPlexCtx P;
  PetscInt    pStart, pEnd, m = 0, cnt = 0, *glob, *off, *nb;
  PetscBool  *owned;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  MfadValidPointer(offsets, 3);
  MfadValidPointer(neighbors, 4);
  PetscCall(MfadPlexCtxBegin_Private(dm, &P));
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  PetscCall(MfadDMPlexOwned_Private(dm, pStart, pEnd, &owned));
  /* a vertex's support is its edges: all of them must be here to list its whole one-ring */
  PetscCall(MfadDMPlexGlobalSupportSize_Private(dm, P.vStart, P.vEnd, owned, pStart, &glob));
  PetscCall(PetscMalloc1(P.nowned + 1, &off));
  off[0] = 0;
  for (PetscInt v = P.vStart; v < P.vEnd; v++) {
    PetscInt ns;
    if (P.num[v - P.vStart] < 0) continue;
    PetscCall(DMPlexGetSupportSize(dm, v, &ns));
    PetscCheck(glob[v - P.vStart] == ns, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "vertex neighbours: vertex %" PetscInt_FMT " has %" PetscInt_FMT " edges but this rank holds %" PetscInt_FMT ": distribute with overlap 1 (MfadDMPlexDistribute(&dm, 1))", P.num[v - P.vStart],
               glob[v - P.vStart], ns);
    cnt += ns;
    off[++m] = cnt;
  }
  PetscCall(PetscMalloc1(cnt, &nb));
  m = 0;
  for (PetscInt v = P.vStart; v < P.vEnd; v++) {
    const PetscInt *supp;
    PetscInt        ns;
    if (P.num[v - P.vStart] < 0) continue;
    PetscCall(DMPlexGetSupportSize(dm, v, &ns));
    PetscCall(DMPlexGetSupport(dm, v, &supp));
    for (PetscInt s = 0; s < ns; s++) {
      const PetscInt *cone;
      PetscCall(DMPlexGetCone(dm, supp[s], &cone));
      nb[off[m] + s] = MfadGlobalId_Private(P.num[(cone[0] == v ? cone[1] : cone[0]) - P.vStart]);
    }
    PetscCall(PetscSortInt(ns, nb + off[m]));
    m++;
  }
  PetscCall(PetscFree(glob));
  PetscCall(PetscFree(owned));
  PetscCall(MfadPlexCtxEnd_Private(&P));
  if (n) *n = m;
  *offsets   = off;
  *neighbors = nb;
  PetscFunctionReturn(PETSC_SUCCESS);
}
