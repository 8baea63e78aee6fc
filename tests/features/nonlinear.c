/* expect: 7: multiplies two values that depend on x: the map must be linear in x */
#include <mfad/energy.h>

static void fmap(const double x[6], const double p[2], double f[3])
{
  for (int i = 0; i < 3; i++) f[i] = x[3 + i] - x[i];
  f[2] = x[0] * x[5];
}
static double psi(const double f[3], const double p[2]) { return p[1] * mfad_dot3(f, f); }
const MfadEnergyInfo e_info = {.vertices = 2, .dof = 3, .params = 2, .features = 3, .feature = fmap, .energy = psi};
