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
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    3
#define MFAD_ENERGY_DOF         2
#define MFAD_ENERGY_PARAMS      5
#define MFAD_ENERGY_REST_DIM    3
#define MFAD_ENERGY_MATERIAL    0
#define MFAD_ENERGY_DESCRIPTION "-A log(det Ds / det Dm) (2-D), +inf when flipped; params Dm^-1, A"
#include "tri_frame.h"
static int mfad_energy_rest(const double *r, const double *m, double *p)
{
  (void)m;
  return mfad_tri_frame_rest(r, p);
}
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T Ds[4], dJ;
  OP(sub)(&Ds[0], &x[2], &x[0]); /* row 0: x components of x1 - x0, x2 - x0 */
  OP(sub)(&Ds[1], &x[4], &x[0]);
  OP(sub)(&Ds[2], &x[3], &x[1]); /* row 1: y components */
  OP(sub)(&Ds[3], &x[5], &x[1]);
  OP(det2)(&dJ, Ds);
  OP(muls)(&dJ, &dJ, p[0] * p[3] - p[1] * p[2]); /* det Dm^{-1} > 0 */
  const double d = OP(val)(&dJ);
  if (!(d > 0.0)) { /* flipped, flat or NaN */
    OP(set)(E, INFINITY);
    return;
  }
  OP(chain1)(E, &dJ, -p[4] * log(d), -p[4] / d, p[4] / (d * d));
}
#endif
