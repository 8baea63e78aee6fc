/* expect: 10: write to 'p' */
#include <mfad/energy.h>

static void twice(double a[1])
{
  a[0] = 2.0 * a[0];
}
static double e(const double x[3], const double p[1])
{
  twice((double *)p);
  return p[0] * x[1];
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 1, .energy = e};
