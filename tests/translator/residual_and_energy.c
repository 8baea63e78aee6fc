/* expect: 9: needs one of .energy (a scalar energy) and .residual */
#include <mfad/energy.h>
static double e(const double x[2], const double p[1]) { (void)p; return x[0] * x[1]; }
static void   r(const double x[2], const double p[1], double out[1])
{
  (void)p;
  out[0] = x[0] * x[1];
}
const MfadEnergyInfo residual_and_energy_info = {.vertices = 1, .dof = 2, .energy = e, .residual = r, .outputs = 1};
