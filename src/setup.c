// SPDX-License-Identifier: BSD-2-Clause
/* MfadEnergySetUp: local numbering (owned vertices, then ghosts), ghost exchange through a
   PETSc VecScatter, element order and block colouring per term; fixed dofs made local. */
#include <limits.h>
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
  if (E->opt.reorder && t->nelem > 1) {
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

/* An element refers to a vertex outside [0, N): an error on every rank (one rank's error alone
   would leave the others waiting in the set-up's collectives), naming the lowest such element of
   the term by its global number (elements numbered rank by rank in the order each rank gave them,
   as MfadEnergyDescribeInvalid_Private() does: rank 2's element 0 is not the term's element 0).
   Collective. */
static PetscErrorCode MfadTermCheckRange_Private(MfadEnergy E, MfadTerm *term)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)E);
  PetscMPIInt rank;
  PetscInt    bad = -1, offset = 0, mine, gbad, owner, who = -1;
  char        msg[512] = "";

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  for (PetscInt i = 0; i < term->nelem * term->k->nvert && bad < 0; i++)
    if (PetscUnlikely(term->conn_global[i] < 0 || term->conn_global[i] >= E->N)) bad = i / term->k->nvert;
  PetscCallMPI(MPI_Exscan(&term->nelem, &offset, 1, MPIU_INT, MPI_SUM, comm));
  if (rank == 0) offset = 0;
  mine = bad >= 0 ? offset + bad : PETSC_MAX_INT;
  PetscCall(MPIU_Allreduce(&mine, &gbad, 1, MPIU_INT, MPI_MIN, comm));
  if (gbad == PETSC_MAX_INT) PetscFunctionReturn(PETSC_SUCCESS);
  if (mine == gbad) {
    char     verts[256];
    PetscInt v = -1;
    for (PetscInt a = 0; a < term->k->nvert && v < 0; a++) {
      const PetscInt w = term->conn_global[bad * term->k->nvert + a];
      if (w < 0 || w >= E->N) v = w;
    }
    PetscCall(MfadEnergyFormatElement_Private(term, bad, verts, sizeof(verts)));
    PetscCall(PetscSNPrintf(msg, sizeof(msg),
                            "term '%s': element %" PetscInt_FMT " refers to vertex %" PetscInt_FMT ", outside [0, %" PetscInt_FMT ") (vertices %s)",
                            term->name, gbad, v, E->N, verts));
    who = rank;
  }
  PetscCall(MPIU_Allreduce(&who, &owner, 1, MPIU_INT, MPI_MAX, comm));
  PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, (PetscMPIInt)owner, comm));
  SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "%s", msg);
}

/* The sorted global ids of the vertices this rank's elements (all terms) use but do not own;
   ids were checked to be in range (MfadTermCheckRange_Private(), MfadEnergySetTermElements()). */
PetscErrorCode MfadEnergyCollectGhosts_Private(MfadEnergy E, PetscInt *nghost, PetscInt **ghosts)
{
  PetscInt  nref = 0, *ref;
  PetscInt  rend = E->rstart + E->n;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < E->nterms; t++) nref += E->terms[t].nelem * E->terms[t].k->nvert;
  PetscCall(PetscMalloc1(nref, &ref));
  nref = 0;
  for (PetscInt t = 0; t < E->nterms; t++) {
    MfadTerm *term = &E->terms[t];
    for (PetscInt i = 0; i < term->nelem * term->k->nvert; i++) {
      const PetscInt v = term->conn_global[i];
      if (v < E->rstart || v >= rend) ref[nref++] = v;
    }
  }
  PetscCall(PetscSortRemoveDupsInt(&nref, ref));
  *nghost = nref;
  *ghosts = ref;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Local numbering (owned vertices, then the sorted ghosts, whose array E takes) and the ghost
   exchange: local-to-global map, local vectors, VecScatter. Drops the previous ones. */
