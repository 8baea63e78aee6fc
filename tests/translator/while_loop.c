/* expect: 7: while loop without a maximum count */
#include <mfad/energy.h>

static double e(const double x[3], const double p[1])
{
  double s = x[0];
  while (s > 1.0) s = s * 0.5;
  return p[0] * s;
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 1, .energy = e};
