// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/impl/special.h
  @brief Special functions the derivative rules need and math.h lacks, over doubles, for the CPU
         and CUDA alike: digamma and trigamma (lgamma's first and second derivatives,
         tools/mfad_energy/jets.py). Included by mfad/impl/ad.h after MFAD_HD and MFAD_INLINE.

  Both shift x up to x >= 10 by their recurrences (psi(x) = psi(x + 1) - 1/x, psi'(x) = psi'(x + 1)
  + 1/x^2), reflect x < 0.5 first (psi(x) = psi(1 - x) - pi cot(pi x), psi'(x) = pi^2 / sin^2(pi x)
  - psi'(1 - x)), then sum the asymptotic series (Abramowitz & Stegun 6.3.18, 6.4.12) to x^-14:
  its first omitted term is below 1e-16 of the result at x = 10.
**/
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/special.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
#ifndef MFAD_IMPL_SPECIAL_H
#define MFAD_IMPL_SPECIAL_H

#include <math.h>

/** psi(x) = d/dx log Gamma(x); NaN at the poles x = 0, -1, -2, ... */
MFAD_HD static MFAD_INLINE double mfad_digamma(double x)
{
  const double pi = 3.14159265358979323846;
  double       s  = 0.0;
  if (x <= 0.0 && x == floor(x)) return NAN;
  if (x < 0.5) { /* reflection */
    s = -pi / tan(pi * x);
    x = 1.0 - x;
  }
  for (; x < 10.0; x += 1.0) s -= 1.0 / x;
  const double r = 1.0 / (x * x);
  return s + log(x) - 0.5 / x -
         r * (1.0 / 12 - r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r * (1.0 / 132 - r * (691.0 / 32760 - r * (1.0 / 12)))))));
}

/** psi'(x) = d^2/dx^2 log Gamma(x); NaN at the poles */
MFAD_HD static MFAD_INLINE double mfad_trigamma(double x)
{
  const double pi = 3.14159265358979323846;
  double       s = 0.0, sign = 1.0;
  if (x <= 0.0 && x == floor(x)) return NAN;
  if (x < 0.5) { /* psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x) */
    const double sp = sin(pi * x);
    s               = pi * pi / (sp * sp);
    sign            = -1.0;
    x               = 1.0 - x;
  }
  double t = 0.0;
  for (; x < 10.0; x += 1.0) t += 1.0 / (x * x);
  const double r = 1.0 / (x * x);
  t += 1.0 / x + 0.5 * r + r / x * (1.0 / 6 - r * (1.0 / 30 - r * (1.0 / 42 - r * (1.0 / 30 - r * (5.0 / 66 - r * (691.0 / 2730 - r * (7.0 / 6)))))));
  return s + sign * t;
}

#endif /* MFAD_IMPL_SPECIAL_H */
