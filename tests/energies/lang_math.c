// SPDX-License-Identifier: BSD-2-Clause
/* Test energy lang_math (tests/test_lang.c): the math.h functions with jet rules (erf, erfc, expm1,
   log1p, sinh, cosh, lgamma) and a user-supplied derivative rule (MFAD_DERIVATIVES: softplus) on
   differentiated values, each of one unknown (the fused chain rule) and of several (one chain rule
   at the argument's value). Features f = x (.features = 4): forward over reverse. Params: 3. */
#include <mfad/energy.h>

static double softplus(double t) { return t > 0.0 ? t + log1p(exp(-t)) : log1p(exp(t)); }
static double softplus_d1(double t) { return 1.0 / (1.0 + exp(-t)); }
static double softplus_d2(double t)
{
  const double s = softplus_d1(t);
  return s * (1.0 - s);
}
MFAD_DERIVATIVES(softplus, softplus_d1, softplus_d2);

static void lang_math_features(const double x[4], const double p[3], double f[4])
{
  (void)p;
  for (int i = 0; i < 4; i++) f[i] = x[i];
}

static double lang_math(const double f[4], const double p[3])
{
  const double a = f[0], b = f[1], c = f[2], d = f[3];
  /* of one unknown each */
  double E =
      p[0] * erf(a) + erfc(0.5 * b) + expm1(0.3 * c) + log1p(d * d) + sinh(0.4 * a) + cosh(0.3 * b) + lgamma(1.5 + c * c) + p[1] * softplus(2.0 * d);
  /* of several */
  E += erf(a * b) + erfc(b - c) + expm1(0.2 * c * d) + log1p(a * a + b * b) + sinh(0.3 * (a - d)) * cosh(0.2 * (b + c)) +
       lgamma(2.0 + a * a + c * c) + softplus(a * d - b);
  return p[2] * E;
}

const MfadEnergyInfo lang_math_info = {.vertices = 2, .dof = 2, .params = 3, .features = 4, .feature = lang_math_features, .energy = lang_math};
