// SPDX-License-Identifier: BSD-2-Clause
/* tri_frame: the rest set-up shared by the triangle energies that compare a map of a triangle with
   its rest shape through J = Ds Dm^{-1} (symmetric Dirichlet's habit): the rest triangle in 3-D is
   laid in an orthonormal frame of its plane (first axis along r1 - r0, r0, r1, r2 counter-clockwise),
     Dm = [a b; 0 d],   a = |r1 - r0|,   b = (r1 - r0).(r2 - r0) / a,   d = |(r1 - r0) x (r2 - r0)| / a,
   its 2 x 2 matrix of edge vectors. Writes p[0..3] = Dm^{-1} (row-major), p[4] = the rest area A;
   returns 1 for a non-finite or degenerate (zero-area) triangle. */
#ifndef MFAD_ENERGY_TRI_FRAME_H
#define MFAD_ENERGY_TRI_FRAME_H
#include <mfad/energy.h>

/* The features of a planar (dof 2) triangle energy: J = Ds Dm^{-1} (2 x 2, row-major), Ds the
   current edge vectors x1 - x0, x2 - x0 as columns and Dm^{-1} = p[0..3]; linear in x, so AD
   runs over J's 4 entries instead of x's 6. */
static inline void mfad_tri_J(const double x[6], const double *p, double J[4])
{
  double Ds[4];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) Ds[2 * i + j] = x[2 * (j + 1) + i] - x[i];
  mfad_matmul(J, Ds, p, 2);
}

/* The same for a triangle in space (dof 3): J = Ds Dm^{-1} (3 x 2, row-major), 6 features of 9 */
static inline void mfad_tri_J3(const double x[9], const double *p, double J[6])
{
  for (int c = 0; c < 3; c++) { /* row c of J: (x1 - x0, x2 - x0)_c Dm^{-1} */
    const double d1 = x[3 + c] - x[c], d2 = x[6 + c] - x[c];
    J[2 * c]     = d1 * p[0] + d2 * p[2];
    J[2 * c + 1] = d1 * p[1] + d2 * p[3];
  }
}

static inline int mfad_tri_frame_rest(const double r[9], double p[5])
{
  double e1[3], e2[3], e3[3], n[3];
  for (int i = 0; i < 3; i++) {
    e1[i] = r[3 + i] - r[i];
    e2[i] = r[6 + i] - r[i];
    e3[i] = e2[i] - e1[i];
  }
  mfad_cross3(n, e1, e2);
  const double l1 = mfad_dot3(e1, e1), l2 = mfad_dot3(e2, e2), l3 = mfad_dot3(e3, e3), nn = mfad_dot3(n, n);
  double       lmax2 = l1 > l2 ? l1 : l2;
  lmax2              = l3 > lmax2 ? l3 : lmax2;
  /* |n| = 2A; its round-off is ~10 eps Lmax^2: below 1e-10 Lmax^2 the frame is noise */
  if (!isfinite(nn) || !isfinite(lmax2) || !(sqrt(nn) > 1e-10 * lmax2)) return 1;
  const double a = sqrt(l1), b = mfad_dot3(e1, e2) / a, d = sqrt(nn) / a;
  p[0] = 1.0 / a; /* Dm^{-1} = [1/a, -b/(a d); 0, 1/d] */
  p[1] = -b / (a * d);
  p[2] = 0.0;
  p[3] = 1.0 / d;
  p[4] = 0.5 * sqrt(nn);
  return 0;
}
#endif
