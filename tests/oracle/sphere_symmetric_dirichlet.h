// SPDX-License-Identifier: BSD-2-Clause
/* sphere_symmetric_dirichlet: the symmetric Dirichlet distortion of a triangle mapped onto the unit
   sphere (spherical parameterisation), its vertices given by unknowns y_i in R^3 and placed at
   u_i = y_i / |y_i|:
     E = A (|J|_F^2 + |J^+|_F^2),   J = Ds Dm^{-1} (3 x 2),   Ds = [u1 - u0, u2 - u0],
   Dm the 2 x 2 rest edge matrix in an orthonormal frame of the rest triangle's plane, A the rest
   area, J^+ the pseudo-inverse (Smith & Schaefer 2015's energy on the chord triangle of the sphere;
   Schreiner et al. 2004). With singular values s1, s2 of J, |J^+|^2 = (s1^2 + s2^2) / (s1 s2)^2 and
   (s1 s2)^2 = det(J^T J) = |(u1 - u0) x (u2 - u0)|^2 det(Dm)^{-2}, so
     E = A |J|_F^2 (1 + det(J^T J)^{-1}),
   >= 4 A, equal for an isometry; it blows up as the chord triangle degenerates. At the
   great-circle wall det(J^T J) is taken times phi(h) = 1 - (1 - h^2 / H^2)^3 for h < H = 1/2,
   h = det[u0, u1, u2] / |n| the distance of the chord plane from the centre (see the energy).
   Placing the vertices at y / |y| inside the energy is the retraction of manifold optimisation on
   the sphere (TinyAD-Examples' manifold_optimization, Schmidt et al. 2022; Absil, Mahony &
   Sepulchre 2008, sec. 4.1): E does not change when a y_i is scaled, its gradient has no radial
   part, and at |y_i| = 1 its Hessian on tangent vectors is the Riemannian Hessian on the sphere.
   Add sphere_penalty (R = 1) to fix the radial directions (its minimiser |y| = 1 is not moved by E).
   Orientation: the spherical triangle is flipped when det[u0, u1, u2] <= 1e-14 (it turns clockwise
   seen from outside, or lies on a great circle to round-off); E = +inf there, as for a collapsed
   vertex (y_i = 0), so line searches back off (energies/sphere_flip_barrier.h adds a log barrier).
   Parameters per element (5): Dm^{-1} (4, row-major), A. Rest set-up: energies/tri_frame.h (any
   non-degenerate 3-D triangle; scale the rest mesh to the sphere's size first). */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    3
#define MFAD_ENERGY_DOF         3
#define MFAD_ENERGY_PARAMS      5
#define MFAD_ENERGY_REST_DIM    3
#define MFAD_ENERGY_MATERIAL    0
#define MFAD_ENERGY_DESCRIPTION "A (|J|^2 + |J^+|^2), J = Ds Dm^-1 (3 x 2) of the vertices y/|y| on the unit sphere, +inf when flipped; params Dm^-1, A"
#include "tri_frame.h"
static int mfad_energy_rest(const double *r, const double *m, double *p)
{
  (void)m;
  return mfad_tri_frame_rest(r, p);
}
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T u[9], s, w, e[2][3], J[6], n[3], f, q, t, h, r;
  {
    double yv[9], d, l = 1.0; /* det[u0, u1, u2] = det[y0, y1, y2] / (|y0| |y1| |y2|) */
    MFAD_UNROLL for (int i = 0; i < 9; i++) yv[i] = OP(val)(&x[i]);
    d = yv[0] * (yv[4] * yv[8] - yv[5] * yv[7]) - yv[1] * (yv[3] * yv[8] - yv[5] * yv[6]) + yv[2] * (yv[3] * yv[7] - yv[4] * yv[6]);
    MFAD_UNROLL for (int a = 0; a < 3; a++) l *= sqrt(yv[3 * a] * yv[3 * a] + yv[3 * a + 1] * yv[3 * a + 1] + yv[3 * a + 2] * yv[3 * a + 2]);
    /* flipped, on a great circle (det[u0, u1, u2] at its round-off, ~1e-16), a vertex at the
       origin, or NaN */
    if (!(d > 1e-14 * l)) {
      OP(set)(E, INFINITY);
      return;
    }
  }
  MFAD_UNROLL for (int a = 0; a < 3; a++)
  { /* u_a = y_a |y_a|^{-1} */
    double sv;
    OP(dot3)(&s, &x[3 * a], &x[3 * a]);
    sv = OP(val)(&s);
    OP(chain1)(&w, &s, 1.0 / sqrt(sv), -0.5 / (sv * sqrt(sv)), 0.75 / (sv * sv * sqrt(sv)));
    MFAD_UNROLL for (int d = 0; d < 3; d++) OP(mul)(&u[3 * a + d], &x[3 * a + d], &w);
  }
  OP(sub3)(e[0], &u[3], &u[0]); /* the columns of Ds */
  OP(sub3)(e[1], &u[6], &u[0]);
  MFAD_UNROLL for (int i = 0; i < 3; i++) MFAD_UNROLL for (int j = 0; j < 2; j++)
  { /* J = Ds Dm^{-1} */
    OP(muls)(&J[2 * i + j], &e[0][i], p[j]);
    OP(muls)(&t, &e[1][i], p[2 + j]);
    OP(add)(&J[2 * i + j], &J[2 * i + j], &t);
  }
  OP(cross3)(n, e[0], e[1]);
  OP(dot3)(&q, n, n);
  {
    const double di = p[0] * p[3] - p[1] * p[2]; /* det Dm^{-1} */
    double       qv, iq, nv, hv;
    nv = OP(val)(&q);
    if (!(nv > 0.0)) { /* a degenerate chord triangle (two vertices at one point) */
      OP(set)(E, INFINITY);
      return;
    }
    OP(chain1)(&r, &q, 1.0 / sqrt(nv), -0.5 / (nv * sqrt(nv)), 0.75 / (nv * nv * sqrt(nv))); /* |n|^-1 */
    OP(dot3)(&t, n, &u[0]);
    OP(mul)(&h, &t, &r); /* det[u0, u1, u2] / |n| */
    OP(muls)(&q, &q, di * di); /* det(J^T J) */
    hv = OP(val)(&h);
    if (hv < 0.5) { /* phi(h) = 1 - w^3, w = 1 - 4 h^2 */
      const double wv = 1.0 - 4.0 * hv * hv;
      OP(chain1)(&t, &h, 1.0 - wv * wv * wv, 24.0 * hv * wv * wv, 24.0 * wv * wv - 384.0 * hv * hv * wv);
      OP(mul)(&r, &q, &t);
      OP(copy)(&q, &r);
    }
    qv = OP(val)(&q);
    iq = 1.0 / qv;
    OP(chain1)(&t, &q, p[4] * (1.0 + iq), -p[4] * iq * iq, 2.0 * p[4] * iq * iq * iq); /* A (1 + q^-1) */
  }
  OP(frob2)(&f, J, 6);
  OP(mul)(E, &f, &t);
}
#endif
