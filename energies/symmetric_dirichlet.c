// SPDX-License-Identifier: BSD-2-Clause
/* symmetric_dirichlet: the symmetric Dirichlet distortion energy of a triangle mapped to the
   plane (parameterisation),
     E = A (|J|_F^2 + |J^{-1}|_F^2),   J = Ds Dm^{-1} (2 x 2),
   Ds (Dm) the 2 x 2 matrix of parameter-space (rest) edge vectors x1 - x0, x2 - x0 as columns,
   the rest ones expressed in an orthonormal frame of the rest triangle's plane, A the rest area
   (Smith & Schaefer 2015, "Bijective parameterization with free boundaries", ACM TOG 34(4),
   eq. 2; Schreiner et al. 2004). For 2 x 2 matrices |J^{-1}|_F = |J|_F / |det J|, so
     E = A |J|_F^2 (1 + det(J)^{-2}),
   the factor in det J one chain rule. A flipped or flat triangle (det J <= 0) has E = +inf.
   Parameters per element (5): Dm^{-1} (4, row-major), A.
   Rest set-up: the rest triangle in 3-D (the frame has its first axis along x1 - x0 and turns
   x0, x1, x2 counter-clockwise, energies/tri_frame.h); returns 1 for a non-finite or degenerate
   (zero-area) one. */
#include <mfad/energy.h>
#include "tri_frame.h"
#include "flip_step.h"

/* psi(J, p), J = Ds Dm^{-1} the features (mfad_tri_J, tri_frame.h) */
static double symmetric_dirichlet(const double J[4], const double p[5])
{
  const double d = mfad_det2(J);
  if (!(d > 0.0)) return INFINITY; /* flipped, flat or NaN */
  const double A = p[4];
  return A * (1.0 + 1.0 / (d * d)) * mfad_frob2(J, 4);
}

static int symmetric_dirichlet_rest(const double r[9], const double m[1], double p[5])
{
  (void)m;
  return mfad_tri_frame_rest(r, p);
}

/* the first flip along x + t d: E = +inf there (flip_step.h) */
static double symmetric_dirichlet_step(const double x[6], const double d[6], const double p[5])
{
  (void)p;
  return mfad_tri_flip_step(x, d);
}

const MfadEnergyInfo symmetric_dirichlet_info = {
    .vertices = 3,
    .dof      = 2,
    .params   = 5,
    .rest_dim = 3,
    .features = 4,
    .feature  = mfad_tri_J,
    .energy   = symmetric_dirichlet,
    .rest     = symmetric_dirichlet_rest,
    .step     = symmetric_dirichlet_step,
    /* Newton's default projection: clamp, as TinyAD's and the literature's for this energy. From a
       Tutte start abs's stiffened negative curvature shortened the steps: param took 16/305/63/82
       steps with abs, 15/129/52/56 with clamp (spot_jitter, sock, bunny_cut, armadillo_cut_low) */
    .projection  = MFAD_PROJECT_CLAMP,
    .description = "A (|J|^2 + |J^-1|^2), J = Ds Dm^-1 (2-D); params Dm^-1, A",
};
