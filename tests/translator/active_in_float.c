/* expect: 6: store it in a double */
#include <mfad/energy.h>

static double e(const double x[3], const double p[1])
{
  float f = x[0] * p[0];
  return f * x[1];
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 1, .energy = e};
