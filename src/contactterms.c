// SPDX-License-Identifier: BSD-2-Clause
/* MfadEnergyAddContact: a contact detector's pairs as two terms of an energy, detected anew at
   each Newton step (an element provider), and its continuous-collision bound on each step
   (MfadEnergyComputeContactBound_Private(), which the SNES line-search pre-check applies with the
   energies' walls). What petsc-examples/contactstep.c did for cloth and drop, for every program. */
#include "mfadimpl.h"
#include "contactimpl.h"

struct _n_MfadContactTerms {
  MfadContact C;       /* referenced */
  PetscInt    pt, ee;  /* the terms */
  VecScatter  scatter; /* E's global vector -> this rank's surface coordinates */
  Vec         xs, dxs; /* sequential, 3 per surface vertex */
  PetscInt    detections;
};

/* this rank's surface coordinates (owned and ghost vertices) from a global vector */
static PetscErrorCode MfadContactTermsGather_Private(MfadContactTerms ct, Vec X, Vec xs)
{
  PetscFunctionBegin;
  PetscCall(VecScatterBegin(ct->scatter, X, xs, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(ct->scatter, X, xs, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the element provider of the point-triangle term; it sets both pair terms */
static PetscErrorCode MfadContactTermsProvide_Private(MfadEnergy E, PetscInt term, Vec X, void *ctx)
{
  MfadContactTerms   ct = (MfadContactTerms)ctx;
  const PetscScalar *x;
  const PetscInt    *conn;
  const PetscReal   *par;
  PetscInt           n;

  PetscFunctionBegin;
  (void)term;
  PetscCall(MfadContactTermsGather_Private(ct, X, ct->xs));
  PetscCall(VecGetArrayRead(ct->xs, &x));
  PetscCall(MfadContactDetect(ct->C, x));
  PetscCall(VecRestoreArrayRead(ct->xs, &x));
  PetscCall(MfadContactGetPairs(ct->C, MFAD_CONTACT_POINT_TRIANGLE, &n, &conn, &par));
  PetscCall(MfadEnergySetTermElements(E, ct->pt, n, conn, par));
  PetscCall(MfadContactGetPairs(ct->C, MFAD_CONTACT_EDGE_EDGE, &n, &conn, &par));
  PetscCall(MfadEnergySetTermElements(E, ct->ee, n, conn, par));
  ct->detections++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyAddContact(MfadEnergy E, MfadContact C, PetscInt *pt, PetscInt *ee)
{
  MfadContactTerms ct;
  MfadKernel       kpt, kee;
  IS               is;
  Vec              X;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  MfadValidPointer(C, 2);
  PetscCheck(!E->contact, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_WRONGSTATE,
             "MfadEnergyAddContact: the energy has a contact already (one per energy: give one detector the whole surface)");
  PetscCheck(E->dof == 3, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_WRONG,
             "MfadEnergyAddContact: contact is between 3-D positions: the energy has %" PetscInt_FMT " unknowns per vertex, not 3", E->dof);
  PetscCheck(C->surface_set && C->dhat > 0, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_WRONGSTATE,
             "MfadEnergyAddContact: set the detector's surface and barrier first (MfadContactSetSurface(), MfadContactSetBarrier())");
  PetscCall(PetscNew(&ct));
  ct->C = C;
  C->refct++;
  PetscCall(MfadKernelFind("ipc_point_triangle", &kpt));
  PetscCall(MfadKernelFind("ipc_edge_edge", &kee));
  /* empty until the first Newton step (or MfadEnergyUpdateElements()) detects */
  PetscCall(MfadEnergyAddTerm(E, kpt, 0, NULL, NULL, 1.0, &ct->pt));
  PetscCall(MfadEnergyAddTerm(E, kee, 0, NULL, NULL, 1.0, &ct->ee));
  PetscCall(MfadEnergySetTermName(E, ct->pt, "contact point-triangle"));
  PetscCall(MfadEnergySetTermName(E, ct->ee, "contact edge-edge"));
  PetscCall(MfadEnergySetTermElementsFunction(E, ct->pt, MfadContactTermsProvide_Private, ct));
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  PetscCall(ISCreateBlock(PETSC_COMM_SELF, 3, C->nv, C->gid, PETSC_COPY_VALUES, &is));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 3 * C->nv, &ct->xs));
  PetscCall(VecDuplicate(ct->xs, &ct->dxs));
  PetscCall(VecScatterCreate(X, is, ct->xs, NULL, &ct->scatter));
  PetscCall(ISDestroy(&is));
  PetscCall(VecDestroy(&X));
  E->contact = ct;
  if (pt) *pt = ct->pt;
  if (ee) *ee = ct->ee;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The contact's two terms and the surface vertices (global ids) whose pairs they may hold: the
   set-up's untouched-vertex check counts those as touched. *pt = *ee = -1 without a contact. */
PetscErrorCode MfadEnergyGetContactSurface_Private(MfadEnergy E, PetscInt *pt, PetscInt *ee, PetscInt *nv, const PetscInt **gid)
{
  PetscFunctionBegin;
  *pt = *ee = -1;
  *nv       = 0;
  *gid      = NULL;
  if (E->contact) {
    *pt  = E->contact->pt;
    *ee  = E->contact->ee;
    *nv  = E->contact->C->nv;
    *gid = E->contact->C->gid;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetContactDetections(MfadEnergy E, PetscInt *n)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *n = E->contact ? E->contact->detections : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The largest step alpha in [0, 1] along D from X that keeps every pair apart (MfadContactStepBound(),
   conservative: it keeps about a tenth of each distance); 1 without a contact. Collective. */
PetscErrorCode MfadEnergyComputeContactBound_Private(MfadEnergy E, Vec X, Vec D, PetscReal *alpha)
{
  MfadContactTerms   ct = E->contact;
  const PetscScalar *x, *dx;

  PetscFunctionBegin;
  *alpha = 1.0;
  if (!ct) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadContactTermsGather_Private(ct, X, ct->xs));
  PetscCall(MfadContactTermsGather_Private(ct, D, ct->dxs));
  PetscCall(VecGetArrayRead(ct->xs, &x));
  PetscCall(VecGetArrayRead(ct->dxs, &dx));
  PetscCall(MfadContactStepBound(ct->C, x, dx, alpha));
  PetscCall(VecRestoreArrayRead(ct->dxs, &dx));
  PetscCall(VecRestoreArrayRead(ct->xs, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyDestroyContact_Private(MfadEnergy E)
{
  MfadContactTerms ct = E->contact;

  PetscFunctionBegin;
  if (!ct) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadContactDestroy(&ct->C));
  PetscCall(VecScatterDestroy(&ct->scatter));
  PetscCall(VecDestroy(&ct->xs));
  PetscCall(VecDestroy(&ct->dxs));
  PetscCall(PetscFree(E->contact));
  PetscFunctionReturn(PETSC_SUCCESS);
}
