// SPDX-License-Identifier: BSD-2-Clause
/* The CUDA backend (-mfad_backend cuda): device check, set-up (connectivity, parameters, element
   colours and fixed dofs uploaded once), the staging of local Vecs (used in place when PETSc holds
   them on the device, copied through buffers allocated once otherwise), and the element loops of
   every operation, one launch per element colour (or one atomic launch, -mfad_scatter atomic).
   The arithmetic is all in the energies' element bodies (mfad/impl/element.h via mfad/impl/loop_cuda.h);
   this file moves data and counts launches. */
#include "cudaimpl.h"
#include <limits.h>
#if defined(PETSC_HAVE_CUDA) && !defined(MFAD_CUDA_EMULATION)
  #include <petscdevice_cuda.h> /* PETSc's stream and device choice */
#endif

#if defined(MFAD_CUDA_EMULATION)
long long mfad_cuda_emu_copies[5], mfad_cuda_emu_bytes[5], mfad_cuda_emu_syevj_calls, mfad_cuda_emu_syevj_max_batch;
int       mfad_cuda_emu_pending, mfad_cuda_emu_sticky;
/* the emulation's cudaDeviceReset(): a planted fault (MFAD_CUDA_EMU_FAULT) forgotten */
extern "C" __attribute__((visibility("default"))) void mfad_cuda_emu_reset(void) { mfad_cuda_emu_pending = mfad_cuda_emu_sticky = 0; }
#endif

/* ------------------------------------------------------------------ small device kernels */
/* energy of each of the core's blocks: its elements' weighted energies summed in element order,
   as the CPU loop sums them (the core then sums blocks in block order) */
__global__ void MFAD_CUDA_BOUNDS MfadCudaBlockSums_Kernel(const double *elem_value, const int *block_start, int nblocks, double *block_value)
{
  const int b = MFAD_CUDA_TID();
  double    s = 0.0;
  if (b >= nblocks) return;
  for (int e = block_start[b]; e < block_start[b + 1]; e++) s += elem_value[e];
  block_value[b] = s;
}

/* the gather scatter: y[v dof + d] += the element outputs of local vertex v, in element order */
__global__ void MFAD_CUDA_BOUNDS MfadCudaGather_Kernel(const double *elem_out, const int *gstart, const int *gidx, int nvtx, int dof, double *y)
{
  const int i = MFAD_CUDA_TID();
  if (i < nvtx * dof) {
    const int v = i / dof, d = i % dof;
    double    s = 0.0;
    for (int k = gstart[v]; k < gstart[v + 1]; k++) s += elem_out[(long)gidx[k] * dof + d];
    y[i] += s;
  }
}

__global__ void MFAD_CUDA_BOUNDS MfadCudaZeroEntries_Kernel(double *v, const int *idx, int n)
{
  const int i = MFAD_CUDA_TID();
  if (i < n) v[idx[i]] = 0.0;
}

/* a fixed-order sum in two launches: thread t sums a[t chunk, (t + 1) chunk), then one thread sums
   those in order (the same result on every run, any scheduling) */
__global__ void MFAD_CUDA_BOUNDS MfadCudaChunkSums_Kernel(const double *a, int n, int chunk, double *partial)
{
  const int t = MFAD_CUDA_TID(), e = (t + 1) * chunk < n ? (t + 1) * chunk : n;
  double    s = 0.0;
  if (t * chunk >= n) return;
  for (int i = t * chunk; i < e; i++) s += a[i];
  partial[t] = s;
}

__global__ void MFAD_CUDA_BOUNDS_SERIAL MfadCudaSerialSum_Kernel(const double *a, int n, double *out)
{
  double s = 0.0;
  if (MFAD_CUDA_TID() != 0) return;
  for (int i = 0; i < n; i++) s += a[i];
  *out = s;
}

__global__ void MFAD_CUDA_BOUNDS MfadCudaFill_Kernel(double *a, int n, double v)
{
  const int i = MFAD_CUDA_TID();
  if (i < n) a[i] = v;
}

__global__ void MFAD_CUDA_BOUNDS_SERIAL MfadCudaSetInt_Kernel(int *a, int v)
{
  if (MFAD_CUDA_TID() == 0) *a = v;
}

/* the lowest index of a NaN or Inf in x (first stays INT_MAX where there is none) */
__global__ void MFAD_CUDA_BOUNDS MfadCudaFirstNotFinite_Kernel(const double *x, int n, int *first)
{
  const int i = MFAD_CUDA_TID();
  if (i < n && !isfinite(x[i])) atomicMin(first, i);
}

/* 1/2 (x_j - value)^2 of each owned fixed dof */
__global__ void MFAD_CUDA_BOUNDS MfadCudaFixedPenalty_Kernel(const double *x, const int *fixloc, const double *fixval, int n, double *pen)
{
  const int i = MFAD_CUDA_TID();
  if (i < n) {
    const double d = x[fixloc[i]] - fixval[i];
    pen[i]         = 0.5 * d * d;
  }
}

__global__ void MFAD_CUDA_BOUNDS MfadCudaFixedValues_Kernel(double *x, const int *fixloc, const double *fixval, int n)
{
  const int i = MFAD_CUDA_TID();
  if (i < n) x[fixloc[i]] = fixval[i];
}

/* the owned fixed rows of a global output (MfadFixedRows) */
__global__ void MFAD_CUDA_BOUNDS MfadCudaFixedRows_Kernel(double *y, const double *x, const int *fixloc, const double *fixval, int n, int rows)
{
  const int i = MFAD_CUDA_TID();
  if (i < n) {
    const int j = fixloc[i];
    y[j]        = rows == MFAD_FIXED_RESIDUAL ? x[j] - fixval[i] : rows == MFAD_FIXED_IDENTITY ? x[j] : rows == MFAD_FIXED_ONE ? 1.0 : 0.0;
  }
}

