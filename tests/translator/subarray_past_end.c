/* expect: 8: entries 4 to 6 of 'x' are out of range */
#include <mfad/energy.h>

static double e(const double x[6], const double p[1])
{
  double d[3];
  /* x[4], x[5], x[6]: one past the end */
  mfad_sub3(d, &x[4], &x[0]);
  return p[0] * mfad_dot3(d, d);
}
const MfadEnergyInfo e_info = {.vertices = 2, .dof = 3, .params = 1, .energy = e};
