/* expect: 7: index 6 of 'x' is out of range (6 entries) at i = 1 */
#include <mfad/energy.h>

static double e(const double x[6], const double p[1])
{
  double s = 0.0;
  for (int i = 0; i < 2; i++) s += x[3 * i + 3] * p[0];
  return s;
}
const MfadEnergyInfo e_info = {.vertices = 2, .dof = 3, .params = 1, .energy = e};
