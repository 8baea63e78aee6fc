// SPDX-License-Identifier: BSD-2-Clause
/* Test energy sqrt_well: E = a x / 2 - 2 sqrt(x) on one scalar vertex (parameter a), convex on
   x > 0 with its minimum at x = 4 / a^2, and NaN for x < 0: Newton's full step from x = 16 (a = 1)
   lands at x = -16. tests/test_trial_nan.c checks what a solve says when it fails there. */
#include <mfad/energy.h>

static double sqrt_well(const double x[1], const double p[1]) { return 0.5 * p[0] * x[0] - 2.0 * sqrt(x[0]); }

const MfadEnergyInfo sqrt_well_info = {
    .vertices = 1, .dof = 1, .params = 1, .energy = sqrt_well, .description = "test: a x / 2 - 2 sqrt(x), NaN for x < 0"};
