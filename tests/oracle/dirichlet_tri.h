// SPDX-License-Identifier: BSD-2-Clause
/* dirichlet_tri: the Dirichlet energy of a map of a triangle into 3-D (mesh smoothing, harmonic
   maps),
     E = A/2 |J|_F^2,   J = Ds Dm^{-1} (3 x 2),
   Ds the 3 x 2 matrix of current edge vectors x1 - x0, x2 - x0, Dm (2 x 2) the rest ones in an
   orthonormal frame of the rest triangle's plane, A the rest area. Equivalently the cotangent
   formula E = 1/4 sum_i cot(theta_i) |e_i|^2 over the edges e_i opposite the rest angles theta_i
   (Pinkall & Polthier 1993, "Computing discrete minimal surfaces and their conjugates", Exp. Math.
   2(1); Desbrun et al. 1999, "Implicit fairing", SIGGRAPH). Quadratic in x: its Hessian is
   the cotangent Laplacian of the rest mesh, one copy per coordinate. E = 0 for a constant map,
   E = A for the identity of the rest triangle (|J|_F^2 = 2).
   dof 3: the map is the surface itself (smoothing moves vertices in space); a dof-2 (planar) map
   is the same formula with a zero third row, which the planar examples do not need.
   Parameters per element (5): Dm^{-1} (4, row-major), A. Rest set-up: energies/tri_frame.h. */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    3
#define MFAD_ENERGY_DOF         3
#define MFAD_ENERGY_PARAMS      5
#define MFAD_ENERGY_REST_DIM    3
#define MFAD_ENERGY_MATERIAL    0
#define MFAD_ENERGY_DESCRIPTION "A/2 |Ds Dm^-1|^2 (cotangent Dirichlet, 3-D map); params Dm^-1, A"
#include "tri_frame.h"
static int mfad_energy_rest(const double *r, const double *m, double *p)
{
  (void)m;
  return mfad_tri_frame_rest(r, p);
}
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T d1, d2, J[6], s, t;
  MFAD_UNROLL for (int c = 0; c < 3; c++) { /* row c of J: (x1 - x0, x2 - x0)_c Dm^{-1} */
    OP(sub)(&d1, &x[3 + c], &x[c]);
    OP(sub)(&d2, &x[6 + c], &x[c]);
    OP(muls)(&s, &d1, p[0]);
    OP(muls)(&t, &d2, p[2]);
    OP(add)(&J[2 * c], &s, &t);
    OP(muls)(&s, &d1, p[1]);
    OP(muls)(&t, &d2, p[3]);
    OP(add)(&J[2 * c + 1], &s, &t);
  }
  OP(frob2)(E, J, 6);
  OP(muls)(E, E, 0.5 * p[4]);
}
#endif
