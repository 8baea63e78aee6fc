// SPDX-License-Identifier: BSD-2-Clause
/* sphere_penalty: a quartic penalty holding one vertex (a point in R^3) on the sphere of radius R,
     E = k (|x|^2 - R^2)^2,
   zero with zero gradient on the sphere, growing like k |x|^4 far from it; with a large k the
   minimiser of an energy plus this term approaches the minimiser on the sphere (quadratic
   penalty method: Nocedal & Wright 2006, "Numerical Optimization", sec. 17.1; spherical manifold
   optimisation as in Mahmoud et al. 2025). A "vertex" may be any unit-vector unknown
   (a normal, a direction field sample).
   Parameters per vertex (2): R, k. No rest set-up. */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    1
#define MFAD_ENERGY_DOF         3
#define MFAD_ENERGY_PARAMS      2
#define MFAD_ENERGY_DESCRIPTION "k (|x|^2 - R^2)^2; params R, k"
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T s;
  OP(dot3)(&s, x, x);
  OP(adds)(&s, &s, -p[0] * p[0]);
  OP(sqr)(E, &s);
  OP(muls)(E, E, p[1]);
}
#endif
