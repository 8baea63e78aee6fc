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

/* the wall: the first t at which x + t d reaches the sphere (|x + t d - c|^2 = R^2, a quadratic
   a t^2 + b t + q with q > 0 outside; its first positive root, 2q / (-b + sqrt(D)) without
   cancellation), +inf if the line misses it or moves away */
static double ipc_point_sphere_step(const double x[3], const double d[3], const double p[6])
{
  double r[3];
  for (int i = 0; i < 3; i++) r[i] = x[i] - p[i];
  const double a = mfad_dot3(d, d), b = 2.0 * mfad_dot3(r, d), q = mfad_dot3(r, r) - p[3] * p[3];
  if (!(q > 0.0)) return 0.0; /* inside already: no valid step */
  if (!(b < 0.0) || !(a > 0.0)) return INFINITY;
  const double disc = b * b - 4.0 * a * q;
  if (disc < 0.0) return INFINITY;
  return 2.0 * q / (-b + sqrt(disc));
}

const MfadEnergyInfo ipc_point_sphere_info = {
    .vertices = 1,
    .dof      = 3,
    .params   = 6,
    .energy   = ipc_point_sphere,
    .reverse  = MFAD_REVERSE_NEVER, /* its barrier helper returns early outside dhat, which the adjoint sweep does not take (a helper must return only
                                       at its end) */
    .step = ipc_point_sphere_step,
    .description =
        "IPC barrier -kappa (d - dhat)^2 log(d / dhat), d the squared distance of a point to a fixed sphere; params centre (3), radius, dhat^2, "
        "kappa",
};
