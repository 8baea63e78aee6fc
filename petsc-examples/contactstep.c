// SPDX-License-Identifier: BSD-2-Clause
/* Contact for the examples' time steppers: see contactstep.h. */
#include "contactstep.h"

/* this rank's surface coordinates (owned and ghost vertices) from the global X */
static PetscErrorCode ContactGather(Contact *ct, Vec X, Vec xs)
{
  PetscFunctionBeginUser;
  PetscCall(VecScatterBegin(ct->scatter, X, xs, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(ct->scatter, X, xs, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The element provider (on the point-triangle term; it sets both pair terms): pairs at X */
static PetscErrorCode ContactProvide(MfadEnergy E, PetscInt term, Vec X, void *ctx)
{
  Contact           *ct = (Contact *)ctx;
  const PetscScalar *x;
  const PetscInt    *conn;
  const PetscReal   *par;
  PetscInt           n;
  PetscReal          d;

  PetscFunctionBeginUser;
  (void)term;
  PetscCall(ContactGather(ct, X, ct->xs));
  PetscCall(VecGetArrayRead(ct->xs, &x));
  PetscCall(MfadContactDetect(ct->C, x));
  PetscCall(VecRestoreArrayRead(ct->xs, &x));
  PetscCall(MfadContactGetPairs(ct->C, MFAD_CONTACT_POINT_TRIANGLE, &n, &conn, &par));
  PetscCall(MfadEnergySetTermElements(E, ct->pt, n, conn, par));
  PetscCall(MfadContactGetPairs(ct->C, MFAD_CONTACT_EDGE_EDGE, &n, &conn, &par));
  PetscCall(MfadEnergySetTermElements(E, ct->ee, n, conn, par));
  PetscCall(MfadContactGetMinimumDistance(ct->C, &d));
  ct->dmin = PetscMin(ct->dmin, d);
  ct->detections++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The largest t in (0, 1] (times 0.9) before x + t dx enters the sphere; 1 if it does not */
static PetscReal SphereStep(const Contact *ct, const PetscScalar *x, const PetscScalar *dx)
{
  PetscReal alpha = 1.0;

  for (PetscInt v = 0; v < ct->nv; v++) {
    PetscReal r[3], a = 0, b = 0, c = -ct->radius * ct->radius;
    for (int i = 0; i < 3; i++) {
      r[i] = PetscRealPart(x[3 * v + i]) - ct->centre[i];
      a += PetscRealPart(dx[3 * v + i]) * PetscRealPart(dx[3 * v + i]);
      b += 2 * r[i] * PetscRealPart(dx[3 * v + i]);
      c += r[i] * r[i];
    }
    if (a > 0 && b < 0 && b * b - 4 * a * c >= 0) { /* moving towards the centre, the line meets the sphere */
      const PetscReal t = (-b - PetscSqrtReal(b * b - 4 * a * c)) / (2 * a);
      if (t >= 0 && t <= 1) alpha = PetscMin(alpha, 0.9 * t);
    }
  }
  return alpha;
}

/* SNES newtonls steps X - lambda Y: dx = -Y, capped where a pair would pass through or a vertex
   enter the sphere; the line search then backtracks from the capped step as from a full one */
static PetscErrorCode ContactPreCheck(SNESLineSearch ls, Vec X, Vec Y, PetscBool *changed, void *ctx)
{
  Contact           *ct = (Contact *)ctx;
  const PetscScalar *x, *dx;
  PetscReal          alpha, asph = 1.0;

  PetscFunctionBeginUser;
  *changed = PETSC_FALSE;
  PetscCall(ContactGather(ct, X, ct->xs));
  PetscCall(ContactGather(ct, Y, ct->dxs));
  PetscCall(VecScale(ct->dxs, -1.0));
  PetscCall(VecGetArrayRead(ct->xs, &x));
  PetscCall(VecGetArrayRead(ct->dxs, &dx));
  PetscCall(MfadContactStepBound(ct->C, x, dx, &alpha));
  if (ct->radius > 0) asph = SphereStep(ct, x, dx);
  PetscCall(VecRestoreArrayRead(ct->dxs, &dx));
  PetscCall(VecRestoreArrayRead(ct->xs, &x));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &asph, 1, MPIU_REAL, MPIU_MIN, PetscObjectComm((PetscObject)ls)));
  alpha = PetscMin(alpha, asph);
  if (alpha < 1) {
    PetscCall(VecScale(Y, alpha));
    *changed = PETSC_TRUE;
    ct->capped++;
    ct->alpha_min = PetscMin(ct->alpha_min, alpha);
    PetscCall(PetscInfo(ls, "contact: step capped at %g of the Newton step\n", (double)alpha));
  }
  {
    Vec         F;
    PetscScalar gy;
    PetscCall(SNESLineSearchGetVecs(ls, NULL, &F, NULL, NULL, NULL));
    PetscCall(VecDot(F, Y, &gy));
    ct->slope = PetscAbsScalar(gy);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactCreate(MfadEnergy E, PetscInt nv, const PetscInt gid[], const PetscReal rest[], PetscInt ntri, const PetscInt tri[],
                             PetscInt nedge, const PetscInt edge[], PetscInt npoint, const PetscInt point[], PetscReal dhat, PetscReal kappa,
                             const PetscReal centre[3], PetscReal radius, Contact *ct)
{
  MPI_Comm   comm;
  MfadKernel kpt, kee;
  IS         is;
  Vec        X;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(ct, sizeof(*ct)));
  PetscCall(MfadEnergyGetComm(E, &comm));
  ct->E           = E;
  ct->nv          = nv;
  ct->radius      = radius;
  ct->dmin        = PETSC_MAX_REAL;
  ct->alpha_min   = 1.0;
  ct->sphere_term = -1;
  for (int i = 0; i < 3; i++) ct->centre[i] = centre ? centre[i] : 0;
  PetscCall(MfadContactCreate(comm, &ct->C));
  PetscCall(MfadContactSetSurface(ct->C, nv, gid, ntri, tri, nedge, edge, npoint, point));
  PetscCall(MfadContactSetBarrier(ct->C, dhat, kappa));
  PetscCall(MfadContactSetRestCoordinates(ct->C, rest));
  /* the pair terms start empty: the provider fills them at the first Newton step */
  PetscCall(MfadKernelFind("ipc_point_triangle", &kpt));
  PetscCall(MfadKernelFind("ipc_edge_edge", &kee));
  PetscCall(MfadEnergyAddTerm(E, kpt, 0, NULL, NULL, 1.0, &ct->pt));
  PetscCall(MfadEnergyAddTerm(E, kee, 0, NULL, NULL, 1.0, &ct->ee));
  PetscCall(MfadEnergySetTermName(E, ct->pt, "contact point-triangle"));
  PetscCall(MfadEnergySetTermName(E, ct->ee, "contact edge-edge"));
  PetscCall(MfadEnergySetTermElementsFunction(E, ct->pt, ContactProvide, ct));
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
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  PetscCall(ISCreateBlock(PETSC_COMM_SELF, 3, nv, gid, PETSC_COPY_VALUES, &is));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 3 * nv, &ct->xs));
  PetscCall(VecDuplicate(ct->xs, &ct->dxs));
  PetscCall(VecScatterCreate(X, is, ct->xs, NULL, &ct->scatter));
  PetscCall(ISDestroy(&is));
  PetscCall(VecDestroy(&X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SNES's own test, then the round-off stop (after a step: slope is that step's) */
static PetscErrorCode ContactConverged(SNES snes, PetscInt it, PetscReal xnorm, PetscReal snorm, PetscReal fnorm, SNESConvergedReason *reason,
                                       void *ctx)
{
  Contact *ct = (Contact *)ctx;

  PetscFunctionBeginUser;
  if (it == 0) ct->roundoff = PETSC_FALSE;
  PetscCall(SNESConvergedDefault(snes, it, xnorm, snorm, fnorm, reason, NULL));
  if (*reason == SNES_CONVERGED_ITERATING && it > 0) {
    Vec X;
    PetscCall(SNESGetSolution(snes, &X));
    PetscCall(ContactAtRoundoff(ct, X, &ct->roundoff));
    if (ct->roundoff) *reason = SNES_CONVERGED_FNORM_ABS; /* reported as CONVERGED_ROUNDOFF by the example */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactSetSNES(Contact *ct, SNES snes)
{
  SNESLineSearch ls;

  PetscFunctionBeginUser;
  PetscCall(SNESGetLineSearch(snes, &ls));
  PetscCall(SNESLineSearchSetPreCheck(ls, ContactPreCheck, ct));
  PetscCall(SNESSetConvergenceTest(snes, ContactConverged, ct, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactMeasure(Contact *ct, Vec X, PetscReal *dpair, PetscReal *dsphere)
{
  const PetscScalar *x;
  PetscReal          ds = PETSC_MAX_REAL;

  PetscFunctionBeginUser;
  PetscCall(ContactGather(ct, X, ct->xs));
  PetscCall(VecGetArrayRead(ct->xs, &x));
  PetscCall(MfadContactDetect(ct->C, x));
  for (PetscInt v = 0; ct->radius > 0 && v < ct->nv; v++) {
    PetscReal r2 = 0;
    for (int i = 0; i < 3; i++) r2 += PetscSqr(PetscRealPart(x[3 * v + i]) - ct->centre[i]);
    ds = PetscMin(ds, PetscSqrtReal(r2) - ct->radius);
  }
  PetscCall(VecRestoreArrayRead(ct->xs, &x));
  PetscCall(MfadContactGetMinimumDistance(ct->C, dpair));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ds, 1, MPIU_REAL, MPIU_MIN, PetscObjectComm((PetscObject)X)));
  *dsphere = ds;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactAtRoundoff(Contact *ct, Vec X, PetscBool *yes)
{
  PetscReal f;

  PetscFunctionBeginUser;
  PetscCall(MfadEnergyComputeObjective(ct->E, X, &f));
  *yes = (PetscBool)(ct->slope <= 100 * PETSC_MACHINE_EPSILON * PetscAbsReal(f));
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

PetscErrorCode ContactStepReason(Contact *ct, Vec X, PetscInt *reason, const char **name)
{
  PetscBool roundoff = ct->roundoff;

  PetscFunctionBeginUser;
  if (!roundoff && *reason == SNES_DIVERGED_LINE_SEARCH) PetscCall(ContactAtRoundoff(ct, X, &roundoff));
  if (roundoff) *reason = CONTACT_CONVERGED_ROUNDOFF, *name = "CONVERGED_ROUNDOFF";
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactDestroy(Contact *ct)
{
  PetscFunctionBeginUser;
  PetscCall(MfadContactDestroy(&ct->C));
  PetscCall(VecScatterDestroy(&ct->scatter));
  PetscCall(VecDestroy(&ct->xs));
  PetscCall(VecDestroy(&ct->dxs));
  PetscFunctionReturn(PETSC_SUCCESS);
}
