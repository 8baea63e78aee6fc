// SPDX-License-Identifier: BSD-2-Clause
/* inertia: the kinetic term of one vertex in implicit (backward) Euler written as an incremental
   potential,
     E = 1/2 (m / h^2) |x - xtilde|^2,   xtilde = x_n + h v_n (+ h^2 M^{-1} f_ext when folded in),
   m the lumped vertex mass, h the time step (Martin et al. 2011, "Example-based elastic
   materials", ACM TOG 30(4), eq. 3; Gast et al. 2015, "Optimization integrator for large time
   steps", IEEE TVCG 21(10), eq. 4). Minimising it plus the elastic energy is one implicit Euler
   step. Parameters per vertex (4): m / h^2, xtilde (3). No rest set-up. */
#include <mfad/energy.h>

static double inertia(const double x[3], const double p[4])
{
  double d[3];
  for (int i = 0; i < 3; i++) d[i] = x[i] - p[1 + i];
  return 0.5 * p[0] * mfad_frob2(d, 3);
}

const MfadEnergyInfo inertia_info = {
    .vertices    = 1,
    .dof         = 3,
    .params      = 4,
    .energy      = inertia,
    .description = "1/2 (m/h^2) |x - xtilde|^2; params m/h^2, xtilde",
};
