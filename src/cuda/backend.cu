// SPDX-License-Identifier: BSD-2-Clause
/* The CUDA backend (-mfad_backend cuda): device check, set-up (connectivity, parameters, element
   colours and fixed dofs uploaded once), the staging of local Vecs (used in place when PETSc holds
   them on the device, copied through buffers allocated once otherwise), and the element loops of
   every operation, one launch per element colour (or one atomic launch, -mfad_scatter atomic).
   The arithmetic is all in the energies' element bodies (mfad/element.h via mfad/loop_cuda.h);
   this file moves data and counts launches. */
#include "cudaimpl.h"

/* ------------------------------------------------------------------ small device kernels */
/* energy of each of the core's blocks: its elements' weighted energies summed in element order,
   as the CPU loop sums them (the core then sums blocks in block order) */
__global__ void MfadCudaBlockSums_Kernel(const double *elem_value, const int *block_start, int nblocks, double *block_value)
{
  const int b = MFAD_CUDA_TID();
  double    s = 0.0;
  if (b >= nblocks) return;
  for (int e = block_start[b]; e < block_start[b + 1]; e++) s += elem_value[e];
  block_value[b] = s;
}

__global__ void MfadCudaZeroEntries_Kernel(double *v, const int *idx, int n)
{
  const int i = MFAD_CUDA_TID();
  if (i < n) v[idx[i]] = 0.0;
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
    b->ptr   = NULL;
    b->bytes = 0;
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
  PetscCheck(term->k->cuda, E->comm, PETSC_ERR_SUP, "-mfad_backend cuda: term '%s': kernel '%s' has no CUDA entry points (registered with NO_CUDA, or built without nvcc)", term->name, term->k->name);
  PetscCall(MfadColourBlocks_Private(term->nelem, nv, term->conn, E->nlocal, 1, &nb, &bs, &dt->ncolours, &dt->colour_start, &elems));
  PetscCall(PetscFree(bs));
#if defined(MFAD_CUDA_EMULATION)
  { /* the emulation runs threads one after another, so it cannot see a race: check there is none */
    int *owner;
    PetscCall(PetscMalloc1(E->nlocal, &owner));
    for (PetscInt i = 0; i < E->nlocal; i++) owner[i] = -1;
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
  PetscCall(MfadCudaUpload_Private(s, term->conn, (size_t)term->nelem * nv, &dt->conn));
  PetscCall(MfadCudaUpload_Private(s, (const double *)term->params, (size_t)term->nelem * term->k->nparam, &dt->params));
  PetscCall(MfadCudaUpload_Private(s, (const int *)elems, (size_t)term->nelem, &dt->elems));
  PetscCall(MfadCudaUpload_Private(s, (const int *)term->block_start, (size_t)term->nblocks + 1, &dt->block_start));
  MfadCallCUDA(cudaStreamSynchronize(s)); /* the host arrays may go */
  PetscCall(PetscFree(elems));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The energy's device state, set up on first use after each MfadEnergySetUp() */
PetscErrorCode MfadCudaGet_Private(MfadEnergy E, MfadCuda **cp)
{
  MfadCuda *c = (MfadCuda *)E->cuda;

  PetscFunctionBegin;
  if (!c) {
    PetscCall(PetscNew(&c));
    E->cuda = c;
    MfadCallCUDA(cudaStreamCreate(&c->stream)); /* a blocking stream: ordered after PETSc's default stream */
    PetscCall(PetscCalloc1(E->nterms, &c->terms));
    c->nterms = E->nterms;
    for (PetscInt t = 0; t < E->nterms; t++) PetscCall(MfadCudaTermSetUp_Private(E, &E->terms[t], c->stream, &c->terms[t]));
    c->fixed_count = -1;
  }
  if (c->fixed_count != E->fixed_count) { /* fixed dofs: uploaded once per set of them */
    int *fix;
    PetscCall(PetscMalloc1(E->nfixloc, &fix));
    for (PetscInt i = 0; i < E->nfixloc; i++) fix[i] = (int)E->fixloc[i];
    MfadCallCUDA(cudaFree(c->fixloc));
    PetscCall(MfadCudaUpload_Private(c->stream, (const int *)fix, (size_t)E->nfixloc, &c->fixloc));
    MfadCallCUDA(cudaStreamSynchronize(c->stream));
    PetscCall(PetscFree(fix));
    c->hess_key.valid  = PETSC_FALSE;
    c->cache_key.valid = PETSC_FALSE;
  }
  c->fixed_count = E->fixed_count;
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
  MfadCuda *c = (MfadCuda *)E->cuda;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  MfadCallCUDA(cudaStreamSynchronize(c->stream));
  for (PetscInt t = 0; t < c->nterms; t++) {
    MfadCudaTerm *dt = &c->terms[t];
    MfadCallCUDA(cudaFree(dt->conn));
    MfadCallCUDA(cudaFree(dt->params));
    MfadCallCUDA(cudaFree(dt->elems));
    MfadCallCUDA(cudaFree(dt->block_start));
    PetscCall(PetscFree(dt->colour_start));
  }
  PetscCall(PetscFree(c->terms));
  MfadCallCUDA(cudaFree(c->fixloc));
  PetscCall(MfadCudaBufferFree_Private(&c->x));
  PetscCall(MfadCudaBufferFree_Private(&c->v));
  PetscCall(MfadCudaBufferFree_Private(&c->y));
  PetscCall(MfadCudaBufferFree_Private(&c->blocks));
  PetscCall(MfadCudaBufferFree_Private(&c->elem_value));
  PetscCall(MfadCudaBufferFree_Private(&c->block_value));
  PetscCall(MfadCudaBufferFree_Private(&c->hess));
  PetscCall(MfadCudaBufferFree_Private(&c->cache));
  PetscCall(PetscFree(c->hess_host));
  MfadCallCUDA(cudaStreamDestroy(c->stream));
  PetscCall(PetscFree(c));
  E->cuda = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ staging */
PetscErrorCode MfadCudaVecGetRead_Private(MfadCuda *c, Vec X, MfadCudaBuffer *stage, const PetscScalar **host, const double **dev)
{
  PetscMemType mt;
  PetscInt     n;
  void        *buf;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayReadAndMemType(X, host, &mt));
  if (PetscMemTypeDevice(mt)) *dev = (const double *)*host; /* in place: PETSc holds it on the device */
  else {
    PetscCall(MfadCudaBufferGet_Private(stage, (size_t)n * sizeof(double), &buf));
    MfadCallCUDA(cudaMemcpyAsync(buf, *host, (size_t)n * sizeof(double), cudaMemcpyHostToDevice, c->stream));
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

/* A zeroed device array for Y's values: Y's own when on the device, else a staging buffer */
PetscErrorCode MfadCudaVecGetWrite_Private(MfadCuda *c, Vec Y, MfadCudaBuffer *stage, PetscScalar **host, double **dev, PetscMemType *mt)
{
  PetscInt n;
  void    *buf;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(Y, &n));
  PetscCall(VecGetArrayWriteAndMemType(Y, host, mt));
  if (PetscMemTypeDevice(*mt)) *dev = (double *)*host;
  else {
    PetscCall(MfadCudaBufferGet_Private(stage, (size_t)n * sizeof(double), &buf));
    *dev = (double *)buf;
  }
  MfadCallCUDA(cudaMemsetAsync(*dev, 0, (size_t)n * sizeof(double), c->stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y's values back where PETSc expects them: a copy to the host (the one synchronisation, since
   PETSc reads them next) unless they were written in place on the device */
PetscErrorCode MfadCudaVecRestoreWrite_Private(MfadCuda *c, Vec Y, PetscScalar **host, double *dev, PetscMemType mt)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(Y, &n));
  if (!PetscMemTypeDevice(mt)) {
    MfadCallCUDA(cudaMemcpyAsync(*host, dev, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost, c->stream));
    MfadCallCUDA(cudaStreamSynchronize(c->stream));
  }
  PetscCall(VecRestoreArrayWriteAndMemType(Y, host));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fixed columns of H are zero: v's fixed entries cleared on the device */
PetscErrorCode MfadCudaZeroFixed_Private(MfadEnergy E, MfadCuda *c, double *v)
{
  PetscFunctionBegin;
  if (E->nfixloc) {
    MFAD_LAUNCH(MfadCudaZeroEntries_Kernel, mfad_cuda_grid((int)E->nfixloc), MFAD_CUDA_THREADS, c->stream, v, c->fixloc, (int)E->nfixloc);
    MfadCallCUDA(cudaGetLastError());
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
  P->psd      = term->k->nout ? (int)MFAD_PSD_NONE : (int)E->psd; /* J^T J is PSD already (src/hessian.c) */
  P->psd_eps  = E->psd_eps;
  P->stream   = (void *)c->stream;
}

/* ------------------------------------------------------------------ element loops */
/* One operation of one term: a launch per colour (coloured scatter), or one launch over all
   elements (values; the atomic scatter) */
static PetscErrorCode MfadCudaTermRun_Private(const MfadCudaTerm *dt, MfadCudaLaunchFn fn, PetscBool coloured, MfadCudaLaunch *P)
{
  PetscFunctionBegin;
  if (!coloured) {
    P->elems = NULL;
    P->n     = P->L.nelem;
    MfadCallCUDA(fn(P));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (int col = 0; col < dt->ncolours; col++) {
    P->elems = dt->elems + dt->colour_start[col];
    P->n     = dt->colour_start[col + 1] - dt->colour_start[col];
    MfadCallCUDA(fn(P));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyRunTerms_CUDA(MfadEnergy E, MfadOp op, Vec X, Vec V, Vec Y, double *blocks, PetscReal *value)
{
  MfadCuda          *c;
  const PetscScalar *xh = NULL, *vh = NULL;
  PetscScalar       *yh = NULL;
  const double      *x = NULL, *v = NULL;
  double            *y = NULL, *ev = NULL, *bv = NULL;
  PetscMemType       ymt = PETSC_MEMTYPE_HOST;
  PetscInt           maxe = 1, maxb = 1;
  PetscReal          sum  = 0.0;

  PetscFunctionBegin;
  PetscCall(MfadCudaGet_Private(E, &c));
  for (PetscInt t = 0; t < E->nterms; t++) {
    maxe = PetscMax(maxe, E->terms[t].nelem);
    maxb = PetscMax(maxb, E->terms[t].nblocks);
  }
  PetscCall(MfadCudaVecGetRead_Private(c, X, &c->x, &xh, &x));
  if (op == MFAD_OP_HVP) {
    /* v is the energy's own local vector: its fixed entries may be cleared in place */
    PetscCall(MfadCudaVecGetRead_Private(c, V, &c->v, &vh, &v));
    PetscCall(MfadCudaZeroFixed_Private(E, c, (double *)v));
  }
  if (Y) PetscCall(MfadCudaVecGetWrite_Private(c, Y, &c->y, &yh, &y, &ymt));
  if (op == MFAD_OP_BLOCKDIAG) {
    const size_t bytes = (size_t)E->nlocal * E->dof * E->dof * sizeof(double);
    PetscCall(MfadCudaBufferGet_Private(&c->blocks, bytes, (void **)&y));
    MfadCallCUDA(cudaMemsetAsync(y, 0, bytes, c->stream));
  }
  if (op == MFAD_OP_VALUE || op == MFAD_OP_GRADIENT) {
    PetscCall(MfadCudaBufferGet_Private(&c->elem_value, (size_t)maxe * sizeof(double), (void **)&ev));
    PetscCall(MfadCudaBufferGet_Private(&c->block_value, (size_t)maxb * sizeof(double), (void **)&bv));
  }
  for (PetscInt t = 0; t < E->nterms; t++) {
    MfadTerm          *term = &E->terms[t];
    const MfadCudaTerm *dt   = &c->terms[t];
    const struct _n_MfadCudaKernel *k = term->k->cuda;
    MfadCudaLaunch     P;
    const PetscBool                 coloured = MfadEnergyAtomicScatter_Private(E) ? PETSC_FALSE : PETSC_TRUE;
    if (!term->nelem) continue;
    MfadCudaLaunchInit_Private(E, term, dt, c, &P);
    P.L.x = x;
    P.L.v = v;
    P.L.y = y;
    switch (op) {
    case MFAD_OP_VALUE:
      P.elem_value = ev;
      PetscCall(MfadCudaTermRun_Private(dt, k->value, PETSC_FALSE, &P));
      break;
    case MFAD_OP_GRADIENT:
      P.elem_value = ev;
      PetscCall(MfadCudaTermRun_Private(dt, k->gradient, coloured, &P));
      break;
    case MFAD_OP_HVP:
      PetscCall(MfadCudaTermRun_Private(dt, k->hvp, coloured, &P));
      break;
    case MFAD_OP_DIAGONAL:
      PetscCall(MfadCudaTermRun_Private(dt, k->diagonal, coloured, &P));
      break;
    case MFAD_OP_BLOCKDIAG:
      PetscCall(MfadCudaTermRun_Private(dt, k->blockdiag, coloured, &P));
      break;
    default:
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "unknown operation %d", (int)op);
    }
    if (ev) { /* the term's block energies, summed on the host in block order as on the CPU */
      MFAD_LAUNCH(MfadCudaBlockSums_Kernel, mfad_cuda_grid(term->nblocks), MFAD_CUDA_THREADS, c->stream, (const double *)ev, (const int *)dt->block_start, term->nblocks, bv);
      MfadCallCUDA(cudaGetLastError());
      MfadCallCUDA(cudaMemcpyAsync(term->block_value, bv, (size_t)term->nblocks * sizeof(double), cudaMemcpyDeviceToHost, c->stream));
      MfadCallCUDA(cudaStreamSynchronize(c->stream)); /* PETSc needs the energy; ev and bv are reused */
      for (int b = 0; b < term->nblocks; b++) sum += term->block_value[b];
    }
    if (term->flops_known) PetscCall(PetscLogGpuFlops(term->flops[op == MFAD_OP_VALUE ? 0 : op == MFAD_OP_GRADIENT ? 1 : op == MFAD_OP_HVP ? 2 : 3] * term->nelem));
  }
  if (op == MFAD_OP_BLOCKDIAG) {
    MfadCallCUDA(cudaMemcpyAsync(blocks, y, (size_t)E->nlocal * E->dof * E->dof * sizeof(double), cudaMemcpyDeviceToHost, c->stream));
    MfadCallCUDA(cudaStreamSynchronize(c->stream));
  }
  if (Y) PetscCall(MfadCudaVecRestoreWrite_Private(c, Y, &yh, y, ymt));
  if (V) PetscCall(MfadCudaVecRestoreRead_Private(V, &vh));
  PetscCall(MfadCudaVecRestoreRead_Private(X, &xh));
  if (value) *value = sum;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ assembly */
/* COO values in the layout of MfadEnergyCreateMatrix(): each term's weighted (projected) N x N
   element Hessians in loop order, then 1 for each owned fixed dof */
PetscErrorCode MfadEnergyHessianValues_CUDA(MfadEnergy E, Vec X, PetscBool device, const PetscScalar **values)
{
  MfadCuda         *c;
  MfadHessianKey    key;
  PetscCount        ncoo = E->nfixown, off = 0;
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
    PetscCall(MfadCudaVecGetRead_Private(c, E->xloc, &c->x, &xh, &x));
    for (PetscInt t = 0; t < E->nterms; t++) {
      const MfadTerm *term = &E->terms[t];
      const int       N    = term->k->nvert * term->k->dof;
      MfadCudaLaunch  P;
      if (term->nelem) {
        MfadCudaLaunchInit_Private(E, term, &c->terms[t], c, &P);
        P.L.x = x;
        P.L.y = H + off;
        PetscCall(MfadCudaTermRun_Private(&c->terms[t], term->k->cuda->hessian, PETSC_FALSE, &P));
        if (term->flops_known) PetscCall(PetscLogGpuFlops(term->flops[MFAD_MODE_HESSIAN] * term->nelem));
      }
      off += term->nelem * (PetscCount)N * N;
    }
    if (E->nfixown) { /* the fixed dofs' unit diagonal */
      double *ones;
      PetscCall(PetscMalloc1(E->nfixown, &ones));
      for (PetscInt i = 0; i < E->nfixown; i++) ones[i] = 1.0;
      MfadCallCUDA(cudaMemcpyAsync(H + off, ones, (size_t)E->nfixown * sizeof(double), cudaMemcpyHostToDevice, c->stream));
      MfadCallCUDA(cudaStreamSynchronize(c->stream));
      PetscCall(PetscFree(ones));
    }
    PetscCall(MfadCudaVecRestoreRead_Private(E->xloc, &xh));
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
    MfadCallCUDA(cudaMemcpyAsync(c->hess_host, H, (size_t)ncoo * sizeof(double), cudaMemcpyDeviceToHost, c->stream));
    MfadCallCUDA(cudaStreamSynchronize(c->stream));
  }
  *values = device ? (const PetscScalar *)H : (const PetscScalar *)c->hess_host;
  PetscFunctionReturn(PETSC_SUCCESS);
}
