// SPDX-License-Identifier: BSD-2-Clause
/* A user's program as the README teaches, with no solver code and no option: a flip-free map of a
   disk-topology surface to the plane minimising the symmetric Dirichlet energy (+inf on a flipped
   triangle: its own barrier) from a Tutte start. The solver is the library's default. */
static const char help[] = "user param: -mesh <disk-topology triangle surface>\n";

#include <mfadpetsc.h>
#include <mfadmesh.h>

int main(int argc, char **argv)
{
  MPI_Comm            comm;
  char                path[PETSC_MAX_PATH_LEN] = "";
  MfadMesh            mesh;
  MfadEnergy          E;
  MfadKernel          k;
  Vec                 U;
  SNES                snes;
  PetscInt            its;
  PetscReal           f;
  SNESConvergedReason reason;

  PetscCall(MfadInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mesh", path, sizeof(path), NULL));
  PetscCall(MfadMeshRead(path, &mesh)); /* every rank reads the whole mesh */
  PetscCall(MfadEnergyCreateFromMesh(comm, mesh, 2, &E));
  PetscCall(MfadKernelFind("symmetric_dirichlet", &k));
  PetscCall(MfadEnergyAddTermFromMesh(E, mesh, k, NULL, 1.0, NULL));
  PetscCall(MfadEnergyCreateVecs(E, &U, NULL));
  PetscCall(MfadEnergyComputeTutteStart(E, mesh, U)); /* and pins the rigid motions */

  PetscCall(SNESCreate(comm, &snes));
  PetscCall(MfadEnergySetSNES(E, snes));
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(SNESSolve(snes, NULL, U));

  PetscCall(SNESGetIterationNumber(snes, &its));
  PetscCall(SNESGetConvergedReason(snes, &reason));
  PetscCall(MfadEnergyComputeObjective(E, U, &f));
  PetscCall(PetscPrintf(comm, "user param: vertices %" PetscInt_FMT " energy %.12e iterations %" PetscInt_FMT " reason %s\n", mesh->nvert, (double)f,
                        its, SNESConvergedReasons[reason]));
  PetscCall(SNESDestroy(&snes));
  PetscCall(VecDestroy(&U));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(MfadMeshDestroy(&mesh));
  PetscCall(PetscFinalize());
  return reason > 0 ? 0 : 1;
}