/* ------------------------------------------------------------------ device and set-up */
PetscErrorCode MfadCudaCheckDevice_Private(MPI_Comm comm)
{
  int         n   = 0;
  cudaError_t err = cudaGetDeviceCount(&n);

  PetscFunctionBegin;
  PetscCheck(err == cudaSuccess, comm, PETSC_ERR_SUP_SYS, "-mfad_backend cuda: no usable CUDA device: cudaGetDeviceCount() failed with CUDA error %d (%s: %s)", (int)err, cudaGetErrorName(err),
             cudaGetErrorString(err));
  PetscCheck(n > 0, comm, PETSC_ERR_SUP_SYS, "-mfad_backend cuda: cudaGetDeviceCount() found no CUDA device");
#if defined(PETSC_HAVE_CUDA) && !defined(MFAD_CUDA_EMULATION)
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA)); /* PETSc chooses each rank's device (-device_select), and we use it */
#else
  { /* the ranks of a node spread over its devices, as PETSc spreads them */
    static PetscBool chosen = PETSC_FALSE;
    if (!chosen) {
      MPI_Comm    node;
      PetscMPIInt rank;
      PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
      PetscCallMPI(MPI_Comm_rank(node, &rank));
      PetscCallMPI(MPI_Comm_free(&node));
      MfadCallCUDA(cudaSetDevice(rank % n));
      chosen = PETSC_TRUE;
    }
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyLocalVecType_CUDA(MfadEnergy E, VecType *type)
{
  PetscFunctionBegin;
  (void)E;
#if defined(PETSC_HAVE_CUDA) && !defined(MFAD_CUDA_EMULATION)
  *type = VECSEQCUDA;
#else
  *type = VECSEQ;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadCudaBufferGet_Private(MfadCudaBuffer *b, size_t bytes, void **ptr)
{
  PetscFunctionBegin;
  if (b->bytes < bytes) {
    if (b->ptr) MfadCallCUDA(cudaFree(b->ptr));
    b->ptr    = NULL;
    b->bytes  = 0;
    b->staged = PETSC_FALSE;
    MfadCallCUDA(cudaMalloc(&b->ptr, bytes));
    b->bytes = bytes;
  }
  *ptr = b->ptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename T>
static PetscErrorCode MfadCudaUpload_Private(cudaStream_t s, const T *host, size_t n, T **dev)
{
  PetscFunctionBegin;
  MfadCallCUDA(cudaMalloc((void **)dev, n * sizeof(T)));
  if (n) MfadCallCUDA(cudaMemcpyAsync(*dev, host, n * sizeof(T), cudaMemcpyHostToDevice, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Element colours of a term: colours of single elements (the core's block colouring with blocks
   of one), since a GPU thread runs one element. The emulation also proves the colouring race-free. */
static PetscErrorCode MfadCudaTermSetUp_Private(MfadEnergy E, const MfadTerm *term, cudaStream_t s, MfadCudaTerm *dt)
{
  const int nv = term->k->nvert;
  int       nb, *bs, *elems;

  PetscFunctionBegin;
  PetscCheck(term->k->cuda, PetscObjectComm((PetscObject)E), PETSC_ERR_SUP, "-mfad_backend cuda: term '%s': kernel '%s' has no CUDA entry points (registered with NO_CUDA, or built without nvcc)", term->name, term->k->name);
  PetscCall(MfadColourBlocks_Private(term->nelem, nv, term->conn, E->local.nlocal, 1, &nb, &bs, &dt->ncolours, &dt->colour_start, &elems));
  PetscCall(PetscFree(bs));
#if defined(MFAD_CUDA_EMULATION)
  { /* the emulation runs threads one after another, so it cannot see a race: check there is none */
    int *owner;
    PetscCall(PetscMalloc1(E->local.nlocal, &owner));
    for (PetscInt i = 0; i < E->local.nlocal; i++) owner[i] = -1;
    for (int col = 0; col < dt->ncolours; col++)
      for (int i = dt->colour_start[col]; i < dt->colour_start[col + 1]; i++)
        for (int a = 0; a < nv; a++) {
          const int vtx = term->conn[(size_t)elems[i] * nv + a];
          PetscCheck(owner[vtx] != col, PETSC_COMM_SELF, PETSC_ERR_PLIB, "term '%s': colour %d has two elements on local vertex %d", term->name, col, vtx);
          owner[vtx] = col;
        }
    PetscCall(PetscFree(owner));
  }
#endif
  { /* the gather's lists: each local vertex's (element, corner) pairs in element order */
    int *gstart, *gidx, *fill;
    PetscCall(PetscCalloc1(E->local.nlocal + 1, &gstart));
    PetscCall(PetscMalloc2((size_t)term->nelem * nv + 1, &gidx, E->local.nlocal, &fill));
    for (PetscInt i = 0; i < term->nelem * nv; i++) gstart[term->conn[i] + 1]++;
    for (PetscInt v = 0; v < E->local.nlocal; v++) {
      gstart[v + 1] += gstart[v];
      fill[v] = gstart[v];
    }
    for (PetscInt i = 0; i < term->nelem * nv; i++) gidx[fill[term->conn[i]]++] = (int)i;
    PetscCall(MfadCudaUpload_Private(s, (const int *)gstart, (size_t)E->local.nlocal + 1, &dt->gstart));
    PetscCall(MfadCudaUpload_Private(s, (const int *)gidx, (size_t)term->nelem * nv, &dt->gidx));
    MfadCallCUDA(cudaStreamSynchronize(s));
    PetscCall(PetscFree(gstart));
    PetscCall(PetscFree2(gidx, fill));
  }
  PetscCall(MfadCudaUpload_Private(s, term->conn, (size_t)term->nelem * nv, &dt->conn));
  PetscCall(MfadCudaUpload_Private(s, (const double *)term->params, (size_t)term->nelem * term->k->nparam, &dt->params));
  PetscCall(MfadCudaUpload_Private(s, (const int *)elems, (size_t)term->nelem, &dt->elems));
  PetscCall(MfadCudaUpload_Private(s, (const int *)term->block_start, (size_t)term->nblocks + 1, &dt->block_start));
  MfadCallCUDA(cudaStreamSynchronize(s)); /* the host arrays may go */
  PetscCall(PetscFree(elems));
  dt->ready = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A term's device copies go (its element set changed, or the energy's set-up): the next
   MfadCudaGet_Private() uploads them again; the stream, buffers and solver handles stay */
static PetscErrorCode MfadCudaTermFree_Private(MfadCudaTerm *dt)
{
  PetscFunctionBegin;
  MfadCallCUDA(cudaFree(dt->conn));
  MfadCallCUDA(cudaFree(dt->params));
  MfadCallCUDA(cudaFree(dt->elems));
  MfadCallCUDA(cudaFree(dt->block_start));
  MfadCallCUDA(cudaFree(dt->gstart));
  MfadCallCUDA(cudaFree(dt->gidx));
  MfadCallCUDA(cudaFree(dt->row));
  PetscCall(PetscFree(dt->colour_start));
  PetscCall(PetscMemzero(dt, sizeof(*dt)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The energy's device state, set up on first use after each MfadEnergySetUp(); the stream is
   PETSc's current one at each call, so that our launches and PETSc's Vec operations stay ordered
   under any stream type */
PetscErrorCode MfadCudaGet_Private(MfadEnergy E, MfadCuda **cp)
{
  MfadCuda *c = (MfadCuda *)E->data;

  PetscFunctionBegin;
  if (!c) {
    PetscCall(PetscNew(&c));
    E->data = c;
#if defined(PETSC_HAVE_CUDA) && !defined(MFAD_CUDA_EMULATION) && PETSC_VERSION_GE(3, 20, 0)
    PetscCall(PetscGetCurrentCUDAStream(&c->stream));
#else
    MfadCallCUDA(cudaStreamCreate(&c->stream)); /* no PETSc stream to share: a blocking one of our own */
    c->own_stream = PETSC_TRUE;
#endif
    PetscCall(PetscCalloc1(E->nterms, &c->terms));
    PetscCall(PetscMalloc1(E->nterms + 1, &c->sums_host));
    c->nterms          = E->nterms;
    c->fixed_count     = -1;
    c->nghost_rebuilds = E->dyn.nghost_rebuilds;
  }
  for (PetscInt t = 0; t < c->nterms; t++) /* every term at first use; a term whose element set changed, again */
    if (!c->terms[t].ready) PetscCall(MfadCudaTermSetUp_Private(E, &E->terms[t], c->stream, &c->terms[t]));
  c->sync = E->opt.cuda_sync;
#if defined(PETSC_HAVE_CUDA) && !defined(MFAD_CUDA_EMULATION) && PETSC_VERSION_GE(3, 20, 0)
  PetscCall(PetscGetCurrentCUDAStream(&c->stream));
#endif
  if (c->fixed_count != E->local.fixed_count) { /* fixed dofs: uploaded once per set of them */
    int *fix;
    PetscCall(PetscMalloc1(E->local.nfixloc, &fix));
    for (PetscInt i = 0; i < E->local.nfixloc; i++) fix[i] = (int)E->local.fixloc[i];
    MfadCallCUDA(cudaFree(c->fixloc));
    MfadCallCUDA(cudaFree(c->fixval));
    PetscCall(MfadCudaUpload_Private(c->stream, (const int *)fix, (size_t)E->local.nfixloc, &c->fixloc));
    PetscCall(MfadCudaUpload_Private(c->stream, (const double *)E->local.fixval, (size_t)E->local.nfixloc, &c->fixval));
    MfadCallCUDA(cudaStreamSynchronize(c->stream));
    PetscCall(PetscFree(fix));
    c->hess_key.valid  = PETSC_FALSE;
    c->cache_key.valid = PETSC_FALSE;
  }
  c->fixed_count = E->local.fixed_count;
  *cp = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadCudaBufferFree_Private(MfadCudaBuffer *b)
{
  PetscFunctionBegin;
  if (b->ptr) MfadCallCUDA(cudaFree(b->ptr));
  b->ptr   = NULL;
  b->bytes = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyReset_CUDA(MfadEnergy E)
{
  MfadCuda *c = (MfadCuda *)E->data;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  MfadCallCUDA(cudaStreamSynchronize(c->stream));
  for (PetscInt t = 0; t < c->nterms; t++) PetscCall(MfadCudaTermFree_Private(&c->terms[t]));
  PetscCall(PetscFree(c->terms));
  MfadCallCUDA(cudaFree(c->fixloc));
  MfadCallCUDA(cudaFree(c->fixval));
  PetscCall(PetscFree(c->sums_host));
  PetscCall(MfadCudaBufferFree_Private(&c->partial));
  PetscCall(MfadCudaBufferFree_Private(&c->sums));
  PetscCall(MfadCudaBufferFree_Private(&c->pen));
  PetscCall(MfadCudaBufferFree_Private(&c->penterms));
  PetscCall(MfadCudaBufferFree_Private(&c->flag));
  PetscCall(MfadCudaBufferFree_Private(&c->x));
  PetscCall(MfadCudaBufferFree_Private(&c->v));
  PetscCall(MfadCudaBufferFree_Private(&c->y));
  PetscCall(MfadCudaBufferFree_Private(&c->blocks));
  PetscCall(MfadCudaBufferFree_Private(&c->elem_value));
  PetscCall(MfadCudaBufferFree_Private(&c->block_value));
  PetscCall(MfadCudaBufferFree_Private(&c->elem_out));
  PetscCall(MfadCudaBufferFree_Private(&c->hess));
  PetscCall(MfadCudaBufferFree_Private(&c->cache));
  PetscCall(MfadCudaBufferFree_Private(&c->psd));
  PetscCall(MfadCudaBufferFree_Private(&c->psd_lwork));
  PetscCall(MfadCudaBufferFree_Private(&c->psd_info));
  PetscCall(MfadCudaBufferFree_Private(&c->psd_flag));
  PetscCall(MfadCudaBufferFree_Private(&c->res));
  PetscCall(MfadCudaBufferFree_Private(&c->resw));
  PetscCall(MfadCudaBufferFree_Private(&c->resjac));
  PetscCall(MfadCudaPSDReset_Private(c));
  PetscCall(PetscFree(c->hess_host));
  if (c->own_stream) MfadCallCUDA(cudaStreamDestroy(c->stream));
  PetscCall(PetscFree(c));
  E->data = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ staging */
/* Every copy between host and device goes through here: PETSc's log counts it (-log_view's
   GpuToCpu and CpuToGpu columns), as it counts its own Vecs' copies */
PetscErrorCode MfadCudaCopy_Private(MfadCuda *c, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  MfadCallCUDA(cudaMemcpyAsync(dst, src, bytes, kind, c->stream));
  if (kind == cudaMemcpyHostToDevice) PetscCall(PetscLogCpuToGpu((PetscLogDouble)bytes));
  if (kind == cudaMemcpyDeviceToHost) PetscCall(PetscLogGpuToCpu((PetscLogDouble)bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadCudaVecGetRead_Private(MfadCuda *c, Vec X, MfadCudaBuffer *stage, const PetscScalar **host, const double **dev)
{
  PetscMemType mt;
  PetscInt     n;
  void        *buf;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayReadAndMemType(X, host, &mt));
  if (MfadCudaOnDevice(mt)) *dev = (const double *)*host; /* in place: PETSc holds it on the device */
  else {
    /* staged: copied once per Vec and state (a point is read by every operation at it) */
    PetscObjectId    id;
    PetscObjectState state;
    PetscCall(PetscObjectGetId((PetscObject)X, &id));
    PetscCall(PetscObjectStateGet((PetscObject)X, &state));
    PetscCall(MfadCudaBufferGet_Private(stage, (size_t)n * sizeof(double), &buf));
    if (!(stage->staged && stage->id == id && stage->state == state)) {
      stage->staged = PETSC_FALSE;
      PetscCall(MfadCudaCopy_Private(c, buf, *host, (size_t)n * sizeof(double), cudaMemcpyHostToDevice));
      stage->staged = PETSC_TRUE;
      stage->id     = id;
      stage->state  = state;
    }
    *dev = (const double *)buf;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadCudaVecRestoreRead_Private(Vec X, const PetscScalar **host)
{
  PetscFunctionBegin;
  PetscCall(VecRestoreArrayReadAndMemType(X, host));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A device array of X's values to change in place: X's own when on the device, else staged both ways */
PetscErrorCode MfadCudaVecGetReadWrite_Private(MfadCuda *c, Vec X, MfadCudaBuffer *stage, PetscScalar **host, double **dev, PetscMemType *mt)
{
  PetscInt n;
  void    *buf;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayAndMemType(X, host, mt));
  if (MfadCudaOnDevice(*mt)) *dev = (double *)*host;
  else {
    PetscCall(MfadCudaBufferGet_Private(stage, (size_t)n * sizeof(double), &buf));
    stage->staged = PETSC_FALSE; /* written here: no Vec's state */
    PetscCall(MfadCudaCopy_Private(c, buf, *host, (size_t)n * sizeof(double), cudaMemcpyHostToDevice));
    *dev = (double *)buf;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Staged values back to the host array (the one synchronisation, since PETSc reads them next);
   nothing when they were written in place on the device */
static PetscErrorCode MfadCudaVecStageBack_Private(MfadCuda *c, Vec X, PetscScalar *host, const double *dev, PetscMemType mt)
{
  PetscInt n;

  PetscFunctionBegin;
  if (MfadCudaOnDevice(mt)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(MfadCudaCopy_Private(c, host, dev, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost));
  MfadCallCUDA(cudaStreamSynchronize(c->stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadCudaVecRestoreReadWrite_Private(MfadCuda *c, Vec X, PetscScalar **host, double *dev, PetscMemType mt)
{
  PetscFunctionBegin;
  PetscCall(MfadCudaVecStageBack_Private(c, X, *host, dev, mt));
  PetscCall(VecRestoreArrayAndMemType(X, host));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A zeroed device array for Y's values: Y's own when on the device, else a staging buffer */
PetscErrorCode MfadCudaVecGetWrite_Private(MfadCuda *c, Vec Y, MfadCudaBuffer *stage, PetscScalar **host, double **dev, PetscMemType *mt)
{
  PetscInt n;
  void    *buf;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(Y, &n));
  PetscCall(VecGetArrayWriteAndMemType(Y, host, mt));
  if (MfadCudaOnDevice(*mt)) *dev = (double *)*host;
  else {
    PetscCall(MfadCudaBufferGet_Private(stage, (size_t)n * sizeof(double), &buf));
    stage->staged = PETSC_FALSE;
    *dev = (double *)buf;
  }
  MfadCallCUDA(cudaMemsetAsync(*dev, 0, (size_t)n * sizeof(double), c->stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y's values back where PETSc expects them */
PetscErrorCode MfadCudaVecRestoreWrite_Private(MfadCuda *c, Vec Y, PetscScalar **host, double *dev, PetscMemType mt)
{
  PetscFunctionBegin;
  PetscCall(MfadCudaVecStageBack_Private(c, Y, *host, dev, mt));
  PetscCall(VecRestoreArrayWriteAndMemType(Y, host));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fixed columns of H are zero: v's fixed entries cleared on the device */
PetscErrorCode MfadCudaZeroFixed_Private(MfadEnergy E, MfadCuda *c, double *v)
{
  PetscFunctionBegin;
  if (E->local.nfixloc) {
    MFAD_LAUNCH(MfadCudaZeroEntries_Kernel, mfad_cuda_grid((int)E->local.nfixloc), MFAD_CUDA_THREADS, c->stream, v, c->fixloc, (int)E->local.nfixloc);
    MfadCudaLaunched(c, MfadCudaZeroEntries_Kernel);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

void MfadCudaLaunchInit_Private(MfadEnergy E, const MfadTerm *term, const MfadCudaTerm *dt, MfadCuda *c, MfadCudaLaunch *P)
{
  PetscMemzero(P, sizeof(*P));
  P->L.nelem  = (int)term->nelem;
  P->L.conn   = dt->conn;
  P->L.params = term->k->nparam ? dt->params : NULL;
  P->L.weight = term->weight;
  P->atomic   = MfadEnergyAtomicScatter_Private(E) ? 1 : 0;
  P->psd      = term->k->nout ? (int)MFAD_PSD_NONE : (int)E->solve.psd; /* J^T J is PSD already (src/hessian.c) */
  P->psd_eps  = E->opt.psd_eps;
  P->stream   = (void *)c->stream;
}

/* ------------------------------------------------------------------ launch checks */
/* A launch error at once; a fault of the kernel itself (an illegal address, a trap) only at a
   synchronisation, which -mfad_cuda_sync makes right after each launch so that the error names it */
static PetscErrorCode MfadCudaLaunchError_Private(MfadCuda *c, int err, char where[], size_t len)
{
  PetscFunctionBegin;
  where[0] = 0;
  if (!err && c->sync) err = (int)cudaStreamSynchronize(c->stream);
  if (!err) err = (int)cudaGetLastError();
  if (err)
    PetscCall(PetscSNPrintf(where, len, "CUDA error %d (%s: %s)%s", err, cudaGetErrorName((cudaError_t)err), cudaGetErrorString((cudaError_t)err),
                            c->sync ? "" : "; the fault may be an earlier launch's: -mfad_cuda_sync names the kernel"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadCudaLaunchCheck_Private(MfadEnergy E, MfadCuda *c, int err, const MfadTerm *term, const char *what)
{
  char where[256];

  PetscFunctionBegin;
  (void)E;
  PetscCheck(err != MFAD_CUDA_REPORTED, PETSC_COMM_SELF, c->err_code, "%s", c->err_msg);
  PetscCall(MfadCudaLaunchError_Private(c, err, where, sizeof(where)));
  PetscCheck(!where[0], PETSC_COMM_SELF, PETSC_ERR_LIB, "term '%s': kernel '%s', %s: %s", term->name, term->k->name, what, where);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadCudaKernelCheck_Private(MfadCuda *c, const char *kernel)
{
  char where[256];

  PetscFunctionBegin;
  PetscCall(MfadCudaLaunchError_Private(c, 0, where, sizeof(where)));
  PetscCheck(!where[0], PETSC_COMM_SELF, PETSC_ERR_LIB, "%s: %s", kernel, where);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ element loops */
/* One operation of one term: a launch per colour (coloured scatter), or one launch over all
   elements (values; the atomic scatter) */
PetscErrorCode MfadCudaTermRun_Private(MfadEnergy E, MfadCuda *c, const MfadTerm *term, const MfadCudaTerm *dt, MfadCudaLaunchFn fn,
                                       PetscBool coloured, MfadCudaLaunch *P, const char *what)
{
  PetscFunctionBegin;
  PetscCheck(fn, PETSC_COMM_SELF, PETSC_ERR_SUP, "-mfad_backend cuda: term '%s': kernel '%s' has no CUDA %s", term->name, term->k->name, what);
  if (!coloured) {
    P->elems = NULL;
    P->n     = P->L.nelem;
    PetscCall(MfadCudaLaunchCheck_Private(E, c, fn(P), term, what));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (int col = 0; col < dt->ncolours; col++) {
    P->elems = dt->elems + dt->colour_start[col];
    P->n     = dt->colour_start[col + 1] - dt->colour_start[col];
    PetscCall(MfadCudaLaunchCheck_Private(E, c, fn(P), term, what));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyRunTerms_CUDA(MfadEnergy E, MfadOp op, PetscReal *value)
{
  MfadCuda          *c;
  const PetscScalar *xh = NULL;
  PetscScalar       *yh = NULL, *vh = NULL;
  const double      *x = NULL;
  double            *v = NULL, *y = NULL, *ev = NULL, *bv = NULL, *sums = NULL, *eo = NULL;
  PetscMemType       ymt = PETSC_MEMTYPE_HOST, vmt = PETSC_MEMTYPE_HOST;
  PetscInt           maxe = 1, maxb = 1;
  PetscCount         maxo   = 1;
  Vec                Y      = op == MFAD_OP_GRADIENT || op == MFAD_OP_HVP || op == MFAD_OP_DIAGONAL ? E->local.yloc : NULL;
  const PetscBool    gather = Y && MfadEnergyGatherScatter_Private(E) ? PETSC_TRUE : PETSC_FALSE;
  const PetscBool    coloured = MfadEnergyAtomicScatter_Private(E) || gather ? PETSC_FALSE : PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(MfadCudaGet_Private(E, &c));
  for (PetscInt t = 0; t < E->nterms; t++) {
    maxe = PetscMax(maxe, E->terms[t].nelem);
    maxb = PetscMax(maxb, E->terms[t].nblocks);
    maxo = PetscMax(maxo, E->terms[t].nelem * (PetscCount)E->terms[t].k->nvert * E->terms[t].k->dof);
  }
  if (gather) PetscCall(MfadCudaBufferGet_Private(&c->elem_out, (size_t)maxo * sizeof(double), (void **)&eo));
  PetscCall(MfadCudaVecGetRead_Private(c, E->local.xloc, &c->x, &xh, &x));
  if (op == MFAD_OP_HVP) { /* fixed columns of H are zero: vloc's fixed entries cleared in place */
    PetscCall(MfadCudaVecGetReadWrite_Private(c, E->local.vloc, &c->v, &vh, &v, &vmt));
    PetscCall(MfadCudaZeroFixed_Private(E, c, v));
  }
  if (Y) PetscCall(MfadCudaVecGetWrite_Private(c, Y, &c->y, &yh, &y, &ymt));
  if (op == MFAD_OP_BLOCKDIAG) {
    const size_t bytes = (size_t)E->local.nlocal * E->dof * E->dof * sizeof(double);
    PetscCall(MfadCudaBufferGet_Private(&c->blocks, bytes, (void **)&y));
    MfadCallCUDA(cudaMemsetAsync(y, 0, bytes, c->stream));
  }
  if (value) {
    PetscCall(MfadCudaBufferGet_Private(&c->elem_value, (size_t)maxe * sizeof(double), (void **)&ev));
    PetscCall(MfadCudaBufferGet_Private(&c->block_value, (size_t)maxb * sizeof(double), (void **)&bv));
    PetscCall(MfadCudaBufferGet_Private(&c->sums, (size_t)(E->nterms + 1) * sizeof(double), (void **)&sums));
    MfadCallCUDA(cudaMemsetAsync(sums, 0, (size_t)(E->nterms + 1) * sizeof(double), c->stream));
  }
  PetscCall(PetscLogGpuTimeBegin()); /* -log_view's GPU time, beside the flops logged below */
  for (PetscInt t = 0; t < E->nterms; t++) {
    MfadTerm                       *term = &E->terms[t];
    const MfadCudaTerm             *dt   = &c->terms[t];
    const struct _n_MfadCudaKernel *k    = term->k->cuda;
    MfadCudaLaunch                  P;
    if (!term->nelem) continue;
    MfadCudaLaunchInit_Private(E, term, dt, c, &P);
    P.L.x      = x;
    P.L.v      = v;
    P.L.y      = y;
    P.elem_out = gather ? eo : NULL;
    switch (op) {
    case MFAD_OP_VALUE:
      P.elem_value = ev;
      PetscCall(MfadCudaTermRun_Private(E, c, term, dt, k->value, PETSC_FALSE, &P, "value"));
      break;
    case MFAD_OP_GRADIENT:
      P.elem_value = ev;
      PetscCall(MfadCudaTermRun_Private(E, c, term, dt, k->gradient, coloured, &P, "gradient"));
      break;
    case MFAD_OP_HVP:
      PetscCall(MfadCudaTermRun_Private(E, c, term, dt, k->hvp, coloured, &P, "Hessian product"));
      break;
    case MFAD_OP_DIAGONAL:
      PetscCall(MfadCudaTermRun_Private(E, c, term, dt, k->diagonal, coloured, &P, "Hessian diagonal"));
      break;
    case MFAD_OP_BLOCKDIAG:
      PetscCall(MfadCudaTermRun_Private(E, c, term, dt, k->blockdiag, coloured, &P, "Hessian block diagonal"));
      break;
    default:
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "unknown operation %d", (int)op);
    }
    if (gather) { /* each dof sums its elements' outputs, in element order */
      MFAD_LAUNCH(MfadCudaGather_Kernel, mfad_cuda_grid((int)(E->local.nlocal * term->k->dof)), MFAD_CUDA_THREADS, c->stream, (const double *)eo, (const int *)dt->gstart, (const int *)dt->gidx, (int)E->local.nlocal, term->k->dof, y);
      MfadCudaLaunched(c, MfadCudaGather_Kernel);
    }
    if (value) { /* the term's energy on the device: its elements summed by the core's blocks, then the blocks */
      MFAD_LAUNCH(MfadCudaBlockSums_Kernel, mfad_cuda_grid(term->nblocks), MFAD_CUDA_THREADS, c->stream, (const double *)ev, (const int *)dt->block_start, term->nblocks, bv);
      MfadCudaLaunched(c, MfadCudaBlockSums_Kernel);
      PetscCall(MfadCudaSum_Private(c, bv, term->nblocks, sums + t));
    }
    if (term->flops_known) PetscCall(PetscLogGpuFlops(term->flops[op == MFAD_OP_VALUE ? MFAD_MODE_VALUE : op == MFAD_OP_GRADIENT ? MFAD_MODE_GRADIENT : op == MFAD_OP_HVP ? MFAD_MODE_HVP : op == MFAD_OP_DIAGONAL ? MFAD_MODE_DIAGONAL : MFAD_MODE_HESSIAN] * term->nelem));
  }
  PetscCall(PetscLogGpuTimeEnd());
  if (op == MFAD_OP_BLOCKDIAG) { /* the block diagonal's API is a host array */
    PetscCall(MfadCudaCopy_Private(c, E->local.blockloc, y, (size_t)E->local.nlocal * E->dof * E->dof * sizeof(double), cudaMemcpyDeviceToHost));
    MfadCallCUDA(cudaStreamSynchronize(c->stream));
  }
  if (value) { /* the one copy of a value: each term's energy and the penalty, summed in order */
    PetscReal sum = 0.0;
    if (c->pen_device) MfadCallCUDA(cudaMemcpyAsync(sums + E->nterms, c->pen.ptr, sizeof(double), cudaMemcpyDeviceToDevice, c->stream));
    PetscCall(MfadCudaCopy_Private(c, c->sums_host, sums, (size_t)(E->nterms + 1) * sizeof(double), cudaMemcpyDeviceToHost));
    MfadCallCUDA(cudaStreamSynchronize(c->stream));
    for (PetscInt t = 0; t <= E->nterms; t++) sum += c->sums_host[t];
    *value = sum + (c->pen_device ? 0.0 : E->local.fixpen);
  }
  if (Y) PetscCall(MfadCudaVecRestoreWrite_Private(c, Y, &yh, y, ymt));
  if (v) PetscCall(MfadCudaVecRestoreReadWrite_Private(c, E->local.vloc, &vh, v, vmt));
  PetscCall(MfadCudaVecRestoreRead_Private(E->local.xloc, &xh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ fixed dofs and the point */
/* out (device) <- the sum of a[0, n) (device) in a fixed order */
PetscErrorCode MfadCudaSum_Private(MfadCuda *c, const double *a, int n, double *out)
{
  const int chunk = n > 1 ? (int)ceil(sqrt((double)n)) : 1, np = (n + chunk - 1) / chunk;
  double   *partial;

  PetscFunctionBegin;
  if (n <= 0) {
    MfadCallCUDA(cudaMemsetAsync(out, 0, sizeof(double), c->stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MfadCudaBufferGet_Private(&c->partial, (size_t)np * sizeof(double), (void **)&partial));
  MFAD_LAUNCH(MfadCudaChunkSums_Kernel, mfad_cuda_grid(np), MFAD_CUDA_THREADS, c->stream, a, n, chunk, partial);
  MFAD_LAUNCH(MfadCudaSerialSum_Kernel, 1, 1, c->stream, (const double *)partial, np, out);
  MfadCudaLaunched(c, MfadCudaSerialSum_Kernel);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The point in xloc on the device: checked (one 4-byte copy back, the only one at a new point),
   the owned fixed dofs' penalty kept on the device for the next value, fixed values put in */
PetscErrorCode MfadEnergyLocalFix_CUDA(MfadEnergy E)
{
  MfadCuda    *c;
  PetscScalar *xh;
  double      *x;
  PetscMemType mt;
  const int    n = (int)(E->local.nlocal * E->dof);

  PetscFunctionBegin;
  PetscCall(MfadCudaGet_Private(E, &c));
  PetscCall(VecGetArrayAndMemType(E->local.xloc, &xh, &mt));
  if (!MfadCudaOnDevice(mt)) { /* PETSc keeps local Vecs on the host: so do we */
    PetscCall(VecRestoreArrayAndMemType(E->local.xloc, &xh));
    PetscCall(MfadEnergyLocalFix_CPU(E));
    c->pen_device = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  x = (double *)xh;
  if (E->opt.check_finite && n) {
    int *first, h;
    PetscCall(MfadCudaBufferGet_Private(&c->flag, sizeof(int), (void **)&first));
    MFAD_LAUNCH(MfadCudaSetInt_Kernel, 1, 1, c->stream, first, INT_MAX);
    MFAD_LAUNCH(MfadCudaFirstNotFinite_Kernel, mfad_cuda_grid(n), MFAD_CUDA_THREADS, c->stream, (const double *)x, n, first);
    MfadCudaLaunched(c, MfadCudaFirstNotFinite_Kernel);
    PetscCall(MfadCudaCopy_Private(c, &h, first, sizeof(int), cudaMemcpyDeviceToHost));
    MfadCallCUDA(cudaStreamSynchronize(c->stream));
    if (PetscUnlikely(h != INT_MAX)) { /* the error path: the bad value too */
      double bad;
      PetscCall(MfadCudaCopy_Private(c, &bad, x + h, sizeof(double), cudaMemcpyDeviceToHost));
      MfadCallCUDA(cudaStreamSynchronize(c->stream));
      PetscCall(VecRestoreArrayAndMemType(E->local.xloc, &xh));
      PetscCall(MfadEnergyNotFinite_Private(E, h, bad));
    }
  }
  {
    double *pen, *terms;
    PetscCall(MfadCudaBufferGet_Private(&c->pen, sizeof(double), (void **)&pen));
    PetscCall(MfadCudaBufferGet_Private(&c->penterms, (size_t)PetscMax(E->local.nfixown, 1) * sizeof(double), (void **)&terms));
    if (E->local.nfixown) {
      MFAD_LAUNCH(MfadCudaFixedPenalty_Kernel, mfad_cuda_grid((int)E->local.nfixown), MFAD_CUDA_THREADS, c->stream, (const double *)x, (const int *)c->fixloc, (const double *)c->fixval, (int)E->local.nfixown, terms);
      MfadCudaLaunched(c, MfadCudaFixedPenalty_Kernel);
    }
    PetscCall(MfadCudaSum_Private(c, terms, (int)E->local.nfixown, pen));
  }
  if (E->local.nfixloc) {
    MFAD_LAUNCH(MfadCudaFixedValues_Kernel, mfad_cuda_grid((int)E->local.nfixloc), MFAD_CUDA_THREADS, c->stream, x, (const int *)c->fixloc, (const double *)c->fixval, (int)E->local.nfixloc);
    MfadCudaLaunched(c, MfadCudaFixedValues_Kernel);
  }
  PetscCall(VecRestoreArrayAndMemType(E->local.xloc, &xh));
  E->local.fixpen     = 0.0;
  c->pen_device = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y's owned fixed rows, on the device where Y (and X) are there */
PetscErrorCode MfadEnergyFixedRows_CUDA(MfadEnergy E, Vec Y, MfadFixedRows rows, Vec X)
{
  MfadCuda          *c;
  PetscScalar       *yh;
  const PetscScalar *xh  = NULL;
  PetscMemType       ymt = PETSC_MEMTYPE_HOST, xmt = PETSC_MEMTYPE_DEVICE;

  PetscFunctionBegin;
  PetscCall(MfadCudaGet_Private(E, &c));
  PetscCall(VecGetArrayAndMemType(Y, &yh, &ymt));
  if (X) PetscCall(VecGetArrayReadAndMemType(X, &xh, &xmt));
  if (MfadCudaOnDevice(ymt) && MfadCudaOnDevice(xmt)) {
    MFAD_LAUNCH(MfadCudaFixedRows_Kernel, mfad_cuda_grid((int)E->local.nfixown), MFAD_CUDA_THREADS, c->stream, (double *)yh, (const double *)xh, (const int *)c->fixloc, (const double *)c->fixval, (int)E->local.nfixown, (int)rows);
    MfadCudaLaunched(c, MfadCudaFixedRows_Kernel);
  }
  if (X) PetscCall(VecRestoreArrayReadAndMemType(X, &xh));
  PetscCall(VecRestoreArrayAndMemType(Y, &yh));
  if (!(MfadCudaOnDevice(ymt) && MfadCudaOnDevice(xmt))) PetscCall(MfadEnergyFixedRows_CPU(E, Y, rows, X)); /* host Vecs: the host writes them */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ assembly */
/* COO values in the layout of MfadEnergyCreateMatrix(): each term's weighted (projected) N x N
   element Hessians in loop order, then 1 for each owned fixed dof */
PetscErrorCode MfadEnergyHessianValues_CUDA(MfadEnergy E, Vec X, PetscBool device, const PetscScalar **values)
{
  MfadCuda         *c;
  MfadHessianKey    key;
  PetscCount        ncoo = E->local.nfixown, off = 0;
  double           *H;
  const PetscScalar *xh;
  const double     *x;

  PetscFunctionBegin;
  PetscCall(MfadCudaGet_Private(E, &c));
  for (PetscInt t = 0; t < E->nterms; t++) ncoo += E->terms[t].nelem * (PetscCount)E->terms[t].k->nvert * E->terms[t].k->dof * E->terms[t].k->nvert * E->terms[t].k->dof;
  PetscCall(MfadEnergyHessianKey_Private(E, X, &key));
  PetscCall(MfadCudaBufferGet_Private(&c->hess, (size_t)ncoo * sizeof(double), (void **)&H));
  if (!MfadHessianKeyEqual_Private(&key, &c->hess_key)) {
    c->hess_key.valid = PETSC_FALSE;
    PetscCall(PetscLogEventBegin(MFAD_ElementHessianEvent, 0, 0, 0, 0));
    PetscCall(MfadEnergyGlobalToLocal_Private(E, X));
    PetscCall(MfadCudaVecGetRead_Private(c, E->local.xloc, &c->x, &xh, &x));
    PetscCall(PetscLogGpuTimeBegin());
    for (PetscInt t = 0; t < E->nterms; t++) {
      const MfadTerm *term = &E->terms[t];
      const int       N    = term->k->nvert * term->k->dof;
      PetscCall(MfadCudaTermHessians_Private(E, c, t, x, H + off, PETSC_FALSE));
      off += term->nelem * (PetscCount)N * N;
    }
    PetscCall(PetscLogGpuTimeEnd());
    if (E->local.nfixown) { /* the fixed dofs' unit diagonal */
      MFAD_LAUNCH(MfadCudaFill_Kernel, mfad_cuda_grid((int)E->local.nfixown), MFAD_CUDA_THREADS, c->stream, H + off, (int)E->local.nfixown, 1.0);
      MfadCudaLaunched(c, MfadCudaFill_Kernel);
    }
    PetscCall(MfadCudaVecRestoreRead_Private(E->local.xloc, &xh));
    MfadCallCUDA(cudaStreamSynchronize(c->stream)); /* MatSetValuesCOO() reads them next, on PETSc's stream */
    PetscCall(PetscLogEventEnd(MFAD_ElementHessianEvent, 0, 0, 0, 0));
    c->hess_key = key;
  }
  if (!device) { /* a host matrix: one copy to a host buffer kept with the energy */
    if (c->nhess_host != ncoo) {
      PetscCall(PetscFree(c->hess_host));
      PetscCall(PetscMalloc1(ncoo, &c->hess_host));
      c->nhess_host = ncoo;
    }
    PetscCall(MfadCudaCopy_Private(c, c->hess_host, H, (size_t)ncoo * sizeof(double), cudaMemcpyDeviceToHost));
    MfadCallCUDA(cudaStreamSynchronize(c->stream));
  }
  *values = device ? (const PetscScalar *)H : (const PetscScalar *)c->hess_host;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ the backend's table */
/* A term's new element set (src/dynamic.c): its device copies go, to be uploaded at the next use;
   the other terms', the stream, the buffers (sized at each use) and cuSOLVER's handles stay. Where
   the ghost exchange was rebuilt, every term's local numbering changed: all terms go. */
static PetscErrorCode MfadEnergyTermChanged_CUDA(MfadEnergy E, PetscInt term)
{
  MfadCuda *c = (MfadCuda *)E->data;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  if (c->nterms != E->nterms) { /* terms added since: a new set-up of everything */
    PetscCall(MfadEnergyReset_CUDA(E));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  MfadCallCUDA(cudaStreamSynchronize(c->stream)); /* no launch still reads what goes */
  for (PetscInt t = 0; t < c->nterms; t++)
    if (t == term || c->nghost_rebuilds != E->dyn.nghost_rebuilds) PetscCall(MfadCudaTermFree_Private(&c->terms[t]));
  c->nghost_rebuilds = E->dyn.nghost_rebuilds; /* (a rebuilt exchange's xloc is a new Vec: the staged point is not reused) */
  c->hess_key.valid  = PETSC_FALSE;
  c->cache_key.valid = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CUDA's table (src/backends.h): asked for with no device, an error naming the reason, never a CPU
   run. Residual terms' own operators in src/cuda/residual.cu. Atomics and
   element-order COO values by default (docs/gpu.md). */
PetscErrorCode MfadEnergyCreate_CUDA(MfadEnergy E)
{
  PetscFunctionBegin;
  PetscCall(MfadCudaCheckDevice_Private(PetscObjectComm((PetscObject)E)));
  E->ops->reset                 = MfadEnergyReset_CUDA;
  E->ops->termchanged           = MfadEnergyTermChanged_CUDA;
  E->ops->destroy               = MfadEnergyReset_CUDA; /* the state is the device copies */
  E->ops->localfix              = MfadEnergyLocalFix_CUDA;
  E->ops->runterms              = MfadEnergyRunTerms_CUDA;
  E->ops->fixedrows             = MfadEnergyFixedRows_CUDA;
  E->ops->localvectype          = MfadEnergyLocalVecType_CUDA;
  E->ops->cache                 = MfadEnergyHessianCache_CUDA;
  E->ops->cachedrun             = MfadEnergyCachedRun_CUDA;
  E->ops->hessianvalues         = MfadEnergyHessianValues_CUDA;
  E->ops->transposeproduct      = MfadEnergyTransposeProduct_CUDA;
  E->ops->residual              = MfadEnergyResidual_CUDA;
  E->ops->residualjvp           = MfadEnergyResidualJVP_CUDA;
  E->ops->residualvjp           = MfadEnergyResidualVJP_CUDA;
  E->ops->residualjacobian      = MfadEnergyResidualJacobian_CUDA;
  E->backend_defaults.coo_merge = PETSC_FALSE;
  E->backend_defaults.atomic    = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
