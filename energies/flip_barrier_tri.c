// SPDX-License-Identifier: BSD-2-Clause
/* flip_barrier_tri: a log barrier against flipped triangles of a planar map (parameterisation),
     E = -A log(det J),   J = Ds Dm^{-1} (2 x 2), so det J = det Ds / det Dm,
   the ratio of the mapped to the rest (signed) area; E = +inf when det J <= 0 (flipped or flat),
   so line searches that evaluate the energy back off before a triangle flips (Schüller et al.
   2013, "Locally injective mappings", SGP; Smith & Schaefer 2015). Add it with a
   small weight to an energy without its own barrier; symmetric Dirichlet has one already.
   E = 0 at any rotation of the rest triangle; its gradient there is not zero (it pushes areas up),
   so it is a barrier, not an elastic energy.
   Parameters per element (5): Dm^{-1} (4, row-major), A. Rest set-up: energies/tri_frame.h. */
#include <mfad/energy.h>
#include "tri_frame.h"
#include "flip_step.h"

/* the features: the edge vectors Ds = (x1 - x0, x2 - x0) as columns, linear in x (4 of 6) */
static void flip_barrier_tri_Ds(const double x[6], const double p[5], double Ds[4])
{
  (void)p;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) Ds[2 * i + j] = x[2 * (j + 1) + i] - x[i];
}

static double flip_barrier_tri(const double Ds[4], const double p[5])
{
  const double d = mfad_det2(Ds) * (p[0] * p[3] - p[1] * p[2]); /* det J = det Ds det Dm^{-1} */
  if (!(d > 0.0)) return INFINITY;                              /* flipped, flat or NaN */
  return -p[4] * log(d);
}

static int flip_barrier_tri_rest(const double r[9], const double m[1], double p[5])
{
  (void)m;
  return mfad_tri_frame_rest(r, p);
}

/* the first flip along x + t d: E = +inf there (flip_step.h) */
static double flip_barrier_tri_step(const double x[6], const double d[6], const double p[5])
{
  (void)p;
  return mfad_tri_flip_step(x, d);
}

const MfadEnergyInfo flip_barrier_tri_info = {
    .vertices    = 3,
    .dof         = 2,
    .params      = 5,
    .rest_dim    = 3,
    .features    = 4,
    .feature     = flip_barrier_tri_Ds,
    .energy      = flip_barrier_tri,
    .step        = flip_barrier_tri_step,
    .rest        = flip_barrier_tri_rest,
    .description = "-A log(det Ds / det Dm) (2-D), +inf when flipped; params Dm^-1, A",
};
