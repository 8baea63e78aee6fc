// SPDX-License-Identifier: BSD-2-Clause
/* The energy's operations: gather (ghost exchange, fixed values), element loops of every term,
   scatter (reverse add), fixed rows. */
#include "mfadimpl.h"
#include "cuda/mfadcuda.h"
#ifdef _OPENMP
#include <omp.h>
#endif

PetscErrorCode MfadEnergyCheckVec_Private(MfadEnergy E, Vec X, int arg, const char *what)
{
  PetscInt n, N;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(X, VEC_CLASSID, arg);
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetSize(X, &N));
  PetscCheck(n == E->n * E->dof && N == E->N * E->dof, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "%s: Vec (argument %d) has local size %" PetscInt_FMT " and global size %" PetscInt_FMT "; the energy needs %" PetscInt_FMT " and %" PetscInt_FMT " (%" PetscInt_FMT " dofs per vertex)", what, arg, n, N,
             E->n * E->dof, E->N * E->dof, E->dof);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt MfadEnergyLocalToGlobalVertex_Private(MfadEnergy E, PetscInt v) { return v < E->n ? E->rstart + v : E->ghosts[v - E->n]; }

/* The error for entry i of xloc, which holds `bad` (NaN or Inf): names the vertex and dof */
PetscErrorCode MfadEnergyNotFinite_Private(MfadEnergy E, PetscInt i, PetscReal bad)
{
  const PetscInt v = MfadEnergyLocalToGlobalVertex_Private(E, i / E->dof);

  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FP, "MfadEnergy: the point has %g at vertex %" PetscInt_FMT " dof %" PetscInt_FMT " (entry %" PetscInt_FMT ")", (double)bad, v, i % E->dof, v * E->dof + i % E->dof);
}

