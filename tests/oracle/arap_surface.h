// SPDX-License-Identifier: BSD-2-Clause
/* arap_surface: as-rigid-as-possible energy of a triangle of a 3-D surface, with the rotation of
   each vertex's cell an unknown (Sorkine & Alexa 2007, "As-rigid-as-possible surface modeling",
   SGP, eq. 3, with the cotangent weights of Chao et al. 2010 split per triangle):
     E = sum_{edges (a, b) of the triangle} c_ab ( |d_ab - R(u_a) e_ab|^2 + |d_ab - R(u_b) e_ab|^2 ),
   d_ab = x_b - x_a the current edge, e_ab the rest one, c_ab >= 0 the triangle's share of the edge's
   weight. Summed over the triangles, sum_i sum_{j in N(i)} w_ij |d_ij - R_i e_ij|^2 with w_ij the sum
   of the c_ab of the triangles on the edge: Sorkine & Alexa's energy; each cell's rotation R_i is
   shared by all triangles around vertex i, which is what resists bending.
   Weights. Sorkine & Alexa's cotangent weight w_ij = (cot alpha_ij + cot beta_ij)/2
   = sin(alpha + beta) / (2 sin alpha sin beta) is negative across an edge whose opposite angles sum
   to more than pi (a non-Delaunay edge, common in real meshes: 269 of Spot's edges). Then E is no
   longer a sum of non-negative squares: it takes negative values, and its minimum with rigidly
   moved handles is no longer the rigid motion (measured on real meshes: energies down to -121.6,
   cells turned by 130-180 degrees). The rest set-up here therefore clamps per triangle:
   c_ab = max(cot theta, 0)/2, theta the rest angle opposite (a, b) ("clamped cotangent" weights,
   chosen as the smallest change that a single triangle can make to keep its energy a sum of
   non-negative squares; intrinsic-Delaunay cotangents would need a retriangulation). Consequences: every term is
   a non-negative weight times a square, so E >= 0 on every mesh and E = 0 exactly at rigid motions;
   a triangle has at most one angle >= pi/2, so it keeps two positive weights and the weighted edge
   graph is connected wherever the mesh is; c_ab is Sorkine & Alexa's weight exactly on meshes
   without obtuse angles (elsewhere it drops the obtuse triangle's negative share). Callers wanting
   other weights (uniform, raw cotangents of a Delaunay mesh) pass their own c_ab >= 0 as
   parameters (MfadEnergyAddTerm(), as petsc-examples/arap_surface.c -weights does); a c_ab < 0
   voids E >= 0.
   Why rotations as unknowns: the best R_i (a 3 x 3 polar factor of a one-ring sum) couples a
   whole one-ring, which no fixed-size element can eliminate; as unknowns, Newton on (x, u) finds
   the stationary points that local-global iterations approach linearly.
   R(u) is the Cayley map of the Gibbs vector u = tan(phi/2) n (rotation by phi about n):
     R(u) e = e + 2 / (1 + |u|^2) (u x e + u (u . e) - |u|^2 e),
   rational, exact, smooth for every u, reaching every rotation by less than pi (R(0) = I).
   Vertices (6, dof 3): the triangle's 3 corners, then the Gibbs vectors of their 3 cells (the
   "rotation nodes", one per mesh vertex, shared by every triangle around it). E = 0 for a rigid
   motion x = Q xbar + t with every u the Gibbs vector of Q.
   Parameters per element (21), as energies/arap_surface.c's since its base rotations: each edge's
   rest edge turned by each end's base rotation (18), c_01, c_12, c_20.
   Rest set-up from the 3 corners (rest coordinates of the rotation nodes are ignored). */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES      6
