// SPDX-License-Identifier: BSD-2-Clause
/* corotated_tet: corotated linear elasticity on a linear tetrahedron,
     Psi(F) = mu |F - R|^2 + lambda/2 tr(R^T F - I)^2,   F = R S (polar decomposition),
     E = V Psi(F),   F = Ds Dm^{-1} as in neohookean_tet.h
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
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    4
#define MFAD_ENERGY_DOF         3
#define MFAD_ENERGY_PARAMS      12
#define MFAD_ENERGY_REST_DIM    3
#define MFAD_ENERGY_MATERIAL    2
#define MFAD_ENERGY_DESCRIPTION "V (mu |F - R|^2 + lambda/2 tr^2(R^T F - I)), F = R S, F = Ds Dm^-1; params Dm^-1, V, mu, lambda; material mu, lambda"
#include "tet_rest.h"
static int mfad_energy_rest(const double *r, const double *m, double *p) { return mfad_tet_rest_lame(r, m, p); }
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T            Ds[9], F[9], C[9], J, I1, I2, t, s;
  const double V = p[9], mu = p[10], lambda = p[11];
  MFAD_UNROLL for (int i = 0; i < 3; i++) MFAD_UNROLL for (int j = 0; j < 3; j++) OP(sub)(&Ds[3 * i + j], &x[3 * (j + 1) + i], &x[i]);
  OP(matmuld)(F, Ds, p, 3);
  OP(det3)(&J, F);
  OP(frob2)(&I1, F, 9);
  OP(tmatmul)(C, F, F, 3);
  OP(frob2)(&t, C, 9); /* tr(C^2), C symmetric */
  OP(sqr)(&I2, &I1);
  OP(sub)(&I2, &I2, &t);
  OP(muls)(&I2, &I2, 0.5);
  /* the largest root of f in double */
  const double i1 = OP(val)(&I1), i2 = OP(val)(&I2), j = OP(val)(&J);
  double       sv = sqrt(3.0 * i1), fp = 0.0;
  for (int it = 0; it < 200; it++) {
    const double a = sv * sv - i1, f = 0.25 * a * a - 2.0 * j * sv - i2;
    fp = sv * a - 2.0 * j;
    if (!(fp > 0.0)) break;
    const double ds = f / fp;
    sv -= ds;
    if (!(fabs(ds) > 1e-15 * sv)) break;
  }
  /* f'(s) = 2 (s1 + s2)(s2 + s3)(s3 + s1) relative to its scale I_C^{3/2}: zero (rank <= 1 or the
     inverted kink) or NaN gives +inf */
  if (!(fp > 1e-12 * i1 * sqrt(i1))) {
    OP(set)(E, INFINITY);
    return;
  }
  OP(set)(&s, sv);
  MFAD_UNROLL for (int it = 0; it < 2; it++) { /* s <- s - f(s) / f'(s) in AD arithmetic */
    T a, f, d, u;
    OP(sqr)(&a, &s);
    OP(sub)(&a, &a, &I1); /* s^2 - I_C */
    OP(sqr)(&f, &a);
    OP(muls)(&f, &f, 0.25);
    OP(mul)(&u, &s, &J);
    OP(muls)(&u, &u, -2.0);
    OP(add)(&f, &f, &u);
    OP(sub)(&f, &f, &I2);
    OP(mul)(&d, &s, &a);
    OP(muls)(&u, &J, -2.0);
    OP(add)(&d, &d, &u);
    OP(div)(&u, &f, &d);
    OP(sub)(&s, &s, &u);
  }
  /* V (mu (I_C - 2 s + 3) + lambda/2 (s - 3)^2) */
  OP(adds)(&t, &s, -3.0);
  OP(sqr)(&t, &t);
  OP(muls)(E, &t, 0.5 * lambda * V);
  OP(muls)(&t, &s, -2.0);
  OP(add)(&t, &t, &I1);
  OP(adds)(&t, &t, 3.0);
  OP(muls)(&t, &t, mu * V);
  OP(add)(E, E, &t);
}
#endif
