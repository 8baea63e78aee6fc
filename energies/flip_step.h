// SPDX-License-Identifier: BSD-2-Clause
/* The largest step before an element inverts, for the .step of energies with that wall.
   A triangle in the plane (symmetric_dirichlet, flip_barrier_tri; param's line search before it,
   Smith & Schaefer 2015, section 4): along x + t d its signed area is a quadratic q + b t + a t^2
   (q > 0: valid now); its first positive root is the step, +inf if it has none. Roots without
   cancellation: 2q / (-b -+ sqrt(D)).
   A tet (volume_barrier_tet, neohookean_tet): det(Ds + t Dd), Ds and Dd the edge matrices of x and
   d, is the cubic det Ds + t tr(adj(Ds) Dd) + t^2 tr(Ds adj(Dd)) + t^3 det Dd; it is monotone
   between the roots of its derivative, so its first root is in the first of those pieces whose end
   is not positive, found by bisection to round-off (80 halvings). */
#ifndef MFAD_FLIP_STEP_H
#define MFAD_FLIP_STEP_H

#include <mfad/energy.h>

static inline double mfad_tri_flip_step(const double x[6], const double d[6])
{
  const double e00 = x[2] - x[0], e01 = x[3] - x[1], e10 = x[4] - x[0], e11 = x[5] - x[1];
  const double f00 = d[2] - d[0], f01 = d[3] - d[1], f10 = d[4] - d[0], f11 = d[5] - d[1];
  double       q = e00 * e11 - e01 * e10, b = e00 * f11 - e01 * f10 + f00 * e11 - f01 * e10, a = f00 * f11 - f01 * f10;
  double       t = INFINITY;
  if (q < 0.0) {
    q = -q;
    b = -b;
    a = -a;
  }
  if (fabs(a) <= 1e-14 * (fabs(b) + q)) { /* linear */
    if (b < 0.0) t = -q / b;
    return t;
  }
  const double disc = b * b - 4.0 * a * q;
  if (disc < 0.0) return t;
  double s = -b - sqrt(disc);
  if (b < 0.0) s = -b + sqrt(disc);
  if (s != 0.0 && 2.0 * q / s > 0.0) t = 2.0 * q / s;
  if (s / (2.0 * a) > 0.0 && s / (2.0 * a) < t) t = s / (2.0 * a);
  return t;
}

/* the edge matrix M[3 i + j] = x[3 (j + 1) + i] - x[i] (edges as columns) and its adjugate */
static inline void mfad_tet_edges_adj(const double x[12], double M[9], double A[9])
{
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) M[3 * i + j] = x[3 * (j + 1) + i] - x[i];
  A[0] = M[4] * M[8] - M[5] * M[7];
  A[1] = M[2] * M[7] - M[1] * M[8];
  A[2] = M[1] * M[5] - M[2] * M[4];
  A[3] = M[5] * M[6] - M[3] * M[8];
  A[4] = M[0] * M[8] - M[2] * M[6];
  A[5] = M[2] * M[3] - M[0] * M[5];
  A[6] = M[3] * M[7] - M[4] * M[6];
  A[7] = M[1] * M[6] - M[0] * M[7];
  A[8] = M[0] * M[4] - M[1] * M[3];
}

/* c0 + c1 t + c2 t^2 + c3 t^3 */
static inline double mfad_cubic(const double c[4], double t) { return c[0] + t * (c[1] + t * (c[2] + t * c[3])); }

static inline double mfad_tet_flip_step(const double x[12], const double d[12])
{
  double M[9], A[9], N[9], B[9], c[4], r[2], ends[3];
  int    nends = 0;
  mfad_tet_edges_adj(x, M, A);
  mfad_tet_edges_adj(d, N, B);
  c[0] = M[0] * A[0] + M[1] * A[3] + M[2] * A[6]; /* det M */
  c[1] = 0.0;
  c[2] = 0.0;
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) {
      c[1] += A[3 * i + k] * N[3 * k + i]; /* tr(adj(M) N) */
      c[2] += M[3 * i + k] * B[3 * k + i]; /* tr(M adj(N)) */
    }
  c[3] = N[0] * B[0] + N[1] * B[3] + N[2] * B[6]; /* det N */
  if (c[0] < 0.0) {                               /* the element's own orientation is the valid one */
    c[0] = -c[0];
    c[1] = -c[1];
    c[2] = -c[2];
    c[3] = -c[3];
  }
  if (!(c[0] > 0.0)) return 0.0;
  /* the positive roots of p' = c1 + 2 c2 t + 3 c3 t^2, ascending */
  r[0] = -1.0;
  r[1] = -1.0;
  if (fabs(c[3]) > 1e-300) {
    const double disc = 4.0 * c[2] * c[2] - 12.0 * c[3] * c[1];
    if (disc >= 0.0) {
      const double s = sqrt(disc);
      r[0]           = (-2.0 * c[2] - s) / (6.0 * c[3]);
      r[1]           = (-2.0 * c[2] + s) / (6.0 * c[3]);
      if (r[0] > r[1]) {
        const double tmp = r[0];
        r[0]             = r[1];
        r[1]             = tmp;
      }
    }
  } else if (fabs(c[2]) > 1e-300) r[0] = -c[1] / (2.0 * c[2]);
  for (int k = 0; k < 2; k++)
    if (r[k] > 0.0) ends[nends++] = r[k];
  /* the last piece ends where p has its sign at infinity: doubled until p <= 0, or never */
  {
    double t = 1.0;
    if (nends > 0) t = 2.0 * ends[nends - 1];
    for (int it = 0; it < 64 && mfad_cubic(c, t) > 0.0; it++) t *= 2.0;
    ends[nends++] = t;
  }
  {
    double lo = 0.0;
    for (int k = 0; k < nends; k++) {
      if (mfad_cubic(c, ends[k]) <= 0.0) {
        double hi = ends[k];
        for (int it = 0; it < 80; it++) {
          const double mid = 0.5 * (lo + hi);
          if (mfad_cubic(c, mid) > 0.0) lo = mid;
          else hi = mid;
        }
        return lo; /* p(lo) > 0: the element still valid there */
      }
      lo = ends[k];
    }
  }
  return INFINITY;
}

#endif
