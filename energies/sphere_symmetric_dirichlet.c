// SPDX-License-Identifier: BSD-2-Clause
/* sphere_symmetric_dirichlet: the symmetric Dirichlet distortion of a triangle mapped onto the unit
   sphere (spherical parameterisation), its vertices given by unknowns y_i in R^3 and placed at
   u_i = y_i / |y_i|:
     E = A (|J|_F^2 + |J^+|_F^2),   J = Ds Dm^{-1} (3 x 2),   Ds = [u1 - u0, u2 - u0],
   Dm the 2 x 2 rest edge matrix in an orthonormal frame of the rest triangle's plane, A the rest
   area, J^+ the pseudo-inverse (Smith & Schaefer 2015's energy on the chord triangle of the sphere;
   Schreiner et al. 2004). With singular values s1, s2 of J, |J^+|^2 = (s1^2 + s2^2) / (s1 s2)^2 and
   (s1 s2)^2 = det(J^T J) = |(u1 - u0) x (u2 - u0)|^2 det(Dm)^{-2}, so
     E = A |J|_F^2 (1 + det(J^T J)^{-1}),
   >= 4 A, equal for an isometry; it blows up as the chord triangle degenerates.
   The great-circle wall: a spherical triangle flips where its vertices come to lie on a great
   circle (det[u0, u1, u2] = 0), and there its chord triangle is not flat: a sliver along an arc of
   length L keeps the arc's sagitta L^2 / 8 as its height, so the distortion stayed finite and only
   the weak log barrier held the wall (scanned Cheburashka: every Newton step was cut to ~1e-3 by
   one such sliver, 2,900 steps). So det(J^T J) is taken times phi(h), h = det[u0, u1, u2] / |n| the
   distance of the chord triangle's plane from the centre (1 - O(r^2) for a small triangle of
   circumradius r, 0 on a great circle):
     phi(h) = 1 - (1 - h^2 / H^2)^3 for h < H = 1/2,   1 otherwise,
   C^2 at H, ~ 3 h^2 / H^2 near 0, where |J^+|^2 grows like 1 / h^2. phi = 1 for every triangle whose
   circumcircle is narrower than 60 degrees of arc, so the energy, its isometries and its minimisers
   are those of the chord triangle there; E >= 4 A everywhere.
   Placing the vertices at y / |y| inside the energy is the retraction of manifold optimisation on
   the sphere (TinyAD-Examples' manifold_optimization, Schmidt et al. 2022; Absil, Mahony &
   Sepulchre 2008, sec. 4.1): E does not change when a y_i is scaled, its gradient has no radial
   part, and at |y_i| = 1 its Hessian on tangent vectors is the Riemannian Hessian on the sphere.
   Add sphere_penalty (R = 1) to fix the radial directions (its minimiser |y| = 1 is not moved by E).
   Orientation: the spherical triangle is flipped when det[u0, u1, u2] <= 1e-14 |u1 - u0| |u2 - u0|
   (it turns clockwise seen from outside, or is flat to round-off); E = +inf there, as for a collapsed
   vertex (y_i = 0), so line searches back off (energies/sphere_flip_barrier.c adds a log barrier).
   Parameters per element (5): Dm^{-1} (4, row-major), A. Rest set-up: energies/tri_frame.h (any
   non-degenerate 3-D triangle; scale the rest mesh to the sphere's size first). */
#include <mfad/energy.h>
#include "tri_frame.h"
#include "sphere_chord.h"

/* The features are the unknowns themselves (u = y / |y| is not linear): declared so that the
   translator writes the adjoint sweep (forward-over-reverse, mfad/energy.h), whose HVP fits a GPU
   thread where 2N + 2 lanes per number did not */
static void sphere_symmetric_dirichlet_unknowns(const double x[9], const double p[5], double f[9])
{
  (void)p;
  for (int i = 0; i < 9; i++) f[i] = x[i];
}

static double sphere_symmetric_dirichlet(const double x[9], const double p[5])
{
  double e1[3], e2[3], n[3], J[6];
  /* the columns of Ds; +inf where the chord triangle is flipped or flat (sphere_chord.h) */
  const double det = mfad_sphere_chord(x, e1, e2, n);
  if (!(det > 0.0)) return INFINITY;
  for (int i = 0; i < 3; i++) /* J = Ds Dm^{-1} */
    for (int j = 0; j < 2; j++) J[2 * i + j] = e1[i] * p[j] + e2[i] * p[2 + j];
  const double di = p[0] * p[3] - p[1] * p[2]; /* det Dm^{-1} */
  const double nn = mfad_dot3(n, n);
  double       q  = nn * (di * di); /* det(J^T J) */
  if (!(q > 0.0)) return INFINITY;  /* a degenerate chord triangle (two vertices at one point) */
  const double w = 1.0 - 4.0 * (det * det / nn); /* 1 - h^2 / H^2, h the chord plane's distance from the centre */
  if (w > 0.0) q = q * (1.0 - w * w * w);        /* the great-circle wall (above) */
  const double A = p[4];
  return A * (1.0 + 1.0 / q) * mfad_frob2(J, 6);
}

static int sphere_symmetric_dirichlet_rest(const double r[9], const double m[1], double p[5])
{
  (void)m;
  return mfad_tri_frame_rest(r, p);
}

/* the great-circle wall (sphere_chord.h) */
static double sphere_symmetric_dirichlet_step(const double x[9], const double d[9], const double p[5])
{
  (void)p;
  return mfad_sphere_flip_step(x, d);
}

const MfadEnergyInfo sphere_symmetric_dirichlet_info = {
    .vertices    = 3,
    .dof         = 3,
    .params      = 5,
    .rest_dim    = 3,
    .features    = 9,
    .feature     = sphere_symmetric_dirichlet_unknowns,
    .energy      = sphere_symmetric_dirichlet,
    .rest        = sphere_symmetric_dirichlet_rest,
    .step        = sphere_symmetric_dirichlet_step,
    .description = "A (|J|^2 + |J^+|^2), J = Ds Dm^-1 (3 x 2) of the vertices y/|y| on the unit sphere, +inf when flipped; params Dm^-1, A",
};
