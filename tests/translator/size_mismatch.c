/* expect: 4: 'x' has 6 entries but the energy has 9 unknowns */
#include <mfad/energy.h>

static double e(const double x[6], const double p[1])
{
  return p[0] * x[0];
}
const MfadEnergyInfo e_info = {.vertices = 3, .dof = 3, .params = 1, .energy = e};
