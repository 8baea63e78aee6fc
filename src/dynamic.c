// SPDX-License-Identifier: BSD-2-Clause
/* Dynamic element sets: a term's elements replaced between evaluations (contact pairs from a
   spatial search), given directly or by a provider that mfad calls at the points a solver chooses
   (MfadEnergyUpdateElements(): before each Newton step under SNES and TAO).
   After set-up a change costs the changed term's local numbering, element order and colouring
   only; the ghost exchange (local-to-global map, VecScatter, local vectors) is rebuilt only when
   the set of ghost vertices changed, and then the other terms' local connectivity is renumbered
   (their colouring stays valid: the renumbering is one-to-one). Explicit element Hessians are
   dropped; an assembled matrix compares its vertex-pair pattern at its next fill and is
   re-preallocated only when the pattern changed (src/assemble.c). Collective: every rank calls,
   possibly with 0 elements, because a ghost rebuild is. */
#include "mfadimpl.h"

/* The first problem with a new element set on this rank (msg empty if none) */
static PetscErrorCode MfadTermCheckElements_Private(MfadEnergy E, const MfadTerm *t, PetscInt nelem, const PetscInt conn[], const PetscReal params[],
                                                    char msg[], size_t len)
{
  const PetscInt nv = t->k->nvert, np = t->k->nparam;

  PetscFunctionBegin;
  msg[0] = 0;
  if (nelem < 0) {
    PetscCall(PetscSNPrintf(msg, len, "term '%s': MfadEnergySetTermElements: negative element count %" PetscInt_FMT, t->name, nelem));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if ((PetscInt64)nelem * nv >= PETSC_MAX_INT) {
    PetscCall(PetscSNPrintf(msg, len, "term '%s': MfadEnergySetTermElements: %" PetscInt_FMT " elements overflow PetscInt indexing", t->name, nelem));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (nelem > 0 && !conn) {
    PetscCall(PetscSNPrintf(msg, len, "term '%s': MfadEnergySetTermElements: %" PetscInt_FMT " elements but no connectivity", t->name, nelem));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (nelem > 0 && np > 0 && !params) {
    PetscCall(PetscSNPrintf(
        msg, len, "term '%s': MfadEnergySetTermElements: the kernel takes %" PetscInt_FMT " parameters per element but params is NULL", t->name, np));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt i = 0; i < nelem * nv; i++)
    if (conn[i] < 0 || conn[i] >= E->N) {
      const PetscInt e          = i / nv;
      char           verts[256] = "";
      for (PetscInt a = 0; a < nv; a++) {
        size_t l;
        PetscCall(PetscStrlen(verts, &l));
        PetscCall(PetscSNPrintf(verts + l, sizeof(verts) - l, "%s%" PetscInt_FMT, a ? " " : "", conn[e * nv + a]));
      }
      PetscCall(PetscSNPrintf(msg, len,
                              "term '%s': MfadEnergySetTermElements: element %" PetscInt_FMT " refers to vertex %" PetscInt_FMT
                              ", outside [0, %" PetscInt_FMT ") (vertices %s)",
                              t->name, e, conn[i], E->N, verts));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  for (PetscInt i = 0; i < nelem * np; i++)
    if (PetscIsInfOrNanReal(params[i])) {
      PetscCall(PetscSNPrintf(msg, len, "term '%s': MfadEnergySetTermElements: element %" PetscInt_FMT " parameter %" PetscInt_FMT " is %g", t->name,
                              i / np, i % np, (double)params[i]));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* New ghosts in place of the old: the ghost exchange again, the other terms' local connectivity
   renumbered, fixed dofs made local again. `ghosts` is taken. */
static PetscErrorCode MfadEnergyRebuildGhosts_Private(MfadEnergy E, PetscInt skip, PetscInt nghost, PetscInt *ghosts)
{
  PetscInt *old = E->local.ghosts, nold = E->local.nghost, nown = E->n;
  int      *map; /* old ghost g -> new local id */

  PetscFunctionBegin;
  E->local.ghosts = NULL; /* kept as `old` for the renumbering */
  PetscCall(MfadEnergySetUpGhosts_Private(E, nghost, ghosts));
  PetscCall(PetscMalloc1(nold, &map));
  for (PetscInt g = 0; g < nold; g++) {
    PetscInt pos;
    PetscCall(PetscFindInt(old[g], E->local.nghost, E->local.ghosts, &pos));
    map[g] = pos >= 0 ? (int)(nown + pos) : -1; /* -1: no longer used by any element */
  }
  for (PetscInt t = 0; t < E->nterms; t++) {
    MfadTerm *term = &E->terms[t];
    if (t == skip || !term->conn) continue;
    for (PetscInt i = 0; i < term->nelem * term->k->nvert; i++)
      if (term->conn[i] >= nown) {
        term->conn[i] = map[term->conn[i] - nown];
        PetscCheck(term->conn[i] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "term '%s': a ghost vertex vanished from the ghost set", term->name);
      }
    PetscCall(MfadTermSetOffsets_Private(E, term)); /* they follow conn */
  }
  PetscCall(PetscFree(map));
  PetscCall(PetscFree(old));
  PetscCall(MfadEnergySetUpFixed_Private(E)); /* fixed dofs' local ids follow the numbering */
  E->dyn.nghost_rebuilds++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetTermElements(MfadEnergy E, PetscInt term, PetscInt nelem, const PetscInt conn[], const PetscReal params[])
{
  MfadTerm *t;
  char      msg[512];
  PetscInt  bad, anybad;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(term >= 0 && term < E->nterms, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "MfadEnergySetTermElements: no term %" PetscInt_FMT " (the energy has %" PetscInt_FMT ")", term, E->nterms);
  t = &E->terms[term];
  /* every rank learns whether any rank's set is bad before anything changes: no rank goes on
     into the collective rebuild alone, and a refused set leaves the energy as it was */
  PetscCall(MfadTermCheckElements_Private(E, t, nelem, conn, params, msg, sizeof(msg)));
  bad = msg[0] ? 1 : 0;
  PetscCall(MPIU_Allreduce(&bad, &anybad, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)E)));
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s", msg);
  PetscCheck(!anybad, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "term '%s': MfadEnergySetTermElements: another rank gave an invalid element set (its message names it)", t->name);

  PetscCall(PetscLogEventBegin(MFAD_ElementSetEvent, 0, 0, 0, 0));
  if (E->local.done) PetscCall(MfadTermResetLocal_Private(t));
  PetscCall(PetscFree(t->conn_global));
  PetscCall(PetscFree(t->params));
  PetscCall(PetscMalloc1((size_t)nelem * t->k->nvert, &t->conn_global));
  PetscCall(PetscMalloc1((size_t)nelem * t->k->nparam, &t->params));
  if (nelem) PetscCall(PetscArraycpy(t->conn_global, conn, (size_t)nelem * t->k->nvert));
  if (nelem && t->k->nparam) PetscCall(PetscArraycpy(t->params, params, (size_t)nelem * t->k->nparam));
  t->nelem = nelem;
  t->nupdates++;
  E->dyn.nelem_updates++;
  E->dyn.elements_state++;
  E->dyn.elements_term = term;
  if (E->local.done) {
    PetscInt  nghost, *ghosts, changed, anychanged;
    PetscBool same;
    PetscCall(MfadEnergyCollectGhosts_Private(E, &nghost, &ghosts));
    same = (PetscBool)(nghost == E->local.nghost);
    if (same && nghost) PetscCall(PetscArraycmp(ghosts, E->local.ghosts, nghost, &same));
    changed = same ? 0 : 1;
    PetscCall(MPIU_Allreduce(&changed, &anychanged, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)E))); /* the VecScatter is collective */
    if (anychanged) PetscCall(MfadEnergyRebuildGhosts_Private(E, term, nghost, ghosts));
    else PetscCall(PetscFree(ghosts));
    PetscCall(MfadTermSetUpLocal_Private(E, t));
    /* element Hessians, the cache and their work space are sized by the element sets */
    PetscCall(MfadEnergyResetHessians_Private(E, PETSC_TRUE));
    if (E->ops->termchanged) PetscCall(E->ops->termchanged(E, term)); /* the backend's copies of its connectivity and parameters */
  }
  PetscCall(PetscLogEventEnd(MFAD_ElementSetEvent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetTermElementsFunction(MfadEnergy E, PetscInt term, PetscErrorCode (*fn)(MfadEnergy, PetscInt, Vec, void *), void *ctx)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(term >= 0 && term < E->nterms, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "MfadEnergySetTermElementsFunction: no term %" PetscInt_FMT " (the energy has %" PetscInt_FMT ")", term, E->nterms);
  E->terms[term].elements_fn  = fn;
  E->terms[term].elements_ctx = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyUpdateElements(MfadEnergy E, Vec X)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCall(MfadEnergyCheckVec_Private(E, X, 2, "MfadEnergyUpdateElements"));
  PetscCheck(!E->dyn.updating, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "MfadEnergyUpdateElements: called from inside a term's element provider (term '%s'): a provider gives its own term's elements with "
             "MfadEnergySetTermElements()",
             E->dyn.elements_term >= 0 && E->dyn.elements_term < E->nterms ? E->terms[E->dyn.elements_term].name : "?");
  for (PetscInt t = 0; t < E->nterms; t++) {
    PetscErrorCode ierr;
    if (!E->terms[t].elements_fn) continue;
    E->dyn.updating      = PETSC_TRUE;
    E->dyn.elements_term = t;
    ierr             = (*E->terms[t].elements_fn)(E, t, X, E->terms[t].elements_ctx);
    E->dyn.updating      = PETSC_FALSE;
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyHasElementsFunction(MfadEnergy E, PetscBool *flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  MfadValidPointer(flg, 2);
  *flg = PETSC_FALSE;
  for (PetscInt t = 0; t < E->nterms; t++)
    if (E->terms[t].elements_fn) *flg = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetElementsState(MfadEnergy E, PetscInt *state)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  MfadValidPointer(state, 2);
  *state = E->dyn.elements_state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetTermElements(MfadEnergy E, PetscInt term, PetscInt *nelem, const PetscInt *conn[])
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(term >= 0 && term < E->nterms, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "MfadEnergyGetTermElements: no term %" PetscInt_FMT " (the energy has %" PetscInt_FMT ")", term, E->nterms);
  if (nelem) *nelem = E->terms[term].nelem;
  if (conn) *conn = E->terms[term].conn_global;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetElementsCounts(MfadEnergy E, PetscInt *updates, PetscInt *ghost_rebuilds, PetscInt *repreallocations, PetscInt *kept)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  if (updates) *updates = E->dyn.nelem_updates;
  if (ghost_rebuilds) *ghost_rebuilds = E->dyn.nghost_rebuilds;
  if (repreallocations) *repreallocations = E->dyn.npattern_builds;
  if (kept) *kept = E->dyn.npattern_kept;
  PetscFunctionReturn(PETSC_SUCCESS);
}
