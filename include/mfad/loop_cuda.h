// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/loop_cuda.h
  @brief CUDA element loops: one thread per element around the same element bodies the CPU
         loops run (mfad/element.h). Compiled by nvcc for every energy; the launchers that use
         them belong to the CUDA backend. Scatter here is atomic; the coloured variant walks
         one colour's blocks per launch.
**/
#ifndef MFAD_LOOP_CUDA_H
#define MFAD_LOOP_CUDA_H

#define MFAD_CUDA_FN(op) MFAD_CAT(MFAD_CAT(mfad_cuda_, op), MFAD_CAT(_, MFAD_ENERGY_NAME))

/* element e of the whole term (atomic scatter) */
MFAD_HD static inline void mfad_cuda_scatter_atomic(double *y, const int *c, const double *out, double w)
{
  MFAD_UNROLL for (int a = 0; a < MFAD_NV; a++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++)
  {
#if defined(__CUDA_ARCH__)
    atomicAdd(&y[(long)c[a] * MFAD_ND + d], w * out[a * MFAD_ND + d]);
#else
    y[(long)c[a] * MFAD_ND + d] += w * out[a * MFAD_ND + d];
#endif
  }
}

extern "C" __global__ void MFAD_CUDA_FN(value)(MfadLoop L, double *elem_value)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < L.nelem) elem_value[e] = L.weight * mfad_elem_value(&L, e);
}

extern "C" __global__ void MFAD_CUDA_FN(gradient)(MfadLoop L, double *elem_value)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  double    g[MFAD_N];
  if (e >= L.nelem) return;
  elem_value[e] = L.weight * mfad_elem_gradient(&L, e, g);
  mfad_cuda_scatter_atomic(L.y, L.conn + (long)e * MFAD_NV, g, L.weight);
}

extern "C" __global__ void MFAD_CUDA_FN(hvp)(MfadLoop L)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  double    hv[MFAD_N];
  if (e >= L.nelem) return;
  mfad_elem_hvp(&L, e, hv);
  mfad_cuda_scatter_atomic(L.y, L.conn + (long)e * MFAD_NV, hv, L.weight);
}

/* element Hessians, weighted, N x N per element (assembly, cached products, diagonals) */
extern "C" __global__ void MFAD_CUDA_FN(hessian)(MfadLoop L)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= L.nelem) return;
  double *H = L.y + (long)e * MFAD_N * MFAD_N;
  (void)mfad_elem_hessian(&L, e, H);
  for (int i = 0; i < MFAD_N * MFAD_N; i++) H[i] *= L.weight;
}

#endif /* MFAD_LOOP_CUDA_H */
