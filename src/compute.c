// SPDX-License-Identifier: BSD-2-Clause
/* The energy's operations: gather (ghost exchange, fixed values), element loops of every term,
   scatter (reverse add), fixed rows. */
#include "mfadimpl.h"

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

static PetscInt MfadEnergyLocalToGlobalVertex_Private(MfadEnergy E, PetscInt v) { return v < E->n ? E->rstart + v : E->local.ghosts[v - E->n]; }

/* The error for entry i of xloc, which holds `bad` (NaN or Inf): names the vertex and dof */
PetscErrorCode MfadEnergyNotFinite_Private(MfadEnergy E, PetscInt i, PetscReal bad)
{
  const PetscInt v = MfadEnergyLocalToGlobalVertex_Private(E, i / E->dof);

  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FP, "MfadEnergy: the point has %g at vertex %" PetscInt_FMT " dof %" PetscInt_FMT " (entry %" PetscInt_FMT ")", (double)bad, v, i % E->dof, v * E->dof + i % E->dof);
}

/* xloc <- X with ghosts, fixed dofs at their values; skipped when xloc already holds X. */
PetscErrorCode MfadEnergyGlobalToLocal_Private(MfadEnergy E, Vec X)
{
  PetscObjectId    id;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)X, &id));
  PetscCall(PetscObjectStateGet((PetscObject)X, &state));
  if (E->local.xvalid && id == E->local.xid && state == E->local.xstate) PetscFunctionReturn(PETSC_SUCCESS);
  E->local.xvalid = PETSC_FALSE;
  PetscCall(PetscLogEventBegin(MFAD_GhostEvent, 0, 0, 0, 0));
  PetscCall(VecScatterBegin(E->local.scatter, X, E->local.xloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(E->local.scatter, X, E->local.xloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(PetscLogEventEnd(MFAD_GhostEvent, 0, 0, 0, 0));
  MfadBackendCall(E, localfix, "fixed values", (E));
  E->local.xid    = id;
  E->local.xstate = state;
  E->local.xvalid = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The element loop of a term over all its elements, in loop order, on one thread (callers that
   thread it set L->nthreads and L->parallel) */
void MfadTermLoop_Private(MfadEnergy E, const MfadTerm *term, const double *x, const double *v, double *y, MfadLoop *L)
{
  L->nelem        = (int)term->nelem;
  L->conn         = term->conn;
  L->voff         = term->voff;
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
  L->scalar       = !E->opt.lanes;
  L->nthreads     = 1;
  L->parallel     = 0;
  L->psd          = 0; /* set by src/hessian.c for kernels that project in feature space */
  L->psd_eps      = 0.0;
}

/* local: the rank's energy and fixed-dof penalty */
static PetscErrorCode MfadEnergyObjectiveFinish_Private(MfadEnergy E, PetscReal local, PetscReal *f)
{
  PetscReal sum;

  PetscFunctionBegin;
  PetscCall(MPIU_Allreduce(&local, &sum, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)E)));
  /* an invalid element (inverted, NaN) reads as +inf: line searches back off from it */
  E->local.domain_error = PetscIsInfOrNanReal(sum) ? PETSC_TRUE : PETSC_FALSE;
  *f              = E->local.domain_error ? (PetscReal)INFINITY : sum; /* not PETSC_INFINITY, which is finite */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* vloc and yloc get their own arrays back (an operation that failed may have left them lent) */
static PetscErrorCode MfadEnergyLocalReturn_Private(MfadEnergy E)
{
  PetscFunctionBegin;
  if (E->local.ylent) PetscCall(VecResetArray(E->local.yloc));
  if (E->local.vlent) PetscCall(VecResetArray(E->local.vloc));
  E->local.ylent = E->local.vlent = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An operation's start: vloc <- V (NULL: none), and yloc's storage for the output Y (NULL: yloc's
   own). Where the local vectors are each rank's part of the global ones (E->local.inplace: no rank
   has ghosts, as on one rank), yloc takes Y's array, so the loops zero it and add into it, and vloc
   V's: no copy in, no zeroing and reverse add out (on one rank they were 0.5-0.7 ms of a 2.3 ms HVP of
   400,000 springs, -log_view). V is still copied where its fixed entries are zeroed in vloc (they
   would be the caller's) or where it shares Y's array. MfadEnergyLocalToGlobal_Private() ends it */
PetscErrorCode MfadEnergyLocalBegin_Private(MfadEnergy E, Vec V, Vec Y)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyLocalReturn_Private(E)); /* after a failed operation; not the caller's vectors': they may be gone */
  if (E->local.inplace && Y) {
    PetscCall(VecGetArray(Y, &E->local.yarray));
    PetscCall(VecPlaceArray(E->local.yloc, E->local.yarray));
    E->local.ylent = Y;
  }
  if (!V) PetscFunctionReturn(PETSC_SUCCESS);
  if (E->local.inplace && !E->local.nfixloc) {
    PetscCall(VecGetArrayRead(V, &E->local.varray));
    if (!E->local.ylent || E->local.varray != E->local.yarray) {
      PetscCall(VecPlaceArray(E->local.vloc, (PetscScalar *)E->local.varray)); /* read only: no fixed entry to zero */
      E->local.vlent = V;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(VecRestoreArrayRead(V, &E->local.varray));
  }
  PetscCall(PetscLogEventBegin(MFAD_GhostEvent, 0, 0, 0, 0));
  PetscCall(VecScatterBegin(E->local.scatter, V, E->local.vloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(E->local.scatter, V, E->local.vloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(PetscLogEventEnd(MFAD_GhostEvent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y <- reverse-add of yloc (nothing to do where yloc held Y's array; with ghosts on host vectors,
   the owned entries copied and the ghosts alone added); owned fixed rows get `fixed(i)` */
PetscErrorCode MfadEnergyLocalToGlobal_Private(MfadEnergy E, Vec Y, MfadFixedRows rows, Vec X)
{
  PetscFunctionBegin;
  if (E->local.vlent) {
    PetscCall(VecResetArray(E->local.vloc));
    PetscCall(VecRestoreArrayRead(E->local.vlent, &E->local.varray));
    E->local.vlent = NULL;
  }
  if (E->local.ylent) {
    PetscCheck(E->local.ylent == Y, PETSC_COMM_SELF, PETSC_ERR_PLIB, "yloc holds another vector's array");
    PetscCall(VecResetArray(E->local.yloc));
    PetscCall(VecRestoreArray(Y, &E->local.yarray));
    E->local.ylent = NULL;
  } else if (E->local.ghostscatter) {
    /* Y's owned entries are yloc's (what the full reverse add gave as 0 + yloc, without the zeroing
       and the add: 0.24 ms for 300,000 entries against a copy's 0.05, a scratch program), then the
       other ranks' additions to them, through the ghost entries alone */
    const PetscScalar *yl;
    PetscScalar       *y;
    PetscCall(PetscLogEventBegin(MFAD_GhostEvent, 0, 0, 0, 0));
    PetscCall(VecGetArrayRead(E->local.yloc, &yl));
    PetscCall(VecGetArrayWrite(Y, &y));
    PetscCall(PetscArraycpy(y, yl, E->n * E->dof));
    PetscCall(VecRestoreArrayWrite(Y, &y));
    PetscCall(VecRestoreArrayRead(E->local.yloc, &yl));
    PetscCall(VecScatterBegin(E->local.ghostscatter, E->local.yloc, Y, ADD_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(E->local.ghostscatter, E->local.yloc, Y, ADD_VALUES, SCATTER_REVERSE));
    PetscCall(PetscLogEventEnd(MFAD_GhostEvent, 0, 0, 0, 0));
  } else {
    PetscCall(VecZeroEntries(Y));
    PetscCall(PetscLogEventBegin(MFAD_GhostEvent, 0, 0, 0, 0));
    PetscCall(VecScatterBegin(E->local.scatter, E->local.yloc, Y, ADD_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(E->local.scatter, E->local.yloc, Y, ADD_VALUES, SCATTER_REVERSE));
    PetscCall(PetscLogEventEnd(MFAD_GhostEvent, 0, 0, 0, 0));
  }
  if (E->opt.damping > 0 && rows == MFAD_FIXED_IDENTITY) PetscCall(VecAXPY(Y, E->opt.damping, X)); /* (H + lambda I) v; fixed rows set below */
  if (E->opt.damping > 0 && rows == MFAD_FIXED_ONE) PetscCall(VecShift(Y, E->opt.damping));
  if (E->local.nfixown) MfadBackendCall(E, fixedrows, "fixed rows", (E, Y, rows, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyPrepare_Private(MfadEnergy E, Vec X, const char *what)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCall(MfadEnergyCheckVec_Private(E, X, 2, what));
  PetscCall(MfadEnergySetUp(E));
  PetscCall(MfadEnergyGlobalToLocal_Private(E, X));
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
  MfadBackendCall(E, runterms, "objective", (E, MFAD_OP_VALUE, &local));
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
  PetscCall(MfadEnergyLocalBegin_Private(E, NULL, G));
  MfadBackendCall(E, runterms, "gradient", (E, MFAD_OP_GRADIENT, &local));
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
  PetscCall(MfadEnergyLocalBegin_Private(E, V, Y));
  MfadBackendCall(E, runterms, "Hessian product", (E, MFAD_OP_HVP, NULL));
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
  PetscCall(MfadEnergyLocalBegin_Private(E, NULL, D));
  MfadBackendCall(E, runterms, "Hessian diagonal", (E, MFAD_OP_DIAGONAL, NULL));
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
  MfadBackendCall(E, runterms, "Hessian block diagonal", (E, MFAD_OP_BLOCKDIAG, NULL));
  PetscCall(MfadEnergyBlocksLocalToGlobal_Private(E, blocks));
  PetscCall(PetscLogEventEnd(MFAD_Events[MFAD_OP_BLOCKDIAG], 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* blocks (owned vertices) <- reverse add of E->local.blockloc (local vertices); fixed dofs get an
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
    PetscCall(VecDuplicate(E->local.yloc, &col_loc));
    PetscCall(VecDuplicate(E->local.xglob, &col_glob));
    for (PetscInt f = 0; f < dof; f++) {
      const PetscScalar *g;
      PetscCall(VecGetArray(col_loc, &c));
      for (PetscInt i = 0; i < E->local.nlocal * dof; i++) c[i] = E->local.blockloc[i * dof + f];
      PetscCall(VecRestoreArray(col_loc, &c));
      PetscCall(VecZeroEntries(col_glob));
      PetscCall(VecScatterBegin(E->local.scatter, col_loc, col_glob, ADD_VALUES, SCATTER_REVERSE));
      PetscCall(VecScatterEnd(E->local.scatter, col_loc, col_glob, ADD_VALUES, SCATTER_REVERSE));
      PetscCall(VecGetArrayRead(col_glob, &g));
      for (PetscInt i = 0; i < E->n * dof; i++) blocks[i * dof + f] = g[i];
      PetscCall(VecRestoreArrayRead(col_glob, &g));
    }
    PetscCall(VecDestroy(&col_loc));
    PetscCall(VecDestroy(&col_glob));
  }
  if (E->opt.damping > 0)
    for (PetscInt i = 0; i < E->n * dof; i++) blocks[i * dof + i % dof] += E->opt.damping;
  for (PetscInt i = 0; i < E->local.nfixown; i++) { /* identity row and column of each fixed dof */
    const PetscInt j = E->local.fixloc[i], vtx = j / dof, d = j % dof;
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
  for (PetscInt i = 0; i < E->local.nfixown; i++) x[E->local.fixloc[i]] = E->local.fixval[i];
  PetscCall(VecRestoreArray(X, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetDomainError(MfadEnergy E, PetscBool *flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *flg = E->local.domain_error;
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
  PetscCall(VecGetArrayRead(E->local.xloc, &x));
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
  PetscCall(VecRestoreArrayRead(E->local.xloc, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}
