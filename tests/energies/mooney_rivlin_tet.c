// SPDX-License-Identifier: BSD-2-Clause
/* Test energy mooney_rivlin_tet: compressible Mooney-Rivlin solid on a linear tetrahedron, written
   as a new user writes it: over the 12 unknowns, with no declared features (its gradient and HVP
   run reverse mode at the unknowns, its other modes carry 12 lanes),
     W(F) = c10 (J^-2/3 I1 - 3) + c01 (J^-4/3 I2 - 3) + kappa/2 (J - 1)^2,
     I1 = tr C, I2 = (I1^2 - tr C^2) / 2, C = F^T F, J = det F,
     E    = V W(F),   F = Ds Dm^{-1}
   (Bonet & Wood, "Nonlinear Continuum Mechanics for Finite Element Analysis", 2nd ed. 2008,
   sec. 6.5.2). E = +inf for J <= 0 (J^-2/3 is undefined there). Parameters per element (13):
   Dm^{-1} (9, row-major), V, c10, c01, kappa; rest set-up mfad_tet_rest (energies/tet_rest.h).
   The yardstick of its build time (issue 48, item 6: tests/buildtime.cmake). */
#include <mfad/energy.h>
#include "../../energies/tet_rest.h" /* mfad_tet_rest: Dm^{-1} and V */

static double mooney_rivlin_tet(const double x[12], const double p[13])
{
  double Ds[9], F[9], C[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) Ds[3 * i + j] = x[3 * (j + 1) + i] - x[i];
  mfad_matmul(F, Ds, p, 3);
  const double J = mfad_det3(F);
  if (!(J > 0.0)) return INFINITY; /* inverted, flat or NaN */
  for (int i = 0; i < 3; i++)      /* C = F^T F */
    for (int j = 0; j < 3; j++) C[3 * i + j] = F[i] * F[j] + F[3 + i] * F[3 + j] + F[6 + i] * F[6 + j];
  const double I1 = C[0] + C[4] + C[8];
  const double I2 = 0.5 * (I1 * I1 - mfad_frob2(C, 9));
  const double Jm = pow(J, -2.0 / 3.0); /* J^-2/3 */
  const double V = p[9], c10 = p[10], c01 = p[11], kappa = p[12];
  return V * (c10 * (Jm * I1 - 3.0) + c01 * (Jm * Jm * I2 - 3.0) + 0.5 * kappa * (J - 1.0) * (J - 1.0));
}

/* Dm^{-1} and V (tet_rest.h), then the material constants c10, c01, kappa */
static int mooney_rivlin_tet_rest(const double r[12], const double m[3], double p[13])
{
  const int code = mfad_tet_rest(r, p);
  p[10]          = m[0];
  p[11]          = m[1];
  p[12]          = m[2];
  return code;
}

const MfadEnergyInfo mooney_rivlin_tet_info = {
    .vertices = 4,
    .dof      = 3,
    .params   = 13,
    .rest_dim = 3,
    .material = 3,
    .energy   = mooney_rivlin_tet,
    .rest     = mooney_rivlin_tet_rest,
    .description =
        "test: V (c10 (J^-2/3 I1 - 3) + c01 (J^-4/3 I2 - 3) + kappa/2 (J - 1)^2), F = Ds Dm^-1; params Dm^-1, V, c10, c01, kappa; material c10, c01, "
        "kappa",
};
