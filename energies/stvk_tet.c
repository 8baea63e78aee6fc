// SPDX-License-Identifier: BSD-2-Clause
/* stvk_tet: the St. Venant-Kirchhoff solid on a linear tetrahedron,
     Psi(F) = mu |G|^2 + lambda/2 tr(G)^2,   G = 1/2 (F^T F - I) (Green-Lagrange strain),
     E = V Psi(F),   F = Ds Dm^{-1} as in neohookean_tet.c
   (Bonet & Wood, "Nonlinear Continuum Mechanics for Finite Element Analysis", 2nd ed. 2008,
   sec. 6.4.1; Sifakis & Barbic, "FEM simulation of 3D deformable solids", SIGGRAPH course 2012,
   sec. 3.3). A polynomial in x: finite and smooth everywhere, no barrier. It does not resist
   inversion (Psi vanishes at F = -I too) and softens under strong compression: fine for large
   rotations with moderate strains.
   Parameters per element (12): Dm^{-1} (9, row-major), V, mu, lambda; rest set-up in tet_rest.h. */
#include <mfad/energy.h>
#include "tet_rest.h"

/* psi(F, p), F = Ds Dm^{-1} the features (mfad_tet_F, tet_rest.h) */
static double stvk_tet(const double F[9], const double p[12])
{
  double G2[9];
  /* G2 = 2 G = F^T F - I: the 1/2 goes into the constants, mu |G|^2 = mu/4 |G2|^2 and
     lambda/2 tr^2 G = lambda/8 tr^2 G2 */
  mfad_tmatmul(G2, F, F, 3);
  for (int i = 0; i < 3; i++) G2[4 * i] -= 1.0;
  const double V = p[9], mu = p[10], lambda = p[11], trG2 = G2[0] + G2[4] + G2[8];
  return V * (0.25 * mu * mfad_frob2(G2, 9) + 0.125 * lambda * trG2 * trG2);
}

const MfadEnergyInfo stvk_tet_info = {
    .vertices    = 4,
    .dof         = 3,
    .params      = 12,
    .rest_dim    = 3,
    .material    = 2,
    .features    = 9,
    .feature     = mfad_tet_F,
    .energy      = stvk_tet,
    .rest        = mfad_tet_rest_lame,
    .description = "V (mu |G|^2 + lambda/2 tr^2 G), G = (F^T F - I)/2, F = Ds Dm^-1; params Dm^-1, V, mu, lambda; material mu, lambda",
};
