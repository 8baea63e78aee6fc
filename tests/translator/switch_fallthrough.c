/* expect: 8: case falls through into the next one */
#include <mfad/energy.h>

static double e(const double x[3], const double p[1])
{
  double s = x[0];
  switch ((int)p[0]) {
  case 0:
    s = s * x[1];
  case 1:
    s = s + x[2];
    break;
  }
  return s;
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 1, .energy = e};
