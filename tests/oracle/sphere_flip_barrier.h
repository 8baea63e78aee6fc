// SPDX-License-Identifier: BSD-2-Clause
/* sphere_flip_barrier: a log barrier against flipped triangles of a map onto the unit sphere, the
   vertices given by unknowns y_i in R^3 and placed at u_i = y_i / |y_i| (as in
   energies/sphere_symmetric_dirichlet.h),
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
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    3
#define MFAD_ENERGY_DOF         3
#define MFAD_ENERGY_PARAMS      1
#define MFAD_ENERGY_REST_DIM    3
#define MFAD_ENERGY_MATERIAL    0
#define MFAD_ENERGY_DESCRIPTION "-A log(det[y0, y1, y2] / (|y0| |y1| |y2| 2 A)), +inf when flipped on the sphere; param A"
#include "tri_frame.h"
static int mfad_energy_rest(const double *r, const double *m, double *p)
{
  double q[5];
  (void)m;
  if (mfad_tri_frame_rest(r, q)) return 1;
  p[0] = q[4];
  return 0;
}
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T      d, s, t;
  double dv, l = 1.0;
  OP(det3)(&d, x); /* rows y0, y1, y2 */
  dv = OP(val)(&d);
  MFAD_UNROLL for (int a = 0; a < 3; a++) l *= sqrt(OP(val)(&x[3 * a]) * OP(val)(&x[3 * a]) + OP(val)(&x[3 * a + 1]) * OP(val)(&x[3 * a + 1]) + OP(val)(&x[3 * a + 2]) * OP(val)(&x[3 * a + 2]));
  /* flipped, on a great circle (det[u0, u1, u2] at its round-off, ~1e-16), a vertex at the origin,
     or NaN */
  if (!(dv > 1e-14 * l)) {
    OP(set)(E, INFINITY);
    return;
  }
  OP(chain1)(E, &d, -p[0] * log(dv / (2.0 * p[0])), -p[0] / dv, p[0] / (dv * dv)); /* -A log(det / 2A) */
  MFAD_UNROLL for (int a = 0; a < 3; a++)
  { /* + A/2 log |y_a|^2 */
    double sv;
    OP(dot3)(&s, &x[3 * a], &x[3 * a]);
    sv = OP(val)(&s);
    OP(chain1)(&t, &s, 0.5 * p[0] * log(sv), 0.5 * p[0] / sv, -0.5 * p[0] / (sv * sv));
    OP(add)(E, E, &t);
  }
}
#endif
