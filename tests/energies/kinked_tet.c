// SPDX-License-Identifier: BSD-2-Clause
/* Test energy kinked_tet: a tet energy with kinks, as a user writes one (over the 12 unknowns, no
   features), in the constructs whose derivatives branch on values: fabs, fmin, fmax and a ternary,
     E = V (mu fmin(I1 - 3, c) + mu fmax(I1 - 3 - c, 0)^2 + w kappa |J - 1| + kappa |x_2 - z_0|),
     w = 2 where J < 1 (compression costs twice), else 1,
   I1 = |F|^2, J = det F, F = Ds Dm^{-1}; |x_2 - z_0| (one unknown: the translator's jet path, its
   sign as a comparison's truth value). On SIMD lanes each is a select lane by lane, so that a group
   of elements on both sides of a kink stays on the lanes (tests/test_lanes.c). Parameters per element
   (13): Dm^{-1} (9), V, mu, kappa, c; rest set-up mfad_tet_rest (energies/tet_rest.h). */
#include <mfad/energy.h>
#include "../../energies/tet_rest.h" /* mfad_tet_rest: Dm^{-1} and V */

static double kinked_tet(const double x[12], const double p[13])
{
  double Ds[9], F[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) Ds[3 * i + j] = x[3 * (j + 1) + i] - x[i];
  mfad_matmul(F, Ds, p, 3);
  const double J = mfad_det3(F), I1 = mfad_frob2(F, 9);
  const double V = p[9], mu = p[10], kappa = p[11], c = p[12];
  const double w = J < 1.0 ? 2.0 : 1.0;
  const double s = fmax(I1 - 3.0 - c, 0.0);
  return V * (mu * fmin(I1 - 3.0, c) + mu * s * s + w * kappa * fabs(J - 1.0) + kappa * fabs(x[2] - 0.01 * c));
}

/* Dm^{-1} and V (tet_rest.h), then mu, kappa and c */
static int kinked_tet_rest(const double r[12], const double m[3], double p[13])
{
  const int code = mfad_tet_rest(r, p);
  p[10]          = m[0];
  p[11]          = m[1];
  p[12]          = 0.1 * m[2];
  return code;
}

const MfadEnergyInfo kinked_tet_info = {
    .vertices = 4,
    .dof      = 3,
    .params   = 13,
    .rest_dim = 3,
    .material = 3,
    .energy   = kinked_tet,
    .rest     = kinked_tet_rest,
    .description =
        "test: V (mu fmin(I1 - 3, c) + mu fmax(I1 - 3 - c, 0)^2 + w kappa |J - 1| + kappa |x_2 - c/100|), w = 2 where J < 1; params "
        "Dm^-1, V, mu, kappa, c; material mu, kappa, 10 c",
};
