// SPDX-License-Identifier: BSD-2-Clause
/* A Cholesky factorisation with inertia, as option defaults (cholesky.h) */
#include "cholesky.h"
#include "defaultoption.h"
#include <string.h>

PetscErrorCode CholeskyInertiaDefaults(MPI_Comm comm, const char pre[])
{
  /* PETSc's own Cholesky has the inertia too (CHOLMOD stops on an indefinite matrix) */
  const char *solver = MATSOLVERPETSC, *factor = "";
  char        name[64];
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
#if defined(PETSC_HAVE_MUMPS)
  solver = MATSOLVERMUMPS; /* LDL^T with pivoting: its inertia tells an indefinite exact Hessian */
  (void)size;
#else
  /* no parallel Cholesky in this PETSc: on several ranks every rank factors the whole matrix
     (PCREDUNDANT). CG + GAMG on the projected Hessian did not finish tests/meshes/spot_jitter.obj
     (param), and projected Newton-CG was linear on elastic's Spot (not finished in 200 s) */
  if (size > 1) factor = "redundant_";
#endif
  PetscCall(PetscSNPrintf(name, sizeof name, "%sksp_type", pre));
  PetscCall(DefaultOption(name, "preonly"));
  PetscCall(PetscSNPrintf(name, sizeof name, "%spc_type", pre));
  PetscCall(DefaultOption(name, factor[0] ? "redundant" : "cholesky"));
  if (factor[0]) {
    PetscCall(PetscSNPrintf(name, sizeof name, "%s%spc_type", pre, factor));
    PetscCall(DefaultOption(name, "cholesky"));
  }
  PetscCall(PetscSNPrintf(name, sizeof name, "%s%spc_factor_mat_solver_type", pre, factor));
  PetscCall(DefaultOption(name, solver));
  if (strcmp(solver, MATSOLVERMUMPS)) { /* nested dissection: the natural order fills in */
    PetscCall(PetscSNPrintf(name, sizeof name, "%s%spc_factor_mat_ordering_type", pre, factor));
    PetscCall(DefaultOption(name, MATORDERINGND));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
