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
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    2
#define MFAD_ENERGY_DOF         2
#define MFAD_ENERGY_PARAMS      3
#define MFAD_ENERGY_DESCRIPTION "w |u_g - r u_f|^2, u complex (n-RoSy on faces); params Re r, Im r, w"
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T re, im, t;
  /* u_g - r u_f = (g0 - c f0 + s f1) + i (g1 - s f0 - c f1) */
  OP(muls)(&t, &x[0], -p[0]);
  OP(add)(&re, &x[2], &t);
  OP(muls)(&t, &x[1], p[1]);
  OP(add)(&re, &re, &t);
  OP(muls)(&t, &x[0], -p[1]);
  OP(add)(&im, &x[3], &t);
  OP(muls)(&t, &x[1], -p[0]);
  OP(add)(&im, &im, &t);
  OP(sqr)(E, &re);
  OP(sqr)(&t, &im);
  OP(add)(E, E, &t);
  OP(muls)(E, E, p[2]);
}
#endif
