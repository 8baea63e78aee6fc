// SPDX-License-Identifier: BSD-2-Clause
/* volume_barrier_tet: a volume-preserving barrier on a linear tetrahedron,
     Psi(J) = kappa (J - 1 - log J),   J = det F,   E = V Psi,   F = Ds Dm^{-1} as in neohookean_tet.c:
   Ogden's volumetric function with beta = -1 (Doll & Schweizerhof, "On the development of
   volumetric strain energy functions", J. Appl. Mech. 67(1) 2000, eq. 9), convex in J, zero and
   stationary at J = 1 (volume kept), growing like kappa J for large expansion and like
   -kappa log J as J -> 0+. Add it to a deviatoric or weakly compressible energy (StVK,
   corotated, a membrane's solid) to keep elements from collapsing or inverting: an inverted or
   flat element (J <= 0) has E = +inf, so line searches back off.
   Parameters per element (11): Dm^{-1} (9, row-major), V, kappa (bulk modulus).
   Rest set-up: as neohookean_tet (tet_rest.h); material kappa. */
#include <mfad/energy.h>
#include "tet_rest.h"
#include "flip_step.h"

/* psi(F, p), F = Ds Dm^{-1} the features (mfad_tet_F, tet_rest.h) */
static double volume_barrier_tet(const double F[9], const double p[11])
{
  const double J = mfad_det3(F);
  if (!(J > 0.0)) return INFINITY; /* inverted, flat or NaN: never take the log */
  const double V = p[9], kappa = p[10];
  return V * kappa * (J - 1.0 - log(J));
}

static int volume_barrier_tet_rest(const double r[12], const double m[1], double p[11])
{
  const int code = mfad_tet_rest(r, p);
  p[10]          = m[0];
  return code;
}

/* the first inversion along x + t d: E = +inf there (flip_step.h) */
static double volume_barrier_tet_step(const double x[12], const double d[12], const double p[11])
{
  (void)p;
  return mfad_tet_flip_step(x, d);
}

const MfadEnergyInfo volume_barrier_tet_info = {
    .vertices    = 4,
    .dof         = 3,
    .params      = 11,
    .rest_dim    = 3,
    .material    = 1,
    .features    = 9,
    .feature     = mfad_tet_F,
    .energy      = volume_barrier_tet,
    .step        = volume_barrier_tet_step,
    .rest        = volume_barrier_tet_rest,
    .description = "V kappa (J - 1 - log J), J = det(Ds Dm^-1), +inf for J <= 0; params Dm^-1, V, kappa; material kappa",
};
