// SPDX-License-Identifier: BSD-2-Clause
/* corotated_tet: corotated linear elasticity on a linear tetrahedron,
     Psi(F) = mu |F - R|^2 + lambda/2 tr(R^T F - I)^2,   F = R S (polar decomposition),
     E = V Psi(F),   F = Ds Dm^{-1} as in neohookean_tet.c
   (McAdams et al., "Efficient elasticity for character skinning with contact and collisions",
   ACM TOG 30(4) 2011, eq. 1; Sifakis & Barbic, SIGGRAPH course 2012, sec. 3.4), with R the
   rotation of F (det R = +1, so an inverted element is pushed back: Irving et al. 2004).
   AD-safe polar decomposition in closed form: with s = tr(R^T F) = tr S = s1 + s2 + s3 (the
   singular values of F, the smallest one negated when det F < 0),
     |F - R|^2 = I_C - 2 s + 3,   tr(R^T F - I) = s - 3,   I_C = tr(F^T F),
   so Psi = mu (I_C - 2 s + 3) + lambda/2 (s - 3)^2 needs s, not R. s is the largest root of
     f(s) = (s^2 - I_C)^2 / 4 - 2 J s - II_C = 0,   II_C = (I_C^2 - tr(C^2)) / 2,   J = det F,
   (from I_C = s^2 - 2 i2, II_C = i2^2 - 2 s J, i2 = s1 s2 + s2 s3 + s3 s1: the invariants
   relations of Hoger & Carlson, "Determination of the stretch and rotation in the polar
   decomposition of the deformation gradient", Q. Appl. Math. 42 1984). It is found in double by
   Newton's method from s0 = sqrt(3 I_C) >= s (monotone: f is convex right of its largest root),
   then two Newton steps are taken in AD arithmetic from the converged value: the first makes the
   first derivatives exact, the second the second derivatives (each step squares the error in
   the derivative part). f'(s) = s (s^2 - I_C) - 2 J = 2 (s1 + s2)(s2 + s3)(s3 + s1) (signed
   values) is > 0 for every non-inverted F of rank >= 2: there s, hence E, is smooth (analytic),
   the rest shape (F = I, all singular values equal) included, where eigenvalue formulas are not.
   Not smooth, and E = +inf here so that solvers back off: f'(s) = 0, i.e. F of rank <= 1, or an
   inverted F whose two smallest singular values coincide (the polar decomposition's own kink).
   Parameters per element (12): Dm^{-1} (9, row-major), V, mu, lambda.
   Rest set-up: as neohookean_tet (tet_rest.h); material mu, lambda. */
#include <mfad/energy.h>
#include "tet_rest.h"

/* psi(F, p), F = Ds Dm^{-1} the features (mfad_tet_F, tet_rest.h) */
static double corotated_tet(const double F[9], const double p[12])
{
  double C[9];
  mfad_tmatmul(C, F, F, 3); /* C = F^T F */
  const double V = p[9], mu = p[10], lambda = p[11];
  const double J = mfad_det3(F), IC = mfad_frob2(F, 9), IIC = (IC * IC - mfad_frob2(C, 9)) / 2.0; /* tr(C^2) = |C|^2, C symmetric */
  /* the largest root of f on values only */
  const double ic = mfad_value(IC), iic = mfad_value(IIC), j = mfad_value(J);
  double       s0 = sqrt(3.0 * ic), fp = 0.0;
  for (int it = 0; it < 200; it++) {
    const double a = s0 * s0 - ic, f = 0.25 * a * a - 2.0 * j * s0 - iic;
    fp = s0 * a - 2.0 * j;
    if (!(fp > 0.0)) break;
    const double ds = f / fp;
    s0 -= ds;
    if (!(fabs(ds) > 1e-15 * s0)) break;
  }
  /* f'(s) = 2 (s1 + s2)(s2 + s3)(s3 + s1) relative to its scale I_C^{3/2}: zero (rank <= 1 or the
     inverted kink) or NaN gives +inf */
  if (!(fp > 1e-12 * ic * sqrt(ic))) return INFINITY;
  double s = s0;
  for (int it = 0; it < 2; it++) { /* s <- s - f(s) / f'(s) with derivatives */
    const double a = s * s - IC, f = a * a / 4.0 - 2.0 * J * s - IIC, df = s * a - 2.0 * J;
    s -= f / df;
  }
  const double FR2 = IC - 2.0 * s + 3.0; /* |F - R|^2 */
  return V * (mu * FR2 + 0.5 * lambda * (s - 3.0) * (s - 3.0));
}

const MfadEnergyInfo corotated_tet_info = {
    .vertices    = 4,
    .dof         = 3,
    .params      = 12,
    .rest_dim    = 3,
    .material    = 2,
    .features    = 9,
    .feature     = mfad_tet_F,
    .energy      = corotated_tet,
    .rest        = mfad_tet_rest_lame,
    .description = "V (mu |F - R|^2 + lambda/2 tr^2(R^T F - I)), F = R S, F = Ds Dm^-1; params Dm^-1, V, mu, lambda; material mu, lambda",
};
