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
   Base rotations (a moving chart): each end a of each edge compares d_ab with R(u_a) f_ab^a, where
   f_ab^a = R0_a e_ab is the rest edge turned by the end's base rotation R0_a, so the rotation of
   cell a is R(u_a) R0_a. A solver that folds R(u) into R0 after each step (u reset to 0, the same
   energy) keeps u near 0, away from the Cayley map's singularity at pi, where the rotations of a
   large bend go (petsc-examples/arap_surface.c: 177 linear steps in the fixed chart, 35 moving).
   The rest set-up gives R0 = I: f_ab^a = f_ab^b = e_ab.
   Vertices (6, dof 3): the triangle's 3 corners, then the Gibbs vectors of their 3 cells (the
   "rotation nodes", one per mesh vertex, shared by every triangle around it). E = 0 for a rigid
   motion x = Q xbar + t with every R(u_a) R0_a = Q.
   Parameters per element (21): f_k^k, f_k^(k+1) for each edge k from corner k to corner k + 1
   (18, at 6 k and 6 k + 3), then c_01, c_12, c_20.
   Rest set-up from the 3 corners (rest coordinates of the rotation nodes are ignored). */
#include <mfad/energy.h>

/* The features (15 of the 18 unknowns: E does not see a translation): the edges d_0 = x_1 - x_0,
   d_1 = x_2 - x_1 (d_2 = -d_0 - d_1), then the Gibbs vectors u_0, u_1, u_2 */
static void arap_surface_features(const double x[18], const double p[21], double f[15])
{
  (void)p;
  mfad_sub3(&f[0], &x[3], &x[0]);
  mfad_sub3(&f[3], &x[6], &x[3]);
  for (int i = 0; i < 9; i++) f[6 + i] = x[9 + i];
}

static double arap_surface(const double f[15], const double p[21])
{
  double uu[3], s[3], d[9], E = 0.0;
  for (int a = 0; a < 3; a++) { /* the rotation nodes: f[6 + 3 a ...] */
    uu[a] = mfad_dot3(&f[6 + 3 * a], &f[6 + 3 * a]);
    s[a]  = 2.0 / (1.0 + uu[a]);
  }
  for (int c = 0; c < 3; c++) { /* the current edges d_k at d[3 k ...] */
    d[c]     = f[c];
    d[3 + c] = f[3 + c];
    d[6 + c] = -(f[c] + f[3 + c]);
  }
  /* edge k from corner k to corner k + 1: turned rest edges p[6 k ...], weight p[18 + k]; its end
     a = k + end compares d_k with R(u_a) e, e = p[6 k + 3 end ...], where
     R(u) e = e + s (u x e + u (u . e) - |u|^2 e), s = 2 / (1 + |u|^2) */
  for (int k = 0; k < 3; k++) {
    for (int end = 0; end < 2; end++) {
      const int a = (k + end) % 3, u = 6 + 3 * a, e = 6 * k + 3 * end; /* u_a at f[u ...], e at p[e ...] */
      const double ue = f[u] * p[e] + f[u + 1] * p[e + 1] + f[u + 2] * p[e + 2];
      for (int c = 0; c < 3; c++) {
        const int    c1 = (c + 1) % 3, c2 = (c + 2) % 3;
        const double r  = p[e + c] + s[a] * (f[u + c1] * p[e + c2] - f[u + c2] * p[e + c1] + f[u + c] * ue - uu[a] * p[e + c]);
        const double t  = d[3 * k + c] - r;
        E += p[18 + k] * t * t;
      }
    }
  }
  return E;
}

static int arap_surface_rest(const double r[9], const double *m, double p[21])
{
  double e[9], c[3], l2 = 0.0; /* e_k = r_{k+1} - r_k at e[3 k ...] */
  (void)m;
  for (int k = 0; k < 3; k++)
    for (int d = 0; d < 3; d++) e[3 * k + d] = r[3 * ((k + 1) % 3) + d] - r[3 * k + d];
  for (int k = 0; k < 3; k++) l2 += mfad_dot3(&e[3 * k], &e[3 * k]);
  mfad_cross3(c, &e[0], &e[3]);
  const double a2 = mfad_dot3(c, c); /* (2 area)^2 */
  if (!(a2 > 1e-24 * l2 * l2)) return 1;
  for (int k = 0; k < 3; k++) {
    /* the angle opposite edge k is at vertex k + 2, between -e_{k+1} and e_{k+2}:
       cot = (-e_{k+1} . e_{k+2}) / (2 area), clamped at 0 (an obtuse angle) to keep E >= 0 */
    const double dot = -mfad_dot3(&e[3 * ((k + 1) % 3)], &e[3 * ((k + 2) % 3)]);
    for (int d = 0; d < 3; d++) { /* R0 = I at both ends */
      p[6 * k + d]     = e[3 * k + d];
      p[6 * k + 3 + d] = e[3 * k + d];
    }
    p[18 + k] = dot > 0.0 ? 0.5 * dot / sqrt(a2) : 0.0;
  }
  return 0;
}

const MfadEnergyInfo arap_surface_info = {
    .vertices      = 6,
    .cell_vertices = 3,
    .dof           = 3,
    .params        = 21,
    .rest_dim      = 3,
    .material      = 0,
    .features      = 15,
    .feature       = arap_surface_features,
    .energy        = arap_surface,
    .rest          = arap_surface_rest,
    .description =
        "sum_ab c_ab (|d_ab - R(u_a) R0_a e_ab|^2 + |d_ab - R(u_b) R0_b e_ab|^2), R Cayley of Gibbs u; params R0 e per end (18, rest set-up: e), "
        "c >= 0 (3, rest set-up: max(cot, 0)/2)",
};
