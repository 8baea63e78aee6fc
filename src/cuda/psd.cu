// SPDX-License-Identifier: BSD-2-Clause
/* The PSD projection of element Hessians on the GPU (-mfad_psd_project with -mfad_backend cuda):
   one batched eigensolver over the elements of a launch, cuSOLVER's Jacobi
   (cusolverDnDsyevjBatched, matrices up to 32 x 32, its tolerance and sweep limit set here), then
   one thread per element rebuilds V diag(f(lambda)) V^T from the eigenvectors in device memory. A
   thread never holds a matrix (the per-thread eigensolver this replaces reserved up to 7.4 KB of
   stack for every resident thread). A term is projected in chunks of elements whose workspace,
   cuSOLVER's included, stays within 256 MB whatever the mesh. syevj's info array is reduced on the
   device to one flag (the lowest failed matrix), read back once per chunk; a failed matrix that is
   finite takes the CPU's projection (mfad_psd_project) on the host, so the result is the CPU
   backend's for that element; one with a NaN or Inf is an error naming the term and the element.
   Semantics as on the CPU (mfad/impl/psd.h): clamp raises eigenvalues below eps to eps, abs takes
   max(|lambda|, eps); a matrix none of whose eigenvalues changes is left bitwise as it was. */
#include "cudaimpl.h"
#include <mfad/impl/psd.h> /* the modes, MFAD_PSD_MODE_*, and the host projection of a failed matrix */
#include <limits.h>

#define MFAD_CUSOLVER_MAX_N 32 /* cusolverDnDsyevjBatched's limit */

/* syevj's stopping rule, set explicitly so that no library default can move it: off(A) below
   machine epsilon times |A|_F (cuSOLVER's default tolerance), at most 100 sweeps (its default
   limit; cyclic Jacobi converges quadratically, 6-10 sweeps at N <= 24) */
#define MFAD_SYEVJ_TOL    2.220446049250313e-16
#define MFAD_SYEVJ_SWEEPS 100

/* the projection's device workspace, cuSOLVER's included, whatever the mesh: a term is projected
   in chunks of elements that fit (docs/gpu.md) */
#define MFAD_PSD_WORKSPACE_BYTES ((size_t)256 << 20)

const char *MfadCusolverStatusName(int st)
{
  switch (st) {
  case CUSOLVER_STATUS_SUCCESS:
    return "CUSOLVER_STATUS_SUCCESS";
  case CUSOLVER_STATUS_NOT_INITIALIZED:
    return "CUSOLVER_STATUS_NOT_INITIALIZED";
  case CUSOLVER_STATUS_ALLOC_FAILED:
    return "CUSOLVER_STATUS_ALLOC_FAILED";
  case CUSOLVER_STATUS_INVALID_VALUE:
    return "CUSOLVER_STATUS_INVALID_VALUE";
  case CUSOLVER_STATUS_ARCH_MISMATCH:
    return "CUSOLVER_STATUS_ARCH_MISMATCH";
  case CUSOLVER_STATUS_EXECUTION_FAILED:
    return "CUSOLVER_STATUS_EXECUTION_FAILED";
  case CUSOLVER_STATUS_INTERNAL_ERROR:
    return "CUSOLVER_STATUS_INTERNAL_ERROR";
  case CUSOLVER_STATUS_NOT_SUPPORTED:
    return "CUSOLVER_STATUS_NOT_SUPPORTED";
  default:
    return "an unknown cuSOLVER status";
  }
}

