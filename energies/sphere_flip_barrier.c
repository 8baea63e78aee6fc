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
   <= 1e-14 (flat to round-off, or flipped), so line searches that evaluate the energy back off
   before a spherical triangle flips. Like the distortion energy it does not change when a y_i is
   scaled (no radial gradient).
   Parameters per element (1): A. Rest set-up: the rest triangle's area (energies/tri_frame.h);
   1 for a degenerate one. */
#include <mfad/energy.h>
#include "tri_frame.h"

static double sphere_flip_barrier(const double x[9], const double p[1])
{
  const double A = p[0], d = mfad_det3(x); /* rows y0, y1, y2 */
  double       s[3];                       /* |y_a|^2 */
  for (int a = 0; a < 3; a++) s[a] = mfad_dot3(&x[3 * a], &x[3 * a]);
  /* flipped, on a great circle (det[u0, u1, u2] at its round-off, ~1e-16), a vertex at the origin,
     or NaN */
  if (!(d > 1e-14 * sqrt(s[0] * s[1] * s[2]))) return INFINITY;
  /* -A log(det[u0, u1, u2] / 2A) = -A log(det / 2A) + A/2 sum_a log |y_a|^2 */
  double E = -A * log(d / (2.0 * A));
  for (int a = 0; a < 3; a++) E += 0.5 * A * log(s[a]);
  return E;
}

static int sphere_flip_barrier_rest(const double r[9], const double m[1], double p[1])
{
  double q[5];
  (void)m;
  if (mfad_tri_frame_rest(r, q)) return 1;
  p[0] = q[4];
  return 0;
}

const MfadEnergyInfo sphere_flip_barrier_info = {
    .vertices    = 3,
    .dof         = 3,
    .params      = 1,
    .rest_dim    = 3,
    .energy      = sphere_flip_barrier,
    .rest        = sphere_flip_barrier_rest,
    .description = "-A log(det[y0, y1, y2] / (|y0| |y1| |y2| 2 A)), +inf when flipped on the sphere; param A",
};
