// SPDX-License-Identifier: BSD-2-Clause
/* Issue 46, item 6: an energy NaN at a line search's trial point. With a basic line search (the
   full Newton step) SNES stopped with DIVERGED_LINE_SEARCH and no word of the NaN, the term or
   the element; now the library names them when the solve ends (tests/core.cmake matches the line).
   The default line search backs off from the NaN and converges to the minimum, x = 4, saying
   nothing. One vertex per rank, each its own element (sqrt_well, tests/energies/sqrt_well.c). */
#include <mfadpetsc.h>

MFAD_KERNEL_DECLARE(sqrt_well);

static PetscErrorCode Solve(const char *linesearch, SNESConvergedReason *reason, PetscReal *xmin)
{
  MfadEnergy  E;
  SNES        snes;
  Vec         X;
  PetscMPIInt rank;
  PetscInt    conn;
  PetscReal   a = 1.0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  conn = rank;
  PetscCall(MfadEnergyCreate(PETSC_COMM_WORLD, 1, 1, PETSC_DETERMINE, &E));
  PetscCall(MfadEnergyAddTerm(E, MFAD_KERNEL(sqrt_well), 1, &conn, &a, 1.0, NULL));
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  PetscCall(VecSet(X, 16.0));
  PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  PetscCall(MfadEnergySetSNES(E, snes));
  PetscCall(PetscOptionsSetValue(NULL, "-snes_linesearch_type", linesearch));
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(PetscOptionsClearValue(NULL, "-snes_linesearch_type"));
  PetscCall(SNESSolve(snes, NULL, X));
  PetscCall(SNESGetConvergedReason(snes, reason));
  PetscCall(VecMin(X, NULL, xmin));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_trial_nan: -snes_linesearch_type %s: %s, x %g\n", linesearch, SNESConvergedReasons[*reason],
                        (double)*xmin));
  PetscCall(SNESDestroy(&snes));
  PetscCall(VecDestroy(&X));
  PetscCall(MfadEnergyDestroy(&E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  SNESConvergedReason reason;
  PetscReal           x;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(Solve("bt", &reason, &x));
  PetscCheck(reason > 0 && PetscAbsReal(x - 4.0) < 1e-6, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED,
             "the default line search: %s at x = %g, expected convergence to 4", SNESConvergedReasons[reason], (double)x);
  PetscCall(Solve("basic", &reason, &x));
  PetscCheck(reason < 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the full step lands at x = -16, where the energy is NaN: expected a failed solve, got %s",
             SNESConvergedReasons[reason]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_trial_nan: ok\n"));
  PetscCall(PetscFinalize());
  return 0;
}
