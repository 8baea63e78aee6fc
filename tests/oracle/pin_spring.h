// SPDX-License-Identifier: BSD-2-Clause
/* pin_spring: a zero-length spring from one vertex to a fixed target point (a soft pin or an
   attachment, moved between solves to drive a boundary),
     E = k/2 |x - t|^2,
   with target t and stiffness k (Baraff & Witkin, "Large steps in cloth simulation", SIGGRAPH
   1998, sec. 4; the penalty form of a positional constraint). Its Hessian is k I.
   Parameters per vertex (4): t (3), k. No rest set-up. */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    1
#define MFAD_ENERGY_DOF         3
#define MFAD_ENERGY_PARAMS      4
#define MFAD_ENERGY_DESCRIPTION "k/2 |x - t|^2; params t (target), k"
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T d[3];
  MFAD_UNROLL for (int i = 0; i < 3; i++) OP(adds)(&d[i], &x[i], -p[i]);
  OP(frob2)(E, d, 3);
  OP(muls)(E, E, 0.5 * p[3]);
}
#endif
