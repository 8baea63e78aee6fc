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

static double sphere_symmetric_dirichlet(const double x[9], const double p[5])
{
  double e1[3], e2[3], n[3], J[6];
  /* the columns of Ds; +inf where the chord triangle is flipped or flat (sphere_chord.h) */
  if (!(mfad_sphere_chord(x, e1, e2, n) > 0.0)) return INFINITY;
  for (int i = 0; i < 3; i++) /* J = Ds Dm^{-1} */
    for (int j = 0; j < 2; j++) J[2 * i + j] = e1[i] * p[j] + e2[i] * p[2 + j];
  const double di = p[0] * p[3] - p[1] * p[2];   /* det Dm^{-1} */
  const double q  = mfad_dot3(n, n) * (di * di); /* det(J^T J) */
  if (!(q > 0.0)) return INFINITY;               /* a degenerate chord triangle (two vertices at one point) */
  const double A = p[4];
  return A * (1.0 + 1.0 / q) * mfad_frob2(J, 6);
}

static int sphere_symmetric_dirichlet_rest(const double r[9], const double m[1], double p[5])
{
  (void)m;
  return mfad_tri_frame_rest(r, p);
}

const MfadEnergyInfo sphere_symmetric_dirichlet_info = {
    .vertices    = 3,
    .dof         = 3,
    .params      = 5,
    .rest_dim    = 3,
    .energy      = sphere_symmetric_dirichlet,
    .rest        = sphere_symmetric_dirichlet_rest,
    .description = "A (|J|^2 + |J^+|^2), J = Ds Dm^-1 (3 x 2) of the vertices y/|y| on the unit sphere, +inf when flipped; params Dm^-1, A",
};
