// SPDX-License-Identifier: BSD-2-Clause
/* Test residual res_sys: a nonlinear-system residual on a triangle of scalar unknowns (N = 3):
   P1 diffusion, advection (non-symmetric) and a cubic reaction on a fixed triangle given by its
   vertex coordinates p[0..5], velocity p[6..7]. tests/test_residual.c checks every mode. */
#include <mfad/energy.h>

static void res_sys(const double u[3], const double p[8], double r[3])
{
  const double x1 = p[2] - p[0], y1 = p[3] - p[1], x2 = p[4] - p[0], y2 = p[5] - p[1];
  const double det = x1 * y2 - x2 * y1, area = 0.5 * fabs(det);
  /* gradients of the barycentric functions */
  const double gx[3] = {(y1 - y2) / det, y2 / det, -y1 / det};
  const double gy[3] = {(x2 - x1) / det, -x2 / det, x1 / det};
  double       ux = 0.0, uy = 0.0, um = 0.0;
  for (int a = 0; a < 3; a++) {
    ux += u[a] * gx[a];
    uy += u[a] * gy[a];
    um += u[a] / 3.0;
  }
  const double adv = p[6] * ux + p[7] * uy;
  for (int a = 0; a < 3; a++) r[a] = area * ((1.0 + um * um) * (ux * gx[a] + uy * gy[a]) + adv / 3.0 + um * um * um / 3.0);
}

const MfadEnergyInfo res_sys_info = {
  .vertices = 3, .dof = 1, .params = 8, .residual = res_sys, .outputs = 3, .sum = MFAD_SUM_SYSTEM, .description = "test: nonlinear advection-diffusion-reaction"};
