// SPDX-License-Identifier: BSD-2-Clause
/* A spring written with helpers, for tests/test_reverse.c and tests/test_lanes.c: mfad-energy
   inlines a helper over numbers (sq, which ends in a branch) into the adjoint sweep and calls a
   helper over doubles (stiffness, which calls youngs, a loop) by its value pass, on SIMD lanes by its
   lanes version. E = k (|d| - L)^2 (|d| >= L), k (|d| - L)^2 / 2 (|d| < L), k = 2 m / L (L < 1), m / L. */
#include <mfad/energy.h>

/* 2 m, as a loop of a constant count with a const int (unrolled on the lanes) */
static double youngs(double m)
{
  const int n = 2;
  double    s = 0.0;
  for (int i = 0; i < n; i++) s += (i + 1) * m / 1.5;
  return s;
}

/* Young's modulus over the rest length, halved from a rest length of 1 */
static double stiffness(const double p[2])
{
  const double k = youngs(p[0]);
  double       s = k / p[1];
  s *= p[1] < 1.0 ? 1.0 : 0.5;
  return s;
}

/* a^2, halved below 0 */
static double sq(double a)
{
  double s = a * a;
  if (a < 0.0) s = 0.5 * s;
  return s;
}

static void edge(const double x[6], const double p[2], double d[3])
{
  (void)p;
  mfad_sub3(d, &x[3], &x[0]);
}

static double spring_helpers(const double d[3], const double p[2]) { return 0.5 * stiffness(p) * sq(mfad_norm3(d) - p[1]); }

static int spring_helpers_rest(const double r[6], const double m[1], double p[2])
{
  double d[3];
  mfad_sub3(d, &r[3], &r[0]);
  p[0] = m[0];
  p[1] = mfad_norm3(d);
  return !(p[1] > 0.0);
}

const MfadEnergyInfo spring_helpers_info = {
    .vertices = 2, .dof = 3, .params = 2, .rest_dim = 3, .material = 1, .features = 3, .feature = edge, .energy = spring_helpers, .rest = spring_helpers_rest};
