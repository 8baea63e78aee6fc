// SPDX-License-Identifier: BSD-2-Clause
/* arap_surface_rc: energies/arap_surface.c in a moving rotation chart. Each end of each edge
   compares d_ab with R(u_a) f_ab^a, where f_ab^a = R0_a e_ab is the rest edge turned by the end's
   base rotation R0_a: the rotation is R(u) R0, and u stays near 0 when the example folds R(u)
   into R0 after every step (the Cayley map is singular at pi, where rotations of the bend go).
   Parameters per element (21): f_k^k, f_k^(k+1) for each edge k (18), c_01, c_12, c_20. */
#include <mfad/energy.h>

static void arap_rc_rotate(double r[3], const double u[3], double uu, double s, const double e[3])
{
  const double ue = u[0] * e[0] + u[1] * e[1] + u[2] * e[2];
  for (int c = 0; c < 3; c++) {
    const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
    r[c] = e[c] + s * (u[c1] * e[c2] - u[c2] * e[c1] + u[c] * ue - uu * e[c]);
  }
}

static double arap_surface_rc(const double x[18], const double p[21])
{
  double uu[3], s[3], E = 0.0;
  for (int a = 0; a < 3; a++) {
    uu[a] = mfad_dot3(&x[9 + 3 * a], &x[9 + 3 * a]);
    s[a]  = 2.0 / (1.0 + uu[a]);
  }
  for (int k = 0; k < 3; k++) {
    const int b = (k + 1) % 3;
    double    d[3], r[3];
    mfad_sub3(d, &x[3 * b], &x[3 * k]);
    for (int end = 0; end < 2; end++) {
      const int a = end ? b : k;
      arap_rc_rotate(r, &x[9 + 3 * a], uu[a], s[a], &p[6 * k + 3 * end]);
      for (int c = 0; c < 3; c++) {
        const double t = d[c] - r[c];
        E += p[18 + k] * t * t;
      }
    }
  }
  return E;
}

const MfadEnergyInfo arap_surface_rc_info = {
    .vertices      = 6,
    .cell_vertices = 3,
    .dof           = 3,
    .params        = 21,
    .energy        = arap_surface_rc,
    .description   = "arap_surface with per-end base rotations: params R0_a e (18), c (3)",
};
