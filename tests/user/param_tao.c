// SPDX-License-Identifier: BSD-2-Clause
/* tests/user/param.c with TAO's Newton method (nls with its own line search, More-Thuente) instead
   of SNES: no solver code and no option. The full Newton step flips triangles (+inf): More-Thuente
   then fails at the first step unless the library cuts its first trial at the wall (measured:
   DIVERGED_LS_FAILURE at step 1 with -mfad_step_bound 0). */
static const char help[] = "user param with TAO: -mesh <disk-topology triangle surface>\n";

#include <mfadpetsc.h>
#include <mfadmesh.h>

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  char               path[PETSC_MAX_PATH_LEN] = "";
  MfadMesh           mesh;
  MfadEnergy         E;
  MfadKernel         k;
  Vec                U;
  Tao                tao;
  PetscInt           its;
  PetscReal          f;
  TaoConvergedReason reason;

  PetscCall(MfadInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mesh", path, sizeof(path), NULL));
  PetscCall(MfadMeshRead(path, &mesh)); /* every rank reads the whole mesh */
  PetscCall(MfadEnergyCreateFromMesh(comm, mesh, 2, &E));
  PetscCall(MfadKernelFind("symmetric_dirichlet", &k));
  PetscCall(MfadEnergyAddTermFromMesh(E, mesh, k, NULL, 1.0, NULL));
  PetscCall(MfadEnergyCreateVecs(E, &U, NULL));
  PetscCall(MfadEnergyComputeTutteStart(E, mesh, U)); /* and pins the rigid motions */

  PetscCall(TaoCreate(comm, &tao));
  PetscCall(TaoSetType(tao, TAONLS));
  PetscCall(MfadEnergySetTao(E, tao));
  PetscCall(TaoSetSolution(tao, U));
  PetscCall(TaoSetFromOptions(tao));
  PetscCall(TaoSolve(tao));

  PetscCall(TaoGetIterationNumber(tao, &its));
  PetscCall(TaoGetConvergedReason(tao, &reason));
  PetscCall(MfadEnergyComputeObjective(E, U, &f));
  PetscCall(PetscPrintf(comm, "user param: vertices %" PetscInt_FMT " energy %.12e iterations %" PetscInt_FMT " reason %s\n", mesh->nvert, (double)f,
                        its, TaoConvergedReasons[reason]));
  PetscCall(TaoDestroy(&tao));
  PetscCall(VecDestroy(&U));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(MfadMeshDestroy(&mesh));
  PetscCall(PetscFinalize());
  return reason > 0 ? 0 : 1;
}
