// SPDX-License-Identifier: BSD-2-Clause
/* Triangulation of one polygonal face of a surface file (OBJ, OFF): a zigzag strip where the
   polygon is convex, ear clipping in the plane of its Newell normal where it is not (a fan of a
   non-convex polygon overlaps itself and flips triangles: a silently wrong mesh).

   Neither makes a high-valence vertex where the polygon allows otherwise. The readers fanned convex
   polygons from their first corner: one OBJ face of 200,000 corners gave a vertex of 199,999
   edges, and PETSc's DMPlex sizes work arrays by powers of the largest vertex degree, which
   overflow PetscInt (heap corruption on 2 ranks; src/mesh/dmplex.c says where and refuses what is
   left). A strip gives every corner at most 3 triangles (at most 2 diagonals); ear clipping takes
   every other ear per pass round the polygon, so a corner gains at most 2 diagonals per pass and a
   polygon with ears all round (nearly convex) takes about log2(n) passes. A polygon whose only
   triangulation is a fan (a concave chain facing one corner) keeps it: no triangulation without
   new vertices does better. */
#include <math.h>
#include "mfadread.h"

/* the polygon's corner c in the plane (u, v) perpendicular to its Newell normal n, u x v = n, so
   that the polygon runs counter-clockwise there */
static void MfadPolygonProject(const PetscReal *x, const PetscReal u[3], const PetscReal v[3], PetscReal q[2])
{
  q[0] = x[0] * u[0] + x[1] * u[1] + x[2] * u[2];
  q[1] = x[0] * v[0] + x[1] * v[1] + x[2] * v[2];
}

