// SPDX-License-Identifier: BSD-2-Clause
/* MfadInitialize(): PetscInitialize() with a faster start for a program run as one process
   without a launcher (an MPI "singleton": `./param mesh.obj`, not `mpiexec -n 1 ./param ...`).
   Open MPI 4 starts a singleton by launching its daemon (orted) and probing UCX's devices, which
   cost 0.30 of the 0.39 s that PetscInitialize() + PetscFinalize() of an empty program take
   (Open MPI 4.1.4, 2026-12-03; 0.08 s without them). A singleton spawns nothing and talks to no
   one, so it needs neither: two MCA parameters say so (`ompi_info --param ess singleton --level 9`
   lists ess_singleton_isolated; pml "ob1" keeps the self and shared-memory transports), set in
   the environment before MPI_Init() reads it. Any value already set (by the user, a launcher or a batch system) is kept,
   and a process a launcher started is left alone; other MPIs read none of these variables. */
#include "mfadimpl.h"
#include <stdlib.h>

/* Variables a launcher sets in the processes it starts: Open MPI's mpiexec, PMIx and PMI
   (Slurm's srun, MPICH's Hydra), Slurm itself */
static const char *const MfadLauncherVariables[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "PMI_FD", "SLURM_STEP_ID", NULL};

PetscErrorCode MfadInitializeMPIEnvironment(void)
{
  PetscBool launched = PETSC_FALSE;

  for (int i = 0; MfadLauncherVariables[i]; i++)
    if (getenv(MfadLauncherVariables[i])) launched = PETSC_TRUE;
  if (launched) return PETSC_SUCCESS;
  /* setenv()'s 0: a value already there wins */
  if (setenv("OMPI_MCA_ess_singleton_isolated", "1", 0) || setenv("OMPI_MCA_pml", "ob1", 0)) return PETSC_ERR_SYS; /* no PETSc yet: no PetscCall */
  return PETSC_SUCCESS;
}

PetscErrorCode MfadInitialize(int *argc, char ***args, const char file[], const char help[])
{
  PetscErrorCode ierr;

  ierr = MfadInitializeMPIEnvironment();
  if (ierr) return ierr;
  return PetscInitialize(argc, args, file, help);
}
