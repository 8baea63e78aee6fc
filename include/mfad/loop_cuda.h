// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/loop_cuda.h
  @brief CUDA element loops of one energy: one thread per element around the same element bodies
         the CPU loops run (mfad/element.h), and the launchers the CUDA backend (src/cuda/) calls
         through MfadCudaKernel_<name>. The backend launches once per element colour (no two
         elements of a colour share a vertex: plain adds, deterministic) or, for comparison, once
         over all elements with atomicAdd. Compiled by nvcc for every energy registered with
         mfad_add_energy(), and by the host C++ compiler under src/cuda/emulate.h in the tests.
         No warp intrinsics, no shared memory: every line here also runs in the emulation.
**/
#ifndef MFAD_LOOP_CUDA_H
#define MFAD_LOOP_CUDA_H

#include <mfad/cuda_common.h>
#include <mfad/psd.h>

#define MFAD_CUDA_FN(op) MFAD_CAT(MFAD_CAT(mfad_cuda_, op), MFAD_CAT(_, MFAD_ENERGY_NAME))

__global__ void MFAD_CUDA_FN(k_value)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  if (i >= P.n) return;
  const int e     = mfad_cuda_element(P.elems, i);
  P.elem_value[e] = P.L.weight * mfad_elem_value(&P.L, e);
}

__global__ void MFAD_CUDA_FN(k_gradient)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    g[MFAD_N];
  if (i >= P.n) return;
  const int    e = mfad_cuda_element(P.elems, i);
  const double E = mfad_elem_gradient(&P.L, e, g);
  if (P.elem_value) P.elem_value[e] = P.L.weight * E;
  mfad_elem_scatter_to(P.L.y, P.L.conn + (long)e * MFAD_NV, g, P.L.weight, P.atomic);
}

__global__ void MFAD_CUDA_FN(k_hvp)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    hv[MFAD_N];
  if (i >= P.n) return;
  const int e = mfad_cuda_element(P.elems, i);
  mfad_elem_hvp(&P.L, e, hv);
  mfad_elem_scatter_to(P.L.y, P.L.conn + (long)e * MFAD_NV, hv, P.L.weight, P.atomic);
}

/* The Hessian mode is the costly one to compile (N(N+1)/2 second derivatives per operation, fully
   unrolled): four kernels need it, so it is compiled once, in a function nvcc must not inline
   (inlined into each kernel it made nvcc take 7x longer per energy, measured) */
__device__ __noinline__ static void MFAD_CUDA_FN(elem_hessian)(const MfadLoop *L, int e, double *H) { (void)mfad_elem_hessian(L, e, H); }
__device__ __noinline__ static void MFAD_CUDA_FN(psd_project)(double *H, int psd, double eps) { (void)mfad_psd_project(MFAD_N, H, psd, eps); }

__global__ void MFAD_CUDA_FN(k_diagonal)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    H[MFAD_N * MFAD_N], dg[MFAD_N];
  if (i >= P.n) return;
  const int e = mfad_cuda_element(P.elems, i);
  MFAD_CUDA_FN(elem_hessian)(&P.L, e, H);
  for (int k = 0; k < MFAD_N; k++) dg[k] = H[k * MFAD_N + k];
  mfad_elem_scatter_to(P.L.y, P.L.conn + (long)e * MFAD_NV, dg, P.L.weight, P.atomic);
}

__global__ void MFAD_CUDA_FN(k_blockdiag)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    H[MFAD_N * MFAD_N];
  if (i >= P.n) return;
  const int e = mfad_cuda_element(P.elems, i);
  MFAD_CUDA_FN(elem_hessian)(&P.L, e, H);
  mfad_elem_scatter_blocks_to(P.L.y, P.L.conn + (long)e * MFAD_NV, H, P.L.weight, P.atomic);
}

/* w H_e, then the PSD projection, as the CPU path (src/hessian.c) does it */
__device__ static inline void MFAD_CUDA_FN(weighted_hessian)(const MfadCudaLaunch *P, int e, double *H)
{
  MFAD_CUDA_FN(elem_hessian)(&P->L, e, H);
  for (int k = 0; k < MFAD_N * MFAD_N; k++) H[k] *= P->L.weight;
  if (P->psd != MFAD_PSD_MODE_NONE) MFAD_CUDA_FN(psd_project)(H, P->psd, P->psd_eps);
}

/* element Hessians in the COO value layout: element e's N x N block at e * N * N */
__global__ void MFAD_CUDA_FN(k_hessian)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    H[MFAD_N * MFAD_N];
  if (i >= P.n) return;
  const int e = mfad_cuda_element(P.elems, i);
  MFAD_CUDA_FN(weighted_hessian)(&P, e, H);
  double *out = P.L.y + (long)e * MFAD_N * MFAD_N;
  for (int k = 0; k < MFAD_N * MFAD_N; k++) out[k] = H[k];
}

/* element Hessians packed for the cache: element e's N (N + 1) / 2 entries at e * N (N + 1) / 2 */
__global__ void MFAD_CUDA_FN(k_hessian_packed)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    H[MFAD_N * MFAD_N];
  if (i >= P.n) return;
  const int e = mfad_cuda_element(P.elems, i);
  MFAD_CUDA_FN(weighted_hessian)(&P, e, H);
  mfad_elem_pack(H, P.L.y + (long)e * (MFAD_N * (MFAD_N + 1) / 2));
}

#define MFAD_CUDA_LAUNCHER(op) \
  static int MFAD_CUDA_FN(op)(const MfadCudaLaunch *P) \
  { \
    if (P->n <= 0) return 0; \
    MFAD_LAUNCH(MFAD_CUDA_FN(MFAD_CAT(k_, op)), mfad_cuda_grid(P->n), MFAD_CUDA_THREADS, P->stream, *P); \
    return (int)cudaGetLastError(); \
  }
MFAD_CUDA_LAUNCHER(value)
MFAD_CUDA_LAUNCHER(gradient)
MFAD_CUDA_LAUNCHER(hvp)
MFAD_CUDA_LAUNCHER(diagonal)
MFAD_CUDA_LAUNCHER(blockdiag)
MFAD_CUDA_LAUNCHER(hessian)
MFAD_CUDA_LAUNCHER(hessian_packed)

/* the table the host half of this energy (mfad/instantiate.h) points MfadKernel_<name>.cuda at */
extern "C" {
extern const struct _n_MfadCudaKernel MFAD_CAT(MfadCudaKernel_, MFAD_ENERGY_NAME);
const struct _n_MfadCudaKernel        MFAD_CAT(MfadCudaKernel_, MFAD_ENERGY_NAME) = {
  MFAD_CUDA_FN(value), MFAD_CUDA_FN(gradient), MFAD_CUDA_FN(hvp), MFAD_CUDA_FN(diagonal), MFAD_CUDA_FN(blockdiag), MFAD_CUDA_FN(hessian), MFAD_CUDA_FN(hessian_packed),
};
}

#endif /* MFAD_LOOP_CUDA_H */
