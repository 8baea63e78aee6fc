// SPDX-License-Identifier: BSD-2-Clause
/* The symmetric Dirichlet energy of a tetrahedron, V (|F|^2 + |F^-1|^2), F = Ds Dm^-1 (Ds, Dm: the
   current and rest edge vectors as columns, V the rest volume). Plain C: it compiles as it is. */
#include <mfad/energy.h>

static double sym_dirichlet(const double x[12], const double p[10])
{
  double Ds[9], F[9], Fi[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) Ds[3 * i + j] = x[3 * (j + 1) + i] - x[i];
  mfad_matmul(F, Ds, p, 3);                     /* p[0..8] = Dm^-1 */
  if (mfad_inv3(Fi, F) <= 0.0) return INFINITY; /* inverted: line searches back off */
  return p[9] * (mfad_frob2(F, 9) + mfad_frob2(Fi, 9));
}

/* rest shape r (4 vertices x 3) -> p = Dm^-1, V; 2 if inverted */
static int sym_dirichlet_rest(const double r[12], const double m[1], double p[10])
{
  double Dm[9];
  (void)m; /* no material constants */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) Dm[3 * i + j] = r[3 * (j + 1) + i] - r[i];
  p[9] = mfad_inv3(p, Dm) / 6.0;
  return p[9] > 0.0 ? 0 : 2;
}

const MfadEnergyInfo sym_dirichlet_info = {.vertices = 4, .dof = 3, .params = 10, .rest_dim = 3, .energy = sym_dirichlet, .rest = sym_dirichlet_rest};
