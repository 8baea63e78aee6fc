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
#include <mfad/energy.h>

/* the features: F = Ds Dm^{-1} (3 x 2, row-major), linear in x: 6 of 9 */
static void membrane_tri_F(const double x[9], const double p[7], double F[6])
{
  for (int i = 0; i < 3; i++) { /* row i of F = Ds Dm^{-1} */
    const double d1 = x[3 + i] - x[i], d2 = x[6 + i] - x[i];
    for (int j = 0; j < 2; j++) F[2 * i + j] = d1 * p[j] + d2 * p[2 + j];
  }
}

static double membrane_tri(const double F[6], const double p[7])
{
  const double A = p[4], mu = p[5], lambda = p[6];
  /* C = 2 G = F^T F - I (symmetric) */
  const double C00 = F[0] * F[0] + F[2] * F[2] + F[4] * F[4] - 1.0;
  const double C01 = F[0] * F[1] + F[2] * F[3] + F[4] * F[5];
  const double C11 = F[1] * F[1] + F[3] * F[3] + F[5] * F[5] - 1.0;
  const double tr  = C00 + C11; /* 2 tr G */
  /* mu |G|^2 + lambda/2 tr^2 G = mu/4 (C00^2 + 2 C01^2 + C11^2) + lambda/8 tr^2 */
  return A * (0.25 * mu * (C00 * C00 + 2.0 * C01 * C01 + C11 * C11) + 0.125 * lambda * tr * tr);
}

static int membrane_tri_rest(const double r[9], const double m[2], double p[7])
{
  double e1[3], e2[3], e3[3], n[3];
  for (int i = 0; i < 3; i++) {
    e1[i] = r[3 + i] - r[i];
    e2[i] = r[6 + i] - r[i];
    e3[i] = e2[i] - e1[i];
  }
  mfad_cross3(n, e1, e2);
  const double l1 = mfad_dot3(e1, e1), l2 = mfad_dot3(e2, e2), l3 = mfad_dot3(e3, e3), nn = mfad_norm3(n); /* 2 A */
  double       lmax2 = l1 > l2 ? l1 : l2;
  lmax2              = l3 > lmax2 ? l3 : lmax2;
  /* round-off in the cross product is ~4 eps Lmax^2: at A = 1e-10 Lmax^2 the frame keeps ~1e-5 */
  if (!isfinite(nn) || !isfinite(lmax2) || !(lmax2 > 0.0) || !(0.5 * nn > 1e-10 * lmax2)) return 1;
  const double a = sqrt(l1), b = mfad_dot3(e1, e2) / a, d = nn / a;
  p[0] = 1.0 / a; /* Dm^{-1} = [[1/a, -b/(a d)], [0, 1/d]] */
  p[1] = -b / (a * d);
  p[2] = 0.0;
  p[3] = 1.0 / d;
  p[4] = 0.5 * a * d;
  p[5] = m[0];
  p[6] = m[1];
  return 0;
}

const MfadEnergyInfo membrane_tri_info = {
    .vertices = 3,
    .dof      = 3,
    .params   = 7,
    .rest_dim = 3,
    .material = 2,
    .features = 6,
    .feature  = membrane_tri_F,
    .energy   = membrane_tri,
    .rest     = membrane_tri_rest,
    .description =
        "A (mu |G|^2 + lambda/2 tr^2 G), G = (F^T F - I)/2, F = Ds Dm^-1 (3 x 2); params Dm^-1 (2 x 2), A, mu, lambda; material mu, lambda",
};
