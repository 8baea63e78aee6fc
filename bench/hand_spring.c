// SPDX-License-Identifier: BSD-2-Clause
/* Hand-derived gradient and HVP of mass_spring (energies/mass_spring.c): E = k/2 (l - L)^2,
   d = x1 - x0, l = |d|, u = d / l, params (L, k):
     dE/dx1 = k (l - L) u = -dE/dx0,
     H_11 v = k ((1 - (l - L)/l) (u . dv) u + (l - L)/l dv) = -H_01 v,   dv = v1 - v0;
   at l = 0 zero derivatives, as the energy (its guard is part of what is compared). */
#include "hand.h"
#include <math.h>
#include <stddef.h>

#define HAND_NAME                     mass_spring_hand
#define HAND_AD                       mass_spring
#define HAND_NPARAM_mass_spring_hand 2
#define MFAD_N                        6
#define MFAD_NV                       2
#define MFAD_ND                       3

static inline double hand_value(const double *x, const double *p)
{
  const double d0 = x[3] - x[0], d1 = x[4] - x[1], d2 = x[5] - x[2], s = sqrt(d0 * d0 + d1 * d1 + d2 * d2) - p[0];
  return 0.5 * p[1] * s * s;
}

static inline double hand_gradient(const double *x, const double *p, double *g)
{
  const double d[3] = {x[3] - x[0], x[4] - x[1], x[5] - x[2]}, l2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  if (!(l2 > 0.0)) { /* as the energy: a zero length has zero derivatives, not NaN */
    for (int i = 0; i < 6; i++) g[i] = 0.0;
    return 0.5 * p[1] * p[0] * p[0];
  }
  const double l = sqrt(l2), s = l - p[0], c = p[1] * s / l;
  for (int i = 0; i < 3; i++) {
    g[3 + i] = c * d[i];
    g[i]     = -c * d[i];
  }
  return 0.5 * p[1] * s * s;
}

static inline void hand_hvp(const double *x, const double *v, const double *p, double *hv)
{
  const double d[3] = {x[3] - x[0], x[4] - x[1], x[5] - x[2]}, dv[3] = {v[3] - v[0], v[4] - v[1], v[5] - v[2]};
  const double l2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  if (!(l2 > 0.0)) {
    for (int i = 0; i < 6; i++) hv[i] = 0.0;
    return;
  }
  const double l = sqrt(l2), r = (l - p[0]) / l;
  const double a = p[1] * (1.0 - r) * (d[0] * dv[0] + d[1] * dv[1] + d[2] * dv[2]) / l2; /* k (1 - r) (u.dv) / l */
  for (int i = 0; i < 3; i++) {
    hv[3 + i] = a * d[i] + p[1] * r * dv[i];
    hv[i]     = -hv[3 + i];
  }
}

#include "handkernel.h"
