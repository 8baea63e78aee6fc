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
#include <mfad/energy.h>

/* The features: the shared edge e = e1 - e0 and the edges a = o0 - e0, b = o1 - e1 (9 of the 12
   unknowns: the angle does not see a translation) */
static void bending_dihedral_edges(const double x[12], const double p[3], double f[9])
{
  (void)p;
  mfad_sub3(&f[0], &x[3], &x[0]);
  mfad_sub3(&f[3], &x[6], &x[0]);
  mfad_sub3(&f[6], &x[9], &x[3]);
}

static double bending_dihedral(const double f[9], const double p[3])
{
  double nA[3], nB[3], m[3];
  mfad_cross3(nA, &f[0], &f[3]);
  mfad_cross3(nB, &f[6], &f[0]);
  mfad_cross3(m, nA, nB);
  const double y  = mfad_dot3(m, &f[0]);                   /* |nA| |nB| |e| sin theta */
  const double c  = mfad_dot3(nA, nB) * mfad_norm3(&f[0]); /* |nA| |nB| |e| cos theta */
  const double c0 = cos(p[0]), s0 = sin(p[0]);
  const double t = atan2(y * c0 - c * s0, c * c0 + y * s0); /* theta - theta0 in (-pi, pi] */
  return p[1] * p[2] * t * t;
}

static int bending_dihedral_rest(const double r[12], const double m[1], double p[3])
{
  const int ea[5] = {0, 0, 1, 0, 1}, eb[5] = {1, 2, 2, 3, 3}; /* the five edges */
  double    d[3], e[3], a[3], b[3], nA[3], nB[3], mm[3], lmax2 = 0.0;
  for (int k = 0; k < 5; k++) { /* the longest edge */
    for (int i = 0; i < 3; i++) d[i] = r[3 * eb[k] + i] - r[3 * ea[k] + i];
    const double l2 = mfad_dot3(d, d);
    lmax2           = l2 > lmax2 ? l2 : lmax2;
  }
  for (int i = 0; i < 3; i++) {
    e[i] = r[3 + i] - r[i];
    a[i] = r[6 + i] - r[i];
    b[i] = r[9 + i] - r[3 + i];
  }
  mfad_cross3(nA, e, a);
  mfad_cross3(nB, b, e);
  mfad_cross3(mm, nA, nB);
  const double le2 = mfad_dot3(e, e), aA = 0.5 * mfad_norm3(nA), aB = 0.5 * mfad_norm3(nB);
  /* as in membrane_tri.c: below 1e-10 Lmax^2 a face's normal is round-off */
  if (!isfinite(aA + aB + lmax2) || !(lmax2 > 0.0) || !(aA > 1e-10 * lmax2) || !(aB > 1e-10 * lmax2)) return 1;
  const double th = atan2(mfad_dot3(mm, e), mfad_dot3(nA, nB) * sqrt(le2));
  if (!(fabs(th) <= M_PI - 1e-8)) return 1;
  p[0] = th;
  p[1] = 3.0 * le2 / (aA + aB);
  p[2] = m[0];
  return 0;
}

const MfadEnergyInfo bending_dihedral_info = {
    .vertices = 4,
    .dof      = 3,
    .params   = 3,
    .rest_dim = 3,
    .material = 1,
    .features = 9,
    .feature  = bending_dihedral_edges,
    .energy   = bending_dihedral,
    .rest     = bending_dihedral_rest,
    .description =
        "k (theta - theta0)^2 3 |e0|^2 / (A0 + A1), theta the dihedral angle at edge (e0, e1) of faces (e0, e1, o0), (e1, e0, o1); params theta0, 3 "
        "|e0|^2 / (A0 + A1), k; material k",
};