PetscErrorCode MfadEnergyLocalFix_CPU(MfadEnergy E)
{
  PetscScalar *x;
  PetscReal    pen = 0.0;

  PetscFunctionBegin;
  PetscCall(VecGetArray(E->xloc, &x));
  if (E->check_finite) {
    for (PetscInt i = 0; i < E->nlocal * E->dof; i++) {
      if (PetscUnlikely(PetscIsInfOrNanScalar(x[i]))) {
        const PetscReal bad = PetscRealPart(x[i]);
        PetscCall(VecRestoreArray(E->xloc, &x));
        PetscCall(MfadEnergyNotFinite_Private(E, i, bad));
      }
    }
  }
  for (PetscInt i = 0; i < E->nfixown; i++) {
    const PetscReal d = PetscRealPart(x[E->fixloc[i]]) - E->fixval[i];
    pen += 0.5 * d * d;
  }
  for (PetscInt i = 0; i < E->nfixloc; i++) x[E->fixloc[i]] = E->fixval[i];
  PetscCall(VecRestoreArray(E->xloc, &x));
  E->fixpen = pen;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* xloc <- X with ghosts, fixed dofs at their values; skipped when xloc already holds X. */
PetscErrorCode MfadEnergyGlobalToLocal_Private(MfadEnergy E, Vec X)
{
  PetscObjectId    id;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)X, &id));
  PetscCall(PetscObjectStateGet((PetscObject)X, &state));
  if (E->xvalid && id == E->xid && state == E->xstate) PetscFunctionReturn(PETSC_SUCCESS);
  E->xvalid = PETSC_FALSE;
  PetscCall(PetscLogEventBegin(MFAD_GhostEvent, 0, 0, 0, 0));
  PetscCall(VecScatterBegin(E->scatter, X, E->xloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(E->scatter, X, E->xloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(PetscLogEventEnd(MFAD_GhostEvent, 0, 0, 0, 0));
  PetscCall(E->ops->localfix(E));
  E->xid    = id;
  E->xstate = state;
  E->xvalid = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ threads (docs/threads.md)
   A thread count asked for (MfadEnergySetNumThreads, -mfad_num_threads) is used as asked. The
   default (OpenMP's count) is used only where it is measured to pay: each site (operation) is
   timed per element on one thread (its second run: the first touches cold memory) and on all,
   the faster runs, and the slower is timed again
   every `interval` calls, so that a core another process takes (or frees) is noticed. A probe of
   the slower costs (slow / fast - 1) calls' time: the interval keeps that under 1/20 of the time
   (on a busy 2-core machine a threaded loop measured 10-100x slower than one thread: a barrier per
   colour waits for a descheduled thread). Below MFAD_THREADS_MIN_ELEMENTS a loop runs on the
   calling thread: there a fork-join gains microseconds on an idle machine and can cost a
   scheduler time slice (milliseconds) on a busy one. Results are bitwise the same for any count. */
#define MFAD_THREADS_MIN_ELEMENTS 16384
#define MFAD_THREADS_PROBE_MIN    4
#define MFAD_THREADS_PROBE_MAX    (1 << 20)
#define MFAD_THREADS_PROBE_BUDGET 20 /* calls per unit of probe loss: 5% */

static double MfadWallTime_Private(void)
{
#ifdef _OPENMP
  return omp_get_wtime();
#else
  return 0.0;
#endif
}

/* Threads for a loop of `nelem` elements at `site`; t0 is passed on to MfadThreadsEnd_Private */
int MfadThreadsBegin_Private(MfadEnergy E, int site, PetscCount nelem, double *t0)
{
  const int         nt = MfadEnergyThreads_Private(E);
  MfadThreadChoice *c  = &E->threads[site];
  int               use;

  *t0 = -1.0;
  if (nt <= 1 || nelem < MFAD_THREADS_MIN_ELEMENTS) return 1;
  if (E->nthreads > 0) {
    E->threads_used = PetscMax(E->threads_used, nt);
    return nt;
  }
  if (!c->interval) c->interval = MFAD_THREADS_PROBE_MIN;
  if (c->warm < 2) use = 1;
  else if (c->sec[1] <= 0.0) {
    use      = nt;
    c->probe = 1;
  } else {
    const int best = c->sec[1] < c->sec[0] ? nt : 1;
    c->probe       = ++c->calls >= c->interval;
    if (c->probe) c->calls = 0;
    use = c->probe ? (best > 1 ? 1 : nt) : best;
  }
  *t0             = MfadWallTime_Private();
  E->threads_used = PetscMax(E->threads_used, use);
  return use;
}

void MfadThreadsEnd_Private(MfadEnergy E, int site, int nt, PetscCount nelem, double t0)
{
  MfadThreadChoice *c = &E->threads[site];
  const int         i = nt > 1;
  double            s;

  if (t0 < 0.0) return;
  s = (MfadWallTime_Private() - t0) / (double)nelem;
  if (c->warm < 2) { /* the first run warms the caches; the second is timed */
    if (c->warm++) c->sec[0] = s;
    return;
  }
  /* the loop in use: smoothed; a probe or a first time: replaces */
  c->sec[i] = c->probe || c->sec[i] <= 0.0 ? s : 0.5 * (c->sec[i] + s);
  if (c->probe) {
    const double loss  = PetscMax(c->sec[0], c->sec[1]) / PetscMin(c->sec[0], c->sec[1]) - 1.0;
    const int    taken = i == (c->sec[1] < c->sec[0]); /* the probed count is now the faster */
    c->interval        = taken ? MFAD_THREADS_PROBE_MIN : (int)PetscMin(PetscMax(2.0 * c->interval, MFAD_THREADS_PROBE_BUDGET * loss), (double)MFAD_THREADS_PROBE_MAX);
    c->probe           = 0;
  }
}

/* The element loop of a term over all its elements, in loop order, on one thread (callers that
   thread it set L->nthreads and L->parallel) */
void MfadTermLoop_Private(MfadEnergy E, const MfadTerm *term, const double *x, const double *v, double *y, MfadLoop *L)
{
  L->nelem        = (int)term->nelem;
  L->conn         = term->conn;
  L->params       = term->k->nparam ? term->params : NULL;
  L->weight       = term->weight;
  L->x            = x;
  L->v            = v;
  L->y            = y;
  L->block_value  = term->block_value;
  L->nblocks      = term->nblocks;
  L->ncolors      = term->ncolors;
  L->block_start  = term->block_start;
  L->color_start  = term->color_start;
  L->color_blocks = term->color_blocks;
  L->atomic       = MfadEnergyAtomicScatter_Private(E);
  L->nthreads     = 1;
  L->parallel     = 0;
  L->psd          = 0; /* set by src/hessian.c for kernels that project in feature space */
  L->psd_eps      = 0.0;
}

/* Runs operation `op` of every term; `value` (if not NULL) receives this rank's energy. */
static PetscErrorCode MfadEnergyRunTerms_Private(MfadEnergy E, MfadOp op, const double *x, const double *v, double *y, PetscReal *value)
{
  static const MfadMode mode[MFAD_OP_COUNT] = {MFAD_MODE_VALUE, MFAD_MODE_GRADIENT, MFAD_MODE_HVP, MFAD_MODE_DIAGONAL, MFAD_MODE_HESSIAN};
  PetscReal             sum             = 0.0;
  PetscCount            nelem           = 0;
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
    PetscCall(VecGetArray(E->vloc, &v));
    for (PetscInt i = 0; i < E->nfixloc; i++) v[E->fixloc[i]] = 0.0; /* fixed columns of H are zero */
  }
  if (op == MFAD_OP_GRADIENT || op == MFAD_OP_HVP || op == MFAD_OP_DIAGONAL) {
    PetscCall(VecZeroEntries(E->yloc));
    PetscCall(VecGetArray(E->yloc, &y));
  }
  if (op == MFAD_OP_BLOCKDIAG) {
    PetscCall(PetscArrayzero(E->blockloc, (size_t)E->nlocal * E->dof * E->dof));
    y = E->blockloc;
  }
  PetscCall(VecGetArrayRead(E->xloc, &x));
  PetscCall(MfadEnergyRunTerms_Private(E, op, x, v, y, value));
  PetscCall(VecRestoreArrayRead(E->xloc, &x));
  if (y && y != E->blockloc) PetscCall(VecRestoreArray(E->yloc, &y));
  if (v) PetscCall(VecRestoreArray(E->vloc, &v));
  if (value) *value += E->fixpen;
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
  for (PetscInt i = 0; i < E->nfixown; i++) {
    const PetscInt j = E->fixloc[i];
    switch (rows) {
    case MFAD_FIXED_RESIDUAL:
      y[j] = x[j] - E->fixval[i];
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

/* The table of E->backend: the only place the core names a backend */
PetscErrorCode MfadEnergySetBackendOps_Private(MfadEnergy E)
{
  static const MfadBackendOps cpu  = {MfadEnergyLocalFix_CPU,       MfadEnergyRunTermsLocal_CPU, MfadEnergyFixedRows_CPU,  MfadEnergyLocalVecType_CPU, MfadEnergyHessianCache_CPU,
                                      MfadEnergyCachedRun_CPU,      MfadEnergyHessianValues_CPU, PETSC_TRUE,               PETSC_FALSE};
  static const MfadBackendOps cuda = {MfadEnergyLocalFix_CUDA,      MfadEnergyRunTerms_CUDA,     MfadEnergyFixedRows_CUDA, MfadEnergyLocalVecType_CUDA, MfadEnergyHessianCache_CUDA,
                                      MfadEnergyCachedRun_CUDA,     MfadEnergyHessianValues_CUDA, PETSC_FALSE,             PETSC_TRUE};

  PetscFunctionBegin;
  E->ops[0] = E->backend == MFAD_BACKEND_CUDA ? cuda : cpu;
  PetscCall(PetscObjectChangeTypeName((PetscObject)E, MfadBackends[E->backend])); /* the object's type is its backend */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* local: the rank's energy and fixed-dof penalty */
static PetscErrorCode MfadEnergyObjectiveFinish_Private(MfadEnergy E, PetscReal local, PetscReal *f)
{
  PetscReal sum;

  PetscFunctionBegin;
  PetscCall(MPIU_Allreduce(&local, &sum, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)E)));
  /* an invalid element (inverted, NaN) reads as +inf: line searches back off from it */
  E->domain_error = PetscIsInfOrNanReal(sum) ? PETSC_TRUE : PETSC_FALSE;
  *f              = E->domain_error ? (PetscReal)INFINITY : sum; /* not PETSC_INFINITY, which is finite */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y <- reverse-add of yloc; owned fixed rows get `fixed(i)` */
PetscErrorCode MfadEnergyLocalToGlobal_Private(MfadEnergy E, Vec Y, MfadFixedRows rows, Vec X)
{
  PetscFunctionBegin;
  PetscCall(VecZeroEntries(Y));
  PetscCall(PetscLogEventBegin(MFAD_GhostEvent, 0, 0, 0, 0));
  PetscCall(VecScatterBegin(E->scatter, E->yloc, Y, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(E->scatter, E->yloc, Y, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(PetscLogEventEnd(MFAD_GhostEvent, 0, 0, 0, 0));
  if (E->damping > 0 && rows == MFAD_FIXED_IDENTITY) PetscCall(VecAXPY(Y, E->damping, X)); /* (H + lambda I) v; fixed rows set below */
  if (E->damping > 0 && rows == MFAD_FIXED_ONE) PetscCall(VecShift(Y, E->damping));
  if (E->nfixown) PetscCall(E->ops->fixedrows(E, Y, rows, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyPrepare_Private(MfadEnergy E, Vec X, const char *what)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCall(MfadEnergyCheckVec_Private(E, X, 2, what));
  PetscCall(MfadEnergySetUp(E));
  PetscCall(MfadEnergyGlobalToLocal_Private(E, X));
  if (!E->viewed) PetscCall(MfadEnergyViewFromOptions(E, NULL)); /* -mfad_view in every program, once, at the first evaluation */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyComputeObjective(MfadEnergy E, Vec X, PetscReal *f)
{
  PetscReal local;

  PetscFunctionBegin;
  MfadValidPointer(f, 3);
  PetscCall(MfadEnergyPrepare_Private(E, X, "MfadEnergyComputeObjective"));
  PetscCall(MfadEnergyCheckObjective_Private(E, "MfadEnergyComputeObjective"));
  PetscCall(PetscLogEventBegin(MFAD_Events[MFAD_OP_VALUE], 0, 0, 0, 0));
  PetscCall(E->ops->runterms(E, MFAD_OP_VALUE, &local));
  PetscCall(MfadEnergyObjectiveFinish_Private(E, local, f));
  PetscCall(PetscLogEventEnd(MFAD_Events[MFAD_OP_VALUE], 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyComputeObjectiveGradient(MfadEnergy E, Vec X, PetscReal *f, Vec G)
{
  PetscReal local, fv;

  PetscFunctionBegin;
  PetscCall(MfadEnergyPrepare_Private(E, X, "MfadEnergyComputeGradient"));
  PetscCall(MfadEnergyCheckVec_Private(E, G, 4, "MfadEnergyComputeGradient"));
  if (f) PetscCall(MfadEnergyCheckObjective_Private(E, "MfadEnergyComputeObjectiveGradient"));
  PetscCheck(X != G, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_IDN, "MfadEnergyComputeGradient: X and G must be different vectors");
  PetscCall(PetscLogEventBegin(MFAD_Events[MFAD_OP_GRADIENT], 0, 0, 0, 0));
  PetscCall(E->ops->runterms(E, MFAD_OP_GRADIENT, &local));
  PetscCall(MfadEnergyLocalToGlobal_Private(E, G, MFAD_FIXED_RESIDUAL, X));
  PetscCall(MfadEnergyObjectiveFinish_Private(E, local, &fv)); /* the domain check needs the energy */
  if (f) *f = fv;
  PetscCall(PetscLogEventEnd(MFAD_Events[MFAD_OP_GRADIENT], 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyComputeGradient(MfadEnergy E, Vec X, Vec G)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyComputeObjectiveGradient(E, X, NULL, G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyComputeHessianProduct(MfadEnergy E, Vec X, Vec V, Vec Y)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyPrepare_Private(E, X, "MfadEnergyComputeHessianProduct"));
  PetscCall(MfadEnergyCheckVec_Private(E, V, 3, "MfadEnergyComputeHessianProduct"));
  PetscCall(MfadEnergyCheckVec_Private(E, Y, 4, "MfadEnergyComputeHessianProduct"));
  PetscCheck(V != Y, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_IDN, "MfadEnergyComputeHessianProduct: V and Y must be different vectors");
  PetscCall(PetscLogEventBegin(MFAD_Events[MFAD_OP_HVP], 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(MFAD_GhostEvent, 0, 0, 0, 0));
  PetscCall(VecScatterBegin(E->scatter, V, E->vloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(E->scatter, V, E->vloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(PetscLogEventEnd(MFAD_GhostEvent, 0, 0, 0, 0));
  PetscCall(E->ops->runterms(E, MFAD_OP_HVP, NULL));
  PetscCall(MfadEnergyLocalToGlobal_Private(E, Y, MFAD_FIXED_IDENTITY, V));
  PetscCall(PetscLogEventEnd(MFAD_Events[MFAD_OP_HVP], 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyComputeHessianDiagonal(MfadEnergy E, Vec X, Vec D)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyPrepare_Private(E, X, "MfadEnergyComputeHessianDiagonal"));
  PetscCall(MfadEnergyCheckVec_Private(E, D, 3, "MfadEnergyComputeHessianDiagonal"));
  PetscCall(PetscLogEventBegin(MFAD_Events[MFAD_OP_DIAGONAL], 0, 0, 0, 0));
  PetscCall(E->ops->runterms(E, MFAD_OP_DIAGONAL, NULL));
  PetscCall(MfadEnergyLocalToGlobal_Private(E, D, MFAD_FIXED_ONE, NULL));
  PetscCall(PetscLogEventEnd(MFAD_Events[MFAD_OP_DIAGONAL], 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyComputeHessianBlockDiagonal(MfadEnergy E, Vec X, PetscScalar blocks[])
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyPrepare_Private(E, X, "MfadEnergyComputeHessianBlockDiagonal"));
  MfadValidPointer(blocks, 3);
  PetscCall(PetscLogEventBegin(MFAD_Events[MFAD_OP_BLOCKDIAG], 0, 0, 0, 0));
  PetscCall(E->ops->runterms(E, MFAD_OP_BLOCKDIAG, NULL));
  PetscCall(MfadEnergyBlocksLocalToGlobal_Private(E, blocks));
  PetscCall(PetscLogEventEnd(MFAD_Events[MFAD_OP_BLOCKDIAG], 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* blocks (owned vertices) <- reverse add of E->blockloc (local vertices); fixed dofs get an
   identity row and column */
PetscErrorCode MfadEnergyBlocksLocalToGlobal_Private(MfadEnergy E, PetscScalar blocks[])
{
  const PetscInt dof = E->dof, bs = dof * dof;

  PetscFunctionBegin;
  /* ghost vertices' blocks go to their owners: a reverse add, dof x dof entries per vertex,
     moved by the same scatter applied to each of the dof block columns in turn */
  {
    Vec          col_loc, col_glob;
    PetscScalar *c;
    PetscCall(VecDuplicate(E->yloc, &col_loc));
    PetscCall(VecDuplicate(E->xglob, &col_glob));
    for (PetscInt f = 0; f < dof; f++) {
      const PetscScalar *g;
      PetscCall(VecGetArray(col_loc, &c));
      for (PetscInt i = 0; i < E->nlocal * dof; i++) c[i] = E->blockloc[i * dof + f];
      PetscCall(VecRestoreArray(col_loc, &c));
      PetscCall(VecZeroEntries(col_glob));
      PetscCall(VecScatterBegin(E->scatter, col_loc, col_glob, ADD_VALUES, SCATTER_REVERSE));
      PetscCall(VecScatterEnd(E->scatter, col_loc, col_glob, ADD_VALUES, SCATTER_REVERSE));
      PetscCall(VecGetArrayRead(col_glob, &g));
      for (PetscInt i = 0; i < E->n * dof; i++) blocks[i * dof + f] = g[i];
      PetscCall(VecRestoreArrayRead(col_glob, &g));
    }
    PetscCall(VecDestroy(&col_loc));
    PetscCall(VecDestroy(&col_glob));
  }
  if (E->damping > 0)
    for (PetscInt i = 0; i < E->n * dof; i++) blocks[i * dof + i % dof] += E->damping;
  for (PetscInt i = 0; i < E->nfixown; i++) { /* identity row and column of each fixed dof */
    const PetscInt j = E->fixloc[i], vtx = j / dof, d = j % dof;
    PetscScalar   *B = blocks + vtx * bs;
    for (PetscInt f = 0; f < dof; f++) B[d * dof + f] = B[f * dof + d] = 0.0;
    B[d * dof + d] = 1.0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyApplyFixedValues(MfadEnergy E, Vec X)
{
  PetscScalar *x;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCall(MfadEnergyCheckVec_Private(E, X, 2, "MfadEnergyApplyFixedValues"));
  PetscCall(MfadEnergySetUp(E));
  PetscCall(VecGetArray(X, &x));
  for (PetscInt i = 0; i < E->nfixown; i++) x[E->fixloc[i]] = E->fixval[i];
  PetscCall(VecRestoreArray(X, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetDomainError(MfadEnergy E, PetscBool *flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *flg = E->domain_error;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first invalid element (energy +inf or NaN) at X: the lowest global element number (terms
   in order; a term's elements numbered rank by rank in the order each rank gave them), so every
   rank names the same one. Collective. msg is empty when every element is finite. */
PetscErrorCode MfadEnergyDescribeInvalid_Private(MfadEnergy E, Vec X, char msg[], size_t len)
{
  const PetscScalar *x;
  PetscMPIInt        rank;

  PetscFunctionBegin;
  msg[0] = 0;
  PetscCall(MfadEnergyPrepare_Private(E, X, "MfadEnergyDescribeInvalid"));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)E), &rank));
  PetscCall(VecGetArrayRead(E->xloc, &x));
  for (PetscInt t = 0; t < E->nterms && !msg[0]; t++) {
    MfadTerm      *term = &E->terms[t];
    const PetscInt nv   = term->k->nvert;
    PetscInt       first = PETSC_MAX_INT, offset = 0, gfirst, mine = -1, owner;
    double        *value, bad = 0.0;
    int           *start;
    MfadLoop       L;

    /* one block per element: the loop leaves each element's energy in block_value */
    PetscCall(PetscMalloc2(term->nelem, &value, term->nelem + 1, &start));
    for (PetscInt e = 0; e <= term->nelem; e++) start[e] = (int)e;
    MfadTermLoop_Private(E, term, x, NULL, NULL, &L);
    L.weight      = 1.0;
    L.block_value = value;
    L.block_start = start;
    L.nblocks     = (int)term->nelem;
    if (term->nelem) term->k->cpu_value(&L);
    for (PetscInt e = 0; e < term->nelem; e++)
      if (PetscIsInfOrNanReal(value[e]) && term->order[e] < first) {
        first = term->order[e]; /* the caller's numbering */
        bad   = value[e];
      }
    PetscCall(PetscFree2(value, start));
    PetscCallMPI(MPI_Exscan(&term->nelem, &offset, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)E)));
    if (rank == 0) offset = 0;
    if (first < PETSC_MAX_INT) first += offset;
    PetscCall(MPIU_Allreduce(&first, &gfirst, 1, MPIU_INT, MPI_MIN, PetscObjectComm((PetscObject)E)));
    if (gfirst == PETSC_MAX_INT) continue;
    if (first == gfirst) {
      char   verts[256] = "";
      size_t l;
      mine = rank;
      for (PetscInt a = 0; a < nv; a++) {
        PetscCall(PetscStrlen(verts, &l));
        PetscCall(PetscSNPrintf(verts + l, sizeof(verts) - l, "%s%" PetscInt_FMT, a ? " " : "", term->conn_global[(first - offset) * nv + a]));
      }
      PetscCall(PetscSNPrintf(msg, len, "term '%s' element %" PetscInt_FMT " (vertices %s) has energy %s (%s)", term->name, gfirst, verts, PetscIsNanReal(bad) ? "NaN" : "inf",
                              PetscIsNanReal(bad) ? "a NaN from the element: degenerate, or parameters out of range" : "inverted or degenerate: outside the energy's domain"));
    }
    PetscCall(MPIU_Allreduce(&mine, &owner, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)E)));
    PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)len, MPI_CHAR, (PetscMPIInt)owner, PetscObjectComm((PetscObject)E)));
  }
  PetscCall(VecRestoreArrayRead(E->xloc, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}
