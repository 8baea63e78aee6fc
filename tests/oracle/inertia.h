// SPDX-License-Identifier: BSD-2-Clause
/* inertia: the kinetic term of one vertex in implicit (backward) Euler written as an incremental
   potential,
     E = 1/2 (m / h^2) |x - xtilde|^2,   xtilde = x_n + h v_n (+ h^2 M^{-1} f_ext when folded in),
   m the lumped vertex mass, h the time step (Martin et al. 2011, "Example-based elastic
   materials", ACM TOG 30(4), eq. 3; Gast et al. 2015, "Optimization integrator for large time
   steps", IEEE TVCG 21(10), eq. 4). Minimising it plus the elastic energy is one implicit Euler
   step. Parameters per vertex (4): m / h^2, xtilde (3). No rest set-up. */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    1
#define MFAD_ENERGY_DOF         3
#define MFAD_ENERGY_PARAMS      4
#define MFAD_ENERGY_DESCRIPTION "1/2 (m/h^2) |x - xtilde|^2; params m/h^2, xtilde"
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T d[3], s;
  MFAD_UNROLL for (int i = 0; i < 3; i++) OP(adds)(&d[i], &x[i], -p[1 + i]);
  OP(frob2)(&s, d, 3);
  OP(muls)(E, &s, 0.5 * p[0]);
}
#endif