PetscErrorCode MfadEnergySetUpGhosts_Private(MfadEnergy E, PetscInt nghost, PetscInt *ghosts)
{
  PetscInt *gids;
  const int dof = (int)E->dof;
  IS        is;

  PetscFunctionBegin;
  PetscCall(PetscFree(E->local.ghosts));
  PetscCall(ISLocalToGlobalMappingDestroy(&E->local.ltog));
  PetscCall(VecDestroy(&E->local.xloc));
  PetscCall(VecDestroy(&E->local.vloc));
  PetscCall(VecDestroy(&E->local.yloc));
  PetscCall(VecScatterDestroy(&E->local.scatter));
  PetscCall(VecScatterDestroy(&E->local.ghostscatter));
  PetscCall(PetscFree(E->local.blockloc));
  E->local.nghost = nghost;
  E->local.ghosts = ghosts;
  E->local.nlocal = E->n + E->local.nghost;
  E->local.xvalid = PETSC_FALSE;
  PetscCheck((PetscInt64)E->local.nlocal * dof * dof < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "%" PetscInt_FMT " local vertices overflow 32-bit local indices", E->local.nlocal);
  PetscCall(PetscMalloc1(E->local.nlocal, &gids));
  for (PetscInt i = 0; i < E->n; i++) gids[i] = E->rstart + i;
  for (PetscInt i = 0; i < E->local.nghost; i++) gids[E->n + i] = E->local.ghosts[i];
  PetscCall(ISLocalToGlobalMappingCreate(PETSC_COMM_SELF, dof, E->local.nlocal, gids, PETSC_COPY_VALUES, &E->local.ltog));
  PetscCall(ISCreateBlock(PETSC_COMM_SELF, dof, E->local.nlocal, gids, PETSC_OWN_POINTER, &is));
  if (!E->local.xglob) PetscCall(MfadEnergyCreateVecs(E, &E->local.xglob, NULL));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, E->local.nlocal * dof, &E->local.xloc));
  { /* the backend's: on the device, the ghost exchange stays on the GPU */
    VecType type;
    MfadBackendCall(E, localvectype, "local vector type", (E, &type));
    PetscCall(VecSetType(E->local.xloc, type));
  }
  PetscCall(VecDuplicate(E->local.xloc, &E->local.vloc));
  PetscCall(VecDuplicate(E->local.xloc, &E->local.yloc));
  PetscCall(VecScatterCreate(E->local.xglob, is, E->local.xloc, NULL, &E->local.scatter));
  PetscCall(ISDestroy(&is));
  { /* owned vertices first, in order: with no ghosts on any rank (one rank) the local vectors are
       the rank's part of the global ones, and operations lend them the caller's arrays */
    PetscInt  maxghost;
    PetscBool host;
    PetscCall(MPIU_Allreduce(&E->local.nghost, &maxghost, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)E)));
    PetscCall(PetscObjectTypeCompare((PetscObject)E->local.xloc, VECSEQ, &host));
    E->local.inplace = !maxghost && host ? PETSC_TRUE : PETSC_FALSE;
    E->local.vlent = E->local.ylent = NULL;
    if (maxghost && host) { /* the ghost entries alone: an output's owned part is copied, its ghosts added (src/compute.c) */
      IS from, to;
      PetscCall(ISCreateBlock(PETSC_COMM_SELF, dof, E->local.nghost, E->local.ghosts, PETSC_COPY_VALUES, &from));
      PetscCall(ISCreateStride(PETSC_COMM_SELF, E->local.nghost * dof, E->n * dof, 1, &to));
      PetscCall(VecScatterCreate(E->local.xglob, from, E->local.xloc, to, &E->local.ghostscatter));
      PetscCall(ISDestroy(&from));
      PetscCall(ISDestroy(&to));
    }
  }
  PetscCall(PetscMalloc1((size_t)E->local.nlocal * dof * dof, &E->local.blockloc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Drops a term's local connectivity, element order and colouring, putting its parameters back in
   the caller's element order. */
PetscErrorCode MfadTermResetLocal_Private(MfadTerm *term)
{
  const int np = term->k->nparam;

  PetscFunctionBegin;
  if (term->order && np && term->nelem) {
    double *params;
    PetscCall(PetscMalloc1((size_t)term->nelem * np, &params));
    for (PetscInt e = 0; e < term->nelem; e++)
      for (int q = 0; q < np; q++) params[term->order[e] * np + q] = term->params[e * np + q];
    PetscCall(PetscFree(term->params));
    term->params = params;
  }
  PetscCall(PetscFree(term->conn));
  PetscCall(PetscFree(term->voff));
  PetscCall(PetscFree(term->order));
  PetscCall(PetscFree(term->row));
  PetscCall(PetscFree(term->block_start));
  PetscCall(PetscFree(term->color_start));
  PetscCall(PetscFree(term->color_blocks));
  PetscCall(PetscFree(term->block_value));
  term->nblocks = term->ncolors = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A term's vertex byte offsets (MfadLoop.voff) from its local connectivity, for a kernel whose CPU
   loops run on SIMD lanes; none where an offset would not fit an int (the lanes compute it from
   conn then) */
PetscErrorCode MfadTermSetOffsets_Private(MfadEnergy E, MfadTerm *term)
{
  const PetscInt n = term->nelem * term->k->nvert, stride = E->dof * (PetscInt)sizeof(double);

  PetscFunctionBegin;
  PetscCall(PetscFree(term->voff));
  if (!term->k->lanes || !term->conn || n == 0 || (double)E->local.nlocal * stride > (double)INT_MAX) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(n, &term->voff));
  for (PetscInt i = 0; i < n; i++) term->voff[i] = (int)(term->conn[i] * stride);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A term's local connectivity in the current numbering, element order and block colouring; its
   parameters go from the caller's element order to the loop's. */
PetscErrorCode MfadTermSetUpLocal_Private(MfadEnergy E, MfadTerm *term)
{
  const int      nv = term->k->nvert, np = term->k->nparam;
  const PetscInt rend = E->rstart + E->n;
  int           *lconn;
  double        *params;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1((size_t)term->nelem * nv, &lconn));
  for (PetscInt i = 0; i < term->nelem * nv; i++) {
    const PetscInt v = term->conn_global[i];
    PetscInt       g;
    if (v >= E->rstart && v < rend) lconn[i] = (int)(v - E->rstart);
    else {
      PetscCall(PetscFindInt(v, E->local.nghost, E->local.ghosts, &g));
      PetscCheck(g >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "term '%s': vertex %" PetscInt_FMT " is not a ghost", term->name, v);
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
  PetscCall(MfadTermSetOffsets_Private(E, term));
  PetscCall(MfadColourBlocks_Private(term->nelem, nv, term->conn, E->local.nlocal, E->opt.block_size, &term->nblocks, &term->block_start,
                                     &term->ncolors, &term->color_start, &term->color_blocks));
  PetscCall(PetscMalloc1(term->nblocks, &term->block_value));
  term->parallel = 0; /* threads only pay off where a colour gives them separate blocks */
  for (int c = 0; c < term->ncolors; c++) term->parallel |= term->color_start[c + 1] - term->color_start[c] > 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetUp(MfadEnergy E)
{
  PetscInt  nghost, *ghosts;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  if (E->local.done) {
    if (!E->local.fixed_done) PetscCall(MfadEnergySetUpFixed_Private(E));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(MFAD_SetUpEvent, 0, 0, 0, 0));
  if (!E->opt.from_options) PetscCall(MfadEnergySetFromOptions(E));
  /* validate vertex ids and collect ghosts; then the ghost exchange */
  for (PetscInt t = 0; t < E->nterms; t++) PetscCall(MfadTermCheckRange_Private(E, &E->terms[t]));
  PetscCall(MfadEnergyCollectGhosts_Private(E, &nghost, &ghosts));
  PetscCall(MfadEnergySetUpGhosts_Private(E, nghost, ghosts));
  /* per term: local connectivity, element order, colouring */
  for (PetscInt t = 0; t < E->nterms; t++) PetscCall(MfadTermSetUpLocal_Private(E, &E->terms[t]));
  E->local.done   = PETSC_TRUE;
  E->local.xvalid = PETSC_FALSE;
  E->local.count++;
  PetscCall(MfadEnergySetUpFixed_Private(E));
  if (E->ops->setup) PetscCall(E->ops->setup(E)); /* the backend's own set-up, after the core's */
  PetscCall(PetscLogEventEnd(MFAD_SetUpEvent, 0, 0, 0, 0));
  /* -mfad_view in every program, once per set-up (PETSc's -xxx_view at set-up): ghosts, colouring
     and the load balance exist now; the flops per element once an evaluation counted them */
  PetscCall(PetscObjectViewFromOptions((PetscObject)E, NULL, "-mfad_view"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fixed dofs named on any rank become, on every rank, a list of local dofs (owned ones first)
   with their values: PETSc's assembly moves them to the owner, the ghost scatter to the users. */
PetscErrorCode MfadEnergySetUpFixed_Private(MfadEnergy E)
{
  Vec                mask, val, maskloc, valloc;
  const PetscScalar *m, *v;
  PetscInt           nloc = E->local.nlocal * E->dof, nown = E->n * E->dof, cnt = 0;
  PetscScalar       *ones;

  PetscFunctionBegin;
  PetscCall(PetscFree2(E->local.fixloc, E->local.fixval));
  PetscCall(VecDuplicate(E->local.xglob, &mask));
  PetscCall(VecDuplicate(E->local.xglob, &val));
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
  PetscCall(VecDuplicate(E->local.xloc, &maskloc));
  PetscCall(VecDuplicate(E->local.xloc, &valloc));
  PetscCall(VecScatterBegin(E->local.scatter, mask, maskloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(E->local.scatter, mask, maskloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterBegin(E->local.scatter, val, valloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(E->local.scatter, val, valloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(maskloc, &m));
  PetscCall(VecGetArrayRead(valloc, &v));
  for (PetscInt i = 0; i < nloc; i++) cnt += m[i] != 0.0;
  PetscCall(PetscMalloc2(cnt, &E->local.fixloc, cnt, &E->local.fixval));
  E->local.nfixloc = cnt;
  cnt        = 0;
  E->local.nfixown = 0;
  for (PetscInt i = 0; i < nloc; i++)
    if (m[i] != 0.0) {
      E->local.fixloc[cnt]   = i;
      E->local.fixval[cnt++] = v[i];
      if (i < nown) E->local.nfixown = cnt;
    }
  PetscCall(VecRestoreArrayRead(maskloc, &m));
  PetscCall(VecRestoreArrayRead(valloc, &v));
  PetscCall(VecDestroy(&mask));
  PetscCall(VecDestroy(&val));
  PetscCall(VecDestroy(&maskloc));
  PetscCall(VecDestroy(&valloc));
  E->local.fixed_done = PETSC_TRUE;
  E->local.xvalid     = PETSC_FALSE;
  E->local.fixed_count++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Free dofs in no element of any term: an unknown that no energy touches is an empty row of
   every Hessian, and Newton's linear solve fails at its first step without naming it (a disk OBJ
   with one vertex in no face made param stop with DIVERGED_LINEAR_SOLVE; issue 46). Refused, the
   lowest such vertex named on every rank, by the solvers' glue at the first Hessian of a solve
   (shell/): an energy that is one part of a larger objective (petsc-examples/bilaplacian.c) or
   that a gradient-only method minimises may leave vertices alone. The contact's surface vertices
   count as touched (its pairs may hold them); a term whose elements are not known (another
   element provider, or no elements on any rank: a dynamic term given its elements later) may
   touch any vertex, so there is no check then (-info says so). Collective. */
PetscErrorCode MfadEnergyCheckUntouched_Private(MfadEnergy E)
{
  Vec                used, usedloc;
  PetscScalar       *ul;
  const PetscScalar *u;
  PetscBool         *fixed;
  const PetscInt    *gid;
  PetscInt           pt, ee, nsurf, unknown = -1, first = PETSC_MAX_INT, count = 0, gfirst, gcount, dof = E->dof;
  MPI_Comm           comm = PetscObjectComm((PetscObject)E);

  PetscFunctionBegin;
  PetscCall(MfadEnergySetUp(E));
  PetscCall(MfadEnergyGetContactSurface_Private(E, &pt, &ee, &nsurf, &gid));
  for (PetscInt t = 0; t < E->nterms && unknown < 0; t++) {
    PetscInt nelem;
    if (t == pt || t == ee) continue;
    PetscCall(MPIU_Allreduce(&E->terms[t].nelem, &nelem, 1, MPIU_INT, MPI_SUM, comm));
    if (E->terms[t].elements_fn || !nelem) unknown = t;
  }
  if (unknown >= 0) {
    PetscCall(PetscInfo(E, "no check for vertices in no element: term '%s' %s\n", E->terms[unknown].name,
                        E->terms[unknown].elements_fn ? "has an element provider" : "has no elements yet"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecDuplicate(E->local.xglob, &used));
  PetscCall(VecZeroEntries(used));
  for (PetscInt i = 0; i < nsurf; i++)
    for (PetscInt d = 0; d < dof; d++) PetscCall(VecSetValue(used, gid[i] * dof + d, 1.0, ADD_VALUES));
  PetscCall(VecAssemblyBegin(used));
  PetscCall(VecAssemblyEnd(used));
  PetscCall(VecDuplicate(E->local.xloc, &usedloc));
  PetscCall(VecZeroEntries(usedloc));
  PetscCall(VecGetArray(usedloc, &ul));
  for (PetscInt t = 0; t < E->nterms; t++)
    for (PetscInt i = 0; i < E->terms[t].nelem * E->terms[t].k->nvert; i++)
      for (PetscInt d = 0; d < dof; d++) ul[E->terms[t].conn[i] * dof + d] = 1.0;
  PetscCall(VecRestoreArray(usedloc, &ul));
  PetscCall(VecScatterBegin(E->local.scatter, usedloc, used, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(E->local.scatter, usedloc, used, ADD_VALUES, SCATTER_REVERSE));
  /* the owned fixed dofs: the first nfixown local fixed dofs, owned local dof i is global rstart dof + i */
  PetscCall(PetscCalloc1(E->n * dof, &fixed));
  for (PetscInt i = 0; i < E->local.nfixown; i++) fixed[E->local.fixloc[i]] = PETSC_TRUE;
  PetscCall(VecGetArrayRead(used, &u));
  for (PetscInt v = 0; v < E->n; v++) {
    PetscBool bad = PETSC_FALSE;
    for (PetscInt d = 0; d < dof; d++) bad = (PetscBool)(bad || (u[v * dof + d] == 0.0 && !fixed[v * dof + d]));
    if (bad) {
      first = PetscMin(first, E->rstart + v);
      count++;
    }
  }
  PetscCall(VecRestoreArrayRead(used, &u));
  PetscCall(PetscFree(fixed));
  PetscCall(VecDestroy(&usedloc));
  PetscCall(VecDestroy(&used));
  PetscCall(MPIU_Allreduce(&first, &gfirst, 1, MPIU_INT, MPI_MIN, comm));
  PetscCall(MPIU_Allreduce(&count, &gcount, 1, MPIU_INT, MPI_SUM, comm));
  PetscCheck(gfirst == PETSC_MAX_INT, comm, PETSC_ERR_ARG_WRONG,
             "mfad: vertex %" PetscInt_FMT " (0-based; %" PetscInt_FMT
             " such vertices in all) is in no element of any term and not fixed: no energy touches it, so every Hessian has an empty row "
             "there and Newton's linear solve fails. Remove it from the mesh, fix its dofs (MfadEnergySetFixedDofs()) or add a term on it",
             gfirst, gcount);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCreateVecs(MfadEnergy E, Vec *X, Vec *G)
{
  Vec v;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCall(VecCreate(PetscObjectComm((PetscObject)E), &v));
  PetscCall(VecSetSizes(v, E->n * E->dof, E->N * E->dof));
  PetscCall(VecSetBlockSize(v, E->dof));
  PetscCall(VecSetFromOptions(v));
  if (X) PetscCall(VecDuplicate(v, X));
  if (G) PetscCall(VecDuplicate(v, G));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(PETSC_SUCCESS);
}
