/* expect: 7: loop bound */
#include <mfad/energy.h>

static double e(const double x[3], const double p[1])
{
  double s = 0.0;
  for (int i = 0; i < x[0]; i++) s += p[0] * x[1];
  return s;
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 1, .energy = e};
