// SPDX-License-Identifier: BSD-2-Clause
/* neohookean_tet: compressible Neo-Hookean solid on a linear tetrahedron,
     Psi(F) = mu/2 (tr(F^T F) - 3) - mu log J + lambda/2 (log J)^2,   J = det F,
     E      = V Psi(F),   F = Ds Dm^{-1},
   Ds (Dm) the 3 x 3 matrix of current (rest) edge vectors x1 - x0, x2 - x0, x3 - x0 as columns,
   V the rest volume (Bonet & Wood, "Nonlinear Continuum Mechanics for Finite Element Analysis",
   2nd ed. 2008, eq. 6.27; Sifakis & Barbic, "FEM simulation of 3D deformable solids", SIGGRAPH
   course 2012, sec. 4.2 for F = Ds Dm^{-1}). An inverted or flat element (J <= 0) has E = +inf,
   so line searches back off; the log barrier makes E -> +inf as J -> 0+.
   Parameters per element (12): Dm^{-1} (9, row-major), V, mu, lambda; rest set-up in tet_rest.h. */
#include <mfad/energy.h>
#include "tet_rest.h"
#include "flip_step.h"

/* psi(F, p), F = Ds Dm^{-1} the features (mfad_tet_F, tet_rest.h): AD runs over F's 9 entries */
static double neohookean_tet(const double F[9], const double p[12])
{
  const double J = mfad_det3(F);
  if (!(J > 0.0)) return INFINITY; /* inverted, flat or NaN: never take the log */
  const double V = p[9], mu = p[10], lambda = p[11];
  return V * (0.5 * mu * (mfad_frob2(F, 9) - 3.0) - mu * log(J) + 0.5 * lambda * log(J) * log(J));
}

/* the first inversion along x + t d: E = +inf there (flip_step.h) */
static double neohookean_tet_step(const double x[12], const double d[12], const double p[12])
{
  (void)p;
  return mfad_tet_flip_step(x, d);
}

const MfadEnergyInfo neohookean_tet_info = {
    .vertices    = 4,
    .dof         = 3,
    .params      = 12,
    .rest_dim    = 3,
    .material    = 2,
    .features    = 9,
    .feature     = mfad_tet_F,
    .energy      = neohookean_tet,
    .rest        = mfad_tet_rest_lame,
    .step        = neohookean_tet_step,
    .description = "V (mu/2 (|F|^2 - 3) - mu log J + lambda/2 log^2 J), F = Ds Dm^-1; params Dm^-1, V, mu, lambda; material mu, lambda",
};
