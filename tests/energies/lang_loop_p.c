// SPDX-License-Identifier: BSD-2-Clause
/* Test energy lang_loop_p (tests/test_lang.c): a loop bound read from the parameters (p[0] terms),
   the comma operator in a for loop's declaration and step, a file-scope table indexed by the
   counter. No features: forward over forward (the adjoint sweep needs constant bounds). Params: 2. */
#include <mfad/energy.h>

static const double C[3] = {1.0, 0.5, 2.0};

static double lang_loop_p(const double x[3], const double p[2])
{
  const int n = (int)p[0];
  double    E = 0.0;
  for (int k = 0, m = 1; k < n; k++, m += 2) E += C[k % 3] * x[k % 3] * x[(k + 1) % 3] / m;
  return E + p[1] * x[0] * x[0] * x[0] * x[0];
}

/* a loop bound read from p: forward over forward (the adjoint sweep unrolls constant bounds only);
   declared, so that the build says nothing (without it: a warning at the loop) */
const MfadEnergyInfo lang_loop_p_info = {.vertices = 1, .dof = 3, .params = 2, .energy = lang_loop_p, .reverse = MFAD_REVERSE_NEVER};