#define MFAD_ENERGY_CELL_VERTICES 3
#define MFAD_ENERGY_DOF           3
#define MFAD_ENERGY_PARAMS        21
#define MFAD_ENERGY_REST_DIM      3
#define MFAD_ENERGY_MATERIAL      0
#define MFAD_ENERGY_DESCRIPTION   "sum_ab c_ab (|d_ab - R(u_a) R0_a e_ab|^2 + |d_ab - R(u_b) R0_b e_ab|^2), R Cayley of Gibbs u; params R0 e per end (18), c >= 0 (3)"
static int mfad_energy_rest(const double *r, const double *m, double *p)
{
  double e[3][3], l2[3], c[3], a2 = 0;
  (void)m;
  for (int k = 0; k < 3; k++) { /* e_k = r_{k+1} - r_k */
    l2[k] = 0;
    for (int d = 0; d < 3; d++) e[k][d] = r[3 * ((k + 1) % 3) + d] - r[3 * k + d], l2[k] += e[k][d] * e[k][d];
  }
  for (int d = 0; d < 3; d++) c[d] = e[0][(d + 1) % 3] * e[1][(d + 2) % 3] - e[0][(d + 2) % 3] * e[1][(d + 1) % 3];
  for (int d = 0; d < 3; d++) a2 += c[d] * c[d]; /* (2 area)^2 */
  if (!(a2 > 1e-24 * (l2[0] + l2[1] + l2[2]) * (l2[0] + l2[1] + l2[2]))) return 1;
  for (int k = 0; k < 3; k++) {
    /* the angle opposite edge k is at vertex k + 2, between -e_{k+1} and e_{k+2}:
       cot = (-e_{k+1} . e_{k+2}) / (2 area), clamped at 0 (an obtuse angle) to keep E >= 0 */
    double dot = 0;
    for (int d = 0; d < 3; d++) dot -= e[(k + 1) % 3][d] * e[(k + 2) % 3][d];
    for (int d = 0; d < 3; d++) {
      p[6 * k + d]     = e[k][d];
      p[6 * k + 3 + d] = e[k][d];
    }
    p[18 + k] = dot > 0 ? 0.5 * dot / sqrt(a2) : 0.0;
  }
  return 0;
}
#else
/* r = R(u) e for a rotation node u with |u|^2 = uu and s = 2 / (1 + uu) */
MFAD_ENERGY_HELPER void MFAD_FN(arap_rotate)(T *r, const T *u, const T *uu, const T *s, const double *e)
{
  T ue, a, b;
  OP(muls)(&ue, &u[0], e[0]);
  OP(muls)(&a, &u[1], e[1]);
  OP(add)(&ue, &ue, &a);
  OP(muls)(&a, &u[2], e[2]);
  OP(add)(&ue, &ue, &a);
  MFAD_UNROLL for (int c = 0; c < 3; c++) {
    const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
    OP(muls)(&a, &u[c1], e[c2]); /* (u x e)_c + u_c (u . e) - |u|^2 e_c */
    OP(muls)(&b, &u[c2], e[c1]);
    OP(sub)(&a, &a, &b);
    OP(mul)(&b, &u[c], &ue);
    OP(add)(&a, &a, &b);
    OP(muls)(&b, uu, e[c]);
    OP(sub)(&a, &a, &b);
    OP(mul)(&a, &a, s);
    OP(adds)(&r[c], &a, e[c]);
  }
}

MFAD_ENERGY_BODY(x, p, E)
{
  T uu[3], s[3], d[3], r[3], t;
  MFAD_UNROLL for (int a = 0; a < 3; a++) {
    OP(dot3)(&uu[a], &x[9 + 3 * a], &x[9 + 3 * a]);
    OP(adds)(&t, &uu[a], 1.0);
    OP(inv)(&s[a], &t);
    OP(muls)(&s[a], &s[a], 2.0);
  }
  OP(set)(E, 0.0);
  MFAD_UNROLL for (int k = 0; k < 3; k++) { /* edge k from corner k to corner k + 1 */
    const int b = (k + 1) % 3;
    OP(sub3)(d, &x[3 * b], &x[3 * k]);
    MFAD_UNROLL for (int end = 0; end < 2; end++) {
      const int a = end ? b : k;
      MFAD_FN(arap_rotate)(r, &x[9 + 3 * a], &uu[a], &s[a], &p[6 * k + 3 * end]);
      MFAD_UNROLL for (int c = 0; c < 3; c++) {
        OP(sub)(&t, &d[c], &r[c]);
        OP(sqr)(&t, &t);
        OP(muls)(&t, &t, p[18 + k]);
        OP(add)(E, E, &t);
      }
    }
  }
}
#endif
