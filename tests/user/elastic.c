// SPDX-License-Identifier: BSD-2-Clause
/* A user's program as the README teaches, with no solver code and no option: a Neo-Hookean body
   (E = 1e5 Pa, nu = 0.3, rho = 1000) hanging under gravity from the vertices within 5% of its extent
   of its smallest x, as petsc-examples/elastic does with -mesh. The solver is the library's default. */
static const char help[] = "user elastic: -mesh <tet mesh>\n";

#include <mfadpetsc.h>
#include <mfadmesh.h>

int main(int argc, char **argv)
{
  MPI_Comm        comm;
  char            path[PETSC_MAX_PATH_LEN] = "";
  const PetscReal young = 1e5, nu = 0.3, rho = 1000, g = -9.81;
  PetscReal       lame[2] = {young / (2 * (1 + nu)), young * nu / ((1 + nu) * (1 - 2 * nu))}, *mass, *force, *fixval, xmin = PETSC_MAX_REAL,
            xmax = PETSC_MIN_REAL, f0, f;
  MfadMesh            mesh;
  MfadEnergy          E;
  MfadKernel          solid, gravity;
  Vec                 X;
  SNES                snes;
  PetscInt            vstart, vend, n, *conn, *fixed, nfix = 0, its;
  SNESConvergedReason reason;

  PetscCall(MfadInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mesh", path, sizeof(path), NULL));
  PetscCall(MfadMeshRead(path, &mesh)); /* every rank reads the whole mesh */
  PetscCall(MfadEnergyCreateFromMesh(comm, mesh, 3, &E));
  PetscCall(MfadKernelFind("neohookean_tet", &solid)); /* +inf on an inverted tet: its own barrier */
  PetscCall(MfadEnergyAddTermFromMesh(E, mesh, solid, lame, 1.0, NULL));
  /* gravity on this rank's vertices: E = -f . x, f = lumped mass (rho V / 4 of each tet) times g */
  PetscCall(MfadEnergyGetOwnershipRange(E, &vstart, &vend));
  n = vend - vstart;
  PetscCall(PetscCalloc5(mesh->nvert, &mass, 3 * n, &force, n, &conn, 3 * n, &fixed, 3 * n, &fixval));
  for (PetscInt c = 0; c < mesh->ncell; c++) {
    const PetscInt *v = &mesh->cells[4 * c];
    PetscReal       e[3][3];
    for (int a = 0; a < 3; a++)
      for (int d = 0; d < 3; d++) e[a][d] = mesh->coords[3 * v[a + 1] + d] - mesh->coords[3 * v[0] + d];
    const PetscReal V = PetscAbsReal(e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                                     e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) /
                        6;
    for (int a = 0; a < 4; a++) mass[v[a]] += rho * V / 4;
  }
  for (PetscInt v = 0; v < mesh->nvert; v++) xmin = PetscMin(xmin, mesh->coords[3 * v]), xmax = PetscMax(xmax, mesh->coords[3 * v]);
  for (PetscInt l = 0; l < n; l++) {
    conn[l] = vstart + l, force[3 * l + 2] = mass[vstart + l] * g;
    for (int d = 0; d < 3 && mesh->coords[3 * (vstart + l)] <= xmin + 0.05 * (xmax - xmin); d++)
      fixval[nfix] = mesh->coords[3 * (vstart + l) + d], fixed[nfix++] = 3 * (vstart + l) + d;
  }
  PetscCall(MfadKernelFind("gravity", &gravity));
  PetscCall(MfadEnergyAddTerm(E, gravity, n, conn, force, 1.0, NULL));
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  PetscCall(MfadEnergyCopyCoordinatesFromMesh(E, mesh, X));  /* the rest shape */
  PetscCall(MfadEnergySetFixedDofs(E, nfix, fixed, fixval)); /* clamped at rest */

  PetscCall(SNESCreate(comm, &snes));
  PetscCall(MfadEnergySetSNES(E, snes));
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(MfadEnergyComputeObjective(E, X, &f0));
  PetscCall(SNESSolve(snes, NULL, X));

  PetscCall(SNESGetIterationNumber(snes, &its));
  PetscCall(SNESGetConvergedReason(snes, &reason));
  PetscCall(MfadEnergyComputeObjective(E, X, &f));
  PetscCall(PetscPrintf(comm, "user elastic: vertices %" PetscInt_FMT " energy_change %.12e iterations %" PetscInt_FMT " reason %s\n", mesh->nvert,
                        (double)(f - f0), its, SNESConvergedReasons[reason]));
  PetscCall(PetscFree5(mass, force, conn, fixed, fixval));
  PetscCall(SNESDestroy(&snes));
  PetscCall(VecDestroy(&X));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(MfadMeshDestroy(&mesh));
  PetscCall(PetscFinalize());
  return reason > 0 ? 0 : 1;
}