#define MfadCallCUSOLVER(call) \
  do { \
    const cusolverStatus_t st_ = (call); \
    PetscCheck(st_ == CUSOLVER_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "cuSOLVER status %d (%s) in %s", (int)st_, \
               MfadCusolverStatusName((int)st_), #call); \
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

/* matrix i's eigensolve failed: syevj's info (n + 1: not converged, as a NaN never does) or an
   eigenvalue that is not finite */
__host__ __device__ static inline int MfadPSDFailed(const int *info, const double *W, int dim, int i)
{
  int bad = info[i] != 0;
  for (int m = 0; m < dim; m++) bad |= !isfinite(W[(long)i * dim + m]);
  return bad;
}

/* the lowest failed matrix of the launch (first stays INT_MAX where none failed): one flag for
   the host instead of the info array */
__global__ void MFAD_CUDA_BOUNDS MfadCudaPSDCheck_Kernel(const int *info, const double *W, int dim, int n, int *first)
{
  const int i = MFAD_CUDA_TID();
  if (i < n && MfadPSDFailed(info, W, dim, i)) atomicMin(first, i);
}

__global__ void MFAD_CUDA_BOUNDS_SERIAL MfadCudaPSDFlagInit_Kernel(int *first)
{
  if (MFAD_CUDA_TID() == 0) *first = INT_MAX;
}

/* K_i = V diag(f(w)) V^T where an eigenvalue changes; V column-major as cuSOLVER writes it (the
   eigenvector m at V + m dim); a failed matrix keeps its input in K for the host */
__global__ void MFAD_CUDA_BOUNDS MfadCudaPSDRebuild_Kernel(const double *V, const double *W, const int *info, int dim, int n, int mode, double eps,
                                                           double *K)
{
  const int i = MFAD_CUDA_TID();
  int       change = 0;
  if (i >= n || MfadPSDFailed(info, W, dim, i)) return;
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

/* A message for the backend (MfadCudaLaunchCheck_Private raises it); returns MFAD_CUDA_REPORTED */
static int MfadCudaPSDReport(MfadCuda *c, PetscErrorCode code, const char *msg)
{
  c->err_code = code;
  (void)PetscStrncpy(c->err_msg, msg, sizeof(c->err_msg));
  return MFAD_CUDA_REPORTED;
}

/* The failed matrices of a launch, on the host (rare: one copy of the flags back): a matrix that
   is not finite is an error naming its element; any other takes the CPU's projection
   (mfad_psd_project, the CPU backend's own arithmetic for that element), written back into K */
static int MfadCudaPSDFallback_Private(MfadCuda *c, const MfadCudaLaunch *P, int dim, int first, const double *W, double *K)
{
  cudaStream_t s = (cudaStream_t)P->stream;
  const int    n = P->n;
  int         *info;
  double      *w, *H;
  int          err = 0;
  char         msg[sizeof(c->err_msg)];

  info = (int *)malloc((size_t)n * sizeof(int));
  w    = (double *)malloc((size_t)n * dim * sizeof(double));
  H    = (double *)malloc((size_t)dim * dim * sizeof(double));
  if (!info || !w || !H) err = (int)cudaErrorMemoryAllocation;
  if (!err) err = (int)cudaMemcpyAsync(info, c->psd_info.ptr, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost, s);
  if (!err) err = (int)cudaMemcpyAsync(w, W, (size_t)n * dim * sizeof(double), cudaMemcpyDeviceToHost, s);
  if (!err) err = (int)cudaStreamSynchronize(s);
  for (int i = first; i < n && !err; i++) {
    const PetscInt e = c->psd_first + i, ce = c->psd_term->order ? c->psd_term->order[e] : e; /* loop order -> the caller's */
    PetscBool      finite = PETSC_TRUE;
    if (!MfadPSDFailed(info, w, dim, i)) continue;
    if ((err = (int)cudaMemcpyAsync(H, K + (long)i * dim * dim, (size_t)dim * dim * sizeof(double), cudaMemcpyDeviceToHost, s)) ||
        (err = (int)cudaStreamSynchronize(s)))
      break;
    for (int t = 0; t < dim * dim; t++) finite = (PetscBool)(finite && isfinite(H[t]));
    if (!finite || dim > MFAD_PSD_MAX_N) {
      if (c->psd_size > 1)
        (void)PetscSNPrintf(msg, sizeof(msg), "term '%s': local element %" PetscInt_FMT " of rank %d", c->psd_term->name, ce, c->psd_rank);
      else (void)PetscSNPrintf(msg, sizeof(msg), "term '%s': element %" PetscInt_FMT, c->psd_term->name, ce);
      if (!finite)
        (void)PetscStrlcat(
            msg, ": its Hessian has a NaN or Inf entry: the PSD projection (-mfad_psd_project) cannot project it (cuSOLVER syevj info ", sizeof(msg));
      else
        (void)PetscStrlcat(msg, ": cuSOLVER's batched Jacobi did not converge and the host's projection takes at most 24 x 24 (info ", sizeof(msg));
      {
        char tail[64];
        (void)PetscSNPrintf(tail, sizeof(tail), "%d)", info[i]);
        (void)PetscStrlcat(msg, tail, sizeof(msg));
      }
      err = MfadCudaPSDReport(c, finite ? PETSC_ERR_SUP : PETSC_ERR_FP, msg);
      break;
    }
    (void)mfad_psd_project(dim, H, P->psd, P->psd_eps);
    if ((err = (int)cudaMemcpyAsync(K + (long)i * dim * dim, H, (size_t)dim * dim * sizeof(double), cudaMemcpyHostToDevice, s)) ||
        (err = (int)cudaStreamSynchronize(s)))
      break;
    c->psd_fallbacks++;
  }
  free(info);
  free(w);
  free(H);
  return err;
}

/* MfadCudaLaunch.psd_project: the launch's n matrices (elements 0 .. n-1, as every element-Hessian
   launch is; n at most the chunk the workspace was sized for) */
static int MfadCudaPSDProject_Private(const void *launch, int dim, int packed, int from_y)
{
  const MfadCudaLaunch *P = (const MfadCudaLaunch *)launch;
  MfadCuda             *c = (MfadCuda *)P->psd_ctx;
  const int             n = P->n;
  cudaStream_t          s = (cudaStream_t)P->stream;
  double               *A = P->psd_work, *K = A + (long)n * dim * dim, *W = K + (long)n * dim * dim;
  int                  *flag = (int *)c->psd_flag.ptr, first = INT_MAX, err;
  cusolverStatus_t      st;

  if (P->elems || dim > MFAD_CUSOLVER_MAX_N || n > c->psd_batch) return (int)cudaErrorInvalidValue;
  MFAD_LAUNCH(MfadCudaPSDLoad_Kernel, mfad_cuda_grid(n), MFAD_CUDA_THREADS, s, from_y ? P->L.y : A, from_y && packed, dim, n, A, K);
  st = cusolverDnDsyevjBatched(c->solver, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, dim, A, dim, W, (double *)c->psd_lwork.ptr, c->psd_nlwork,
                               (int *)c->psd_info.ptr, c->syevj, n);
  if (st != CUSOLVER_STATUS_SUCCESS) {
    char msg[256];
    (void)PetscSNPrintf(msg, sizeof(msg),
                        "term '%s': PSD projection: cusolverDnDsyevjBatched (%d matrices of %d x %d) returned cuSOLVER status %d (%s)",
                        c->psd_term->name, n, dim, dim, (int)st, MfadCusolverStatusName((int)st));
    return MfadCudaPSDReport(c, PETSC_ERR_LIB, msg);
  }
  MFAD_LAUNCH(MfadCudaPSDFlagInit_Kernel, 1, 1, s, flag);
  MFAD_LAUNCH(MfadCudaPSDCheck_Kernel, mfad_cuda_grid(n), MFAD_CUDA_THREADS, s, (const int *)c->psd_info.ptr, (const double *)W, dim, n, flag);
  MFAD_LAUNCH(MfadCudaPSDRebuild_Kernel, mfad_cuda_grid(n), MFAD_CUDA_THREADS, s, A, W, (const int *)c->psd_info.ptr, dim, n, P->psd, P->psd_eps, K);
  if ((err = (int)cudaGetLastError())) return err;
  /* the one flag back: the projection's only synchronisation */
  if ((err = (int)cudaMemcpyAsync(&first, flag, sizeof(int), cudaMemcpyDeviceToHost, s)) || (err = (int)cudaStreamSynchronize(s))) return err;
  if (first != INT_MAX && (err = MfadCudaPSDFallback_Private(c, P, dim, first, W, K))) return err;
  if (from_y) MFAD_LAUNCH(MfadCudaPSDStore_Kernel, mfad_cuda_grid(n), MFAD_CUDA_THREADS, s, K, packed, dim, n, P->L.y);
  return (int)cudaGetLastError();
}

/* bytes of the projection's own workspace per matrix of D x D (A, K: D x D; W: D; info) */
static size_t MfadCudaPSDBytesPerMatrix(int D) { return (size_t)(2 * D * D + D) * sizeof(double) + sizeof(int); }

/* the largest matrix the eigensolver takes of this term: N x N, or its features' */
static int MfadCudaPSDDim(const int dims[2])
{
  return PetscMax(dims[0] <= MFAD_CUSOLVER_MAX_N ? dims[0] : 0, dims[1] <= MFAD_CUSOLVER_MAX_N ? dims[1] : 0);
}

/* Elements per chunk: as many as fit MFAD_PSD_WORKSPACE_BYTES with cuSOLVER's workspace for them
   (MFAD_CUDA_EMU_PSD_CHUNK=k in the emulation: k, for the tests of a chunk smaller than a term) */
static PetscErrorCode MfadCudaPSDChunk_Private(MfadCuda *c, const int dims[2], int n, int *chunk, int *nlwork)
{
  const size_t per = MfadCudaPSDBytesPerMatrix(MfadCudaPSDDim(dims));
  int          m   = (int)PetscMin((size_t)n, MFAD_PSD_WORKSPACE_BYTES / per);
  void     *dummy;

  PetscFunctionBegin;
#if defined(MFAD_CUDA_EMULATION)
  {
    const char *s = getenv("MFAD_CUDA_EMU_PSD_CHUNK");
    if (s && atoi(s) > 0) m = PetscMin(m, atoi(s));
  }
#endif
  /* (the sizes' query takes device pointers it does not read: the flag's stands in) */
  PetscCall(MfadCudaBufferGet_Private(&c->psd_flag, sizeof(double), &dummy));
  for (m = PetscMax(m, 1);; m = PetscMax(m / 2, 1)) {
    int l   = 0;
    *nlwork = 0;
    for (int d = 0; d < 2; d++) {
      if (dims[d] <= 0 || dims[d] > MFAD_CUSOLVER_MAX_N) continue;
      MfadCallCUSOLVER(cusolverDnDsyevjBatched_bufferSize(c->solver, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, dims[d], (const double *)dummy,
                                                          dims[d], (const double *)dummy, &l, c->syevj, m));
      *nlwork = PetscMax(*nlwork, l);
    }
    if (m == 1 || (size_t)m * per + (size_t)*nlwork * sizeof(double) <= MFAD_PSD_WORKSPACE_BYTES) break;
  }
  *chunk = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before a term's element-Hessian launches: the workspace for a chunk of its nelem matrices of
   N x N (or of its features, which are fewer), the eigensolver's, and the launch's hooks; *chunk
   receives the elements per launch (the whole term where nothing is projected) */
static PetscErrorCode MfadCudaPSDPrepare_Private(MfadEnergy E, MfadCuda *c, const MfadTerm *term, MfadCudaLaunch *P, int *chunk)
{
  const int N = term->k->nvert * term->k->dof, dims[2] = {N, term->k->nfeat};
  const int n = (int)term->nelem;
  int       nlwork = 0, m = 1;
  void     *work, *buf;

  PetscFunctionBegin;
  *chunk = n;
  if (P->psd == MFAD_PSD_MODE_NONE || n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  /* an energy at features projects its feature Hessian when it clamps at 0 (mfad/impl/loop_cuda.h) */
  PetscCheck(N <= MFAD_CUSOLVER_MAX_N || (dims[1] > 0 && dims[1] <= MFAD_CUSOLVER_MAX_N && P->psd == MFAD_PSD_MODE_CLAMP && P->psd_eps == 0.0), PETSC_COMM_SELF, PETSC_ERR_SUP,
             "PSD projection on the GPU: element Hessians up to %d x %d (cuSOLVER's batched Jacobi); term %s has %d x %d", MFAD_CUSOLVER_MAX_N, MFAD_CUSOLVER_MAX_N, term->k->name, N, N);
  if (!c->solver) {
    MfadCallCUSOLVER(cusolverDnCreate(&c->solver));
    MfadCallCUSOLVER(cusolverDnCreateSyevjInfo(&c->syevj));
    MfadCallCUSOLVER(cusolverDnXsyevjSetTolerance(c->syevj, MFAD_SYEVJ_TOL));
    MfadCallCUSOLVER(cusolverDnXsyevjSetMaxSweeps(c->syevj, MFAD_SYEVJ_SWEEPS));
  }
  MfadCallCUSOLVER(cusolverDnSetStream(c->solver, c->stream));
  PetscCall(MfadCudaPSDChunk_Private(c, dims, n, &m, &nlwork));
  PetscCall(MfadCudaBufferGet_Private(&c->psd, (size_t)m * (MfadCudaPSDBytesPerMatrix(MfadCudaPSDDim(dims)) - sizeof(int)), &work));
  PetscCall(MfadCudaBufferGet_Private(&c->psd_lwork, (size_t)PetscMax(nlwork, 1) * sizeof(double), &buf));
  PetscCall(MfadCudaBufferGet_Private(&c->psd_info, (size_t)m * sizeof(int), &buf));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)E), &c->psd_rank));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)E), &c->psd_size));
  c->psd_nlwork  = nlwork;
  c->psd_batch   = m;
  c->psd_term    = term;
  c->psd_first   = 0;
  P->psd_work    = (double *)work;
  P->psd_project = MfadCudaPSDProject_Private;
  P->psd_ctx     = c;
  *chunk         = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A term's weighted element Hessians at x into y (full N x N, the COO layout, or packed, the
   cache's), projected where asked: one launch per chunk of elements (the projection's workspace
   is a chunk's); each chunk a slice of the term, so chunked and whole runs are bitwise equal */
