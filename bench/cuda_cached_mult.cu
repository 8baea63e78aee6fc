// SPDX-License-Identifier: BSD-2-Clause
/* The cached product on a GPU, two ways, same data: (a) the backend's fused kernel on packed
   element Hessians (src/cuda/cachedmult.cuh, 78 doubles per tet), (b) a gather kernel, cuBLAS's
   cublasDgemvStridedBatched on full 12 x 12 blocks (144 doubles) and a scatter kernel. Both
   scatter with atomicAdd in one launch, so that only the mat-vec layout differs. Prints the median
   time of each, the ratio and which to use (docs/gpu.md); checks that both give the same y.
   Usage: bench_cuda_cached_mult [nelem (default 1000000)] [reps (default 20)]. Needs a GPU. */
#define MFAD_IMPL_ALLOWED 1 /* times the backend's own kernel (src/cuda/cachedmult.cuh: machinery) */
#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>
#include "../src/cuda/cachedmult.cuh"

#define CK(call) \
  do { \
    cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) { \
      fprintf(stderr, "%s: CUDA error %d (%s)\n", #call, (int)e_, cudaGetErrorString(e_)); \
      return 1; \
    } \
  } while (0)
#define CB(call) \
  do { \
    cublasStatus_t s_ = (call); \
    if (s_ != CUBLAS_STATUS_SUCCESS) { \
      fprintf(stderr, "%s: cuBLAS status %d\n", #call, (int)s_); \
      return 1; \
    } \
  } while (0)

__global__ void Gather(int ne, const int *conn, const double *v, double *V)
{
  const int i = MFAD_CUDA_TID();
  if (i >= ne * 12) return;
  const int e = i / 12, k = i % 12;
  V[i] = v[(long)conn[e * 4 + k / 3] * 3 + k % 3];
}

__global__ void Scatter(int ne, const int *conn, const double *Y, double *y)
{
  const int i = MFAD_CUDA_TID();
  if (i >= ne * 12) return;
  const int e = i / 12, k = i % 12;
  atomicAdd(&y[(long)conn[e * 4 + k / 3] * 3 + k % 3], Y[i]);
}

int main(int argc, char **argv)
{
  const int ne = argc > 1 ? atoi(argv[1]) : 1000000, reps = argc > 2 ? atoi(argv[2]) : 20, nv = ne / 5 + 4;
  std::vector<int>    conn(4 * (size_t)ne);
  std::vector<double> P(78 * (size_t)ne), H(144 * (size_t)ne), v(3 * (size_t)nv), ya(3 * (size_t)nv), yb(3 * (size_t)nv);
  int                 ndev = 0;

  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    printf("bench_cuda_cached_mult: no CUDA device\n");
    return 77;
  }
  srand(1);
  for (int e = 0; e < ne; e++) /* local connectivity: ~5 tets per vertex, as in a tet mesh */
    for (int a = 0; a < 4; a++) conn[4 * e + a] = (e / 5 + a * 7 + (a ? e % 3 : 0)) % nv;
  for (size_t i = 0; i < v.size(); i++) v[i] = rand() / (double)RAND_MAX - 0.5;
  for (int e = 0; e < ne; e++)
    for (int r = 0, k = 0; r < 12; r++)
      for (int c = r; c < 12; c++, k++) {
        const double h = rand() / (double)RAND_MAX - 0.5;
        P[78 * (size_t)e + k] = h;
        H[144 * (size_t)e + 12 * r + c] = H[144 * (size_t)e + 12 * c + r] = h; /* column-major = row-major: symmetric */
      }
  int    *dconn;
  double *dP, *dH, *dv, *dy, *dV, *dY;
  CK(cudaMalloc(&dconn, conn.size() * sizeof(int)));
  CK(cudaMalloc(&dP, P.size() * sizeof(double)));
  CK(cudaMalloc(&dH, H.size() * sizeof(double)));
  CK(cudaMalloc(&dv, v.size() * sizeof(double)));
  CK(cudaMalloc(&dy, v.size() * sizeof(double)));
  CK(cudaMalloc(&dV, 12 * (size_t)ne * sizeof(double)));
  CK(cudaMalloc(&dY, 12 * (size_t)ne * sizeof(double)));
  CK(cudaMemcpy(dconn, conn.data(), conn.size() * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dP, P.data(), P.size() * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dH, H.data(), H.size() * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dv, v.data(), v.size() * sizeof(double), cudaMemcpyHostToDevice));
  cublasHandle_t h;
  CB(cublasCreate(&h));
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0));
  CK(cudaEventCreate(&t1));
  std::vector<float> ta, tb;
  const double one = 1.0, zero = 0.0;
  for (int r = 0; r <= reps; r++) { /* run 0 warms up */
    float ms;
    CK(cudaMemset(dy, 0, v.size() * sizeof(double)));
    CK(cudaEventRecord(t0));
    MFAD_LAUNCH((MfadCudaCachedMult_Kernel<4, 3>), mfad_cuda_grid(ne), MFAD_CUDA_THREADS, 0, (const int *)NULL, ne, 4, 3, dconn, dP, dv, dy, 1);
    CK(cudaEventRecord(t1));
    CK(cudaEventSynchronize(t1));
    CK(cudaEventElapsedTime(&ms, t0, t1));
    if (r) ta.push_back(ms);
    if (r == reps) CK(cudaMemcpy(ya.data(), dy, v.size() * sizeof(double), cudaMemcpyDeviceToHost));
    CK(cudaMemset(dy, 0, v.size() * sizeof(double)));
    CK(cudaEventRecord(t0));
    MFAD_LAUNCH(Gather, (12 * ne + 127) / 128, 128, 0, ne, dconn, dv, dV);
    CB(cublasDgemvStridedBatched(h, CUBLAS_OP_N, 12, 12, &one, dH, 12, 144, dV, 1, 12, &zero, dY, 1, 12, ne));
    MFAD_LAUNCH(Scatter, (12 * ne + 127) / 128, 128, 0, ne, dconn, dY, dy);
    CK(cudaEventRecord(t1));
    CK(cudaEventSynchronize(t1));
    CK(cudaEventElapsedTime(&ms, t0, t1));
    if (r) tb.push_back(ms);
    if (r == reps) CK(cudaMemcpy(yb.data(), dy, v.size() * sizeof(double), cudaMemcpyDeviceToHost));
  }
  CK(cudaGetLastError());
  double diff = 0, scale = 0;
  for (size_t i = 0; i < ya.size(); i++) {
    diff  = std::max(diff, fabs(ya[i] - yb[i]));
    scale = std::max(scale, fabs(yb[i]));
  }
  std::sort(ta.begin(), ta.end());
  std::sort(tb.begin(), tb.end());
  const double a = ta[ta.size() / 2], b = tb[tb.size() / 2];
  printf("cached product, %d tets, median of %d: fused packed %.3f ms, gather + cublasDgemvStridedBatched + scatter %.3f ms, ratio %.2f: use %s\n", ne, reps, a, b, b / a,
         a <= b ? "the fused kernel (as the backend does)" : "cuBLAS (switch src/cuda/cached.cu)");
  printf("results agree to %.1e relative (atomics reorder sums)\n", diff / scale);
  cublasDestroy(h);
  return diff <= 1e-10 * scale ? 0 : 1;
}
