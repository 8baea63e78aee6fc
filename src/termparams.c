// SPDX-License-Identifier: BSD-2-Clause
/* Changing a term's per-element parameters between solves (time stepping: the inertia term's
   predicted positions, moving pin targets), without a new set-up. */
#include "mfadimpl.h"

PetscErrorCode MfadEnergySetTermParams(MfadEnergy E, PetscInt term, const PetscReal params[])
{
  MfadTerm *t;
  PetscInt  np;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(term >= 0 && term < E->nterms, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergySetTermParams: no term %" PetscInt_FMT " (the energy has %" PetscInt_FMT ")", term,
             E->nterms);
  t  = &E->terms[term];
  np = t->k->nparam;
  PetscCheck(t->nelem == 0 || np == 0 || params, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadEnergySetTermParams: term '%s' takes %" PetscInt_FMT " parameters per element but params is NULL",
             t->name, np);
  for (PetscInt i = 0; i < t->nelem * np; i++)
    PetscCheck(!PetscIsInfOrNanReal(params[i]), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "term '%s': element %" PetscInt_FMT " parameter %" PetscInt_FMT " is %g", t->name, i / np, i % np,
               (double)params[i]);
  /* after set-up the parameters are kept in the loop's element order */
  for (PetscInt e = 0; e < t->nelem; e++) {
    const PetscInt o = E->local.done && t->order ? t->order[e] : e;
    for (PetscInt p = 0; p < np; p++) t->params[e * np + p] = params[o * np + p];
  }
  /* explicit element Hessians depend on the parameters: recompute them at the next request */
  E->caches.hess_key.valid  = PETSC_FALSE;
  E->caches.cache_key.valid = PETSC_FALSE;
  E->caches.pairs_key.valid = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
