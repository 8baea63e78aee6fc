// SPDX-License-Identifier: BSD-2-Clause
/* The element-Hessian cache on the device (-mfad_hessian cached with -mfad_backend cuda): element
   Hessians computed once per point, stored packed (upper triangle by rows, N (N + 1) / 2 doubles,
   the CPU cache's layout), and each product a fused gather / packed symmetric mat-vec / scatter
   kernel, one launch per element colour.
   Why a fused kernel and not cuBLAS's strided-batched gemv on full N x N blocks: a product from
   the cache is memory-bound (2 flops per stored double), and the fused kernel reads 78 doubles
   per tet where gemv reads 144, plus the gather of v_e into a contiguous batch and the scatter of
   y_e that gemv needs as two more kernels with 2 x 12 doubles written and read back per element:
   ~0.55x the traffic, so ~1.8x faster at equal bandwidth. bench/cuda_cached_mult.cu measures
   both on a GPU; docs/gpu.md says how to read it. */
#include "cudaimpl.h"
#include "cachedmult.cuh"

/* packed index of (i, i) */
__host__ __device__ static inline int MfadCudaPackedDiag(int N, int i) { return i * N - i * (i - 1) / 2; }

/* y += diag(H_e) (blocks == 0) or the vertex blocks of H_e (blocks == 1) */
__global__ void MFAD_CUDA_BOUNDS MfadCudaCachedDiag_Kernel(const int *elems, int n, int nv, int dof, const int *conn, const double *P, double *y,
                                                           int blocks, int atomic)
{
  const int N = nv * dof, PN = N * (N + 1) / 2;
  const int i = MFAD_CUDA_TID();
  if (i >= n) return;
  const int     e  = mfad_cuda_element(elems, i);
  const int    *c  = conn + (long)e * nv;
  const double *Pe = P + (long)e * PN;
  for (int a = 0; a < nv; a++)
    for (int d = 0; d < dof; d++)
      for (int f = 0; f < (blocks ? dof : 1); f++) {
        const int r = a * dof + (blocks ? (d < f ? d : f) : d), s = a * dof + (blocks ? (d < f ? f : d) : d);
        double   *t = blocks ? &y[((long)c[a] * dof + d) * dof + f] : &y[(long)c[a] * dof + d];
        if (atomic) atomicAdd(t, Pe[MfadCudaPackedDiag(N, r) + s - r]);
        else *t += Pe[MfadCudaPackedDiag(N, r) + s - r];
      }
}

