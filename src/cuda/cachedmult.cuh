// SPDX-License-Identifier: BSD-2-Clause
/* The cached product's kernel: y += H_e v_e from packed element Hessians (upper triangle by rows).
   Shared by the backend (src/cuda/cached.cu) and its micro-benchmark against cuBLAS
   (bench/cuda_cached_mult.cu); needs only mfad/impl/cuda_common.h. */
#ifndef MFAD_CACHEDMULT_CUH
#define MFAD_CACHEDMULT_CUH

#include <mfad/impl/cuda_common.h>

/* y += H_e v_e for the elements of one launch; NV, ND compile-time where the shape is common (the
   loops unroll and v_e, y_e stay in registers), 0 for run-time sizes */
template <int NV, int ND>
__global__ void MFAD_CUDA_BOUNDS MfadCudaCachedMult_Kernel(const int *elems, int n, int nv_, int dof_, const int *conn, const double *P,
                                                           const double *v, double *y, int atomic)
{
  const int nv = NV ? NV : nv_, dof = ND ? ND : dof_, N = nv * dof, PN = N * (N + 1) / 2;
  const int i  = MFAD_CUDA_TID();
  double    xe[24], ye[24]; /* MFAD_N <= 24 (mfad/impl/ad.h) */
  if (i >= n) return;
  const int     e  = mfad_cuda_element(elems, i);
  const int    *c  = conn + (long)e * nv;
  const double *Pe = P + (long)e * PN;
  for (int a = 0; a < nv; a++)
    for (int d = 0; d < dof; d++) xe[a * dof + d] = v[(long)c[a] * dof + d];
  for (int r = 0; r < N; r++) ye[r] = 0.0;
  for (int r = 0, k = 0; r < N; r++) {
    double s = Pe[k++] * xe[r];
    for (int j = r + 1; j < N; j++, k++) {
      s += Pe[k] * xe[j];
      ye[j] += Pe[k] * xe[r];
    }
    ye[r] += s;
  }
  for (int a = 0; a < nv; a++)
    for (int d = 0; d < dof; d++) {
      double *t = &y[(long)c[a] * dof + d];
      if (atomic) atomicAdd(t, ye[a * dof + d]);
      else *t += ye[a * dof + d];
    }
}

#endif
