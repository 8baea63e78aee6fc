// SPDX-License-Identifier: BSD-2-Clause
/* The PSD projection of element Hessians on the GPU (-mfad_psd_project with -mfad_backend cuda):
   one batched eigensolver over all elements of a launch, cuSOLVER's Jacobi
   (cusolverDnDsyevjBatched, matrices up to 32 x 32), then one thread per element rebuilds
   V diag(f(lambda)) V^T from the eigenvectors in device memory. A thread never holds a matrix (the
   per-thread eigensolver this replaces reserved up to 7.4 KB of stack for every resident thread).
   Semantics as on the CPU (mfad/impl/psd.h): clamp raises eigenvalues below eps to eps, abs takes
   max(|lambda|, eps); a matrix none of whose eigenvalues changes is left bitwise as it was. */
#include "cudaimpl.h"
#include <mfad/impl/psd.h> /* the modes, MFAD_PSD_MODE_* */

#define MFAD_CUSOLVER_MAX_N 32 /* cusolverDnDsyevjBatched's limit */

#define MfadCallCUSOLVER(call) \
  do { \
    const cusolverStatus_t st_ = (call); \
    PetscCheck(st_ == CUSOLVER_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "cuSOLVER error %d in %s", (int)st_, #call); \
  } while (0)

/* f(lambda) of mfad_psd_project_work() */
__host__ __device__ static inline double MfadPSDValue(double l, int mode, double eps)
{
  return mode == MFAD_PSD_MODE_CLAMP ? (l < eps ? eps : l) : (fabs(l) < eps ? eps : fabs(l));
}

/* Matrix i into A (for the eigensolver) and K (the result, when nothing changes): from src, full
   (row-major, at i dim^2) or packed (upper triangle by rows, at i dim (dim + 1) / 2) */
__global__ void MFAD_CUDA_BOUNDS MfadCudaPSDLoad_Kernel(const double *src, int packed, int dim, int n, double *A, double *K)
{
  const int i = MFAD_CUDA_TID();
  if (i >= n) return;
  double *a = A + (long)i * dim * dim, *k = K + (long)i * dim * dim;
  if (packed) {
    const double *pk = src + (long)i * (dim * (dim + 1) / 2);
    for (int r = 0, t = 0; r < dim; r++)
      for (int j = r; j < dim; j++, t++) a[r * dim + j] = a[j * dim + r] = k[r * dim + j] = k[j * dim + r] = pk[t];
  } else {
    const double *s = src + (long)i * dim * dim;
    for (int t = 0; t < dim * dim; t++) a[t] = k[t] = s[t];
  }
}

/* K_i = V diag(f(w)) V^T where an eigenvalue changes; V column-major as cuSOLVER writes it (the
   eigenvector m at V + m dim) */
__global__ void MFAD_CUDA_BOUNDS MfadCudaPSDRebuild_Kernel(const double *V, const double *W, int dim, int n, int mode, double eps, double *K)
{
  const int i = MFAD_CUDA_TID();
  int       change = 0;
  if (i >= n) return;
  const double *v = V + (long)i * dim * dim, *w = W + (long)i * dim;
  double       *k = K + (long)i * dim * dim;
  for (int m = 0; m < dim; m++) change |= MfadPSDValue(w[m], mode, eps) != w[m];
  if (!change) return;
  for (int r = 0; r < dim; r++)
    for (int c = r; c < dim; c++) {
      double s = 0.0;
      for (int m = 0; m < dim; m++) s += v[m * dim + r] * MfadPSDValue(w[m], mode, eps) * v[m * dim + c];
      k[r * dim + c] = k[c * dim + r] = s;
    }
}

/* K back into y, full or packed */
__global__ void MFAD_CUDA_BOUNDS MfadCudaPSDStore_Kernel(const double *K, int packed, int dim, int n, double *y)
{
  const int i = MFAD_CUDA_TID();
  if (i >= n) return;
  const double *k = K + (long)i * dim * dim;
  if (packed) {
    double *pk = y + (long)i * (dim * (dim + 1) / 2);
    for (int r = 0, t = 0; r < dim; r++)
      for (int j = r; j < dim; j++, t++) pk[t] = k[r * dim + j];
  } else {
    double *h = y + (long)i * dim * dim;
    for (int t = 0; t < dim * dim; t++) h[t] = k[t];
  }
}

/* MfadCudaLaunch.psd_project: the launch's n matrices (elements 0 .. n-1, as every element-Hessian
   launch is) */
static int MfadCudaPSDProject_Private(const void *launch, int dim, int packed, int from_y)
{
  const MfadCudaLaunch *P = (const MfadCudaLaunch *)launch;
  MfadCuda             *c = (MfadCuda *)P->psd_ctx;
  const int             n = P->n;
  cudaStream_t          s = (cudaStream_t)P->stream;
  double               *A = P->psd_work, *K = A + (long)n * dim * dim, *W = K + (long)n * dim * dim;

  if (P->elems || dim > MFAD_CUSOLVER_MAX_N || n > c->psd_batch) return (int)cudaErrorInvalidValue;
  MFAD_LAUNCH(MfadCudaPSDLoad_Kernel, mfad_cuda_grid(n), MFAD_CUDA_THREADS, s, from_y ? P->L.y : A, from_y && packed, dim, n, A, K);
  if (cusolverDnDsyevjBatched(c->solver, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, dim, A, dim, W, (double *)c->psd_lwork.ptr, c->psd_nlwork, (int *)c->psd_info.ptr, c->syevj, n) != CUSOLVER_STATUS_SUCCESS)
    return (int)cudaErrorUnknown;
  MFAD_LAUNCH(MfadCudaPSDRebuild_Kernel, mfad_cuda_grid(n), MFAD_CUDA_THREADS, s, A, W, dim, n, P->psd, P->psd_eps, K);
  if (from_y) MFAD_LAUNCH(MfadCudaPSDStore_Kernel, mfad_cuda_grid(n), MFAD_CUDA_THREADS, s, K, packed, dim, n, P->L.y);
  return (int)cudaGetLastError();
}

/* Before a term's element-Hessian launch: the workspace for its nelem matrices of N x N (or of
   its features, which are fewer), the eigensolver's, and the launch's hooks */
PetscErrorCode MfadCudaPSDPrepare_Private(MfadCuda *c, const MfadTerm *term, MfadCudaLaunch *P)
{
  const int N = term->k->nvert * term->k->dof, dims[2] = {N, term->k->nfeat};
  const int n = (int)term->nelem;
  int       nlwork = 0;
  void     *work, *buf;

  PetscFunctionBegin;
  if (P->psd == MFAD_PSD_MODE_NONE || n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  /* an energy at features projects its feature Hessian when it clamps at 0 (mfad/impl/loop_cuda.h) */
  PetscCheck(N <= MFAD_CUSOLVER_MAX_N || (dims[1] > 0 && dims[1] <= MFAD_CUSOLVER_MAX_N && P->psd == MFAD_PSD_MODE_CLAMP && P->psd_eps == 0.0), PETSC_COMM_SELF, PETSC_ERR_SUP,
             "PSD projection on the GPU: element Hessians up to %d x %d (cuSOLVER's batched Jacobi); term %s has %d x %d", MFAD_CUSOLVER_MAX_N, MFAD_CUSOLVER_MAX_N, term->k->name, N, N);
  if (!c->solver) {
    MfadCallCUSOLVER(cusolverDnCreate(&c->solver));
    MfadCallCUSOLVER(cusolverDnCreateSyevjInfo(&c->syevj));
  }
  MfadCallCUSOLVER(cusolverDnSetStream(c->solver, c->stream));
  PetscCall(MfadCudaBufferGet_Private(&c->psd, (size_t)n * (2 * N * N + N) * sizeof(double), &work));
  for (int d = 0; d < 2; d++) {
    int l = 0;
    if (dims[d] <= 0 || dims[d] > MFAD_CUSOLVER_MAX_N) continue;
    MfadCallCUSOLVER(cusolverDnDsyevjBatched_bufferSize(c->solver, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, dims[d], (const double *)work, dims[d],
                                                        (const double *)work + (long)2 * n * dims[d] * dims[d], &l, c->syevj, n));
    nlwork = PetscMax(nlwork, l);
  }
  PetscCall(MfadCudaBufferGet_Private(&c->psd_lwork, (size_t)PetscMax(nlwork, 1) * sizeof(double), &buf));
  PetscCall(MfadCudaBufferGet_Private(&c->psd_info, (size_t)n * sizeof(int), &buf));
  c->psd_nlwork  = nlwork;
  c->psd_batch   = n;
  P->psd_work    = (double *)work;
  P->psd_project = MfadCudaPSDProject_Private;
  P->psd_ctx     = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadCudaPSDReset_Private(MfadCuda *c)
{
  PetscFunctionBegin;
  if (c->syevj) MfadCallCUSOLVER(cusolverDnDestroySyevjInfo(c->syevj));
  if (c->solver) MfadCallCUSOLVER(cusolverDnDestroy(c->solver));
  c->syevj  = NULL;
  c->solver = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
