// SPDX-License-Identifier: BSD-2-Clause
/* mass_spring: a 3-D linear spring between two vertices,
     E = k/2 (|x1 - x0| - L)^2,
   with rest length L and stiffness k (Hooke's law; e.g. Baraff & Witkin 1998, "Large steps in
   cloth simulation", sec. 4). Parameters per element: L, k. Rest set-up: L from the rest
   positions, k from the one material constant. */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    2
#define MFAD_ENERGY_DOF         3
#define MFAD_ENERGY_PARAMS      2
#define MFAD_ENERGY_REST_DIM    3
#define MFAD_ENERGY_MATERIAL    1
#define MFAD_ENERGY_DESCRIPTION "k/2 (|x1 - x0| - L)^2; params L, k; material k"
static int mfad_energy_rest(const double *r, const double *m, double *p)
{
  const double d0 = r[3] - r[0], d1 = r[4] - r[1], d2 = r[5] - r[2];
  p[0]            = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
  p[1]            = m[0];
  return !(p[0] > 0.0); /* a spring of zero rest length has no direction */
}
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T d[3], l;
  OP(sub3)(d, &x[3], &x[0]);
  OP(dot3)(&l, d, d);
  /* |d| has no derivative at d = 0 (two vertices at one point, e.g. a collapsed start): there the
     length is 0 with zero derivatives, so E = k L^2 / 2 with a finite (zero) gradient, not NaN */
  if (OP(val)(&l) > 0.0) OP(sqrt)(&l, &l);
  else OP(set)(&l, 0.0);
  OP(adds)(&l, &l, -p[0]);
  OP(sqr)(E, &l);
  OP(muls)(E, E, 0.5 * p[1]);
}
#endif
