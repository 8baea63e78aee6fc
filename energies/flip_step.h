// SPDX-License-Identifier: BSD-2-Clause
/* The largest step before a triangle in the plane flips, for the .step of energies with a flip
   wall (symmetric_dirichlet; param's line search before it, Smith & Schaefer 2015, section 4).
   Along x + t d the signed area is a quadratic q + b t + a t^2 (q > 0: valid now); its first
   positive root is the step, +inf if it has none. Roots without cancellation: 2q / (-b -+ sqrt(D)). */
#ifndef MFAD_FLIP_STEP_H
#define MFAD_FLIP_STEP_H

#include <mfad/energy.h>

static inline double mfad_tri_flip_step(const double x[6], const double d[6])
{
  const double e00 = x[2] - x[0], e01 = x[3] - x[1], e10 = x[4] - x[0], e11 = x[5] - x[1];
  const double f00 = d[2] - d[0], f01 = d[3] - d[1], f10 = d[4] - d[0], f11 = d[5] - d[1];
  double       q = e00 * e11 - e01 * e10, b = e00 * f11 - e01 * f10 + f00 * e11 - f01 * e10, a = f00 * f11 - f01 * f10;
  double       t = INFINITY;
  if (q < 0.0) {
    q = -q;
    b = -b;
    a = -a;
  }
  if (fabs(a) <= 1e-14 * (fabs(b) + q)) { /* linear */
    if (b < 0.0) t = -q / b;
    return t;
  }
  const double disc = b * b - 4.0 * a * q;
  if (disc < 0.0) return t;
  double s = -b - sqrt(disc);
  if (b < 0.0) s = -b + sqrt(disc);
  if (s != 0.0 && 2.0 * q / s > 0.0) t = 2.0 * q / s;
  if (s / (2.0 * a) > 0.0 && s / (2.0 * a) < t) t = s / (2.0 * a);
  return t;
}

#endif
