// SPDX-License-Identifier: BSD-2-Clause
/* symmetric_dirichlet: the symmetric Dirichlet distortion energy of a triangle mapped to the
   plane (parameterisation),
     E = A (|J|_F^2 + |J^{-1}|_F^2),   J = Ds Dm^{-1} (2 x 2),
   Ds (Dm) the 2 x 2 matrix of parameter-space (rest) edge vectors x1 - x0, x2 - x0 as columns,
   the rest ones expressed in an orthonormal frame of the rest triangle's plane, A the rest area
   (Smith & Schaefer 2015, "Bijective parameterization with free boundaries", ACM TOG 34(4),
   eq. 2; Schreiner et al. 2004). For 2 x 2 matrices |J^{-1}|_F = |J|_F / |det J|, so
     E = A |J|_F^2 (1 + det(J)^{-2}),
   evaluated with one chain rule on det J. A flipped or flat triangle (det J <= 0) has E = +inf.
   Parameters per element (5): Dm^{-1} (4, row-major), A.
   Rest set-up: the rest triangle in 3-D (the frame has its first axis along x1 - x0 and turns
   x0, x1, x2 counter-clockwise); returns 1 for a non-finite or degenerate (zero-area) one. */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    3
#define MFAD_ENERGY_DOF         2
#define MFAD_ENERGY_PARAMS      5
#define MFAD_ENERGY_REST_DIM    3
#define MFAD_ENERGY_MATERIAL    0
#define MFAD_ENERGY_DESCRIPTION "A (|J|^2 + |J^-1|^2), J = Ds Dm^-1 (2-D); params Dm^-1, A"
static int mfad_energy_rest(const double *r, const double *m, double *p)
{
  double e1[3], e2[3], n[3], l1 = 0.0, l2 = 0.0, l3 = 0.0, nn = 0.0, a, b, d, lmax2;
  (void)m;
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
  /* Dm = [a b; 0 d]: x1 - x0 = (a, 0), x2 - x0 = (b, d) in the frame, d = |n| / a > 0 */
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
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T Ds[4], J[4], f, dJ, q;
  OP(sub)(&Ds[0], &x[2], &x[0]); /* row 0: x components of x1 - x0, x2 - x0 */
  OP(sub)(&Ds[1], &x[4], &x[0]);
  OP(sub)(&Ds[2], &x[3], &x[1]); /* row 1: y components */
  OP(sub)(&Ds[3], &x[5], &x[1]);
  OP(matmuld)(J, Ds, p, 2);
  OP(det2)(&dJ, J);
  const double d = OP(val)(&dJ);
  if (!(d > 0.0)) { /* flipped, flat or NaN */
    OP(set)(E, INFINITY);
    return;
  }
  const double id2 = 1.0 / (d * d);
  OP(chain1)(&q, &dJ, p[4] * (1.0 + id2), -2.0 * p[4] * id2 / d, 6.0 * p[4] * id2 * id2); /* A (1 + d^-2) */
  OP(frob2)(&f, J, 4);
  OP(mul)(E, &f, &q);
}
#endif
