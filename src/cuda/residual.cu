// SPDX-License-Identifier: BSD-2-Clause
/* Residual terms' own operators on the GPU (src/residual.c's, -mfad_backend cuda): the stacked
   least-squares residual r and its Jacobian's products both ways and values, and a system's
   transpose product, from the kernels' residual launchers (mfad/impl/loop_cuda.h: the same element
   bodies as the CPU's loops, mfad/impl/loop_cpu_residual.h). Stacked rows are written by one
   element each, so those launches cover the whole term; the transpose products scatter, by colour
   (deterministic) or atomically (-mfad_scatter atomic), as the other operations do. The scalar
   operations of residual terms (1/2 |r|^2, J^T r, J^T J v ...) are the kernels' scalar entries,
   run by src/cuda/backend.cu as any energy's. */
#include "cudaimpl.h"

/* term t's row map (MfadTerm.row: loop element -> the caller's) on the device, once per element set */
static PetscErrorCode MfadCudaTermRows_Private(MfadCuda *c, const MfadTerm *term, MfadCudaTerm *dt)
{
  PetscFunctionBegin;
  if (dt->row || !term->row || !term->nelem) PetscFunctionReturn(PETSC_SUCCESS);
  MfadCallCUDA(cudaMalloc((void **)&dt->row, (size_t)term->nelem * sizeof(int)));
  PetscCall(MfadCudaCopy_Private(c, dt->row, term->row, (size_t)term->nelem * sizeof(int), cudaMemcpyHostToDevice));
  MfadCallCUDA(cudaStreamSynchronize(c->stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef enum { MFAD_CUDA_RES_VALUE, MFAD_CUDA_RES_JVP, MFAD_CUDA_RES_VJP, MFAD_CUDA_RES_JACOBIAN } MfadCudaResidualOp;

/* One operator over every least-squares term, as MfadEnergyRunResidual_Private() on the CPU: into
   the stacked rows y (value, JVP), the local vertex array y (VJP, of the stacked rows w) or each
   term's sqrt(w) J_e in loop order (Jacobian) */
static PetscErrorCode MfadCudaResidualRun_Private(MfadEnergy E, MfadCuda *c, MfadCudaResidualOp op, const double *x, const double *v, const double *w,
                                                  double *y)
{
  static const char *const what[] = {"residual", "residual's Jacobian product", "residual's Jacobian transpose product", "residual's Jacobian"};
  PetscInt                 m, *offset;
  PetscCount               k = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(E->nterms, &offset));
  PetscCall(MfadEnergyResidualRows_Private(E, &m, offset));
  PetscCall(PetscLogGpuTimeBegin());
  for (PetscInt t = 0; t < E->nterms; t++) {
    const MfadTerm                 *term = &E->terms[t];
    MfadCudaTerm                   *dt   = &c->terms[t];
    const struct _n_MfadCudaKernel *kc   = term->k->cuda;
    MfadCudaLaunch                  P;
    if (!MfadTermIsLeastSquares_Private(term)) continue;
    if (term->nelem) {
      PetscCall(MfadCudaTermRows_Private(c, term, dt));
      MfadCudaLaunchInit_Private(E, term, dt, c, &P);
      P.L.x   = x;
      P.L.v   = v;
      P.L.row = dt->row;
      switch (op) {
      case MFAD_CUDA_RES_VALUE:
        P.L.y = y + offset[t];
        PetscCall(MfadCudaTermRun_Private(E, c, term, dt, kc->res_residual, PETSC_FALSE, &P, what[op]));
        break;
      case MFAD_CUDA_RES_JVP:
        P.L.y = y + offset[t];
        PetscCall(MfadCudaTermRun_Private(E, c, term, dt, kc->res_jvp, PETSC_FALSE, &P, what[op]));
        break;
      case MFAD_CUDA_RES_VJP:
        P.L.y = y;
        P.L.w = w + offset[t];
        PetscCall(MfadCudaTermRun_Private(E, c, term, dt, kc->res_vjp, P.atomic ? PETSC_FALSE : PETSC_TRUE, &P, what[op]));
        break;
      case MFAD_CUDA_RES_JACOBIAN:
        P.L.y = y + k;
        PetscCall(MfadCudaTermRun_Private(E, c, term, dt, kc->res_jacobian, PETSC_FALSE, &P, what[op]));
        break;
      }
    }
    k += (PetscCount)term->nelem * term->k->nout * term->k->nvert * E->dof;
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscFree(offset));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyResidual_CUDA(MfadEnergy E, Vec R)
{
  MfadCuda          *c;
  const PetscScalar *xh;
  PetscScalar       *rh;
  const double      *x;
  double            *r;
  PetscMemType       rmt;

  PetscFunctionBegin;
  PetscCall(MfadCudaGet_Private(E, &c));
  PetscCall(MfadCudaVecGetRead_Private(c, E->local.xloc, &c->x, &xh, &x));
  PetscCall(MfadCudaVecGetWrite_Private(c, R, &c->res, &rh, &r, &rmt));
  PetscCall(MfadCudaResidualRun_Private(E, c, MFAD_CUDA_RES_VALUE, x, NULL, NULL, r));
  PetscCall(MfadCudaVecRestoreWrite_Private(c, R, &rh, r, rmt));
  PetscCall(MfadCudaVecRestoreRead_Private(E->local.xloc, &xh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* R <- J vloc; vloc's fixed entries zeroed first (fixed dofs are not unknowns) */
PetscErrorCode MfadEnergyResidualJVP_CUDA(MfadEnergy E, Vec R)
{
  MfadCuda          *c;
  const PetscScalar *xh;
  PetscScalar       *rh, *vh;
  const double      *x;
  double            *r, *v;
  PetscMemType       rmt, vmt;

  PetscFunctionBegin;
  PetscCall(MfadCudaGet_Private(E, &c));
  PetscCall(MfadCudaVecGetRead_Private(c, E->local.xloc, &c->x, &xh, &x));
  PetscCall(MfadCudaVecGetReadWrite_Private(c, E->local.vloc, &c->v, &vh, &v, &vmt));
  PetscCall(MfadCudaZeroFixed_Private(E, c, v));
  PetscCall(MfadCudaVecGetWrite_Private(c, R, &c->res, &rh, &r, &rmt));
  PetscCall(MfadCudaResidualRun_Private(E, c, MFAD_CUDA_RES_JVP, x, v, NULL, r));
  PetscCall(MfadCudaVecRestoreWrite_Private(c, R, &rh, r, rmt));
  PetscCall(MfadCudaVecRestoreReadWrite_Private(c, E->local.vloc, &vh, v, vmt));
  PetscCall(MfadCudaVecRestoreRead_Private(E->local.xloc, &xh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* yloc <- J^T W */
PetscErrorCode MfadEnergyResidualVJP_CUDA(MfadEnergy E, Vec W)
{
  MfadCuda          *c;
  const PetscScalar *xh, *wh;
  PetscScalar       *yh;
  const double      *x, *w;
  double            *y;
  PetscMemType       ymt;

  PetscFunctionBegin;
  PetscCall(MfadCudaGet_Private(E, &c));
  PetscCall(MfadCudaVecGetRead_Private(c, E->local.xloc, &c->x, &xh, &x));
  PetscCall(MfadCudaVecGetRead_Private(c, W, &c->resw, &wh, &w));
  PetscCall(MfadCudaVecGetWrite_Private(c, E->local.yloc, &c->y, &yh, &y, &ymt));
  PetscCall(MfadCudaResidualRun_Private(E, c, MFAD_CUDA_RES_VJP, x, NULL, w, y));
  PetscCall(MfadCudaVecRestoreWrite_Private(c, E->local.yloc, &yh, y, ymt));
  PetscCall(MfadCudaVecRestoreRead_Private(W, &wh));
  PetscCall(MfadCudaVecRestoreRead_Private(E->local.xloc, &xh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* each least-squares term's sqrt(w) J_e into the host array values (the matrix's COO order) */
PetscErrorCode MfadEnergyResidualJacobian_CUDA(MfadEnergy E, PetscScalar values[])
{
  MfadCuda          *c;
  const PetscScalar *xh;
  const double      *x;
  double            *J;
  PetscCount         n = 0;

  PetscFunctionBegin;
  PetscCall(MfadCudaGet_Private(E, &c));
  for (PetscInt t = 0; t < E->nterms; t++)
    if (MfadTermIsLeastSquares_Private(&E->terms[t])) n += (PetscCount)E->terms[t].nelem * E->terms[t].k->nout * E->terms[t].k->nvert * E->dof;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadCudaBufferGet_Private(&c->resjac, (size_t)n * sizeof(double), (void **)&J));
  PetscCall(MfadCudaVecGetRead_Private(c, E->local.xloc, &c->x, &xh, &x));
  PetscCall(MfadCudaResidualRun_Private(E, c, MFAD_CUDA_RES_JACOBIAN, x, NULL, NULL, J));
  PetscCall(MfadCudaVecRestoreRead_Private(E->local.xloc, &xh));
  PetscCall(MfadCudaCopy_Private(c, values, J, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost));
  MfadCallCUDA(cudaStreamSynchronize(c->stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* yloc <- J^T vloc at xloc: a system's terms by their transpose loop, symmetric terms by their
   product; vloc's fixed entries zeroed first (fixed rows of J are identity rows) */
PetscErrorCode MfadEnergyTransposeProduct_CUDA(MfadEnergy E)
{
  MfadCuda          *c;
  const PetscScalar *xh;
  PetscScalar       *vh, *yh;
  const double      *x;
  double            *v, *y;
  PetscMemType       vmt, ymt;

  PetscFunctionBegin;
  PetscCall(MfadCudaGet_Private(E, &c));
  PetscCall(MfadCudaVecGetRead_Private(c, E->local.xloc, &c->x, &xh, &x));
  PetscCall(MfadCudaVecGetReadWrite_Private(c, E->local.vloc, &c->v, &vh, &v, &vmt));
  PetscCall(MfadCudaZeroFixed_Private(E, c, v));
  PetscCall(MfadCudaVecGetWrite_Private(c, E->local.yloc, &c->y, &yh, &y, &ymt));
  PetscCall(PetscLogGpuTimeBegin());
  for (PetscInt t = 0; t < E->nterms; t++) {
    const MfadTerm *term = &E->terms[t];
    MfadCudaLaunch  P;
    if (!term->nelem) continue;
    MfadCudaLaunchInit_Private(E, term, &c->terms[t], c, &P);
    P.L.x = x;
    P.L.v = v;
    P.L.y = y;
    if (MfadTermIsSystem_Private(term))
      PetscCall(
          MfadCudaTermRun_Private(E, c, term, &c->terms[t], term->k->cuda->res_jtv, P.atomic ? PETSC_FALSE : PETSC_TRUE, &P, "transpose product"));
    else PetscCall(MfadCudaTermRun_Private(E, c, term, &c->terms[t], term->k->cuda->hvp, P.atomic ? PETSC_FALSE : PETSC_TRUE, &P, "Hessian product"));
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(MfadCudaVecRestoreWrite_Private(c, E->local.yloc, &yh, y, ymt));
  PetscCall(MfadCudaVecRestoreReadWrite_Private(c, E->local.vloc, &vh, v, vmt));
  PetscCall(MfadCudaVecRestoreRead_Private(E->local.xloc, &xh));
  PetscFunctionReturn(PETSC_SUCCESS);
}
