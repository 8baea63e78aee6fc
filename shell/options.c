// SPDX-License-Identifier: BSD-2-Clause
/* The solver glue's options table: the Hessian forms SNES and TAO get, a least-squares TAO's
   Jacobian and the per-step monitor. Read by MfadSolverOptionsRead_Private() (which the SNES and
   TAO set-ups call) through the same reader as the energy's table (src/options.c): -help, the
   check of a missing value and MfadSolverGetOptionTable() come from these lines alone. */
#include "shellimpl.h"

static const char *const MfadJacobianTypes[] = {"shell", "aij"}; /* shell: JVP and VJP products; aij: assembled */

/* in the order of MfadSolverOption */
/* clang-format off */
static const MfadOption MfadSolverOptions[] = {
    {"-mfad_hessian", MFAD_OPTION_CHOICE, "Form of the Hessian the solver applies", "MfadEnergySetHessianType", NULL, 4, MfadHessianTypes, {0}, NULL},
    {"-mfad_pmat", MFAD_OPTION_CHOICE, "Form of the Hessian the preconditioner is built from (default: the operator's)", "MfadEnergySetHessianType", NULL, 4,
     MfadHessianTypes, {0}, NULL},
    {"-mfad_jacobian", MFAD_OPTION_CHOICE, "TAO least squares: the residual's Jacobian, shell (JVP and VJP products) or aij (assembled)",
     "MfadEnergySetTaoResidual", NULL, 2, MfadJacobianTypes, {0}, NULL},
    {"-mfad_monitor", MFAD_OPTION_NAME, "SNES, TAO: a line per Newton step: energy, |g|, the Hessian form and projection used, linear iterations, time",
     "MfadEnergySetSNES", NULL, 0, NULL, {0}, NULL},
};
/* clang-format on */
static const struct _n_MfadOptionTable MfadSolverOptionTable = {"mfad solvers", (PetscInt)(sizeof(MfadSolverOptions) / sizeof(MfadSolverOptions[0])),
                                                                MfadSolverOptions};

PetscErrorCode MfadSolverGetOptionTable(MfadOptionTable *table)
{
  PetscFunctionBegin;
  MfadValidPointer(table, 1);
  *table = &MfadSolverOptionTable;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadSolverOptionsRead_Private(MfadEnergy E, MfadOptionValue v[], PetscBool set[])
{
  MPI_Comm    comm;
  const char *prefix;

  PetscFunctionBegin;
  PetscCheck(MfadSolverOptionTable.n == MFAD_SOLVER_OPTIONS, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "the solver options table has %" PetscInt_FMT " entries, MfadSolverOption %d", MfadSolverOptionTable.n, (int)MFAD_SOLVER_OPTIONS);
  PetscCall(MfadEnergyGetComm(E, &comm));
  PetscCall(MfadEnergyGetOptionsPrefix(E, &prefix));
  PetscCall(MfadOptionsRead_Private(comm, prefix, &MfadSolverOptionTable, v, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}
