/* expect: 8: call to unknown function 'softplus' */
#include <mfad/energy.h>

double softplus(double);

static double e(const double x[3], const double p[1])
{
  return p[0] * softplus(x[0]);
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 1, .energy = e};
