// SPDX-License-Identifier: BSD-2-Clause
/* The P1 element residual of steady nonlinear advection-diffusion-reaction on a triangle
       -div((1 + k u^2) grad u) + b . grad u + c u^3 = f,
   r_a = int_T (1 + k u^2) grad u . grad phi_a + (b . grad u) phi_a + (c u^3 - f) phi_a,
   u = sum_a u_a phi_a. grad u and grad phi_a are constant on T; the u-dependent integrands and f
   use the 3-point rule at barycentric (2/3, 1/6, 1/6) and its permutations (weights |T|/3, exact
   for degree 2: the rule of the classical O(h^2) L2 estimate for P1 with quadrature). The
   advection term makes the Jacobian non-symmetric. Parameters per element (13):
     p[0..5]   vertex coordinates x0 y0 x1 y1 x2 y2
     p[6..7]   velocity b
     p[8], p[9] k (nonlinear diffusion), c (cubic reaction)
     p[10..12] f at the 3 quadrature points (point q nearest vertex q) */
#include <mfad/energy.h>

static void advdiff_tri(const double u[3], const double p[13], double r[3])
{
  const double x1 = p[2] - p[0], y1 = p[3] - p[1], x2 = p[4] - p[0], y2 = p[5] - p[1];
  const double det = x1 * y2 - x2 * y1, w = fabs(det) / 6.0; /* quadrature weight |T| / 3 */
  /* gradients of the barycentric functions phi_0, phi_1, phi_2 */
  const double gx[3] = {(y1 - y2) / det, y2 / det, -y1 / det};
  const double gy[3] = {(x2 - x1) / det, -x2 / det, x1 / det};
  double       ux = 0.0, uy = 0.0, kappa = 0.0;
  for (int a = 0; a < 3; a++) {
    ux += u[a] * gx[a];
    uy += u[a] * gy[a];
  }
  const double adv = p[6] * ux + p[7] * uy;
  for (int a = 0; a < 3; a++) r[a] = w * adv; /* sum_q phi_a(q) = 1 */
  for (int q = 0; q < 3; q++) {
    const double uq = (u[0] + u[1] + u[2]) / 6.0 + 0.5 * u[q]; /* u at the point nearest vertex q */
    const double s  = w * (p[9] * uq * uq * uq - p[10 + q]);
    kappa += w * (1.0 + p[8] * uq * uq);
    for (int a = 0; a < 3; a++) r[a] += (a == q ? 2.0 / 3.0 : 1.0 / 6.0) * s;
  }
  for (int a = 0; a < 3; a++) r[a] += kappa * (ux * gx[a] + uy * gy[a]);
}

const MfadEnergyInfo advdiff_tri_info = {.vertices    = 3,
                                         .dof         = 1,
                                         .params      = 13,
                                         .residual    = advdiff_tri,
                                         .outputs     = 3,
                                         .sum         = MFAD_SUM_SYSTEM,
                                         .description = "P1 -div((1 + k u^2) grad u) + b . grad u + c u^3 - f (params: coords, b, k, c, f at 3 points)"};
