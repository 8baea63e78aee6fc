// SPDX-License-Identifier: BSD-2-Clause
/* The bodies of framesurface.h (declared and described there): part of the examples' compiled helper
   library (petsc-examples/CMakeLists.txt). */
#include "framesurface.h"

static int FrameHalfEdgeCompare(const void *x, const void *y)
{
  const FrameHalfEdge *a = (const FrameHalfEdge *)x, *b = (const FrameHalfEdge *)y;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  return a->f < b->f ? -1 : (a->f > b->f);
}

PetscErrorCode FrameSurfaceCreate(MfadMesh m, FrameSurface *s)
{
  FrameHalfEdge *he;
  PetscReal     *blen;
  const PetscInt F = m->ncell, V = m->nvert;

  PetscFunctionBeginUser;
  PetscCheck(m->ncorner == 3 && m->dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "frames: need a triangle surface in 3-D (got %" PetscInt_FMT "-cornered cells in %" PetscInt_FMT "-D)", m->ncorner, m->dim);
  s->nface = F, s->nvert = V, s->nedge = 0, s->nbedge = 0;
  PetscCall(PetscMalloc5(9 * F, &s->frame, F, &s->area, F, &s->bangle, V, &s->anglesum, V, &s->kind));
  PetscCall(PetscMalloc5(4 * 3 * F / 2 + 4, &s->edge, 3 * F / 2 + 1, &s->theta, 3 * F / 2 + 1, &s->cotan, 3 * 3 * F, &s->bedge, 3 * F, &s->balpha));
  for (PetscInt v = 0; v < V; v++) s->anglesum[v] = 0, s->kind[v] = 0;
  for (PetscInt f = 0; f < F; f++) {
    const PetscInt *t = &m->cells[3 * f];
    PetscReal       e1[3], e2[3], n[3], l, nn;
    FrameEdgeVector(m, t[0], t[1], e1);
    FrameEdgeVector(m, t[0], t[2], e2);
    FrameCross(e1, e2, n);
    l  = PetscSqrtReal(FrameDot(e1, e1));
    nn = PetscSqrtReal(FrameDot(n, n));
    PetscCheck(nn > 1e-12 * (FrameDot(e1, e1) + FrameDot(e2, e2)), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "frames: face %" PetscInt_FMT " (vertices %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT ") is degenerate (area %g)", f, t[0],
               t[1], t[2], (double)(nn / 2));
    s->area[f] = nn / 2;
    for (int d = 0; d < 3; d++) s->frame[9 * f + d] = e1[d] / l, s->frame[9 * f + 6 + d] = n[d] / nn;
    FrameCross(&s->frame[9 * f + 6], &s->frame[9 * f], &s->frame[9 * f + 3]); /* e2 = n x e1 */
    s->bangle[f] = NAN;
    for (int k = 0; k < 3; k++) { /* angle at corner k: atan2(|u x v|, u . v), robust for any shape */
      PetscReal u[3], v[3], w[3];
      FrameEdgeVector(m, t[k], t[(k + 1) % 3], u);
      FrameEdgeVector(m, t[k], t[(k + 2) % 3], v);
      FrameCross(u, v, w);
      s->anglesum[t[k]] += PetscAtan2Real(PetscSqrtReal(FrameDot(w, w)), FrameDot(u, v));
      s->kind[t[k]] = 1;
    }
  }
  PetscCall(PetscMalloc2(3 * F, &he, F, &blen));
  for (PetscInt f = 0; f < F; f++) blen[f] = -1;
  for (PetscInt f = 0; f < F; f++)
    for (int k = 0; k < 3; k++) {
      const PetscInt a = m->cells[3 * f + k], b = m->cells[3 * f + (k + 1) % 3];
      he[3 * f + k].lo = PetscMin(a, b), he[3 * f + k].hi = PetscMax(a, b), he[3 * f + k].f = f, he[3 * f + k].k = k;
    }
  qsort(he, (size_t)(3 * F), sizeof *he, FrameHalfEdgeCompare);
  for (PetscInt i = 0, j; i < 3 * F; i = j) {
    const PetscInt f = he[i].f, a = m->cells[3 * f + he[i].k], b = m->cells[3 * f + (he[i].k + 1) % 3];
    for (j = i + 1; j < 3 * F && he[j].lo == he[i].lo && he[j].hi == he[i].hi;) j++;
    PetscCheck(j - i <= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "frames: edge %" PetscInt_FMT "-%" PetscInt_FMT " is shared by %" PetscInt_FMT " faces (%" PetscInt_FMT ", %" PetscInt_FMT
               ", ...): not a manifold",
               he[i].lo, he[i].hi, j - i, he[i].f, he[i + 1].f);
    if (j - i == 1) { /* boundary edge a -> b of f; a face with two keeps the longer one's direction */
      PetscReal e[3];
      FrameEdgeVector(m, a, b, e);
      s->bedge[3 * s->nbedge] = f, s->bedge[3 * s->nbedge + 1] = a, s->bedge[3 * s->nbedge + 2] = b;
      s->balpha[s->nbedge] = FrameAngle(s, f, e);
      if (!(FrameDot(e, e) <= blen[f])) s->bangle[f] = s->balpha[s->nbedge], blen[f] = FrameDot(e, e);
      s->kind[a] = s->kind[b] = 2;
      s->nbedge++;
    } else {
      const PetscInt g = he[i + 1].f, ga = m->cells[3 * g + he[i + 1].k];
      PetscReal      e[3];
      PetscCheck(ga == b, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                 "frames: faces %" PetscInt_FMT " and %" PetscInt_FMT " both run along edge %" PetscInt_FMT " -> %" PetscInt_FMT
                 ": the surface is not consistently oriented",
                 f, g, a, b);
      FrameEdgeVector(m, a, b, e);
      s->edge[4 * s->nedge] = f, s->edge[4 * s->nedge + 1] = g, s->edge[4 * s->nedge + 2] = a, s->edge[4 * s->nedge + 3] = b;
      s->theta[s->nedge] = FrameAngle(s, g, e) - FrameAngle(s, f, e);
      s->cotan[s->nedge] =
          0.5 * (FrameCot(m, m->cells[3 * f + (he[i].k + 2) % 3], a, b) + FrameCot(m, m->cells[3 * g + (he[i + 1].k + 2) % 3], a, b));
      s->nedge++;
    }
  }
  PetscCall(PetscFree2(he, blen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FrameSurfaceDestroy(FrameSurface *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree5(s->frame, s->area, s->bangle, s->anglesum, s->kind));
  PetscCall(PetscFree5(s->edge, s->theta, s->cotan, s->bedge, s->balpha));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FrameSurfaceIndices(const FrameSurface *s, PetscInt n, const PetscScalar u[], PetscReal index[])
{
  PetscFunctionBeginUser;
  for (PetscInt v = 0; v < s->nvert; v++) index[v] = 0;
  for (PetscInt e = 0; e < s->nedge; e++) {
    const PetscInt  f = s->edge[4 * e], g = s->edge[4 * e + 1];
    const PetscReal delta = FrameMismatch(PetscCosReal(n * s->theta[e]), PetscSinReal(n * s->theta[e]), PetscRealPart(u[2 * f]),
                                          PetscRealPart(u[2 * f + 1]), PetscRealPart(u[2 * g]), PetscRealPart(u[2 * g + 1]));
    index[s->edge[4 * e + 2]] -= delta;
    index[s->edge[4 * e + 3]] += delta;
  }
  for (PetscInt e = 0; e < s->nbedge; e++) { /* from the edge a -> b (u = e^{i n alpha}) into f at a, back at b */
    const PetscInt  f = s->bedge[3 * e];
    const PetscReal delta =
        FrameMismatch(PetscCosReal(n * s->balpha[e]), PetscSinReal(n * s->balpha[e]), 1, 0, PetscRealPart(u[2 * f]), PetscRealPart(u[2 * f + 1]));
    index[s->bedge[3 * e + 1]] += delta;
    index[s->bedge[3 * e + 2]] -= delta;
  }
  for (PetscInt v = 0; v < s->nvert; v++) {
    PetscReal k;
    if (!s->kind[v]) continue;
    index[v] = (index[v] / n + (s->kind[v] == 1 ? 2 * PETSC_PI : PETSC_PI) - s->anglesum[v]) / (2 * PETSC_PI);
    k        = n * index[v];
    PetscCheck(PetscAbsReal(k - round(k)) < 1e-6, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "frames: vertex %" PetscInt_FMT " has index %g, not a multiple of 1/%" PetscInt_FMT ": inconsistent transport", v, (double)index[v],
               n);
    index[v] = round(k) / n + 0.0; /* + 0.0: no -0 in the output */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
