/* expect: 8: a system residual (MFAD_SUM_SYSTEM) has one output per unknown */
#include <mfad/energy.h>
static void r(const double x[4], const double p[1], double out[2])
{
  (void)p;
  out[0] = x[0] * x[1], out[1] = x[2] - x[3];
}
const MfadEnergyInfo residual_system_size_info = {
  .vertices = 2, .dof = 2, .residual = r, .outputs = 2, .sum = MFAD_SUM_SYSTEM};
