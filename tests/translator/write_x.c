/* expect: 10: write to 'x' */
#include <mfad/energy.h>

static void clamp(double a[3])
{
  a[0] = a[0] > 0.0 ? a[0] : 0.0;
}
static double e(const double x[3], const double p[1])
{
  clamp((double *)x);
  return p[0] * x[1] * x[1];
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 1, .energy = e};