PetscErrorCode MfadCudaTermHessians_Private(MfadEnergy E, MfadCuda *c, PetscInt t, const double *x, double *y, PetscBool packed)
{
  const MfadTerm     *term = &E->terms[t];
  const MfadCudaTerm *dt   = &c->terms[t];
  const int           nv = term->k->nvert, N = nv * term->k->dof, np = term->k->nparam;
  const long          size = packed ? (long)N * (N + 1) / 2 : (long)N * N;
  MfadCudaLaunch      P;
  int                 chunk;

  PetscFunctionBegin;
  if (!term->nelem) PetscFunctionReturn(PETSC_SUCCESS);
  MfadCudaLaunchInit_Private(E, term, dt, c, &P);
  P.L.x = x;
  PetscCall(MfadCudaPSDPrepare_Private(E, c, term, &P, &chunk));
  for (int s = 0; s < (int)term->nelem; s += chunk) {
    const int m  = PetscMin(chunk, (int)term->nelem - s);
    P.L.nelem    = m;
    P.L.conn     = dt->conn + (long)s * nv;
    P.L.params   = np ? dt->params + (long)s * np : NULL;
    P.L.y        = y + s * size;
    P.elems      = NULL;
    P.n          = m;
    c->psd_first = s;
    PetscCall(MfadCudaLaunchCheck_Private(E, c, (packed ? term->k->cuda->hessian_packed : term->k->cuda->hessian)(&P), term,
                                          packed ? "packed element Hessians" : "element Hessians"));
  }
  if (term->flops_known) PetscCall(PetscLogGpuFlops(term->flops[MFAD_MODE_HESSIAN] * term->nelem));
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
