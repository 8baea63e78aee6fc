// SPDX-License-Identifier: BSD-2-Clause
/* MfadEnergyComputeStepBound: the largest step along a direction before an element whose energy
   declares its wall (MfadEnergyInfo.step) leaves its domain, reduced over terms and ranks. Each
   element reads its own vertices from the ghosted local vectors: no gather of the whole vector. */
#include "mfadimpl.h"

PetscErrorCode MfadEnergyComputeStepBound(MfadEnergy E, Vec X, Vec D, PetscReal *t)
{
  const PetscScalar *x, *d;
  PetscScalar       *dl;
  PetscReal          tmin = PETSC_INFINITY;
  PetscBool          any  = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MfadEnergyPrepare_Private(E, X, "MfadEnergyComputeStepBound"));
  PetscCall(MfadEnergyCheckVec_Private(E, D, 3, "MfadEnergyComputeStepBound"));
  MfadValidPointer(t, 4);
  for (PetscInt k = 0; k < E->nterms; k++) any = (PetscBool)(any || E->terms[k].k->step);
  if (!any) { /* collective all the same: every rank has the same terms */
    *t = PETSC_INFINITY;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecScatterBegin(E->local.scatter, D, E->local.vloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(E->local.scatter, D, E->local.vloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArray(E->local.vloc, &dl));
  for (PetscInt i = 0; i < E->local.nfixloc; i++) dl[E->local.fixloc[i]] = 0; /* fixed dofs do not move */
  PetscCall(VecRestoreArray(E->local.vloc, &dl));
  PetscCall(VecGetArrayRead(E->local.xloc, &x));
  PetscCall(VecGetArrayRead(E->local.vloc, &d));
  for (PetscInt k = 0; k < E->nterms; k++) {
    const MfadTerm *term = &E->terms[k];
    const int       nv = term->k->nvert, dof = (int)E->dof, np = term->k->nparam;
    double          xe[24], de[24]; /* at most 24 unknowns per element (mfad-energy checks) */

    if (!term->k->step || term->weight == 0) continue;
    for (PetscInt e = 0; e < term->nelem; e++) {
      double s;
      for (int a = 0; a < nv; a++)
        for (int c = 0; c < dof; c++) {
          const PetscInt i = (PetscInt)term->conn[e * nv + a] * dof + c;
          xe[a * dof + c]  = PetscRealPart(x[i]);
          de[a * dof + c]  = PetscRealPart(d[i]);
        }
      s = term->k->step(xe, de, np ? &term->params[e * np] : NULL);
      if (s < tmin) tmin = s; /* a NaN bounds nothing */
    }
  }
  PetscCall(VecRestoreArrayRead(E->local.vloc, &d));
  PetscCall(VecRestoreArrayRead(E->local.xloc, &x));
  PetscCall(MPIU_Allreduce(&tmin, t, 1, MPIU_REAL, MPIU_MIN, PetscObjectComm((PetscObject)E)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCountStepCut_Private(MfadEnergy E)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  E->solve.step_cuts++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetStepCuts(MfadEnergy E, PetscInt *n)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *n = E->solve.step_cuts;
  PetscFunctionReturn(PETSC_SUCCESS);
}
