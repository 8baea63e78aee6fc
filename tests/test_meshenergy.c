// SPDX-License-Identifier: BSD-2-Clause
/* The whole-mesh calls (src/meshenergy.c) against closed forms, on any number of ranks: the box
   MfadMeshCreateBox() makes has 6 n_x n_y n_z positive tets filling its volume; a Neo-Hookean
   energy made with MfadEnergyCreateFromMesh() / MfadEnergyAddTermFromMesh() is 0 with zero
   gradient at the rest shape MfadEnergyCopyCoordinatesFromMesh() gives, and at the rest shape
   scaled by s it is the box volume times W(s I) = mu/2 (3 s^2 - 3) - 3 mu log s + lambda/2 (3 log s)^2
   (a uniform dilation has F = s I in every tet). Bad calls are errors. Prints one line per failure. */
#include <mfadmesh.h>
#include <stdio.h>
#include <string.h>

static int  failures;
static char err_msg[1024]; /* the message of the last error raised on this rank */

static PetscErrorCode RecordError(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess,
                                  void *ctx)
{
  (void)comm, (void)line, (void)fun, (void)file, (void)ctx;
  if (p == PETSC_ERROR_INITIAL) snprintf(err_msg, sizeof(err_msg), "%s", mess ? mess : "");
  return n;
}

