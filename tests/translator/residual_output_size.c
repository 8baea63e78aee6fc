/* expect: 3: 'out' has 2 entries but the residual has 3 outputs (.outputs) */
#include <mfad/energy.h>
static void r(const double x[2], const double p[1], double out[2])
{
  (void)p;
  out[0] = x[0] * x[1], out[1] = x[0];
}
const MfadEnergyInfo residual_output_size_info = {.vertices = 1, .dof = 2, .residual = r, .outputs = 3};
