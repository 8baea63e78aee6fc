// SPDX-License-Identifier: BSD-2-Clause
/* MfadInitialize(): the MCA parameters it sets for Open MPI, as the environment shows them after
   MPI_Init(). -expect_isolated and -expect_pml: each variable's expected value, "unset" for none.
   Run alone (a singleton: both set), with values already there (kept) and under mpiexec (unset). */
#include <mfad.h>
#include <stdlib.h>

static PetscErrorCode CheckVariable(const char *name, const char *option)
{
  char        expect[64] = "unset";
  const char *value      = getenv(name);
  PetscBool   same;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, option, expect, sizeof(expect), NULL));
  PetscCall(PetscStrcmp(value ? value : "unset", expect, &same));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s is %s after MfadInitialize(), expected %s", name, value ? value : "unset", expect);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscMPIInt size;
  PetscInt    sum = 1;

  PetscCall(MfadInitialize(&argc, &argv, NULL, NULL));
  PetscCall(CheckVariable("OMPI_MCA_ess_singleton_isolated", "-expect_isolated"));
  PetscCall(CheckVariable("OMPI_MCA_pml", "-expect_pml"));
  /* MPI works with them: a reduction over the ranks */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &sum, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCheck(sum == size, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "sum over %d ranks: %" PetscInt_FMT, size, sum);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_initialize: %d rank(s), environment as expected\n", size));
  PetscCall(PetscFinalize());
  return 0;
}
