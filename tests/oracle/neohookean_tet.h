// SPDX-License-Identifier: BSD-2-Clause
/* neohookean_tet: compressible Neo-Hookean solid on a linear tetrahedron,
     Psi(F) = mu/2 (tr(F^T F) - 3) - mu log J + lambda/2 (log J)^2,   J = det F,
     E      = V Psi(F),   F = Ds Dm^{-1},
   Ds (Dm) the 3 x 3 matrix of current (rest) edge vectors x1 - x0, x2 - x0, x3 - x0 as columns,
   V the rest volume (Bonet & Wood, "Nonlinear Continuum Mechanics for Finite Element Analysis",
   2nd ed. 2008, eq. 6.27; Sifakis & Barbic, "FEM simulation of 3D deformable solids", SIGGRAPH
   course 2012, sec. 4.2 for F = Ds Dm^{-1}). An inverted or flat element (J <= 0) has E = +inf,
   so line searches back off; the log barrier makes E -> +inf as J -> 0+.
   Parameters per element (12): Dm^{-1} (9, row-major), V, mu, lambda.
   Rest set-up: Dm^{-1} and V from the rest positions, (mu, lambda) from the material; it returns
   1 for a non-finite or degenerate rest element (|V| <= 1e-10 Lmax^3) and 2 for an inverted one
   (V < 0: vertices 1, 2, 3 must turn counter-clockwise seen from the side opposite vertex 0). */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    4
#define MFAD_ENERGY_DOF         3
#define MFAD_ENERGY_PARAMS      12
#define MFAD_ENERGY_REST_DIM    3
#define MFAD_ENERGY_MATERIAL    2
#define MFAD_ENERGY_DESCRIPTION "V (mu/2 (|F|^2 - 3) - mu log J + lambda/2 log^2 J), F = Ds Dm^-1; params Dm^-1, V, mu, lambda; material mu, lambda"
#include "tet_rest.h"
static int mfad_energy_rest(const double *r, const double *m, double *p) { return mfad_tet_rest_lame(r, m, p); }
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T            Ds[9], F[9], J, I1, L;
  const double V = p[9], mu = p[10], lambda = p[11];
  MFAD_UNROLL for (int i = 0; i < 3; i++) MFAD_UNROLL for (int j = 0; j < 3; j++) OP(sub)(&Ds[3 * i + j], &x[3 * (j + 1) + i], &x[i]);
  OP(matmuld)(F, Ds, p, 3); /* F = Ds Dm^{-1}, Dm^{-1} constant */
  OP(det3)(&J, F);
  const double j = OP(val)(&J);
  if (!(j > 0.0)) { /* inverted, flat or NaN: never take the log */
    OP(set)(E, INFINITY);
    return;
  }
  /* V (lambda/2 log^2 J - mu log J) through one chain rule: log J computed once, in double */
  const double lj = log(j), ij = 1.0 / j;
  OP(chain1)(&L, &J, V * (0.5 * lambda * lj - mu) * lj, V * (lambda * lj - mu) * ij, V * (lambda * (1.0 - lj) + mu) * ij * ij);
  OP(frob2)(&I1, F, 9); /* tr(F^T F) */
  OP(muls)(E, &I1, 0.5 * mu * V);
  OP(add)(E, E, &L);
  OP(adds)(E, E, -1.5 * mu * V);
}
#endif
