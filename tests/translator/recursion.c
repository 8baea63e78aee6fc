/* expect: 6: recursion (sum -> sum) */
#include <mfad/energy.h>

static double sum(const double a[3], int n)
{
  return n == 0 ? a[0] : a[n] + sum(a, n - 1);
}
static double e(const double x[3], const double p[1])
{
  return p[0] * sum(x, 2);
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 1, .energy = e};
