// SPDX-License-Identifier: BSD-2-Clause
/* Test energy lame_tet: a compressible Neo-Hookean tet over its 12 unknowns, written as a user
   writes it from a textbook, with the material as Young's modulus and Poisson's ratio:
     E = w(V) (mu/2 (I1 - 3) - mu l(J) + lambda/2 l(J)^2 + mu s(0.9 - J)),
     I1 = |F|^2, J = det F, F = Ds Dm^{-1}, s(t) = log(1 + e^t), l(J) = log J (J <= 3/2), its growth
     halved above (a helper over numbers with an early return);
   mu and lambda from a helper that writes an array (lame), the weight w(V) = V, V/2 above the
   regular tet's of unit edges, from a helper over doubles with an if (weight), the coefficients from
   an array with an initialiser list (its last entry C's zero), s with the user's own derivative
   rules (MFAD_DERIVATIVES). E = +inf for J <= 0 (tested through a const int). Parameters (12): Dm^{-1} (9, row-major), V, E, nu;
   material E, nu. For tests/test_reverse.c (the reverse sweep against forward over forward) and
   tests/test_lanes.c (the lanes against the scalar loop). */
#include <mfad/energy.h>
#include "../../energies/tet_rest.h" /* mfad_tet_rest: Dm^{-1} and V */

/* the Lamé parameters mu, lambda from Young's modulus and Poisson's ratio */
static void lame(double young, double nu, double ml[2])
{
  ml[0] = young / (2.0 * (1.0 + nu));
  ml[1] = young * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
}

/* the rest volume, halved above the regular tet's of unit edges, sqrt(2) / 12 */
static double weight(double V)
{
  if (V > 0.11785113019775792) return 0.5 * V;
  return V;
}

/* a smooth max(t, 0), its derivatives written by hand (MFAD_DERIVATIVES) */
static double softplus(double t) { return t > 0.0 ? t + log1p(exp(-t)) : log1p(exp(t)); }
static double softplus_d1(double t) { return 1.0 / (1.0 + exp(-t)); }
static double softplus_d2(double t)
{
  const double s = softplus_d1(t);
  return s * (1.0 - s);
}
MFAD_DERIVATIVES(softplus, softplus_d1, softplus_d2);

/* log J, its growth halved above J = 3/2 (a piecewise law, with an early return: a helper over numbers) */
static double soft_log(double J)
{
  if (J > 1.5) return log(1.5) + 0.5 * log(J / 1.5);
  return log(J);
}

static double lame_tet(const double x[12], const double p[12])
{
  double ml[2], c[3] = {0.5, 1.0}, Ds[9], F[9];
  lame(p[10], p[11], ml);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) Ds[3 * i + j] = x[3 * (j + 1) + i] - x[i];
  mfad_matmul(F, Ds, p, 3);
  const double J = mfad_det3(F);
  const int    ok = J > 0.0; /* not inverted, flat or NaN */
  if (!ok) return INFINITY;
  const double logJ = soft_log(J);
  return weight(p[9]) *
         (c[0] * ml[0] * (mfad_frob2(F, 9) - 3.0) - c[1] * ml[0] * logJ + c[0] * ml[1] * logJ * logJ + c[2] * J + ml[0] * softplus(0.9 - J));
}

/* Dm^{-1} and V (tet_rest.h), then Young's modulus and Poisson's ratio */
static int lame_tet_rest(const double r[12], const double m[2], double p[12])
{
  const int code = mfad_tet_rest(r, p);
  p[10]          = m[0];
  p[11]          = m[1];
  return code;
}

const MfadEnergyInfo lame_tet_info = {
    .vertices = 4,
    .dof      = 3,
    .params   = 12,
    .rest_dim = 3,
    .material = 2,
    .energy   = lame_tet,
    .rest     = lame_tet_rest,
    .description =
        "test: w(V) (mu/2 (I1 - 3) - mu l(J) + lambda/2 l(J)^2 + mu s(0.9 - J)), mu and lambda from E and nu; params Dm^-1, V, E, nu; "
        "material E, nu",
};
