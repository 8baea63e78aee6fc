/* expect: 8: a residual has 1 to 24 outputs per element */
#include <mfad/energy.h>
static void r(const double x[2], const double p[1], double out[30])
{
  (void)p;
  for (int i = 0; i < 30; i++) out[i] = x[0] * i;
}
const MfadEnergyInfo residual_outputs_range_info = {
  .vertices = 1, .dof = 2, .residual = r, .outputs = 30};
