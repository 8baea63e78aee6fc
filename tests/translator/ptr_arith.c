/* expect: 6: pointer arithmetic */
#include <mfad/energy.h>

static double e(const double x[3], const double p[1])
{
  return p[0] * *(x + 2);
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 1, .energy = e};
