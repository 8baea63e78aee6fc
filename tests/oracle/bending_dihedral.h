// SPDX-License-Identifier: BSD-2-Clause
/* bending_dihedral: discrete-shell bending on a pair of triangles sharing an edge (Grinspun,
   Hirani, Desbrun & Schroeder, "Discrete shells", SCA 2003, eq. 3),
     E = k (theta - theta0)^2 |e0| / h0,   |e0| / h0 = 3 |e0|^2 / (A0 + A1),
   theta the dihedral angle at the shared edge, theta0, |e0| (rest edge length), A0 and A1 (rest
   face areas) from the rest shape; h0 is a third of the mean of the two faces' heights over the
   edge. Stencil (e0, e1, o0, o1): (e0, e1) the shared edge; face (e0, e1, o0) with normal
   nA = (e1 - e0) x (o0 - e0); the other face (e1, e0, o1) with normal nB = (e0 - e1) x (o1 - e1)
   = (o1 - e1) x (e1 - e0); a flat pair (o0, o1 on opposite sides) has theta = 0,
   and theta > 0 when o1 lies on the side of face (e0, e1, o0) opposite nA. The angle is
     theta = atan2((nA x nB) . e / |e|, nA . nB),   e = e1 - e0,
   free of arccos and of normalised normals; the energy uses the angle relative to the rest one,
     theta - theta0 = atan2(y cos theta0 - c sin theta0, c cos theta0 + y sin theta0)
   (y, c the two arguments above), so it is smooth through theta = 0 and through theta = +-pi
   and defined for flat rest shapes. Not smooth where a face degenerates (nA or nB = 0) and on the
   branch cut theta = theta0 + pi (the pair folded the opposite way onto itself), where the
   energy jumps; no barrier.
   Parameters per element (3): theta0, 3 |e0|^2 / (A0 + A1), k.
   Rest set-up: it returns 1 for a non-finite rest shape, a face of area <= 1e-10 Lmax^2 (Lmax its
   longest edge), or a pair folded flat onto itself (|theta0| > pi - 1e-8: the faces overlap). */
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    4
#define MFAD_ENERGY_DOF         3
#define MFAD_ENERGY_PARAMS      3
#define MFAD_ENERGY_REST_DIM    3
#define MFAD_ENERGY_MATERIAL    1
#define MFAD_ENERGY_DESCRIPTION "k (theta - theta0)^2 3 |e0|^2 / (A0 + A1), theta the dihedral angle at edge (e0, e1) of faces (e0, e1, o0), (e1, e0, o1); params theta0, 3 |e0|^2 / (A0 + A1), k; material k"
static void mfad_bending_cross(const double *a, const double *b, double *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}
static int mfad_energy_rest(const double *r, const double *m, double *p)
{
  static const int edges[5][2] = {{0, 1}, {0, 2}, {1, 2}, {0, 3}, {1, 3}};
  double           e[3], a[3], b[3], nA[3], nB[3], mm[3], le2 = 0.0, lmax2 = 0.0, aA, aB, y = 0.0, c = 0.0, th;
  for (int k = 0; k < 5; k++) {
    double l2 = 0.0;
    for (int i = 0; i < 3; i++) l2 += (r[3 * edges[k][1] + i] - r[3 * edges[k][0] + i]) * (r[3 * edges[k][1] + i] - r[3 * edges[k][0] + i]);
    lmax2 = l2 > lmax2 ? l2 : lmax2;
  }
  for (int i = 0; i < 3; i++) e[i] = r[3 + i] - r[i], a[i] = r[6 + i] - r[i], b[i] = r[9 + i] - r[3 + i];
  mfad_bending_cross(e, a, nA);
  mfad_bending_cross(b, e, nB);
  mfad_bending_cross(nA, nB, mm);
  for (int i = 0; i < 3; i++) le2 += e[i] * e[i], y += mm[i] * e[i], c += nA[i] * nB[i];
  aA = 0.5 * sqrt(nA[0] * nA[0] + nA[1] * nA[1] + nA[2] * nA[2]);
  aB = 0.5 * sqrt(nB[0] * nB[0] + nB[1] * nB[1] + nB[2] * nB[2]);
  /* as in membrane_tri.h: below 1e-10 Lmax^2 a face's normal is round-off */
  if (!isfinite(aA + aB + lmax2) || !(lmax2 > 0.0) || !(aA > 1e-10 * lmax2) || !(aB > 1e-10 * lmax2)) return 1;
  th = atan2(y, c * sqrt(le2));
  if (!(fabs(th) <= M_PI - 1e-8)) return 1;
  p[0] = th;
  p[1] = 3.0 * le2 / (aA + aB);
  p[2] = m[0];
  return 0;
}
#else
MFAD_ENERGY_BODY(x, p, E)
{
  T            e[3], a[3], b[3], nA[3], nB[3], m[3], y, c, le, yr, cr, t;
  const double c0 = cos(p[0]), s0 = sin(p[0]);
  OP(sub3)(e, &x[3], &x[0]);
  OP(sub3)(a, &x[6], &x[0]);
  OP(sub3)(b, &x[9], &x[3]);
  OP(cross3)(nA, e, a);
  OP(cross3)(nB, b, e);
  OP(cross3)(m, nA, nB);
  OP(dot3)(&y, m, e); /* |nA| |nB| |e| sin theta */
  OP(dot3)(&c, nA, nB);
  OP(norm3)(&le, e);
  OP(mul)(&c, &c, &le); /* |nA| |nB| |e| cos theta */
  OP(muls)(&yr, &y, c0); /* rotate by -theta0 */
  OP(muls)(&t, &c, -s0);
  OP(add)(&yr, &yr, &t);
  OP(muls)(&cr, &c, c0);
  OP(muls)(&t, &y, s0);
  OP(add)(&cr, &cr, &t);
  OP(atan2)(&t, &yr, &cr); /* theta - theta0 in (-pi, pi] */
  OP(sqr)(E, &t);
  OP(muls)(E, E, p[1] * p[2]);
}
#endif
