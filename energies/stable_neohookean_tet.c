// SPDX-License-Identifier: BSD-2-Clause
/* stable_neohookean_tet: the stable Neo-Hookean solid of Smith, de Goes & Kim, "Stable Neo-Hookean
   flesh simulation", ACM TOG 37(2) 2018, eq. 14, on a linear tetrahedron:
     Psi(F) = mu'/2 (I_C - 3) + lambda'/2 (J - alpha)^2 - mu'/2 log(I_C + 1),
     I_C = tr(F^T F),   J = det F,   alpha = 1 + 3 mu' / (4 lambda'),   E = V (Psi(F) - Psi(I)),
   F = Ds Dm^{-1} as in neohookean_tet.c. alpha makes the rest shape stress-free; the constant
   Psi(I) = lambda'/2 (1 - alpha)^2 - mu' log 2 is subtracted so that E is the strain energy (zero
   at rest), which changes no derivative. The energy is
   finite and smooth for every F, inverted (J <= 0) and flat elements included: no barrier, so a
   solver may invert elements and this energy pushes them back (the paper's point).
   The material constants are the Lame parameters (mu, lambda) of linear elasticity; the rest
   set-up stores mu' = 4/3 mu and lambda' = lambda + 5/6 mu (the paper's eq. 16), with which the
   small-strain limit of Psi is mu |eps|^2 + lambda/2 tr(eps)^2: expanding Psi about F = I + H to
   second order gives 3 mu'/8 (|H|^2 + tr(H^2)) + (lambda'/2 - 5 mu'/16) tr(H)^2.
   Parameters per element (12): Dm^{-1} (9, row-major), V, mu', lambda'.
   Rest set-up: as neohookean_tet (tet_rest.h); material mu, lambda. */
#include <mfad/energy.h>
#include "tet_rest.h"

/* psi(F, p), F = Ds Dm^{-1} the features (mfad_tet_F, tet_rest.h) */
static double stable_neohookean_tet(const double F[9], const double p[12])
{
  const double V = p[9], mu = p[10], lambda = p[11], alpha = 1.0 + 0.75 * mu / lambda;
  const double J = mfad_det3(F), IC = mfad_frob2(F, 9); /* I_C + 1 >= 1: the log is always finite */
  const double psi_rest = 0.5 * lambda * (1.0 - alpha) * (1.0 - alpha) - mu * log(2.0);
  return V * (0.5 * mu * (IC - 3.0) + 0.5 * lambda * (J - alpha) * (J - alpha) - 0.5 * mu * log(IC + 1.0) - psi_rest);
}

static int stable_neohookean_tet_rest(const double r[12], const double m[2], double p[12])
{
  const int code = mfad_tet_rest(r, p);
  p[10]          = 4.0 / 3.0 * m[0];        /* mu' */
  p[11]          = m[1] + 5.0 / 6.0 * m[0]; /* lambda' */
  return code;
}

const MfadEnergyInfo stable_neohookean_tet_info = {
    .vertices = 4,
    .dof      = 3,
    .params   = 12,
    .rest_dim = 3,
    .material = 2,
    .features = 9,
    .feature  = mfad_tet_F,
    .energy   = stable_neohookean_tet,
    .rest     = stable_neohookean_tet_rest,
    .description =
        "V (mu'/2 (|F|^2 - 3) + lambda'/2 (J - 1 - 3 mu'/(4 lambda'))^2 - mu'/2 log(|F|^2 + 1) - Psi(I)); params Dm^-1, V, mu' = 4/3 mu, lambda' = "
        "lambda + 5/6 mu; material mu, lambda",
};
