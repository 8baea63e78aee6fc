/* expect: 3: residual 'r' must be 'void r(const double x[2], const double p[0], double r[1])' */
#include <mfad/energy.h>
static double r(const double x[2], const double p[1], double out[1])
{
  (void)p;
  out[0] = x[0] * x[1];
  return 0.0;
}
const MfadEnergyInfo residual_signature_info = {.vertices = 1, .dof = 2, .residual = r, .outputs = 1};
