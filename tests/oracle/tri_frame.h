// SPDX-License-Identifier: BSD-2-Clause
/* tri_frame: the rest set-up shared by the triangle energies that compare a map of a triangle with
   its rest shape through J = Ds Dm^{-1} (symmetric Dirichlet's habit): the rest triangle in 3-D is
   laid in an orthonormal frame of its plane (first axis along x1 - x0, x0, x1, x2 counter-clockwise),
   Dm = [a b; 0 d] its 2 x 2 matrix of edge vectors. Host only (included under MFAD_ENERGY_META).
   Writes p[0..3] = Dm^{-1} (row-major), p[4] = the rest area A; returns 1 for a non-finite or
   degenerate (zero-area) triangle. */
#ifndef MFAD_TRI_FRAME_H
#define MFAD_TRI_FRAME_H
static int mfad_tri_frame_rest(const double *r, double *p)
{
  double e1[3], e2[3], n[3], l1 = 0.0, l2 = 0.0, l3 = 0.0, nn = 0.0, a, b, d, lmax2;
  for (int i = 0; i < 3; i++) {
    e1[i] = r[3 + i] - r[i];
    e2[i] = r[6 + i] - r[i];
  }
  for (int i = 0; i < 3; i++) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    n[i]        = e1[j] * e2[k] - e1[k] * e2[j];
    l1 += e1[i] * e1[i];
    l2 += e2[i] * e2[i];
    l3 += (e2[i] - e1[i]) * (e2[i] - e1[i]);
    nn += n[i] * n[i];
  }
  lmax2 = l1 > l2 ? l1 : l2;
  lmax2 = l3 > lmax2 ? l3 : lmax2;
  /* |n| = 2A; its round-off is ~10 eps Lmax^2: below 1e-10 Lmax^2 the frame is noise */
  if (!isfinite(nn) || !isfinite(lmax2) || !(sqrt(nn) > 1e-10 * lmax2)) return 1;
  a    = sqrt(l1);
  b    = (e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2]) / a;
  d    = sqrt(nn) / a;
  p[0] = 1.0 / a; /* Dm^{-1} = [1/a, -b/(a d); 0, 1/d] */
  p[1] = -b / (a * d);
  p[2] = 0.0;
  p[3] = 1.0 / d;
  p[4] = 0.5 * sqrt(nn);
  return 0;
}
#endif
