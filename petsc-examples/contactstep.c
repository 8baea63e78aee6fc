// SPDX-License-Identifier: BSD-2-Clause
/* Contact for the examples' time steppers: see contactstep.h. */
#include "contactstep.h"

PetscErrorCode ContactCreate(MfadEnergy E, PetscInt nv, const PetscInt gid[], const PetscReal rest[], PetscInt ntri, const PetscInt tri[],
                             PetscInt nedge, const PetscInt edge[], PetscInt npoint, const PetscInt point[], PetscReal dhat, PetscReal kappa,
                             const PetscReal centre[3], PetscReal radius, Contact *ct)
{
  MPI_Comm comm;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(ct, sizeof(*ct)));
  PetscCall(MfadEnergyGetComm(E, &comm));
  ct->E           = E;
  ct->radius      = radius;
  ct->sphere_term = -1;
  for (int i = 0; i < 3; i++) ct->centre[i] = centre ? centre[i] : 0;
  PetscCall(MfadContactCreate(comm, &ct->C));
  PetscCall(MfadContactSetSurface(ct->C, nv, gid, ntri, tri, nedge, edge, npoint, point));
  PetscCall(MfadContactSetBarrier(ct->C, dhat, kappa));
  PetscCall(MfadContactSetRestCoordinates(ct->C, rest));
  PetscCall(MfadEnergyAddContact(E, ct->C, &ct->pt, &ct->ee));
  if (radius > 0) { /* every point against the sphere: a static term, zero beyond dhat */
    MfadKernel ksph;
    PetscInt  *conn;
    PetscReal *par;
    PetscCall(MfadKernelFind("ipc_point_sphere", &ksph));
    PetscCall(PetscMalloc2(npoint, &conn, 6 * npoint, &par));
    for (PetscInt i = 0; i < npoint; i++) {
      conn[i] = gid[point[i]];
      for (int d = 0; d < 3; d++) par[6 * i + d] = centre[d];
      par[6 * i + 3] = radius;
      par[6 * i + 4] = dhat * dhat;
      par[6 * i + 5] = kappa;
    }
    PetscCall(MfadEnergyAddTerm(E, ksph, npoint, conn, par, 1.0, &ct->sphere_term));
    PetscCall(MfadEnergySetTermName(E, ct->sphere_term, "contact sphere"));
    PetscCall(PetscFree2(conn, par));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactMeasure(Contact *ct, Vec X, PetscReal *dpair, PetscReal *dsphere)
{
  const PetscScalar *x;
  PetscReal          ds = PETSC_MAX_REAL;
  PetscInt           m;

  PetscFunctionBeginUser;
  PetscCall(MfadEnergyUpdateElements(ct->E, X)); /* a detection at X */
  PetscCall(MfadContactGetMinimumDistance(ct->C, dpair));
  PetscCall(VecGetLocalSize(X, &m));
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt v = 0; ct->radius > 0 && v < m / 3; v++) {
    PetscReal r2 = 0;
    for (int i = 0; i < 3; i++) r2 += PetscSqr(PetscRealPart(x[3 * v + i]) - ct->centre[i]);
    ds = PetscMin(ds, PetscSqrtReal(r2) - ct->radius);
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ds, 1, MPIU_REAL, MPIU_MIN, PetscObjectComm((PetscObject)X)));
  *dsphere = ds;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactStepStart(Vec X, const PetscReal xold[])
{
  PetscScalar *x;
  PetscInt     m;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(X, &m));
  PetscCall(VecGetArray(X, &x));
  for (PetscInt l = 0; l < m; l++) x[l] = xold[l];
  PetscCall(VecRestoreArray(X, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactDestroy(Contact *ct)
{
  PetscFunctionBeginUser;
  PetscCall(MfadContactDestroy(&ct->C)); /* E keeps its reference */
  PetscFunctionReturn(PETSC_SUCCESS);
}