static PetscErrorCode Expect(const char *what, PetscReal got, PetscReal want, PetscReal tol)
{
  PetscFunctionBeginUser;
  if (!(PetscAbsReal(got - want) <= tol * PetscMax(1.0, PetscAbsReal(want)))) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: %.17g, expected %.17g, bound %.1e relative\n", what, (double)got, (double)want, (double)tol));
    failures++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const PetscInt  nx = 3, ny = 2, nz = 4;
  const PetscReal lo[3] = {-1, 0, 0.5}, hi[3] = {2, 1, 2.5}, mu = 2, lambda = 5, s = 1.1, material[2] = {mu, lambda};
  const PetscReal vol = 3 * 1 * 2, W = 0.5 * mu * (3 * s * s - 3) - 3 * mu * PetscLogReal(s) + 0.5 * lambda * PetscSqr(3 * PetscLogReal(s));
  MfadMesh        mesh;
  MfadKernel      k;
  MfadEnergy      E;
  Vec             X, G;
  PetscReal       sum = 0, minvol = PETSC_MAX_REAL, f, gn;
  PetscInt        cstart, cend, nall;
  PetscMPIInt     size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MfadMeshCreateBox(nx, ny, nz, lo, hi, &mesh));
  PetscCall(Expect("box vertices", mesh->nvert, (nx + 1) * (ny + 1) * (nz + 1), 0));
  PetscCall(Expect("box tets", mesh->ncell, 6 * nx * ny * nz, 0));
  for (PetscInt c = 0; c < mesh->ncell; c++) {
    const PetscInt *t = &mesh->cells[4 * c];
    PetscReal       d[3][3], v;
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) d[a][b] = mesh->coords[3 * t[a + 1] + b] - mesh->coords[3 * t[0] + b];
    v = (d[0][0] * (d[1][1] * d[2][2] - d[1][2] * d[2][1]) - d[0][1] * (d[1][0] * d[2][2] - d[1][2] * d[2][0]) + d[0][2] * (d[1][0] * d[2][1] - d[1][1] * d[2][0])) / 6;
    sum += v;
    minvol = PetscMin(minvol, v);
  }
  PetscCall(Expect("box volume (sum of the tets')", sum, vol, 1e-13));
  if (!(minvol > 0)) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL a box tet has volume %g <= 0\n", (double)minvol));
    failures++;
  }

  /* every cell on exactly one rank */
  PetscCall(MfadMeshGetCellRange(PETSC_COMM_WORLD, mesh, &cstart, &cend));
  nall = cend - cstart;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nall, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(Expect("cells over the ranks", nall, mesh->ncell, 0));

  PetscCall(MfadKernelFind("neohookean_tet", &k));
  PetscCall(MfadEnergyCreateFromMesh(PETSC_COMM_WORLD, mesh, 3, &E));
  PetscCall(MfadEnergyAddTermFromMesh(E, mesh, k, material, 1.0, NULL));
  PetscCall(MfadEnergyCreateVecs(E, &X, &G));
  PetscCall(MfadEnergyCopyCoordinatesFromMesh(E, mesh, X));
  PetscCall(MfadEnergyComputeObjectiveGradient(E, X, &f, G));
  PetscCall(VecNorm(G, NORM_2, &gn));
  /* F = I to round-off: W = O(eps^2) per unit volume, gradient O(eps) x mu x face area */
  PetscCall(Expect("energy at the rest shape", f, 0, 1e-12));
  PetscCall(Expect("|gradient| at the rest shape", gn, 0, 1e-12));
  PetscCall(VecScale(X, s));
  PetscCall(MfadEnergyComputeObjective(E, X, &f));
  PetscCall(Expect("energy of the dilated box = V W(s I)", f, vol * W, 1e-12));

  /* a kernel whose elements do not match the cells, and a mesh of another size, are errors */
  {
    MfadKernel     spring;
    MfadMesh       other;
    PetscErrorCode ierr;
    PetscCall(MfadKernelFind("mass_spring", &spring));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MfadEnergyAddTermFromMesh(E, mesh, spring, material, 1.0, NULL);
    PetscCall(PetscPopErrorHandler());
    if (!ierr) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL a spring kernel on tet cells was accepted\n"));
      failures++;
    }
    PetscCall(MfadMeshCreateBox(1, 1, 1, lo, hi, &other));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MfadEnergyAddTermFromMesh(E, other, k, material, 1.0, NULL);
    PetscCall(PetscPopErrorHandler());
    if (!ierr) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL a mesh of another size was accepted\n"));
      failures++;
    }
    PetscCall(MfadMeshDestroy(&other));
  }

  /* a degenerate cell (a flat triangle, the last cell: the last rank's) is an error on every
     rank, naming it; before, only its rank failed and the others went on into the collective
     set-up, to wait there forever (found by tests/fuzz/fuzz_path_replay.c on 2 ranks) */
  {
    const PetscReal x[5][3] = {
        {0, 0, 0},
        {1, 0, 0},
        {0, 1, 0},
        {1, 1, 0},
        {2, 1, 0}
    };
    const PetscInt tri[3][3] = {
        {0, 1, 2},
        {1, 3, 2},
        {2, 3, 4}
    };
    MfadMesh       flat;
    MfadKernel     membrane;
    MfadEnergy     F;
    PetscErrorCode ierr;
    PetscInt       nfail;

    PetscCall(MfadMeshCreate(3, 5, 3, 3, &flat));
    PetscCall(PetscArraycpy(flat->coords, &x[0][0], 15));
    PetscCall(PetscArraycpy(flat->cells, &tri[0][0], 9));
    PetscCall(MfadKernelFind("membrane_tri", &membrane));
    PetscCall(MfadEnergyCreateFromMesh(PETSC_COMM_WORLD, flat, 3, &F));
    err_msg[0] = '\0';
    PetscCall(PetscPushErrorHandler(RecordError, NULL));
    ierr = MfadEnergyAddTermFromMesh(F, flat, membrane, material, 1.0, NULL);
    PetscCall(PetscPopErrorHandler());
    nfail = ierr ? 1 : 0;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nfail, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    if (nfail != (PetscInt)size) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL a flat triangle (cell 2) was an error on %d of %d ranks\n", (int)nfail, (int)size));
      failures++;
    } else if (!strstr(err_msg, "element 2 has a degenerate or inverted rest shape")) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL a flat triangle's error does not name element 2: '%s'\n", err_msg));
      failures++;
    }
    PetscCall(MfadEnergyDestroy(&F));
    PetscCall(MfadMeshDestroy(&flat));
  }

  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&G));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(MfadMeshDestroy(&mesh));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