PetscErrorCode MfadEnergyHessianCache_CUDA(MfadEnergy E, Vec X)
{
  MfadCuda          *c;
  MfadHessianKey     key;
  PetscCount         n = 0, off = 0;
  double            *P;
  const PetscScalar *xh;
  const double      *x;

  PetscFunctionBegin;
  PetscCall(MfadCudaGet_Private(E, &c));
  PetscCall(MfadEnergyHessianKey_Private(E, X, &key));
  if (MfadHessianKeyEqual_Private(&key, &c->cache_key)) PetscFunctionReturn(PETSC_SUCCESS);
  c->cache_key.valid = PETSC_FALSE;
  for (PetscInt t = 0; t < E->nterms; t++) n += E->terms[t].nelem * MfadPackedSize_Private(E->terms[t].k->nvert * E->terms[t].k->dof);
  PetscCall(MfadCudaBufferGet_Private(&c->cache, (size_t)n * sizeof(double), (void **)&P));
  PetscCall(PetscLogEventBegin(MFAD_ElementHessianEvent, 0, 0, 0, 0));
  PetscCall(MfadEnergyGlobalToLocal_Private(E, X));
  PetscCall(MfadCudaVecGetRead_Private(c, E->local.xloc, &c->x, &xh, &x));
  PetscCall(PetscLogGpuTimeBegin());
  for (PetscInt t = 0; t < E->nterms; t++) {
    PetscCall(MfadCudaTermHessians_Private(E, c, t, x, P + off, PETSC_TRUE));
    off += E->terms[t].nelem * MfadPackedSize_Private(E->terms[t].k->nvert * E->terms[t].k->dof);
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(MfadCudaVecRestoreRead_Private(E->local.xloc, &xh)); /* staging of x is done once the copy is queued */
  PetscCall(PetscLogEventEnd(MFAD_ElementHessianEvent, 0, 0, 0, 0));
  c->cache_key = key;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadCudaCachedMultLaunch_Private(MfadCuda *c, const int *elems, int n, int nv, int dof, const int *conn, const double *P,
                                                       const double *v, double *y, int atomic)
{
  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  {
    void (*kern)(const int *, int, int, int, const int *, const double *, const double *, double *, int) = MfadCudaCachedMult_Kernel<0, 0>; /* run-time sizes */
    if (nv == 1 && dof == 3) kern = MfadCudaCachedMult_Kernel<1, 3>;
    else if (nv == 2 && dof == 3) kern = MfadCudaCachedMult_Kernel<2, 3>;
    else if (nv == 3 && dof == 2) kern = MfadCudaCachedMult_Kernel<3, 2>;
    else if (nv == 3 && dof == 3) kern = MfadCudaCachedMult_Kernel<3, 3>;
    else if (nv == 4 && dof == 3) kern = MfadCudaCachedMult_Kernel<4, 3>;
    MFAD_LAUNCH(kern, mfad_cuda_grid(n), MFAD_CUDA_THREADS, c->stream, elems, n, nv, dof, conn, P, v, y, atomic);
  }
  MfadCudaLaunched(c, MfadCudaCachedMult_Kernel);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCachedRun_CUDA(MfadEnergy E, MfadOp op)
{
  Vec           V      = op == MFAD_OP_HVP ? E->local.vloc : NULL, Y = op == MFAD_OP_BLOCKDIAG ? NULL : E->local.yloc;
  double       *blocks = op == MFAD_OP_BLOCKDIAG ? E->local.blockloc : NULL;
  MfadCuda     *c;
  PetscScalar  *vh = NULL, *yh = NULL;
  double       *v = NULL, *y = NULL;
  PetscMemType  ymt = PETSC_MEMTYPE_HOST, vmt = PETSC_MEMTYPE_HOST;
  const double *P;

  PetscFunctionBegin;
  PetscCall(MfadCudaGet_Private(E, &c));
  PetscCheck(c->cache_key.valid, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the device cache was not computed");
  if (op == MFAD_OP_HVP) {
    PetscCall(MfadCudaVecGetReadWrite_Private(c, V, &c->v, &vh, &v, &vmt)); /* the energy's vloc: fixed entries cleared in place */
    PetscCall(MfadCudaZeroFixed_Private(E, c, v));
  }
  if (Y) PetscCall(MfadCudaVecGetWrite_Private(c, Y, &c->y, &yh, &y, &ymt));
  if (op == MFAD_OP_BLOCKDIAG) {
    const size_t bytes = (size_t)E->local.nlocal * E->dof * E->dof * sizeof(double);
    PetscCall(MfadCudaBufferGet_Private(&c->blocks, bytes, (void **)&y));
    MfadCallCUDA(cudaMemsetAsync(y, 0, bytes, c->stream));
  }
  P = (const double *)c->cache.ptr;
  PetscCall(PetscLogGpuTimeBegin());
  for (PetscInt t = 0; t < E->nterms; t++) {
    const MfadTerm     *term = &E->terms[t];
    const MfadCudaTerm *dt   = &c->terms[t];
    const int           nv = term->k->nvert, dof = term->k->dof, atomic = MfadEnergyAtomicScatter_Private(E) ? 1 : 0;
    /* one launch per colour, or one atomic launch over every element */
    for (int col = 0; col < (atomic ? 1 : dt->ncolours); col++) {
      const int *elems = atomic ? NULL : dt->elems + dt->colour_start[col];
      const int  n     = atomic ? (int)term->nelem : dt->colour_start[col + 1] - dt->colour_start[col];
      if (n <= 0) continue;
      if (op == MFAD_OP_HVP) PetscCall(MfadCudaCachedMultLaunch_Private(c, elems, n, nv, dof, dt->conn, P, v, y, atomic));
      else {
        MFAD_LAUNCH(MfadCudaCachedDiag_Kernel, mfad_cuda_grid(n), MFAD_CUDA_THREADS, c->stream, elems, n, nv, dof, (const int *)dt->conn, P, y, op == MFAD_OP_BLOCKDIAG ? 1 : 0, atomic);
        MfadCudaLaunched(c, MfadCudaCachedDiag_Kernel);
      }
    }
    if (op == MFAD_OP_HVP) PetscCall(PetscLogGpuFlops(2.0 * nv * dof * nv * dof * term->nelem));
    P += term->nelem * MfadPackedSize_Private(nv * dof);
  }
  PetscCall(PetscLogGpuTimeEnd());
  if (op == MFAD_OP_BLOCKDIAG) {
    PetscCall(MfadCudaCopy_Private(c, blocks, y, (size_t)E->local.nlocal * E->dof * E->dof * sizeof(double), cudaMemcpyDeviceToHost));
    MfadCallCUDA(cudaStreamSynchronize(c->stream));
  }
  if (Y) PetscCall(MfadCudaVecRestoreWrite_Private(c, Y, &yh, y, ymt));
  if (v) PetscCall(MfadCudaVecRestoreReadWrite_Private(c, V, &vh, v, vmt));
  PetscFunctionReturn(PETSC_SUCCESS);
}
