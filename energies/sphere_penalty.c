// SPDX-License-Identifier: BSD-2-Clause
/* sphere_penalty: a quartic penalty holding one vertex (a point in R^3) on the sphere of radius R,
     E = k (|x|^2 - R^2)^2,
   zero with zero gradient on the sphere, growing like k |x|^4 far from it; with a large k the
   minimiser of an energy plus this term approaches the minimiser on the sphere (quadratic
   penalty method: Nocedal & Wright 2006, "Numerical Optimization", sec. 17.1; spherical manifold
   optimisation as in Mahmoud et al. 2025). A "vertex" may be any unit-vector unknown
   (a normal, a direction field sample).
   Parameters per vertex (2): R, k. No rest set-up. */
#include <mfad/energy.h>

static double sphere_penalty(const double x[3], const double p[2])
{
  const double R = p[0], k = p[1], s = mfad_dot3(x, x) - R * R;
  return k * s * s;
}

const MfadEnergyInfo sphere_penalty_info = {
    .vertices    = 1,
    .dof         = 3,
    .params      = 2,
    .energy      = sphere_penalty,
    .description = "k (|x|^2 - R^2)^2; params R, k",
};
