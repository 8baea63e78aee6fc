/* warning: 7: unused variable 'unused' */
#include <mfad/energy.h>

static double e(const double x[3], const double p[1])
{
  const double s = p[0];
  double unused = 2.0;
  return s * x[0] * x[0];
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 1, .energy = e};
