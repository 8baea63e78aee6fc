// SPDX-License-Identifier: BSD-2-Clause
/* gravity: the potential of a constant load on one vertex,
     E = -f . x,
   with f the vertex force, e.g. m g for lumped mass m and gravity g (the work of a conservative
   external force; e.g. Gast et al. 2015, "Optimization integrator for large time steps", IEEE
   TVCG 21(10), sec. 3). Its Hessian is zero. Parameters per vertex (3): f. No rest set-up. */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    1
#define MFAD_ENERGY_DOF         3
#define MFAD_ENERGY_PARAMS      3
#define MFAD_ENERGY_DESCRIPTION "-f . x; params f (force on the vertex, e.g. m g)"
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T t;
  OP(muls)(E, &x[0], -p[0]);
  OP(muls)(&t, &x[1], -p[1]);
  OP(add)(E, E, &t);
  OP(muls)(&t, &x[2], -p[2]);
  OP(add)(E, E, &t);
}
#endif
