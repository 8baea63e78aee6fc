/* expect: 6: index 2 of 'p' is out of range (2 entries) */
#include <mfad/energy.h>

static double e(const double x[3], const double p[2])
{
  return p[2] * x[0] * x[0];
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 2, .energy = e};
