// SPDX-License-Identifier: BSD-2-Clause
/* tet_rest: the rest set-up shared by the tetrahedral solids: Dm^{-1} and the rest volume V of a
   linear tetrahedron,
     Dm = [r1 - r0, r2 - r0, r3 - r0] (edge vectors as columns),   V = det(Dm) / 6,
   into p[0..8] (Dm^{-1}, row-major) and p[9] (V). Returns 0, 1 for a non-finite or degenerate rest
   element (|V| <= 1e-10 Lmax^3, Lmax the longest edge) or 2 for an inverted one (V < 0: vertices
   1, 2, 3 must turn counter-clockwise seen from the side opposite vertex 0). */
#ifndef MFAD_ENERGY_TET_REST_H
#define MFAD_ENERGY_TET_REST_H
#include <math.h>

/* The features of a tetrahedral solid: the deformation gradient F = Ds Dm^{-1} (row-major), Ds the
   current edge vectors x1 - x0, x2 - x0, x3 - x0 as columns and Dm^{-1} = p[0..8]. Linear in x:
   the energies name it as their .feature, so AD runs over F's 9 entries instead of x's 12. */
static inline void mfad_tet_F(const double x[12], const double *p, double F[9])
{
  double Ds[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) Ds[3 * i + j] = x[3 * (j + 1) + i] - x[i];
  mfad_matmul(F, Ds, p, 3);
}

static inline int mfad_tet_rest(const double r[12], double p[10])
{
  double Dm[9], lmax2 = 0.0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) Dm[3 * i + j] = r[3 * (j + 1) + i] - r[i];
  for (int a = 0; a < 4; a++) /* longest edge */
    for (int b = a + 1; b < 4; b++) {
      double l2 = 0.0;
      for (int i = 0; i < 3; i++) l2 += (r[3 * b + i] - r[3 * a + i]) * (r[3 * b + i] - r[3 * a + i]);
      lmax2 = l2 > lmax2 ? l2 : lmax2;
    }
  p[0]             = Dm[4] * Dm[8] - Dm[5] * Dm[7]; /* cofactors, transposed: adj(Dm) */
  p[1]             = Dm[2] * Dm[7] - Dm[1] * Dm[8];
  p[2]             = Dm[1] * Dm[5] - Dm[2] * Dm[4];
  p[3]             = Dm[5] * Dm[6] - Dm[3] * Dm[8];
  p[4]             = Dm[0] * Dm[8] - Dm[2] * Dm[6];
  p[5]             = Dm[2] * Dm[3] - Dm[0] * Dm[5];
  p[6]             = Dm[3] * Dm[7] - Dm[4] * Dm[6];
  p[7]             = Dm[1] * Dm[6] - Dm[0] * Dm[7];
  p[8]             = Dm[0] * Dm[4] - Dm[1] * Dm[3];
  const double det = Dm[0] * p[0] + Dm[1] * p[3] + Dm[2] * p[6];
  /* round-off in det is ~10 eps Lmax^3 ~ 2e-15 Lmax^3: at |det| = 6e-10 Lmax^3 (|V| = 1e-10 Lmax^3)
     V and Dm^{-1} still carry ~1e-5 relative accuracy; below that they are noise */
  if (!isfinite(det) || !(lmax2 > 0.0) || !(fabs(det) > 6e-10 * lmax2 * sqrt(lmax2))) return 1;
  if (det < 0.0) return 2;
  for (int k = 0; k < 9; k++) p[k] /= det;
  p[9] = det / 6.0;
  return 0;
}

/* the same, then the Lame constants (mu, lambda) = m[0], m[1] into p[10], p[11] */
static inline int mfad_tet_rest_lame(const double r[12], const double m[2], double p[12])
{
  const int code = mfad_tet_rest(r, p);
  p[10]          = m[0];
  p[11]          = m[1];
  return code;
}
#endif
