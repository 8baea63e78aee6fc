/* expect: 8: the maximum count must be a positive integer constant */
#include <mfad/energy.h>

static double e(const double x[3], const double p[1])
{
  double    s = x[0];
  const int n = (int)p[0];
  MFAD_MAX_ITERATIONS(n);
  while (s > 1.0) s = s * 0.5;
  return s;
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 1, .energy = e};
