// SPDX-License-Identifier: BSD-2-Clause
/* symmetric_dirichlet: the symmetric Dirichlet distortion energy of a triangle mapped to the
   plane (parameterisation),
     E = A (|J|_F^2 + |J^{-1}|_F^2),   J = Ds Dm^{-1} (2 x 2),
   Ds (Dm) the 2 x 2 matrix of parameter-space (rest) edge vectors x1 - x0, x2 - x0 as columns,
   the rest ones expressed in an orthonormal frame of the rest triangle's plane, A the rest area
   (Smith & Schaefer 2015, "Bijective parameterization with free boundaries", ACM TOG 34(4),
   eq. 2; Schreiner et al. 2004). For 2 x 2 matrices |J^{-1}|_F = |J|_F / |det J|, so
     E = A |J|_F^2 (1 + det(J)^{-2}),
   evaluated with one chain rule on det J. A flipped or flat triangle (det J <= 0) has E = +inf.
   Parameters per element (5): Dm^{-1} (4, row-major), A.
   Rest set-up: the rest triangle in 3-D (the frame has its first axis along x1 - x0 and turns
   x0, x1, x2 counter-clockwise, energies/tri_frame.h); returns 1 for a non-finite or degenerate
   (zero-area) one. */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    3
#define MFAD_ENERGY_DOF         2
#define MFAD_ENERGY_PARAMS      5
#define MFAD_ENERGY_REST_DIM    3
#define MFAD_ENERGY_MATERIAL    0
#define MFAD_ENERGY_DESCRIPTION "A (|J|^2 + |J^-1|^2), J = Ds Dm^-1 (2-D); params Dm^-1, A"
#include "tri_frame.h"
static int mfad_energy_rest(const double *r, const double *m, double *p)
{
  (void)m;
  return mfad_tri_frame_rest(r, p);
}
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T Ds[4], J[4], f, dJ, q;
  OP(sub)(&Ds[0], &x[2], &x[0]); /* row 0: x components of x1 - x0, x2 - x0 */
  OP(sub)(&Ds[1], &x[4], &x[0]);
  OP(sub)(&Ds[2], &x[3], &x[1]); /* row 1: y components */
  OP(sub)(&Ds[3], &x[5], &x[1]);
  OP(matmuld)(J, Ds, p, 2);
  OP(det2)(&dJ, J);
  const double d = OP(val)(&dJ);
  if (!(d > 0.0)) { /* flipped, flat or NaN */
    OP(set)(E, INFINITY);
    return;
  }
  const double id2 = 1.0 / (d * d);
  OP(chain1)(&q, &dJ, p[4] * (1.0 + id2), -2.0 * p[4] * id2 / d, 6.0 * p[4] * id2 * id2); /* A (1 + d^-2) */
  OP(frob2)(&f, J, 4);
  OP(mul)(E, &f, &q);
}
#endif
