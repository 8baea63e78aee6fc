// SPDX-License-Identifier: BSD-2-Clause
/* Distributed against serial: the spring grid with elements dealt round-robin over the ranks
   (every rank has ghosts everywhere) against the same energy on one rank (a replica built on
   PETSC_COMM_SELF). Energy, gradient, HVP, diagonal and the vertex blocks agree to 1e-12
   relative; then a Newton solve on PETSC_COMM_WORLD reaches the serial solve's energy.
   Run under mpiexec with any number of ranks; prints one line per failure, nothing otherwise. */
#include "testutil.h"

static int failures;

static PetscErrorCode Compare(const char *what, PetscReal a, PetscReal b, PetscReal tol)
{
  PetscFunctionBeginUser;
  if (!(PetscAbsReal(a - b) <= tol * PetscMax(1.0, PetscAbsReal(b)))) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: distributed %.17g, serial %.17g, bound %.1e relative\n", what, (double)a, (double)b, (double)tol));
    failures++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* |A - B| / |B| of a distributed vector against a serial one holding every entry */
static PetscErrorCode CompareVec(const char *what, Vec A, Vec Bseq, PetscReal tol)
{
  const PetscScalar *a, *b;
  PetscInt           lo, hi;
  PetscReal          d = 0.0, nb = 0.0, dg, nbg;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(A, &lo, &hi));
  PetscCall(VecGetArrayRead(A, &a));
  PetscCall(VecGetArrayRead(Bseq, &b));
  for (PetscInt i = lo; i < hi; i++) {
    d += PetscSqr(PetscRealPart(a[i - lo] - b[i]));
    nb += PetscSqr(PetscRealPart(b[i]));
  }
  PetscCall(VecRestoreArrayRead(A, &a));
  PetscCall(VecRestoreArrayRead(Bseq, &b));
  PetscCall(MPIU_Allreduce(&d, &dg, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(&nb, &nbg, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  PetscCall(Compare(what, PetscSqrtReal(dg / nbg), 0.0, tol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(MfadEnergy E, const TestGrid *g, PetscReal *energy)
{
  SNES               snes;
  Vec                X;
  SNESConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  PetscCall(TestGridPoint(g, 0.05, 5, X)); /* mild strain: the Hessian stays positive definite */
  PetscCall(SNESCreate(PetscObjectComm((PetscObject)X), &snes));
  PetscCall(MfadEnergySetSNES(E, snes));
  PetscCall(SNESSetTolerances(snes, 1e-14, 1e-12, 0, 50, 1000));
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(SNESSolve(snes, NULL, X));
  PetscCall(SNESGetConvergedReason(snes, &reason));
  if (reason <= 0) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL Newton solve did not converge: %s\n", SNESConvergedReasons[reason]));
    failures++;
  }
  PetscCall(MfadEnergyComputeObjective(E, X, energy));
  PetscCall(SNESDestroy(&snes));
  PetscCall(VecDestroy(&X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  TestGrid     g;
  MfadEnergy   Ed, Es;
  Vec          Xd, Gd, Vd, Yd, Xs, Gs, Vs, Ys;
  PetscReal    fd, fs;
  PetscInt     dof, n, rstart;
  PetscScalar *bd, *bs;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(TestGridCreate(9, 5, 4, &g));
  PetscCall(TestGridEnergy(PETSC_COMM_WORLD, &g, &Ed));
  PetscCall(TestGridEnergy(PETSC_COMM_SELF, &g, &Es));
  PetscCall(MfadEnergyViewFromOptions(Ed, NULL));
  PetscCall(MfadEnergyCreateVecs(Ed, &Xd, &Gd));
  PetscCall(VecDuplicate(Xd, &Vd));
  PetscCall(VecDuplicate(Xd, &Yd));
  PetscCall(MfadEnergyCreateVecs(Es, &Xs, &Gs));
  PetscCall(VecDuplicate(Xs, &Vs));
  PetscCall(VecDuplicate(Xs, &Ys));
  PetscCall(TestGridPoint(&g, 0.2, 3, Xd));
  PetscCall(TestGridPoint(&g, 0.2, 3, Xs));
  PetscCall(TestGridPoint(&g, 1.0, 4, Vd));
  PetscCall(TestGridPoint(&g, 1.0, 4, Vs));

  /* sums in a different order: agreement to round-off, 1e-12 relative */
  PetscCall(MfadEnergyComputeObjectiveGradient(Ed, Xd, &fd, Gd));
  PetscCall(MfadEnergyComputeObjectiveGradient(Es, Xs, &fs, Gs));
  PetscCall(Compare("energy", fd, fs, 1e-12));
  PetscCall(CompareVec("gradient", Gd, Gs, 1e-12));
  PetscCall(MfadEnergyComputeHessianProduct(Ed, Xd, Vd, Yd));
  PetscCall(MfadEnergyComputeHessianProduct(Es, Xs, Vs, Ys));
  PetscCall(CompareVec("HVP", Yd, Ys, 1e-12));
  PetscCall(MfadEnergyComputeHessianDiagonal(Ed, Xd, Yd));
  PetscCall(MfadEnergyComputeHessianDiagonal(Es, Xs, Ys));
  PetscCall(CompareVec("Hessian diagonal", Yd, Ys, 1e-12));
  PetscCall(MfadEnergyGetSizes(Ed, &dof, &n, NULL));
  PetscCall(VecGetOwnershipRange(Xd, &rstart, NULL));
  PetscCall(PetscMalloc2(n * dof * dof, &bd, g.nvert * dof * dof, &bs));
  PetscCall(MfadEnergyComputeHessianBlockDiagonal(Ed, Xd, bd));
  PetscCall(MfadEnergyComputeHessianBlockDiagonal(Es, Xs, bs));
  {
    PetscReal d = 0, nb = 0, dg, nbg;
    for (PetscInt i = 0; i < n * dof * dof; i++) {
      d += PetscSqr(PetscRealPart(bd[i] - bs[rstart * dof + i]));
      nb += PetscSqr(PetscRealPart(bs[rstart * dof + i]));
    }
    PetscCall(MPIU_Allreduce(&d, &dg, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
    PetscCall(MPIU_Allreduce(&nb, &nbg, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
    PetscCall(Compare("Hessian vertex blocks", PetscSqrtReal(dg / nbg), 0.0, 1e-12));
  }
  PetscCall(PetscFree2(bd, bs));

  /* Newton on the distributed energy: the minimum energy is that of the serial solve */
  PetscCall(Solve(Ed, &g, &fd));
  PetscCall(Solve(Es, &g, &fs));
  PetscCall(Compare("energy after Newton", fd, fs, 1e-10));

  PetscCall(VecDestroy(&Xd));
  PetscCall(VecDestroy(&Gd));
  PetscCall(VecDestroy(&Vd));
  PetscCall(VecDestroy(&Yd));
  PetscCall(VecDestroy(&Xs));
  PetscCall(VecDestroy(&Gs));
  PetscCall(VecDestroy(&Vs));
  PetscCall(VecDestroy(&Ys));
  PetscCall(MfadEnergyDestroy(&Ed));
  PetscCall(MfadEnergyDestroy(&Es));
  PetscCall(TestGridDestroy(&g));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_mpi: %d failed\n", failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
