/* expect: 6: index 2 of 'out' is out of range */
#include <mfad/energy.h>
static void r(const double x[2], const double p[1], double out[2])
{
  (void)p;
  out[2] = x[0] * x[1];
}
const MfadEnergyInfo residual_output_past_end_info = {.vertices = 1, .dof = 2, .residual = r, .outputs = 2};
