// SPDX-License-Identifier: BSD-2-Clause
/* sphere_flip_barrier: a log barrier against flipped triangles of a map onto the unit sphere, the
   vertices given by unknowns y_i in R^3 and placed at u_i = y_i / |y_i| (as in
   energies/sphere_symmetric_dirichlet.c),
     E = -A log(det[u0, u1, u2] / (2 A)),   det[u0, u1, u2] = det[y0, y1, y2] / (|y0| |y1| |y2|),
   det[u0, u1, u2] = (u1 - u0) x (u2 - u0) . u0 being 6 times the volume of the tetrahedron of the
   origin and the triangle: positive when the spherical triangle turns counter-clockwise seen from
   outside, zero on a great circle. For a small triangle on the unit sphere it is ~2 x its area, so
   the argument of the log is ~ the mapped over the rest area A (a scaled-to-the-sphere rest
   triangle), as in flip_barrier_tri (Schüller et al. 2013, "Locally injective mappings", SGP; the
   -log(volume) barrier of TinyAD-Examples' manifold_optimization). E = +inf when det[u0, u1, u2]
   <= 1e-14 |u1 - u0| |u2 - u0| (flat to round-off relative to its size, or flipped), so line
   searches that evaluate the energy back off before a spherical triangle flips. Like the
   distortion energy it does not change when a y_i is scaled (no radial gradient).
   Parameters per element (1): A. Rest set-up: the rest triangle's area (energies/tri_frame.h);
   1 for a degenerate one. */
#include <mfad/energy.h>
#include "tri_frame.h"
#include "sphere_chord.h"

static double sphere_flip_barrier(const double x[9], const double p[1])
{
  const double A = p[0];
  double       e1[3], e2[3], n[3];
  const double d = mfad_sphere_chord(x, e1, e2, n); /* 0 where flipped or flat (sphere_chord.h) */
  if (!(d > 0.0)) return INFINITY;
  return -A * log(d / (2.0 * A));
}

static int sphere_flip_barrier_rest(const double r[9], const double m[1], double p[1])
{
  double q[5];
  (void)m;
  if (mfad_tri_frame_rest(r, q)) return 1;
  p[0] = q[4];
  return 0;
}

/* the great-circle wall (sphere_chord.h) */
static double sphere_flip_barrier_step(const double x[9], const double d[9], const double p[1])
{
  (void)p;
  return mfad_sphere_flip_step(x, d);
}

const MfadEnergyInfo sphere_flip_barrier_info = {
    .vertices    = 3,
    .dof         = 3,
    .params      = 1,
    .rest_dim    = 3,
    .energy      = sphere_flip_barrier,
    .rest        = sphere_flip_barrier_rest,
    .step        = sphere_flip_barrier_step,
    .description = "-A log(det[y0, y1, y2] / (|y0| |y1| |y2| 2 A)), +inf when flipped on the sphere; param A",
};
