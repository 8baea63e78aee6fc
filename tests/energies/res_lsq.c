// SPDX-License-Identifier: BSD-2-Clause
/* Test residual res_lsq: a least-squares residual of 5 outputs on a 2-D triangle (3 vertices x 2
   dofs): edge lengths against rest lengths, the signed area against a rest area, and a smooth
   nonlinear term that couples all unknowns. tests/test_residual.c checks every mode. */
#include <mfad/energy.h>

static double edge(const double x[6], int a, int b)
{
  const double dx = x[2 * b] - x[2 * a], dy = x[2 * b + 1] - x[2 * a + 1];
  return sqrt(dx * dx + dy * dy);
}

static void res_lsq(const double x[6], const double p[4], double r[5])
{
  for (int k = 0; k < 3; k++) r[k] = edge(x, k, (k + 1) % 3) - p[k];
  const double area = 0.5 * ((x[2] - x[0]) * (x[5] - x[1]) - (x[4] - x[0]) * (x[3] - x[1]));
  r[3] = area / p[3] - 1.0;
  r[4] = exp(0.3 * x[0] * x[3]) * sin(x[1] + x[4]) + x[5] / (2.0 + x[2] * x[2]);
}

const MfadEnergyInfo res_lsq_info = {
  .vertices = 3, .dof = 2, .params = 4, .residual = res_lsq, .outputs = 5, .description = "test: edge, area and coupling residuals"};
