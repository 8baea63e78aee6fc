// SPDX-License-Identifier: BSD-2-Clause
/* pin_spring: a zero-length spring from one vertex to a fixed target point (a soft pin or an
   attachment, moved between solves to drive a boundary),
     E = k/2 |x - t|^2,
   with target t and stiffness k (Baraff & Witkin, "Large steps in cloth simulation", SIGGRAPH
   1998, sec. 4; the penalty form of a positional constraint). Its Hessian is k I.
   Parameters per vertex (4): t (3), k. No rest set-up. */
#include <mfad/energy.h>

static double pin_spring(const double x[3], const double p[4])
{
  double d[3];
  for (int i = 0; i < 3; i++) d[i] = x[i] - p[i];
  return 0.5 * p[3] * mfad_frob2(d, 3);
}

const MfadEnergyInfo pin_spring_info = {
    .vertices    = 1,
    .dof         = 3,
    .params      = 4,
    .energy      = pin_spring,
    .description = "k/2 |x - t|^2; params t (target), k",
};
