// SPDX-License-Identifier: BSD-2-Clause
/* A program that uses an installed mfad: two springs of the built-in mass_spring energy
   (E = k/2 (|x1 - x0| - L)^2) on a bent chain of three vertices; checks the energy and its
   gradient against their closed forms. Built with CMake it also checks a user energy compiled
   by mfad_add_energy() from mass_spring's pre-port header (MFAD_TEST_USER_ENERGY). Prints nothing
   on success. */
#include <mfad.h>

#ifdef MFAD_TEST_USER_ENERGY
MFAD_KERNEL_DECLARE(my_spring);
#endif

static PetscErrorCode CheckSprings(const char name[])
{
  /* rest: a straight chain of unit springs along x; deformed: x1 stretched to 1.5 along x,
     x2 turned to +y and stretched to 2 */
  const PetscInt  conn[] = {0, 1, 1, 2};
  const PetscReal rest[] = {0, 0, 0, 1, 0, 0, /* element 0 */ 1, 0, 0, 2, 0, 0 /* element 1 */};
  const PetscReal k      = 10.0;
  const PetscReal x[]    = {0, 0, 0, 1.5, 0, 0, 1.5, 2, 0};
  /* E = k/2 (0.5^2 + 1^2) = 6.25; spring 0 pulls x1 by -k 0.5 e_x, spring 1 pulls x2 by -k 1 e_y */
  const PetscReal f_exact   = 6.25;
  const PetscReal g_exact[] = {-5, 0, 0, 5, -10, 0, 0, 10, 0};
  const PetscInt  idx[]     = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  /* sqrt, one division and a few products of O(1) numbers: a few ulps; 1e-12 leaves a wide margin */
  const PetscReal tol = 1e-12;
  PetscMPIInt     rank;
  MfadKernel      kernel;
  MfadEnergy      E;
  Vec             X, G, R;
  PetscReal       f, gnorm, err;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(MfadKernelFind(name, &kernel));
  PetscCall(MfadEnergyCreate(PETSC_COMM_WORLD, 3, PETSC_DECIDE, 3, &E));
  /* elements belong to one rank: rank 0 holds both */
  PetscCall(MfadEnergyAddTermFromRest(E, kernel, rank ? 0 : 2, conn, rest, &k, 1.0, NULL));
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadEnergyCreateVecs(E, &X, &G));
  PetscCall(VecDuplicate(G, &R));
  if (!rank) {
    PetscCall(VecSetValues(X, 9, idx, x, INSERT_VALUES));
    PetscCall(VecSetValues(R, 9, idx, g_exact, INSERT_VALUES));
  }
  PetscCall(VecAssemblyBegin(X));
  PetscCall(VecAssemblyEnd(X));
  PetscCall(VecAssemblyBegin(R));
  PetscCall(VecAssemblyEnd(R));

  PetscCall(MfadEnergyComputeObjective(E, X, &f));
  PetscCall(MfadEnergyComputeGradient(E, X, G));
  PetscCall(VecNorm(G, NORM_INFINITY, &gnorm));
  PetscCheck(!PetscIsInfOrNanReal(gnorm), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: gradient is not finite (|G|_inf = %g)", name, (double)gnorm);
  PetscCheck(PetscAbsReal(f - f_exact) <= tol * f_exact, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: energy %.17g, expected %.17g (error %g > bound %g)",
             name, (double)f, (double)f_exact, (double)PetscAbsReal(f - f_exact), (double)(tol * f_exact));
  PetscCall(VecAXPY(R, -1.0, G));
  PetscCall(VecNorm(R, NORM_INFINITY, &err));
  PetscCheck(err <= tol * 10.0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: gradient differs from k (l - L) d / l by %g > bound %g", name, (double)err,
             (double)(tol * 10.0));

  PetscCall(VecDestroy(&R));
  PetscCall(VecDestroy(&G));
  PetscCall(VecDestroy(&X));
  PetscCall(MfadEnergyDestroy(&E));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(CheckSprings("mass_spring"));
#ifdef MFAD_TEST_USER_ENERGY
  PetscCall(MfadKernelRegister(MFAD_KERNEL(my_spring)));
  PetscCall(CheckSprings("my_spring"));
#endif
  PetscCall(PetscFinalize());
  return 0;
}
