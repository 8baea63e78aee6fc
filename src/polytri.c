// SPDX-License-Identifier: BSD-2-Clause
/* Triangulation of one polygonal face of a surface file (OBJ, OFF): a fan where the polygon is
   convex (what the readers always did, so convex faces keep their triangles), ear clipping in the
   plane of its Newell normal where it is not (a fan of a non-convex polygon overlaps itself and
   flips triangles: a silently wrong mesh). */
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

/* tri (3 (n - 2) corner indices into the polygon) from the n corners' coordinates x (3 each);
   *status: 0 done, 1 degenerate (zero Newell normal: no plane), 2 no ear found (the polygon
   crosses itself) */
PetscErrorCode MfadPolygonTriangulate_Private(PetscInt n, const PetscReal *x, PetscInt *tri, int *status)
{
  PetscReal  nrm[3] = {0, 0, 0}, len, u[3], v[3], *q, scale = 0;
  PetscInt  *left, m = n, k = 0;
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
  PetscCall(PetscMalloc2(2 * n, &q, n, &left));
  for (PetscInt i = 0; i < n; i++) MfadPolygonProject(&x[3 * i], u, v, &q[2 * i]), left[i] = i;
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
    for (PetscInt i = 1; i + 1 < n; i++) tri[3 * (i - 1)] = 0, tri[3 * (i - 1) + 1] = i, tri[3 * (i - 1) + 2] = i + 1;
    PetscCall(PetscFree2(q, left));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* ear clipping: a corner is an ear when it turns left and no other remaining corner lies in
     (or on) its triangle; cut it off and go on with the rest */
  while (m > 3) {
    PetscBool found = PETSC_FALSE;
    for (PetscInt i = 0; i < m && !found; i++) {
      const PetscInt a = left[(i + m - 1) % m], b = left[i], c = left[(i + 1) % m];
      const PetscReal *A = &q[2 * a], *B = &q[2 * b], *C = &q[2 * c];
      if (!(MfadCross2(A, B, C) > 0)) continue;
      found = PETSC_TRUE;
      for (PetscInt j = 0; j < m && found; j++) {
        const PetscInt   p = left[j];
        const PetscReal *P = &q[2 * p];
        if (p == a || p == b || p == c) continue;
        if (MfadCross2(A, B, P) >= 0 && MfadCross2(B, C, P) >= 0 && MfadCross2(C, A, P) >= 0) found = PETSC_FALSE;
      }
      if (found) {
        tri[3 * k] = a, tri[3 * k + 1] = b, tri[3 * k + 2] = c, k++;
        for (PetscInt j = i; j + 1 < m; j++) left[j] = left[j + 1];
        m--;
      }
    }
    if (!found) {
      *status = 2;
      PetscCall(PetscFree2(q, left));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (!(MfadCross2(&q[2 * left[0]], &q[2 * left[1]], &q[2 * left[2]]) > 0)) *status = 2; /* the last one must turn left too */
  else tri[3 * k] = left[0], tri[3 * k + 1] = left[1], tri[3 * k + 2] = left[2];
  PetscCall(PetscFree2(q, left));
  PetscFunctionReturn(PETSC_SUCCESS);
}
