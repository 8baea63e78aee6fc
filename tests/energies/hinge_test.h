// SPDX-License-Identifier: BSD-2-Clause
/* Test energy hinge_test: a smooth 4-vertex function of a bending stencil (e0, e1, o0, o1),
     E = 1/2 |n0 - n1|^2,   n0 = (x1 - x0) x (x2 - x0),   n1 = (x0 - x1) x (x3 - x1),
   the area-weighted normals of triangles (e0, e1, o0) and (e1, e0, o1). It vanishes on a flat,
   consistently oriented hinge with equal areas, depends on the stencil's vertex order and is
   unchanged by swapping the two faces ((e1, e0, o1, o0)). Not a physical bending model: it
   checks stencils built across partitions (tests/test_dmplex.c). No parameters. */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    4
#define MFAD_ENERGY_DOF         3
#define MFAD_ENERGY_PARAMS      0
#define MFAD_ENERGY_DESCRIPTION "test: 1/2 |n0 - n1|^2 of a hinge's two area normals"
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T a[3], b[3], n0[3], n1[3], d[3];
  (void)p;
  OP(sub3)(a, &x[3], &x[0]);
  OP(sub3)(b, &x[6], &x[0]);
  OP(cross3)(n0, a, b);
  OP(sub3)(a, &x[0], &x[3]);
  OP(sub3)(b, &x[9], &x[3]);
  OP(cross3)(n1, a, b);
  OP(sub3)(d, n0, n1);
  OP(dot3)(E, d, d);
  OP(muls)(E, E, 0.5);
}
#endif
