// SPDX-License-Identifier: BSD-2-Clause
/* MfadEnergySetUp: local numbering (owned vertices, then ghosts), ghost exchange through a
   PETSc VecScatter, element order and block colouring per term; fixed dofs made local. */
#include "mfadimpl.h"
#include "cuda/mfadcuda.h"

static PetscErrorCode MfadEnergyFormatElement_Private(MfadTerm *t, PetscInt e, char *buf, size_t len)
{
  PetscFunctionBegin;
  buf[0] = 0;
  for (int a = 0; a < t->k->nvert; a++) {
    size_t l;
    PetscCall(PetscStrlen(buf, &l));
    PetscCall(PetscSNPrintf(buf + l, len - l, "%s%" PetscInt_FMT, a ? " " : "", t->conn_global[e * t->k->nvert + a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Element order for locality: by first local vertex (stable), so that coloured blocks of
   consecutive elements stay compact whatever order the caller used. */
static PetscErrorCode MfadTermOrder_Private(MfadEnergy E, MfadTerm *t, const int *conn_caller)
{
  const int nv = t->k->nvert;
  PetscInt *key;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(t->nelem, &t->order));
  for (PetscInt e = 0; e < t->nelem; e++) t->order[e] = e;
  if (E->reorder && t->nelem > 1) {
    PetscCall(PetscMalloc1(t->nelem, &key));
    for (PetscInt e = 0; e < t->nelem; e++) {
      int m = conn_caller[e * nv];
      for (int a = 1; a < nv; a++) m = PetscMin(m, conn_caller[e * nv + a]);
      key[e] = m;
    }
    PetscCall(PetscSortIntWithArray(t->nelem, key, t->order));
    /* PetscSortIntWithArray is not stable: make ties follow the caller's order */
    for (PetscInt s = 0; s < t->nelem;) {
      PetscInt f = s + 1;
      while (f < t->nelem && key[f] == key[s]) f++;
      if (f - s > 1) PetscCall(PetscSortInt(f - s, t->order + s));
      s = f;
    }
    PetscCall(PetscFree(key));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetUp(MfadEnergy E)
{
  PetscInt  nref = 0, *ref, rend, *gids;
  const int dof = (int)E->dof;
  IS        is;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  if (E->setup) {
    if (!E->fixed_setup) PetscCall(MfadEnergySetUpFixed_Private(E));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(MFAD_SetUpEvent, 0, 0, 0, 0));
  if (!E->from_options) PetscCall(MfadEnergySetFromOptions(E));
  rend = E->rstart + E->n;
  /* validate vertex ids and collect ghosts */
  for (PetscInt t = 0; t < E->nterms; t++) nref += E->terms[t].nelem * E->terms[t].k->nvert;
  PetscCall(PetscMalloc1(nref, &ref));
  nref = 0;
  for (PetscInt t = 0; t < E->nterms; t++) {
    MfadTerm *term = &E->terms[t];
    for (PetscInt i = 0; i < term->nelem * term->k->nvert; i++) {
      const PetscInt v = term->conn_global[i];
      if (PetscUnlikely(v < 0 || v >= E->N)) {
        char verts[256];
        PetscCall(MfadEnergyFormatElement_Private(term, i / term->k->nvert, verts, sizeof(verts)));
        PetscCall(PetscFree(ref));
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "term '%s': element %" PetscInt_FMT " refers to vertex %" PetscInt_FMT ", outside [0, %" PetscInt_FMT ") (vertices %s)", term->name, i / term->k->nvert, v, E->N, verts);
      }
      if (v < E->rstart || v >= rend) ref[nref++] = v;
    }
  }
  PetscCall(PetscSortRemoveDupsInt(&nref, ref));
  E->nghost = nref;
  E->ghosts = ref;
  E->nlocal = E->n + E->nghost;
  PetscCheck((PetscInt64)E->nlocal * dof * dof < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "%" PetscInt_FMT " local vertices overflow 32-bit local indices", E->nlocal);

  /* local -> global and the ghost exchange */
  PetscCall(PetscMalloc1(E->nlocal, &gids));
  for (PetscInt i = 0; i < E->n; i++) gids[i] = E->rstart + i;
  for (PetscInt i = 0; i < E->nghost; i++) gids[E->n + i] = E->ghosts[i];
  PetscCall(ISLocalToGlobalMappingCreate(PETSC_COMM_SELF, dof, E->nlocal, gids, PETSC_COPY_VALUES, &E->ltog));
  PetscCall(ISCreateBlock(PETSC_COMM_SELF, dof, E->nlocal, gids, PETSC_OWN_POINTER, &is));
  PetscCall(MfadEnergyCreateVecs(E, &E->xglob, NULL));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, E->nlocal * dof, &E->xloc));
  if (E->backend == MFAD_BACKEND_CUDA) { /* device local vectors: the ghost exchange stays on the GPU */
    VecType type;
    PetscCall(MfadEnergyLocalVecType_CUDA(E, &type));
    PetscCall(VecSetType(E->xloc, type));
  }
  PetscCall(VecDuplicate(E->xloc, &E->vloc));
  PetscCall(VecDuplicate(E->xloc, &E->yloc));
  PetscCall(VecScatterCreate(E->xglob, is, E->xloc, NULL, &E->scatter));
  PetscCall(ISDestroy(&is));
  PetscCall(PetscMalloc1((size_t)E->nlocal * dof * dof, &E->blockloc));

  /* per term: local connectivity, element order, colouring */
  for (PetscInt t = 0; t < E->nterms; t++) {
    MfadTerm *term = &E->terms[t];
    const int nv = term->k->nvert, np = term->k->nparam;
    int      *lconn;
    double   *params;
    PetscCall(PetscMalloc1((size_t)term->nelem * nv, &lconn));
    for (PetscInt i = 0; i < term->nelem * nv; i++) {
      const PetscInt v = term->conn_global[i];
      PetscInt       g;
      if (v >= E->rstart && v < rend) lconn[i] = (int)(v - E->rstart);
      else {
        PetscCall(PetscFindInt(v, E->nghost, E->ghosts, &g));
        lconn[i] = (int)(E->n + g);
      }
    }
    PetscCall(MfadTermOrder_Private(E, term, lconn));
    PetscCall(PetscMalloc1((size_t)term->nelem * nv, &term->conn));
    PetscCall(PetscMalloc1((size_t)term->nelem * np, &params));
    for (PetscInt e = 0; e < term->nelem; e++) {
      const PetscInt o = term->order[e];
      for (int a = 0; a < nv; a++) term->conn[e * nv + a] = lconn[o * nv + a];
      for (int p = 0; p < np; p++) params[e * np + p] = term->params[o * np + p];
    }
    /* keep parameters in loop order; conn_global stays in the caller's order */
    PetscCall(PetscFree(term->params));
    term->params = params;
    PetscCall(PetscFree(lconn));
    PetscCall(MfadColourBlocks_Private(term->nelem, nv, term->conn, E->nlocal, E->block_size, &term->nblocks, &term->block_start, &term->ncolors, &term->color_start, &term->color_blocks));
    PetscCall(PetscMalloc1(term->nblocks, &term->block_value));
    term->parallel = 0; /* threads only pay off where a colour gives them separate blocks */
    for (int c = 0; c < term->ncolors; c++) term->parallel |= term->color_start[c + 1] - term->color_start[c] > 1;
  }
  E->setup  = PETSC_TRUE;
  E->xvalid = PETSC_FALSE;
  E->setup_count++;
  PetscCall(MfadEnergySetUpFixed_Private(E));
  PetscCall(PetscLogEventEnd(MFAD_SetUpEvent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fixed dofs named on any rank become, on every rank, a list of local dofs (owned ones first)
   with their values: PETSc's assembly moves them to the owner, the ghost scatter to the users. */
PetscErrorCode MfadEnergySetUpFixed_Private(MfadEnergy E)
{
  Vec                mask, val, maskloc, valloc;
  const PetscScalar *m, *v;
  PetscInt           nloc = E->nlocal * E->dof, nown = E->n * E->dof, cnt = 0;
  PetscScalar       *ones;

  PetscFunctionBegin;
  PetscCall(PetscFree2(E->fixloc, E->fixval));
  PetscCall(VecDuplicate(E->xglob, &mask));
  PetscCall(VecDuplicate(E->xglob, &val));
  PetscCall(VecZeroEntries(mask));
  PetscCall(VecZeroEntries(val));
  PetscCall(PetscMalloc1(E->nfix_given, &ones));
  for (PetscInt i = 0; i < E->nfix_given; i++) ones[i] = 1.0;
  PetscCall(VecSetValues(mask, E->nfix_given, E->fix_given, ones, INSERT_VALUES));
  PetscCall(VecSetValues(val, E->nfix_given, E->fix_given, E->fix_given_val, INSERT_VALUES));
  PetscCall(PetscFree(ones));
  PetscCall(VecAssemblyBegin(mask));
  PetscCall(VecAssemblyEnd(mask));
  PetscCall(VecAssemblyBegin(val));
  PetscCall(VecAssemblyEnd(val));
  PetscCall(VecDuplicate(E->xloc, &maskloc));
  PetscCall(VecDuplicate(E->xloc, &valloc));
  PetscCall(VecScatterBegin(E->scatter, mask, maskloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(E->scatter, mask, maskloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterBegin(E->scatter, val, valloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(E->scatter, val, valloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(maskloc, &m));
  PetscCall(VecGetArrayRead(valloc, &v));
  for (PetscInt i = 0; i < nloc; i++) cnt += m[i] != 0.0;
  PetscCall(PetscMalloc2(cnt, &E->fixloc, cnt, &E->fixval));
  E->nfixloc = cnt;
  cnt        = 0;
  E->nfixown = 0;
  for (PetscInt i = 0; i < nloc; i++)
    if (m[i] != 0.0) {
      E->fixloc[cnt]   = i;
      E->fixval[cnt++] = v[i];
      if (i < nown) E->nfixown = cnt;
    }
  PetscCall(VecRestoreArrayRead(maskloc, &m));
  PetscCall(VecRestoreArrayRead(valloc, &v));
  PetscCall(VecDestroy(&mask));
  PetscCall(VecDestroy(&val));
  PetscCall(VecDestroy(&maskloc));
  PetscCall(VecDestroy(&valloc));
  E->fixed_setup = PETSC_TRUE;
  E->xvalid      = PETSC_FALSE;
  E->fixed_count++;
  PetscFunctionReturn(PETSC_SUCCESS);
}
