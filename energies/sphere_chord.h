// SPDX-License-Identifier: BSD-2-Clause
/* sphere_chord: the chord triangle of three unknowns y_a in R^3 placed on the unit sphere at
   u_a = y_a / |y_a| (the retraction inside the energy of sphere_symmetric_dirichlet.c and
   sphere_flip_barrier.c), shared so that both energies put their +inf wall at the same place. */
#ifndef MFAD_ENERGY_SPHERE_CHORD_H
#define MFAD_ENERGY_SPHERE_CHORD_H
#include <mfad/energy.h>
#include "flip_step.h"

/* Writes the edges e1 = u1 - u0, e2 = u2 - u0 and n = e1 x e2; returns det[u0, u1, u2] = n . u0,
   taken from the edges: accurate for a tiny triangle too (y0 . y1 x y2 has an absolute round-off of
   ~1e-16). Returns 0 where the triangle is flipped, flat to round-off relative to its edges
   (det <= 1e-14 |e1| |e2|: a tiny well-shaped triangle is not flat), has two vertices within
   round-off of each other on the unit sphere (|e1| or |e2| <= 1e-14: y_2 = y_0 leaves e2 at the
   ~1e-17 rounding of u_0 where the compiler contracts y_2 w_2 - u_0 into a fused multiply-add, an
   edge of no direction, which the scale-free test above can pass), has a vertex at
   the origin, or is NaN. */
static inline double mfad_sphere_chord(const double y[9], double e1[3], double e2[3], double n[3])
{
  double u[9];
  for (int a = 0; a < 3; a++) {
    const double w = 1.0 / sqrt(mfad_dot3(&y[3 * a], &y[3 * a]));
    for (int d = 0; d < 3; d++) u[3 * a + d] = y[3 * a + d] * w;
  }
  for (int i = 0; i < 3; i++) {
    e1[i] = u[3 + i] - u[i];
    e2[i] = u[6 + i] - u[i];
  }
  mfad_cross3(n, e1, e2);
  const double det = mfad_dot3(n, u), l1 = mfad_dot3(e1, e1), l2 = mfad_dot3(e2, e2);
  if (!(l1 > 1e-28 && l2 > 1e-28 && det > 1e-14 * sqrt(l1 * l2))) return 0.0;
  return det;
}

/* The first t > 0 at which the triangle of y + t d reaches a great circle or flips, the wall of both
   energies (.step): det[u0, u1, u2] = 0 where det[y0, y1, y2] = 0, the volume of the tet of the
   origin and the y's, a cubic in t whose first root flip_step.h finds exactly (Smith & Schaefer
   2015, sec. 4.1; sampling the cubic misses a tiny triangle that flips and unflips between two
   samples, and the line search then meets +inf: Homer took 0.01 of nearly every step). The
   retraction y / |y| after each line search does not change the sign. */
static inline double mfad_sphere_flip_step(const double y[9], const double d[9])
{
  double x[12] = {0.0}, e[12] = {0.0};
  for (int i = 0; i < 9; i++) {
    x[3 + i] = y[i];
    e[3 + i] = d[i];
  }
  return mfad_tet_flip_step(x, e);
}
#endif
