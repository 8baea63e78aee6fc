// SPDX-License-Identifier: BSD-2-Clause
/* volume_barrier_tet: a volume-preserving barrier on a linear tetrahedron,
     Psi(J) = kappa (J - 1 - log J),   J = det F,   E = V Psi,   F = Ds Dm^{-1} as in neohookean_tet.h:
   Ogden's volumetric function with beta = -1 (Doll & Schweizerhof, "On the development of
   volumetric strain energy functions", J. Appl. Mech. 67(1) 2000, eq. 9), convex in J, zero and
   stationary at J = 1 (volume kept), growing like kappa J for large expansion and like
   -kappa log J as J -> 0+. Add it to a deviatoric or weakly compressible energy (StVK,
   corotated, a membrane's solid) to keep elements from collapsing or inverting: an inverted or
   flat element (J <= 0) has E = +inf, so line searches back off.
   Parameters per element (11): Dm^{-1} (9, row-major), V, kappa (bulk modulus).
   Rest set-up: as neohookean_tet (tet_rest.h); material kappa. */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    4
#define MFAD_ENERGY_DOF         3
#define MFAD_ENERGY_PARAMS      11
#define MFAD_ENERGY_REST_DIM    3
#define MFAD_ENERGY_MATERIAL    1
#define MFAD_ENERGY_DESCRIPTION "V kappa (J - 1 - log J), J = det(Ds Dm^-1), +inf for J <= 0; params Dm^-1, V, kappa; material kappa"
#include "tet_rest.h"
static int mfad_energy_rest(const double *r, const double *m, double *p)
{
  const int code = mfad_tet_rest(r, p);
  p[10]          = m[0];
  return code;
}
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T            Ds[9], F[9], J;
  const double Vk = p[9] * p[10];
  MFAD_UNROLL for (int i = 0; i < 3; i++) MFAD_UNROLL for (int j = 0; j < 3; j++) OP(sub)(&Ds[3 * i + j], &x[3 * (j + 1) + i], &x[i]);
  OP(matmuld)(F, Ds, p, 3);
  OP(det3)(&J, F);
  const double j = OP(val)(&J);
  if (!(j > 0.0)) { /* inverted, flat or NaN: never take the log */
    OP(set)(E, INFINITY);
    return;
  }
  const double ij = 1.0 / j;
  OP(chain1)(E, &J, Vk * (j - 1.0 - log(j)), Vk * (1.0 - ij), Vk * ij * ij);
}
#endif
