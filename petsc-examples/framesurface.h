// SPDX-License-Identifier: BSD-2-Clause
/* The discrete surface a face-based n-RoSy field lives on (petsc-examples/frames.c): a tangent frame
   per triangle, the interior edges with the two faces they join and the Levi-Civita transport angle
   between the faces' frames, the boundary edges, the angle sums at the vertices, and the field's
   singularity indices. Every rank builds it for the whole (small) mesh.

   Transport (Knöppel et al. 2013, "Globally optimal direction fields", ACM TOG 32(4), sec. 5; the
   discrete connection of face-based fields): unfolding face g onto face f about their shared edge
   e = x_b - x_a is a rotation that maps e to itself, so a tangent vector at angle phi from e in f
   goes to the vector at the same angle from e in g. With a_f, a_g the angles of e in the two frames,
   phi_f -> phi_f + theta_fg, theta_fg = a_g - a_f, and an n-RoSy's n-th power u = e^{i n phi} goes
   to r u, r = e^{i n theta_fg}. */
#ifndef FRAMESURFACE_H
#define FRAMESURFACE_H

#include <mfadmesh.h>
#include <math.h>
#include <stdlib.h>

typedef struct {
  PetscInt   nface, nvert, nedge, nbedge; /* faces, vertices, interior and boundary edges */
  PetscReal *frame;                       /* 9 per face: e1, e2, unit normal (e1 along x_1 - x_0) */
  PetscReal *area;                        /* per face */
  PetscInt  *edge;                        /* 4 per interior edge: f, g, a, b (f holds a -> b, g holds b -> a) */
  PetscReal *theta;                       /* per interior edge: transport angle from f's frame to g's */
  PetscReal *cotan;                       /* per interior edge: (cot alpha + cot beta) / 2, alpha, beta opposite it */
  PetscInt  *bedge;                       /* 3 per boundary edge: f, a, b (f holds a -> b) */
  PetscReal *balpha;                      /* per boundary edge: its angle in f's frame */
  PetscReal *bangle;                      /* per face: angle of its (longest) boundary edge in its frame; NAN inside */
  PetscReal *anglesum;                    /* per vertex: the sum of the triangle angles at it */
  PetscInt  *kind;                        /* per vertex: 0 in no face, 1 interior, 2 on the boundary */
} FrameSurface;

static inline PetscReal FrameDot(const PetscReal a[3], const PetscReal b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static inline void FrameCross(const PetscReal a[3], const PetscReal b[3], PetscReal c[3])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* angle of the 3-D vector v in face f's tangent frame */
static inline PetscReal FrameAngle(const FrameSurface *s, PetscInt f, const PetscReal v[3])
{
  return PetscAtan2Real(FrameDot(v, &s->frame[9 * f + 3]), FrameDot(v, &s->frame[9 * f]));
}

/* a half-edge: face f, local corner k (edge cells[3f + k] -> cells[3f + (k + 1) % 3]), sorted by
   its undirected vertex pair */
typedef struct {
  PetscInt lo, hi, f, k;
} FrameHalfEdge;

/* the vector x_b - x_a */
static inline void FrameEdgeVector(MfadMesh m, PetscInt a, PetscInt b, PetscReal e[3])
{
  for (int d = 0; d < 3; d++) e[d] = m->coords[3 * b + d] - m->coords[3 * a + d];
}

/* cot of the angle at vertex c between c -> a and c -> b */
static inline PetscReal FrameCot(MfadMesh m, PetscInt c, PetscInt a, PetscInt b)
{
  PetscReal u[3], v[3], w[3];
  FrameEdgeVector(m, c, a, u);
  FrameEdgeVector(m, c, b, v);
  FrameCross(u, v, w);
  return FrameDot(u, v) / PetscSqrtReal(FrameDot(w, w));
}

/* Builds the surface of a triangle mesh. Errors name the face (degenerate), the edge (shared by
   more than two faces, or by two faces of opposite orientation). */
PetscErrorCode FrameSurfaceCreate(MfadMesh m, FrameSurface *s);

PetscErrorCode FrameSurfaceDestroy(FrameSurface *s);

/* Singularity indices of the field u (2 reals per face: the n-th power, in the face's frame),
   computed from u and the geometry alone (Knöppel et al. 2013, sec. 5.2; Ray et al. 2008, "N-symmetry
   direction field design", ACM TOG 27(2)). Across an interior edge the n-th powers differ by the
   transport r and a mismatch delta = arg(u_g conj(r u_f)) in (-pi, pi]; around a vertex,
   counter-clockwise, index = (sum of the mismatches / n + angle defect) / 2 pi, a multiple of 1/n.
   Counter-clockwise around a the loop crosses edge a -> b from g into f (-delta), around b from f
   into g (+delta). A boundary vertex's loop runs from its outgoing boundary edge through its fan of
   faces to its incoming one, the edges standing for a field along the boundary: mismatches from the
   outgoing edge's direction into the first face and from the last face to the incoming edge's
   direction, and the boundary's turning pi - angle sum for the defect. Each mismatch enters two
   loops with opposite signs, so interior plus boundary indices sum to the Euler characteristic
   (the defects and turnings do: discrete Gauss-Bonnet) for any field; for a field aligned with the
   boundary the edge mismatches vanish. index[v] = 0 for a vertex in no face. An index off a
   multiple of 1/n by more than 1e-6 (the sum is exact up to round-off) means an inconsistent
   transport: an error naming the vertex. */
static inline PetscReal FrameMismatch(PetscReal c, PetscReal sn, PetscReal f0, PetscReal f1, PetscReal g0, PetscReal g1)
{
  const PetscReal r0 = c * f0 - sn * f1, r1 = sn * f0 + c * f1; /* arg(g conj(r f)), r = c + i sn */
  return PetscAtan2Real(g1 * r0 - g0 * r1, g0 * r0 + g1 * r1);
}

PetscErrorCode FrameSurfaceIndices(const FrameSurface *s, PetscInt n, const PetscScalar u[], PetscReal index[]);

#endif /* FRAMESURFACE_H */
