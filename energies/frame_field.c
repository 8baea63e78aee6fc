// SPDX-License-Identifier: BSD-2-Clause
/* frame_field: smoothness of an n-RoSy (e.g. 4-RoSy cross) field between two adjacent faces f, g,
   each face's field stored as one complex number u = u0 + i u1 (the n-th power of a unit tangent
   direction in the face's own tangent frame: the "vertices" of this kernel are faces, dof 2),
     E = w |u_g - r u_f|^2,   r = e^{i n theta_fg} = c + i s,
   theta_fg the angle of the discrete Levi-Civita transport from f's tangent frame to g's (the
   rotation about their shared edge, expressed in the two frames), w a weight (e.g. the dual edge
   length over the edge length, or 1). Summed over interior edges it is the connection Dirichlet
   energy of Knöppel et al. 2013, "Globally optimal direction fields", ACM TOG 32(4) (also
   TinyAD's frame field example, Schmidt et al. 2022). Quadratic; E = 0 for a field that is parallel
   along the edge (u_g = r u_f), E invariant under a common rotation of both u.
   Parameters per element (3): c, s (r = c + i s; |r| = 1 for a rotation), w. No rest set-up. */
#include <mfad/energy.h>

static double frame_field(const double x[4], const double p[3])
{
  const double c = p[0], s = p[1], w = p[2];
  /* u_g - r u_f = (g0 - c f0 + s f1) + i (g1 - s f0 - c f1) */
  const double re = x[2] - c * x[0] + s * x[1];
  const double im = x[3] - s * x[0] - c * x[1];
  return w * (re * re + im * im);
}

const MfadEnergyInfo frame_field_info = {
    .vertices    = 2,
    .dof         = 2,
    .params      = 3,
    .energy      = frame_field,
    .description = "w |u_g - r u_f|^2, u complex (n-RoSy on faces); params Re r, Im r, w",
};
