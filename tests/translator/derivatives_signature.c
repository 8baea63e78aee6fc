/* expect: 5: 'sq_d1' of MFAD_DERIVATIVES(sq, sq_d1, sq_d2) must be 'double sq_d1(double)' */
#include <mfad/energy.h>

static double sq(double t) { return t * t; }
static double sq_d1(double t, double s) { return 2.0 * t + s; }
static double sq_d2(double t) { return 2.0 + 0.0 * t; }
MFAD_DERIVATIVES(sq, sq_d1, sq_d2);

static double        e(const double x[3], const double p[1]) { return p[0] * sq(x[0] * x[1]) + x[2]; }
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 1, .energy = e};
