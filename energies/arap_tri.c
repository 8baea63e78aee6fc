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
#include <mfad/energy.h>
#include "tri_frame.h"

/* psi(J, p), J = Ds Dm^{-1} the features (mfad_tri_J, tri_frame.h) */
static double arap_tri(const double J[4], const double p[5])
{
  /* s = (J00 + J11)^2 + (J10 - J01)^2 = (trace of R^T J)^2 at the best R */
  const double a = J[0] + J[3], b = J[2] - J[1], s = a * a + b * b;
  double       f = mfad_frob2(J, 4) + 2.0;
  if (s > 0.0) f -= 2.0 * sqrt(s);
  return p[4] * f;
}

static int arap_tri_rest(const double r[9], const double m[1], double p[5])
{
  (void)m;
  return mfad_tri_frame_rest(r, p);
}

const MfadEnergyInfo arap_tri_info = {
    .vertices    = 3,
    .dof         = 2,
    .params      = 5,
    .rest_dim    = 3,
    .features    = 4,
    .feature     = mfad_tri_J,
    .energy      = arap_tri,
    .rest        = arap_tri_rest,
    .description = "min_R A |J - R|^2 = A (|J|^2 + 2 - 2 sqrt(|J|^2 + 2 det J)) (2-D); params Dm^-1, A",
};
