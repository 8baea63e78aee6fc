/* expect: 9: .features = 7; an energy at features has 1 to 6 */
#include <mfad/energy.h>

static void fmap(const double x[6], const double p[2], double f[3])
{
  for (int i = 0; i < 3; i++) f[i] = x[3 + i] - x[i];
}
static double psi(const double f[3], const double p[2]) { return p[1] * mfad_dot3(f, f); }
const MfadEnergyInfo e_info = {.vertices = 2, .dof = 3, .params = 2, .features = 7, .feature = fmap, .energy = psi};
