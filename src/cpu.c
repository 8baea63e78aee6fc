// SPDX-License-Identifier: BSD-2-Clause
/* The CPU backend (-mfad_backend cpu, the default): element loops on the host, threaded by OpenMP
   over coloured blocks (src/threads.c). Its entries are here and beside the concern they serve
   (the cache in src/cached.c, assembly values in src/assemble.c, residual terms in src/residual.c);
   MfadEnergyCreate_CPU() is its table. */
#include "mfadimpl.h"

PetscErrorCode MfadEnergyLocalFix_CPU(MfadEnergy E)
{
  PetscScalar *x;
  PetscReal    pen = 0.0;

  PetscFunctionBegin;
  PetscCall(VecGetArray(E->local.xloc, &x));
  if (E->opt.check_finite) {
    for (PetscInt i = 0; i < E->local.nlocal * E->dof; i++) {
      if (PetscUnlikely(PetscIsInfOrNanScalar(x[i]))) {
        const PetscReal bad = PetscRealPart(x[i]);
        PetscCall(VecRestoreArray(E->local.xloc, &x));
        PetscCall(MfadEnergyNotFinite_Private(E, i, bad));
      }
    }
  }
  for (PetscInt i = 0; i < E->local.nfixown; i++) {
    const PetscReal d = PetscRealPart(x[E->local.fixloc[i]]) - E->local.fixval[i];
    pen += 0.5 * d * d;
  }
  for (PetscInt i = 0; i < E->local.nfixloc; i++) x[E->local.fixloc[i]] = E->local.fixval[i];
  PetscCall(VecRestoreArray(E->local.xloc, &x));
  E->local.fixpen = pen;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Runs operation `op` of every term; `value` (if not NULL) receives this rank's energy. */
static PetscErrorCode MfadEnergyRunTerms_Private(MfadEnergy E, MfadOp op, const double *x, const double *v, double *y, PetscReal *value)
{
  static const MfadMode mode[MFAD_OP_COUNT] = {MFAD_MODE_VALUE, MFAD_MODE_GRADIENT, MFAD_MODE_HVP, MFAD_MODE_DIAGONAL, MFAD_MODE_HESSIAN};
  PetscReal             sum                 = 0.0;
  PetscCount            nelem               = 0;
  double                t0;
  int                   nt;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MFAD_ElementsEvent, 0, 0, 0, 0));
  for (PetscInt t = 0; t < E->nterms; t++) nelem += E->terms[t].nelem;
  nt = MfadThreadsBegin_Private(E, (int)op, nelem, &t0);
  for (PetscInt t = 0; t < E->nterms; t++) {
    MfadTerm  *term = &E->terms[t];
    MfadKernel k    = term->k;
    MfadLoop   L;
    if (!term->nelem) continue;
    MfadTermLoop_Private(E, term, x, v, y, &L);
    L.nthreads = nt;
    L.parallel = nt > 1 && term->parallel;
    switch (op) {
    case MFAD_OP_VALUE:
      k->cpu_value(&L);
      break;
    case MFAD_OP_GRADIENT:
      k->cpu_gradient(&L);
      break;
    case MFAD_OP_HVP:
      k->cpu_hvp(&L);
      break;
    case MFAD_OP_DIAGONAL:
      k->cpu_diagonal(&L);
      break;
    case MFAD_OP_BLOCKDIAG:
      k->cpu_blockdiag(&L);
      break;
    default:
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "unknown operation %d", (int)op);
    }
    if (value && (op == MFAD_OP_VALUE || op == MFAD_OP_GRADIENT))
      for (int b = 0; b < term->nblocks; b++) sum += term->block_value[b];
    if (!term->flops_known) { /* count once, on this term's first element at a real point */
      double xe[24];          /* MFAD_N <= 24 (mfad/impl/ad.h) */
      for (int a = 0; a < k->nvert; a++)
        for (int d = 0; d < k->dof; d++) xe[a * k->dof + d] = x[(size_t)term->conn[a] * k->dof + d];
      k->flops(xe, L.params, term->flops);
      term->flops_known = PETSC_TRUE;
    }
    PetscCall(PetscLogFlops(term->flops[mode[op]] * term->nelem));
  }
  MfadThreadsEnd_Private(E, (int)op, nt, nelem, t0);
  if (value) *value = sum;
  PetscCall(PetscLogEventEnd(MFAD_ElementsEvent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CPU's element loops on the energy's local vectors */
static PetscErrorCode MfadEnergyRunTermsLocal_CPU(MfadEnergy E, MfadOp op, PetscReal *value)
{
  const PetscScalar *x;
  PetscScalar       *y = NULL, *v = NULL;

  PetscFunctionBegin;
  if (op == MFAD_OP_HVP) {
    PetscCall(VecGetArray(E->local.vloc, &v));
    for (PetscInt i = 0; i < E->local.nfixloc; i++) v[E->local.fixloc[i]] = 0.0; /* fixed columns of H are zero */
  }
  if (op == MFAD_OP_GRADIENT || op == MFAD_OP_HVP || op == MFAD_OP_DIAGONAL) {
    PetscCall(VecZeroEntries(E->local.yloc));
    PetscCall(VecGetArray(E->local.yloc, &y));
  }
  if (op == MFAD_OP_BLOCKDIAG) {
    PetscCall(PetscArrayzero(E->local.blockloc, (size_t)E->local.nlocal * E->dof * E->dof));
    y = E->local.blockloc;
  }
  PetscCall(VecGetArrayRead(E->local.xloc, &x));
  PetscCall(MfadEnergyRunTerms_Private(E, op, x, v, y, value));
  PetscCall(VecRestoreArrayRead(E->local.xloc, &x));
  if (y && y != E->local.blockloc) PetscCall(VecRestoreArray(E->local.yloc, &y));
  if (v) PetscCall(VecRestoreArray(E->local.vloc, &v));
  if (value) *value += E->local.fixpen;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y at the owned fixed rows, from X (or NULL) */
PetscErrorCode MfadEnergyFixedRows_CPU(MfadEnergy E, Vec Y, MfadFixedRows rows, Vec X)
{
  PetscScalar       *y;
  const PetscScalar *x = NULL;

  PetscFunctionBegin;
  PetscCall(VecGetArray(Y, &y));
  if (X) PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt i = 0; i < E->local.nfixown; i++) {
    const PetscInt j = E->local.fixloc[i];
    switch (rows) {
    case MFAD_FIXED_RESIDUAL:
      y[j] = x[j] - E->local.fixval[i];
      break;
    case MFAD_FIXED_IDENTITY:
      y[j] = x[j];
      break;
    case MFAD_FIXED_ONE:
      y[j] = 1.0;
      break;
    case MFAD_FIXED_ZERO:
      y[j] = 0.0;
      break;
    }
  }
  if (X) PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(VecRestoreArray(Y, &y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadEnergyLocalVecType_CPU(MfadEnergy E, VecType *type)
{
  PetscFunctionBegin;
  (void)E;
  *type = VECSEQ;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CPU's table: every entry (the reference a new backend is checked against); no state of its
   own (E->data stays NULL); merged COO values and coloured blocks by default */
PetscErrorCode MfadEnergyCreate_CPU(MfadEnergy E)
{
  PetscFunctionBegin;
  E->ops->localfix              = MfadEnergyLocalFix_CPU;
  E->ops->runterms              = MfadEnergyRunTermsLocal_CPU;
  E->ops->fixedrows             = MfadEnergyFixedRows_CPU;
  E->ops->localvectype          = MfadEnergyLocalVecType_CPU;
  E->ops->cache                 = MfadEnergyHessianCache_CPU;
  E->ops->cachedrun             = MfadEnergyCachedRun_CPU;
  E->ops->hessianvalues         = MfadEnergyHessianValues_CPU;
  E->ops->hessianpairs          = MfadEnergyHessianPairs_CPU;
  E->ops->transposeproduct      = MfadEnergyTransposeProduct_CPU;
  E->ops->residual              = MfadEnergyResidual_CPU;
  E->ops->residualjvp           = MfadEnergyResidualJVP_CPU;
  E->ops->residualvjp           = MfadEnergyResidualVJP_CPU;
  E->ops->residualjacobian      = MfadEnergyResidualJacobian_CPU;
  E->backend_defaults.coo_merge = PETSC_TRUE;
  E->backend_defaults.atomic    = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
