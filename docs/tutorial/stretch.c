// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "Stretches a 4 x 1 x 1 bar of tetrahedra made of the energy in sym_dirichlet.c\n"
    "to 1.5 times its length: the end faces held, Newton from PETSc's options.\n";
#include <mfadmesh.h>
#include <mfadpetsc.h>

MFAD_KERNEL_DECLARE(sym_dirichlet); /* translated from sym_dirichlet.c by mfad-energy */

int main(int argc, char **argv)
{
  const PetscReal     lo[3] = {0, 0, 0}, hi[3] = {4, 1, 1};
  MfadMesh            mesh;
  MfadEnergy          E;
  SNES                snes;
  Vec                 X, G;
  PetscInt            vstart, vend, nfix = 0, *fix;
  PetscReal          *val, energy;
  const PetscScalar  *x;
  SNESConvergedReason reason;

  PetscCall(MfadInitialize(&argc, &argv, NULL, help)); /* PetscInitialize(), with a faster start for one process */
  PetscCall(MfadMeshCreateBox(16, 4, 4, lo, hi, &mesh));
  PetscCall(MfadEnergyCreateFromMesh(PETSC_COMM_WORLD, mesh, 3, &E));
  PetscCall(MfadEnergyAddTermFromMesh(E, mesh, MFAD_KERNEL(sym_dirichlet), NULL, 1.0, NULL));
  PetscCall(MfadEnergyCreateVecs(E, &X, &G));
  PetscCall(MfadEnergyCopyCoordinatesFromMesh(E, mesh, X));

  /* the end faces: x = 0 stays, x = 4 moves to x = 6 */
  PetscCall(MfadEnergyGetOwnershipRange(E, &vstart, &vend));
  PetscCall(PetscMalloc2(3 * (vend - vstart), &fix, 3 * (vend - vstart), &val));
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt v = vstart; v < vend; v++) {
    const PetscScalar *c = x + 3 * (v - vstart);
    if (c[0] > 0 && c[0] < 4) continue;
    for (PetscInt d = 0; d < 3; d++) fix[nfix] = 3 * v + d, val[nfix++] = d ? c[d] : 1.5 * c[0];
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(MfadEnergySetFixedDofs(E, nfix, fix, val));
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadEnergyApplyFixedValues(E, X));

  PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  PetscCall(MfadEnergySetSNES(E, snes));
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(SNESSolve(snes, NULL, X));
  PetscCall(SNESGetConvergedReason(snes, &reason));
  PetscCall(MfadEnergyComputeObjective(E, X, &energy));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "stretch: energy %.10e, %s\n", (double)energy, SNESConvergedReasons[reason]));

  PetscCall(PetscFree2(fix, val));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&G));
  PetscCall(SNESDestroy(&snes));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(MfadMeshDestroy(&mesh));
  PetscCall(PetscFinalize());
  return reason > 0 ? 0 : 1; /* a solve that did not converge is a failure */
}
