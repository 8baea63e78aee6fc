// SPDX-License-Identifier: BSD-2-Clause
/* stvk_tet: the St. Venant-Kirchhoff solid on a linear tetrahedron,
     Psi(F) = mu |G|^2 + lambda/2 tr(G)^2,   G = 1/2 (F^T F - I) (Green-Lagrange strain),
     E = V Psi(F),   F = Ds Dm^{-1} as in neohookean_tet.h
   (Bonet & Wood, "Nonlinear Continuum Mechanics for Finite Element Analysis", 2nd ed. 2008,
   sec. 6.4.1; Sifakis & Barbic, "FEM simulation of 3D deformable solids", SIGGRAPH course 2012,
   sec. 3.3). A polynomial in x: finite and smooth everywhere, no barrier. It does not resist
   inversion (Psi vanishes at F = -I too) and softens under strong compression: fine for large
   rotations with moderate strains.
   Parameters per element (12): Dm^{-1} (9, row-major), V, mu, lambda.
   Rest set-up: as neohookean_tet (tet_rest.h); material mu, lambda. */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    4
#define MFAD_ENERGY_DOF         3
#define MFAD_ENERGY_PARAMS      12
#define MFAD_ENERGY_REST_DIM    3
#define MFAD_ENERGY_MATERIAL    2
#define MFAD_ENERGY_DESCRIPTION "V (mu |G|^2 + lambda/2 tr^2 G), G = (F^T F - I)/2, F = Ds Dm^-1; params Dm^-1, V, mu, lambda; material mu, lambda"
#include "tet_rest.h"
static int mfad_energy_rest(const double *r, const double *m, double *p) { return mfad_tet_rest_lame(r, m, p); }
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T            Ds[9], F[9], C[9], G2, tr, t;
  const double V = p[9], mu = p[10], lambda = p[11];
  MFAD_UNROLL for (int i = 0; i < 3; i++) MFAD_UNROLL for (int j = 0; j < 3; j++) OP(sub)(&Ds[3 * i + j], &x[3 * (j + 1) + i], &x[i]);
  OP(matmuld)(F, Ds, p, 3);
  OP(tmatmul)(C, F, F, 3);
  MFAD_UNROLL for (int i = 0; i < 3; i++) OP(adds)(&C[4 * i], &C[4 * i], -1.0); /* 2 G = C - I */
  OP(frob2)(&G2, C, 9);                                                           /* 4 |G|^2 */
  OP(add)(&tr, &C[0], &C[4]);
  OP(add)(&tr, &tr, &C[8]); /* 2 tr G */
  OP(muls)(E, &G2, 0.25 * mu * V);
  OP(sqr)(&t, &tr);
  OP(muls)(&t, &t, 0.125 * lambda * V);
  OP(add)(E, E, &t);
}
#endif