static PetscReal MfadCross2(const PetscReal a[2], const PetscReal b[2], const PetscReal c[2])
{
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* The strip of a convex polygon, started at corner 1: corners s = 1, 2, 0, 3, n-1, 4, n-2, ...,
   each triangle three consecutive s, written counter-clockwise from its lowest corner. No corner
   is in more than 3 triangles; for 4 and 5 corners the strip is the fan from corner 0, (0 1 2)
   (0 2 3) [(0 3 4)], that the readers always gave (a quad's two triangles are its fan's). */
static void MfadPolygonStrip(PetscInt n, PetscInt *tri)
{
  PetscInt f = 1, b = n - 1, k = 0; /* in corners rotated by one (r(i) = (i + 1) % n), the strip
                                       (0 1 n-1) (1 2 n-1) (2 n-2 n-1) (2 3 n-2) ... */
#define MFAD_R(i) (((i) + 1) % n)
  tri[3 * k] = MFAD_R(0), tri[3 * k + 1] = MFAD_R(1), tri[3 * k + 2] = MFAD_R(n - 1), k++;
  for (PetscBool front = PETSC_TRUE; f + 1 < b; front = (PetscBool)!front) {
    if (front) tri[3 * k] = MFAD_R(f), tri[3 * k + 1] = MFAD_R(f + 1), tri[3 * k + 2] = MFAD_R(b), f++;
    else tri[3 * k] = MFAD_R(f), tri[3 * k + 1] = MFAD_R(b - 1), tri[3 * k + 2] = MFAD_R(b), b--;
    k++;
  }
#undef MFAD_R
  for (PetscInt t = 0; t < n - 2; t++) { /* each triangle from its lowest corner (a rotation keeps its orientation) */
    PetscInt *T = &tri[3 * t];
    while (T[0] > T[1] || T[0] > T[2]) {
      const PetscInt s = T[0];
      T[0] = T[1], T[1] = T[2], T[2] = s;
    }
  }
}

/* tri (3 (n - 2) corner indices into the polygon) from the n corners' coordinates x (3 each);
   *status: 0 done, 1 degenerate (zero Newell normal: no plane), 2 no ear found (the polygon
   crosses itself) */
PetscErrorCode MfadPolygonTriangulate_Private(PetscInt n, const PetscReal *x, PetscInt *tri, int *status)
{
  PetscReal  nrm[3] = {0, 0, 0}, len, u[3], v[3], *q, scale = 0, tol;
  PetscInt  *next, *prev, m = n, k = 0, start = 0;
  PetscBool  convex = PETSC_TRUE;

  PetscFunctionBegin;
  *status = 0;
  for (PetscInt i = 0; i < n; i++) { /* Newell's normal: twice the vector area */
    const PetscReal *a = &x[3 * i], *b = &x[3 * ((i + 1) % n)];
    nrm[0] += (a[1] - b[1]) * (a[2] + b[2]);
    nrm[1] += (a[2] - b[2]) * (a[0] + b[0]);
    nrm[2] += (a[0] - b[0]) * (a[1] + b[1]);
    for (int d = 0; d < 3; d++) scale = PetscMax(scale, PetscAbsReal(a[d] - x[d]));
  }
  len = PetscSqrtReal(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
  if (!(len > 1e-14 * scale * scale)) {
    *status = 1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (int d = 0; d < 3; d++) nrm[d] /= len;
  /* u: any unit vector perpendicular to n, v = n x u */
  {
    const int a = PetscAbsReal(nrm[0]) < 0.6 ? 0 : 1;
    PetscReal e[3] = {0, 0, 0}, dot, l;
    e[a] = 1;
    dot  = e[0] * nrm[0] + e[1] * nrm[1] + e[2] * nrm[2];
    for (int d = 0; d < 3; d++) u[d] = e[d] - dot * nrm[d];
    l = PetscSqrtReal(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int d = 0; d < 3; d++) u[d] /= l;
    v[0] = nrm[1] * u[2] - nrm[2] * u[1], v[1] = nrm[2] * u[0] - nrm[0] * u[2], v[2] = nrm[0] * u[1] - nrm[1] * u[0];
  }
  PetscCall(PetscMalloc3(2 * n, &q, n, &next, n, &prev));
  for (PetscInt i = 0; i < n; i++) MfadPolygonProject(&x[3 * i], u, v, &q[2 * i]), next[i] = (i + 1) % n, prev[i] = (i + n - 1) % n;
  {
    /* convex: every corner turns left and the turns add up to one turn (a pentagram turns left
       everywhere but twice around) */
    PetscReal turn = 0;
    for (PetscInt i = 0; i < n && convex; i++) {
      const PetscReal *a = &q[2 * i], *b = &q[2 * ((i + 1) % n)], *c = &q[2 * ((i + 2) % n)];
      const PetscReal  cr = MfadCross2(a, b, c), dt = (b[0] - a[0]) * (c[0] - b[0]) + (b[1] - a[1]) * (c[1] - b[1]);
      if (!(cr > 0)) convex = PETSC_FALSE;
      turn += atan2(cr, dt);
    }
    if (turn > 3 * PETSC_PI) convex = PETSC_FALSE;
  }
  if (convex) {
    MfadPolygonStrip(n, tri);
    PetscCall(PetscFree3(q, next, prev));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* ear clipping: a corner is an ear when it turns left and no other remaining corner lies in
     (or on, to round-off: tol) its triangle; cut it off. One pass walks once round what is left, and after cutting
     an ear goes on past the next corner (whose new diagonal it just made): cutting the ear after
     it too would make a fan there, as restarting from one corner did (a polygon with one reflex
     corner was fanned from its last corner). */
  {
    PetscReal lo[2] = {q[0], q[1]}, hi[2] = {q[0], q[1]};
    for (PetscInt i = 1; i < n; i++)
      for (int d = 0; d < 2; d++) lo[d] = PetscMin(lo[d], q[2 * i + d]), hi[d] = PetscMax(hi[d], q[2 * i + d]);
    /* a cross product of coordinates of size ext is exact to a few ulps of ext^2 (the tilted L of
       tests/test_readers.c has a corner on a diagonal that rounding put just outside) */
    tol = 1e-12 * (PetscSqr(hi[0] - lo[0]) + PetscSqr(hi[1] - lo[1]));
  }
  while (m > 3) {
    const PetscInt mstart = m;
    PetscInt       b = start, clipped = 0;

    for (PetscInt steps = 0; steps < mstart && m > 3;) {
      const PetscInt   a = prev[b], c = next[b];
      const PetscReal *A = &q[2 * a], *B = &q[2 * b], *C = &q[2 * c];
      PetscBool        ear = (PetscBool)(MfadCross2(A, B, C) > 0);

      for (PetscInt p = next[c]; ear && p != a; p = next[p]) {
        const PetscReal *P = &q[2 * p];
        if (MfadCross2(A, B, P) >= -tol && MfadCross2(B, C, P) >= -tol && MfadCross2(C, A, P) >= -tol) ear = PETSC_FALSE;
      }
      if (ear) {
        tri[3 * k] = a, tri[3 * k + 1] = b, tri[3 * k + 2] = c, k++;
        next[a] = c, prev[c] = a, m--, clipped++;
        b = next[c], steps += 2;
      } else b = next[b], steps++;
    }
    start = b;
    if (!clipped) {
      *status = 2;
      PetscCall(PetscFree3(q, next, prev));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  {
    const PetscInt a = prev[start], b = start, c = next[start];
    if (!(MfadCross2(&q[2 * a], &q[2 * b], &q[2 * c]) > 0)) *status = 2; /* the last one must turn left too */
    else tri[3 * k] = a, tri[3 * k + 1] = b, tri[3 * k + 2] = c;
  }
  PetscCall(PetscFree3(q, next, prev));
  PetscFunctionReturn(PETSC_SUCCESS);
}
