// SPDX-License-Identifier: BSD-2-Clause
/* Residual terms: kernels whose element function has m outputs (include/mfad/impl/element_residual.h).
   Their scalar entry points already serve the energy's operations (gradient = J^T r or r, product
   = J^T J v or J v, element matrices J^T J or J); here are what only residuals have: the stacked
   least-squares residual r and its Jacobian J (products both ways and assembled), and the
   transpose product of a system's Jacobian. Rows of r: each rank stacks its own elements, term
   by term (least-squares terms in the order added), element by element in the caller's order. */
#include "mfadimpl.h"

PetscLogEvent MFAD_ResidualEvent, MFAD_ResidualJacobianEvent, MFAD_TransposeEvent;

/* A loop over a residual term, threaded as the term's colouring allows */
static void MfadResidualLoop_Private(MfadEnergy E, const MfadTerm *term, const double *x, const double *v, double *y, MfadLoop *L)
{
  MfadTermLoop_Private(E, term, x, v, y, L);
  L->nthreads = MfadEnergyThreads_Private(E);
  L->parallel = L->nthreads > 1 && term->parallel;
  L->row      = term->row;
}

PetscErrorCode MfadEnergyComputeHessianTransposeProduct(MfadEnergy E, Vec X, Vec V, Vec Y)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  if (MfadEnergyFirstSystemTerm_Private(E) < 0) { /* symmetric */
    PetscCall(MfadEnergyComputeHessianProduct(E, X, V, Y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MfadEnergyPrepare_Private(E, X, "MfadEnergyComputeHessianTransposeProduct"));
  PetscCall(MfadEnergyCheckVec_Private(E, V, 3, "MfadEnergyComputeHessianTransposeProduct"));
  PetscCall(MfadEnergyCheckVec_Private(E, Y, 4, "MfadEnergyComputeHessianTransposeProduct"));
  PetscCheck(V != Y, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_IDN,
             "MfadEnergyComputeHessianTransposeProduct: V and Y must be different vectors");
  PetscCall(PetscLogEventBegin(MFAD_TransposeEvent, 0, 0, 0, 0));
  PetscCall(MfadEnergyLocalBegin_Private(E, V, Y));
  MfadBackendCall(E, transposeproduct, "transpose product of a system's Jacobian", (E));
  PetscCall(MfadEnergyLocalToGlobal_Private(E, Y, MFAD_FIXED_IDENTITY, V));
  PetscCall(PetscLogEventEnd(MFAD_TransposeEvent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CPU's: yloc <- J^T vloc at xloc */
PetscErrorCode MfadEnergyTransposeProduct_CPU(MfadEnergy E)
{
  const PetscScalar *x;
  PetscScalar       *y, *v;

  PetscFunctionBegin;
  PetscCall(VecGetArray(E->local.vloc, &v));
  for (PetscInt i = 0; i < E->local.nfixloc; i++)
    v[E->local.fixloc[i]] = 0.0; /* fixed rows of J are identity rows: their columns of J^T are zero outside the diagonal */
  PetscCall(VecZeroEntries(E->local.yloc));
  PetscCall(VecGetArrayRead(E->local.xloc, &x));
  PetscCall(VecGetArray(E->local.yloc, &y));
  for (PetscInt t = 0; t < E->nterms; t++) {
    MfadTerm *term = &E->terms[t];
    MfadLoop  L;
    if (!term->nelem) continue;
    MfadResidualLoop_Private(E, term, x, v, y, &L);
    if (MfadTermIsSystem_Private(term)) term->k->residual->cpu_jtv(&L);
    else term->k->cpu_hvp(&L); /* symmetric terms */
  }
  PetscCall(VecRestoreArray(E->local.yloc, &y));
  PetscCall(VecRestoreArrayRead(E->local.xloc, &x));
  PetscCall(VecRestoreArray(E->local.vloc, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A += lambda I on the free dofs (fixed rows stay identity rows): -mfad_damping */
PetscErrorCode MfadEnergyDampMatrix_Private(MfadEnergy E, Mat A)
{
  Vec          d;
  PetscScalar *a;

  PetscFunctionBegin;
  if (!(E->opt.damping > 0)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecDuplicate(E->local.xglob, &d));
  PetscCall(VecSet(d, E->opt.damping));
  PetscCall(VecGetArray(d, &a));
  for (PetscInt i = 0; i < E->local.nfixown; i++) a[E->local.fixloc[i]] = 0.0;
  PetscCall(VecRestoreArray(d, &a));
  PetscCall(MatDiagonalSet(A, d, ADD_VALUES));
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ least squares: stacked rows */

/* Local rows of every least-squares term, each term's first local row (offset); makes each term's
   row map (MfadTerm.row) once set up. The backends' residual loops use both. */
PetscErrorCode MfadEnergyResidualRows_Private(MfadEnergy E, PetscInt *nrows, PetscInt offset[])
{
  PetscInt m = 0;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < E->nterms; t++) {
    MfadTerm *term = &E->terms[t];
    if (offset) offset[t] = m;
    if (!MfadTermIsLeastSquares_Private(term)) continue;
    PetscCheck((PetscInt64)m + (PetscInt64)term->nelem * term->k->nout < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "term '%s': residual rows overflow PetscInt", term->name);
    m += term->nelem * term->k->nout;
    if (!term->row && term->nelem && E->local.done) { /* the caller's element order, as int for the loops */
      PetscCall(PetscMalloc1(term->nelem, &term->row));
      for (PetscInt e = 0; e < term->nelem; e++) term->row[e] = (int)term->order[e];
    }
  }
  *nrows = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetResidualSizes(MfadEnergy E, PetscInt *m, PetscInt *M)
{
  PetscInt mloc;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCall(MfadEnergySetUp(E));
  PetscCall(MfadEnergyResidualRows_Private(E, &mloc, NULL));
  if (m) *m = mloc;
  if (M) PetscCall(MPIU_Allreduce(&mloc, M, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)E)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadEnergyCheckResidualVec_Private(MfadEnergy E, Vec R, int arg, const char *what)
{
  PetscInt m, M, n, N;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(R, VEC_CLASSID, arg);
  PetscCall(MfadEnergyGetResidualSizes(E, &m, &M));
  PetscCheck(M > 0, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_WRONGSTATE,
             "%s: the energy has no least-squares residual term (a kernel with .residual and .sum = MFAD_SUM_LEAST_SQUARES)", what);
  PetscCall(VecGetLocalSize(R, &n));
  PetscCall(VecGetSize(R, &N));
  PetscCheck(n == m && N == M, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "%s: residual Vec (argument %d) has local size %" PetscInt_FMT " and global size %" PetscInt_FMT
             "; the least-squares terms have %" PetscInt_FMT " and %" PetscInt_FMT " rows (MfadEnergyCreateResidualVec())",
             what, arg, n, N, m, M);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCreateResidualVec(MfadEnergy E, Vec *R)
{
  PetscInt m, M;

  PetscFunctionBegin;
  MfadValidPointer(R, 2);
  PetscCall(MfadEnergyGetResidualSizes(E, &m, &M));
  PetscCheck(M > 0, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_WRONGSTATE, "MfadEnergyCreateResidualVec: the energy has no least-squares residual term");
  PetscCall(VecCreate(PetscObjectComm((PetscObject)E), R));
  PetscCall(VecSetSizes(*R, m, M));
  PetscCall(VecSetType(*R, VECSTANDARD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CPU's: runs loop `which` of every least-squares term: 0 residual, 1 JVP (v: local direction), 2 VJP
   (w: stacked rows in, y: local vertex array out) */
static PetscErrorCode MfadEnergyRunResidual_Private(MfadEnergy E, int which, const double *x, const double *v, const double *w, double *y)
{
  PetscInt m, *offset;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(E->nterms, &offset));
  PetscCall(MfadEnergyResidualRows_Private(E, &m, offset));
  for (PetscInt t = 0; t < E->nterms; t++) {
    MfadTerm *term = &E->terms[t];
    MfadLoop  L;
    if (!term->nelem || !MfadTermIsLeastSquares_Private(term)) continue;
    MfadResidualLoop_Private(E, term, x, v, which == 2 ? y : y + offset[t], &L);
    L.w = which == 2 ? w + offset[t] : NULL;
    if (which == 0) term->k->residual->cpu_residual(&L);
    else if (which == 1) term->k->residual->cpu_jvp(&L);
    else term->k->residual->cpu_vjp(&L);
  }
  PetscCall(PetscFree(offset));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyComputeResidual(MfadEnergy E, Vec X, Vec R)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyPrepare_Private(E, X, "MfadEnergyComputeResidual"));
  PetscCall(MfadEnergyCheckResidualVec_Private(E, R, 3, "MfadEnergyComputeResidual"));
  PetscCall(PetscLogEventBegin(MFAD_ResidualEvent, 0, 0, 0, 0));
  MfadBackendCall(E, residual, "least-squares residual", (E, R));
  PetscCall(PetscLogEventEnd(MFAD_ResidualEvent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyResidual_CPU(MfadEnergy E, Vec R)
{
  const PetscScalar *x;
  PetscScalar       *r;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(E->local.xloc, &x));
  PetscCall(VecGetArrayWrite(R, &r));
  PetscCall(MfadEnergyRunResidual_Private(E, 0, x, NULL, NULL, r));
  PetscCall(VecRestoreArrayWrite(R, &r));
  PetscCall(VecRestoreArrayRead(E->local.xloc, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyComputeResidualJacobianProduct(MfadEnergy E, Vec X, Vec V, Vec Y)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyPrepare_Private(E, X, "MfadEnergyComputeResidualJacobianProduct"));
  PetscCall(MfadEnergyCheckVec_Private(E, V, 3, "MfadEnergyComputeResidualJacobianProduct"));
  PetscCall(MfadEnergyCheckResidualVec_Private(E, Y, 4, "MfadEnergyComputeResidualJacobianProduct"));
  PetscCall(PetscLogEventBegin(MFAD_ResidualEvent, 0, 0, 0, 0));
  PetscCall(VecScatterBegin(E->local.scatter, V, E->local.vloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(E->local.scatter, V, E->local.vloc, INSERT_VALUES, SCATTER_FORWARD));
  MfadBackendCall(E, residualjvp, "least-squares residual's Jacobian product", (E, Y));
  PetscCall(PetscLogEventEnd(MFAD_ResidualEvent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CPU's: Y <- J vloc */
PetscErrorCode MfadEnergyResidualJVP_CPU(MfadEnergy E, Vec Y)
{
  const PetscScalar *x;
  PetscScalar       *v, *y;

  PetscFunctionBegin;
  PetscCall(VecGetArray(E->local.vloc, &v));
  for (PetscInt i = 0; i < E->local.nfixloc; i++) v[E->local.fixloc[i]] = 0.0; /* fixed dofs are not unknowns: their columns of J are zero */
  PetscCall(VecGetArrayRead(E->local.xloc, &x));
  PetscCall(VecGetArrayWrite(Y, &y));
  PetscCall(MfadEnergyRunResidual_Private(E, 1, x, v, NULL, y));
  PetscCall(VecRestoreArrayWrite(Y, &y));
  PetscCall(VecRestoreArrayRead(E->local.xloc, &x));
  PetscCall(VecRestoreArray(E->local.vloc, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyComputeResidualJacobianTransposeProduct(MfadEnergy E, Vec X, Vec W, Vec Y)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyPrepare_Private(E, X, "MfadEnergyComputeResidualJacobianTransposeProduct"));
  PetscCall(MfadEnergyCheckResidualVec_Private(E, W, 3, "MfadEnergyComputeResidualJacobianTransposeProduct"));
  PetscCall(MfadEnergyCheckVec_Private(E, Y, 4, "MfadEnergyComputeResidualJacobianTransposeProduct"));
  PetscCall(PetscLogEventBegin(MFAD_ResidualEvent, 0, 0, 0, 0));
  PetscCall(MfadEnergyLocalBegin_Private(E, NULL, Y));
  MfadBackendCall(E, residualvjp, "least-squares residual's Jacobian transpose product", (E, W));
  PetscCall(MfadEnergyLocalToGlobal_Private(E, Y, MFAD_FIXED_ZERO, NULL));
  PetscCall(PetscLogEventEnd(MFAD_ResidualEvent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CPU's: yloc <- J^T W */
PetscErrorCode MfadEnergyResidualVJP_CPU(MfadEnergy E, Vec W)
{
  const PetscScalar *x, *w;
  PetscScalar       *y;

  PetscFunctionBegin;
  PetscCall(VecZeroEntries(E->local.yloc));
  PetscCall(VecGetArrayRead(E->local.xloc, &x));
  PetscCall(VecGetArrayRead(W, &w));
  PetscCall(VecGetArray(E->local.yloc, &y));
  PetscCall(MfadEnergyRunResidual_Private(E, 2, x, NULL, w, y));
  PetscCall(VecRestoreArray(E->local.yloc, &y));
  PetscCall(VecRestoreArrayRead(W, &w));
  PetscCall(VecRestoreArrayRead(E->local.xloc, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ least squares: assembled J */

typedef struct {
  MfadEnergy E;
  PetscInt   setup_count, fixed_count, elements_state;
  PetscCount nvalues;
  double    *values; /* each least-squares term's sqrt(w) J_e, m x N row-major, loop order */
} MfadResidualJacobian;

static PetscErrorCode MfadResidualJacobianDestroy_Private(void *arg)
{
  MfadResidualJacobian *c = (MfadResidualJacobian *)MfadCtxDestroyArg(arg);

  PetscFunctionBegin;
  PetscCall(PetscFree(c->values));
  PetscCall(MfadEnergyDestroy(&c->E));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCreateResidualJacobian(MfadEnergy E, Mat *J)
{
  PetscInt              m, M, rstart, *offset, *ci, *cj;
  PetscCount            ncoo = 0, k = 0;
  char                 *fixed;
  MfadResidualJacobian *c;
  PetscContainer        holder;
  const PetscInt        dof = E ? E->dof : 0;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  MfadValidPointer(J, 2);
  PetscCall(MfadEnergyGetResidualSizes(E, &m, &M));
  PetscCheck(M > 0, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_WRONGSTATE, "MfadEnergyCreateResidualJacobian: the energy has no least-squares residual term");
  PetscCallMPI(MPI_Scan(&m, &rstart, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)E)));
  rstart -= m;
  PetscCall(PetscMalloc1(E->nterms, &offset));
  PetscCall(MfadEnergyResidualRows_Private(E, &m, offset));
  for (PetscInt t = 0; t < E->nterms; t++)
    if (MfadTermIsLeastSquares_Private(&E->terms[t])) ncoo += (PetscCount)E->terms[t].nelem * E->terms[t].k->nout * E->terms[t].k->nvert * dof;
  PetscCall(PetscMalloc2(ncoo, &ci, ncoo, &cj));
  PetscCall(PetscCalloc1(E->local.nlocal * dof, &fixed));
  for (PetscInt i = 0; i < E->local.nfixloc; i++) fixed[E->local.fixloc[i]] = 1;
  for (PetscInt t = 0; t < E->nterms; t++) {
    const MfadTerm *term = &E->terms[t];
    const int       nv = term->k->nvert, N = nv * (int)dof, mo = term->k->nout;
    if (!MfadTermIsLeastSquares_Private(term)) continue;
    for (PetscInt e = 0; e < term->nelem; e++) {
      const int *conn = term->conn + e * nv;
      PetscInt   g[24];
      for (int a = 0; a < nv; a++) {
        const PetscInt lv = conn[a], gv = lv < E->n ? E->rstart + lv : E->local.ghosts[lv - E->n];
        for (int d = 0; d < dof; d++) g[a * dof + d] = fixed[lv * dof + d] ? -1 : gv * dof + d;
      }
      for (int i = 0; i < mo; i++)
        for (int j = 0; j < N; j++, k++) {
          ci[k] = g[j] < 0 ? -1 : rstart + offset[t] + term->order[e] * mo + i;
          cj[k] = g[j];
        }
    }
  }
  PetscCall(PetscFree(fixed));
  PetscCall(PetscFree(offset));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)E), J));
  PetscCall(MatSetSizes(*J, m, E->n * dof, M, E->N * dof));
  PetscCall(MatSetType(*J, MATAIJ));
  PetscCall(MatSetPreallocationCOO(*J, ncoo, ci, cj));
  PetscCall(PetscFree2(ci, cj));
  PetscCall(PetscNew(&c));
  PetscCall(MfadEnergyReference(E));
  c->E           = E;
  c->setup_count = E->local.count;
  c->elements_state = E->dyn.elements_state;
  c->fixed_count = E->local.fixed_count;
  c->nvalues     = ncoo;
  PetscCall(PetscMalloc1(ncoo, &c->values));
  PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)E), &holder));
  PetscCall(PetscContainerSetPointer(holder, c));
  PetscCall(MfadContainerSetCtxDestroy(holder, MfadResidualJacobianDestroy_Private));
  PetscCall(PetscObjectCompose((PetscObject)*J, "MfadResidualJacobian", (PetscObject)holder));
  PetscCall(PetscContainerDestroy(&holder));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyComputeResidualJacobian(MfadEnergy E, Vec X, Mat J)
{
  MfadResidualJacobian *c = NULL;
  PetscContainer        holder;

  PetscFunctionBegin;
  PetscCall(MfadEnergyPrepare_Private(E, X, "MfadEnergyComputeResidualJacobian"));
  PetscValidHeaderSpecific(J, MAT_CLASSID, 3);
  PetscCall(PetscObjectQuery((PetscObject)J, "MfadResidualJacobian", (PetscObject *)&holder));
  if (holder) PetscCall(PetscContainerGetPointer(holder, (void **)&c));
  PetscCheck(c && c->E == E, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_WRONG,
             "MfadEnergyComputeResidualJacobian: the matrix was not made by MfadEnergyCreateResidualJacobian() for this energy");
  PetscCheck(c->setup_count == E->local.count && c->fixed_count == E->local.fixed_count && c->elements_state == E->dyn.elements_state,
             PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_WRONGSTATE,
             "MfadEnergyComputeResidualJacobian: the energy's terms, element sets or fixed dofs changed since the matrix was made; make it again");
  PetscCall(PetscLogEventBegin(MFAD_ResidualJacobianEvent, 0, 0, 0, 0));
  MfadBackendCall(E, residualjacobian, "least-squares residual's Jacobian", (E, c->values));
  PetscCall(MatSetValuesCOO(J, c->values, INSERT_VALUES));
  PetscCall(PetscLogEventEnd(MFAD_ResidualJacobianEvent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CPU's: each least-squares term's sqrt(w) J_e into values, in the matrix's COO order */
PetscErrorCode MfadEnergyResidualJacobian_CPU(MfadEnergy E, PetscScalar values[])
{
  const PetscScalar *x;
  PetscCount         k = 0;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(E->local.xloc, &x));
  for (PetscInt t = 0; t < E->nterms; t++) {
    MfadTerm *term = &E->terms[t];
    MfadLoop  L;
    if (!MfadTermIsLeastSquares_Private(term)) continue;
    if (term->nelem) {
      MfadResidualLoop_Private(E, term, x, NULL, values + k, &L);
      term->k->residual->cpu_jacobian(&L);
    }
    k += (PetscCount)term->nelem * term->k->nout * term->k->nvert * E->dof;
  }
  PetscCall(VecRestoreArrayRead(E->local.xloc, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}
