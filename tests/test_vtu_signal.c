// SPDX-License-Identifier: BSD-2-Clause
/* The writer of tests/vtu_signal.sh: MfadEnergyWriteVTU interrupted by a signal mid-write.
   Writes a box's VTU to -o PATH (the previous output the interruption must leave intact), then
   makes "<PATH>.tmp.<pid>", the temporary MfadEnergyWriteVTU is about to create, a FIFO and
   writes again: the write opens the FIFO, blocks until the script reads, and blocks again once
   the pipe is full (-n 10: some 400 KB of ASCII, far beyond a pipe's 64 KB). The script then
   knows the write has begun and cannot end, and sends its signal. A regular file would race. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <mfadmesh.h>

int main(int argc, char **argv)
{
  const PetscReal lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, mat[2] = {3.0, 20.0};
  char            path[PETSC_MAX_PATH_LEN] = "", fifo[PETSC_MAX_PATH_LEN + 32];
  PetscInt        n                        = 10;
  PetscBool       set;
  MfadMesh        mesh;
  MfadEnergy      E;
  MfadKernel      k;
  Vec             X;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", path, sizeof path, &set));
  PetscCheck(set, PETSC_COMM_WORLD, PETSC_ERR_USER, "-o PATH is required");
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(MfadMeshCreateBox(n, n, n, lo, hi, &mesh));
  PetscCall(MfadEnergyCreateFromMesh(PETSC_COMM_WORLD, mesh, 3, &E));
  PetscCall(MfadKernelFind("neohookean_tet", &k));
  PetscCall(MfadEnergyAddTermFromMesh(E, mesh, k, mat, 1.0, NULL));
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  PetscCall(MfadEnergyCopyCoordinatesFromMesh(E, mesh, X));
  PetscCall(MfadEnergyWriteVTU(E, 0, X, X, path));
  PetscCall(PetscSNPrintf(fifo, sizeof fifo, "%s.tmp.%d", path, (int)getpid()));
  PetscCheck(!mkfifo(fifo, 0600), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot make the FIFO %s", fifo);
  PetscCall(VecShift(X, 1.0)); /* a different file, had the write finished */
  PetscCall(MfadEnergyWriteVTU(E, 0, X, X, path));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the interrupted write returned\n"));
  PetscCall(VecDestroy(&X));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(MfadMeshDestroy(&mesh));
  PetscCall(PetscFinalize());
  return 0;
}
