/* expect: 7: goto */
#include <mfad/energy.h>

static double e(const double x[3], const double p[1])
{
  double s = x[0];
  if (s > 0.0) goto done;
  s = -s;
done:
  return p[0] * s;
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 1, .energy = e};
