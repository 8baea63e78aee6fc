// SPDX-License-Identifier: BSD-2-Clause
/* arap_tri: the as-rigid-as-possible energy of a planar map of a triangle, with the element's
   rotation eliminated in closed form,
     E = min_{R in SO(2)} A |J - R|_F^2 = A (|J|_F^2 + 2 - 2 sqrt(|J|_F^2 + 2 det J)),
   J = Ds Dm^{-1} (2 x 2) as in symmetric_dirichlet, A the rest area. The minimising rotation is
   the one of angle atan2(J10 - J01, J00 + J11), and |J|^2 + 2 det J = (J00 + J11)^2 + (J10 - J01)^2,
   so for det J > 0 the energy is A ((s1 - 1)^2 + (s2 - 1)^2) in J's singular values
   (Liu et al. 2008, "A local/global approach to mesh parameterization", SGP;
   Sorkine & Alexa 2007, "As-rigid-as-possible surface modeling", SGP).
   Why rotation eliminated, not a variable or local-global: an energy has one dof for all its
   vertices and fixed per-element parameters, and in 2-D the local step (the closest rotation) has
   this closed form, so E(x) = min_R E(x, R) is the exact energy local-global iterations decrease;
   Newton on it with exact Hessians converges quadratically where local-global is linear. It is
   smooth except where J00 + J11 = J10 - J01 = 0 (J a reflection-scaled shape, far from rest):
   there the square root's value 0 is used with no derivative. E >= 0, E = 0 exactly at rigid
   motions of the rest triangle; no barrier (flipped triangles have a finite energy).
   Parameters per element (5): Dm^{-1} (4, row-major), A. Rest set-up: energies/tri_frame.h. */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    3
#define MFAD_ENERGY_DOF         2
#define MFAD_ENERGY_PARAMS      5
#define MFAD_ENERGY_REST_DIM    3
#define MFAD_ENERGY_MATERIAL    0
#define MFAD_ENERGY_DESCRIPTION "min_R A |J - R|^2 = A (|J|^2 + 2 - 2 sqrt(|J|^2 + 2 det J)) (2-D); params Dm^-1, A"
#include "tri_frame.h"
static int mfad_energy_rest(const double *r, const double *m, double *p)
{
  (void)m;
  return mfad_tri_frame_rest(r, p);
}
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T Ds[4], J[4], f, a, b, s, t;
  OP(sub)(&Ds[0], &x[2], &x[0]);
  OP(sub)(&Ds[1], &x[4], &x[0]);
  OP(sub)(&Ds[2], &x[3], &x[1]);
  OP(sub)(&Ds[3], &x[5], &x[1]);
  OP(matmuld)(J, Ds, p, 2);
  OP(frob2)(&f, J, 4);
  OP(adds)(&f, &f, 2.0);
  OP(add)(&a, &J[0], &J[3]); /* s = (J00 + J11)^2 + (J10 - J01)^2 = (trace of R^T J)^2 at the best R */
  OP(sub)(&b, &J[2], &J[1]);
  OP(sqr)(&s, &a);
  OP(sqr)(&t, &b);
  OP(add)(&s, &s, &t);
  if (OP(val)(&s) > 0.0) {
    OP(sqrt)(&t, &s);
    OP(muls)(&t, &t, -2.0);
    OP(add)(&f, &f, &t);
  }
  OP(muls)(E, &f, p[4]);
}
#endif
