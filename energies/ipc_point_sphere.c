// SPDX-License-Identifier: BSD-2-Clause
/* ipc_point_sphere: the incremental-potential-contact barrier between a point and a fixed sphere
   (an analytic obstacle, as IPC's planes: Li et al. 2020, "Incremental Potential Contact", ACM TOG
   39(4), eq. 6 with the distance to the obstacle),
     E = -kappa (d - dhat)^2 log(d / dhat)   for 0 < d < dhat,   0 for d >= dhat,
   d = (|x - c| - R)^2 the squared distance to the sphere's surface, outside it; E = +inf inside or
   on it (|x - c| <= R): a line search backs off. dhat is a squared distance too.
   Vertices: 1; parameters per element (6): the centre c (3), the radius R, dhat^2, kappa. */
#include <mfad/energy.h>
#include <mfad/contact.h>

static double ipc_point_sphere(const double x[3], const double p[6])
{
  double r[3];
  for (int i = 0; i < 3; i++) r[i] = x[i] - p[i];
  const double gap = sqrt(mfad_dot3(r, r)) - p[3];
  if (!(gap > 0.0)) return INFINITY; /* inside, on it, or NaN */
  return mfad_ipc_barrier(gap * gap, p[4], p[5]);
}

const MfadEnergyInfo ipc_point_sphere_info = {
    .vertices = 1,
    .dof      = 3,
    .params   = 6,
    .energy   = ipc_point_sphere,
    .description =
        "IPC barrier -kappa (d - dhat)^2 log(d / dhat), d the squared distance of a point to a fixed sphere; params centre (3), radius, dhat^2, "
        "kappa",
};
