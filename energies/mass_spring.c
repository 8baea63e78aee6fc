// SPDX-License-Identifier: BSD-2-Clause
/* mass_spring: a 3-D linear spring between two vertices,
     E = k/2 (|x1 - x0| - L)^2,
   with rest length L and stiffness k (Hooke's law; e.g. Baraff & Witkin 1998, "Large steps in
   cloth simulation", sec. 4). Parameters per element: L, k. Rest set-up: L from the rest
   positions, k from the one material constant. */
#include <mfad/energy.h>

/* the features: the edge vector d = x1 - x0 (AD runs over its 3 entries, not the 6 of x) */
static void mass_spring_d(const double x[6], const double p[2], double d[3])
{
  (void)p;
  mfad_sub3(d, &x[3], &x[0]);
}

static double mass_spring(const double d[3], const double p[2])
{
  const double l2 = mfad_dot3(d, d);
  /* |d| has no derivative at d = 0 (two vertices at one point, e.g. a collapsed start): there the
     length is 0 with zero derivatives, so E = k L^2 / 2 with a finite (zero) gradient, not NaN */
  const double l = l2 > 0.0 ? sqrt(l2) : 0.0;
  return 0.5 * p[1] * (l - p[0]) * (l - p[0]);
}

static int mass_spring_rest(const double r[6], const double m[1], double p[2])
{
  double d[3];
  mfad_sub3(d, &r[3], &r[0]);
  p[0] = mfad_norm3(d);
  p[1] = m[0];
  return !(p[0] > 0.0); /* a spring of zero rest length has no direction */
}

const MfadEnergyInfo mass_spring_info = {
    .vertices    = 2,
    .dof         = 3,
    .params      = 2,
    .rest_dim    = 3,
    .material    = 1,
    .features    = 3,
    .feature     = mass_spring_d,
    .energy      = mass_spring,
    .rest        = mass_spring_rest,
    .description = "k/2 (|x1 - x0| - L)^2; params L, k; material k",
};
