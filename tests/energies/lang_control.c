// SPDX-License-Identifier: BSD-2-Clause
/* Test energy lang_control (tests/test_lang.c): control flow a new user writes, lowered by
   mfad-energy (tools/mfad_energy/lower.py): a while Newton loop and a do-while series on
   differentiated values (MFAD_MAX_ITERATIONS), a switch on an integer parameter, the comma
   operator, file-scope static const tables indexed by constants, loop counters and parameters.
   Features f = x (.features = 4): forward over reverse. Params: p[0] the switch's case (0-3),
   p[1] a row of S (0-2). */
#include <mfad/energy.h>

static const double W[4]    = {0.5, 1.0, 1.5, 2.0};
static const double S[3][2] = {
    {1.0,  0.1},
    {0.5,  0.2},
    {0.25, 0.3}
};
static const int NW = 4;

/* s with s^3 + s = t, by Newton's method */
static double cubic_root(double t)
{
  double s = t / (1.0 + fabs(t));
  double r = s * s * s + s - t;
  MFAD_MAX_ITERATIONS(12);
  while (fabs(r) > 1e-15 * (1.0 + fabs(t))) {
    s -= r / (3.0 * s * s + 1.0);
    r = s * s * s + s - t;
  }
  return s - r / (3.0 * s * s + 1.0); /* one more step: its derivatives are those of the converged root */
}

/* exp(u) by its series, to a small term */
static double series_exp(double u)
{
  double term = 1.0, sum = 0.0;
  int    k = 0;
  MFAD_MAX_ITERATIONS(25);
  do {
    sum += term;
    k += 1;
    term = term * u / k;
  } while (fabs(term) > 1e-17 * fabs(sum));
  return sum;
}

static void lang_control_features(const double x[4], const double p[2], double f[4])
{
  (void)p;
  for (int i = 0; i < 4; i++) f[i] = x[i];
}

static double lang_control(const double f[4], const double p[2])
{
  double u, v, g, E = 0.0;
  u = f[0] + 0.5 * f[1], v = f[2] - 0.25 * f[3]; /* the comma operator */
  for (int i = 0; i < NW; i++) E += W[i] * f[i] * f[NW - 1 - i];
  switch ((int)p[0]) {
  case 0:
    g = u * u;
    break;
  case 1:
  case 2:
    g = u * v + W[(int)p[0]] * v * v;
    break;
  default:
    g = sin(u) * v;
  }
  const int row = (int)p[1];
  E += S[row][0] * g + S[row][1] * cubic_root(u + 2.0 * v) * cubic_root(f[3]) + series_exp(0.3 * v);
  return E;
}

const MfadEnergyInfo lang_control_info = {
    .vertices = 2, .dof = 2, .params = 2, .features = 4, .feature = lang_control_features, .energy = lang_control};
