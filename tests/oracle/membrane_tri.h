// SPDX-License-Identifier: BSD-2-Clause
/* membrane_tri: a St. Venant-Kirchhoff membrane on a linear triangle in 3-D (cloth, thin shells),
     Psi(F) = mu |G|^2 + lambda/2 tr(G)^2,   G = 1/2 (F^T F - I) (2 x 2 Green strain),
     E = A Psi(F),   F = Ds Dm^{-1} (3 x 2),
   Ds = [x1 - x0, x2 - x0] (3 x 2), Dm the 2 x 2 matrix of the rest edge vectors in a 2-D frame of
   the rest triangle's plane, A the rest area, (mu, lambda) the membrane's (2-D) Lame constants
   (thickness included) (Volino, Magnenat-Thalmann & Faure, "A simple approach to nonlinear
   tensile stiffness for accurate cloth simulation", ACM TOG 28(4) 2009, sec. 3; Sifakis & Barbic,
   SIGGRAPH course 2012, sec. 3.3 for StVK). F^T F is the first fundamental form of the current
   triangle in rest coordinates: E depends on in-plane stretch and shear only, is invariant under
   rigid motions, smooth (a polynomial in x) and has no barrier.
   Parameters per element (7): Dm^{-1} (4, row-major), A, mu, lambda.
   Rest set-up: the frame has its first axis along r1 - r0, so Dm = [[a, b], [0, d]],
   a = |r1 - r0|, b = (r1 - r0).(r2 - r0) / a, d = |(r1 - r0) x (r2 - r0)| / a, A = a d / 2; it
   returns 1 for a non-finite or degenerate rest triangle (A <= 1e-10 Lmax^2, Lmax its longest
   edge). Any 3-D triangle has a rest frame: no orientation to check. */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    3
#define MFAD_ENERGY_DOF         3
#define MFAD_ENERGY_PARAMS      7
#define MFAD_ENERGY_REST_DIM    3
#define MFAD_ENERGY_MATERIAL    2
#define MFAD_ENERGY_DESCRIPTION "A (mu |G|^2 + lambda/2 tr^2 G), G = (F^T F - I)/2, F = Ds Dm^-1 (3 x 2); params Dm^-1 (2 x 2), A, mu, lambda; material mu, lambda"
static int mfad_energy_rest(const double *r, const double *m, double *p)
{
  double e1[3], e2[3], n[3], l1 = 0.0, l2 = 0.0, l3 = 0.0, dot = 0.0, nn, a, b, d, lmax2;
  for (int i = 0; i < 3; i++) e1[i] = r[3 + i] - r[i], e2[i] = r[6 + i] - r[i];
  n[0] = e1[1] * e2[2] - e1[2] * e2[1];
  n[1] = e1[2] * e2[0] - e1[0] * e2[2];
  n[2] = e1[0] * e2[1] - e1[1] * e2[0];
  for (int i = 0; i < 3; i++) l1 += e1[i] * e1[i], l2 += e2[i] * e2[i], l3 += (e2[i] - e1[i]) * (e2[i] - e1[i]), dot += e1[i] * e2[i];
  nn    = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]); /* 2 A */
  lmax2 = l1 > l2 ? l1 : l2;
  lmax2 = l3 > lmax2 ? l3 : lmax2;
  /* round-off in the cross product is ~4 eps Lmax^2: at A = 1e-10 Lmax^2 the frame keeps ~1e-5 */
  if (!isfinite(nn) || !isfinite(lmax2) || !(lmax2 > 0.0) || !(0.5 * nn > 1e-10 * lmax2)) return 1;
  a    = sqrt(l1);
  b    = dot / a;
  d    = nn / a;
  p[0] = 1.0 / a; /* Dm^{-1} = [[1/a, -b/(a d)], [0, 1/d]] */
  p[1] = -b / (a * d);
  p[2] = 0.0;
  p[3] = 1.0 / d;
  p[4] = 0.5 * a * d;
  p[5] = m[0];
  p[6] = m[1];
  return 0;
}
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T            Ds[6], F[6], C[3], tr, t;
  const double A = p[4], mu = p[5], lambda = p[6];
  MFAD_UNROLL for (int i = 0; i < 3; i++) MFAD_UNROLL for (int j = 0; j < 2; j++) OP(sub)(&Ds[2 * i + j], &x[3 * (j + 1) + i], &x[i]);
  MFAD_UNROLL for (int i = 0; i < 3; i++) MFAD_UNROLL for (int j = 0; j < 2; j++)
  { /* F = Ds Dm^{-1} */
    OP(muls)(&F[2 * i + j], &Ds[2 * i], p[j]);
    OP(muls)(&t, &Ds[2 * i + 1], p[2 + j]);
    OP(add)(&F[2 * i + j], &F[2 * i + j], &t);
  }
  /* 2 G = F^T F - I: C[0] = 2 G00, C[1] = 2 G01, C[2] = 2 G11 */
  OP(mul)(&C[0], &F[0], &F[0]);
  OP(mul)(&C[1], &F[0], &F[1]);
  OP(mul)(&C[2], &F[1], &F[1]);
  MFAD_UNROLL for (int i = 1; i < 3; i++)
  {
    OP(mul)(&t, &F[2 * i], &F[2 * i]);
    OP(add)(&C[0], &C[0], &t);
    OP(mul)(&t, &F[2 * i], &F[2 * i + 1]);
    OP(add)(&C[1], &C[1], &t);
    OP(mul)(&t, &F[2 * i + 1], &F[2 * i + 1]);
    OP(add)(&C[2], &C[2], &t);
  }
  OP(adds)(&C[0], &C[0], -1.0);
  OP(adds)(&C[2], &C[2], -1.0);
  OP(add)(&tr, &C[0], &C[2]); /* 2 tr G */
  OP(sqr)(E, &C[0]);          /* 4 |G|^2 = C0^2 + 2 C1^2 + C2^2 */
  OP(sqr)(&t, &C[2]);
  OP(add)(E, E, &t);
  OP(sqr)(&t, &C[1]);
  OP(muls)(&t, &t, 2.0);
  OP(add)(E, E, &t);
  OP(muls)(E, E, 0.25 * mu * A);
  OP(sqr)(&t, &tr);
  OP(muls)(&t, &t, 0.125 * lambda * A);
  OP(add)(E, E, &t);
}
#endif
