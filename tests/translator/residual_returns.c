/* expect: 7: a residual returns nothing: it writes its outputs */
#include <mfad/energy.h>
static void r(const double x[2], const double p[1], double out[1])
{
  (void)p;
  out[0] = x[0] * x[1];
  return x[0];
}
const MfadEnergyInfo residual_returns_info = {.vertices = 1, .dof = 2, .residual = r, .outputs = 1};
