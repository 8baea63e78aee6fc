// SPDX-License-Identifier: BSD-2-Clause
/* dirichlet_tri: the Dirichlet energy of a map of a triangle into 3-D (mesh smoothing, harmonic
   maps),
     E = A/2 |J|_F^2,   J = Ds Dm^{-1} (3 x 2),
   Ds the 3 x 2 matrix of current edge vectors x1 - x0, x2 - x0, Dm (2 x 2) the rest ones in an
   orthonormal frame of the rest triangle's plane, A the rest area. Equivalently the cotangent
   formula E = 1/4 sum_i cot(theta_i) |e_i|^2 over the edges e_i opposite the rest angles theta_i
   (Pinkall & Polthier 1993, "Computing discrete minimal surfaces and their conjugates", Exp. Math.
   2(1); Desbrun et al. 1999, "Implicit fairing", SIGGRAPH). Quadratic in x: its Hessian is
   the cotangent Laplacian of the rest mesh, one copy per coordinate. E = 0 for a constant map,
   E = A for the identity of the rest triangle (|J|_F^2 = 2).
   dof 3: the map is the surface itself (smoothing moves vertices in space); a dof-2 (planar) map
   is the same formula with a zero third row, which the planar examples do not need.
   Parameters per element (5): Dm^{-1} (4, row-major), A. Rest set-up: energies/tri_frame.h. */
#include <mfad/energy.h>
#include "tri_frame.h"

/* psi(J, p), J = Ds Dm^{-1} (3 x 2) the features (mfad_tri_J3, tri_frame.h) */
static double dirichlet_tri(const double J[6], const double p[5])
{
  return 0.5 * p[4] * mfad_frob2(J, 6);
}

static int dirichlet_tri_rest(const double r[9], const double m[1], double p[5])
{
  (void)m;
  return mfad_tri_frame_rest(r, p);
}

const MfadEnergyInfo dirichlet_tri_info = {
    .vertices    = 3,
    .dof         = 3,
    .params      = 5,
    .rest_dim    = 3,
    .features    = 6,
    .feature     = mfad_tri_J3,
    .energy      = dirichlet_tri,
    .rest        = dirichlet_tri_rest,
    .description = "A/2 |Ds Dm^-1|^2 (cotangent Dirichlet, 3-D map); params Dm^-1, A",
};
