/* expect: 7: array index 'k' depends on the element's unknowns */
#include <mfad/energy.h>

static double e(const double x[3], const double p[2])
{
  const int k = x[0] > 0.0;
  return p[k] * x[1];
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 2, .energy = e};
