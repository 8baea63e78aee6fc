// SPDX-License-Identifier: BSD-2-Clause
/* arap_tri_lsq: energies/arap_tri.c as a least-squares residual per triangle,
     r = sqrt(A) (J - R(J))   (4 outputs, J row-major),
   J = Ds Dm^{-1} (2 x 2), A the rest area, R(J) the rotation closest to J: the one of angle
   atan2(J10 - J01, J00 + J11), c = a / sqrt(a^2 + b^2), s = b / sqrt(a^2 + b^2) with a = J00 + J11,
   b = J10 - J01. Then 1/2 |r|^2 = 1/2 A |J - R(J)|^2 = 1/2 arap_tri: the same minimiser, and a
   least-squares term of weight 2 is arap_tri exactly. Its "Hessian" (mfad's least-squares sum) is the
   Gauss-Newton matrix J_r^T J_r, always positive semi-definite (no projection needed), equal to the
   true Hessian where r = 0 (rigid triangles); R is differentiated as a function of J, so J_r is the
   Jacobian of the residual itself, not the local-global method's frozen-rotation one.
   Where a = b = 0 every rotation is equally close (|J - R|^2 = |J|^2 + 2 for all R): R = I is used
   there, with the derivative of c, s taken as 0 (arap_tri's convention at the same points).
   Parameters per element (5): Dm^{-1} (4, row-major), A. Rest set-up: energies/tri_frame.h. */
#include <mfad/energy.h>
#include "tri_frame.h"

static void arap_tri_lsq(const double x[6], const double p[5], double r[4])
{
  double Ds[4], J[4];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) Ds[2 * i + j] = x[2 * (j + 1) + i] - x[i];
  mfad_matmul(J, Ds, p, 2); /* J = Ds Dm^{-1} */
  const double a = J[0] + J[3], b = J[2] - J[1], n2 = a * a + b * b, sa = sqrt(p[4]);
  double       c = 1.0, s = 0.0;
  if (n2 > 0.0) {
    const double n = sqrt(n2);
    c              = a / n;
    s              = b / n;
  }
  r[0] = sa * (J[0] - c); /* R = [c -s; s c] */
  r[1] = sa * (J[1] + s);
  r[2] = sa * (J[2] - s);
  r[3] = sa * (J[3] - c);
}

static int arap_tri_lsq_rest(const double r[9], const double m[1], double p[5])
{
  (void)m;
  return mfad_tri_frame_rest(r, p);
}

const MfadEnergyInfo arap_tri_lsq_info = {
    .vertices    = 3,
    .dof         = 2,
    .params      = 5,
    .rest_dim    = 3,
    .residual    = arap_tri_lsq,
    .outputs     = 4,
    .rest        = arap_tri_lsq_rest,
    .description = "least squares r = sqrt(A) (J - R(J)), R the closest rotation: 1/2 |r|^2 = 1/2 arap_tri (2-D); params Dm^-1, A",
};
