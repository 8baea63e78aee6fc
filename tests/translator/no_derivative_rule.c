/* expect: 6: no derivative rule for floor() */
#include <mfad/energy.h>

static double e(const double x[3], const double p[1])
{
  return p[0] * floor(x[0]);
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 1, .energy = e};
