// SPDX-License-Identifier: BSD-2-Clause
/* The PSD projection of a run of element Hessians in element space (src/hessian.c: abs, or clamp
   with an epsilon or without features), MFAD_VW elements at once on SIMD lanes
   (mfad/impl/psd_lanes.h) for the sizes where that measured faster, the rest one at a time by
   mfad/impl/psd.h. The feature-space projection runs inside the kernels' loops instead
   (mfad/impl/loop_cpu_lanes.h). Compiled with -fno-math-errno (CMakeLists.txt): the lanes' square
   roots are then one instruction each. */
#include "mfadimpl.h"
#include <mfad/impl/psd.h>

#if defined(__AVX__) && !defined(MFAD_NO_LANES)
#include <mfad/impl/ad_lanes.h>
#include <mfad/impl/psd_lanes.h>

/* nH elements of n x n from H (row-major each, consecutive), in groups of MFAD_VW; returns the
   elements done (a multiple of MFAD_VW) */
#define MFAD_PSD_LANES_SIZE(n) \
  static int MfadPSDProjectLanes##n(int ne, double *H, int mode, double eps) \
  { \
    int e = 0; \
    for (; e + MFAD_VW <= ne; e += MFAD_VW) { \
      mfad_vd A[(n) * (n)]; \
      for (int i = 0; i < (n) * (n); i++) \
        for (int l = 0; l < MFAD_VW; l++) A[i][l] = H[(size_t)(e + l) * (n) * (n) + i]; \
      mfad_psd_project_lanes((n), A, mode, eps); \
      for (int i = 0; i < (n) * (n); i++) \
        for (int l = 0; l < MFAD_VW; l++) H[(size_t)(e + l) * (n) * (n) + i] = A[i][l]; \
    } \
    return e; \
  }
/* the sizes where the lanes measured faster: arap_tri's 6 x 6 (arap on armadillo_cut_low.obj, 62k
   triangles, abs: 19.2-19.4 -> 7.5 ms an assembly's element Hessians); random dense 9 x 9 1.8x. Not
   12 x 12: Neo-Hookean tets' element Hessians (six rigid zero modes: no Cholesky proves them, QL
   runs on every one) took 775-1086 ms an assembly of 100k on lanes against 550-657 by QL
   (bench_hessian_forms -psd_epsilon 1e-8) */
MFAD_PSD_LANES_SIZE(6) /* a triangle in 2-D, an edge in 3-D */
MFAD_PSD_LANES_SIZE(9) /* a triangle in 3-D */

static int MfadPSDProjectLanes_Private(int n, int ne, double *H, int mode, double eps)
{
  switch (n) {
  case 6:
    return MfadPSDProjectLanes6(ne, H, mode, eps);
  case 9:
    return MfadPSDProjectLanes9(ne, H, mode, eps);
  default:
    return 0;
  }
}
#else
static int MfadPSDProjectLanes_Private(int n, int ne, double *H, int mode, double eps)
{
  (void)n, (void)ne, (void)H, (void)mode, (void)eps;
  return 0;
}
#endif

/* H <- the projections of ne n x n element Hessians (n <= MFAD_PSD_MAX_N), on nt threads in chunks
   of 256 elements; lanes = 0: one element at a time throughout (-mfad_lanes 0, the comparison) */
void MfadPSDProjectElements_Private(int n, int ne, double *H, int mode, double eps, int nt, int lanes)
{
  const int chunk = 256, nchunks = (ne + chunk - 1) / chunk;

#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
  for (int c = 0; c < nchunks; c++) {
    double   *Hc = H + (size_t)c * chunk * n * n;
    const int m  = c + 1 < nchunks ? chunk : ne - c * chunk;
    const int e0 = lanes ? MfadPSDProjectLanes_Private(n, m, Hc, mode, eps) : 0;
    for (int e = e0; e < m; e++) (void)mfad_psd_project(n, Hc + (size_t)e * n * n, mode, eps);
  }
}
