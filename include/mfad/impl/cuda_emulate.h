// SPDX-License-Identifier: BSD-2-Clause
/* Host emulation of the CUDA subset the backend uses, so that the .cu files themselves (element
   kernels, launchers, staging, COO layout, colour-batched launches) compile with the host C++
   compiler and run on a machine without a GPU (tests/cuda.cmake includes it first). Installed
   beside mfad/impl/cuda_common.h, which it completes (MFAD_LAUNCH, cudaStream_t).
   Kernels run as nested loops over blocks and threads, one thread after another; device memory is
   host memory; streams are no-ops; atomicAdd is a plain add. What this cannot check: the real
   launch (limits, registers, occupancy), real device memory and real atomics.
   MFAD_CUDA_EMU_NO_DEVICE=1 in the environment makes cudaGetDeviceCount fail with error 35, as on
   a machine whose driver is missing, to test that path too. */
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/cuda_emulate.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
#ifndef MFAD_CUDA_EMULATE_H
#define MFAD_CUDA_EMULATE_H

#include <stdlib.h>
#include <string.h>
#include <math.h>

#define MFAD_CUDA_EMULATION 1
#define MFAD_AD_SCALAR_LANES 1 /* nvcc's lanes (plain doubles), not the host's vector types */

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)

typedef struct {
  unsigned x, y, z;
} dim3;
static dim3 threadIdx __attribute__((unused)), blockIdx __attribute__((unused)), blockDim __attribute__((unused)), gridDim __attribute__((unused));

/* A kernel's fault (an illegal address, a trap) as a GPU reports it: not at the launch but at the
   next synchronisation, and from then on at every call (a sticky error) until the device is reset
   (mfad_cuda_emu_reset(), src/cuda/backend.cu). MFAD_CUDA_EMU_FAULT=name makes each launch of a
   kernel whose name contains `name` fault instead of running (the tests of -mfad_cuda_sync). */
extern "C" __attribute__((visibility("default"))) int mfad_cuda_emu_pending, mfad_cuda_emu_sticky;
enum { cudaErrorIllegalAddress = 700 };
static inline int mfad_cuda_emu_faults(const char *kernel)
{
  const char *f = getenv("MFAD_CUDA_EMU_FAULT");
  if (!(f && f[0] && strstr(kernel, f))) return 0;
  mfad_cuda_emu_pending = cudaErrorIllegalAddress;
  return 1;
}
#define MFAD_EMU_STR_(x) #x
#define MFAD_EMU_STR(x)  MFAD_EMU_STR_(x)

/* runs kern(args) for every (block, thread) of a 1-D grid, in order */
#define MFAD_LAUNCH(kern, grid, block, stream, ...) \
  do { \
    (void)(stream); \
    gridDim.x  = (unsigned)(grid); \
    blockDim.x = (unsigned)(block); \
    if (!mfad_cuda_emu_faults(MFAD_EMU_STR(kern))) \
      for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++) \
        for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++) kern(__VA_ARGS__); \
  } while (0)

static inline int atomicMin(int *a, int v)
{
  const int old = *a;
  if (v < *a) *a = v;
  return old;
}

static inline double atomicAdd(double *a, double v)
{
  const double old = *a;
  *a += v;
  return old;
}

typedef int   cudaError_t;
typedef void *cudaStream_t;
enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2, cudaErrorInsufficientDriver = 35, cudaErrorUnknown = 999 };
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };

static inline const char *cudaGetErrorString(cudaError_t e)
{
  return e == cudaSuccess                   ? "no error"
         : e == cudaErrorMemoryAllocation   ? "out of memory"
         : e == cudaErrorInsufficientDriver ? "CUDA driver version is insufficient for CUDA runtime version"
         : e == cudaErrorIllegalAddress     ? "an illegal memory access was encountered"
                                            : "unknown error";
}
static inline const char *cudaGetErrorName(cudaError_t e)
{
  return e == cudaSuccess                   ? "cudaSuccess"
         : e == cudaErrorMemoryAllocation   ? "cudaErrorMemoryAllocation"
         : e == cudaErrorInsufficientDriver ? "cudaErrorInsufficientDriver"
         : e == cudaErrorIllegalAddress     ? "cudaErrorIllegalAddress"
                                            : "cudaErrorUnknown";
}
/* a fault seen by a synchronisation (the pending one becomes sticky) */
static inline cudaError_t mfad_cuda_emu_synchronise(void)
{
  if (mfad_cuda_emu_pending) mfad_cuda_emu_sticky = mfad_cuda_emu_pending;
  mfad_cuda_emu_pending = 0;
  return mfad_cuda_emu_sticky;
}
static inline cudaError_t cudaGetLastError(void) { return mfad_cuda_emu_sticky; }
static inline cudaError_t cudaGetDeviceCount(int *n)
{
  const char *s = getenv("MFAD_CUDA_EMU_NO_DEVICE");
  *n            = 0;
  if (s && s[0] == '1') return cudaErrorInsufficientDriver;
  *n = 1;
  return cudaSuccess;
}
static inline cudaError_t cudaMalloc(void **p, size_t n)
{
  *p = malloc(n ? n : 1);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaFree(void *p)
{
  free(p);
  return cudaSuccess;
}
/* host<->device copies the backend made, by cudaMemcpyKind (tests/test_cuda.c reads them) */
extern "C" __attribute__((visibility("default"))) long long mfad_cuda_emu_copies[5], mfad_cuda_emu_bytes[5];
/* the batched eigensolver's calls and largest batch (tests/test_cuda.c: the projection's chunks) */
extern "C" __attribute__((visibility("default"))) long long mfad_cuda_emu_syevj_calls, mfad_cuda_emu_syevj_max_batch;

static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t st)
{
  (void)st;
  if (k == cudaMemcpyDeviceToHost && mfad_cuda_emu_synchronise())
    return mfad_cuda_emu_sticky; /* a copy to the host waits for the kernels before it */
  mfad_cuda_emu_copies[k]++;
  mfad_cuda_emu_bytes[k] += (long long)n;
  if (n) memmove(d, s, n);
  return cudaSuccess;
}
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind k) { return cudaMemcpyAsync(d, s, n, k, NULL); }
static inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st)
{
  (void)st;
  if (n) memset(d, v, n);
  return cudaSuccess;
}
static inline cudaError_t cudaSetDevice(int d)
{
  (void)d;
  return cudaSuccess;
}
static inline cudaError_t cudaGetDevice(int *d)
{
  *d = 0;
  return cudaSuccess;
}
static inline cudaError_t cudaStreamCreate(cudaStream_t *s)
{
  *s = (cudaStream_t)s; /* any non-NULL handle */
  return cudaSuccess;
}
static inline cudaError_t cudaStreamDestroy(cudaStream_t s)
{
  (void)s;
  return cudaSuccess;
}
static inline cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
  (void)s;
  return mfad_cuda_emu_synchronise();
}

/* cuSOLVER's batched symmetric eigensolver (src/cuda/psd.cu) by mfad/impl/psd.h's cyclic Jacobi, one
   matrix after another, as cuSOLVER documents it rather than as the caller uses it: the lower
   triangle of each column-major matrix is read (the upper one is not), the eigenvectors are
   written over it as columns, the eigenvalues into W; the tolerance and sweep limit are the
   syevjInfo's (cuSOLVER's defaults until set: machine epsilon, 100 sweeps), and info[b] is n + 1
   where matrix b did not converge within them, which a NaN or Inf entry never does (cuSOLVER's
   "info = n + 1: not converged"). For the tests: MFAD_CUDA_EMU_SYEVJ_MAX_SWEEPS=k overrides the
   sweep limit; MFAD_CUDA_EMU_SYEVJ_STATUS=s makes the solver return status s, as a failing
   library call does. */
