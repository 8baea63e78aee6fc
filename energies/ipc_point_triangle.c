// SPDX-License-Identifier: BSD-2-Clause
/* ipc_point_triangle: the incremental-potential-contact barrier between a point and a triangle
   (Li et al. 2020, "Incremental Potential Contact", ACM TOG 39(4), eq. 6),
     E = -kappa (d - dhat)^2 log(d / dhat)   for 0 < d < dhat,   0 for d >= dhat,
   d the squared distance of the pair's distance type (include/mfad/contact.h: point-vertex,
   point-edge line or point-plane), chosen when the pair was detected (MfadContactDetect()) and kept
   while the pair set is, so that E is smooth (C2 at d = dhat); dhat a squared distance too.
   E = +inf at d <= 0 (touching, or passed through with a fixed type): line searches back off, and
   MfadContactStepBound() keeps trial steps from passing through between detections.
   Vertices (p, t0, t1, t2); parameters per element (3): type (MFAD_PT_*), dhat^2, kappa. */
#include <mfad/energy.h>
#include <mfad/contact.h>

static double ipc_point_triangle(const double x[12], const double p[3])
{
  const double d = mfad_ipc_pt_distance2((int)p[0], x);
  return mfad_ipc_barrier(d, p[1], p[2]);
}

const MfadEnergyInfo ipc_point_triangle_info = {
    .vertices = 4,
    .dof      = 3,
    .params   = 3,
    .energy   = ipc_point_triangle,
    .reverse  = MFAD_REVERSE_NEVER, /* its distance helper returns by case (the point-triangle types), which the adjoint sweep does not take (a helper
                                       must return only at its end) */
    .description = "IPC barrier -kappa (d - dhat)^2 log(d / dhat), d the squared point-triangle distance of a fixed type; params type, dhat^2, kappa",
};
