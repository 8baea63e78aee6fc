// SPDX-License-Identifier: BSD-2-Clause
/* gravity: the potential of a constant load on one vertex,
     E = -f . x,
   with f the vertex force, e.g. m g for lumped mass m and gravity g (the work of a conservative
   external force; e.g. Gast et al. 2015, "Optimization integrator for large time steps", IEEE
   TVCG 21(10), sec. 3). Its Hessian is zero. Parameters per vertex (3): f. No rest set-up. */
#include <mfad/energy.h>

static double gravity(const double x[3], const double f[3]) { return -(f[0] * x[0] + f[1] * x[1] + f[2] * x[2]); }

const MfadEnergyInfo gravity_info = {
    .vertices    = 1,
    .dof         = 3,
    .params      = 3,
    .energy      = gravity,
    .description = "-f . x; params f (force on the vertex, e.g. m g)",
};