#include <mfad/impl/psd.h>
typedef struct MfadEmuSolver *cusolverDnHandle_t;
struct MfadEmuSyevj {
  double tol;
  int    max_sweeps;
};
typedef struct MfadEmuSyevj *syevjInfo_t;
typedef int                  cusolverStatus_t;
enum {
  CUSOLVER_STATUS_SUCCESS          = 0,
  CUSOLVER_STATUS_NOT_INITIALIZED  = 1,
  CUSOLVER_STATUS_ALLOC_FAILED     = 2,
  CUSOLVER_STATUS_INVALID_VALUE    = 3,
  CUSOLVER_STATUS_ARCH_MISMATCH    = 4,
  CUSOLVER_STATUS_EXECUTION_FAILED = 6,
  CUSOLVER_STATUS_INTERNAL_ERROR   = 7,
  CUSOLVER_STATUS_NOT_SUPPORTED    = 9
};
typedef enum { CUSOLVER_EIG_MODE_NOVECTOR = 0, CUSOLVER_EIG_MODE_VECTOR = 1 } cusolverEigMode_t;
typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1 } cublasFillMode_t;
static inline cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *h)
{
  *h = (cusolverDnHandle_t)malloc(1);
  return CUSOLVER_STATUS_SUCCESS;
}
static inline cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t h)
{
  free(h);
  return CUSOLVER_STATUS_SUCCESS;
}
static inline cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t h, cudaStream_t s)
{
  (void)h, (void)s;
  return CUSOLVER_STATUS_SUCCESS;
}
static inline cusolverStatus_t cusolverDnCreateSyevjInfo(syevjInfo_t *p)
{
  *p = (syevjInfo_t)malloc(sizeof(struct MfadEmuSyevj));
  if (!*p) return CUSOLVER_STATUS_ALLOC_FAILED;
  (*p)->tol        = 2.220446049250313e-16;
  (*p)->max_sweeps = 100;
  return CUSOLVER_STATUS_SUCCESS;
}
static inline cusolverStatus_t cusolverDnDestroySyevjInfo(syevjInfo_t p)
{
  free(p);
  return CUSOLVER_STATUS_SUCCESS;
}
static inline cusolverStatus_t cusolverDnXsyevjSetTolerance(syevjInfo_t p, double tol)
{
  p->tol = tol;
  return CUSOLVER_STATUS_SUCCESS;
}
static inline cusolverStatus_t cusolverDnXsyevjSetMaxSweeps(syevjInfo_t p, int max_sweeps)
{
  if (max_sweeps < 1) return CUSOLVER_STATUS_INVALID_VALUE;
  p->max_sweeps = max_sweeps;
  return CUSOLVER_STATUS_SUCCESS;
}
static inline cusolverStatus_t cusolverDnDsyevjBatched_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, const double *A, int lda, const double *W, int *lwork, syevjInfo_t p, int batch)
{
  (void)h, (void)jobz, (void)uplo, (void)A, (void)lda, (void)W, (void)p, (void)batch;
  *lwork = 2 * n * n;
  return n > 0 && n <= 32 ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_INVALID_VALUE;
}
static inline cusolverStatus_t cusolverDnDsyevjBatched(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, double *A, int lda, double *W, double *work, int lwork, int *info, syevjInfo_t p, int batch)
{
  const char *status = getenv("MFAD_CUDA_EMU_SYEVJ_STATUS"), *sweeps = getenv("MFAD_CUDA_EMU_SYEVJ_MAX_SWEEPS");
  const int   max_sweeps = sweeps && atoi(sweeps) > 0 ? atoi(sweeps) : p->max_sweeps;
  (void)h;
  if (status && atoi(status)) return atoi(status);
  mfad_cuda_emu_syevj_calls++;
  if (batch > mfad_cuda_emu_syevj_max_batch) mfad_cuda_emu_syevj_max_batch = batch;
  if (jobz != CUSOLVER_EIG_MODE_VECTOR || uplo != CUBLAS_FILL_MODE_LOWER || n <= 0 || n > 32 || lda < n || lwork < 2 * n * n || batch < 0)
    return CUSOLVER_STATUS_INVALID_VALUE;
  for (int b = 0; b < batch; b++) {
    double *a = A + (long)b * lda * n, *M = work, *V = work + n * n;
    for (int c = 0; c < n; c++)
      for (int r = c; r < n; r++) M[r * n + c] = M[c * n + r] = a[c * lda + r];
    info[b] = mfad_sym_eig_jacobi_sweeps(n, M, V, max_sweeps, p->tol) < 0 ? n + 1 : 0;
    for (int k = 0; k < n; k++) {
      W[(long)b * n + k] = M[k * n + k];
      for (int r = 0; r < n; r++) a[k * lda + r] = V[r * n + k];
    }
  }
  return CUSOLVER_STATUS_SUCCESS;
}

#endif /* MFAD_CUDA_EMULATE_H */
